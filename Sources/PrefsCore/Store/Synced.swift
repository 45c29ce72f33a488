import Synchronization

// Synced preferences in the store: the search list's synced layer (after
// managed values and arguments, before the application's own domains), the
// routing of writes of synced keys to this machine's file in the sync
// folder, and noticing what other machines wrote. The engine itself (files,
// clock, merge, reader, writer) is in `Sync/`.

/// The keys this process declared synced through typed keys
/// (`Preferences.Key(..., synced: true)`), for every application, as
/// declared defaults are. A leaf lock, like ``DeclaredDefaults``'s, held
/// across `fork` like it; a new declaration moves
/// ``DeclaredDefaults/generation`` so that every store rebuilds its views
/// at its next read.
enum DeclaredSyncedKeys {
    private static let lock = ForkSafeMutex()
    nonisolated(unsafe) private static var keys = Set<PropertyList.Key>()

    /// Whether `key` was declared synced in this process.
    @inline(__always)
    static func contains(_ key: PropertyList.Key) -> Bool {
        // Most processes declare none: no call, no lock, no hash then.
        declared.load(ordering: .acquiring) && isDeclared(key)
    }

    private static func isDeclared(_ key: PropertyList.Key) -> Bool { lock.withLock { keys.contains(key) } }

    /// Whether any key was ever declared (set once, never cleared).
    private static let declared = Atomic(false)

    /// Declares `key` synced for every application this process reads.
    static func declare(_ key: String) {
        let added = lock.withLock { keys.insert(PropertyList.Key(key)).inserted }
        declared.store(true, ordering: .releasing)
        if added { DeclaredDefaults.generation.add(1, ordering: .releasing) }
    }

    /// Before `fork` (see ``LiveStores``): takes the lock, so that the
    /// child never finds it held by a thread it does not have.
    static func lockForFork() { lock.lock() }

    /// After `fork`, in the parent or the child: releases it.
    static func unlockAfterFork() { lock.unlock() }
}

extension PreferencesStore {
    /// The sync folder as this store last read it, and this machine's
    /// writer once it has written. Accessed only under the store's lock.
    final class SyncedLayer {
        let reader: SyncFolderReader
        // Under the store's lock: no exclusivity check (every set looks).
        @exclusivity(unchecked) var snapshot: SyncSnapshot {
            didSet { SetRules.changed() }
        }
        @exclusivity(unchecked) var writer: SyncWriter?
        /// Whether the folder is watched (it may not exist yet).
        @exclusivity(unchecked) var watched = false
        /// A store of one plist file (see ``disableSync()``): nothing syncs.
        let disabled: Bool

        init(folder: String, disabled: Bool = false) {
            self.disabled = disabled
            reader = SyncFolderReader(folder: folder)
            snapshot = disabled ? SyncSnapshot(folder: folder) : reader.scan()
            SetRules.changed()
        }
    }

    /// The synced layer, the folder read at first use (a listing and an
    /// `lstat` per file; nothing when the folder does not exist).
    func syncedLayer(_ s: inout State) -> SyncedLayer {
        if let l = s.synced { return l }
        let l = SyncedLayer(folder: SyncSettings.folder(configDirectory: locations.userDirectory))
        s.synced = l
        watchSyncFolder(l, &s)
        return l
    }

    /// Watches the folder once it exists, so that files the sync engine
    /// delivers reach reads and observers.
    private func watchSyncFolder(_ l: SyncedLayer, _ s: inout State) {
        guard !l.watched, !l.disabled, ((try? FileSystem.stamp(l.reader.folder)) ?? nil) != nil else { return }
        l.watched = true
        s.linkedDirectories.append(l.reader.folder)
        watcher?.add(l.reader.folder)
    }

