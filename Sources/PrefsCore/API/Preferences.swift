import Synchronization

/// The preferences of one application, seen through its search list: the
/// Swift face of libprefs, over the same store as the C API, with
/// Foundation's `UserDefaults` methods (same names, return types and
/// coercions, so code moves over by changing the type name).
///
/// ```swift
/// extension Preferences.Keys {
///     static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
/// }
/// let prefs = try Preferences(applicationID: "com.example.editor")
/// prefs[.fontSize] = 14                         // seen at once, saved by itself
/// let size = prefs.integer(forKey: "FontSize")  // 14
/// ```
///
/// Values come out as `UserDefaults` gives them: ``object(forKey:)->Any?``,
/// ``array(forKey:)->[Any]?``, ``dictionary(forKey:)->[String:Any]?``,
/// ``dictionaryRepresentation()->[String:Any]``, ``persistentDomain(forName:)->[String:Any]?`` and
/// ``volatileDomain(forName:)->[String:Any]`` return `Any` (`String`, `Int`, `Double`,
/// `Bool`, `[Any]`, `[String: Any]`; `Date` and `Data` with
/// `PrefsFoundation`), so `as? Int` works on what comes out;
/// ``propertyList(forKey:)`` and the `PropertyList`-typed twins give the
/// values themselves. `set(_:forKey:)`, ``register(defaults:)`` and the
/// domain setters take `Any` and `[String: Any]`.
///
/// The `UserDefaults` methods never throw: a write that cannot be done (a
/// forced key, a value XML cannot hold, a file that cannot be removed)
/// changes nothing. Each has a throwing twin spelled with a `try` prefix
/// (``trySet(_:forKey:)-(Any?,_)``, ``trySynchronize()``, ...) that does the same
/// work and says why it was refused.
///
/// A `Preferences` is a cheap value; copies share the store. Thread-safe.
public struct Preferences: Sendable {
    /// The application whose search list this reads (`NSGlobalDomain` for
    /// the global domain).
    public let applicationID: String
    /// The store it reads and writes.
    package let store: PreferencesStore
    /// The resolved search list, for reads without resolving the ID again.
    let handle: PreferencesStore.ApplicationHandle

    /// The preferences of `applicationID`; throws `.invalidApplicationID`
    /// for IDs a file cannot be named after.
    public init(applicationID: String) throws(PrefsError) {
        try self.init(applicationID: applicationID, store: .shared)
    }

    /// The preferences of `applicationID` in `store` (a store of other
    /// folders, for the command and the tests).
    package init(applicationID: String, store: PreferencesStore) throws(PrefsError) {
        self.applicationID = try PreferencesStore.canonicalApplication(applicationID)
        self.store = store
        self.handle = try store.handle(application: self.applicationID)
    }

    /// The preferences of a suite: a domain shared by several programs
    /// (`group.example`), read and written as an application of its own,
    /// as `UserDefaults(suiteName:)` does. Throws `.invalidApplicationID`
    /// for names a file cannot be named after and for the global domain
    /// (where `UserDefaults(suiteName:)` returns nil).
    public init(suiteName: String) throws(PrefsError) {
        try self.init(suiteName: suiteName, store: .shared)
    }

    /// The suite `suiteName` in `store`.
    package init(suiteName: String, store: PreferencesStore) throws(PrefsError) {
        if (try? PreferencesStore.canonicalApplication(suiteName)) == globalDomainName {
            throw PrefsError(.invalidApplicationID, "the global domain is not a suite")
        }
        try self.init(applicationID: suiteName, store: store)
    }

    /// `UserDefaults(suiteName:)`'s spelling: `nil` gives ``standard``, a
    /// name the suite of that name; `nil` is returned for the global
    /// domain and for names a file cannot be named after. Code written
    /// for `UserDefaults(suiteName: nil)!` moves over unchanged.
    public init?(suiteName: String?) {
        guard let suiteName else {
            self = .standard
            return
        }
        guard let p = try? Preferences(suiteName: suiteName, store: .shared) else { return nil }
        self = p
    }

