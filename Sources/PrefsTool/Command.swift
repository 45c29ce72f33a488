import CPrefs
import Glibc
import PrefsCore

/// The verbs. Each checks its whole command line and reads everything it
/// needs before it writes anything.
enum Command {
    static func run(_ arguments: [String]) throws(Failure) {
        var args = arguments[...]
        var host = HostChoice()
        while let flag = args.first, flag == "-currentHost" || flag == "-host" {
            args.removeFirst()
            if host.given { throw .usage("only one of -currentHost and -host may be given") }
            if flag == "-host" {
                guard let name = args.popFirst() else { throw .usage("-host needs a host name") }
                host = try HostChoice.named(name)
            } else {
                host = HostChoice(domainHost: .current, flag: flag)
            }
        }
        guard let verb = args.popFirst() else {
            Output.error.write(usageText)
            throw Failure(status: Failure.usageStatus, message: "\(programName): no command given")
        }
        switch verb {
        case "read": try read(args, host)
        case "read-type": try readType(args, host)
        case "write": try write(args, host)
        case "rename": try rename(args, host)
        case "delete": try delete(args, host)
        case "import": try importDomain(args, host)
        case "export": try exportDomain(args, host)
        case "domains":
            try expect(args, count: 0, "domains")
            try domains(host)
        case "find":
            try expect(args, count: 1, "find <word>")
            try find(args.first!, host)
        case "watch": try Watch.run(args, host)
        case "profile":
            if host.given { throw .usage("profile works on managed files: -currentHost and -host do not apply") }
            try Profile.run(args)
        case "explain": try Explain.run(args, host)
        case "schema": try Schema.run(args, host)
        case "sync": try Sync.run(args, host)
        case "ui":
            // bin/prefs runs the terminal view, a program of its own, before
            // calling into the library; reaching here means a host flag came
            // first, or it was called some other way.
            if host.given { throw .usage("ui shows the whole search list: -currentHost and -host do not apply") }
            throw .refused("prefs: ui is run by the prefs program (bin/prefs), which starts prefs-ui")
        case "convert":
            if host.given { throw .usage("convert works on files: -currentHost and -host do not apply") }
            try Convert.run(args)
        case "help", "-h", "-help", "--help":
            try expect(args, count: 0, "help")
            Output.standard.write(usageText)
        case "--version", "-version":
            try expect(args, count: 0, "--version")
            Output.standard.line("\(programName) (libprefs) \(PREFS_VERSION_STRING)")
        default:
            if let near = nearestVerb(verb) {
                throw .usage("unknown command \(quoted(verb)); did you mean \(quoted(near))?")
            }
            throw .usage("unknown command \(quoted(verb))")
        }
    }

    /// The verbs `run` knows, for "did you mean".
    static let verbs = [
        "read", "read-type", "write", "rename", "delete", "import", "export", "domains", "find", "watch",
        "profile", "explain", "schema", "ui", "convert", "help",
    ]

