import Glibc

// Reals in the text of property lists: read, and written as Apple writes them.
extension ScalarText {
    /// A real: optional whitespace and sign, decimal digits with optional
    /// fraction and exponent, or `nan`, `inf`, `infinity` in any case.
    /// Hexadecimal floats and anything else are refused, and so is trailing
    /// whitespace, as swift-foundation refuses it (`1.5  `). Overflow reads
    /// as infinity.
    package static func parseReal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var lo = 0
        while lo < text.count && isSpace(text[lo]) { lo += 1 }
        let t = UnsafeBufferPointer(rebasing: text[lo...])
        let (negative, i) = sign(t)
        let rest = UnsafeBufferPointer(rebasing: t[i...])
        if let word = asciiLowercased(rest), word == "nan" || word == "inf" || word == "infinity" {
            if word == "nan" { return negative ? -Double.nan : Double.nan }
            return negative ? -Double.infinity : Double.infinity
        }
        // digits [. digits] | . digits, then [eE [+-] digits]
        var j = 0
        var mantissaDigits = 0
        while j < rest.count && isDigit(rest[j]) { j += 1; mantissaDigits += 1 }
        if j < rest.count && rest[j] == UInt8(ascii: ".") {
            j += 1
            while j < rest.count && isDigit(rest[j]) { j += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return nil }
        if j < rest.count && (rest[j] | 0x20) == UInt8(ascii: "e") {
            j += 1
            if j < rest.count && (rest[j] == UInt8(ascii: "+") || rest[j] == UInt8(ascii: "-")) { j += 1 }
            var expDigits = 0
            while j < rest.count && isDigit(rest[j]) { j += 1; expDigits += 1 }
            guard expDigits > 0 else { return nil }
        }
        guard j == rest.count else { return nil }
        if let d = exactReal(rest) { return negative ? -d : d }
        // The grammar is checked; Swift's conversion is correctly rounded and
        // independent of the C locale.
        guard let d = Double(Substring(decoding: t, as: UTF8.self)) else { return nil }
        return d
    }

    /// Powers of ten that a double holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { r, _ in r * 10 } }

    /// `digits[.digits]`, with at most 15 significant digits and no
    /// exponent, converted exactly: a mantissa below 2^53 divided by an
    /// exact power of ten is one correctly rounded operation, the same
    /// double as the general conversion gives (Clinger's fast path). `nil`
    /// for anything else, left to that conversion.
    @inline(__always)
    static func exactReal(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        guard t.count <= 16 else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1
        for c in t {
            if c == UInt8(ascii: ".") {
                fraction = 0
                continue
            }
            guard isDigit(c) else { return nil }
            mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
            digits += 1
            if fraction >= 0 { fraction += 1 }
        }
        guard digits <= 15 else { return nil }
        let d = Double(mantissa)
        return fraction > 0 ? d / exactPowersOfTen[fraction] : d
    }

    private static func asciiLowercased(_ t: UnsafeBufferPointer<UInt8>) -> String? {
        guard t.count <= 8, t.allSatisfy({ ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }) else { return nil }
        return String(decoding: t.map { $0 | 0x20 }, as: UTF8.self)
    }

    /// A real as Apple's property-list writers write it: `nan`,
    /// `+infinity`, `-infinity`, `0.0` for zero (and `-0.0` for negative
    /// zero, which Apple writes `0.0`: its sign must survive a write and a
    /// read), and otherwise
    /// C's `%.17g` (17 significant digits, correctly rounded from the exact
    /// binary value, trailing zeros dropped, an exponent when it is below
    /// -4 or above 16): `0.10000000000000001`, `1`, `1e+100`. Computed
    /// exactly here, without the C library, so no locale can change the
    /// decimal point. Seventeen digits always read back to the same double.
    static func formatAppleReal(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        var (digits, point) = exactDecimal(d.magnitude)
        // Round to 17 significant digits, half to even on an exact tie.
        if digits.count > 17 {
            let rest = digits[17...]
            let first = rest.first!
            let tail = rest.dropFirst().contains { $0 != 0 }
            digits.removeSubrange(17...)
            let up = first > 5 || (first == 5 && (tail || digits[16] % 2 == 1))
            if up {
                var k = 16
                while k >= 0 && digits[k] == 9 {
                    digits[k] = 0
                    k -= 1
                }
                if k >= 0 {
                    digits[k] += 1
                } else {
                    digits.insert(1, at: 0)
                    digits.removeLast()
                    point += 1
                }
            }
        }
        while digits.count > 1 && digits.last == 0 { digits.removeLast() }
        let exponent = point - 1  // of the first digit
        var out = d < 0 ? "-" : ""
        func text(_ ds: ArraySlice<UInt8>) -> String { String(decoding: ds.map { $0 + 0x30 }, as: UTF8.self) }
        if exponent < -4 || exponent >= 17 {
            out += text(digits[0...0])
            if digits.count > 1 { out += "." + text(digits[1...]) }
            let e = exponent.magnitude
            out += (exponent < 0 ? "e-" : "e+") + (e < 10 ? "0" : "") + String(e)
        } else if exponent < 0 {
            out += "0." + String(repeating: "0", count: -exponent - 1) + text(digits[...])
        } else if digits.count <= exponent + 1 {
            out += text(digits[...]) + String(repeating: "0", count: exponent + 1 - digits.count)
        } else {
            out += text(digits[...exponent]) + "." + text(digits[(exponent + 1)...])
        }
        return out
    }

