import Foundation
import Testing

@testable import PrefsCore

// Several keys set as one change: all or nothing.

@Suite("Several keys as one change")
struct SetMultipleTests {
    @Test func setMultipleIsAllOrNothing() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("keep", "old")], in: own())
            try store.synchronize(application: storeApp)
            let before = readBytes(box.expectedPath(storeApp))

            // One value no domain file can hold (under its key, nested
            // deeper than any format takes) refuses the whole change.
            var deep = PropertyList.array([])
            for _ in 1..<PropertyList.maxNesting { deep = .array([deep]) }
            let refusal = expectPrefsError(.tooDeep) {
                try store.set([("a", 1), ("bad", deep), ("c", 3), ("keep", nil)], in: own())
            }
            #expect(refusal?.message.contains("bad") == true, "\(refusal?.message ?? "")")
            // One forced key refuses the whole change too.
            writePlist(["forced": "managed"], to: box.managedPath(storeApp, userOnly: true))
            try store.synchronize(application: storeApp)
            expectPrefsError(.forcedValue) {
                try store.set([("a", 1), ("forced", "mine"), ("keep", nil)], in: own())
            }
            #expect(try store.value(forKey: "forced", application: storeApp) == .string("managed"))
            #expect(try store.values(in: own()) == plistDict(["keep": "old"]))
            try store.synchronizeAll()
            #expect(readBytes(box.expectedPath(storeApp)) == before)

            // Accepted: every key set and removed, seen together by another process.
            try store.set([("a", 1), ("c", 3), ("keep", nil)], in: own())
            let other = box.store()
            #expect(try other.values(in: own()) == plistDict(["keep": "old"]))
            try store.synchronize(application: storeApp)
            try other.synchronize(application: storeApp)
            #expect(try other.values(in: own()) == plistDict(["a": 1, "c": 3]))
        }
    }
}
