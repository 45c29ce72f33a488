import Foundation
import Testing

@testable import PrefsCore

// Files that do not parse: kept, reported, moved aside by the next write.

@Suite("Files that do not parse")
struct CorruptFileTests {
    /// What a domain file holds that makes it unusable: XML that does not
    /// parse, or a property list that is not a dictionary.
    static let badFiles: [(String, [UInt8])] = [
        ("malformed XML", Array("<?xml version=\"1.0\"?><plist><dict><key>lost</key><string>x</dict>".utf8)),
        ("an array", try! PropertyList.array(["a", "b"]).xmlData()),
    ]

    /// A file that is not a usable domain is never overwritten: reads see
    /// the domain empty and report the problem, and a write moves the file
    /// aside, byte-identical, before writing a new one.
    @Test(arguments: badFiles.indices)
    func corruptFileIsKeptAndMovedAside(_ which: Int) throws {
        let (label, garbage) = Self.badFiles[which]
        try inSandbox { box in
            let path = box.expectedPath(storeApp)
            writeBytes(garbage, to: path)
            let store = box.store()
            let prefs = try Preferences(applicationID: storeApp, store: store)
            // Reads see the domain empty, and the problem is reported.
            #expect(prefs.object(forKey: "lost") == nil)
            #expect(try store.values(in: own()).isEmpty)
            let problems = prefs.problems()
            #expect(problems.count == 1, "\(label)")
            #expect(problems.first?.code == .corruptFile)
            #expect(problems.first?.message.contains(path) == true, "\(problems)")
            #expect(try store.problem(in: own())?.code == .corruptFile)
            // Synchronizing with nothing pending leaves the file alone.
            try store.synchronize(application: storeApp)
            #expect(readBytes(path) == garbage)
            #expect(box.allFiles() == ["config/\(storeApp).plist"])

            // A write moves it aside, byte-identical, and starts a new file.
            try prefs.trySet("new", forKey: "fresh")
            let note = try store.synchronize(application: storeApp)
            #expect(note?.code == .corruptFile)
            let aside = box.allFiles().filter { $0.hasPrefix("config/\(storeApp).plist.corrupt-") }
            #expect(aside.count == 1, "\(label): \(box.allFiles())")
            if let a = aside.first {
                #expect(readBytes(box.root + "/" + a) == garbage)
                #expect(note?.message.contains(a.dropFirst("config/".count)) == true, "\(note?.message ?? "")")
            }
            #expect(readPlist(path) == plistDict(["fresh": "new"]))
            #expect(prefs.problems().isEmpty)
            #expect(box.allFiles().count == 2)
        }
    }

    /// A file that another process breaks after this one read it is not
    /// overwritten either: the next write moves it aside.
    @Test func fileCorruptedLaterIsMovedAside() throws {
        try inSandbox { box in
            let path = box.expectedPath(storeApp)
            let store = box.store()
            try store.set([("a", 1)], in: own())
            try store.synchronize(application: storeApp)
            let garbage = Array("{ unterminated = ".utf8)
            writeBytes(garbage, to: path)
            try store.set([("b", 2)], in: own())
            #expect(try store.synchronize(application: storeApp)?.code == .corruptFile)
            let aside = box.allFiles().filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
            if let a = aside.first { #expect(readBytes(box.root + "/" + a) == garbage) }
            #expect(readPlist(path)?["b"] == .integer(2))
        }
    }
}
