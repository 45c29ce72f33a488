import Glibc

/// A mutex between the threads of one process that keeps working in a
/// child of `fork`: a plain pthread mutex. The library uses it instead of
/// Synchronization's `Mutex`, whose Linux implementation remembers its
/// owner's thread id: in a child of `fork` that id names a thread that does
/// not exist, and the first contended lock fails. (Not a lock between
/// processes: those are ``FileSystem/withDirectoryLock(_:_:)``'s.)
package final class ForkSafeMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock; for fork handlers, which hold it across `fork`.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock taken by ``lock()``.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` while holding the lock.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
