import Glibc

/// The number of a failed system call's error (`errno`).
package struct Errno: Error, Equatable, Sendable {
    /// The C constant's value (`ENOENT`, `EACCES`, ...).
    package let rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// What `errno` holds now.
    static var current: Errno { Errno(errno) }

    /// The C library's text for it (`strerror`).
    package var text: String { String(cString: strerror(rawValue)) }

    /// The library's error for `what` failing on `path`:
    /// "`what` `path`: `text`".
    func io(_ what: String, _ path: String) -> PrefsError { PrefsError(.io, "\(what) \(path): \(text)") }
}

/// Every system call of the library, one thin wrapper a call, in
/// swift-system's shape: a failure throws its ``Errno``, `EINTR` is retried
/// here and nowhere else, and each call first asks the fault-injection hook
/// (``FaultInjection``), so that a test can make any call fail. Nothing
/// here keeps state: safe from any thread. Descriptors are the caller's to
/// close.
package enum SystemCall {
    /// Runs `body` until it is not interrupted; a result of -1 throws
    /// `errno`. `name` is the call's, for the fault-injection hook.
    @inline(__always)
    private static func retrying<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(Errno) -> T {
        try FaultInjection.check(name)
        while true {
            let result = body()
            if result != -1 { return result }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// Opens `path`; returns the descriptor. The corresponding C function is `open`.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws(Errno) -> Int32 {
        try retrying("open") { Glibc.open(path, flags, mode) }
    }

    /// Closes `fd`; never retried, since Linux has closed it even when
    /// interrupted. The corresponding C function is `close`.
    package static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// What the file open at `fd` is. The corresponding C function is `fstat`.
    package static func fstat(_ fd: Int32) throws(Errno) -> Glibc.stat {
        var st = Glibc.stat()
        _ = try retrying("fstat") { Glibc.fstat(fd, &st) }
        return st
    }

    /// What `path` leads to. The corresponding C function is `stat`.
    package static func stat(_ path: String) throws(Errno) -> Glibc.stat {
        var st = Glibc.stat()
        _ = try retrying("stat") { cStat(path, &st) }
        return st
    }

    /// What `path` itself is (a link is not followed). The corresponding C
    /// function is `lstat`.
    package static func lstat(_ path: String) throws(Errno) -> Glibc.stat {
        var st = Glibc.stat()
        _ = try retrying("lstat") { Glibc.lstat(path, &st) }
        return st
    }

    /// Reads into `buffer`; returns the count read, 0 at the end. The
    /// corresponding C function is `read`.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retrying("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Moves the file position of `fd`; returns the new one. The
    /// corresponding C function is `lseek`.
    @discardableResult
    package static func lseek(_ fd: Int32, _ offset: Int, _ whence: Int32) throws(Errno) -> Int {
        Int(try retrying("lseek") { Glibc.lseek(fd, off_t(offset), whence) })
    }

    /// Reads into `buffer` from `offset`, without moving the file position.
    /// The corresponding C function is `pread`.
    package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try retrying("read") { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Writes from `buffer`; returns the count written. The corresponding C
    /// function is `write`.
    package static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retrying("write") { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes one byte to a wake-up pipe. Neither this nor
    /// ``takeSignal(_:)`` is subject to fault injection: a lost wake-up
    /// would leave a thread that never stops.
    package static func signal(_ fd: Int32, _ byte: UInt8) {
        var b = byte
        while Glibc.write(fd, &b, 1) < 0 && errno == EINTR {}
    }

    /// Reads one byte from a wake-up pipe; `nil` when none can be read.
    static func takeSignal(_ fd: Int32) -> UInt8? {
        var b: UInt8 = 0
        var n: Int
        repeat { n = Glibc.read(fd, &b, 1) } while n < 0 && errno == EINTR
        return n == 1 ? b : nil
    }

    /// Flushes the file or directory open at `fd` to the disk. The
    /// corresponding C function is `fsync`.
    package static func fsync(_ fd: Int32) throws(Errno) { _ = try retrying("fsync") { Glibc.fsync(fd) } }

    /// Sets the permission bits of the file open at `fd`. The corresponding
    /// C function is `fchmod`.
    static func fchmod(_ fd: Int32, _ mode: mode_t) throws(Errno) { _ = try retrying("chmod") { Glibc.fchmod(fd, mode) } }

    /// Sets the permission bits of `path`. The corresponding C function is `chmod`.
    static func chmod(_ path: String, _ mode: mode_t) throws(Errno) { _ = try retrying("chmod") { Glibc.chmod(path, mode) } }

    /// Cuts the file open at `fd` to `length` bytes. The corresponding C
    /// function is `ftruncate`.
    static func ftruncate(_ fd: Int32, _ length: Int) throws(Errno) {
        _ = try retrying("ftruncate") { Glibc.ftruncate(fd, off_t(length)) }
    }

    /// Gives the file open at `fd` its first `length` bytes of disk. The
    /// corresponding C function is `posix_fallocate`, which returns its
    /// error rather than set `errno`.
    static func fallocate(_ fd: Int32, _ length: Int) throws(Errno) {
        try FaultInjection.check("fallocate")
        var e: Int32
        repeat { e = posix_fallocate(fd, 0, off_t(length)) } while e == EINTR
        if e != 0 { throw Errno(e) }
    }

    /// Renames `from` to `to`, replacing what `to` names. The corresponding
    /// C function is `rename`.
    static func rename(_ from: String, _ to: String) throws(Errno) { _ = try retrying("rename") { Glibc.rename(from, to) } }

    /// Gives the file `from` names the new name `to`, which must not exist.
    /// The corresponding C function is `link`.
    static func link(_ from: String, _ to: String) throws(Errno) { _ = try retrying("link") { Glibc.link(from, to) } }

    /// Removes the name `path`. The corresponding C function is `unlink`.
    static func unlink(_ path: String) throws(Errno) { _ = try retrying("unlink") { Glibc.unlink(path) } }

    /// Creates the directory `path`. The corresponding C function is `mkdir`.
    static func mkdir(_ path: String, _ mode: mode_t) throws(Errno) { _ = try retrying("mkdir") { Glibc.mkdir(path, mode) } }

    /// Whether `path` exists (`access` with `F_OK`): false when it does not
    /// or cannot be looked up.
    static func exists(_ path: String) -> Bool { (try? retrying("access") { Glibc.access(path, F_OK) }) != nil }

    /// Where the symbolic link `path` leads. The corresponding C function
    /// is `readlink`.
    static func readlink(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = try retrying("readlink") { Glibc.readlink(path, &buffer, Int(PATH_MAX)) }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Takes or releases (`LOCK_EX`, `LOCK_UN`) the advisory lock of the
    /// file open at `fd`, waiting for it. The corresponding C function is `flock`.
    static func flock(_ fd: Int32, _ operation: Int32) throws(Errno) { _ = try retrying("flock") { cFlock(fd, operation) } }

    /// Maps `length` bytes of the file open at `fd`, shared. The
    /// corresponding C function is `mmap`.
    static func mmap(_ fd: Int32, _ length: Int, _ protection: Int32) throws(Errno) -> UnsafeMutableRawPointer {
        try FaultInjection.check("mmap")
        guard let p = Glibc.mmap(nil, length, protection, MAP_SHARED, fd, 0), p != MAP_FAILED else { throw Errno.current }
        return p
    }

    /// A new pipe whose ends close on `exec` (and do not block, when
    /// `nonblocking`). The corresponding C functions are `pipe` and `fcntl`.
    package static func pipe(nonblocking: Bool = false) throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try retrying("pipe") { Glibc.pipe(&ends) }
        for end in ends {
            _ = Glibc.fcntl(end, F_SETFD, FD_CLOEXEC)
            if nonblocking { _ = Glibc.fcntl(end, F_SETFL, O_NONBLOCK) }
        }
        return (ends[0], ends[1])
    }

    /// Waits up to `milliseconds` (-1: no limit) for one of `fds`; returns
    /// how many are ready. An interrupted wait starts again. The
    /// corresponding C function is `poll`.
    package static func poll(_ fds: inout [pollfd], count: Int, _ milliseconds: Int32) throws(Errno) -> Int {
        Int(try retrying("poll") { Glibc.poll(&fds, nfds_t(count), milliseconds) })
    }

    /// A new inotify instance. The corresponding C function is `inotify_init1`.
    static func inotifyInit(_ flags: Int32) throws(Errno) -> Int32 { try retrying("inotify_init1") { inotify_init1(flags) } }

    /// Watches directory `path` on the inotify instance `fd`; returns the
    /// watch. The corresponding C function is `inotify_add_watch`.
    static func inotifyAddWatch(_ fd: Int32, _ path: String, _ mask: UInt32) throws(Errno) -> Int32 {
        try retrying("inotify_add_watch") { inotify_add_watch(fd, path, mask) }
    }

    /// Stops the watch `wd`. The corresponding C function is `inotify_rm_watch`.
    static func inotifyRemoveWatch(_ fd: Int32, _ wd: Int32) { _ = try? retrying("inotify_rm_watch") { inotify_rm_watch(fd, wd) } }

    /// The names in directory `path` (not `.` and `..`). The corresponding
    /// C functions are `opendir`, `readdir` and `closedir`.
    package static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        try FaultInjection.check("opendir")
        guard let d = opendir(path) else { throw Errno.current }
        defer { closedir(d) }
        var names = [String]()
        while let entry = readdir(d) {
            // d_name in place: a dirent is only as long as its name, so
            // copying the 256-byte field reads past the last record of
            // readdir's buffer (AddressSanitizer caught it on a directory
            // of 423 files).
            let at = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!
            let name = String(cString: at.assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

// Where a call shares its name with a C struct, Swift reads `Glibc.name(...)`
// as the struct's initializer: these call the functions.
private func cStat(_ path: String, _ st: inout stat) -> Int32 { stat(path, &st) }
private func cFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

/// Failures on demand, for tests of failure paths. When the environment
/// variable `PREFS_TEST_FAIL` names a call of ``SystemCall`` (`open`,
/// `read`, `write`, `fsync`, `rename`, `unlink`, `mkdir`, ...), every call
/// of that name fails without being made: with `ENOSPC` for `write` and
/// `fallocate`, `EROFS` for any other. `crash-` followed by a point's name
/// kills the process there instead (``crash(at:)``). Read once per
/// process; ignored in a setuid or setgid process.
enum FaultInjection {
    static let setting: String? = ProcessEnvironment.value("PREFS_TEST_FAIL")

    /// Throws the injected failure of the call `name`, if it is the one named.
    @inline(__always)
    static func check(_ name: String) throws(Errno) {
        guard let setting, setting == name else { return }
        throw Errno(name == "write" || name == "fallocate" ? ENOSPC : EROFS)
    }

    /// When `PREFS_TEST_FAIL` is `crash-` followed by `point`, kills the
    /// process (SIGKILL), as a crash or a power cut would stop it.
    static func crash(at point: String) {
        guard let f = setting, f.hasPrefix("crash-"), f.dropFirst(6) == point else { return }
        kill(getpid(), SIGKILL)
    }
}
