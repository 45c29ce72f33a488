import Foundation
import Testing

@testable import PrefsCore

// The store: the search list, typed coercions, application IDs, where files
// go and with which modes, the argument and language domains, settings
// schemas, all-or-nothing multiple sets, and what happens to files that do
// not parse, symlinks, existing modes and failed writes.

private let app = "com.example.app"
private let suite1 = "com.example.suite1"
private let suite2 = "com.example.suite2"

private func own(_ a: String = app) -> DomainID { DomainID(application: a, user: .current, host: .any) }

@Suite("Store")
struct StoreTests {

    // MARK: The search list

    /// How the stored layers are filled: written as files before the store
    /// first reads them, or set through the store.
    enum Filling: CaseIterable, Sendable { case files, sets }

    /// One key in every layer of the search list; the layers are taken away
    /// from the top, one by one, and each time the next layer must answer.
    @Test(arguments: Filling.allCases)
    func searchListOrder(filling: Filling) throws {
        try inSandbox { box in
            // The language domains are the user's: whatever this process's
            // environment says, a store reports them in AppleLanguages. (Asked
            // of another store, so that this one reads the files only once
            // they are all written.)
            let languages = try #require(try box.store().value(forKey: "AppleLanguages", application: app)?.arrayValue)
            let language = try #require(languages.first?.stringValue)

            // (label, domain) for every stored layer, in search order.
            let stored: [(String, DomainID)] = [
                ("app-current-user-current-host", DomainID(application: app, user: .current, host: .current)),
                ("app-current-user-any-host", DomainID(application: app, user: .current, host: .any)),
                ("suite2-current-user-current-host", DomainID(application: suite2, user: .current, host: .current)),
                ("suite2-current-user-any-host", DomainID(application: suite2, user: .current, host: .any)),
                ("suite1-current-user-current-host", DomainID(application: suite1, user: .current, host: .current)),
                ("suite1-current-user-any-host", DomainID(application: suite1, user: .current, host: .any)),
                ("global-current-user-current-host", DomainID(application: globalDomainName, user: .current, host: .current)),
                ("global-current-user-any-host", DomainID(application: globalDomainName, user: .current, host: .any)),
                ("app-any-user-current-host", DomainID(application: app, user: .any, host: .current)),
                ("app-any-user-any-host", DomainID(application: app, user: .any, host: .any)),
                ("suite2-any-user-current-host", DomainID(application: suite2, user: .any, host: .current)),
                ("suite2-any-user-any-host", DomainID(application: suite2, user: .any, host: .any)),
                ("suite1-any-user-current-host", DomainID(application: suite1, user: .any, host: .current)),
                ("suite1-any-user-any-host", DomainID(application: suite1, user: .any, host: .any)),
                ("global-any-user-current-host", DomainID(application: globalDomainName, user: .any, host: .current)),
                ("global-any-user-any-host", DomainID(application: globalDomainName, user: .any, host: .any)),
            ]
            let store = box.store(arguments: ["test-program", "-K", "arguments"])
            for (label, id) in stored {
                switch filling {
                case .files:
                    writePlist(["K": PropertyList.string(label)], to: box.expectedPath(id.application, user: id.user, host: id.host))
                case .sets:
                    try store.set([("K", .string(label))], in: id)
                }
            }
            // Managed values last: once they are in force, sets of the key are refused.
            writePlist(["K": "managed-user"], to: box.managedPath(app, userOnly: true))
            writePlist(["K": "managed-all"], to: box.managedPath(app, userOnly: false))
            try store.synchronize(application: app)
            try store.addSuite(suite1, to: app)
            try store.addSuite(suite2, to: app)  // newest: searched first
            store.setVolatileDomain(language, plistDict(["K": "language"]))
            try store.register(plistDict(["K": "registration-any-app"]), application: globalDomainName)
            try store.register(plistDict(["K": "registration-app"]), application: app)

            var layers: [(String, () throws -> Void)] = [
                ("managed-user", { unlink(box.managedPath(app, userOnly: true)) }),
                ("managed-all", { unlink(box.managedPath(app, userOnly: false)) }),
                ("arguments", { store.setArguments(["test-program"]) }),
            ]
            for (label, id) in stored {
                layers.append(
                    (
                        label,
                        {
                            switch filling {
                            case .files: unlink(box.expectedPath(id.application, user: id.user, host: id.host))
                            case .sets: try store.set([("K", nil)], in: id)
                            }
                        }
                    ))
            }
            layers.append(("language", { store.setVolatileDomain(language, nil) }))

            for (label, remove) in layers {
                let got = try store.value(forKey: "K", application: app)
                #expect(got?.stringValue == label, "expected the layer \(label) to answer, got \(render(got))")
                #expect(try store.dictionary(application: app)["K"]?.stringValue == label)
                try remove()
                try store.synchronize(application: app)  // picks up removed files
            }
            #expect(try store.value(forKey: "K", application: app)?.stringValue == "registration-app")
            // The registration for every app answers an app without its own.
            #expect(try store.value(forKey: "K", application: "com.example.other")?.stringValue == "registration-any-app")
            // Without the suites, nothing else changes.
            try store.removeSuite(suite2, from: app)
            try store.removeSuite(suite1, from: app)
            #expect(try store.value(forKey: "K", application: app)?.stringValue == "registration-app")
        }
    }

