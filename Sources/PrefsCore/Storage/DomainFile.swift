import Glibc

/// One domain file in memory: what it held when last read, and this
/// process's changes not yet written. Guarded by the owning store's lock.
final class Domain: @unchecked Sendable {
    typealias Values = PropertyListDictionary

    let path: String
    /// What reads see: the file's content with `pending` applied.
    private(set) var values: Values = [:]
    /// This process's changes since the last write; `nil` removes the key.
    private(set) var pending: [PropertyList.Key: PropertyList?] = [:]
    /// The file as last read or written; `nil` when it did not exist.
    private(set) var stamp: FileSystem.Stamp? = nil
    private(set) var loaded = false
    /// Why the file on disk could not be used, when it could not.
    private(set) var problem: PrefsError? = nil
    /// The bytes `values` was built from (read and parsed, or written), so
    /// that a write finding the same bytes on disk need not parse them again.
    private var source: Fingerprint? = nil

    /// The length and a hash of a file's bytes.
    struct Fingerprint: Equatable {
        let count: Int
        let hash: Int
        init(_ bytes: [UInt8]) {
            var h = Hasher()
            bytes.withUnsafeBytes { h.combine(bytes: $0) }
            count = bytes.count
            hash = h.finalize()
        }
    }

    /// Whether the domain is every user's (any-user): its new file is
    /// written 0644 in directories made 0755, not 0600 and 0700.
    let shared: Bool
    /// Where the file really lives: `path`, or where the symlink at `path`
    /// led when last read or written.
    private(set) var file: String

    /// Whether `path` is a managed drop-in directory (`<id>.d`): its
    /// values are those of its `*.plist` files merged in the byte order of
    /// their names, a later file's key winning (see ``refreshDropIns()``).
    /// Such a domain is only read, never written.
    let isDropInDirectory: Bool
    /// The drop-in files as last read: name and stamp of each, in order.
    private var dropInStamps: [DropIn]? = nil

    struct DropIn: Equatable {
        let name: String
        let stamp: FileSystem.Stamp?
    }

    init(path: String, shared: Bool) {
        self.path = path
        self.shared = shared
        file = path
        isDropInDirectory = path.hasSuffix(Locations.dropInSuffix)
    }

    var hasPendingChanges: Bool { !pending.isEmpty }

    /// Whether the file differs from the one last read (one `stat`, which
    /// follows a symlink at `path`).
    var hasChangedOnDisk: Bool {
        if isDropInDirectory { return dropIns() != dropInStamps }
        return (try? FileSystem.stamp(path)) != stamp
    }

    /// The drop-in files of the directory at `path` now: every `*.plist`
    /// not starting with `.` (as the shell's `*.plist` matches, so editors'
    /// and writers' temporary files are left out), in the byte order of
    /// the names, each with its stamp (which follows a symlink). A listing
    /// and one `stat` per file.
    private func dropIns() -> [DropIn] {
        FileSystem.list(path)
            .filter { $0.hasSuffix(".plist") && $0.utf8.count > 6 && !$0.hasPrefix(".") }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { DropIn(name: $0, stamp: try? FileSystem.stamp(path + "/" + $0)) }
    }

    /// Reads a drop-in directory: each file in order, merged over the
    /// previous ones. A file that does not parse, is not a dictionary or
    /// cannot be read is skipped, the others still apply, and it is
    /// reported in ``problem`` (all such files, in one message).
    private func refreshDropIns() -> Bool {
        loaded = true
        let found = dropIns()
        dropInStamps = found
        var merged = Values()
        var problems: [PrefsError] = []
        for entry in found {
            let name = path + "/" + entry.name
            do throws(PrefsError) {
                let target = try FileSystem.resolvingLinks(name, ownedBy: Domain.readersTrust)
                guard let (bytes, _) = try FileSystem.read(target, followingLinks: false) else { continue }
                let values: Values
                do throws(PrefsError) {
                    values = try Domain.decode(bytes, path: name)
                } catch {
                    throw PrefsError(error.code, "\(error.message); the drop-in is skipped, the others apply")
                }
                merged.merge(values) { _, later in later }
            } catch {
                problems.append(error)
            }
        }
        problem =
            problems.isEmpty
            ? nil : PrefsError(problems[0].code, problems.map(\.message).joined(separator: "; "))
        values = merged
        return true
    }

    /// The users whose symlinks reads follow: anyone's, except in a setuid
    /// or setgid process, which follows only its own and root's, as writers do.
    private static var readersTrust: [uid_t]? {
        ProcessEnvironment.isSecure ? ProcessEnvironment.trustedOwners : nil
    }

