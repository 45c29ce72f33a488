import CSystemShims

/// A mutex between the threads of one process that keeps working in a
/// child of `fork`: a lock word (`lock.h`) that records no owner. The
/// library uses it instead of Synchronization's `Mutex`, whose Linux
/// implementation remembers its owner's thread id: in a child of `fork`
/// that id names a thread that does not exist, and the first contended
/// lock fails. A free lock is taken and released with one atomic
/// instruction each, where a pthread mutex spent some 60 instructions on
/// its kinds; every read and set of the store takes one. (Not a lock
/// between processes: those are ``FileSystem/withDirectoryLock(_:_:)``'s.)
package final class ForkSafeMutex: @unchecked Sendable {
    /// The lock word, at an address of its own (atomics need one that
    /// does not move).
    private let word: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    package init() {}

    deinit { word.deallocate() }

    /// Takes the lock; for fork handlers, which hold it across `fork`.
    package func lock() { prefs_lock(word) }

    /// Releases the lock taken by ``lock()``.
    package func unlock() { prefs_unlock(word) }

    /// Runs `body` while holding the lock.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        prefs_lock(word)
        defer { prefs_unlock(word) }
        return try body()
    }
}
