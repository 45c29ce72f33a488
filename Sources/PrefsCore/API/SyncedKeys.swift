// Synced preferences in the Swift API: declaring keys that follow the user
// to all of their machines (see `Store/Synced.swift`).

extension Preferences.Key {
    /// A key whose value a property list holds directly; with `synced`,
    /// its value follows the user to all of their machines through the
    /// sync folder (as ``Preferences/setSynced(_:forKey:)`` declares it,
    /// for every application this process reads, for as long as it runs;
    /// a declaration written to the folder by any machine takes
    /// precedence).
    public convenience init(_ name: String, default defaultValue: Value, synced: Bool)
    where Value: PropertyListConvertible {
        self.init(name, default: defaultValue)
        if synced { DeclaredSyncedKeys.declare(name) }
    }

    /// A key stored as its raw value, synced as
    /// ``init(_:default:synced:)-(_,_,_)`` says.
    public convenience init(_ name: String, default defaultValue: Value, synced: Bool)
    where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
        self.init(name, default: defaultValue)
        if synced { DeclaredSyncedKeys.declare(name) }
    }

    /// A `Codable` key, synced as ``init(_:default:synced:)-(_,_,_)`` says.
    @_disfavoredOverload
    public convenience init(_ name: String, default defaultValue: Value, synced: Bool) where Value: Codable {
        self.init(name, default: defaultValue)
        if synced { DeclaredSyncedKeys.declare(name) }
    }
}

extension Preferences {
    /// Declares `key` synced, or no longer synced, on all of the user's
    /// machines (written to this machine's file in the sync folder, which
    /// travels). A synced key's writes go to the sync folder, and its reads
    /// take the newest value any machine wrote, after managed values and
    /// arguments and before the app's own domains. A refused declaration
    /// changes nothing (see ``trySetSynced(_:forKey:)``). Thread-safe.
    public func setSynced(_ synced: Bool, forKey key: String) {
        try? trySetSynced(synced, forKey: key)
    }

    /// ``setSynced(_:forKey:)``, throwing `.invalidArgument` for a key
    /// that cannot sync (empty, over 64 bytes) or past the limits (1,024
    /// keys, 1 MB per application), `.io` when the folder cannot be written.
    public func trySetSynced(_ synced: Bool, forKey key: String) throws(PrefsError) {
        try store.setSynced(synced, forKey: key, application: applicationID)
    }

    /// Whether `key` syncs (declared in the sync folder, by the installed
    /// schema, or by a typed key of this process). Thread-safe.
    public func isSynced(forKey key: String) -> Bool {
        (try? store.isSynced(key, application: applicationID)) ?? false
    }
}