    /// Whether `key` of `app` syncs: the newest declaration in the folder
    /// decides; without one, a typed key declared synced in this process
    /// or the application's installed schema (`Synced = YES`).
    func isSynced(_ key: PropertyList.Key, _ app: String, _ s: inout State, view: SearchView? = nil) -> Bool {
        let l = syncedLayer(&s)
        if l.disabled { return false }
        // Each source is skipped while empty, without hashing the
        // application's name: most processes sync nothing.
        let apps = l.snapshot.state.applications
        if !apps.isEmpty, let d = apps[app]?.declarations[key] { return d.synced }
        if DeclaredSyncedKeys.contains(key) { return true }
        let installed: InstalledSchema
        if let view { installed = installedSchema(of: view, &s) } else { installed = installedSchema(app, &s) }
        guard let schema = installed.schema else { return false }
        return schema.specifiers.contains { $0.synced && $0.key == key.string }
    }

    /// The synced value of `key` of `app`, when it syncs and a machine set it.
    func syncedValue(_ key: PropertyList.Key, _ app: String, _ s: inout State) -> PropertyList? {
        let l = syncedLayer(&s)
        guard let value = l.snapshot.state.applications[app]?.values[key]?.value else { return nil }
        return isSynced(key, app, &s) ? value : nil
    }

    /// Every synced value of `app` (the synced layer of its view).
    func syncedValues(_ app: String, _ s: inout State) -> PropertyListDictionary {
        let l = syncedLayer(&s)
        guard let a = l.snapshot.state.applications[app] else { return [:] }
        var out = PropertyListDictionary()
        for (key, record) in a.values {
            if let value = record.value, isSynced(key, app, &s) { out[key] = value }
        }
        return out
    }

    /// Reads the folder again; returns its new state when it changed.
    func rescanSynced(_ s: inout State) -> SyncSnapshot? {
        guard let l = s.synced, !l.disabled else { return nil }
        watchSyncFolder(l, &s)
        let new = l.reader.scan()
        if new.state == l.snapshot.state && new.problems == l.snapshot.problems { return nil }
        return new
    }

    /// Takes in a new state of the folder (the caller rebuilds the views).
    func adoptSynced(_ new: SyncSnapshot, _ s: inout State) {
        s.synced?.snapshot = new
    }

    /// Writes `changes` of `app` to this machine's file and takes in the
    /// folder's new state; tells the user's other processes, as a domain
    /// write does. Throws, writing nothing, past the limits.
    func writeSynced(_ change: SyncWriter.Change, _ app: String, _ s: inout State) throws(PrefsError) {
        let l = syncedLayer(&s)
        if l.disabled { throw PrefsError(.invalidArgument, "this store does not sync") }
        if l.writer == nil {
            let id = try SyncSettings.identity(locations.userDirectory, hostID: locations.hostID)
            l.writer = SyncWriter(machine: id, machineName: SyncSettings.hostName(), reader: l.reader)
        }
        do throws(PrefsError) {
            l.snapshot = try l.writer!.apply(change, to: app)
        } catch {
            throw PrefsError(error.code, "cannot sync \(app): \(error.message)")
        }
        watchSyncFolder(l, &s)
        counters[0].bump()
    }

    /// The keys of `changes` that go to the sync folder rather than to `d`:
    /// the synced keys of a write to `v`'s application's own domain.
    func syncedPart<C: Collection<(String, PropertyList?)>>(
        _ changes: C, of d: Domain, _ v: SearchView, _ s: inout State
    ) -> [PropertyList.Key: PropertyList?] {
        // No path is built per set: the own domain is one object (see ``ownDomain(of:_:)``).
        guard d === ownDomain(of: v, &s) else { return [:] }
        var out = [PropertyList.Key: PropertyList?]()
        for (key, value) in changes where isSynced(PropertyList.Key(key), v.application, &s, view: v) {
            out[PropertyList.Key(key)] = .some(value)
        }
        return out
    }

    // MARK: Declarations and status

    /// Makes this store sync nothing: a store over one plist file named by
    /// path (`prefs read /path/file.plist`), whose keys must never go to,
    /// nor come from, the user's sync folder. Thread-safe.
    package func disableSync() {
        withLocked { s in
            s.synced = SyncedLayer(folder: "", disabled: true)
            invalidateViews(&s)
        }
    }

