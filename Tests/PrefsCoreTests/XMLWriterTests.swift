import PrefsCore
import Testing

@Suite("XML writer")
struct XMLWriterTests {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    static let footer = "</plist>\n"

    @Test func goldenNestedValue() {
        let value: PropertyList = [
            "B": "upper case sorts first",
            "amp": PropertyList.string("a & b < c > d \"q\" 'a'\r\ne\tf"),
            "bools": [true, false],
            "data": PropertyList.data([0, 1, 2, 3]),
            "date": PropertyList.date(1_706_820_194.75),
            "emptyArray": [],
            "emptyData": PropertyList.data([]),
            "emptyDict": PropertyList.emptyDictionary,
            "emptyString": "",
            "e\u{301}": "decomposed",
            "ints": [0, -1, PropertyList.integer(UInt64.max), PropertyList.integer(Int64.min)],
            "nested": ["inner": ["x", ["deep": 1]]],
            "reals": [
                0.1, 5.0, PropertyList.real(-0.0), PropertyList.real(.nan), PropertyList.real(.infinity),
                PropertyList.real(-.infinity), 1e-300, 2.5,
            ],
            "\u{E9}": "accented keys sort last",
        ]
        let lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">",
            "<plist version=\"1.0\">",
            "<dict>",
            "\t<key>B</key>",
            "\t<string>upper case sorts first</string>",
            "\t<key>amp</key>",
            "\t<string>a &amp; b &lt; c &gt; d \"q\" 'a'&#13;",
            "e\tf</string>",
            "\t<key>bools</key>",
            "\t<array>",
            "\t\t<true/>",
            "\t\t<false/>",
            "\t</array>",
            "\t<key>data</key>",
            "\t<data>",
            "\tAAECAw==",
            "\t</data>",
            "\t<key>date</key>",
            "\t<date>2024-02-01T20:43:14Z</date>",
            "\t<key>emptyArray</key>",
            "\t<array/>",
            "\t<key>emptyData</key>",
            "\t<data>",
            "\t</data>",
            "\t<key>emptyDict</key>",
            "\t<dict/>",
            "\t<key>emptyString</key>",
            "\t<string></string>",
            "\t<key>e\u{301}</key>",
            "\t<string>decomposed</string>",
            "\t<key>ints</key>",
            "\t<array>",
            "\t\t<integer>0</integer>",
            "\t\t<integer>-1</integer>",
            "\t\t<integer>18446744073709551615</integer>",
            "\t\t<integer>-9223372036854775808</integer>",
            "\t</array>",
            "\t<key>nested</key>",
            "\t<dict>",
            "\t\t<key>inner</key>",
            "\t\t<array>",
            "\t\t\t<string>x</string>",
            "\t\t\t<dict>",
            "\t\t\t\t<key>deep</key>",
            "\t\t\t\t<integer>1</integer>",
            "\t\t\t</dict>",
            "\t\t</array>",
            "\t</dict>",
            "\t<key>reals</key>",
            "\t<array>",
            "\t\t<real>0.10000000000000001</real>",
            "\t\t<real>5</real>",
            "\t\t<real>-0.0</real>",
            "\t\t<real>nan</real>",
            "\t\t<real>+infinity</real>",
            "\t\t<real>-infinity</real>",
            "\t\t<real>1e-300</real>",
            "\t\t<real>2.5</real>",
            "\t</array>",
            "\t<key>\u{E9}</key>",
            "\t<string>accented keys sort last</string>",
            "</dict>",
            "</plist>",
        ]
        let expected = utf8(lines.joined(separator: "\n") + "\n")
        guard let written = try? value.xmlData() else {
            Issue.record("refused")
            return
        }
        if written != expected {
            let w = String(decoding: written, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let e = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let firstDifference = zip(w, e).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record(
                "output differs at line \((firstDifference?.offset ?? min(w.count, e.count)) + 1): \(firstDifference.map { "\($0.element.0.debugDescription) vs expected \($0.element.1.debugDescription)" } ?? "length")"
            )
        }
        // Byte-exact: the CR is the only escaped control character.
        #expect(!written.contains(0x0D))
    }

