extension Preferences {
    /// The namespace of typed keys: declare each key once, as a static
    /// constant of an extension, and use it as `prefs[.name]`.
    ///
    /// ```swift
    /// extension Preferences.Keys {
    ///     static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
    /// }
    /// ```
    ///
    /// (A class only so that constants declared here are found through
    /// `Key<Value>`'s implicit member syntax; it has no instances of its
    /// own.) Immutable; thread-safe.
    public class Keys: @unchecked Sendable {
        init() {}
    }

    /// A preference's key, the Swift type of its value, and its default.
    ///
    /// The default is the answer when no domain holds a valid value for the
    /// key. It is declared when the key is made (a `static let` is made at
    /// its first use) and from then on every reader of every application in
    /// the process sees it, C callers included, as a registered default is,
    /// without a call to register it; an explicit ``Preferences/register(defaults:)``
    /// takes precedence. A stored value of another type reads as the
    /// default, never a crash.
    ///
    /// `Value` is a ``PropertyListConvertible`` type (`Int`, `String`,
    /// `[String]`, ...), a `RawRepresentable` type whose raw value is one,
    /// or any `Codable` type (stored as native dictionaries and arrays).
    /// Immutable and `Sendable`: a key can be a `static let` in Swift 6.
    public final class Key<Value: Sendable>: Keys, @unchecked Sendable {
        /// The key's name in the domains.
        public let name: String
        /// The value a read returns when no domain holds a valid one.
        public let defaultValue: Value
        @usableFromInline let decode: @Sendable (PropertyList) -> Value?
        let encode: @Sendable (Value) throws(PrefsError) -> PropertyList?

        init(
            name: String, defaultValue: Value, decode: @escaping @Sendable (PropertyList) -> Value?,
            encode: @escaping @Sendable (Value) throws(PrefsError) -> PropertyList?
        ) {
            self.name = name
            self.defaultValue = defaultValue
            self.decode = decode
            self.encode = encode
            super.init()
            if let p = try? encode(defaultValue) { DeclaredDefaults.declare(name, p) }
        }

        /// A key whose value a property list holds directly.
        public convenience init(_ name: String, default defaultValue: Value) where Value: PropertyListConvertible {
            self.init(
                name: name, defaultValue: defaultValue, decode: { Value(propertyList: $0) },
                encode: { $0.propertyList })
        }

        /// A key whose value is stored as its raw value (an enum of
        /// strings or integers).
        public convenience init(_ name: String, default defaultValue: Value)
        where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
            self.init(
                name: name, defaultValue: defaultValue,
                decode: { Value.RawValue(propertyList: $0).flatMap(Value.init(rawValue:)) },
                encode: { $0.rawValue.propertyList })
        }

        /// A key whose `Codable` value is stored as native property-list
        /// values (a struct as a dictionary, an array as an array).
        @_disfavoredOverload
        public convenience init(_ name: String, default defaultValue: Value) where Value: Codable {
            self.init(
                name: name, defaultValue: defaultValue,
                decode: { try? PropertyListValueDecoder().decode(Value.self, from: $0) },
                encode: { (v: Value) throws(PrefsError) -> PropertyList? in try Preferences.encode(v) })
        }
    }

    // MARK: Typed access

    /// The value for `key`: the first valid one along the search list,
    /// else the key's default. Setting stores it in the app's own domain,
    /// seen at once and saved by itself within a second; a refused write
    /// changes nothing (``set(_:for:)`` says why).
    public subscript<Value>(key: Key<Value>) -> Value {
        @inlinable get {
            guard let p = object(forKey: key.name), let v = key.decode(p) else { return key.defaultValue }
            return v
        }
        nonmutating set { try? set(newValue, for: key) }
    }

    /// The same as ``subscript(_:)-(Key<Value>)`` for a key whose value a
    /// property list holds directly: the conversion is called directly,
    /// specialized for `Value` where the program reads, so a typed read
    /// costs what ``object(forKey:)`` costs.
    public subscript<Value: PropertyListConvertible>(key: Key<Value>) -> Value {
        @inlinable get {
            guard let p = object(forKey: key.name), let v = Value(propertyList: p) else { return key.defaultValue }
            return v
        }
        nonmutating set { try? set(newValue, for: key) }
    }

    /// Stores `value` for `key`, throwing `.forcedValue` for a managed key
    /// and `.unrepresentable` for a value a property list cannot hold;
    /// nothing changes then.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(PrefsError) {
        try store.set([(key.name, key.encode(value))], in: DomainID(application: applicationID, user: .current, host: .any))
    }

    /// Removes the user's value of `key`: the default (or a lower layer's
    /// value) shows again.
    public func reset<Value>(_ key: Key<Value>) {
        removeObject(forKey: key.name)
    }

    /// Whether a domain other than the defaults (registered, declared)
    /// holds a value for `key`: the user, an administrator, a suite, the
    /// global domain or the command line.
    public func isSet<Value>(_ key: Key<Value>) -> Bool {
        ((try? store.valueIgnoringDefaults(forKey: key.name, application: applicationID)) ?? nil) != nil
    }
}

/// A property whose value lives in the preferences: reading it reads the
/// key (its default when unset), assigning it stores the value.
///
/// ```swift
/// Preferences.standard = try Preferences(applicationID: "com.example.editor")
/// struct Settings {
///     @Preference(.fontSize) var fontSize: Int              // Preferences.standard
///     @Preference(.fontSize, in: prefs) var fontSize2: Int  // or a given one
/// }
/// ```
///
/// Without `in:`, it uses ``Preferences/standard`` as it is when the
/// property is made: named after the executable unless the program set it
/// to its application first, as above.
///
/// Copies share the store; thread-safe.
@propertyWrapper
public struct Preference<Value: Sendable>: Sendable {
    /// The key it reads and writes.
    public let key: Preferences.Key<Value>
    /// The preferences it reads and writes.
    public let preferences: Preferences

    /// A property for `key` in `preferences` (``Preferences/standard``, as
    /// it is now, by default).
    public init(_ key: Preferences.Key<Value>, in preferences: Preferences = .standard) {
        self.key = key
        self.preferences = preferences
    }

    /// The key's value, or its default; assigning stores it.
    public var wrappedValue: Value {
        get { preferences[key] }
        nonmutating set { preferences[key] = newValue }
    }

    /// The wrapper itself (`$fontSize`), for ``reset()``, ``isSet`` and ``updates``.
    public var projectedValue: Preference<Value> { self }

    /// Removes the user's value: the default shows again.
    public func reset() { preferences.reset(key) }

    /// Whether a domain other than the defaults holds a value.
    public var isSet: Bool { preferences.isSet(key) }

    /// The current value, then the value after every change (see
    /// ``Preferences/updates(for:)``).
    public var updates: AsyncStream<Value> { preferences.updates(for: key) }
}
