import Synchronization

/// The defaults of the typed keys this process has declared
/// (`Preferences.Key`), searched by every store after the registration
/// domains, for every application, as Foundation's registration domain is
/// shared by the whole process.
///
/// A key declares its default when it is made (a `static let` key, at its
/// first use), so every reader in the process, C callers included, sees it
/// from then on without a call to register it. Its lock is a leaf: taken
/// under a store's lock, never held while taking another.
enum DeclaredDefaults {
    private static let values = Mutex(PropertyListDictionary())

    /// The declared default of `key`, if any.
    static func value(_ key: PropertyList.Key) -> PropertyList? {
        values.withLock { $0[key] }
    }

    /// Every declared default.
    static var all: PropertyListDictionary {
        values.withLock { $0 }
    }

    /// Declares `value` as the default of `key`; every live store then
    /// reads it and tells its observers when a read's result changed.
    static func declare(_ key: String, _ value: PropertyList) {
        let k = PropertyList.Key(key)
        let changed = values.withLock { d -> Bool in
            if d[k] == value { return false }
            d[k] = value
            return true
        }
        guard changed else { return }
        LiveStores.withEach(nil) { $0.declaredDefaultsChanged() }
    }
}

extension PreferencesStore {
    /// Rebuilds the views after a declared default changed, telling
    /// observers what it altered. Called through `LiveStores` under its
    /// lock, so it takes no reference to the store (see
    /// ``synchronizeAllUnretained()``).
    func declaredDefaultsChanged() {
        let outbox = lock.withLock { () -> [(application: String, key: String)] in
            changingShape(&state) { _ in }
            let o = state.outbox
            state.outbox = []
            return o
        }
        observers.post(outbox)
    }

    /// Runs `body`, which changes in-memory layers or the shape of search
    /// lists, then rebuilds every view and queues for observers each key
    /// whose read result changed.
    func changingShape(_ s: inout State, _ body: (inout State) -> Void) {
        let before = observers.isEmpty ? [:] : snapshot(&s)
        body(&s)
        invalidateViews(&s)
        s.outbox += differences(before, &s)
    }
}