    @Test func scalarsAtTheRoot() {
        func body(_ v: PropertyList) -> String? {
            guard let text = xmlText(v), text.hasPrefix(Self.header), text.hasSuffix(Self.footer) else { return nil }
            return String(text.dropFirst(Self.header.count).dropLast(Self.footer.count))
        }
        #expect(body("x") == "<string>x</string>\n")
        #expect(body(true) == "<true/>\n")
        #expect(body(false) == "<false/>\n")
        #expect(body(PropertyList.integer(UInt64.max)) == "<integer>18446744073709551615</integer>\n")
        #expect(body(PropertyList.integer(Int64.min)) == "<integer>-9223372036854775808</integer>\n")
        #expect(body([]) == "<array/>\n")
        #expect(body(PropertyList.emptyDictionary) == "<dict/>\n")
        #expect(body(PropertyList.data([])) == "<data>\n</data>\n")
        #expect(body(PropertyList.data([0xFF])) == "<data>\n/w==\n</data>\n")
    }

    @Test(arguments: [
        (0.1, "0.10000000000000001"), (5.0, "5"), (-0.0, "-0.0"), (0.0, "0.0"), (Double.nan, "nan"),
        (Double.infinity, "+infinity"), (-Double.infinity, "-infinity"), (-2.5, "-2.5"), (100.0, "100"),
        (1e-300, "1e-300"), (0.30000000000000004, "0.30000000000000004"),
        (1.0 / 3.0, "0.33333333333333331"),
    ])
    func realsAsAppleWritesThem(value: Double, text: String) {
        let xml = xmlText(.real(value))
        #expect(xml?.contains("<real>\(text)</real>\n") == true, "\(value) written as \(xml ?? "nothing")")
    }

    @Test func realsReadBackExactly() {
        var rng = SplitMix64(seed: 0x0EA1)
        var values: [Double] = [
            .greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude, .pi, -.ulpOfOne,
            1e16, 1e15, 123456789012345680, 9007199254740992, 9007199254740994, 0.1 + 0.2,
        ]
        for _ in 0..<300 { values.append(Double(bitPattern: rng.next())) }
        for d in values where d.isFinite {
            let back = (try? PropertyList.parse(try PropertyList.real(d).xmlData()))?.realValue
            #expect(back?.bitPattern == d.bitPattern, "\(d) read back as \(String(describing: back))")
        }
    }

    @Test func datesInWholeSecondsTruncatedTowardTheEarlierSecond() {
        func written(_ t: Double) -> String? {
            guard let text = xmlText(.date(t)), let open = text.firstRange(of: "<date>"), let close = text.firstRange(of: "</date>") else { return nil }
            return String(text[open.upperBound..<close.lowerBound])
        }
        #expect(written(0) == "1970-01-01T00:00:00Z")
        #expect(written(0.999) == "1970-01-01T00:00:00Z")
        #expect(written(-0.001) == "1969-12-31T23:59:59Z")
        #expect(written(-1) == "1969-12-31T23:59:59Z")
        #expect(written(-1.5) == "1969-12-31T23:59:58Z")
        #expect(written(1_706_820_194.75) == "2024-02-01T20:43:14Z")
        #expect(written(unixTime(2024, 2, 29, 23, 59, 59) + 0.5) == "2024-02-29T23:59:59Z")
        #expect(written(gregorianUnixTime(1600, 3, 1)) == "1600-03-01T00:00:00Z")
        #expect(written(-62_135_769_600) == "0000-12-30T00:00:00Z")
        #expect(written(-62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(written(gregorianUnixTime(-44, 3, 15, 12)) == "-044-03-15T12:00:00Z")
        #expect(written(253_402_300_800) == "10000-01-01T00:00:00Z")
        #expect(written(253_402_300_799.9) == "9999-12-31T23:59:59Z")
    }

    @Test func datesOutsideTheYearsRefused() {
        for t in [
            3e16, 1e17, -3e16, -1e300, .nan, .infinity, -.infinity,
        ] {
            let e = xmlRefusal(["d": [PropertyList.date(t)]])
            #expect(e?.code == .unrepresentable, "date \(t)")
            #expect(e?.message.contains(".d") == true && e?.message.contains("[0]") == true, "no path in: \(e?.message ?? "")")
        }
    }

