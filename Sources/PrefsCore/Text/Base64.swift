/// Standard base64 (RFC 4648 alphabet, `=` padding), as `<data>` holds it.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0...63 for alphabet bytes, 64 for `=`, 0xFE for whitespace, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "="))] = 64
        for c in [0x20, 0x09, 0x0A, 0x0D] { t[c] = 0xFE }
        return t
    }()

    /// Decodes base64 that may hold whitespace anywhere. What remains must be
    /// a multiple of four characters with correct padding (only at the end).
    /// `nil` for anything else.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // Every four symbols give three bytes at most: written in place,
        // without a capacity check per byte.
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3) { buffer, written in
            decodeTable.withUnsafeBufferPointer { table in
                var o = 0
                var quad: UInt32 = 0
                var n = 0  // symbols in the current quad
                var padding = 0
                var i = 0
                while i < text.count {
                    // Whole quads of plain symbols, the bulk of any data,
                    // four at a time; anything else (a line break, padding,
                    // a bad byte) goes through the rest of this loop one
                    // symbol at a time.
                    if n == 0 && padding == 0 {
                        while i + 4 <= text.count {
                            let a = table[Int(text[i])], b = table[Int(text[i + 1])]
                            let c = table[Int(text[i + 2])], d = table[Int(text[i + 3])]
                            guard (a | b | c | d) < 64 else { break }
                            let q = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            buffer[o] = UInt8(truncatingIfNeeded: q >> 16)
                            buffer[o + 1] = UInt8(truncatingIfNeeded: q >> 8)
                            buffer[o + 2] = UInt8(truncatingIfNeeded: q)
                            o += 3
                            i += 4
                        }
                        if i >= text.count { break }
                    }
                    let c = text[i]
                    i += 1
                    let v = table[Int(c)]
                    if v == 0xFE { continue }
                    if v == 0xFF { valid = false; break }
                    if v == 64 {
                        // `=` only in the last two places of a quad.
                        guard n >= 2 else { valid = false; break }
                        padding += 1
                        n += 1
                        if n == 4 {
                            buffer[o] = UInt8(truncatingIfNeeded: quad >> (padding == 1 ? 10 : 4))
                            o += 1
                            if padding == 1 {
                                buffer[o] = UInt8(truncatingIfNeeded: quad >> 2)
                                o += 1
                            }
                            n = 0
                        }
                        continue
                    }
                    guard padding == 0 else { valid = false; break }  // data after padding
                    quad = quad << 6 | UInt32(v)
                    n += 1
                    if n == 4 {
                        buffer[o] = UInt8(truncatingIfNeeded: quad >> 16)
                        buffer[o + 1] = UInt8(truncatingIfNeeded: quad >> 8)
                        buffer[o + 2] = UInt8(truncatingIfNeeded: quad)
                        o += 3
                        quad = 0
                        n = 0
                    }
                }
                if n != 0 { valid = false }
                written = o
            }
        }
        return valid ? out : nil
    }

    /// Appends the encoding of `bytes` the way Apple's XML writer lays it
    /// out: each line starts with `indent` tabs (at most 8) and holds
    /// 76 - 8 * indent characters at most.
    static func appendWrapped(_ bytes: [UInt8], indent: Int, to out: inout [UInt8]) {
        let tabs = min(indent, 8)
        let lineLength = 76 - 8 * tabs
        var column = 0
        func startLineIfNeeded(_ out: inout [UInt8]) {
            if column == 0 { for _ in 0..<tabs { out.append(0x09) } }
        }
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i < b.count {
                let a0 = UInt32(b[i])
                let a1 = i + 1 < b.count ? UInt32(b[i + 1]) : 0
                let a2 = i + 2 < b.count ? UInt32(b[i + 2]) : 0
                let triple = a0 << 16 | a1 << 8 | a2
                startLineIfNeeded(&out)
                out.append(alphabet[Int(triple >> 18 & 63)])
                out.append(alphabet[Int(triple >> 12 & 63)])
                out.append(i + 1 < b.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
                out.append(i + 2 < b.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
                column += 4
                i += 3
                if column >= lineLength {
                    out.append(0x0A)
                    column = 0
                }
            }
        }
        if column > 0 { out.append(0x0A) }
    }
}
