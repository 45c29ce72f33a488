import CProcessHooks
import Glibc

/// The preferences of this process: every domain it has touched, the search
/// list that combines them, and the in-memory domains (arguments,
/// registration, volatile and language domains).
///
/// One store serves the C API and the Swift API alike. Every method is
/// thread-safe. Changes are visible to this process at once; they reach the
/// disk at ``synchronize(application:)``, by themselves within
/// ``flushDelaySeconds``, and when the process exits normally.
public final class PreferencesStore: @unchecked Sendable {
    /// The store of this process, placed by the environment at first use.
    /// Made under the lock `fork` waits for, so that a child forked while
    /// another thread makes it never inherits it half-made.
    public static var shared: PreferencesStore {
        if let p = prefs_shared_store() { return Unmanaged<PreferencesStore>.fromOpaque(p).takeUnretainedValue() }
        prefs_init_lock()
        defer { prefs_init_unlock() }
        if let p = prefs_shared_store() { return Unmanaged<PreferencesStore>.fromOpaque(p).takeUnretainedValue() }
        let store = PreferencesStore(locations: .fromEnvironment(), arguments: nil)
        prefs_set_shared_store(Unmanaged.passRetained(store).toOpaque())
        return store
    }

    /// How long a change may wait before it is written by itself.
    public static let flushDelaySeconds = 1

    /// Where this store's files live.
    public let locations: Locations
    /// Everything mutable, guarded by `lock` (see ``withLocked(_:)``), so
    /// the exclusivity check is left out of every access.
    @exclusivity(unchecked) private var state: State
    private let lock = ProcessLock()
    /// Change counters of the user, system and managed directories (see
    /// ``ChangeCounter`` for where each lives).
    private let counters: [ChangeCounter]
    private let observers = ObserverRegistry()
    /// Notices files changed by other programs or by hand; started when the
    /// first domain is loaded. Guarded by `lock`.
    private var watcher: DirectoryWatcher? = nil

    /// A store whose files live at `locations`. `arguments` fills the
    /// argument domain (`nil`: this process's command line).
    public init(locations: Locations, arguments: [String]? = nil) {
        self.locations = locations
        var s = State()
        // Read here, not under the store's lock: the command line is read
        // under the lock fork() waits for, which is never taken after it.
        s.arguments = ArgumentDomain.parse(arguments ?? ProcessArguments.current)
        s.languages = Languages.fromEnvironment()
        let makes = locations.createsFilesBesideDomains
        let user = locations.runtimeDirectory.map { ChangeCounter(directory: locations.userDirectory, runtimeDirectory: $0) }
            ?? ChangeCounter(directory: locations.userDirectory, createOnWrite: makes)
        counters = [user,
                    ChangeCounter(directory: locations.systemDirectory, createOnWrite: makes),
                    ChangeCounter(directory: locations.managedDirectory, createOnWrite: makes)]
        s.seenCounts = counters.map(\.value)
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
        /// Changes to deliver to observers once the lock is released.
        var outbox: [(application: String, key: String)] = []
        /// Files that cannot be used, by path, that no read has reported yet.
        var unreported: [String: PrefsError] = [:]
        /// Directories that symlinked domain files lead into, watched
        /// besides the preference directories.
        var linkedDirectories: [String] = []
    }

    /// The merged search list of one application, rebuilt when a layer
    /// changes shape and patched key by key on sets.
    final class SearchView: @unchecked Sendable {
        let application: String
        var layers: [Layer]
        /// Accessed only under the store's lock, so the exclusivity check is
        /// left out of the read path.
        @exclusivity(unchecked) var merged: PropertyListDictionary? = nil
        init(application: String, layers: [Layer]) {
            self.application = application
            self.layers = layers
        }
    }

    /// A resolved application, for repeated reads without resolving its ID
    /// again (the C API keeps one per thread). Valid for the store's life.
    public struct ApplicationHandle: Sendable {
        let view: SearchView
        /// The application's canonical ID.
        public var application: String { view.application }
    }

