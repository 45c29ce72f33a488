import Glibc
import PrefsCore

/// `prefs profile install | remove | list`: configuration profiles written
/// for Macs (`.mobileconfig`, XML or binary, unsigned) applied as managed
/// drop-ins.
///
/// A profile's preference payloads become one drop-in per domain,
/// `$PREFS_MANAGED_DIR/<domain>.d/<PayloadIdentifier>.plist` (everyone), or
/// under `$PREFS_MANAGED_DIR/<user>/` with `-user <name>`; every key of a
/// drop-in is forced. What was installed is remembered in a receipt,
/// `.profiles/<PayloadIdentifier>.plist` in the same managed directory,
/// which `list` reads and `remove` and a reinstallation follow.
enum Profile {
    static let form = "profile install [-user <name>] <file> | profile remove [-user <name>] <identifier> | profile list"

    static func run(_ args: ArraySlice<String>) throws(Failure) {
        var args = args
        guard let verb = args.popFirst() else { throw .usage("usage: prefs \(form)") }
        var user: String? = nil
        if args.first == "-user" {
            args.removeFirst()
            guard let name = args.popFirst() else { throw .usage("-user needs a user name") }
            user = try account(name, existing: verb == "install")
        }
        switch verb {
        case "install":
            guard args.count == 1 else { throw .usage("usage: prefs profile install [-user <name>] <file>") }
            try install(args.first!, user: user)
        case "remove":
            guard args.count == 1 else { throw .usage("usage: prefs profile remove [-user <name>] <identifier>") }
            try remove(args.first!, user: user)
        case "list":
            guard args.isEmpty, user == nil else { throw .usage("usage: prefs profile list") }
            try list()
        default:
            throw .usage("unknown profile command \(quoted(verb)); usage: prefs \(form)")
        }
    }

    /// The user `-user` names: the name of an existing account (as the
    /// system's user database knows it, `getpwnam`), whose managed
    /// directory is `$PREFS_MANAGED_DIR/<name>`. Refused: any other word,
    /// and account names that would be taken for something else in the
    /// managed directory (`.profiles`, `<id>.plist`, `<id>.d`), so that a
    /// profile for one user never writes where everyone's files are.
    /// Without `existing` (for `remove`, which only deletes what a receipt
    /// lists), an account that has since been deleted is accepted too.
    static func account(_ name: String, existing: Bool) throws(Failure) -> String {
        if name.isEmpty || name.hasPrefix(".") || name.contains("/") || name.hasSuffix(".plist")
            || name.hasSuffix(Locations.dropInSuffix) || name.unicodeScalars.contains(where: TerminalText.isUnsafe)
        {
            throw .usage("-user \(quoted(name)): not a user name the managed directory can hold")
        }
        guard !existing || getpwnam(name) != nil else {
            throw .refused("prefs: -user \(quoted(name)): no such user (the name of an existing account is needed); nothing was written")
        }
        return name
    }

    // MARK: Reading a profile

    /// What a profile asks for: the drop-in of each domain, and what cannot
    /// be applied.
    struct Plan {
        var identifier: String
        var displayName: String?
        var uuid: String?
        /// Domain name → the keys forced, payloads merged in order.
        var domains: [String: PropertyListDictionary] = [:]
        var skipped: [String] = []
    }

    /// Payload types that are not preference domains although they look
    /// like one: accounts, network and security settings, MDM.
    static func isPreferenceDomain(_ type: String) -> Bool {
        let notDomains: Set<String> = [
            "Configuration", "com.apple.mdm", "com.apple.webcontent-filter", "com.apple.TCC.configuration-profile-policy",
            "com.apple.notificationsettings", "com.apple.system-extension-policy", "com.apple.syspolicy.kernel-extension-policy",
            "com.apple.servicemanagement", "com.apple.dnsSettings.managed", "com.apple.firstactiveethernet.managed",
            "com.apple.extensiblesso", "com.apple.familycontrols.contentfilter",
        ]
        if notDomains.contains(type) { return false }
        for suffix in [".managed", ".account", ".pkcs1", ".pkcs12", ".pem", ".root", ".scep", ".acme"] where type.hasSuffix(suffix) {
            return false
        }
        if type.hasPrefix("com.apple.security.") || type.hasPrefix("com.apple.vpn") { return false }
        return type.contains(".") && ApplicationID.problem(type) == nil && !type.hasPrefix(".")
    }

