import Foundation
import Testing

@testable import PrefsCore

/// Spliced commits: a write of a few keys copies the other entries from
/// the bytes they have in the file and its index. Every check compares with
/// what a full write makes, and with a fresh parse of the file.
@Suite("Spliced commits")
struct SplicedCommitTests {
    static let app = "com.example.spliced"
    static let id = DomainID(application: app, user: .current, host: .any)

    /// Strings XML carries that need escaping or are otherwise unusual.
    static let oddStrings = [
        "", " ", "a&b", "<tag>", "]]>", "x\ry", "tab\there", "line\nbreak", "héllo wörld", "日本語", "🎉 emoji",
        "&amp; literally", "\"quoted\" 'single'", String(repeating: "long ", count: 200),
    ]

    /// A random value; `binary`: also values only the binary format carries
    /// exactly (dates with fractions of a second, control characters).
    static func value(_ r: inout SplitMix64, binary: Bool, depth: Int = 0) -> PropertyList {
        switch r.below(depth < 2 ? 11 : 9) {
        case 0: return .string(oddStrings[r.below(oddStrings.count)])
        case 1: return .integer(Int64(bitPattern: r.next()) >> r.below(64))
        case 2: return .real(Double(bitPattern: r.next() & 0x7FEF_FFFF_FFFF_FFFF) * (r.below(2) == 0 ? 1 : -1))
        case 3: return .boolean(r.below(2) == 0)
        case 4:
            let whole = Double(Int64(r.below(2_000_000_000)) - 1_000_000_000)
            return .date(binary ? whole + Double(r.below(1000)) / 1024 : whole)
        case 5: return .data((0..<r.below(100)).map { _ in UInt8(truncatingIfNeeded: r.next()) })
        case 6: return .uid(UInt32(truncatingIfNeeded: r.next()))
        case 7: return binary ? .string("ctl\u{1}\u{8}") : .string("k\(r.next() % 1000)")
        case 8: return .real(Double(r.below(1000)) + 0.5)
        case 9: return .array((0..<r.below(4)).map { _ in value(&r, binary: binary, depth: depth + 1) })
        default:
            var d = PropertyListDictionary()
            for i in 0..<r.below(4) { d[PropertyList.Key("n\(i)")] = value(&r, binary: binary, depth: depth + 1) }
            return PropertyList(.dictionary(d))
        }
    }

    static func key(_ r: inout SplitMix64, _ n: Int) -> String {
        switch r.below(10) {
        case 0: return "odd<&>\(r.below(n))"
        case 1: return "ключ\(r.below(n))"
        case 2: return ""
        default: return "key\(r.below(n))"
        }
    }

    /// The domain file's bytes, and its values by a fresh parse.
    static func file(_ box: StoreSandbox) throws -> (bytes: [UInt8], values: PropertyListDictionary) {
        let bytes = try #require(FileManager.default.contents(atPath: box.expectedPath(app)).map { Array($0) })
        return (bytes, try Domain.decode(bytes, path: "test"))
    }

    /// The domain's index as a new process finds it, when current.
    static func currentIndex(_ box: StoreSandbox) -> DomainIndex.Contents? {
        let path = box.expectedPath(app)
        guard let xml = FileManager.default.contents(atPath: path), let stamp = try? FileSystem.stamp(path) else { return nil }
        return DomainIndex(domainPath: path, directory: box.indexDirectory).contents(for: stamp, content: { Array(xml) })
    }

    /// What every check after a write holds: the file is byte for byte
    /// what a full write of `model` makes, a fresh parse gives `model` (XML
    /// dates to the second), the index gives `model` key by key and whole,
    /// and stores old and new read `model`.
    static func check(
        _ box: StoreSandbox, _ model: PropertyListDictionary, binary: Bool, readers: [PreferencesStore], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (bytes, parsed) = try file(box)
        let isBinary = bytes.withUnsafeBytes { BinaryReader.looksBinary($0) }
        #expect(isBinary == binary, "\(what): the file's format", sourceLocation: sourceLocation)
        let full = try Domain.encode(model.sortedByKey(), binary: isBinary)
        #expect(bytes == full, "\(what): the file differs from a full write", sourceLocation: sourceLocation)
        #expect(parsed == model, "\(what): a fresh parse differs", sourceLocation: sourceLocation)
        let index = try #require(currentIndex(box), "\(what): no current index", sourceLocation: sourceLocation)
        #expect(index.count == model.count, "\(what)", sourceLocation: sourceLocation)
        for (k, v) in model {
            guard case .value(let found) = index.value(forKey: k), found == v else {
                Issue.record("\(what): the index's \(k.string) is not \(v)", sourceLocation: sourceLocation)
                continue
            }
        }
        guard case .absent = index.value(forKey: "no such key") else {
            Issue.record("\(what): the index found an absent key", sourceLocation: sourceLocation)
            return
        }
        let all = try #require(index.allValues(), sourceLocation: sourceLocation)
        #expect(all.values == model, "\(what): the index's values", sourceLocation: sourceLocation)
        #expect(all.order?.map(\.key) == model.sortedByKey().map(\.key), "\(what): the index's order", sourceLocation: sourceLocation)
        for reader in readers + [box.store()] {
            #expect(try reader.values(in: id) == model, "\(what): a store's values", sourceLocation: sourceLocation)
        }
    }

