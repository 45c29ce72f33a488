import Foundation
import Testing

@testable import PrefsCore

// What one store writes, another sees: merges key by key, reads after
// another's synchronize, timed writes, and stores that go away.

@Suite("Persistence between stores")
struct PersistenceTests {
    /// Two stores writing different keys of one domain both keep them.
    @Test func mergesKeyByKey() throws {
        try inSandbox { box in
            let a = box.store(), b = box.store()
            try a.set([("fromA", 1), ("shared", "a")], in: own())
            try b.set([("fromB", 2)], in: own())
            try a.synchronize(application: storeApp)
            try b.synchronize(application: storeApp)
            #expect(readPlist(box.expectedPath(storeApp)) == plistDict(["fromA": 1, "fromB": 2, "shared": "a"]))
            try a.synchronize(application: storeApp)
            #expect(try a.values(in: own()) == plistDict(["fromA": 1, "fromB": 2, "shared": "a"]))
            // A removal by one is applied as a removal, not undone by the other.
            try b.set([("shared", nil)], in: own())
            try b.synchronize(application: storeApp)
            try a.set([("fromA", 3)], in: own())
            try a.synchronize(application: storeApp)
            #expect(readPlist(box.expectedPath(storeApp)) == plistDict(["fromA": 3, "fromB": 2]))
        }
    }

    /// After one store's synchronize returns, another store's next read
    /// returns the new values without that store synchronizing.
    @Test func anotherStoresWriteIsSeenByTheNextRead() throws {
        try inSandbox { box in
            let writer = box.store(), reader = box.store()
            #expect(try reader.value(forKey: "k", application: storeApp) == nil)
            try writer.set([("k", "v1")], in: own())
            #expect(try reader.value(forKey: "k", application: storeApp) == nil)  // not yet on disk
            try writer.synchronize(application: storeApp)
            #expect(try reader.value(forKey: "k", application: storeApp) == .string("v1"))
            try writer.set([("k", "v2")], in: DomainID(application: globalDomainName, user: .any, host: .any))
            try writer.set([("k", nil)], in: own())
            try writer.synchronizeAll()
            #expect(try reader.value(forKey: "k", application: storeApp) == .string("v2"))
            #expect(try reader.dictionary(application: storeApp)["k"] == .string("v2"))
        }
    }

    /// Stores that go away stop their file watchers: the threads and
    /// descriptors of 20 watching stores are gone once the stores are.
    /// Runs in a child process, alone, so no other test's threads count.
    @Test func droppedStoresLeaveNoThreadsOrDescriptors() {
        let r = runChildTest(named: "droppedStoresChild", role: "dropped-stores", environment: [:])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("droppedStoresChild() passed"), "the child test did not run:\n\(r.output)")
    }

    @Test(.enabled(if: isChildRole("dropped-stores")))
    func droppedStoresChild() throws {
        try inSandbox { box in
            func count(_ dir: String) -> Int { FileSystem.list(dir).count }
            // Only the kinds of descriptor a store opens (its watcher's inotify
            // instance and wake pipe): the test runner opens files of its own.
            func watcherDescriptors() -> Int {
                FileSystem.list("/proc/self/fd").filter { fd in
                    var target = [CChar](repeating: 0, count: 256)
                    let n = readlink("/proc/self/fd/" + fd, &target, 255)
                    guard n > 0 else { return false }
                    let name = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    return name.hasPrefix("pipe:") || name.hasPrefix("anon_inode:inotify")
                }.count
            }
            let threads = count("/proc/self/task"), descriptors = watcherDescriptors()
            var stores: [PreferencesStore] = []
            for _ in 0..<20 {
                let store = PreferencesStore(locations: box.locations, arguments: ["test-program"])
                _ = try store.value(forKey: "k", application: storeApp)
                stores.append(store)
            }
            // Past the watchers' delay: each has its inotify instance now.
            usleep(UInt32(DirectoryWatcher.delaySeconds) * 1_000_000 + 300_000)
            let peakThreads = count("/proc/self/task"), peakDescriptors = watcherDescriptors()
            #expect(peakThreads >= threads + 20, "\(threads) threads, then \(peakThreads)")
            #expect(peakDescriptors >= descriptors + 60, "\(descriptors) descriptors, then \(peakDescriptors)")
            stores.removeAll()
            let afterThreads = count("/proc/self/task"), afterDescriptors = watcherDescriptors()
            #expect(afterThreads <= peakThreads - 20, "\(peakThreads) threads, then \(afterThreads)")
            #expect(afterDescriptors <= descriptors, "\(descriptors) descriptors, then \(afterDescriptors)")
        }
    }

    /// A change is written by itself within the documented delay.
    @Test func pendingChangesAreWrittenByThemselves() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let store = box.store()
        try store.set([("timed", 1)], in: own())
        #expect(!fileExists(box.expectedPath(storeApp)))
        let deadline = Date().addingTimeInterval(Double(PreferencesStore.flushDelaySeconds) + 1.5)
        while Date() < deadline, readPlist(box.expectedPath(storeApp))?["timed"] == nil {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(readPlist(box.expectedPath(storeApp))?["timed"] == .integer(1))
        #expect(permissions(box.expectedPath(storeApp)) == 0o600)
    }

    /// A write that takes in another process's changes (made since this
    /// process last read the file) must not leave the merged view without
    /// them: no stamp moves afterwards to say the file changed.
    @Test(arguments: ["application", "domain", "all"])
    func aWriteThatTakesInOthersChangesRefreshesTheView(_ how: String) throws {
        try inSandbox { box in
            let a = box.store(), b = box.store()
            try a.set([("seed", 1)], in: own())
            try a.synchronize(application: storeApp)
            _ = try b.dictionary(application: storeApp)
            try b.set([("mine", 2)], in: own())
            try a.set([("theirs", 3)], in: own())
            try a.synchronize(application: storeApp)
            switch how {
            case "application": try b.synchronize(application: storeApp)
            case "domain": try b.synchronize(own())
            default: try b.synchronizeAll()
            }
            #expect(try b.value(forKey: "theirs", application: storeApp) == .integer(3))
            #expect(try b.dictionary(application: storeApp)["theirs"] == .integer(3))
            #expect(try b.value(forKey: "mine", application: storeApp) == .integer(2))
        }
    }
}
