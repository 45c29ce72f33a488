import Glibc
import PrefsCore
import Synchronization
import Testing

/// Input built to crash, hang or leak: each must be refused quickly.
@Suite("Hostile input")
struct HostileInputTests {
    /// `open` repeated `count` times, then `close` repeated `count` times.
    static func nested(_ open: String, _ close: String, count: Int, inner: String = "") -> [UInt8] {
        let o = utf8(open), c = utf8(close)
        var out = [UInt8]()
        out.reserveCapacity(count * (o.count + c.count) + inner.utf8.count)
        for _ in 0..<count { out += o }
        out += utf8(inner)
        for _ in 0..<count { out += c }
        return out
    }

    @Test func millionLevelArrayNesting() {
        let bare = Self.nested("<array>", "</array>", count: 1_000_000)
        let wrapped = utf8("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">") + bare + utf8("</plist>")
        let dicts = utf8("<plist>") + Self.nested("<dict><key>k</key>", "</dict>", count: 1_000_000) + utf8("</plist>")
        let unclosed = [UInt8](Self.nested("<array>", "", count: 1_000_000))
        for (name, input) in [("bare arrays", bare), ("arrays in <plist>", wrapped), ("dicts", dicts), ("unclosed arrays", unclosed)] {
            let time = secondsTaken { expectRefused(input, .tooDeep) }
            #expect(time < 10, "\(name): refusal took \(time) s")
        }
    }

    @Test func millionLevelOldStyleNesting() {
        for (open, close) in [("(", ")"), ("{a=", ";}")] {
            let input = Self.nested(open, close, count: 1_000_000, inner: "x")
            let time = secondsTaken {
                switch parseResult(input) {
                case .success: Issue.record("1,000,000 levels of \(open) accepted")
                case .failure(let e): #expect(e.code == .tooDeep, "\(e.message)")
                }
            }
            #expect(time < 10, "refusal took \(time) s")
        }
    }

    @Test func billionLaughs() {
        var doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            doc += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        doc += "]>\n<plist><string>&lol9;</string></plist>\n"
        let time = secondsTaken {
            let e = expectRefused(doc, .forbiddenMarkup)
            #expect((e?.message.count ?? 0) < 1000)
        }
        #expect(time < 5)
        // The same without the reference: the declarations alone are refused.
        expectRefused(doc.replacing("&lol9;", with: "x"), .forbiddenMarkup)
    }

    @Test func parameterEntities() {
        expectRefused(
            """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
            <!ENTITY % outer "<!ENTITY inner 'boom'>">
            %outer;
            ]>
            <plist><string>&inner;</string></plist>
            """, .forbiddenMarkup)
        expectRefused("<!DOCTYPE plist [ %undeclared; ]><plist><true/></plist>", .forbiddenMarkup)
    }

    /// A SYSTEM entity naming a real local file: refused, and the file's
    /// content shows up nowhere.
    @Test func externalEntityNamingALocalFile() throws {
        let dir = try #require(makeTemporaryDirectory())
        defer { _ = unlink("\(dir)/secret.txt"); _ = unlink("\(dir)/dtd.dtd"); _ = rmdir(dir) }
        let marker = "PREFS-SECRET-\(UInt64.random(in: 1 ... .max))"
        #expect(writeFile("\(dir)/secret.txt", utf8(marker)))
        #expect(writeFile("\(dir)/dtd.dtd", utf8("<!ENTITY e \"\(marker)\">")))

        let documents = [
            "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file://\(dir)/secret.txt\">]><plist><string>&xxe;</string></plist>",
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(dir)/secret.txt\">]><plist><string>&xxe;</string></plist>",
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(dir)/secret.txt\">]><plist><dict><key>&xxe;</key><true/></dict></plist>",
            "<!DOCTYPE plist [<!ENTITY % xxe SYSTEM \"\(dir)/dtd.dtd\"> %xxe;]><plist><string>&e;</string></plist>",
            "<!DOCTYPE plist PUBLIC \"x\" \"\(dir)/dtd.dtd\"><plist><string>&e;</string></plist>",
            "<!DOCTYPE plist SYSTEM \"file://\(dir)/dtd.dtd\"><plist><string>&e;</string></plist>",
        ]
        for doc in documents {
            let e = expectRefused(doc, .forbiddenMarkup)
            #expect(e?.message.contains(marker) == false, "the file's content leaked into the error")
        }
        // An external DTD that is never used for anything: whatever the
        // outcome, the file is not read into the value.
        let unused = "<!DOCTYPE plist SYSTEM \"\(dir)/secret.txt\"><plist><string>x</string></plist>"
        switch parseResult(utf8(unused)) {
        case .success(let v): #expect(!bytesContain(allText(v), utf8(marker)))
        case .failure(let e): #expect(!e.message.contains(marker))
        }
    }

    /// The same with FIFOs: opening one for reading blocks until a writer
    /// comes, so finishing at all proves it was never opened.
    @Test func externalReferencesToAFIFOAreNeverOpened() throws {
        let dir = try #require(makeTemporaryDirectory())
        let fifo = "\(dir)/fifo"
        defer { _ = unlink(fifo); _ = rmdir(dir) }
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo failed")

        let documents = [
            ("general entity", "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(fifo)\">]><plist><string>&xxe;</string></plist>", true),
            ("file: URL", "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file://\(fifo)\">]><plist><string>&xxe;</string></plist>", true),
            ("parameter entity", "<!DOCTYPE plist [<!ENTITY % p SYSTEM \"\(fifo)\"> %p;]><plist><true/></plist>", true),
            ("external DTD", "<!DOCTYPE plist SYSTEM \"\(fifo)\"><plist><true/></plist>", false),
            ("external DTD, PUBLIC", "<!DOCTYPE plist PUBLIC \"-//x//EN\" \"\(fifo)\"><plist><string>&e;</string></plist>", true),
        ]
        for (name, doc, mustRefuse) in documents {
            let outcome = Mutex<Result<PropertyList, PrefsError>?>(nil)
            let finished = finishes(
                within: 10,
                unblock: {
                    // Let a blocked open() through and hand it an immediate EOF.
                    let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                    if fd >= 0 { close(fd) }
                }
            ) {
                let r = parseResult(utf8(doc))
                outcome.withLock { $0 = r }
            }
            #expect(finished, "\(name): parsing blocked: the FIFO was opened")
            let result = outcome.withLock { $0 }
            if mustRefuse {
                if case .failure(let e)? = result {
                    #expect(e.code == .forbiddenMarkup, "\(name): \(e.message)")
                } else if finished {
                    Issue.record("\(name): accepted")
                }
            }
            // Nobody holds the FIFO open for reading now.
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            #expect(fd < 0 && errno == ENXIO, "\(name): a reader has the FIFO open")
            if fd >= 0 { close(fd) }
        }
    }

    /// One text node may hold 10,000,000 bytes; one more is refused.
    @Test func textNodeSizeLimit() {
        let limit = 10_000_000
        let fits = utf8("<plist><string>") + [UInt8](repeating: UInt8(ascii: "a"), count: limit) + utf8("</string></plist>")
        #expect(expectParses(fits)?.stringValue?.utf8.count == limit)
        let tooBig = utf8("<plist><string>") + [UInt8](repeating: UInt8(ascii: "a"), count: limit + 1) + utf8("</string></plist>")
        expectRefused(tooBig, .malformed)
        // Pieces that only add up past the limit count too.
        let pieces =
            utf8("<plist><string>") + [UInt8](repeating: UInt8(ascii: "b"), count: limit / 2) + utf8("<!-- x -->")
            + [UInt8](repeating: UInt8(ascii: "b"), count: limit / 2 + 1) + utf8("</string></plist>")
        expectRefused(pieces, .malformed)
        let bigKey = utf8("<plist><dict><key>") + [UInt8](repeating: UInt8(ascii: "k"), count: limit + 1) + utf8("</key><true/></dict></plist>")
        expectRefused(bigKey, .malformed)
    }

    @Test func invalidUTF8() {
        let sequences: [[UInt8]] = [
            [0x80],  // lone continuation byte
            [0xC0, 0x80],  // overlong NUL
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0xAF],  // overlong '/'
            [0xED, 0xA0, 0x80],  // UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0xFE], [0xFF],
            [0xE2, 0x82],  // truncated sequence
            [0xC3, 0x28],
        ]
        for bad in sequences {
            expectRefused(utf8("<plist><string>a") + bad + utf8("b</string></plist>"), .malformed)
            expectRefused(
                utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><dict><key>") + bad
                    + utf8("</key><true/></dict></plist>"), .malformed)
            expectRefused(utf8("<plist><str") + bad + utf8("ing>x</string></plist>"), .malformed)
        }
    }

