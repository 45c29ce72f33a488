import Glibc

/// The files `import` reads and `export` writes: ordinary files the user
/// names, not domain files (those are read and written by the store).
enum FileIO {
    private static func errorText() -> String { String(cString: strerror(errno)) }

    /// The whole content of `path`, or of standard input when `nil`.
    static func readAll(_ path: String?) throws(Failure) -> [UInt8] {
        let shown = path ?? "standard input"
        let fd: Int32
        if let path {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw .refused("prefs: cannot open \(path): \(errorText())") }
        } else {
            fd = 0
        }
        defer { if path != nil { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .refused("prefs: cannot read \(shown): \(errorText())")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Replaces `path` with `bytes` as a whole: a temporary file in the same
    /// directory, flushed, then renamed over it, so that a failure leaves the
    /// old file as it was. A new file gets mode 0666 less the umask; an
    /// existing file keeps its mode.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        var dir = "."
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) {
            dir = slash == path.utf8.startIndex ? "/" : String(path[..<slash])
        }
        var st = stat()
        let existing = stat(path, &st) == 0
        if existing && (st.st_mode & S_IFMT) == S_IFDIR { throw .refused("prefs: cannot write \(path): it is a directory") }
        let temp = (dir == "/" ? "" : dir) + "/.prefs-export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if fd < 0 { throw .refused("prefs: cannot write \(path): \(errorText())") }
        var ok = Output.writeAll(fd, bytes)
        if ok && existing { ok = fchmod(fd, st.st_mode & 0o7777) == 0 }
        if ok { ok = fsync(fd) == 0 }
        let reason = ok ? "" : errorText()
        close(fd)
        if ok, rename(temp, path) == 0 { return }
        let why = ok ? errorText() : reason
        unlink(temp)
        throw .refused("prefs: cannot write \(path): \(why)")
    }
}