    /// The preferences of this process: what ``Preference`` and every
    /// other use of `.standard` read and write. Named after the program, as
    /// Foundation's `UserDefaults.standard` is on Linux, until the program
    /// sets it to the application it is:
    ///
    /// ```swift
    /// Preferences.standard = try Preferences(applicationID: "com.example.editor")
    /// ```
    ///
    /// Set it once, early (before the first `@Preference` property is made):
    /// a ``Preference`` keeps the preferences it was made with. Thread-safe.
    public static var standard: Preferences {
        get {
            if let chosen = chosenStandard.withLock({ $0 }) { return chosen }
            // The process name is validated when it is computed.
            return try! Preferences(applicationID: ApplicationID.current)
        }
        set { chosenStandard.withLock { $0 = newValue } }
    }

    /// What the program set ``standard`` to, if it did.
    private static let chosenStandard = Mutex<Preferences?>(nil)

    /// The global domain (`NSGlobalDomain`), shared by every application of
    /// the user.
    public static var global: Preferences {
        try! Preferences(applicationID: globalDomainName)
    }

    var ownDomain: DomainID { DomainID(application: applicationID, user: .current, host: .any) }

    // MARK: Reading, as UserDefaults

    /// The first value for `key` along the search list (managed values,
    /// arguments, the application's domains, suites, global domain,
    /// registered and declared defaults, the installed schema), or `nil`. One hash lookup under
    /// the store's lock, no allocation, no system call.
    @inlinable
    public func propertyList(forKey key: String) -> PropertyList? {
        var key = key
        return key.withUTF8 { value(forKeyBytes: UnsafeRawBufferPointer($0)) }
    }

    @usableFromInline
    func value(forKeyBytes key: UnsafeRawBufferPointer) -> PropertyList? {
        var problem: PrefsError? = nil
        return store.value(forKey: key, in: handle, problem: &problem)
    }

    /// The value for `key`, as `UserDefaults.object(forKey:)` returns it:
    /// `String`, `Int`, `Double`, `Bool`, `[Any]`, `[String: Any]`, and
    /// `Date`/`Data` when the program links `PrefsFoundation` (else a date
    /// is the ``PropertyList`` and data `[UInt8]`); `nil` when absent. The
    /// result is the caller's; thread-safe.
    public func object(forKey key: String) -> Any? {
        propertyList(forKey: key).map(AnyValues.object)
    }

    /// ``propertyList(forKey:)``, chosen where the context wants a
    /// ``PropertyList`` (`prefs.object(forKey: "K") == .integer(1)`).
    @_disfavoredOverload
    public func object(forKey key: String) -> PropertyList? { propertyList(forKey: key) }

    /// Reads like ``object(forKey:)->Any?``; setting stores in the app's own
    /// domain (current user, any host), and `nil` removes. A refused write
    /// changes nothing; ``trySet(_:forKey:)-(Any?,_)`` says why.
    public subscript(key: String) -> PropertyList? {
        get { propertyList(forKey: key) }
        nonmutating set { try? trySet(newValue, forKey: key) }
    }

    /// The string for `key`; for a number, its decimal text (a boolean
    /// "1" or "0"), as `UserDefaults` gives; `nil` when absent or another kind.
    public func string(forKey key: String) -> String? { propertyList(forKey: key).flatMap(UserDefaultsCoercion.string) }

    /// The integer for `key`: a real truncated toward zero, a boolean 1 or
    /// 0, a string's leading decimal integer (`"12.34"` gives 12); 0 when
    /// absent or not convertible, as `UserDefaults` gives.
    public func integer(forKey key: String) -> Int { propertyList(forKey: key).map(UserDefaultsCoercion.integer) ?? 0 }

    /// The real for `key`: a number, a boolean 1 or 0, a string's leading
    /// decimal number (`"12.34"`, `"1e3"`); 0 when absent or not convertible.
    public func double(forKey key: String) -> Double { propertyList(forKey: key).map(UserDefaultsCoercion.double) ?? 0 }

    /// ``double(forKey:)`` rounded to the nearest `Float`.
    public func float(forKey key: String) -> Float { Float(double(forKey: key)) }

    /// The boolean for `key`: a number is true when non-zero, a string when
    /// it starts with Y, y, T, t or a non-zero digit (`"YES"`, `"true"`,
    /// `"1"`); false when absent or another kind, as `UserDefaults` gives.
    public func bool(forKey key: String) -> Bool { propertyList(forKey: key).map(UserDefaultsCoercion.bool) ?? false }

