import Glibc
import Testing

@testable import PrefsCore

// The binary property-list reader and writer: files written by Python's
// plistlib in every shape it makes (Fixtures/binary, from
// Fixtures/make_binary.py), hostile files each breaking one check, and
// round trips through the writer.

/// The directory of the committed binary fixtures.
private let fixtures: String = {
    var path = #filePath
    while let c = path.last, c != "/" { path.removeLast() }
    return path + "Fixtures/binary/"
}()

/// The bytes of a file; records an issue when it cannot be read.
func fixtureBytes(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard let f = fopen(path, "rb") else {
        Issue.record("cannot open \(path)", sourceLocation: sourceLocation)
        return []
    }
    defer { fclose(f) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buffer[0..<n])
    }
    return out
}

/// The value a fixture's JSON twin describes (see make_binary.py).
private func expected(_ json: JSON) -> PropertyList? {
    guard case .object(let members) = json, members.count == 2,
        let t = members.first(where: { $0.name == "t" })?.value, case .string(let type) = t,
        let v = members.first(where: { $0.name == "v" })?.value
    else { return nil }
    switch (type, v) {
    case ("bool", .bool(let b)): return .boolean(b)
    case ("int", .string(let s)): return Int128(s).map { PropertyList(.integer($0)) }
    case ("uid", .string(let s)): return UInt32(s).map { .uid($0) }
    case ("real", .string(let s)): return Double(s).map { .real($0) }
    case ("string", .string(let s)): return .string(s)
    case ("data", .string(let hex)):
        var bytes = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            guard let b = UInt8(hex[i..<j], radix: 16) else { return nil }
            bytes.append(b)
            i = j
        }
        return .data(bytes)
    case ("zeros", .number(let n)): return Int(n).map { .data([UInt8](repeating: 0, count: $0)) }
    case ("date", .number(let n)): return Double(n).map { .date($0) }
    case ("array", .array(let items)):
        var out = [PropertyList]()
        for item in items {
            guard let e = expected(item) else { return nil }
            out.append(e)
        }
        return .array(out)
    case ("dict", .object(let items)):
        var out = [PropertyList.Key: PropertyList]()
        for item in items {
            guard let e = expected(item.value) else { return nil }
            out[PropertyList.Key(item.name)] = e
        }
        return .dictionary(out)
    default: return nil
    }
}

/// The names of the fixtures (each has `.json`, `.plist`, `_unsorted.plist`).
private let fixtureNames = [
    "scalars", "containers", "shared", "uids", "array_root", "string_root", "many_objects", "wide_offsets",
]

// MARK: Building hostile files

/// A binary property list from encoded objects, with every trailer field
/// open to change.
struct BinaryBuilder {
    var objects: [[UInt8]]
    var top: UInt64 = 0
    var offsetSize = 1
    var refSize = 1
    var countOverride: UInt64? = nil
    var tableOverride: UInt64? = nil
    var header = Array("bplist00".utf8)
    var offsetOverride: [Int: UInt64] = [:]

    init(_ objects: [[UInt8]]) { self.objects = objects }

