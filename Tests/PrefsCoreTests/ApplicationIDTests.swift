import Foundation
import Testing

@testable import PrefsCore

// Application IDs: the ones refused, the longest, the global domain's names.

private let suite1 = "com.example.suite1"

@Suite("Application IDs")
struct ApplicationIDTests {
    static let refusedIDs: [String] = ["", String(repeating: "a", count: 256), "a/b", "/abs", ".", "..", "a\u{0}b"]

    /// Every entry point refuses a bad application ID with
    /// `.invalidApplicationID`, and nothing is read or written on disk.
    @Test(arguments: refusedIDs)
    func refusedApplicationID(id: String) throws {
        try inSandbox { box in
            let store = box.store()
            let before = box.allFiles()
            func refused(_ what: String, _ body: () throws -> Void) {
                expectPrefsError(.invalidApplicationID, "\(what), ID \(id.debugDescription)", body)
            }
            refused("value") { _ = try store.value(forKey: "k", application: id) }
            refused("dictionary") { _ = try store.dictionary(application: id) }
            refused("isForced") { _ = try store.isForced("k", application: id) }
            refused("set") { try store.set([("k", "v")], in: own(id)) }
            refused("set any user") { try store.set([("k", "v")], in: DomainID(application: id, user: .any, host: .current)) }
            refused("values") { _ = try store.values(in: own(id)) }
            refused("synchronize storeApp") { try store.synchronize(application: id) }
            refused("synchronize domain") { try store.synchronize(own(id)) }
            refused("register") { try store.register(plistDict(["k": "v"]), application: id) }
            refused("addSuite as storeApp") { try store.addSuite(suite1, to: id) }
            refused("addSuite as suite") { try store.addSuite(id, to: storeApp) }
            refused("Preferences") { _ = try Preferences(applicationID: id, store: store) }
            try store.synchronizeAll()
            #expect(box.allFiles() == before, "files appeared: \(box.allFiles())")
            #expect(box.allFiles().isEmpty)
        }
    }

    /// The limits are exact: 249 bytes is the longest application ID, so
    /// that its file name, "<id>.plist", fits in the 255 bytes Linux allows
    /// in a name; 250 is refused. A current-host file takes the host id too.
    @Test func longestApplicationID() throws {
        try inSandbox { box in
            let store = box.store()
            let writable = String(repeating: "c", count: 249)
            try store.set([("k", "v")], in: own(writable))
            #expect(try store.value(forKey: "k", application: writable)?.stringValue == "v")
            try store.synchronize(application: writable)
            #expect(readPlist(box.expectedPath(writable)) == plistDict(["k": "v"]))
            expectPrefsError(.invalidApplicationID) { try store.set([("k", "v")], in: own(String(repeating: "b", count: 250))) }
            // "<id>.testhost.plist": 255 - 7 - 8 = 240 bytes at most.
            try store.set([("k", "v")], in: DomainID(application: String(repeating: "d", count: 240), user: .current, host: .current))
            expectPrefsError(.invalidApplicationID) {
                try store.set([("k", "v")], in: DomainID(application: String(repeating: "d", count: 241), user: .current, host: .current))
            }
            #expect(ApplicationID.problem(String(repeating: "é", count: 124)) == nil)  // 248 bytes
            #expect(ApplicationID.problem(String(repeating: "é", count: 125)) != nil)  // 250 bytes
            #expect(ApplicationID.problem("...") == nil)
            #expect(ApplicationID.problem(".hidden") == nil)
        }
    }

    /// NSGlobalDomain names the global domain, stored as .GlobalPreferences.
    @Test func globalDomainNames() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("g", 1)], in: own(globalDomainName))
            try store.synchronizeAll()
            #expect(readPlist(box.config + "/.GlobalPreferences.plist")?["g"] == .integer(1))
            #expect(try store.value(forKey: "g", application: storeApp) == .integer(1))
            #expect(try store.value(forKey: "g", application: globalDomainName) == .integer(1))
            #expect(!store.applications(user: .current, host: .any).contains(".GlobalPreferences"))
        }
    }
}
