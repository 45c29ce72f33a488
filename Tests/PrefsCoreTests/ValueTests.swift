import Testing

@testable import PrefsCore

@Suite("Values")
struct ValueTests {
    @Test func constructorsAndTypedAccessors() {
        let s = PropertyList.string("héllo")
        #expect(s.kind == .string)
        #expect(s.stringValue == "héllo")
        #expect(s.integerValue == nil && s.realValue == nil && s.booleanValue == nil)
        #expect(s.dateValue == nil && s.dataValue == nil && s.arrayValue == nil && s.dictionaryValue == nil)

        let big = PropertyList.integer(UInt64.max)
        #expect(big.kind == .integer)
        #expect(big.integerValue == Int128(UInt64.max))
        #expect(big.realValue == nil)
        #expect(PropertyList.integer(Int64.min).integerValue == Int128(Int64.min))
        #expect(PropertyList.integer(Int8(-5)).integerValue == -5)

        let r = PropertyList.real(2.5)
        #expect(r.kind == .real && r.realValue == 2.5 && r.integerValue == nil)

        #expect(PropertyList.boolean(true).booleanValue == true)
        #expect(PropertyList.boolean(false).booleanValue == false)
        #expect(PropertyList.boolean(true) === PropertyList.trueValue)
        #expect(PropertyList.boolean(false) === PropertyList.falseValue)

        let d = PropertyList.date(-1.5)
        #expect(d.kind == .date && d.dateValue == -1.5 && d.realValue == nil)

        let data = PropertyList.data([0, 255, 7])
        #expect(data.kind == .data && data.dataValue == [0, 255, 7])
        #expect(PropertyList.data([]).dataValue == [])

        let a = PropertyList.array([.string("x"), .integer(1)])
        #expect(a.kind == .array)
        #expect(a.arrayValue?.count == 2)
        #expect(a[0]?.stringValue == "x")
        #expect(a[1]?.integerValue == 1)
        #expect(a[2] == nil)
        #expect(a[-1] == nil)
        #expect(a["x"] == nil)

        let dict = PropertyList.dictionary(["k": PropertyList.string("v")] as [String: PropertyList])
        #expect(dict.kind == .dictionary)
        #expect(dict["k"]?.stringValue == "v")
        #expect(dict["missing"] == nil)
        #expect(dict[0] == nil)
        #expect(dict.dictionaryValue?[PropertyList.Key("k")]?.stringValue == "v")
        #expect(PropertyList.emptyDictionary.dictionaryValue?.isEmpty == true)

        #expect(PropertyList.Kind.allCases.count == 9)
        #expect(PropertyList.uid(5).uidValue == 5)
        #expect(PropertyList.uid(5).kind == .uid)
        #expect(PropertyList.uid(5) != .integer(5))
        #expect(PropertyList.integer(5).uidValue == nil)
    }

    @Test func integerRangeConstants() {
        #expect(PropertyList.minInteger == -(Int128(1) << 63))
        #expect(PropertyList.maxInteger == (Int128(1) << 64) - 1)
        #expect(PropertyList.maxNesting == 256)
        #expect(PropertyList(.integer(PropertyList.maxInteger)).integerValue == PropertyList.maxInteger)
        #expect(PropertyList(.integer(PropertyList.minInteger)).integerValue == PropertyList.minInteger)
    }