    /// Reads the file when it was never read or has changed since. Returns
    /// whether the values may have changed. A file that does not parse is
    /// left untouched on disk and reported in ``problem``; this process's
    /// view of the domain is then empty (plus its own pending changes).
    @discardableResult
    func refresh() -> Bool {
        if loaded && !hasChangedOnDisk { return false }
        if isDropInDirectory { return refreshDropIns() }
        loaded = true
        do throws(PrefsError) {
            source = nil
            let target = try FileSystem.resolvingLinks(path, ownedBy: Domain.readersTrust)
            file = target
            guard let (bytes, stamp) = try FileSystem.read(target, followingLinks: false) else {
                self.stamp = nil
                problem = nil
                rebuild(from: [:])
                return true
            }
            self.stamp = stamp
            do throws(PrefsError) {
                rebuild(from: try Domain.decode(bytes, path: target))
                problem = nil
                source = Fingerprint(bytes)
            } catch {
                problem = error
                rebuild(from: [:])
            }
        } catch {
            problem = error
        }
        return true
    }

    /// The dictionary a domain file holds, or why it holds none.
    static func decode(_ bytes: [UInt8], path: String) throws(PrefsError) -> Values {
        let value: PropertyList
        do throws(PrefsError) {
            value = try PropertyList.parse(bytes)
        } catch {
            throw PrefsError(.corruptFile, "\(path) does not parse (\(error.message)); it is kept as it is")
        }
        guard let d = value.dictionaryValue else {
            throw PrefsError(.corruptFile, "\(path) holds a \(value.kind), not a dictionary; it is kept as it is")
        }
        return d
    }

    private func rebuild(from stored: Values) {
        var v = stored
        for (k, change) in pending { v[k] = change }
        values = v
    }

    /// Records a change made by this process; reads see it at once.
    func set(_ key: PropertyList.Key, _ value: PropertyList?) {
        if !loaded { refresh() }
        pending[key] = .some(value)
        values[key] = value
    }

    /// Removes the domain's file (the name at `path`: a symlink goes, the
    /// file it leads to stays) and forgets this process's pending changes,
    /// so the domain is empty in memory and on disk. Returns whether a file
    /// was removed. On failure nothing changes.
    @discardableResult
    func remove() throws(PrefsError) -> Bool {
        let removed = try FileSystem.removeFile(path)
        pending = [:]
        values = [:]
        source = nil
        problem = nil
        stamp = nil
        file = path
        loaded = true
        return removed
    }

    /// Writes this process's pending changes: under an exclusive lock on the
    /// file's directory, re-reads the file, applies only the pending keys,
    /// and replaces the file atomically and durably. A file that does not
    /// parse is first moved aside (never overwritten) and reported through
    /// the returned note. A symlink is followed only when it and its target
    /// belong to this user or root; a file that is not a regular one is
    /// refused. On failure nothing on disk changes and the changes stay
    /// pending.
    func commit() throws(PrefsError) -> PrefsError? {
        guard !pending.isEmpty else { return nil }
        let target = try FileSystem.resolvingLinks(path, ownedBy: ProcessEnvironment.trustedOwners)
        file = target
        let dir = FileSystem.parent(of: target)
        try FileSystem.makeDirectories(dir, mode: shared ? 0o755 : 0o700)
        var note: PrefsError? = nil
        try FileSystem.withDirectoryLock(dir) { () throws(PrefsError) in
            var stored: Values = [:]
            var mode: mode_t = shared ? 0o644 : 0o600
            if let (bytes, found) = try FileSystem.read(target, followingLinks: false) {
                mode = found.mode
                if let source, loaded, source == Fingerprint(bytes) {
                    // The bytes `values` came from: it is already the file
                    // with the pending changes applied.
                    stored = values
                } else {
                    do throws(PrefsError) {
                        stored = try Domain.decode(bytes, path: target)
                    } catch {
                        let aside = try FileSystem.moveAsideCorrupt(target)
                        note = PrefsError(.corruptFile, "\(target) did not parse (\(error.message)); it was moved to \(aside) and a new file was started")
                    }
                }
            }
            for (k, change) in pending { stored[k] = change }
            let bytes = try PropertyList(.dictionary(stored)).xmlData()
            FileSystem.removeLeftoverTemporaries(of: target)
            try FileSystem.replaceAtomically(target, with: bytes, mode: mode)
            source = Fingerprint(bytes)
            pending = [:]
            values = stored
            stamp = try? FileSystem.stamp(target)
            problem = nil
            loaded = true
        }
        return note
    }
}
