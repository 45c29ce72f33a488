import CPrefs

@testable import PrefsCore

/// The typed getters' coercions (`Coercion.boolean`, `Coercion.integer`)
/// and the C number getters, on values made from the input: the first byte
/// picks the kind, the rest is its content. Strings are checked against
/// Swift's own reading of a decimal integer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let kind = bytes.first else { return 0 }
    let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
    var raw: UInt64 = 0
    for (i, b) in rest.prefix(8).enumerated() { raw |= UInt64(b) << (8 * UInt64(i)) }
    let value: PropertyList
    switch kind % 6 {
    case 0: value = .integer(Int64(bitPattern: raw))
    case 1: value = .integer(raw)
    case 2: value = .real(Double(bitPattern: raw))
    case 3: value = .boolean(raw & 1 == 1)
    case 4: value = .data(Array(rest))
    default:
        let text = String(decoding: rest, as: UTF8.self)
        value = .string(text)
        checkDecimal(text)
    }
    let b = Coercion.boolean(value)
    let i = Coercion.integer(value)
    if case .integer(let n) = value.value, b != (n != 0) || i != Int64(exactly: n) { failure("integer \(n)") }
    if case .real(let d) = value.value {
        if b != nil { failure("a real read as a boolean") }
        if let i, !d.isFinite || Double(i) != d.rounded(.towardZero) { failure("real \(d) read as \(i)") }
        checkNumberGetters(PrefsNumberCreateDouble(d), d)
    }
    if case .integer(let n) = value.value {
        checkNumberGetters(n < 0 ? PrefsNumberCreateInt64(Int64(n)) : PrefsNumberCreateUInt64(UInt64(n)), n)
    }
    return 0
}

/// A string holding a decimal integer (spaces and tabs around, an optional
/// sign) coerces to the number Swift reads from it; any other string to none.
func checkDecimal(_ text: String) {
    var s = Substring(text)
    while s.first == " " || s.first == "\t" { s = s.dropFirst() }
    while s.last == " " || s.last == "\t" { s = s.dropLast() }
    let expected = s.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) ? Int64(s) : nil
    let got = Coercion.integer(.string(text))
    if got != expected { failure("\"\(text.prefix(60))\" read as \(String(describing: got)), expected \(String(describing: expected))") }
    // As a boolean: the words YES, NO, true, false in any ASCII case, as
    // they are, else the integer when it is one a property list holds.
    let lower = String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    let wide = s.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) ? Int128(s) : nil
    let expectedBoolean: Bool?
    switch lower {
    case "yes", "true": expectedBoolean = true
    case "no", "false": expectedBoolean = false
    default:
        expectedBoolean = wide.flatMap { $0 >= PropertyList.minInteger && $0 <= PropertyList.maxInteger ? $0 != 0 : nil }
    }
    if Coercion.boolean(.string(text)) != expectedBoolean { failure("\"\(text.prefix(60))\" as a boolean") }
}

/// The C getters give a number back only when it converts exactly.
func checkNumberGetters<N: BinaryInteger>(_ number: PrefsNumberRef, _ n: N) {
    var i: Int64 = 0, u: UInt64 = 0, d: Double = 0
    if PrefsNumberGetInt64(number, &i) != (Int64(exactly: n) != nil) || (Int64(exactly: n).map { $0 == i } == false) { failure("Int64 of \(n)") }
    if PrefsNumberGetUInt64(number, &u) != (UInt64(exactly: n) != nil) || (UInt64(exactly: n).map { $0 == u } == false) { failure("UInt64 of \(n)") }
    if PrefsNumberGetDouble(number, &d) != (Double(exactly: n) != nil) { failure("Double of \(n)") }
    PrefsRelease(UnsafeRawPointer(number))
}

func checkNumberGetters(_ number: PrefsNumberRef, _ x: Double) {
    var i: Int64 = 0, u: UInt64 = 0, d: Double = 0
    if PrefsNumberGetInt64(number, &i) != (Int64(exactly: x) != nil) { failure("Int64 of \(x)") }
    if PrefsNumberGetUInt64(number, &u) != (UInt64(exactly: x) != nil) { failure("UInt64 of \(x)") }
    if !PrefsNumberGetDouble(number, &d) || !(d == x || (d.isNaN && x.isNaN)) { failure("Double of \(x)") }
    PrefsRelease(UnsafeRawPointer(number))
}
