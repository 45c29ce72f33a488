import PrefsCore

/// A settings schema's bytes (as an installed schema or `prefs schema`
/// reads them): parsed into specifiers, checked, bound (what each key
/// accepts) and turned into C and Swift code. Nothing may crash; a parsed
/// schema's defaults are its keyed specifiers' defaults, a bound key
/// accepts its own default and its listed values, its description holds no
/// control character, comments hold no comment marker, trigraph or
/// control character, and the code names every key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    guard let schema = try? SettingsSchema.parse(bytes, name: "input") else { return 0 }
    _ = schema.problems
    let keyed = schema.keyed
    let header = CHeader.generate(schema, application: "com.example.fuzz", source: "input")
    let swift = SwiftKeys.generate(schema, source: "input")
    for s in keyed where s.defaultValue != nil {
        if schema.defaults[PropertyList.Key(s.key!)] == nil { failure("a keyed default is missing from the defaults") }
    }
    for (k, c) in schema.constraints {
        if let d = schema.defaults[k], !c.accepts(d) { failure("a bound key refuses its own default") }
        if case .oneOf(let values) = c.accepted, !values.allSatisfy(c.accepts) { failure("a listed value is refused") }
        if c.summary.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            failure("a description holds a control character")
        }
        _ = c.accepts(.real(.nan))
        _ = c.accepts(.integer(UInt64.max))
    }
    if !header.hasSuffix("#endif\n") || !swift.hasSuffix("}\n") { failure("generated code is cut short") }
    for s in keyed {
        for text in [s.key, s.title, s.description].compactMap({ $0 }) {
            let c = CHeader.comment(text)
            if c.contains("*/") || c.contains("/*") || c.contains("??") { failure("a comment holds */, /* or ??") }
            if c.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) }) {
                failure("a comment holds a control character")
            }
        }
    }
    return 0
}
