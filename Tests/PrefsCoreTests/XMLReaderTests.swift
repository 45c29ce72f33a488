import PrefsCore
import Testing

@Suite("XML reader")
struct XMLReaderTests {
    // MARK: Integers

    @Test func integers() {
        #expect(expectBody("<integer>42</integer>")?.integerValue == 42)
        #expect(expectBody("<integer>-1</integer>")?.integerValue == -1)
        #expect(expectBody("<integer>0</integer>")?.integerValue == 0)
        #expect(expectBody("<integer>0123</integer>")?.integerValue == 123, "leading zeros stay decimal")
        #expect(expectBody("<integer>-0010</integer>")?.integerValue == -10)
        #expect(expectBody("<integer>0x1F</integer>")?.integerValue == 31)
        #expect(expectBody("<integer>0xff</integer>")?.integerValue == 255)
        #expect(expectBody("<integer>0x0</integer>")?.integerValue == 0)
        #expect(expectBody("<integer>0xFFFFFFFFFFFFFFFF</integer>")?.integerValue == Int128(UInt64.max))
        #expect(expectBody("<integer>-9223372036854775808</integer>")?.integerValue == Int128(Int64.min))
        #expect(expectBody("<integer>9223372036854775807</integer>")?.integerValue == Int128(Int64.max))
        #expect(expectBody("<integer>9223372036854775808</integer>")?.integerValue == Int128(Int64.max) + 1)
        #expect(expectBody("<integer>18446744073709551615</integer>")?.integerValue == Int128(UInt64.max))
        #expect(expectBody("<integer>00000000000000000000000018446744073709551615</integer>")?.integerValue == Int128(UInt64.max))
        #expect(expectBody("<integer>42</integer>")?.kind == .integer)
    }

    @Test func integerRefusals() {
        expectBodyRefused("<integer>18446744073709551616</integer>")  // 2^64
        expectBodyRefused("<integer>99999999999999999999999</integer>")
        expectBodyRefused("<integer>-9223372036854775809</integer>")  // -2^63 - 1
        expectBodyRefused("<integer>-18446744073709551615</integer>")
        expectBodyRefused("<integer>0x10000000000000000</integer>")  // 2^64
        expectBodyRefused("<integer>0x1FFFFFFFFFFFFFFFF</integer>")
        expectBodyRefused("<integer>1.0</integer>")
        expectBodyRefused("<integer>1e3</integer>")
        expectBodyRefused("<integer>0x</integer>")
        expectBodyRefused("<integer>0xg</integer>")
        expectBodyRefused("<integer>12a</integer>")
        expectBodyRefused("<integer>-</integer>")
        expectBodyRefused("<integer></integer>")
        expectBodyRefused("<integer/>")
        expectBodyRefused("<integer>one</integer>")
        expectBodyRefused("<integer>1 2</integer>")
    }

    @Test func integerCommentInside() {
        #expect(expectBody("<integer>1<!-- x -->2</integer>")?.integerValue == 12)
    }

    // MARK: Reals

