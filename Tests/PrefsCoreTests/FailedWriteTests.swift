import Foundation
import Testing

@testable import PrefsCore

// A write that fails keeps the old file and the pending changes.

@Suite("Failed writes")
struct FailedWriteTests {
    /// A directory the process may not write to: synchronize fails with an
    /// error, the old file stays as it was, the change stays pending and is
    /// written once the directory is writable again. Root ignores directory
    /// permissions, so as root this uses a path component that is a file
    /// instead (the C test test_persistence.c covers PREFS_TEST_FAIL).
    @Test func failedWriteKeepsOldFileAndPendingChanges() throws {
        try inSandbox { box in
            let store = box.store()
            let id: DomainID
            let path: String
            let breakIt: () -> Void
            let repair: () -> Void
            if runningAsRoot {
                id = DomainID(application: storeApp, user: .current, host: .current)
                path = box.expectedPath(storeApp, host: .current)
                breakIt = { writeBytes(Array("not a directory".utf8), to: box.config + "/ByHost") }
                repair = { unlink(box.config + "/ByHost") }
            } else {
                id = own()
                path = box.expectedPath(storeApp)
                breakIt = { chmod(box.config, 0o500) }
                repair = { chmod(box.config, 0o700) }
            }
            if !runningAsRoot {
                try store.set([("old", "x")], in: id)
                try store.synchronize(id)
            }
            let before = readBytes(path)
            breakIt()
            try store.set([("new", "y")], in: id)
            expectPrefsError(.io) { try store.synchronize(id) }
            #expect(throws: PrefsError.self) { try store.synchronize(application: storeApp) }
            #expect(throws: PrefsError.self) { try store.synchronizeAll() }
            #expect(readBytes(path) == before)
            #expect(try store.values(in: id)["new"] == .string("y"), "the change was lost")
            repair()
            try store.synchronize(application: storeApp)
            #expect(readPlist(path)?["new"] == .string("y"))
            if !runningAsRoot { #expect(readPlist(path)?["old"] == .string("x")) }
        }
    }
}
