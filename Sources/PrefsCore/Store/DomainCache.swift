import Glibc

// The domain files this store has loaded, and how it notices that they
// changed on disk: change counters moved by other libprefs writers (looked
// at by every read), and the directory watcher (files written by other
// programs or by hand).

extension PreferencesStore {
    /// The domain file at `path`, loaded on first use; `keys`: when given
    /// and the file is loaded now, the values of those keys are all this
    /// read needs (see ``Domain/refresh(usingIndex:only:)``).
    func domain(_ path: String, _ s: inout State, only keys: [String]? = nil) -> Domain {
        if let d = s.domains[path] { return d }
        let d = Domain(path: path, shared: locations.isShared(path), index: locations.index(of: path))
        s.domains[path] = d
        s.domainsByDirectory[FileSystem.parent(of: path), default: []].append(d)
        if d.isDropInDirectory { watchDropIns(d, &s) }
        reload(d, &s, only: keys)
        watchLinkTarget(d, &s)
        if watcher == nil { startWatcher(immediately: false, s.linkedDirectories) }
        return d
    }

    /// When `d`'s file is a symlink into another directory (a dotfile
    /// manager's), watches that directory too, so that changes made there
    /// by other programs are noticed.
    func watchLinkTarget(_ d: Domain, _ s: inout State) {
        if d.isDropInDirectory { return watchDropIns(d, &s) }
        let dir = FileSystem.parent(of: d.file)
        guard dir != FileSystem.parent(of: d.path) else { return }
        s.linkedDomains[d.path] = d
        guard !s.linkedDirectories.contains(dir) else { return }
        s.linkedDirectories.append(dir)
        watcher?.add(dir)
    }

    /// Watches a drop-in directory once it exists (its creation is seen
    /// in the managed directory, which is watched); one that was removed is
    /// watched again when it is made again (inotify drops a removed
    /// directory's watch).
    func watchDropIns(_ d: Domain, _ s: inout State) {
        let exists = (try? SystemCall.stat(d.path)).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
        let index = s.linkedDirectories.firstIndex(of: d.path)
        if exists && index == nil {
            s.linkedDirectories.append(d.path)
            watcher?.add(d.path)
        } else if !exists, let index {
            s.linkedDirectories.remove(at: index)
        }
    }

    /// Re-reads `d` if its file changed; a file that became unusable is
    /// queued for the next read of an application that searches it to
    /// report. Returns whether the values may have changed.
    @discardableResult
    func reload(_ d: Domain, _ s: inout State, only keys: [String]? = nil) -> Bool {
        let before = d.problem
        guard d.refresh(only: keys) else { return false }
        if let problem = d.problem {
            if before?.message != problem.message { s.unreported[d.path] = problem }
        } else {
            s.unreported[d.path] = nil
        }
        return true
    }

    /// The first unreported problem of a file on `v`'s search list, which
    /// is then reported.
    func takeProblem(_ v: SearchView, _ s: inout State) -> PrefsError? {
        for layer in v.layers {
            switch layer {
            case .file(let p), .managed(let p):
                if let problem = s.unreported.removeValue(forKey: p) { return problem }
            case .schema(let app):
                if let p = s.schemas[app]?.path, let problem = s.unreported.removeValue(forKey: p) { return problem }
            default: continue
            }
        }
        return nil
    }

    /// Re-reads the loaded domain files when another process has written
    /// one since this process last looked (its change counter moved). An
    /// unchanged counter costs a memory load per directory: no system call.
    @inline(__always)
    func noticeChanges(_ s: inout State) {
        var moved = false
        counters.withUnsafeBufferPointer { c in
            s.seenCounts.withUnsafeMutableBufferPointer { seen in
                for i in c.indices where c[i].value != seen[i] {
                    seen[i] = c[i].value
                    moved = true
                }
            }
        }
        if moved || s.changedOutside {
            s.changedOutside = false
            refreshLoaded(&s)
        }
        noticeDeclaredDefaults(&s)
    }

    /// Re-reads the loaded files that changed on disk, and the installed
    /// schemas. With the watcher running, only the files it names (and
    /// those in directories it does not report on, and symlinked ones) are
    /// looked at: the cost follows the files that changed, not the files
    /// loaded. Without it (in the first second, or without inotify, or when
    /// it lost events) every loaded file is looked at, one `stat` each.
    func refreshLoaded(_ s: inout State) {
        guard let watcher, let names = watcher.takeChanges() else { return refreshEveryLoaded(&s) }
        var candidates: [String: Domain] = [:]
        var schemasChanged = false
        for path in names {
            if let d = s.domains[path] {
                // A drop-in directory made or removed: watched from now on.
                if d.isDropInDirectory { watchDropIns(d, &s) }
                candidates[path] = d
            }
            let dir = FileSystem.parent(of: path)
            if let d = s.domains[dir], d.isDropInDirectory { candidates[dir] = d }
            if locations.schemaDirectories.contains(dir) { schemasChanged = true }
        }
        for (path, d) in s.linkedDomains { candidates[path] = d }
        // Directories the kernel does not report on (missing when watching
        // began, or made since): watched from now on when they exist, and
        // their files looked at this time. One that stays missing holds no
        // file: looked at once.
        func unreported(_ dir: String, _ s: inout State) -> Bool {
            guard !watcher.isWatching(dir) else { return false }
            if ((try? FileSystem.stamp(dir)) ?? nil) != nil {
                watcher.add(dir)
                s.absentDirectories.remove(dir)
                return true
            }
            return s.absentDirectories.insert(dir).inserted
        }
        for (dir, ds) in s.domainsByDirectory where unreported(dir, &s) {
            for d in ds { candidates[d.path] = d }
        }
        for dir in locations.schemaDirectories where unreported(dir, &s) { schemasChanged = true }
        // A drop-in directory looked at is watched from now on when it
        // exists (one found in a directory that was not watched, too), before
        // it is read: a file written in it later is then named.
        for d in candidates.values where d.isDropInDirectory { watchDropIns(d, &s) }
        let schemas = schemasChanged ? changedSchemas(s) : []
        // The sync folder: read again when the watcher names a file of it,
        // or when it is not watched yet (it did not exist).
        var synced: SyncSnapshot? = nil
        if let l = s.synced, !l.watched || names.contains(where: { FileSystem.parent(of: $0) == l.reader.folder }) {
            synced = rescanSynced(&s)
        }
        s.lastRecheckCount = candidates.count
        reload(candidates.values.filter { !$0.loaded || $0.hasChangedOnDisk }, schemas, synced, &s)
    }

