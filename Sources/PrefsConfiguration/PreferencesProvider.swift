// libprefs as a provider for swift-configuration: one application's whole
// search list (managed values, arguments, the application's domains,
// suites, the global domain, registered and declared defaults) answers
// ConfigReader's lookups.
//
// Compiled only with the package trait `Configuration` (Package.swift): a
// program that does not enable it gets an empty module and never fetches
// swift-configuration.

#if Configuration
    import Configuration
    import PrefsCore

    /// How property-list values answer swift-configuration's types.
    ///
    /// | asked for | answered by |
    /// |---|---|
    /// | `string` | a string; a date as ISO 8601 text (`2026-11-24T16:00:00Z`) |
    /// | `int` | an integer in `Int`'s range, or a real with an integral value |
    /// | `double` | a real or an integer; a date as seconds since 1970 |
    /// | `bool` | a boolean |
    /// | `bytes` | data |
    /// | `stringArray`, `intArray`, `doubleArray`, `boolArray`, `byteChunkArray` | an array whose every element answers the element type |
    ///
    /// A string also answers `int`, `double` and `bool` when its text is one
    /// (`"42"`, `"1.5"`, `"true"`/`"false"`/`"YES"`/`"NO"`), as environment
    /// variables do. A dictionary is no value: its entries are reached by
    /// dotted keys (`http.timeout` is the `timeout` entry of the dictionary
    /// `http`; a top-level key spelled `http.timeout` takes precedence). A
    /// value that cannot answer the asked type throws
    /// ``PreferencesProviderError/notConvertible(key:type:)``; an absent key
    /// is `nil`, so the next provider is asked.
    enum ConfigMapping {
        static func lookup(_ key: AbsoluteConfigKey, in values: [String: PropertyList]) -> PropertyList? {
            let joined = key.components.joined(separator: ".")
            if let v = values[joined] { return v }
            guard let first = key.components.first, var v = values[first] else { return nil }
            for component in key.components.dropFirst() {
                guard let next = v[component] else { return nil }
                v = next
            }
            return v
        }

        static func content(_ v: PropertyList, as type: ConfigType) -> ConfigContent? {
            switch type {
            case .string:
                if let s = v.stringValue { return .string(s) }
                if let t = v.dateValue, let text = ScalarText.formatISODate(t) { return .string(text) }
                return nil
            case .int: return int(v).map(ConfigContent.int)
            case .double: return double(v).map(ConfigContent.double)
            case .bool: return bool(v).map(ConfigContent.bool)
            case .bytes: return v.dataValue.map(ConfigContent.bytes)
            case .stringArray: return array(v, \.stringValue).map(ConfigContent.stringArray)
            case .intArray: return array(v, int).map(ConfigContent.intArray)
            case .doubleArray: return array(v, double).map(ConfigContent.doubleArray)
            case .boolArray: return array(v, bool).map(ConfigContent.boolArray)
            case .byteChunkArray: return array(v, \.dataValue).map(ConfigContent.byteChunkArray)
            }
        }

        private static func array<T>(_ v: PropertyList, _ element: (PropertyList) -> T?) -> [T]? {
            guard let items = v.arrayValue else { return nil }
            var out: [T] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let e = element(item) else { return nil }
                out.append(e)
            }
            return out
        }

        private static func int(_ v: PropertyList) -> Int? {
            if let s = v.stringValue { return Int(s) }
            return Int(propertyList: v)
        }

        private static func double(_ v: PropertyList) -> Double? {
            if let s = v.stringValue { return Double(s) }
            if let t = v.dateValue { return t }
            return Double(propertyList: v)
        }

        private static func bool(_ v: PropertyList) -> Bool? {
            if let s = v.stringValue {
                switch s.lowercased() {
                case "true", "yes", "1": return true
                case "false", "no", "0": return false
                default: return nil
                }
            }
            return v.booleanValue
        }

        static func result(_ key: AbsoluteConfigKey, _ type: ConfigType, in values: [String: PropertyList]) throws -> LookupResult {
            let encoded = key.components.joined(separator: ".")
            guard let v = lookup(key, in: values) else { return LookupResult(encodedKey: encoded, value: nil) }
            guard let c = content(v, as: type) else { throw PreferencesProviderError.notConvertible(key: encoded, type: type) }
            return LookupResult(encodedKey: encoded, value: ConfigValue(c, isSecret: false))
        }
    }

    /// A stored value that cannot answer the type a reader asked for.
    public enum PreferencesProviderError: Error, CustomStringConvertible, Equatable {
        /// The value of `key` is of another kind than `type` (see the type
        /// mapping on ``PreferencesProvider``).
        case notConvertible(key: String, type: ConfigType)

        /// A sentence for logs.
        public var description: String {
            switch self {
            case .notConvertible(let key, let type): "the preference \"\(key)\" is not convertible to \(type.rawValue)"
            }
        }
    }

    /// A snapshot of one application's search list, as a provider saw it.
    /// Immutable; thread-safe.
    public struct PreferencesSnapshot: ConfigSnapshot {
        /// The name of the provider that took it.
        public let providerName: String
        /// Every key visible along the search list, with its value.
        public let values: [String: PropertyList]

        /// The value for `key` as `type` (see ``PreferencesProvider`` for the mapping).
        public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
            try ConfigMapping.result(key, type, in: values)
        }
    }

    /// A swift-configuration provider over one application's whole search
    /// list, read live at each lookup; its watches deliver the value once and
    /// never again (use ``ReloadingPreferencesProvider`` to follow changes).
    ///
    /// Types map as follows (swift-configuration has no date or dictionary type):
    ///
    /// | asked for | answered by |
    /// |---|---|
    /// | `string` | a string; a date as ISO 8601 text |
    /// | `int` | an integer in `Int`'s range, or a real with an integral value |
    /// | `double` | a real or an integer; a date as seconds since 1970 |
    /// | `bool` | a boolean |
    /// | `bytes` | data |
    /// | arrays | an array whose every element answers the element type |
    ///
    /// A string answers `int`, `double` and `bool` when its text is one, as
    /// environment variables do. Dictionaries are reached by dotted keys:
    /// `http.timeout` is the entry `timeout` of the dictionary `http` (a
    /// top-level key spelled `http.timeout` takes precedence). A value that
    /// cannot answer throws ``PreferencesProviderError``; an absent key is
    /// `nil`, so the next provider is asked.
    ///
    /// ```swift
    /// let config = ConfigReader(providers: [
    ///     EnvironmentVariablesProvider(),
    ///     try PreferencesProvider(applicationID: "com.example.server"),
    /// ])
    /// let timeout = config.int(forKey: "http.timeout", default: 30)
    /// ```
    ///
    /// A value type over the shared store; thread-safe.
    public struct PreferencesProvider: ConfigProvider {
        /// The preferences it reads.
        public let preferences: Preferences

        /// A provider over `applicationID`'s search list; throws
        /// `.invalidApplicationID` for IDs a file cannot be named after.
        public init(applicationID: String) throws(PrefsError) {
            preferences = try Preferences(applicationID: applicationID)
        }

        /// A provider over `preferences`.
        public init(preferences: Preferences) {
            self.preferences = preferences
        }

        /// `PreferencesProvider[<application ID>]`.
        public var providerName: String { "PreferencesProvider[\(preferences.applicationID)]" }

        /// The value for `key` as `type`, read now.
        public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
            try snapshotNow().value(forKey: key, type: type)
        }

        /// The same as ``value(forKey:type:)``.
        public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
            try value(forKey: key, type: type)
        }

        /// The current value, once.
        public func watchValue<Return: ~Copyable>(
            forKey key: AbsoluteConfigKey, type: ConfigType,
            updatesHandler: (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
        ) async throws -> Return {
            try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
        }

        /// Every value of the search list, now.
        public func snapshot() -> any ConfigSnapshot { snapshotNow() }

        /// The current snapshot, once.
        public func watchSnapshot<Return: ~Copyable>(
            updatesHandler: (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
        ) async throws -> Return {
            try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
        }

        func snapshotNow() -> PreferencesSnapshot {
            PreferencesSnapshot(providerName: providerName, values: preferences.dictionaryRepresentation())
        }
    }

    /// A ``PreferencesProvider`` whose watches follow changes: each watch is a
    /// libprefs observer of the application (no polling), so a set in this
    /// process, another process's synchronize, a hand edit of the file, a
    /// registration or a suite change reaches `ConfigReader.watch...` at once
    /// (a hand edit within milliseconds). Lookups read live, as the plain
    /// provider's do; the type mapping is the same.
    ///
    /// A value type over the shared store; thread-safe. A watch's observer is
    /// removed when its handler returns.
    public struct ReloadingPreferencesProvider: ConfigProvider {
        /// The provider it reads through.
        public let base: PreferencesProvider

        /// A reloading provider over `applicationID`'s search list.
        public init(applicationID: String) throws(PrefsError) {
            base = try PreferencesProvider(applicationID: applicationID)
        }

        /// A reloading provider over `preferences`.
        public init(preferences: Preferences) {
            base = PreferencesProvider(preferences: preferences)
        }

        /// `ReloadingPreferencesProvider[<application ID>]`.
        public var providerName: String { "ReloadingPreferencesProvider[\(base.preferences.applicationID)]" }

        /// The value for `key` as `type`, read now.
        public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
            try base.value(forKey: key, type: type)
        }

        /// The same as ``value(forKey:type:)``.
        public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
            try value(forKey: key, type: type)
        }

        /// The value now, then after every change that alters it.
        public func watchValue<Return: ~Copyable>(
            forKey key: AbsoluteConfigKey, type: ConfigType,
            updatesHandler: (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
        ) async throws -> Return {
            let base = base
            let stream = changes { () -> Result<LookupResult, any Error> in
                Result { try base.value(forKey: key, type: type) }
            } same: { a, b in
                switch (a, b) {
                case (.success(let x), .success(let y)): x == y
                case (.failure(let x as PreferencesProviderError), .failure(let y as PreferencesProviderError)): x == y
                default: false
                }
            }
            defer { stream.observation.cancel() }
            return try await updatesHandler(ConfigUpdatesAsyncSequence(stream.values))
        }

        /// Every value of the search list, now.
        public func snapshot() -> any ConfigSnapshot { base.snapshotNow() }

        /// The snapshot now, then after every change of the search list.
        public func watchSnapshot<Return: ~Copyable>(
            updatesHandler: (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
        ) async throws -> Return {
            let base = base
            let stream = changes { () -> PreferencesSnapshot in
                base.snapshotNow()
            } same: {
                $0.values == $1.values
            }
            defer { stream.observation.cancel() }
            return try await updatesHandler(ConfigUpdatesAsyncSequence(stream.values.map { $0 as any ConfigSnapshot }))
        }

        /// A stream of `read()`: now, then after each change of the
        /// application that `same` does not call unchanged.
        private func changes<T: Sendable>(
            _ read: @escaping @Sendable () -> T, same: @escaping @Sendable (T, T) -> Bool
        ) -> (values: AsyncStream<T>, observation: PreferenceObservation) {
            let (values, continuation) = AsyncStream<T>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let last = LastValue<T>()
            let emit: @Sendable () -> Void = {
                last.update(read(), same: same) { continuation.yield($0) }
            }
            let observation = base.preferences.observeAll { emit() }
            emit()
            return (values, observation)
        }
    }

    /// The last value a watch yielded, under a lock.
    private final class LastValue<T: Sendable>: @unchecked Sendable {
        private let lock = ForkSafeMutex()
        private var value: T? = nil

        func update(_ new: T, same: (T, T) -> Bool, yield: (T) -> Void) {
            lock.withLock {
                if let value, same(value, new) { return }
                value = new
                yield(new)
            }
        }
    }
#endif
