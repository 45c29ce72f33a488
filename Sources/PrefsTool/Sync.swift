import Glibc
import PrefsCore

/// `prefs sync folder|add|remove|status`: the sync folder, which keys
/// sync, and what the folder holds. Text from the folder (machine names,
/// keys, values, problems) is printed through the old-style formatter,
/// which quotes and escapes control characters.
enum Sync {
    static let usage =
        "usage: prefs sync folder [<path>] | sync add <domain> <key>... | sync remove <domain> <key>... | sync status [<domain>]"

    static func run(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        if host.given { throw .usage("sync works on synced keys, which have no host: -currentHost and -host do not apply") }
        guard let sub = args.first else { throw .usage(usage) }
        let rest = args.dropFirst()
        switch sub {
        case "folder":
            guard rest.count <= 1 else { throw .usage(usage) }
            if let path = rest.first { try setFolder(path) } else { showFolder() }
        case "add", "remove":
            guard rest.count >= 2 else { throw .usage(usage) }
            try declare(sub == "add", rest.first!, Array(rest.dropFirst()))
        case "status":
            guard rest.count <= 1 else { throw .usage(usage) }
            try status(rest.first)
        default:
            throw .usage("unknown sync command \(quoted(sub))\n" + usage)
        }
    }

    private static var configDirectory: String { PreferencesStore.shared.locations.userDirectory }

    private static func showFolder() {
        Output.standard.line(shown(SyncSettings.folder(configDirectory: configDirectory)))
    }

    private static func setFolder(_ given: String) throws(Failure) {
        guard !given.isEmpty else { throw .usage("the sync folder cannot be an empty path") }
        var path = given
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else { throw .refused("prefs: cannot find the current directory") }
            path = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
        }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        do throws(PrefsError) {
            try SyncSettings.setFolder(path, configDirectory)
        } catch {
            throw .refused("prefs: \(shown(error.message)); nothing was changed")
        }
        if let env = getenv("PREFS_SYNC_DIR"), env.pointee != 0 {
            Output.error.line("prefs: note: PREFS_SYNC_DIR is set and takes precedence over the folder chosen here")
            Output.error.flush()
        }
    }

    private static func application(_ word: String) throws(Failure) -> String {
        if word.hasPrefix("/") { throw .usage("sync needs an application ID, not a file path") }
        do throws(PrefsError) {
            return try PreferencesStore.canonicalApplication(Target.isGlobalName(word) ? globalDomainName : word)
        } catch {
            throw .refused("prefs: cannot use \(quoted(word)) as a domain: \(shown(error.message))")
        }
    }

    private static func declare(_ synced: Bool, _ word: String, _ keys: [String]) throws(Failure) {
        let app = try application(word)
        // Every key is checked before any is declared.
        for key in keys {
            if let problem = SyncLimits.problem(ofKey: key) { throw .unusable("\(shown(key)): \(problem)") }
        }
        let store = PreferencesStore.shared
        for key in keys {
            do throws(PrefsError) {
                try store.setSynced(synced, forKey: key, application: app)
            } catch {
                throw .refused("prefs: \(shown(key)): \(shown(error.message))")
            }
        }
        do throws(PrefsError) { try store.synchronize(application: app) } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
    }

    private static func status(_ word: String?) throws(Failure) {
        let app = try word.map { (w: String) throws(Failure) -> String in try application(w) }
        let store = PreferencesStore.shared
        let snapshot = store.syncSnapshot()
        let own = SyncSettings.existingIdentity(configDirectory, hostID: store.locations.hostID)
        let out = Output.standard
        out.line("folder: \(shown(snapshot.folder))")
        out.line("this machine: \(own.map { $0.text } ?? "(no identity yet: made at the first synced write)")")
        out.line("machines:")
        if snapshot.state.machines.isEmpty { out.line("  (none)") }
        for machine in snapshot.state.machines.keys.sorted() {
            let info = snapshot.state.machines[machine]!
            let mine = machine == own ? ", this machine" : ""
            let last = info.newest.map { "last write \(time($0))" } ?? "no write"
            out.line("  \(machine.text) \(shown(info.name)) (\(last)\(mine))")
        }
        if !snapshot.problems.isEmpty {
            out.line("ignored:")
            for (name, problem) in snapshot.problems.sorted(by: { $0.key < $1.key }) {
                out.line("  \(shown(name)): \(shown(problem))")
            }
        }
        let apps = app.map { [$0] } ?? snapshot.state.applications.keys.sorted()
        for a in apps {
            let keys: [String]
            do throws(PrefsError) { keys = try store.syncedKeys(application: a) } catch { throw .refused("prefs: \(shown(error.message))") }
            let merged = snapshot.state.applications[a]
            // The keys with a value but no longer synced are left out.
            out.line("\(shown(a)):")
            if keys.isEmpty { out.line("  (no synced key)") }
            for key in keys {
                guard let record = merged?.values[PropertyList.Key(key)] else {
                    out.line("  \(shown(key)): not set by any machine")
                    continue
                }
                let who = "\(name(of: record.time.machine, snapshot)), \(time(record.time))"
                if let value = record.value {
                    out.line("  \(shown(key)) = \(shown(value)) (\(who))")
                } else {
                    out.line("  \(shown(key)): removed (\(who))")
                }
            }
        }
        out.flush()
    }

    /// `<name> <identity>` of a machine, for people.
    static func name(of machine: MachineID, _ snapshot: SyncSnapshot) -> String {
        let n = snapshot.state.machines[machine]?.name ?? ""
        return n.isEmpty ? machine.text : "\(shown(n)) \(machine.text)"
    }

    /// A write's time in UTC, to the millisecond.
    static func time(_ t: SyncTimestamp) -> String {
        let seconds = t.wall / 1000
        let ms = String(t.wall % 1000)
        guard let date = ScalarText.formatISODate(Double(seconds)) else { return "\(t.wall) ms" }
        return String(date.dropLast()) + "." + String(repeating: "0", count: 3 - ms.count) + ms + "Z"
    }

}
