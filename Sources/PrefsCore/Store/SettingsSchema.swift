/// Reads defaults from a plist dictionary or a settings schema (the
/// `Settings.bundle` `Root.plist` format).
package enum SettingsSchema {
    /// The defaults a file declares. A plain dictionary is taken whole. A
    /// dictionary with a `PreferenceSpecifiers` array contributes each
    /// specifier's `Key` → `DefaultValue`; a `PSChildPaneSpecifier` with
    /// `File` = `X` also reads `X.plist` beside it, recursively, each file
    /// once. Throws for files that cannot be read or parsed.
    package static func defaults(fromFile path: String) throws(PrefsError) -> PropertyListDictionary {
        var seen = Set<String>()
        var out = PropertyListDictionary()
        try collect(path, into: &out, seen: &seen)
        return out
    }

    private static func collect(_ path: String, into out: inout PropertyListDictionary, seen: inout Set<String>) throws(PrefsError) {
        guard seen.insert(path).inserted else { return }
        guard let (bytes, _) = try FileSystem.read(path) else {
            throw PrefsError(.io, "cannot open \(path): No such file or directory")
        }
        let value: PropertyList
        do throws(PrefsError) {
            value = try PropertyList.parse(bytes)
        } catch {
            throw PrefsError(error.code, "\(path): \(error.message)")
        }
        guard let dict = value.dictionaryValue else {
            throw PrefsError(.malformed, "\(path) holds a \(value.kind), not a dictionary")
        }
        guard let specifiers = dict["PreferenceSpecifiers"]?.arrayValue else {
            out.merge(dict) { _, new in new }
            return
        }
        let dir = FileSystem.parent(of: path)
        for spec in specifiers {
            guard let s = spec.dictionaryValue else { continue }
            if let key = s["Key"]?.stringValue, let def = s["DefaultValue"] {
                out[PropertyList.Key(key)] = def
            }
            if s["Type"]?.stringValue == "PSChildPaneSpecifier", let file = s["File"]?.stringValue,
                ApplicationID.problem(file) == nil
            {
                try collect("\(dir)/\(file).plist", into: &out, seen: &seen)
            }
        }
    }
}
