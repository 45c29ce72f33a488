import Testing

@testable import PrefsCore

/// A domain file keeps the format it has on disk: binary is written back
/// binary (as cfprefsd does), XML as XML; a value only the binary format
/// carries makes the file binary; a new domain is XML.
@Suite("Domain file formats")
struct DomainFormatTests {
    let app = "com.example.format"
    var id: DomainID { DomainID(application: app, user: .current, host: .any) }

    private func isBinary(_ path: String) -> Bool {
        (readFile(path) ?? []).starts(with: Array("bplist00".utf8))
    }

    @Test func binaryStaysBinaryAndKeepsEveryBitOfUntouchedValues() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            let original: PropertyList = [
                "when": PropertyList.date(1_614_287_793.123456789), "old": PropertyList.date(-62_135_769_600.5),
                "escape": "\u{1B}[0m", "ratio": PropertyList.real(Double(Float(0.1))), "uid": PropertyList.uid(3),
                "bytes": PropertyList.data([0, 1, 2]), "big": PropertyList.integer(UInt64.max),
            ]
            #expect(writeFile(path, try original.binaryData()))
            for round in 1...3 {
                let store = box.store()
                try store.set([("k\(round)", .integer(round))], in: id)
                #expect(try store.synchronize(id) == nil)
                #expect(isBinary(path))
                let back = try PropertyList.parse(try #require(readFile(path)))
                for (k, v) in original.dictionaryValue! {
                    #expect(strictDifference(try #require(back[k.string]), v) == nil, "\(k)")
                }
                #expect(back["k\(round)"] == .integer(round))
            }
        }
    }

    @Test func xmlStaysXMLAndNewDomainsAreXML() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            let store = box.store()
            try store.set([("a", 1)], in: id)
            _ = try store.synchronize(id)
            #expect(readFile(path)?.starts(with: Array("<?xml".utf8)) == true)
            try store.set([("b", "two")], in: id)
            _ = try store.synchronize(id)
            #expect(readFile(path)?.starts(with: Array("<?xml".utf8)) == true)
        }
    }

    /// A string XML 1.0 cannot carry used to be refused at set; now it is
    /// kept, and the domain's file becomes binary. Nothing pending is lost.
    @Test func aValueOnlyBinaryCarriesMakesTheFileBinary() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            let store = box.store()
            try store.set([("plain", "x")], in: id)
            _ = try store.synchronize(id)
            #expect(!isBinary(path))
            try store.set([("bell\u{7}", "ring\u{7}\u{1B}")], in: id)
            #expect(try store.synchronize(id) == nil)
            #expect(isBinary(path))
            let fresh = box.store()
            #expect(try fresh.value(forKey: "bell\u{7}", application: app) == .string("ring\u{7}\u{1B}"))
            #expect(try fresh.value(forKey: "plain", application: app) == .string("x"))
            // Once binary, it stays binary after the value goes.
            try fresh.set([("bell\u{7}", nil)], in: id)
            _ = try fresh.synchronize(id)
            #expect(isBinary(path))
        }
    }

    /// Keyed archives stored as values come back as they were, through the
    /// index of a new process as well.
    @Test func uidsSurviveADomain() throws {
        try inSandbox { box in
            let archive: PropertyList = ["$top": ["root": PropertyList.uid(1)], "$objects": ["$null", PropertyList.uid(UInt32.max)]]
            let store = box.store()
            try store.set([("archive", archive)], in: id)
            _ = try store.synchronize(id)
            for _ in 0..<2 {
                #expect(try box.store().value(forKey: "archive", application: app) == archive)
            }
            let xml = String(decoding: readFile(box.expectedPath(app)) ?? [], as: UTF8.self)
            #expect(xml.contains("<key>CF$UID</key>"))
        }
    }
}
