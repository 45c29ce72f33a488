import CAtomics
import Glibc

/// A 64-bit counter in a small file (`<dir>/.prefs-changes`) that every
/// process maps into memory. A writer bumps it after replacing a domain file
/// of that directory tree and before its synchronize returns; a reader
/// compares it with the value it saw last on every read. A change made by
/// another process is therefore seen by the very next read, and an
/// unchanged counter costs one memory load: no system call.
final class ChangeCounter: @unchecked Sendable {
    let directory: String
    /// The counter file, `<directory>/.prefs-changes`.
    private let path: String
    private let counter: UnsafeMutablePointer<UInt64>?

    static let fileName = ".prefs-changes"
    private static let size = 4096

    /// Maps the counter of `directory`. With `create` (the user's own
    /// directory) the directory and the file are made when missing; without
    /// it (system-wide directories) an existing file is mapped and nothing
    /// is created until this process writes a domain there. A counter that
    /// is not mapped never changes: changes there are still found by
    /// synchronize and by the file watcher.
    init(directory: String, create: Bool) {
        self.directory = directory
        path = directory + "/" + ChangeCounter.fileName
        if create { try? FileSystem.makeDirectories(directory) }
        var fd = open(path, O_RDWR | O_CLOEXEC)
        var writable = true
        if fd < 0 && errno == ENOENT && create { fd = ChangeCounter.create(path) }
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            writable = false
        }
        guard fd >= 0 else { counter = nil; return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) >= 8 else { counter = nil; return }
        let prot = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
        let p = mmap(nil, ChangeCounter.size, prot, MAP_SHARED, fd, 0)
        counter = p == MAP_FAILED ? nil : p?.assumingMemoryBound(to: UInt64.self)
        self.writable = writable
    }

    private var writable = false
    /// Whether this process has made the file that was missing (see ``bump()``).
    private var madeFile = false

    /// Creates the counter file at `path` with its blocks allocated (a write
    /// to an unallocated page of a mapping on a full disk raises SIGBUS): a
    /// new file is allocated under a temporary name, then linked into place,
    /// so no process ever maps a file that is still short. Returns an open
    /// descriptor, or -1.
    private static func create(_ path: String) -> Int32 {
        let temp = "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return -1 }
        let allocated = posix_fallocate(fd, 0, off_t(size)) == 0
        close(fd)
        if allocated { _ = link(temp, path) } // EEXIST: another process was first
        unlink(temp)
        return open(path, O_RDWR | O_CLOEXEC)
    }

    /// The current count; 0 when the counter could not be mapped.
    @inline(__always)
    var value: UInt64 { counter.map { prefs_atomic_load($0) } ?? 0 }

    /// Records a change (when this process may write the counter). When
    /// there was no file to map, makes one, so that processes started from
    /// now on see the next changes at once. Called under the store's lock.
    func bump() {
        if let counter {
            if writable { _ = prefs_atomic_increment(counter) }
        } else if !madeFile {
            madeFile = true
            let fd = ChangeCounter.create(path)
            if fd >= 0 { close(fd) }
        }
    }

    /// Whether `path` lies in this counter's directory tree.
    func covers(_ path: String) -> Bool {
        path.hasPrefix(directory + "/")
    }
}
