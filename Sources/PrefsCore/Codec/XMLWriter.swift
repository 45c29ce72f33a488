/// Writes XML property lists byte for byte as Apple's tools do. Writing is
/// a direct serialisation into one buffer: the format is fixed, so a general
/// XML writer would add work and no safety.
struct XMLWriter {
    private(set) var out: [UInt8] = []
    /// Whether a value whose text would read back as other bits is one
    /// only the binary format carries (a domain file, whose index keeps
    /// the bits: a date with a fraction of a second, a NaN other than the
    /// one `nan` reads as) rather than written as near as the text goes
    /// (a document asked for as XML: a date truncated to its second, any
    /// NaN as `nan`).
    private var exact = false

    static let header = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    static let footer = Array("</plist>\n".utf8)

    static func write(_ value: PropertyList) throws(PrefsError) -> [UInt8] {
        try write(value, order: nil)
    }

    /// A dictionary written as ``write(_:)`` writes it, given as its
    /// entries in the order ``write(_:)`` sorts them (each key once), which
    /// a domain keeps from one write to the next instead of sorting again.
    static func write(dictionaryEntries entries: [(key: PropertyList.Key, value: PropertyList)]) throws(PrefsError) -> [UInt8] {
        var depth = 1
        for e in entries where e.value.depth + 1 > depth { depth = e.value.depth + 1 }
        return try write(PropertyList(container: .dictionary([:]), depth: depth, minimumXMLSize: 0), order: entries)
    }

    /// The domain file of `entries` (sorted by key) as XML, or `nil` when
    /// a value is one that only the binary format carries: a string or key
    /// holding a character XML 1.0 cannot carry, a date outside the years
    /// the XML format writes or with a fraction of a second (XML dates are
    /// whole seconds), or a NaN with a sign or payload (written `nan`).
    /// Throws what no format can hold (nesting, sizes the reader refuses).
    static func writeDomain(_ entries: [(key: PropertyList.Key, value: PropertyList)]) throws(PrefsError) -> [UInt8]? {
        try writeDomainWithSpans(entries)?.bytes
    }

    /// As ``writeDomain(_:)``, with the length in bytes of each entry's
    /// text (its key's line and its value's lines), in order: the entries
    /// follow ``domainPrefix`` one after another, then ``domainSuffix``
    /// (``emptyDomain`` when there are none).
    static func writeDomainWithSpans(
        _ entries: [(key: PropertyList.Key, value: PropertyList)]
    ) throws(PrefsError) -> (bytes: [UInt8], spans: [UInt32])? {
        var depth = 1
        for e in entries where e.value.depth + 1 > depth { depth = e.value.depth + 1 }
        let top = PropertyList(container: .dictionary([:]), depth: depth, minimumXMLSize: 0)
        do throws(Failure) {
            var spans: [UInt32] = []
            spans.reserveCapacity(entries.count)
            let bytes = try encode(top, order: entries, spans: &spans, exact: true)
            return (bytes, spans)
        } catch {
            if error.binaryOnly { return nil }
            throw error.error
        }
    }

    /// What a domain file of at least one entry holds before its first
    /// entry and after its last, and the whole of one of none.
    static let domainPrefix = header + Array("<dict>\n".utf8)
    static let domainSuffix = Array("</dict>\n".utf8) + footer
    static let emptyDomain = header + Array("<dict/>\n".utf8) + footer

    /// The text of one entry of a domain file, as ``writeDomain(_:)``
    /// writes it there; `nil` when the value is one only the binary format
    /// carries. Throws what no format can hold.
    static func domainEntry(_ key: PropertyList.Key, _ value: PropertyList) throws(PrefsError) -> [UInt8]? {
        guard value.depth + 1 < PropertyList.maxNesting else {
            throw PrefsError(.tooDeep, "value nests deeper than \(PropertyList.maxNesting) levels; the XML format cannot hold it")
        }
        var w = XMLWriter()
        w.exact = true
        do throws(Failure) {
            try w.appendEntry(key, value, indent: 0)
        } catch {
            if error.binaryOnly { return nil }
            throw error.error
        }
        return w.out
    }

    /// Whether the XML format carries `value`, or only the binary one does
    /// (see ``writeDomain(_:)``); throws what neither format holds.
    static func carries(_ value: PropertyList) throws(PrefsError) -> Bool {
        do throws(Failure) {
            var spans: [UInt32] = []
            _ = try encode(value, order: nil, spans: &spans)
            return true
        } catch {
            if error.binaryOnly { return false }
            throw error.error
        }
    }