    /// The synced values of `app` (its keys that sync and that a machine
    /// set), as its search list's synced layer holds them: what
    /// `prefs read` and `prefs watch` show beside the app's own domain.
    /// Reads the folder again (a listing and an `lstat` per file), as a
    /// synchronize does; observers hear of what changed. Thread-safe.
    package func syncedValues(application app: String) throws(PrefsError) -> PropertyListDictionary {
        let app = try Self.canonicalApplication(app)
        return try withState { (s: inout State) throws(PrefsError) -> PropertyListDictionary in
            noticeChanges(&s)
            takeInSyncFolder(&s)
            return syncedValues(app, &s)
        }
    }

    /// Reads the folder again and, when it changed, takes it in, queuing
    /// for observers every key whose read result changed.
    private func takeInSyncFolder(_ s: inout State) {
        guard let new = rescanSynced(&s) else { return }
        let before = observers.isEmpty ? [:] : snapshot(&s)
        adoptSynced(new, &s)
        invalidateViews(&s)
        s.outbox += differences(before, &s)
    }

    /// Declares `key` of `app` synced or no longer synced, on every
    /// machine: the declaration is written to this machine's file. A key
    /// declared synced takes its value from the application's own domain
    /// when no machine has synced one yet; a key no longer synced keeps
    /// its synced value, in the application's own domain. Observers hear
    /// of every key whose read result changed. Throws for a key that
    /// cannot sync (empty, over 64 bytes), past the limits, or when the
    /// folder cannot be written. Thread-safe.
    package func setSynced(_ synced: Bool, forKey key: String, application app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        if let problem = SyncLimits.problem(ofKey: key) { throw PrefsError(.invalidArgument, problem) }
        let k = PropertyList.Key(key)
        try withState { (s: inout State) throws(PrefsError) in
            let own = storedDomain(DomainID(application: app, user: .current, host: .any), &s)
            let l = syncedLayer(&s)
            let record = l.snapshot.state.applications[app]?.values[k]
            var change = SyncWriter.Change(declarations: [k: synced])
            if synced, record == nil, let local = own.value(forKey: k) { change.values[k] = .some(local) }
            let before = observers.isEmpty ? [:] : snapshot(&s)
            try writeSynced(change, app, &s)
            if !synced, let value = record?.value {
                own.set(k, value)
                scheduleFlush(&s)
            }
            invalidateViews(&s)
            s.outbox += differences(before, &s)
        }
    }

    /// Whether `key` of `app` syncs. Thread-safe.
    package func isSynced(_ key: String, application app: String) throws(PrefsError) -> Bool {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            noticeChanges(&s)
            return isSynced(PropertyList.Key(key), app, &s)
        }
    }

    /// The sync folder as this store sees it now (read again), for
    /// `prefs sync status` and `prefs explain`.
    package func syncSnapshot() -> SyncSnapshot {
        let taken = try? withState { (s: inout State) throws(PrefsError) -> SyncSnapshot in
            noticeChanges(&s)
            _ = syncedLayer(&s)
            takeInSyncFolder(&s)
            return syncedLayer(&s).snapshot
        }
        return taken ?? SyncSnapshot(folder: "")
    }

    /// The keys of `app` that sync, sorted: declared in the folder, by the
    /// schema or by typed keys of this process.
    package func syncedKeys(application app: String) throws(PrefsError) -> [String] {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            noticeChanges(&s)
            var keys = Set<PropertyList.Key>()
            let l = syncedLayer(&s)
            if let a = l.snapshot.state.applications[app] {
                keys.formUnion(a.declarations.keys)
                keys.formUnion(a.values.keys)
            }
            for spec in installedSchema(app, &s).schema?.specifiers ?? [] where spec.synced {
                if let key = spec.key { keys.insert(PropertyList.Key(key)) }
            }
            return keys.filter { isSynced($0, app, &s) }.sorted().map(\.string)
        }
    }
}
