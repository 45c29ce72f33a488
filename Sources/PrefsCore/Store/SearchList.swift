// The search list of an application, its layers in order, and the merged
// view of all of them that reads are served from.

extension PreferencesStore {
    /// The merged search list of one application, rebuilt when a layer
    /// changes shape and patched key by key on sets.
    final class SearchView: @unchecked Sendable {
        let application: String
        var layers: [Layer]
        /// Accessed only under the store's lock, so the exclusivity check is
        /// left out of the read path.
        @exclusivity(unchecked) var merged: PropertyListDictionary? = nil
        /// Whether the application's installed schema has been looked for:
        /// it is read at the first read that no other layer answers (see
        /// ``PreferencesStore/loadSchema(_:_:)``), so that reads of stored
        /// keys never pay for it.
        @exclusivity(unchecked) var schemaChecked = false
        init(application: String, layers: [Layer]) {
            self.application = application
            self.layers = layers
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
        case languages
        case registration(String)
        /// The defaults of the typed keys the process declared.
        case declared
        /// The defaults of the application's installed schema.
        case schema(String)
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
        l.append(.declared)
        l.append(.schema(app))
        return l
    }

    /// The value one layer holds for `key`.
    func lookup(_ key: PropertyList.Key, in layer: Layer, _ s: inout State) -> PropertyList? {
        switch layer {
        case .file(let p), .managed(let p): return domain(p, &s).values[key]
        case .arguments: return s.arguments[key]
        case .languages:
            for lang in s.languages.list {
                if let v = s.volatile[lang]?[key] { return v }
            }
            return nil
        case .registration(let app): return s.registration[app]?[key]
        case .declared: return DeclaredDefaults.value(key)
        case .schema(let app): return s.schemas[app]?.values[key]
        }
    }

    func layerValues(_ layer: Layer, _ s: inout State) -> PropertyListDictionary {
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
        case .declared: return DeclaredDefaults.all
        case .schema(let app): return s.schemas[app]?.values ?? [:]
        }
    }

    func view(_ app: String, _ s: inout State) -> SearchView {
        let v: SearchView
        if let existing = s.views[app] {
            if existing.merged != nil { return existing }
            v = existing
        } else {
            v = SearchView(application: app, layers: layers(for: app, s))
            v.schemaChecked = s.schemas[app] != nil
            s.views[app] = v
        }
        rebuild(v, &s)
        return v
    }

    func rebuild(_ v: SearchView, _ s: inout State) {
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

    /// Patches `key` in every view that searches `path`.
    func repatch(_ key: PropertyList.Key, layer changed: Layer, _ s: inout State) {
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
        v.merged = nil
    }
}