    /// A suite is searched only by the app it was added to, and after its
    /// own domains; removing it takes it out of the search list.
    @Test func suitesBelongToOneApp() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("S", "suite")], in: own(suite1))
            #expect(try store.value(forKey: "S", application: app) == nil)
            try store.addSuite(suite1, to: app)
            #expect(try store.value(forKey: "S", application: app)?.stringValue == "suite")
            #expect(try store.value(forKey: "S", application: "com.example.other") == nil)
            try store.set([("S", "own")], in: own())
            #expect(try store.value(forKey: "S", application: app)?.stringValue == "own")
            try store.set([("S", nil)], in: own())
            try store.removeSuite(suite1, from: app)
            #expect(try store.value(forKey: "S", application: app) == nil)
        }
    }

    // MARK: Typed coercions

    @Test func integerCoercions() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            let cases: [(String, PropertyList, Int64?)] = [
                ("int", .integer(42), 42),
                ("int 2^40", .integer(Int64(1) << 40), Int64(1) << 40),
                ("int -2^40", .integer(-(Int64(1) << 40)), -(Int64(1) << 40)),
                ("int max", .integer(Int64.max), Int64.max),
                ("int min", .integer(Int64.min), Int64.min),
                ("uint 2^63", .integer(UInt64(1) << 63), nil),
                ("uint max", .integer(UInt64.max), nil),
                ("true", .boolean(true), 1),
                ("false", .boolean(false), 0),
                ("real 3.9", .real(3.9), 3),
                ("real -3.9", .real(-3.9), -3),
                ("real -0.5", .real(-0.5), 0),
                ("real 2^40", .real(1_099_511_627_776.0), 1 << 40),
                ("real -2^63", .real(-9_223_372_036_854_775_808.0), Int64.min),
                ("real 2^63", .real(9_223_372_036_854_775_808.0), nil),
                ("real 1e300", .real(1e300), nil),
                ("real -1e300", .real(-1e300), nil),
                ("real inf", .real(.infinity), nil),
                ("real nan", .real(.nan), nil),
                ("string -12 spaced", .string("  -12 "), -12),
                ("string +7", .string("+7"), 7),
                ("string 2^40", .string("1099511627776"), 1 << 40),
                ("string int max", .string("9223372036854775807"), Int64.max),
                ("string int min", .string("-9223372036854775808"), Int64.min),
                ("string 2^63", .string("9223372036854775808"), nil),
                ("string huge", .string("123456789012345678901234567890"), nil),
                ("string 12abc", .string("12abc"), nil),
                ("string 1.5", .string("1.5"), nil),
                ("string 0x10", .string("0x10"), nil),
                ("string 1 2", .string("1 2"), nil),
                ("string sign only", .string("-"), nil),
                ("string empty", .string(""), nil),
                ("string spaces", .string("   "), nil),
                ("string YES", .string("YES"), nil),
                ("date", .date(0), nil),
                ("data", .data([1]), nil),
                ("array", .array([.integer(1)]), nil),
                ("dictionary", .dictionary(["a": PropertyList.integer(1)] as [String: PropertyList]), nil),
            ]
            try store.set(cases.map { ($0.0, $0.1) }, in: own())
            for (key, value, expected) in cases {
                #expect(Coercion.integer(value) == expected, "\(key): \(render(value))")
            }
            #expect(prefs.integer(forKey: "absent") == 0)
        }
    }

    @Test func booleanCoercions() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            let cases: [(String, PropertyList, Bool?)] = [
                ("true", .boolean(true), true),
                ("false", .boolean(false), false),
                ("int 0", .integer(0), false),
                ("int 17", .integer(17), true),
                ("int -1", .integer(-1), true),
                // Not truncated to 32 bits: 2^32 and 2^40 are non-zero.
                ("int 2^32", .integer(Int64(1) << 32), true),
                ("int 2^40", .integer(Int64(1) << 40), true),
                ("uint max", .integer(UInt64.max), true),
                ("YES", .string("YES"), true),
                ("yes", .string("yes"), true),
                ("yEs", .string("yEs"), true),
                ("no", .string("no"), false),
                ("NO", .string("NO"), false),
                ("TRUE", .string("TRUE"), true),
                ("true string", .string("true"), true),
                ("False", .string("False"), false),
                ("string 0", .string("0"), false),
                ("string 17", .string("17"), true),
                ("string -3", .string("-3"), true),
                ("string 2^32", .string("4294967296"), true),
                ("string y", .string("y"), nil),
                ("string on", .string("on"), nil),
                ("string yess", .string("yess"), nil),
                ("string 1.0", .string("1.0"), nil),
                ("string empty", .string(""), nil),
                // Reals are not valid booleans.
                ("real 1.0", .real(1.0), nil),
                ("real 0.0", .real(0.0), nil),
                ("real 0.5", .real(0.5), nil),
                ("date", .date(1), nil),
                ("data", .data([1]), nil),
                ("array", .array([]), nil),
            ]
            try store.set(cases.map { ($0.0, $0.1) }, in: own())
            for (key, value, expected) in cases {
                #expect(Coercion.boolean(value) == expected, "\(key): \(render(value))")
            }
            #expect(prefs.bool(forKey: "absent") == false)
        }
    }

    // MARK: Application IDs

    static let refusedIDs: [String] = ["", String(repeating: "a", count: 256), "a/b", "/abs", ".", "..", "a\u{0}b"]

    /// Every entry point refuses a bad application ID with
    /// `.invalidApplicationID`, and nothing is read or written on disk.
    @Test(arguments: refusedIDs)
    func refusedApplicationID(id: String) throws {
        try inSandbox { box in
            let store = box.store()
            let before = box.allFiles()
            func refused(_ what: String, _ body: () throws -> Void) {
                expectPrefsError(.invalidApplicationID, "\(what), ID \(id.debugDescription)", body)
            }
            refused("value") { _ = try store.value(forKey: "k", application: id) }
            refused("dictionary") { _ = try store.dictionary(application: id) }
            refused("isForced") { _ = try store.isForced("k", application: id) }
            refused("set") { try store.set([("k", "v")], in: own(id)) }
            refused("set any user") { try store.set([("k", "v")], in: DomainID(application: id, user: .any, host: .current)) }
            refused("values") { _ = try store.values(in: own(id)) }
            refused("synchronize app") { try store.synchronize(application: id) }
            refused("synchronize domain") { try store.synchronize(own(id)) }
            refused("register") { try store.register(plistDict(["k": "v"]), application: id) }
            refused("addSuite as app") { try store.addSuite(suite1, to: id) }
            refused("addSuite as suite") { try store.addSuite(id, to: app) }
            refused("Preferences") { _ = try Preferences(applicationID: id, store: store) }
            try store.synchronizeAll()
            #expect(box.allFiles() == before, "files appeared: \(box.allFiles())")
            #expect(box.allFiles().isEmpty)
        }
    }

    /// The limits are exact: 249 bytes is the longest application ID, so
    /// that its file name, "<id>.plist", fits in the 255 bytes Linux allows
    /// in a name; 250 is refused. A current-host file takes the host id too.
    @Test func longestApplicationID() throws {
        try inSandbox { box in
            let store = box.store()
            let writable = String(repeating: "c", count: 249)
            try store.set([("k", "v")], in: own(writable))
            #expect(try store.value(forKey: "k", application: writable)?.stringValue == "v")
            try store.synchronize(application: writable)
            #expect(readPlist(box.expectedPath(writable)) == plistDict(["k": "v"]))
            expectPrefsError(.invalidApplicationID) { try store.set([("k", "v")], in: own(String(repeating: "b", count: 250))) }
            // "<id>.testhost.plist": 255 - 7 - 8 = 240 bytes at most.
            try store.set([("k", "v")], in: DomainID(application: String(repeating: "d", count: 240), user: .current, host: .current))
            expectPrefsError(.invalidApplicationID) {
                try store.set([("k", "v")], in: DomainID(application: String(repeating: "d", count: 241), user: .current, host: .current))
            }
            #expect(ApplicationID.problem(String(repeating: "é", count: 124)) == nil)  // 248 bytes
            #expect(ApplicationID.problem(String(repeating: "é", count: 125)) != nil)  // 250 bytes
            #expect(ApplicationID.problem("...") == nil)
            #expect(ApplicationID.problem(".hidden") == nil)
        }
    }

    /// NSGlobalDomain names the global domain, stored as .GlobalPreferences.
    @Test func globalDomainNames() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("g", 1)], in: own(globalDomainName))
            try store.synchronizeAll()
            #expect(readPlist(box.config + "/.GlobalPreferences.plist")?["g"] == .integer(1))
            #expect(try store.value(forKey: "g", application: app) == .integer(1))
            #expect(try store.value(forKey: "g", application: globalDomainName) == .integer(1))
            #expect(!store.applications(user: .current, host: .any).contains(".GlobalPreferences"))
        }
    }

    // MARK: Files and modes

    /// Each domain is written where the contract says, with mode 0600, and
    /// the directories the library creates get 0700.
    @Test func filesAndModes() throws {
        try inSandbox(configSubpath: "home/.config", createConfig: false) { box in
            let store = box.store()
            let ids = [
                DomainID(application: app, user: .current, host: .any),
                DomainID(application: app, user: .current, host: .current),
                DomainID(application: app, user: .any, host: .any),
                DomainID(application: app, user: .any, host: .current),
                DomainID(application: globalDomainName, user: .current, host: .any),
                DomainID(application: globalDomainName, user: .any, host: .current),
            ]
            for (i, id) in ids.enumerated() {
                try store.set([("n", .integer(i))], in: id)
            }
            try store.synchronizeAll()
            for (i, id) in ids.enumerated() {
                let path = box.expectedPath(id.application, user: id.user, host: id.host)
                #expect(store.locations.path(of: id) == path)
                #expect(readPlist(path)?["n"] == .integer(i), "\(id) not at \(path); files: \(box.allFiles())")
                // The user's files are the user's; any-user files are for every user.
                let mode: mode_t = id.user == .current ? 0o600 : 0o644
                #expect(permissions(path) == mode, "\(path) has mode \(String(permissions(path) ?? 0, radix: 8))")
            }
            for dir in [box.root + "/home", box.config, box.config + "/ByHost"] {
                #expect(permissions(dir) == 0o700, "\(dir) has mode \(String(permissions(dir) ?? 0, radix: 8))")
            }
            #expect(permissions(box.system + "/ByHost") == 0o755)
            // Nothing but the domain files: no temporary files are left behind.
            #expect(
                box.allFiles() == [
                    "home/.config/.GlobalPreferences.plist",
                    "home/.config/ByHost/\(app).\(testHostID).plist",
                    "home/.config/\(app).plist",
                    "system/ByHost/.GlobalPreferences.\(testHostID).plist",
                    "system/ByHost/\(app).\(testHostID).plist",
                    "system/\(app).plist",
                ])
            #expect(store.applications(user: .current, host: .any) == [app])
            #expect(store.applications(user: .current, host: .current) == [app])
        }
    }

    /// A file that already exists keeps its mode when it is rewritten.
    @Test func existingModeIsKept() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            writePlist(["old": "x"], to: path)
            chmod(path, 0o640)
            let store = box.store()
            try store.set([("new", "y")], in: own())
            try store.synchronize(application: app)
            #expect(permissions(path) == 0o640)
            #expect(readPlist(path) == plistDict(["old": "x", "new": "y"]))
        }
    }

    /// A symlinked domain file stays a link: the file it points at is the
    /// one replaced.
    @Test func symlinkIsKept() throws {
        try inSandbox { box in
            let dotfiles = box.root + "/dotfiles"
            mkdirs(dotfiles)
            let target = dotfiles + "/\(app).plist"
            writePlist(["old": "x"], to: target)
            let path = box.expectedPath(app)
            #expect(symlink("../dotfiles/\(app).plist", path) == 0)
            let store = box.store()
            #expect(try store.value(forKey: "old", application: app)?.stringValue == "x")
            try store.set([("new", "y")], in: own())
            try store.synchronize(application: app)
            #expect(isSymlink(path), "the link was replaced by a file")
            #expect(readPlist(target) == plistDict(["old": "x", "new": "y"]))
            #expect(box.allFiles().filter { $0.contains(".tmp") }.isEmpty)
        }
    }

    // MARK: The argument domain

    @Test func argumentDomainParsing() throws {
        let args = [
            "/usr/bin/program",
            "-str", "hello",
            "-neg", "-5",  // a value starting with '-' makes no pair...
            "-arr", "(1, 2)",  // ...and "-5" is then a key whose value "-arr" starts with '-'
            "-dict", "{a = b;}",
            "-plain", "hello world",
            "-quoted", "\"a b\"",
            "-xml", "<plist version=\"1.0\"><integer>5</integer></plist>",
            "notakey", "value",
            "-", "dash",
            "-last",
        ]
        try inSandbox { box in
            let store = box.store(arguments: args)
            func v(_ k: String) throws -> PropertyList? { try store.value(forKey: k, application: app) }
            #expect(try v("str") == .string("hello"))
            #expect(try v("neg") == nil)
            #expect(try v("5") == nil)
            #expect(try v("arr") == .array([.string("1"), .string("2")]))
            #expect(try v("dict") == .dictionary(["a": PropertyList.string("b")] as [String: PropertyList]))
            #expect(try v("plain") == .string("hello world"))
            #expect(try v("quoted") == .string("a b"))
            #expect(try v("xml") == .integer(5))
            #expect(try v("notakey") == nil)
            #expect(try v("last") == nil)
            #expect(
                store.volatileDomain("NSArgumentDomain")
                    == plistDict([
                        "str": "hello", "arr": [.string("1"), .string("2")],
                        "dict": .dictionary(["a": PropertyList.string("b")] as [String: PropertyList]),
                        "plain": "hello world", "quoted": "a b", "xml": 5,
                    ]))
            // Replacing the arguments replaces the whole domain.
            store.setArguments(["program", "-other", "1"])
            #expect(try v("str") == nil)
            #expect(try v("other") == .string("1"))
            // Arguments beat the app's own domain but not managed values.
            try store.set([("other", "stored")], in: own())
            #expect(try v("other") == .string("1"))
            writePlist(["other": "managed"], to: box.managedPath(app, userOnly: false))
            try store.synchronize(application: app)
            #expect(try v("other") == .string("managed"))
            #expect(try store.isForced("other", application: app))
        }
    }

    // MARK: Languages

    /// AppleLanguages and AppleLocale come from the environment when no
    /// domain answers, and a domain answers before them. (The environment
    /// of this process is whatever the test runner has; see the child test
    /// below for fixed values.)
    @Test func derivedLanguageValues() throws {
        try inSandbox { box in
            let store = box.store()
            let expected = Languages.fromEnvironment()
            #expect(try store.value(forKey: "AppleLanguages", application: app) == .array(expected.list.map { .string($0) }))
            #expect(try store.value(forKey: "AppleLocale", application: app) == .string(expected.locale))
            try store.set([("AppleLocale", "xx_YY")], in: own())
            #expect(try store.value(forKey: "AppleLocale", application: app) == .string("xx_YY"))
            try store.set([("AppleLocale", nil)], in: own())
            #expect(try store.value(forKey: "AppleLocale", application: app) == .string(expected.locale))
            store.setArguments(["p", "-AppleLanguages", "(de, fr)"])
            #expect(try store.value(forKey: "AppleLanguages", application: app) == .array([.string("de"), .string("fr")]))
            #expect(try store.dictionary(application: app)["AppleLanguages"] == .array([.string("de"), .string("fr")]))
        }
    }

    @Test func languageTagsFromLocaleNames() {
        #expect(Languages.tag("fr_FR.UTF-8") == "fr-FR")
        #expect(Languages.tag("fr_FR.UTF-8@euro") == "fr-FR")
        #expect(Languages.tag("de") == "de")
        #expect(Languages.localeID("fr_FR.UTF-8") == "fr_FR")
        #expect(Languages.localeID("pt_BR@latin") == "pt_BR")
        #expect(Languages.localeID("") == nil)
    }

    /// With LANGUAGE and LC_ALL fixed before the process starts: the
    /// languages in order, the locale, and language domains searched in the
    /// user's order, only for languages of the user.
    @Test func languagesFromTheEnvironment() {
        let r = runChildTest(
            named: "languagesChild", role: "languages",
            environment: [
                "LANGUAGE": "de_DE.UTF-8:fr", "LC_ALL": "pt_BR.UTF-8",
                "LC_MESSAGES": "it_IT.UTF-8", "LANG": "es_ES.UTF-8",
            ])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("languagesChild() passed"), "the child test did not run:\n\(r.output)")
        let r2 = runChildTest(
            named: "languagesChild", role: "languages-lang-only",
            environment: ["LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "fr_FR.UTF-8"])
        #expect(r2.status == 0, "child failed:\n\(r2.output)")
        #expect(r2.output.contains("languagesChild() passed"), "the child test did not run:\n\(r2.output)")
    }

    @Test(.enabled(if: isChildRole("languages") || isChildRole("languages-lang-only")))
    func languagesChild() throws {
        try inSandbox { box in
            let store = box.store()
            func v(_ k: String) throws -> PropertyList? { try store.value(forKey: k, application: app) }
            if isChildRole("languages-lang-only") {
                #expect(try v("AppleLanguages") == .array([.string("fr-FR")]))
                #expect(try v("AppleLocale") == .string("fr_FR"))
                store.setVolatileDomain("fr-FR", plistDict(["L": "fr-FR"]))
                #expect(try v("L") == .string("fr-FR"))
                return
            }
            #expect(try v("AppleLanguages") == .array([.string("de-DE"), .string("fr")]))
            #expect(try v("AppleLocale") == .string("pt_BR"))
            store.setVolatileDomain("it-IT", plistDict(["L": "it-IT"]))  // not a language of the user
            #expect(try v("L") == nil)
            store.setVolatileDomain("fr", plistDict(["L": "fr", "F": "only-fr"]))
            #expect(try v("L") == .string("fr"))
            store.setVolatileDomain("de-DE", plistDict(["L": "de-DE"]))
            #expect(try v("L") == .string("de-DE"))
            #expect(try v("F") == .string("only-fr"))
            #expect(try store.dictionary(application: app)["L"] == .string("de-DE"))
            // Registration is searched after the language domains.
            try store.register(plistDict(["L": "registered", "R": "registered"]), application: app)
            #expect(try v("L") == .string("de-DE"))
            #expect(try v("R") == .string("registered"))
            store.setVolatileDomain("de-DE", nil)
            #expect(try v("L") == .string("fr"))
        }
    }

    // MARK: Settings schemas

    @Test func settingsSchemaWithChildPanes() throws {
        try inSandbox { box in
            let dir = box.root + "/Settings.bundle"
            mkdirs(dir)
            func spec(_ items: [String: PropertyList]) -> PropertyList { .dictionary(items) }
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSGroupSpecifier", "Title": "General"]),
                            spec(["Type": "PSToggleSwitchSpecifier", "Key": "toggle", "DefaultValue": true]),
                            spec(["Type": "PSTextFieldSpecifier", "Key": "noDefault"]),
                            spec(["Type": "PSTitleValueSpecifier", "Key": "dup", "DefaultValue": "root"]),
                            spec(["Type": "PSChildPaneSpecifier", "Title": "More", "File": "Child"]),
                        ]), "StringsTable": "Root",
                    ] as [String: PropertyList]), to: dir + "/Root.plist")
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSMultiValueSpecifier", "Key": "childKey", "DefaultValue": 5]),
                            spec(["Type": "PSTitleValueSpecifier", "Key": "dup", "DefaultValue": "child"]),
                            // A cycle back to the root: each file is read once, so the
                            // root's "dup" does not come back over the child's.
                            spec(["Type": "PSChildPaneSpecifier", "File": "Root"]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Grand"]),
                        ])
                    ] as [String: PropertyList]), to: dir + "/Child.plist")
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSSliderSpecifier", "Key": "grand", "DefaultValue": 0.5]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Child"]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Grand"]),
                        ])
                    ] as [String: PropertyList]), to: dir + "/Grand.plist")

            let defaults = try SettingsSchema.defaults(fromFile: dir + "/Root.plist")
            #expect(defaults == plistDict(["toggle": true, "dup": "child", "childKey": 5, "grand": 0.5]))

            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            try prefs.registerDefaults(fromFile: dir + "/Root.plist")
            #expect(prefs.bool(forKey: "toggle") == true)
            #expect(prefs.integer(forKey: "childKey") == 5)
            #expect(prefs.double(forKey: "grand") == 0.5)
            #expect(prefs.object(forKey: "noDefault") == nil)
            // Registration is memory only.
            try store.synchronizeAll()
            #expect(box.allFiles().allSatisfy { $0.hasPrefix("Settings.bundle/") })

            // A plain dictionary file registers as it is.
            writePlist(["plain": 1], to: box.root + "/plain.plist")
            try prefs.registerDefaults(fromFile: box.root + "/plain.plist")
            #expect(prefs.integer(forKey: "plain") == 1)
        }
    }

    /// A schema whose child pane is missing or broken registers nothing.
    @Test func brokenSettingsSchemaRegistersNothing() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            .dictionary(["Key": "first", "DefaultValue": 1] as [String: PropertyList]),
                            .dictionary(["Type": "PSChildPaneSpecifier", "File": "Missing"] as [String: PropertyList]),
                        ])
                    ] as [String: PropertyList]), to: box.root + "/Root.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Root.plist") }
            #expect(prefs.object(forKey: "first") == nil)

            writeBytes(Array("<plist><dict><key>a</key></dict></plist>".utf8), to: box.root + "/Bad.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Bad.plist") }
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/None.plist") }
            writePlist(["not", "a", "dict"], to: box.root + "/Array.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Array.plist") }
        }
    }

    // MARK: Several keys as one change

    @Test func setMultipleIsAllOrNothing() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("keep", "old")], in: own())
            try store.synchronize(application: app)
            let before = readBytes(box.expectedPath(app))

            // One value no domain file can hold (under its key, nested
            // deeper than any format takes) refuses the whole change.
            var deep = PropertyList.array([])
            for _ in 1..<PropertyList.maxNesting { deep = .array([deep]) }
            let refusal = expectPrefsError(.tooDeep) {
                try store.set([("a", 1), ("bad", deep), ("c", 3), ("keep", nil)], in: own())
            }
            #expect(refusal?.message.contains("bad") == true, "\(refusal?.message ?? "")")
            // One forced key refuses the whole change too.
            writePlist(["forced": "managed"], to: box.managedPath(app, userOnly: true))
            try store.synchronize(application: app)
            expectPrefsError(.forcedValue) {
                try store.set([("a", 1), ("forced", "mine"), ("keep", nil)], in: own())
            }
            #expect(try store.value(forKey: "forced", application: app) == .string("managed"))
            #expect(try store.values(in: own()) == plistDict(["keep": "old"]))
            try store.synchronizeAll()
            #expect(readBytes(box.expectedPath(app)) == before)

            // Accepted: every key set and removed, seen together by another process.
            try store.set([("a", 1), ("c", 3), ("keep", nil)], in: own())
            let other = box.store()
            #expect(try other.values(in: own()) == plistDict(["keep": "old"]))
            try store.synchronize(application: app)
            try other.synchronize(application: app)
            #expect(try other.values(in: own()) == plistDict(["a": 1, "c": 3]))
        }
    }

    @Test func forcedValues() throws {
        try inSandbox { box throws in
            writePlist(["userForced": "user", "both": "user"], to: box.managedPath(app, userOnly: true))
            writePlist(["allForced": "all", "both": "all"], to: box.managedPath(app, userOnly: false))
            writePlist(["globalForced": 1], to: box.managedPath(".GlobalPreferences", userOnly: false))
            let store = box.store()
            #expect(try store.isForced("userForced", application: app))
            #expect(try store.isForced("allForced", application: app))
            #expect(try !store.isForced("free", application: app))
            #expect(try store.value(forKey: "both", application: app) == .string("user"))
            // The managed global domain forces the global domain's keys.
            #expect(try store.isForced("globalForced", application: globalDomainName))
            expectPrefsError(.forcedValue) { try store.set([("globalForced", 2)], in: own(globalDomainName)) }
            // A forced key cannot be written in any domain of the app.
            for id in [
                own(), DomainID(application: app, user: .current, host: .current),
                DomainID(application: app, user: .any, host: .any),
            ] {
                expectPrefsError(.forcedValue, "in \(id)") {
                    try store.set([("allForced", "mine")], in: id)
                }
            }
            #expect(try store.value(forKey: "allForced", application: app) == .string("all"))
        }
    }

    /// A managed file put in place by hand while nobody observes: once the
    /// watcher has seen it, a write of the key it forces is refused and
    /// ``PreferencesStore/isForced(_:application:)`` says so, before any read.
    @Test func aManagedFileTheWatcherSawForcesWrites() throws {
        try inSandbox { box throws in
            let store = box.store()
            #expect(try store.value(forKey: "late", application: app) == nil)
            writePlist(["late": "managed"], to: box.managedPath(app, userOnly: false))
            // What the directory watcher does when it sees the new file.
            store.noticeExternalChanges()
            let forced = try store.isForced("late", application: app)
            #expect(forced)
            expectPrefsError(.forcedValue) { try store.set([("late", "mine")], in: own()) }
            #expect(try store.value(forKey: "late", application: app) == .string("managed"))
        }
    }

    /// A write that takes in another process's changes (made since this
    /// process last read the file) must not leave the merged view without
    /// them: no stamp moves afterwards to say the file changed.
    @Test(arguments: ["application", "domain", "all"])
    func aWriteThatTakesInOthersChangesRefreshesTheView(_ how: String) throws {
        try inSandbox { box in
            let a = box.store(), b = box.store()
            try a.set([("seed", 1)], in: own())
            try a.synchronize(application: app)
            _ = try b.dictionary(application: app)
            try b.set([("mine", 2)], in: own())
            try a.set([("theirs", 3)], in: own())
            try a.synchronize(application: app)
            switch how {
            case "application": try b.synchronize(application: app)
            case "domain": try b.synchronize(own())
            default: try b.synchronizeAll()
            }
            #expect(try b.value(forKey: "theirs", application: app) == .integer(3))
            #expect(try b.dictionary(application: app)["theirs"] == .integer(3))
            #expect(try b.value(forKey: "mine", application: app) == .integer(2))
        }
    }

    // MARK: Files that do not parse

    @Test func corruptFileIsKeptAndMovedAside() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            let garbage = Array("<?xml version=\"1.0\"?><plist><dict><key>lost</key><string>x</dict>".utf8)
            writeBytes(garbage, to: path)
            let store = box.store()
            let prefs = try Preferences(applicationID: app, store: store)
            // Reads see the domain empty, and the problem is reported.
            #expect(prefs.object(forKey: "lost") == nil)
            #expect(try store.values(in: own()).isEmpty)
            let problems = prefs.problems()
            #expect(problems.count == 1)
            #expect(problems.first?.code == .corruptFile)
            #expect(problems.first?.message.contains(path) == true, "\(problems)")
            #expect(try store.problem(in: own())?.code == .corruptFile)
            // Synchronizing with nothing pending leaves the file alone.
            try store.synchronize(application: app)
            #expect(readBytes(path) == garbage)
            #expect(box.allFiles() == ["config/\(app).plist"])

            // A write moves it aside, byte-identical, and starts a new file.
            try prefs.trySet("new", forKey: "fresh")
            let note = try store.synchronize(application: app)
            #expect(note?.code == .corruptFile)
            let aside = box.allFiles().filter { $0.hasPrefix("config/\(app).plist.corrupt-") }
            #expect(aside.count == 1, "\(box.allFiles())")
            if let a = aside.first {
                #expect(readBytes(box.root + "/" + a) == garbage)
                #expect(note?.message.contains(a.dropFirst("config/".count)) == true, "\(note?.message ?? "")")
            }
            #expect(readPlist(path) == plistDict(["fresh": "new"]))
            #expect(prefs.problems().isEmpty)
            #expect(box.allFiles().count == 2)
        }
    }

    /// A file holding a value that is not a dictionary is treated the same.
    @Test func nonDictionaryFileIsKept() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            writePlist(["a", "b"], to: path)
            let original = readBytes(path)
            let store = box.store()
            #expect(try store.problem(in: own())?.code == .corruptFile)
            try store.set([("k", 1)], in: own())
            #expect(try store.synchronize(own())?.code == .corruptFile)
            let aside = box.allFiles().filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
            if let a = aside.first { #expect(readBytes(box.root + "/" + a) == original) }
            #expect(readPlist(path) == plistDict(["k": 1]))
        }
    }

    /// A file that another process breaks after this one read it is not
    /// overwritten either: the next write moves it aside.
    @Test func fileCorruptedLaterIsMovedAside() throws {
        try inSandbox { box in
            let path = box.expectedPath(app)
            let store = box.store()
            try store.set([("a", 1)], in: own())
            try store.synchronize(application: app)
            let garbage = Array("{ unterminated = ".utf8)
            writeBytes(garbage, to: path)
            try store.set([("b", 2)], in: own())
            #expect(try store.synchronize(application: app)?.code == .corruptFile)
            let aside = box.allFiles().filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
            if let a = aside.first { #expect(readBytes(box.root + "/" + a) == garbage) }
            #expect(readPlist(path)?["b"] == .integer(2))
        }
    }

    // MARK: Failed writes

    /// A directory the process may not write to: synchronize fails with an
    /// error, the old file stays as it was, the change stays pending and is
    /// written once the directory is writable again. Root ignores directory
    /// permissions, so as root this uses a path component that is a file
    /// instead (the C test test_persistence.c covers PREFS_TEST_FAIL).
    @Test func failedWriteKeepsOldFileAndPendingChanges() throws {
        try inSandbox { box in
            let store = box.store()
            let id: DomainID
            let path: String
            let breakIt: () -> Void
            let repair: () -> Void
            if runningAsRoot {
                id = DomainID(application: app, user: .current, host: .current)
                path = box.expectedPath(app, host: .current)
                breakIt = { writeBytes(Array("not a directory".utf8), to: box.config + "/ByHost") }
                repair = { unlink(box.config + "/ByHost") }
            } else {
                id = own()
                path = box.expectedPath(app)
                breakIt = { chmod(box.config, 0o500) }
                repair = { chmod(box.config, 0o700) }
            }
            if !runningAsRoot {
                try store.set([("old", "x")], in: id)
                try store.synchronize(id)
            }
            let before = readBytes(path)
            breakIt()
            try store.set([("new", "y")], in: id)
            expectPrefsError(.io) { try store.synchronize(id) }
            #expect(throws: PrefsError.self) { try store.synchronize(application: app) }
            #expect(throws: PrefsError.self) { try store.synchronizeAll() }
            #expect(readBytes(path) == before)
            #expect(try store.values(in: id)["new"] == .string("y"), "the change was lost")
            repair()
            try store.synchronize(application: app)
            #expect(readPlist(path)?["new"] == .string("y"))
            if !runningAsRoot { #expect(readPlist(path)?["old"] == .string("x")) }
        }
    }

    // MARK: Persistence between stores

    /// Two stores writing different keys of one domain both keep them.
    @Test func mergesKeyByKey() throws {
        try inSandbox { box in
            let a = box.store(), b = box.store()
            try a.set([("fromA", 1), ("shared", "a")], in: own())
            try b.set([("fromB", 2)], in: own())
            try a.synchronize(application: app)
            try b.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(["fromA": 1, "fromB": 2, "shared": "a"]))
            try a.synchronize(application: app)
            #expect(try a.values(in: own()) == plistDict(["fromA": 1, "fromB": 2, "shared": "a"]))
            // A removal by one is applied as a removal, not undone by the other.
            try b.set([("shared", nil)], in: own())
            try b.synchronize(application: app)
            try a.set([("fromA", 3)], in: own())
            try a.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app)) == plistDict(["fromA": 3, "fromB": 2]))
        }
    }

    /// After one store's synchronize returns, another store's next read
    /// returns the new values without that store synchronizing.
    @Test func anotherStoresWriteIsSeenByTheNextRead() throws {
        try inSandbox { box in
            let writer = box.store(), reader = box.store()
            #expect(try reader.value(forKey: "k", application: app) == nil)
            try writer.set([("k", "v1")], in: own())
            #expect(try reader.value(forKey: "k", application: app) == nil)  // not yet on disk
            try writer.synchronize(application: app)
            #expect(try reader.value(forKey: "k", application: app) == .string("v1"))
            try writer.set([("k", "v2")], in: DomainID(application: globalDomainName, user: .any, host: .any))
            try writer.set([("k", nil)], in: own())
            try writer.synchronizeAll()
            #expect(try reader.value(forKey: "k", application: app) == .string("v2"))
            #expect(try reader.dictionary(application: app)["k"] == .string("v2"))
        }
    }

    /// Stores that go away stop their file watchers: the threads and
    /// descriptors of 20 watching stores are gone once the stores are.
    /// Runs in a child process, alone, so no other test's threads count.
    @Test func droppedStoresLeaveNoThreadsOrDescriptors() {
        let r = runChildTest(named: "droppedStoresChild", role: "dropped-stores", environment: [:])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("droppedStoresChild() passed"), "the child test did not run:\n\(r.output)")
    }

    @Test(.enabled(if: isChildRole("dropped-stores")))
    func droppedStoresChild() throws {
        try inSandbox { box in
            func count(_ dir: String) -> Int { FileSystem.list(dir).count }
            // Only the kinds of descriptor a store opens (its watcher's inotify
            // instance and wake pipe): the test runner opens files of its own.
            func watcherDescriptors() -> Int {
                FileSystem.list("/proc/self/fd").filter { fd in
                    var target = [CChar](repeating: 0, count: 256)
                    let n = readlink("/proc/self/fd/" + fd, &target, 255)
                    guard n > 0 else { return false }
                    let name = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    return name.hasPrefix("pipe:") || name.hasPrefix("anon_inode:inotify")
                }.count
            }
            let threads = count("/proc/self/task"), descriptors = watcherDescriptors()
            var stores: [PreferencesStore] = []
            for _ in 0..<20 {
                let store = PreferencesStore(locations: box.locations, arguments: ["test-program"])
                _ = try store.value(forKey: "k", application: app)
                stores.append(store)
            }
            // Past the watchers' delay: each has its inotify instance now.
            usleep(UInt32(DirectoryWatcher.delaySeconds) * 1_000_000 + 300_000)
            let peakThreads = count("/proc/self/task"), peakDescriptors = watcherDescriptors()
            #expect(peakThreads >= threads + 20, "\(threads) threads, then \(peakThreads)")
            #expect(peakDescriptors >= descriptors + 60, "\(descriptors) descriptors, then \(peakDescriptors)")
            stores.removeAll()
            let afterThreads = count("/proc/self/task"), afterDescriptors = watcherDescriptors()
            #expect(afterThreads <= peakThreads - 20, "\(peakThreads) threads, then \(afterThreads)")
            #expect(afterDescriptors <= descriptors, "\(descriptors) descriptors, then \(afterDescriptors)")
        }
    }

    /// A change is written by itself within the documented delay.
    @Test func pendingChangesAreWrittenByThemselves() async throws {
        let box = StoreSandbox()
        defer { box.remove() }
        let store = box.store()
        try store.set([("timed", 1)], in: own())
        #expect(!fileExists(box.expectedPath(app)))
        let deadline = Date().addingTimeInterval(Double(PreferencesStore.flushDelaySeconds) + 1.5)
        while Date() < deadline, readPlist(box.expectedPath(app))?["timed"] == nil {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(readPlist(box.expectedPath(app))?["timed"] == .integer(1))
        #expect(permissions(box.expectedPath(app)) == 0o600)
    }
}
