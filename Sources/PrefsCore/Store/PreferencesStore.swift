import CProcessHooks
import Glibc

/// The preferences of this process: every domain it has touched, the search
/// list that combines them, and the in-memory domains (arguments,
/// registration, volatile and language domains).
///
/// One store serves the C API and the Swift API alike. Every method is
/// thread-safe: the state is guarded by one lock (see DESIGN.md for the
/// threads, the locks and their order).
///
/// The store's work is split by concern: the search list and the merged
/// view (`SearchList.swift`), the loaded domain files and how changes on
/// disk are noticed (`DomainCache.swift`), writing (`Writing.swift`), the
/// in-memory domains (`InMemoryDomains.swift`), observers
/// (`Observers.swift`), and the process-wide moments, exit and fork
/// (`LiveStores.swift`, `BackgroundWriter.swift`). Changes are visible to this process at once; they reach the
/// disk at ``synchronize(application:)``, by themselves within
/// ``flushDelaySeconds``, and when the process exits normally.
package final class PreferencesStore: @unchecked Sendable {
    /// The store of this process, placed by the environment at first use.
    /// Made under the lock `fork` waits for, so that a child forked while
    /// another thread makes it never inherits it half-made.
    package static var shared: PreferencesStore {
        if let p = prefs_shared_store() { return Unmanaged<PreferencesStore>.fromOpaque(p).takeUnretainedValue() }
        prefs_init_lock()
        defer { prefs_init_unlock() }
        if let p = prefs_shared_store() { return Unmanaged<PreferencesStore>.fromOpaque(p).takeUnretainedValue() }
        let store = PreferencesStore(locations: .fromEnvironment(), arguments: nil)
        prefs_set_shared_store(Unmanaged.passRetained(store).toOpaque())
        return store
    }

    /// How long a change may wait before it is written by itself.
    package static let flushDelaySeconds = 1

    /// Where this store's files live.
    package let locations: Locations
    /// Everything mutable, guarded by `lock` (see ``withLocked(_:)``), so
    /// the exclusivity check is left out of every access.
    @exclusivity(unchecked) var state: State
    let lock = ForkSafeMutex()
    /// Change counters of the user, system and managed directories (see
    /// ``ChangeCounter`` for where each lives).
    let counters: [ChangeCounter]
    let observers = ObserverRegistry()
    /// Notices files changed by other programs or by hand; started when the
    /// first domain is loaded. Guarded by `lock`.
    var watcher: DirectoryWatcher? = nil

    /// A store whose files live at `locations`. `arguments` fills the
    /// argument domain (`nil`: this process's command line).
    package init(locations: Locations, arguments: [String]? = nil) {
        self.locations = locations
        var s = State()
        // Read here, not under the store's lock: the command line is read
        // under the lock fork() waits for, which is never taken after it.
        s.arguments = ArgumentDomain.parse(arguments ?? ProcessArguments.current)
        s.languages = Languages.fromEnvironment()
        let makes = locations.createsFilesBesideDomains
        let user =
            locations.runtimeDirectory.map { ChangeCounter(directory: locations.userDirectory, runtimeDirectory: $0) }
            ?? ChangeCounter(directory: locations.userDirectory, createOnWrite: makes)
        counters = [
            user,
            ChangeCounter(directory: locations.systemDirectory, createOnWrite: makes),
            ChangeCounter(directory: locations.managedDirectory, createOnWrite: makes),
        ]
        s.seenCounts = counters.map(\.value)
        s.declaredGeneration = DeclaredDefaults.generation.load(ordering: .acquiring)
        state = s
        LiveStores.add(self)
    }

    /// Writes what is still pending; stops the store's threads.
    deinit {
        LiveStores.remove(self)
        watcher?.stop()
        observers.stop()
        try? synchronizeAll()
    }

    struct State: ~Copyable {
        var domains: [String: Domain] = [:]
        /// The managed domains among `domains` that may hold keys.
        let managedTally = ManagedTally()
        /// The views among `views` whose merged dictionary is built.
        let mergedTally = MergedTally()
        /// The same domains by ID, for writes (no path to build and hash).
        var domainsByID: [DomainID: Domain] = [:]
        var arguments = PropertyListDictionary()
        /// Registrations by application; `globalDomainName` holds those for every app.
        var registration: [String: PropertyListDictionary] = [:]
        /// Suites by application, newest first.
        var suites: [String: [String]] = [:]
        var volatile: [String: PropertyListDictionary] = [:]
        var languages = Languages(list: [], locale: "en_US")
        var views: [String: SearchView] = [:]
        var flushScheduled = false
        /// The change counters as this process last saw them.
        var seenCounts: [UInt64] = []
        /// The watcher saw files change while nobody observed: the next
        /// call re-reads them (see ``noticeExternalChanges()``).
        var changedOutside = false
        /// ``DeclaredDefaults/generation`` as this store last saw it.
        var declaredGeneration = 0
        /// Changes to deliver to observers once the lock is released.
        var outbox: [(application: String, key: String)] = []
        /// Files that cannot be used, by path, that no read has reported yet.
        var unreported: [String: PrefsError] = [:]
        /// Installed schemas by application, read at first use.
        var schemas: [String: InstalledSchema] = [:]
        /// Directories that symlinked domain files lead into, watched
        /// besides the preference directories.
        var linkedDirectories: [String] = []
        /// The sync folder as last read (see `Synced.swift`); nil until used.
        var synced: SyncedLayer? = nil
        /// The loaded domains by the directory they are named in, so that
        /// a re-check looks at the files of directories the watcher does not
        /// report on, not at every file (see ``refreshLoaded(_:)``).
        var domainsByDirectory: [String: [Domain]] = [:]
        /// Loaded domains whose file is a symlink into another directory.
        var linkedDomains: [String: Domain] = [:]
        /// Directories the watcher does not report on that were missing at
        /// the last re-check (their files were all seen missing then).
        var absentDirectories: Set<String> = []
        /// How many loaded files the last re-check looked at (for tests
        /// and measurements: ``filesLookedAtByLastRecheck``).
        var lastRecheckCount = 0
    }

    /// Runs `body` with the state, under the store's lock.
    @inline(__always)
    func withLocked<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        // Keeps the store alive until the lock is released, so that a
        // caller's last reference can never run deinit under it.
        defer { withExtendedLifetime(self) {} }
        return try lock.withLock { () throws(E) -> T in try body(&state) }
    }

    // MARK: Application IDs

    /// The application ID `id` stands for: the global domain for
    /// `NSGlobalDomain` and for `.GlobalPreferences` (the global domain's
    /// file name, which as an application's name would reach the same
    /// files behind the global domain's back), the current process for
    /// `nil`. Throws for IDs files cannot hold.
    package static func canonicalApplication(_ id: String) throws(PrefsError) -> String {
        if id == globalDomainName || id == globalDomainFileName { return globalDomainName }
        if let problem = ApplicationID.problem(id) { throw PrefsError(.invalidApplicationID, problem) }
        return id
    }

    /// Runs `body` under the lock, then delivers what it queued for observers.
    func withState<T>(_ body: (inout State) throws(PrefsError) -> T) throws(PrefsError) -> T {
        let (result, outbox) = try withLocked { (s: inout State) throws(PrefsError) -> (T, [(application: String, key: String)]?) in
            let r = try body(&s)
            // Most calls queue nothing: the empty queue is left in place.
            if s.outbox.isEmpty { return (r, nil) }
            let o = s.outbox
            s.outbox = []
            return (r, o)
        }
        if let outbox { observers.post(outbox) }
        return result
    }

    // MARK: Reading

    /// The first value for `key` along `app`'s search list.
    package func value(forKey key: String, application app: String) throws(PrefsError) -> PropertyList? {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in
            noticeChanges(&s)
            return answered(k, searchView(app, &s), &s)
        }
    }

    /// A handle for reading `app` repeatedly (see ``value(forKey:in:)``).
    package func handle(application app: String) throws(PrefsError) -> ApplicationHandle {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in ApplicationHandle(view: searchView(app, &s)) }
    }

    /// The first value for the key whose UTF-8 is `key` along the search
    /// list of `handle`'s application: one hash lookup, no allocation, no
    /// system call.
    ///
    /// The installed schema is looked for at the application's first read
    /// (a few `stat` calls, once), since it decides whether a stored value
    /// counts: a value that breaks it reads as the schema's default.
    ///
    /// `problem` is set when this read is the first to meet a file of the
    /// search list that cannot be used (it does not parse, it cannot be
    /// read); the value is then what the other layers hold.
    package func value(forKey key: UnsafeRawBufferPointer, in handle: ApplicationHandle, problem: inout PrefsError?) -> PropertyList? {
        let k = PropertyList.Key(borrowing: key)
        return withLocked { s in
            noticeChanges(&s)
            let v = handle.view
            let value = answered(k, v, &s)
            if !s.unreported.isEmpty { problem = takeProblem(v, &s) }
            return value
        }
    }

    /// Every key visible along `app`'s search list with the value a read returns.
    package func dictionary(application app: String) throws(PrefsError) -> PropertyListDictionary {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            noticeChanges(&s)
            return fullView(app, &s).merged!
        }
    }

    /// Whether a managed value decides `key` for `app`.
    package func isForced(_ key: String, application app: String) throws(PrefsError) -> Bool {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in isForced(k, in: searchView(app, &s), &s) }
    }

    /// The values of one stored domain, without the search list; `keys` nil
    /// for all of them.
    package func values(in id: DomainID, keys: [String]? = nil) throws(PrefsError) -> PropertyListDictionary {
        let id = try validated(id)
        let path = locations.path(of: id)
        return withLocked { s in
            noticeChanges(&s)
            let d = domain(path, &s)
            guard let keys else { return d.values }
            var out = PropertyListDictionary()
            for k in keys { if let v = d.value(forKey: PropertyList.Key(k)) { out[PropertyList.Key(k)] = v } }
            return out
        }
    }

    /// Why the file of `id` could not be used, when it could not. `keys`:
    /// when given, and the file is read now, only their values are built
    /// until another read needs more (the whole file is checked either way).
    package func problem(in id: DomainID, keys: [String]? = nil) throws(PrefsError) -> PrefsError? {
        let id = try validated(id)
        let path = locations.path(of: id)
        return withLocked { s in domain(path, &s, only: keys).problem }
    }

    /// Problems of the files along `app`'s search list (files that do not
    /// parse, files that cannot be read).
    package func problems(application app: String) throws(PrefsError) -> [PrefsError] {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            // Every layer's file read, but no merged view built: that would
            // decode every value of a domain read through its index.
            let v = searchView(app, &s)
            loadSchema(v, &s)
            return v.layers.compactMap { layer -> PrefsError? in
                switch layer {
                case .file(let p), .managed(let p): return domain(p, &s).problem
                case .schema(let a): return s.schemas[a]?.problem
                default: return nil
                }
            }
        }
    }

    /// `id` with its application canonical; refused when its file could
    /// not exist (a current-host file name takes the host id too).
    func validated(_ id: DomainID) throws(PrefsError) -> DomainID {
        let id = DomainID(application: try Self.canonicalApplication(id.application), user: id.user, host: id.host)
        guard locations.fits(id) else {
            throw PrefsError(
                .invalidApplicationID,
                "application ID \"\(id.application.prefix(40))...\" is too long for a file name with this machine's host id (\(locations.hostID.utf8.count) bytes)"
            )
        }
        return id
    }

    /// The applications with a stored domain for `user` and `host`, sorted
    /// (the global domain is not listed).
    package func applications(user: DomainUser, host: DomainHost) -> [String] {
        let base = user == .current ? locations.userDirectory : locations.systemDirectory
        var names: [String] = []
        let suffix = host == .any ? ".plist" : ".\(locations.hostID).plist"
        for name in FileSystem.list(host == .any ? base : base + "/ByHost") where name.hasSuffix(suffix) {
            let app = String(name.dropLast(suffix.count))
            if app != globalDomainFileName, !app.hasPrefix("."), ApplicationID.problem(app) == nil { names.append(app) }
        }
        return names.sorted { PropertyList.Key($0) < PropertyList.Key($1) }
    }
}
