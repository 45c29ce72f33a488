import Foundation
import Testing

@testable import PrefsCore

/// The binary index beside each of the user's domain files: used only when
/// it matches the XML byte for byte, never trusted over it.
@Suite("Domain index")
struct DomainIndexTests {
    static let app = "com.example.indexed"

    /// A domain written by one store, as a new process reads it.
    func written(_ box: StoreSandbox, _ values: [String: PropertyList]) throws -> String {
        let writer = box.store()
        try writer.set(values.map { ($0.key, $0.value) }, in: DomainID(application: Self.app, user: .current, host: .any))
        try writer.synchronize(application: Self.app)
        return box.expectedPath(Self.app)
    }

    func index(_ box: StoreSandbox) -> DomainIndex {
        DomainIndex(domainPath: box.expectedPath(Self.app), directory: box.indexDirectory)
    }

    func contents(_ box: StoreSandbox) -> DomainIndex.Contents? {
        guard let xml = FileManager.default.contents(atPath: box.expectedPath(Self.app)) else { return nil }
        return index(box).contents(for: Domain.Fingerprint(Array(xml)))
    }

    static let everyKind: [String: PropertyList] = [
        "string": "héllo, wörld", "empty": "", "int": .integer(-42), "big": .integer(UInt64.max),
        "small": .integer(Int64.min), "yes": true, "no": false, "real": .real(0.1), "inf": .real(-.infinity),
        "date": .date(-1_000_000.5), "data": .data([0, 1, 2, 255]),
        "array": .array(["a", .integer(1), .array([])]), "dict": ["k": "v", "n": PropertyList(.dictionary([:]))],
    ]

    @Test func aWriterMakesAnIndexThatReadsBackEveryKind() throws {
        try inSandbox { box in
            _ = try written(box, Self.everyKind)
            let c = try #require(contents(box))
            #expect(c.count == Self.everyKind.count)
            for (k, v) in Self.everyKind {
                guard case .value(let found) = c.value(forKey: PropertyList.Key(k)) else {
                    Issue.record("\(k) missing from the index")
                    continue
                }
                #expect(found == v, "\(k)")
            }
            guard case .absent = c.value(forKey: "nope") else { Issue.record("an absent key was found"); return }
            let all = try #require(c.allValues())
            #expect(all.values == Dictionary(uniqueKeysWithValues: Self.everyKind.map { (PropertyList.Key($0.key), $0.value) }))
            // Entries are in the written order, which the next writer keeps.
            let order = try #require(all.order)
            #expect(order.map(\.key) == order.map(\.key).sorted())
            // A new process reads every key through it.
            let reader = box.store()
            for (k, v) in Self.everyKind { #expect(try reader.value(forKey: k, application: Self.app) == v) }
        }
    }

    /// A domain another program wrote is parsed by its readers, who write
    /// nothing, not even its index inside an existing cache directory; the
    /// next libprefs write makes the index, and later readers use it.
    @Test func onlyAWriterMakesTheIndexOfAFileItDidNotWrite() throws {
        try inSandbox { box in
            let path = box.expectedPath(Self.app)
            try Data("<plist version=\"1.0\"><dict><key>A</key><integer>1</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: path))
            #expect(try box.store().value(forKey: "A", application: Self.app) == .integer(1))
            #expect(!FileManager.default.fileExists(atPath: box.root + "/cache"))
            mkdirs(box.root + "/cache")
            for _ in 0..<2 { #expect(try box.store().value(forKey: "A", application: Self.app) == .integer(1)) }
            let made = (try? FileManager.default.contentsOfDirectory(atPath: box.root + "/cache")) ?? []
            #expect(made.isEmpty, "a reader wrote \(made)")
            #expect(contents(box) == nil)
            let writer = box.store()
            try writer.set([("B", .integer(2))], in: DomainID(application: Self.app, user: .current, host: .any))
            try writer.synchronize(application: Self.app)
            let c = try #require(contents(box))
            guard case .value(.integer(1)) = c.value(forKey: "A") else { Issue.record("the write made no index of A"); return }
            #expect(try box.store().value(forKey: "B", application: Self.app) == .integer(2))
        }
    }

    /// A rewrite of the same size, within the same clock tick, with the
    /// modification time put back: the identity of the file is unchanged,
    /// its content is not.
    @Test func aSameSizeEditWithTheSameTimeIsSeen() throws {
        try inSandbox { box in
            let path = try written(box, ["Colour": "red", "Size": .integer(10)])
            var before = stat()
            #expect(stat(path, &before) == 0)
            let old = try String(contentsOfFile: path, encoding: .utf8)
            let new = old.replacingOccurrences(of: "red", with: "tan").replacingOccurrences(of: "10", with: "99")
            #expect(new.utf8.count == old.utf8.count)
            let fd = open(path, O_WRONLY | O_TRUNC)
            #expect(fd >= 0)
            _ = Array(new.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var times = [before.st_atim, before.st_mtim]
            #expect(futimens(fd, &times) == 0)
            close(fd)
            let reader = box.store()
            #expect(try reader.value(forKey: "Colour", application: Self.app) == "tan")
            #expect(try reader.value(forKey: "Size", application: Self.app) == .integer(99))
        }
    }

    /// What another program writes (Foundation takes no lock and makes no
    /// index) is read from the XML; the stale index is left for the next
    /// libprefs write to replace.
    @Test func aStaleIndexAfterAnotherProgramsWriteIsNotUsed() throws {
        try inSandbox { box in
            let path = try written(box, ["Name": "libprefs"])
            let plist = try PropertyListSerialization.data(fromPropertyList: ["Name": "Foundation", "Extra": 1], format: .xml, options: 0)
            try plist.write(to: URL(fileURLWithPath: path), options: .atomic)
            let reader = box.store()
            #expect(try reader.value(forKey: "Name", application: Self.app) == "Foundation")
            #expect(try reader.value(forKey: "Extra", application: Self.app) == .integer(1))
            #expect(try box.store().value(forKey: "Name", application: Self.app) == "Foundation")
            #expect(contents(box) == nil)
        }
    }

    /// Damage anywhere in the index (a flipped byte, a truncation, a zero
    /// length) makes it unusable, never a wrong value or a crash.
    @Test(arguments: ["flip", "truncate", "empty", "garbage"])
    func aDamagedIndexIsIgnored(_ damage: String) throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "value", "Other": .integer(7)])
            let indexPath = index(box).path
            var bytes = try #require(FileManager.default.contents(atPath: indexPath))
            switch damage {
            case "flip": bytes[bytes.count - 3] ^= 0x40
            case "truncate": bytes = bytes.prefix(bytes.count / 2)
            case "empty": bytes = Data()
            default: bytes = Data(repeating: 0xA5, count: bytes.count)
            }
            try bytes.write(to: URL(fileURLWithPath: indexPath))
            #expect(contents(box) == nil)
            let reader = box.store()
            #expect(try reader.value(forKey: "Key", application: Self.app) == "value")
            #expect(try reader.value(forKey: "Other", application: Self.app) == .integer(7))
        }
    }