    /// A document of moderate size exercising every element.
    static let sampleDocument: [UInt8] = {
        let value: PropertyList = [
            "name": "Sample & <doc>",
            "numbers": [0, -1, PropertyList.integer(UInt64.max), 2.5, PropertyList.real(-0.0)],
            "flags": ["on": true, "off": false],
            "when": PropertyList.date(1_706_820_194),
            "blob": PropertyList.data((0..<200).map { UInt8($0 % 256) }),
            "text": PropertyList.string(String(repeating: "line\n", count: 20)),
            "empty": [PropertyList.emptyDictionary, []],
        ]
        return try! value.xmlData()
    }()

    /// Every prefix of a valid document parses or is refused; none crashes,
    /// and none that stops before `</plist>` is accepted.
    @Test func everyPrefixOfADocument() {
        let doc = Self.sampleDocument
        let full = try! PropertyList.parse(doc)
        let end = utf8("</plist>")
        var endOfRoot = 0
        for i in 0...(doc.count - end.count) where doc[i..<(i + end.count)].elementsEqual(end) { endOfRoot = i + end.count }
        #expect(doc.count > 1000)
        var accepted = 0
        for length in 0..<doc.count {
            switch parseResult(Array(doc[0..<length])) {
            case .success(let v):
                accepted += 1
                #expect(length >= endOfRoot, "prefix of \(length) bytes accepted")
                #expect(v == full)
            case .failure(let e):
                #expect(length < endOfRoot, "prefix of \(length) bytes refused: \(e.message)")
                #expect(e.code == .malformed || e.code == .forbiddenMarkup || e.code == .tooDeep, "\(e.message)")
            }
        }
        #expect(accepted == doc.count - endOfRoot)
    }