    @Test func charactersXMLCannotCarryAreRefused() {
        let bad: [(String, String)] = [
            ("\u{0}", "U+0000"), ("\u{1}", "U+0001"), ("\u{8}", "U+0008"), ("\u{B}", "U+000B"),
            ("\u{C}", "U+000C"), ("\u{E}", "U+000E"), ("\u{1F}", "U+001F"), ("\u{FFFE}", "U+FFFE"), ("\u{FFFF}", "U+FFFF"),
        ]
        for (char, name) in bad {
            let value: PropertyList = ["outer": ["fine", PropertyList.string("bad\(char)here")]]
            let e = xmlRefusal(value)
            #expect(e?.code == .unrepresentable, "\(name)")
            let message = e?.message ?? ""
            #expect(message.contains(".outer") && message.contains("[1]"), "no path in: \(message)")
            #expect(message.contains(name), "the message should name \(name): \(message)")

            let key: PropertyList = ["list": [PropertyList.dictionary([PropertyList.Key("k\(char)"): 1])]]
            let k = xmlRefusal(key)
            #expect(k?.code == .unrepresentable, "key with \(name)")
            #expect(k?.message.contains(".list") == true && k?.message.contains("[0]") == true, "no path in: \(k?.message ?? "")")
        }
    }

    @Test func charactersXMLCanCarryAreWritten() {
        let s = "tab\t lf\n cr\r del\u{7F} c1\u{85} fffd\u{FFFD} bmp-end\u{FFFC} astral\u{10FFFF}\u{1F600}"
        let xml = xmlText(["k": PropertyList.string(s)])
        #expect(xml?.contains("<string>tab\t lf\n cr&#13; del\u{7F} c1\u{85} fffd\u{FFFD} bmp-end\u{FFFC} astral\u{10FFFF}\u{1F600}</string>") == true)
    }

    /// The base64 lines of the first <data> element of `xml`.
    static func dataLines(_ xml: String) -> [Substring] {
        let lines = xml.split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = lines.firstIndex(where: { $0.hasSuffix("<data>") }),
            let close = lines[open...].firstIndex(where: { $0.hasSuffix("</data>") })
        else { return [] }
        return Array(lines[(open + 1)..<close])
    }

    @Test(arguments: [0, 1, 9])
    func base64Wrapping(indent: Int) {
        let tabs = min(indent, 8)
        let width = 76 - 8 * tabs
        for size in [1, 2, 3, 11, 12, 50, 51, 52, 56, 57, 58, 114, 200, 1000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var value = PropertyList.data(bytes)
            for _ in 0..<indent { value = .array([value]) }
            guard let xml = xmlText(value) else { continue }
            let lines = Self.dataLines(xml)
            #expect(!lines.isEmpty)
            let indentation = String(repeating: "\t", count: tabs)
            var joined = ""
            for (i, line) in lines.enumerated() {
                #expect(line.hasPrefix(indentation), "line \(i) of \(size) bytes at indent \(indent) lacks \(tabs) tabs")
                let text = line.dropFirst(tabs)
                #expect(!text.hasPrefix("\t"), "more than \(tabs) tabs")
                #expect(text.count <= width, "line of \(text.count) characters at indent \(indent), at most \(width)")
                if i < lines.count - 1 { #expect(text.count == width, "inner lines are full") }
                #expect(!text.isEmpty)
                joined += text
            }
            #expect(joined == TestBase64.encode(bytes), "\(size) bytes")
            // <data> and </data> sit at the value's own indentation.
            let allLines = xml.split(separator: "\n")
            #expect(allLines.contains(Substring(String(repeating: "\t", count: indent) + "<data>")))
            #expect(allLines.contains(Substring(String(repeating: "\t", count: indent) + "</data>")))
        }
    }

    @Test func tooDeepToWrite() {
        var v = PropertyList.string("x")
        for _ in 0..<300 { v = ["k": v] }
        #expect(xmlRefusal(v)?.code == .tooDeep)
    }
}
