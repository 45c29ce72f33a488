import Foundation
import Testing

@testable import PrefsCore

// Where domain files go, with which modes, and what a write keeps of an existing
// file: its mode, a symlink to it.

@Suite("Files and modes")
struct FileModeTests {
    /// Each domain is written where the contract says, with mode 0600, and
    /// the directories the library creates get 0700.
    @Test func filesAndModes() throws {
        try inSandbox(configSubpath: "home/.config", createConfig: false) { box in
            let store = box.store()
            let ids = [
                DomainID(application: storeApp, user: .current, host: .any),
                DomainID(application: storeApp, user: .current, host: .current),
                DomainID(application: storeApp, user: .any, host: .any),
                DomainID(application: storeApp, user: .any, host: .current),
                DomainID(application: globalDomainName, user: .current, host: .any),
                DomainID(application: globalDomainName, user: .any, host: .current),
            ]
            for (i, id) in ids.enumerated() {
                try store.set([("n", .integer(i))], in: id)
            }
            try store.synchronizeAll()
            for (i, id) in ids.enumerated() {
                let path = box.expectedPath(id.application, user: id.user, host: id.host)
                #expect(store.locations.path(of: id) == path)
                #expect(readPlist(path)?["n"] == .integer(i), "\(id) not at \(path); files: \(box.allFiles())")
                // The user's files are the user's; any-user files are for every user.
                let mode: mode_t = id.user == .current ? 0o600 : 0o644
                #expect(permissions(path) == mode, "\(path) has mode \(String(permissions(path) ?? 0, radix: 8))")
            }
            for dir in [box.root + "/home", box.config, box.config + "/ByHost"] {
                #expect(permissions(dir) == 0o700, "\(dir) has mode \(String(permissions(dir) ?? 0, radix: 8))")
            }
            #expect(permissions(box.system + "/ByHost") == 0o755)
            // Nothing but the domain files: no temporary files are left behind.
            #expect(
                box.allFiles() == [
                    "home/.config/.GlobalPreferences.plist",
                    "home/.config/ByHost/\(storeApp).\(testHostID).plist",
                    "home/.config/\(storeApp).plist",
                    "system/ByHost/.GlobalPreferences.\(testHostID).plist",
                    "system/ByHost/\(storeApp).\(testHostID).plist",
                    "system/\(storeApp).plist",
                ])
            #expect(store.applications(user: .current, host: .any) == [storeApp])
            #expect(store.applications(user: .current, host: .current) == [storeApp])
        }
    }

    /// A file that already exists keeps its mode when it is rewritten.
    @Test func existingModeIsKept() throws {
        try inSandbox { box in
            let path = box.expectedPath(storeApp)
            writePlist(["old": "x"], to: path)
            chmod(path, 0o640)
            let store = box.store()
            try store.set([("new", "y")], in: own())
            try store.synchronize(application: storeApp)
            #expect(permissions(path) == 0o640)
            #expect(readPlist(path) == plistDict(["old": "x", "new": "y"]))
        }
    }

    /// A symlinked domain file stays a link: the file it points at is the
    /// one replaced.
    @Test func symlinkIsKept() throws {
        try inSandbox { box in
            let dotfiles = box.root + "/dotfiles"
            mkdirs(dotfiles)
            let target = dotfiles + "/\(storeApp).plist"
            writePlist(["old": "x"], to: target)
            let path = box.expectedPath(storeApp)
            #expect(symlink("../dotfiles/\(storeApp).plist", path) == 0)
            let store = box.store()
            #expect(try store.value(forKey: "old", application: storeApp)?.stringValue == "x")
            try store.set([("new", "y")], in: own())
            try store.synchronize(application: storeApp)
            #expect(isSymlink(path), "the link was replaced by a file")
            #expect(readPlist(target) == plistDict(["old": "x", "new": "y"]))
            #expect(box.allFiles().filter { $0.contains(".tmp") }.isEmpty)
        }
    }
}
