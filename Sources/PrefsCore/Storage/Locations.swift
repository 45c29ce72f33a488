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
/// | any user | the same under `$PREFS_SYSTEM_DIR` (default `/usr/local/etc`) |
/// | managed | `$PREFS_MANAGED_DIR/<id>.plist`, `$PREFS_MANAGED_DIR/<user>/<id>.plist` (default `/etc/prefs/managed`) |
///
/// The global domain's `<id>` is `.GlobalPreferences`. The host id is the
/// first line of `/etc/machine-id`, or the host name when that is missing.
public struct Locations: Sendable {
    public let userDirectory: String
    public let systemDirectory: String
    public let managedDirectory: String
    public let hostID: String
    public let userName: String

    /// The default directory of managed (forced) preferences.
    public static let defaultManagedDirectory = "/etc/prefs/managed"

    /// Locations from this process's environment.
    public static func fromEnvironment() -> Locations {
        func env(_ name: String) -> String? {
            guard let v = getenv(name) else { return nil }
            let s = String(cString: v)
            return s.isEmpty ? nil : s
        }
        let pw = getpwuid(getuid())
        let home = env("HOME") ?? pw.flatMap { $0.pointee.pw_dir.map { String(cString: $0) } } ?? "/"
        var config = env("XDG_CONFIG_HOME") ?? ""
        if !config.hasPrefix("/") { config = home + "/.config" }
        var system = env("PREFS_SYSTEM_DIR") ?? "/usr/local/etc"
        if !system.hasPrefix("/") { system = "/usr/local/etc" }
        var managed = env("PREFS_MANAGED_DIR") ?? defaultManagedDirectory
        if !managed.hasPrefix("/") { managed = defaultManagedDirectory }
        let user = pw.flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? env("USER") ?? String(getuid())
        return Locations(userDirectory: config, systemDirectory: system, managedDirectory: managed,
                         hostID: readHostID(), userName: user)
    }

    public init(userDirectory: String, systemDirectory: String, managedDirectory: String, hostID: String, userName: String) {
        self.userDirectory = userDirectory
        self.systemDirectory = systemDirectory
        self.managedDirectory = managedDirectory
        self.hostID = hostID
        self.userName = userName
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
    public func fits(_ id: DomainID) -> Bool {
        id.host == .any || id.application.utf8.count + hostID.utf8.count + 7 <= ApplicationID.maxFileNameLength
    }

    /// The managed files of an application: the user's, then everyone's.
    public func managedPaths(of application: String) -> [String] {
        let name = application == globalDomainName ? globalDomainFileName : application
        return ["\(managedDirectory)/\(userName)/\(name).plist", "\(managedDirectory)/\(name).plist"]
    }
}

/// Application IDs as files can hold them.
public enum ApplicationID {
    /// The longest file name a directory entry holds.
    static let maxFileNameLength = 255
    /// The longest application ID: its file name, `<id>.plist`, must fit.
    public static let maxLength = maxFileNameLength - 6

    /// `nil` when `id` can name a domain file; otherwise why not. Refused:
    /// empty, longer than ``maxLength`` (249) bytes, containing `/` or NUL,
    /// `.` or `..`.
    public static func problem(_ id: String) -> String? {
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
    public static var current: String {
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
