import Foundation
import Testing

@testable import PrefsCore

private let keysApp = "com.example.keys"

enum Theme: String, Codable, Sendable { case light, dark }
struct Layout: Codable, Equatable, Sendable {
    var columns: Int
    var names: [String]
}

extension Preferences.Keys {
    static let testFontSize = Preferences.Key<Int>("TestFontSize", default: 12)
    static let testTheme = Preferences.Key<Theme>("TestTheme", default: .light)
    static let testRecent = Preferences.Key<[String]>("TestRecent", default: [])
    static let testLayout = Preferences.Key<Layout>("TestLayout", default: Layout(columns: 2, names: []))
    static let testName = Preferences.Key<String?>("TestName", default: nil)
    static let testWatched = Preferences.Key<Int>("TestWatched", default: 1)
    static let testStreamed = Preferences.Key<Int>("TestStreamed", default: 0)
}

/// Collects values a callback receives, from any thread.
final class Received<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func add(_ v: T) { lock.withLock { items.append(v) } }
    var all: [T] { lock.withLock { items } }
    /// Waits up to `seconds` for `count` values.
    func wait(for count: Int, seconds: Double = 5) -> [T] {
        let end = Date().addingTimeInterval(seconds)
        while all.count < count && Date() < end { usleep(5_000) }
        return all
    }
}

