import Glibc

/// One domain file in memory: what it held when last read, and this
/// process's changes not yet written. Guarded by the owning store's lock,
/// so the exclusivity check is left out of the hot fields.
final class Domain: @unchecked Sendable {
    typealias Values = PropertyListDictionary

    let path: String
    /// What reads see: the file's content with `pending` applied; `nil`
    /// while the content is only in `indexed`.
    @exclusivity(unchecked) private var materialized: Values? = [:]
    /// Whether reads see no key at all (`materialized` is empty): set
    /// wherever `materialized` changes, so that the empty layers every set
    /// and many reads pass (managed files that do not exist) cost one
    /// load, not a dictionary lookup. `false` while only `indexed` holds
    /// the content.
    @exclusivity(unchecked) private(set) var isKnownEmpty = true {
        didSet { if let tally, oldValue != isKnownEmpty { tally.holding += isKnownEmpty ? -1 : 1 } }
    }
    /// The store's count of managed domains that may hold keys, once a
    /// set looked at this domain as a managed layer: kept current as
    /// `isKnownEmpty` changes.
    @exclusivity(unchecked) private var tally: ManagedTally? = nil
    /// The file's index, when the file was read through it and its values
    /// were not all needed yet: single keys are looked up in it.
    @exclusivity(unchecked) private var indexed: DomainIndex.Contents? = nil
    /// The file's entries as last written or read through its index, in
    /// the order it lists them (sorted by key), without this process's
    /// pending changes: the next write merges those in instead of sorting
    /// the whole domain again.
    private var order: [Entry]? = nil
    /// The file's bytes and the values of a few keys, when it was parsed
    /// for those keys only (``refresh(usingIndex:only:)``): every other
    /// read builds the rest from these bytes, as the file was then.
    @exclusivity(unchecked) private var partial: Partial? = nil

    /// Whether the file was parsed for a few keys only and the rest is
    /// not built yet (for tests).
    var isPartlyBuilt: Bool { partial != nil }

    struct Partial {
        let keys: [String]
        let values: Values
        let bytes: [UInt8]
        let stamp: FileSystem.Stamp
    }

    typealias Entry = (key: PropertyList.Key, value: PropertyList)
    /// This process's changes since the last write; `nil` removes the key.
    /// The newest sets may still be in `recent` instead (see ``fold()``).
    @exclusivity(unchecked) private var pending: [PropertyList.Key: PropertyList?] = [:]
    /// The newest sets of keys to a value (not removals), not yet folded
    /// into `pending` and `materialized`: newer than both, so reads look
    /// here first. A key set again before the next write is found here by
    /// a short scan and its value replaced, instead of two updates of
    /// dictionaries as large as the domain. At most ``recentCapacity``
    /// entries, each key once; folded by everything that reads `pending`
    /// or `materialized` as a whole (`values`, `commit`, `rebuild`, ...).
    @exclusivity(unchecked) private var recent: [Recent] = []
    static let recentCapacity = 8
    /// How many sets found their key in `recent` since it was last folded.
    @exclusivity(unchecked) private var recentHits = 0
    /// Whether sets skip `recent` until the next write (see ``setRecent(_:_:)``).
    @exclusivity(unchecked) private var recentBypassed = false

    struct Recent {
        /// The key's length in bytes and its first 16 bytes (zero after
        /// its end), compared before the key: keys of at most 16 bytes,
        /// most keys, are told apart by these alone.
        let count: Int
        let w0: UInt64
        let w1: UInt64
        let key: PropertyList.Key
        var value: PropertyList
    }

