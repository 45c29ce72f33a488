/// A settings schema: the `Settings.bundle` `Root.plist` format, its child
/// panes read in, or a plain dictionary of defaults. Immutable once loaded;
/// safe to share between threads.
package struct SettingsSchema: Sendable {
    /// One entry of a `PreferenceSpecifiers` array.
    package struct Specifier: Sendable {
        /// `Type`, e.g. `PSToggleSwitchSpecifier`; empty when missing.
        package var type: String
        /// `Key`: the preference it sets; nil for groups and child panes.
        package var key: String?
        /// `DefaultValue`, of any property-list type.
        package var defaultValue: PropertyList?
        /// `Title`, as a settings screen shows it.
        package var title: String?
        /// libprefs' own addition: what the key does, in a sentence or two.
        package var description: String?
        /// `Values` (multi-value and radio group specifiers).
        package var values: [PropertyList]?
        /// `Titles`, one per value.
        package var titles: [String]?
        /// `MinimumValue` of a slider, as a real.
        package var minimum: Double?
        /// `MaximumValue` of a slider, as a real.
        package var maximum: Double?
        /// `TrueValue` / `FalseValue` of a toggle switch.
        package var trueValue: PropertyList?
        /// See ``trueValue``.
        package var falseValue: PropertyList?
        /// The file the specifier was read from.
        package var file: String
        /// `Synced = YES`: the key follows the user to every machine.
        package var synced: Bool

        /// The specifier a `PreferenceSpecifiers` entry describes; entries
        /// of the wrong type read as absent.
        init(_ s: [PropertyList.Key: PropertyList], file: String) {
            type = s["Type"]?.stringValue ?? ""
            key = s["Key"]?.stringValue
            defaultValue = s["DefaultValue"]
            title = s["Title"]?.stringValue
            description = s["Description"]?.stringValue
            values = s["Values"]?.arrayValue
            titles = s["Titles"]?.arrayValue?.compactMap(\.stringValue)
            minimum = s["MinimumValue"].flatMap(SettingsSchema.number)
            maximum = s["MaximumValue"].flatMap(SettingsSchema.number)
            trueValue = s["TrueValue"]
            falseValue = s["FalseValue"]
            synced = s["Synced"].flatMap(Coercion.boolean) ?? false
            self.file = file
        }
    }

    /// Every specifier, child panes' in place of the pane that names them.
    package var specifiers: [Specifier] = []
    /// The defaults the schema declares: each specifier's `Key` →
    /// `DefaultValue` (the last one wins), or a plain dictionary taken whole.
    package var defaults = PropertyListDictionary()
    /// Every file read, in order, with its stamp as read: the schema has
    /// changed when one of them has.
    var files: [(path: String, stamp: FileSystem.Stamp)] = []

    /// The defaults a file declares. A plain dictionary is taken whole. A
    /// dictionary with a `PreferenceSpecifiers` array contributes each
    /// specifier's `Key` → `DefaultValue`; a `PSChildPaneSpecifier` with
    /// `File` = `X` also reads `X.plist` beside it, recursively, each file
    /// once. Throws for files that cannot be read or parsed.
    package static func defaults(fromFile path: String) throws(PrefsError) -> PropertyListDictionary {
        try load(path).defaults
    }

    /// The schema in `path` with its child panes. Throws for a file (the
    /// root or a pane) that cannot be read or does not parse, or that is
    /// not a dictionary.
    package static func load(_ path: String) throws(PrefsError) -> SettingsSchema {
        var schema = SettingsSchema()
        var seen = Set<String>()
        try schema.collect(path, seen: &seen)
        return schema
    }

    /// The schema one file's bytes hold, without child panes (`name` is for
    /// messages). Throws what ``load(_:)`` throws for that file.
    package static func parse(_ bytes: [UInt8], name: String) throws(PrefsError) -> SettingsSchema {
        var schema = SettingsSchema()
        _ = try schema.add(bytes, path: name)
        return schema
    }

    private mutating func collect(_ path: String, seen: inout Set<String>) throws(PrefsError) {
        guard seen.insert(path).inserted else { return }
        guard let (bytes, stamp) = try FileSystem.read(path) else {
            throw PrefsError(.io, "cannot open \(path): No such file or directory")
        }
        files.append((path, stamp))
        let dir = FileSystem.parent(of: path)
        for pane in try add(bytes, path: path) {
            try collect("\(dir)/\(pane).plist", seen: &seen)
        }
    }

    /// Adds one file's specifiers; returns the child panes it names.
    private mutating func add(_ bytes: [UInt8], path: String) throws(PrefsError) -> [String] {
        let value: PropertyList
        do throws(PrefsError) {
            value = try PropertyList.parse(bytes)
        } catch {
            throw PrefsError(error.code, "\(path): \(error.message)")
        }
        guard let dict = value.dictionaryValue else {
            throw PrefsError(.malformed, "\(path) holds a \(value.kind), not a dictionary")
        }
        guard let list = dict["PreferenceSpecifiers"]?.arrayValue else {
            for (k, v) in dict { defaults[k] = v }
            return []
        }
        var panes: [String] = []
        for item in list {
            guard let s = item.dictionaryValue else { continue }
            let spec = Specifier(s, file: path)
            specifiers.append(spec)
            if let key = spec.key, let def = spec.defaultValue { defaults[PropertyList.Key(key)] = def }
            if spec.type == "PSChildPaneSpecifier", let file = s["File"]?.stringValue, ApplicationID.problem(file) == nil {
                panes.append(file)
            }
        }
        return panes
    }

    /// The specifiers that declare a key, one per key (the last, as for
    /// ``defaults``), in the order the keys first appear.
    package var keyed: [Specifier] {
        var order: [String] = []
        var last: [String: Specifier] = [:]
        for s in specifiers {
            guard let k = s.key else { continue }
            if last[k] == nil { order.append(k) }
            last[k] = s
        }
        return order.map { last[$0]! }
    }

    /// What is wrong with the schema's defaults: each problem as a sentence
    /// naming the key. Empty when every default fits its specifier's type,
    /// range and listed values.
    package var problems: [String] {
        var out: [String] = []
        for s in specifiers {
            guard let key = s.key else {
                if ["PSTextFieldSpecifier", "PSToggleSwitchSpecifier", "PSSliderSpecifier", "PSMultiValueSpecifier", "PSRadioGroupSpecifier"]
                    .contains(s.type)
                {
                    out.append("\(s.file): a \(s.type) has no Key")
                }
                continue
            }
            let known = [
                "PSTextFieldSpecifier", "PSToggleSwitchSpecifier", "PSSliderSpecifier", "PSMultiValueSpecifier",
                "PSRadioGroupSpecifier", "PSTitleValueSpecifier", "PSGroupSpecifier", "PSChildPaneSpecifier",
            ]
            if !known.contains(s.type) { out.append("\(key): unknown Type \"\(s.type)\"") }
            guard let def = s.defaultValue else {
                out.append("\(key): no DefaultValue")
                continue
            }
            switch s.type {
            case "PSToggleSwitchSpecifier":
                if let t = s.trueValue, let f = s.falseValue {
                    if def != t && def != f { out.append("\(key): DefaultValue is neither TrueValue nor FalseValue") }
                } else if def.booleanValue == nil {
                    out.append("\(key): DefaultValue of a toggle switch is a \(def.kind), not a boolean")
                }
            case "PSSliderSpecifier":
                guard let x = Self.number(def) else {
                    out.append("\(key): DefaultValue of a slider is a \(def.kind), not a number")
                    break
                }
                if let lo = s.minimum, x < lo { out.append("\(key): DefaultValue \(Self.text(def)) is below MinimumValue") }
                if let hi = s.maximum, x > hi { out.append("\(key): DefaultValue \(Self.text(def)) is above MaximumValue") }
                if let lo = s.minimum, let hi = s.maximum, lo > hi { out.append("\(key): MinimumValue is above MaximumValue") }
            case "PSMultiValueSpecifier", "PSRadioGroupSpecifier":
                guard let values = s.values, !values.isEmpty else {
                    out.append("\(key): no Values")
                    break
                }
                if !values.contains(def) { out.append("\(key): DefaultValue \(Self.text(def)) is not one of Values") }
                if let titles = s.titles, titles.count != values.count {
                    out.append("\(key): \(titles.count) Titles for \(values.count) Values")
                }
            case "PSTextFieldSpecifier", "PSTitleValueSpecifier":
                if def.stringValue == nil && Self.number(def) == nil {
                    out.append("\(key): DefaultValue of a \(s.type) is a \(def.kind), not a string")
                }
            default: break
            }
        }
        return out
    }

    /// A number's value as a real; nil for anything else.
    static func number(_ v: PropertyList) -> Double? {
        if let i = v.integerValue { return Double(i) }
        return v.realValue
    }

    static func text(_ v: PropertyList) -> String { OldStylePlist.formatBare(v) }
}
