import PrefsCore
import Testing

/// A UTF-8 document is parsed by libxml2 in one call, after a scan of its
/// bytes that refuses a start tag with too many attributes (libxml2 checks
/// them pairwise before any handler runs); other encodings are pushed in
/// chunks and counted in libxml2's own buffer. Numbers and data have fast
/// paths that must agree with the general ones.
@Suite("XML reader: whole-document parse")
struct XMLScanTests {
    static func attributes(_ n: Int) -> String { (0..<n).map { " a\($0)=\"x\"" }.joined() }

    /// Markup that holds quotes, `=` or `>` (comments, CDATA sections,
    /// processing instructions, a DOCTYPE's literals, attribute values)
    /// does not hide a crowded tag after it from the scan.
    @Test func crowdedTagsAreRefusedWhereverMarkupHidesThem() {
        let nine = Self.attributes(9)
        for doc in [
            "<plist><true\(nine)/></plist>",
            "<!-- <a b=\" --><plist><true\(nine)/></plist>",
            "<plist><array><string><![CDATA[ <x y=\" ]]></string><true\(nine)/></array></plist>",
            "<?pi a=\"?><plist><true\(nine)/></plist>",
            "<!DOCTYPE plist PUBLIC \"a>b\" 'c\"d'><plist><true\(nine)/></plist>",
            "<plist><true a=\"=>=>\" b='>\"='\(Self.attributes(7))/></plist>",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><true\(nine)/></plist>",
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><true\(nine)/></plist>",
            "\u{FEFF}<plist><true\(nine)/></plist>",
        ] {
            let e = expectRefused(doc, .malformed)
            #expect(e?.message.contains("more than 8 attributes") == true, "\(doc.prefix(50)): \(e?.message ?? "")")
        }
        // The line of the crowded tag is named.
        expectRefused("<plist>\n<array>\n<true\(nine)/></array></plist>", .malformed, line: 3)
        // UTF-16 goes the other way, to the same refusal.
        var utf16: [UInt8] = [0xFF, 0xFE]
        for u in "<plist><true\(nine)/></plist>".utf16 { utf16 += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        #expect(expectRefused(utf16, .malformed)?.message.contains("more than 8 attributes") == true)
    }

    /// The scan reads 64 bytes at a time: attributes spread over several
    /// blocks, after blocks with `=` in text and blocks with none, with the
    /// tag starting at each offset within a block, are still counted.
    @Test func crowdedTagsAcrossBlocksAreRefused() {
        let long = String(repeating: "v", count: 70)
        let spread = (0..<9).map { " a\($0)='\(long)'" }.joined()
        for pad in 0..<64 {
            let before = String(repeating: " ", count: pad)
            for doc in [
                "<plist><array>\(before)<true\(spread)/></array></plist>",
                "<plist><array><data>QQ==</data>\(before)<true\(Self.attributes(9))/></array></plist>",
                "<plist><array><string>a=b=c=d=e=f=g</string>\(before)<true a='\(long)'\(Self.attributes(8))/></array></plist>",
            ] {
                let e = expectRefused(doc, .malformed)
                #expect(e?.message.contains("more than 8 attributes") == true, "\(pad): \(e?.message ?? "")")
            }
            // Eight `=` before a `<` and more after it: no tag is crowded.
            let split = "<plist><array><string>a=b=c=d=e=f=g=h=i</string>\(before)<true\(Self.attributes(8))/></array></plist>"
            #expect(expectParses(split)?.arrayValue?.count == 2, "\(pad)")
        }
    }

    /// `=` that is not an attribute's does not count: eight attributes
    /// whose values hold `=` and `>`, text, comments.
    @Test func equalsSignsOutsideAttributesAreNotCounted() {
        #expect(expectParses("<plist><true a=\"=>=>\" b='>\"='\(Self.attributes(6))/></plist>")?.booleanValue == true)
        let text = "a=b=c=d=e=f=g=h=i=j=k"
        #expect(expectParses("<plist><string>\(text)</string></plist>")?.stringValue == text)
        #expect(expectParses("<plist><!-- \(text) --><true/></plist>")?.booleanValue == true)
        #expect(expectParses("<plist><data>QQ==</data></plist>")?.dataValue == [0x41])
    }

    /// Reals short enough for the exact conversion read as the general
    /// conversion reads them, sign and negative zero included.
    @Test func shortRealsMatchTheGeneralConversion() throws {
        for text in [
            "17.5", "-0.0", "0.0", ".5", "150.", "+3.25", "0.1", "123456789012345", "99999999999999.9", "0.000000000000001",
            "1234567890123456", "1e3", "2.5e-3", "-7", "3.14159265358979",
        ] {
            let v = expectParses("<plist><real>\(text)</real></plist>")?.realValue
            let expected = try #require(Double(text.hasPrefix("+") ? String(text.dropFirst()) : text))
            #expect(v?.bitPattern == expected.bitPattern, "\(text): \(String(describing: v))")
        }
    }

    /// Data read four symbols at a time agrees with the symbol-by-symbol
    /// reading: line breaks and spaces anywhere, padding, refusals.
    @Test func base64AcrossBreaksAndPadding() throws {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let encoded = try PropertyList(.array([PropertyList(.data(bytes))])).xmlData()
        #expect(expectParses(encoded)?.arrayValue?.first?.dataValue == bytes)
        #expect(expectParses("<plist><data>AAEC\n\tAwQF BgcI\r\nCQ==</data></plist>")?.dataValue == Array(0...9))
        #expect(expectParses("<plist><data>QUJD</data></plist>")?.dataValue == Array("ABC".utf8))
        #expect(expectParses("<plist><data>QUI=</data></plist>")?.dataValue == Array("AB".utf8))
        #expect(expectParses("<plist><data>Q UJ\tD</data></plist>")?.dataValue == Array("ABC".utf8))
        for bad in ["QQ==QQ==", "QU=J", "QUJ", "QUJD!AAA", "QUJDQ"] { expectRefused("<plist><data>\(bad)</data></plist>") }
    }
}
