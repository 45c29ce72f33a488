import Glibc
import Synchronization
import Testing

@testable import PrefsCore

// Synced preferences through the store: two (or three) machines, each a
// sandbox of its own (its own configuration, so its own identity), sharing
// one sync folder as a sync engine would make them share it.

private let app = "com.example.synced"

private final class Machines {
    let folder: String
    let boxes: [StoreSandbox]
    init(_ count: Int) {
        boxes = (0..<count).map { _ in StoreSandbox() }
        folder = boxes[0].root + "/shared-sync"
        for box in boxes { try! SyncSettings.setFolder(folder, box.config) }
    }
    deinit { for box in boxes { box.remove() } }
    func store(_ i: Int) -> PreferencesStore { boxes[i].store() }
    func ownFile(_ i: Int) -> String { boxes[i].expectedPath(app) }
}

@Suite(.serialized) struct SyncStoreTests {
    @Test func aSyncedWriteReachesTheOtherMachineAndNotTheLocalDomain() throws {
        let m = Machines(2)
        let a = m.store(0)
        let b = m.store(1)
        #expect(try a.isSynced("Color", application: app) == false)
        try a.setSynced(true, forKey: "Color", application: app)
        try a.set([("Color", "red"), ("Local", "here")], in: DomainID(application: app, user: .current, host: .any))
        #expect(try a.value(forKey: "Color", application: app) == "red")
        try a.synchronize(application: app)
        // The synced key is in the folder, not in the app's domain.
        #expect(readPlist(m.ownFile(0))?["Color"] == nil)
        #expect(readPlist(m.ownFile(0))?["Local"] == "here")
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Color", application: app) == "red")
        #expect(try b.value(forKey: "Local", application: app) == nil)
        #expect(try b.isSynced("Color", application: app))
        #expect(try b.valueAndSource(forKey: "Color", application: app)?.source == PreferenceSource(.synced, domain: app))
        // The second machine's write wins on both.
        try b.set([("Color", "blue")], in: DomainID(application: app, user: .current, host: .any))
        try a.synchronize(application: app)
        #expect(try a.value(forKey: "Color", application: app) == "blue")
        // Two machines, two files; the identities live in each one's configuration.
        #expect(FileSystem.list(m.folder).filter { $0.hasPrefix("machine-") }.count == 2)
        let idA = SyncSettings.existingIdentity(m.boxes[0].config, hostID: testHostID)
        let idB = SyncSettings.existingIdentity(m.boxes[1].config, hostID: testHostID)
        #expect(idA != nil && idB != nil && idA != idB)
    }

    @Test func aRemovalTravelsAndTheLayersBelowAnswerUntilAValueExists() throws {
        let m = Machines(2)
        let a = m.store(0)
        let b = m.store(1)
        try b.register(["Size": 10], application: app)
        try a.setSynced(true, forKey: "Size", application: app)
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Size", application: app) == 10)
        try a.set([("Size", 20)], in: DomainID(application: app, user: .current, host: .any))
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Size", application: app) == 20)
        try a.set([("Size", nil)], in: DomainID(application: app, user: .current, host: .any))
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Size", application: app) == 10)
        #expect(try a.value(forKey: "Size", application: app) == nil)
    }

