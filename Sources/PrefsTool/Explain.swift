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
            app = try PreferencesStore.canonicalApplication(Target.globalNames.contains(word) ? globalDomainName : word)
        } catch {
            throw .refused("prefs: cannot use \(quoted(word)) as a domain: \(shown(error.message))")
        }
        let store = PreferencesStore.shared
        let keys: [String]
        var entries: [(String, [(value: PropertyList, source: PreferenceSource)])] = []
        do throws(PrefsError) {
            for problem in try store.problems(application: app) { Output.error.line("prefs: \(shown(problem.message))") }
            Output.error.flush()
            keys = args.count == 2 ? [args.last!] : try store.dictionary(application: app).keys.sorted().map(\.string)
            for k in keys { entries.append((k, try store.sources(forKey: k, application: app))) }
        } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        if args.count == 2 {
            let (key, found) = entries[0]
            if found.isEmpty { throw .refused("The domain/default pair of (\(shown(word)), \(shown(key))) does not exist") }
            print(key, found)
            return
        }
        var printed = 0
        for (key, found) in entries where !found.isEmpty {
            // The languages and locale derived from the environment are in
            // every search list: shown only when asked for by name.
            if found.count == 1, found[0].source.layer == .language, found[0].source.domain == nil { continue }
            print(key, found)
            printed += 1
        }
        if printed == 0 { throw .refused("Domain \(shown(word)) does not exist") }
    }

    /// `<key> = <value> (<layer>[, forced])`, then `  shadowed: <value> (<layer>)`.
    private static func print(_ key: String, _ found: [(value: PropertyList, source: PreferenceSource)]) {
        let first = found[0]
        let forced = first.source.layer == .managed ? ", forced" : ""
        Output.standard.line("\(shown(key)) = \(shown(first.value)) (\(shown("\(first.source)"))\(forced))")
        for other in found.dropFirst() {
            Output.standard.line("  shadowed: \(shown(other.value)) (\(shown("\(other.source)")))")
        }
    }
}
