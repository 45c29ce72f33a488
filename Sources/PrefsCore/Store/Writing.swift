import Synchronization

// Changes: recorded in memory by a set, written to disk by synchronize, by
// the background writer, or at exit.

extension PreferencesStore {
    /// Tells other processes that `d`'s file was replaced: bumps the
    /// counters of the directory it is named in and of the one a symlink
    /// led to, so readers of either name see the change.
    ///
    /// A counter that moves by exactly this bump was moved by no other
    /// process since this store last looked: this store's next read need
    /// not look at its loaded files again for it (the file written is
    /// already the one in memory). Otherwise the next read looks, as for
    /// any other process's write.
    func announce(_ d: Domain, _ s: inout State) {
        for (i, c) in counters.enumerated() where c.covers(d.path) || c.covers(d.file) {
            let seen = s.seenCounts[i]
            if let now = c.bump(), now == seen &+ 1 { s.seenCounts[i] = now }
        }
    }

    /// Commits `d` and announces the new file.
    func commit(_ d: Domain, _ s: inout State) throws(PrefsError) -> PrefsError? {
        let wrote = d.hasPendingChanges
        let note = try d.commit()
        if wrote {
            announce(d, &s)
            // Other processes' changes taken in by the write change no
            // stamp this process will see again: views built before miss them.
            if d.commitMetChanges { invalidateViews(&s) }
        }
        return note
    }

    // MARK: Writing

    /// Sets (`nil`: removes) keys of one stored domain as one change: this
    /// process sees it at once, and another process sees all of it or none
    /// of it once it is synchronized. Refuses values the XML format cannot
    /// hold, keys a managed value decides, and values the application's
    /// installed schema does not accept (`.schemaViolation`); nothing
    /// changes then.
    package func set(_ changes: [(String, PropertyList?)], in id: DomainID) throws(PrefsError) {
        let id = try validated(id)
        for (key, value) in changes { try Self.checkStorable(value, key) }
        try withState { (s: inout State) throws(PrefsError) in
            let v = searchView(id.application, &s)
            try checkSchema(changes, of: v, &s)
            try apply(changes, to: storedDomain(id, &s), of: v, &s)
        }
    }

