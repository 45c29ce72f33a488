import PrefsCore
import Testing

/// PREFS_MAX_NESTING = 256: containers below <plist>.
@Suite("Nesting limit")
struct NestingTests {
    static func arrays(_ count: Int, inner: String = "", wrapped: Bool = true) -> [UInt8] {
        let body = String(repeating: "<array>", count: count) + inner + String(repeating: "</array>", count: count)
        return utf8(wrapped ? plistDocument(body) : body)
    }

    /// How many containers are nested along the first path, and what is at the bottom.
    static func levels(_ v: PropertyList) -> (Int, PropertyList) {
        var n = 0
        var current = v
        while true {
            if let a = current.arrayValue {
                n += 1
                guard let first = a.first else { return (n, current) }
                current = first
            } else if let d = current.dictionaryValue {
                n += 1
                guard let first = d.values.first else { return (n, current) }
                current = first
            } else {
                return (n, current)
            }
        }
    }

    @Test func twoHundredFiftySixEmptyInnermostParses() {
        for wrapped in [true, false] {
            let v = expectParses(Self.arrays(256, wrapped: wrapped))
            if let v {
                #expect(Self.levels(v).0 == 256)
                #expect(v.depth == 255)
            }
        }
    }

    @Test func twoHundredFiftySevenRefused() {
        expectRefused(Self.arrays(257), .tooDeep)
        expectRefused(Self.arrays(257, wrapped: false), .tooDeep)
        expectRefused(Self.arrays(300), .tooDeep)
        expectRefused(Self.arrays(600, wrapped: false), .tooDeep)
        expectRefused(Self.arrays(257, inner: "<integer>1</integer>"), .tooDeep)
    }

    @Test func twoHundredFiftyFiveHoldingAScalarParse() {
        for wrapped in [true, false] {
            let v = expectParses(Self.arrays(255, inner: "<integer>7</integer>", wrapped: wrapped))
            if let v {
                let (n, bottom) = Self.levels(v)
                #expect(n == 255)
                #expect(bottom.integerValue == 7)
            }
        }
        let s = expectParses(Self.arrays(255, inner: "<string>deep</string>"))
        #expect(s.map { Self.levels($0).1.stringValue } == "deep")
    }

    /// Every array, dictionary, key and value counts as a level, so 256
    /// containers cannot hold a value, with or without the <plist> wrapper.
    /// Whichever of the two limits meets a document first, libxml2's or
    /// the reader's, the error says the same.
    @Test func tooDeepSaysSoInOneWay() {
        for document in [Self.arrays(300), Self.arrays(300, wrapped: false), Self.arrays(257)] {
            do {
                _ = try PropertyList.parse(document)
                Issue.record("a document too deep parsed")
            } catch {
                #expect(error.code == .tooDeep)
                #expect(error.message.hasPrefix("nesting deeper than 256 levels"), "\(error.message)")
            }
        }
    }

    @Test func twoHundredFiftySixHoldingAValueRefused() {
        expectRefused(Self.arrays(256, inner: "<integer>1</integer>"), .tooDeep)
        expectRefused(Self.arrays(256, inner: "<integer>1</integer>", wrapped: false), .tooDeep)
        expectRefused(Self.arrays(256, inner: "<dict/>", wrapped: false), .tooDeep)
        let keyInside = String(repeating: "<array>", count: 255) + "<dict><key>k</key><true/></dict>" + String(repeating: "</array>", count: 255)
        expectRefused(utf8(plistDocument(keyInside)), .tooDeep)
        expectRefused(utf8(keyInside), .tooDeep)
        // One level less is fine.
        let shallower = String(repeating: "<array>", count: 254) + "<dict><key>k</key><true/></dict>" + String(repeating: "</array>", count: 254)
        #expect(expectParses(utf8(plistDocument(shallower))).map { Self.levels($0).0 } == 255)
    }

    @Test func dictionariesAndMixedContainers() {
        func dicts(_ n: Int) -> [UInt8] {
            utf8(plistDocument(String(repeating: "<dict><key>k</key>", count: n - 1) + "<dict/>" + String(repeating: "</dict>", count: n - 1)))
        }
        let v = expectParses(dicts(256))
        #expect(v.map { Self.levels($0).0 } == 256)
        expectRefused(dicts(257), .tooDeep)

        func mixed(_ n: Int) -> [UInt8] {
            var open = "", close = ""
            for i in 0..<(n - 1) {
                if i % 2 == 0 { open += "<array>"; close = "</array>" + close } else { open += "<dict><key>x</key>"; close = "</dict>" + close }
            }
            return utf8(plistDocument(open + "<array/>" + close))
        }
        #expect(expectParses(mixed(256)).map { Self.levels($0).0 } == 256)
        expectRefused(mixed(257), .tooDeep)
    }

    @Test func oldStyleNestingLimit() {
        func text(_ n: Int) -> String { String(repeating: "(", count: n) + String(repeating: ")", count: n) }
        #expect((try? OldStylePlist.parse(text(256))).map { Self.levels($0).0 } == 256)
        #expect(throws: PrefsError.self) { try OldStylePlist.parse(text(257)) }
        do {
            _ = try OldStylePlist.parse(text(257))
        } catch {
            #expect(error.code == .tooDeep)
        }
    }

    @Test func writerStaysWithinTheLimit() {
        // 256 containers, innermost empty: depth 255; written and read back.
        var v = PropertyList.array([])
        for _ in 0..<255 { v = .array([v]) }
        #expect(v.depth == 255)
        if let xml = try? v.xmlData() {
            let back = expectParses(xml)
            #expect(back == v)
        } else {
            Issue.record("256 nested containers not written")
        }
        // 256 containers holding a scalar cannot be read back; refused.
        var deep = PropertyList.integer(1)
        for _ in 0..<256 { deep = .array([deep]) }
        #expect(xmlRefusal(deep)?.code == .tooDeep)
    }
}