    /// The bytes of the data for `key`, or `nil` (Foundation's `Data` is
    /// in the `PrefsFoundation` product).
    @_disfavoredOverload
    public func data(forKey key: String) -> [UInt8]? { propertyList(forKey: key)?.dataValue }

    /// The array for `key` with `Any` elements, as `UserDefaults` gives
    /// it (see ``object(forKey:)->Any?``), or `nil` when absent or another kind.
    public func array(forKey key: String) -> [Any]? {
        propertyList(forKey: key)?.arrayValue.map { $0.map(AnyValues.object) }
    }

    /// The array for `key` as property lists, chosen where the context
    /// wants them; `nil` when absent or another kind.
    @_disfavoredOverload
    public func array(forKey key: String) -> [PropertyList]? { propertyList(forKey: key)?.arrayValue }

    /// The array of strings for `key`; `nil` when absent, another kind, or
    /// when an element is not a string.
    public func stringArray(forKey key: String) -> [String]? {
        propertyList(forKey: key).flatMap { [String](propertyList: $0) }
    }

    /// The dictionary for `key` with `Any` values, as `UserDefaults`
    /// gives it (see ``object(forKey:)->Any?``), or `nil`.
    public func dictionary(forKey key: String) -> [String: Any]? {
        propertyList(forKey: key)?.dictionaryValue.map(AnyValues.objects)
    }

    /// The dictionary for `key` as property lists, chosen where the
    /// context wants them, or `nil`.
    @_disfavoredOverload
    public func dictionary(forKey key: String) -> [String: PropertyList]? {
        propertyList(forKey: key)?.dictionaryValue.map(Self.stringKeyed)
    }

    /// The date for `key` as seconds since 1970, or `nil` (Foundation's
    /// `Date` is in the `PrefsFoundation` product).
    public func date(forKey key: String) -> Double? { propertyList(forKey: key)?.dateValue }