    @Test func reals() {
        #expect(expectBody("<real>.5</real>")?.realValue == 0.5)
        #expect(expectBody("<real>2</real>")?.realValue == 2.0)
        #expect(expectBody("<real>2</real>")?.kind == .real, "<real>2</real> is a real, never an integer")
        #expect(expectBody("<real>1e4</real>")?.realValue == 10000)
        #expect(expectBody("<real>-1.25E-2</real>")?.realValue == -0.0125)
        #expect(expectBody("<real>0.10000000000000001</real>")?.realValue == 0.1)
        #expect(expectBody("<real>1.7976931348623157E+308</real>")?.realValue == Double.greatestFiniteMagnitude)
        #expect(expectBody("<real>4.9406564584124654e-324</real>")?.realValue == Double.leastNonzeroMagnitude)
        #expect(expectBody("<real> 3.5</real>")?.realValue == 3.5, "leading whitespace is allowed")
        #expect(expectBody("<real>1e400</real>")?.realValue == .infinity)
        #expect(expectBody("<real>-1e400</real>")?.realValue == -.infinity)
        #expect(expectBody("<real>nan</real>")?.realValue?.isNaN == true)
        #expect(expectBody("<real>NaN</real>")?.realValue?.isNaN == true)
        #expect(expectBody("<real>inf</real>")?.realValue == .infinity)
        #expect(expectBody("<real>+infinity</real>")?.realValue == .infinity)
        #expect(expectBody("<real>-infinity</real>")?.realValue == -.infinity)
        #expect(expectBody("<real>-inf</real>")?.realValue == -.infinity)
        let negativeZero = expectBody("<real>-0.0</real>")?.realValue
        #expect(negativeZero == 0)
        #expect(negativeZero?.sign == .minus, "-0.0 keeps its sign")
        #expect(expectBody("<real>0.0</real>")?.realValue?.sign == .plus)
    }

    @Test func realRefusals() {
        expectBodyRefused("<real>0x1p3</real>")
        expectBodyRefused("<real>0x10</real>")
        expectBodyRefused("<real>1.5.2</real>")
        expectBodyRefused("<real></real>")
        expectBodyRefused("<real/>")
        expectBodyRefused("<real>abc</real>")
        expectBodyRefused("<real>1e</real>")
        expectBodyRefused("<real>.</real>")
        expectBodyRefused("<real>--1</real>")
        expectBodyRefused("<real>infinit</real>")
        expectBodyRefused("<real>1,5</real>")
    }

    // MARK: Dates

    @Test func dates() {
        #expect(expectBody("<date>1970-01-01T00:00:00Z</date>")?.dateValue == 0)
        #expect(expectBody("<date>2024-02-01T20:43:14Z</date>")?.dateValue == 1_706_820_194)
        #expect(expectBody("<date>2024-02-29T12:00:00Z</date>")?.dateValue == unixTime(2024, 2, 29, 12))
        #expect(expectBody("<date>2000-02-29T00:00:00Z</date>")?.dateValue == unixTime(2000, 2, 29))
        #expect(expectBody("<date>1869-03-01T23:59:59Z</date>")?.dateValue == unixTime(1869, 3, 1, 23, 59, 59))
        #expect(expectBody("<date>2199-12-31T23:59:59Z</date>")?.dateValue == unixTime(2199, 12, 31, 23, 59, 59))
        #expect(expectBody("<date>0001-01-01T00:00:00Z</date>")?.dateValue == -62_135_596_800)
        #expect(expectBody("<date>0000-12-30T00:00:00Z</date>")?.dateValue == -62_135_769_600)
        #expect(expectBody("<date>-001-01-01T00:00:00Z</date>")?.dateValue == gregorianUnixTime(-1, 1, 1))
        #expect(expectBody("<date>12345-06-07T08:09:10Z</date>")?.dateValue == gregorianUnixTime(12345, 6, 7, 8, 9, 10))
        #expect(expectBody("<date>9999-12-31T23:59:59Z</date>")?.dateValue == 253_402_300_799)
        #expect(expectBody("<date>1969-12-31T23:59:59Z</date>")?.dateValue == -1)
        #expect(expectBody("<date>2024-02-01T20:43:14Z</date>")?.kind == .date)
    }

