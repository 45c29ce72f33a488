import Foundation
import Testing

@testable import PrefsCore

// A set of one key through a handle keeps its value among the domain's
// newest sets, which reads look at first and which are folded into the
// domain's values and pending changes when those are needed whole (a
// write, a listing, a re-read, a removal) or when there are too many.
// Each test mixes those moments with such sets and checks that no read,
// listing or file ever sees an older value.

private let app = "com.example.recentsets"
private let own = DomainID(application: app, user: .current, host: .any)

@Suite struct RecentSetTests {
    /// Sets `key` through the store's C-API entry (borrowed bytes).
    private func setBytes(_ s: PreferencesStore, _ key: String, _ value: PropertyList?, _ h: PreferencesStore.ApplicationHandle) throws {
        var k = key
        try k.withUTF8 { u in try s.set(keyBytes: UnsafeRawBufferPointer(u), value, in: h) }
    }

    @Test func moreKeysThanTheNewestSetsHoldAreReadListedAndWritten() throws {
        try inSandbox { box in
            let s = box.store()
            let h = try s.handle(application: app)
            let count = Domain.recentCapacity * 3 + 1
            var expected = [String: PropertyList]()
            for round in 0..<3 {
                for i in 0..<count {
                    let key = "key\(i)"
                    let value = PropertyList.integer(Int128(round * 100 + i))
                    if i.isMultiple(of: 2) { try s.set(key, value, in: h) } else { try setBytes(s, key, value, h) }
                    expected[key] = value
                    #expect(try s.value(forKey: key, application: app) == value)
                    // An earlier key still reads its newest value.
                    if i > 0 { #expect(try s.value(forKey: "key\(i - 1)", application: app) == expected["key\(i - 1)"]) }
                }
                #expect(try s.values(in: own) == plistDict(expected))
                #expect(try s.dictionary(application: app)[PropertyList.Key("key0")] == expected["key0"])
            }
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(expected))
            #expect(try box.store().values(in: own) == plistDict(expected))
            // After the write, one key set again and again.
            for i in 0..<Domain.recentCapacity * 2 {
                try setBytes(s, "key1", .integer(Int128(1000 + i)), h)
                #expect(try s.value(forKey: "key1", application: app) == .integer(Int128(1000 + i)))
            }
            expected["key1"] = .integer(Int128(999 + Domain.recentCapacity * 2))
            #expect(try s.values(in: own) == plistDict(expected))
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(expected))
        }
    }

    @Test func setRemoveSetKeepsTheLastChange() throws {
        try inSandbox { box in
            let s = box.store()
            let h = try s.handle(application: app)
            try s.set("Other", .string("kept"), in: h)
            for i in 0..<3 {
                try setBytes(s, "Key", .integer(Int128(i)), h)
                #expect(try s.value(forKey: "Key", application: app) == .integer(Int128(i)))
                try s.set("Key", nil, in: h)
                #expect(try s.value(forKey: "Key", application: app) == nil)
                #expect(try s.values(in: own)[PropertyList.Key("Key")] == nil)
                try s.set("Key", .integer(Int128(10 + i)), in: h)
                #expect(try s.value(forKey: "Key", application: app) == .integer(Int128(10 + i)))
            }
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(["Key": 12, "Other": "kept"]))
            // Removed last: gone from the file too.
            try s.set("Key", .integer(20), in: h)
            try s.set("Key", nil, in: h)
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(["Other": "kept"]))
            #expect(try box.store().value(forKey: "Key", application: app) == nil)
        }
    }

    @Test func setThenAnotherProcessWritesThenSynchronize() throws {
        try inSandbox { box in
            let a = box.store()
            let h = try a.handle(application: app)
            try a.set("Mine", .integer(0), in: h)
            try a.synchronize(application: app)
            for round in 0..<2 {
                // This process sets, another writes the same key and another one.
                try setBytes(a, "Mine", .integer(Int128(1 + round)), h)
                try a.set("Mine", .integer(Int128(2 + round)), in: h)
                let b = box.store()
                try b.set([("Theirs", .integer(Int128(round))), ("Mine", 99)], in: own)
                try b.synchronize(application: app)
                // The other process's write is met at this synchronize; the
                // pending change of this one wins for its key.
                try a.synchronize(application: app)
                #expect(try a.value(forKey: "Mine", application: app) == .integer(Int128(2 + round)))
                #expect(try a.value(forKey: "Theirs", application: app) == .integer(Int128(round)))
                #expect(readPlist(box.expectedPath(app)) == plistDict(["Mine": .integer(Int128(2 + round)), "Theirs": .integer(Int128(round))]))
            }
            // Read through the index another process wrote: sets of a domain
            // whose values are not all decoded.
            let c = box.store()
            let hc = try c.handle(application: app)
            #expect(try c.value(forKey: "Theirs", application: app) == .integer(1))
            try c.set("Mine", .integer(5), in: hc)
            try setBytes(c, "Mine", .integer(6), hc)
            #expect(try c.value(forKey: "Mine", application: app) == .integer(6))
            #expect(try c.values(in: own) == plistDict(["Mine": 6, "Theirs": 1]))
            try c.set("New", .string("n"), in: hc)
            try c.synchronize(application: app)
            #expect(try box.store().values(in: own) == plistDict(["Mine": 6, "Theirs": 1, "New": "n"]))
        }
    }

    @Test func aRemovedDomainForgetsTheNewestSets() throws {
        try inSandbox { box in
            let s = box.store()
            let h = try s.handle(application: app)
            try s.set("Gone", .integer(1), in: h)
            try s.synchronize(application: app)
            try s.set("Gone", .integer(2), in: h)
            try s.removeDomain(own)
            #expect(try s.value(forKey: "Gone", application: app) == nil)
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == nil)
        }
    }

    // Sets from several threads while the background writer and explicit
    // synchronizes commit: every key ends with its last value, in memory
    // and on disk.
    @Test func setsWhileCommitsRunOnOtherThreads() throws {
        try inSandbox { box in
            let s = box.store()
            let h = try s.handle(application: app)
            let threads = 4, sets = 300
            let done = StressCounter()
            let group = DispatchGroup()
            for t in 0..<threads {
                DispatchQueue.global().async(group: group) {
                    for i in 0..<sets {
                        let key = "t\(t)k\(i % 11)"
                        if i.isMultiple(of: 2) {
                            _ = try? s.set(key, .integer(Int128(i)), in: h)
                        } else {
                            var k = key
                            k.withUTF8 { u in _ = try? s.set(keyBytes: UnsafeRawBufferPointer(u), .integer(Int128(i)), in: h) }
                        }
                    }
                    done.add()
                }
            }
            DispatchQueue.global().async(group: group) {
                while done.value < threads { _ = try? s.synchronize(application: app) }
            }
            group.wait()
            var expected = [String: PropertyList]()
            for t in 0..<threads {
                for j in 0..<11 {
                    let last = (0..<sets).last { $0 % 11 == j }!
                    expected["t\(t)k\(j)"] = .integer(Int128(last))
                }
            }
            #expect(try s.values(in: own) == plistDict(expected))
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(expected))
        }
    }

    @Test func borrowedKeysAreCheckedAsStringKeysAre() throws {
        try inSandbox { box in
            let s = box.store()
            let h = try s.handle(application: app)
            // A key a file's XML cannot carry: kept (the file becomes binary), as through a string.
            try setBytes(s, "Bell\u{7}", .integer(1), h)
            try setBytes(s, "Bell\u{7}", .integer(2), h)
            #expect(try s.value(forKey: "Bell\u{7}", application: app) == .integer(2))
            // A value no file can hold is refused whole, naming the key.
            let tooLong = PropertyList.string(String(repeating: "x", count: PropertyList.maxTextLength + 1))
            let e = expectPrefsError(.unrepresentable) { try setBytes(s, "Long", tooLong, h) }
            #expect(e?.message.contains("\"Long\"") == true)
            #expect(try s.value(forKey: "Long", application: app) == nil)
            try s.synchronize(application: app)
            #expect(try box.store().value(forKey: "Bell\u{7}", application: app) == .integer(2))
        }
    }
}
