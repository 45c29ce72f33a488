import Foundation
import Testing

@testable import PrefsCore

/// Readers other than ours: Python's plistlib and libplist's plistutil.
/// Each spliced file must read as the full write of the same values does.
enum ExternalReaders {
    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        where access(dir + "/" + tool, X_OK) == 0 {
            return dir + "/" + tool
        }
        return nil
    }

    static let python = which("python3")
    static let plistutil = which("plistutil")

    static func run(_ exe: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "cannot start \(exe): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Compares two files' values as plistlib reads them (reals by their
    /// bits, so that NaN equals itself; a file it refuses, such as one
    /// with a date past its range, must be refused in both); prints what
    /// differs.
    static let script = """
        import plistlib, struct, sys
        def canon(v):
            if isinstance(v, dict): return ('d', sorted((k, canon(x)) for k, x in v.items()))
            if isinstance(v, list): return ('a', [canon(x) for x in v])
            if isinstance(v, float): return ('r', struct.pack('>d', v))
            if isinstance(v, bool): return ('b', v)
            if isinstance(v, plistlib.UID): return ('u', v.data)
            return (type(v).__name__, v)
        bad = 0
        args = sys.argv[1:]
        def read(path):
            try:
                return canon(plistlib.load(open(path, 'rb')))
            except Exception as e:
                return ('refused', type(e).__name__)
        for a, b in zip(args[0::2], args[1::2]):
            x, y = read(a), read(b)
            if x != y:
                print(f'{a}: plistlib reads {str(x)[:200]}, from the full write {str(y)[:200]}'); bad += 1
        sys.exit(1 if bad else 0)
        """

    /// What plistlib and plistutil find different between each pair's
    /// spliced file and full write (empty when they agree); a tool that is
    /// not installed is skipped, and said.
    static func disagreements(_ pairs: [(spliced: String, full: String)]) -> [String] {
        guard !pairs.isEmpty else { return [] }
        var out: [String] = []
        if let python {
            let r = run(python, ["-c", script] + pairs.flatMap { [$0.spliced, $0.full] })
            if r.status != 0 { out.append(r.output) }
        } else {
            print("python3 not found: plistlib's reading not checked")
        }
        if let plistutil {
            for (spliced, full) in pairs {
                let a = run(plistutil, ["-i", spliced, "-f", "xml"]), b = run(plistutil, ["-i", full, "-f", "xml"])
                if a.status != 0 || a.output != b.output {
                    out.append("\(spliced): plistutil reads it otherwise (status \(a.status)): \(a.output.prefix(300))")
                }
            }
        } else {
            print("plistutil not found: libplist's reading not checked")
        }
        return out
    }
}

/// Spliced commits of binary domain files (``BinarySplice``): the file is
/// not a full write's bytes but holds the same values, for our reader,
/// plistlib and libplist alike.
@Suite("Binary spliced commits")
struct BinarySplicedCommitTests {
    static let app = "com.example.binspliced"
    static let id = DomainID(application: app, user: .current, host: .any)
    /// A value only the binary format carries: it keeps the file binary.
    static let binaryOnly: PropertyList = .string("ctl\u{1}")

    static func isSpliced(_ store: PreferencesStore, _ box: StoreSandbox) -> Bool {
        store.domainForTesting(box.expectedPath(app))?.lastWriteSpliced == true
    }

    /// The domain's index as a new process finds it, when current.
    static func currentIndex(_ box: StoreSandbox) -> DomainIndex.Contents? {
        let path = box.expectedPath(app)
        guard let bytes = readFile(path), let stamp = try? FileSystem.stamp(path) else { return nil }
        return DomainIndex(domainPath: path, directory: box.indexDirectory).contents(for: stamp, content: { bytes })
    }

    /// The trailer's reference width and object count.
    static func trailer(_ bytes: [UInt8]) -> (refSize: Int, objects: Int) {
        let t = bytes.count - 32
        var n = 0
        for i in 0..<8 { n = n << 8 | Int(bytes[t + 8 + i]) }
        return (Int(bytes[t + 7]), n)
    }

