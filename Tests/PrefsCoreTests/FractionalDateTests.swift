import Testing

@testable import PrefsCore

/// A date with a fraction of a second in a domain: XML holds whole seconds,
/// so the domain's file becomes binary rather than lose the fraction, and a
/// reader through the file and a reader through its index agree.
@Suite("Fractional dates in domains")
struct FractionalDateTests {
    typealias S = SplicedCommitTests

    @Test func aNewDomainWithAFractionalDateIsBinary() throws {
        try inSandbox { box in
            let model: PropertyListDictionary = ["when": .date(1_706_820_194.25), "plain": "text"]
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: S.id)
            try store.synchronize(application: S.app)
            try S.check(box, model, binary: true, readers: [store], "new domain")
        }
    }

    /// The spliced write of an XML domain meets a fractional date: it is
    /// written whole, and binary.
    @Test func aFractionalDateMakesAnXMLDomainBinary() throws {
        try inSandbox { box in
            var model: PropertyListDictionary = ["plain": "text", "whole": .date(1_000)]
            let store = box.store()
            try store.set(model.map { ($0.key.string, $0.value) }, in: S.id)
            try store.synchronize(application: S.app)
            try S.check(box, model, binary: false, readers: [store], "XML")
            try store.set([("when", .date(-0.5))], in: S.id)
            model["when"] = .date(-0.5)
            try store.synchronize(application: S.app)
            #expect(store.domainForTesting(box.expectedPath(S.app))?.lastWriteSpliced == false)
            try S.check(box, model, binary: true, readers: [store], "made binary")
            // And so does a date inside a container, in the binary file's
            // spliced write (the values a full write holds, not its bytes).
            let other = box.store()
            try other.set([("nested", ["at": PropertyList.date(3.75)])], in: S.id)
            model["nested"] = ["at": PropertyList.date(3.75)]
            try other.synchronize(application: S.app)
            let (bytes, parsed) = try S.file(box)
            #expect(bytes.starts(with: BinaryReader.magic))
            #expect(parsed == model)
            for reader in [store, other, box.store()] { #expect(try reader.values(in: S.id) == model) }
        }
    }
}
