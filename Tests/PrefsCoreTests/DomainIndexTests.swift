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
        let path = box.expectedPath(Self.app)
        guard let xml = FileManager.default.contents(atPath: path), let stamp = try? FileSystem.stamp(path) else { return nil }
        return index(box).contents(for: stamp, content: { Array(xml) })
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

    /// A date of -0.0 is stored as +0.0 (no file format keeps the sign of
    /// a zero date): a reader through the index and one parsing the file
    /// see the same date, to the sign bit.
    @Test func aNegativeZeroDateReadsTheSameThroughTheIndexAndTheFile() throws {
        #expect(PropertyList.date(-0.0).dateValue?.sign == .plus)
        #expect(PropertyList(.date(-0.0)).dateValue?.sign == .plus)
        #expect(PropertyList.date(-0.5).dateValue == -0.5)
        try inSandbox { box in
            let path = try written(box, ["zero": .date(-0.0), "nested": [PropertyList.date(-0.0)]])
            let c = try #require(contents(box))
            guard case .value(let indexed) = c.value(forKey: "zero") else { Issue.record("zero missing from the index"); return }
            let file = try PropertyList.parse(Array(try #require(FileManager.default.contents(atPath: path))))
            let parsed = try #require(file.dictionaryValue?["zero"])
            #expect(indexed.dateValue?.sign == .plus)
            #expect(parsed.dateValue?.sign == .plus)
            #expect(strictDifference(indexed, parsed) == nil)
            let reader = box.store()
            #expect(try reader.value(forKey: "zero", application: Self.app)?.dateValue?.sign == .plus)
            #expect(try reader.value(forKey: "nested", application: Self.app)?.arrayValue?.first?.dateValue?.sign == .plus)
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
            case "flip": bytes[bytes.count - 3] ^= 0x40  // inside the last entry, "Other"
            case "truncate": bytes = bytes.prefix(bytes.count / 2)
            case "empty": bytes = Data()
            default: bytes = Data(repeating: 0xA5, count: bytes.count)
            }
            try bytes.write(to: URL(fileURLWithPath: indexPath))
            if damage == "flip" {
                // The header is whole: the damaged entry fails its check when read.
                let c = try #require(contents(box))
                guard case .corrupt = c.value(forKey: "Other") else { Issue.record("a damaged entry was used"); return }
                #expect(c.allValues() == nil)
            } else {
                #expect(contents(box) == nil)
            }
            let reader = box.store()
            #expect(try reader.value(forKey: "Key", application: Self.app) == "value")
            #expect(try reader.value(forKey: "Other", application: Self.app) == .integer(7))
        }
    }

    /// An index whose header checks but whose entry points outside it:
    /// the reader falls back to the XML.
    @Test func entriesOutOfBoundsFallBackToTheXML() throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "value"])
            let indexPath = index(box).path
            var bytes = try #require(FileManager.default.contents(atPath: indexPath)).map { $0 }
            let bodyStart = DomainIndex.headerSize + box.expectedPath(Self.app).utf8.count
            let buckets = Int(bytes[116]) | Int(bytes[117]) << 8
            // The first entry's offset: far past the end.
            bytes[bodyStart + buckets * 4 + 3] = 0x7F
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            let c = try #require(contents(box), "the header checks pass")
            guard case .corrupt = c.value(forKey: "Key") else { Issue.record("an entry out of bounds was used"); return }
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
            let buckets = Int(bytes[116]) | Int(bytes[117]) << 8
            // "Other" is the second entry: its value's tag becomes unknown.
            let at = bodyStart + buckets * 4 + DomainIndex.entrySize
            let offset = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            bytes[bodyStart + offset + Int(bytes[at + 4])] = 99
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

    @Test func sipHashMatchesTheReferenceVectors() {
        // SipHash-2-4-128, key 00 01 ... 0f, messages of 0, 1 and 15 bytes 00 01 ...
        let key = SipHash.Key(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)
        #expect(SipHash([], key: key) == SipHash(h0: 0xe6a8_25ba_047f_81a3, h1: 0x9302_55c7_1472_f66d))
        #expect(SipHash([0], key: key) == SipHash(h0: 0x44af_996b_d8c1_87da, h1: 0x45fc_229b_1159_7634))
        #expect(SipHash(Array(0..<15), key: key) != SipHash(Array(0..<14), key: key))
        #expect(SipHash([1], key: key) != SipHash([1], key: SipHash.Key(k0: 1, k1: 0)))
    }

    /// Rewrites the identity an index records for its XML file, the time
    /// it was made, the keyed hash of `content`, and its header's check:
    /// what a writer would have recorded had the file's times been those of
    /// `stamp` on a file system with a coarse clock.
    func record(_ box: StoreSandbox, _ stamp: FileSystem.Stamp, made: Int64, content: [UInt8]) throws {
        let indexPath = index(box).path
        var bytes = try #require(FileManager.default.contents(atPath: indexPath)).map { $0 }
        func put(_ v: UInt64, at: Int) { withUnsafeBytes(of: v.littleEndian) { for i in 0..<8 { bytes[at + i] = $0[i] } } }
        put(UInt64(bitPattern: stamp.mtimeSeconds), at: 40)
        put(UInt64(bitPattern: stamp.mtimeNanoseconds), at: 48)
        put(UInt64(bitPattern: stamp.ctimeNanoseconds), at: 56)
        put(UInt64(bitPattern: made), at: 64)
        let key = SipHash.Key.random()
        let digest = SipHash(content, key: key)
        for (i, v) in [key.k0, key.k1, digest.h0, digest.h1].enumerated() { put(v, at: 72 + 8 * i) }
        var header = Array(bytes[0..<120])
        header += bytes[DomainIndex.headerSize..<(DomainIndex.headerSize + box.expectedPath(Self.app).utf8.count)]
        put(header.withUnsafeBytes { ContentHash.of($0) }, at: 120)
        try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
    }

    /// The racy window: an edit in place, of the same size, with the times
    /// put back (`utimensat`), within the same tick of a coarse clock as the
    /// index was made, keeps the file's whole identity. Here the clock is
    /// fine-grained, so the identity the index records is set to the edited
    /// file's, and its time of making to that tick: the reader must see the
    /// edit by the file's content, through the keyed hash.
    @Test func anEditInTheRacyWindowIsSeenByItsContent() throws {
        try inSandbox { box in
            let path = try written(box, ["Colour": "red", "Size": .integer(10)])
            let original = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            // Racy, and the file as it was: used, after its bytes were compared.
            let unchanged = try #require(try FileSystem.stamp(path))
            try record(box, unchanged, made: unchanged.ctimeNanoseconds, content: original)
            var compared = false
            let racy = index(box).contents(
                for: unchanged,
                content: {
                    compared = true; return original
                })
            #expect(racy != nil && compared)
            var before = stat()
            #expect(stat(path, &before) == 0)
            let old = try String(contentsOfFile: path, encoding: .utf8)
            let new = old.replacingOccurrences(of: "red", with: "tan").replacingOccurrences(of: "10", with: "99")
            let fd = open(path, O_WRONLY)
            #expect(fd >= 0)
            _ = Array(new.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            let edited = try #require(try FileSystem.stamp(path))
            #expect(edited.size == Int64(old.utf8.count) && edited.mtime == FileSystem.Stamp(before).mtime)
            try record(box, edited, made: edited.ctimeNanoseconds, content: original)
            let c = contents(box)
            #expect(c == nil, "a racy index whose hash does not match the file was used")
            let reader = box.store()
            #expect(try reader.value(forKey: "Colour", application: Self.app) == "tan")
            #expect(try reader.value(forKey: "Size", application: Self.app) == .integer(99))
            // The same identity made a tick before: trusted without reading
            // the XML (which a later change could not have kept).
            try record(box, edited, made: edited.ctimeNanoseconds + 1, content: original)
            let trusted = try #require(contents(box))
            guard case .value("red") = trusted.value(forKey: "Colour") else { Issue.record("the identity was not trusted"); return }
        }
    }

    /// A writer's index on this file system is not racy: readers do not
    /// read the XML to use it (its identity proves it current).
    @Test func aWritersIndexIsTrustedOnIdentity() throws {
        try inSandbox { box in
            let path = try written(box, ["Key": "value"])
            let stamp = try #require(try FileSystem.stamp(path))
            var read = false
            let c = index(box).contents(
                for: stamp,
                content: {
                    read = true; return nil
                })
            if let c, !c.record.isRacy {
                #expect(!read)
            } else {
                // A file system with a coarse clock: the index is racy, and
                // without the bytes it cannot be used.
                #expect(c == nil && read)
            }
        }
    }

    /// The 64-bit hash that fingerprinted domain files, inverted: a file of
    /// the same size and the same ``ContentHash`` as `original`, whose
    /// `from` text (inside a string value) is replaced by other letters.
    static func forge(_ original: [UInt8], _ from: String) -> [UInt8]? {
        let m1: UInt64 = 0x9E37_79B9_7F4A_7C15, m2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        func inverse(_ m: UInt64) -> UInt64 {
            var x = m
            for _ in 0..<6 { x = x &* (2 &- m &* x) }
            return x
        }
        func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let x = h ^ (w &* m2)
            return ((x << 29) | (x >> 35)) &* m1
        }
        func word(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        guard let start = original.firstRange(of: Array(from.utf8))?.lowerBound else { return nil }
        // Two blocks of 32 bytes inside the text; lane 0 of each is changed.
        let block = (start + 31) / 32
        guard (block + 2) * 32 <= start + from.utf8.count, (block + 2) * 32 <= original.count else { return nil }
        var h = UInt64(original.count) ^ m1
        for b in 0..<block { h = mix(h, word(original, b * 32)) }
        let target = mix(mix(h, word(original, block * 32)), word(original, (block + 1) * 32))
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for n in 0..<50_000_000 {
            var w1: UInt64 = 0
            var v = n
            for i in 0..<8 {
                w1 |= UInt64(letters[v % letters.count]) << (8 * UInt64(i))
                v /= letters.count
            }
            if w1 == word(original, block * 32) { continue }
            let x = target &* inverse(m1)
            let w2 = (((x >> 29) | (x << 35)) ^ mix(h, w1)) &* inverse(m2)
            guard (0..<8).allSatisfy({ letters.contains(UInt8(truncatingIfNeeded: w2 >> (8 * UInt64($0)))) }) else { continue }
            var forged = original
            for i in 0..<8 {
                forged[block * 32 + i] = UInt8(truncatingIfNeeded: w1 >> (8 * UInt64(i)))
                forged[(block + 1) * 32 + i] = UInt8(truncatingIfNeeded: w2 >> (8 * UInt64(i)))
            }
            return forged
        }
        return nil
    }

    /// A file forged to have the size and the 64-bit hash of the domain's
    /// file, with another value, copied over it: readers see the new value,
    /// not the index's old one.
    @Test func aForgedFileOfTheSameSizeAndHashIsNotTakenForTheOld() throws {
        try inSandbox { box in
            let text = String(repeating: "a", count: 160)
            let path = try written(box, ["Name": .string(text), "Other": .integer(1)])
            let original = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            let forged = try #require(Self.forge(original, text))
            #expect(forged != original && forged.count == original.count)
            #expect(forged.withUnsafeBytes { ContentHash.of($0) } == original.withUnsafeBytes { ContentHash.of($0) })
            let value = try #require(try PropertyList.parse(forged).dictionaryValue?["Name"])
            #expect(value != .string(text))
            try Data(forged).write(to: URL(fileURLWithPath: path), options: .atomic)
            #expect(try box.store().value(forKey: "Name", application: Self.app) == value)
        }
    }

    /// The same forged file written in place over a domain a process has
    /// loaded: that process's next write of another key keeps the forged
    /// file's value instead of putting its old one back.
    @Test func aWriteAfterAForgedFileKeepsItsValues() throws {
        try inSandbox { box in
            let text = String(repeating: "b", count: 160)
            let path = try written(box, ["Name": .string(text)])
            let store = box.store()
            #expect(try store.value(forKey: "Name", application: Self.app) == .string(text))
            let original = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            let forged = try #require(Self.forge(original, text))
            let value = try #require(try PropertyList.parse(forged).dictionaryValue?["Name"])
            let fd = open(path, O_WRONLY)
            #expect(fd >= 0)
            _ = forged.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            try store.set([("Unrelated", .integer(1))], in: DomainID(application: Self.app, user: .current, host: .any))
            try store.synchronize(application: Self.app)
            let onDisk = try #require(FileManager.default.contents(atPath: path))
            let after = try #require(try PropertyList.parse(Array(onDisk)).dictionaryValue)
            #expect(after["Name"] == value)
            #expect(after["Unrelated"] == .integer(1))
        }
    }

    /// A crash between the rename of a domain file and its index's write
    /// leaves the old index, which describes the old file: the next
    /// reader parses the new file, and the next write makes a new index.
    @Test func theIndexAfterACrashBetweenRenameAndIndexWrite() throws {
        try inSandbox { box in
            _ = try written(box, ["Key": "old", "Kept": .integer(1)])
            let indexPath = index(box).path
            let saved = try #require(FileManager.default.contents(atPath: indexPath))
            let writer = box.store()
            try writer.set([("Key", "new")], in: DomainID(application: Self.app, user: .current, host: .any))
            try writer.synchronize(application: Self.app)
            // As if the process had died after its rename: the old index.
            try saved.write(to: URL(fileURLWithPath: indexPath))
            #expect(contents(box) == nil)
            #expect(try box.store().value(forKey: "Key", application: Self.app) == "new")
            #expect(try box.store().value(forKey: "Kept", application: Self.app) == .integer(1))
            _ = try written(box, ["Other": .integer(2)])
            let c = try #require(contents(box))
            guard case .value("new") = c.value(forKey: "Key") else { Issue.record("no new index"); return }
        }
    }
}
