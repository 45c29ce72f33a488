import Foundation
import Synchronization
import Testing

@testable import PrefsCore

// A set of one key through a resolved application (the C API's
// PrefsSetAppValue, Preferences.set) takes a short path when nobody observes
// and the key does not sync. Each test warms that path with sets first, then
// changes what it must look at (a schema, a managed file, another process's
// write, an observer, a synced declaration) and checks that the next set
// still obeys it.

private let app = "com.example.setpath"
private let own = DomainID(application: app, user: .current, host: .any)

@Suite struct SetPathTests {
    /// A store whose installed schemas are looked for in `dir`.
    private func store(_ box: StoreSandbox, schemas dir: String) -> PreferencesStore {
        let l = box.locations
        return PreferencesStore(
            locations: Locations(
                userDirectory: l.userDirectory, systemDirectory: l.systemDirectory, managedDirectory: l.managedDirectory,
                hostID: l.hostID, userName: l.userName, runtimeDirectory: l.runtimeDirectory, schemaDirectories: [dir]),
            arguments: ["test-program"])
    }

    /// Points `box` at a sync folder of its own; returns the folder.
    private func syncFolder(_ box: StoreSandbox) throws -> String {
        let folder = box.root + "/sync"
        try SyncSettings.setFolder(folder, box.config)
        return folder
    }

    /// Runs `body` with another machine sharing `folder`.
    private func otherMachine<T>(sharing folder: String, _ body: (StoreSandbox) throws -> T) throws -> T {
        let other = StoreSandbox()
        defer { other.remove() }
        try SyncSettings.setFolder(folder, other.config)
        return try body(other)
    }

    @Test func aSchemaInstalledAfterSetsBindsTheNextSet() throws {
        try inSandbox { box in
            let dir = box.root + "/data"
            mkdirs(dir)
            let s = store(box, schemas: dir)
            let handle = try s.handle(application: app)
            let prefs = try Preferences(applicationID: app, store: s)
            for i in 0..<3 {
                try s.set("Size", .integer(Int128(1000 + i)), in: handle)
                try prefs.trySet(2000 + i, forKey: "Size")
            }
            // The schema appears; the store looks again at its next synchronize.
            writePlist(
                [
                    "PreferenceSpecifiers": [
                        ["Type": "PSSliderSpecifier", "Key": "Size", "DefaultValue": 12, "MinimumValue": 8, "MaximumValue": 96]
                    ]
                ], to: "\(dir)/\(app).plist")
            try s.synchronize(application: app)
            let e1 = expectPrefsError(.schemaViolation) { try s.set("Size", .integer(500), in: handle) }
            #expect(e1?.message.contains("Size") == true)
            expectPrefsError(.schemaViolation) { try prefs.trySet(501, forKey: "Size") }
            #expect(try s.values(in: own)[PropertyList.Key("Size")] == .integer(2002))
            try s.set("Size", .integer(14), in: handle)
            #expect(try s.value(forKey: "Size", application: app) == .integer(14))
            // The schema removed: the key is free again.
            _ = unlink("\(dir)/\(app).plist")
            try s.synchronize(application: app)
            try s.set("Size", .integer(500), in: handle)
            #expect(try s.value(forKey: "Size", application: app) == .integer(500))
        }
    }

