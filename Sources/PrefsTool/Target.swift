import Glibc
import PrefsCore

/// One stored domain as the command line names it: the store that holds it,
/// its ID there, and the name messages use.
struct Target {
    let store: PreferencesStore
    let id: DomainID
    /// As the user wrote it (`NSGlobalDomain` for the global domain's names).
    let name: String
    /// Whether the domain was named by a file path (a store of its own).
    var isFile = false

    /// The file the domain lives in.
    var file: String { store.locations.path(of: id) }

    /// Whether `word` names the global domain (`-g`, `-globalDomain`,
    /// `NSGlobalDomain`): compared directly, since a set of three names
    /// costs its one-time construction in every run of the command.
    static func isGlobalName(_ word: String) -> Bool {
        word == "-g" || word == "-globalDomain" || word == globalDomainName
    }

    /// The domain `word` names: a global-domain name, an absolute path to a
    /// plist file, or an application ID, for the current user and `host`.
    static func resolve(_ word: String, host: HostChoice) throws(Failure) -> Target {
        if isGlobalName(word) {
            return Target(
                store: .shared, id: DomainID(application: globalDomainName, user: .current, host: host.domainHost),
                name: globalDomainName)
        }
        if word.hasPrefix("/") {
            if host.given {
                throw .usage("\(host.flag) cannot be used with a file path (\(shown(word))): a file is one domain of its own")
            }
            return try file(word)
        }
        do throws(PrefsError) {
            let app = try PreferencesStore.canonicalApplication(word)
            return Target(store: .shared, id: DomainID(application: app, user: .current, host: host.domainHost), name: word)
        } catch {
            throw .refused("prefs: cannot use \(quoted(word)) as a domain: \(shown(error.message))")
        }
    }

    /// A plist file named by an absolute path, with or without `.plist`.
    ///
    /// The file is worked on by a store of its own whose user directory is
    /// the file's directory, so reads, the lock-and-merge write and the
    /// atomic replacement are the library's, exactly as for named domains.
    /// Its managed directory lies under `/dev/null`, where no file can be:
    /// a plist file has no managed values. The store makes no files of its
    /// own beside the plist file: its change counter is the user's runtime
    /// one.
    static func file(_ path: String) throws(Failure) -> Target {
        var base = path
        if base.hasSuffix(".plist") { base.removeLast(".plist".count) }
        guard let slash = base.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            throw .refused("prefs: \(quoted(path)) is not an absolute path")
        }
        let dir = slash == base.utf8.startIndex ? "/" : String(base[..<slash])
        let name = String(base[base.utf8.index(after: slash)...])
        if name == globalDomainName {
            throw .refused("prefs: cannot work on \(quoted(path)) directly: the library reserves the name \(globalDomainName) for the global domain")
        }
        if let problem = ApplicationID.problem(name) {
            throw .refused("prefs: cannot use \(quoted(path)) as a plist file: \(problem)")
        }
        // Locations.path(of:) joins "<directory>/<name>.plist": a file in
        // the root directory takes an empty directory.
        let directory = dir == "/" ? "" : dir
        let locations = Locations(
            userDirectory: directory, systemDirectory: directory,
            managedDirectory: "/dev/null", hostID: "localhost", userName: "",
            runtimeDirectory: Locations.fromEnvironment().runtimeDirectory,
            createsFilesBesideDomains: false)
        let store = PreferencesStore(locations: locations, arguments: [])
        store.disableSync()
        return Target(store: store, id: DomainID(application: name, user: .current, host: .any), name: path, isFile: true)
    }

    // MARK: Reading through the store

    /// The domain's values (those of `keys` only, when given); refused
    /// when its file does not parse or cannot be read (the file is left as
    /// it is). An application's own domain (current user, any host) shows
    /// its synced keys too, with their synced values: writes of them go to
    /// the sync folder, so reads, `read-type` and `watch` see them there.
    func values(keys: [String]? = nil) throws(Failure) -> PropertyListDictionary {
        do throws(PrefsError) {
            if let problem = try store.problem(in: id, keys: keys) { throw problem }
            return try storedValues(keys: keys)
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
    }

    /// The domain's values with its synced keys (see ``values(keys:)``),
    /// without checking the file first.
    func storedValues(keys: [String]? = nil) throws(PrefsError) -> PropertyListDictionary {
        var values = try store.values(in: id, keys: keys)
        if !isFile, id.user == .current, id.host == .any {
            for (k, v) in try store.syncedValues(application: id.application)
            where keys == nil || keys!.contains(k.string) {
                values[k] = v
            }
        }
        return values
    }

    /// The values of a domain that must exist (hold at least one key).
    func existingValues() throws(Failure) -> PropertyListDictionary {
        let v = try values()
        if v.isEmpty { throw .refused("Domain \(shown(name)) does not exist") }
        return v
    }

    // MARK: Writing through the store

    /// Applies `changes` as one change and writes the domain file at once.
    /// The store refuses the whole change (values XML cannot hold, managed
    /// keys) before anything is written.
    func apply(_ changes: [(String, PropertyList?)]) throws(Failure) {
        guard !changes.isEmpty else { return }
        do throws(PrefsError) {
            try store.set(changes, in: id)
            if let note = try store.synchronize(id) { Output.error.line("prefs: \(shown(note.message))") }
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
    }
}

extension Target {
    /// Removes the domain: its file goes away, so no program lists it.
    func remove() throws(Failure) {
        do throws(PrefsError) {
            try store.removeDomain(id)
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
    }
}

/// `-currentHost`, `-host <hostname>`, or neither.
struct HostChoice {
    var domainHost: DomainHost = .any
    /// The flag as given, for messages; empty when none was.
    var flag = ""
    var given: Bool { !flag.isEmpty }

    /// The library keeps ByHost domains for this machine only
    /// (`DomainHost.current`, as the C API takes `kPrefsCurrentHost` or
    /// this machine's host id): `-host` accepts this machine's host id (the
    /// first line of /etc/machine-id, else the host name) or its host name
    /// (`$(hostname)`, with or without its domain part) and refuses any
    /// other host.
    static func named(_ host: String) throws(Failure) -> HostChoice {
        let id = Locations.fromEnvironment().hostID
        var buffer = [CChar](repeating: 0, count: 256)
        let hostName =
            gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let shortName = hostName.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        guard host == id || (!hostName.isEmpty && (host == hostName || host == shortName)) else {
            throw .usage(
                "-host \(shown(host)): only this machine (host id \(id), host name \(hostName)) can be given; the library keeps no ByHost domains for other hosts"
            )
        }
        return HostChoice(domainHost: .current, flag: "-host")
    }
}