    /// An index whose hashes were made to match but whose entries point
    /// outside it: the reader falls back to the XML.
    @Test func entriesOutOfBoundsFallBackToTheXML() throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "value"])
            let indexPath = index(box).path
            var bytes = try #require(FileManager.default.contents(atPath: indexPath)).map { $0 }
            let bodyStart = DomainIndex.headerSize + box.expectedPath(Self.app).utf8.count
            let buckets = Int(bytes[44]) | Int(bytes[45]) << 8
            // The first entry's value offset: far past the end.
            let at = bodyStart + buckets * 4 + 8
            bytes[at + 3] = 0x7F
            let hash = bytes[bodyStart...].withUnsafeBytes { ContentHash.of($0) }
            withUnsafeBytes(of: hash.littleEndian) { for i in 0..<8 { bytes[32 + i] = $0[i] } }
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            #expect(contents(box) != nil, "the header checks pass")
            #expect(try box.store().value(forKey: "Key", application: Self.app) == "value")
        }
    }

    /// The index's name keeps at most 100 bytes of the domain file's name;
    /// a cut inside a character must not stop the domain from being read.
    @Test func aLongNameCutInsideACharacterIsIndexed() throws {
        try inSandbox { box in
            let app = String(repeating: "a", count: 99) + "\u{E9}.long"
            let id = DomainID(application: app, user: .current, host: .any)
            let writer = box.store()
            try writer.set([("Key", "value")], in: id)
            try writer.synchronize(application: app)
            #expect(try box.store().value(forKey: "Key", application: app) == "value")
        }
    }

    /// An index whose hashes match but with one value that does not
    /// decode, met once the domain file can no longer be read: the reader
    /// cannot fall back to the XML, and must still answer.
    @Test func aBadEntryAfterTheFileBecameUnreadableDoesNotCrash() throws {
        try inSandbox { box in
            let path = try written(box, ["Key": "value", "Other": "other"])
            let indexPath = index(box).path
            var bytes = try #require(FileManager.default.contents(atPath: indexPath)).map { $0 }
            let bodyStart = DomainIndex.headerSize + path.utf8.count
            let buckets = Int(bytes[44]) | Int(bytes[45]) << 8
            // "Other" is the second entry: its value's tag becomes unknown.
            let at = bodyStart + buckets * 4 + 16 + 8
            let valueOffset = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            bytes[bodyStart + valueOffset] = 99
            let hash = bytes[bodyStart...].withUnsafeBytes { ContentHash.of($0) }
            withUnsafeBytes(of: hash.littleEndian) { for i in 0..<8 { bytes[32 + i] = $0[i] } }
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            let reader = box.store()
            #expect(try reader.value(forKey: "Key", application: Self.app) == "value")
            // The domain file is replaced by something that cannot be read.
            #expect(unlink(path) == 0)
            mkdirs(path)
            #expect(try reader.value(forKey: "Other", application: Self.app) == nil)
        }
    }

    /// An index that is a symlink, or that others may write, is not read.
    @Test(arguments: ["symlink", "group-writable"])
    func anIndexThatIsNotTheUsersOwnIsIgnored(_ kind: String) throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "old"])
            let indexPath = index(box).path
            let saved = box.root + "/saved.index"
            #expect(rename(indexPath, saved) == 0)
            // The XML changes; the saved index still describes the old bytes,
            // so point a valid index for the *new* bytes elsewhere.
            let writer = box.store()
            try writer.set([("Key", "new")], in: DomainID(application: Self.app, user: .current, host: .any))
            try writer.synchronize(application: Self.app)
            #expect(contents(box) != nil)
            if kind == "symlink" {
                let target = box.root + "/target.index"
                #expect(rename(indexPath, target) == 0)
                #expect(symlink(target, indexPath) == 0)
            } else {
                #expect(chmod(indexPath, 0o664) == 0)
            }
            #expect(contents(box) == nil)
            #expect(try box.store().value(forKey: "Key", application: Self.app) == "new")
        }
    }

    /// Managed and any-user files get no index in the user's cache, where
    /// the user could forge one.
    @Test func onlyTheUsersOwnFilesAreIndexed() throws {
        try inSandbox { box in
            let managed = box.managedPath(Self.app, userOnly: false)
            try Data("<plist version=\"1.0\"><dict><key>Forced</key><true/></dict></plist>".utf8).write(to: URL(fileURLWithPath: managed))
            let store = box.store()
            #expect(try store.value(forKey: "Forced", application: Self.app) == true)
            try store.set([("Mine", .integer(1))], in: DomainID(application: Self.app, user: .any, host: .any))
            try store.synchronizeAll()
            let made = (try? FileManager.default.contentsOfDirectory(atPath: box.indexDirectory)) ?? []
            #expect(made.isEmpty, "\(made)")
        }
    }

    /// A process that reads a few keys decodes only those; the merged view
    /// is built after enough reads, and both agree.
    @Test func layerByLayerReadsAgreeWithTheMergedView() throws {
        try inSandbox { box in
            var values: [String: PropertyList] = [:]
            for i in 0..<200 { values["key\(i)"] = .integer(i) }
            _ = try written(box, values)
            let store = box.store()
            try store.register(["key5": "registered", "only-registered": "r"], application: Self.app)
            for round in 0..<(PreferencesStore.mergeAfterReads + 5) {
                let i = round % 200
                #expect(try store.value(forKey: "key\(i)", application: Self.app) == .integer(i))
                #expect(try store.value(forKey: "only-registered", application: Self.app) == "r")
                #expect(try store.value(forKey: "absent", application: Self.app) == nil)
            }
        }
    }

    @Test func removingTheDomainRemovesItsIndex() throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "value"])
            #expect(FileManager.default.fileExists(atPath: index(box).path))
            #expect(try box.store().removeDomain(DomainID(application: Self.app, user: .current, host: .any)))
            #expect(!FileManager.default.fileExists(atPath: index(box).path))
        }
    }

    /// A write merges its changes into the order the file had, and the
    /// file is byte for byte what a full sort writes.
    @Test func aWriteKeepsTheOrderWithoutSorting() throws {
        let base: [Domain.Entry] = ["a", "c", "e", "g"].map { (PropertyList.Key($0), PropertyList.string($0)) }
        let changes: [PropertyList.Key: PropertyList?] = ["b": "B", "c": PropertyList?.none, "g": "G", "z": "Z", "0": "0"]
        let merged = Domain.merging(changes, into: base)
        #expect(merged.map(\.key.string) == ["0", "a", "b", "e", "g", "z"])
        #expect(merged.map(\.value) == ["0", "a", "B", "e", "G", "Z"])
        try inSandbox { box in
            var values: [String: PropertyList] = [:]
            for i in stride(from: 0, to: 300, by: 3) { values["k\(i)"] = .integer(i) }
            let path = try written(box, values)
            let writer = box.store()
            for round in 0..<5 {
                try writer.set(
                    [("k\(round * 7 + 1)", PropertyList.string("new")), ("k\(round * 3)", PropertyList?.none)],
                    in: DomainID(application: Self.app, user: .current, host: .any))
                try writer.synchronize(application: Self.app)
                let bytes = try #require(FileManager.default.contents(atPath: path))
                let all = try #require(try PropertyList.parse(Array(bytes)).dictionaryValue)
                #expect(Array(bytes) == (try PropertyList(.dictionary(all)).xmlData()), "round \(round)")
            }
        }
    }

    @Test func contentHashIsStableAndSpreads() {
        // Fixed values: the hash is part of the index format.
        #expect(Array("".utf8).withUnsafeBytes { ContentHash.of($0) } == Array("".utf8).withUnsafeBytes { ContentHash.of($0) })
        var seen = Set<UInt64>()
        for i in 0..<10_000 { seen.insert(Array("key\(i)".utf8).withUnsafeBytes { ContentHash.of($0) }) }
        #expect(seen.count == 10_000)
        let a = Array(repeating: UInt8(7), count: 100), b = a.enumerated().map { $0.offset == 99 ? UInt8(8) : $0.element }
        #expect(a.withUnsafeBytes { ContentHash.of($0) } != b.withUnsafeBytes { ContentHash.of($0) })
    }
}