@Suite("Typed keys and change streams")
struct TypedKeyTests {
    @Test func defaultsSetResetAndIsSet() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: keysApp, store: box.store())
            #expect(prefs[.testFontSize] == 12)
            #expect(!prefs.isSet(.testFontSize))
            prefs[.testFontSize] = 14
            #expect(prefs[.testFontSize] == 14)
            #expect(prefs.integer(forKey: "TestFontSize") == 14)
            #expect(prefs.isSet(.testFontSize))
            prefs.reset(.testFontSize)
            #expect(prefs[.testFontSize] == 12)
            #expect(!prefs.isSet(.testFontSize))
            try prefs.set(.dark, for: .testTheme)
            #expect(prefs.object(forKey: "TestTheme") == .string("dark"))
            #expect(prefs[.testTheme] == .dark)
            prefs[.testRecent] = ["a.txt", "b.txt"]
            #expect(prefs[.testRecent] == ["a.txt", "b.txt"])
            prefs[.testLayout] = Layout(columns: 3, names: ["x"])
            #expect(prefs.object(forKey: "TestLayout") == ["columns": 3, "names": ["x"]])
            #expect(prefs[.testLayout] == Layout(columns: 3, names: ["x"]))
            #expect(prefs[.testName] == nil)
            prefs[.testName] = "Ada"
            #expect(prefs[.testName] == "Ada")
            prefs[.testName] = nil
            #expect(prefs.object(forKey: "TestName") == nil)
        }
    }

    @Test func wrongTypesReadAsTheDefault() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: keysApp, store: box.store())
            prefs.set("big", forKey: "TestFontSize")
            #expect(prefs[.testFontSize] == 12)
            prefs.set("purple", forKey: "TestTheme")
            #expect(prefs[.testTheme] == .light)
            prefs.set([1, 2], forKey: "TestRecent")
            #expect(prefs[.testRecent] == [])
            prefs.set(["columns": "many"], forKey: "TestLayout")
            #expect(prefs[.testLayout] == Layout(columns: 2, names: []))
            prefs.set(UInt64.max, forKey: "TestFontSize")
            #expect(prefs[.testFontSize] == 12)
            prefs.set(15.0, forKey: "TestFontSize")
            #expect(prefs[.testFontSize] == 15, "an integral real is an integer")
        }
    }

    /// A key's default is declared for the application it is used
    /// through: seen there by every reader, through the untyped API and the
    /// store (the C face's path), with no register call; an explicit
    /// registration takes precedence. Another application's readers do
    /// not see it until they use the key themselves.
    @Test func declaredDefaultsBelongToTheirApplication() throws {
        try inSandbox { box in
            let store = box.store()
            let first = try Preferences(applicationID: "com.example.first", store: store)
            let other = try Preferences(applicationID: "com.example.other", store: store)
            let key = Preferences.Key<Int>("PerAppFontSize", default: 12)
            #expect(first[key] == 12)
            #expect(try store.value(forKey: "PerAppFontSize", application: "com.example.first") == .integer(12))
            #expect(first.integer(forKey: "PerAppFontSize") == 12)
            #expect(first.objectAndSource(forKey: "PerAppFontSize")?.source == PreferenceSource(.registration, domain: "com.example.first"))
            #expect(try store.value(forKey: "PerAppFontSize", application: "com.example.other") == nil)
            #expect(other.object(forKey: "PerAppFontSize") == nil)
            #expect(other[key] == 12)
            #expect(other.integer(forKey: "PerAppFontSize") == 12)
            other.register(defaults: ["PerAppFontSize": 20])
            #expect(other[key] == 20)
            #expect(first[key] == 12)
        }
    }

    @Test func propertyWrapper() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: keysApp, store: box.store())
            struct Settings {
                @Preference var size: Int
                @Preference var theme: Theme
                init(_ p: Preferences) {
                    _size = Preference(.testFontSize, in: p)
                    _theme = Preference(.testTheme, in: p)
                }
            }
            let s = Settings(prefs)
            #expect(s.size == 12)
            s.size = 18
            #expect(prefs[.testFontSize] == 18)
            #expect(s.$size.isSet)
            s.$size.reset()
            #expect(s.size == 12)
            s.theme = .dark
            #expect(prefs.string(forKey: "TestTheme") == "dark")
        }
    }

    /// `@Preference` without `in:` uses the application the program named
    /// as `Preferences.standard`, not a domain named after the executable.
    /// In a child process: `standard` is process-wide.
    @Test func preferenceUsesTheStandardTheProgramChose() {
        inSandbox { box in
            let r = runChildTest(
                named: "preferenceUsesTheStandardChild", role: "chosen-standard",
                environment: ["HOME": box.root, "XDG_CONFIG_HOME": box.config])
            #expect(r.status == 0, "child failed:\n\(r.output)")
            #expect(r.output.contains("SIZE 14 APP com.example.keys.standard"), "the child printed:\n\(r.output)")
        }
    }

    @Test(.enabled(if: isChildRole("chosen-standard")))
    func preferenceUsesTheStandardChild() throws {
        let prefs = try Preferences(applicationID: "com.example.keys.standard")
        #expect(Preferences.standard.applicationID == ApplicationID.current)
        Preferences.standard = prefs
        struct Settings { @Preference(.testFontSize) var size: Int }
        let settings = Settings()
        prefs[.testFontSize] = 14
        #expect(settings.size == 14)
        #expect(settings.$size.preferences.applicationID == "com.example.keys.standard")
        print("SIZE \(settings.size) APP \(Preferences.standard.applicationID)")
    }

    @Test func observersHearRegistrationSuitesAndSets() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: keysApp, store: store)
            let got = Received<PropertyList?>()
            let observation = prefs.observe(forKey: "Obs") { got.add($0) }
            prefs.register(defaults: ["Obs": 1])
            #expect(got.wait(for: 1) == [.integer(1)], "a registration")
            let group = try Preferences(suiteName: "group.obs", store: store)
            group.set(2, forKey: "Obs")
            prefs.addSuite(named: "group.obs")
            #expect(got.wait(for: 2).last == .integer(2), "a suite added")
            prefs.removeSuite(named: "group.obs")
            #expect(got.wait(for: 3).last == .integer(1), "a suite removed")
            prefs.set(3, forKey: "Obs")
            #expect(got.wait(for: 4).last == .integer(3), "a set")
            prefs.register(defaults: ["Obs": 9])
            usleep(100_000)
            #expect(got.all.count == 4, "a registration under a set value changes no read")
            observation.cancel()
            prefs.set(4, forKey: "Obs")
            usleep(100_000)
            #expect(got.all.count == 4, "nothing after cancel")
        }
    }

    @Test func typedObserve() throws {
        try inSandbox { box in
            let prefs = try Preferences(applicationID: keysApp, store: box.store())
            let got = Received<Int>()
            let token = prefs.observe(.testWatched) { got.add($0) }
            prefs[.testWatched] = 5
            #expect(got.wait(for: 1) == [5])
            prefs.set("junk", forKey: "TestWatched")
            #expect(got.wait(for: 2) == [5, 1], "a wrong type reads as the default")
            token.cancel()
        }
    }

    @Test func updatesYieldCurrentThenChanges() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: keysApp, store: box.store())
        prefs[.testStreamed] = 1
        var seen: [Int] = []
        for await v in prefs.updates(for: .testStreamed) {
            seen.append(v)
            if v == 1 { prefs[.testStreamed] = 2 }
            if v == 2 { prefs.reset(.testStreamed) }
            if v == 0 { break }
        }
        #expect(seen == [1, 2, 0])
        var untyped: [PropertyList?] = []
        for await v in prefs.updates(forKey: "Plain") {
            untyped.append(v)
            if v == nil { prefs.set("x", forKey: "Plain") } else { break }
        }
        #expect(untyped == [nil, .string("x")])
    }

    /// A second real process writes; the stream of this one sees it.
    @Test func updatesSeeAnotherProcess() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let prefs = try Preferences(applicationID: keysApp, store: box.store())
        var seen: [PropertyList?] = []
        for await v in prefs.updates(forKey: "FromChild") {
            seen.append(v)
            if seen.count == 1 {
                let r = runChildTest(named: "crossProcessWriterChild", role: "cross-process-writer", environment: ["PREFS_TEST_ROOT": box.root])
                #expect(r.status == 0, "child failed:\n\(r.output)")
            } else {
                break
            }
        }
        #expect(seen == [nil, .string("written by another process")])
    }

    @Test(.enabled(if: isChildRole("cross-process-writer")))
    func crossProcessWriterChild() throws {
        let root = try #require(ProcessInfo.processInfo.environment["PREFS_TEST_ROOT"])
        let locations = Locations(
            userDirectory: root + "/config", systemDirectory: root + "/system", managedDirectory: root + "/managed",
            hostID: testHostID, userName: testUserName, runtimeDirectory: root + "/runtime")
        let store = PreferencesStore(locations: locations, arguments: ["child"])
        let prefs = try Preferences(applicationID: keysApp, store: store)
        try prefs.trySet("written by another process", forKey: "FromChild")
        try prefs.trySynchronize()
    }
}