    private static func write(_ value: PropertyList, order: [(key: PropertyList.Key, value: PropertyList)]?) throws(PrefsError) -> [UInt8] {
        var spans: [UInt32] = []
        do throws(Failure) { return try encode(value, order: order, spans: &spans) } catch { throw error.error }
    }

    private static func encode(
        _ value: PropertyList, order: [(key: PropertyList.Key, value: PropertyList)]?, spans: inout [UInt32],
        exact: Bool = false
    ) throws(Failure) -> [UInt8] {
        guard value.depth < PropertyList.maxNesting else {
            throw Failure(base: PrefsError(.tooDeep, "value nests deeper than \(PropertyList.maxNesting) levels; the XML format cannot hold it"))
        }
        guard value.minimumXMLSize <= PropertyList.maxDocumentSize - header.count - footer.count else {
            throw tooLarge
        }
        var w = XMLWriter()
        w.exact = exact
        w.out.reserveCapacity(4096)
        w.out.append(contentsOf: header)
        if let order {
            if order.isEmpty {
                w.literal("<dict/>\n")
            } else {
                w.literal("<dict>\n")
                for (key, value) in order {
                    let start = w.out.count
                    try w.appendEntry(key, value, indent: 0)
                    spans.append(UInt32(truncatingIfNeeded: w.out.count - start))
                }
                w.literal("</dict>\n")
            }
        } else {
            try w.append(value, indent: 0)
        }
        guard footer.count <= PropertyList.maxDocumentSize - w.out.count else { throw tooLarge }
        w.out.append(contentsOf: footer)
        return w.out
    }

    /// A failure deep in a value, with the path to it gathered while unwinding.
    struct Failure: Error {
        var base: PrefsError
        var path: [String] = []
        /// Whether the binary format carries what XML cannot.
        var binaryOnly = false
        func at(_ component: String) -> Failure { var f = self; f.path.append(component); return f }
        /// The error, naming where in the value it lies.
        var error: PrefsError {
            let where_ = path.reversed().joined()
            return PrefsError(base.code, base.message + (where_.isEmpty ? "" : " (at \(where_))"))
        }
    }

    /// The failure of a document that would exceed ``PropertyList/maxDocumentSize``.
    static let tooLarge = Failure(
        base: PrefsError(
            .unrepresentable,
            "the XML property list would be larger than \(PropertyList.maxDocumentSize) bytes, the most the library writes"))

    /// Refuses to go on once the document would exceed
    /// ``PropertyList/maxDocumentSize`` with `coming` more bytes (any
    /// count, even `Int.max`) after `small` ones.
    private func ensureRoom(_ coming: Int, after small: Int = 0) throws(Failure) {
        guard coming <= PropertyList.maxDocumentSize - out.count - small else { throw Self.tooLarge }
    }

    /// Refuses text the reader would refuse (``PropertyList/maxTextLength``).
    private static func checkTextLength(_ n: Int, _ what: String) throws(Failure) {
        guard n <= PropertyList.maxTextLength else {
            throw Failure(
                base: PrefsError(
                    .unrepresentable,
                    "\(what) of \(n) bytes is longer than the \(PropertyList.maxTextLength) bytes of text an XML element may hold"))
        }
    }

    private mutating func tabs(_ n: Int) {
        for _ in 0..<n { out.append(0x09) }
    }

