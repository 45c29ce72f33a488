import PrefsCore

/// A settings schema's bytes (as an installed schema or `prefs schema`
/// reads them): parsed into specifiers, checked, and turned into C and
/// Swift code. Nothing may crash; a parsed schema's defaults are its keyed
/// specifiers' defaults, and the code names every key.
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
    if !header.hasSuffix("#endif\n") || !swift.hasSuffix("}\n") { failure("generated code is cut short") }
    return 0
}
