import Foundation
import Testing

@testable import PrefsCore

// Installed schemas as a store sees them, which layer answers a read, and
// checking a schema's defaults against its specifiers.

private let app = "com.example.schema"

private func schemaText(_ specifiers: String) -> String { "{ PreferenceSpecifiers = (\(specifiers)); }" }

/// Runs `body` on a thread whose stack is `bytes` long and waits for it:
/// a walk that recursed once per file would overflow it.
private func onSmallStack(_ bytes: Int, _ body: @escaping @Sendable () -> Void) {
    final class Job: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, bytes)
    var thread = pthread_t()
    let started = pthread_create(
        &thread, &attributes,
        { arg in
            Unmanaged<Job>.fromOpaque(arg!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Job(body)).toOpaque())
    guard started == 0 else {
        Issue.record("pthread_create failed: \(started)")
        return
    }
    pthread_join(thread, nil)
}

/// What a test thread found, read once it has been joined.
private final class Findings: @unchecked Sendable {
    var items: [String] = []
}

@Suite struct SchemaTests {
    private func store(_ box: StoreSandbox, dirs: [String]) -> PreferencesStore {
        let l = box.locations
        let s = PreferencesStore(
            locations: Locations(
                userDirectory: l.userDirectory, systemDirectory: l.systemDirectory, managedDirectory: l.managedDirectory,
                hostID: l.hostID, userName: l.userName, runtimeDirectory: l.runtimeDirectory, schemaDirectories: dirs),
            arguments: ["test-program"])
        return s
    }

    private func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func defaultsAreTheLastLayerAndTheFirstDirectoryWins() throws {
        try inSandbox { box in
            let home = box.root + "/data", sys = box.root + "/sys"
            try write("\(sys)/\(app).plist", schemaText("{ Key = A; DefaultValue = sys; }, { Key = B; DefaultValue = sys; }"))
            try write("\(home)/\(app).plist", schemaText("{ Key = A; DefaultValue = home; }, { Type = PSChildPaneSpecifier; File = Pane; }"))
            try write("\(home)/Pane.plist", schemaText("{ Key = C; DefaultValue = pane; }"))
            let s = store(box, dirs: [home, sys])
            #expect(try s.value(forKey: "A", application: app) == .string("home"))
            #expect(try s.value(forKey: "B", application: app) == nil)
            #expect(try s.value(forKey: "C", application: app) == .string("pane"))
            #expect(try s.valueAndSource(forKey: "A", application: app)?.source == PreferenceSource(.schema, domain: app))

            try s.register(["A": .string("registered")], application: app)
            try s.set([("A", .string("user"))], in: DomainID(application: app, user: .current, host: .any))
            let all = try s.sources(forKey: "A", application: app)
            #expect(all.map(\.source.description) == ["app", "registration", "schema"])
            #expect(all.map(\.value) == [.string("user"), .string("registered"), .string("home")])
            #expect(try s.valueIgnoringDefaults(forKey: "C", application: app) == nil)
        }
    }

    @Test func aBrokenSchemaIsReportedAndContributesNothing() throws {
        try inSandbox { box in
            let home = box.root + "/data"
            try write("\(home)/\(app).plist", "{ PreferenceSpecifiers = ( <<<")
            let s = store(box, dirs: [home])
            #expect(try s.value(forKey: "A", application: app) == nil)
            let problems = try s.problems(application: app)
            #expect(problems.count == 1 && problems[0].code == .corruptFile)
            #expect(throws: PrefsError.self) { try s.installedSchema(application: app) }

            // Repaired while the store lives: picked up at synchronize.
            try write("\(home)/\(app).plist", schemaText("{ Key = A; DefaultValue = fixed; }"))
            _ = try? s.synchronize(application: app)
            #expect(try s.value(forKey: "A", application: app) == .string("fixed"))
            #expect(try s.problems(application: app).isEmpty)
        }
    }

    /// The schema decides whether a stored value counts, so it is read at
    /// the first read of the application, stored key or not, and once.
    @Test func theSchemaIsReadAtTheFirstReadOnce() throws {
        try inSandbox { box in
            let home = box.root + "/data"
            try write("\(home)/\(app).plist", schemaText("{ Key = A; DefaultValue = schema; }"))
            let writer = box.store()
            try writer.set([("Stored", .integer(1))], in: DomainID(application: app, user: .current, host: .any))
            _ = try writer.synchronize(application: app)
            let s = store(box, dirs: [home])
            let prefs = try Preferences(applicationID: app, store: s)
            #expect(s.withLocked { $0.schemas.isEmpty })
            #expect(prefs.object(forKey: "Stored") == .integer(1))
            #expect(s.withLocked { $0.schemas[app]?.path } == "\(home)/\(app).plist")
            #expect(prefs.object(forKey: "A") == .string("schema"))
            #expect(prefs.object(forKey: "Missing") == nil)
        }
    }