    /// One entry of a search list.
    enum Layer: Equatable {
        case file(String)
        case managed(String)
        case arguments
        case languages
        case registration(String)
    }

    /// Runs `body` with the state, under the store's lock.
    @inline(__always)
    private func withLocked<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
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
    public static func canonicalApplication(_ id: String) throws(PrefsError) -> String {
        if id == globalDomainName || id == globalDomainFileName { return globalDomainName }
        if let problem = ApplicationID.problem(id) { throw PrefsError(.invalidApplicationID, problem) }
        return id
    }

    // MARK: The search list

    func layers(for app: String, _ s: borrowing State) -> [Layer] {
        var l: [Layer] = forcingPaths(app).map { .managed($0) }
        l.append(.arguments)
        func files(_ a: String, _ user: DomainUser) -> [Layer] {
            // A current-host file whose name cannot exist holds nothing.
            [DomainID(application: a, user: user, host: .current), DomainID(application: a, user: user, host: .any)]
                .filter(locations.fits).map { .file(locations.path(of: $0)) }
        }
        let suites = s.suites[app] ?? []
        let isGlobal = app == globalDomainName
        if !isGlobal { l += files(app, .current) }
        for suite in suites { l += files(suite, .current) }
        l += files(globalDomainName, .current)
        if !isGlobal { l += files(app, .any) }
        for suite in suites { l += files(suite, .any) }
        l += files(globalDomainName, .any)
        l.append(.languages)
        if !isGlobal { l.append(.registration(app)) }
        l.append(.registration(globalDomainName))
        return l
    }

    private func domain(_ path: String, _ s: inout State) -> Domain {
        if let d = s.domains[path] { return d }
        let d = Domain(path: path, shared: locations.isShared(path))
        s.domains[path] = d
        reload(d, &s)
        watchLinkTarget(d, &s)
        if watcher == nil { startWatcher(immediately: false, s.linkedDirectories) }
        return d
    }

    /// When `d`'s file is a symlink into another directory (a dotfile
    /// manager's), watches that directory too, so that changes made there
    /// by other programs are noticed.
    private func watchLinkTarget(_ d: Domain, _ s: inout State) {
        let dir = FileSystem.parent(of: d.file)
        guard dir != FileSystem.parent(of: d.path), !s.linkedDirectories.contains(dir) else { return }
        s.linkedDirectories.append(dir)
        watcher?.add(dir)
    }

    /// Re-reads `d` if its file changed; a file that became unusable is
    /// queued for the next read of an application that searches it to
    /// report. Returns whether the values may have changed.
    @discardableResult
    private func reload(_ d: Domain, _ s: inout State) -> Bool {
        let before = d.problem
        guard d.refresh() else { return false }
        if let problem = d.problem {
            if before?.message != problem.message { s.unreported[d.path] = problem }
        } else {
            s.unreported[d.path] = nil
        }
        return true
    }

    /// The first unreported problem of a file on `v`'s search list, which
    /// is then reported.
    private func takeProblem(_ v: SearchView, _ s: inout State) -> PrefsError? {
        for layer in v.layers {
            switch layer {
            case .file(let p), .managed(let p):
                if let problem = s.unreported.removeValue(forKey: p) { return problem }
            default: continue
            }
        }
        return nil
    }

    /// The value one layer holds for `key`.
    private func lookup(_ key: PropertyList.Key, in layer: Layer, _ s: inout State) -> PropertyList? {
        switch layer {
        case .file(let p), .managed(let p): return domain(p, &s).values[key]
        case .arguments: return s.arguments[key]
        case .languages:
            for lang in s.languages.list {
                if let v = s.volatile[lang]?[key] { return v }
            }
            return nil
        case .registration(let app): return s.registration[app]?[key]
        }
    }

    private func layerValues(_ layer: Layer, _ s: inout State) -> PropertyListDictionary {
        switch layer {
        case .file(let p), .managed(let p): return domain(p, &s).values
        case .arguments: return s.arguments
        case .languages:
            var merged = PropertyListDictionary()
            for lang in s.languages.list.reversed() {
                merged.merge(s.volatile[lang] ?? [:]) { _, new in new }
            }
            return merged
        case .registration(let app): return s.registration[app] ?? [:]
        }
    }

