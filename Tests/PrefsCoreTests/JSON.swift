/// A small JSON reader for the conformance corpus's expected values. It keeps
/// object members in order and strings exactly as written (no Unicode
/// normalisation, no merging of keys), which a general JSON library does not
/// promise.
indirect enum JSON {
    case object([JSONMember])
    case array([JSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null
}

extension JSON: Equatable {
    static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { Array($0.name.utf8) == Array($1.name.utf8) && $0.value == $1.value }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
        case (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }
}

extension JSON {
    typealias ParseError = JSONParseError

    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("text after the value") }
        return v
    }

    static func parse(_ text: String) throws(JSONParseError) -> JSON { try parse(Array(text.utf8)) }
}

/// One member of a JSON object, its name kept exactly as written.
struct JSONMember {
    let name: String
    let value: JSON
    init(_ name: String, _ value: JSON) { self.name = name; self.value = value }
}

struct JSONParseError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "JSON error at byte \(offset): \(reason)" }
}

private struct JSONParser {
    let bytes: [UInt8]
    var i = 0

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONParseError) {
        let l = Array(literal.utf8)
        guard i + l.count <= bytes.count, Array(bytes[i..<(i + l.count)]) == l else { throw fail("expected \(literal)") }
        i += l.count
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSON {
        guard depth < 1000 else { throw fail("nested too deeply") }
        guard i < bytes.count else { throw fail("unexpected end") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [JSONMember] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let name = try string()
                skipSpace()
                try expect(":")
                skipSpace()
                members.append(JSONMember(name, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated object") }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                try expect(",")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSON] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated array") }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                try expect(",")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true"); return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null"); return .null
        default:
            let start = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            guard i > start else { throw fail("unexpected character") }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// A string at `i` (which holds the opening quote).
    mutating func string() throws(JSONParseError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw fail("control character in string") }
            guard c == UInt8(ascii: "\\") else { out.append(c); continue }
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("bad low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone low surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("bad scalar") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw fail("unknown escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not UTF-8") }
        return s
    }
}
