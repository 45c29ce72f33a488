import Synchronization

/// The defaults of the typed keys this process has declared
/// (`Preferences.Key`), per application: searched by every store after the
/// registration domains of that application.
///
/// A key declares its default for an application when it is first used
/// through that application's `Preferences` (a typed read that finds no
/// valid value, a typed set, reset or `isSet`), so every reader of that
/// application in the process, C callers included, sees it from then on
/// without a call to register it. Another application's readers do not:
/// a key's default belongs to the preferences it is read through. Its lock
/// is a leaf: taken under a store's lock, never held while taking another,
/// and held across `fork` (see ``LiveStores``).
///
/// Stores are not told of a new default: each compares ``generation`` with
/// the one it last saw at its next read (one load, like the change
/// counters) and then rebuilds its views. Telling them would mean calling
/// into every live store under the live-stores lock, where a reference
/// taken to a store that another thread just let go of makes this thread
/// run its deinit, which waits for that very lock.
enum DeclaredDefaults {
    private static let lock = ForkSafeMutex()
    nonisolated(unsafe) private static var values = [String: PropertyListDictionary]()
    /// Moves each time a default is declared or changed.
    static let generation = Atomic<Int>(0)

    /// The default `app` declared for `key`, if any.
    static func value(_ key: PropertyList.Key, application app: String) -> PropertyList? {
        lock.withLock { values[app]?[key] }
    }

    /// Every default declared for `app`.
    static func all(application app: String) -> PropertyListDictionary {
        lock.withLock { values[app] ?? [:] }
    }

    /// Declares `value` as the default of `key` for `app`; every store sees
    /// it from its next read on, and tells its observers what it changed.
    static func declare(_ key: String, _ value: PropertyList, application app: String) {
        let k = PropertyList.Key(key)
        let changed = lock.withLock { () -> Bool in
            if values[app]?[k] == value { return false }
            values[app, default: [:]][k] = value
            return true
        }
        if changed { generation.add(1, ordering: .releasing) }
    }

    /// Before `fork`: takes the lock, so that the child never finds it held
    /// by a thread it does not have.
    static func lockForFork() { lock.lock() }

    /// After `fork`, in the parent or the child: releases it.
    static func unlockAfterFork() { lock.unlock() }
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