    /// Days, hours, minutes and seconds past their end are counted on, as
    /// CoreFoundation counts them (the month must be 01-12).
    @Test func lenientDateFields() {
        #expect(expectBody("<date>2023-02-29T00:00:00Z</date>")?.dateValue == unixTime(2023, 3, 1))
        #expect(expectBody("<date>2023-02-30T00:00:00Z</date>")?.dateValue == unixTime(2023, 3, 2))
        #expect(expectBody("<date>2024-01-32T00:00:00Z</date>")?.dateValue == unixTime(2024, 2, 1))
        #expect(expectBody("<date>2024-01-00T00:00:00Z</date>")?.dateValue == unixTime(2023, 12, 31))
        #expect(expectBody("<date>2024-01-01T24:00:00Z</date>")?.dateValue == unixTime(2024, 1, 2))
        #expect(expectBody("<date>2024-01-01T00:60:00Z</date>")?.dateValue == unixTime(2024, 1, 1, 1))
        #expect(expectBody("<date>2016-12-31T23:59:60Z</date>")?.dateValue == unixTime(2017, 1, 1))
    }

    @Test func dateRefusals() {
        expectBodyRefused("<date>2024-13-01T00:00:00Z</date>")
        expectBodyRefused("<date>2024-00-01T00:00:00Z</date>")
        expectBodyRefused("<date>1234567890-01-01T00:00:00Z</date>")  // ten digits
        expectBodyRefused("<date>--001-01-01T00:00:00Z</date>")
        expectBodyRefused("<date>-2024-1-01T00:00:00Z</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14+01:00</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14-0000</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14.5Z</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14.000Z</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14</date>")  // no Z
        expectBodyRefused("<date>2024-02-01Z</date>")
        expectBodyRefused("<date>2024-02-01</date>")
        expectBodyRefused("<date>2024-02-01T20:43:14Zjunk</date>")
        expectBodyRefused("<date> 2024-02-01T20:43:14Z</date>")
        expectBodyRefused("<date>2024-02-01 20:43:14Z</date>")
        expectBodyRefused("<date>2024-2-01T20:43:14Z</date>")
        expectBodyRefused("<date></date>")
    }

    // MARK: Data

    @Test func base64() {
        #expect(expectBody("<data>AAECAw==</data>")?.dataValue == [0, 1, 2, 3])
        #expect(expectBody("<data>AAECAwQ=</data>")?.dataValue == [0, 1, 2, 3, 4])
        #expect(expectBody("<data>AAECAwQF</data>")?.dataValue == [0, 1, 2, 3, 4, 5])
        #expect(expectBody("<data>\n\tAAEC\n\tAw==\n</data>")?.dataValue == [0, 1, 2, 3])
        #expect(expectBody("<data> A A E C A w = = </data>")?.dataValue == [0, 1, 2, 3])
        #expect(expectBody("<data>AA\r\nEC\r\nAw==</data>")?.dataValue == [0, 1, 2, 3])
        #expect(expectBody("<data>/+/+</data>")?.dataValue == [0xFF, 0xEF, 0xFE])
        #expect(expectBody("<data>SGVsbG8sIHdvcmxkIQ==</data>")?.dataValue == utf8("Hello, world!"))
    }

    @Test func base64EmptyForms() {
        #expect(expectBody("<data></data>")?.dataValue == [])
        #expect(expectBody("<data/>")?.dataValue == [])
        #expect(expectBody("<data>  \n\t  </data>")?.dataValue == [])
        #expect(expectBody("<data/>")?.kind == .data)
    }

    @Test func base64Refusals() {
        expectBodyRefused("<data>AAECAw=</data>")  // one '=' where two are needed
        expectBodyRefused("<data>AAECAw</data>")  // no padding
        expectBodyRefused("<data>AAECA</data>")
        expectBodyRefused("<data>A===</data>")
        expectBodyRefused("<data>====</data>")
        expectBodyRefused("<data>AA==AAAA</data>")  // data after padding
        expectBodyRefused("<data>AA=A</data>")
        expectBodyRefused("<data>AAECAw===</data>")
    }

    // MARK: Strings

