import PrefsCore
import Testing

@Suite("Old-style text")
struct OldStyleTests {
    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> PropertyList? {
        do { return try OldStylePlist.parse(text) } catch {
            Issue.record("refused: \(error.message)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static func refused(_ text: String, line: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let v = try OldStylePlist.parse(text)
            Issue.record("accepted \(text.debugDescription) as \(v)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .malformed, "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains("line"), "no line in: \(error.message)", sourceLocation: sourceLocation)
            if let line {
                #expect(error.message.contains("line \(line)"), "\(error.message)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func arrays() {
        let v = Self.parse("(1, 2)")
        #expect(v == ["1", "2"], "the format has no numbers: elements are strings")
        #expect(v?[0]?.kind == .string)
        #expect(Self.parse("()") == [])
        #expect(Self.parse("( a , b , c )") == ["a", "b", "c"])
        #expect(Self.parse("(a, b,)") == ["a", "b"], "trailing comma")
        #expect(Self.parse("((a), (), (b, (c)))") == [["a"], [], ["b", ["c"]]])
    }

    @Test func dictionaries() {
        let v = Self.parse("{a = b; c = (x);}")
        let expected: PropertyList = ["a": "b", "c": ["x"]]
        #expect(v == expected)
        #expect(Self.parse("{}") == PropertyList.emptyDictionary)
        #expect(Self.parse("{ \"key with space\" = \"value\"; 'single' = quoted; }") == ["key with space": "value", "single": "quoted"])
        #expect(Self.parse("{a = 1; a = 2;}") == ["a": "2"], "the last duplicate wins")
        #expect(Self.parse("{ nested = { inner = <ff>; }; }") == ["nested": ["inner": PropertyList.data([0xFF])]])
    }

    @Test func data() {
        #expect(Self.parse("<0102>") == PropertyList.data([1, 2]))
        #expect(Self.parse("<>") == PropertyList.data([]))
        #expect(Self.parse("< 01 02\n aB Cd >") == PropertyList.data([1, 2, 0xAB, 0xCD]))
    }

    @Test func bareAndQuotedStrings() {
        #expect(Self.parse("hello") == "hello")
        #expect(Self.parse("path/to:file.ext-1_$") == "path/to:file.ext-1_$")
        #expect(Self.parse("\"\"") == "")
        #expect(Self.parse(#""say \"hi\" \\ back\nnew\ttab \U00e9 \u00E9""#) == "say \"hi\" \\ back\nnew\ttab \u{E9} \u{E9}")
        #expect(Self.parse(#""\101\102\060\012""#) == "AB0\n", "octal escapes")
        #expect(Self.parse(#""\r\a\b\f\v""#) == "\r\u{7}\u{8}\u{C}\u{B}")
        #expect(Self.parse(#""\Ud83d\ude00""#) == "\u{1F600}", "a surrogate pair makes one character")
        #expect(Self.parse(#""\Ud800x""#) == "\u{FFFD}x", "a lone surrogate becomes U+FFFD")
        #expect(Self.parse("\"caf\u{E9}\"") == "caf\u{E9}", "raw UTF-8 inside quotes")
        #expect(Self.parse("'single \"inner\"'") == "single \"inner\"")
    }

    @Test func comments() {
        #expect(Self.parse("// leading\n( a, /* inline */ b ) // trailing") == ["a", "b"])
        #expect(Self.parse("/* a */ { /* b */ k /* c */ = /* d */ v /* e */ ; /* f */ } /* g */") == ["k": "v"])
        #expect(Self.parse("( \"// not a comment\", \"/* nor this */\" )") == ["// not a comment", "/* nor this */"])
    }

    /// Xcode's InfoPlist.strings template holds only a comment: a .strings
    /// file with no entries, an empty dictionary (as CoreFoundation reads
    /// it), in UTF-8 and in UTF-16.
    @Test func commentOnlyStringsFilesAreEmptyDictionaries() throws {
        let text = "/* Localized versions of Info.plist keys */\n\n"
        #expect(Self.parse(text) == PropertyList.emptyDictionary)
        #expect(Self.parse("// one\n/* two */ // three") == PropertyList.emptyDictionary)
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try PropertyList.parse(utf16) == PropertyList.emptyDictionary)
        #expect(try PropertyList.parse(Array(text.utf8)) == PropertyList.emptyDictionary)
    }

    @Test func refusals() {
        Self.refused("<010>")  // odd number of hex digits
        Self.refused("<0g>")
        Self.refused("<0102")  // unterminated data
        Self.refused("\"abc")  // unterminated string
        Self.refused("\"abc\\")
        Self.refused("(a, b")  // unterminated array
        Self.refused("(a b)")
        Self.refused("{a = b;")  // unterminated dictionary
        Self.refused("{a = b}")  // missing ';'
        Self.refused("{a b;}")
        Self.refused("{a = ;}")
        Self.refused("/* never closed")
        Self.refused("( a ) b")  // text after the value
        Self.refused("")
        Self.refused("  \n ")
        Self.refused("\"\\U\"")  // \U without a hex digit
        Self.refused("(\na,\n\"open", line: 3)
        Self.refused("{\n\n\na = b\n}", line: 5)
    }

    @Test func parseDispatchesOnTheFirstBytes() {
        #expect(expectParses(utf8("(1, 2)")) == ["1", "2"])
        #expect(expectParses(utf8("  <0102>")) == PropertyList.data([1, 2]))
        #expect(expectParses(utf8("{ a = b; }"))?["a"]?.stringValue == "b")
        #expect(expectParses([0xEF, 0xBB, 0xBF] + utf8("(x)")) == ["x"])
        #expect(expectParses(utf8("<plist><string>x</string></plist>")) == "x")
    }

    @Test func printerFormat() {
        let value: PropertyList = [
            "b": ["x", "y z", ""],
            "a": 1,
            "c": true,
            "d": false,
            "e": 2.5,
            "f": PropertyList.date(1_706_820_194.5),
            "g": PropertyList.data([0x01, 0xAB, 0x00]),
            "h": "caf\u{E9}\n\"q\"\\\t",
            "path/to:it.x-y_$": "ok",
            "with space": ["inner": "v"],
            "big": PropertyList.integer(UInt64.max),
        ]
        let expected = """
            {
                a = 1;
                b =     (
                    x,
                    "y z",
                    ""
                );
                big = 18446744073709551615;
                c = 1;
                d = 0;
                e = 2.5;
                f = "2024-02-01 20:43:14 +0000";
                g = {length = 3, bytes = 0x01ab00};
                h = "caf\\U00e9\\n\\"q\\"\\\\\\t";
                "path/to:it.x-y_$" = ok;
                "with space" =     {
                    inner = v;
                };
            }
            """
        #expect(OldStylePlist.format(value) == expected)
    }

    @Test func printerScalars() {
        // macOS 10.15 and later print only letters and digits bare.
        #expect(OldStylePlist.format("bareZ9") == "bareZ9")
        for quoted in ["bare_$/:.-Z9", "en_US", "1.5", "~", "_Key", "com.apple.x", "-5"] {
            #expect(OldStylePlist.format(.string(quoted)) == "\"\(quoted)\"")
        }
        #expect(OldStylePlist.format("") == "\"\"")
        #expect(OldStylePlist.format("a+b") == "\"a+b\"")
        #expect(OldStylePlist.format("a//b") == "\"a//b\"")
        // Bare text starting with "//" would read back as a comment.
        #expect(OldStylePlist.format("//x") == "\"//x\"")
        #expect(OldStylePlist.format(["//k": "v"]) == "{\n    \"//k\" = v;\n}")
        #expect(OldStylePlist.format("\u{1F600}") == "\"\\Ud83d\\Ude00\"")
        #expect(OldStylePlist.format("\r\u{1}") == "\"\\U000d\\U0001\"")
        #expect(OldStylePlist.format(PropertyList.integer(Int64.min)) == "-9223372036854775808")
        #expect(OldStylePlist.format(PropertyList.real(-0.0)) == "-0")
        #expect(OldStylePlist.format(PropertyList.real(5)) == "5")
        #expect(OldStylePlist.format(PropertyList.data([])) == "{length = 0, bytes = 0x}")
        #expect(OldStylePlist.format(PropertyList.date(-0.5)) == "\"1969-12-31 23:59:59 +0000\"")
        #expect(OldStylePlist.format(PropertyList.date(-62_135_769_600)) == "\"0001-01-01 00:00:00 +0000\"")
        #expect(OldStylePlist.format(["k": [1, 2]]) == "{\n    k =     (\n        1,\n        2\n    );\n}")
        #expect(
            OldStylePlist.format(["AppleLanguages": ["en_US"], "d": ["k": [:]]])
                == "{\n    AppleLanguages =     (\n        \"en_US\"\n    );\n    d =     {\n        k =     {\n        };\n    };\n}")
        #expect(OldStylePlist.formatBare("raw string") == "raw string")
        #expect(OldStylePlist.formatBare(true) == "1")
    }

    /// Strings, arrays and dictionaries printed and read again come back
    /// unchanged. (Data prints as `{length = N, bytes = 0x...}`, which is a
    /// description, not old-style input, so it is left out.)
    @Test func printedTextReadsBack() {
        let values: [PropertyList] = [
            "plain", "", "with space", "quote \" backslash \\ newline \n tab \t cr \r", "caf\u{E9} e\u{301} \u{1F600} \u{FFFF}",
            "\u{1}\u{7F}\u{FFFD}", "//not-a-comment", "/*", "a//b", "/", "-", "1.5", "$x:y/z",
            ["//": "//x", "k": ["//y"]],
            [], PropertyList.emptyDictionary,
            ["k": ["a", ["b": "c"], []], "\u{E9}": "x", "e\u{301}": "y", "": "empty"],
        ]
        for v in values {
            let text = OldStylePlist.format(v)
            do {
                let back = try OldStylePlist.parse(text)
                #expect(back == v, "\(text)")
                #expect(strictDifference(v, back) == nil)
            } catch {
                Issue.record("\(text.debugDescription) refused: \(error.message)")
            }
        }
    }
}
