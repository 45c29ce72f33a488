import Foundation
import Testing

@testable import PrefsCore

// Managed (forced) values: what they answer, and the writes they refuse.

@Suite("Managed values")
struct ManagedValueTests {
    @Test func forcedValues() throws {
        try inSandbox { box throws in
            writePlist(["userForced": "user", "both": "user"], to: box.managedPath(storeApp, userOnly: true))
            writePlist(["allForced": "all", "both": "all"], to: box.managedPath(storeApp, userOnly: false))
            writePlist(["globalForced": 1], to: box.managedPath(".GlobalPreferences", userOnly: false))
            let store = box.store()
            #expect(try store.isForced("userForced", application: storeApp))
            #expect(try store.isForced("allForced", application: storeApp))
            #expect(try !store.isForced("free", application: storeApp))
            #expect(try store.value(forKey: "both", application: storeApp) == .string("user"))
            // The managed global domain forces the global domain's keys.
            #expect(try store.isForced("globalForced", application: globalDomainName))
            expectPrefsError(.forcedValue) { try store.set([("globalForced", 2)], in: own(globalDomainName)) }
            // A forced key cannot be written in any domain of the storeApp.
            for id in [
                own(), DomainID(application: storeApp, user: .current, host: .current),
                DomainID(application: storeApp, user: .any, host: .any),
            ] {
                expectPrefsError(.forcedValue, "in \(id)") {
                    try store.set([("allForced", "mine")], in: id)
                }
            }
            #expect(try store.value(forKey: "allForced", application: storeApp) == .string("all"))
        }
    }

    /// A managed file put in place by hand while nobody observes: once the
    /// watcher has seen it, a write of the key it forces is refused and
    /// ``PreferencesStore/isForced(_:application:)`` says so, before any read.
    @Test func aManagedFileTheWatcherSawForcesWrites() throws {
        try inSandbox { box throws in
            let store = box.store()
            #expect(try store.value(forKey: "late", application: storeApp) == nil)
            writePlist(["late": "managed"], to: box.managedPath(storeApp, userOnly: false))
            // What the directory watcher does when it sees the new file.
            store.noticeExternalChanges()
            let forced = try store.isForced("late", application: storeApp)
            #expect(forced)
            expectPrefsError(.forcedValue) { try store.set([("late", "mine")], in: own()) }
            #expect(try store.value(forKey: "late", application: storeApp) == .string("managed"))
        }
    }
}