    @Test func strings() {
        #expect(expectBody("<string>plain</string>")?.stringValue == "plain")
        #expect(expectBody("<string></string>")?.stringValue == "")
        #expect(expectBody("<string/>")?.stringValue == "")
        #expect(expectBody("<string>  spaced\tout  </string>")?.stringValue == "  spaced\tout  ")
        #expect(expectBody("<string>&lt;&gt;&amp;&quot;&apos;</string>")?.stringValue == "<>&\"'")
        #expect(expectBody("<string>caf\u{E9} \u{1F600}</string>")?.stringValue == "caf\u{E9} \u{1F600}")
        // Byte-exact: a decomposed é stays decomposed.
        let decomposed = expectBody("<string>e\u{301}</string>")?.stringValue
        #expect(decomposed.map { Array($0.utf8) } == [0x65, 0xCC, 0x81])
    }

    @Test func cdata() {
        #expect(expectBody("<string><![CDATA[a <b> & c]]> tail</string>")?.stringValue == "a <b> & c tail")
        #expect(expectBody("<string><![CDATA[]]></string>")?.stringValue == "")
        // Markup inside CDATA is text and makes no key.
        let d = expectBody("<dict><key>k</key><string><![CDATA[</string><key>x</key><string>]]></string></dict>")
        #expect(d?.dictionaryValue?.count == 1)
        #expect(d?["k"]?.stringValue == "</string><key>x</key><string>")
    }

    @Test func commentsInsideValues() {
        #expect(expectBody("<string>a<!-- x -->b</string>")?.stringValue == "ab")
        #expect(expectBody("<string><!-- only --></string>")?.stringValue == "")
        #expect(expectBody("<data>AAEC<!-- x -->Aw==</data>")?.dataValue == [0, 1, 2, 3])
        #expect(expectBody("<real>1<!-- x -->.5</real>")?.realValue == 1.5)
        #expect(expectBody("<date>2024-02-01T20:43<!-- x -->:14Z</date>")?.dateValue == 1_706_820_194)
        #expect(expectBody("<dict><key>a<!-- x -->b</key><true/></dict>")?["ab"]?.booleanValue == true)
    }

    @Test func characterReferences() {
        #expect(expectBody("<string>&#169;</string>")?.stringValue == "\u{A9}")
        #expect(expectBody("<string>&#xA9;&#x1F600;</string>")?.stringValue == "\u{A9}\u{1F600}")
        #expect(expectBody("<string>&#65;&#x42;</string>")?.stringValue == "AB")
        #expect(expectBody("<string>tab&#9;lf&#10;</string>")?.stringValue == "tab\tlf\n")
    }

    @Test func carriageReturns() {
        #expect(expectBody("<string>a&#13;b</string>")?.stringValue == "a\rb")
        #expect(expectBody("<string>a&#xD;&#xA;b</string>").map { Array($0.stringValue!.utf8) } == utf8("a\r\nb"))
        // Raw CR LF and a lone raw CR reach the reader as LF.
        #expect(expectParses(utf8("<plist><string>a\r\nb\rc</string></plist>"))?.stringValue == "a\nb\nc")
    }

    @Test func characterReferenceRefusals() {
        expectBodyRefused("<string>&#x1;</string>")
        expectBodyRefused("<string>&#0;</string>")
        expectBodyRefused("<string>&#8;</string>")
        expectBodyRefused("<string>&#xD800;</string>")
        expectBodyRefused("<string>&#xFFFF;</string>")
        expectBodyRefused("<string>a & b</string>")
        expectBodyRefused("<string>a ]]> b</string>")
    }

    @Test func unknownEntityIsForbidden() {
        expectBodyRefused("<string>&nbsp;</string>", .forbiddenMarkup)
        expectRefused("<plist><string>&copy;</string></plist>", .forbiddenMarkup)
        expectRefused("<plist><string a=\"&foo;\">x</string></plist>", .forbiddenMarkup)
    }

    // MARK: Booleans

    @Test func booleans() {
        #expect(expectBody("<true/>")?.booleanValue == true)
        #expect(expectBody("<false/>")?.booleanValue == false)
        #expect(expectBody("<true></true>")?.booleanValue == true)
        #expect(expectBody("<false></false>")?.booleanValue == false)
    }