    /// A chain of child panes longer than a schema may span: every reader
    /// reports it, on a thread with a small stack too (the walk does not
    /// recurse), and the other schemas of the directory still work and
    /// are still listed.
    @Test func aLongChainOfPanesIsRefusedWithoutRecursion() throws {
        try inSandbox { box in
            let home = box.root + "/data"
            let chain = "com.example.chain", length = 3000
            func name(_ i: Int) -> String { i == 0 ? chain : "c\(i)" }
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            var written = 0
            for i in 0..<length {
                let pane = i + 1 < length ? ", { Type = PSChildPaneSpecifier; File = \(name(i + 1)); }" : ""
                let text = schemaText("{ Key = K\(i); DefaultValue = \(i); }\(pane)")
                guard let f = fopen("\(home)/\(name(i)).plist", "w") else { break }
                if fputs(text, f) >= 0 && fclose(f) == 0 { written += 1 }
            }
            #expect(written == length)
            try write("\(home)/\(app).plist", schemaText("{ Key = A; DefaultValue = fine; }"))
            // The last `maximumFiles` files of the chain are a schema that
            // fits exactly; one more file is too many.
            let limit = SettingsSchema.maximumFiles
            let fits = "\(home)/\(name(length - limit)).plist", over = "\(home)/\(name(length - limit - 1)).plist"
            let s = store(box, dirs: [home])
            let found = Findings()
            onSmallStack(256 * 1024) {
                do throws(PrefsError) {
                    let schema = try SettingsSchema.load(fits)
                    found.items.append("fits: \(schema.files.count) files, \(schema.defaults.count) defaults")
                } catch { found.items.append("fits: \(error.message)") }
                do throws(PrefsError) {
                    _ = try SettingsSchema.load(over)
                    found.items.append("over: loaded")
                } catch { found.items.append("over: \(error.code)") }
                do throws(PrefsError) {
                    _ = try SettingsSchema.load("\(home)/\(chain).plist")
                    found.items.append("root: loaded")
                } catch { found.items.append("root: \(error.message)") }
                found.items.append("read: \(String(describing: try? s.value(forKey: "K0", application: chain)))")
                let problems = (try? s.problems(application: chain)) ?? []
                found.items.append("problems: \(problems.map(\.code))")
                found.items.append("other: \(String(describing: try? s.value(forKey: "A", application: app)))")
                found.items.append(
                    "list: "
                        + s.installedSchemas().map { "\($0.application) \($0.keys.map(String.init) ?? "unusable")" }.joined(separator: ", "))
            }
            #expect(
                found.items == [
                    "fits: \(limit) files, \(limit) defaults", "over: malformed",
                    "root: \(home)/\(chain).plist: more than \(limit) files with its child panes (at most \(limit) are read)",
                    "read: nil", "problems: [PrefsCore.PrefsError.Code.corruptFile]", "other: Optional(fine)",
                    "list: \(chain) unusable, \(app) 1",
                ])
        }
    }

    @Test func checkNamesEveryDefaultThatDoesNotFit() throws {
        let good = try SettingsSchema.parse(
            Array(
                schemaText(
                    "{ Type = PSMultiValueSpecifier; Key = M; DefaultValue = a; Values = (a, b); Titles = (A, B); }, { Type = PSTextFieldSpecifier; Key = T; DefaultValue = x; }"
                ).utf8), name: "good")
        #expect(good.problems.isEmpty)
        let bad = try SettingsSchema.parse(
            Array(
                schemaText(
                    "{ Type = PSMultiValueSpecifier; Key = M; DefaultValue = c; Values = (a, b); }, { Type = PSSliderSpecifier; Key = S; DefaultValue = x; }, { Type = PSToggleSwitchSpecifier; Key = B; }, { Type = PSWhatever; Key = W; DefaultValue = 1; }"
                ).utf8), name: "bad")
        #expect(
            bad.problems == [
                "M: DefaultValue c is not one of Values", "S: DefaultValue of a slider is a string, not a number",
                "B: no DefaultValue", "W: unknown Type \"PSWhatever\"",
            ])
    }
}