    private func view(_ app: String, _ s: inout State) -> SearchView {
        let v: SearchView
        if let existing = s.views[app] {
            if existing.merged != nil { return existing }
            v = existing
        } else {
            v = SearchView(application: app, layers: layers(for: app, s))
            s.views[app] = v
        }
        rebuild(v, &s)
        return v
    }

    private func rebuild(_ v: SearchView, _ s: inout State) {
        var merged = PropertyListDictionary()
        for layer in v.layers.reversed() {
            merged.merge(layerValues(layer, &s)) { _, new in new }
        }
        if merged["AppleLanguages"] == nil {
            merged["AppleLanguages"] = .array(s.languages.list.map { .string($0) })
        }
        if merged["AppleLocale"] == nil { merged["AppleLocale"] = .string(s.languages.locale) }
        v.merged = merged
    }

    /// Re-reads the loaded domain files when another process has written
    /// one since this process last looked (its change counter moved). An
    /// unchanged counter costs a memory load per directory: no system call.
    @inline(__always)
    private func noticeChanges(_ s: inout State) {
        var moved = false
        for i in counters.indices {
            let now = counters[i].value
            if now != s.seenCounts[i] {
                s.seenCounts[i] = now
                moved = true
            }
        }
        if moved { refreshLoaded(&s) }
    }

    private func refreshLoaded(_ s: inout State) {
        guard s.domains.values.contains(where: { $0.loaded && $0.hasChangedOnDisk }) else { return }
        let before = snapshot(&s)
        for d in s.domains.values {
            reload(d, &s)
            watchLinkTarget(d, &s)
        }
        invalidateViews(&s)
        s.outbox += differences(before, &s)
    }

    /// The merged views of every observed application.
    private func snapshot(_ s: inout State) -> [String: PropertyListDictionary] {
        var out = [String: PropertyListDictionary]()
        for app in observers.observedApplications { out[app] = view(app, &s).merged! }
        return out
    }

    /// The keys whose value a read returns changed since `before`.
    private func differences(_ before: [String: PropertyListDictionary], _ s: inout State) -> [(application: String, key: String)] {
        var changes: [(application: String, key: String)] = []
        for (app, old) in before {
            let new = view(app, &s).merged!
            for (k, v) in new where old[k] != v { changes.append((app, k.string)) }
            for k in old.keys where new[k] == nil { changes.append((app, k.string)) }
        }
        return changes
    }

    /// Runs `body` under the lock, then delivers what it queued for observers.
    private func withState<T>(_ body: (inout State) throws(PrefsError) -> T) throws(PrefsError) -> T {
        let (result, outbox) = try withLocked { (s: inout State) throws(PrefsError) -> (T, [(application: String, key: String)]) in
            let r = try body(&s)
            let o = s.outbox
            s.outbox = []
            return (r, o)
        }
        observers.post(outbox)
        return result
    }

    // MARK: Observers

    /// A registered observer; pass it to ``removeObserver(_:)``.
    public struct ObserverToken: Sendable, Hashable {
        let id: Int
    }

    /// Calls `callback` after a value that `app`'s search list returns for
    /// `key` (any key when `nil`) changes: by this process (after the set)
    /// or by another (after its synchronize reaches the disk, or a file is
    /// edited). Callbacks run on a library thread, outside every lock, and
    /// may call back into the store.
    public func addObserver(application app: String, key: String?, _ callback: @escaping @Sendable (_ application: String, _ key: String) -> Void) throws(PrefsError) -> ObserverToken {
        let app = try Self.canonicalApplication(app)
        // Current-host files of this user can then be watched too (a file
        // named by path has no ByHost directory).
        let byHost = locations.userDirectory + "/ByHost"
        if locations.createsFilesBesideDomains { try? FileSystem.makeDirectories(byHost, mode: 0o700) }
        withLocked { s in
            if let watcher {
                watcher.add(byHost)
                watcher.watchNow()
            } else {
                startWatcher(immediately: true, s.linkedDirectories)
            }
            _ = view(app, &s)
        }
        let id = observers.add(.init(application: app, key: key, callback: callback))
        return ObserverToken(id: id)
    }