    private mutating func literal(_ s: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private mutating func append(_ value: PropertyList, indent: Int) throws(Failure) {
        try ensureRoom(value.minimumXMLSize, after: indent)
        tabs(indent)
        switch value.value {
        case .string(let s):
            try Self.checkTextLength(s.utf8.count, "a string")
            literal("<string>")
            try escaped(s, what: "string")
            literal("</string>\n")
        case .integer(let i):
            literal("<integer>")
            ScalarText.appendInteger(i, to: &out)
            literal("</integer>\n")
        case .real(let d):
            guard !exact || !d.isNaN || d.bitPattern == Double.nan.bitPattern else {
                throw Failure(base: PrefsError(.unrepresentable, "a NaN with a sign or payload, which the XML format drops"), binaryOnly: true)
            }
            literal("<real>")
            out.append(contentsOf: ScalarText.formatAppleReal(d).utf8)
            literal("</real>\n")
        case .boolean(let b):
            if b { literal("<true/>\n") } else { literal("<false/>\n") }
        case .date(let t):
            guard let text = ScalarText.formatXMLDate(t) else {
                throw Failure(
                    base: PrefsError(.unrepresentable, "date \(t) is outside the years the XML format holds"), binaryOnly: true)
            }
            guard !exact || t.rounded(.down) == t else {
                throw Failure(
                    base: PrefsError(.unrepresentable, "date \(t) has a fraction of a second, which the XML format drops"), binaryOnly: true)
            }
            literal("<date>")
            out.append(contentsOf: text.utf8)
            literal("</date>\n")
        case .data(let bytes):
            // The reader counts every byte between the tags: base64, line
            // breaks and indentation.
            let base64 = (bytes.count + 2) / 3 * 4
            try Self.checkTextLength(base64, "data written as base64")
            try ensureRoom(base64)
            literal("<data>")
            let start = out.count
            out.append(0x0A)
            Base64.appendWrapped(bytes, indent: indent, to: &out)
            tabs(indent)
            try Self.checkTextLength(out.count - start, "data written as base64 with its line breaks")
            literal("</data>\n")
        case .uid(let u):
            // As CoreFoundation writes a UID: a dictionary of one CF$UID.
            try appendDictionary(
                isEmpty: false, CollectionOfOne((XMLReader.uidKey, PropertyList(.integer(Int128(u))))), indent: indent)
        case .array(let items):
            if items.isEmpty { literal("<array/>\n"); return }
            literal("<array>\n")
            for (i, item) in items.enumerated() {
                do throws(Failure) { try append(item, indent: indent + 1) } catch { throw error.at("[\(i)]") }
            }
            tabs(indent)
            literal("</array>\n")
        case .dictionary(let entries):
            try appendDictionary(isEmpty: entries.isEmpty, entries.sortedByKey().lazy.map { ($0.key, $0.value) }, indent: indent)
        }
    }

    /// Appends a dictionary whose entries, in the order written, are `sorted`.
    private mutating func appendDictionary<S: Sequence<(PropertyList.Key, PropertyList)>>(
        isEmpty: Bool, _ sorted: S, indent: Int
    ) throws(Failure) {
        if isEmpty { literal("<dict/>\n"); return }
        literal("<dict>\n")
        for (key, value) in sorted { try appendEntry(key, value, indent: indent) }
        tabs(indent)
        literal("</dict>\n")
    }

    /// Appends one entry of a dictionary written at `indent`.
    private mutating func appendEntry(_ key: PropertyList.Key, _ value: PropertyList, indent: Int) throws(Failure) {
        tabs(indent + 1)
        literal("<key>")
        do throws(Failure) {
            try Self.checkTextLength(key.string.utf8.count, "a key")
            try escaped(key.string, what: "key")
        } catch { throw error.at(".\(key.string.prefix(100))") }
        literal("</key>\n")
        do throws(Failure) { try append(value, indent: indent + 1) } catch { throw error.at(".\(key.string.prefix(100))") }
    }

    /// Appends `s` with `&`, `<`, `>` escaped and CR as `&#13;`; refuses
    /// characters XML 1.0 cannot carry rather than alter them.
    private mutating func escaped(_ s: String, what: String) throws(Failure) {
        var s = s
        let bad: Int? = s.withUTF8 { u -> Int? in
            var start = 0
            var i = 0
            let n = u.count
            while i < n {
                let c = u[i]
                var replacement: StaticString? = nil
                switch c {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case 0x0D: replacement = "&#13;"
                case 0x09, 0x0A: break
                case 0x00..<0x20: return i
                case 0xEF where i + 2 < n && u[i + 1] == 0xBF && (u[i + 2] == 0xBE || u[i + 2] == 0xBF): return i
                default: break
                }
                if let r = replacement {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i]))
                    literal(r)
                    start = i + 1
                }
                i += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<n]))
            return nil
        }
        if let at = bad {
            let scalar = s.utf8.dropFirst(at).prefix(3)
            let code: String
            if let c = scalar.first, c < 0x20 {
                let hex = String(c, radix: 16, uppercase: true)
                code = "U+" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                code = scalar.last == 0xBE ? "U+FFFE" : "U+FFFF"
            }
            throw Failure(
                base: PrefsError(.unrepresentable, "\(what) holds \(code) at byte \(at), which XML 1.0 cannot carry; write it in the binary format"),
                binaryOnly: true)
        }
    }
}
