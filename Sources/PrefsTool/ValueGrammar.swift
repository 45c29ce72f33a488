import Glibc
import PrefsCore

/// The value forms of `prefs write D K ...`, read completely before anything
/// is written: a missing value, an unknown flag, an extra word or a value
/// that does not parse is refused (exit 1) with nothing changed.
enum ValueGrammar {
    /// What a `write` does to the key.
    enum Edit {
        /// Stores the value (replacing any old one).
        case set(PropertyList)
        /// `-array-add`: appends to the array (made when absent).
        case arrayAdd([PropertyList])
        /// `-dict-add`: merges into the dictionary (made when absent).
        case dictAdd([(String, PropertyList)])
    }

    static let scalarFlags: Set<String> = ["-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean", "-date"]
    static let containerFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]

    static func isFlag(_ word: String) -> Bool { scalarFlags.contains(word) || containerFlags.contains(word) }

    /// A word that reads as a type flag the grammar does not have: `-` then
    /// a letter (`-5` and `-` are values).
    static func looksLikeUnknownFlag(_ word: String) -> Bool {
        let u = Array(word.utf8.prefix(2))
        guard u.count == 2, u[0] == UInt8(ascii: "-") else { return false }
        let c = u[1] | 0x20
        return c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")
    }

    /// The edit that the words after the key describe.
    static func parse(_ words: ArraySlice<String>) throws(Failure) -> Edit {
        var words = words
        guard let first = words.popFirst() else { throw .unusable("no value given") }
        switch first {
        case _ where scalarFlags.contains(first):
            guard let text = words.popFirst() else { throw .unusable("\(first) needs a value") }
            try noMore(words)
            return .set(try scalar(first, text))
        case "-array", "-array-add":
            var items: [PropertyList] = []
            while !words.isEmpty { items.append(try item(&words, in: first)) }
            return first == "-array" ? .set(.array(items)) : .arrayAdd(items)
        case "-dict", "-dict-add":
            var entries: [(String, PropertyList)] = []
            while let key = words.popFirst() {
                if isFlag(key) { throw .unusable("\(first): expected a key, found the type flag \(key)") }
                guard !words.isEmpty else { throw .unusable("\(first): key \(quoted(key)) has no value") }
                entries.append((key, try item(&words, in: first)))
            }
            if first == "-dict-add" { return .dictAdd(entries) }
            var d = PropertyListDictionary()
            for (k, v) in entries { d[PropertyList.Key(k)] = v }
            return .set(.dictionary(d))
        case _ where looksLikeUnknownFlag(first):
            throw .unusable("unknown type flag \(first) (to store it as text: -string \(first))")
        default:
            try noMore(words)
            return .set(try plain(first))
        }
    }

    private static func noMore(_ words: ArraySlice<String>) throws(Failure) {
        if let extra = words.first { throw .unusable("unexpected argument \(quoted(extra)) after the value") }
    }

    /// One element of `-array` or value of `-dict`: a type flag and its
    /// value, or a value without flag.
    private static func item(_ words: inout ArraySlice<String>, in container: String) throws(Failure) -> PropertyList {
        let word = words.popFirst()!
        if scalarFlags.contains(word) {
            guard let text = words.popFirst() else { throw .unusable("\(container): \(word) needs a value") }
            return try scalar(word, text)
        }
        if containerFlags.contains(word) { throw .unusable("\(word) cannot be used inside \(container)") }
        if looksLikeUnknownFlag(word) {
            throw .unusable("\(container): unknown type flag \(word) (to store it as text: -string \(word))")
        }
        return try plain(word)
    }

    /// A value without type flag: text that starts like a property list
    /// (`(`, `{`, `<`, or a quote) is parsed as one (old-style text, or XML)
    /// and must parse; any other text is the string it is.
    static func plain(_ text: String) throws(Failure) -> PropertyList {
        let start = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        guard let c = start, [UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(c) else {
            return .string(text)
        }
        do throws(PrefsError) {
            return try PropertyList.parse(Array(text.utf8))
        } catch {
            throw .unusable("cannot parse the value \(quoted(text)): \(shown(error.message))")
        }
    }

    // MARK: Typed values

    static func scalar(_ flag: String, _ text: String) throws(Failure) -> PropertyList {
        func bad(_ what: String) -> Failure { .unusable("\(flag) \(quoted(text)): \(what)") }
        switch flag {
        case "-string":
            return .string(text)
        case "-int", "-integer":
            guard let v = withBytes(text, ScalarText.parseInteger) else {
                throw bad("not an integer (decimal or 0x hexadecimal, -2^63 to 2^64-1)")
            }
            return .integer(v)
        case "-float":
            // Surrounding whitespace is allowed here, as ever (the XML
            // reader refuses it after a real, as Apple's does).
            guard let v = withBytes(text, { ScalarText.parseReal(ScalarText.trimmed($0)) }) else { throw bad("not a number") }
            // A 32-bit float widened, as defaults stores it: 32.3 becomes
            // 32.299999237060547. A number past a float's range (1e39, and
            // 1e999, past a double's) is refused rather than stored as an
            // infinity; only an infinity or NaN spelled out is one.
            let single = Float(v)
            let spelledOut = !text.utf8.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard single.isFinite || (!v.isFinite && spelledOut) else {
                throw bad("outside the range of a 32-bit float")
            }
            return .real(Double(single))
        case "-bool", "-boolean":
            switch String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self) {
            case "true", "yes": return .boolean(true)
            case "false", "no": return .boolean(false)
            default: throw bad("not a boolean (TRUE, FALSE, YES or NO, in any case)")
            }
        case "-data":
            guard !text.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
                throw bad("not hexadecimal digits")
            }
            let v: PropertyList
            do throws(PrefsError) {
                v = try OldStylePlist.parse("<" + text + ">")
            } catch {
                throw bad(withoutLine(error.message))
            }
            guard v.kind == .data else { throw bad("not hexadecimal digits") }
            return v
        case "-date":
            guard let v = date(text) else {
                throw bad("not a date (2026-01-02T03:04:05Z, 2026-01-02 03:04:05 +0000, or 2026-01-02 03:04:05 in local time; years 0001 to 9999)")
            }
            return v
        default:
            preconditionFailure("not a type flag: \(flag)")
        }
    }

    /// "... at line 1" says nothing about a one-line argument.
    private static func withoutLine(_ message: String) -> String {
        message.hasSuffix(" at line 1") ? String(message.dropLast(" at line 1".count)) : message
    }

    /// `parse` (one of the core's readers of a domain file's `<integer>`,
    /// `<real>` and `<date>` text) applied to `text`'s UTF-8, so that an
    /// argument reads exactly as the same text in a file would.
    private static func withBytes<T>(_ text: String, _ parse: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The offset from UTC, in seconds, of the local time zone (`TZ`, else
    /// /etc/localtime) at the local wall-clock time `wall` (seconds since
    /// 1970 as if that time were UTC). Across a change of offset (summer
    /// time), the offset in force at the resulting instant is taken; a
    /// wall time skipped by the change reads with the offset before it.
    static func utcOffset(ofLocal wall: Double) -> Double {
        func offset(at t: Double) -> Double {
            var time = time_t(t)
            var tm = Glibc.tm()
            guard localtime_r(&time, &tm) != nil else { return 0 }
            return Double(tm.tm_gmtoff)
        }
        let first = offset(at: wall)
        let second = offset(at: wall - first)
        return offset(at: wall - second) == second ? second : first
    }

    /// `2026-01-02 03:04:05` (local time), `2026-01-02T03:04:05Z`, or `2026-01-02 03:04:05 +0000` with any
    /// offset from -2359 to +2359 (as `prefs read` prints dates).
    static func date(_ text: String) -> PropertyList? {
        let u = Array(text.utf8)
        if u.count == 19, u[10] == 0x20 {
            // `2026-01-02 03:04:05`: local time, as macOS's defaults reads
            // it (Ansible's osx_defaults writes dates so).
            let iso = String(decoding: u[0..<10], as: UTF8.self) + "T" + String(decoding: u[11..<19], as: UTF8.self) + "Z"
            guard let wall = withBytes(iso, ScalarText.parseISODate) else { return nil }
            return .date(wall - utcOffset(ofLocal: wall))
        }
        if u.count != 25 { return withBytes(text, ScalarText.parseISODate).map { .date($0) } }
        guard u[10] == 0x20, u[19] == 0x20, u[20] == UInt8(ascii: "+") || u[20] == UInt8(ascii: "-"),
            u[21...24].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let digit = { (i: Int) in Int(u[i] - UInt8(ascii: "0")) }
        let hours = digit(21) * 10 + digit(22), minutes = digit(23) * 10 + digit(24)
        guard hours <= 23, minutes <= 59 else { return nil }
        let iso = String(decoding: u[0..<10], as: UTF8.self) + "T" + String(decoding: u[11..<19], as: UTF8.self) + "Z"
        guard let local = withBytes(iso, ScalarText.parseISODate) else { return nil }
        let offset = Double((hours * 3600 + minutes * 60) * (u[20] == UInt8(ascii: "-") ? -1 : 1))
        return .date(local - offset)
    }
}