    // MARK: Structure

    @Test func dictionaries() {
        let v = expectBody(
            """
            <dict>
            \t<key>name</key>
            \t<string>Ada</string>
            \t<key>list</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<real>2.5</real>
            \t\t<true/>
            \t</array>
            \t<key>empty</key>
            \t<dict/>
            </dict>
            """)
        let expected: PropertyList = ["name": "Ada", "list": [1, 2.5, true], "empty": PropertyList.emptyDictionary]
        #expect(v == expected)
    }

    @Test func duplicateKeysLastWins() {
        let v = expectBody("<dict><key>a</key><integer>1</integer><key>b</key><true/><key>a</key><string>two</string></dict>")
        #expect(v?.dictionaryValue?.count == 2)
        #expect(v?["a"]?.stringValue == "two")
        let empty = expectBody("<dict><key></key><integer>1</integer><key/><integer>2</integer></dict>")
        #expect(empty?.dictionaryValue?.count == 1)
        #expect(empty?[""]?.integerValue == 2)
    }

    @Test func keysAreExactText() {
        let v = expectBody("<dict><key></key><string>empty</string><key> spaced </key><true/><key><!-- c --></key><false/></dict>")
        // "" appears twice (empty and comment-only): the last wins.
        #expect(v?.dictionaryValue?.count == 2)
        #expect(v?[""]?.booleanValue == false)
        #expect(v?[" spaced "]?.booleanValue == true)
        #expect(v?["spaced"] == nil)
        // Composed and decomposed é are two keys.
        let n = expectBody("<dict><key>\u{E9}</key><integer>1</integer><key>e\u{301}</key><integer>2</integer></dict>")
        #expect(n?.dictionaryValue?.count == 2)
        #expect(n?["\u{E9}"]?.integerValue == 1)
        #expect(n?["e\u{301}"]?.integerValue == 2)
        // A dictionary whose one key is CF$UID with an integer of 0...2^32-1
        // is a UID, as CoreFoundation reads it; otherwise CF$UID is an
        // ordinary key.
        #expect(expectBody("<dict><key>CF$UID</key><integer>7</integer></dict>")?.uidValue == 7)
        #expect(expectBody("<dict><key>CF$UID</key><integer>4294967295</integer></dict>")?.uidValue == UInt32.max)
        #expect(expectBody("<dict><key>CF$UID</key><integer>4294967296</integer></dict>")?["CF$UID"]?.integerValue == 1 << 32)
        #expect(expectBody("<dict><key>CF$UID</key><integer>-1</integer></dict>")?["CF$UID"]?.integerValue == -1)
        #expect(expectBody("<dict><key>CF$UID</key><string>7</string></dict>")?["CF$UID"]?.stringValue == "7")
        #expect(expectBody("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>")?["CF$UID"]?.integerValue == 7)
        // `</key >` with a space before '>'.
        #expect(expectBody("<dict><key>k</key ><string>v</string></dict>")?["k"]?.stringValue == "v")
    }

    @Test func structureRefusals() {
        expectBodyRefused("<dict><key>a</key></dict>")  // key without value
        expectBodyRefused("<dict><key>a</key><key>b</key><true/></dict>")  // key after key
        expectBodyRefused("<dict><string>x</string></dict>")  // value without key
        expectBodyRefused("<dict><key>a</key><true/><false/></dict>")  // second value without key
        expectBodyRefused("<dict><key>a<true/></key><true/></dict>")  // element inside key
        expectBodyRefused("<string>a<true/></string>")  // element inside value
        expectBodyRefused("<true/><false/>")  // two values
        expectBodyRefused("<array/><array/>")
        expectBodyRefused("")  // empty <plist>
        expectRefused("<plist/>")
        expectRefused("<plist></plist>")
        expectRefused("<plist>text</plist>")
        expectRefused("<plist><plist><true/></plist></plist>")
        expectBodyRefused("<array><null/></array>")  // unknown element
        expectRefused("<plist><null/></plist>")
        expectRefused("<plist><foo/></plist>")
        expectRefused("<plist><Dict></Dict></plist>")
        expectRefused("<plist><true/></plist>junk")  // text after root
        expectRefused("<plist><true/></plist><plist><true/></plist>")
        expectRefused("<plist><true/></plist")  // truncated
        expectRefused("<plist><true/>")
        expectRefused("<plist><string>x</plist></string>")  // mismatched
        expectRefused("<plist><string =\"a\">apple</string></plist>")  // attribute without name
    }

