import CSystemShims
import Glibc

/// A 64-bit counter of changes to one preference directory tree, in a small
/// file that every process maps into memory. A writer bumps it after
/// replacing a domain file of that tree and before its synchronize returns;
/// a reader compares it with the value it saw last on every read. A change
/// made by another process is therefore seen by the very next read, and an
/// unchanged counter costs one memory load: no system call.
///
/// Where the counter lives:
/// - the user's directory: slot `hash(directory) % 512` of
///   `<runtime directory>/prefs-changes`, a 4 KiB file made by the first
///   process that opens a store (reader or writer); without a runtime
///   directory, like the next case;
/// - every other directory: `<directory>/.prefs-changes`, made by the first
///   write there (when the store may make files there), never by a read.
///
/// A mapped file that is truncated raises SIGBUS at the next read, and no
/// process can stop another from truncating a file it may write. So a
/// counter is mapped only when the file is a regular file of at least 4 KiB
/// that only this process's user or root can write (owned by one of them,
/// no write permission for group or others), opened without following a
/// symlink or blocking on a FIFO. A counter that is not mapped never
/// changes: changes there are still found by synchronize and by the file
/// watcher.
///
/// Used under the owning store's lock.
final class ChangeCounter: @unchecked Sendable {
    /// The directory tree whose changes this counter counts.
    let directory: String
    /// The counter file.
    private let path: String
    /// Which 64-bit word of the file is this directory's.
    private let slot: Int
    /// Whether a write may still try to make the file when it is missing
    /// (once).
    private var createOnWrite: Bool
    private var counter: UnsafeMutablePointer<UInt64>? = nil
    private var writable = false

    static let fileName = ".prefs-changes"
    /// The name of the user's counter file in the runtime directory.
    static let runtimeFileName = "prefs-changes"
    private static let size = 4096

    /// The counter of the user's `directory`, in `runtimeDirectory`; the
    /// file is made now when missing.
    init(directory: String, runtimeDirectory: String) {
        self.directory = directory
        path = runtimeDirectory + "/" + ChangeCounter.runtimeFileName
        slot = Int(FileSystem.stableHash(directory) % UInt64(ChangeCounter.size / 8))
        createOnWrite = false
        if !map() { ChangeCounter.create(path, mode: 0o600); _ = map() }
    }

    /// The counter in `directory` itself, mapped when the file exists; with
    /// `createOnWrite`, the first ``bump()`` makes it when missing.
    init(directory: String, createOnWrite: Bool) {
        self.directory = directory
        path = directory + "/" + ChangeCounter.fileName
        slot = 0
        self.createOnWrite = createOnWrite
        _ = map()
    }

    /// Maps the file when it is one only this user or root can write (see
    /// the type's description). Returns whether it is mapped.
    private func map() -> Bool {
        let flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let fd: Int32
        writable = true
        do { fd = try SystemCall.open(path, O_RDWR | flags) } catch {
            writable = false
            guard error.rawValue == EACCES || error.rawValue == EROFS, let readOnly = try? SystemCall.open(path, O_RDONLY | flags) else {
                return false
            }
            fd = readOnly
        }
        defer { SystemCall.close(fd) }
        guard let st = try? SystemCall.fstat(fd), (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) >= ChangeCounter.size,
            st.st_uid == geteuid() || st.st_uid == 0, (st.st_mode & 0o022) == 0
        else { return false }
        let prot = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
        guard let p = try? SystemCall.mmap(fd, ChangeCounter.size, prot) else { return false }
        counter = p.assumingMemoryBound(to: UInt64.self) + slot
        return true
    }

    /// Creates the counter file at `path` with its blocks allocated (a write
    /// to an unallocated page of a mapping on a full disk raises SIGBUS): a
    /// new file is allocated under a temporary name, then linked into place,
    /// so no process ever maps a file that is still short. Another
    /// process's file already there is kept.
    private static func create(_ path: String, mode: mode_t) {
        let temp = "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let fd = try? SystemCall.open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) else { return }
        let allocated = (try? SystemCall.fchmod(fd, mode)) != nil && (try? SystemCall.fallocate(fd, size)) != nil
        SystemCall.close(fd)
        if allocated { try? SystemCall.link(temp, path) }  // EEXIST: another process was first
        try? SystemCall.unlink(temp)
    }

    /// The current count; 0 when the counter could not be mapped.
    @inline(__always)
    var value: UInt64 { counter.map { prefs_atomic_load($0) } ?? 0 }

    /// Records a change (when this process may write the counter). When
    /// there is no file yet and this counter may make one, makes and maps
    /// it, so that processes started from now on see the next changes at
    /// once. Returns the count after the change, `nil` when nothing was
    /// counted. Called under the store's lock.
    @discardableResult
    func bump() -> UInt64? {
        if counter == nil && createOnWrite {
            createOnWrite = false
            ChangeCounter.create(path, mode: 0o644)
            _ = map()
        }
        guard let counter, writable else { return nil }
        return prefs_atomic_increment(counter)
    }

    /// Whether `path` lies in this counter's directory tree.
    func covers(_ path: String) -> Bool {
        path.hasPrefix(directory + "/")
    }
}