    /// Removes an observer. When this returns, its callback is not running
    /// and will never be called again (unless called from within that very
    /// callback).
    public func removeObserver(_ token: ObserverToken) {
        observers.remove(token.id)
    }

    /// Starts the directory watcher (under the lock): at once for
    /// observers, else after a delay (see ``DirectoryWatcher``), over the
    /// preference directories and `linked` (``State/linkedDirectories``).
    /// A store that cannot start one tries again when it next loads a domain.
    private func startWatcher(immediately: Bool, _ linked: [String]) {
        let l = locations
        let dirs = [l.userDirectory, l.userDirectory + "/ByHost", l.systemDirectory, l.systemDirectory + "/ByHost",
                    l.managedDirectory, l.managedDirectory + "/" + l.userName] + linked
        // Unretained (a weak reference would slow every retain of the
        // store): deinit stops the watcher and waits for its thread.
        let me = Unmanaged.passUnretained(self)
        watcher = DirectoryWatcher.start(dirs, immediately: immediately, {
            me._withUnsafeGuaranteedRef { $0.noticeExternalChanges() }
        }, poll: {
            me._withUnsafeGuaranteedRef { $0.noticeCounterChanges() }
        })
    }

    /// Re-reads files other libprefs writers replaced (called by a watcher
    /// without inotify, every ``DirectoryWatcher/pollMilliseconds``).
    func noticeCounterChanges() {
        try? withState { (s: inout State) throws(PrefsError) in noticeChanges(&s) }
    }

    /// Why changes by other programs or by hand may go unnoticed by this
    /// store's reads and observers until the next synchronize (the kernel
    /// would not give an inotify instance); nil while they are watched.
    /// Changes by libprefs writers are still seen.
    public var observationProblem: PrefsError? {
        guard let e = withLocked({ _ in watcher?.failure }) else { return nil }
        return PrefsError(.io, "cannot watch the preference directories (inotify: \(FileSystem.errorText(e))): changes by other programs and edits by hand are seen at the next synchronize; changes by libprefs writers within \(DirectoryWatcher.pollMilliseconds) ms")
    }

    /// Re-reads changed files and tells observers (called by the watcher).
    func noticeExternalChanges() {
        try? withState { (s: inout State) throws(PrefsError) in
            // A file edited by hand moves no counter, so look at every file;
            // remember the counters so the next read does not look again.
            s.seenCounts = counters.map(\.value)
            refreshLoaded(&s)
        }
    }

    /// Tells other processes that `d`'s file was replaced: bumps the
    /// counters of the directory it is named in and of the one a symlink
    /// led to, so readers of either name see the change.
    private func announce(_ d: Domain) {
        for c in counters where c.covers(d.path) || c.covers(d.file) { c.bump() }
    }

    /// Commits `d` and announces the new file.
    private func commit(_ d: Domain) throws(PrefsError) -> PrefsError? {
        let wrote = d.hasPendingChanges
        let note = try d.commit()
        if wrote { announce(d) }
        return note
    }

    /// Forgets every merged view (a layer changed shape).
    private func invalidateViews(_ s: inout State) {
        for v in s.views.values { v.merged = nil }
    }

    /// Patches `key` in every view that searches `path`.
    private func repatch(_ key: PropertyList.Key, layer changed: Layer, _ s: inout State) {
        for v in s.views.values where v.merged != nil && v.layers.contains(changed) {
            var found: PropertyList? = nil
            for layer in v.layers {
                if let x = lookup(key, in: layer, &s) { found = x; break }
            }
            if found == nil, key == "AppleLanguages" { found = .array(s.languages.list.map { .string($0) }) }
            if found == nil, key == "AppleLocale" { found = .string(s.languages.locale) }
            v.merged![key] = found
        }
    }

