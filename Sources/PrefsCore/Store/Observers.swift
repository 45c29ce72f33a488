import Glibc

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
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state = State()

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
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

    var isEmpty: Bool { locked { state.observers.isEmpty } }

    func add(_ observer: Observer) -> Int {
        locked {
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            startThreadIfNeeded()
            return id
        }
    }

    func remove(_ id: Int) {
        locked {
            state.observers[id] = nil
            let onDeliveringThread = state.deliveringThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while state.delivering == id && !onDeliveringThread {
                pthread_cond_wait(condition, mutex)
            }
        }
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
        guard !state.threadRunning, !state.observers.isEmpty else { return }
        state.threadRunning = true
        var thread = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&thread, nil, { arg in
            Unmanaged<ObserverRegistry>.fromOpaque(arg!).takeRetainedValue().deliverForever()
            return nil
        }, me) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<ObserverRegistry>.fromOpaque(me).release()
            state.threadRunning = false
        }
    }

    private func deliverForever() {
        pthread_mutex_lock(mutex)
        state.deliveringThread = pthread_self()
        while true {
            while state.queue.isEmpty { pthread_cond_wait(condition, mutex) }
            let change = state.queue.removeFirst()
            let targets = state.observers.filter { _, o in
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
        }
    }
}

/// Watches the preference directories with inotify, so that files written
/// by other programs or edited by hand are noticed without a read: the
/// store re-reads them, and observers hear of the keys that changed.
final class DirectoryWatcher: @unchecked Sendable {
    private let inotify: Int32
    /// A pipe whose write end wakes the thread to stop it.
    private let wakeRead: Int32, wakeWrite: Int32
    private var thread = pthread_t()

    private init(inotify: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.inotify = inotify
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    /// Starts a thread that calls `changed()` after files ending in `.plist`
    /// change in any of `directories` (those that exist). nil when inotify
    /// is unavailable (no instance left, say): changes are then found by
    /// the change counters and by synchronize only.
    static func start(_ directories: [String], _ changed: @escaping @Sendable () -> Void) -> DirectoryWatcher? {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        var watching = 0
        for dir in directories where inotify_add_watch(fd, dir, mask) >= 0 { watching += 1 }
        var wake: [Int32] = [-1, -1]
        guard watching > 0, pipe(&wake) == 0 else { close(fd); return nil }
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let watcher = DirectoryWatcher(inotify: fd, wakeRead: wake[0], wakeWrite: wake[1])
        final class Context {
            let watcher: DirectoryWatcher
            let changed: @Sendable () -> Void
            init(_ w: DirectoryWatcher, _ c: @escaping @Sendable () -> Void) { watcher = w; changed = c }
        }
        let ctx = Unmanaged.passRetained(Context(watcher, changed)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        defer { pthread_attr_destroy(&attributes) }
        let made = pthread_create(&watcher.thread, &attributes, { arg in
            let ctx = Unmanaged<Context>.fromOpaque(arg!).takeRetainedValue()
            ctx.watcher.run(ctx.changed)
            return nil
        }, ctx)
        if made != 0 {
            Unmanaged<Context>.fromOpaque(ctx).release()
            watcher.closeDescriptors()
            return nil
        }
        return watcher
    }

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)

    /// Watches one more directory (one that did not exist at the start).
    func add(_ directory: String) {
        _ = inotify_add_watch(inotify, directory, DirectoryWatcher.mask)
    }

    /// Stops the thread, which closes the descriptors as it leaves, and
    /// waits until it has left (so `changed` is not running and will not
    /// run again), unless called from that very thread.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// In the child of a fork, where the thread does not exist: closes the
    /// descriptors it would have read.
    func abandonAfterFork() { closeDescriptors() }

    private func closeDescriptors() {
        close(inotify)
        close(wakeRead)
        close(wakeWrite)
    }

    private func run(_ changed: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { closeDescriptors(); return }
            guard fds[0].revents != 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return }
            var relevant = false
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let name = raw[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                    if name.count > 6 && name.suffix(6).elementsEqual(".plist".utf8) { relevant = true }
                    offset = nameStart + length
                }
            }
            if relevant { changed() }
        }
    }
}
