/// The old-style (OpenStep) text form of property lists: `{ k = v; }`,
/// `(a, b)`, `<0102>`, `"quoted"`, bare words. Read for command-line
/// arguments and `prefs write`; printed by `prefs read` and
/// `PrefsCopyDescription`.
package enum OldStylePlist {
    // MARK: Printing

    /// The text form of `value`, as macOS 10.15 and later print it: 4 spaces
    /// per level, dictionary keys sorted by their UTF-8 bytes, strings and
    /// keys bare only when non-empty and made only of ASCII letters and
    /// digits, quoted with `\"`, `\\`, `\n`, `\t`, `\Uxxxx` escapes
    /// otherwise, numbers bare, booleans `1`/`0`, dates as
    /// `"YYYY-MM-DD HH:MM:SS +0000"`, data as `{length = N, bytes = 0x...}`,
    /// and a container that is a dictionary's value opened after `=` and
    /// four more spaces (`AppleLanguages =     (`).
    package static func format(_ value: PropertyList) -> String {
        var out = ""
        _ = append(value, level: 0, to: &out, limit: .max)
        return out
    }

    /// The text form of `value` as ``format(_:)`` gives it, or `nil` when it
    /// would be longer than `maxBytes` bytes of UTF-8 (a small value whose
    /// containers share sub-values can stand for gigabytes of text).
    package static func format(_ value: PropertyList, maxBytes: Int) -> String? {
        var out = ""
        return append(value, level: 0, to: &out, limit: maxBytes) ? out : nil
    }

    /// A value as `prefs read D K` prints it, as macOS's `defaults` does:
    /// strings raw, numbers bare, booleans `1`/`0`, dates unquoted
    /// (`2026-01-02 03:04:05 +0000`), everything else as ``format(_:)``.
    package static func formatBare(_ value: PropertyList) -> String {
        if case .string(let s) = value.value { return s }
        let text = format(value)
        if case .uid(let u) = value.value { return uidText(u) }
        if case .date = value.value, text.hasPrefix("\""), text.hasSuffix("\""), text.utf8.count >= 2 {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// The text of a UID: `<CFKeyedArchiverUID>{value = 5}`.
    package static func uidText(_ u: UInt32) -> String { "<CFKeyedArchiverUID>{value = \(u)}" }

    private static func indent(_ level: Int, _ out: inout String) {
        out.append(String(repeating: " ", count: 4 * level))
    }

    /// Appends the text of `value`; false, leaving `out` partial, once
    /// `out` holds more than `limit` bytes.
    private static func append(_ value: PropertyList, level: Int, to out: inout String, limit: Int) -> Bool {
        switch value.value {
        case .string(let s): out.append(quotedIfNeeded(s))
        case .integer(let i): out.append(String(i))
        case .real(let d): out.append(ScalarText.formatReal(d))
        case .boolean(let b): out.append(b ? "1" : "0")
        case .date(let t):
            if let c = ScalarText.components(t) {
                out.append(
                    "\"\(ScalarText.pad(c.year, 4))-\(ScalarText.pad(c.month, 2))-\(ScalarText.pad(c.day, 2)) "
                        + "\(ScalarText.pad(c.hour, 2)):\(ScalarText.pad(c.minute, 2)):\(ScalarText.pad(c.second, 2)) +0000\"")
            } else {
                out.append("\"\(t)\"")
            }
        case .uid(let u):
            // As macOS prints a UID (CoreFoundation's description, without
            // the addresses of the object and its class).
            out.append("\"\(uidText(u))\"")
        case .data(let bytes):
            guard bytes.count <= (limit - out.utf8.count) / 2 else { return false }
            out.append("{length = \(bytes.count), bytes = 0x")
            out.append(hex(bytes))
            out.append("}")
        case .array(let items):
            out.append("(\n")
            for (i, item) in items.enumerated() {
                indent(level + 1, &out)
                guard append(item, level: level + 1, to: &out, limit: limit) else { return false }
                out.append(i + 1 < items.count ? ",\n" : "\n")
            }
            indent(level, &out)
            out.append(")")
        case .dictionary(let entries):
            out.append("{\n")
            for (key, value) in entries.sortedByKey() {
                indent(level + 1, &out)
                out.append(quotedIfNeeded(key.string))
                switch value.value {
                case .array, .dictionary: out.append(" =     ")
                default: out.append(" = ")
                }
                guard append(value, level: level + 1, to: &out, limit: limit) else { return false }
                out.append(";\n")
            }
            indent(level, &out)
            out.append("}")
        }
        return out.utf8.count <= limit
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var u = [UInt8]()
        u.reserveCapacity(bytes.count * 2)
        for b in bytes {
            u.append(digits[Int(b >> 4)])
            u.append(digits[Int(b & 15)])
        }
        return String(decoding: u, as: UTF8.self)
    }

    @inline(__always)
    static func isBareCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Whether `c` may appear in a string printed without quotes: an ASCII
    /// letter or digit (the reader takes more characters bare than macOS
    /// prints bare).
    @inline(__always)
    static func isPrintedBare(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    /// `s` bare when it is non-empty and made only of ASCII letters and
    /// digits, else quoted and escaped.
    package static func quotedIfNeeded(_ s: String) -> String {
        if !s.isEmpty && s.utf8.allSatisfy(isPrintedBare) { return s }
        var out = "\""
        for unit in s.utf16 {
            switch unit {
            case 0x22: out.append("\\\"")
            case 0x5C: out.append("\\\\")
            case 0x0A: out.append("\\n")
            case 0x09: out.append("\\t")
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let h = String(unit, radix: 16)
                out.append("\\U" + String(repeating: "0", count: 4 - h.count) + h)
            }
        }
        out.append("\"")
        return out
    }

    // MARK: Parsing

    /// A byte as an error message may show it: `'x'` when printable ASCII,
    /// `byte 0x00` otherwise (a NUL would cut a C string short).
    static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "character '\(Unicode.Scalar(c))'" }
        let h = String(c, radix: 16)
        return "byte 0x" + (h.count < 2 ? "0" + h : h)
    }

    /// Parses old-style text (UTF-8, an optional BOM): one value, then only
    /// whitespace and comments; or, as a `.strings` file, `key = value;`
    /// pairs without the outer braces (a dictionary; comments alone are an
    /// empty one, nothing at all is refused). Strings stay strings
    /// (the format has no numbers). Errors name the problem and the line.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        var p = Parser(bytes.bindMemory(to: UInt8.self))
        if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
        let begin = p.i
        try p.skipSpace()
        // Only comments (what reaches here is not empty): a .strings file
        // with no entries, as Xcode's InfoPlist.strings template is, which
        // CoreFoundation reads as an empty dictionary.
        guard p.i < p.bytes.count else {
            if p.bytes[begin..<p.i].contains(UInt8(ascii: "/")) { return PropertyList.emptyDictionary }
            throw p.error("no value")
        }
        let v = try p.value(depth: 1)
        try p.skipSpace()
        if p.i == p.bytes.count { return v }
        // A string followed by more text: a .strings file, read again from
        // the start as the content of a dictionary.
        guard case .string = v.value, p.bytes[p.i] == UInt8(ascii: "=") else {
            throw p.error("unexpected text after the value")
        }
        p.i = begin
        return try p.dictionaryContent(depth: 1, closed: false)
    }

    /// The UTF-8 of UTF-16 text after its byte-order mark; `.malformed` for
    /// an odd length or a lone surrogate (with the line it is on).
    package static func utf16ToUTF8(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> [UInt8] {
        guard bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) else {
            throw PrefsError(.malformed, "UTF-16 text without a byte-order mark at line 1")
        }
        let little = bytes[0] == 0xFF
        guard bytes.count % 2 == 0 else { throw PrefsError(.malformed, "UTF-16 text of an odd number of bytes at line 1") }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count / 2)
        var line = 1
        var i = 2
        func unit(_ at: Int) -> UInt32 {
            little ? UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 : UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1])
        }
        while i < bytes.count {
            var scalar = unit(i)
            i += 2
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard i < bytes.count, case let low = unit(i), low >= 0xDC00 && low <= 0xDFFF else {
                    throw PrefsError(.malformed, "a lone UTF-16 surrogate at line \(line)")
                }
                i += 2
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw PrefsError(.malformed, "a lone UTF-16 surrogate at line \(line)")
            }
            if scalar == 0x0A { line += 1 }
            switch scalar {
            case 0..<0x80: out.append(UInt8(scalar))
            case 0x80..<0x800:
                out.append(UInt8(0xC0 | scalar >> 6))
                out.append(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                out.append(UInt8(0xE0 | scalar >> 12))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            default:
                out.append(UInt8(0xF0 | scalar >> 18))
                out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
        return out
    }

    /// Parses `text` as ``parse(_:)`` does.
    package static func parse(_ text: String) throws(PrefsError) -> PropertyList {
        var t = text
        let result = t.withUTF8 { u in Result { () throws(PrefsError) in try parse(UnsafeRawBufferPointer(u)) } }
        return try result.get()
    }

    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        init(_ b: UnsafeBufferPointer<UInt8>) { bytes = b }

        func error(_ what: String, _ code: PrefsError.Code = .malformed) -> PrefsError {
            var line = 1
            for k in 0..<min(i, bytes.count) where bytes[k] == 0x0A { line += 1 }
            return PrefsError(code, "\(what) at line \(line)")
        }

        mutating func skipSpace() throws(PrefsError) {
            while i < bytes.count {
                let c = bytes[i]
                if ScalarText.isSpace(c) { i += 1; continue }
                if c == UInt8(ascii: "/") && i + 1 < bytes.count {
                    if bytes[i + 1] == UInt8(ascii: "/") {
                        while i < bytes.count && bytes[i] != 0x0A { i += 1 }
                        continue
                    }
                    if bytes[i + 1] == UInt8(ascii: "*") {
                        let start = i
                        i += 2
                        while i + 1 < bytes.count && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                        guard i + 1 < bytes.count else { i = start; throw error("unterminated comment") }
                        i += 2
                        continue
                    }
                }
                return
            }
        }

        /// The entries of a dictionary at `depth`, up to its `}` when
        /// `closed` (the `{` is read), or up to the end of the text for a
        /// `.strings` file. A later duplicate key wins.
        mutating func dictionaryContent(depth: Int, closed: Bool) throws(PrefsError) -> PropertyList {
            guard depth <= PropertyList.maxNesting else { throw error("nesting deeper than \(PropertyList.maxNesting) levels", .tooDeep) }
            var entries = [PropertyList.Key: PropertyList]()
            while true {
                try skipSpace()
                if closed {
                    guard i < bytes.count else { throw error("unterminated dictionary") }
                    if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                } else if i == bytes.count {
                    break
                }
                let key = try string()
                try skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw error("expected '=' after key \"\(key)\"") }
                i += 1
                try skipSpace()
                let v = try value(depth: depth + 1)
                try skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ";") else { throw error("expected ';' after the value of \"\(key)\"") }
                i += 1
                entries[PropertyList.Key(key)] = v
            }
            return PropertyList(.dictionary(entries))
        }

        mutating func value(depth: Int) throws(PrefsError) -> PropertyList {
            guard i < bytes.count else { throw error("missing value") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                if let bytes = dataDescription() { return PropertyList(.data(bytes)) }
                i += 1
                return try dictionaryContent(depth: depth, closed: true)
            case UInt8(ascii: "("):
                guard depth <= PropertyList.maxNesting else { throw error("nesting deeper than \(PropertyList.maxNesting) levels", .tooDeep) }
                i += 1
                var items = [PropertyList]()
                try skipSpace()
                if i < bytes.count && bytes[i] == UInt8(ascii: ")") { i += 1; return PropertyList(.array(items)) }
                while true {
                    try skipSpace()
                    items.append(try value(depth: depth + 1))
                    try skipSpace()
                    guard i < bytes.count else { throw error("unterminated array") }
                    if bytes[i] == UInt8(ascii: ")") { i += 1; break }
                    guard bytes[i] == UInt8(ascii: ",") else { throw error("expected ',' or ')' in array") }
                    i += 1
                    try skipSpace()
                    if i < bytes.count && bytes[i] == UInt8(ascii: ")") { i += 1; break }  // trailing comma
                }
                return PropertyList(.array(items))
            case UInt8(ascii: "<"):
                return PropertyList(.data(try data()))
            default:
                return PropertyList(.string(try string()))
            }
        }

        /// CoreFoundation's description of data, `{length = 3, bytes =
        /// 0x010203}` (as `prefs read` and `defaults read` print it), read
        /// as data, as GNUstep reads it: the whole of it, every byte given
        /// (`0x` and hex digits, spaces between groups allowed) and as many
        /// as the length says. Anything else is left to the dictionary
        /// grammar (which refuses the ','), and `i` is not moved.
        mutating func dataDescription() -> [UInt8]? {
            var j = i + 1
            func spaces() { while j < bytes.count && ScalarText.isSpace(bytes[j]) { j += 1 } }
            func word(_ w: StaticString) -> Bool {
                let n = w.utf8CodeUnitCount
                guard j + n <= bytes.count else { return false }
                for k in 0..<n where bytes[j + k] != w.utf8Start[k] { return false }
                j += n
                return true
            }
            spaces()
            guard word("length") else { return nil }
            spaces()
            guard word("=") else { return nil }
            spaces()
            var length = 0
            let digitsStart = j
            while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9"), j - digitsStart < 10 {
                length = length * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                j += 1
            }
            guard j > digitsStart else { return nil }
            spaces()
            guard word(",") else { return nil }
            spaces()
            guard word("bytes") else { return nil }
            spaces()
            guard word("=") else { return nil }
            spaces()
            guard word("0x") else { return nil }
            var out = [UInt8]()
            var high: UInt8? = nil
            while j < bytes.count && bytes[j] != UInt8(ascii: "}") {
                let c = bytes[j]
                j += 1
                if ScalarText.isSpace(c) { continue }
                guard let v = hexValue(c), out.count < length else { return nil }
                if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
            }
            guard j < bytes.count, high == nil, out.count == length else { return nil }
            i = j + 1
            return out
        }

        mutating func data() throws(PrefsError) -> [UInt8] {
            i += 1
            var out = [UInt8]()
            var high: UInt8? = nil
            while i < bytes.count && bytes[i] != UInt8(ascii: ">") {
                let c = bytes[i]
                i += 1
                if ScalarText.isSpace(c) { continue }
                guard let v = hexValue(c) else { throw error("\(OldStylePlist.describe(c)) is not a hex digit in <data>") }
                if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
            }
            guard i < bytes.count else { throw error("unterminated <data>") }
            guard high == nil else { throw error("odd number of hex digits in <data>") }
            i += 1
            return out
        }

        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }

        mutating func string() throws(PrefsError) -> String {
            guard i < bytes.count else { throw error("missing string") }
            let q = bytes[i]
            if q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") { return try quoted(q) }
            let start = i
            while i < bytes.count && OldStylePlist.isBareCharacter(bytes[i]) { i += 1 }
            guard i > start else { throw error("unexpected \(OldStylePlist.describe(bytes[i]))") }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        }

        mutating func quoted(_ q: UInt8) throws(PrefsError) -> String {
            let open = i
            i += 1
            var utf8 = [UInt8]()
            var pendingHigh: UInt16? = nil
            func appendScalar(_ v: UInt32, _ utf8: inout [UInt8]) {
                let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
                utf8.append(contentsOf: String(scalar).utf8)
            }
            while i < bytes.count && bytes[i] != q {
                var c = bytes[i]
                i += 1
                if c != UInt8(ascii: "\\") {
                    if let h = pendingHigh { appendScalar(UInt32(h), &utf8); pendingHigh = nil }
                    utf8.append(c)
                    continue
                }
                guard i < bytes.count else { break }
                c = bytes[i]
                i += 1
                var unit: UInt16? = nil
                switch c {
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "a"): utf8.append(0x07)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "v"): utf8.append(0x0B)
                case UInt8(ascii: "U"), UInt8(ascii: "u"):
                    // One to four hex digits, as CoreFoundation reads them
                    // (\U41 is A).
                    var v: UInt16 = 0
                    var n = 0
                    while n < 4, i < bytes.count, let d = hexValue(bytes[i]) {
                        v = v << 4 | UInt16(d)
                        i += 1
                        n += 1
                    }
                    guard n > 0 else { throw error("\\U needs one to four hex digits") }
                    unit = v
                case UInt8(ascii: "0")...UInt8(ascii: "7"):
                    var v = UInt32(c - UInt8(ascii: "0"))
                    var n = 1
                    while n < 3, i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "7") {
                        v = v * 8 + UInt32(bytes[i] - UInt8(ascii: "0"))
                        i += 1
                        n += 1
                    }
                    appendScalar(v, &utf8)
                default: utf8.append(c)
                }
                if let u = unit {
                    if let h = pendingHigh, (0xDC00...0xDFFF).contains(u) {
                        appendScalar(0x10000 + (UInt32(h - 0xD800) << 10) + UInt32(u - 0xDC00), &utf8)
                        pendingHigh = nil
                    } else {
                        if let h = pendingHigh { appendScalar(UInt32(h), &utf8) }
                        pendingHigh = nil
                        if (0xD800...0xDBFF).contains(u) { pendingHigh = u } else { appendScalar(UInt32(u), &utf8) }
                    }
                } else if let h = pendingHigh {
                    // A lone surrogate cannot be stored: it becomes U+FFFD.
                    let last = utf8.popLast()
                    appendScalar(UInt32(h), &utf8)
                    if let last { utf8.append(last) }
                    pendingHigh = nil
                }
            }
            if let h = pendingHigh { appendScalar(UInt32(h), &utf8) }
            guard i < bytes.count else { i = open; throw error("unterminated quoted string") }
            i += 1
            guard let s = String(validating: utf8, as: UTF8.self) else { i = open; throw error("quoted string is not valid UTF-8") }
            return s
        }
    }
}
