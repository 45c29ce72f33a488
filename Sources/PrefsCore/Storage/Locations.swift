import Glibc

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
/// In a setuid or setgid process (see `ProcessEnvironment`) the
/// environment is ignored: the user is the effective user, found in the
/// password database, and every directory has its default.
package struct Locations: Sendable {
    package let userDirectory: String
    package let systemDirectory: String
    package let managedDirectory: String
    package let hostID: String
    package let userName: String
    /// The user's runtime directory (`$XDG_RUNTIME_DIR`, else
    /// `/run/user/<uid>`), where the user directory's change counter lives;
    /// `nil` when there is none that only this user can write.
    package let runtimeDirectory: String?
    /// Whether the store may make its own files (change counters) in the
    /// preference directories when it writes there. `false` for a domain
    /// named by a file path, which gets no library files beside it.
    package let createsFilesBesideDomains: Bool
    /// Where binary caches of the user's domain files live
    /// (`$XDG_CACHE_HOME/prefs`, `$HOME/.cache/prefs` when unset or
    /// relative); `nil` for none, as in a setuid or setgid process.
    package let indexDirectory: String?
    /// The directories searched, in order, for installed schemas
    /// (`<dir>/<id>.plist`); empty for a store that reads none.
    package let schemaDirectories: [String]

    /// The default directory of managed (forced) preferences.
    package static let defaultManagedDirectory = "/etc/prefs/managed"
    /// The default directory of any-user (system-wide) preferences:
    /// Foundation's `/usr/local/etc` on Linux, or `/etc` in a build for a
    /// distribution's `/usr` (the compilation condition
    /// `PREFS_SYSTEM_DIR_ETC`, which the Debian packages set), where
    /// nothing may live under `/usr/local`.
    #if PREFS_SYSTEM_DIR_ETC
        package static let defaultSystemDirectory = "/etc"
    #else
        package static let defaultSystemDirectory = "/usr/local/etc"
    #endif

    /// Locations from this process's environment.
    package static func fromEnvironment() -> Locations {
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
    /// first write there (see `ChangeCounter`). Without
    /// `schemaDirectories`, the store reads no installed schema.
    package init(
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
    package func path(of id: DomainID) -> String {
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
    package func schemaPaths(of application: String) -> [String] {
        schemaDirectories.map { "\($0)/\(application).plist" }
    }

    /// The managed layers of an application, the first found winning: the
    /// user's drop-in directory (`<user>/<id>.d`, whose `*.plist` files are
    /// merged in the byte order of their names, a later file winning), the
    /// user's `<id>.plist`, then everyone's `<id>.d` and `<id>.plist`.
    /// A path ending in ``dropInSuffix`` is a drop-in directory.
    package func managedPaths(of application: String) -> [String] {
        let name = application == globalDomainName ? globalDomainFileName : application
        let user = "\(managedDirectory)/\(userName)/\(name)", everyone = "\(managedDirectory)/\(name)"
        return [user + Locations.dropInSuffix, user + ".plist", everyone + Locations.dropInSuffix, everyone + ".plist"]
    }

    /// The suffix of a managed drop-in directory (`<id>.d`).
    package static let dropInSuffix = ".d"

    /// The drop-in directory of `application`'s managed domain, for
    /// everyone (`user` nil) or for one user.
    package func dropInDirectory(of application: String, user: String? = nil) -> String {
        let name = application == globalDomainName ? globalDomainFileName : application
        return "\(managedDirectory)/\(user.map { $0 + "/" } ?? "")\(name)\(Locations.dropInSuffix)"
    }
}
