import Foundation
import Testing

@testable import PrefsCore

/// The library's threads against the lives of the stores that use them:
/// stores dropped around exit, stores with observers that go away. Each
/// runs in a child process, alone, so that no other test's threads or
/// stores count, and bounded by `alarm`, so that a hang fails instead of
/// stopping the suite.
@Suite struct LifecycleTests {
    static let app = "com.example.lifecycle"
    static let directoryVariable = "PREFS_LIFECYCLE_DIR"
    static let storeCount = 40

    /// Many stores with unwritten changes, half of them dropped by the
    /// program (their background write then holds the last use), and the
    /// process exits right as the background writes run: it ends, and
    /// every change is on disk.
    @Test(arguments: [0, 950_000, 1_000_000, 1_050_000])
    func exitWithManyStores(sleepMicroseconds: Int) throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let r = runChildTest(
            named: "manyStoresAtExitChild", role: "many-stores-at-exit",
            environment: [Self.directoryVariable: box.root, "PREFS_LIFECYCLE_SLEEP": String(sleepMicroseconds)])
        #expect(r.status == 0, "the child did not end by itself (status \(r.status)):\n\(r.output)")
        for i in 0..<Self.storeCount {
            let path = "\(box.root)/store\(i)/\(Self.app).plist"
            #expect(readPlist(path)?["k"] == .integer(Int64(i)), "store \(i)'s change is not on disk")
        }
    }

    @Test(.enabled(if: isChildRole("many-stores-at-exit")))
    func manyStoresAtExitChild() throws {
        alarm(30)
        let root = ProcessInfo.processInfo.environment[Self.directoryVariable]!
        let pause = UInt32(ProcessInfo.processInfo.environment["PREFS_LIFECYCLE_SLEEP"]!)!
        var kept: [PreferencesStore] = []
        for i in 0..<Self.storeCount {
            let dir = "\(root)/store\(i)"
            let store = PreferencesStore(
                locations: Locations(
                    userDirectory: dir, systemDirectory: root + "/system",
                    managedDirectory: root + "/managed",
                    hostID: testHostID, userName: testUserName),
                arguments: ["test-program"])
            try store.set([("k", .integer(Int64(i)))], in: DomainID(application: Self.app, user: .current, host: .any))
            if i % 2 == 0 { kept.append(store) }
        }
        usleep(pause)
        withExtendedLifetime(kept) { exit(0) }
    }

    /// Stores that had observers go away with their delivery threads: 10
    /// such stores leave no thread behind.
    @Test func droppedObservedStoresLeaveNoThreads() {
        let r = runChildTest(named: "droppedObservedStoresChild", role: "dropped-observed-stores", environment: [:])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("droppedObservedStoresChild() passed"), "the child test did not run:\n\(r.output)")
    }

    @Test(.enabled(if: isChildRole("dropped-observed-stores")))
    func droppedObservedStoresChild() throws {
        alarm(30)
        try inSandbox { box in
            func threads() -> Int { FileSystem.list("/proc/self/task").count }
            // The one background writer lives as long as the process: start it first.
            do {
                let warmup = PreferencesStore(locations: box.locations, arguments: ["test-program"])
                try warmup.set([("warm", 1)], in: DomainID(application: Self.app, user: .current, host: .any))
            }
            let before = threads()
            do {
                var stores: [PreferencesStore] = []
                for _ in 0..<10 {
                    let store = box.store()
                    let token = try store.addObserver(application: Self.app, key: nil) { _, _ in }
                    try store.set([("k", 1)], in: DomainID(application: Self.app, user: .current, host: .any))
                    store.removeObserver(token)
                    stores.append(store)
                }
                #expect(threads() >= before + 10, "each observed store runs a delivery thread")
                box.forgetStores()
            }
            // A thread that has left may linger in /proc for a moment.
            var after = threads()
            for _ in 0..<100 where after > before {
                usleep(10_000)
                after = threads()
            }
            #expect(after <= before, "\(before) threads before, \(after) after the stores went away")
        }
    }
}
