import CProcessHooks
import Glibc

/// Application IDs as files can hold them.
package enum ApplicationID {
    /// The longest file name a directory entry holds.
    static let maxFileNameLength = 255
    /// The longest application ID: its file name, `<id>.plist`, must fit.
    package static let maxLength = maxFileNameLength - 6

    /// `nil` when `id` can name a domain file; otherwise why not. Refused:
    /// empty, longer than ``maxLength`` (249) bytes, containing `/` or NUL,
    /// `.` or `..`.
    package static func problem(_ id: String) -> String? {
        var id = id
        let (count, slash, nul) = id.withUTF8 { u -> (Int, Bool, Bool) in
            guard let base = u.baseAddress, u.count > 0 else { return (0, false, false) }
            return (u.count, memchr(base, Int32(UInt8(ascii: "/")), u.count) != nil, memchr(base, 0, u.count) != nil)
        }
        if count == 0 { return "an application ID may not be empty" }
        if count > maxLength { return "application ID \"\(id.prefix(40))...\" is longer than \(maxLength) bytes (its file name would not fit)" }
        if slash { return "application ID \"\(id)\" contains '/'" }
        if nul { return "application ID contains a NUL byte" }
        if count <= 2 && (id == "." || id == "..") { return "application ID \"\(id)\" names a directory" }
        return nil
    }

    /// The process's own name: the last path component of `argv[0]`, as
    /// Foundation's `UserDefaults.standard` takes it on Linux. Found at
    /// first use, under the lock `fork` waits for.
    package static var current: String {
        prefs_init_lock()
        defer { prefs_init_unlock() }
        return currentName
    }

    private static let currentName: String = {
        let args = ProcessArguments.current
        let name = args.first.map { FileSystem.lastComponent(of: $0) } ?? ""
        return problem(name) == nil ? name : "unknown-process"
    }()
}

/// The command line of this process, from `/proc/self/cmdline`, read at
/// first use under the lock `fork` waits for.
enum ProcessArguments {
    static var current: [String] {
        prefs_init_lock()
        defer { prefs_init_unlock() }
        return arguments
    }

    private static let arguments: [String] = {
        guard let (bytes, _) = (try? FileSystem.read("/proc/self/cmdline")) ?? nil else { return [] }
        var args = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if args.last == "" { args.removeLast() }
        return args
    }()
}
