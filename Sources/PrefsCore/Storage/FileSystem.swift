import Glibc

/// Every system call the storage layer makes goes through here, so errno
/// handling, EINTR retries and error messages live in one place, and tests
/// can inject failures (see ``FileSystem/faultInjection``).
enum FileSystem {
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
    }

    static func errorText(_ e: Int32) -> String { String(cString: strerror(e)) }

    static func ioError(_ what: String, _ path: String, _ e: Int32 = errno) -> PrefsError {
        PrefsError(.io, "\(what) \(path): \(errorText(e))")
    }

    /// The stamp of `path`, following symlinks; `nil` when it does not exist.
    static func stamp(_ path: String) throws(PrefsError) -> Stamp? {
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ioError("cannot examine", path)
        }
        return Stamp(st)
    }

    /// The whole content of `path` and its stamp; `nil` when it does not exist.
    static func read(_ path: String) throws(PrefsError) -> (bytes: [UInt8], stamp: Stamp)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ioError("cannot open", path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ioError("cannot examine", path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw PrefsError(.io, "cannot read \(path): not a regular file") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while true {
            if done == bytes.count { bytes.append(contentsOf: repeatElement(0, count: 4096)) } // the file grew
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; throw ioError("cannot read", path) }
            if n == 0 { break }
            done += n
        }
        bytes.removeSubrange(done...)
        let stamp = Stamp(st)
        return (bytes, stamp)
    }

    /// Creates `path` and its missing parents with mode 0700.
    static func makeDirectories(_ path: String) throws(PrefsError) {
        if path.isEmpty || path == "/" { return }
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw PrefsError(.io, "cannot use \(path) as a directory: it is a file") }
            return
        }
        try makeDirectories(parent(of: path))
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw ioError("cannot create directory", path) }
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
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, Int(PATH_MAX))
            if n < 0 { return current }
            let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : parent(of: current) + "/" + target
        }
        return current
    }

    /// An exclusive lock on directory `dir`, released by the kernel if the
    /// process dies; `body` runs while it is held.
    static func withDirectoryLock<T>(_ dir: String, _ body: () throws(PrefsError) -> T) throws(PrefsError) -> T {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("cannot open directory", dir) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw ioError("cannot lock directory", dir) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Replaces `path` atomically and durably with `bytes`: writes a
    /// temporary file in the same directory, flushes it, renames it over
    /// `path`, flushes the directory. A reader sees the old file or the new
    /// one, never a mix. `mode` is applied to the new file.
    static func replaceAtomically(_ path: String, with bytes: [UInt8], mode: mode_t) throws(PrefsError) {
        let dir = parent(of: path)
        // A short name of its own, not derived from the file's: a name that
        // fits in NAME_MAX must not fail for want of room for a suffix.
        let temp = dir + "/" + temporaryPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ioError("cannot create", temp) }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        do {
            defer { close(fd) }
            try injectedFault("write")
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
                if n < 0 { if errno == EINTR { continue }; throw ioError("cannot write", temp) }
                done += n
            }
            _ = fchmod(fd, mode)
            guard fsync(fd) == 0 else { throw ioError("cannot flush", temp) }
        }
        try injectedFault("rename")
        guard rename(temp, path) == 0 else { throw ioError("cannot replace", path) }
        ok = true
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// How the names of ``replaceAtomically(_:with:mode:)``'s temporary files begin.
    static let temporaryPrefix = ".prefs.tmp-"

    /// Removes the temporary files that writers killed half-way left in
    /// `dir`. Call it only under ``withDirectoryLock(_:_:)``: every writer
    /// writes its temporary file under that lock, so while it is held any
    /// such file is left over.
    static func removeLeftoverTemporaries(in dir: String) {
        for name in list(dir) where name.hasPrefix(temporaryPrefix) {
            unlink(dir + "/" + name)
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
        while access(target, F_OK) == 0 { n += 1; target = "\(path).corrupt-\(stamp)-\(n)" }
        guard rename(path, target) == 0 else { throw ioError("cannot move aside the unreadable", path) }
        return target
    }

    /// Names in directory `dir` (not `.` and `..`); empty when it does not exist.
    static func list(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names = [String]()
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Fault injection, for tests of failure paths

    /// When the environment variable `PREFS_TEST_FAIL` names an operation
    /// (`write` or `rename`), that operation fails with ENOSPC or EROFS, so
    /// tests can check that failures lose nothing. Read once per process.
    static let faultInjection: String? = {
        guard let v = getenv("PREFS_TEST_FAIL") else { return nil }
        return String(cString: v)
    }()

    static func injectedFault(_ operation: String) throws(PrefsError) {
        guard let f = faultInjection, f == operation else { return }
        throw ioError("cannot \(operation) (injected failure)", "", operation == "write" ? ENOSPC : EROFS)
    }
}