    /// The length and first 16 bytes of `b`, as ``Recent`` keeps them.
    @inline(__always)
    private static func prefix(_ b: UnsafeRawBufferPointer) -> (count: Int, w0: UInt64, w1: UInt64) {
        let n = b.count
        guard let base = b.baseAddress else { return (0, 0, 0) }
        if n >= 8 {
            // Whole words: the second one, for 8 < n < 16, loaded to end
            // at the key's end and shifted down past the bytes of the first.
            let w0 = base.loadUnaligned(as: UInt64.self)
            if n >= 16 { return (n, w0, base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            if n == 8 { return (n, w0, 0) }
            return (n, w0, base.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) &>> UInt64((16 &- n) &* 8))
        }
        var w0: UInt64 = 0
        var i = 0
        while i < n {
            w0 |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) &<< UInt64(i &* 8)
            i &+= 1
        }
        return (n, w0, 0)
    }
    /// The file as last read or written; `nil` when it did not exist.
    private(set) var stamp: FileSystem.Stamp? = nil
    @exclusivity(unchecked) private(set) var loaded = false
    /// Why the file on disk could not be used, when it could not.
    private(set) var problem: PrefsError? = nil
    /// The file `values` was built from (read, or written), so that a
    /// write finding the same file on disk need not read or parse it again.
    private var source: Source? = nil

    /// What tells a file's version from another: its identity when read or
    /// written, and the keyed hash of its bytes. The identity alone proves
    /// the file unchanged when it is not racy (see ``DomainIndex``): when
    /// the time the identity was taken after (`since`, by the file system's
    /// clock) is known to be later than the file's change and modification
    /// times. Otherwise, the bytes are read and hashed: ``SipHash`` under a
    /// key nobody else knows (this process's, or a random one kept in the
    /// user's own index), so that no file can be made to pass for another.
    struct Source {
        let stamp: FileSystem.Stamp
        /// A time of the file system's clock before the identity was taken.
        let since: Int64?
        let key: SipHash.Key
        /// `nil` when only the identity can tell (an index not racy when made).
        let digest: SipHash?

        /// Whether `now` (just `fstat`ed) proves the file unchanged without
        /// reading it.
        func unchanged(_ now: FileSystem.Stamp) -> Bool {
            guard let since, stamp.sameIdentity(now) else { return false }
            return stamp.ctimeNanoseconds < since && stamp.mtime < since
        }

        /// Whether `bytes`, the file read now, are the bytes this was taken of.
        func matches(_ now: FileSystem.Stamp, _ bytes: [UInt8]) -> Bool {
            guard let digest, bytes.count == Int(stamp.size), now.size == stamp.size else { return false }
            return SipHash(bytes, key: key) == digest
        }

        /// The source of a file read through its index (whose time is of
        /// the file's clock only when both are on one device).
        init(_ record: DomainIndex.Record) {
            stamp = record.stamp
            since = record.clockDevice == record.stamp.device ? record.made : nil
            key = record.key
            digest = record.digest
        }

        /// The source of a file read and parsed: hashed under this process's key.
        init(read stamp: FileSystem.Stamp, _ bytes: [UInt8]) {
            self.stamp = stamp
            since = nil
            key = .process
            digest = SipHash(bytes, key: .process)
        }

        init(stamp: FileSystem.Stamp, since: Int64?, key: SipHash.Key, digest: SipHash) {
            self.stamp = stamp
            self.since = since
            self.key = key
            self.digest = digest
        }
    }

    /// Whether the last ``commit()`` that wrote was spliced.
    private(set) var lastWriteSpliced = false

    /// Whether the last ``commit()`` met a file other than the one this
    /// process last read or wrote: its values then took in others' changes.
    private(set) var commitMetChanges = false

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

    /// The binary cache of the file's values; `nil` for files that get none.
    let index: DomainIndex?

    init(path: String, shared: Bool, index: DomainIndex? = nil) {
        self.path = path
        self.shared = shared
        self.index = index
        file = path
        isDropInDirectory = path.hasSuffix(Locations.dropInSuffix)
    }

    var hasPendingChanges: Bool { !pending.isEmpty || !recent.isEmpty }

    /// Moves the `recent` sets into `pending` and `materialized`, oldest
    /// first.
    private func fold() {
        if recent.isEmpty { return }
        for r in recent {
            pending[r.key] = .some(r.value)
            if materialized != nil { materialized![r.key] = r.value }
        }
        recent.removeAll(keepingCapacity: true)
        recentHits = 0
    }

