import Glibc

/// The one library thread that writes pending changes by themselves, at
/// most ``PreferencesStore/flushDelaySeconds`` after a store's first
/// unwritten change. It starts at the first such change and then lives as
/// long as the process (a child of `fork` starts it again when needed).
enum BackgroundWriter {
    nonisolated(unsafe) private static let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    nonisolated(unsafe) private static let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Stores with changes to write, and when (CLOCK_MONOTONIC seconds).
    nonisolated(unsafe) private static var due: [(store: UnsafeMutableRawPointer, at: Int)] = []
    nonisolated(unsafe) private static var running = false

    /// Makes the lock and condition (once, from ``LiveStores``).
    static func prepare() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    private static func now() -> Int {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return t.tv_sec
    }

    /// Asks for `store`'s pending changes to be written within the delay.
    /// Returns false when no thread could be started (the exit handler and
    /// synchronize still write them).
    static func schedule(_ store: PreferencesStore) -> Bool {
        let me = Unmanaged.passUnretained(store).toOpaque()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !due.contains(where: { $0.store == me }) {
            due.append((me, now() + PreferencesStore.flushDelaySeconds))
        }
        if !running { running = startThread() }
        pthread_cond_signal(condition)
        return running
    }

    /// Forgets a store that is going away.
    static func cancel(_ store: UnsafeMutableRawPointer) {
        pthread_mutex_lock(mutex)
        due.removeAll { $0.store == store }
        pthread_mutex_unlock(mutex)
    }

    private static func startThread() -> Bool {
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 512 * 1024)
        defer { pthread_attr_destroy(&attributes) }
        guard
            pthread_create(
                &thread, &attributes,
                { _ in
                    BackgroundWriter.run(); return nil
                }, nil) == 0
        else {
            return false
        }
        pthread_detach(thread)
        return true
    }

    private static func run() {
        pthread_mutex_lock(mutex)
        while true {
            guard let next = due.map(\.at).min() else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            if next > now() {
                var until = timespec(tv_sec: next, tv_nsec: 0)
                _ = pthread_cond_timedwait(condition, mutex, &until)
                continue
            }
            let t = now()
            let ready = due.filter { $0.at <= t }.map(\.store)
            due.removeAll { $0.at <= t }
            pthread_mutex_unlock(mutex)
            // A store that went away meanwhile is no longer live, and is skipped.
            LiveStores.withEach(ready) { try? $0.synchronizeAllUnretained() }
            pthread_mutex_lock(mutex)
        }
    }

    static func lockForFork() { pthread_mutex_lock(mutex) }

    /// After `fork`. The child has no writer thread: it starts one again
    /// when something is due.
    static func unlockAfterFork(inChild: Bool) {
        if inChild {
            prepare()
            running = false
            if !due.isEmpty { running = startThread() }
        } else {
            pthread_mutex_unlock(mutex)
        }
    }
}
