import Foundation
import Observation
import PrefsTool
import Synchronization
import Testing

@testable import PrefsCore

// What users of Defaults and UserDefaults reach for: optional and dynamic
// keys, several keys at once, old and new values, Hashable keys, bridges
// without Codable, Any in and out, didChange callbacks, Observation.

private let apiApp = "com.example.swiftapi"

/// How many times the dynamic default below has been computed.
private let dynamicDefaultCalls = Atomic<Int>(0)

extension Preferences.Keys {
    static let apiNickname = Preferences.Key<String?>("APINickname")
    static let apiThemeOrNil = Preferences.Key<Theme?>("APIThemeOrNil")
    static let apiLayoutOrNil = Preferences.Key<Layout?>("APILayoutOrNil")
    static let apiCores = Preferences.Key<Int>("APICores") {
        dynamicDefaultCalls.add(1, ordering: .relaxed).newValue + 100
    }
    static let apiA = Preferences.Key<Int>("APIA", default: 1)
    static let apiB = Preferences.Key<String>("APIB", default: "b")
    static let apiC = Preferences.Key<Bool>("APIC", default: false)
    static let apiRGB = Preferences.Key<RGB>("APIRGB", default: RGB(r: 0, g: 0, b: 0))
    static let apiTags = Preferences.Key<Tags>("APITags", default: Tags(propertyListElements: []))
    static let apiStandard = Preferences.Key<Int>("APIStandardKey", default: 3)
    static let apiRemote = Preferences.Key<Int>("APIRemote", default: 0)
    static let apiRemoteOther = Preferences.Key<String>("APIRemoteOther", default: "")
}

/// A bridge without Codable: stored as an array of three integers.
struct RGB: PropertyListConvertible, Sendable, Equatable {
    var r: Int, g: Int, b: Int
    init(r: Int, g: Int, b: Int) { (self.r, self.g, self.b) = (r, g, b) }
    var propertyList: PropertyList? { .array([.integer(r), .integer(g), .integer(b)]) }
    init?(propertyList plist: PropertyList) {
        guard let c = [Int](propertyList: plist), c.count == 3 else { return nil }
        (r, g, b) = (c[0], c[1], c[2])
    }
}

/// A collection stored as its elements.
struct Tags: Sequence, PropertyListElements, Sendable, Equatable {
    var items: [String]
    init(propertyListElements items: [String]) { self.items = items }
    func makeIterator() -> [String].Iterator { items.makeIterator() }
}

/// Runs `prefs` (the command's code, in this process) with `arguments`.
private func runPrefsCommand(_ arguments: [String]) -> Int32 {
    var cStrings = (["prefs"] + arguments).map { strdup($0) }
    defer { cStrings.forEach { free($0) } }
    cStrings.append(nil)
    return cStrings.withUnsafeBufferPointer { prefsToolMain(Int32(arguments.count + 1), $0.baseAddress!) }
}

/// `prefs <arguments>` run by another process over `box`'s directories.
private func prefsInAnotherProcess(_ box: StoreSandbox, _ arguments: [String]) {
    let r = runChildTest(
        named: "prefsCommandChild", role: "prefs-command",
        environment: [
            "XDG_CONFIG_HOME": box.config, "XDG_CACHE_HOME": box.root + "/cache", "XDG_RUNTIME_DIR": box.runtime,
            "PREFS_SYSTEM_DIR": box.system, "PREFS_MANAGED_DIR": box.managed,
            "PREFS_TEST_ARGUMENTS": arguments.joined(separator: "\u{1}"),
        ])
    #expect(r.status == 0, "prefs \(arguments) failed:\n\(r.output)")
}

@Suite("Swift API for Defaults and UserDefaults users")
struct SwiftAPITests {
    @Test func optionalKeysWithoutDefault() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            #expect(prefs[.apiNickname] == nil)
            #expect(DeclaredDefaults.value("APINickname", application: apiApp) == nil, "no default is declared for it")
            prefs[.apiNickname] = "Ada"
            #expect(prefs[.apiNickname] == "Ada")
            #expect(prefs.string(forKey: "APINickname") == "Ada")
            prefs[.apiNickname] = nil
            #expect(prefs.propertyList(forKey: "APINickname") == nil, "nil removes")

            prefs[.apiThemeOrNil] = .dark
            #expect(prefs.propertyList(forKey: "APIThemeOrNil") == .string("dark"))
            prefs[.apiThemeOrNil] = nil
            #expect(prefs[.apiThemeOrNil] == nil)