    /// The position in `recent` of `key`, whose length and first bytes
    /// are `p`.
    @inline(__always)
    private func recentIndex(_ key: PropertyList.Key, _ p: (count: Int, w0: UInt64, w1: UInt64)) -> Int? {
        var i = 0
        let n = recent.count
        while i < n {
            if recent[i].count == p.count && recent[i].w0 == p.w0 && recent[i].w1 == p.w1 {
                if p.count <= 16 || recent[i].key == key { return i }
            }
            i &+= 1
        }
        return nil
    }

    /// ``recentIndex(_:_:)`` of `key`.
    @inline(__always)
    private func recentIndex(_ key: PropertyList.Key) -> Int? {
        recentIndex(key, key.withBytes { Self.prefix($0) })
    }

    /// Sets `key` to `value` when it is among the newest sets (see
    /// `recent`), without storing `key`, which may be borrowed; returns
    /// whether it was.
    func replaceRecent(_ key: PropertyList.Key, _ value: __owned PropertyList) -> Bool {
        if recent.isEmpty { return false }
        guard let i = recentIndex(key) else { return false }
        recent[i].value = value
        recentHits &+= 1
        return true
    }

    /// Counts this domain in `t` from now on (once: a domain belongs to one store).
    func count(in t: ManagedTally) {
        guard tally == nil else { return }
        tally = t
        if !isKnownEmpty { t.holding += 1 }
    }

    /// What reads see: the file's content with this process's changes.
    var values: Values {
        fold()
        if materialized == nil { materialize() }
        return materialized!
    }

    /// The value of `key` that reads see: decodes only that key when the
    /// file was read through its index.
    func value(forKey key: PropertyList.Key) -> PropertyList? {
        if isKnownEmpty { return nil }
        if !recent.isEmpty, let i = recentIndex(key) { return recent[i].value }
        if let materialized { return materialized[key] }
        if let change = pending[key] { return change }
        if let partial {
            if partial.keys.contains(where: { PropertyList.Key($0) == key }) { return partial.values[key] }
            materialize()
            return materialized![key]
        }
        switch indexed!.value(forKey: key) {
        case .value(let v): return v
        case .absent: return nil
        case .corrupt:
            materialize()
            return materialized![key]
        }
    }

    /// Decodes every value of the index; an index whose entries are not
    /// what this library writes is dropped, and the file is parsed.
    private func materialize() {
        fold()
        if let partial {
            self.partial = nil
            do throws(PrefsError) {
                rebuild(from: try Domain.decode(partial.bytes, path: file))
                source = Source(read: partial.stamp, partial.bytes)
            } catch {
                // Not expected: the partial parse made every check this one makes.
                problem = error
                rebuild(from: [:])
            }
            return
        }
        if let indexed, let all = indexed.allValues() {
            rebuild(from: all.values)
            order = all.order
            return
        }
        loaded = false
        refresh(usingIndex: false)
        // The file could not be read again: it holds nothing usable.
        if materialized == nil { rebuild(from: [:]) }
    }

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
        rebuild(from: merged)
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
    ///
    /// `keys`: when given, an XML file is parsed for these keys' values
    /// only (the whole file still checked); the rest is built from its
    /// bytes when first asked for, and the file is hashed only when a
    /// write needs to compare it. A read of one key of a domain pays for
    /// one value, not for all of them.
    @discardableResult
    func refresh(usingIndex: Bool = true, only keys: [String]? = nil) -> Bool {
        if loaded && !hasChangedOnDisk { return false }
        if isDropInDirectory { return refreshDropIns() }
        loaded = true
        order = nil
        partial = nil
        do throws(PrefsError) {
            source = nil
            let target = try FileSystem.resolvingLinks(path, ownedBy: Domain.readersTrust)
            file = target
            guard let file = try FileSystem.openForReading(target, followingLinks: false) else {
                self.stamp = nil
                problem = nil
                rebuild(from: [:])
                return true
            }
            defer { file.close() }
            self.stamp = file.stamp
            // Read only when the index cannot be trusted on the file's
            // identity alone, and then once.
            var bytes: [UInt8]? = nil
            do throws(PrefsError) {
                if usingIndex, let index,
                    let contents = index.contents(
                        for: file.stamp,
                        content: {
                            if bytes == nil { bytes = try? file.readAll() }
                            return bytes
                        })
                {
                    indexed = contents
                    materialized = nil
                    isKnownEmpty = false
                    source = Source(contents.record)
                } else {
                    let read: [UInt8]
                    if let bytes { read = bytes } else { read = try file.readAll() }
                    if let keys, let (found, count) = PropertyList.parseEntries(read, only: keys), count > 0 {
                        indexed = nil
                        materialized = nil
                        isKnownEmpty = false
                        partial = Partial(keys: keys, values: found, bytes: read, stamp: file.stamp)
                    } else {
                        rebuild(from: try Domain.decode(read, path: target))
                        source = Source(read: file.stamp, read)
                    }
                }
                problem = nil
            } catch {
                problem = error
                rebuild(from: [:])
            }
        } catch {
            problem = error
        }
        return true
    }