    @Test func integerOutsideRangeTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PropertyList.integer(Int128(UInt64.max) + 1)
        }
        await #expect(processExitsWith: .failure) {
            _ = PropertyList(.integer(Int128(Int64.min) - 1))
        }
    }

    @Test func literals() {
        let v: PropertyList = ["name": "Ada", "sizes": [1, 2, 3], "on": true, "ratio": 0.5, "nested": ["deep": [:]]]
        #expect(v.kind == .dictionary)
        #expect(v.dictionaryValue?.count == 5)
        #expect(v["name"]?.stringValue == "Ada")
        #expect(v["sizes"]?.arrayValue?.count == 3)
        #expect(v["sizes"]?[2]?.integerValue == 3)
        #expect(v["sizes"]?[0]?.kind == .integer)
        #expect(v["on"]?.booleanValue == true)
        #expect(v["ratio"]?.realValue == 0.5)
        #expect(v["ratio"]?.kind == .real)
        #expect(v["nested"]?["deep"]?.dictionaryValue?.isEmpty == true)

        let i: PropertyList = 7
        #expect(i.integerValue == 7)
        let neg: PropertyList = -9_223_372_036_854_775_808
        #expect(neg.integerValue == Int128(Int64.min))
        let f: PropertyList = 7.0
        #expect(f.realValue == 7.0 && f.integerValue == nil)
        let s: PropertyList = "text"
        #expect(s.stringValue == "text")
        let b: PropertyList = false
        #expect(b.booleanValue == false)
        let arr: PropertyList = []
        #expect(arr.arrayValue?.isEmpty == true)

        // A later duplicate in a dictionary literal wins, without trapping.
        let dup: PropertyList = ["k": 1, "k": 2]
        #expect(dup.dictionaryValue?.count == 1)
        #expect(dup["k"]?.integerValue == 2)
    }

    @Test func integerAndRealNeverEqual() {
        #expect(PropertyList.integer(1) != PropertyList.real(1.0))
        #expect(PropertyList.real(1.0) != PropertyList.integer(1))
        #expect(PropertyList.integer(0) != PropertyList.real(0))
        #expect(PropertyList.integer(1) != PropertyList.boolean(true))
        #expect(PropertyList.real(0) != PropertyList.date(0))
        #expect(PropertyList.string("1") != PropertyList.integer(1))
        let a: PropertyList = [1]
        let b: PropertyList = [1.0]
        #expect(a != b)
    }

    @Test func realEquality() {
        #expect(PropertyList.real(.nan) == PropertyList.real(.nan))
        #expect(PropertyList.real(.nan) == PropertyList.real(-.nan))
        #expect(PropertyList.real(.nan) != PropertyList.real(0))
        #expect(PropertyList.real(0.0) == PropertyList.real(-0.0), "the contract makes 0.0 and -0.0 equal")
        #expect(PropertyList.real(.infinity) == PropertyList.real(.infinity))
        #expect(PropertyList.real(.infinity) != PropertyList.real(-.infinity))
        #expect(PropertyList.real(0.1) != PropertyList.real(0.1.nextUp))
        #expect(PropertyList.date(.nan) == PropertyList.date(.nan))
        #expect(PropertyList.date(1) != PropertyList.date(1.5))
        let nested1: PropertyList = ["x": [PropertyList.real(.nan)]]
        let nested2: PropertyList = ["x": [PropertyList.real(.nan)]]
        #expect(nested1 == nested2)
    }

    @Test func stringsCompareByteByByte() {
        let composed = "\u{E9}"  // é, one scalar
        let decomposed = "e\u{301}"  // e + combining acute
        #expect(composed == decomposed, "Swift itself calls these equal; the library must not")
        #expect(PropertyList.string(composed) != PropertyList.string(decomposed))
        #expect(PropertyList.string(composed) == PropertyList.string("\u{E9}"))

        // As keys: two distinct entries.
        let k1 = PropertyList.Key(composed), k2 = PropertyList.Key(decomposed)
        #expect(k1 != k2)
        #expect(Set([k1, k2]).count == 2)
        let d: PropertyList = [k1: 1, k2: 2]
        #expect(d.dictionaryValue?.count == 2)
        #expect(d[composed]?.integerValue == 1)
        #expect(d[decomposed]?.integerValue == 2)

        // Dictionaries holding the two spellings are different values.
        let onlyComposed: PropertyList = [k1: 1]
        let onlyDecomposed: PropertyList = [k2: 1]
        #expect(onlyComposed != onlyDecomposed)

        // Strings with embedded NUL compare by all their bytes.
        #expect(PropertyList.string("a\u{0}b") != PropertyList.string("a\u{0}c"))
        #expect(PropertyList.string("a\u{0}") != PropertyList.string("a"))
    }

    @Test func containerEquality() {
        let a: PropertyList = ["x": [1, "two", true], "y": ["z": PropertyList.data([1, 2])]]
        let b: PropertyList = ["y": ["z": PropertyList.data([1, 2])], "x": [1, "two", true]]
        #expect(a == b)
        let c: PropertyList = ["x": [1, "two", false], "y": ["z": PropertyList.data([1, 2])]]
        #expect(a != c)
        let d: PropertyList = ["x": [1, "two", true]]
        #expect(a != d)
        #expect(d != a)
        let e: PropertyList = ["x": [1, "two", true], "w": ["z": PropertyList.data([1, 2])]]
        #expect(a != e)
        #expect(PropertyList.array([1, 2]) != PropertyList.array([2, 1]))
        #expect(PropertyList.array([]) != PropertyList.dictionary([:] as [String: PropertyList]))
        #expect(PropertyList.data([]) != PropertyList.string(""))
    }

    @Test func keyOrderIsUTF8ByteOrder() {
        typealias K = PropertyList.Key
        #expect(K("B") < K("a"))
        #expect(K("a") < K("b"))
        #expect(K("") < K("a"))
        #expect(K("a") < K("ab"))
        #expect(K("z") < K("\u{E9}"))
        // Swift's own String ordering calls these two equal; bytes do not.
        #expect(K("e\u{301}") < K("\u{E9}"))
        #expect(!(K("\u{E9}") < K("e\u{301}")))
        // UTF-16 order would put U+FFFF after U+1F600; UTF-8 order puts it before.
        #expect(K("\u{FFFF}") < K("\u{1F600}"))
        #expect(K("\u{FF61}") < K("\u{10000}"))
        let sorted = [K("\u{1F600}"), K("\u{E9}"), K("Z"), K("e\u{301}"), K("a"), K("\u{FFFD}")].sorted()
        #expect(sorted.map(\.string) == ["Z", "a", "e\u{301}", "\u{E9}", "\u{FFFD}", "\u{1F600}"])
        #expect(K("x").description == "x")
        let literal: K = "lit"
        #expect(literal.string == "lit")
    }

    @Test func writersListEntriesInKeyByteOrder() {
        var keys = ["", "a", "ab", "abc", "B", "b", "z", "\u{E9}", "e\u{301}", "\u{FFFF}", "\u{1F600}", "a\u{0}b", "a\u{0}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let length = Int.random(in: 0...6, using: &generator)
            keys.append(String((0..<length).map { _ in "ab\u{E9}\u{0}z".randomElement(using: &generator)! }))
        }
        var dict = PropertyListDictionary()
        for (i, k) in keys.enumerated() { dict[PropertyList.Key(k)] = .integer(Int128(i)) }
        let sorted = dict.sortedByKey()
        // Distinct by bytes (a Set of Strings would merge "e\u{301}" and "\u{E9}").
        let expected = Set(keys.map { Array($0.utf8) }).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sorted.map { Array($0.key.string.utf8) } == expected)
        // Each value still goes with its key.
        for (key, value) in sorted { #expect(dict[key] === value) }
        #expect(PropertyListDictionary().sortedByKey().isEmpty)
        #expect(["only": PropertyList.integer(1)].sortedByKey().map(\.key.string) == ["only"])
    }

    /// Dictionaries hash keys with ``PropertyList/Key/_rawHashValue(seed:)``:
    /// equal bytes hash equally however the key holds them, and keys that
    /// differ in a character or two still spread over the table's buckets.
    @Test func keyHashIsConsistentAndSpreads() {
        typealias K = PropertyList.Key
        for text in ["", "a", "key0500", "p00-r00-k00", "exactly8", "a longer key with \u{E9} in it"] {
            var bytes = Array(text.utf8)
            let borrowed = bytes.withUnsafeMutableBytes { K(borrowing: UnsafeRawBufferPointer($0))._rawHashValue(seed: 42) }
            #expect(K(text)._rawHashValue(seed: 42) == borrowed, "\(text)")
            #expect(K(text)._rawHashValue(seed: 42) != K(text)._rawHashValue(seed: 43), "\(text)")
        }
        for pattern in ["key%04d", "p%02d-r%02d", "com.example.setting.number%d", "%d"] {
            let keys = (0..<4096).map { i -> K in
                let digits = String(i)
                let text = pattern.replacingOccurrences(of: "%04d", with: String(repeating: "0", count: 4 - digits.count) + digits)
                    .replacingOccurrences(of: "%02d-r%02d", with: "\(i / 64)-r\(i % 64)")
                    .replacingOccurrences(of: "%d", with: digits)
                return K(text)
            }
            #expect(Set(keys).count == 4096)
            // 4,096 keys in 8,192 buckets: about 3,223 buckets are used when
            // the low bits are as good as random.
            let buckets = Set(keys.map { $0._rawHashValue(seed: 7) & 8191 })
            #expect(buckets.count > 3000, "\(pattern): \(buckets.count) buckets of 8,192")
        }
    }

    @Test func depth() {
        #expect(PropertyList.string("x").depth == 0)
        #expect(PropertyList.integer(1).depth == 0)
        #expect(PropertyList.array([]).depth == 0)
        #expect(PropertyList.emptyDictionary.depth == 0)
        let one: PropertyList = [1]
        #expect(one.depth == 1)
        let oneEmpty: PropertyList = [[]]
        #expect(oneEmpty.depth == 1)
        let two: PropertyList = [[1]]
        #expect(two.depth == 2)
        let mixed: PropertyList = ["a": 1, "b": [["c": [1]]], "d": []]
        #expect(mixed.depth == 4)
        var v = PropertyList.array([])
        for _ in 0..<300 { v = .array([v]) }
        #expect(v.depth == 300)
    }

    @Test func descriptionIsOldStyleText() {
        let v: PropertyList = ["a": [1, "x y"]]
        #expect(v.description == OldStylePlist.format(v))
        #expect(v.description == "{\n    a =     (\n        1,\n        \"x y\"\n    );\n}")
    }

    @Test func stableCString() {
        let s = PropertyList.string("héllo")
        let p1 = s.stableCString()
        let p2 = s.stableCString()
        #expect(p1 != nil)
        #expect(p1 == p2, "the same pointer each time")
        if let p1 { #expect(String(cString: p1) == "héllo") }
        #expect(PropertyList.integer(1).stableCString() == nil)
        let withNul = PropertyList.string("a\u{0}b")
        if let p = withNul.stableCString() {
            #expect(p[0] == CChar(UInt8(ascii: "a")) && p[1] == 0 && p[2] == CChar(UInt8(ascii: "b")) && p[3] == 0)
        }
    }

    @Test func errorCodesMatchTheCHeader() {
        #expect(PrefsError.Code.invalidArgument.rawValue == 1)
        #expect(PrefsError.Code.malformed.rawValue == 2)
        #expect(PrefsError.Code.forbiddenMarkup.rawValue == 3)
        #expect(PrefsError.Code.tooDeep.rawValue == 4)
        #expect(PrefsError.Code.unrepresentable.rawValue == 5)
        #expect(PrefsError.Code.invalidApplicationID.rawValue == 6)
        #expect(PrefsError.Code.io.rawValue == 7)
        #expect(PrefsError.Code.corruptFile.rawValue == 8)
        #expect(PrefsError.Code.forcedValue.rawValue == 9)
        #expect(PrefsError.Code.internal.rawValue == 100)
        let e = PrefsError(.io, "could not read")
        #expect(e.description == "could not read")
        #expect(e == PrefsError(.io, "could not read"))
        #expect(e != PrefsError(.malformed, "could not read"))
    }
}
