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

    // Runs only when no delivery thread holds the registry.
    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
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
///
/// Watching starts after a delay unless observers need it at once: the
/// kernel takes 10-20 ms to tear down an inotify instance when a process
/// exits, which short-lived processes (a command that reads one value)
/// should not pay. When watching starts, `changed` runs once, for what
/// changed before.
final class DirectoryWatcher: @unchecked Sendable {
    /// How long a watcher started without observers waits.
    static let delaySeconds: Int32 = 1
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
    private static let stopByte: UInt8 = 0x73, nowByte: UInt8 = 0x6E

    /// A pipe whose write end wakes the thread: to stop, or to start
    /// watching at once. Closed when the watcher goes away (after its
    /// thread has let go of it).
    private var wakeRead: Int32, wakeWrite: Int32
    private var thread = pthread_t()
    /// The directories and, once watching, the inotify descriptor; under `lock`.
    private var directories: [String]
    private var inotify: Int32 = -1
    private let lock = ProcessLock()

    private init(_ directories: [String], wakeRead: Int32, wakeWrite: Int32) {
        self.directories = directories
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    deinit { closeWakePipe() }

    /// Starts the thread that will call `changed()` after files ending in
    /// `.plist` change in any of `directories` (those that exist), watching
    /// at once when `immediately`, else after ``delaySeconds``. nil when no
    /// thread can be started. Without inotify (no instance left, say),
    /// changes are found by the change counters and synchronize only.
    static func start(_ directories: [String], immediately: Bool, _ changed: @escaping @Sendable () -> Void) -> DirectoryWatcher? {
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { return nil }
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let watcher = DirectoryWatcher(directories, wakeRead: wake[0], wakeWrite: wake[1])
        final class Context {
            let watcher: DirectoryWatcher
            let immediately: Bool
            let changed: @Sendable () -> Void
            init(_ w: DirectoryWatcher, _ i: Bool, _ c: @escaping @Sendable () -> Void) { watcher = w; immediately = i; changed = c }
        }
        let ctx = Unmanaged.passRetained(Context(watcher, immediately, changed)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        defer { pthread_attr_destroy(&attributes) }
        let made = pthread_create(&watcher.thread, &attributes, { arg in
            let ctx = Unmanaged<Context>.fromOpaque(arg!).takeRetainedValue()
            ctx.watcher.run(immediately: ctx.immediately, ctx.changed)
            return nil
        }, ctx)
        if made != 0 {
            Unmanaged<Context>.fromOpaque(ctx).release()
            return nil
        }
        return watcher
    }

    /// Watches one more directory (one that did not exist at the start).
    func add(_ directory: String) {
        lock.withLock {
            directories.append(directory)
            if inotify >= 0 { _ = inotify_add_watch(inotify, directory, DirectoryWatcher.mask) }
        }
    }

    /// Starts watching now if the delay has not run out (for observers).
    func watchNow() { wake(DirectoryWatcher.nowByte) }

    /// Stops the thread, which closes its inotify instance as it leaves, and
    /// waits until it has left (so `changed` is not running and will not
    /// run again), unless called from that very thread.
    func stop() {
        wake(DirectoryWatcher.stopByte)
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// In the child of a fork, where the thread does not exist: closes the
    /// descriptors it would have read. Takes no lock: the parent's thread
    /// may have held it at the fork, and only this thread exists here.
    func abandonAfterFork() {
        if inotify >= 0 { close(inotify) }
        inotify = -1
        closeWakePipe()
    }

    private func wake(_ byte: UInt8) {
        var b = byte
        _ = write(wakeWrite, &b, 1)
    }

    private func closeInotify() {
        lock.withLock {
            if inotify >= 0 { close(inotify) }
            inotify = -1
        }
    }

    private func closeWakePipe() {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
        wakeRead = -1
        wakeWrite = -1
    }

    /// Waits up to `milliseconds` (-1: no limit) for a byte on the wake
    /// pipe, or for `fd` to be readable; returns the byte (nil if none) and
    /// whether `fd` is readable.
    private func wakeByte(within milliseconds: Int32, alongside fd: Int32 = -1) -> (byte: UInt8?, fdReady: Bool) {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, fd >= 0 ? 2 : 1, milliseconds) < 0 {
            if errno != EINTR { return (DirectoryWatcher.stopByte, false) }
        }
        var byte: UInt8 = 0
        if fds[0].revents != 0 && read(wakeRead, &byte, 1) == 1 { return (byte, fds[1].revents != 0) }
        return (nil, fd >= 0 && fds[1].revents != 0)
    }

    private func run(immediately: Bool, _ changed: @Sendable () -> Void) {
        if !immediately && wakeByte(within: DirectoryWatcher.delaySeconds * 1000).byte == DirectoryWatcher.stopByte {
            return
        }
        var fd = lock.withLock { () -> Int32 in
            inotify = inotify_init1(Int32(IN_CLOEXEC))
            if inotify >= 0 {
                for dir in directories { _ = inotify_add_watch(inotify, dir, DirectoryWatcher.mask) }
            }
            return inotify
        }
        if !immediately { changed() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let (byte, ready) = wakeByte(within: -1, alongside: fd)
            if byte == DirectoryWatcher.stopByte { closeInotify(); return }
            guard ready else { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno != EINTR && errno != EAGAIN { fd = -1 } // then only wait to be stopped
                continue
            }
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