    @Test func emptyInput() {
        expectRefused([UInt8](), .malformed)
        expectRefused("   \n\t ", .malformed)
    }

    @Test func refusalNamesTheLine() {
        let doc = "<?xml version=\"1.0\"?>\n<plist>\n<array>\n\t<integer>1</integer>\n\t<integer>zz</integer>\n</array>\n</plist>\n"
        expectRefused(doc, .malformed, line: 5)
        let unknown = "<plist>\n<array>\n\n<null/>\n</array>\n</plist>\n"
        expectRefused(unknown, .malformed, line: 4)
    }

    @Test func rootWithoutPlistWrapper() {
        #expect(expectParses("<dict><key>a</key><integer>1</integer></dict>")?["a"]?.integerValue == 1)
        #expect(expectParses("<array><string>x</string></array>")?[0]?.stringValue == "x")
        #expect(expectParses("<?xml version=\"1.0\"?>\n<string>root</string>\n")?.stringValue == "root")
        #expect(expectParses("<integer>5</integer>")?.integerValue == 5)
        #expect(expectParses("<true/>")?.booleanValue == true)
    }

    @Test func declarationDoctypeAndAttributesAreOptional() {
        #expect(expectParses("<plist version=\"1.0\"><true/></plist>")?.booleanValue == true)
        #expect(expectParses("<plist version=\"2.0\"><true/></plist>")?.booleanValue == true)
        #expect(expectParses("<plist><string foo=\"bar\">x</string></plist>")?.stringValue == "x")
        // '>' inside an attribute value does not end the tag.
        let v = expectParses("<plist><dict a=\">\"><key>k</key><integer>1</integer><key>k</key><integer>2</integer></dict></plist>")
        #expect(v?["k"]?.integerValue == 2)
        // Comments and processing instructions between elements.
        let c = expectParses("<?xml version=\"1.0\"?><!-- c --><?pi x?><plist><!-- c --><array><!-- c --><true/><?pi y?></array></plist><!-- end -->")
        #expect(c == [true])
        // A UTF-8 byte order mark.
        #expect(expectParses([0xEF, 0xBB, 0xBF] + utf8("<plist><string>bom</string></plist>"))?.stringValue == "bom")
    }

    @Test func emptyContainers() {
        let v = expectBody("<array><dict/><array/><dict></dict><array></array></array>")
        #expect(v?.arrayValue?.count == 4)
        #expect(v?[0]?.dictionaryValue?.isEmpty == true)
        #expect(v?[1]?.arrayValue?.isEmpty == true)
        #expect(v?[2]?.dictionaryValue?.isEmpty == true)
        #expect(v?[3]?.arrayValue?.isEmpty == true)
    }

    // MARK: Encodings