            prefs[.apiLayoutOrNil] = Layout(columns: 1, names: ["n"])
            #expect(prefs[.apiLayoutOrNil] == Layout(columns: 1, names: ["n"]))
            prefs[.apiLayoutOrNil] = nil
            #expect(prefs.propertyList(forKey: "APILayoutOrNil") == nil)
        }
    }

    @Test func dynamicDefaultsAreComputedAtEachRead() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            let first = prefs[.apiCores]
            let second = prefs[.apiCores]
            #expect(second == first + 1, "computed again at the second read")
            #expect(Preferences.Keys.apiCores.hasDynamicDefault)
            prefs[.apiCores] = 4
            let calls = dynamicDefaultCalls.load(ordering: .relaxed)
            #expect(prefs[.apiCores] == 4)
            #expect(dynamicDefaultCalls.load(ordering: .relaxed) == calls, "not computed when a value is stored")
            prefs.reset(.apiCores)
            #expect(prefs[.apiCores] > 100)
        }
    }

    @Test func resetOfSeveralKeys() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            prefs[.apiA] = 5
            prefs[.apiB] = "x"
            prefs[.apiC] = true
            prefs.reset(.apiA, .apiB)
            #expect(prefs[.apiA] == 1)
            #expect(prefs[.apiB] == "b")
            #expect(prefs[.apiC] == true, "a key not named stays")
            prefs.reset([.apiC])
            #expect(!prefs.isSet(.apiC))
        }
    }

    @Test func keysAreHashableByNameAndType() {
        let same = Preferences.Key<Int>("APIA", default: 1)
        #expect(same == Preferences.Keys.apiA)
        #expect(Preferences.Key<String>("APIA", default: "") != Preferences.Keys.apiA as Preferences.Keys)
        let set: Set<Preferences.Keys> = [Preferences.Keys.apiA, same, Preferences.Keys.apiB]
        #expect(set.count == 2)
        var titles: [Preferences.Keys: String] = [:]
        titles[Preferences.Keys.apiB] = "B"
        #expect(titles[Preferences.Key<String>("APIB", default: "b")] == "B")
    }

    @Test func bridgesWithoutCodableAndCollectionsAsElements() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            prefs[.apiRGB] = RGB(r: 1, g: 2, b: 3)
            #expect(prefs.propertyList(forKey: "APIRGB") == [1, 2, 3])
            #expect(prefs[.apiRGB] == RGB(r: 1, g: 2, b: 3))
            prefs.set([1, 2], forKey: "APIRGB")
            #expect(prefs[.apiRGB] == RGB(r: 0, g: 0, b: 0), "what init?(propertyList:) refuses reads as the default")
            prefs[.apiTags] = Tags(propertyListElements: ["a", "b"])
            #expect(prefs.propertyList(forKey: "APITags") == ["a", "b"])
            #expect(prefs[.apiTags].items == ["a", "b"])
            prefs.set(RGB(r: 9, g: 8, b: 7), forKey: "Loose")
            #expect(prefs.propertyList(forKey: "Loose") == [9, 8, 7])
        }
    }

    @Test func anyInAndOutAsUserDefaults() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: apiApp, store: box.store())
            let dict: [String: Any] = ["n": 1, "s": "x", "b": true, "d": 2.5, "a": [1, "two"], "bytes": [UInt8]([1])]
            prefs.set(dict, forKey: "Dict")
            let back = try #require(prefs.dictionary(forKey: "Dict"))
            #expect(back["n"] as? Int == 1)
            #expect(back["s"] as? String == "x")
            #expect(back["b"] as? Bool == true)
            #expect(back["d"] as? Double == 2.5)
            #expect((back["a"] as? [Any])?.first as? Int == 1)
            if AnyValues.bridge == nil {
                #expect(back["bytes"] as? [UInt8] == [1], "data is [UInt8] without PrefsFoundation")
            } else {
                #expect("\(type(of: back["bytes"]!))" == "Data", "Data where PrefsFoundation is linked")
            }
            #expect(prefs.object(forKey: "Dict") is [String: Any])
            #expect(prefs.array(forKey: "Missing") == nil)
            prefs.set([3, 4] as [Int], forKey: "Numbers")
            #expect(prefs.array(forKey: "Numbers") as? [Int] == [3, 4])
            #expect(prefs.object(forKey: "Numbers") as? [Int] == [3, 4])
            let optional: Int? = nil
            prefs.set(optional as Any?, forKey: "Numbers")
            #expect(prefs.object(forKey: "Numbers") == nil, "nil inside Any removes")

            // Refused as UserDefaults refuses them; the twin says why.
            struct NotAPlist {}
            prefs.set(NotAPlist(), forKey: "Bad")
            #expect(prefs.object(forKey: "Bad") == nil)
            let e = expectPrefsError(.unrepresentable) { try prefs.trySet(["ok": 1, "bad": NotAPlist()] as [String: Any], forKey: "Bad") }
            #expect(e?.message.contains("NotAPlist") == true)
            prefs.register(defaults: ["R1": 1, "R2": NotAPlist()])
            #expect(prefs.object(forKey: "R1") == nil, "nothing of a refused registration is kept")
            prefs.register(defaults: ["R1": 1, "R2": ["x": 2.0]])
            #expect(prefs.integer(forKey: "R1") == 1)
            #expect(prefs.dictionary(forKey: "R2")?["x"] as? Double == 2.0)

            prefs.setVolatileDomain(["V": 7], forName: "APIVolatile")
            #expect(prefs.volatileDomain(forName: "APIVolatile")["V"] as? Int == 7)
            prefs.setPersistentDomain(["P": "p", "Q": [1]], forName: "com.example.swiftapi.other")
            let persistent = try #require(prefs.persistentDomain(forName: "com.example.swiftapi.other"))
            #expect(persistent["P"] as? String == "p")
            #expect(persistent["Q"] as? [Int] == [1])
            #expect(prefs.dictionaryRepresentation()["R1"] as? Int == 1)
            let asPlist: [String: PropertyList] = prefs.dictionaryRepresentation()
            #expect(asPlist["R1"] == 1, "the PropertyList twin is chosen by context")
        }
    }

    @Test func suiteNameNilIsStandard() {
        #expect(Preferences(suiteName: nil)?.applicationID == Preferences.standard.applicationID)
        // A String? argument picks the failable form, as UserDefaults has it.
        #expect(Preferences(suiteName: "NSGlobalDomain" as String?) == nil)
        #expect(Preferences(suiteName: "../bad" as String?) == nil)
        #expect(Preferences(suiteName: "group.example.swiftapi")!.applicationID == "group.example.swiftapi")
    }

    @Test func staticSubscriptIsStandard() {
        // The standard preferences of this test process live in a child
        // with its own config directory.
        inSandbox { box in
            let r = runChildTest(
                named: "staticSubscriptChild", role: "static-subscript",
                environment: ["XDG_CONFIG_HOME": box.config, "XDG_CACHE_HOME": box.root + "/cache"])
            #expect(r.status == 0, "child failed:\n\(r.output)")
        }
    }

    @Test(.enabled(if: isChildRole("static-subscript")))
    func staticSubscriptChild() {
        #expect(Preferences[.apiStandard] == 3)
        Preferences[.apiStandard] = 8
        #expect(Preferences.standard[.apiStandard] == 8)
        #expect(Preferences.standard.integer(forKey: "APIStandardKey") == 8)
    }

    @Test func didChangeCallbacksForEveryChangeMadeThroughPreferences() throws {
        try inSandbox { box in
            writePlist(["Forced": 1], to: box.managedPath(apiApp, userOnly: false))
            let store = box.store()
            let prefs = try Preferences(applicationID: apiApp, store: store)
            let other = try Preferences(applicationID: "com.example.swiftapi.unrelated", store: store)
            let seen = Received<String>()
            let token = prefs.onDidChange { p in seen.add(p.applicationID) }
            prefs.set(1, forKey: "K")
            prefs.set(1, forKey: "K")  // an equal value still counts
            prefs.removeObject(forKey: "K")
            prefs.setVolatileDomain(["x": 1], forName: "APIDidChange")
            prefs.removeVolatileDomain(forName: "APIDidChange")
            prefs.addSuite(named: "group.example.swiftapi")
            prefs.removeSuite(named: "group.example.swiftapi")
            prefs[.apiA] = 2
            prefs.reset(.apiA, .apiB)
            other.set(1, forKey: "K")  // another application: not this one's
            #expect(seen.all == Array(repeating: apiApp, count: 9))
            prefs.set(2, forKey: "Forced")  // refused: no callback
            #expect(seen.all.count == 9)
            token.cancel()
            prefs.set(3, forKey: "K")
            #expect(seen.all.count == 9, "nothing after cancel")
            let all = Received<String>()
            let everyOne = Preferences.onDidChange { p in all.add(p.applicationID) }
            other.set(2, forKey: "K")
            prefs.set(4, forKey: "K")
            #expect(all.all.suffix(2) == ["com.example.swiftapi.unrelated", apiApp])
            everyOne.cancel()
        }
    }

    @Test func updatesWithoutTheInitialValue() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: apiApp, store: box.store())
        prefs[.apiA] = 5
        let typed = prefs.updates(for: .apiA, initial: false)
        let untyped = prefs.updates(forKey: "APIA", initial: false)
        prefs[.apiA] = 6
        for await v in typed {
            #expect(v == 6, "the next change first, not the current value")
            break
        }
        for await v in untyped {
            #expect(v == .integer(6))
            break
        }
    }

    @Test func streamOfSeveralKeysSeesAnotherProcessesPrefsWrite() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: apiApp, store: box.store())
        var initial = 0
        for await _ in prefs.updates(for: [.apiRemote, .apiRemoteOther]) {
            initial += 1
            break
        }
        #expect(initial == 1, "the initial element")
        let stream = prefs.updates(for: [.apiRemote, .apiRemoteOther], initial: false)
        // The writes run on a thread of their own while the loop waits.
        let writer = Task.detached {
            prefsInAnotherProcess(box, ["write", apiApp, "APIRemote", "-int", "5"])
            prefsInAnotherProcess(box, ["write", apiApp, "APIUnrelated", "-int", "1"])
            prefsInAnotherProcess(box, ["write", apiApp, "APIRemoteOther", "-string", "x"])
        }
        var seen: [Int] = []
        for await _ in stream {
            seen.append(seen.count)
            if seen.count == 2 {
                // Had the unrelated key yielded, this element would come
                // before the last write.
                await writer.value
                #expect(prefs[.apiRemoteOther] == "x")
                break
            }
        }
        #expect(prefs[.apiRemote] == 5)
    }

    @Test func observeGivesOldAndNewValuesAcrossProcesses() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: apiApp, store: box.store())
        let changes = Received<(Int, Int)>()
        let plain = Received<Int>()
        let token = prefs.observe(.apiRemote) { change in changes.add((change.oldValue, change.newValue)) }
        let plainToken = prefs.observe(.apiRemote) { newValue in plain.add(newValue) }
        prefs[.apiRemote] = 3
        #expect(changes.wait(for: 1).map { [$0.0, $0.1] } == [[0, 3]])
        // On disk before the other process writes, or this process's
        // pending 3 would be written over its 9.
        prefs.synchronize()
        prefsInAnotherProcess(box, ["write", apiApp, "APIRemote", "-int", "9"])
        #expect(changes.wait(for: 2).map { [$0.0, $0.1] } == [[0, 3], [3, 9]])
        #expect(plain.wait(for: 2) == [3, 9], "the new-value form stays as it was")
        token.cancel()
        plainToken.cancel()
    }

    @Test func observableModelFollowsAnotherProcess() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: apiApp, store: box.store())
        let model = RemoteModel(prefs)
        #expect(model.remote == 0)
        let fired = Received<Bool>()
        withObservationTracking {
            _ = model.remote
        } onChange: {
            fired.add(true)
        }
        prefsInAnotherProcess(box, ["write", apiApp, "APIRemote", "-int", "42"])
        #expect(fired.wait(for: 1).count == 1, "the model's observers hear of another process's write")
        #expect(model.remote == 42)
        let firedAgain = Received<Bool>()
        withObservationTracking {
            _ = model.remote
        } onChange: {
            firedAgain.add(true)
        }
        model.remote = 7
        #expect(firedAgain.all.count == 1, "a set through the model is reported at once")
        #expect(prefs[.apiRemote] == 7)
    }

    @Test(.enabled(if: isChildRole("prefs-command")))
    func prefsCommandChild() throws {
        let arguments = try #require(ProcessInfo.processInfo.environment["PREFS_TEST_ARGUMENTS"])
        #expect(runPrefsCommand(arguments.split(separator: "\u{1}").map(String.init)) == 0)
    }
}

/// An @Observable model whose property follows a preference.
@Observable final class RemoteModel: @unchecked Sendable {
    @ObservationIgnored let pref: ObservablePreference<Int>
    init(_ prefs: Preferences) { pref = ObservablePreference(.apiRemote, in: prefs) }
    var remote: Int {
        get { pref.value }
        set { pref.value = newValue }
    }
}
