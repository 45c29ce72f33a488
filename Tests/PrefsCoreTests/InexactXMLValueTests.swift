import Testing

@testable import PrefsCore

/// A real whose XML text reads back as another bit pattern (a NaN with its
/// sign or a payload, written `nan`) makes a domain's file binary, so that
/// a reader through the file and a reader through its index get the same
/// bits.
@Suite("Values XML cannot carry bit for bit")
struct InexactXMLValueTests {
    typealias S = SplicedCommitTests

    static func bits(_ v: PropertyList?) -> UInt64? {
        v?.realValue?.bitPattern
    }

    @Test(arguments: [
        ("negative nan", PropertyList.real(-Double.nan)), ("nan payload", PropertyList.real(Double(nan: 5, signaling: false))),
    ])
    func keepsItsBits(what: String, value: PropertyList) throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("plain", "text")], in: S.id)
            try store.synchronize(application: S.app)
            try store.set([("odd", value)], in: S.id)
            try store.synchronize(application: S.app)
            let (bytes, parsed) = try S.file(box)
            #expect(bytes.withUnsafeBytes { BinaryReader.looksBinary($0) }, "\(what): the file's format")
            #expect(Self.bits(parsed["odd"]) == Self.bits(value), "\(what): a fresh parse")
            let index = try #require(S.currentIndex(box))
            guard case .value(let found) = index.value(forKey: "odd") else {
                Issue.record("\(what): not in the index")
                return
            }
            #expect(Self.bits(found) == Self.bits(value), "\(what): the index")
        }
    }

}