    @Test func seededRandomBytes() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        let alphabet = utf8("<>/?!=\"' \n\t&;#x0123456789abcdefplistdcoarynegktuf-[]CDATA{}(),\\%")
        var outcomes = [0, 0]
        for round in 0..<4000 {
            let length = Int.random(in: 0...160, using: &rng)
            var input = [UInt8]()
            input.reserveCapacity(length + 8)
            if round % 4 == 1 { input += utf8("<plist>") }
            if round % 4 == 2 { input += utf8("{") }
            for _ in 0..<length {
                input.append(
                    round % 2 == 0
                        ? UInt8.random(in: 0...255, using: &rng)
                        : alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
            }
            switch parseResult(input) {
            case .success(let v):
                outcomes[0] += 1
                // Whatever is accepted is a proper value: written, it reads back the same.
                #expect(survivesWriteThenRead(v) != false, "round \(round): accepted value does not survive write then read")
            case .failure(let e):
                outcomes[1] += 1
                #expect(!e.message.isEmpty)
            }
        }
        #expect(outcomes[1] > 3000, "random bytes are nearly always refused")
    }

    @Test func seededMutationsOfAValidDocument() {
        var rng = SplitMix64(seed: 0x5EED_0002)
        let doc = Self.sampleDocument
        for _ in 0..<2000 {
            var input = doc
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<input.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: input[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: input.remove(at: at)
                default: input.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                }
            }
            // Must return one way or the other; what is accepted is a proper value.
            if case .success(let v) = parseResult(input) {
                #expect(survivesWriteThenRead(v) != false)
            }
        }
    }
}

