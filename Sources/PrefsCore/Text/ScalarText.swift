import Glibc

/// The text forms of integers, reals and dates that property lists use,
/// parsed and printed without Foundation and without the C locale's help.
/// The parsers are `package`: the `prefs` command reads its `-int`,
/// `-float` and `-date` arguments with them, as a domain file's values are read.
package enum ScalarText {
    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Trims XML whitespace from both ends.
    package static func trimmed(_ t: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = t.count
        while lo < hi && isSpace(t[lo]) { lo += 1 }
        while hi > lo && isSpace(t[hi - 1]) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: t[lo..<hi])
    }

    /// Whether `t` starts with `-`, and where its digits start (after an
    /// optional `-` or `+`).
    static func sign(_ t: UnsafeBufferPointer<UInt8>) -> (negative: Bool, digitsStart: Int) {
        guard let first = t.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return (false, 0) }
        return (first == UInt8(ascii: "-"), 1)
    }

    // MARK: Integers

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

    // MARK: Reals

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

    @inline(__always)
    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

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

    // MARK: Dates

    /// Seconds since 1970 for `YYYY-MM-DDTHH:MM:SSZ` exactly (years 0001-9999,
    /// days that exist in Foundation's calendar, no leap seconds, nothing
    /// before or after). Dates before 1582-10-15 are Julian, as Foundation
    /// reads and writes them (see ``daysFromCivil(_:_:_:)``).
    package static func parseISODate(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        guard t.count == 20,
            t[4] == UInt8(ascii: "-"), t[7] == UInt8(ascii: "-"), t[10] == UInt8(ascii: "T"),
            t[13] == UInt8(ascii: ":"), t[16] == UInt8(ascii: ":"), t[19] == UInt8(ascii: "Z"),
            let y = digits(t, 0, 4), let mo = digits(t, 5, 2), let d = digits(t, 8, 2),
            let h = digits(t, 11, 2), let mi = digits(t, 14, 2), let s = digits(t, 17, 2)
        else { return nil }
        return unixTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// Seconds since 1970 for a valid date and time of Foundation's calendar
    /// (Julian before 1582-10-15, Gregorian from then on; 1582-10-05 to
    /// 1582-10-14 do not exist), else `nil`.
    static func unixTime(year y: Int, month mo: Int, day d: Int, hour h: Int, minute mi: Int, second s: Int) -> Double? {
        guard (1...9999).contains(y), (1...12).contains(mo), d >= 1, d <= daysInMonth(y, mo),
            !(y == 1582 && mo == 10 && (5...14).contains(d)),
            (0...23).contains(h), (0...59).contains(mi), (0...59).contains(s)
        else { return nil }
        let days = daysFromCivil(y, mo, d)
        return Double(days * 86400 + h * 3600 + mi * 60 + s)
    }

    private static func digits(_ t: UnsafeBufferPointer<UInt8>, _ at: Int, _ n: Int) -> Int? {
        var v = 0
        for k in at..<(at + n) {
            let c = t[k]
            guard isDigit(c) else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return v
    }

    /// The days of month `m` of year `y` in Foundation's calendar: Julian
    /// leap years (every fourth) before 1582, Gregorian ones after.
    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2:
            let leap = y < 1582 ? y % 4 == 0 : (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of 1582-10-15, the first Gregorian day of
    /// Foundation's calendar (the day after Julian 1582-10-04).
    static let gregorianCutover = -141_427

    /// Days since 1970-01-01 of a date of Foundation's calendar: Gregorian
    /// from 1582-10-15 on, Julian before (as ICU's calendar, which Foundation
    /// formats dates with, counts them).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let gregorian = gregorianDays(year, month, day)
        return gregorian >= gregorianCutover ? gregorian : julianDays(year, month, day)
    }

    /// The date of Foundation's calendar of a day count since 1970-01-01.
    static func civilFromDays(_ z: Int) -> (year: Int, month: Int, day: Int) {
        z >= gregorianCutover ? gregorianCivil(z) : julianCivil(z)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func gregorianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func gregorianCivil(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days from Julian 0000-03-01 to 1970-01-01: years counted from March,
    /// so that the leap day ends each four-year cycle.
    private static let julianEpochShift = 719_470

    /// Days since 1970-01-01 of a date of the (proleptic) Julian calendar.
    static func julianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let cycle = (y >= 0 ? y : y - 3) / 4
        let yoc = y - cycle * 4
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        return cycle * 1461 + yoc * 365 + doy - julianEpochShift
    }

    /// The Julian date of a day count since 1970-01-01.
    static func julianCivil(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let n = z0 + julianEpochShift
        let cycle = (n >= 0 ? n : n - 1460) / 1461
        let doc = n - cycle * 1461
        let yoc = min(doc / 365, 3)
        let doy = doc - yoc * 365
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (cycle * 4 + yoc + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: Dates of XML property lists, as CoreFoundation computes them

    /// Seconds since 1970 of an XML property list's `<date>` text, as
    /// CoreFoundation reads it: `[-]Y...-MM-DDTHH:MM:SSZ`, the year of one to
    /// nine digits (`-` for years before 0) in the proleptic Gregorian
    /// calendar with a year 0 (0000-12-30 is Foundation's `distantPast`),
    /// the other fields of two digits each; the month 01-12, the day, hour,
    /// minute and second counted on from its start whatever their value
    /// (02-30 is 03-01 or 03-02), as CoreFoundation does. `nil` otherwise.
    package static func parseXMLDate(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = t.first == UInt8(ascii: "-")
        if negative { i = 1 }
        let yearStart = i
        while i < t.count, isDigit(t[i]) { i += 1 }
        let yearDigits = i - yearStart
        guard (1...9).contains(yearDigits), t.count - i == 16,
            t[i] == UInt8(ascii: "-"), t[i + 3] == UInt8(ascii: "-"), t[i + 6] == UInt8(ascii: "T"),
            t[i + 9] == UInt8(ascii: ":"), t[i + 12] == UInt8(ascii: ":"), t[i + 15] == UInt8(ascii: "Z"),
            let y = digits(t, yearStart, yearDigits), let mo = digits(t, i + 1, 2), let d = digits(t, i + 4, 2),
            let h = digits(t, i + 7, 2), let mi = digits(t, i + 10, 2), let s = digits(t, i + 13, 2),
            (1...12).contains(mo)
        else { return nil }
        let days = gregorianDays(negative ? -y : y, mo, 1) + d - 1
        return Double(days) * 86400 + Double(h * 3600 + mi * 60 + s)
    }

    /// The latest magnitude of a unix time that ``formatXMLDate(_:)``
    /// writes: about a billion years either way, so that every date it
    /// writes ``parseXMLDate(_:)`` reads back.
    static let xmlDateLimit = 3.0e16

    /// `YYYY-MM-DDTHH:MM:SSZ` of the whole second at or before `t`, as
    /// CoreFoundation writes a date into XML (`%04d` for the year of the
    /// proleptic Gregorian calendar with a year 0: `0000-12-30`, `-001`,
    /// `12345`); `nil` for a date that is not finite or lies beyond
    /// ``xmlDateLimit``.
    package static func formatXMLDate(_ t: Double) -> String? {
        guard t.isFinite, abs(t) < xmlDateLimit else { return nil }
        let secs = Int(t.rounded(.down))
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = secs - days * 86400
        let (y, m, d) = gregorianCivil(days)
        let year = y < 0 ? "-" + pad(-y, 3) : pad(y, 4)
        return year + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
            + pad(rem / 3600, 2) + ":" + pad(rem / 60 % 60, 2) + ":" + pad(rem % 60, 2) + "Z"
    }

    /// The earliest and latest unix times whose whole second has a four-digit
    /// year: Julian 0001-01-01 (Foundation's `Date.distantPast`) and
    /// 10000-01-01.
    static let firstDate = -62135769600.0  // 0001-01-01T00:00:00Z, Julian
    static let endOfLastDate = 253402300800.0  // 10000-01-01T00:00:00Z

    /// Broken-down UTC time of the whole second at or before `t`; `nil` when
    /// not finite or outside the years 0001-9999.
    static func components(_ t: Double) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)? {
        guard t.isFinite, t >= firstDate, t < endOfLastDate else { return nil }
        let secs = Int(t.rounded(.down))
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = secs - days * 86400
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, rem / 3600, rem / 60 % 60, rem % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as an XML property list writes the date
    /// (Foundation's calendar), or `nil` outside the years 0001-9999.
    package static func formatISODate(_ t: Double) -> String? {
        guard let c = components(t) else { return nil }
        return pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T"
            + pad(c.hour, 2) + ":" + pad(c.minute, 2) + ":" + pad(c.second, 2) + "Z"
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
