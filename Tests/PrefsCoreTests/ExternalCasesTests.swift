import Testing

@testable import PrefsCore

/// Cases of other implementations' suites, ported: swift-foundation's
/// PropertyListEncoderTests, GNUstep's PropertyLists/test01.m, libplist's
/// nested CF$UID. Each matches the other implementation, or doc/behaviour.md's
/// list of deliberate differences says why not (and the test says what
/// this library does instead).
@Suite("Other implementations' cases")
struct ExternalCasesTests {
    private func xml(_ body: String) -> PropertyList? {
        try? PropertyList.parse(Array(plistDocument(body).utf8))
    }

    // MARK: swift-foundation PropertyListEncoderTests

    @Test func integersWithWhitespace() {
        #expect(
            xml("<array><integer> +\t42</integer><integer>\t-   99</integer><integer> -\t0xFACE</integer></array>")
                == [42, -99, PropertyList.integer(-0xFACE)])
    }

    @Test func reals() {
        let v = xml("<array><real>1.5</real><real>2</real><real>  -3.14</real><real>31415.9e-4</real><real>-iNf</real><real>infInItY</real></array>")
        #expect(v == [1.5, 2.0, -3.14, 3.14159, PropertyList.real(-.infinity), PropertyList.real(.infinity)])
        for nan in ["nAn", "NAN", "nan"] { #expect(xml("<real>\(nan)</real>")?.realValue?.isNaN == true) }
        for bad in ["0x10", "notanumber", "infinite", "1.2.3", "1.e", "1.5  ", ""] {
            #expect(xml("<real>\(bad)</real>") == nil, "<real>\(bad)</real>")
        }
    }

    @Test func oldStyleOctalEscapes() throws {
        // \5, \05 and \005 are one character.
        #expect(try OldStylePlist.parse("(\"\\5\", \"\\05\", \"\\005\", \"\\101\", \"\\0\")") == ["\u{5}", "\u{5}", "\u{5}", "A", "\u{0}"])
        // Deliberate difference (doc/behaviour.md): above \177, Apple's parser reads
        // the byte in the NeXTSTEP encoding (\341 is Æ); this library reads
        // the escape's value as a Unicode code point (\341 is á).
        #expect(try OldStylePlist.parse("\"\\341\"") == "\u{E1}")
    }

    @Test func oldStyleShortUnicodeEscapes() throws {
        #expect(try OldStylePlist.parse("(\"\\U0\", \"\\U41\", \"\\U041\", \"\\U0041\", \"\\Ue9x\")") == ["\u{0}", "A", "A", "A", "\u{E9}x"])
    }

    @Test func oldStyleLiteralEscapes() throws {
        #expect(
            try OldStylePlist.parse("('\\a', '\\b', '\\f', '\\n', '\\r', '\\t', '\\v', '\\\"', '\\\\n')")
                == ["\u{7}", "\u{8}", "\u{C}", "\n", "\r", "\t", "\u{B}", "\"", "\\n"])
    }

    @Test func utf32WithByteOrderMark() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-32BE\"?>\n<plist version=\"1.0\">\n<string>hello</string>\n</plist>"
        var bytes: [UInt8] = [0, 0, 0xFE, 0xFF]
        for s in text.unicodeScalars { bytes += [0, UInt8(s.value >> 16), UInt8(s.value >> 8 & 0xFF), UInt8(s.value & 0xFF)] }
        #expect(try PropertyList.parse(bytes) == "hello")
    }

    @Test func uidsInXML() {
        #expect(xml("<dict><key>CF$UID</key><integer>1</integer></dict>") == .uid(1))
    }

    @Test func escapesAndEmoji() {
        #expect(xml("<string>&#128664;</string>") == "\u{1F698}")
        #expect(xml("<string>&#12341234128664;</string>") == nil)
        #expect(xml("<string>&#12866411;</string>") == nil)
        #expect(xml("<string><![CDATA[Test &amp; &33; <![CDATA[]]]> outside</string>") == "Test &amp; &33; <![CDATA[] outside")
    }

    // MARK: GNUstep PropertyLists/test01.m

    /// CoreFoundation's description of data reads back as data, as GNUstep
    /// reads it, so that what `prefs read` prints reads back.
    @Test func dataDescriptionsReadAsData() throws {
        #expect(try OldStylePlist.parse("{length = 7, bytes = 0x68656c6c6f2121}") == .data(Array("hello!!".utf8)))
        #expect(try OldStylePlist.parse("{length = 0, bytes = 0x}") == .data([]))
        #expect(try OldStylePlist.parse("{ length=2 , bytes = 0xABcd }") == .data([0xAB, 0xCD]))
        #expect(try OldStylePlist.parse("{length = 8, bytes = 0x01020304 05060708}") == .data([1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(try OldStylePlist.parse("{k = {length = 1, bytes = 0xff};}") == ["k": PropertyList.data([0xFF])])
        let printed = OldStylePlist.format(["d": PropertyList.data([0, 1, 0xFE])])
        #expect(try OldStylePlist.parse(printed) == ["d": PropertyList.data([0, 1, 0xFE])])
        // A length that disagrees, an abbreviated description (bytes left
        // out), odd digits: not data, and not a dictionary either.
        for bad in ["{length = 3, bytes = 0x0102}", "{length = 40, bytes = 0x00000000 ... 00000000 }", "{length = 1, bytes = 0x012}"] {
            #expect(throws: PrefsError.self) { try OldStylePlist.parse(bad) }
        }
        // A dictionary with those keys is still a dictionary.
        #expect(try OldStylePlist.parse("{length = 7; bytes = 0x00;}") == ["length": "7", "bytes": "0x00"])
    }

    // MARK: libplist: nested CF$UID

    @Test func nestedCFUID() throws {
        // A CF$UID dictionary inside another is a UID only where it is the
        // one key; a CF$UID key among others stays a key.
        let v = xml("<dict><key>CF$UID</key><dict><key>CF$UID</key><integer>3</integer></dict></dict>")
        #expect(v == ["CF$UID": PropertyList.uid(3)])
        let bin = try #require(try v?.binaryData())
        #expect(try PropertyList.parse(bin) == v)
        let back = try #require(try v?.xmlData())
        #expect(try PropertyList.parse(back) == v)
    }
}