    /// After a write: the file is binary and reads as `model` (ours, a new
    /// store's, the index's); plistlib and plistutil read it as they read
    /// a full write of `model`. Returns the file's bytes.
    @discardableResult
    static func check(
        _ box: StoreSandbox, _ model: PropertyListDictionary, readers: [PreferencesStore], _ what: String,
        external: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [UInt8] {
        let path = box.expectedPath(app)
        let bytes = try #require(readFile(path), sourceLocation: sourceLocation)
        #expect(bytes.starts(with: BinaryReader.magic), "\(what): not binary", sourceLocation: sourceLocation)
        let parsed = try Domain.decode(bytes, path: "test")
        #expect(parsed == model, "\(what): a fresh parse differs", sourceLocation: sourceLocation)
        let index = try #require(currentIndex(box), "\(what): no current index", sourceLocation: sourceLocation)
        let all = try #require(index.allValues(), sourceLocation: sourceLocation)
        #expect(all.values == model, "\(what): the index's values", sourceLocation: sourceLocation)
        for reader in readers + [box.store()] {
            #expect(try reader.values(in: id) == model, "\(what): a store's values", sourceLocation: sourceLocation)
        }
        if external {
            let full = box.root + "/full.plist"
            #expect(writeFile(full, try Domain.encode(model.sortedByKey(), binary: true)))
            let d = ExternalReaders.disagreements([(path, full)])
            #expect(d.isEmpty, "\(what): \(d.joined(separator: "\n"))", sourceLocation: sourceLocation)
        }
        return bytes
    }

    /// Random sets, removals, type changes and new keys, written in turn
    /// by two stores (as two processes): after every write the values are
    /// the model's, for every reader, and most writes are spliced.
    @Test(arguments: [11, 12, 13, 14])
    func randomSequencesHoldTheSameValuesAsAFullWrite(seed: UInt64) throws {
        try inSandbox { box in
            var r = SplitMix64(seed: seed)
            var model: PropertyListDictionary = ["binary": Self.binaryOnly]
            let stores = [box.store(), box.store()]
            let size = [3, 40, 300, 1][Int(seed) - 11]
            var initial: [(String, PropertyList?)] = [("binary", Self.binaryOnly)]
            for i in 0..<size {
                let v = SplicedCommitTests.value(&r, binary: true)
                initial.append(("key\(i)", v))
                model[PropertyList.Key("key\(i)")] = v
            }
            try stores[0].set(initial, in: Self.id)
            try stores[0].synchronize(application: Self.app)
            try Self.check(box, model, readers: stores, "initial")
            var spliced = 0
            for round in 0..<30 {
                let store = stores[r.below(2)]
                var changes: [(String, PropertyList?)] = []
                for _ in 0..<(1 + r.below(round % 7 == 0 ? 40 : 4)) {
                    let k = SplicedCommitTests.key(&r, size + 20)
                    let v: PropertyList? = r.below(4) == 0 ? nil : SplicedCommitTests.value(&r, binary: true)
                    changes.append((k, v))
                }
                for (k, v) in changes { model[PropertyList.Key(k)] = v }
                try store.set(changes, in: Self.id)
                try store.synchronize(application: Self.app)
                if Self.isSpliced(store, box) { spliced += 1 }
                try Self.check(box, model, readers: stores, "seed \(seed) round \(round)")
            }
            // Full writes come only from compaction and wider references.
            #expect(spliced >= 15, "only \(spliced) of 30 writes spliced")
        }
    }

    /// Another program rewrites the file between two writes (same size,
    /// its times put back): the index is not current, the next write is a
    /// full one that keeps the other program's values, the one after is
    /// spliced again.
    @Test func aFileChangedByAnotherProgramIsWrittenWhole() throws {
        try inSandbox { box in
            var model: PropertyListDictionary = ["binary": Self.binaryOnly]
            for i in 0..<50 { model[PropertyList.Key("key\(i)")] = .integer(Int64(i)) }
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: Self.id)
            try store.synchronize(application: Self.app)
            try store.set([("key1", "one")], in: Self.id)
            model["key1"] = "one"
            try store.synchronize(application: Self.app)
            #expect(Self.isSpliced(store, box))
            let path = box.expectedPath(Self.app)
            // The other program: key2's value 2 becomes 9, in place.
            var other = model
            other["key2"] = 9
            var st = stat()
            #expect(stat(path, &st) == 0)
            let foreign = try Domain.encode(other.sortedByKey(), binary: true)
            let fd = open(path, O_WRONLY | O_TRUNC)
            #expect(fd >= 0)
            #expect(foreign.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == foreign.count)
            var times = [st.st_atim, st.st_mtim]
            #expect(futimens(fd, &times) == 0)
            close(fd)
            try store.set([("key3", "three")], in: Self.id)
            try store.synchronize(application: Self.app)
            #expect(!Self.isSpliced(store, box))
            other["key3"] = "three"
            try Self.check(box, other, readers: [store], "after the other program")
            try store.set([("key4", "four")], in: Self.id)
            try store.synchronize(application: Self.app)
            #expect(Self.isSpliced(store, box))
            other["key4"] = "four"
            try Self.check(box, other, readers: [store], "spliced again")
        }
    }

