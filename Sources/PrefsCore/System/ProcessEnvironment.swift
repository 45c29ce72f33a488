import CSystemShims
import Glibc

/// What this process may take from its environment. A setuid or setgid
/// program (the kernel's `AT_SECURE`) was given its environment by a caller
/// with fewer rights, so there every variable reads as unset, as with
/// `secure_getenv`, and the user is the effective one. Immutable; safe
/// from any thread.
enum ProcessEnvironment {
    /// Whether the process runs with rights its caller lacks.
    static let isSecure: Bool = prefs_process_is_secure() != 0

    /// The user whose preferences this process uses: the real user, or the
    /// effective one in a setuid or setgid process.
    static var user: uid_t { isSecure ? geteuid() : getuid() }

    /// The users whose symlinks and files a writer may go through: this
    /// process's effective user and root.
    static var trustedOwners: [uid_t] { [geteuid(), 0] }

    /// The value of environment variable `name`; `nil` when unset, empty,
    /// or when the process is secure.
    static func value(_ name: String) -> String? {
        guard !isSecure, let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// The name and home directory of user `uid` in the password database.
    /// The corresponding C function is `getpwuid_r`.
    static func account(_ uid: uid_t) -> (name: String, home: String)? {
        var size = 4096
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            var tooSmall = false
            let found = buffer.withUnsafeMutableBufferPointer { b -> (name: String, home: String)? in
                var entry = passwd()
                var result: UnsafeMutablePointer<passwd>? = nil
                let r = getpwuid_r(uid, &entry, b.baseAddress!, b.count, &result)
                tooSmall = r == ERANGE
                guard r == 0, result != nil, let name = entry.pw_name, let dir = entry.pw_dir else { return nil }
                return (String(cString: name), String(cString: dir))
            }
            if !tooSmall { return found }
            size *= 4
        }
        return nil
    }

    /// Whether `path` is an absolute path to a directory (not a symlink)
    /// owned by `uid` that no one else may write.
    static func isPrivateDirectory(_ path: String, of uid: uid_t) -> Bool {
        guard path.hasPrefix("/"), let st = try? SystemCall.lstat(path) else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR && st.st_uid == uid && (st.st_mode & 0o022) == 0
    }
}
