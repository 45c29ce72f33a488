// The coercions of Foundation's UserDefaults getters, so that code moves
// over by changing the type name. Strings convert as NSString's
// integerValue, doubleValue and boolValue do: the longest prefix that
// reads as a number counts, anything else is 0 or false.

/// `UserDefaults`' coercions, as measured against swift-corelibs-foundation.
enum UserDefaultsCoercion {
    /// A string is itself; an integer or a real its decimal text (a
    /// boolean "1" or "0"); anything else `nil`.
    static func string(_ v: PropertyList) -> String? {
        switch v.value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return realText(d)
        case .boolean(let b): return b ? "1" : "0"
        default: return nil
        }
    }

    /// Integers in range are themselves, reals truncate toward zero, a
    /// boolean is 1 or 0, a string its leading decimal integer
    /// (`"12.34"` is 12, `"12abc"` 12); anything else 0.
    static func integer(_ v: PropertyList) -> Int {
        switch v.value {
        case .integer(let i): return Int(exactly: i) ?? 0
        case .real(let d): return d.isFinite ? Int(exactly: d.rounded(.towardZero)) ?? 0 : 0
        case .boolean(let b): return b ? 1 : 0
        case .string(let s): return leadingInteger(s)
        default: return 0
        }
    }

    /// Reals and integers are their value, a boolean 1 or 0, a string its
    /// leading decimal number (`"12.34"`, `"1e3"`); anything else 0.
    static func double(_ v: PropertyList) -> Double {
        switch v.value {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        case .boolean(let b): return b ? 1 : 0
        case .string(let s): return leadingReal(s)
        default: return 0
        }
    }

    /// A boolean is itself, a number true when non-zero, a string true
    /// when it starts (after spaces, a sign and zeros) with Y, y, T, t or a
    /// digit 1 to 9; anything else false.
    static func bool(_ v: PropertyList) -> Bool {
        switch v.value {
        case .boolean(let b): return b
        case .integer(let i): return i != 0
        case .real(let d): return d != 0
        case .string(let s):
            var it = s.utf8.makeIterator()
            var c = it.next()
            while let x = c, x == 0x20 || x == 0x09 || x == 0x0A { c = it.next() }
            if let x = c, x == 0x2B || x == 0x2D { c = it.next() }
            while let x = c, x == 0x30 { c = it.next() }
            guard let x = c else { return false }
            return x == 0x59 || x == 0x79 || x == 0x54 || x == 0x74 || (x >= 0x31 && x <= 0x39)
        default: return false
        }
    }

    /// The shortest text that reads back as `d`, without a trailing ".0"
    /// for integral values (as NSNumber's stringValue).
    static func realText(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// NSString.integerValue: spaces, an optional sign, digits; saturating.
    static func leadingInteger(_ s: String) -> Int {
        let u = Array(s.utf8)
        var i = 0
        while i < u.count, isSpace(u[i]) { i += 1 }
        var negative = false
        if i < u.count, u[i] == 0x2B || u[i] == 0x2D {
            negative = u[i] == 0x2D
            i += 1
        }
        var n = 0
        while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(u[i] - 0x30))
            if o1 || o2 { return negative ? Int.min : Int.max }
            n = a
            i += 1
        }
        return negative ? -n : n
    }

    /// NSString.doubleValue: the longest leading decimal number (sign,
    /// digits, a fraction, an exponent); 0 when there is none.
    static func leadingReal(_ s: String) -> Double {
        let u = Array(s.utf8)
        var i = 0
        while i < u.count, isSpace(u[i]) { i += 1 }
        let start = i
        func digits() -> Int {
            let from = i
            while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
            return i - from
        }
        if i < u.count, u[i] == 0x2B || u[i] == 0x2D { i += 1 }
        var count = digits()
        if i < u.count, u[i] == 0x2E {
            i += 1
            count += digits()
        }
        guard count > 0 else { return 0 }
        var end = i
        if i < u.count, u[i] == 0x65 || u[i] == 0x45 {
            i += 1
            if i < u.count, u[i] == 0x2B || u[i] == 0x2D { i += 1 }
            if digits() > 0 { end = i }
        }
        return Double(String(decoding: u[start..<end], as: UTF8.self)) ?? 0
    }
}
