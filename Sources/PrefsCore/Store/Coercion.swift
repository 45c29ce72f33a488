/// The coercions of the typed getters (`PrefsGetAppBooleanValue`,
/// `PrefsGetAppIntegerValue`), exactly as the C contract states them.
package enum Coercion {
    /// A boolean is itself; an integer is true when non-zero (the full
    /// 64-bit value); a string `YES`/`NO`/`true`/`false` in any case, or a
    /// decimal integer in -2^63...2^64-1 (true when non-zero), is valid.
    /// Anything else: `nil`.
    package static func boolean(_ v: PropertyList) -> Bool? {
        switch v.value {
        case .boolean(let b): return b
        case .integer(let i): return i != 0
        case .string(let s):
            switch asciiLowercased(s) {
            case "yes", "true": return true
            case "no", "false": return false
            default: return decimalInteger(s).map { $0 != 0 }
            }
        default: return nil
        }
    }

    /// An integer in the `Int64` range is itself; a boolean is 1 or 0; a
    /// finite real in range is truncated toward zero; a string that is
    /// entirely a decimal integer (optional sign, surrounding spaces) in
    /// range is valid. Anything else, with no clamping: `nil`.
    package static func integer(_ v: PropertyList) -> Int64? {
        switch v.value {
        case .integer(let i): return Int64(exactly: i)
        case .boolean(let b): return b ? 1 : 0
        case .real(let d):
            guard d.isFinite else { return nil }
            return Int64(exactly: d.rounded(.towardZero))
        case .string(let s): return decimalInteger(s).flatMap { Int64(exactly: $0) }
        default: return nil
        }
    }

    /// Optional spaces and tabs, optional sign, decimal digits, optional
    /// spaces and tabs; `nil` outside -2^63...2^64-1 (the integers a
    /// property list holds), however many digits the text has.
    static func decimalInteger(_ s: String) -> Int128? {
        var s = s
        return s.withUTF8 { u -> Int128? in
            var lo = 0, hi = u.count
            while lo < hi && (u[lo] == 0x20 || u[lo] == 0x09) { lo += 1 }
            while hi > lo && (u[hi - 1] == 0x20 || u[hi - 1] == 0x09) { hi -= 1 }
            return ScalarText.signedInteger(UnsafeBufferPointer(rebasing: u[lo..<hi]), hexadecimal: false)
        }
    }

    private static func asciiLowercased(_ s: String) -> String {
        guard s.utf8.count <= 5 else { return "" }
        return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
