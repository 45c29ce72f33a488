import Testing

@testable import PrefsCore

/// A read that needs a few keys of a domain another program wrote parses
/// the whole file but builds only those keys' values: what it returns for
/// them, and whether it accepts the file at all, must be exactly what the
/// whole read gives.
@Suite("Reading a few keys of an XML domain")
struct PartialReadTests {
    static func document(_ body: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>

            """.utf8)
    }

    /// Documents the whole read takes, with the number of entries their
    /// root dictionary lists.
    static let accepted: [(String, Int)] = [
        ("<dict/>", 0),
        ("<dict><key>a</key><string>x</string></dict>", 1),
        ("<dict><key>b</key><string>y</string><key>a</key><integer>7</integer></dict>", 2),
        // A later duplicate wins, wanted or not.
        ("<dict><key>a</key><integer>1</integer><key>b</key><true/><key>a</key><integer>2</integer><key>b</key><false/></dict>", 4),
        // Containers, skipped and wanted, and a UID inside each.
        (
            """
            <dict><key>n</key><dict><key>d</key><array><integer>1</integer><dict><key>CF$UID</key><integer>3</integer></dict></array>
            <key>e</key><dict/></dict>
            <key>a</key><array><string>p</string><dict><key>CF$UID</key><integer>4</integer></dict><array/><dict><key>k</key><real>1.5</real></dict></array>
            <key>z</key><array/></dict>
            """, 3
        ),
        // Every kind of scalar, in skipped values and in wanted ones.
        (
            """
            <dict><key>r</key><real>-2.5e3</real><key>d</key><date>2024-02-01T20:43:14Z</date>
            <key>b64</key><data>SGVsbG8=</data><key>t</key><true/><key>f</key><false/>
            <key>big</key><integer>18446744073709551615</integer><key>low</key><integer>-9223372036854775808</integer>
            <key>hex</key><integer> 0x1F </integer><key>plus</key><integer>+5</integer><key>zeros</key><integer>0007</integer>
            <key>s</key><string>caf&#233; &amp; &lt;b&gt;</string><key>e</key><string/><key>c</key><string><![CDATA[<x>]]></string>
            <key>a</key><data>AAEC</data><key>k</key><integer>-12</integer></dict>
            """, 15
        ),
        // A key that is not the plain text of its element.
        ("<dict><key>&#97;</key><integer>1</integer><key>b</key><integer>2</integer></dict>", 2),
        // An empty key.
        ("<dict><key></key><integer>1</integer><key>a</key><string>v</string></dict>", 2),
    ]

    static let wantedSets: [[String]] = [[], ["a"], ["b"], ["a", "b", "missing"], ["n", "k"], [""], ["CF$UID"]]

    @Test func theWantedEntriesAreTheWholeReadsOnes() throws {
        for (body, count) in Self.accepted {
            let bytes = Self.document(body)
            let whole = try #require(try PropertyList.parse(bytes).dictionaryValue, "\(body)")
            for wanted in Self.wantedSets {
                let part = try #require(PropertyList.parseEntries(bytes, only: wanted), "\(body) \(wanted)")
                #expect(part.count == count, "\(body)")
                let expected = whole.filter { wanted.contains($0.key.string) }
                #expect(part.values == expected, "\(body) \(wanted)")
            }
        }
    }

    /// Documents the whole read refuses because of something inside a
    /// value the partial read does not build: the partial read refuses
    /// them too (the caller then reads them whole, which says why).
    static let refused: [String] = [
        "<dict><key>x</key><integer>12a</integer><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><integer>99999999999999999999</integer><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><integer>-9223372036854775809</integer><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><integer>-</integer><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><integer></integer><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><real>1.2.3</real><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><date>2024-13-01T00:00:00Z</date><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><data>S=GV</data><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><true>yes</true><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><dict><key>y</key></dict><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><dict><string>y</string></dict><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><array><key>y</key></array><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><array>text</array><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><string><integer>1</integer></string><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><strong>1</strong><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><string>1</string><string>2</string><key>a</key><string>v</string></dict>",
        "<dict><key>a</key><string>v</string><key>x</key></dict>",
        "<dict><key>x</key><key>a</key><string>v</string></dict>",
        "<dict><key>x</key>" + String(repeating: "<array>", count: 300) + String(repeating: "</array>", count: 300)
            + "<key>a</key><string>v</string></dict>",
        "<dict><key>x</key><string>&ext;</string><key>a</key><string>v</string></dict>",
        "<dict><key>x</key><string>unclosed</str><key>a</key><string>v</string></dict>",
        // Not a dictionary: a UID, an array, a string.
        "<dict><key>CF$UID</key><integer>5</integer></dict>",
        "<array><string>a</string></array>",
        "<string>a</string>",
    ]

    @Test func whatTheWholeReadRefusesIsNotReadInPart() {
        for body in Self.refused {
            let bytes = Self.document(body)
            let whole = try? PropertyList.parse(bytes).dictionaryValue
            #expect(whole == nil, "\(body)")
            for wanted in Self.wantedSets {
                #expect(PropertyList.parseEntries(bytes, only: wanted) == nil, "\(body) \(wanted)")
            }
        }
    }

    /// What only the whole read's other routes take (binary, UTF-16, raw
    /// control characters, old-style text) is left to it.
    @Test func otherFormatsAreLeftToTheWholeRead() throws {
        let value: PropertyList = ["a": "v", "b": 2]
        var utf16: [UInt8] = [0xFF, 0xFE]
        for u in String(decoding: try value.xmlData(), as: UTF8.self).utf16 { utf16 += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        let inputs: [[UInt8]] = [
            try BinaryWriter.write(value),
            utf16,
            Self.document("<dict><key>a</key><string>\u{1B}[0m</string></dict>"),
            Array("{ a = v; b = 2; }".utf8),
        ]
        for bytes in inputs {
            #expect(try PropertyList.parse(bytes).dictionaryValue != nil)
            #expect(PropertyList.parseEntries(bytes, only: ["a"]) == nil)
        }
    }

    static let foreign = document(
        "<dict><key>a</key><string>x</string><key>b</key><array><integer>1</integer></array><key>c</key><integer>3</integer></dict>")
    static let foreignValues: PropertyListDictionary = ["a": "x", "b": [1], "c": 3]

    /// The store reads one key of a file another program wrote without
    /// building the others; a read of all of them builds the rest from the
    /// same bytes.
    @Test func theStoreBuildsTheRestWhenAskedForIt() throws {
        try inSandbox { (box) throws in
            let path = box.expectedPath(storeApp)
            writeBytes(Self.foreign, to: path)
            let store = box.store()
            #expect(try store.problem(in: own(), keys: ["b"]) == nil)
            #expect(store.domainForTesting(path)?.isPartlyBuilt == true)
            #expect(try store.values(in: own(), keys: ["b"]) == ["b": [1]])
            #expect(try store.values(in: own(), keys: ["zz"]) == [:])
            #expect(store.domainForTesting(path)?.isPartlyBuilt == false)
            #expect(try store.values(in: own()) == Self.foreignValues)
            // Another key, asked of a second store, is built on its own.
            let other = box.store()
            #expect(try other.problem(in: own(), keys: ["c"]) == nil)
            #expect(try other.value(forKey: "a", application: storeApp) == "x")
            #expect(try other.values(in: own()) == Self.foreignValues)
        }
    }

    /// A write after a partial read keeps every key of the file, and still
    /// sees a file another program replaced in between.
    @Test func aWriteAfterAPartialReadKeepsEveryKey() throws {
        try inSandbox { (box) throws in
            let path = box.expectedPath(storeApp)
            writeBytes(Self.foreign, to: path)
            let store = box.store()
            #expect(try store.problem(in: own(), keys: ["a"]) == nil)
            try store.set([("new", "n")], in: own())
            _ = try store.synchronize(own())
            var expected = Self.foreignValues
            expected["new"] = "n"
            #expect(try PropertyList.parse(readBytes(path)!).dictionaryValue == expected)

            // Replaced between the read and the write, at the same size.
            writeBytes(Self.foreign, to: path)
            let reader = box.store()
            #expect(try reader.problem(in: own(), keys: ["a"]) == nil)
            let changed = Self.document(
                "<dict><key>a</key><string>y</string><key>b</key><array><integer>2</integer></array><key>c</key><integer>4</integer></dict>")
            #expect(changed.count == Self.foreign.count)
            writeBytes(changed, to: path)
            try reader.set([("mine", 1)], in: own())
            _ = try reader.synchronize(own())
            #expect(try PropertyList.parse(readBytes(path)!).dictionaryValue == ["a": "y", "b": [2], "c": 4, "mine": 1])
        }
    }

    /// A file that does not parse is reported as the whole read reports it.
    @Test func aFileThatDoesNotParseIsReportedAsBefore() throws {
        try inSandbox { (box) throws in
            let path = box.expectedPath(storeApp)
            writeBytes(Self.document(Self.refused[0]), to: path)
            let whole = try #require(try box.store().problem(in: own()))
            let store = box.store()
            let part = try #require(try store.problem(in: own(), keys: ["a"]))
            #expect(part.code == whole.code)
            #expect(part.message == whole.message)
            #expect(try store.values(in: own(), keys: ["a"]) == [:])
            #expect(store.domainForTesting(path)?.isPartlyBuilt == false)
        }
    }
}
