import Glibc
import PrefsCore

/// The terminal rule (``TerminalText``) for `prefs ui`, a C program: the
/// first `length` bytes of `text` (UTF-8; invalid sequences shown as
/// U+FFFD) with every C0 and C1 control, DEL and text-direction mark,
/// embedding, override and isolate escaped (`\n`, `\t`, `\Uxxxx`), as a new
/// NUL-terminated string. So the command and the terminal view escape by
/// one rule, in one place.
///
/// Private, like `prefs_tool_main`: declared in no installed header,
/// exported under `LIBPREFS_PRIVATE` for the programs built from the same
/// source.
///
/// Ownership: `text` is borrowed for the call; the result is `malloc`ed and
/// the caller's, to release with `PrefsFree` (or `free`); `NULL` when
/// memory runs out.
///
/// Thread safety: none needed; it keeps no state.
@c(prefs_tool_escape)
public func prefsToolEscape(_ text: UnsafePointer<CChar>?, _ length: Int) -> UnsafeMutablePointer<CChar>? {
    let s: String
    if let text, length > 0 {
        s = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    } else {
        s = ""
    }
    var escaped = TerminalText.escaped(s)
    return escaped.withUTF8 { u in
        guard let p = malloc(u.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        if u.count > 0 { memcpy(p, u.baseAddress!, u.count) }
        p[u.count] = 0
        return p
    }
}
