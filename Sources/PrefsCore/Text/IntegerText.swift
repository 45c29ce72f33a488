import Glibc

// Integers in the text of property lists and of the `prefs` command.
extension ScalarText {
    /// An integer in -2^63...2^64-1: optional sign, then decimal digits
    /// (leading zeros stay decimal) or `0x`/`0X` and hex digits. Surrounding
    /// whitespace is allowed, and whitespace between the sign and the
    /// digits (` -\t0xFACE`), as Apple's parsers read it. `nil` for
    /// anything else or out of range.
    package static func parseInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int128? {
        let t = trimmed(text)
        guard let first = t.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else {
            return signedInteger(t, hexadecimal: true)
        }
        var i = 1
        while i < t.count && isSpace(t[i]) { i += 1 }
        guard let magnitude = signedInteger(UnsafeBufferPointer(rebasing: t[i...]), hexadecimal: true), i < t.count,
            t[i] != UInt8(ascii: "-") && t[i] != UInt8(ascii: "+")
        else { return nil }
        if first == UInt8(ascii: "+") { return magnitude }
        // -2^63 is the lowest: its magnitude is above Int64.max.
        guard magnitude <= Int128(Int64.max) + 1 else { return nil }
        return -magnitude
    }

    /// An integer in -2^63...2^64-1 spelled exactly as `t`: an optional
    /// sign, then decimal digits, or (when `hexadecimal`) `0x`/`0X` and hex
    /// digits. Every step is checked, so no number of digits can overflow;
    /// `nil` for anything else or out of range.
    static func signedInteger(_ t: UnsafeBufferPointer<UInt8>, hexadecimal: Bool) -> Int128? {
        let negative: Bool
        var i: Int
        (negative, i) = sign(t)
        var radix: UInt64 = 10
        if hexadecimal && i + 1 < t.count && t[i] == UInt8(ascii: "0") && (t[i + 1] | 0x20) == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        guard i < t.count else { return nil }
        var magnitude: UInt64 = 0
        while i < t.count {
            let c = t[i]
            let digit: UInt64
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (s, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            magnitude = s
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return -Int128(magnitude)
        }
        return Int128(magnitude)
    }

    /// Decimal digits of `value` appended to `out`.
    static func appendInteger(_ value: Int128, to out: inout [UInt8]) {
        var magnitude = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        if magnitude == 0 { out.append(UInt8(ascii: "0")); return }
        // Scratch for the 39 digits of the largest Int128 magnitude.
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buf in
            var n = buf.count
            while magnitude > 0 {
                n -= 1
                buf[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: buf[n...])
        }
    }
}