    /// The verb a mistyped word most likely meant: the one at the smallest
    /// edit distance (insertions, deletions, substitutions and swaps of two
    /// neighbours), if that is at most 2 (1 for words of up to 4 letters).
    static func nearestVerb(_ word: String) -> String? {
        let w = Array(word.utf8.prefix(64))
        var best: (verb: String, distance: Int)? = nil
        for verb in verbs {
            let v = Array(verb.utf8)
            var d = [[Int]](repeating: [Int](repeating: 0, count: v.count + 1), count: w.count + 1)
            for i in 0...w.count { d[i][0] = i }
            for j in 0...v.count { d[0][j] = j }
            for i in stride(from: 1, through: w.count, by: 1) {
                for j in 1...v.count {
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (w[i - 1] == v[j - 1] ? 0 : 1))
                    if i > 1, j > 1, w[i - 1] == v[j - 2], w[i - 2] == v[j - 1] {
                        d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                    }
                }
            }
            let distance = d[w.count][v.count]
            if best == nil || distance < best!.distance { best = (verb, distance) }
        }
        guard let best, best.distance <= (w.count <= 4 ? 1 : 2) else { return nil }
        return best.verb
    }

    private static func expect(_ args: ArraySlice<String>, count: Int, _ form: String) throws(Failure) {
        if args.count != count { throw .usage("usage: prefs \(form)") }
    }

    private static func expect(_ args: ArraySlice<String>, _ range: ClosedRange<Int>, _ form: String) throws(Failure) {
        if !range.contains(args.count) { throw .usage("usage: prefs \(form)") }
    }

    // MARK: read, read-type

    static func read(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        try expect(args, 0...2, "read [<domain> [<key>]]")
        guard let word = args.first else { return try readAll(host) }
        let target = try Target.resolve(word, host: host)
        if args.count == 2 {
            let key = args.last!
            let stored: PropertyList
            do throws(Failure) {
                stored = try value(key, of: target)
            } catch {
                noteForced([key], of: target, stored: [:])
                throw error
            }
            // The value as scripts read it (strings raw), escaped only
            // when it goes to a terminal.
            Output.standard.data(OldStylePlist.formatBare(stored) + "\n")
            noteForced([key], of: target, stored: [PropertyList.Key(key): stored])
        } else {
            let values = try target.existingValues()
            Output.standard.line(OldStylePlist.format(.dictionary(values)))
            noteForced(nil, of: target, stored: values)
        }
    }

    /// `read` prints the user's stored value, as macOS's `defaults` does
    /// and as scripts parse it; a person checking a profile must also learn
    /// that programs get an administrator's forced value instead. So, on
    /// standard error, one line per key that a managed file forces to
    /// another value than the one printed (never under the name `defaults`,
    /// whose output stays macOS's).
    private static func noteForced(_ keys: [String]?, of target: Target, stored: PropertyListDictionary) {
        guard programName == "prefs", !target.isFile else { return }
        let app = target.id.application
        let store = target.store
        var names = keys ?? []
        if keys == nil {
            guard let all = try? store.dictionary(application: app) else { return }
            names = all.keys.sorted().map(\.string)
        }
        for key in names {
            // Whether a managed file holds the key is a lookup in the
            // managed layers alone; the sources are asked only then, since
            // listing them decodes every layer of the domain in full.
            guard (try? store.isForced(key, application: app)) == true,
                let found = try? store.sources(forKey: key, application: app), let first = found.first,
                first.source.layer == .managed, stored[PropertyList.Key(key)] != first.value
            else { continue }
            // Old-style text, escaped: a managed file's key or string
            // never reaches the terminal raw.
            let what = stored[PropertyList.Key(key)] == nil ? "not set here" : "not the value above"
            Output.error.line(
                "prefs: \(OldStylePlist.format(.string(key))) is forced by an administrator: programs get \(OldStylePlist.format(first.value)), \(what)"
            )
        }
        Output.error.flush()
    }

    static func readType(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        try expect(args, count: 2, "read-type <domain> <key>")
        let target = try Target.resolve(args.first!, host: host)
        let v = try value(args.last!, of: target)
        let names: [PropertyList.Kind: String] = [
            .string: "string", .data: "data", .integer: "integer", .real: "float", .boolean: "boolean",
            .date: "date", .array: "array", .dictionary: "dictionary", .uid: "uid",
        ]
        Output.standard.line("Type is \(names[v.kind]!)")
    }

    private static func value(_ key: String, of target: Target) throws(Failure) -> PropertyList {
        if let v = try target.values(keys: [key])[PropertyList.Key(key)] { return v }
        // A Mac's global domain always holds the user's languages and
        // locale (`defaults read -g AppleLanguages`); here they come from
        // the environment when the global domain stores none.
        if !target.isFile, target.id.application == globalDomainName, key == "AppleLanguages" || key == "AppleLocale",
            let v = try? target.store.value(forKey: key, application: globalDomainName)
        {
            return v
        }
        throw absent(key, in: target)
    }

    private static func absent(_ key: String, in target: Target) -> Failure {
        .refused("The domain/default pair of (\(shown(target.name)), \(shown(key))) does not exist")
    }

    /// The user's domains for the chosen host, the global domain first when
    /// it has keys; domains whose file does not parse are reported and left out.
    private static func everyDomain(_ host: HostChoice) -> (domains: [(String, PropertyListDictionary)], problems: [String]) {
        let store = PreferencesStore.shared
        var out: [(String, PropertyListDictionary)] = []
        var problems: [String] = []
        for app in [globalDomainName] + store.applications(user: .current, host: host.domainHost) {
            let id = DomainID(application: app, user: .current, host: host.domainHost)
            do throws(PrefsError) {
                if let problem = try store.problem(in: id) { throw problem }
                let v = try store.values(in: id)
                if !v.isEmpty { out.append((app, v)) }
            } catch {
                problems.append("prefs: \(shown(error.message))")
            }
        }
        return (out, problems)
    }

    static func readAll(_ host: HostChoice) throws(Failure) {
        let (domains, problems) = everyDomain(host)
        var all = PropertyListDictionary()
        for (name, values) in domains { all[PropertyList.Key(name)] = .dictionary(values) }
        Output.standard.line(OldStylePlist.format(.dictionary(all)))
        if !problems.isEmpty { throw .refused(problems.joined(separator: "\n")) }
    }

    // MARK: write, rename, delete

    static func write(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        guard args.count >= 2 else {
            throw .usage("usage: prefs write <domain> '<plist dictionary>' | prefs write <domain> <key> <value>")
        }
        // The value is read before the store is opened: a command refused
        // for its value touches nothing at all.
        let rest = args.dropFirst()
        if rest.count == 1 { return try writeDictionary(rest.first!, to: args.first!, host) }
        let key = rest.first!
        if ValueGrammar.isFlag(key) { throw .unusable("a key is missing before \(shown(key))") }
        let edit = try ValueGrammar.parse(rest.dropFirst())
        let target = try Target.resolve(args.first!, host: host)
        // The one key an -array-add or -dict-add extends: a domain's other
        // values are not decoded (a million of them would be).
        let current = try target.values(keys: [key])
        let k = PropertyList.Key(key)
        let value: PropertyList
        switch edit {
        case .set(let v):
            value = v
        case .arrayAdd(let items):
            switch current[k] {
            case nil: value = .array(items)
            case let old? where old.kind == .array: value = .array(old.arrayValue! + items)
            case _?: throw .unusable("the value of \(quoted(key)) in \(shown(target.name)) is not an array")
            }
        case .dictAdd(let entries):
            var d: PropertyListDictionary
            switch current[k] {
            case nil: d = [:]
            case let old? where old.kind == .dictionary: d = old.dictionaryValue!
            case _?: throw .unusable("the value of \(quoted(key)) in \(shown(target.name)) is not a dictionary")
            }
            for (ek, ev) in entries { d[PropertyList.Key(ek)] = ev }
            value = .dictionary(d)
        }
        try target.apply([(key, value)])
    }

    /// `write D '{...}'`: the domain becomes exactly that dictionary.
    private static func writeDictionary(_ text: String, to domain: String, _ host: HostChoice) throws(Failure) {
        let parsed: PropertyList
        do throws(PrefsError) {
            parsed = try PropertyList.parse(Array(text.utf8))
        } catch {
            let c = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
            if c != UInt8(ascii: "{") && c != UInt8(ascii: "<") {
                throw .unusable("key \(quoted(text)) has no value")
            }
            throw .unusable("cannot parse the dictionary \(quoted(text)): \(shown(error.message))")
        }
        guard let entries = parsed.dictionaryValue else {
            if parsed.kind == .string, text.utf8.first != UInt8(ascii: "\""), text.utf8.first != UInt8(ascii: "'") {
                throw .unusable("key \(quoted(text)) has no value")
            }
            throw .unusable("\(quoted(text)) is not a dictionary (it reads as \(article(parsed.kind)))")
        }
        let target = try Target.resolve(domain, host: host)
        let current = try target.values()
        var changes: [(String, PropertyList?)] = []
        for key in current.keys.sorted() where entries[key] == nil { changes.append((key.string, nil)) }
        for key in entries.keys.sorted() { changes.append((key.string, entries[key]!)) }
        try target.apply(changes)
    }

    private static func article(_ kind: PropertyList.Kind) -> String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .uid: "a UID"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }

    static func rename(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        try expect(args, count: 3, "rename <domain> <old_key> <new_key>")
        let a = Array(args)
        let target = try Target.resolve(a[0], host: host)
        let v = try value(a[1], of: target)
        if a[1] == a[2] { return }
        try target.apply([(a[1], nil), (a[2], v)])
    }

    static func delete(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        try expect(args, 1...2, "delete <domain> [<key>]")
        let target = try Target.resolve(args.first!, host: host)
        if args.count == 2 {
            let key = args.last!
            _ = try value(key, of: target)
            try target.apply([(key, nil)])
        } else {
            let current = try target.existingValues()
            if target.isFile {
                // A file named by path is the user's own: emptied, never removed.
                try target.apply(current.keys.sorted().map { ($0.string, nil) })
            } else {
                try target.remove()
            }
        }
    }

    // MARK: import, export

    static func importDomain(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        try expect(args, count: 2, "import <domain> <path> | -")
        let source = args.last!
        let shown = source == "-" ? "standard input" : source
        let bytes: [UInt8]
        do throws(PrefsError) {
            bytes = try source == "-" ? FileSystem.readToEnd(descriptor: 0, name: shown) : FileSystem.readUserFile(source)
        } catch {
            throw .refused("prefs: \(TerminalText.escaped(error.message))")
        }
        let parsed: PropertyList
        do throws(PrefsError) {
            parsed = try PropertyList.parse(bytes)
        } catch {
            throw .unusable("\(TerminalText.escaped(shown)) does not parse (\(TerminalText.escaped(error.message)))")
        }
        guard let entries = parsed.dictionaryValue else {
            throw .unusable("\(TerminalText.escaped(shown)) holds \(article(parsed.kind)), not a dictionary")
        }
        let target = try Target.resolve(args.first!, host: host)
        _ = try target.values()  // refuses a domain file that does not parse
        try target.apply(entries.keys.sorted().map { ($0.string, entries[$0]!) })
    }

    static func exportDomain(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        let form = "export <domain> <path> | - [-format xml1 | binary1]"
        var args = args
        var format = FileFormat.xml1
        if args.count == 4 && args[args.startIndex + 2] == "-format" {
            guard let f = FileFormat(rawValue: args.last!) else { throw .usage("usage: prefs \(form)") }
            format = f
            args = args.prefix(2)
        }
        try expect(args, count: 2, form)
        let target = try Target.resolve(args.first!, host: host)
        let destination = args.last!
        let values = try target.existingValues()
        let bytes: [UInt8]
        do throws(PrefsError) {
            bytes = try format.encode(PropertyList.dictionary(values))
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        if destination == "-" {
            try Output.standard.document(bytes, format)
        } else {
            do throws(PrefsError) {
                try FileSystem.replaceUserFile(destination, with: bytes, forTerminal: format.forTerminal)
            } catch {
                throw .refused("prefs: \(shown(error.message))")
            }
        }
    }

    /// The file formats `export` and `convert` write, by `plutil`'s names.
    enum FileFormat: String {
        /// An XML property list.
        case xml1
        /// A binary property list (`bplist00`).
        case binary1

        /// `value` in this format.
        func encode(_ value: PropertyList) throws(PrefsError) -> [UInt8] {
            switch self {
            case .xml1: return try value.xmlData()
            case .binary1: return try value.binaryData()
            }
        }

        /// A file of this format for an output path that is a terminal
        /// (`export D /dev/tty`): XML escaped by the terminal rule, as on
        /// standard output; a binary property list refused, nothing written.
        func forTerminal(_ bytes: [UInt8]) throws(PrefsError) -> [UInt8] {
            switch self {
            case .xml1: return Array(TerminalText.escaped(String(decoding: bytes, as: UTF8.self), keepingLayout: true).utf8)
            case .binary1: throw PrefsError(.io, "a binary property list is not written to a terminal; write it to a file or a pipe")
            }
        }
    }

    // MARK: domains, find

    static func domains(_ host: HostChoice) throws(Failure) {
        let store = PreferencesStore.shared
        var names: [String] = []
        var problems: [String] = []
        for app in store.applications(user: .current, host: host.domainHost) {
            let id = DomainID(application: app, user: .current, host: host.domainHost)
            // A file that does not parse is still a domain of the user.
            if let problem = try? store.problem(in: id) {
                names.append(app)
                problems.append("prefs: \(shown(problem.message))")
            } else if let v = try? store.values(in: id), !v.isEmpty {
                names.append(app)
            }
        }
        Output.standard.line(names.map(shown).joined(separator: ", "))
        for p in problems { Output.error.line(p) }
    }

    static func find(_ word: String, _ host: HostChoice) throws(Failure) {
        let needle = word.lowercased()
        func has(_ s: String) -> Bool { needle.isEmpty || s.lowercased().contains(needle) }
        func matches(_ v: PropertyList) -> Bool {
            switch v.value {
            case .string(let s): return has(s)
            case .array(let items): return items.contains(where: matches)
            case .dictionary(let d): return d.contains { has($0.key.string) || matches($0.value) }
            default: return false
            }
        }
        let (domains, problems) = everyDomain(host)
        var found = false
        for (name, values) in domains {
            var hits = PropertyListDictionary()
            for (k, v) in values where has(k.string) || matches(v) { hits[k] = v }
            guard !hits.isEmpty else { continue }
            found = true
            Output.standard.line("Found \(hits.count) keys in domain \(quoted(name)): \(OldStylePlist.format(.dictionary(hits)))")
        }
        for p in problems { Output.error.line(p) }
        if !found { throw .refused("No domain, key, nor value containing \(quoted(word))") }
    }
}

// In this file rather than Output.swift, which the value-grammar fuzz
// target compiles without the verbs.
extension Output {
    /// A property-list file's bytes written to this descriptor (`export D
    /// -`, `convert -o -`): as they are, unless the descriptor is a
    /// terminal. Then XML is shown as ``data(_:)`` shows text (escaped by
    /// the terminal rule) and a binary property list is refused, as `gzip`
    /// refuses to write compressed data to a terminal: its bytes are not
    /// text.
    func document(_ bytes: [UInt8], _ format: Command.FileFormat) throws(Failure) {
        guard isTerminal else { return write(bytes: bytes) }
        if format == .binary1 {
            throw .refused("prefs: a binary property list is not written to a terminal; redirect standard output to a file or a pipe")
        }
        write(String(decoding: bytes, as: UTF8.self))
    }
}
