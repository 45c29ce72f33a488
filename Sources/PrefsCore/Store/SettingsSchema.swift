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

        /// What the specifier's key accepts; nil when it binds nothing: a
        /// specifier without a key, of a type that says nothing of its
        /// value (group, child pane, unknown), or whose own `DefaultValue`
        /// breaks what it says (`schema check` reports that one).
        package var constraint: Constraint? {
            guard key != nil else { return nil }
            var c: Constraint
            switch type {
            case "PSToggleSwitchSpecifier":
                if let t = trueValue, let f = falseValue { c = Constraint(.oneOf([t, f])) } else { c = Constraint(.kind(.boolean)) }
            case "PSSliderSpecifier":
                c = Constraint(.number(integral: defaultValue?.integerValue != nil))
                c.minimum = minimum
                c.maximum = maximum
            case "PSMultiValueSpecifier", "PSRadioGroupSpecifier":
                if let values, !values.isEmpty {
                    c = Constraint(.oneOf(values))
                    c.titles = titles?.count == values.count ? titles : nil
                } else if let d = defaultValue {
                    c = Constraint(.kind(d.kind))
                } else {
                    return nil
                }
            case "PSTextFieldSpecifier", "PSTitleValueSpecifier":
                c = Constraint(.kind(defaultValue?.kind ?? .string))
            default: return nil
            }
            if let d = defaultValue, !c.accepts(d) { return nil }
            return c
        }
    }

    /// What a key named by a schema accepts: a type, a range, or a list of
    /// values. A value type; thread-safe.
    package struct Constraint: Sendable, Equatable {
        /// The shape of the accepted values.
        package enum Accepted: Sendable, Equatable {
            // `oneOf` comes first on purpose. Swift stores a multi-payload
            // enum's case in the spare high bits of its payloads, so the
            // array reference of any later case is kept with bits set in
            // its top byte: a pointer LeakSanitizer does not recognise, so
            // a list only this enum holds (a toggle's [TrueValue,
            // FalseValue]) is reported as leaked at exit. The first payload
            // case has tag 0 and keeps its reference as a plain pointer.
            /// One of these values exactly.
            case oneOf([PropertyList])
            /// Any value of this kind.
            case kind(PropertyList.Kind)
            /// A number: only integers when `integral`, else integers and
            /// reals; within ``minimum`` and ``maximum``.
            case number(integral: Bool)
        }
        /// The shape of the accepted values.
        package var accepted: Accepted
        /// The smallest number accepted (`MinimumValue`).
        package var minimum: Double? = nil
        /// The largest number accepted (`MaximumValue`).
        package var maximum: Double? = nil
        /// The `Titles` of ``Accepted/oneOf(_:)``'s values, when one per value.
        package var titles: [String]? = nil

        init(_ accepted: Accepted) { self.accepted = accepted }

        /// Whether `v` fits. A NaN fits no range; a range with a NaN bound,
        /// or whose minimum is above its maximum, fits nothing.
        package func accepts(_ v: PropertyList) -> Bool {
            switch accepted {
            case .kind(let k): return v.kind == k
            case .oneOf(let values): return values.contains(v)
            case .number(let integral):
                let x: Double
                if let i = v.integerValue {
                    x = Double(i)
                } else if !integral, let r = v.realValue {
                    x = r
                } else {
                    return false
                }
                if let lo = minimum, !(x >= lo) { return false }
                if let hi = maximum, !(x <= hi) { return false }
                return true
            }
        }

        /// The value type, in words: `boolean`, `integer`, `real`,
        /// `number`, `string`, `date`, `data`, `array`, `dictionary`, or the
        /// listed values' kind (`mixed` when they differ).
        package var typeName: String {
            switch accepted {
            case .kind(let k): return Self.name(k)
            case .number(let integral): return integral ? "integer" : "number"
            case .oneOf(let values):
                let kinds = Set(values.map { Self.name($0.kind) })
                return kinds.count == 1 ? kinds.first! : "mixed"
            }
        }

        /// What is accepted, in a phrase: `an integer from 8 to 72`, `a
        /// boolean`, `one of 1, 2, 3`. Values are quoted as `prefs read`
        /// quotes them inside containers (escaped, never raw).
        package var summary: String {
            switch accepted {
            case .kind(let k):
                let n = Self.name(k)
                return (["integer", "array"].contains(n) ? "an " : n == "data" ? "" : "a ") + n
            case .number(let integral):
                var s = integral ? "an integer" : "a number"
                switch (minimum, maximum) {
                case (let lo?, let hi?): s += " from \(SettingsSchema.numberText(lo)) to \(SettingsSchema.numberText(hi))"
                case (let lo?, nil): s += " of at least \(SettingsSchema.numberText(lo))"
                case (nil, let hi?): s += " of at most \(SettingsSchema.numberText(hi))"
                case (nil, nil): break
                }
                return s
            case .oneOf(let values):
                let shown = values.prefix(20).map { SettingsSchema.oneLine($0) }
                return "one of " + shown.joined(separator: ", ") + (values.count > 20 ? ", ... (\(values.count) values)" : "")
            }
        }

        /// A kind's name as messages and descriptions give it: `string`,
        /// `integer`, `real`, `boolean`, `date`, `data`, `uid`, `array`,
        /// `dictionary`.
        package static func name(_ k: PropertyList.Kind) -> String {
            switch k {
            case .string: "string"
            case .integer: "integer"
            case .real: "real"
            case .boolean: "boolean"
            case .date: "date"
            case .data: "data"
            case .uid: "uid"
            case .array: "array"
            case .dictionary: "dictionary"
            }
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

    /// The most files one schema may span: its own file and its child
    /// panes' files, each counted once. A schema that names more is refused whole (a
    /// reader reports it and uses none of it), so a chain or a tree of
    /// panes costs every reader at most this many reads, and every
    /// re-check at most this many `stat` calls.
    package static let maximumFiles = 256

    /// The defaults a file declares. A plain dictionary is taken whole. A
    /// dictionary with a `PreferenceSpecifiers` array contributes each
    /// specifier's `Key` → `DefaultValue`; a `PSChildPaneSpecifier` with
    /// `File` = `X` also reads `X.plist` beside it, recursively, each file
    /// once, at most ``maximumFiles`` in all. Throws for files that cannot
    /// be read or parsed.
    package static func defaults(fromFile path: String) throws(PrefsError) -> PropertyListDictionary {
        try load(path).defaults
    }

    /// The schema in `path` with its child panes. Throws for a file (the
    /// root or a pane) that cannot be read or does not parse, or that is
    /// not a dictionary, and for a schema of more than ``maximumFiles``
    /// files.
    package static func load(_ path: String) throws(PrefsError) -> SettingsSchema {
        var parts: [String: Part] = [:]
        return try load(path, parts: &parts)
    }

    /// ``load(_:)`` reusing the files already read into `parts` and adding
    /// the ones it reads: for reading many schemas of one directory, each
    /// file once.
    package static func load(_ path: String, parts: inout [String: Part]) throws(PrefsError) -> SettingsSchema {
        var schema = SettingsSchema()
        try schema.collect(path, parts: &parts)
        return schema
    }

    /// The schema one file's bytes hold, without child panes (`name` is for
    /// messages). Throws what ``load(_:)`` throws for that file.
    package static func parse(_ bytes: [UInt8], name: String) throws(PrefsError) -> SettingsSchema {
        var schema = SettingsSchema()
        _ = try schema.add(bytes, path: name)
        return schema
    }

    /// One file of a schema read alone: its specifiers and defaults (in
    /// ``schema``), the child panes it names (as paths), its stamp as read.
    package struct Part: Sendable {
        var schema: SettingsSchema
        /// The files of the child panes it names, in order.
        package var panes: [String]
        var stamp: FileSystem.Stamp

        /// Reads and parses `path`; throws as ``SettingsSchema/load(_:)``.
        package init(_ path: String) throws(PrefsError) {
            guard let (bytes, stamp) = try FileSystem.read(path) else {
                throw PrefsError(.io, "cannot open \(path): No such file or directory")
            }
            var schema = SettingsSchema()
            let dir = FileSystem.parent(of: path)
            panes = try schema.add(bytes, path: path).map { "\(dir)/\($0).plist" }
            self.schema = schema
            self.stamp = stamp
        }
    }

    /// Reads `root` and its panes in the order a depth-first walk meets
    /// them (a file's specifiers, then each pane's in turn), each file
    /// once. Iterative, with a work list: the depth of a chain of panes
    /// costs no stack.
    private mutating func collect(_ root: String, parts: inout [String: Part]) throws(PrefsError) {
        var seen = Set<String>()
        var pending = [root]
        while let path = pending.popLast() {
            guard seen.insert(path).inserted else { continue }
            guard seen.count <= Self.maximumFiles else {
                throw PrefsError(
                    .malformed, "\(root): more than \(Self.maximumFiles) files with its child panes (at most \(Self.maximumFiles) are read)")
            }
            let part: Part
            if let known = parts[path] {
                part = known
            } else {
                part = try Part(path)
                parts[path] = part
            }
            files.append((path, part.stamp))
            specifiers += part.schema.specifiers
            for (k, v) in part.schema.defaults { defaults[k] = v }
            pending += part.panes.reversed()
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

    /// What each key the schema names accepts (see
    /// ``Specifier/constraint``), for the keys that are bound.
    package var constraints: [PropertyList.Key: Constraint] {
        var out: [PropertyList.Key: Constraint] = [:]
        for s in keyed { if let c = s.constraint { out[PropertyList.Key(s.key!)] = c } }
        return out
    }

    /// `v` as `prefs read` prints a value inside a container, on one line
    /// (a container's lines joined by spaces), at most about 200 bytes:
    /// what messages and descriptions quote. Strings are escaped, so the
    /// result holds no control character.
    package static func oneLine(_ v: PropertyList) -> String {
        guard let text = OldStylePlist.format(v, maxBytes: 200) else { return "(a \(Constraint.name(v.kind)) too long to show)" }
        guard text.utf8.contains(0x0A) else { return text }
        return text.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
    }

    /// A bound of a range as the command prints it: whole numbers without
    /// a fraction.
    package static func numberText(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : ScalarText.formatReal(x)
    }

    /// A number's value as a real; nil for anything else.
    static func number(_ v: PropertyList) -> Double? {
        if let i = v.integerValue { return Double(i) }
        return v.realValue
    }

    static func text(_ v: PropertyList) -> String { OldStylePlist.formatBare(v) }
}