    /// The value for `key` decoded as `T` (a `Codable` type stored as a
    /// native dictionary or array by ``set(_:forKey:)-(Any?,_)``); `nil` when
    /// absent or of another shape.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let v = propertyList(forKey: key) else { return nil }
        return try? PropertyListValueDecoder().decode(type, from: v)
    }

    /// Every key visible along the search list, with the value a read
    /// returns, as `UserDefaults` gives them (see ``object(forKey:)->Any?``).
    public func dictionaryRepresentation() -> [String: Any] {
        AnyValues.objects((try? store.dictionary(application: applicationID)) ?? [:])
    }

    /// Every key visible along the search list as property lists, chosen
    /// where the context wants them.
    @_disfavoredOverload
    public func dictionaryRepresentation() -> [String: PropertyList] {
        Self.stringKeyed((try? store.dictionary(application: applicationID)) ?? [:])
    }

    /// Whether a managed (forced) value decides `key`: writes of it are refused.
    public func objectIsForced(forKey key: String) -> Bool {
        (try? store.isForced(key, application: applicationID)) ?? false
    }

    /// Whether a managed (forced) value decides `key` of the domain
    /// `domain` (an application ID, or `NSGlobalDomain`).
    public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        (try? store.isForced(key, application: domain)) ?? false
    }

    /// The value ``object(forKey:)->Any?`` returns and the layer of the search
    /// list it came from (its kind and domain), or `nil` when no layer
    /// holds `key`. Thread-safe; the result is the caller's.
    ///
    /// ```swift
    /// if let (value, source) = prefs.objectAndSource(forKey: "FontSize") {
    ///     print(value, source)  // 12 schema
    /// }
    /// ```
    public func objectAndSource(forKey key: String) -> (value: PropertyList, source: PreferenceSource)? {
        (try? store.valueAndSource(forKey: key, application: applicationID)) ?? nil
    }

    /// Every layer of the search list that holds `key`, in search order:
    /// the first answers reads, the others are shadowed by it. Empty when
    /// none holds it. Thread-safe.
    public func sources(forKey key: String) -> [(value: PropertyList, source: PreferenceSource)] {
        (try? store.sources(forKey: key, application: applicationID)) ?? []
    }

    /// Files along the search list that could not be used (did not parse,
    /// could not be read), as errors naming them.
    public func problems() -> [PrefsError] {
        (try? store.problems(application: applicationID)) ?? []
    }

    // MARK: Writing, as UserDefaults

    /// Stores `value` for `key` in the app's own domain (current user, any
    /// host); `nil` removes it. Any ``PropertyListConvertible`` passes,
    /// variables as well as literals; a refused write changes nothing (see
    /// ``trySet(_:forKey:)-(Any?,_)``).
    public func set(_ value: (any PropertyListConvertible)?, forKey key: String) {
        try? trySet(value, forKey: key)
    }

    /// Stores an `Any` value, as `UserDefaults.set(_:forKey:)` takes it:
    /// `String`, `Bool`, the integers, `Double`, `Float`, `[UInt8]`,
    /// `[Any]`, `[String: Any]`, `AnyHashable`, `Codable` values, and
    /// Foundation's types with `PrefsFoundation`; `nil` removes. A value a
    /// property list cannot hold changes nothing
    /// (``trySet(_:forKey:)-(Any?,_)`` says why).
    @_disfavoredOverload
    public func set(_ value: Any?, forKey key: String) {
        try? trySet(value, forKey: key)
    }

    /// Stores a `Codable` value as native property-list values (a struct
    /// as a dictionary, an array as an array); a value that cannot be
    /// encoded changes nothing (see ``trySet(_:forKey:)-(T,_)``).
    @_disfavoredOverload
    public func set<T: Encodable>(_ value: T, forKey key: String) {
        try? trySet(value, forKey: key)
    }

    /// Stores a property list, so that literals mixing kinds
    /// (`["Size": 12, "Name": "x"]`) pass too.
    public func set(_ value: PropertyList?, forKey key: String) { try? trySet(value, forKey: key) }
    /// Stores the integer `value` (`UserDefaults`' `set(_:forKey:)` for an `Int`).
    public func set(_ value: Int, forKey key: String) { try? trySet(value, forKey: key) }
    /// Stores the boolean `value`.
    public func set(_ value: Bool, forKey key: String) { try? trySet(value, forKey: key) }
    /// Stores the real `value`.
    public func set(_ value: Double, forKey key: String) { try? trySet(value, forKey: key) }
    /// Stores the real `value`, widened to `Double`.
    public func set(_ value: Float, forKey key: String) { try? trySet(value, forKey: key) }

    /// Removes `key` from the app's own domain: a read then finds the next
    /// layer's value (a suite, the global domain, a default).
    public func removeObject(forKey key: String) { try? tryRemoveObject(forKey: key) }

    /// Removes each of `keys` from the app's own domain, as one change.
    public func removeObjects(forKeys keys: [String]) {
        if (try? store.set(keys.map { ($0, nil) }, in: ownDomain)) != nil { didChange() }
    }

    /// Writes this process's pending changes of this application and picks
    /// up other processes' changes. Returns `false` when a write failed
    /// (the changes then stay pending; ``trySynchronize()`` says why).
    @discardableResult
    public func synchronize() -> Bool { (try? trySynchronize()) != nil }

    // MARK: Throwing twins

    /// ``set(_:forKey:)-(Any?,_)``, throwing `.forcedValue` for managed keys and
    /// `.unrepresentable` for values XML cannot hold; nothing changes then.
    public func trySet(_ value: (any PropertyListConvertible)?, forKey key: String) throws(PrefsError) {
        // Through the resolved search list: nothing is resolved again per set.
        try store.set(key, value?.propertyList, in: handle)
        didChange()
    }

    /// ``set(_:forKey:)-(Any?,_)``, throwing `.unrepresentable` (naming
    /// the type) for a value a property list cannot hold.
    @_disfavoredOverload
    public func trySet(_ value: Any?, forKey key: String) throws(PrefsError) {
        let p: PropertyList?
        if let value { p = try AnyValues.propertyList(value) } else { p = nil }
        try store.set(key, p, in: handle)
        didChange()
    }

    /// ``set(_:forKey:)-(T,_)`` for a `Codable` value, also throwing
    /// `.unrepresentable` when the value cannot be encoded.
    @_disfavoredOverload
    public func trySet<T: Encodable>(_ value: T, forKey key: String) throws(PrefsError) {
        try store.set([(key, Self.encode(value))], in: ownDomain)
        didChange()
    }

    /// ``removeObject(forKey:)``, throwing `.forcedValue` for managed keys.
    public func tryRemoveObject(forKey key: String) throws(PrefsError) {
        try store.set(key, nil, in: handle)
        didChange()
    }

    /// ``synchronize()``, throwing why a write failed.
    public func trySynchronize() throws(PrefsError) {
        try store.synchronize(application: applicationID)
    }

    // MARK: Search list

    /// Merges `defaults` into this application's registration domain (in
    /// memory, searched after every stored domain). Observers hear of each
    /// key whose read result changes. Values are taken as
    /// ``set(_:forKey:)-(Any?,_)`` takes them; when one cannot be held
    /// nothing is registered (``tryRegister(defaults:)`` says why).
    public func register(defaults: [String: Any]) {
        try? tryRegister(defaults: defaults)
    }

    /// ``register(defaults:)``, throwing `.unrepresentable` (naming the
    /// key) for a value a property list cannot hold; nothing changes then.
    public func tryRegister(defaults: [String: Any]) throws(PrefsError) {
        try store.register(AnyValues.propertyListDictionary(defaults), application: applicationID)
    }

    /// Registers the defaults of a plist dictionary or settings schema file.
    public func registerDefaults(fromFile path: String) throws(PrefsError) {
        try store.register(SettingsSchema.defaults(fromFile: path), application: applicationID)
    }

    /// Adds a suite (another application's domain) to the search list,
    /// searched after the app's own domains, newest suite first; an
    /// invalid name changes nothing (``tryAddSuite(named:)`` says why).
    public func addSuite(named suiteName: String) { try? tryAddSuite(named: suiteName) }

    /// Removes a suite from the search list.
    public func removeSuite(named suiteName: String) {
        if (try? store.removeSuite(suiteName, from: applicationID)) != nil { didChange() }
    }

    /// ``addSuite(named:)``, throwing `.invalidApplicationID` for a name a
    /// file cannot be named after.
    public func tryAddSuite(named suiteName: String) throws(PrefsError) {
        try store.addSuite(suiteName, to: applicationID)
        didChange()
    }

    // MARK: Persistent domains

    /// The stored values of the domain `domainName` (current user, any
    /// host), without the search list, as `UserDefaults` gives them (see
    /// ``object(forKey:)->Any?``; a key unchanged since
    /// ``setPersistentDomain(_:forName:)`` comes back as the value given
    /// there); `nil` when it holds nothing.
    public func persistentDomain(forName domainName: String) -> [String: Any]? {
        guard let id = try? Self.persistentID(domainName),
            let values = try? store.values(in: id), !values.isEmpty
        else { return nil }
        return GivenObjects.objects(values, store: store, persistent: true, domain: id.application)
    }

    /// The stored values of the domain `domainName` as property lists,
    /// chosen where the context wants them; `nil` when it holds nothing.
    @_disfavoredOverload
    public func persistentDomain(forName domainName: String) -> [String: PropertyList]? {
        guard let id = try? Self.persistentID(domainName),
            let values = try? store.values(in: id), !values.isEmpty
        else { return nil }
        return Self.stringKeyed(values)
    }

    /// Replaces the domain `domainName`'s stored values with `domain`
    /// (values as ``set(_:forKey:)-(Any?,_)`` takes them), as one change.
    /// A refused domain changes nothing (``trySetPersistentDomain(_:forName:)``
    /// says why).
    public func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        try? trySetPersistentDomain(domain, forName: domainName)
    }

    /// ``setPersistentDomain(_:forName:)``, throwing why it was refused
    /// (a forced key, a value a property list cannot hold, an invalid name).
    public func trySetPersistentDomain(_ domain: [String: Any], forName domainName: String) throws(PrefsError) {
        let id = try Self.persistentID(domainName)
        let values = try AnyValues.propertyListDictionary(domain)
        var changes: [(String, PropertyList?)] = []
        for k in try store.values(in: id).keys where values[k] == nil { changes.append((k.string, nil)) }
        for (k, v) in values { changes.append((k.string, v)) }
        try store.set(changes, in: id)
        GivenObjects.remember(domain, as: values, store: store, persistent: true, domain: id.application)
        didChange()
    }

    /// Removes the domain `domainName`: its file goes away, pending changes
    /// with it, and observers hear of every key that disappears.
    public func removePersistentDomain(forName domainName: String) {
        try? tryRemovePersistentDomain(forName: domainName)
    }

    /// ``removePersistentDomain(forName:)``, throwing why the file could not
    /// be removed (nothing changes then).
    public func tryRemovePersistentDomain(forName domainName: String) throws(PrefsError) {
        try store.removeDomain(Self.persistentID(domainName))
        didChange()
    }

    private static func persistentID(_ name: String) throws(PrefsError) -> DomainID {
        DomainID(application: try PreferencesStore.canonicalApplication(name), user: .current, host: .any)
    }

    // MARK: Volatile domains

    /// The in-memory domain `domainName` (empty when unset, as
    /// `UserDefaults` gives).
    /// `NSArgumentDomain` and `NSRegistrationDomain` name the argument
    /// domain and the registration domain of every application.
    /// Values come back as `UserDefaults` gives them (see
    /// ``object(forKey:)->Any?``); a key unchanged since
    /// ``setVolatileDomain(_:forName:)`` as the value given there.
    public func volatileDomain(forName domainName: String) -> [String: Any] {
        GivenObjects.objects(store.volatileDomain(domainName) ?? [:], store: store, persistent: false, domain: domainName)
    }

    /// The in-memory domain `domainName` as property lists, chosen where
    /// the context wants them.
    @_disfavoredOverload
    public func volatileDomain(forName domainName: String) -> [String: PropertyList] {
        Self.stringKeyed(store.volatileDomain(domainName) ?? [:])
    }

    /// Sets the in-memory domain `domainName` (values as
    /// ``set(_:forKey:)-(Any?,_)`` takes them); one named by one of the
    /// user's languages is searched as a language domain. A domain with a
    /// value a property list cannot hold changes nothing
    /// (``trySetVolatileDomain(_:forName:)`` says why).
    public func setVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        try? trySetVolatileDomain(domain, forName: domainName)
    }

    /// ``setVolatileDomain(_:forName:)``, throwing `.unrepresentable`
    /// (naming the key) for a value a property list cannot hold.
    public func trySetVolatileDomain(_ domain: [String: Any], forName domainName: String) throws(PrefsError) {
        let values = try AnyValues.propertyListDictionary(domain)
        store.setVolatileDomain(domainName, values)
        GivenObjects.remember(domain, as: values, store: store, persistent: false, domain: domainName)
        didChange()
    }

    /// Removes the in-memory domain `domainName`.
    public func removeVolatileDomain(forName domainName: String) {
        store.setVolatileDomain(domainName, nil)
        didChange()
    }

    /// The names of the in-memory domains: `NSArgumentDomain` and those
    /// set with ``setVolatileDomain(_:forName:)``, as Foundation lists them
    /// on Linux.
    public var volatileDomainNames: [String] {
        ["NSArgumentDomain"] + store.volatileDomainNames
    }

    // MARK: Helpers

    static func stringKeyed(_ d: PropertyListDictionary) -> [String: PropertyList] {
        var out = [String: PropertyList](minimumCapacity: d.count)
        for (k, v) in d { out[k.string] = v }
        return out
    }

    static func encode<T: Encodable>(_ value: T) throws(PrefsError) -> PropertyList? {
        if let direct = value as? any PropertyListConvertible { return direct.propertyList }
        if let o = value as? any OptionalEncodable, o.isNil { return nil }
        do {
            return try PropertyListValueEncoder().encode(value)
        } catch {
            throw PrefsError(.unrepresentable, "cannot encode \(T.self) as a property list: \(error)")
        }
    }
}

/// An optional, so that a `Codable` key's `nil` removes the value.
protocol OptionalEncodable {
    var isNil: Bool { get }
}

extension Optional: OptionalEncodable {
    var isNil: Bool { self == nil }
}
