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
///
/// Stores are not told of a new default: each compares ``generation`` with
/// the one it last saw at its next read (one load, like the change
/// counters) and then rebuilds its views. Telling them would mean calling
/// into every live store under the live-stores lock, where a reference
/// taken to a store that another thread just let go of makes this thread
/// run its deinit, which waits for that very lock.
enum DeclaredDefaults {
    private static let values = Mutex(PropertyListDictionary())
    /// Moves each time a default is declared or changed.
    static let generation = Atomic<Int>(0)

    /// The declared default of `key`, if any.
    static func value(_ key: PropertyList.Key) -> PropertyList? {
        values.withLock { $0[key] }
    }

    /// Every declared default.
    static var all: PropertyListDictionary {
        values.withLock { $0 }
    }

    /// Declares `value` as the default of `key`; every store sees it from
    /// its next read on, and tells its observers what it changed.
    static func declare(_ key: String, _ value: PropertyList) {
        let k = PropertyList.Key(key)
        let changed = values.withLock { d -> Bool in
            if d[k] == value { return false }
            d[k] = value
            return true
        }
        if changed { generation.add(1, ordering: .releasing) }
    }
}

extension PreferencesStore {
    /// Rebuilds the views when a default was declared since this store
    /// last looked (under the store's lock, at each read).
    func noticeDeclaredDefaults(_ s: inout State) {
        let now = DeclaredDefaults.generation.load(ordering: .acquiring)
        guard now != s.declaredGeneration else { return }
        s.declaredGeneration = now
        changingShape(&s) { _ in }
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
