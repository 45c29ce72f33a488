/// The preferences of one application, seen through its search list: the
/// Swift face of libprefs, over the same store as the C API.
///
/// ```swift
/// let prefs = try Preferences(applicationID: "com.example.editor")
/// prefs.register(defaults: ["FontSize": 12, "Theme": "light"])
/// let size = prefs.integer(forKey: "FontSize")      // 12 until set
/// try prefs.set(14, forKey: "FontSize")             // seen at once
/// try prefs.synchronize()                           // on disk now (or within a second)
/// ```
///
/// Values are ``PropertyList``s; the typed accessors apply the C API's
/// coercions. A `Preferences` is a cheap value; copies share the store.
/// Thread-safe.
public struct Preferences: Sendable {
    /// The application whose search list this reads (`NSGlobalDomain` for
    /// the global domain).
    public let applicationID: String
    /// The store it reads and writes.
    public let store: PreferencesStore

    /// The preferences of `applicationID`; throws `.invalidApplicationID`
    /// for IDs a file cannot be named after.
    public init(applicationID: String, store: PreferencesStore = .shared) throws(PrefsError) {
        self.applicationID = try PreferencesStore.canonicalApplication(applicationID)
        self.store = store
    }

    /// The preferences of this process (named after the program, as
    /// Foundation's `UserDefaults.standard` is on Linux).
    public static var standard: Preferences {
        // The process name is validated when it is computed.
        try! Preferences(applicationID: ApplicationID.current)
    }

    /// The global domain, shared by every application of the user.
    public static var global: Preferences {
        try! Preferences(applicationID: globalDomainName)
    }

    private var ownDomain: DomainID { DomainID(application: applicationID, user: .current, host: .any) }

    // MARK: Reading

    /// The first value for `key` along the search list, or `nil`.
    public func object(forKey key: String) -> PropertyList? {
        (try? store.value(forKey: key, application: applicationID)) ?? nil
    }

    /// Reads like ``object(forKey:)``; setting stores in the app's own
    /// domain (current user, any host), and `nil` removes. A refused write
    /// (a forced key, a value XML cannot hold) changes nothing; use
    /// ``set(_:forKey:)`` to see why.
    public subscript(key: String) -> PropertyList? {
        get { object(forKey: key) }
        nonmutating set { try? set(newValue, forKey: key) }
    }

    /// The string for `key`, or `nil` when absent or not a string.
    public func string(forKey key: String) -> String? { object(forKey: key)?.stringValue }
    /// The value for `key` coerced to an integer as `PrefsGetAppIntegerValue` does; `nil` when absent or not coercible.
    public func integer(forKey key: String) -> Int64? { object(forKey: key).flatMap(Coercion.integer) }
    /// The value for `key` coerced to a boolean as `PrefsGetAppBooleanValue` does; `nil` when absent or not coercible.
    public func bool(forKey key: String) -> Bool? { object(forKey: key).flatMap(Coercion.boolean) }
    /// The real for `key` (an integer converts when exact); `nil` otherwise.
    public func double(forKey key: String) -> Double? {
        guard let v = object(forKey: key) else { return nil }
        if let d = v.realValue { return d }
        return v.integerValue.flatMap { Double(exactly: $0) }
    }
    /// The bytes for `key`, or `nil`.
    public func data(forKey key: String) -> [UInt8]? { object(forKey: key)?.dataValue }
    /// The date for `key` as seconds since 1970, or `nil`.
    public func date(forKey key: String) -> Double? { object(forKey: key)?.dateValue }
    /// The array for `key`, or `nil`.
    public func array(forKey key: String) -> [PropertyList]? { object(forKey: key)?.arrayValue }
    /// The dictionary for `key`, or `nil`.
    public func dictionary(forKey key: String) -> PropertyListDictionary? { object(forKey: key)?.dictionaryValue }

    /// Every key visible along the search list, with the value a read returns.
    public func dictionaryRepresentation() -> PropertyListDictionary {
        (try? store.dictionary(application: applicationID)) ?? [:]
    }

    /// Whether a managed (forced) value decides `key`.
    public func isForced(_ key: String) -> Bool {
        (try? store.isForced(key, application: applicationID)) ?? false
    }

    /// Files along the search list that could not be used (did not parse,
    /// could not be read), as errors naming them.
    public func problems() -> [PrefsError] {
        (try? store.problems(application: applicationID)) ?? []
    }

    // MARK: Writing

    /// Stores `value` for `key` in the app's own domain (`nil` removes it).
    /// Throws `.forcedValue` for managed keys and `.unrepresentable` for
    /// values XML cannot hold; nothing changes then.
    public func set(_ value: PropertyList?, forKey key: String) throws(PrefsError) {
        try store.set([(key, value)], in: ownDomain)
    }

    /// Removes `key` from the app's own domain.
    public func removeObject(forKey key: String) throws(PrefsError) {
        try store.set([(key, nil)], in: ownDomain)
    }

    /// Writes this process's pending changes of this application and picks
    /// up other processes' changes. Throws when a write fails; the changes
    /// then stay pending.
    public func synchronize() throws(PrefsError) {
        try store.synchronize(application: applicationID)
    }

    // MARK: Search list

    /// Merges `defaults` into this application's registration domain (in
    /// memory, searched last).
    public func register(defaults: PropertyListDictionary) {
        try? store.register(defaults, application: applicationID)
    }

    /// Registers the defaults of a plist dictionary or settings schema file.
    public func registerDefaults(fromFile path: String) throws(PrefsError) {
        try store.register(SettingsSchema.defaults(fromFile: path), application: applicationID)
    }

    /// Adds a suite (another application's domain) to the search list,
    /// searched after the app's own domains, newest suite first.
    public func addSuite(_ suiteID: String) throws(PrefsError) {
        try store.addSuite(suiteID, to: applicationID)
    }

    /// Removes a suite from the search list.
    public func removeSuite(_ suiteID: String) throws(PrefsError) {
        try store.removeSuite(suiteID, from: applicationID)
    }
}