    /// The dictionary the domain file whose bytes are `bytes` holds, and its
    /// keys in the file's order when known: from the index when it has the
    /// values of exactly these bytes, else parsed. Never writes an index:
    /// a process that only reads pays for the parse and nothing else, and
    /// the next libprefs write of the domain makes its index.
    private func decode(
        _ bytes: [UInt8], _ stamp: FileSystem.Stamp, path: String
    ) throws(PrefsError) -> (
        values: Values, order: [Entry]?
    ) {
        if let index, let all = index.contents(for: stamp, content: { bytes })?.allValues() { return all }
        return (try Domain.decode(bytes, path: path), nil)
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
        fold()
        var v = stored
        for (k, change) in pending { v[k] = change }
        materialized = v
        isKnownEmpty = v.isEmpty
        indexed = nil
        partial = nil
    }

    /// `order` (entries sorted by key) with `changes` applied: removed keys left out,
    /// new ones inserted in place (found by binary search), so that a
    /// change of a few keys costs a copy of the list, not a sort.
    static func merging(_ changes: [PropertyList.Key: PropertyList?], into order: [Entry]) -> [Entry] {
        var out = [Entry]()
        out.reserveCapacity(order.count + changes.count)
        var from = 0
        for key in changes.keys.sorted() {
            var low = from, high = order.count
            while low < high {
                let mid = (low + high) / 2
                if order[mid].key < key { low = mid + 1 } else { high = mid }
            }
            out.append(contentsOf: order[from..<low])
            from = low
            if from < order.count && order[from].key == key { from += 1 }
            if let value = changes[key]! { out.append((key, value)) }
        }
        out.append(contentsOf: order[from...])
        return out
    }

    /// The bytes of a domain file holding `entries` (sorted by key): binary
    /// when the file was binary, as `cfprefsd` keeps it, so that no value
    /// loses what XML cannot carry (a date's fraction of a second, a
    /// control character); else XML, unless a value is one only the binary
    /// format carries, which makes the file binary.
    static func encode(_ entries: [Entry], binary: Bool) throws(PrefsError) -> [UInt8] {
        try encodeWithSpans(entries, binary: binary).bytes
    }

    /// As ``encode(_:binary:)``, with the length of each entry's text when
    /// the file is XML (see ``XMLWriter/writeDomainWithSpans(_:)``).
    static func encodeWithSpans(_ entries: [Entry], binary: Bool) throws(PrefsError) -> (bytes: [UInt8], spans: [UInt32]?) {
        if !binary, let xml = try XMLWriter.writeDomainWithSpans(entries) { return (xml.bytes, xml.spans) }
        return (try BinaryWriter.write(dictionaryEntries: entries), nil)
    }