/// Limits on what a document may cost: memory kept after a refusal, time
/// spent on one element's attributes.
@Suite("Hostile input: resources")
struct HostileResourceTests {
    /// The resident size of this process in bytes.
    static func residentBytes() -> Int {
        let fields = String(decoding: readFile("/proc/self/statm") ?? [], as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// A refused document that declares entities leaves nothing behind:
    /// libxml2 builds a document for the declarations that the parser
    /// context does not free. Measured in a process of its own, so that no
    /// other test's memory counts.
    @Test func refusedEntityDeclarationsLeakNothing() {
        let r = runChildTest(named: "entityDeclarationRefusals", role: "entity-leak", environment: [:])
        #expect(r.status == 0, "\(r.output)")
    }

    @Test(.enabled(if: isChildRole("entity-leak")))
    func entityDeclarationRefusals() {
        let doc = utf8("<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"b\"><!ENTITY c \"d\">]><plist><true/></plist>")
        for _ in 0..<200 { expectRefused(doc, .forbiddenMarkup) }
        let before = Self.residentBytes()
        for _ in 0..<4_000 { _ = parseResult(doc) }
        let grown = Self.residentBytes() - before
        // About 12 KB per refusal when the document leaks: 48 MB here.
        // Under AddressSanitizer, LeakSanitizer judges at exit instead.
        #expect(runningUnderAddressSanitizer || grown < 8_000_000, "resident size grew by \(grown) bytes over 4,000 refusals")
    }

    /// Bytes that look like UCS-4, an encoding libxml2 reports it cannot
    /// read as soon as it sees the first four bytes: refused, not a crash
    /// (found by fuzzing the reader).
    @Test func unreadableEncodingIsRefused() {
        for input: [UInt8] in [[0, 0, 0x3C, 0, 0, 0, 0, 0, 0x72], [0, 0, 0, 0x3C], [0x3C, 0, 0, 0], [0, 0x3C, 0, 0]] {
            if case .success = parseResult(input) { Issue.record("\(input) accepted") }
        }
    }

    /// One element carrying N distinct attributes cost N^2 / 2 comparisons
    /// inside libxml2 (seconds for 200,000, many minutes for 1,000,000); it
    /// is refused before that. The time bound only tells a refusal from
    /// that quadratic work, on any machine.
    @Test func manyAttributesAreRefusedQuickly() {
        for count in [9, 20_000, 1_000_000] {
            var doc = utf8("<plist version=\"1.0\"><string")
            for i in 0..<count { doc += utf8(" a\(i)=\"\"") }
            doc += utf8(">x</string></plist>")
            let time = secondsTaken { expectRefused(doc, .malformed) }
            #expect(time < 30, "\(count) attributes: refusal took \(time) s")
        }
        // Defaults declared for an element's attributes are refused at the
        // first declaration, before libxml2 adds them to a start tag.
        var declared = utf8("<?xml version=\"1.0\"?><!DOCTYPE plist [<!ATTLIST plist")
        for i in 0..<400_000 { declared += utf8(" a\(i) CDATA \"x\"") }
        declared += utf8(">]><plist version=\"1.0\"><true/></plist>")
        #expect(secondsTaken { expectRefused(declared, .forbiddenMarkup) } < 30)
        expectRefused(
            utf8("<?xml version=\"1.0\"?><!DOCTYPE plist [<!ATTLIST plist v (a|b) \"a\">]><plist><true/></plist>"), .forbiddenMarkup)
        // An internal subset is refused before libxml2 reads its
        // declarations: the names of one content model went into libxml2's
        // name table first (a 4 MB model took 8 to 11 s).
        var model = "<!DOCTYPE plist [<!ELEMENT plist (n0"
        for i in 1..<400_000 { model += "|n\(i)" }
        model += ")*>]><plist><true/></plist>"
        #expect(secondsTaken { expectRefused(model, .forbiddenMarkup) } < 30)
        expectRefused("<!DOCTYPE plist []><plist><true/></plist>", .forbiddenMarkup)
        // The DOCTYPE line Apple writes is not a subset.
        #expect(
            expectParses(
                "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">"
                    + "<plist version=\"1.0\"><true/></plist>")?.booleanValue == true)
        // Distinct attribute names and processing-instruction targets each
        // cost more than the last in libxml2's name table: a document may
        // use 4,096, however they are spread over its elements.
        func names(_ count: Int, _ element: (Int) -> String) -> String {
            "<plist><array>" + (0..<count).map(element).joined() + "</array></plist>"
        }
        let attributes = names(4_097) { "<true a\($0)=\"\"/>" }
        #expect(expectRefused(attributes, .malformed)?.message.contains("distinct") == true)
        expectRefused(names(4_097) { "<?t\($0) x?><true/>" }, .malformed)
        expectRefused(names(2_049) { "<true xmlns:p\($0)=\"u\($0)\"/>" }, .malformed)
        #expect(expectParses(names(4_000) { "<true a\($0)=\"\"/>" })?.arrayValue?.count == 4_000)
        #expect(expectParses(names(20_000) { _ in "<true a=\"1\" b=\"2\"/><?t x?>" })?.arrayValue?.count == 20_000)
        // Namespace declarations count as attributes.
        var ns = utf8("<plist")
        for i in 0..<500_000 { ns += utf8(" xmlns:p\(i)=\"u\"") }
        ns += utf8("><true/></plist>")
        #expect(secondsTaken { expectRefused(ns, .malformed) } < 30)
        // Values holding `=` and `>` are not attributes; eight are allowed.
        var eight = "<plist version=\"1.0\""
        for i in 0..<7 { eight += " a\(i)=\"x=y>z\"" }
        #expect(expectParses(eight + "><true/></plist>")?.booleanValue == true)
        // A long tag split across chunks is counted the same way.
        let long = "<plist version=\"" + String(repeating: "v", count: 200_000) + "\"><true/></plist>"
        #expect(expectParses(long)?.booleanValue == true)
    }
}
