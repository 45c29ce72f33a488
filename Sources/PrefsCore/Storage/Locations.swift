import CSystemShims
import CProcessHooks
import Glibc

/// Who a domain belongs to.
public enum DomainUser: Hashable, Sendable {
    /// The user running the process (`kPrefsCurrentUser`).
    case current
    /// Every user of the machine (`kPrefsAnyUser`).
    case any
}

/// Which machine a domain applies to.
public enum DomainHost: Hashable, Sendable {
    /// This machine only (`kPrefsCurrentHost`), keyed by `/etc/machine-id`.
    case current
    /// Every machine (`kPrefsAnyHost`).
    case any
}

/// One stored domain: an application (or the global domain) for a user and
/// a host.
public struct DomainID: Hashable, Sendable, CustomStringConvertible {
    /// A validated application ID; ``globalDomainName`` for the global domain.
    public let application: String
    public let user: DomainUser
    public let host: DomainHost

    public init(application: String, user: DomainUser, host: DomainHost) {
        self.application = application
        self.user = user
        self.host = host
    }

    public var description: String {
        "\(application) (\(user == .current ? "current user" : "any user"), \(host == .current ? "current host" : "any host"))"
    }
}

/// The name the global domain is stored under, as on macOS.
public let globalDomainFileName = ".GlobalPreferences"
/// The name programs use for the global domain.
public let globalDomainName = "NSGlobalDomain"

/// Where domains live, read once from the environment:
///
/// | domain | file |
/// |---|---|
/// | current user, any host | `$XDG_CONFIG_HOME/<id>.plist` (`$HOME/.config` when unset or relative) |
/// | current user, current host | `$XDG_CONFIG_HOME/ByHost/<id>.<host-id>.plist` |
/// | any user | the same under `$PREFS_SYSTEM_DIR` (default `/usr/local/etc`; `/etc` in the Debian packages) |
/// | managed | `$PREFS_MANAGED_DIR/<id>.plist`, `$PREFS_MANAGED_DIR/<user>/<id>.plist` (default `/etc/prefs/managed`), and the `*.plist` files of `<id>.d/` beside each |
///
/// An application's installed schema is `<dir>/<id>.plist` in the first of
/// ``schemaDirectories`` that has one: `$XDG_DATA_HOME/prefs/schemas`
/// (`$HOME/.local/share` when unset or relative), then
/// `<dir>/prefs/schemas` for each absolute `<dir>` of `$XDG_DATA_DIRS`
/// (`/usr/local/share:/usr/share` when unset).
///
/// The global domain's `<id>` is `.GlobalPreferences`. The host id is the
/// first line of `/etc/machine-id`, or the host name when that is missing.
/// In a setuid or setgid process (see ``ProcessEnvironment``) the
/// environment is ignored: the user is the effective user, found in the
/// password database, and every directory has its default.
public struct Locations: Sendable {
    public let userDirectory: String
    public let systemDirectory: String
    public let managedDirectory: String
    public let hostID: String
    public let userName: String
    /// The user's runtime directory (`$XDG_RUNTIME_DIR`, else
    /// `/run/user/<uid>`), where the user directory's change counter lives;
    /// `nil` when there is none that only this user can write.
    public let runtimeDirectory: String?
    /// Whether the store may make its own files (change counters) in the
    /// preference directories when it writes there. `false` for a domain
    /// named by a file path, which gets no library files beside it.
    public let createsFilesBesideDomains: Bool
    /// Where binary caches of the user's domain files live
    /// (`$XDG_CACHE_HOME/prefs`, `$HOME/.cache/prefs` when unset or
    /// relative); `nil` for none, as in a setuid or setgid process.
    public let indexDirectory: String?
    /// The directories searched, in order, for installed schemas
    /// (`<dir>/<id>.plist`); empty for a store that reads none.
    public let schemaDirectories: [String]

    /// The default directory of managed (forced) preferences.
    public static let defaultManagedDirectory = "/etc/prefs/managed"
    /// The default directory of any-user (system-wide) preferences:
    /// Foundation's `/usr/local/etc` on Linux, or `/etc` in a build for a
    /// distribution's `/usr` (the compilation condition
    /// `PREFS_SYSTEM_DIR_ETC`, which the Debian packages set), where
    /// nothing may live under `/usr/local`.
    #if PREFS_SYSTEM_DIR_ETC
        public static let defaultSystemDirectory = "/etc"
    #else
        public static let defaultSystemDirectory = "/usr/local/etc"
    #endif