    var bytes: [UInt8] {
        var out = header
        var offsets = [UInt64]()
        for o in objects {
            offsets.append(UInt64(out.count))
            out += o
        }
        let table = out.count
        for (i, o) in offsets.enumerated() { out += be(offsetOverride[i] ?? o, offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += be(countOverride ?? UInt64(objects.count), 8)
        out += be(top, 8)
        out += be(tableOverride ?? UInt64(table), 8)
        return out
    }
}

/// `v` in `width` big-endian bytes.
func be(_ v: UInt64, _ width: Int) -> [UInt8] {
    (0..<width).reversed().map { UInt8(truncatingIfNeeded: v >> UInt64(8 * $0)) }
}

/// Expects `bytes` refused with `code` and a message containing `words`.
private func expectBinaryRefused(
    _ bytes: [UInt8], _ code: PrefsError.Code = .malformed, _ words: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    switch parseResult(bytes) {
    case .success(let v):
        Issue.record("expected refusal, got \(OldStylePlist.format(v))", sourceLocation: sourceLocation)
    case .failure(let e):
        #expect(e.code == code, "\(e.message)", sourceLocation: sourceLocation)
        #expect(e.message.contains(words), "\(e.message)", sourceLocation: sourceLocation)
        #expect(e.message.hasPrefix("binary property list"), "\(e.message)", sourceLocation: sourceLocation)
    }
}

@Suite("Binary property lists")
struct BinaryPlistTests {

    // MARK: Files written by plistlib

    @Test(arguments: fixtureNames)
    func plistlibFilesReadAsWritten(_ name: String) throws {
        let json = try JSON.parse(fixtureBytes(fixtures + name + ".json"))
        let want = try #require(expected(json), "fixture \(name).json not understood")
        for variant in ["", "_unsorted"] {
            let got = try #require(expectParses(fixtureBytes(fixtures + name + variant + ".plist")))
            #expect(got == want, "\(name)\(variant): \(OldStylePlist.format(got))")
        }
    }

    /// plistlib lays objects out as CoreFoundation does; with sorted keys the
    /// writer gives the same bytes, UIDs included.
    @Test(arguments: fixtureNames)
    func writerMatchesPlistlibByteForByte(_ name: String) throws {
        let file = fixtureBytes(fixtures + name + ".plist")
        let value = try #require(expectParses(file))
        #expect(try value.binaryData() == file)
    }

    /// The reader computes depth and size while it builds containers: they
    /// must be what the general initialiser computes.
    @Test(arguments: fixtureNames)
    func depthAndSizeAsComputedInGeneral(_ name: String) throws {
        func rebuilt(_ v: PropertyList) -> PropertyList {
            switch v.value {
            case .array(let items): return PropertyList(.array(items.map(rebuilt)))
            case .dictionary(let items): return PropertyList(.dictionary(items.mapValues(rebuilt)))
            default: return v
            }
        }
        func check(_ v: PropertyList, _ w: PropertyList) {
            #expect(v.depth == w.depth && v.minimumXMLSize == w.minimumXMLSize)
            if case .array(let a) = v.value, case .array(let b) = w.value { zip(a, b).forEach(check) }
            if case .dictionary(let a) = v.value, case .dictionary(let b) = w.value { for (k, x) in a { check(x, b[k]!) } }
        }
        let v = try #require(expectParses(fixtureBytes(fixtures + name + ".plist")))
        check(v, rebuilt(v))
    }

    @Test func duplicateKeysLaterWins() {
        let v = expectParses(BinaryBuilder([[0xD2, 0x01, 0x01, 0x02, 0x03], [0x51, 0x6B], [0x10, 0x01], [0x10, 0x02]]).bytes)
        #expect(v == ["k": 2])
        #expect(v?.minimumXMLSize == PropertyList(.dictionary(["k": 2])).minimumXMLSize)
    }

    /// The reader remembers each decoded object without holding it: a value
    /// that a later duplicate key replaced, or a string first met as a key,
    /// must still be there when another container refers to it.
    @Test func objectsSharedAfterBeingDroppedStayAlive() {
        // [{k: "value", k: 2}, "value"]: the first "value" is replaced.
        let replaced = BinaryBuilder([
            [0xA2, 0x01, 0x02], [0xD2, 0x03, 0x03, 0x02, 0x04],
            [0x5F, 0x10, 0x14] + Array("a value shared later".utf8), [0x51, 0x6B], [0x10, 0x02],
        ])
        #expect(expectParses(replaced.bytes) == [["k": 2], "a value shared later"])
        // [{"a key used as a value": 7}, "a key used as a value"].
        let key = BinaryBuilder([
            [0xA2, 0x01, 0x02], [0xD1, 0x02, 0x03], [0x5F, 0x10, 0x15] + Array("a key used as a value".utf8), [0x10, 0x07],
        ])
        #expect(expectParses(key.bytes) == [["a key used as a value": 7], "a key used as a value"])
    }

    @Test func sharedObjectsAreDecodedOnce() throws {
        let v = try #require(expectParses(fixtureBytes(fixtures + "shared.plist")))
        let a = try #require(v["a"]?.arrayValue)
        #expect(a[0] === a[1])
        #expect(a[0] === v["b"])
    }

    /// An offset table may name one object's bytes under many indexes; they
    /// are one object, decoded once (as CoreFoundation keeps its memo by
    /// offset). Otherwise 5,000 indexes over a dictionary of 5,000 entries,
    /// a 40 KB file, took 25 million decodings and 300 MB.
    @Test func indexesSharingBytesAreOneObject() throws {
        let n = 5_000
        let m = 5_000
        // 0: true, 1: "a", 2...m+1: one dictionary {a: true, a: true, ...}
        // of n entries, named m times; m+2: the top array naming each index.
        let dictionary =
            [0xDF, 0x11] + be(UInt64(n), 2) + Array(repeating: be(1, 2), count: n).flatMap { $0 }
            + Array(repeating: be(0, 2), count: n).flatMap { $0 }
        var objects: [[UInt8]] = [[0x09], [0x51, 0x61], dictionary]
        objects += Array(repeating: [0x09], count: m - 1)  // replaced by aliases below
        objects.append([0xAF, 0x11] + be(UInt64(m), 2) + (0..<m).flatMap { be(UInt64($0 + 2), 2) })
        var b = BinaryBuilder(objects)
        b.refSize = 2
        b.offsetSize = 4
        b.top = UInt64(m + 2)
        for i in 3...(m + 1) { b.offsetOverride[i] = 8 + 1 + 2 }  // the dictionary's offset
        let started = clock()
        let v = try #require(expectParses(b.bytes)?.arrayValue)
        #expect(v.count == m)
        #expect(v.allSatisfy { $0 === v[0] })
        #expect(v[0] == ["a": true])
        // Generous: a refusal or a decode-once parse takes milliseconds.
        #expect(Double(clock() - started) / Double(CLOCKS_PER_SEC) < 0.5)
        // Offsets out of order but distinct are distinct objects; an offset
        // past the objects stays refused whatever it shares bits with.
        var reversed = BinaryBuilder([[0xA2, 0x01, 0x02], [0x51, 0x61], [0x51, 0x62]])
        reversed.offsetOverride = [1: 13, 2: 11]
        #expect(expectParses(reversed.bytes) == ["b", "a"])
        var outside = BinaryBuilder([[0xA3, 0x01, 0x02, 0x03], [0x51, 0x61], [0x51, 0x62], [0x51, 0x63]])
        outside.offsetSize = 8
        outside.offsetOverride = [1: 14, 2: 12, 3: 12 + (1 << 32)]
        expectBinaryRefused(outside.bytes, .malformed, "outside the objects")
        // An index that names the bytes of an array containing it is a cycle.
        var cycle = BinaryBuilder([[0xA1, 0x01], [0x09]])
        cycle.offsetOverride[1] = 8
        expectBinaryRefused(cycle.bytes, .malformed, "contains itself")
    }

    @Test func uidsReadAsUIDs() throws {
        let v = try #require(expectParses(fixtureBytes(fixtures + "uids.plist")))
        #expect(v["$top"]?["root"]?.uidValue == 1)
        #expect(v["$objects"]?[3]?.uidValue == UInt32.max)
        // Written back as UIDs, in the fewest bytes, as CoreFoundation does.
        #expect(try PropertyList.parse(try v.binaryData()) == v)
        #expect(try PropertyList.uid(5).binaryData()[8...9] == [0x80, 0x05])
        #expect(try PropertyList.uid(256).binaryData()[8...10] == [0x81, 0x01, 0x00])
        #expect(try PropertyList.uid(UInt32.max).binaryData()[8...12] == [0x83, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    // MARK: Round trips through the writer

    @Test func writerRoundTrips() throws {
        let shared: PropertyList = ["x": [1, 2]]
        let values: [PropertyList] = [
            [
                "empty": "", "ascii": "a", "utf16": "h\u{e9}llo \u{1F600}", "neg": -1, "big": .integer(UInt64.max),
                "min": .integer(Int64.min), "real": 0.1, "nan": .real(.nan), "date": .date(-62_135_596_800.5),
                "data": .data(Array(0..<200)), "t": true, "f": false, "arr": [shared, shared, []], "d": [:],
            ],
            .string(String(repeating: "z", count: 70_000)),
            .array((0..<300).map { .integer($0) }),
            .real(-0.0),
        ]
        for v in values {
            let bytes = try v.binaryData()
            let back = try #require(expectParses(bytes))
            if case .real(let d) = v.value, d == 0 {
                #expect(back.realValue?.sign == .minus)
            } else if case .dictionary = v.value {
                #expect(OldStylePlist.format(back) == OldStylePlist.format(v))
            } else {
                #expect(back == v)
            }
        }
    }

    @Test func writerRefusesTooDeep() {
        var v: PropertyList = []
        for _ in 0..<PropertyList.maxNesting { v = .array([v]) }
        #expect(throws: PrefsError.self) { try v.binaryData() }
    }

    @Test func decomposedAndPrecomposedStringsStayApart() throws {
        let v: PropertyList = ["\u{e9}", "e\u{301}"]
        let back = try #require(expectParses(try v.binaryData()))
        #expect(back[0]?.stringValue.map { Array($0.utf8) } == Array("\u{e9}".utf8))
        #expect(back[1]?.stringValue.map { Array($0.utf8) } == Array("e\u{301}".utf8))
    }

    // MARK: Hostile files, one check each

    @Test func minimalFileParses() {
        #expect(expectParses(BinaryBuilder([[0x09]]).bytes) == .boolean(true))
    }

    @Test func tooShort() {
        expectBinaryRefused(Array("bplist00".utf8) + [0x09], .malformed, "too short")
    }

    @Test func versionsOfTheSameLayout() {
        // CoreFoundation reads any bplist0? header; bplist1? is another format.
        var b = BinaryBuilder([[0x09]])
        b.header = Array("bplist0x".utf8)
        #expect(expectParses(b.bytes) == .boolean(true))
        b.header = Array("bplist15".utf8)
        expectBinaryRefused(b.bytes, .malformed, "bplist0?")
    }

    @Test func offsetAndReferenceWidths() {
        var b = BinaryBuilder([[0x09]])
        b.offsetSize = 0
        expectBinaryRefused(b.bytes, .malformed, "offsets of 0 bytes")
        b = BinaryBuilder([[0x09]])
        b.refSize = 9
        expectBinaryRefused(b.bytes, .malformed, "references of 9 bytes")
    }

    @Test func objectCountAndTop() {
        var b = BinaryBuilder([[0x09]])
        b.countOverride = 0
        expectBinaryRefused(b.bytes, .malformed, "0 objects")
        b = BinaryBuilder([[0x09]])
        b.countOverride = UInt64.max
        expectBinaryRefused(b.bytes, .malformed, "objects in")
        b = BinaryBuilder([[0x09]])
        b.top = 1
        expectBinaryRefused(b.bytes, .malformed, "top object")
    }

    @Test func offsetTablePlacement() {
        var b = BinaryBuilder([[0x09]])
        b.tableOverride = 4
        expectBinaryRefused(b.bytes, .malformed, "outside the file")
        b.tableOverride = UInt64.max
        expectBinaryRefused(b.bytes, .malformed, "outside the file")
        // A byte between the table and the trailer.
        var bytes = BinaryBuilder([[0x09]]).bytes
        bytes.insert(0, at: bytes.count - 32)
        expectBinaryRefused(bytes, .malformed, "does not end where the trailer starts")
    }

    @Test func referencesTooNarrowForTheObjectCount() {
        var b = BinaryBuilder([[0xA0]] + Array(repeating: [0x09], count: 256))
        b.offsetSize = 2
        expectBinaryRefused(b.bytes, .malformed, "cannot be named by references of 1 bytes")
    }

    @Test func offsetsTooNarrowForTheTable() {
        var b = BinaryBuilder([[0x4F, 0x11, 0x01, 0x00] + Array(repeating: 0, count: 256)])
        b.offsetSize = 1
        expectBinaryRefused(b.bytes, .malformed, "cannot reach the offset table")
    }

    @Test func objectOffsetsOutsideTheObjects() {
        var b = BinaryBuilder([[0x09]])
        b.offsetOverride[0] = 2
        expectBinaryRefused(b.bytes, .malformed, "outside the objects")
        b.offsetOverride[0] = 9
        expectBinaryRefused(b.bytes, .malformed, "outside the objects")
    }

    @Test func referenceOutOfRange() {
        expectBinaryRefused(BinaryBuilder([[0xA1, 0x05]]).bytes, .malformed, "refers to object 5")
    }

    @Test func countsBoundedBeforeAllocation() {
        // Claims 2^62 bytes of data, 2^62 array items, 2^62 dictionary entries.
        for marker: UInt8 in [0x4F, 0x5F, 0x6F, 0xAF] {
            expectBinaryRefused(BinaryBuilder([[marker, 0x13] + be(1 << 62, 8)]).bytes, .malformed, "more than the file holds")
        }
        expectBinaryRefused(BinaryBuilder([[0xDF, 0x13] + be(1 << 40, 8)]).bytes, .malformed, "more than the file holds")
        expectBinaryRefused(BinaryBuilder([[0xDF, 0x13] + be(1 << 62, 8)]).bytes, .malformed, "entries")
        expectBinaryRefused(BinaryBuilder([[0x4F, 0x13] + be(UInt64.max, 8)]).bytes, .malformed, "a count of")
        expectBinaryRefused(BinaryBuilder([[0x4F, 0x23] + be(1, 8)]).bytes, .malformed, "not an integer")
        expectBinaryRefused(BinaryBuilder([[0x4F, 0x14] + be(0, 16)]).bytes, .malformed, "not an integer")
        expectBinaryRefused(BinaryBuilder([[0x4F]]).bytes, .malformed, "before its count")
    }

    @Test func integerWidths() {
        #expect(expectParses(BinaryBuilder([[0x10, 0xFF]]).bytes)?.integerValue == 255)
        #expect(expectParses(BinaryBuilder([[0x11, 0xFF, 0xFF]]).bytes)?.integerValue == 65535)
        #expect(expectParses(BinaryBuilder([[0x12] + be(UInt64(UInt32.max), 4)]).bytes)?.integerValue == Int128(UInt32.max))
        #expect(expectParses(BinaryBuilder([[0x13] + be(UInt64.max, 8)]).bytes)?.integerValue == -1)
        #expect(expectParses(BinaryBuilder([[0x14] + be(0, 8) + be(UInt64.max, 8)]).bytes)?.integerValue == Int128(UInt64.max))
        #expect(expectParses(BinaryBuilder([[0x14] + be(UInt64.max, 8) + be(UInt64(1) << 63, 8)]).bytes)?.integerValue == Int128(Int64.min))
        expectBinaryRefused(BinaryBuilder([[0x14] + be(1, 8) + be(0, 8)]).bytes, .malformed, "outside -2^63")
        expectBinaryRefused(BinaryBuilder([[0x14] + be(UInt64.max, 8) + be(0, 8)]).bytes, .malformed, "outside -2^63")
        expectBinaryRefused(BinaryBuilder([[0x15] + Array(repeating: 0, count: 32)]).bytes, .malformed, "integer of 32 bytes")
        expectBinaryRefused(BinaryBuilder([[0x13, 0, 0]]).bytes, .malformed, "more than the file holds")
    }

    @Test func realsOfFourAndEightBytes() {
        #expect(expectParses(BinaryBuilder([[0x22] + be(UInt64(Float(32.3).bitPattern), 4)]).bytes)?.realValue == Double(Float(32.3)))
        #expect(expectParses(BinaryBuilder([[0x23] + be(0.1.bitPattern, 8)]).bytes)?.realValue == 0.1)
        expectBinaryRefused(BinaryBuilder([[0x21, 0, 0]]).bytes, .malformed, "real of 2 bytes")
        expectBinaryRefused(BinaryBuilder([[0x24] + Array(repeating: 0, count: 16)]).bytes, .malformed, "real of 16 bytes")
        expectBinaryRefused(BinaryBuilder([[0x23, 0, 0, 0]]).bytes, .malformed, "more than the file holds")
    }

    @Test func datesSince2001() {
        #expect(expectParses(BinaryBuilder([[0x33] + be(0.0.bitPattern, 8)]).bytes)?.dateValue == 978_307_200)
        expectBinaryRefused(BinaryBuilder([[0x32, 0, 0, 0, 0]]).bytes, .malformed, "date that is not 8 bytes")
    }

    @Test func asciiStringsAreSevenBit() {
        #expect(expectParses(BinaryBuilder([[0x52, 0x68, 0x69]]).bytes)?.stringValue == "hi")
        expectBinaryRefused(BinaryBuilder([[0x52, 0x68, 0xE9]]).bytes, .malformed, "byte over 127")
    }

    @Test func utf16StringsRefuseLoneSurrogates() {
        #expect(expectParses(BinaryBuilder([[0x62, 0xD8, 0x3D, 0xDE, 0x00]]).bytes)?.stringValue == "\u{1F600}")
        expectBinaryRefused(BinaryBuilder([[0x61, 0xD8, 0x3D]]).bytes, .malformed, "ending in a lone surrogate")
        expectBinaryRefused(BinaryBuilder([[0x61, 0xDE, 0x00]]).bytes, .malformed, "lone surrogate")
        expectBinaryRefused(BinaryBuilder([[0x62, 0xD8, 0x3D, 0x00, 0x41]]).bytes, .malformed, "lone surrogate")
        // Counted in 16-bit units: 2 units need 4 bytes.
        expectBinaryRefused(BinaryBuilder([[0x62, 0x00, 0x41, 0x00]]).bytes, .malformed, "more than the file holds")
    }

    @Test func cyclesRefused() {
        expectBinaryRefused(BinaryBuilder([[0xA1, 0x00]]).bytes, .malformed, "contains itself")
        expectBinaryRefused(BinaryBuilder([[0xD1, 0x01, 0x02], [0x51, 0x6B], [0xA1, 0x00]]).bytes, .malformed, "contains itself")
    }

    @Test func nestingBounded() {
        let n = PropertyList.maxNesting + 10
        var objects = (0..<n - 1).map { [0xA1] + be(UInt64($0 + 1), 2) }
        objects.append([0x09])
        var b = BinaryBuilder(objects)
        b.refSize = 2
        b.offsetSize = 2
        expectBinaryRefused(b.bytes, .tooDeep, "nesting deeper")
    }

    @Test func sharedExpansionCapped() {
        // Each array holds the next one twice: 2^60 values written out.
        let levels = 60
        var objects = (0..<levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x5F, 0x10, 0xFF] + Array(repeating: 0x61, count: 255))
        var b = BinaryBuilder(objects)
        b.offsetSize = 2
        expectBinaryRefused(b.bytes, .malformed, "expands to more than")
        // A little sharing is fine, and shared.
        var small = (0..<4).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        small.append([0x51, 0x61])
        let v = expectParses(BinaryBuilder(small).bytes)
        #expect(v?[0] === v?[1])
    }

    @Test func dictionaryKeysAreStrings() {
        expectBinaryRefused(BinaryBuilder([[0xD1, 0x01, 0x01], [0x10, 0x01]]).bytes, .malformed, "integer key")
        let v = expectParses(BinaryBuilder([[0xD1, 0x01, 0x02], [0x51, 0x6B], [0x10, 0x07]]).bytes)
        #expect(v?["k"]?.integerValue == 7)
    }

    @Test func uids() {
        #expect(expectParses(BinaryBuilder([[0x80, 0x05]]).bytes)?.uidValue == 5)
        expectBinaryRefused(BinaryBuilder([[0x87] + be(UInt64(1) << 32, 8)]).bytes, .malformed, "over 2^32-1")
        expectBinaryRefused(BinaryBuilder([[0x88] + Array(repeating: 0, count: 9)]).bytes, .malformed, "UID of 9 bytes")
    }

    @Test func markersThatAreNotValues() {
        for marker: UInt8 in [0x00, 0x0F, 0x70, 0x90, 0xB0, 0xC0, 0xE0, 0xF0] {
            expectBinaryRefused(BinaryBuilder([[marker]]).bytes, .malformed, "not a property-list value")
        }
    }

    @Test func textThatStartsWithBplistIsBinary() {
        expectBinaryRefused(Array("bplist00 and then some text that is long enough".utf8), .malformed, "offsets of")
    }

    // MARK: Binary domain files

    /// A binary domain file (as a Mac writes it) is read in place, never
    /// moved aside; the next write keeps it binary, as cfprefsd does.
    @Test func binaryDomainFileIsReadInPlaceAndRewrittenBinary() throws {
        try inSandbox { box in
            let app = "com.example.binary"
            let path = box.expectedPath(app)
            let original: PropertyList = ["name": "Ada", "count": 3, "list": [1, "two"]]
            let binary = try original.binaryData()
            writeBytes(binary, to: path)
            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            #expect(prefs.object(forKey: "name") == .string("Ada"))
            #expect(prefs.problems().isEmpty)
            try store.synchronize(application: app)
            #expect(readBytes(path) == binary)
            prefs.set("new", forKey: "fresh")
            #expect(try store.synchronize(application: app) == nil)
            #expect(box.allFiles() == ["config/\(app).plist"])
            let written = readBytes(path) ?? []
            #expect(written.starts(with: Array("bplist00".utf8)))
            #expect(readPlist(path) == plistDict(["name": "Ada", "count": 3, "list": [1, "two"], "fresh": "new"]))
        }
    }

    /// Registered defaults and settings schemas read binary files too (a
    /// Settings.bundle copied from a Mac holds binary Root.plist files).
    @Test func settingsSchemaInBinary() throws {
        try inSandbox { box in
            let root: PropertyList = [
                "PreferenceSpecifiers": [
                    ["Type": "PSToggleSwitchSpecifier", "Key": "sound", "DefaultValue": true],
                    ["Type": "PSChildPaneSpecifier", "File": "Child"],
                ]
            ]
            let child: PropertyList = ["PreferenceSpecifiers": [["Key": "volume", "DefaultValue": 7]]]
            writeBytes(try root.binaryData(), to: box.root + "/Root.plist")
            writeBytes(try child.binaryData(), to: box.root + "/Child.plist")
            let defaults = try SettingsSchema.defaults(fromFile: box.root + "/Root.plist")
            #expect(defaults == plistDict(["sound": true, "volume": 7]))
        }
    }
}
