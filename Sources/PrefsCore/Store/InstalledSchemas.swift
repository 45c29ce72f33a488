// Installed schemas: an application's settings schema found in the data
// directories (``Locations/schemaDirectories``), whose defaults are the last
// layer of its search list. Read once, kept with the stamps of the files it
// came from, and read again when one of them (or which file comes first)
// changed; a schema that does not parse is reported like a corrupt domain
// file and contributes nothing.

extension PreferencesStore {
    /// One application's installed schema as this store last read it.
    /// A class: every set and read that looks at it takes a reference
    /// rather than copying each field. Made once per reading and never
    /// changed once stored.
    final class InstalledSchema {
        // Written only while it is read (``readSchema``), under the
        // store's lock like every access: no exclusivity check.
        /// The file that is the schema: the first candidate that exists.
        @exclusivity(unchecked) var path: String?
        /// Every file read (the schema, its panes) and its stamp then.
        @exclusivity(unchecked) var files: [(path: String, stamp: FileSystem.Stamp)] = []
        /// The defaults it declares; empty when none or when it is unusable.
        @exclusivity(unchecked) var values = PropertyListDictionary()
        /// What each key the schema binds accepts (writes are refused and
        /// stored values ignored when they break it).
        @exclusivity(unchecked) var constraints: [PropertyList.Key: SettingsSchema.Constraint] = [:]
        /// The parsed schema, for tools; nil when none or unusable.
        @exclusivity(unchecked) var schema: SettingsSchema?
        /// Why it could not be used.
        @exclusivity(unchecked) var problem: PrefsError?
    }

    /// Looks for `v`'s installed schema if no read has yet, and adds its
    /// defaults to the view. The schema is the last layer, so it only
    /// fills keys no other layer has, unless it binds keys (a stored value
    /// may then be ignored) or declares languages: the view is rebuilt.
    func loadSchema(_ v: SearchView, _ s: inout State) {
        guard !v.schemaChecked else { return }
        v.schemaChecked = true
        let schema = installedSchema(v.application, &s)
        let values = schema.values
        guard !values.isEmpty || !schema.constraints.isEmpty else { return }
        // Without a merged view, reads look the schema layer up like any
        // other. The languages and locale a view makes up give way to a
        // schema's.
        guard v.merged != nil else { return }
        if !schema.constraints.isEmpty || values["AppleLanguages"] != nil || values["AppleLocale"] != nil {
            rebuild(v, &s)
            return
        }
        for (k, x) in values where v.merged![k] == nil { v.merged![k] = x }
    }

    /// The value a read of `key` returns along `v`'s search list. The
    /// installed schema is looked for at the view's first read (a few
    /// `stat` calls), since it decides whether a stored value counts.
    @inline(__always)
    func answered(_ key: PropertyList.Key, _ v: SearchView, _ s: inout State) -> PropertyList? {
        if !v.schemaChecked { loadSchema(v, &s) }
        return searched(key, v, &s)
    }

    /// `found`, the first value of `key` along `app`'s layers, as a read
    /// returns it: the schema's default (nil when it declares none) when
    /// `found` breaks what the installed schema says the key accepts.
    @inline(__always)
    func enforced(_ key: PropertyList.Key, _ found: PropertyList?, _ app: String, _ s: borrowing State) -> PropertyList? {
        guard let found, let schema = s.schemas[app], !schema.constraints.isEmpty, let c = schema.constraints[key], !c.accepts(found) else {
            return found
        }
        return schema.values[key]
    }

    /// Replaces in `merged` the values that break `app`'s installed
    /// schema with its defaults.
    func enforce(_ merged: inout PropertyListDictionary, _ app: String, _ s: borrowing State) {
        guard let schema = s.schemas[app], !schema.constraints.isEmpty else { return }
        for (k, c) in schema.constraints {
            guard let x = merged[k], !c.accepts(x) else { continue }
            merged[k] = schema.values[k]
        }
    }

    /// Refuses, naming the key and what it accepts, a change that breaks
    /// `app`'s installed schema (`.schemaViolation`); nothing is changed.
    func checkSchema<C: Collection<(String, PropertyList?)>>(_ changes: C, of v: SearchView, _ s: inout State) throws(PrefsError) {
        let app = v.application
        let schema = installedSchema(of: v, &s)
        guard !schema.constraints.isEmpty else { return }
        for (key, value) in changes {
            guard let value, let c = schema.constraints[PropertyList.Key(key)], !c.accepts(value) else { continue }
            let shown = SettingsSchema.oneLine(value)
            throw PrefsError(
                .schemaViolation,
                "\(OldStylePlist.format(.string(key))) of \(app) accepts \(c.summary) (its installed schema), not \(shown); nothing was changed")
        }
    }

    /// `app`'s view with every layer, its installed schema included.
    func fullView(_ app: String, _ s: inout State) -> SearchView {
        let v = view(app, &s)
        loadSchema(v, &s)
        return v
    }

    /// `app`'s installed schema, read at first use.
    func installedSchema(_ app: String, _ s: inout State) -> InstalledSchema {
        if let known = s.schemas[app] { return known }
        let found = readSchema(app, &s)
        s.schemas[app] = found
        s.views[app]?.installedSchema = found
        return found
    }

