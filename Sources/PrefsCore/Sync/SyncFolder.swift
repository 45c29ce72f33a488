import Glibc

extension FileSystem {
    /// The bytes of a machine file in a sync folder, a folder other
    /// machines (and whoever can write it) fill: refused, unopened, when
    /// `path` is a symlink, not a regular file, not owned by `owner`, or
    /// over `maximumSize` bytes; opened without following links or blocking
    /// and examined again once open, so a file swapped in between is caught.
    /// Returns the bytes and the stamp of what was read, or a reason.
    static func readSyncFile(_ path: String, owner: uid_t, maximumSize: Int) -> Result<([UInt8], Stamp), PrefsError> {
        func check(_ st: stat) -> PrefsError? {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: return PrefsError(.io, "it is a symbolic link")
            case S_IFDIR: return PrefsError(.io, "it is a directory")
            default: return PrefsError(.io, "it is not a regular file")
            }
            if st.st_uid != owner { return PrefsError(.io, "it belongs to another user (uid \(st.st_uid))") }
            if st.st_size > maximumSize {
                return PrefsError(.io, "it is \(st.st_size) bytes, more than the \(maximumSize >> 20) MiB a machine file may hold")
            }
            return nil
        }
        var st: stat
        do { st = try SystemCall.lstat(path) } catch { return .failure(error.io("cannot examine", path)) }
        if let problem = check(st) { return .failure(problem) }
        let fd: Int32
        do { fd = try SystemCall.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) } catch {
            return .failure(error.io("cannot open", path))
        }
        defer { SystemCall.close(fd) }
        do { st = try SystemCall.fstat(fd) } catch { return .failure(error.io("cannot examine", path)) }
        if let problem = check(st) { return .failure(problem) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        let done: Int
        do { done = try readFully(fd, &bytes, at: 0) } catch { return .failure(error.io("cannot read", path)) }
        // One byte more than fstat said means the file grew while read: its
        // next version will be read whole at the next look.
        guard done <= Int(st.st_size) else { return .failure(PrefsError(.io, "it changed while it was read")) }
        bytes.removeSubrange(done...)
        return .success((bytes, Stamp(st)))
    }

    /// The stamp of `path` itself (a symlink's own), `nil` when it does not
    /// exist or cannot be examined.
    static func linkStamp(_ path: String) -> Stamp? { (try? SystemCall.lstat(path)).map(Stamp.init) }
}

/// One look at a sync folder: every usable machine file, merged, and what
/// was ignored in it and why. Immutable; safe to share.
package struct SyncSnapshot: Sendable {
    /// The folder looked at.
    package var folder: String
    /// The machine files read, by machine.
    package var files: [MachineID: SyncFile] = [:]
    /// Their merged state.
    package var state = SyncState()
    /// What was ignored, by file name: a whole file, or entries in it.
    package var problems: [String: String] = [:]
    /// The stamps of every entry looked at, to tell whether anything changed.
    fileprivate var stamps: [String: FileSystem.Stamp] = [:]

    package init(folder: String) { self.folder = folder }
}

/// Reads a sync folder, which it treats as hostile: only names of the form
/// `machine-<identity>.plist` are machine files; anything there that is not
/// a regular file of the user, is larger than
/// ``SyncLimits/maximumFileSize``, does not parse or names another machine
/// is ignored and reported, and the others still apply. It only reads: it
/// creates nothing, in the folder or elsewhere. A file whose stamp has not
/// changed is not read again.
///
/// Not thread-safe: its owner serialises calls (the store under its lock).
package final class SyncFolderReader {
    /// The folder.
    package let folder: String
    /// The user whose files are believed.
    package let owner: uid_t
    private var last: SyncSnapshot
    private var parsed: [String: (stamp: FileSystem.Stamp, file: SyncFile?, problem: String?)] = [:]

    package init(folder: String, owner: uid_t = ProcessEnvironment.user) {
        self.folder = folder
        self.owner = owner
        self.last = SyncSnapshot(folder: folder)
    }

    /// The folder as it is now. Costs a listing and an `lstat` per entry;
    /// files are read only when their stamp changed.
    package func scan() -> SyncSnapshot {
        var stamps = [String: FileSystem.Stamp]()
        let names = FileSystem.list(folder).filter { !$0.hasPrefix(".") }.sorted()
        for name in names {
            if let s = FileSystem.linkStamp(folder + "/" + name) { stamps[name] = s }
        }
        if stamps == last.stamps && names.count == last.stamps.count { return last }
        var snapshot = SyncSnapshot(folder: folder)
        snapshot.stamps = stamps
        var seen = Set<String>()
        for name in names {
            seen.insert(name)
            guard let machine = SyncFile.machine(ofFileName: name) else {
                snapshot.problems[name] = "not a machine file (machine-<identity>.plist)"
                continue
            }
            guard let stamp = stamps[name] else { continue }  // gone since the listing
            if let cached = parsed[name], cached.stamp == stamp {
                if let file = cached.file { snapshot.files[machine] = file }
                if let problem = cached.problem { snapshot.problems[name] = problem }
                continue
            }
            var entry: (stamp: FileSystem.Stamp, file: SyncFile?, problem: String?) = (stamp, nil, nil)
            switch FileSystem.readSyncFile(folder + "/" + name, owner: owner, maximumSize: SyncLimits.maximumFileSize) {
            case .failure(let error):
                entry.problem = "ignored: " + error.message
            case .success(let (bytes, readStamp)):
                entry.stamp = readStamp
                do {
                    let (file, problems) = try SyncFile.decode(bytes, machine: machine)
                    entry.file = file
                    if !problems.isEmpty { entry.problem = problems.joined(separator: "; ") }
                } catch {
                    entry.problem = "ignored: " + error.message
                }
            }
            // A file rewritten between lstat and read is read again next time.
            if entry.stamp != stamp { snapshot.stamps[name] = entry.stamp }
            parsed[name] = entry
            if let file = entry.file { snapshot.files[machine] = file }
            if let problem = entry.problem { snapshot.problems[name] = problem }
        }
        for name in parsed.keys where !seen.contains(name) { parsed[name] = nil }
        // Merged in machine order, so the state is built the same way each time.
        for machine in snapshot.files.keys.sorted() { snapshot.state.merge(snapshot.files[machine]!) }
        last = snapshot
        return snapshot
    }
}