    /// Locations from this process's environment.
    public static func fromEnvironment() -> Locations {
        let env = ProcessEnvironment.value
        let uid = ProcessEnvironment.user
        let account = ProcessEnvironment.account(uid)
        let home = env("HOME") ?? account?.home ?? "/"
        var config = env("XDG_CONFIG_HOME") ?? ""
        if !config.hasPrefix("/") { config = home + "/.config" }
        var system = env("PREFS_SYSTEM_DIR") ?? defaultSystemDirectory
        if !system.hasPrefix("/") { system = defaultSystemDirectory }
        var managed = env("PREFS_MANAGED_DIR") ?? defaultManagedDirectory
        if !managed.hasPrefix("/") { managed = defaultManagedDirectory }
        let user = account?.name ?? env("USER") ?? String(uid)
        var cache = env("XDG_CACHE_HOME") ?? ""
        if !cache.hasPrefix("/") { cache = home + "/.cache" }
        let runtime = [env("XDG_RUNTIME_DIR"), "/run/user/\(uid)"].lazy.compactMap { $0 }
            .first { ProcessEnvironment.isPrivateDirectory($0, of: uid) }
        var dataHome = env("XDG_DATA_HOME") ?? ""
        if !dataHome.hasPrefix("/") { dataHome = home + "/.local/share" }
        let dataDirs = (env("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        return Locations(
            userDirectory: config, systemDirectory: system, managedDirectory: managed,
            hostID: readHostID(), userName: user, runtimeDirectory: runtime,
            indexDirectory: ProcessEnvironment.isSecure ? nil : cache + "/prefs",
            schemaDirectories: ([dataHome] + dataDirs).map { $0 + "/prefs/schemas" })
    }

    /// Locations given one by one. Without `runtimeDirectory`, the user
    /// directory's change counter is a file in that directory, made by the
    /// first write there (see ``ChangeCounter``). Without
    /// `schemaDirectories`, the store reads no installed schema.
    public init(
        userDirectory: String, systemDirectory: String, managedDirectory: String, hostID: String, userName: String,
        runtimeDirectory: String? = nil, createsFilesBesideDomains: Bool = true, indexDirectory: String? = nil,
        schemaDirectories: [String] = []
    ) {
        self.indexDirectory = indexDirectory
        self.schemaDirectories = schemaDirectories
        self.userDirectory = userDirectory
        self.systemDirectory = systemDirectory
        self.managedDirectory = managedDirectory
        self.hostID = hostID
        self.userName = userName
        self.runtimeDirectory = runtimeDirectory
        self.createsFilesBesideDomains = createsFilesBesideDomains
    }

    /// Whether `path` is a file of every user (any-user or managed), which
    /// is written readable by all, rather than of the current user.
    func isShared(_ path: String) -> Bool {
        !path.hasPrefix(userDirectory + "/")
    }

    /// The index of the domain file at `path`: only the user's own domain
    /// files get one (see ``DomainIndex``).
    func index(of path: String) -> DomainIndex? {
        guard let indexDirectory, !isShared(path) else { return nil }
        return DomainIndex(domainPath: path, directory: indexDirectory)
    }

    static func readHostID() -> String {
        if let (bytes, _) = (try? FileSystem.read("/etc/machine-id")) ?? nil {
            let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 }
            if !line.isEmpty, line.allSatisfy({ OldStylePlist.isBareCharacter($0) }) {
                return String(decoding: line, as: UTF8.self)
            }
        }
        var name = [CChar](repeating: 0, count: 256)
        if gethostname(&name, 255) == 0 {
            let h = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !h.isEmpty && !h.contains("/") { return h }
        }
        return "localhost"
    }

    /// The file of a stored domain.
    public func path(of id: DomainID) -> String {
        let base = id.user == .current ? userDirectory : systemDirectory
        let name = id.application == globalDomainName ? globalDomainFileName : id.application
        switch id.host {
        case .any: return "\(base)/\(name).plist"
        case .current: return "\(base)/ByHost/\(name).\(hostID).plist"
        }
    }

    /// Whether the file name of `id` fits in a directory entry (255 bytes);
    /// application IDs are checked for the any-host name already.
    package func fits(_ id: DomainID) -> Bool {
        id.host == .any || id.application.utf8.count + hostID.utf8.count + 7 <= ApplicationID.maxFileNameLength
    }

    /// The files that may hold `application`'s installed schema, in the
    /// order they are searched (the first that exists is the schema).
    public func schemaPaths(of application: String) -> [String] {
        schemaDirectories.map { "\($0)/\(application).plist" }
    }

    /// The managed layers of an application, the first found winning: the
    /// user's drop-in directory (`<user>/<id>.d`, whose `*.plist` files are
    /// merged in the byte order of their names, a later file winning), the
    /// user's `<id>.plist`, then everyone's `<id>.d` and `<id>.plist`.
    /// A path ending in ``dropInSuffix`` is a drop-in directory.
    public func managedPaths(of application: String) -> [String] {
        let name = application == globalDomainName ? globalDomainFileName : application
        let user = "\(managedDirectory)/\(userName)/\(name)", everyone = "\(managedDirectory)/\(name)"
        return [user + Locations.dropInSuffix, user + ".plist", everyone + Locations.dropInSuffix, everyone + ".plist"]
    }

    /// The suffix of a managed drop-in directory (`<id>.d`).
    public static let dropInSuffix = ".d"

    /// The drop-in directory of `application`'s managed domain, for
    /// everyone (`user` nil) or for one user.
    public func dropInDirectory(of application: String, user: String? = nil) -> String {
        let name = application == globalDomainName ? globalDomainFileName : application
        return "\(managedDirectory)/\(user.map { $0 + "/" } ?? "")\(name)\(Locations.dropInSuffix)"
    }
}

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
