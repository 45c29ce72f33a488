import Glibc
import Testing

@testable import PrefsCore

// Values built to crash or exhaust the library once they are in: numbers
// that overflow a conversion, values too large for any document, keys and
// text the reader would refuse.

private let app = "com.example.hostile"

@Suite("Hostile values")
struct HostileValueTests {
    /// 39 and 40 decimal digits at and beyond 2^127 overflowed the typed
    /// getters' accumulator (a trap, so a crash of the C program).
    static let hugeDecimals: [String] = [
        "170141183460469231731687303715884105727",  // 2^127 - 1
        "170141183460469231731687303715884105728",  // 2^127
        "999999999999999999999999999999999999999",  // 39 nines
        "9999999999999999999999999999999999999999",  // 40 nines
        "-9999999999999999999999999999999999999999",
        "+340282366920938463463374607431768211456",  // 2^128
        String(repeating: "9", count: 1_000),
        "18446744073709551616",  // 2^64
        "-9223372036854775809",  // -2^63 - 1
    ]

    @Test func hugeDecimalStringsAreInvalidNotFatal() {
        for text in Self.hugeDecimals {
            #expect(Coercion.integer(.string(text)) == nil, "\(text)")
            #expect(Coercion.boolean(.string(text)) == nil, "\(text)")
        }
        // The edges of what a property list holds stay valid.
        #expect(Coercion.boolean(.string("18446744073709551615")) == true)
        #expect(Coercion.boolean(.string(" -9223372036854775808\t")) == true)
        #expect(Coercion.integer(.string("-9223372036854775808")) == Int64.min)
        #expect(Coercion.integer(.string(String(repeating: "0", count: 100) + "42")) == 42)
        #expect(Coercion.boolean(.string(String(repeating: "0", count: 100))) == false)
    }

    /// The same through the argument domain, as `./app -Size 999...9` does.
    @Test func hugeDecimalArguments() throws {
        // (A value starting with `-` makes no pair.)
        for text in Self.hugeDecimals where !text.hasPrefix("-") {
            let domain = ArgumentDomain.parse(["app", "-Size", text])
            let value = try #require(domain["Size"])
            #expect(Coercion.integer(value) == nil)
            #expect(Coercion.boolean(value) == nil)
        }
        try inSandbox { box in
            let store = box.store(arguments: ["app", "-Size", Self.hugeDecimals[3], "-Flag", Self.hugeDecimals[1]])
            let prefs = try Preferences(applicationID: app, store: store)
            // UserDefaults' coercions saturate, as NSString's integerValue
            // does; what matters here is that nothing traps.
            let size = prefs.integer(forKey: "Size")
            #expect(size == Int.max || size == Int.min)
            _ = prefs.bool(forKey: "Flag")
            _ = prefs.double(forKey: "Size")
        }
    }

