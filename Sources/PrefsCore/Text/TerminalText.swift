/// The one rule for text that reaches a terminal: what the `prefs` command
/// and `prefs ui` print for people (listings, `explain`, `schema show`,
/// every message) passes through ``TerminalText/escaped(_:keepingLayout:)``,
/// so that no key, value, file name or identifier can move the cursor,
/// clear the screen, set the window title, hide text behind a carriage
/// return or reverse the order in which the text is shown.
///
/// Escaped, in the old-style property-list form (`\n`, `\t`, `\Uxxxx`, four
/// lower-case hex digits), which is also how `prefs read` prints a quoted
/// string:
///
/// - the C0 controls U+0000...U+001F and DEL U+007F;
/// - the C1 controls U+0080...U+009F (U+009B is a one-character CSI);
/// - the text-direction marks, embeddings, overrides and isolates: U+061C,
///   U+200E, U+200F, U+202A...U+202E, U+2066...U+2069.
///
/// Everything else, backslashes included, is shown as it is: the escapes
/// are for the eye, not to be parsed back.
package enum TerminalText {
    /// Whether `scalar` is escaped by the rule.
    @inline(__always)
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `text` with every character of the rule escaped. With
    /// `keepingLayout`, newlines and tabs are left as they are (for text
    /// laid out in lines by the program itself: a listing, a message, XML);
    /// a single key, value, file name or identifier quoted in such text is
    /// escaped whole first, so that it cannot forge a line.
    package static func escaped(_ text: String, keepingLayout: Bool = false) -> String {
        if !text.unicodeScalars.contains(where: { isUnsafe($0) && !(keepingLayout && ($0 == "\n" || $0 == "\t")) }) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar), !(keepingLayout && (scalar == "\n" || scalar == "\t")) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out.append("\\n")
            case "\t": out.append("\\t")
            default:
                let h = String(scalar.value, radix: 16)
                out.append("\\U" + String(repeating: "0", count: 4 - h.utf8.count) + h)
            }
        }
        return out
    }
}
