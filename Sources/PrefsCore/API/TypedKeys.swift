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
    /// key. It is declared for an application when the key is first used
    /// through that application's ``Preferences`` (a read that finds no
    /// valid value, a set, reset or ``Preferences/isSet(_:)``), and from
    /// then on every reader of that application in the process sees it, C
    /// callers included, as a registered default is, without a call to
    /// register it; other applications' readers do not. An explicit
    /// ``Preferences/register(defaults:)`` takes precedence. A stored value of another type reads as the
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
        /// The stored values the key takes (nil: every value its type
        /// reads); see ``init(_:default:accepts:)``.
        @usableFromInline var accepts: (@Sendable (PropertyList) -> Bool)? = nil

        init(
            name: String, defaultValue: Value, decode: @escaping @Sendable (PropertyList) -> Value?,
            encode: @escaping @Sendable (Value) throws(PrefsError) -> PropertyList?
        ) {
            self.name = name
            self.defaultValue = defaultValue
            self.decode = decode
            self.encode = encode
            declared = try? encode(defaultValue)
            super.init()
        }

        /// The default as stored, declared for an application at its first
        /// use there (nil when it cannot be stored).
        let declared: PropertyList?

        /// Declares the default for `app`'s readers (see `DeclaredDefaults`).
        @usableFromInline func declare(in app: String) {
            if let declared { DeclaredDefaults.declare(name, declared, application: app) }
        }

        /// A key whose value a property list holds directly.
        public convenience init(_ name: String, default defaultValue: Value) where Value: PropertyListConvertible {
            self.init(
                name: name, defaultValue: defaultValue, decode: { Value(propertyList: $0) },
                encode: { $0.propertyList })
        }

        /// A key whose stored values are checked by `accepts`, as a
        /// schema's type, range or list of values binds them (the code
        /// `prefs schema swift` generates passes its rule): a stored value
        /// it refuses reads as the default, and ``Preferences/set(_:for:)``
        /// throws `.schemaViolation` for one, storing nothing. The default
        /// itself should pass. `accepts` is called under no lock, on any
        /// thread.
        public convenience init(
            _ name: String, default defaultValue: Value, accepts: @escaping @Sendable (PropertyList) -> Bool
        ) where Value: PropertyListConvertible {
            self.init(
                name: name, defaultValue: defaultValue,
                decode: { p in accepts(p) ? Value(propertyList: p) : nil },
                encode: { (v: Value) throws(PrefsError) -> PropertyList? in
                    guard let p = v.propertyList else { return nil }
                    guard accepts(p) else {
                        throw PrefsError(
                            .schemaViolation,
                            "\(OldStylePlist.format(.string(name))) does not accept \(SettingsSchema.oneLine(p)); nothing was changed"
                        )
                    }
                    return p
                })
            self.accepts = accepts
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
            guard let p = object(forKey: key.name), let v = key.decode(p) else {
                key.declare(in: applicationID)
                return key.defaultValue
            }
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
            guard let p = object(forKey: key.name), key.accepts?(p) ?? true, let v = Value(propertyList: p) else {
                key.declare(in: applicationID)
                return key.defaultValue
            }
            return v
        }
        nonmutating set { try? set(newValue, for: key) }
    }

    /// Stores `value` for `key`, throwing `.forcedValue` for a managed key
    /// and `.unrepresentable` for a value a property list cannot hold;
    /// nothing changes then.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(PrefsError) {
        key.declare(in: applicationID)
        try store.set([(key.name, key.encode(value))], in: DomainID(application: applicationID, user: .current, host: .any))
    }

    /// Removes the user's value of `key`: the default (or a lower layer's
    /// value) shows again.
    public func reset<Value>(_ key: Key<Value>) {
        key.declare(in: applicationID)
        removeObject(forKey: key.name)
    }

    /// Whether a domain other than the defaults (registered, declared)
    /// holds a value for `key`: the user, an administrator, a suite, the
    /// global domain or the command line.
    public func isSet<Value>(_ key: Key<Value>) -> Bool {
        key.declare(in: applicationID)
        return ((try? store.valueIgnoringDefaults(forKey: key.name, application: applicationID)) ?? nil) != nil
    }
}

/// A property whose value lives in the preferences: reading it reads the
/// key (its default when unset), assigning it stores the value.
///
/// ```swift
/// struct Settings {
///     @Preference(.fontSize) var fontSize: Int              // Preferences.standard
///     @Preference(.fontSize, in: prefs) var fontSize2: Int  // or a given one
/// }
/// ```
///
/// Copies share the store; thread-safe.
@propertyWrapper
public struct Preference<Value: Sendable>: Sendable {
    /// The key it reads and writes.
    public let key: Preferences.Key<Value>
    /// The preferences it reads and writes.
    public let preferences: Preferences

    /// A property for `key` in `preferences` (``Preferences/standard`` by default).
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
