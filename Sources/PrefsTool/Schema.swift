import PrefsCore

/// `prefs schema show|check|c|swift`: an installed schema's keys, whether a
/// schema's defaults fit their specifiers, and C or Swift code from it.
enum Schema {
    /// Runs `schema <verb> <word>`; a usage error for anything else.
    static func run(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        if host.given { throw .usage("schema works on schemas: -currentHost and -host do not apply") }
        let usage = "usage: prefs schema list | show <domain> | describe <domain> <key> | check <file> | c <file | domain> | swift <file | domain>"
        if args.first == "list" {
            guard args.count == 1 else { throw .usage(usage) }
            return list()
        }
        if args.first == "describe" {
            guard args.count == 3 else { throw .usage(usage) }
            return try describe(args[args.startIndex + 1], args.last!)
        }
        guard let verb = args.first, args.count == 2 else { throw .usage(usage) }
        let word = args.last!
        switch verb {
        case "show": try show(word)
        case "check": try check(word)
        case "c": let (app, source, schema) = try load(word); Output.standard.data(CHeader.generate(schema, application: app, source: source))
        case "swift": let (_, source, schema) = try load(word); Output.standard.data(SwiftKeys.generate(schema, source: source))
        default: throw .usage("unknown schema command \(quoted(verb)): list, show, describe, check, c or swift")
        }
    }

    /// A word names a file when it contains `/` or ends in `.plist`;
    /// otherwise it is an application ID whose installed schema is meant.
    static func isFile(_ word: String) -> Bool { word.contains("/") || word.hasSuffix(".plist") }

    /// The schema `word` names, the application its code is for (a file's
    /// name without `.plist`), and where it was read from.
    static func load(_ word: String) throws(Failure) -> (application: String, source: String, schema: SettingsSchema) {
        if isFile(word) {
            do throws(PrefsError) {
                var name = word.split(separator: "/").last.map(String.init) ?? word
                if name.hasSuffix(".plist") { name.removeLast(".plist".count) }
                return (name, word, try SettingsSchema.load(word))
            } catch {
                throw .refused("prefs: \(shown(error.message))")
            }
        }
        let app = try application(word)
        return try installed(app, word)
    }

    private static func application(_ word: String) throws(Failure) -> String {
        do throws(PrefsError) {
            return try PreferencesStore.canonicalApplication(Target.isGlobalName(word) ? globalDomainName : word)
        } catch {
            throw .refused("prefs: cannot use \(quoted(word)) as a domain: \(shown(error.message))")
        }
    }

    private static func installed(_ app: String, _ word: String) throws(Failure) -> (application: String, source: String, schema: SettingsSchema) {
        let store = PreferencesStore.shared
        let found: (path: String, schema: SettingsSchema)?
        do throws(PrefsError) { found = try store.installedSchema(application: app) } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        guard let found else {
            let places = store.locations.schemaPaths(of: app).joined(separator: ", ")
            throw .refused("prefs: no schema is installed for \(shown(word)) (looked for \(places))")
        }
        return (app, found.path, found.schema)
    }

    /// `schema show`: the installed schema's path, then each key with its
    /// type, default, values, title and description.
    static func show(_ word: String) throws(Failure) {
        let (_, path, schema) = try installed(try application(word), word)
        Output.standard.line("schema: \(shown(path))")
        for s in schema.keyed {
            Output.standard.line(shown(s.key!))
            var type = s.type
            if s.minimum != nil || s.maximum != nil {
                type += " (\(s.minimum.map(number) ?? "") ... \(s.maximum.map(number) ?? ""))"
            }
            Output.standard.line("  type: \(shown(type))")
            if let d = s.defaultValue { Output.standard.line("  default: \(shown(d))") }
            if let v = s.values { Output.standard.line("  values: \(OldStylePlist.format(.array(v)))") }
            if let t = s.title { Output.standard.line("  title: \(shown(t))") }
            if let d = s.description { Output.standard.line("  description: \(shown(d))") }
        }
    }

    /// `schema list`: one line per installed schema, `<application>  <file>
    /// <n> keys`, or its problem.
    static func list() {
        for s in PreferencesStore.shared.installedSchemas() {
            if let problem = s.problem {
                Output.standard.line("\(shown(s.application))  \(shown(s.path))  unusable: \(shown(problem.message))")
            } else {
                let n = s.keys ?? 0
                Output.standard.line("\(shown(s.application))  \(shown(s.path))  \(n) key\(n == 1 ? "" : "s")")
            }
        }
    }

    /// `schema describe <domain> <key>`: what the installed schema says of
    /// one key (as ``PreferencesStore/schemaDescription(forKey:application:)``).
    static func describe(_ word: String, _ key: String) throws(Failure) {
        let app = try application(word)
        let (_, path, _) = try installed(app, word)
        let found: SchemaKey?
        do throws(PrefsError) { found = try PreferencesStore.shared.schemaDescription(forKey: key, application: app) } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        guard let d = found else { throw .refused("prefs: the schema of \(shown(word)) (\(shown(path))) does not name \(shown(key))") }
        for line in lines(d) { Output.standard.line(line) }
    }

    /// The lines `schema describe` prints for `d`.
    static func lines(_ d: SchemaKey) -> [String] {
        var out = [shown(d.key)]
        out.append("  specifier: \(shown(d.specifierType))")
        out.append("  type: \(d.valueType ?? "any (the schema does not bind this key)")")
        if let t = d.title { out.append("  title: \(shown(t))") }
        if let t = d.description { out.append("  description: \(shown(t))") }
        if let v = d.defaultValue { out.append("  default: \(SettingsSchema.oneLine(v))") }
        if d.minimum != nil || d.maximum != nil {
            out.append("  range: \(d.minimum.map(SettingsSchema.numberText) ?? "") ... \(d.maximum.map(SettingsSchema.numberText) ?? "")")
        }
        if let values = d.values {
            out.append("  values:")
            for (i, v) in values.enumerated() {
                let text = SettingsSchema.oneLine(v)
                if let titles = d.titles { out.append("    \(text)  \(shown(titles[i]))") } else { out.append("    \(text)") }
            }
        }
        if let a = d.accepts { out.append("  accepts: \(a)") }
        out.append("  file: \(shown(d.file))")
        return out
    }

    private static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }

    /// `schema check`: "<file>: OK", or every problem and status 1.
    static func check(_ path: String) throws(Failure) {
        let schema: SettingsSchema
        do throws(PrefsError) { schema = try SettingsSchema.load(path) } catch {
            throw .refused("prefs: \(shown(error.message))")
        }
        let problems = schema.problems
        if problems.isEmpty {
            Output.standard.line("\(shown(path)): OK")
            return
        }
        throw .refused(problems.map { "\(shown(path)): \(shown($0))" }.joined(separator: "\n"))
    }
}