    /// Random sets, replacements by other kinds, removals and new keys, each
    /// round written by one of two stores (as two processes): the file stays
    /// byte for byte a full write, and the writes after the first are spliced.
    @Test(arguments: [1, 2, 3, 4])
    func randomSequencesMatchAFullWrite(seed: UInt64) throws {
        try inSandbox { box in
            var r = SplitMix64(seed: seed)
            var model = PropertyListDictionary()
            let stores = [box.store(), box.store()]
            let size = [3, 40, 300, 1][Int(seed) - 1]
            var initial: [(String, PropertyList?)] = []
            for i in 0..<size {
                let v = Self.value(&r, binary: false)
                initial.append(("key\(i)", v))
                model[PropertyList.Key("key\(i)")] = v
            }
            try stores[0].set(initial, in: Self.id)
            try stores[0].synchronize(application: Self.app)
            try Self.check(box, model, binary: false, readers: stores, "initial")
            var whole: [Int] = []
            for round in 0..<40 {
                let store = stores[r.below(2)]
                var changes: [(String, PropertyList?)] = []
                for _ in 0..<(1 + r.below(round % 7 == 0 ? 80 : 4)) {
                    let k = Self.key(&r, size + 20)
                    let v: PropertyList? = r.below(4) == 0 ? nil : Self.value(&r, binary: false)
                    changes.append((k, v))
                }
                // The last change of a key wins, in the model as in the store.
                for (k, v) in changes { model[PropertyList.Key(k)] = v }
                try store.set(changes, in: Self.id)
                try store.synchronize(application: Self.app)
                if store.domainForTesting(box.expectedPath(Self.app))?.lastWriteSpliced != true { whole.append(round) }
                try Self.check(box, model, binary: false, readers: stores, "seed \(seed) round \(round)")
            }
            #expect(whole.isEmpty, "writes not spliced: rounds \(whole)")
        }
    }

    /// A value only the binary format carries makes the file binary (a
    /// full write); the binary file's later writes keep every value, dates
    /// to their fraction of a second (spliced as binary: the values are a
    /// full write's, not the bytes; see BinarySplicedCommitTests).
    @Test func aFileMadeBinaryKeepsItsValues() throws {
        try inSandbox { box in
            var r = SplitMix64(seed: 99)
            var model: PropertyListDictionary = ["plain": "text"]
            let store = box.store()
            try store.set([("plain", "text")], in: Self.id)
            try store.synchronize(application: Self.app)
            try Self.check(box, model, binary: false, readers: [store], "XML")
            try store.set([("control", "a\u{1}b")], in: Self.id)
            model["control"] = "a\u{1}b"
            try store.synchronize(application: Self.app)
            #expect(store.domainForTesting(box.expectedPath(Self.app))?.lastWriteSpliced == false)
            try Self.check(box, model, binary: true, readers: [store], "made binary")
            for round in 0..<15 {
                var changes: [(String, PropertyList?)] = []
                for _ in 0..<(1 + r.below(5)) {
                    let k = Self.key(&r, 30)
                    let v: PropertyList? = r.below(4) == 0 ? nil : Self.value(&r, binary: true)
                    changes.append((k, v))
                }
                for (k, v) in changes { model[PropertyList.Key(k)] = v }
                try store.set(changes, in: Self.id)
                try store.synchronize(application: Self.app)
                let (bytes, parsed) = try Self.file(box)
                #expect(bytes.starts(with: BinaryReader.magic), "binary round \(round)")
                #expect(parsed == model, "binary round \(round)")
                #expect(try box.store().values(in: Self.id) == model, "binary round \(round)")
            }
        }
    }

