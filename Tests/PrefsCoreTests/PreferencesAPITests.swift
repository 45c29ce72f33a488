import Foundation
import Testing

@testable import PrefsCore

private let apiApp = "com.example.api"

/// A Codable value as a program would keep in its preferences.
struct WindowState: Codable, Equatable {
    var width: Int
    var height: Double
    var title: String
    var tabs: [String]
    var pinned: Bool?
    var raw: [UInt8]
}

@Suite("Preferences API")
struct PreferencesAPITests {
    // MARK: Values from variables

    @Test func everyListedTypePassesAsAVariable() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            let s = "text", b = true, i = 7, i64: Int64 = -9, u64 = UInt64.max, d = 1.5, f: Float = 2.5
            let bytes: [UInt8] = [1, 2, 3], plist: PropertyList = ["a": 1]
            let opt: String? = "here", none: Int? = nil
            let strings = ["a", "b"], dict: [String: Int] = ["x": 1], nested: [String: [Double]] = ["r": [1.5]]
            prefs.set(s, forKey: "s")
            prefs.set(b, forKey: "b")
            prefs.set(i, forKey: "i")
            prefs.set(i64, forKey: "i64")
            prefs.set(u64, forKey: "u64")
            prefs.set(d, forKey: "d")
            prefs.set(f, forKey: "f")
            prefs.set(bytes, forKey: "bytes")
            prefs.set(plist, forKey: "plist")
            prefs.set(opt, forKey: "opt")
            prefs.set(strings, forKey: "strings")
            prefs.set(dict, forKey: "dict")
            prefs.set(nested, forKey: "nested")
            prefs.set(["literal": 1, "mixed": "yes"], forKey: "literal")
            #expect(prefs.object(forKey: "s") == .string("text"))
            #expect(prefs.object(forKey: "b") == .boolean(true))
            #expect(prefs.object(forKey: "i") == .integer(7))
            #expect(prefs.object(forKey: "i64") == .integer(-9))
            #expect(prefs.object(forKey: "u64") == .integer(UInt64.max))
            #expect(prefs.object(forKey: "d") == .real(1.5))
            #expect(prefs.object(forKey: "f") == .real(2.5))
            #expect(prefs.object(forKey: "bytes") == .data([1, 2, 3]))
            #expect(prefs.object(forKey: "plist") == plist)
            #expect(prefs.object(forKey: "opt") == .string("here"))
            #expect(prefs.object(forKey: "strings") == ["a", "b"])
            #expect(prefs.object(forKey: "dict") == ["x": 1])
            #expect(prefs.object(forKey: "nested") == ["r": [1.5]])
            #expect(prefs.object(forKey: "literal") == ["literal": 1, "mixed": "yes"])
            prefs.set(none, forKey: "opt")
            #expect(prefs.object(forKey: "opt") == nil, "nil removes")
        }
    }

    @Test func codableIsStoredAsNativeValues() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: apiApp, store: store)
            let w = WindowState(width: 800, height: 600.5, title: "Main", tabs: ["a", "b"], pinned: nil, raw: [0, 255])
            try prefs.trySet(w, forKey: "Window")
            let stored = try #require(prefs.propertyList(forKey: "Window"))
            #expect(
                stored == ["width": 800, "height": 600.5, "title": "Main", "tabs": ["a", "b"], "raw": PropertyList.data([0, 255])],
                "a struct is a dictionary, nil left out, [UInt8] data")
            #expect(prefs.value(WindowState.self, forKey: "Window") == w)
            try prefs.trySynchronize()
            let onDisk = try #require(readPlist(box.expectedPath(apiApp)))
            #expect(onDisk["Window"]?.kind == .dictionary, "no JSON text or archive on disk")
            // An array of Codable values is an array of dictionaries.
            prefs.set([w, w], forKey: "Windows")
            #expect(prefs.array(forKey: "Windows")?.count == 2)
            #expect(prefs.value([WindowState].self, forKey: "Windows") == [w, w])
            // Another shape decodes as nil, never a crash.
            prefs.set("text", forKey: "Window")
            #expect(prefs.value(WindowState.self, forKey: "Window") == nil)
        }
    }

    @Test func encoderRoundTripsEnumsAndNesting() throws {
        enum Mode: String, Codable { case light, dark }
        struct Inner: Codable, Equatable { var mode: Mode; var sizes: [String: Int] }
        struct Outer: Codable, Equatable { var inner: Inner; var list: [Inner]; var big: UInt64 }
        let v = Outer(inner: .init(mode: .dark, sizes: ["a": 1]), list: [.init(mode: .light, sizes: [:])], big: .max)
        let p = try PropertyListValueEncoder().encode(v)
        #expect(p["inner"]?["mode"] == .string("dark"))
        #expect(p["big"] == .integer(UInt64.max))
        #expect(try PropertyListValueDecoder().decode(Outer.self, from: p) == v)
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Outer.self, from: .string("x")) }
        // PropertyList itself is Codable through other coders too.
        let mixed: PropertyList = ["a": [1, "b", true]]
        let json = try JSONEncoder().encode(mixed)
        #expect(try JSONDecoder().decode(PropertyList.self, from: json) == ["a": [1, "b", true]])
    }

    // MARK: UserDefaults' getters

    /// The values every getter is asked about, and what each
    /// swift-corelibs-foundation `UserDefaults` getter returns for them.
    static let coercionCases: [(String, PropertyList)] = [
        ("int", .integer(42)), ("neg", .integer(-7)), ("real", .real(12.75)), ("realneg", .real(-3.5)),
        ("bool", .boolean(true)), ("boolf", .boolean(false)), ("s1234", .string("12.34")), ("s42", .string("42")),
        ("syes", .string("YES")), ("strue", .string("true")), ("sno", .string("no")), ("sx", .string("abc")),
        ("s1", .string("1")), ("s0", .string("0")), ("data", .data([1, 2])), ("arr", ["a", "b"]),
        ("arrmix", ["a", 1]), ("dict", ["a": 1]), ("s_sp", .string(" 42 ")), ("s12x", .string("12abc")),
        ("s1e3", .string("1e3")), ("sneg", .string("-12.9")), ("sy", .string("y")), ("s00t", .string("  -007")),
    ]

    /// What the getters return, one line per key, for comparison.
    static func describeGetters(
        _ keys: [String], string: (String) -> String?, integer: (String) -> Int, double: (String) -> Double,
        float: (String) -> Float, bool: (String) -> Bool, stringArray: (String) -> [String]?, arrayCount: (String) -> Int?,
        isDictionary: (String) -> Bool, dataCount: (String) -> Int?
    ) -> [String] {
        (keys + ["absent"]).map { k in
            "\(k) string=\(string(k) ?? "nil") int=\(integer(k)) double=\(double(k)) float=\(float(k)) bool=\(bool(k)) "
                + "sa=\(stringArray(k).map { "\($0)" } ?? "nil") arr=\(arrayCount(k).map(String.init) ?? "nil") "
                + "dict=\(isDictionary(k)) data=\(dataCount(k).map(String.init) ?? "nil")"
        }
    }

    static func libprefsGetters(_ prefs: Preferences) -> [String] {
        describeGetters(
            coercionCases.map(\.0), string: prefs.string(forKey:), integer: prefs.integer(forKey:),
            double: prefs.double(forKey:), float: prefs.float(forKey:), bool: prefs.bool(forKey:),
            stringArray: prefs.stringArray(forKey:), arrayCount: { prefs.array(forKey: $0)?.count },
            isDictionary: { prefs.dictionary(forKey: $0) != nil }, dataCount: { prefs.data(forKey: $0)?.count })
    }

    /// Each getter against the real `UserDefaults` of this machine, in a
    /// child process whose configuration directory is a sandbox.
    @Test func gettersCoerceAsUserDefaults() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            for (k, v) in Self.coercionCases { prefs.set(v, forKey: k) }
            let ours = Self.libprefsGetters(prefs)
            let r = runChildTest(
                named: "userDefaultsGettersChild", role: "user-defaults-getters",
                environment: ["HOME": box.root, "XDG_CONFIG_HOME": box.config])
            #expect(r.status == 0, "child failed:\n\(r.output)")
            let theirs = r.output.split(separator: "\n").filter { $0.hasPrefix("UD ") }.map { String($0.dropFirst(3)) }
            #expect(theirs.count == ours.count, "the child printed:\n\(r.output)")
            for (a, b) in zip(ours, theirs) { #expect(a == b) }
        }
    }

    @Test(.enabled(if: isChildRole("user-defaults-getters")))
    func userDefaultsGettersChild() throws {
        let d = try #require(UserDefaults(suiteName: "com.example.api.foundation"))
        for (k, v) in Self.coercionCases { d.set(foundationObject(v), forKey: k) }
        let lines = Self.describeGetters(
            Self.coercionCases.map(\.0), string: d.string(forKey:), integer: d.integer(forKey:), double: d.double(forKey:),
            float: d.float(forKey:), bool: d.bool(forKey:), stringArray: d.stringArray(forKey:),
            arrayCount: { d.array(forKey: $0)?.count }, isDictionary: { d.dictionary(forKey: $0) != nil },
            dataCount: { d.data(forKey: $0)?.count })
        for l in lines { print("UD " + l) }
    }

    private func foundationObject(_ v: PropertyList) -> Any {
        switch v.value {
        case .string(let s): return s
        case .integer(let i): return Int(i)
        case .real(let d): return d
        case .boolean(let b): return b
        case .data(let bytes): return Data(bytes)
        case .array(let a): return a.map(foundationObject)
        case .dictionary(let d): return Dictionary(uniqueKeysWithValues: d.map { ($0.key.string, foundationObject($0.value)) })
        case .uid(let u): return ["CF$UID": Int(u)]
        case .date(let t): return Date(timeIntervalSince1970: t)
        }
    }

    // MARK: Domains

    @Test func suitesPersistentAndVolatileDomains() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: apiApp, store: store)
            let group = try Preferences(suiteName: "group.example", store: store)
            #expect(throws: PrefsError.self) { try Preferences(suiteName: "NSGlobalDomain", store: store) }
            #expect(throws: PrefsError.self) { try Preferences(suiteName: "a/b", store: store) }
            group.set("shared", forKey: "G")
            #expect(prefs.string(forKey: "G") == nil)
            prefs.addSuite(named: "group.example")
            #expect(prefs.string(forKey: "G") == "shared")
            prefs.removeSuite(named: "group.example")
            #expect(prefs.string(forKey: "G") == nil)

            prefs.setPersistentDomain(["A": 1, "B": "two"], forName: "com.example.other")
            #expect(prefs.persistentDomain(forName: "com.example.other") == ["A": 1, "B": "two"])
            prefs.setPersistentDomain(["B": "three"], forName: "com.example.other")
            #expect(prefs.persistentDomain(forName: "com.example.other") == ["B": "three"], "replaced, not merged")
            try store.synchronizeAll()
            #expect(store.applications(user: .current, host: .any).contains("com.example.other"))
            prefs.removePersistentDomain(forName: "com.example.other")
            #expect(prefs.persistentDomain(forName: "com.example.other") == nil)
            #expect(!FileManager.default.fileExists(atPath: box.expectedPath("com.example.other")), "the file is gone")
            #expect(!store.applications(user: .current, host: .any).contains("com.example.other"))

            #expect(prefs.volatileDomainNames == ["NSArgumentDomain"])
            prefs.setVolatileDomain(["V": 5], forName: "scratch")
            #expect(prefs.volatileDomain(forName: "scratch") == ["V": 5])
            #expect(prefs.volatileDomainNames == ["NSArgumentDomain", "scratch"])
            prefs.removeVolatileDomain(forName: "scratch")
            #expect(prefs.volatileDomainNames == ["NSArgumentDomain"])

            prefs.register(defaults: ["R": 3, "S": "x"])
            #expect(prefs.integer(forKey: "R") == 3)
            #expect(prefs.dictionaryRepresentation()["S"] == .string("x"))
        }
    }

    /// The process's and the global preferences are named as
    /// `UserDefaults.standard` and `NSGlobalDomain` are (reading creates nothing).
    @Test func standardAndGlobal() {
        #expect(Preferences.standard.applicationID == ApplicationID.current)
        #expect(Preferences.global.applicationID == "NSGlobalDomain")
        #expect(Preferences.global.store === PreferencesStore.shared)
    }

    @Test func refusedWritesChangeNothingAndTheTwinsSayWhy() throws {
        try inSandbox { box in
            writePlist(["Locked": 1], to: box.managedPath(apiApp, userOnly: false))
            let store = box.store()
            let prefs = try Preferences(applicationID: apiApp, store: store)
            #expect(prefs.objectIsForced(forKey: "Locked"))
            prefs.set(2, forKey: "Locked")
            #expect(prefs.integer(forKey: "Locked") == 1)
            _ = expectPrefsError(.forcedValue) { try prefs.trySet(2, forKey: "Locked") }
            _ = expectPrefsError(.forcedValue) { try prefs.tryRemoveObject(forKey: "Locked") }
            // Too long for any domain file: refused, nothing changes.
            let tooLong = String(repeating: "x", count: PropertyList.maxTextLength + 1)
            prefs.set(tooLong, forKey: "Text")
            #expect(prefs.object(forKey: "Text") == nil)
            _ = expectPrefsError(.unrepresentable) { try prefs.trySet(tooLong, forKey: "Text") }
            // A control character is kept (the domain's file becomes binary).
            try prefs.trySet("bad\u{1}", forKey: "Text")
            #expect(prefs.object(forKey: "Text") == .string("bad\u{1}"))
            _ = expectPrefsError(.invalidApplicationID) { try prefs.tryAddSuite(named: "a/b") }
        }
    }
}