    /// ``installedSchema(_:_:)`` of `v`'s application, without hashing its
    /// name: the view keeps the one in `s.schemas`, replaced with it.
    func installedSchema(of v: SearchView, _ s: inout State) -> InstalledSchema {
        if let known = v.installedSchema { return known }
        let found = installedSchema(v.application, &s)
        v.installedSchema = found
        return found
    }

    private func readSchema(_ app: String, _ s: inout State) -> InstalledSchema {
        let out = InstalledSchema()
        for candidate in locations.schemaPaths(of: app) {
            // Unexaminable candidates (a directory without search
            // permission) are skipped like missing ones.
            guard ((try? FileSystem.stamp(candidate)) ?? nil) != nil else { continue }
            out.path = candidate
            do throws(PrefsError) {
                let schema = try SettingsSchema.load(candidate)
                out.files = schema.files
                out.values = schema.defaults
                out.constraints = schema.constraints
                out.schema = schema
                s.unreported[candidate] = nil
            } catch {
                let problem = PrefsError(error.code == .io ? .io : .corruptFile, "schema \(error.message)")
                if s.schemas[app]?.problem?.message != problem.message { s.unreported[candidate] = problem }
                out.problem = problem
                out.files = (try? FileSystem.stamp(candidate)).flatMap { $0 }.map { [(candidate, $0)] } ?? []
            }
            break
        }
        return out
    }

    /// Whether the files of `known` changed, or another candidate now
    /// comes first: a few `stat` calls, made only when the store re-checks
    /// its files (a change counter moved, the watcher saw a change,
    /// synchronize).
    func changedSchemas(_ app: String, _ known: InstalledSchema) -> Bool {
        for candidate in locations.schemaPaths(of: app) {
            let stamp = (try? FileSystem.stamp(candidate)) ?? nil
            if candidate == known.path {
                guard let stamp, stamp == known.files.first?.stamp else { return true }
                for f in known.files.dropFirst() where ((try? FileSystem.stamp(f.path)) ?? nil) != f.stamp { return true }
                return false
            }
            if stamp != nil { return true }
        }
        return known.path != nil
    }

    /// The applications whose installed schema changed on disk.
    func changedSchemas(_ s: borrowing State) -> [String] {
        s.schemas.compactMap { app, known in changedSchemas(app, known) ? app : nil }
    }

    /// Reads the schemas of `apps` again; the caller rebuilds the views.
    func reloadSchemas(_ apps: [String], _ s: inout State) {
        for app in apps {
            let found = readSchema(app, &s)
            if let old = s.schemas[app]?.path, old != found.path { s.unreported[old] = nil }
            s.schemas[app] = found
            s.views[app]?.installedSchema = found
        }
    }

    /// The directories to watch for schemas being installed or changed:
    /// those that exist when watching starts.
    var schemaWatchDirectories: [String] {
        locations.schemaDirectories.filter { ((try? FileSystem.stamp($0)) ?? nil) != nil }
    }

    /// `app`'s installed schema, parsed, for tools: nil when it has none;
    /// throws why it cannot be used.
    package func installedSchema(application app: String) throws(PrefsError) -> (path: String, schema: SettingsSchema)? {
        let app = try Self.canonicalApplication(app)
        let found = try withState { (s: inout State) throws(PrefsError) in
            noticeChanges(&s)
            refreshLoaded(&s)
            return installedSchema(app, &s)
        }
        if let problem = found.problem { throw problem }
        guard let path = found.path, let schema = found.schema else { return nil }
        return (path, schema)
    }

    /// The installed schemas: for each application whose `<id>.plist` is
    /// the first in ``Locations/schemaDirectories``, its file and the
    /// number of keys it names, or why it cannot be used. A file that
    /// another one of the directory names as a child pane is a pane, not
    /// listed. Sorted by application. Each file is read once, however many
    /// schemas share it.
    package func installedSchemas() -> [(application: String, path: String, keys: Int?, problem: PrefsError?)] {
        var seen = Set<String>()
        var candidates: [(application: String, path: String)] = []
        for dir in locations.schemaDirectories {
            for name in FileSystem.list(dir) where name.hasSuffix(".plist") && !name.hasPrefix(".") {
                let app = String(name.dropLast(".plist".count))
                guard ApplicationID.problem(app) == nil, seen.insert(app).inserted else { continue }
                candidates.append((app, "\(dir)/\(name)"))
            }
        }
        var parts: [String: SettingsSchema.Part] = [:]
        var panes = Set<String>()
        for c in candidates {
            guard let part = try? SettingsSchema.Part(c.path) else { continue }
            parts[c.path] = part
            for pane in part.panes where pane != c.path { panes.insert(pane) }
        }
        var found: [(application: String, path: String, keys: Int?, problem: PrefsError?)] = []
        for (app, path) in candidates where !panes.contains(path) {
            do throws(PrefsError) {
                let schema = try SettingsSchema.load(path, parts: &parts)
                found.append((app, path, schema.keyed.count + (schema.specifiers.isEmpty ? schema.defaults.count : 0), nil))
            } catch {
                found.append((app, path, nil, error))
            }
        }
        return found.sorted { PropertyList.Key($0.application) < PropertyList.Key($1.application) }
    }
}