    /// The exact decimal digits of a finite positive double (no leading
    /// zeros) and where the decimal point falls: the value is
    /// `0.d1d2d3... x 10^point`.
    static func exactDecimal(_ d: Double) -> (digits: [UInt8], point: Int) {
        // d = mantissa x 2^exponent, with an integer mantissa.
        var mantissa = d.significandBitPattern
        var exponent = Int(d.exponentBitPattern) - 1075
        if d.exponentBitPattern == 0 {
            exponent = -1074
        } else {
            mantissa |= 1 << 52
        }
        // Little-endian base-10^9 limbs of an integer N, with d = N x 10^-shift.
        var limbs: [UInt32] = [
            UInt32(mantissa % 1_000_000_000), UInt32(mantissa / 1_000_000_000 % 1_000_000_000), UInt32(mantissa / 1_000_000_000_000_000_000),
        ]
        func multiply(by m: UInt64) {
            var carry: UInt64 = 0
            for i in limbs.indices {
                let v = UInt64(limbs[i]) * m + carry
                limbs[i] = UInt32(v % 1_000_000_000)
                carry = v / 1_000_000_000
            }
            while carry > 0 {
                limbs.append(UInt32(carry % 1_000_000_000))
                carry /= 1_000_000_000
            }
        }
        var shift = 0
        if exponent >= 0 {
            var e = exponent
            while e > 0 {
                let step = min(e, 20)
                multiply(by: 1 << UInt64(step))
                e -= step
            }
        } else {
            // m / 2^k = m x 5^k / 10^k.
            var k = -exponent
            shift = k
            while k > 0 {
                let step = min(k, 13)
                var p: UInt64 = 1
                for _ in 0..<step { p *= 5 }
                multiply(by: p)
                k -= step
            }
        }
        while limbs.count > 1 && limbs.last == 0 { limbs.removeLast() }
        var digits: [UInt8] = []
        for (i, limb) in limbs.enumerated().reversed() {
            var chunk = [UInt8](repeating: 0, count: 9)
            var v = limb
            for j in stride(from: 8, through: 0, by: -1) {
                chunk[j] = UInt8(v % 10)
                v /= 10
            }
            if i == limbs.count - 1 {
                digits += chunk.drop { $0 == 0 }
            } else {
                digits += chunk
            }
        }
        return (digits, digits.count - shift)
    }

    /// The C locale, for this thread's `vsnprintf` in ``formatReal(_:)``.
    nonisolated(unsafe) private static let cNumericLocale: locale_t? = newlocale(LC_NUMERIC_MASK, "C", nil)

    /// `d` as `defaults read` prints a real, 16 significant digits
    /// (`%.16g`): `5`, `0.1`, `1e-300`, `-0`, `0.1000000014901161`, and
    /// `nan`, `+infinity`, `-infinity`.
    static func formatReal(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        // As NSNumber describes a double, which `defaults read` prints:
        // `%.16g` (0.1, 2.75, 1e+100; 0.1000000014901161 for the float 0.1).
        // In the C locale, whatever locale the program set: a '.' always.
        let previous = cNumericLocale.map { uselocale($0) }
        defer { if let previous { _ = uselocale(previous) } }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = withVaList([d]) { args in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.16g", args) }
        }
        guard n > 0 else { return d.description }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
