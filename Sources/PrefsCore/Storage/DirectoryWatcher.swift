import Glibc
import Synchronization

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
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_MOVE_SELF)
    private static let stopByte: UInt8 = 0x73, nowByte: UInt8 = 0x6E

    /// A pipe whose write end wakes the thread: to stop, or to start
    /// watching at once. Closed when the watcher goes away (after its
    /// thread has let go of it).
    private var wakeRead: Int32, wakeWrite: Int32
    private var thread = pthread_t()
    /// Set by ``stop()`` before it wakes the thread. The thread looks at it
    /// before every call of `changed` or `poll`: a stop called from within
    /// one of them (the store's deinit, when that call held its last
    /// reference) may be behind other wake bytes, and the store is gone
    /// once the call returns.
    private let stopping = Atomic<Bool>(false)
    /// The directories and, once watching, the inotify descriptor; under `lock`.
    private var directories: [String]
    private var inotify: Int32 = -1
    /// Whether watching has begun (inotify was asked for); under `lock`.
    private var begun = false
    /// Why inotify could not be had (an errno), when it could not; under `lock`.
    private var inotifyError: Int32? = nil
    private let lock = ForkSafeMutex()
    /// The directory of each watch descriptor; under `lock`.
    private var watched: [Int32: String] = [:]
    /// The directories watched now; under `lock`.
    private var watchedDirectories: Set<String> = []
    /// The `.plist` files and `.d` directories that changed since the
    /// store last took them (``takeChanges()``); under `lock`.
    private var pending: Set<String> = []
    /// Whether events were lost (the kernel's queue overflowed, a watched
    /// directory went away or moved) since the store last took them; under
    /// `lock`.
    private var lost = false
    /// How often the counters are looked at when inotify cannot be had.
    static let pollMilliseconds: Int32 = 100

    private init(_ directories: [String], wakeRead: Int32, wakeWrite: Int32) {
        self.directories = directories
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    deinit { closeWakePipe() }

    /// Starts the thread that will call `changed()` after files ending in
    /// `.plist` (or directories ending in `.d`) change in any of `directories` (those that exist), watching
    /// at once when `immediately`, else after ``delaySeconds``. nil when no
    /// thread can be started. Without inotify (no instance left, say), the
    /// thread calls `poll()` every ``pollMilliseconds`` instead, so that
    /// the change counters of libprefs writers are still followed; see
    /// ``failure``.
    static func start(
        _ directories: [String], immediately: Bool, _ changed: @escaping @Sendable () -> Void,
        poll: @escaping @Sendable () -> Void
    ) -> DirectoryWatcher? {
        guard let wake = try? SystemCall.pipe() else { return nil }
        let watcher = DirectoryWatcher(directories, wakeRead: wake.read, wakeWrite: wake.write)
        if immediately { watcher.lock.withLock { watcher.begin() } }
        final class Context {
            let watcher: DirectoryWatcher
            let immediately: Bool
            let changed: @Sendable () -> Void
            let poll: @Sendable () -> Void
            init(_ w: DirectoryWatcher, _ i: Bool, _ c: @escaping @Sendable () -> Void, _ p: @escaping @Sendable () -> Void) {
                watcher = w; immediately = i; changed = c; poll = p
            }
        }
        let ctx = Unmanaged.passRetained(Context(watcher, immediately, changed, poll)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        defer { pthread_attr_destroy(&attributes) }
        let made = pthread_create(
            &watcher.thread, &attributes,
            { arg in
                let ctx = Unmanaged<Context>.fromOpaque(arg!).takeRetainedValue()
                ctx.watcher.run(immediately: ctx.immediately, ctx.changed, poll: ctx.poll)
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
            if !directories.contains(directory) { directories.append(directory) }
            if inotify >= 0 && !watchedDirectories.contains(directory) { watch(directory) }
        }
    }

    /// Starts watching now if the delay has not run out (for observers).
    func watchNow() {
        lock.withLock { begin() }
        wake(DirectoryWatcher.nowByte)
    }

    /// Why changes by other programs go unnoticed (an errno of
    /// `inotify_init1`), or nil while they are watched or not yet.
    var failure: Int32? { lock.withLock { inotifyError } }

    /// Asks for the inotify instance and watches, once (under `lock`).
    /// Adds an inotify watch on `dir` and remembers it (under `lock`).
    private func watch(_ dir: String) {
        guard let wd = try? SystemCall.inotifyAddWatch(inotify, dir, DirectoryWatcher.mask) else { return }
        watched[wd] = dir
        watchedDirectories.insert(dir)
    }

    /// Whether the kernel reports the changes in directory `dir` now.
    func isWatching(_ dir: String) -> Bool {
        lock.withLock { inotify >= 0 && watchedDirectories.contains(dir) }
    }

    /// The paths of the `.plist` files and `.d` directories created,
    /// written, moved or removed in the watched directories since the last
    /// call, including what the kernel has queued and nobody has read yet:
    /// a change announced by a counter before this call is among them (its
    /// event was queued before the counter moved). `nil` when they cannot be
    /// known: not watching (yet), or events were lost; then every file must
    /// be looked at.
    func takeChanges() -> Set<String>? {
        lock.withLock { () -> Set<String>? in
            guard begun, inotify >= 0 else { return nil }
            drain()
            defer {
                pending = []
                lost = false
            }
            return lost ? nil : pending
        }
    }

    /// Reads every event the kernel has queued into ``pending`` (under
    /// `lock`; the descriptor does not block). Returns whether any was
    /// about a domain file or a drop-in directory, or events were lost.
    @discardableResult
    private func drain() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while inotify >= 0 {
            let n: Int
            do throws(Errno) {
                n = try buffer.withUnsafeMutableBytes { b in Result { () throws(Errno) in try SystemCall.read(inotify, into: b) } }.get()
            } catch {
                if error.rawValue == EAGAIN { break }
                // The descriptor is broken: stop watching (every file is
                // looked at from now on, and the thread only waits to stop).
                SystemCall.close(inotify)
                inotify = -1
                lost = true
                return true
            }
            guard n > 0 else { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let name = raw[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                    offset = nameStart + length
                    if mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_MOVE_SELF) != 0 {
                        // Events lost, or a watched directory gone or moved:
                        // its watch no longer names it.
                        lost = true
                        relevant = true
                        if mask & UInt32(IN_Q_OVERFLOW) == 0, let dir = watched.removeValue(forKey: wd) {
                            watchedDirectories.remove(dir)
                            if mask & UInt32(IN_IGNORED) == 0 { SystemCall.inotifyRemoveWatch(inotify, wd) }
                        }
                        continue
                    }
                    // A domain file, or a managed drop-in directory (`<id>.d`) made or removed.
                    let isFile = name.count > 6 && name.suffix(6).elementsEqual(".plist".utf8)
                    let isDropIns = name.count > 2 && name.suffix(2).elementsEqual(".d".utf8)
                    guard isFile || isDropIns else { continue }
                    relevant = true
                    guard let dir = watched[wd] else {
                        lost = true
                        continue
                    }
                    pending.insert(dir + "/" + String(decoding: name, as: UTF8.self))
                }
            }
        }
        return relevant
    }

    private func begin() {
        guard !begun else { return }
        begun = true
        do { inotify = try SystemCall.inotifyInit(Int32(IN_CLOEXEC | IN_NONBLOCK)) } catch {
            inotifyError = error.rawValue
            return
        }
        for dir in directories { watch(dir) }
        // What changed before watching began is not known.
        lost = true
    }

    /// Stops the thread, which closes its inotify instance as it leaves, and
    /// waits until it has left (so `changed` is not running and will not
    /// run again), unless called from that very thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
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
        if inotify >= 0 { SystemCall.close(inotify) }
        inotify = -1
        closeWakePipe()
    }

    private func wake(_ byte: UInt8) { SystemCall.signal(wakeWrite, byte) }

    private func closeInotify() {
        lock.withLock {
            if inotify >= 0 { SystemCall.close(inotify) }
            inotify = -1
        }
    }

    private func closeWakePipe() {
        if wakeRead >= 0 { SystemCall.close(wakeRead) }
        if wakeWrite >= 0 { SystemCall.close(wakeWrite) }
        wakeRead = -1
        wakeWrite = -1
    }

    /// Waits up to `milliseconds` (-1: no limit) for a byte on the wake
    /// pipe, or for `fd` to be readable; returns the byte (nil if none) and
    /// whether `fd` is readable.
    private func wakeByte(within milliseconds: Int32, alongside fd: Int32 = -1) -> (byte: UInt8?, fdReady: Bool) {
        var fds = [
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        ]
        guard (try? SystemCall.poll(&fds, count: fd >= 0 ? 2 : 1, milliseconds)) != nil else { return (DirectoryWatcher.stopByte, false) }
        if fds[0].revents != 0, let byte = SystemCall.takeSignal(wakeRead) { return (byte, fds[1].revents != 0) }
        return (nil, fd >= 0 && fds[1].revents != 0)
    }

    private func run(immediately: Bool, _ changed: @Sendable () -> Void, poll: @Sendable () -> Void) {
        if !immediately && wakeByte(within: DirectoryWatcher.delaySeconds * 1000).byte == DirectoryWatcher.stopByte {
            return
        }
        var fd = lock.withLock { () -> Int32 in
            begin()
            return inotify
        }
        var stopped: Bool { stopping.load(ordering: .acquiring) }
        if !immediately && !stopped { changed() }
        if fd < 0 {
            while !stopped && wakeByte(within: DirectoryWatcher.pollMilliseconds).byte != DirectoryWatcher.stopByte && !stopped {
                poll()
            }
            return
        }
        while true {
            let (byte, ready) = wakeByte(within: -1, alongside: fd)
            if byte == DirectoryWatcher.stopByte || stopped { closeInotify(); return }
            guard ready else { continue }
            // Read under the lock into ``pending``, where a read of the
            // store also looks (``takeChanges()``): no event is ever in
            // neither place.
            let relevant = lock.withLock { () -> Bool in
                let r = drain()
                fd = inotify
                return r
            }
            if relevant && !stopped { changed() }
        }
    }
}
