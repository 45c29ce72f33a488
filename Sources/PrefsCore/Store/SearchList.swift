// The search list of an application, its layers in order, and the merged
// view of all of them that reads are served from.

extension PreferencesStore {
    /// The merged search list of one application, rebuilt when a layer
    /// changes shape and patched key by key on sets.
    final class SearchView: @unchecked Sendable {
        let application: String
        // Like `merged`, accessed only under the store's lock.
        @exclusivity(unchecked) var layers: [Layer] {
            didSet {
                managedLayers = Self.managedIndices(layers)
                managedCounted = false
            }
        }
        /// Whether the domain of every managed layer is loaded and counted
        /// in the store's ``ManagedTally``.
        @exclusivity(unchecked) var managedCounted = false
        /// The positions of the managed layers in `layers`, which every set
        /// looks at (without going through the other layers).
        @exclusivity(unchecked) private(set) var managedLayers: [Int]
        /// Accessed only under the store's lock, so the exclusivity check is
        /// left out of the read path. Counted in `tally` while built.
        @exclusivity(unchecked) var merged: PropertyListDictionary? = nil {
            // No `oldValue`: a patch of one key stays in place.
            didSet {
                let built = merged != nil
                if built != counted {
                    counted = built
                    tally.built += built ? 1 : -1
                }
            }
        }
        /// Whether `merged` is built, as counted in `tally`.
        @exclusivity(unchecked) private var counted = false
        /// The store's count of views whose merged dictionary is built.
        let tally: MergedTally
        /// Reads answered layer by layer, without the merged view.
        @exclusivity(unchecked) var unmergedReads = 0
        /// The loaded domain of each file layer once looked at (`nil`
        /// before, and for the other layers), so that lookups do not hash
        /// paths. A store never drops a loaded domain, so these stay valid
        /// until the layers change.
        @exclusivity(unchecked) var domains: [Domain?]
        /// The application's own domain (current user, any host), once written.
        @exclusivity(unchecked) var ownDomain: Domain? = nil
        /// Whether the application's installed schema has been looked for:
        /// it is read at the first read that no other layer answers (see
        /// ``PreferencesStore/loadSchema(_:_:)``), so that reads of stored
        /// keys never pay for it.
        @exclusivity(unchecked) var schemaChecked = false
        /// The application's installed schema once a set or read looked
        /// for it: the store's `schemas` entry, replaced with it.
        @exclusivity(unchecked) var installedSchema: InstalledSchema? = nil {
            didSet { plainSetsAt = 0 }
        }
        /// The generation of ``SetRules`` at which no set through this view
        /// needed the schema's or the sync folder's rules; 0: not known
        /// (see ``PreferencesStore/setsArePlain(_:_:_:)``).
        @exclusivity(unchecked) var plainSetsAt = 0
        init(application: String, layers: [Layer], tally: MergedTally) {
            self.application = application
            self.tally = tally
            self.layers = layers
            managedLayers = Self.managedIndices(layers)
            domains = Array(repeating: nil, count: layers.count)
        }

        private static func managedIndices(_ layers: [Layer]) -> [Int] {
            layers.indices.filter {
                if case .managed = layers[$0] { return true }
                return false
            }
        }
    }

    /// A resolved application, for repeated reads without resolving its ID
    /// again (the C API keeps one per thread). Valid for the store's life.
    package struct ApplicationHandle: Sendable {
        let view: SearchView
        /// The application's canonical ID.
        package var application: String { view.application }
    }

    /// One entry of a search list.
    enum Layer: Equatable {
        case file(String)
        case managed(String)
        case arguments
        /// The application's synced values (see `Synced.swift`).
        case synced(String)
        case languages
        case registration(String)
        /// The defaults of the typed keys the process declared for this
        /// application.
        case declared(String)
        /// The defaults of the application's installed schema.
        case schema(String)
    }

    // MARK: The search list

    func layers(for app: String, _ s: borrowing State) -> [Layer] {
        var l: [Layer] = forcingPaths(app).map { .managed($0) }
        l.append(.arguments)
        l.append(.synced(app))
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
        l.append(.declared(app))
        l.append(.schema(app))
        return l
    }