    /// Records a change made by this process, as ``set(_:_:)`` does,
    /// among the newest sets (`recent`): a set of one key that is likely
    /// to be set again (the short path of a set through a handle), which
    /// ``replaceRecent(_:_:)`` did not find there. `key` is stored: it
    /// must not be borrowed.
    ///
    /// When the newest sets fill up without a key set twice, keys are not
    /// being set again (a program storing many keys once): until the next
    /// write, sets go to the dictionaries at once, as ``set(_:_:)`` does,
    /// rather than through `recent` as well.
    func setRecent(_ key: PropertyList.Key, _ value: PropertyList) {
        if !loaded { refresh() }
        if !recentBypassed && recent.count == Self.recentCapacity {
            recentBypassed = recentHits == 0
            fold()
        }
        if recentBypassed { return set(key, value) }
        let p = key.withBytes { Self.prefix($0) }
        recent.append(Recent(count: p.count, w0: p.w0, w1: p.w1, key: key, value: value))
        isKnownEmpty = false
    }

    /// Records a change made by this process; reads see it at once.
    func set(_ key: PropertyList.Key, _ value: PropertyList?) {
        if !loaded { refresh() }
        fold()
        pending[key] = .some(value)
        if materialized != nil {
            materialized![key] = value
            isKnownEmpty = value == nil && materialized!.isEmpty
        }
    }

