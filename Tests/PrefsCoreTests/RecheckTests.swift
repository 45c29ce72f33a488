import Foundation
import Testing

@testable import PrefsCore

/// A store with many domains loaded re-reads, after a change, the files
/// that changed, not every file it has loaded.
@Suite("Re-checking loaded domains")
struct RecheckTests {
    static let count = 300

    @Test("after another store's write, and after its own, a read looks at the changed files only")
    func changedFilesOnly() throws {
        try inSandbox { box in
            for i in 0..<Self.count {
                let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>k</key><integer>\(i)</integer></dict></plist>\n"
                try xml.write(toFile: "\(box.config)/com.example.n\(i).plist", atomically: false, encoding: .utf8)
            }
            let reader = box.store()
            for i in 0..<Self.count { _ = try reader.value(forKey: "k", application: "com.example.n\(i)") }
            // Watching begins at once with an observer; what changed before
            // it began is unknown, so the first re-check looks at every file.
            let token = try reader.addObserver(application: "com.example.n0", key: nil) { _, _ in }
            defer { reader.removeObserver(token) }
            let writer = box.store()
            let id = DomainID(application: "com.example.n7", user: .current, host: .any)
            for round in 0..<3 {
                try writer.set([("k", .integer(Int128(1000 + round)))], in: id)
                _ = try writer.synchronize(id)
                #expect(try reader.value(forKey: "k", application: "com.example.n7") == .integer(Int128(1000 + round)))
            }
            let looked = reader.filesLookedAtByLastRecheck
            #expect(looked < 10, "looked at \(looked) files after another store's write")
            // The reader's own write: its next read looks at nothing for it.
            let own = DomainID(application: "com.example.n8", user: .current, host: .any)
            try reader.set([("k", .integer(-1))], in: own)
            _ = try reader.synchronize(own)
            #expect(try reader.value(forKey: "k", application: "com.example.n9") == .integer(9))
            #expect(reader.filesLookedAtByLastRecheck < 10)
        }
    }
}
