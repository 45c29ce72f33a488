import Glibc
import Synchronization

extension PreferencesStore {
    // MARK: Observers

    /// A registered observer; pass it to ``removeObserver(_:)``.
    package struct ObserverToken: Sendable, Hashable {
        let id: Int
    }

    /// Calls `callback` after a value that `app`'s search list returns for
    /// `key` (any key when `nil`) changes: by this process (after the set)
    /// or by another (after its synchronize reaches the disk, or a file is
    /// edited). Callbacks run on a library thread, outside every lock, and
    /// may call back into the store.
    ///
    /// The user's directory and its `ByHost` are made when missing, so that
    /// they can be watched, unless `makingDirectories` is false (a program
    /// that only reads, such as `prefs watch`): then a directory made later
    /// is watched from the first synchronize that finds it.
    package func addObserver(
        application app: String, key: String?, makingDirectories: Bool = true,
        _ callback: @escaping @Sendable (_ application: String, _ key: String) -> Void
    ) throws(PrefsError) -> ObserverToken {
        let app = try Self.canonicalApplication(app)
        // Current-host files of this user can then be watched too (a file
        // named by path has no ByHost directory).
        let byHost = locations.userDirectory + "/ByHost"
        if makingDirectories && locations.createsFilesBesideDomains { try? FileSystem.makeDirectories(byHost, mode: 0o700) }
        withLocked { s in
            if let watcher {
                watcher.add(byHost)
                watcher.watchNow()
            } else {
                startWatcher(immediately: true, s.linkedDirectories)
            }
            _ = fullView(app, &s)
        }
        let id = observers.add(.init(application: app, key: key, callback: callback))
        return ObserverToken(id: id)
    }

    /// Removes an observer. When this returns, its callback is not running
    /// and will never be called again (unless called from within that very
    /// callback).
    package func removeObserver(_ token: ObserverToken) {
        observers.remove(token.id)
    }

    /// Why changes by other programs or by hand may go unnoticed by this
    /// store's reads and observers until the next synchronize (the kernel
    /// would not give an inotify instance); nil while they are watched.
    /// Changes by libprefs writers are still seen.
    package var observationProblem: PrefsError? {
        guard let e = withLocked({ _ in watcher?.failure }) else { return nil }
        return PrefsError(
            .io,
            "cannot watch the preference directories (inotify: \(Errno(e).text)): changes by other programs and edits by hand are seen at the next synchronize; changes by libprefs writers within \(DirectoryWatcher.pollMilliseconds) ms"
        )
    }
}

/// Observers of preference changes and the library thread that calls them.
///
/// Notifications are queued by the store (after a set in this process, or
/// after another process's write is noticed) and delivered one at a time on
/// a thread of the library's, never while a library lock is held, so a
/// callback may call back into the library. ``remove(_:)`` returns only
/// once the observer's callback is not running and will not run again
/// (unless called from within that callback, where waiting would deadlock).
final class ObserverRegistry: @unchecked Sendable {
    typealias Callback = @Sendable (_ application: String, _ key: String) -> Void

    struct Observer {
        let application: String
        let key: String?
        let callback: Callback
    }

    private struct State {
        var observers: [Int: Observer] = [:]
        var nextID = 1
        var queue: [(application: String, key: String)] = []
        var delivering: Int? = nil
        var threadRunning = false
        var deliveringThread: pthread_t? = nil
        /// Set when the store goes away: the delivery thread then leaves.
        var stopping = false
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state = State()

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// Runs once the delivery thread, which holds a reference, has left.
    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Stops delivery for good (the store is going away) and waits until
    /// the delivery thread has left, unless called from that very thread
    /// (from a callback), which then leaves when the callback returns.
    func stop() {
        locked {
            state.stopping = true
            state.queue = []
            pthread_cond_broadcast(condition)
            let onDeliveringThread = state.deliveringThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while state.threadRunning && !onDeliveringThread {
                pthread_cond_wait(condition, mutex)
            }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Applications that have at least one observer.
    var observedApplications: Set<String> {
        locked { Set(state.observers.values.map(\.application)) }
    }

    /// Whether no observer is registered: one atomic load, no lock (every
    /// set asks). Kept equal to the registry's count under its lock.
    var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }
    private let count = Atomic<Int>(0)

    func add(_ observer: Observer) -> Int {
        locked {
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            count.store(state.observers.count, ordering: .releasing)
            startThreadIfNeeded()
            return id
        }
    }

    func remove(_ id: Int) {
        let removed = locked { () -> Observer? in
            let o = state.observers.removeValue(forKey: id)
            count.store(state.observers.count, ordering: .releasing)
            let onDeliveringThread = state.deliveringThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while state.delivering == id && !onDeliveringThread {
                pthread_cond_wait(condition, mutex)
            }
            return o
        }
        // The callback is released here, outside the lock: what it holds
        // may be the last reference to the store, whose deinit takes it.
        withExtendedLifetime(removed) {}
    }

    /// Queues one notification per (application, key) for delivery.
    func post(_ changes: [(application: String, key: String)]) {
        guard !changes.isEmpty else { return }
        locked {
            state.queue.append(contentsOf: changes)
            startThreadIfNeeded()
            pthread_cond_broadcast(condition)
        }
    }

    /// Before `fork`: holds the lock so that the child gets a consistent state.
    func lockForFork() { pthread_mutex_lock(mutex) }

    /// After `fork`, in the parent or the child. The child has none of the
    /// parent's threads: delivery starts again there.
    func unlockAfterFork(inChild: Bool) {
        if inChild {
            pthread_cond_init(condition, nil)
            state.threadRunning = false
            state.delivering = nil
            state.deliveringThread = nil
            startThreadIfNeeded()
        }
        pthread_mutex_unlock(mutex)
    }

    private func startThreadIfNeeded() {
        guard !state.threadRunning, !state.stopping, !state.observers.isEmpty else { return }
        state.threadRunning = true
        var thread = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(
            &thread, nil,
            { arg in
                Unmanaged<ObserverRegistry>.fromOpaque(arg!).takeRetainedValue().deliverForever()
                return nil
            }, me) == 0
        {
            pthread_detach(thread)
        } else {
            Unmanaged<ObserverRegistry>.fromOpaque(me).release()
            state.threadRunning = false
        }
    }

    /// Delivers queued changes until ``stop()``.
    private func deliverForever() {
        pthread_mutex_lock(mutex)
        state.deliveringThread = pthread_self()
        while true {
            while state.queue.isEmpty && !state.stopping { pthread_cond_wait(condition, mutex) }
            if state.stopping {
                state.threadRunning = false
                state.deliveringThread = nil
                pthread_cond_broadcast(condition)
                pthread_mutex_unlock(mutex)
                return
            }
            let change = state.queue.removeFirst()
            var targets = state.observers.filter { _, o in
                o.application == change.application && (o.key == nil || o.key == change.key)
            }.sorted { $0.key < $1.key }
            for (id, observer) in targets where state.observers[id] != nil {
                state.delivering = id
                pthread_mutex_unlock(mutex)
                observer.callback(change.application, change.key)
                pthread_mutex_lock(mutex)
                state.delivering = nil
                pthread_cond_broadcast(condition)
            }
            // Callbacks removed meanwhile are released here, outside the
            // lock (see remove(_:)).
            pthread_mutex_unlock(mutex)
            targets.removeAll()
            pthread_mutex_lock(mutex)
        }
    }
}