    /// The value layer `i` of `v` holds for `key`.
    @inline(__always)
    func lookup(_ key: PropertyList.Key, at i: Int, of v: SearchView, _ s: inout State) -> PropertyList? {
        if let d = v.domains[i] { return d.value(forKey: key) }
        switch v.layers[i] {
        case .file(let p), .managed(let p):
            let d = domain(p, &s)
            v.domains[i] = d
            return d.value(forKey: key)
        default: return lookup(key, in: v.layers[i], &s)
        }
    }

    /// Whether a managed layer of `v` holds `key` (a write is then refused).
    func isForced(_ key: PropertyList.Key, in v: SearchView, _ s: inout State) -> Bool {
        // Files the watcher saw change, which no read has re-read yet (see
        // ``noticeExternalChanges()``): re-read once, as the next read would,
        // not at every set until a read comes.
        if s.changedOutside {
            s.changedOutside = false
            refreshLoaded(&s)
        }
        // Managed files rarely exist: once every managed domain of `v` is
        // counted, a store where none holds a key forces nothing.
        if v.managedCounted && s.managedTally.holding == 0 { return false }
        for i in v.managedLayers {
            if lookup(key, at: i, of: v, &s) != nil { return true }
            v.domains[i]!.count(in: s.managedTally)
        }
        v.managedCounted = true
        return false
    }

    /// The value one layer holds for `key`.
    func lookup(_ key: PropertyList.Key, in layer: Layer, _ s: inout State) -> PropertyList? {
        switch layer {
        case .file(let p), .managed(let p): return domain(p, &s).value(forKey: key)
        case .arguments: return s.arguments[key]
        case .synced(let app): return syncedValue(key, app, &s)
        case .languages:
            for lang in s.languages.list {
                if let v = s.volatile[lang]?[key] { return v }
            }
            return nil
        case .registration(let app): return s.registration[app]?[key]
        case .declared(let app): return DeclaredDefaults.value(key, application: app)
        case .schema(let app): return s.schemas[app]?.values[key]
        }
    }

    func layerValues(_ layer: Layer, _ s: inout State) -> PropertyListDictionary {
        switch layer {
        case .file(let p), .managed(let p): return domain(p, &s).values
        case .arguments: return s.arguments
        case .synced(let app): return syncedValues(app, &s)
        case .languages:
            var merged = PropertyListDictionary()
            for lang in s.languages.list.reversed() {
                merged.merge(s.volatile[lang] ?? [:]) { _, new in new }
            }
            return merged
        case .registration(let app): return s.registration[app] ?? [:]
        case .declared(let app): return DeclaredDefaults.all(application: app)
        case .schema(let app): return s.schemas[app]?.values ?? [:]
        }
    }

    /// `app`'s search list with its merged view built.
    func view(_ app: String, _ s: inout State) -> SearchView {
        let v = searchView(app, &s)
        if v.merged == nil { rebuild(v, &s) }
        return v
    }

    /// `app`'s search list, its merged view not necessarily built.
    func searchView(_ app: String, _ s: inout State) -> SearchView {
        if let existing = s.views[app] { return existing }
        let v = SearchView(application: app, layers: layers(for: app, s), tally: s.mergedTally)
        v.schemaChecked = s.schemas[app] != nil
        v.installedSchema = s.schemas[app]
        s.views[app] = v
        return v
    }

    /// How many reads of a search list are answered layer by layer before
    /// its merged view is built. A layer-by-layer read costs a lookup per
    /// layer but decodes nothing else of an indexed file, so a process that
    /// reads a few keys of a large domain never builds the view; one that
    /// reads many gets one lookup per read.
    static let mergeAfterReads = 32

    /// The value a read of `key` returns along `v`'s search list.
    @inline(__always)
    func searched(_ key: PropertyList.Key, _ v: SearchView, _ s: inout State) -> PropertyList? {
        if v.merged != nil { return v.merged![key] }
        return searchedWithoutView(key, v, &s)
    }

