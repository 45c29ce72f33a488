// The domains that live only in this process: registration, arguments,
// volatile and language domains, and suites added to a search list.

extension PreferencesStore {
    // MARK: In-memory domains

    /// Merges `defaults` into the registration domain of `app`
    /// (`NSGlobalDomain`: for every application).
    package func register(_ defaults: PropertyListDictionary, application app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        try withState { (s: inout State) throws(PrefsError) in
            changingShape(&s) { s in s.registration[app, default: [:]].merge(defaults) { _, new in new } }
        }
    }

    /// Replaces the argument domain with the `-key value` pairs of `args`
    /// (`args[0]`, the program, is skipped).
    package func setArguments(_ args: [String]) {
        try? withState { (s: inout State) throws(PrefsError) in
            changingShape(&s) { s in s.arguments = ArgumentDomain.parse(args) }
        }
    }

    /// Sets a named in-memory domain. `NSArgumentDomain` and
    /// `NSRegistrationDomain` name the argument domain and the registration
    /// domain for every application; a domain named by one of the user's
    /// languages is searched as a language domain.
    package func setVolatileDomain(_ name: String, _ values: PropertyListDictionary?) {
        try? withState { (s: inout State) throws(PrefsError) in
            changingShape(&s) { s in
                switch name {
                case "NSArgumentDomain": s.arguments = values ?? [:]
                case "NSRegistrationDomain": s.registration[globalDomainName] = values
                default: s.volatile[name] = values
                }
            }
        }
    }

    /// The names of the volatile domains set with ``setVolatileDomain(_:_:)``
    /// (not the argument and registration domains), sorted.
    package var volatileDomainNames: [String] {
        withLocked { s in s.volatile.keys.sorted() }
    }

    /// The named in-memory domain, if set.
    package func volatileDomain(_ name: String) -> PropertyListDictionary? {
        withLocked { s in
            switch name {
            case "NSArgumentDomain": return s.arguments
            case "NSRegistrationDomain": return s.registration[globalDomainName]
            default: return s.volatile[name]
            }
        }
    }

    /// Adds `suite` to `app`'s search list (newest first).
    package func addSuite(_ suite: String, to app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        let suite = try Self.canonicalApplication(suite)
        guard suite != app, suite != globalDomainName else { return }
        try withState { (s: inout State) throws(PrefsError) in
            changingShape(&s) { s in
                s.suites[app, default: []].removeAll { $0 == suite }
                s.suites[app, default: []].insert(suite, at: 0)
                relayer(app, &s)
            }
        }
    }

    /// Removes `suite` from `app`'s search list.
    package func removeSuite(_ suite: String, from app: String) throws(PrefsError) {
        let app = try Self.canonicalApplication(app)
        try withState { (s: inout State) throws(PrefsError) in
            changingShape(&s) { s in
                s.suites[app]?.removeAll { $0 == suite }
                relayer(app, &s)
            }
        }
    }
}