    static func plan(_ bytes: [UInt8], shown name: String) throws(Failure) -> Plan {
        let shown = TerminalText.escaped(name)
        // A signed profile is a CMS (DER) envelope: an ASN.1 SEQUENCE.
        if bytes.first == 0x30 {
            throw .refused(
                "prefs: \(shown) is a signed profile (a CMS envelope), which prefs does not apply; nothing was written. Install the unsigned profile (on a Mac: security cms -D -i \(shown) -o unsigned.mobileconfig)"
            )
        }
        let root: PropertyList
        do throws(PrefsError) {
            root = try PropertyList.parse(bytes)
        } catch {
            throw .refused("prefs: \(shown) does not parse (\(TerminalText.escaped(error.message))); nothing was written")
        }
        guard let top = root.dictionaryValue else {
            throw .refused("prefs: \(shown) is not a configuration profile (not a dictionary); nothing was written")
        }
        func string(_ d: PropertyListDictionary, _ key: String) -> String? { d[PropertyList.Key(key)]?.stringValue }
        // Identifiers and names become file names, receipt entries and
        // lines of `profile list`: a control character (a newline forging a
        // second line, an escape sequence) or a direction override in any
        // of them refuses the whole profile.
        func checkNames(_ d: PropertyListDictionary, _ place: String) throws(Failure) {
            for key in ["PayloadIdentifier", "PayloadUUID", "PayloadDisplayName", "PayloadType"] {
                if let v = string(d, key) { try checkName(v, "\(place)\(key)") }
            }
        }
        func checkName(_ v: String, _ what: String) throws(Failure) {
            if v.unicodeScalars.contains(where: TerminalText.isUnsafe) {
                throw .refused("prefs: \(shown): \(what) \(quoted(v)) holds a control or text-direction character; nothing was written")
            }
        }
        try checkNames(top, "")
        guard let identifier = string(top, "PayloadIdentifier"), !identifier.isEmpty else {
            throw .refused("prefs: \(shown) has no PayloadIdentifier; nothing was written")
        }
        if let problem = ApplicationID.problem(identifier) ?? (identifier.hasPrefix(".") ? "it starts with '.'" : nil) {
            throw .refused("prefs: \(shown): PayloadIdentifier \(quoted(identifier)) cannot name a file (\(problem)); nothing was written")
        }
        if let type = string(top, "PayloadType"), type != "Configuration" {
            throw .refused("prefs: \(shown) is a payload of type \(quoted(type)), not a configuration profile; nothing was written")
        }
        var plan = Plan(identifier: identifier, displayName: string(top, "PayloadDisplayName"), uuid: string(top, "PayloadUUID"))
        guard let payloads = top[PropertyList.Key("PayloadContent")]?.arrayValue else {
            throw .refused("prefs: \(shown) has no PayloadContent array; nothing was written")
        }
        func add(_ domain: String, _ values: PropertyListDictionary) {
            let app = domain == globalDomainFileName ? globalDomainName : domain
            plan.domains[app, default: [:]].merge(values) { _, later in later }
        }
        for (n, payload) in payloads.enumerated() {
            let where_ = "payload \(n + 1)"
            guard let p = payload.dictionaryValue else {
                plan.skipped.append("\(where_): not a dictionary")
                continue
            }
            try checkNames(p, "\(where_): ")
            let type = string(p, "PayloadType") ?? ""
            let name = "\(where_) (\(type.isEmpty ? "no PayloadType" : TerminalText.escaped(type)))"
            if p[PropertyList.Key("PayloadEnabled")]?.booleanValue == false {
                plan.skipped.append("\(name): PayloadEnabled is false")
                continue
            }
            if type == "com.apple.ManagedClient.preferences" {
                guard let content = p[PropertyList.Key("PayloadContent")]?.dictionaryValue else {
                    plan.skipped.append("\(name): no PayloadContent dictionary")
                    continue
                }
                for (domainKey, settings) in content.sortedByKey() {
                    let domain = domainKey.string
                    let shownDomain = TerminalText.escaped(domain)
                    try checkName(domain, "\(name): the domain")
                    guard ApplicationID.problem(domain) == nil, let s = settings.dictionaryValue else {
                        plan.skipped.append("\(name): domain \(quoted(domain)): not a domain name with a dictionary")
                        continue
                    }
                    for (level, entries) in s.sortedByKey() {
                        guard level.string == "Forced" else {
                            plan.skipped.append("\(name): \(shownDomain): \(TerminalText.escaped(level.string)) settings (only Forced ones are applied)")
                            continue
                        }
                        let items: [PropertyList] = entries.arrayValue ?? [entries]
                        for (i, entry) in items.enumerated() {
                            guard let e = entry.dictionaryValue else {
                                plan.skipped.append("\(name): \(shownDomain): Forced item \(i + 1) is not a dictionary")
                                continue
                            }
                            for (k, v) in e.sortedByKey() {
                                if k.string == "mcx_preference_settings", let values = v.dictionaryValue {
                                    add(domain, values)
                                } else {
                                    plan.skipped.append("\(name): \(shownDomain): Forced \(TerminalText.escaped(k.string))")
                                }
                            }
                        }
                    }
                }
            } else if isPreferenceDomain(type) {
                var values = p
                for k in p.keys where k.string.hasPrefix("Payload") { values[k] = nil }
                add(type, values)
            } else {
                plan.skipped.append("\(name): not a preference payload")
            }
        }
        for (domain, values) in plan.domains {
            for (k, v) in values {
                do throws(PrefsError) {
                    try PropertyList.checkStorable(v, forKey: k.string)
                } catch {
                    throw .refused("prefs: \(shown): \(TerminalText.escaped(domain)): \(TerminalText.escaped(error.message)); nothing was written")
                }
            }
        }
        return plan
    }