    /// New keys push the object count past 255, which one-byte references
    /// cannot name: a write that would pass it is whole (a full write may
    /// still fit in one byte, having dropped dead objects, and the next
    /// such write is whole again), and two-byte references are spliced.
    @Test func growthPastTheReferenceWidthIsAFullWrite() throws {
        try inSandbox { box in
            var model: PropertyListDictionary = ["binary": Self.binaryOnly]
            for i in 0..<100 { model[PropertyList.Key("key\(i)")] = .integer(Int64(1000 + i)) }
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: Self.id)
            try store.synchronize(application: Self.app)
            var bytes = try Self.check(box, model, readers: [store], "initial", external: false)
            #expect(Self.trailer(bytes).refSize == 1)
            var whole: [Int] = []
            for round in 0..<40 {
                let before = Self.trailer(bytes)
                model[PropertyList.Key("new\(round)")] = .integer(Int64(5000 + round))
                try store.set([("new\(round)", .integer(Int64(5000 + round)))], in: Self.id)
                try store.synchronize(application: Self.app)
                bytes = try Self.check(box, model, readers: [store], "round \(round)", external: round % 8 == 0)
                let after = Self.trailer(bytes)
                if !Self.isSpliced(store, box) {
                    whole.append(round)
                    // A splice adds at most three objects: key, value, top.
                    #expect(before.refSize == 1 && before.objects + 3 > 255, "round \(round): a full write before \(before)")
                } else {
                    #expect(after.refSize == before.refSize)
                }
            }
            #expect((1...3).contains(whole.count), "full writes in rounds \(whole)")
            #expect(Self.trailer(bytes).refSize == 2)
            #expect(whole.last.map { $0 < 39 } == true, "no splice with two-byte references")
        }
    }

    /// One key set again and again to a new large value: dead objects
    /// pile up until a full write drops them; the file never grows past
    /// about twice a full write's size.
    @Test func deadObjectsAreCompacted() throws {
        try inSandbox { box in
            var model: PropertyListDictionary = ["binary": Self.binaryOnly]
            for i in 0..<20 { model[PropertyList.Key("key\(i)")] = .string("value \(i)") }
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: Self.id)
            try store.synchronize(application: Self.app)
            var compacted = 0, spliced = 0
            for round in 0..<12 {
                let big: PropertyList = .data([UInt8](repeating: UInt8(round), count: 2000))
                model["big"] = big
                try store.set([("big", big)], in: Self.id)
                try store.synchronize(application: Self.app)
                let bytes = try Self.check(box, model, readers: [store], "round \(round)", external: round % 4 == 0)
                let full = try Domain.encode(model.sortedByKey(), binary: true)
                if Self.isSpliced(store, box) {
                    spliced += 1
                    #expect(bytes != full)
                } else {
                    compacted += 1
                    #expect(bytes == full, "round \(round): a full write is not a full write's bytes")
                }
                #expect(bytes.count <= 2 * full.count + 64, "round \(round): \(bytes.count) bytes, a full write \(full.count)")
            }
            #expect(compacted >= 3, "compacted \(compacted) times")
            #expect(spliced >= 3, "spliced \(spliced) times")
        }
    }

    /// A file of "k" = `value` (the bytes of one object), then the top
    /// dictionary last, as after a splice; one-byte offsets and references.
    static func keyThenTop(_ value: [UInt8]) -> [UInt8] {
        var file: [UInt8] = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in [[0x51, 0x6B], value, [0xD1, 0x00, 0x01]] {
            offsets.append(UInt8(file.count))
            file += object
        }
        let table = file.count
        file += offsets + [0, 0, 0, 0, 0, 0, 1, 1]
        for v in [3, 2, table] { file += withUnsafeBytes(of: UInt64(v).bigEndian, Array.init) }
        return file
    }

    static let addedKey = DomainIndex.Change(at: 1, replaces: false, key: "zz", value: .integer(1))

    /// Objects whose bytes, as a reader reads them, run past where the
    /// next object starts (into the top dictionary), in files every reader
    /// accepts: the new objects would take the old top's place and change
    /// what those objects read as, so the splice declines. The same kind
    /// of object within its extent is spliced, over the old top.
    @Test(
        arguments: [
            ([0x43, 0x58], [0x41, 0x58]),  // data of 3 bytes, 1 before the top
            ([0x61, 0x00], [0x62, 0x00, 0x61, 0x00, 0x62]),  // UTF-16 string of 1 unit, 1 byte before the top
            ([0x11, 0x01], [0x10, 0x01]),  // 2-byte integer, 1 byte before the top
            ([0x22, 0x40, 0x00], [0x22, 0x40, 0x00, 0x00, 0x00]),  // 4-byte real, 2 bytes before the top
            ([0x33, 0x41, 0xC0, 0, 0, 0, 0], [0x33, 0x41, 0xC0, 0, 0, 0, 0, 0, 0]),  // date, 6 bytes before the top
            ([0x81, 0x00], [0x81, 0x00, 0x01]),  // UID of 2 bytes, 1 before the top
        ] as [([UInt8], [UInt8])])
    func anObjectReadIntoTheTopIsNotOverwritten(overlapping: [UInt8], fitting: [UInt8]) throws {
        for (value, fits) in [(overlapping, false), (fitting, true)] {
            let file = Self.keyThenTop(value)
            var expected = try #require(PropertyList.parse(file).dictionaryValue)
            expected["zz"] = .integer(1)
            let out = BinarySplice.splice(file, entries: 1, changes: [Self.addedKey])
            #expect((out != nil) == fits, "\(value): spliced \(out != nil)")
            if let out { #expect(try PropertyList.parse(out) == PropertyList(.dictionary(expected)), "\(value)") }
        }
    }

    /// A top dictionary whose key reference, 8 bytes wide, is past
    /// `Int.max` (a negative `Int` once read): the splice declines the
    /// file without looking for that object before the offset table.
    @Test(arguments: [UInt64(1) << 63 | 30, UInt64.max - (1 << 40), UInt64.max])
    func aKeyReferencePastIntMaxIsDeclined(reference: UInt64) throws {
        // "bplist00", the top {key: true} at 8 (references of 8 bytes),
        // true at 25, offsets [8, 25] at 26, the trailer.
        var file = BinaryReader.magic + [0xD1]
        file += withUnsafeBytes(of: reference.bigEndian, Array.init)
        file += withUnsafeBytes(of: UInt64(1).bigEndian, Array.init)
        file += [0x09, 8, 25, 0, 0, 0, 0, 0, 0, 1, 8]
        for v in [2, 0, 26] { file += withUnsafeBytes(of: UInt64(v).bigEndian, Array.init) }
        let change = DomainIndex.Change(at: 0, replaces: true, key: "a", value: .integer(1))
        #expect(BinarySplice.splice(file, entries: 1, changes: [change]) == nil)
    }

    static let rootVariable = "PREFS_BINSPLICE_TEST_ROOT"

    /// The child of ``aCrashMidSpliceLeavesAWholeFile(point:)``.
    @Test(.enabled(if: isChildRole("binsplice-crash")))
    func crashingBinaryWriterChild() throws {
        try writeCrashTestChange(rootVariable: Self.rootVariable, Self.id)
    }

    /// A writer SIGKILLed in a spliced binary write, before or after the
    /// rename, leaves the old or the new file whole; the next write is
    /// right.
    @Test(arguments: ["before-rename", "before-index"])
    func aCrashMidSpliceLeavesAWholeFile(point: String) throws {
        try inSandbox { box in
            var model = crashTestModel()
            model["binary"] = Self.binaryOnly
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: Self.id)
            try store.synchronize(application: Self.app)
            // One spliced write first, so that the crash is in a splice
            // of a spliced file (its top dictionary last).
            model["key1"] = "first"
            try store.set([("key1", "first")], in: Self.id)
            try store.synchronize(application: Self.app)
            #expect(Self.isSpliced(store, box))
            let old = try #require(readFile(box.expectedPath(Self.app)))
            let r = runChildTest(
                named: "crashingBinaryWriterChild", role: "binsplice-crash",
                environment: [Self.rootVariable: box.root, "PREFS_TEST_FAIL": "crash-" + point])
            #expect(r.status == SIGKILL, "the child was not killed: \(r.output)")
            let expected = crashTestResult(model, killedAt: point)
            let bytes = try #require(readFile(box.expectedPath(Self.app)))
            #expect(try Domain.decode(bytes, path: "test") == expected)
            if point == "before-rename" { #expect(bytes == old) }
            #expect(try box.store().values(in: Self.id) == expected)
            let next = box.store()
            try next.set([("key2", "next")], in: Self.id)
            try next.synchronize(application: Self.app)
            var final = expected
            final["key2"] = "next"
            try Self.check(box, final, readers: [next], "after the crash")
        }
    }

    /// Each real binary preference file from a Mac, placed as a domain:
    /// through four writes of one key (new keys, and a removal of its first
    /// key), every value it held reads as the reference reader read the
    /// original (``RealWorld``), for our reader, plistlib and plistutil.
    /// Most writes are spliced; the others are whole by design: a removed
    /// key not where the index puts it (the Mac's own key order), dead
    /// bytes over half of a small file (its first top dictionary), offsets
    /// that would need another byte.
    @Test func realMacFilesKeepTheirValuesThroughSplices() throws {
        guard RealWorld.available else { return }
        var failures: [String] = []
        var files = 0, splices = 0
        var pairs: [(spliced: String, full: String)] = []
        let keep = try #require(makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: keep) }
        for name in RealWorld.preferenceFiles() {
            let c = try RealWorld.load(name)
            guard c.bytes.starts(with: BinaryReader.magic), let expectedJSON = RealWorld.member(c.json, "value"),
                case .dictionary(let expected) = try RealWorld.value(expectedJSON).value
            else { continue }
            files += 1
            try inSandbox { box in
                let path = box.expectedPath(Self.app)
                #expect(writeFile(path, c.bytes))
                var want = expected
                for round in 0...3 {
                    let store = box.store()
                    let key = round == 2 ? (expected.keys.sorted().first?.string ?? "k") : "libprefs.test.key\(round)"
                    if round == 2 { want.removeValue(forKey: PropertyList.Key(key)) } else { want[PropertyList.Key(key)] = .integer(round) }
                    try store.set([(key, round == 2 ? nil : .integer(round))], in: Self.id)
                    _ = try store.synchronize(Self.id)
                    if round > 0 && Self.isSpliced(store, box) { splices += 1 }
                    let written = try #require(readFile(path))
                    guard written.starts(with: BinaryReader.magic) else {
                        failures.append("\(name): round \(round) not binary")
                        return
                    }
                    let reread = try PropertyList.parse(written)
                    if let d = RealWorld.difference(reread, .dictionary(want)) {
                        failures.append("\(name): round \(round): \(d)")
                        return
                    }
                    if round == 3 {
                        let spliced = keep + "/\(files).spliced", full = keep + "/\(files).full"
                        #expect(writeFile(spliced, written))
                        #expect(writeFile(full, try Domain.encode(try Domain.decode(written, path: "t").sortedByKey(), binary: true)))
                        pairs.append((spliced, full))
                    }
                }
            }
        }
        #expect(files >= 100)
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.prefix(20).joined(separator: "\n"))")
        #expect(splices >= 2 * files, "\(splices) of \(3 * files) writes spliced")
        let d = ExternalReaders.disagreements(pairs)
        #expect(d.isEmpty, "\(d.joined(separator: "\n").prefix(3000))")
    }
}