    /// Every integer a property list holds is printed in full, and so is
    /// every Int128 the printer is given.
    @Test func integerPrintingCoversTheWholeRange() {
        for v: Int128 in [.max, .min, Int128(UInt64.max), Int128(Int64.min), 0, -1] {
            var out = [UInt8]()
            ScalarText.appendInteger(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
        }
    }

    // MARK: Values too large to write

    /// `levels` levels of an array holding the level below twice: a few
    /// hundred bytes in memory, 2^levels elements written out.
    static func sharedBomb(levels: Int) -> PropertyList {
        var v = PropertyList.trueValue
        for _ in 0..<levels { v = .array([v, v]) }
        return v
    }

    @Test func sharedSubValuesAreRefusedNotExpanded() throws {
        for levels in [22, 28, 62, 200] {
            let bomb = Self.sharedBomb(levels: levels)
            let time = secondsTaken {
                #expect(throws: PrefsError.self) { try bomb.xmlData() }
                if levels == 28 { #expect(OldStylePlist.format(bomb, maxBytes: PropertyList.maxDocumentSize) == nil) }
            }
            // Written out, 62 levels are 2^62 elements: the bound tells a
            // refusal from an expansion on any machine.
            #expect(time < 30, "\(levels) levels: refusal took \(time) s")
            if levels >= 28 { #expect(bomb.minimumXMLSize > PropertyList.maxDocumentSize) }
        }
        do {
            _ = try Self.sharedBomb(levels: 28).xmlData()
        } catch {
            #expect(error.code == .unrepresentable)
        }
        // Small sharing is fine, and writes every copy.
        let small = Self.sharedBomb(levels: 4)
        #expect(try PropertyList.parse(small.xmlData()) == small)
        #expect(OldStylePlist.format(small, maxBytes: 1 << 20) == OldStylePlist.format(small))
        try inSandbox { box in
            let store = box.store()
            let id = DomainID(application: app, user: .current, host: .any)
            #expect(throws: PrefsError.self) { try store.set([("Bomb", Self.sharedBomb(levels: 28))], in: id) }
            try store.set([("Fine", small)], in: id)
            _ = try store.synchronize(id)
            #expect(try box.store().values(in: id)["Fine"] == small)
        }
    }

    /// What the writer writes, the reader reads: no string, key or data
    /// element over the reader's 10,000,000 bytes of text, counted as the
    /// reader counts them (base64 with its line breaks and indentation).
    @Test func writerKeepsToTheReadersTextLimit() throws {
        let limit = PropertyList.maxTextLength
        let longest = PropertyList.string(String(repeating: "a", count: limit))
        #expect(try PropertyList.parse(longest.xmlData()) == longest)
        let tooLong = PropertyList.string(String(repeating: "a", count: limit + 1))
        #expect(throws: PrefsError.self) { try tooLong.xmlData() }
        let longKey = PropertyList.dictionary([String(repeating: "k", count: limit + 1): PropertyList.trueValue])
        #expect(throws: PrefsError.self) { try longKey.xmlData() }

        // 7,400,000 bytes: 9,866,668 base64 characters. At the top level,
        // 76 to a line, the element holds 9,996,494 bytes of text; as a
        // domain's value, a tab and 68 characters to a line, 10,156,868.
        let data = PropertyList.data([UInt8](repeating: 0xA5, count: 7_400_000))
        #expect(try PropertyList.parse(data.xmlData()) == data)
        #expect(throws: PrefsError.self) { try PropertyList.checkStorable(data, forKey: "Blob") }
        #expect(throws: PrefsError.self) { try PropertyList.array([data]).xmlData() }
        let moreData = PropertyList.data([UInt8](repeating: 0, count: limit / 4 * 3 + 3))
        #expect(throws: PrefsError.self) { try moreData.xmlData() }

        try inSandbox { box in
            let store = box.store()
            let id = DomainID(application: app, user: .current, host: .any)
            #expect(throws: PrefsError.self) { try store.set([("Text", tooLong)], in: id) }
            #expect(throws: PrefsError.self) { try store.set([("Blob", data)], in: id) }
            #expect(throws: PrefsError.self) { try store.set([(String(repeating: "k", count: limit + 1), .trueValue)], in: id) }
            // A key XML cannot carry is stored: it makes the domain's file
            // binary (see DomainFormatTests).
            try store.set([("Text", longest)], in: id)
            _ = try store.synchronize(id)
            #expect(try box.store().values(in: id)["Text"] == longest)
        }
    }

    /// The check a set makes of a key's bytes (read eight at a time while
    /// they are plain ASCII) finds a character XML cannot carry at every
    /// position, before, inside and after such a run, and passes the
    /// others; what it passes, the trial write carries.
    @Test func aKeysBytesAreCheckedAtEveryPosition() {
        let refused = ["\u{1}", "\u{8}", "\u{1F}", "\u{FFFE}", "\u{FFFF}"]
        let carried = ["\t", "\n", "\r", " ", "~", "\u{7F}", "é", "\u{FFFD}", "\u{EFFFF}", "😀"]
        for n in 0..<20 {
            for position in 0...n {
                for c in refused + carried {
                    let a = String(repeating: "a", count: position), b = String(repeating: "b", count: n - position)
                    var key = a + c + b
                    let plain = key.withUTF8 { PropertyList.isPlainlyStorable(.integer(1), keyBytes: UnsafeRawBufferPointer($0)) }
                    #expect(plain == carried.contains(c), "\(key.unicodeScalars.map { $0.value })")
                    if plain { #expect(throws: Never.self) { try PropertyList.checkStorable(.integer(1), forKey: key) } }
                }
            }
        }
    }
}
