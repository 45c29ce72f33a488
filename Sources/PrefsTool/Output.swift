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

    func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 65536 { flush() }
    }

    func line(_ s: String) {
        write(s)
        buffer.append(0x0A)
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
        if !FileSystem.writeAll(fd, bytes) { failure = errno == 0 ? EIO : errno }
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

/// Quoting for messages: `'text'`.
func quoted(_ s: String) -> String { "'\(s)'" }
