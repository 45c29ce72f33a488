import Foundation
import Testing

@testable import PrefsCore

// An installed schema binds the keys it names: every writer refuses a value
// that breaks a key's type, range or listed values, and a stored value that
// breaks them (written by a tool that does not know the schema) reads as the
// schema's default, through every reading path of the store.

private let app = "com.example.every"

/// The schema with a specifier of every type, shared with the C, command and
/// terminal tests: Tests/schemas/com.example.every.plist.
private let everySchema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("schemas/\(app).plist").path

/// A value as a binary property list (which carries any string), for
/// schemas written by the tests.
private func binary(_ v: PropertyList) throws -> [UInt8] { try v.binaryData() }

@Suite struct SchemaConstraintTests {
    private func store(_ box: StoreSandbox, dirs: [String]) -> PreferencesStore {
        let l = box.locations
        return PreferencesStore(
            locations: Locations(
                userDirectory: l.userDirectory, systemDirectory: l.systemDirectory, managedDirectory: l.managedDirectory,
                hostID: l.hostID, userName: l.userName, runtimeDirectory: l.runtimeDirectory, schemaDirectories: dirs),
            arguments: ["test-program"])
    }

    private func install(_ box: StoreSandbox) throws -> String {
        let dir = box.root + "/data"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: everySchema, toPath: "\(dir)/\(app).plist")
        return dir
    }

    private let own = DomainID(application: app, user: .current, host: .any)

    /// (key, a value the schema accepts, values it refuses).
    private let cases: [(String, PropertyList, [PropertyList])] = [
        ("Toggle", .boolean(false), [.integer(1), .string("YES")]),
        ("YesNo", .string("no"), [.string("maybe"), .boolean(true)]),
        ("Size", .integer(72), [.integer(1000), .integer(7), .real(13), .string("13")]),
        ("Spacing", .integer(2), [.real(3.5), .real(.nan), .real(.infinity), .string("wide")]),
        ("Theme", .string("dark"), [.string("sepia"), .integer(0)]),
        ("Level", .integer(3), [.integer(4), .real(1), .string("1")]),
        ("Name", .string("Bob"), [.integer(3), .data([1])]),
        ("Version", .string("2.0"), [.real(2), .boolean(true)]),
        ("Since", .date(86400), [.real(0), .string("2001-01-01")]),
        ("Token", .data([]), [.string("AP8="), .array([])]),
    ]

    @Test func everyWriterRefusesWhatTheSchemaRefusesAndStoresNothing() throws {
        try inSandbox { box in
            let s = store(box, dirs: [try install(box)])
            let prefs = try Preferences(applicationID: app, store: s)
            let handle = try s.handle(application: app)
            for (key, good, bad) in cases {
                for value in bad {
                    let e1 = #expect(throws: PrefsError.self) { try s.set([(key, value)], in: own) }
                    #expect(e1?.code == .schemaViolation, "\(key) = \(value)")
                    #expect(e1?.message.contains(key) == true)
                    let e2 = #expect(throws: PrefsError.self) { try s.set(key, value, in: handle) }
                    #expect(e2?.code == .schemaViolation)
                    #expect(throws: PrefsError.self) { try prefs.trySet(value, forKey: key) }
                    prefs.set(value, forKey: key)
                    // A change of several keys is refused whole.
                    #expect(throws: PrefsError.self) { try s.set([("Free", .integer(1)), (key, value)], in: own) }
                }
                #expect(try s.values(in: own)[PropertyList.Key(key)] == nil, "\(key): nothing stored")
                try prefs.trySet(good, forKey: key)
                #expect(prefs.object(forKey: key) == good)
            }
            // Keys the schema does not bind stay free.
            for key in ["Free", "Broken"] { try s.set([(key, .string("anything"))], in: own) }
            #expect(try s.value(forKey: "Broken", application: app) == .string("anything"))
            // Removing is always allowed.
            try s.set([("Size", nil)], in: own)
            #expect(try s.value(forKey: "Size", application: app) == .integer(13))
            // The message names the key and what it accepts.
            let e = #expect(throws: PrefsError.self) { try s.set([("Size", .integer(1000))], in: own) }
            #expect(e?.message == "Size of \(app) accepts an integer from 8 to 72 (its installed schema), not 1000; nothing was changed")
            let t = #expect(throws: PrefsError.self) { try s.set([("Theme", .string("sepia"))], in: own) }
            #expect(t?.message.contains("accepts one of light, dark, system") == true)
        }
    }

    /// Values written by a store that knows no schema (another tool, an
    /// older version, a hand edit) read as the schema's default, with the
    /// schema as their source, before and after the merged view is built.
    @Test func storedValuesThatBreakTheSchemaReadAsItsDefault() throws {
        try inSandbox { box in
            let dir = try install(box)
            let blind = store(box, dirs: [])
            for (key, _, bad) in cases { try blind.set([(key, bad[0])], in: own) }
            try blind.set([("Spacing", .real(.nan))], in: own)
            try blind.synchronize(own)
            let stored = try blind.values(in: own)

            let s = store(box, dirs: [dir])
            let prefs = try Preferences(applicationID: app, store: s)
            let schema = try #require(try s.installedSchema(application: app)).schema
            for round in 0..<2 {
                for (key, _, _) in cases {
                    let want = schema.defaults[PropertyList.Key(key)]
                    #expect(prefs.object(forKey: key) == want, "\(key), round \(round)")
                    let found = try s.valueAndSource(forKey: key, application: app)
                    #expect(found?.value == want && found?.source == PreferenceSource(.schema, domain: app), "\(key)")
                    let all = try s.sources(forKey: key, application: app)
                    #expect(all.first?.source.layer == .schema && all.count == 2 && all[1].source.layer == .app, "\(key): \(all)")
                    #expect(try s.dictionary(application: app)[PropertyList.Key(key)] == want)
                }
                // Enough reads to build the merged view, then again.
                for _ in 0...PreferencesStore.mergeAfterReads { _ = prefs.object(forKey: "Size") }
            }
            #expect(prefs[Preferences.Key<Int>("Size", default: 0)] == 13)
            // The file is left as it was.
            try s.synchronize(application: app)
            #expect(try store(box, dirs: []).values(in: own) == stored)
        }
    }

    @Test func hostileRangesBindNothingOrRefuseNaN() throws {
        func constraint(_ type: String, _ fields: [String: PropertyList]) throws -> SettingsSchema.Constraint? {
            var d: [String: PropertyList] = ["Key": .string("K"), "Type": .string(type)]
            for (k, v) in fields { d[k] = v }
            let bytes = try binary(.dictionary(["PreferenceSpecifiers": .array([.dictionary(d)])]))
            return try SettingsSchema.parse(bytes, name: "t").keyed.first?.constraint
        }
        let slider = "PSSliderSpecifier"
        #expect(try constraint(slider, ["DefaultValue": .integer(5), "MinimumValue": .integer(10), "MaximumValue": .integer(1)]) == nil)
        #expect(try constraint(slider, ["DefaultValue": .real(5), "MaximumValue": .real(.nan)]) == nil)
        #expect(try constraint(slider, ["DefaultValue": .real(.nan), "MaximumValue": .real(3)]) == nil)
        let inf = try #require(try constraint(slider, ["DefaultValue": .real(5), "MinimumValue": .real(-.infinity), "MaximumValue": .real(.infinity)]))
        #expect(inf.accepts(.real(1e308)) && inf.accepts(.real(.infinity)) && !inf.accepts(.real(.nan)))
        let huge = try #require(
            try constraint(slider, ["DefaultValue": .integer(0), "MinimumValue": .integer(Int64.min), "MaximumValue": .integer(UInt64.max)]))
        #expect(huge.accepts(.integer(UInt64.max)) && huge.accepts(.integer(Int64.min)) && !huge.accepts(.real(0)))
        let free = try #require(try constraint(slider, ["DefaultValue": .real(5)]))
        #expect(free.accepts(.real(.nan)) && free.accepts(.integer(-1)) && !free.accepts(.string("1")))
        #expect(try constraint("PSMultiValueSpecifier", ["DefaultValue": .string("a"), "Values": .array([])])?.summary == "a string")
        #expect(try constraint("PSChildPaneSpecifier", ["DefaultValue": .string("a")]) == nil)
        let escape = PropertyList.string("\u{1b}[2J\u{202e}")
        let listed = try #require(try constraint("PSMultiValueSpecifier", ["DefaultValue": escape, "Values": .array([escape, .string("b")])]))
        #expect(!listed.summary.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        let many = try #require(
            try constraint("PSMultiValueSpecifier", ["DefaultValue": .integer(0), "Values": .array((0..<10000).map { .integer($0) })]))
        #expect(many.summary.hasSuffix("... (10000 values)") && many.accepts(.integer(9999)) && !many.accepts(.integer(10000)))
        // Containers and data among the values: still one line.
        let mixed = try #require(
            try constraint(
                "PSMultiValueSpecifier",
                ["DefaultValue": .integer(1), "Values": .array([.integer(1), .array([.integer(1), .string("a\nb")]), .dictionary(["k": .data([1])])])]))
        #expect(mixed.summary == "one of 1, ( 1, \"a\\nb\" ), { k = {length = 1, bytes = 0x01}; }")
    }

    @Test func aKeyIsDescribedOnce() throws {
        try inSandbox { box in
            let s = store(box, dirs: [try install(box)])
            let prefs = try Preferences(applicationID: app, store: s)
            let size = try #require(prefs.schemaDescription(forKey: "Size"))
            #expect(size.specifierType == "PSSliderSpecifier" && size.valueType == "integer" && size.title == "Font size")
            #expect(size.minimum == 8 && size.maximum == 72 && size.defaultValue == .integer(13) && size.isBound)
            let level = try #require(prefs.schemaDescription(forKey: "Level"))
            #expect(level.values == [.integer(1), .integer(2), .integer(3)] && level.titles == ["Low", "Middle", "High"])
            #expect(level.propertyList["Accepts"] == .string("one of 1, 2, 3"))
            let toggle = try #require(prefs.schemaDescription(forKey: "Toggle"))
            #expect(toggle.description == "A switch that is on or off." && toggle.valueType == "boolean")
            #expect(prefs.schemaDescription(forKey: "Broken")?.isBound == false)
            #expect(prefs.schemaDescription(forKey: "Unknown") == nil)
        }
    }

    /// The keys `prefs schema swift` generates carry the schema's rule:
    /// they read the default for a stored value that breaks it even where
    /// no schema is installed, and refuse to store one.
    @Test func typedKeysWithARule() throws {
        try inSandbox { box in
            let s = store(box, dirs: [])
            let prefs = try Preferences(applicationID: app, store: s)
            let size = Preferences.Key<Int>("RuleSize", default: 13) { p in
                guard let x = p.integerValue.map({ Double($0) }) else { return false }
                return x >= 8 && x <= 72
            }
            try s.set([("RuleSize", .integer(1000))], in: own)
            #expect(prefs[size] == 13)
            #expect(prefs.object(forKey: "RuleSize") == .integer(1000))
            let e = #expect(throws: PrefsError.self) { try prefs.set(2000, for: size) }
            #expect(e?.code == .schemaViolation)
            #expect(prefs.object(forKey: "RuleSize") == .integer(1000))
            try prefs.set(20, for: size)
            #expect(prefs[size] == 20)
        }
    }
}