    @Test func utf16LittleEndianWithBOM() {
        let text =
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\"><dict><key>k\u{E9}y</key><string>h\u{E9}llo \u{1F600}</string></dict></plist>\n"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes.append(UInt8(unit & 0xFF)); bytes.append(UInt8(unit >> 8)) }
        let v = expectParses(bytes)
        #expect(v?["k\u{E9}y"]?.stringValue == "h\u{E9}llo \u{1F600}")
    }

    @Test func utf16BigEndianWithBOM() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>\u{3042}</string></plist>"
        var bytes: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 { bytes.append(UInt8(unit >> 8)); bytes.append(UInt8(unit & 0xFF)) }
        #expect(expectParses(bytes)?.stringValue == "\u{3042}")
    }

    @Test func latin1Declaration() {
        let bytes =
            utf8("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><dict><key>caf") + [0xE9]
            + utf8("</key><string>") + [0xA9, 0x20, 0xFF] + utf8("</string></dict></plist>")
        let v = expectParses(bytes)
        #expect(v?["caf\u{E9}"]?.stringValue == "\u{A9} \u{FF}")
    }

    /// Raw C0 control characters in text, as Apple's tools write them
    /// (a Terminal profile's ESC): read as Apple's parser reads them.
    @Test func lenientControlCharacters() {
        let doc =
            utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><dict><key>k") + [0x1B] + utf8("</key><string>a")
            + [0x1B, 0x5B, 0x01, 0x08, 0x0B, 0x0C, 0x1F] + utf8("\u{10FF7F}b</string></dict></plist>")
        let v = expectParses(doc)
        #expect(v?["k\u{1B}"]?.stringValue == "a\u{1B}[\u{1}\u{8}\u{B}\u{C}\u{1F}\u{10FF7F}b")
        // Without a declaration, too; in numbers they are still refused.
        #expect(expectParses(utf8("<plist><string>") + [0x07] + utf8("</string></plist>"))?.stringValue == "\u{7}")
        expectRefused(utf8("<plist><integer>1") + [0x07] + utf8("</integer></plist>"), .malformed)
        // A document already holding a stand-in character is not rewritten.
        expectRefused(utf8("<plist><string>\u{10FF81}") + [0x01] + utf8("</string></plist>"), .malformed)
        // A NUL byte stays refused.
        expectRefused(utf8("<plist><string>a") + [0x00, 0x01] + utf8("</string></plist>"), .malformed)
    }

    @Test func encodingRefusals() {
        expectRefused("<?xml version=\"1.0\" encoding=\"foobar\"?><plist><true/></plist>", .malformed)
        expectRefused(
            utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><string>") + [0xC3, 0x28]
                + utf8("</string></plist>"), .malformed)
        expectRefused(utf8("<plist><string>") + [0xFF, 0xFE, 0xFD] + utf8("</string></plist>"), .malformed)
        // A raw control character reads as Apple's parser reads it (see
        // lenientControlCharacters), except in a document naming another
        // encoding or in UTF-16.
        expectRefused(
            utf8("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>a") + [0x01] + utf8("</string></plist>"), .malformed)
    }

    /// Parsing is thread-safe: many threads reading at once get the same values.
    @Test func concurrentParsing() async {
        let documents: [[UInt8]] = [
            HostileInputTests.sampleDocument,
            utf8(plistDocument("<dict><key>a</key><integer>1</integer></dict>")),
            utf8("(x, y, <0102>)"),
        ]
        let expected = documents.map { try? PropertyList.parse($0) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var bad = 0
                    for i in 0..<60 {
                        let k = (task + i) % documents.count
                        if (try? PropertyList.parse(documents[k])) != expected[k] { bad += 1 }
                        if case .success = parseResult(utf8("<plist><integer>x</integer></plist>")) { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(expected.allSatisfy { $0 != nil })
        #expect(mismatches == 0)
    }

    // MARK: Markup that is never allowed

    @Test func internalSubsetEntitiesAreForbidden() {
        expectRefused(
            "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"x\">]><plist><string>&a;</string></plist>",
            .forbiddenMarkup)
        // Declared but unused still counts.
        expectRefused("<!DOCTYPE plist [<!ENTITY a \"x\">]><plist><true/></plist>", .forbiddenMarkup)
    }
}
