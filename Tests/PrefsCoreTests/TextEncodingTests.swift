import Testing

@testable import PrefsCore

// Old-style text and .strings files in UTF-16 with a byte-order mark, and
// .strings files without the outer braces.

/// `text` in UTF-16 with a byte-order mark, little or big endian.
func utf16(_ text: String, littleEndian: Bool) -> [UInt8] {
    var out: [UInt8] = littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
    for u in text.utf16 {
        let pair = [UInt8(u & 0xFF), UInt8(u >> 8)]
        out += littleEndian ? pair : pair.reversed()
    }
    return out
}

@Suite("Text encodings and .strings files")
struct TextEncodingTests {
    static let strings = """
        /* A localisation file, as Xcode writes them. */
        "greeting" = "Bonjour \u{e0} vous \u{1F600}";
        // a line comment
        "count" = "3";
        list = (a, b);

        """

    @Test(arguments: [true, false])
    func oldStyleInUTF16(_ little: Bool) {
        let v = expectParses(utf16("{ name = \"h\u{e9}llo \u{65e5}\"; n = (1, 2); }", littleEndian: little))
        #expect(v == ["name": "h\u{e9}llo \u{65e5}", "n": ["1", "2"]])
    }

    @Test(arguments: [true, false])
    func stringsFileInUTF16(_ little: Bool) {
        let v = expectParses(utf16(Self.strings, littleEndian: little))
        #expect(v == ["greeting": "Bonjour \u{e0} vous \u{1F600}", "count": "3", "list": ["a", "b"]])
    }

    @Test func stringsFileInUTF8() {
        #expect(expectParses(utf8(Self.strings)) == ["greeting": "Bonjour \u{e0} vous \u{1F600}", "count": "3", "list": ["a", "b"]])
        #expect(expectParses(utf8("a = b;")) == ["a": "b"])
        #expect(expectParses(utf8("\u{feff}k = v; k = w;")) == ["k": "w"])
    }

    @Test func stringsFileErrors() {
        expectRefused(utf8("a = b"), .malformed, line: 1)
        expectRefused(utf8("a = b;\nc"), .malformed, line: 2)
        expectRefused(utf8("a = b; }"), .malformed)
        // A value that is not a string followed by more text stays an error.
        expectRefused(utf8("(a) = b;"), .malformed)
        expectRefused(utf8("a b"), .malformed)
    }

    @Test func xmlInUTF16StillReadsAsXML() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist version=\"1.0\"><string>x\u{e9}</string></plist>"
        #expect(expectParses(utf16(xml, littleEndian: true)) == "x\u{e9}")
        #expect(expectParses(utf16(xml, littleEndian: false)) == "x\u{e9}")
    }

    @Test func utf16Refusals() {
        // A lone high surrogate, a lone low surrogate, an odd length.
        expectRefused([0xFF, 0xFE, 0x61, 0x00, 0x0A, 0x00, 0x3D, 0xD8, 0x61, 0x00], .malformed, line: 2)
        expectRefused([0xFE, 0xFF, 0xDE, 0x00], .malformed, line: 1)
        expectRefused([0xFF, 0xFE, 0x61, 0x00, 0x62], .malformed, line: 1)
    }
}
