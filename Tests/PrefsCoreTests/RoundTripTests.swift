import PrefsCore
import Testing

/// write -> read gives back the same value, strictly (0.0 and -0.0 differ).
@Suite("Round trips")
struct RoundTripTests {
    static func check(_ value: PropertyList, sourceLocation: SourceLocation = #_sourceLocation) {
        let xml: [UInt8]
        do { xml = try value.xmlData() } catch {
            Issue.record("not written: \(error.message)", sourceLocation: sourceLocation)
            return
        }
        guard let back = expectParses(xml, sourceLocation: sourceLocation) else { return }
        #expect(back == value, sourceLocation: sourceLocation)
        if let d = strictDifference(value, back) { Issue.record("differs: \(d)", sourceLocation: sourceLocation) }
        // Writing again gives the same bytes.
        #expect((try? back.xmlData()) == xml, sourceLocation: sourceLocation)
    }

    static let values: [PropertyList] = [
        "",
        "plain",
        "  leading and trailing  ",
        "markup <tag> & ampersand > gt ]]> cdata-end \"quotes\" 'apos'",
        "lines\nand\r\nreturns\rand\ttabs",
        "e\u{301} \u{E9} \u{1F600} \u{10FFFF} \u{FFFD} \u{7F}",
        "&amp; literally",
        0, 1, -1,
        PropertyList.integer(Int64.max), PropertyList.integer(Int64.min),
        PropertyList.integer(UInt64.max), PropertyList.integer(UInt64(Int64.max) + 1),
        0.0, PropertyList.real(-0.0), 0.1, -2.5, 1e-300, 1e300,
        PropertyList.real(.greatestFiniteMagnitude), PropertyList.real(.leastNonzeroMagnitude),
        PropertyList.real(.nan), PropertyList.real(.infinity), PropertyList.real(-.infinity),
        true, false,
        PropertyList.date(0), PropertyList.date(-1), PropertyList.date(1_706_820_194),
        PropertyList.date(-62_135_596_800), PropertyList.date(253_402_300_799),
        PropertyList.data([]), PropertyList.data([0]), PropertyList.data(Array(0...255)),
        PropertyList.data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
        [], PropertyList.emptyDictionary,
        [[], [[]], [PropertyList.emptyDictionary]],
        ["": "empty key", " ": "space key", "e\u{301}": 1, "\u{E9}": 2, "a&b<c>": "escaped key", "cr\rkey": 3],
        PropertyList.uid(7), PropertyList.uid(0), PropertyList.uid(UInt32.max), ["$top": ["root": PropertyList.uid(1)]],
        ["mixed": [1, 1.0, "1", true, PropertyList.data([1]), PropertyList.date(1)], "nested": ["deeper": ["deepest": [PropertyList.data([9])]]]],
    ]

    @Test(arguments: values.indices)
    func roundTrip(index: Int) {
        Self.check(Self.values[index])
    }

    @Test func everythingTogether() {
        var d = [PropertyList.Key: PropertyList]()
        for (i, v) in Self.values.enumerated() { d[PropertyList.Key("value \(i)")] = v }
        Self.check(.dictionary(d))
        Self.check(.array(Self.values))
    }

    @Test func fractionalDatesComeBackTruncated() {
        let back = (try? PropertyList.parse(PropertyList.date(-0.25).xmlData()))?.dateValue
        #expect(back == -1)
        let later = (try? PropertyList.parse(PropertyList.date(1_706_820_194.999).xmlData()))?.dateValue
        #expect(later == 1_706_820_194)
    }

    @Test func manyKeysComeBackSorted() {
        var rng = SplitMix64(seed: 0xC0FFEE)
        var d = [PropertyList.Key: PropertyList]()
        let pieces = ["a", "B", "\u{E9}", "e\u{301}", "\u{1F600}", "\u{FFFF}".isEmpty ? "" : "\u{FFFD}", "0", " ", "_"]
        for i in 0..<500 {
            var key = ""
            for _ in 0..<Int.random(in: 0...4, using: &rng) { key += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
            d[PropertyList.Key(key)] = .integer(i)
        }
        let value = PropertyList.dictionary(d)
        Self.check(value)
        guard let xml = xmlText(value) else { return }
        let keys = xml.split(separator: "\n").compactMap { line -> [UInt8]? in
            guard line.hasPrefix("\t<key>"), line.hasSuffix("</key>") else { return nil }
            return Array(line.dropFirst(6).dropLast(6).utf8)
        }
        #expect(keys.count == d.count)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "keys not in UTF-8 byte order")
    }
}
