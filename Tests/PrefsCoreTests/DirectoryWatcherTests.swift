import Foundation
import Synchronization
import Testing

@testable import PrefsCore

// The directory watcher's thread: when it calls back, and when it stops.

@Suite("Directory watcher")
struct DirectoryWatcherTests {
    /// A stop called from within `changed` (a store's deinit, when the
    /// call held the store's last reference) ends the calls at once, even
    /// with a wake byte and an event queued ahead of the stop: the store
    /// is gone when that call returns.
    @Test func aStopFromWithinAChangeEndsTheCalls() throws {
        final class Shared: Sendable {
            let calls = Mutex(0)
            let watcher = Mutex<DirectoryWatcher?>(nil)
        }
        try inSandbox { box in
            let dir = box.config
            let shared = Shared()
            let started = DirectoryWatcher.start(
                [dir], immediately: true,
                {
                    let n = shared.calls.withLock { c -> Int in
                        c += 1
                        return c
                    }
                    guard n == 1, let w = shared.watcher.withLock({ $0 }) else { return }
                    w.watchNow()  // a wake byte ahead of the stop
                    writeBytes(Array("x".utf8), to: dir + "/second.plist")
                    usleep(100_000)  // its event is ready before the stop
                    w.stop()
                }, poll: {})
            let watcher = try #require(started)
            shared.watcher.withLock { $0 = watcher }
            writeBytes(Array("x".utf8), to: dir + "/first.plist")
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline && shared.calls.withLock({ $0 }) == 0 { usleep(10_000) }
            usleep(500_000)
            #expect(shared.calls.withLock { $0 } == 1, "changed ran after the stop")
            shared.watcher.withLock { $0 = nil }
        }
    }
}