    /// Removes the domain's file (the name at `path`: a symlink goes, the
    /// file it leads to stays) and forgets this process's pending changes,
    /// so the domain is empty in memory and on disk. Returns whether a file
    /// was removed. On failure nothing changes.
    @discardableResult
    func remove() throws(PrefsError) -> Bool {
        let removed = try FileSystem.removeFile(path)
        index?.remove()
        order = []
        pending = [:]
        recent = []
        recentHits = 0
        recentBypassed = false
        materialized = [:]
        isKnownEmpty = true
        indexed = nil
        partial = nil
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
    ///
    /// When the file's index is current for it, the write is spliced
    /// (``DomainIndex/splice(old:entries:buckets:xml:changes:)``; a binary
    /// file by ``BinarySplice``, appending the changed values' objects):
    /// the unchanged entries are copied from the bytes they have in the
    /// file and the index, only the changed ones are formatted, and the
    /// domain is then read through the new index (unless this process
    /// already holds all its values): the cost follows the change, not the
    /// domain. Any other file is written whole.
    func commit() throws(PrefsError) -> PrefsError? {
        fold()
        recentBypassed = false
        guard !pending.isEmpty else { return nil }
        let target = try FileSystem.resolvingLinks(path, ownedBy: ProcessEnvironment.trustedOwners)
        file = target
        let dir = FileSystem.parent(of: target)
        try FileSystem.makeDirectories(dir, mode: shared ? 0o755 : 0o700)
        var note: PrefsError? = nil
        try FileSystem.withDirectoryLock(dir) { () throws(PrefsError) in
            var stored: Values = [:]
            var base: [Entry]? = []
            var mode: mode_t = shared ? 0o644 : 0o600
            var metChanges = true
            var binary = false
            if let file = try FileSystem.openForReading(target, followingLinks: false) {
                defer { file.close() }
                mode = file.stamp.mode
                // The file `values` came from, proved by its identity or
                // by its bytes: `values` is already that file with the
                // pending changes applied.
                var same = false
                var bytes: [UInt8]? = nil
                if let partial, source == nil {
                    // A file read for a few keys is hashed now that it is compared.
                    source = Source(read: partial.stamp, partial.bytes)
                }
                if let source, loaded {
                    if source.unchanged(file.stamp) {
                        same = true
                    } else {
                        bytes = try file.readAll()
                        same = source.matches(file.stamp, bytes!)
                    }
                }
                if let index {
                    if bytes == nil { bytes = try file.readAll() }
                    // The splice copies byte ranges the index names for the
                    // file `file.stamp` identifies: only if the bytes read
                    // are still that file's.
                    if file.isUnchanged(), try spliced(bytes!, file.stamp, index: index, target: target, mode: mode, same: same) {
                        return
                    }
                }
                if same {
                    stored = values
                    base = order
                    metChanges = false
                } else {
                    if bytes == nil { bytes = try file.readAll() }
                    do throws(PrefsError) {
                        (stored, base) = try decode(bytes!, file.stamp, path: target)
                    } catch {
                        let aside = try FileSystem.moveAsideCorrupt(target)
                        note = PrefsError(.corruptFile, "\(target) did not parse (\(error.message)); it was moved to \(aside) and a new file was started")
                        base = []
                    }
                }
                // The file keeps its format: binary stays binary.
                var head: [UInt8]
                if let bytes { head = bytes } else { head = try file.readPrefix(8) }
                binary = head.withUnsafeBytes { BinaryReader.looksBinary($0) }
            }
            for (k, change) in pending { stored[k] = change }
            var entries = base.map { Domain.merging(pending, into: $0) } ?? stored.sortedByKey()
            if entries.count != stored.count { entries = stored.sortedByKey() }
            let (bytes, spans) = try Domain.encodeWithSpans(entries, binary: binary)
            FileSystem.removeLeftoverTemporaries(of: target)
            let written = try FileSystem.replaceAtomically(target, with: bytes, mode: mode)
            FaultInjection.crash(at: "before-index")
            if let contents = index?.save(entries, spans: spans, written: written, bytes: bytes) {
                source = Source(contents.record)
            } else {
                // Without an index, no time is known to be after the
                // rename: the next write reads the file and compares.
                var now = (try? FileSystem.stamp(target)) ?? written
                if now.inode != written.inode { now = written }
                source = Source(stamp: now, since: nil, key: .process, digest: SipHash(bytes, key: .process))
            }
            order = entries
            commitMetChanges = metChanges
            lastWriteSpliced = false
            pending = [:]
            materialized = stored
            isKnownEmpty = stored.isEmpty
            indexed = nil
            partial = nil
            stamp = try? FileSystem.stamp(target)
            problem = nil
            loaded = true
        }
        return note
    }

    /// Writes the pending changes spliced into `bytes`, the file at
    /// `target` now (`stamp`), when its index is current for it and the
    /// splice applies; returns whether it wrote. `same`: whether the file
    /// is the one this process last read or wrote. Called by ``commit()``
    /// under the directory lock.
    private func spliced(
        _ bytes: [UInt8], _ stamp: FileSystem.Stamp, index: DomainIndex, target: String, mode: mode_t, same: Bool
    ) throws(PrefsError) -> Bool {
        let binary = bytes.withUnsafeBytes { BinaryReader.looksBinary($0) }
        guard let old = index.contents(for: stamp, content: { bytes }), let raw = old.rawBody(),
            let new = DomainIndex.splice(old: raw, entries: old.entries, buckets: old.buckets, xml: binary ? nil : bytes, changes: pending),
            let file = binary ? BinarySplice.splice(bytes, entries: old.entries, changes: new.changes) : new.xml
        else { return false }
        FileSystem.removeLeftoverTemporaries(of: target)
        let written = try FileSystem.replaceAtomically(target, with: file, mode: mode)
        FaultInjection.crash(at: "before-index")
        let contents = index.save(body: new.body, entries: new.entries, buckets: new.buckets, written: written, bytes: file)
        pending = [:]
        order = nil
        // Values this process holds stay right only when the file was its
        // own (they have the changes applied); else reads go through the
        // new index, or the new file is parsed when it has none.
        if !(same && materialized != nil) {
            materialized = nil
            partial = nil
            indexed = contents
            // Reads look no further while the domain is known empty: it
            // holds what the new file holds (others' keys, too).
            isKnownEmpty = new.entries == 0
            if contents == nil { rebuild(from: (try? Domain.decode(file, path: target)) ?? [:]) }
        }
        if let contents {
            source = Source(contents.record)
        } else {
            var now = (try? FileSystem.stamp(target)) ?? written
            if now.inode != written.inode { now = written }
            source = Source(stamp: now, since: nil, key: .process, digest: SipHash(file, key: .process))
        }
        commitMetChanges = !same
        lastWriteSpliced = true
        self.stamp = try? FileSystem.stamp(target)
        problem = nil
        loaded = true
        return true
    }
}

/// How many of a store's managed domains may hold a key (are not known to
/// be empty), among those a set has looked at: while none does, no set is
/// refused as forced without looking at each. Accessed only under the
/// store's lock.
final class ManagedTally: @unchecked Sendable {
    /// Counted domains whose reads may see a key.
    @exclusivity(unchecked) var holding = 0
}