    /// How many loaded files the store's last re-check (after a change
    /// counter moved, or the watcher saw a change) looked at: the changed
    /// ones and a few others while the watcher reports changes, every
    /// loaded file otherwise. Thread-safe (takes the store's lock).
    package var filesLookedAtByLastRecheck: Int { withLocked { $0.lastRecheckCount } }

    /// ``refreshLoaded(_:)`` looking at every loaded file and schema.
    func refreshEveryLoaded(_ s: inout State) {
        // A drop-in directory made empty changes no values, but must be
        // watched from now on.
        for d in s.domains.values where d.isDropInDirectory { watchDropIns(d, &s) }
        // One look (a stat) per loaded file; only the files that changed
        // are read again and have their link target looked at.
        let changed = s.domains.values.filter { !$0.loaded || $0.hasChangedOnDisk }
        s.lastRecheckCount = s.domains.count
        reload(changed, changedSchemas(s), rescanSynced(&s), &s)
    }

    /// Re-reads `changed` and the schemas of `schemas`, takes in the sync
    /// folder's new state `synced`, rebuilds the views and queues the
    /// changes for observers.
    private func reload(_ changed: [Domain], _ schemas: [String], _ synced: SyncSnapshot?, _ s: inout State) {
        guard synced != nil || !schemas.isEmpty || !changed.isEmpty else { return }
        let before = snapshot(&s)
        for d in changed {
            reload(d, &s)
            watchLinkTarget(d, &s)
        }
        reloadSchemas(schemas, &s)
        if let synced { adoptSynced(synced, &s) }
        invalidateViews(&s)
        s.outbox += differences(before, &s)
    }

    /// Starts the directory watcher (under the lock): at once for
    /// observers, else after a delay (see ``DirectoryWatcher``), over the
    /// preference directories and `linked` (``State/linkedDirectories``).
    /// A store that cannot start one tries again when it next loads a domain.
    func startWatcher(immediately: Bool, _ linked: [String]) {
        let l = locations
        let dirs =
            [
                l.userDirectory, l.userDirectory + "/ByHost", l.systemDirectory, l.systemDirectory + "/ByHost",
                l.managedDirectory, l.managedDirectory + "/" + l.userName,
            ] + schemaWatchDirectories + linked
        // Unretained (a weak reference would slow every retain of the
        // store): deinit stops the watcher and waits for its thread.
        let me = Unmanaged.passUnretained(self)
        watcher = DirectoryWatcher.start(
            dirs, immediately: immediately,
            {
                me._withUnsafeGuaranteedRef { $0.noticeExternalChanges() }
            },
            poll: {
                me._withUnsafeGuaranteedRef { $0.noticeCounterChanges() }
            })
    }

    /// Re-reads files other libprefs writers replaced (called by a watcher
    /// without inotify, every ``DirectoryWatcher/pollMilliseconds``).
    func noticeCounterChanges() {
        try? withState { (s: inout State) throws(PrefsError) in noticeChanges(&s) }
    }

    /// Re-reads changed files and tells observers (called by the watcher).
    /// Without observers nobody is waiting: the files are only marked, and
    /// the next call into the store re-reads them, so that processes that
    /// are not reading do not re-read a busy domain at every write.
    func noticeExternalChanges() {
        try? withState { (s: inout State) throws(PrefsError) in
            // A file edited by hand moves no counter, so look at every file;
            // remember the counters so the next read does not look again.
            s.seenCounts = counters.map(\.value)
            if observers.isEmpty {
                s.changedOutside = true
            } else {
                refreshLoaded(&s)
            }
        }
    }

    /// The domain loaded from `path`, if any (for tests).
    func domainForTesting(_ path: String) -> Domain? {
        withLocked { (s: inout State) in s.domains[path] }
    }

    func refreshAll(_ app: String, _ s: inout State) {
        var changed = false
        // The layers only: building the merged view here would decode every
        // value of a domain read through its index, which reads do lazily.
        for layer in searchView(app, &s).layers {
            switch layer {
            case .file(let p), .managed(let p): if let d = s.domains[p], reload(d, &s) { changed = true }
            case .schema(let a):
                if let known = s.schemas[a], changedSchemas(a, known) {
                    reloadSchemas([a], &s)
                    changed = true
                }
            default: break
            }
        }
        if let synced = rescanSynced(&s) {
            adoptSynced(synced, &s)
            changed = true
        }
        if changed { invalidateViews(&s) }
    }
}