    // MARK: Where things go

    static var store: PreferencesStore { .shared }

    /// The managed directory of everyone, or of `user`.
    static func directory(user: String?) -> String {
        store.locations.managedDirectory + (user.map { "/" + $0 } ?? "")
    }

    static func receiptPath(_ identifier: String, user: String?) -> String {
        directory(user: user) + "/.profiles/" + identifier + ".plist"
    }

    static func dropIn(_ domain: String, _ identifier: String, user: String?) -> String {
        store.locations.dropInDirectory(of: domain, user: user) + "/" + identifier + ".plist"
    }

    /// The drop-ins a receipt says its profile installed.
    static func installedFiles(_ receipt: PropertyListDictionary) -> [String] {
        let files: [PropertyList] = receipt[PropertyList.Key("Files")]?.arrayValue ?? []
        return files.compactMap(\.stringValue)
    }

    /// What a receipt says each file it lists held when the profile wrote
    /// it (``fingerprint(_:)``); empty for receipts written before
    /// fingerprints were kept.
    static func fingerprints(_ receipt: PropertyListDictionary) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in receipt[PropertyList.Key("Fingerprints")]?.dictionaryValue ?? [:] {
            if let s = v.stringValue { out[k.string] = s }
        }
        return out
    }

    /// A 64-bit FNV-1a hash of `bytes`, in hex: tells whether a drop-in
    /// still holds what the profile wrote, or another tool (or a hand) has
    /// written it since. Not a defence against whoever can write the
    /// managed directory (root): only a record of what was ours.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.utf8.count) + hex
    }

    /// Whether `path` is a file this profile made and nobody changed since:
    /// listed in its receipt and, when the receipt kept its fingerprint,
    /// still holding those bytes. Missing files count as ours (nothing to
    /// overwrite or delete).
    static func isOurs(_ path: String, _ receipt: PropertyListDictionary?) -> Bool {
        guard let st = try? SystemCall.lstat(path) else { return true }
        guard let receipt, installedFiles(receipt).contains(path), (st.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let recorded = fingerprints(receipt)[path] else { return true }
        return currentBytes(path).map(fingerprint) == recorded
    }

    static func readReceipt(_ path: String) -> PropertyListDictionary? {
        guard let bytes = try? FileSystem.readUserFile(path), let v = try? PropertyList.parse(bytes) else { return nil }
        return v.dictionaryValue
    }

    /// What `path` holds now: its bytes when it is a regular file, `nil`
    /// when nothing (or something else) is there.
    static func currentBytes(_ path: String) -> [UInt8]? {
        guard let st = try? SystemCall.lstat(path), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return try? FileSystem.readUserFile(path)
    }

    /// Applies `changes` (after `first`, when given) to the managed
    /// directory as one change: when any write or removal fails, every
    /// file is put back as it was before, and the failure is reported with
    /// "nothing was changed". Should putting back fail too, the message says
    /// so; the receipt written first then still lists every file, for
    /// `profile remove`.
    static func transact(
        _ changes: [(path: String, bytes: [UInt8]?)], first: (path: String, bytes: [UInt8]?)?, what: String
    ) throws(Failure) {
        var before: [(path: String, bytes: [UInt8]?)] = []
        for (path, _) in (first.map { [$0] } ?? []) + changes where !before.contains(where: { $0.path == path }) {
            before.append((path, currentBytes(path)))
        }
        do throws(PrefsError) {
            if let first { try store.replaceManagedFiles([first]) }
            try store.replaceManagedFiles(changes)
        } catch {
            var unrestored: [String] = []
            for (path, bytes) in before.reversed() where currentBytes(path) != bytes {
                do throws(PrefsError) { try store.replaceManagedFiles([(path, bytes)]) } catch {
                    unrestored.append(TerminalText.escaped(path))
                }
            }
            if unrestored.isEmpty { throw .refused("prefs: cannot \(what): \(shown(error.message)); nothing was changed") }
            throw .refused(
                "prefs: cannot \(what): \(shown(error.message)); could not put back \(unrestored.joined(separator: ", ")) as they were")
        }
    }

    // MARK: Verbs

    static func install(_ file: String, user: String?) throws(Failure) {
        let bytes: [UInt8]
        do throws(PrefsError) {
            bytes = try file == "-" ? FileSystem.readToEnd(descriptor: 0, name: "standard input") : FileSystem.readUserFile(file)
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        let shown = file == "-" ? "standard input" : file
        let plan = try plan(bytes, shown: shown)
        var changes: [(path: String, bytes: [UInt8]?)] = []
        var written: [String] = []
        var pending: (path: String, bytes: [UInt8]?)? = nil
        var prints = PropertyListDictionary()
        let receiptFile = receiptPath(plan.identifier, user: user)
        let oldReceipt = readReceipt(receiptFile)
        do throws(PrefsError) {
            for domain in plan.domains.keys.sorted() {
                let path = dropIn(domain, plan.identifier, user: user)
                // A profile writes only files it made: another tool's
                // drop-in of the same name is left alone, and so is one of
                // ours that someone has changed since.
                guard isOurs(path, oldReceipt) else {
                    throw PrefsError(
                        .invalidArgument,
                        "\(TerminalText.escaped(path)) exists and was not written by this profile (or was changed since)")
                }
                let bytes = try PropertyList.dictionary(plan.domains[domain]!).xmlData()
                changes.append((path, bytes))
                written.append(path)
                prints[PropertyList.Key(path)] = .string(fingerprint(bytes))
            }
            for old in installedFiles(oldReceipt ?? [:]) where !written.contains(old) && old.hasPrefix(directory(user: user) + "/") {
                if isOurs(old, oldReceipt) {
                    changes.append((old, nil))
                } else {
                    Output.error.line("prefs: left \(TerminalText.escaped(old)): changed since the profile wrote it")
                }
            }
            var receipt: PropertyListDictionary = [
                "PayloadIdentifier": .string(plan.identifier),
                "Files": .array(written.map { .string($0) }),
                "Fingerprints": .dictionary(prints),
                "Domains": .array(plan.domains.keys.sorted().map { .string($0) }),
                "InstallDate": .date(Double(time(nil))),
            ]
            if let n = plan.displayName { receipt["PayloadDisplayName"] = .string(n) }
            if let u = plan.uuid { receipt["PayloadUUID"] = .string(u) }
            if let user { receipt["User"] = .string(user) }
            if !plan.skipped.isEmpty { receipt["NotApplied"] = .array(plan.skipped.map { .string($0) }) }
            // Written first, the receipt lists every file the install may
            // leave behind if it is killed half-way (the new drop-ins and
            // the old ones not yet removed), so that remove can undo it.
            var pendingReceipt = receipt
            let removing = changes.filter { $0.bytes == nil }.map(\.path)
            pendingReceipt["Files"] = .array((written + removing).map { .string($0) })
            var pendingPrints = prints
            for (path, print) in fingerprints(oldReceipt ?? [:]) where removing.contains(path) {
                pendingPrints[PropertyList.Key(path)] = .string(print)
            }
            pendingReceipt["Fingerprints"] = .dictionary(pendingPrints)
            pending = (receiptFile, try PropertyList.dictionary(pendingReceipt).xmlData())
            changes.append((receiptFile, try PropertyList.dictionary(receipt).xmlData()))
        } catch {
            throw .refused("prefs: \(TerminalText.escaped(error.message)); nothing was written")
        }
        for s in plan.skipped { Output.error.line("prefs: not applied: \(s)") }
        try transact(changes, first: pending, what: "install \(TerminalText.escaped(plan.identifier))")
        let scope = user.map { "for \(TerminalText.escaped($0))" } ?? "for everyone"
        let domains = plan.domains.keys.sorted().map { TerminalText.escaped($0) }.joined(separator: ", ")
        Output.standard.line("Installed \(TerminalText.escaped(plan.identifier)) \(scope): \(domains.isEmpty ? "no domain" : domains)")
    }

    static func remove(_ identifier: String, user: String?) throws(Failure) {
        if ApplicationID.problem(identifier) != nil || identifier.hasPrefix(".")
            || identifier.unicodeScalars.contains(where: TerminalText.isUnsafe)
        {
            throw .refused("prefs: \(quoted(identifier)) is not a profile identifier")
        }
        let receiptFile = receiptPath(identifier, user: user)
        guard let receipt = readReceipt(receiptFile) else {
            let scope = user.map { "for \(TerminalText.escaped($0))" } ?? "for everyone"
            throw .refused("Profile \(TerminalText.escaped(identifier)) is not installed \(scope)")
        }
        var changes: [(path: String, bytes: [UInt8]?)] = []
        for file in installedFiles(receipt) where file.hasPrefix(directory(user: user) + "/") {
            // Only what the profile wrote and nobody has changed since.
            if isOurs(file, receipt) {
                changes.append((file, nil))
            } else {
                Output.error.line("prefs: left \(TerminalText.escaped(file)): changed since \(TerminalText.escaped(identifier)) wrote it")
            }
        }
        changes.append((receiptFile, nil))
        try transact(changes, first: nil, what: "remove \(TerminalText.escaped(identifier))")
        Output.standard.line("Removed \(TerminalText.escaped(identifier))")
    }

    /// One line per installed profile: identifier, scope, domains.
    static func list() throws(Failure) {
        let root = store.locations.managedDirectory
        var scopes: [(String?, String)] = [(nil, root)]
        for name in FileSystem.list(root).sorted() where !name.hasPrefix(".") && !name.hasSuffix(".plist") && !name.hasSuffix(".d") {
            scopes.append((name, root + "/" + name))
        }
        var lines: [String] = []
        for (user, dir) in scopes {
            let receipts = dir + "/.profiles"
            for name in FileSystem.list(receipts).sorted() where name.hasSuffix(".plist") && !name.hasPrefix(".") {
                guard let r = readReceipt(receipts + "/" + name),
                    let id = r[PropertyList.Key("PayloadIdentifier")]?.stringValue
                else { continue }
                let listed: [PropertyList] = r[PropertyList.Key("Domains")]?.arrayValue ?? []
                let domains = listed.compactMap(\.stringValue).map { TerminalText.escaped($0) }
                let scope = user.map { "user \(TerminalText.escaped($0))" } ?? "everyone"
                var line = "\(TerminalText.escaped(id)) (\(scope)): \(domains.isEmpty ? "no domain" : domains.joined(separator: ", "))"
                if let display = r[PropertyList.Key("PayloadDisplayName")]?.stringValue { line += " — \(TerminalText.escaped(display))" }
                lines.append(line)
            }
        }
        for l in lines { Output.standard.line(l) }
    }
}