    @inline(never)
    private func searchedWithoutView(_ key: PropertyList.Key, _ v: SearchView, _ s: inout State) -> PropertyList? {
        v.unmergedReads += 1
        if v.unmergedReads > Self.mergeAfterReads {
            rebuild(v, &s)
            return v.merged![key]
        }
        return lookUp(key, along: v, &s)
    }

    /// The first value of `key` along `v`'s layers, without the merged view.
    func lookUp(_ key: PropertyList.Key, along v: SearchView, _ s: inout State) -> PropertyList? {
        for i in v.layers.indices {
            if let x = lookup(key, at: i, of: v, &s) { return v.schemaChecked ? enforced(key, x, v.application, s) : x }
        }
        if key == "AppleLanguages" { return .array(s.languages.list.map { .string($0) }) }
        if key == "AppleLocale" { return .string(s.languages.locale) }
        return nil
    }

    func rebuild(_ v: SearchView, _ s: inout State) {
        // Start from the largest layer, shared rather than rehashed (usually
        // the app's own file, and often the only one that is not empty),
        // then add the others: those searched after it where it has no
        // value, those searched before it over it.
        let all = v.layers.map { layerValues($0, &s) }
        var base = 0
        for i in all.indices where all[i].count > all[base].count { base = i }
        var merged = all.isEmpty ? PropertyListDictionary() : all[base]
        for i in all.indices.dropFirst(base + 1) where !all[i].isEmpty {
            merged.merge(all[i]) { current, _ in current }
        }
        for i in all.indices.prefix(base).reversed() where !all[i].isEmpty {
            merged.merge(all[i]) { _, new in new }
        }
        if merged["AppleLanguages"] == nil {
            merged["AppleLanguages"] = .array(s.languages.list.map { .string($0) })
        }
        if merged["AppleLocale"] == nil { merged["AppleLocale"] = .string(s.languages.locale) }
        enforce(&merged, v.application, s)
        v.merged = merged
    }

    /// The merged views of every observed application.
    func snapshot(_ s: inout State) -> [String: PropertyListDictionary] {
        var out = [String: PropertyListDictionary]()
        for app in observers.observedApplications { out[app] = fullView(app, &s).merged! }
        return out
    }

    /// The keys whose value a read returns changed since `before`.
    func differences(_ before: [String: PropertyListDictionary], _ s: inout State) -> [(application: String, key: String)] {
        var changes: [(application: String, key: String)] = []
        for (app, old) in before {
            let new = fullView(app, &s).merged!
            for (k, v) in new where old[k] != v { changes.append((app, k.string)) }
            for k in old.keys where new[k] == nil { changes.append((app, k.string)) }
        }
        return changes
    }

    /// Forgets every merged view (a layer changed shape).
    func invalidateViews(_ s: inout State) {
        for v in s.views.values { v.merged = nil }
    }

    /// Patches `key` (which may be borrowed) in every view that searches `path`.
    func repatch(_ key: PropertyList.Key, layer changed: Layer, _ s: inout State) {
        // Most sets come while no view is merged: nothing to walk.
        if s.mergedTally.built == 0 { return }
        for v in s.views.values where v.merged != nil && v.layers.contains(changed) {
            v.merged![key.owned] = lookUp(key, along: v, &s)
        }
    }

    /// The managed files that force `app`'s keys: its own, then the global
    /// domain's, which force every application's (as on macOS).
    func forcingPaths(_ app: String) -> [String] {
        let own = locations.managedPaths(of: app)
        return app == globalDomainName ? own : own + locations.managedPaths(of: globalDomainName)
    }

    /// Recomputes the layers of `app`'s view after its suites changed.
    func relayer(_ app: String, _ s: inout State) {
        guard let v = s.views[app] else { return }
        v.layers = layers(for: app, s)
        v.domains = Array(repeating: nil, count: v.layers.count)
        v.merged = nil
    }
}

/// How many of a store's views have their merged dictionary built: while
/// none has, a set patches none without walking them. Accessed only under
/// the store's lock.
final class MergedTally: @unchecked Sendable {
    @exclusivity(unchecked) var built = 0
}
