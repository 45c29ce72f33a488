// Which layer of the search list answers a read, and what the layers after
// it hold for the same key.

/// The layer of a search list a value came from, and the domain it belongs
/// to. A value type; thread-safe.
public struct PreferenceSource: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of layer, in search-list order. The raw values are the C
    /// API's `PrefsSource` constants.
    public enum Layer: Int, Sendable, CaseIterable {
        /// A managed (forced) value.
        case managed = 1
        /// The argument domain (the command line).
        case arguments
        /// The application's domain, current user, current host.
        case appCurrentHost
        /// The application's domain, current user, any host.
        case app
        /// A suite's domain, current user (either host).
        case suite
        /// The global domain, current user, current host.
        case globalCurrentHost
        /// The global domain, current user, any host.
        case global
        /// The application's, a suite's or the global domain of every user.
        case anyUser
        /// A language domain.
        case language
        /// The registration domain, or a typed key's declared default.
        case registration
        /// The application's installed schema.
        case schema
        /// The value synced from the user's machines (searched after the
        /// argument domain; numbered last to keep the C constants).
        case synced
    }

    /// The kind of layer.
    public let layer: Layer
    /// The domain's name: the application, suite or language ID
    /// (`NSGlobalDomain` for the global domain); `nil` for the argument
    /// domain and for the languages and locale no domain stores.
    public let domain: String?

    /// A source of kind `layer` in `domain`.
    package init(_ layer: Layer, domain: String?) {
        self.layer = layer
        self.domain = domain
    }

    /// The layer as `prefs explain` names it: `managed`, `arguments`,
    /// `app-currenthost`, `app`, `suite <id>`, `global-currenthost`,
    /// `global`, `anyuser <id>`, `language <lang>`, `registration`, `schema`.
    public var description: String {
        switch layer {
        case .managed: "managed"
        case .arguments: "arguments"
        case .appCurrentHost: "app-currenthost"
        case .app: "app"
        case .suite: "suite \(domain ?? "")"
        case .globalCurrentHost: "global-currenthost"
        case .global: "global"
        case .anyUser: "anyuser \(domain ?? "")"
        case .language: domain.map { "language \($0)" } ?? "language"
        case .registration: "registration"
        case .schema: "schema"
        case .synced: "synced"
        }
    }
}

extension PreferencesStore {
    /// The value a read of `key` returns for `app` and the layer it came
    /// from, or nil when no layer holds it.
    package func valueAndSource(forKey key: String, application app: String) throws(PrefsError) -> (value: PropertyList, source: PreferenceSource)? {
        try sources(forKey: key, application: app, all: false).first
    }

    /// Every layer of `app`'s search list that holds `key`, in search
    /// order: the first is what a read returns, the others are shadowed by
    /// it. Empty when no layer holds it. When the first value found breaks
    /// what the installed schema says the key accepts, the schema's default
    /// comes first (with ``PreferenceSource/Layer/schema``) and the values
    /// follow in search order, the ignored one included (see
    /// ``schemaDescription(forKey:application:)``).
    package func sources(forKey key: String, application app: String) throws(PrefsError) -> [(value: PropertyList, source: PreferenceSource)] {
        try sources(forKey: key, application: app, all: true)
    }

    private func sources(forKey key: String, application app: String, all: Bool) throws(PrefsError) -> [(value: PropertyList, source: PreferenceSource)] {
        let app = try Self.canonicalApplication(app)
        let k = PropertyList.Key(key)
        return withLocked { s in
            noticeChanges(&s)
            var out: [(value: PropertyList, source: PreferenceSource)] = []
            layers: for layer in fullView(app, &s).layers {
                if case .languages = layer {
                    for lang in s.languages.list {
                        if let v = s.volatile[lang]?[k] {
                            out.append((v, PreferenceSource(.language, domain: lang)))
                            if !all { break layers }
                        }
                    }
                    continue
                }
                guard let v = lookup(k, in: layer, &s) else { continue }
                out.append((v, source(of: layer, app, s)))
                if !all { break }
            }
            // A value that breaks the installed schema is shadowed by the
            // schema's default (or by nothing, when it declares none).
            if let first = out.first, enforced(k, first.value, app, s) != first.value {
                let schemaSource = PreferenceSource(.schema, domain: app)
                out.removeAll { $0.source == schemaSource }
                guard all else { return s.schemas[app]?.values[k].map { [($0, schemaSource)] } ?? [] }
                if let d = s.schemas[app]?.values[k] { out.insert((d, schemaSource), at: 0) }
                return out
            }
            if !out.isEmpty && !all { return out }
            if key == "AppleLanguages" {
                out.append((.array(s.languages.list.map { .string($0) }), PreferenceSource(.language, domain: nil)))
            } else if key == "AppleLocale" {
                out.append((.string(s.languages.locale), PreferenceSource(.language, domain: nil)))
            }
            return out
        }
    }

    /// What `layer` of `app`'s search list is.
    private func source(of layer: Layer, _ app: String, _ s: borrowing State) -> PreferenceSource {
        switch layer {
        case .managed(let p):
            return PreferenceSource(.managed, domain: locations.managedPaths(of: app).contains(p) ? app : globalDomainName)
        case .arguments: return PreferenceSource(.arguments, domain: nil)
        case .languages: return PreferenceSource(.language, domain: nil)
        case .registration(let a): return PreferenceSource(.registration, domain: a)
        case .declared: return PreferenceSource(.registration, domain: app)
        case .schema(let a): return PreferenceSource(.schema, domain: a)
        case .synced(let a): return PreferenceSource(.synced, domain: a)
        case .file(let p):
            func path(_ a: String, _ u: DomainUser, _ h: DomainHost) -> String {
                locations.path(of: DomainID(application: a, user: u, host: h))
            }
            for host in [DomainHost.current, .any] {
                if p == path(app, .current, host) {
                    return PreferenceSource(
                        app == globalDomainName ? (host == .current ? .globalCurrentHost : .global) : (host == .current ? .appCurrentHost : .app), domain: app)
                }
                if p == path(globalDomainName, .current, host) {
                    return PreferenceSource(host == .current ? .globalCurrentHost : .global, domain: globalDomainName)
                }
                for suite in s.suites[app] ?? [] where p == path(suite, .current, host) {
                    return PreferenceSource(.suite, domain: suite)
                }
            }
            for a in [app, globalDomainName] + (s.suites[app] ?? []) {
                for host in [DomainHost.current, .any] where p == path(a, .any, host) {
                    return PreferenceSource(.anyUser, domain: a)
                }
            }
            return PreferenceSource(.app, domain: app)
        }
    }
}
