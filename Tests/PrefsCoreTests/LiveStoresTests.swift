import Foundation
import Testing

@testable import PrefsCore

// The list of live stores that the writer thread, the exit handler and
// fork go through: a store whose last reference a library thread drops.

@Suite("Live stores")
struct LiveStoresTests {
    /// The writer thread serves a store under the list's lock; when its own
    /// release is the store's last (the program dropped its reference
    /// meanwhile), the deinit runs on that thread, which must neither wait
    /// for the lock it holds nor lose the pending change.
    @Test func aStoreReleasedLastUnderTheListsLockGoesAway() {
        let r = runChildTest(named: "releasedUnderTheLockChild", role: "released-under-lock", environment: [:])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("releasedUnderTheLockChild() passed"), "the child test did not run:\n\(r.output)")
    }

    @Test(.enabled(if: isChildRole("released-under-lock")))
    func releasedUnderTheLockChild() throws {
        try inSandbox { box in
            var store: PreferencesStore? = PreferencesStore(locations: box.locations, arguments: ["test-program"])
            try store!.set([("pending", 1)], in: own())
            let held = Unmanaged.passRetained(store!)
            store = nil
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                LiveStores.withEach([held.toOpaque()]) { _ in held.release() }
                done.signal()
            }
            thread.start()
            guard done.wait(timeout: .now() + 60) == .success else {
                // Deadlocked: the list's lock is held for ever, so this
                // process can do nothing more.
                print("the release under the list's lock deadlocked")
                _exit(1)
            }
            let written = readPlist(box.expectedPath(storeApp))
            #expect(written?["pending"] == .integer(1))
            // The list is usable again: a new store comes and goes.
            let again = PreferencesStore(locations: box.locations, arguments: ["test-program"])
            #expect(try again.value(forKey: "pending", application: storeApp) == .integer(1))
        }
    }
}
