/// How an application's installed schema describes one of its keys: the
/// specifier's type and texts, the default, and what the key accepts. The
/// same description `prefs schema describe` prints and the C function
/// `PrefsCopyAppKeySchema` returns. A value type; thread-safe.
public struct SchemaKey: Sendable, Equatable {
    /// The key.
    public let key: String
    /// The specifier's `Type`, e.g. `PSSliderSpecifier`.
    public let specifierType: String
    /// The value type the key accepts: `boolean`, `integer`, `real`,
    /// `number` (integer or real), `string`, `date`, `data`, `array`,
    /// `dictionary`, `mixed` (listed values of several types); `nil` when
    /// the schema binds nothing (see ``isBound``).
    public let valueType: String?
    /// `Title`.
    public let title: String?
    /// `Description`.
    public let description: String?
    /// `DefaultValue`.
    public let defaultValue: PropertyList?
    /// `MinimumValue`, when the key is bound to a range.
    public let minimum: Double?
    /// `MaximumValue`, when the key is bound to a range.
    public let maximum: Double?
    /// The values accepted (`Values`, or a toggle's `TrueValue` and
    /// `FalseValue`), when the key accepts a list.
    public let values: [PropertyList]?
    /// One title per value of ``values`` when the schema gives them.
    public let titles: [String]?
    /// What the key accepts, in a phrase (`an integer from 8 to 72`);
    /// `nil` when the schema binds nothing.
    public let accepts: String?
    /// The file the specifier was read from.
    public let file: String
    /// What the key accepts; nil when it is free.
    package let constraint: SettingsSchema.Constraint?

    /// Whether `value` is one the schema accepts for the key (always true
    /// for a free key).
    public func accepts(_ value: PropertyList) -> Bool { constraint?.accepts(value) ?? true }

    /// Whether writes are checked against the schema and stored values
    /// that break it are ignored. A key is free when its specifier says
    /// nothing of its value (a group, an unknown type) or when its own
    /// `DefaultValue` breaks it (`prefs schema check` reports that).
    public var isBound: Bool { accepts != nil }

    init(_ s: SettingsSchema.Specifier) {
        let c = s.constraint
        constraint = c
        key = s.key ?? ""
        specifierType = s.type
        valueType = c?.typeName
        title = s.title
        description = s.description
        defaultValue = s.defaultValue
        minimum = c?.minimum
        maximum = c?.maximum
        if let c, case .oneOf(let v) = c.accepted {
            values = v
            titles = c.titles
        } else {
            values = nil
            titles = nil
        }
        accepts = c?.summary
        file = s.file
    }

    /// The description as a dictionary, as C receives it: `Key`, `Type`,
    /// `File`, and when present `ValueType`, `Title`, `Description`,
    /// `DefaultValue`, `MinimumValue`, `MaximumValue` (reals), `Values`,
    /// `Titles`, `Accepts`.
    public var propertyList: PropertyList {
        var d: [PropertyList.Key: PropertyList] = ["Key": .string(key), "Type": .string(specifierType), "File": .string(file)]
        if let valueType { d["ValueType"] = .string(valueType) }
        if let title { d["Title"] = .string(title) }
        if let description { d["Description"] = .string(description) }
        if let defaultValue { d["DefaultValue"] = defaultValue }
        if let minimum { d["MinimumValue"] = .real(minimum) }
        if let maximum { d["MaximumValue"] = .real(maximum) }
        if let values { d["Values"] = .array(values) }
        if let titles { d["Titles"] = .array(titles.map { .string($0) }) }
        if let accepts { d["Accepts"] = .string(accepts) }
        return .dictionary(d)
    }
}

extension PreferencesStore {
    /// How `app`'s installed schema describes `key`: nil when it has no
    /// schema or the schema does not name the key. Throws
    /// `.invalidApplicationID` for an unusable ID and the schema's problem
    /// when it does not parse. Thread-safe.
    package func schemaDescription(forKey key: String, application app: String) throws(PrefsError) -> SchemaKey? {
        guard let (_, schema) = try installedSchema(application: app) else { return nil }
        return schema.keyed.last { $0.key == key }.map(SchemaKey.init)
    }
}

extension Preferences {
    /// How this application's installed schema describes `key`, or nil
    /// when the schema does not name it (or there is no usable schema).
    /// Thread-safe. The corresponding C function is `PrefsCopyAppKeySchema`.
    public func schemaDescription(forKey key: String) -> SchemaKey? {
        try? store.schemaDescription(forKey: key, application: applicationID)
    }
}
