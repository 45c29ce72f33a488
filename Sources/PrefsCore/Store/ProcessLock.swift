import Glibc

/// A plain pthread mutex. The store uses it instead of Synchronization's
/// `Mutex`, whose Linux implementation remembers its owner's thread id: in a
/// child of `fork` that id names a thread that does not exist, and the first
/// contended lock fails. This one keeps working in the child.
final class ProcessLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock; for fork handlers, which hold it across `fork`.
    func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock taken by ``lock()``.
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
