extension PropertyList {
    /// Parses a property list from bytes: a binary property list
    /// (`bplist00`), an XML property list (any encoding libxml2 knows) or
    /// old-style text, told apart by their first bytes.
    /// Strict and safe on hostile input; errors name the problem and line.
    /// Thread-safe.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        if BinaryReader.looksBinary(bytes) { return try BinaryReader.read(bytes) }
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

    /// Whether writing `value` under `key` surely succeeds, told without
    /// writing it: a number or a boolean, or a string of characters XML
    /// carries, under a key of such characters, both short enough that no
    /// limit comes near. Sets of such values skip the trial write.
    private static func isPlainlyStorable(_ value: PropertyList, _ key: String) -> Bool {
        let limit = 1 << 20
        guard key.utf8.count <= limit, isPlainText(key) else { return false }
        switch value.value {
        case .integer, .real, .boolean: return true
        case .string(let text): return text.utf8.count <= limit && isPlainText(text)
        default: return false
        }
    }

    /// Whether `text` holds only characters XML 1.0 carries (no control
    /// character but tab, line feed and carriage return; no U+FFFE, U+FFFF).
    private static func isPlainText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { u in
            var i = 0
            while i < u.count {
                let c = u[i]
                if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { return false }
                if c == 0xEF && i + 2 < u.count && u[i + 1] == 0xBF && u[i + 2] >= 0xBE { return false }
                i += 1
            }
            return true
        }
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
