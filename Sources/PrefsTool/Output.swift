import Glibc
import PrefsCore

/// Buffered writing to a file descriptor, without stdio or Foundation.
///
/// Not thread-safe: only the thread running `prefs_tool_main` uses it (the
/// library's own threads, such as observer delivery in `watch`, never do).
final class Output {
    nonisolated(unsafe) static let standard = Output(fd: 1)
    nonisolated(unsafe) static let error = Output(fd: 2)

    let fd: Int32
    private var buffer: [UInt8] = []
    /// The `errno` of the first write that failed (a full disk, a closed
    /// pipe, a closed descriptor); 0 while every write succeeded. Later
    /// writes are not attempted.
    private(set) var failure: Int32 = 0

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(4096)
    }

    /// Whether the descriptor is a terminal.
    lazy var isTerminal: Bool = isatty(fd) == 1

    /// Appends text for people: every character of the terminal rule
    /// (``TerminalText``) is escaped, newlines and tabs kept.
    func write(_ s: String) {
        raw(TerminalText.escaped(s, keepingLayout: true))
    }

    /// ``write(_:)`` and a newline.
    func line(_ s: String) {
        write(s)
        buffer.append(0x0A)
    }

    /// Appends `s` exactly as it is: only for output that programs read
    /// (see ``data(_:)``).
    func raw(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 65536 { flush() }
    }

    /// A value or a file's text that scripts read (`read D K`, `convert
    /// -p`, generated code, XML): exactly as it is when the descriptor is
    /// not a terminal, and escaped as ``write(_:)`` escapes when it is one.
    func data(_ s: String) {
        if isTerminal { write(s) } else { raw(s) }
    }

    func write(bytes: [UInt8]) {
        flush()
        send(bytes)
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        send(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func send(_ bytes: [UInt8]) {
        guard failure == 0, !bytes.isEmpty else { return }
        do { try FileSystem.writeAll(fd, bytes) } catch { failure = error.rawValue == 0 ? EIO : error.rawValue }
    }

    /// Flushes, and says whether everything written reached the descriptor.
    /// A regular file's data may still fail to reach the disk later (the
    /// command does not `fsync` standard output), but a full disk, a closed
    /// pipe or a closed descriptor is seen here.
    func finish() -> Bool {
        flush()
        return failure == 0
    }
}

/// Why a command stopped: the message for stderr and the exit status.
struct Failure: Error {
    /// 1: the thing asked for is absent or was refused; 64: usage error.
    let status: Int32
    /// Lines for stderr, as they are printed.
    let message: String

    static let usageStatus: Int32 = 64

    /// The thing asked for is absent, or was refused: exit 1. `message` is
    /// printed exactly as given.
    static func refused(_ message: String) -> Failure { Failure(status: 1, message: message) }

    /// A value `write` cannot take (a type flag without value, a bad
    /// number, a key without value...): refused, exit 1.
    static func unusable(_ message: String) -> Failure {
        refused("prefs: \(message); nothing was changed")
    }

    /// A command line the grammar cannot take: exit 64, with a pointer to
    /// the usage text.
    static func usage(_ message: String) -> Failure {
        Failure(status: usageStatus, message: "prefs: \(message)\nRun 'prefs help' for usage.")
    }

    func report() {
        Output.error.line(message)
        Output.error.flush()
    }
}

/// Quoting for messages: `'text'`, every character of the terminal rule
/// escaped, newlines included (a quoted name cannot forge a line).
func quoted(_ s: String) -> String { "'\(TerminalText.escaped(s))'" }

/// A key, value, name or path as a message or a listing shows it: escaped
/// by the terminal rule, newlines included.
func shown(_ s: String) -> String { TerminalText.escaped(s) }

/// A value as a one-line listing shows it: a string escaped whole (as
/// ``shown(_:)``), anything else in its old-style text form (which escapes
/// its strings and keys already).
func shown(_ v: PropertyList) -> String {
    if case .string(let s) = v.value { return TerminalText.escaped(s) }
    return OldStylePlist.formatBare(v)
}
