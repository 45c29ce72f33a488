import PrefsCore

/// `prefs explain <domain> [<key>]`: for each key, the value a read returns
/// and the layer it came from, then every value it shadows.
enum Explain {
    /// Runs `explain <domain> [<key>]`: refuses file paths and host flags
    /// (a search list has every host's domains).
    static func run(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        guard (1...2).contains(args.count) else { throw .usage("usage: prefs explain <domain> [<key>]") }
        if host.given { throw .usage("explain follows the whole search list: -currentHost and -host do not apply") }
        let word = args.first!
        if word.hasPrefix("/") { throw .usage("explain needs an application ID: a file path is one domain, without a search list") }
        let app: String
        do throws(PrefsError) {
            app = try PreferencesStore.canonicalApplication(Target.isGlobalName(word) ? globalDomainName : word)
        } catch {
            throw .refused("prefs: cannot use \(quoted(word)) as a domain: \(shown(error.message))")
        }
        let store = PreferencesStore.shared
        let keys: [String]
        var entries: [(String, [(value: PropertyList, source: PreferenceSource)])] = []
        var described: [String: SchemaKey] = [:]
        do throws(PrefsError) {
            for problem in try store.problems(application: app) { Output.error.line("prefs: \(shown(problem.message))") }
            Output.error.flush()
            keys = args.count == 2 ? [args.last!] : try store.dictionary(application: app).keys.sorted().map(\.string)
            for k in keys {
                entries.append((k, try store.sources(forKey: k, application: app)))
                // A schema that does not parse was reported above.
                if let d = try? store.schemaDescription(forKey: k, application: app), d.isBound { described[k] = d }
            }
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        if args.count == 2 {
            let (key, found) = entries[0]
            if found.isEmpty { throw .refused("The domain/default pair of (\(shown(word)), \(shown(key))) does not exist") }
            print(key, found, described[key], app)
            return
        }
        var printed = 0
        for (key, found) in entries where !found.isEmpty {
            // The languages and locale derived from the environment are in
            // every search list: shown only when asked for by name.
            if found.count == 1, found[0].source.layer == .language, found[0].source.domain == nil { continue }
            print(key, found, described[key], app)
            printed += 1
        }
        if printed == 0 { throw .refused("Domain \(shown(word)) does not exist") }
    }

    /// `<key> = <value> (<layer>[, forced])`, then `  shadowed: <value>
    /// (<layer>)`, or `  ignored: <value> (<layer>): the schema accepts
    /// ...` for a value that breaks the installed schema. A synced value
    /// also names the machine that wrote it and when.
    private static func print(
        _ key: String, _ found: [(value: PropertyList, source: PreferenceSource)], _ schema: SchemaKey?, _ app: String
    ) {
        let first = found[0]
        let forced = first.source.layer == .managed ? ", forced" : ""
        Output.standard.line("\(shown(key)) = \(shown(first.value)) (\(describe(first.source, key, app))\(forced))")
        for other in found.dropFirst() {
            let layer = describe(other.source, key, app)
            if let schema, !schema.accepts(other.value) {
                Output.standard.line(
                    "  ignored: \(shown(other.value)) (\(layer)): the schema accepts \(shown(schema.accepts ?? ""))")
            } else {
                Output.standard.line("  shadowed: \(shown(other.value)) (\(layer))")
            }
        }
    }

    /// The layer of `source` as shown (escaped); a synced one names the
    /// machine that wrote the value and when.
    private static func describe(_ source: PreferenceSource, _ key: String, _ app: String) -> String {
        guard source.layer == .synced else { return shown(source.description) }
        let snapshot = PreferencesStore.shared.syncSnapshot()
        guard let record = snapshot.state.record(of: PropertyList.Key(key), in: app) else { return "synced" }
        return "synced from \(Sync.name(of: record.time.machine, snapshot)) at \(Sync.time(record.time))"
    }
}