    @Test func aManagedValueStaysInForce() throws {
        let m = Machines(2)
        let a = m.store(0)
        writePlist(["Color": "forced"], to: m.boxes[1].managedPath(app, userOnly: false))
        let b = m.store(1)
        try a.setSynced(true, forKey: "Color", application: app)
        try a.set([("Color", "red")], in: DomainID(application: app, user: .current, host: .any))
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Color", application: app) == "forced")
        #expect(throws: PrefsError.self) {
            try b.set([("Color", "blue")], in: DomainID(application: app, user: .current, host: .any))
        }
    }

    @Test func declaringTakesTheLocalValueAlongAndUndeclaringKeepsItLocally() throws {
        let m = Machines(2)
        let a = m.store(0)
        let b = m.store(1)
        try a.set([("Theme", "dark")], in: DomainID(application: app, user: .current, host: .any))
        try a.setSynced(true, forKey: "Theme", application: app)
        try b.synchronize(application: app)
        #expect(try b.value(forKey: "Theme", application: app) == "dark")
        try b.setSynced(false, forKey: "Theme", application: app)
        #expect(try b.value(forKey: "Theme", application: app) == "dark")
        #expect(try b.valueAndSource(forKey: "Theme", application: app)?.source == PreferenceSource(.app, domain: app))
        try a.synchronize(application: app)
        #expect(try a.isSynced("Theme", application: app) == false)
        // No longer synced: a write stays local.
        try b.set([("Theme", "light")], in: DomainID(application: app, user: .current, host: .any))
        try a.synchronize(application: app)
        #expect(try a.value(forKey: "Theme", application: app) == "dark")
    }

    @Test func limitsAreRefusedWithAnError() throws {
        let m = Machines(1)
        let a = m.store(0)
        let long = String(repeating: "k", count: 65)
        #expect(throws: PrefsError.self) { try a.setSynced(true, forKey: long, application: app) }
        #expect(throws: PrefsError.self) { try a.setSynced(true, forKey: "", application: app) }
        try a.setSynced(true, forKey: "Blob", application: app)
        let big = PropertyList.data([UInt8](repeating: 7, count: (1 << 20) + 1))
        #expect(throws: PrefsError.self) {
            try a.set([("Blob", big)], in: DomainID(application: app, user: .current, host: .any))
        }
        #expect(try a.value(forKey: "Blob", application: app) == nil)
        try a.synchronize(application: app)
        #expect(readPlist(m.ownFile(0))?["Blob"] == nil)
    }

    @Test func theSchemaDeclaresSyncedKeys() throws {
        let m = Machines(2)
        let schemas = m.boxes[0].root + "/schemas"
        mkdirs(schemas)
        writeBytes(
            Array("{ PreferenceSpecifiers = ({ Key = Font; DefaultValue = Mono; Synced = YES; }, { Key = Other; DefaultValue = 1; }); }".utf8),
            to: schemas + "/\(app).plist")
        let l = m.boxes[0].locations
        let a = PreferencesStore(
            locations: Locations(
                userDirectory: l.userDirectory, systemDirectory: l.systemDirectory, managedDirectory: l.managedDirectory,
                hostID: l.hostID, userName: l.userName, runtimeDirectory: l.runtimeDirectory, schemaDirectories: [schemas]),
            arguments: ["test-program"])
        #expect(try a.isSynced("Font", application: app))
        #expect(try a.isSynced("Other", application: app) == false)
        #expect(try a.value(forKey: "Font", application: app) == "Mono")
        try a.set([("Font", "Serif")], in: DomainID(application: app, user: .current, host: .any))
        let b = m.store(1)
        // The value travels; on b, which has no schema, the key is not declared.
        let snapshot = b.syncSnapshot()
        #expect(snapshot.state.record(of: "Font", in: app)?.value == "Serif")
        withExtendedLifetime(a) {}
    }

    @Test func observersOfTheOtherMachineHearOfTheChange() throws {
        let m = Machines(2)
        let a = m.store(0)
        let b = m.store(1)
        try a.setSynced(true, forKey: "Color", application: app)
        let heard = Mutex<[String]>([])
        let token = try b.addObserver(application: app, key: "Color") { _, key in heard.withLock { $0.append(key) } }
        defer { b.removeObserver(token) }
        try a.set([("Color", "green")], in: DomainID(application: app, user: .current, host: .any))
        #expect(eventually { heard.withLock { $0.contains("Color") } })
        #expect(try b.value(forKey: "Color", application: app) == "green")
    }

    @Test func anotherProcessOfTheSameMachineSeesTheWriteAtItsNextRead() throws {
        let m = Machines(1)
        let a = m.store(0)
        let other = m.store(0)
        #expect(try other.value(forKey: "Color", application: app) == nil)
        try a.setSynced(true, forKey: "Color", application: app)
        try a.set([("Color", "red")], in: DomainID(application: app, user: .current, host: .any))
        // No synchronize: the user's change counter moved.
        #expect(try other.value(forKey: "Color", application: app) == "red")
    }

    @Test func aHostileFileInTheFolderChangesNothing() throws {
        let m = Machines(2)
        let a = m.store(0)
        try a.setSynced(true, forKey: "Color", application: app)
        try a.set([("Color", "red")], in: DomainID(application: app, user: .current, host: .any))
        mkfifo(m.folder + "/machine-0123456789abcdef0123456789abcdef.plist", 0o600)
        writeBytes(Array("garbage".utf8), to: m.folder + "/machine-00000000000000000000000000000001.plist")
        let b = m.store(1)
        #expect(try b.value(forKey: "Color", application: app) == "red")
        let s = b.syncSnapshot()
        #expect(s.problems.count == 2)
    }

    @Test func theSwiftAPIDeclaresAndWritesSyncedKeys() throws {
        let m = Machines(2)
        let a = try Preferences(applicationID: app, store: m.store(0))
        let b = try Preferences(applicationID: app, store: m.store(1))
        // A typed key declared synced: its writes go to the folder.
        let key = Preferences.Key<Int>("SwiftTypedSyncedKey", default: 5, synced: true)
        #expect(a.isSynced(forKey: "SwiftTypedSyncedKey"))
        #expect(a[key] == 5)
        try a.set(8, for: key)
        #expect(readPlist(m.ownFile(0))?["SwiftTypedSyncedKey"] == nil)
        try b.store.synchronize(application: app)
        #expect(b.integer(forKey: "SwiftTypedSyncedKey") == 8)
        // setSynced, and its refusal.
        a.set("plain", forKey: "Note")
        a.setSynced(true, forKey: "Note")
        try b.store.synchronize(application: app)
        #expect(b.isSynced(forKey: "Note"))
        #expect(b.string(forKey: "Note") == "plain")
        #expect(b.objectAndSource(forKey: "Note")?.source == PreferenceSource(.synced, domain: app))
        #expect(throws: PrefsError.self) { try a.trySetSynced(true, forKey: String(repeating: "n", count: 65)) }
        a.setSynced(false, forKey: "Note")
        try b.store.synchronize(application: app)
        #expect(!b.isSynced(forKey: "Note"))
    }

    @Test func threadsWritingAndReadingSyncedKeysLoseNothing() throws {
        // Four threads per machine set their own synced keys and read
        // others' while observers listen; every write is kept (the folder
        // lock serialises the writers of one machine file).
        let m = Machines(2)
        let stores = [m.store(0), m.store(1)]
        let id = DomainID(application: app, user: .current, host: .any)
        for key in (0..<8).map({ "T\($0)" }) { try stores[0].setSynced(true, forKey: key, application: app) }
        let tokens = try stores.map { s in try s.addObserver(application: app, key: nil) { _, _ in } }
        defer { for (s, t) in zip(stores, tokens) { s.removeObserver(t) } }
        let failures = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        var threads = [pthread_t]()
        final class Work: @unchecked Sendable {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
        for t in 0..<8 {
            let store = stores[t % 2]
            let work = Work {
                for i in 0..<25 {
                    do {
                        try store.set([("T\(t)", .integer(i))], in: id)
                        _ = try store.value(forKey: "T\((t + 1) % 8)", application: app)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                done.add(1, ordering: .releasing)
            }
            var thread = pthread_t()
            let context = Unmanaged.passRetained(work).toOpaque()
            #expect(
                pthread_create(
                    &thread, nil,
                    {
                        Unmanaged<Work>.fromOpaque($0!).takeRetainedValue().run(); return nil
                    }, context) == 0)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(done.load(ordering: .acquiring) == 8)
        for s in stores { try s.synchronize(application: app) }
        for t in 0..<8 {
            for s in stores { #expect(try s.value(forKey: "T\(t)", application: app) == 24) }
        }
    }
}