    /// The splice itself, against the index a full write makes: every
    /// kind of change at the start, middle and end, removals of every key,
    /// and growth past the bucket table's size.
    @Test func spliceAgainstTheIndexOfAFullWrite() throws {
        var r = SplitMix64(seed: 7)
        var model = PropertyListDictionary()
        for i in stride(from: 0, to: 60, by: 2) { model[PropertyList.Key("k\(1000 + i)")] = Self.value(&r, binary: false) }
        var (xml, body, buckets) = try Self.full(model)
        let plans: [[(String, PropertyList?)]] = [
            [("k1000", "first replaced")], [("k1058", nil)], [("a", 1)], [("z", 2)], [("k1031", .array([1, "x"]))],
            [("k1002", nil), ("k1004", nil), ("k1005", 5), ("k1006", ["d": 1])],
            (0..<40).map { ("new\($0)", PropertyList.integer(Int64($0))) },
            model.keys.map { ($0.string, nil) },
            [("only", "one")], [("only", nil)], [("again", true)],
        ]
        for (n, plan) in plans.enumerated() {
            var changes: [PropertyList.Key: PropertyList?] = [:]
            for (k, v) in plan {
                changes[PropertyList.Key(k)] = .some(v)
                model[PropertyList.Key(k)] = v
            }
            let spliced = try #require(
                DomainIndex.splice(old: body, entries: Self.entries(body, buckets), buckets: buckets, xml: xml, changes: changes),
                "plan \(n)")
            let expected = try Self.full(model)
            #expect(spliced.xml == expected.xml, "plan \(n): the XML")
            #expect(spliced.buckets == expected.buckets, "plan \(n)")
            #expect(
                try Self.decoded(spliced.body, spliced.entries, spliced.buckets) == Self.decoded(expected.body, model.count, expected.buckets),
                "plan \(n): the index")
            (xml, body, buckets) = (spliced.xml, spliced.body, spliced.buckets)
        }
    }

    /// What a damaged index or a file that is not what the index describes
    /// makes of a splice: none (the full write then runs).
    @Test func aDamagedIndexOrFileIsNotSpliced() throws {
        let model: PropertyListDictionary = ["a": 1, "b": "two", "c": .array([3])]
        let (xml, body, buckets) = try Self.full(model)
        let change: [PropertyList.Key: PropertyList?] = ["b": .some("2")]
        #expect(DomainIndex.splice(old: body, entries: 3, buckets: buckets, xml: xml, changes: change) != nil)
        var shorter = xml
        shorter.remove(at: XMLWriter.domainPrefix.count + 3)
        #expect(DomainIndex.splice(old: body, entries: 3, buckets: buckets, xml: shorter, changes: change) == nil)
        var otherTail = xml
        otherTail[otherTail.count - 2] = UInt8(ascii: "X")
        #expect(DomainIndex.splice(old: body, entries: 3, buckets: buckets, xml: otherTail, changes: change) == nil)
        // An entry's text length moved by one: the lengths no longer fill the file.
        var lengths = body
        lengths[buckets * 4 + 12] &+= 1
        #expect(DomainIndex.splice(old: lengths, entries: 3, buckets: buckets, xml: xml, changes: change) == nil)
        // An offset out of order.
        var offsets = body
        offsets[buckets * 4 + DomainIndex.entrySize] &+= 1
        #expect(DomainIndex.splice(old: offsets, entries: 3, buckets: buckets, xml: xml, changes: change) == nil)
        #expect(DomainIndex.splice(old: Array(body.prefix(10)), entries: 3, buckets: buckets, xml: xml, changes: change) == nil)
        #expect(DomainIndex.splice(old: body, entries: 3, buckets: buckets - 1, xml: xml, changes: change) == nil)
        // A binary file's index records no texts.
        var binary = body
        for i in 0..<3 { for b in 0..<4 { binary[buckets * 4 + i * DomainIndex.entrySize + 12 + b] = 0 } }
        #expect(DomainIndex.splice(old: binary, entries: 3, buckets: buckets, xml: xml, changes: change) == nil)
        // A value XML cannot carry.
        #expect(DomainIndex.splice(old: body, entries: 3, buckets: buckets, xml: xml, changes: ["b": .some("\u{1}")]) == nil)
    }

    /// Another program rewrites the file between two commits, in place,
    /// with its size kept and its times put back: the index no longer
    /// describes it (its change time moved), so the next write uses no
    /// stale range, and takes in the other program's values.
    @Test func aFileChangedByAnotherProgramIsNotSplicedFromStaleRanges() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("alpha", "aaaa"), ("beta", 1), ("gamma", .array(["x"]))], in: Self.id)
            try store.synchronize(application: Self.app)
            let path = box.expectedPath(Self.app)
            var st = stat()
            #expect(stat(path, &st) == 0)
            // Same size, other entries' lengths: a splice by the old ranges
            // would cut the file in the wrong places.
            let foreign: PropertyListDictionary = ["alpha": "a", "beta": 1234, "gamma": .array(["x"])]
            var bytes = try Domain.encode(foreign.sortedByKey(), binary: false)
            let old = try #require(FileManager.default.contents(atPath: path))
            #expect(bytes.count <= old.count)
            bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: " "), count: old.count - bytes.count), at: XMLWriter.header.count)
            let fd = open(path, O_WRONLY)
            #expect(fd >= 0)
            #expect(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == bytes.count)
            var times = [st.st_atim, st.st_mtim]
            #expect(futimens(fd, &times) == 0)
            close(fd)
            #expect(Self.currentIndex(box) == nil, "the index still claims the changed file")
            try store.set([("delta", true)], in: Self.id)
            try store.synchronize(application: Self.app)
            var model = foreign
            model["delta"] = true
            try Self.check(box, model, binary: false, readers: [store], "after the foreign write")
            #expect(store.domainForTesting(path)?.lastWriteSpliced == false)
            // Its index is current again: the next write is spliced.
            try store.set([("alpha", "again")], in: Self.id)
            model["alpha"] = "again"
            try store.synchronize(application: Self.app)
            #expect(store.domainForTesting(path)?.lastWriteSpliced == true)
            try Self.check(box, model, binary: false, readers: [store], "spliced again")
        }
    }

    /// A splice uses the bytes it read only while the open file still has
    /// the identity its index was checked against: one rewritten in place
    /// after it was opened (same size, times put back) is not.
    @Test func anOpenFileRewrittenInPlaceIsSeenAsChanged() throws {
        try inSandbox { box in
            let path = box.root + "/in-place.plist"
            writeBytes(Array("<plist><string>aaaa</string></plist>".utf8), to: path)
            let file = try #require(try FileSystem.openForReading(path, followingLinks: false))
            defer { file.close() }
            #expect(file.isUnchanged())
            let fd = open(path, O_WRONLY)
            #expect(fd >= 0)
            let other = Array("<plist><string>bbbb</string></plist>".utf8)
            #expect(other.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == other.count)
            var times = [timespec(tv_sec: Int(file.stamp.mtimeSeconds), tv_nsec: Int(file.stamp.mtimeNanoseconds))]
            times.append(times[0])
            #expect(futimens(fd, &times) == 0)
            close(fd)
            #expect(!file.isUnchanged(), "an in-place rewrite with its times put back went unseen")
        }
    }

    /// A process whose domain became empty in memory (every value read,
    /// then the last key removed) splices its removal into a file another
    /// process added keys to: it then reads those keys, one by one as in
    /// the whole domain.
    @Test(arguments: [false, true])
    func aDomainEmptiedHereSeesKeysAnotherProcessAdded(binary: Bool) throws {
        try inSandbox { box in
            let first = box.store()
            let a: PropertyList = binary ? .string("ctl\u{1}") : .integer(1)
            try first.set([("a", a)], in: Self.id)
            try first.synchronize(application: Self.app)
            try first.synchronize(application: Self.app)
            let here = box.store()
            #expect(try here.values(in: Self.id) == ["a": a])
            try here.set("a", nil, in: try here.handle(application: Self.app))
            #expect(try here.value(forKey: "a", application: Self.app) == nil)
            // Enough new keys that the removal leaves few dead bytes.
            var added: PropertyListDictionary = [:]
            for i in 0..<20 { added[PropertyList.Key("b\(i)")] = .string(String(repeating: "v", count: 100 + i)) }
            try first.set(added.map { ($0.key.string, $0.value) }, in: Self.id)
            try first.synchronize(application: Self.app)
            try here.synchronize(application: Self.app)
            #expect(here.domainForTesting(box.expectedPath(Self.app))?.lastWriteSpliced == true)
            let (bytes, parsed) = try Self.file(box)
            #expect(bytes.starts(with: BinaryReader.magic) == binary)
            #expect(parsed == added)
            #expect(try here.value(forKey: "b7", application: Self.app) == added["b7"], "binary: \(binary)")
            #expect(try here.values(in: Self.id) == added)
        }
    }

    static let rootVariable = "PREFS_SPLICE_TEST_ROOT"

    /// The child of ``aCrashMidCommitLeavesAWholeFile(point:)``: sets one
    /// key of a large domain and synchronizes, and is killed on the way.
    @Test(.enabled(if: isChildRole("splice-crash")))
    func crashingWriterChild() throws {
        try writeCrashTestChange(rootVariable: Self.rootVariable, Self.id)
    }

    /// A writer killed (SIGKILL) mid-commit, before or after the rename,
    /// leaves the old or the new file whole, and readers and the next
    /// writer see exactly that file.
    @Test(arguments: ["before-rename", "before-index"])
    func aCrashMidCommitLeavesAWholeFile(point: String) throws {
        try inSandbox { box in
            let model = crashTestModel()
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: Self.id)
            try store.synchronize(application: Self.app)
            let r = runChildTest(
                named: "crashingWriterChild", role: "splice-crash",
                environment: [Self.rootVariable: box.root, "PREFS_TEST_FAIL": "crash-" + point])
            #expect(r.status == SIGKILL, "the child was not killed: \(r.output)")
            let expected = crashTestResult(model, killedAt: point)
            let (bytes, parsed) = try Self.file(box)
            #expect(parsed == expected)
            #expect(bytes == (try Domain.encode(expected.sortedByKey(), binary: false)))
            #expect(try box.store().values(in: Self.id) == expected)
            let next = box.store()
            try next.set([("key1", "next")], in: Self.id)
            try next.synchronize(application: Self.app)
            var final = expected
            final["key1"] = "next"
            try Self.check(box, final, binary: false, readers: [next], "after the crash")
        }
    }

    // MARK: Helpers

    /// A full write's XML of `model`, and its index's body.
    static func full(_ model: PropertyListDictionary) throws -> (xml: [UInt8], body: [UInt8], buckets: Int) {
        let entries = model.sortedByKey()
        let written = try #require(try XMLWriter.writeDomainWithSpans(entries))
        let body = try #require(DomainIndex.body(entries, spans: written.spans))
        return (written.bytes, body.data, body.buckets)
    }

    static func entries(_ body: [UInt8], _ buckets: Int) -> Int {
        body.withUnsafeBytes { b in (0..<buckets).count { DomainIndex.load32(b, $0 * 4) != DomainIndex.emptyBucket } }
    }

    /// Every entry of an index body, looked up through its bucket table as
    /// a reader does, and its checks verified.
    static func decoded(_ body: [UInt8], _ count: Int, _ buckets: Int) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        body.withUnsafeBytes { b in
            #expect(b.count >= buckets * 4 + count * DomainIndex.entrySize)
            var seen = Set<Int>()
            for s in 0..<buckets {
                let slot = DomainIndex.load32(b, s * 4)
                if slot == DomainIndex.emptyBucket { continue }
                let i = Int(slot) - 1
                #expect(i < count && seen.insert(i).inserted, "bucket \(s)")
                let at = buckets * 4 + i * DomainIndex.entrySize
                let offset = Int(DomainIndex.load32(b, at)), kl = Int(DomainIndex.load32(b, at + 4))
                let vl = Int(DomainIndex.load32(b, at + 8)), xl = DomainIndex.load32(b, at + 12)
                let both = UnsafeRawBufferPointer(rebasing: b[offset..<offset + kl + vl])
                #expect(DomainIndex.check(both, entry: i, xmlLength: xl) == DomainIndex.load32(b, at + 16), "entry \(i)'s check")
                let key = String(decoding: both[0..<kl], as: UTF8.self)
                // A reader finds it from its home bucket without meeting an empty one.
                var probe = Int(truncatingIfNeeded: ContentHash.of(UnsafeRawBufferPointer(rebasing: both[0..<kl]))) & (buckets - 1)
                while probe != s {
                    #expect(DomainIndex.load32(b, probe * 4) != DomainIndex.emptyBucket, "\(key) is not reachable")
                    probe = (probe + 1) & (buckets - 1)
                }
                out[key] = Array(both[kl...]) + withUnsafeBytes(of: xl) { Array($0) } + withUnsafeBytes(of: i) { Array($0) }
            }
            #expect(seen.count == count)
        }
        return out
    }
}
