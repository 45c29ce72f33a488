import Glibc

/// The file operations of the storage layer (reading a file whole,
/// replacing it atomically, locking a directory), made of ``SystemCall``'s
/// calls, so that errors become messages in one place.
///
/// `package` members are used by the `prefs` command (`PrefsTool`) for the
/// files a user names (import sources, export destinations), so that it
/// reads and replaces files exactly as the store does.
package enum FileSystem {
    /// Identity and version of a file, to tell whether it changed.
    struct Stamp: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var mtimeSeconds: Int64
        var mtimeNanoseconds: Int64
        var ctimeNanoseconds: Int64
        /// The permission bits.
        var mode: mode_t

        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            mtimeSeconds = Int64(st.st_mtim.tv_sec)
            mtimeNanoseconds = Int64(st.st_mtim.tv_nsec)
            ctimeNanoseconds = Int64(st.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_ctim.tv_nsec)
            mode = st.st_mode & 0o7777
        }

        /// The modification time in nanoseconds since the epoch.
        var mtime: Int64 { mtimeSeconds &* 1_000_000_000 &+ mtimeNanoseconds }

        /// Whether `other` is the same file, unchanged as far as `stat`
        /// can tell: device, inode, size, modification and change times to
        /// the nanosecond (not the permission bits, whose change moves the
        /// change time anyway).
        func sameIdentity(_ other: Stamp) -> Bool {
            device == other.device && inode == other.inode && size == other.size && mtimeSeconds == other.mtimeSeconds
                && mtimeNanoseconds == other.mtimeNanoseconds && ctimeNanoseconds == other.ctimeNanoseconds
        }
    }

    /// A file opened for reading by ``openForReading(_:followingLinks:)``, with what
    /// `fstat` said of it; its bytes are read only when asked for. The
    /// caller closes it. Not shared between threads.
    struct OpenFile {
        let descriptor: Int32
        let stamp: Stamp
        let name: String

        /// Every byte of the file (refused over ``maximumFileSize``), from
        /// its start whatever an earlier read of it consumed: a read that
        /// failed half-way and is tried again reads the file whole.
        func readAll() throws(PrefsError) -> [UInt8] {
            do throws(Errno) { try SystemCall.lseek(descriptor, 0, SEEK_SET) } catch { throw error.io("cannot read", name) }
            return try readToEnd(descriptor, expecting: Int(stamp.size), name: name, tooLarge: "; it is left as it is")
        }

        /// Whether the file still has the identity it was opened with: a
        /// program that ignores the directory lock may have rewritten it in
        /// place since, and bytes read since may not be the ones
        /// ``stamp`` names.
        func isUnchanged() -> Bool {
            guard let st = try? SystemCall.fstat(descriptor) else { return false }
            return Stamp(st).sameIdentity(stamp)
        }

        /// At most the first `count` bytes of the file (fewer when it is
        /// shorter), read without moving a file position.
        func readPrefix(_ count: Int) throws(PrefsError) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: count)
            do throws(Errno) {
                let done = try readFully(descriptor, &buffer, at: 0)
                return Array(buffer.prefix(done))
            } catch { throw error.io("cannot read", name) }
        }

        func close() { SystemCall.close(descriptor) }
    }

    /// Reads `fd` from `offset` until `buffer` is full or the file ends;
    /// returns the count read.
    static func readFully(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int) throws(Errno) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try buffer.withUnsafeMutableBytes { b in
                Result { () throws(Errno) in try SystemCall.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[done...]), at: offset + done) }
            }.get()
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// The stamp of `path`, following symlinks; `nil` when it does not exist.
    static func stamp(_ path: String) throws(PrefsError) -> Stamp? {
        do { return Stamp(try SystemCall.stat(path)) } catch {
            if error.rawValue == ENOENT || error.rawValue == ENOTDIR { return nil }
            throw error.io("cannot examine", path)
        }
    }

    /// The largest file ``read(_:followingLinks:)`` accepts: 64 MiB. A
    /// domain file is refused over it, before any of it is read.
    static let maximumFileSize = 64 << 20

    /// The whole content of `path` and its stamp; `nil` when it does not
    /// exist. Opens without blocking and refuses what is not a regular file
    /// (a FIFO, a device, a directory) and files over ``maximumFileSize``.
    /// Without `followingLinks`, a symlink at `path` is refused too.
    static func read(_ path: String, followingLinks: Bool = true) throws(PrefsError) -> (bytes: [UInt8], stamp: Stamp)? {
        guard let file = try openForReading(path, followingLinks: followingLinks) else { return nil }
        defer { file.close() }
        return (try file.readAll(), file.stamp)
    }

    /// `path` opened for reading, as ``read(_:followingLinks:)`` opens it
    /// (the same refusals, before any byte is read); `nil` when it does not
    /// exist. The caller closes the result.
    static func openForReading(_ path: String, followingLinks: Bool = true) throws(PrefsError) -> OpenFile? {
        let fd: Int32
        do { fd = try SystemCall.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW)) } catch {
            if error.rawValue == ENOENT || error.rawValue == ENOTDIR { return nil }
            if error.rawValue == ELOOP && !followingLinks { throw PrefsError(.io, "cannot read \(path): it is a symbolic link") }
            throw error.io("cannot open", path)
        }
        var kept = false
        defer { if !kept { SystemCall.close(fd) } }
        let st: stat
        do { st = try SystemCall.fstat(fd) } catch { throw error.io("cannot examine", path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw PrefsError(.io, "cannot read \(path): not a regular file") }
        guard st.st_size <= maximumFileSize else {
            throw PrefsError(.io, "cannot read \(path): larger than the \(maximumFileSize >> 20) MiB a preferences file may hold; it is left as it is")
        }
        kept = true
        return OpenFile(descriptor: fd, stamp: Stamp(st), name: path)
    }

    /// Everything that can still be read from `fd` (standard input, a pipe,
    /// a terminal), until its end; refused over ``maximumFileSize``, like a
    /// file. `name` is for messages. The descriptor stays open and is the
    /// caller's; reads block as the descriptor does.
    package static func readToEnd(descriptor fd: Int32, name: String) throws(PrefsError) -> [UInt8] {
        try readToEnd(fd, expecting: 0, name: name, tooLarge: "")
    }

    /// The whole content of a file the user named (an import source, not a
    /// domain file). Unlike ``read(_:followingLinks:)`` it opens as the
    /// user asked, blocking: a FIFO, a pipe (`/dev/stdin`, a shell's
    /// `<(command)`) or a terminal is read to its end. A missing file and a
    /// directory are refused, and so is anything over ``maximumFileSize``
    /// (a device that never ends, too). Like every function here it keeps
    /// no state: safe from any thread.
    package static func readUserFile(_ path: String) throws(PrefsError) -> [UInt8] {
        let fd: Int32
        do { fd = try SystemCall.open(path, O_RDONLY | O_CLOEXEC) } catch { throw error.io("cannot open", path) }
        defer { SystemCall.close(fd) }
        let st: stat
        do { st = try SystemCall.fstat(fd) } catch { throw error.io("cannot examine", path) }
        guard (st.st_mode & S_IFMT) != S_IFDIR else { throw PrefsError(.io, "cannot read \(path): it is a directory") }
        let size = (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0
        return try readToEnd(fd, expecting: size, name: path, tooLarge: "")
    }

    /// Reads `fd` to its end, with room for `expected` bytes from the start
    /// and ``maximumFileSize`` at most; `note` ends the message of a refusal
    /// for size. The reads go into memory not yet initialized: nothing is
    /// zero-filled only to be overwritten.
    private static func readToEnd(_ fd: Int32, expecting expected: Int, name: String, tooLarge note: String) throws(PrefsError) -> [UInt8] {
        let tooLarge = PrefsError(.io, "cannot read \(name): larger than the \(maximumFileSize >> 20) MiB a preferences file may hold\(note)")
        guard expected <= maximumFileSize else { throw tooLarge }
        let expected = max(expected, 0)
        var failure: Errno? = nil
        // Reads until `expected` bytes or the end: a file shorter than its
        // stat size ends early, and the array holds what was read.
        var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            while count < expected {
                let n: Int
                do throws(Errno) {
                    n = try SystemCall.read(fd, into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress! + count, count: expected - count))
                } catch {
                    failure = error
                    return
                }
                if n == 0 { return }
                count += n
            }
        }
        if let failure { throw failure.io("cannot read", name) }
        if bytes.count < expected { return bytes }
        // Full: further reads go to a small probe on the stack first. A file
        // read whole at its stat size ends with a read of 0 bytes, and
        // growing the array for it would copy (and double) the whole file.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { probe in
            while true {
                guard bytes.count <= maximumFileSize else { return }
                let n: Int
                do throws(Errno) { n = try SystemCall.read(fd, into: UnsafeMutableRawBufferPointer(probe)) } catch {
                    failure = error
                    return
                }
                if n == 0 { return }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: probe[..<n]))  // the file grew, or a stream's next chunk
            }
        }
        if let failure { throw failure.io("cannot read", name) }
        guard bytes.count <= maximumFileSize else { throw tooLarge }
        return bytes
    }

    /// Creates `path` and its missing parents with permission bits `mode`
    /// (whatever the umask: 0755 directories of any-user domains must be
    /// readable by all).
    static func makeDirectories(_ path: String, mode: mode_t) throws(PrefsError) {
        if path.isEmpty || path == "/" { return }
        if let st = try? SystemCall.stat(path) {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw PrefsError(.io, "cannot use \(path) as a directory: it is a file") }
            return
        }
        try makeDirectories(parent(of: path), mode: mode)
        do {
            try SystemCall.mkdir(path, mode)
            try? SystemCall.chmod(path, mode)
        } catch  where error.rawValue == EEXIST {
        } catch { throw error.io("cannot create directory", path) }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The file a symlink chain at `path` ends at (so that replacing it keeps
    /// the link); `path` itself when it is not a link or does not exist.
    ///
    /// With `owners`, a chain is followed only when every link in it and the
    /// file it ends at (when that exists) belong to one of those users;
    /// otherwise this throws. Writers pass ``ProcessEnvironment/trustedOwners``,
    /// so that a link another user planted cannot make them replace a file
    /// of that user's choosing.
    static func resolvingLinks(_ path: String, ownedBy owners: [uid_t]? = nil) throws(PrefsError) -> String {
        var current = path
        var followed = false
        for _ in 0..<40 {
            guard let st = try? SystemCall.lstat(current) else { return current }  // missing: a new file goes there
            if let owners, followed || (st.st_mode & S_IFMT) == S_IFLNK, !owners.contains(st.st_uid) {
                throw PrefsError(.io, "will not follow the symbolic link \(path): \(current) belongs to another user")
            }
            guard (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            guard let target = try? SystemCall.readlink(current) else { return current }
            current = target.hasPrefix("/") ? target : parent(of: current) + "/" + target
            followed = true
        }
        throw PrefsError(.io, "cannot follow the symbolic link \(path): too many levels of links")
    }

    /// A 64-bit FNV-1a hash of `text`'s UTF-8, the same in every process
    /// (Swift's `Hasher` is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return h
    }

    /// An exclusive lock on directory `dir`, released by the kernel if the
    /// process dies; `body` runs while it is held.
    static func withDirectoryLock<T>(_ dir: String, _ body: () throws(PrefsError) -> T) throws(PrefsError) -> T {
        let fd: Int32
        do { fd = try SystemCall.open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC) } catch {
            throw error.io("cannot open directory", dir)
        }
        defer { SystemCall.close(fd) }
        do { try SystemCall.flock(fd, LOCK_EX) } catch { throw error.io("cannot lock directory", dir) }
        defer { try? SystemCall.flock(fd, LOCK_UN) }
        return try body()
    }

    /// Replaces `path` atomically and durably with `bytes`: writes a
    /// temporary file in the same directory, flushes it, renames it over
    /// `path`, flushes the directory. A reader sees the old file or the new
    /// one, never a mix. `mode` is applied to the new file; `nil` gives it
    /// 0666 less the process's umask, as a program's new files get.
    /// Returns the new file's stamp as it was just before the rename (the
    /// rename moves its change time, nothing else).
    @discardableResult
    static func replaceAtomically(_ path: String, with bytes: [UInt8], mode: mode_t?) throws(PrefsError) -> Stamp {
        let temp = temporaryPath(for: path)
        let fd: Int32
        do { fd = try SystemCall.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode ?? 0o666) } catch {
            throw error.io("cannot create", temp)
        }
        var ok = false
        defer { if !ok { try? SystemCall.unlink(temp) } }
        let written: stat
        do {
            defer { SystemCall.close(fd) }
            do { try writeAll(fd, bytes) } catch { throw error.io("cannot write", temp) }
            if let mode { try? SystemCall.fchmod(fd, mode) }
            do { try SystemCall.fsync(fd) } catch { throw error.io("cannot flush", temp) }
            do { written = try SystemCall.fstat(fd) } catch { throw error.io("cannot examine", temp) }
        }
        FaultInjection.crash(at: "before-rename")
        do { try SystemCall.rename(temp, path) } catch { throw error.io("cannot replace", path) }
        ok = true
        flushDirectory(parent(of: path))
        return Stamp(written)
    }

    /// Replaces `path`, a cache file, with `bytes`: atomically (a temporary
    /// file renamed over it) but not durably, since a cache lost in a crash
    /// is only rebuilt. Made 0600.
    static func replaceCacheFile(_ path: String, with bytes: [UInt8]) throws(PrefsError) {
        let temp = temporaryPath(for: path)
        let fd: Int32
        do { fd = try SystemCall.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) } catch {
            throw error.io("cannot create", temp)
        }
        defer { SystemCall.close(fd) }
        do {
            try writeAll(fd, bytes)
            try SystemCall.rename(temp, path)
        } catch {
            try? SystemCall.unlink(temp)
            throw error.io("cannot write", path)
        }
    }

    /// Writes every byte of `bytes` to `fd`, retrying short writes. Used
    /// for temporary files here and for standard output by the `prefs`
    /// command.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var done = 0
        while done < bytes.count {
            done += try bytes.withUnsafeBytes { b in
                Result { () throws(Errno) in try SystemCall.write(fd, from: UnsafeRawBufferPointer(rebasing: b[done...])) }
            }.get()
        }
    }

    /// Flushes directory `dir` (the names just made or removed in it), as
    /// far as it can.
    static func flushDirectory(_ dir: String) {
        guard let fd = try? SystemCall.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) else { return }
        try? SystemCall.fsync(fd)
        SystemCall.close(fd)
    }

    /// Writes `bytes` to a file the user named (an export or conversion
    /// output, not a domain file: no lock, no merge), as a shell's `>` and
    /// `cp` would, without ever replacing what is not a regular file:
    ///
    /// - nothing there: a new file (0666 less the umask), made atomically;
    /// - a regular file of the caller's: replaced atomically and durably (a
    ///   temporary file renamed over it), keeping its permission bits but
    ///   never a set-user-ID, set-group-ID or sticky bit;
    /// - a regular file of another user's (root writing a user's file):
    ///   written through, as `cp` does, so that it keeps its owner and mode;
    /// - a symbolic link, a character device (`/dev/null`, a terminal) or a
    ///   FIFO: opened through the link and written through, truncated as
    ///   `>` truncates; the link, device or FIFO stays what it was. A link
    ///   is followed only when it is the caller's or root's (as the
    ///   kernel's `protected_symlinks` rule has it in sticky directories):
    ///   a link another user planted is refused;
    /// - a directory, a block device, a socket, a link to nothing: refused
    ///   before anything is written.
    ///
    /// When what `path` leads to is a terminal, `forTerminal` gives the
    /// bytes to write there instead (text escaped for people), or throws to
    /// write nothing (a binary file); its message follows "cannot write
    /// <path>: ". Without it, a terminal gets `bytes`.
    package static func replaceUserFile(
        _ path: String, with bytes: [UInt8], forTerminal: ((_ bytes: [UInt8]) throws(PrefsError) -> [UInt8])? = nil
    ) throws(PrefsError) {
        let st: stat
        do { st = try SystemCall.lstat(path) } catch {
            guard error.rawValue == ENOENT else { throw error.io("cannot examine", path) }
            _ = try replaceAtomically(path, with: bytes, mode: nil)
            return
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG where st.st_uid == geteuid():
            _ = try replaceAtomically(path, with: bytes, mode: st.st_mode & 0o777)
        case S_IFREG:
            try writeThrough(path, bytes, followingLinks: false)
        case S_IFDIR:
            throw PrefsError(.io, "cannot write \(path): it is a directory")
        case S_IFLNK where st.st_uid != geteuid() && st.st_uid != 0:
            throw PrefsError(.io, "cannot write \(path): it is a symbolic link of another user's, which is not followed")
        case S_IFLNK, S_IFCHR, S_IFIFO:
            try writeThrough(path, bytes, forTerminal: forTerminal)
        default:
            throw PrefsError(.io, "cannot write \(path): not a regular file, a character device or a FIFO")
        }
    }

    /// Writes `bytes` through `path` (a link, a device, a FIFO) as `>`
    /// does: the open follows links and blocks until a FIFO has a reader;
    /// what it leads to is checked on the descriptor before any byte is
    /// written.
    /// Without `followingLinks`, a symlink put at `path` since it was
    /// examined is refused rather than followed. A terminal gets what
    /// `forTerminal` makes of `bytes` (see ``replaceUserFile(_:with:forTerminal:)``).
    private static func writeThrough(
        _ path: String, _ bytes: [UInt8], followingLinks: Bool = true,
        forTerminal: ((_ bytes: [UInt8]) throws(PrefsError) -> [UInt8])? = nil
    ) throws(PrefsError) {
        let noFollow = followingLinks ? 0 : O_NOFOLLOW
        // Where a link leads, without opening it for writing (no O_TRUNC
        // yet, no waiting on a FIFO): a directory or a block device is
        // refused untouched.
        let probe: Int32
        do { probe = try SystemCall.open(path, 0o10000000 | O_CLOEXEC | noFollow) } catch {  // O_PATH, which Glibc does not import
            if error.rawValue == ENOENT { throw PrefsError(.io, "cannot write \(path): it is a symbolic link to nothing") }
            throw error.io("cannot open", path)
        }
        var st: stat
        do {
            defer { SystemCall.close(probe) }
            st = try SystemCall.fstat(probe)
        } catch { throw error.io("cannot examine", path) }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFCHR || kind == S_IFIFO else {
            throw PrefsError(
                .io, "cannot write \(path): it leads to \(kind == S_IFDIR ? "a directory" : "neither a regular file, a character device nor a FIFO")")
        }
        let fd: Int32
        do { fd = try SystemCall.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | noFollow) } catch { throw error.io("cannot open", path) }
        defer { SystemCall.close(fd) }
        do { st = try SystemCall.fstat(fd) } catch { throw error.io("cannot examine", path) }
        if (st.st_mode & S_IFMT) == S_IFREG {
            do { try SystemCall.ftruncate(fd, 0) } catch { throw error.io("cannot truncate", path) }
        } else if (st.st_mode & S_IFMT) != S_IFCHR && (st.st_mode & S_IFMT) != S_IFIFO {
            throw PrefsError(.io, "cannot write \(path): not a regular file, a character device or a FIFO")
        }
        var bytes = bytes
        if (st.st_mode & S_IFMT) == S_IFCHR, let forTerminal, isatty(fd) == 1 {
            do { bytes = try forTerminal(bytes) } catch { throw PrefsError(error.code, "cannot write \(path): \(error.message)") }
        }
        do { try writeAll(fd, bytes) } catch { throw error.io("cannot write", path) }
        if (st.st_mode & S_IFMT) == S_IFREG {
            do { try SystemCall.fsync(fd) } catch { throw error.io("cannot flush", path) }
        }
    }

    /// How the names of ``replaceAtomically(_:with:mode:)``'s temporary
    /// files for `path` begin: `.prefs.tmp-`, then a hash of the file's
    /// name, so that each file's leftovers are told apart from every other
    /// file's (and from files this library did not make). Short, so that a
    /// file name that fits in NAME_MAX leaves room for it.
    static func temporaryPrefix(of path: String) -> String {
        let h = String(stableHash(lastComponent(of: path)), radix: 16)
        return ".prefs.tmp-" + String(repeating: "0", count: 16 - h.utf8.count) + h + "-"
    }

    /// A new temporary file's path beside `path`: its prefix, this process
    /// and a random number.
    static func temporaryPath(for path: String) -> String {
        parent(of: path) + "/" + temporaryPrefix(of: path) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Removes the temporary files that writers of `path` killed half-way
    /// left beside it. Call it only under ``withDirectoryLock(_:_:)`` on its
    /// directory: every writer writes its temporary file under that lock, so
    /// while it is held any such file is left over.
    static func removeLeftoverTemporaries(of path: String) {
        let dir = parent(of: path)
        let prefix = temporaryPrefix(of: path)
        for name in list(dir) where name.hasPrefix(prefix) {
            try? SystemCall.unlink(dir + "/" + name)
        }
    }

    /// Moves `path` aside to a new name that says it did not parse, and
    /// returns that name. Nothing is deleted.
    static func moveAsideCorrupt(_ path: String) throws(PrefsError) -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        let stamp = ScalarText.formatISODate(Double(t.tv_sec))?.filter { $0 != "-" && $0 != ":" } ?? String(t.tv_sec)
        var target = "\(path).corrupt-\(stamp)"
        var n = 1
        while SystemCall.exists(target) { n += 1; target = "\(path).corrupt-\(stamp)-\(n)" }
        do { try SystemCall.rename(path, target) } catch { throw error.io("cannot move aside the unreadable", path) }
        return target
    }

    /// Removes the name `path` (a symlink itself, not what it leads to)
    /// under the lock of its directory and flushes the directory. Returns
    /// whether there was anything to remove; a missing directory or file
    /// is no error.
    @discardableResult
    static func removeFile(_ path: String) throws(PrefsError) -> Bool {
        let dir = parent(of: path)
        guard SystemCall.exists(dir) else { return false }
        return try withDirectoryLock(dir) { () throws(PrefsError) -> Bool in
            do throws(Errno) { try SystemCall.unlink(path) } catch {
                if error.rawValue == ENOENT { return false }
                throw error.io("cannot remove", path)
            }
            flushDirectory(dir)
            return true
        }
    }

    /// Names in directory `dir` (not `.` and `..`); empty when it does not exist.
    package static func list(_ dir: String) -> [String] { (try? SystemCall.directoryEntries(dir)) ?? [] }
}