    /// Sets (`nil`: removes) `key` in the application's own domain (current
    /// user, any host), as ``set(_:in:)`` does, through a handle: the C
    /// API's `PrefsSetAppValue` and `Preferences`' sets, which resolve
    /// nothing again per call.
    ///
    /// The usual set (nobody observes, the key does not sync) takes a
    /// short path with the same rules in the same order: the schema, then
    /// managed values, then the change recorded, the merged views patched
    /// and the background write scheduled. The rest goes through
    /// ``apply(_:to:of:_:)`` as a set of several keys does.
    package func set(_ key: String, _ value: PropertyList?, in handle: ApplicationHandle) throws(PrefsError) {
        var key = key
        var failure: PrefsError? = nil
        key.withUTF8 { u in
            do throws(PrefsError) { try set(keyBytes: UnsafeRawBufferPointer(u), value, in: handle) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// ``set(_:_:in:)`` of the key whose UTF-8 is `key` (valid UTF-8, as
    /// the caller checked), which is copied into a string only when it
    /// must be stored: not when the key was set a moment ago (see
    /// ``Domain/replaceRecent(_:_:)``). The C API's `PrefsSetAppValue`.
    package func set(keyBytes key: UnsafeRawBufferPointer, _ value: PropertyList?, in handle: ApplicationHandle) throws(PrefsError) {
        if !PropertyList.isPlainlyStorable(value, keyBytes: key) {
            // Not surely storable: the full check, with the key's text.
            let k = String(decoding: key, as: UTF8.self)
            try Self.checkStorable(value, k)
            return try setChecked(PropertyList.Key(k), value, in: handle)
        }
        try setChecked(PropertyList.Key(borrowing: key), value, in: handle)
    }

    /// The set of one key through a handle, once the key and value were
    /// found storable; `key` may be borrowed.
    private func setChecked(_ key: PropertyList.Key, _ value: PropertyList?, in handle: ApplicationHandle) throws(PrefsError) {
        try withState { (s: inout State) throws(PrefsError) in
            let v = handle.view
            if value != nil && setsArePlain(key, v, &s) { return record(key, value, in: ownDomain(of: v, &s), &s) }
            if !installedSchema(of: v, &s).constraints.isEmpty { try checkSchema(CollectionOfOne((key.string, value)), of: v, &s) }
            let d = ownDomain(of: v, &s)
            guard observers.isEmpty, !isSynced(key, v.application, &s, view: v) else {
                return try apply(CollectionOfOne((key.string, value)), to: d, of: v, &s)
            }
            if isForced(key, in: v, &s) { throw Self.forced(key.string, v) }
            record(key, value, in: d, &s)
        }
    }

    /// Records the set of `key` in `d`, the own domain of the view it was
    /// made through, once every rule let it through.
    @inline(__always)
    private func record(_ key: PropertyList.Key, _ value: PropertyList?, in d: Domain, _ s: inout State) {
        if let value {
            // A key set a moment ago is not copied again.
            if !d.replaceRecent(key, value) { d.setRecent(key.owned, value) }
        } else {
            d.set(key.owned, nil)
        }
        if s.mergedTally.built != 0 { repatch(key, layer: .file(d.path), &s) }
        scheduleFlush(&s)
    }

    /// Whether no rule can stop or divert a set of `key` through `v`:
    /// nobody observes, no managed value is held, no file waits to be
    /// re-read, this process declared `key` no synced typed key, and, as
    /// `v` remembers since ``SetRules`` last moved, its installed schema
    /// binds no key and the sync folder declares no key of its application.
    /// Every set asks, so the answer is a few loads once learnt.
    @inline(__always)
    private func setsArePlain(_ key: PropertyList.Key, _ v: SearchView, _ s: inout State) -> Bool {
        guard observers.isEmpty, !s.changedOutside, v.managedCounted, s.managedTally.holding == 0,
            !DeclaredSyncedKeys.contains(key)
        else { return false }
        let now = SetRules.generation.load(ordering: .acquiring)
        return v.plainSetsAt == now || learnPlainSets(v, now, &s)
    }

    /// Looks at what ``setsArePlain(_:_:_:)`` remembers, and remembers it
    /// as of generation `now` of ``SetRules`` when it holds (a change
    /// made while looking moves the generation, so the next set looks again).
    private func learnPlainSets(_ v: SearchView, _ now: Int, _ s: inout State) -> Bool {
        let installed = installedSchema(of: v, &s)
        guard installed.constraints.isEmpty, !(installed.schema?.specifiers.contains { $0.synced } ?? false) else { return false }
        let l = syncedLayer(&s)
        if !l.disabled, let a = l.snapshot.state.applications[v.application], !a.declarations.isEmpty { return false }
        v.plainSetsAt = now
        return true
    }

    /// The refusal of a write to a key a managed value decides.
    private static func forced(_ key: String, _ v: SearchView) -> PrefsError {
        PrefsError(.forcedValue, "\"\(key)\" of \(v.application) is managed (forced); the write was refused")
    }

    /// The application's own domain (current user, any host) of `v`,
    /// resolved once. A store keeps one `Domain` per path for its life, so
    /// another domain is the own one exactly when it is this object.
    func ownDomain(of v: SearchView, _ s: inout State) -> Domain {
        if let own = v.ownDomain { return own }
        let d = storedDomain(DomainID(application: v.application, user: .current, host: .any), &s)
        v.ownDomain = d
        return d
    }

    /// Refuses what a domain file could never hold.
    private static func checkStorable(_ value: PropertyList?, _ key: String) throws(PrefsError) {
        guard let value else { return }
        do throws(PrefsError) {
            try PropertyList.checkStorable(value, forKey: key)
        } catch {
            throw PrefsError(error.code, "cannot store \"\(key)\": \(error.message)")
        }
    }

    /// Records `changes` in `d`, a domain of `v`'s application, as one
    /// change: refused whole when a managed value decides one of its keys.
    private func apply<C: Collection<(String, PropertyList?)>>(
        _ changes: C, to d: Domain, of v: SearchView, _ s: inout State
    ) throws(PrefsError) {
        for (key, _) in changes where isForced(PropertyList.Key(key), in: v, &s) { throw Self.forced(key, v) }
        var before = [(String, PropertyList.Key, PropertyList?)]()
        if !observers.isEmpty {
            for app in observers.observedApplications {
                let observed = view(app, &s)
                guard observed.layers.contains(.file(d.path)) else { continue }
                for (key, _) in changes { before.append((app, PropertyList.Key(key), observed.merged![PropertyList.Key(key)])) }
            }
        }
        // Synced keys go to the sync folder (first: past its limits the
        // whole change is refused), the others to the domain.
        let synced = syncedPart(changes, of: d, v, &s)
        if !synced.isEmpty {
            try writeSynced(SyncWriter.Change(values: synced), v.application, &s)
            invalidateViews(&s)
        }
        for (key, value) in changes where synced.isEmpty || synced[PropertyList.Key(key)] == nil {
            let k = PropertyList.Key(key)
            d.set(k, value)
            repatch(k, layer: .file(d.path), &s)
        }
        for (app, k, old) in before where view(app, &s).merged![k] != old {
            s.outbox.append((app, k.string))
        }
        scheduleFlush(&s)
    }

    /// The loaded domain of stored domain `id` (validated).
    func storedDomain(_ id: DomainID, _ s: inout State) -> Domain {
        if let d = s.domainsByID[id] { return d }
        let d = domain(locations.path(of: id), &s)
        s.domainsByID[id] = d
        return d
    }

    /// Writes this process's pending changes of every domain of `app` and
    /// picks up other processes' changes to the files of its search list.
    /// Returns a note when a file that did not parse was moved aside.
    @discardableResult
    package func synchronize(application app: String) throws(PrefsError) -> PrefsError? {
        let app = try Self.canonicalApplication(app)
        return try withState { (s: inout State) throws(PrefsError) -> PrefsError? in
            var note: PrefsError? = nil
            var failure: PrefsError? = nil
            // Other processes' changes met here reach observers too.
            let before = observers.isEmpty ? [:] : snapshot(&s)
            let own = [DomainUser.current, .any].flatMap { u in
                [DomainHost.current, .any].map { h in locations.path(of: DomainID(application: app, user: u, host: h)) }
            }
            for path in own {
                guard let d = s.domains[path], d.hasPendingChanges else { continue }
                do throws(PrefsError) { if let n = try commit(d, &s) { note = n } } catch { failure = failure ?? error }
            }
            refreshAll(app, &s)
            s.outbox += differences(before, &s)
            if let failure { throw failure }
            return note
        }
    }

    /// Writes the pending changes of one stored domain and re-reads it.
    @discardableResult
    package func synchronize(_ id: DomainID) throws(PrefsError) -> PrefsError? {
        let id = try validated(id)
        let path = locations.path(of: id)
        return try withLocked { (s: inout State) throws(PrefsError) -> PrefsError? in
            let d = domain(path, &s)
            let note = try commit(d, &s)
            if reload(d, &s) { invalidateViews(&s) }
            return note
        }
    }

    /// Writes every pending change of every domain; the first failure is
    /// thrown after all were tried.
    package func synchronizeAll() throws(PrefsError) {
        try withLocked { (s: inout State) throws(PrefsError) in try synchronizeAll(&s) }
    }

    /// ``synchronizeAll()`` for the writer thread and the exit handler,
    /// which reach the store through `LiveStores` under its lock: takes no
    /// reference to the store of its own, so that a store whose last
    /// reference the program has dropped (its deinit waiting for that
    /// lock) is not kept alive by this thread. Should a build retain it
    /// anyway, the release runs the deinit here, which `LiveStores.remove`
    /// allows for.
    func synchronizeAllUnretained() throws(PrefsError) {
        try lock.withLock { () throws(PrefsError) in try synchronizeAll(&state) }
    }

    private func synchronizeAll(_ s: inout State) throws(PrefsError) {
        var failure: PrefsError? = nil
        for d in s.domains.values where d.hasPendingChanges {
            do throws(PrefsError) { _ = try commit(d, &s) } catch { failure = failure ?? error }
        }
        s.flushScheduled = false
        if let failure { throw failure }
    }

    // MARK: Writing by itself

    func scheduleFlush(_ s: inout State) {
        guard !s.flushScheduled else { return }
        // Without a writer thread, the exit handler and synchronize still write.
        s.flushScheduled = BackgroundWriter.schedule(self)
    }
}

extension PreferencesStore {
    // MARK: Removing a domain

    /// Removes the stored domain `id`: its file goes away (a symlink
    /// itself, not the file it leads to), this process's pending changes of
    /// it with it, observers hear of every key whose read result changed,
    /// and ``applications(user:host:)`` no longer lists it. Returns `true`
    /// when the domain no longer exists afterwards. Throws `.io` when the
    /// file cannot be removed; nothing changes then.
    @discardableResult
    package func removeDomain(_ id: DomainID) throws(PrefsError) -> Bool {
        let id = try validated(id)
        let path = locations.path(of: id)
        return try withState { (s: inout State) throws(PrefsError) -> Bool in
            let d = domain(path, &s)
            let before = observers.isEmpty ? [:] : snapshot(&s)
            let removed = try d.remove()
            if removed { announce(d, &s) }
            invalidateViews(&s)
            s.outbox += differences(before, &s)
            return true
        }
    }

    /// The first value for `key` along `app`'s search list, leaving out the
    /// registration domains, declared defaults and installed schemas: what a user, an
    /// administrator or a command line set.
    package func valueIgnoringDefaults(forKey key: String, application app: String) throws(PrefsError) -> PropertyList? {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in
            noticeChanges(&s)
            for layer in view(app, &s).layers {
                switch layer {
                case .registration, .declared, .schema: continue
                default: if let v = lookup(k, in: layer, &s) { return v }
                }
            }
            return nil
        }
    }
}

/// Counts changes, in any store of the process, to what decides whether a
/// set must be checked against the sync folder: the folder read again or
/// written. A view remembers the count at which its sets needed neither
/// its schema nor the folder (a view's schema, replaced, forgets it
/// there); one atomic load tells whether that still holds.
enum SetRules {
    /// Starts at 1: a view's 0 means "not known".
    static let generation = Atomic<Int>(1)

    /// Records a change.
    static func changed() { generation.add(1, ordering: .releasing) }
}