    // MARK: Reading

    /// The first value for `key` along `app`'s search list.
    public func value(forKey key: String, application app: String) throws(PrefsError) -> PropertyList? {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in
            noticeChanges(&s)
            return view(app, &s).merged![k]
        }
    }

    /// A handle for reading `app` repeatedly (see ``value(forKey:in:)``).
    public func handle(application app: String) throws(PrefsError) -> ApplicationHandle {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in ApplicationHandle(view: view(app, &s)) }
    }

    /// The first value for the key whose UTF-8 is `key` along the search
    /// list of `handle`'s application: one hash lookup, no allocation, no
    /// system call.
    ///
    /// `problem` is set when this read is the first to meet a file of the
    /// search list that cannot be used (it does not parse, it cannot be
    /// read); the value is then what the other layers hold.
    public func value(forKey key: UnsafeRawBufferPointer, in handle: ApplicationHandle, problem: inout PrefsError?) -> PropertyList? {
        let k = PropertyList.Key(borrowing: key)
        return withLocked { s in
            noticeChanges(&s)
            let v = handle.view
            if v.merged == nil { rebuild(v, &s) }
            if !s.unreported.isEmpty { problem = takeProblem(v, &s) }
            return v.merged![k]
        }
    }

    /// Every key visible along `app`'s search list with the value a read returns.
    public func dictionary(application app: String) throws(PrefsError) -> PropertyListDictionary {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            noticeChanges(&s)
            return view(app, &s).merged!
        }
    }

    /// Whether a managed value decides `key` for `app`.
    public func isForced(_ key: String, application app: String) throws(PrefsError) -> Bool {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in
            forcingPaths(app).contains { domain($0, &s).values[k] != nil }
        }
    }

    /// The values of one stored domain, without the search list; `keys` nil
    /// for all of them.
    public func values(in id: DomainID, keys: [String]? = nil) throws(PrefsError) -> PropertyListDictionary {
        let id = try validated(id)
        let path = locations.path(of: id)
        return withLocked { s in
            noticeChanges(&s)
            let all = domain(path, &s).values
            guard let keys else { return all }
            var out = PropertyListDictionary()
            for k in keys { if let v = all[PropertyList.Key(k)] { out[PropertyList.Key(k)] = v } }
            return out
        }
    }

    /// Why the file of `id` could not be used, when it could not.
    public func problem(in id: DomainID) throws(PrefsError) -> PrefsError? {
        let id = try validated(id)
        let path = locations.path(of: id)
        return withLocked { s in domain(path, &s).problem }
    }

    /// Problems of the files along `app`'s search list (files that do not
    /// parse, files that cannot be read).
    public func problems(application app: String) throws(PrefsError) -> [PrefsError] {
        let app = try Self.canonicalApplication(app)
        return withLocked { s in
            let v = view(app, &s)
            return v.layers.compactMap { layer -> PrefsError? in
                switch layer {
                case .file(let p), .managed(let p): return s.domains[p]?.problem
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
            throw PrefsError(.invalidApplicationID, "application ID \"\(id.application.prefix(40))...\" is too long for a file name with this machine's host id (\(locations.hostID.utf8.count) bytes)")
        }
        return id
    }

    /// The managed files that force `app`'s keys: its own, then the global
    /// domain's, which force every application's (as on macOS).
    private func forcingPaths(_ app: String) -> [String] {
        let own = locations.managedPaths(of: app)
        return app == globalDomainName ? own : own + locations.managedPaths(of: globalDomainName)
    }

    /// The applications with a stored domain for `user` and `host`, sorted
    /// (the global domain is not listed).
    public func applications(user: DomainUser, host: DomainHost) -> [String] {
        let base = user == .current ? locations.userDirectory : locations.systemDirectory
        var names: [String] = []
        let suffix = host == .any ? ".plist" : ".\(locations.hostID).plist"
        for name in FileSystem.list(host == .any ? base : base + "/ByHost") where name.hasSuffix(suffix) {
            let app = String(name.dropLast(suffix.count))
            if app != globalDomainFileName, !app.hasPrefix("."), ApplicationID.problem(app) == nil { names.append(app) }
        }
        return names.sorted { PropertyList.Key($0) < PropertyList.Key($1) }
    }

    // MARK: Writing

    /// Sets (`nil`: removes) keys of one stored domain as one change: this
    /// process sees it at once, and another process sees all of it or none
    /// of it once it is synchronized. Refuses values the XML format cannot
    /// hold and keys a managed value decides; nothing changes then.
    public func set(_ changes: [(String, PropertyList?)], in id: DomainID) throws(PrefsError) {
        let id = try validated(id)
        for (key, value) in changes {
            guard let value else { continue }
            do throws(PrefsError) {
                try PropertyList.checkStorable(value, forKey: key)
            } catch {
                throw PrefsError(error.code, "cannot store \"\(key)\": \(error.message)")
            }
        }
        let path = locations.path(of: id)
        let managed = forcingPaths(id.application)
        try withState { (s: inout State) throws(PrefsError) in
            for (key, _) in changes {
                let k = PropertyList.Key(key)
                if managed.contains(where: { domain($0, &s).values[k] != nil }) {
                    throw PrefsError(.forcedValue, "\"\(key)\" of \(id.application) is managed (forced); the write was refused")
                }
            }
            let observed = observers.isEmpty ? [] : Array(observers.observedApplications)
            var before = [(String, PropertyList.Key, PropertyList?)]()
            for app in observed {
                let v = view(app, &s)
                guard v.layers.contains(.file(path)) else { continue }
                for (key, _) in changes { before.append((app, PropertyList.Key(key), v.merged![PropertyList.Key(key)])) }
            }
            let d = domain(path, &s)
            for (key, value) in changes {
                d.set(PropertyList.Key(key), value)
            }
            for (key, _) in changes { repatch(PropertyList.Key(key), layer: .file(path), &s) }
            for (app, k, old) in before where view(app, &s).merged![k] != old {
                s.outbox.append((app, k.string))
            }
            scheduleFlush(&s)
        }
    }

    /// Writes this process's pending changes of every domain of `app` and
    /// picks up other processes' changes to the files of its search list.
    /// Returns a note when a file that did not parse was moved aside.
    @discardableResult
    public func synchronize(application app: String) throws(PrefsError) -> PrefsError? {
        let app = try Self.canonicalApplication(app)
        return try withLocked { (s: inout State) throws(PrefsError) -> PrefsError? in
            var note: PrefsError? = nil
            var failure: PrefsError? = nil
            let own = [DomainUser.current, .any].flatMap { u in
                [DomainHost.current, .any].map { h in locations.path(of: DomainID(application: app, user: u, host: h)) }
            }
            for path in own {
                guard let d = s.domains[path], d.hasPendingChanges else { continue }
                do throws(PrefsError) { if let n = try commit(d) { note = n } } catch { failure = failure ?? error }
            }
            refreshAll(app, &s)
            if let failure { throw failure }
            return note
        }
    }

    /// Writes the pending changes of one stored domain and re-reads it.
    @discardableResult
    public func synchronize(_ id: DomainID) throws(PrefsError) -> PrefsError? {
        let id = try validated(id)
        let path = locations.path(of: id)
        return try withLocked { (s: inout State) throws(PrefsError) -> PrefsError? in
            let d = domain(path, &s)
            let note = try commit(d)
            if reload(d, &s) { invalidateViews(&s) }
            return note
        }
    }

    /// Writes every pending change of every domain; the first failure is
    /// thrown after all were tried.
    public func synchronizeAll() throws(PrefsError) {
        try withLocked { (s: inout State) throws(PrefsError) in
            var failure: PrefsError? = nil
            for d in s.domains.values where d.hasPendingChanges {
                do throws(PrefsError) { _ = try commit(d) } catch { failure = failure ?? error }
            }
            s.flushScheduled = false
            if let failure { throw failure }
        }
    }

    private func refreshAll(_ app: String, _ s: inout State) {
        var changed = false
        for layer in view(app, &s).layers {
            switch layer {
            case .file(let p), .managed(let p): if let d = s.domains[p], reload(d, &s) { changed = true }
            default: break
            }
        }
        if changed { invalidateViews(&s) }
    }

    // MARK: In-memory domains

    /// Merges `defaults` into the registration domain of `app`
    /// (`NSGlobalDomain`: for every application).
    public func register(_ defaults: PropertyListDictionary, application app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        withLocked { s in
            s.registration[app, default: [:]].merge(defaults) { _, new in new }
            invalidateViews(&s)
        }
    }

    /// Replaces the argument domain with the `-key value` pairs of `args`
    /// (`args[0]`, the program, is skipped).
    public func setArguments(_ args: [String]) {
        withLocked { s in
            s.arguments = ArgumentDomain.parse(args)
            invalidateViews(&s)
        }
    }

    /// Sets a named in-memory domain. `NSArgumentDomain` and
    /// `NSRegistrationDomain` name the argument domain and the registration
    /// domain for every application; a domain named by one of the user's
    /// languages is searched as a language domain.
    public func setVolatileDomain(_ name: String, _ values: PropertyListDictionary?) {
        withLocked { s in
            switch name {
            case "NSArgumentDomain": s.arguments = values ?? [:]
            case "NSRegistrationDomain": s.registration[globalDomainName] = values
            default: s.volatile[name] = values
            }
            invalidateViews(&s)
        }
    }

    /// The named in-memory domain, if set.
    public func volatileDomain(_ name: String) -> PropertyListDictionary? {
        withLocked { s in
            switch name {
            case "NSArgumentDomain": return s.arguments
            case "NSRegistrationDomain": return s.registration[globalDomainName]
            default: return s.volatile[name]
            }
        }
    }

    /// Adds `suite` to `app`'s search list (newest first).
    public func addSuite(_ suite: String, to app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        let suite = try Self.canonicalApplication(suite)
        guard suite != app, suite != globalDomainName else { return }
        withLocked { s in
            s.suites[app, default: []].removeAll { $0 == suite }
            s.suites[app, default: []].insert(suite, at: 0)
            relayer(app, &s)
        }
    }

    /// Removes `suite` from `app`'s search list.
    public func removeSuite(_ suite: String, from app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        withLocked { s in
            s.suites[app]?.removeAll { $0 == suite }
            relayer(app, &s)
        }
    }

    /// Recomputes the layers of `app`'s view after its suites changed.
    private func relayer(_ app: String, _ s: inout State) {
        guard let v = s.views[app] else { return }
        v.layers = layers(for: app, s)
        v.merged = nil
    }

    // MARK: Fork

    /// Before `fork`: takes the store's locks, so that the child gets the
    /// state whole (see ``LiveStores``).
    func lockForFork() {
        lock.lock()
        observers.lockForFork()
    }

    /// After `fork`, in the parent or the child: releases the locks. The
    /// child has none of the parent's threads, so its writing by itself,
    /// delivery to observers and directory watcher start again.
    func unlockAfterFork(inChild: Bool) {
        observers.unlockAfterFork(inChild: inChild)
        if inChild {
            state.flushScheduled = false
            if state.domains.values.contains(where: { $0.hasPendingChanges }) { scheduleFlush(&state) }
            watcher?.abandonAfterFork()
            watcher = nil
            if !state.domains.isEmpty { startWatcher(immediately: !observers.isEmpty, state.linkedDirectories) }
        }
        lock.unlock()
    }

    // MARK: Writing by itself

    private func scheduleFlush(_ s: inout State) {
        guard !s.flushScheduled else { return }
        // Without a writer thread, the exit handler and synchronize still write.
        s.flushScheduled = BackgroundWriter.schedule(self)
    }

    /// Writes the changes the background writer was asked to write.
    func writeScheduled() throws(PrefsError) {
        try synchronizeAll()
    }
}
