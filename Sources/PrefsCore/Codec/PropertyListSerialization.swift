extension PropertyList {
    /// Parses a property list from bytes: a binary property list
    /// (`bplist00`), an XML property list (any encoding libxml2 knows) or
    /// old-style text, told apart by their first bytes.
    /// Strict and safe on hostile input; errors name the problem and line.
    /// Thread-safe.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        if BinaryReader.looksBinary(bytes) { return try BinaryReader.read(bytes) }
        if let utf8 = try utf32ToUTF8(bytes) {
            // libxml2 reads no UTF-32 here: the text goes on as UTF-8, its
            // declaration saying so.
            let result = utf8.withUnsafeBytes { b in
                Result { () throws(PrefsError) in
                    if looksLikeXML(b) {
                        let declared = declaringUTF8(b)
                        let read = declared.withUnsafeBytes { d in Result { () throws(PrefsError) in try XMLReader.read(d) } }
                        return try read.get()
                    }
                    return try OldStylePlist.parse(b)
                }
            }
            return try result.get()
        }
        if hasUTF16ByteOrderMark(bytes) {
            // XML in UTF-16 goes to libxml2, which knows the encoding;
            // anything else is old-style text or a .strings file.
            let utf8 = try OldStylePlist.utf16ToUTF8(bytes)
            let isXML = utf8.withUnsafeBytes { looksLikeXML($0) }
            if isXML { return try XMLReader.read(bytes) }
            let result = utf8.withUnsafeBytes { b in Result { () throws(PrefsError) in try OldStylePlist.parse(b) } }
            return try result.get()
        }
        if looksLikeXML(bytes) { return try XMLReader.read(bytes) }
        return try OldStylePlist.parse(bytes)
    }

    /// Parses a property list from `bytes`, as ``parse(_:)-swift.type.method``.
    public static func parse(_ bytes: [UInt8]) throws(PrefsError) -> PropertyList {
        let result = bytes.withUnsafeBytes { b in Result { () throws(PrefsError) in try parse(b) } }
        return try result.get()
    }

    /// The entries of `keys` of the dictionary an XML property list in
    /// `bytes` holds, and how many entries it lists, building no other
    /// value (see ``XMLReader/readEntries(_:only:)``); `nil` when the bytes
    /// are not such a document as ``parse(_:)-swift.type.method`` reads
    /// them, or it would fail or return something else: parse them then.
    package static func parseEntries(_ bytes: [UInt8], only keys: [String]) -> (values: PropertyListDictionary, count: Int)? {
        bytes.withUnsafeBytes { b in
            guard !BinaryReader.looksBinary(b), !hasUTF16ByteOrderMark(b), looksLikeXML(b) else { return nil }
            // UTF-32 is converted first (``parse(_:)-swift.type.method``): not here.
            do throws(PrefsError) {
                if try utf32ToUTF8(b) != nil { return nil }
            } catch {
                return nil
            }
            return XMLReader.readEntries(b, only: keys)
        }
    }

    /// The value as an XML property list, byte for byte as Apple's tools
    /// write it. Throws `.unrepresentable` for strings holding characters
    /// XML 1.0 cannot carry, for dates not finite or about a billion years
    /// away (dates are written as CoreFoundation writes them: proleptic
    /// Gregorian, a year 0, negative years), for a
    /// string, key or data element holding more text than the reader takes
    /// (``maxTextLength``) and for a document larger than
    /// ``maxDocumentSize``; and `.tooDeep` past ``maxNesting``: nothing is
    /// silently altered.
    public func xmlData() throws(PrefsError) -> [UInt8] {
        try XMLWriter.write(self)
    }

    /// Throws what writing `value` under `key` in a domain file would throw:
    /// the checks of ``xmlData()`` with the key, and with the indentation
    /// the file gives the value, except for what only the binary format
    /// carries (characters XML 1.0 cannot carry, dates XML cannot write),
    /// which makes the domain's file binary. A store refuses at set what it
    /// could never write at synchronize.
    package static func checkStorable(_ value: PropertyList, forKey key: String) throws(PrefsError) {
        if isPlainlyStorable(value, key) { return }
        _ = try XMLWriter.carries(PropertyList(.dictionary([Key(key): value])))
    }

    /// Whether writing `value` under the key whose UTF-8 is `key` surely
    /// succeeds, as ``checkStorable(_:forKey:)`` tells it without a trial
    /// write: when this is `false`, that check decides. A removal (`nil`)
    /// always succeeds.
    package static func isPlainlyStorable(_ value: PropertyList?, keyBytes key: UnsafeRawBufferPointer) -> Bool {
        guard let value else { return true }
        var budget = (1 << 20) - key.count - 32
        return isPlainText(key) && isPlain(value, depth: 1, &budget)
    }

    /// Whether writing `value` under `key` surely succeeds, told without
    /// writing it: numbers, booleans and strings of characters XML carries,
    /// alone or in shallow arrays and dictionaries, under a key of such
    /// characters, all short enough that no limit comes near. Sets of such
    /// values skip the trial write.
    private static func isPlainlyStorable(_ value: PropertyList, _ key: String) -> Bool {
        var budget = 1 << 20
        return isPlain(key, &budget) && isPlain(value, depth: 1, &budget)
    }

    /// Whether `value` is made only of numbers, booleans, and strings and
    /// keys of characters XML carries, nested at most a few levels (far
    /// from ``PropertyList/maxNesting``), all its text together within
    /// `budget` bytes (far from ``PropertyList/maxDocumentSize``). Anything
    /// else (data, dates, deeper or larger values) is left to the trial
    /// write, which knows every limit.
    private static func isPlain(_ value: PropertyList, depth: Int, _ budget: inout Int) -> Bool {
        switch value.value {
        case .integer, .real, .boolean:
            budget -= 32
            return budget >= 0
        case .string(let text): return isPlain(text, &budget)
        case .array(let items):
            guard depth < 8, items.count <= budget else { return false }
            for item in items where !isPlain(item, depth: depth + 1, &budget) { return false }
            return true
        case .dictionary(let entries):
            guard depth < 8, entries.count <= budget else { return false }
            for (k, item) in entries where !isPlain(k.string, &budget) || !isPlain(item, depth: depth + 1, &budget) {
                return false
            }
            return true
        default: return false
        }
    }

    /// Whether `text` is plain text (``isPlainText(_:)``) within `budget`
    /// bytes, which it spends (with some room for its markup).
    private static func isPlain(_ text: String, _ budget: inout Int) -> Bool {
        budget -= text.utf8.count + 32
        return budget >= 0 && isPlainText(text)
    }

    /// Whether `text` holds only characters XML 1.0 carries (no control
    /// character but tab, line feed and carriage return; no U+FFFE, U+FFFF).
    private static func isPlainText(_ text: String) -> Bool {
        // Native strings are read in place; others through a copy.
        if let plain = text.utf8.withContiguousStorageIfAvailable({ isPlainText(UnsafeRawBufferPointer($0)) }) { return plain }
        var text = text
        return text.withUTF8 { isPlainText(UnsafeRawBufferPointer($0)) }
    }

    /// ``isPlainText(_:)`` of UTF-8 bytes.
    private static func isPlainText(_ u: UnsafeRawBufferPointer) -> Bool {
        // Every set checks its key and string value here: through the
        // base pointer, without a bounds check per byte.
        guard let base = u.baseAddress else { return true }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let n = u.count
        var i = 0
        // Eight bytes at a time while none is below 0x20 or above 0x7F
        // (the usual ASCII text), the last word overlapping the one before
        // when the length is no multiple of 8; the first such word is
        // looked at byte by byte below. A word can only be flagged wrongly
        // after a byte that is flagged rightly.
        if n >= 8 {
            let last = n &- 8
            while true {
                let at = Swift.min(i, last)
                let w = UnsafeRawPointer(p + at).loadUnaligned(as: UInt64.self)
                let flagged = (w | ((w &- 0x2020_2020_2020_2020) & ~w)) & 0x8080_8080_8080_8080
                if flagged != 0 {
                    i = at
                    break
                }
                if at == last { return true }
                i &+= 8
            }
        }
        while i < n {
            let c = p[i]
            if c < 0x20 {
                if c != 0x09 && c != 0x0A && c != 0x0D { return false }
            } else if c == 0xEF && i + 2 < n && p[i + 1] == 0xBF && p[i + 2] >= 0xBE {
                return false
            }
            i &+= 1
        }
        return true
    }

    /// The UTF-8 of UTF-32 text that starts with its byte-order mark
    /// (`00 00 FE FF` or `FF FE 00 00`), as swift-foundation reads it;
    /// `nil` for other text; `.malformed` for a length that is not a
    /// multiple of four or a value that is not a Unicode scalar.
    static func utf32ToUTF8(_ b: UnsafeRawBufferPointer) throws(PrefsError) -> [UInt8]? {
        guard b.count >= 4 else { return nil }
        let big = b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF
        let little = b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0
        guard big || little else { return nil }
        guard b.count % 4 == 0 else { throw PrefsError(.malformed, "UTF-32 text of \(b.count) bytes, not a multiple of 4, at line 1") }
        var out = [UInt8]()
        out.reserveCapacity(b.count / 4)
        var line = 1
        var i = 4
        while i < b.count {
            let v =
                big
                ? UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
                : UInt32(b[i + 3]) << 24 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i])
            guard let scalar = Unicode.Scalar(v) else {
                throw PrefsError(.malformed, "UTF-32 text holds 0x\(String(v, radix: 16)), not a Unicode character, at line \(line)")
            }
            if v == 0x0A { line += 1 }
            out.append(contentsOf: UTF8.encode(scalar)!)
            i += 4
        }
        return out
    }

    /// XML text whose declaration (`<?xml ... encoding="..."?>`), if it
    /// names an encoding, names UTF-8: the text has been converted to it.
    static func declaringUTF8(_ b: UnsafeRawBufferPointer) -> [UInt8] {
        let text = Array(b)
        guard text.starts(with: Array("<?xml".utf8)),
            let end = text.indices.dropLast().first(where: { text[$0] == UInt8(ascii: "?") && text[$0 + 1] == UInt8(ascii: ">") })
        else { return text }
        let decl = Array(text[..<end])
        let key = Array("encoding".utf8)
        guard let at = decl.indices.first(where: { decl[$0...].starts(with: key) }) else { return text }
        var i = at + key.count
        while i < decl.count && (ScalarText.isSpace(decl[i]) || decl[i] == UInt8(ascii: "=")) { i += 1 }
        guard i < decl.count, decl[i] == 0x22 || decl[i] == 0x27, let close = decl[(i + 1)...].firstIndex(of: decl[i]) else {
            return text
        }
        return Array(text[...i]) + Array("UTF-8".utf8) + Array(text[close...])
    }

    /// Whether `b` starts with a UTF-16 byte-order mark, either way round.
    static func hasUTF16ByteOrderMark(_ b: UnsafeRawBufferPointer) -> Bool {
        b.count >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF))
    }

    /// XML when the first significant bytes are a BOM, `<?`, `<!`, or a tag
    /// name that is not all hex digits (`<0a1b>` is old-style data).
    static func looksLikeXML(_ b: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if b.count >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF)) { return true }
        if b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        while i < b.count && ScalarText.isSpace(b[i]) { i += 1 }
        guard i < b.count else { return true }  // empty: let the XML reader say so
        if b[i] == 0 || b[i] >= 0x80 { return true }  // UTF-16 without BOM, other encodings
        guard b[i] == UInt8(ascii: "<"), i + 1 < b.count else { return false }
        let c = b[i + 1]
        if c == UInt8(ascii: "?") || c == UInt8(ascii: "!") { return true }
        var j = i + 1
        var allHex = true
        while j < b.count, (b[j] | 0x20) >= UInt8(ascii: "a") && (b[j] | 0x20) <= UInt8(ascii: "z") || (b[j] >= UInt8(ascii: "0") && b[j] <= UInt8(ascii: "9"))
        {
            if !((b[j] | 0x20) >= UInt8(ascii: "a") && (b[j] | 0x20) <= UInt8(ascii: "f")) && !(b[j] >= UInt8(ascii: "0") && b[j] <= UInt8(ascii: "9")) {
                allHex = false
            }
            j += 1
        }
        return j > i + 1 && !allHex
    }
}
