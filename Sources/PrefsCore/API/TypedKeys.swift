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
    public class Keys: @unchecked Sendable, Hashable, CustomStringConvertible {
        /// The key's name in the domains.
        public let name: String
        /// The Swift type of the key's value: two keys are equal when
        /// both their names and their value types are.
        public let valueType: Any.Type

        init(name: String, valueType: Any.Type) {
            self.name = name
            self.valueType = valueType
        }

        /// Declares the key's default for `app`'s readers; a key without a
        /// fixed default declares nothing.
        @usableFromInline func declare(in app: String) {}

        /// Whether `a` and `b` name the same preference with the same
        /// value type (`Key<Int>("A")` is not `Key<String>("A")`).
        public static func == (a: Keys, b: Keys) -> Bool {
            a.name == b.name && ObjectIdentifier(a.valueType) == ObjectIdentifier(b.valueType)
        }

        /// Hashes the name and the value type, as ``==(_:_:)`` compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(ObjectIdentifier(valueType))
        }

        /// `Name (Type)`.
        public var description: String { "\(name) (\(valueType))" }
    }

    /// A preference's key, the Swift type of its value, and its default.
    ///
    /// The default is the answer when no domain holds a valid value for the
    /// key. A fixed default is declared for an application when the key is
    /// first used through that application's ``Preferences`` (a read that
    /// finds no valid value, a set, reset or ``Preferences/isSet(_:)``),
    /// and from then on every reader of that application in the process
    /// sees it, C callers included, as a registered default is, without a
    /// call to register it; other applications' readers do not. An explicit
    /// ``Preferences/register(defaults:)`` takes precedence. A stored value
    /// of another type reads as the default, never a crash.
    ///
    /// ```swift
    /// extension Preferences.Keys {
    ///     static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
    ///     static let nickname = Preferences.Key<String?>("Nickname")      // nil until set
    ///     static let cores = Preferences.Key<Int>("Cores") { countCores() }  // evaluated at each read
    /// }
    /// ```
    ///
    /// `Value` is a ``PropertyListConvertible`` type (`Int`, `String`,
    /// `[String]`, ...), a `RawRepresentable` type whose raw value is one,
    /// or any `Codable` type (stored as native dictionaries and arrays).
    /// Keys are `Equatable` and `Hashable` by name and value type, so they
    /// go in sets and dictionaries. Immutable and `Sendable`: a key can be
    /// a `static let` in Swift 6.
    public final class Key<Value: Sendable>: Keys, @unchecked Sendable {
        /// Where the default comes from.
        @usableFromInline enum DefaultSource: Sendable {
            case fixed(Value)
            case dynamic(@Sendable () -> Value)
        }
        @usableFromInline let source: DefaultSource
        @usableFromInline let decode: @Sendable (PropertyList) -> Value?
        let encode: @Sendable (Value) throws(PrefsError) -> PropertyList?
        /// The stored values the key takes (nil: every value its type
        /// reads); see ``init(_:default:accepts:)``.
        @usableFromInline var accepts: (@Sendable (PropertyList) -> Bool)? = nil

        /// The value a read returns when no domain holds a valid one; a
        /// dynamic default is computed anew at each use.
        @inlinable public var defaultValue: Value {
            switch source {
            case .fixed(let v): return v
            case .dynamic(let make): return make()
            }
        }

        /// Whether the default is computed at each read (made with a
        /// closure) rather than fixed; a dynamic default is not declared
        /// to other readers (C callers see no default for the key).
        public var hasDynamicDefault: Bool {
            if case .dynamic = source { return true }
            return false
        }

        init(
            name: String, source: DefaultSource, decode: @escaping @Sendable (PropertyList) -> Value?,
            encode: @escaping @Sendable (Value) throws(PrefsError) -> PropertyList?
        ) {
            self.source = source
            self.decode = decode
            self.encode = encode
            if case .fixed(let v) = source { declared = try? encode(v) } else { declared = nil }
            super.init(name: name, valueType: Value.self)
        }

        /// The fixed default as stored, declared for an application at its
        /// first use there (nil for a dynamic default, an optional key's
        /// `nil`, or one that cannot be stored).
        let declared: PropertyList?

        /// Declares the default for `app`'s readers (see `DeclaredDefaults`).
        @usableFromInline override func declare(in app: String) {
            if let declared { DeclaredDefaults.declare(name, declared, application: app) }
        }

        // A property list holds the value directly.

        /// A key whose value a property list holds directly.
        public convenience init(_ name: String, default defaultValue: Value) where Value: PropertyListConvertible {
            self.init(name: name, source: .fixed(defaultValue), decode: { Value(propertyList: $0) }, encode: { $0.propertyList })
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
                name: name, source: .fixed(defaultValue),
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

        /// A key whose default is computed by `makeDefault` at each read
        /// that finds no valid value (`Key<Int>("Cores") { countCores() }`).
        /// `makeDefault` may run on any thread.
        public convenience init(_ name: String, default makeDefault: @escaping @Sendable () -> Value)
        where Value: PropertyListConvertible {
            self.init(name: name, source: .dynamic(makeDefault), decode: { Value(propertyList: $0) }, encode: { $0.propertyList })
        }

        /// A key of an optional value without a default: reads `nil` until
        /// set; assigning `nil` removes the user's value.
        public convenience init<Wrapped: PropertyListConvertible>(_ name: String) where Value == Wrapped? {
            self.init(name: name, source: .fixed(nil), decode: { Value(propertyList: $0) }, encode: { $0.propertyList })
        }

        // Stored as the raw value.

        /// A key whose value is stored as its raw value (an enum of
        /// strings or integers).
        public convenience init(_ name: String, default defaultValue: Value)
        where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
            self.init(name: name, source: .fixed(defaultValue), decode: { Self.decodeRaw($0) }, encode: { $0.rawValue.propertyList })
        }

        /// A key stored as its raw value, with a default computed at each read.
        public convenience init(_ name: String, default makeDefault: @escaping @Sendable () -> Value)
        where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
            self.init(name: name, source: .dynamic(makeDefault), decode: { Self.decodeRaw($0) }, encode: { $0.rawValue.propertyList })
        }

        /// A key of an optional value stored as its raw value, without a
        /// default: `nil` until set; assigning `nil` removes.
        public convenience init<Wrapped: RawRepresentable & Sendable>(_ name: String)
        where Value == Wrapped?, Wrapped.RawValue: PropertyListConvertible {
            self.init(
                name: name, source: .fixed(nil),
                decode: { Wrapped.RawValue(propertyList: $0).flatMap(Wrapped.init(rawValue:)) },
                encode: { $0?.rawValue.propertyList })
        }

        private static func decodeRaw(_ p: PropertyList) -> Value?
        where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
            Value.RawValue(propertyList: p).flatMap(Value.init(rawValue:))
        }

        // Codable, stored as native values.

        /// A key whose `Codable` value is stored as native property-list
        /// values (a struct as a dictionary, an array as an array).
        @_disfavoredOverload
        public convenience init(_ name: String, default defaultValue: Value) where Value: Codable {
            self.init(
                name: name, source: .fixed(defaultValue), decode: { Self.decodeCodable($0) },
                encode: { (v: Value) throws(PrefsError) in try Preferences.encode(v) })
        }

        /// A `Codable` key with a default computed at each read.
        @_disfavoredOverload
        public convenience init(_ name: String, default makeDefault: @escaping @Sendable () -> Value)
        where Value: Codable {
            self.init(
                name: name, source: .dynamic(makeDefault), decode: { Self.decodeCodable($0) },
                encode: { (v: Value) throws(PrefsError) in try Preferences.encode(v) })
        }

        /// A key of an optional `Codable` value without a default: `nil`
        /// until set; assigning `nil` removes.
        @_disfavoredOverload
        public convenience init<Wrapped: Codable & Sendable>(_ name: String) where Value == Wrapped? {
            self.init(
                name: name, source: .fixed(nil),
                decode: { try? PropertyListValueDecoder().decode(Wrapped.self, from: $0) },
                encode: { (v: Value) throws(PrefsError) -> PropertyList? in
                    guard let v else { return nil }
                    return try Preferences.encode(v)
                })
        }

        private static func decodeCodable(_ p: PropertyList) -> Value? where Value: Codable {
            try? PropertyListValueDecoder().decode(Value.self, from: p)
        }
    }

    // MARK: Typed access

    /// The value for `key`: the first valid one along the search list,
    /// else the key's default. Setting stores it in the app's own domain,
    /// seen at once and saved by itself within a second; `nil` (for an
    /// optional key) removes it. A refused write changes nothing
    /// (``set(_:for:)`` says why). A value of another type than the key's
    /// is a compile-time error naming the mistake.
    public subscript<Value>(key: Key<Value>) -> Value {
        @inlinable get {
            guard let p = propertyList(forKey: key.name), let v = key.decode(p) else {
                key.declare(in: applicationID)
                return key.defaultValue
            }
            return v
        }
        nonmutating set { try? set(newValue, for: key) }
    }

    /// The same as the generic typed-key subscript for a key whose value a
    /// property list holds directly: the conversion is called directly,
    /// specialized for `Value` where the program reads, so a typed read
    /// costs what ``propertyList(forKey:)`` costs.
    public subscript<Value: PropertyListConvertible>(key: Key<Value>) -> Value {
        @inlinable get {
            guard let p = propertyList(forKey: key.name), key.accepts?(p) ?? true, let v = Value(propertyList: p) else {
                key.declare(in: applicationID)
                return key.defaultValue
            }
            return v
        }
        nonmutating set { try? set(newValue, for: key) }
    }

    /// The value for `key` in ``standard``, as `Defaults[.key]`:
    /// `Preferences[.fontSize]` reads, `Preferences[.fontSize] = 14`
    /// writes. Thread-safe.
    public static subscript<Value>(key: Key<Value>) -> Value {
        get { standard[key] }
        set { standard[key] = newValue }
    }

    /// Never called: it catches a value of a type other than the key's
    /// (`prefs[.fontSize] = "big"` for an `Int` key), so that the compiler
    /// names the mistake instead of failing to produce a diagnostic.
    @available(*, unavailable, message: "a key's value has the key's type: Key<Value> reads and writes a Value")
    public subscript<Value, Other>(key: Key<Value>) -> Other {
        get { fatalError("unavailable") }
        nonmutating set {}
    }

    /// Never called: as the instance subscript of the same shape, for
    /// `Preferences[.key]`.
    @available(*, unavailable, message: "a key's value has the key's type: Key<Value> reads and writes a Value")
    public static subscript<Value, Other>(key: Key<Value>) -> Other {
        get { fatalError("unavailable") }
        set {}
    }

    /// Stores `value` for `key`, throwing `.forcedValue` for a managed key
    /// and `.unrepresentable` for a value a property list cannot hold;
    /// nothing changes then.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(PrefsError) {
        key.declare(in: applicationID)
        try store.set([(key.name, key.encode(value))], in: DomainID(application: applicationID, user: .current, host: .any))
        didChange()
    }

    /// Never called: it catches a value of a type other than the key's
    /// (`try prefs.set("big", for: .fontSize)`), so that the compiler
    /// names the mistake.
    @available(*, unavailable, message: "a key's value has the key's type: Key<Value> reads and writes a Value")
    public func set<Value, Other>(_ value: Other, for key: Key<Value>) throws(PrefsError) {}

    /// Removes the user's value of each key: their defaults (or a lower
    /// layer's values) show again. `prefs.reset(.fontSize, .theme)`; the
    /// keys may have different value types. One change for observers of
    /// ``onDidChange(_:)-method``.
    public func reset(_ keys: Keys...) {
        reset(keys)
    }

    /// Removes the user's value of every key of `keys`, as ``reset(_:)-(Preferences.Keys...)``.
    public func reset(_ keys: [Keys]) {
        guard !keys.isEmpty else { return }
        for key in keys { key.declare(in: applicationID) }
        if (try? store.set(keys.map { ($0.name, nil) }, in: ownDomain)) != nil { didChange() }
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
    /// ``Preferences/updates(for:initial:)->AsyncStream<Value>``).
    public var updates: AsyncStream<Value> { preferences.updates(for: key) }
}
