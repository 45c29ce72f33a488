import Foundation
import Testing

@testable import PrefsCore

// Files written by Foundation's UserDefaults are read by libprefs with the
// same values, and the other way round.
//
// Foundation on Linux takes XDG_CONFIG_HOME from the environment the process
// started with: a setenv() in the process, even before UserDefaults is first
// touched, is not seen (it kept writing to $HOME/.config). So the Foundation
// side runs in a child process of this test binary, started with
// XDG_CONFIG_HOME (and HOME) pointing into the test's own directories; the
// child is one of the tests below, enabled only in that role.

private let fromFoundation = "com.example.interop.foundation"
private let fromPrefs = "com.example.interop.prefs"
private let interopDirVariable = "PREFS_INTEROP_DIR"

/// The values both sides write, as libprefs sees them.
private let interopValues: PropertyListDictionary = plistDict([
    "int": 42,
    "negative": -7,
    "big": .integer(Int64(1) << 40),
    "string": "hello",
    "unicode": "héllo ✓ 日本",
    "bool": true,
    "off": false,
    "real": 2.5,
    "array": [1, "two"],
    "dict": ["a": "b", "n": 1],
    "data": .data([0, 1, 2, 255]),
    "date": .date(1_000_000_000),
])

@Suite("Foundation interop")
struct FoundationInteropTests {

    @Test func userDefaultsFileIsReadByLibprefs() throws {
        try inSandbox { box in
            let r = runChildTest(
                named: "foundationChildWrites", role: "foundation-write",
                environment: [
                    "XDG_CONFIG_HOME": box.config, "HOME": box.root + "/home",
                    interopDirVariable: box.config,
                ])
            #expect(r.status == 0, "the Foundation child failed:\n\(r.output)")
            #expect(r.output.contains("foundationChildWrites() passed"), "the Foundation child did not run:\n\(r.output)")
            // Where Foundation wrote: exactly the file libprefs reads.
            #expect(box.allFiles() == ["config/\(fromFoundation).plist"])
            let store = box.store()
            let values = try store.values(in: DomainID(application: fromFoundation, user: .current, host: .any))
            for (key, expected) in interopValues {
                #expect(values[key] == expected, "\(key): Foundation wrote \(render(values[key])), expected \(expected)")
            }
            #expect(values.count == interopValues.count, "\(values.keys.map(\.string).sorted())")
            let prefs = try Preferences(applicationID: fromFoundation, store: store)
            #expect(prefs.integer(forKey: "int") == 42)
            #expect(prefs.bool(forKey: "bool") == true)
            #expect(try store.problems(application: fromFoundation).isEmpty)
        }
    }

    @Test func libprefsFileIsReadByUserDefaults() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set(
                interopValues.map { ($0.key.string, $0.value) },
                in: DomainID(application: fromPrefs, user: .current, host: .any))
            try store.set(
                [("globalKey", "from the global domain")],
                in: DomainID(application: globalDomainName, user: .current, host: .any))
            try store.synchronizeAll()
            let r = runChildTest(
                named: "foundationChildReads", role: "foundation-read",
                environment: [
                    "XDG_CONFIG_HOME": box.config, "HOME": box.root + "/home",
                    interopDirVariable: box.config,
                ])
            #expect(r.status == 0, "the Foundation child failed:\n\(r.output)")
            #expect(r.output.contains("foundationChildReads() passed"), "the Foundation child did not run:\n\(r.output)")
        }
    }

    // MARK: The Foundation side, run as child processes

    @Test(.enabled(if: isChildRole("foundation-write")))
    func foundationChildWrites() throws {
        // The environment really is the test's: Foundation writes there.
        let dir = try #require(ProcessInfo.processInfo.environment[interopDirVariable])
        #expect(ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] == dir)
        let d = try #require(UserDefaults(suiteName: fromFoundation))
        d.set(42, forKey: "int")
        d.set(-7, forKey: "negative")
        d.set(Int64(1) << 40, forKey: "big")
        d.set("hello", forKey: "string")
        d.set("héllo ✓ 日本", forKey: "unicode")
        d.set(true, forKey: "bool")
        d.set(false, forKey: "off")
        d.set(2.5, forKey: "real")
        d.set([1, "two"] as [Any], forKey: "array")
        d.set(["a": "b", "n": 1] as [String: Any], forKey: "dict")
        d.set(Data([0, 1, 2, 255]), forKey: "data")
        d.set(Date(timeIntervalSince1970: 1_000_000_000), forKey: "date")
        #expect(d.synchronize())
        #expect(
            FileManager.default.fileExists(atPath: dir + "/\(fromFoundation).plist"),
            "Foundation wrote elsewhere: \((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])")
    }

    @Test(.enabled(if: isChildRole("foundation-read")))
    func foundationChildReads() throws {
        let d = try #require(UserDefaults(suiteName: fromPrefs))
        #expect(d.integer(forKey: "int") == 42)
        #expect(d.integer(forKey: "negative") == -7)
        #expect((d.object(forKey: "big") as? NSNumber)?.int64Value == Int64(1) << 40)
        #expect(d.string(forKey: "string") == "hello")
        #expect(d.string(forKey: "unicode") == "héllo ✓ 日本")
        #expect(d.object(forKey: "bool") as? Bool == true)
        #expect(d.object(forKey: "off") as? Bool == false)
        #expect(d.double(forKey: "real") == 2.5)
        let array = d.array(forKey: "array")
        #expect(array?.count == 2)
        #expect((array?.first as? NSNumber)?.intValue == 1)
        #expect(array?.last as? String == "two")
        let dict = d.dictionary(forKey: "dict")
        #expect(dict?["a"] as? String == "b")
        #expect((dict?["n"] as? NSNumber)?.intValue == 1)
        #expect(d.data(forKey: "data") == Data([0, 1, 2, 255]))
        #expect((d.object(forKey: "date") as? Date)?.timeIntervalSince1970 == 1_000_000_000)
        // The global domain's file name is the one Foundation reads too.
        #expect(d.string(forKey: "globalKey") == "from the global domain")
    }
}
