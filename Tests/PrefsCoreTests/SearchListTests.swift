import Foundation
import Testing

@testable import PrefsCore

// The search list: the order of its layers, and suites.

private let suite1 = "com.example.suite1"
private let suite2 = "com.example.suite2"

@Suite("Search list")
struct SearchListTests {
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
            let languages = try #require(try box.store().value(forKey: "AppleLanguages", application: storeApp)?.arrayValue)
            let language = try #require(languages.first?.stringValue)

            // (label, domain) for every stored layer, in search order.
            let stored: [(String, DomainID)] = [
                ("app-current-user-current-host", DomainID(application: storeApp, user: .current, host: .current)),
                ("app-current-user-any-host", DomainID(application: storeApp, user: .current, host: .any)),
                ("suite2-current-user-current-host", DomainID(application: suite2, user: .current, host: .current)),
                ("suite2-current-user-any-host", DomainID(application: suite2, user: .current, host: .any)),
                ("suite1-current-user-current-host", DomainID(application: suite1, user: .current, host: .current)),
                ("suite1-current-user-any-host", DomainID(application: suite1, user: .current, host: .any)),
                ("global-current-user-current-host", DomainID(application: globalDomainName, user: .current, host: .current)),
                ("global-current-user-any-host", DomainID(application: globalDomainName, user: .current, host: .any)),
                ("app-any-user-current-host", DomainID(application: storeApp, user: .any, host: .current)),
                ("app-any-user-any-host", DomainID(application: storeApp, user: .any, host: .any)),
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
            writePlist(["K": "managed-user"], to: box.managedPath(storeApp, userOnly: true))
            writePlist(["K": "managed-all"], to: box.managedPath(storeApp, userOnly: false))
            try store.synchronize(application: storeApp)
            try store.addSuite(suite1, to: storeApp)
            try store.addSuite(suite2, to: storeApp)  // newest: searched first
            store.setVolatileDomain(language, plistDict(["K": "language"]))
            try store.register(plistDict(["K": "registration-any-app"]), application: globalDomainName)
            try store.register(plistDict(["K": "registration-app"]), application: storeApp)

            var layers: [(String, () throws -> Void)] = [
                ("managed-user", { unlink(box.managedPath(storeApp, userOnly: true)) }),
                ("managed-all", { unlink(box.managedPath(storeApp, userOnly: false)) }),
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
                let got = try store.value(forKey: "K", application: storeApp)
                #expect(got?.stringValue == label, "expected the layer \(label) to answer, got \(render(got))")
                #expect(try store.dictionary(application: storeApp)["K"]?.stringValue == label)
                try remove()
                try store.synchronize(application: storeApp)  // picks up removed files
            }
            #expect(try store.value(forKey: "K", application: storeApp)?.stringValue == "registration-app")
            // The registration for every storeApp answers an storeApp without its own.
            #expect(try store.value(forKey: "K", application: "com.example.other")?.stringValue == "registration-any-app")
            // Without the suites, nothing else changes.
            try store.removeSuite(suite2, from: storeApp)
            try store.removeSuite(suite1, from: storeApp)
            #expect(try store.value(forKey: "K", application: storeApp)?.stringValue == "registration-app")
        }
    }

    /// A suite is searched only by the storeApp it was added to, and after its
    /// own domains; removing it takes it out of the search list.
    @Test func suitesBelongToOneApp() throws {
        try inSandbox { box in
            let store = box.store()
            try store.set([("S", "suite")], in: own(suite1))
            #expect(try store.value(forKey: "S", application: storeApp) == nil)
            try store.addSuite(suite1, to: storeApp)
            #expect(try store.value(forKey: "S", application: storeApp)?.stringValue == "suite")
            #expect(try store.value(forKey: "S", application: "com.example.other") == nil)
            try store.set([("S", "own")], in: own())
            #expect(try store.value(forKey: "S", application: storeApp)?.stringValue == "own")
            try store.set([("S", nil)], in: own())
            try store.removeSuite(suite1, from: storeApp)
            #expect(try store.value(forKey: "S", application: storeApp) == nil)
        }
    }
}