    @Test func aManagedFileWrittenAfterSetsRefusesTheNextSet() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            let prefs = try Preferences(applicationID: app, store: s)
            for i in 0..<3 {
                try s.set("Locked", .string("mine \(i)"), in: handle)
                prefs.set("also mine \(i)", forKey: "Locked")
            }
            writePlist(["Locked": "managed"], to: box.managedPath(app, userOnly: false))
            try s.synchronize(application: app)
            expectPrefsError(.forcedValue) { try s.set("Locked", .string("again"), in: handle) }
            expectPrefsError(.forcedValue) { try prefs.trySet("again", forKey: "Locked") }
            expectPrefsError(.forcedValue) { try prefs.tryRemoveObject(forKey: "Locked") }
            #expect(try s.value(forKey: "Locked", application: app) == .string("managed"))
            // The global domain's managed file forces every application's key too.
            writePlist(["Everywhere": 1], to: box.managedPath(".GlobalPreferences", userOnly: false))
            try s.synchronize(application: app)
            expectPrefsError(.forcedValue) { try s.set("Everywhere", .integer(2), in: handle) }
        }
    }

    // Sets skip the managed layers whose domains hold nothing without a
    // lookup: a managed file that empties and fills again must force again.
    @Test func aManagedFileEmptiedAndFilledAgainForcesAgain() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            let path = box.managedPath(app, userOnly: true)
            writePlist(["Locked": "managed"], to: path)
            try s.synchronize(application: app)
            expectPrefsError(.forcedValue) { try s.set("Locked", .string("mine"), in: handle) }
            writePlist([:], to: path)
            try s.synchronize(application: app)
            for i in 0..<3 { try s.set("Locked", .string("mine \(i)"), in: handle) }
            #expect(try s.value(forKey: "Locked", application: app) == .string("mine 2"))
            writePlist(["Other": 1, "Locked": "managed again"], to: path)
            try s.synchronize(application: app)
            expectPrefsError(.forcedValue) { try s.set("Locked", .string("mine"), in: handle) }
            #expect(try s.value(forKey: "Locked", application: app) == .string("managed again"))
        }
    }

    // Sets pass the managed layers at once while no managed domain the
    // store has looked at holds a key: another application's managed file
    // coming and going must neither force this application's keys nor
    // hide this application's own managed file, nor the global domain's.
    @Test func managedFilesOfTwoApplicationsComingAndGoing() throws {
        try inSandbox { box in
            let other = "com.example.setpath.other"
            let s = box.store()
            let mine = try s.handle(application: app)
            let theirs = try s.handle(application: other)
            func synchronize() throws {
                try s.synchronize(application: app)
                try s.synchronize(application: other)
            }
            writePlist(["X": 1], to: box.managedPath(other, userOnly: false))
            try synchronize()
            try s.set("X", .integer(2), in: mine)
            expectPrefsError(.forcedValue) { try s.set("X", .integer(2), in: theirs) }
            writePlist([:], to: box.managedPath(other, userOnly: false))
            try synchronize()
            for i in 0..<3 {
                try s.set("X", .integer(Int128(i)), in: theirs)
                try s.set("Locked", .integer(Int128(i)), in: mine)
            }
            writePlist(["Locked": "managed"], to: box.managedPath(app, userOnly: true))
            try synchronize()
            expectPrefsError(.forcedValue) { try s.set("Locked", .integer(5), in: mine) }
            try s.set("Locked", .integer(5), in: theirs)
            writePlist(["Everywhere": 1], to: box.managedPath(".GlobalPreferences", userOnly: false))
            try synchronize()
            expectPrefsError(.forcedValue) { try s.set("Everywhere", .integer(2), in: mine) }
            expectPrefsError(.forcedValue) { try s.set("Everywhere", .integer(2), in: theirs) }
            #expect(try s.value(forKey: "Locked", application: other) == .integer(5))
        }
    }

    // A domain that its own sets empty and fill again is read again: the
    // global domain's key reaches an application's reads each time.
    @Test func aDomainEmptiedAndFilledBySetsIsReadAgain() throws {
        try inSandbox { box in
            let s = box.store()
            let global = try s.handle(application: globalDomainName)
            #expect(try s.value(forKey: "Shared", application: app) == nil)
            for i in 0..<3 {
                try s.set("Shared", .integer(Int128(i)), in: global)
                #expect(try s.value(forKey: "Shared", application: app) == .integer(Int128(i)))
                try s.set("Shared", nil, in: global)
                #expect(try s.value(forKey: "Shared", application: app) == nil)
            }
            try s.set("Shared", .integer(9), in: global)
            try s.synchronize(application: globalDomainName)
            #expect(try box.store().value(forKey: "Shared", application: app) == .integer(9))
        }
    }

    @Test func aSetAfterAnotherProcessWroteKeepsBothChanges() throws {
        try inSandbox { box in
            let a = box.store()
            let handle = try a.handle(application: app)
            for i in 0..<3 { try a.set("Mine", .integer(Int128(i)), in: handle) }
            try a.synchronize(application: app)
            // Another process writes another key and a new value of ours.
            let b = box.store()
            try b.set([("Theirs", "b"), ("Mine", 99)], in: own)
            try b.synchronize(application: app)
            // This process sets its key again without reading first.
            try a.set("Mine", .integer(7), in: handle)
            #expect(try a.value(forKey: "Theirs", application: app) == .string("b"))
            #expect(try a.value(forKey: "Mine", application: app) == .integer(7))
            try a.synchronize(application: app)
            let c = box.store()
            #expect(try c.values(in: own) == plistDict(["Mine": 7, "Theirs": "b"]))
        }
    }

    @Test func observersRegisteredAfterSetsHearTheNextOnesAndNotAfterRemoval() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            for i in 0..<3 { try s.set("Watched", .integer(Int128(i)), in: handle) }
            let heard = Mutex([String]())
            let token = try s.addObserver(application: app, key: "Watched") { _, key in heard.withLock { $0.append(key) } }
            try s.set("Watched", .integer(100), in: handle)
            #expect(eventually { heard.withLock { $0 } == ["Watched"] })
            s.removeObserver(token)
            try s.set("Watched", .integer(101), in: handle)
            try s.set("Watched", .integer(102), in: handle)
            // A marker observer registered afterwards hears its own key: by then the
            // removed one would have heard the sets above, had they been posted.
            let marker = Mutex(false)
            let t2 = try s.addObserver(application: app, key: "Marker") { _, _ in marker.withLock { $0 = true } }
            try s.set("Marker", .integer(1), in: handle)
            #expect(eventually { marker.withLock { $0 } })
            #expect(heard.withLock { $0 } == ["Watched"])
            s.removeObserver(t2)
        }
    }

    @Test func aKeyDeclaredSyncedAfterSetsGoesToTheSyncFolder() throws {
        try inSandbox { box in
            let folder = try syncFolder(box)
            let s = box.store()
            let handle = try s.handle(application: app)
            for i in 0..<3 { try s.set("Color", .string("local \(i)"), in: handle) }
            try s.setSynced(true, forKey: "Color", application: app)
            try s.set("Color", .string("red"), in: handle)
            try s.set("Plain", .string("here"), in: handle)
            try s.synchronize(application: app)
            #expect(try s.value(forKey: "Color", application: app) == .string("red"))
            let file = readPlist(box.expectedPath(app))
            #expect(file?["Color"] == .string("local 2"))
            #expect(file?["Plain"] == .string("here"))
            // Another machine sharing the folder reads the synced value.
            try otherMachine(sharing: folder) { (other) throws in
                #expect(try other.store().value(forKey: "Color", application: app) == .string("red"))
            }
        }
    }

    @Test func aKeyAnotherMachineDeclaresSyncedAfterSetsGoesToTheSyncFolder() throws {
        try inSandbox { box in
            let folder = try syncFolder(box)
            let s = box.store()
            let handle = try s.handle(application: app)
            for i in 0..<3 { try s.set("Color", .string("local \(i)"), in: handle) }
            // Another machine sharing the folder declares the key; this
            // store reads the folder again at its next synchronize.
            try otherMachine(sharing: folder) { (other) throws in
                try other.store().setSynced(true, forKey: "Color", application: app)
                try s.synchronize(application: app)
                try s.set("Color", .string("red"), in: handle)
                try s.synchronize(application: app)
                #expect(readPlist(box.expectedPath(app))?["Color"] == .string("local 2"))
                #expect(try other.store().value(forKey: "Color", application: app) == .string("red"))
            }
        }
    }

    @Test func aTypedKeyDeclaredSyncedAfterSetsGoesToTheSyncFolder() throws {
        try inSandbox { box in
            let folder = try syncFolder(box)
            let s = box.store()
            let handle = try s.handle(application: app)
            // A name no other test declares: declarations last for the process.
            let name = "SetPathTypedColor"
            for i in 0..<3 { try s.set(name, .string("local \(i)"), in: handle) }
            _ = Preferences.Key<String>(name, default: "none", synced: true)
            try s.set(name, .string("red"), in: handle)
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app))?[PropertyList.Key(name)] == .string("local 2"))
            try otherMachine(sharing: folder) { (other) throws in
                #expect(try other.store().value(forKey: name, application: app) == .string("red"))
            }
        }
    }

    @Test func aSchemaDeclaringAKeySyncedAfterSetsSendsTheNextSetToTheFolder() throws {
        try inSandbox { box in
            let folder = try syncFolder(box)
            let dir = box.root + "/data"
            mkdirs(dir)
            let s = store(box, schemas: dir)
            let handle = try s.handle(application: app)
            for i in 0..<3 { try s.set("Font", .string("local \(i)"), in: handle) }
            // No range, no choice: the schema binds no value, it only syncs one.
            writeBytes(Array("{ PreferenceSpecifiers = ({ Key = Font; DefaultValue = Mono; Synced = YES; }); }".utf8), to: "\(dir)/\(app).plist")
            try s.synchronize(application: app)
            try s.set("Font", .string("Serif"), in: handle)
            try s.synchronize(application: app)
            #expect(readPlist(box.expectedPath(app))?["Font"] == .string("local 2"))
            try otherMachine(sharing: folder) { (other) throws in
                #expect(other.store().syncSnapshot().state.record(of: "Font", in: app)?.value == .string("Serif"))
            }
        }
    }

    // A set patches the merged view of every application whose search list
    // holds the domain, once such a view is built, and of none before.
    @Test func mergedViewsBuiltBetweenSetsShowEverySet() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            let global = try s.handle(application: globalDomainName)
            for i in 0..<3 {
                try s.set("Size", .integer(Int128(i)), in: handle)
                try s.set("Shared", .integer(Int128(i)), in: global)
            }
            #expect(try s.dictionary(application: app)[PropertyList.Key("Size")] == .integer(2))
            #expect(try s.dictionary(application: "com.example.other")[PropertyList.Key("Shared")] == .integer(2))
            for i in 3..<6 {
                try s.set("Size", .integer(Int128(i)), in: handle)
                try s.set("Shared", .integer(Int128(i)), in: global)
                let merged = try s.dictionary(application: app)
                #expect(merged[PropertyList.Key("Size")] == .integer(Int128(i)))
                #expect(merged[PropertyList.Key("Shared")] == .integer(Int128(i)))
                #expect(try s.dictionary(application: "com.example.other")[PropertyList.Key("Shared")] == .integer(Int128(i)))
            }
            // Views dropped (another process's write met) and built again.
            let b = box.store()
            try b.set([("Theirs", "b")], in: own)
            try b.synchronize(application: app)
            try s.synchronize(application: app)
            try s.set("Size", .integer(40), in: handle)
            #expect(try s.dictionary(application: app)[PropertyList.Key("Size")] == .integer(40))
            try s.set("Size", .integer(41), in: handle)
            try s.set("Size", nil, in: handle)
            #expect(try s.dictionary(application: app)[PropertyList.Key("Size")] == nil)
            #expect(try s.dictionary(application: app)[PropertyList.Key("Theirs")] == .string("b"))
        }
    }

    @Test func aSetSchedulesTheBackgroundWriteAndMovesTheCounter() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            try s.set("Written", .string("by itself"), in: handle)
            // Written within the flush delay, without a synchronize; the
            // user's change counter moves for other processes.
            let before = ChangeCounter(directory: box.config, runtimeDirectory: box.runtime).value
            #expect(eventually { readPlist(box.expectedPath(app))?["Written"] == .string("by itself") })
            #expect(eventually { ChangeCounter(directory: box.config, runtimeDirectory: box.runtime).value != before })
        }
    }

    /// Text is plain when XML carries every character: the check reads
    /// whole words, the last overlapping the one before, so a character
    /// XML refuses is looked for at every position of every length.
    @Test func everyPositionOfEveryLengthIsCheckedForPlainText() {
        let refused: [Unicode.Scalar] = ["\u{1}", "\u{1F}", "\u{FFFE}", "\u{FFFF}"]
        let carried: [Unicode.Scalar] = ["\t", "\n", "\r", "\u{7F}", "\u{E9}", "\u{FFFD}", "\u{1F600}"]
        for length in 1...40 {
            for at in 0..<length {
                for (c, plain) in refused.map({ ($0, false) }) + carried.map({ ($0, true) }) {
                    var text = String(repeating: "a", count: at)
                    text.unicodeScalars.append(c)
                    text += String(repeating: "b", count: length - at - 1)
                    var key = text
                    let asKey = key.withUTF8 { PropertyList.isPlainlyStorable(.integer(1), keyBytes: UnsafeRawBufferPointer($0)) }
                    #expect(asKey == plain, "key: \(c.value) at \(at) of \(length)")
                    var other = "k"
                    let asValue = other.withUTF8 { PropertyList.isPlainlyStorable(.string(text), keyBytes: UnsafeRawBufferPointer($0)) }
                    #expect(asValue == plain, "value: \(c.value) at \(at) of \(length)")
                }
            }
        }
    }

    /// Containers of plain values skip the trial write; anything near a
    /// limit, or that only the binary format carries, still meets it.
    @Test func containersAreCheckedAsTheTrialWriteChecksThem() throws {
        try inSandbox { box in
            let s = box.store()
            let handle = try s.handle(application: app)
            let plain: PropertyList = ["Name": "Menlo", "Size": 12, "Tabs": [4, 8, true, 1.5]]
            try s.set("Font", plain, in: handle)
            #expect(try s.value(forKey: "Font", application: app) == plain)
            // Too long for any file, however shallow.
            let tooLong = PropertyList.string(String(repeating: "x", count: PropertyList.maxTextLength + 1))
            let e = expectPrefsError(.unrepresentable) { try s.set("Font", ["Name": tooLong], in: handle) }
            #expect(e?.message.contains("Font") == true)
            expectPrefsError(.unrepresentable) { try s.set("Font", [tooLong], in: handle) }
            // Too deep for any file.
            var deep = PropertyList.array([])
            for _ in 1..<PropertyList.maxNesting { deep = .array([deep]) }
            expectPrefsError(.tooDeep) { try s.set("Font", ["Deep": deep], in: handle) }
            #expect(try s.value(forKey: "Font", application: app) == plain)
            // A control character in a key or a value inside a container:
            // kept (the file becomes binary), not refused nor altered.
            let control: PropertyList = ["Tab\u{1}": ["bell\u{7}"]]
            try s.set("Font", control, in: handle)
            try s.synchronize(application: app)
            #expect(try box.store().value(forKey: "Font", application: app) == control)
        }
    }
}
