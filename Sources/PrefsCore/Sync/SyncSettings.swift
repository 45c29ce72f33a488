import Glibc

/// The user's own sync settings, in `$XDG_CONFIG_HOME/prefs/sync.plist`
/// (never in the sync folder): this machine's identity, and the folder when
/// `prefs sync folder` chose one.
///
/// The identity is made at random the first time a machine writes, and kept
/// per host (`/etc/machine-id`): a home directory shared by several
/// computers, or copied with a cloned image whose machine ID was made anew,
/// gives each computer an identity of its own.
///
/// ```
/// { Identities = { "<host id>" = "<32 hex digits>"; }; Folder = "/path"; }
/// ```
///
/// Every function here keeps no state: safe from any thread; writers of the
/// file take the lock of its directory.
package enum SyncSettings {
    /// The settings file in `configDirectory` (`$XDG_CONFIG_HOME`).
    package static func path(in configDirectory: String) -> String { configDirectory + "/prefs/sync.plist" }

    /// The settings file's dictionary; empty when it is missing or unusable
    /// (a reader never fails on it).
    package static func read(_ configDirectory: String) -> [PropertyList.Key: PropertyList] {
        guard let (bytes, _) = (try? FileSystem.read(path(in: configDirectory))) ?? nil,
            let root = try? PropertyList.parse(bytes), let d = root.dictionaryValue
        else { return [:] }
        return d
    }

    /// This machine's identity on host `hostID`, when it has one already.
    package static func existingIdentity(_ configDirectory: String, hostID: String) -> MachineID? {
        read(configDirectory)["Identities"]?[hostID]?.stringValue.flatMap(MachineID.init)
    }

    /// This machine's identity on host `hostID`, made and recorded the first
    /// time (under the lock of the settings' directory, so that two
    /// processes starting together agree).
    package static func identity(_ configDirectory: String, hostID: String) throws(PrefsError) -> MachineID {
        if let id = existingIdentity(configDirectory, hostID: hostID) { return id }
        return try update(configDirectory) { (settings: inout [PropertyList.Key: PropertyList]) -> MachineID in
            var ids = settings["Identities"]?.dictionaryValue ?? [:]
            if let id = ids[PropertyList.Key(hostID)]?.stringValue.flatMap(MachineID.init) { return id }
            let id = MachineID.random()
            ids[PropertyList.Key(hostID)] = .string(id.text)
            settings["Identities"] = .dictionary(ids)
            return id
        }
    }

    /// The folder `prefs sync folder <path>` chose, if any.
    package static func chosenFolder(_ configDirectory: String) -> String? {
        guard let f = read(configDirectory)["Folder"]?.stringValue, f.hasPrefix("/") else { return nil }
        return f
    }

    /// Records `folder` (absolute) as the sync folder; `nil` forgets it.
    package static func setFolder(_ folder: String?, _ configDirectory: String) throws(PrefsError) {
        if let folder, !folder.hasPrefix("/") { throw PrefsError(.invalidArgument, "the sync folder must be an absolute path") }
        try update(configDirectory) { (settings: inout [PropertyList.Key: PropertyList]) in
            settings["Folder"] = folder.map { .string($0) }
        }
    }

    /// The sync folder: `$PREFS_SYNC_DIR` when set (and absolute; ignored by
    /// a set-id process, as every variable), else the one chosen with
    /// `prefs sync folder`, else `$XDG_DATA_HOME/prefs/sync`.
    package static func folder(configDirectory: String) -> String {
        if let f = ProcessEnvironment.value("PREFS_SYNC_DIR"), f.hasPrefix("/") { return f }
        if let f = chosenFolder(configDirectory) { return f }
        let env = ProcessEnvironment.value
        var data = env("XDG_DATA_HOME") ?? ""
        if !data.hasPrefix("/") {
            data = (env("HOME") ?? ProcessEnvironment.account(ProcessEnvironment.user)?.home ?? "/") + "/.local/share"
        }
        return data + "/prefs/sync"
    }

    /// Changes the settings file under its directory's lock: `body` gets the
    /// current dictionary; the file is replaced atomically, mode 0600. A file
    /// that does not parse is moved aside, never overwritten.
    private static func update<T>(
        _ configDirectory: String, _ body: (inout [PropertyList.Key: PropertyList]) -> T
    ) throws(PrefsError) -> T {
        let file = path(in: configDirectory)
        let dir = FileSystem.parent(of: file)
        try FileSystem.makeDirectories(dir, mode: 0o700)
        return try FileSystem.withDirectoryLock(dir) { () throws(PrefsError) -> T in
            var settings = [PropertyList.Key: PropertyList]()
            if let (bytes, _) = try FileSystem.read(file, followingLinks: false) {
                if let d = (try? PropertyList.parse(bytes))?.dictionaryValue {
                    settings = d
                } else {
                    _ = try FileSystem.moveAsideCorrupt(file)
                }
            }
            let result = body(&settings)
            try FileSystem.replaceAtomically(file, with: try PropertyList.dictionary(settings).xmlData(), mode: 0o600)
            return result
        }
    }

    /// This computer's name, for people reading `prefs sync status`.
    package static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, 255) == 0 else { return "" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Writes this machine's file in a sync folder: the only file of the folder
/// it ever writes, named from the machine's identity, replaced atomically
/// under the folder's lock (so two processes of the machine writing at once
/// both keep their keys). A symlink in its place is replaced, not followed:
/// nothing outside the folder is written.
///
/// Not thread-safe: calls are serialised by the owner of `reader`.
package struct SyncWriter {
    /// The machine that writes.
    package let machine: MachineID
    /// Its name for people.
    package let machineName: String
    /// The folder's reader, whose snapshot gives the newest time seen.
    package let reader: SyncFolderReader
    /// The physical clock (milliseconds since 1970); tests give their own.
    package var clock: @Sendable () -> Int64 = { HybridClock.physicalNow() }

    package init(machine: MachineID, machineName: String, reader: SyncFolderReader) {
        self.machine = machine
        self.machineName = machineName
        self.reader = reader
    }

    /// One change of one application: keys to set (a `nil` value removes),
    /// and declarations to make.
    package struct Change: Sendable {
        package var values: [PropertyList.Key: PropertyList?] = [:]
        package var declarations: [PropertyList.Key: Bool] = [:]
        package init(values: [PropertyList.Key: PropertyList?] = [:], declarations: [PropertyList.Key: Bool] = [:]) {
            self.values = values
            self.declarations = declarations
        }
    }

    /// Applies `change` to `application` in this machine's file, all of it
    /// at one new time of the hybrid clock, and returns the folder as it is
    /// then. Refused with `.invalidArgument`, writing nothing, when a key
    /// cannot sync (empty, over 64 bytes) or when the application would
    /// pass 1,024 synced keys or 1 MB of them; with `.io` when the folder
    /// cannot be written.
    @discardableResult
    package func apply(_ change: Change, to application: String) throws(PrefsError) -> SyncSnapshot {
        if let problem = ApplicationID.problem(application) { throw PrefsError(.invalidApplicationID, problem) }
        for key in Array(change.values.keys) + Array(change.declarations.keys) {
            if let problem = SyncLimits.problem(ofKey: key.string) { throw PrefsError(.invalidArgument, problem) }
        }
        for (key, value) in change.values {
            if let value { try PropertyList.checkStorable(value, forKey: key.string) }
        }
        let folder = reader.folder
        try FileSystem.makeDirectories(folder, mode: 0o700)
        return try FileSystem.withDirectoryLock(folder) { () throws(PrefsError) -> SyncSnapshot in
            let before = reader.scan()
            var own = before.files[machine] ?? SyncFile(machine: machine, machineName: machineName)
            let path = folder + "/" + SyncFile.fileName(of: machine)
            if before.files[machine] == nil, before.problems[SyncFile.fileName(of: machine)] != nil {
                // Our own file, unusable: a regular file of ours is kept aside
                // under a name that says so; anything else is replaced.
                if let st = try? SystemCall.lstat(path), (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == reader.owner {
                    _ = try FileSystem.moveAsideCorrupt(path)
                }
            }
            own.machineName = machineName
            let time = try writeTime(of: change, to: application, in: before)
            var app = own.applications[application] ?? SyncApplication()
            for (key, value) in change.values { app.values[key] = SyncRecord(value: value, time: time) }
            for (key, synced) in change.declarations { app.declarations[key] = SyncDeclaration(synced: synced, time: time) }
            own.applications[application] = app
            try checkLimits(before: before.state.applications[application] ?? SyncApplication(), own: app, change: change)
            let bytes = try own.encoded()
            if bytes.count > SyncLimits.maximumFileSize {
                throw PrefsError(
                    .invalidArgument,
                    "this machine's synced values would take \(bytes.count) bytes, more than the \(SyncLimits.maximumFileSize >> 20) MiB a machine file may hold"
                )
            }
            try FileSystem.replaceAtomically(path, with: bytes, mode: 0o600)
            return reader.scan()
        }
    }

    /// The time of a write of `change` to `application`, the folder being
    /// `before`: the hybrid clock's next time after the newest entry of the
    /// folder that is at most ``HybridClock/maximumLead`` ahead of the
    /// physical clock, and after every other machine's entry of the keys
    /// written, however far ahead (so the write wins). This machine's own
    /// entries of those keys are replaced, not passed: once no other
    /// machine holds a far-future entry of a key, its next write is at an
    /// honest time again. Refused with `.invalidArgument` when another
    /// machine's entry of a key is at the very end of the clock's range and
    /// cannot be passed: the write would be lost.
    private func writeTime(
        of change: Change, to application: String, in before: SyncSnapshot
    ) throws(PrefsError)
        -> SyncTimestamp
    {
        let physical = min(max(clock(), 0), SyncTimestamp.maximumWall)
        let horizon = physical + HybridClock.maximumLead
        var seen: SyncTimestamp?
        func see(_ t: SyncTimestamp) { if seen == nil || t > seen! { seen = t } }
        for file in before.files.values {
            for app in file.applications.values {
                for r in app.values.values where r.time.wall <= horizon { see(r.time) }
                for d in app.declarations.values where d.time.wall <= horizon { see(d.time) }
            }
        }
        var keyTimes: [(key: PropertyList.Key, time: SyncTimestamp)] = []
        for (id, file) in before.files where id != machine {
            guard let app = file.applications[application] else { continue }
            for key in change.values.keys { if let r = app.values[key] { keyTimes.append((key, r.time)) } }
            for key in change.declarations.keys { if let d = app.declarations[key] { keyTimes.append((key, d.time)) } }
        }
        for k in keyTimes { see(k.time) }
        let time = HybridClock.next(physical: physical, after: seen, machine: machine)
        if let held = keyTimes.filter({ $0.time >= time }).min(by: { $0.key < $1.key }) {
            throw PrefsError(
                .invalidArgument,
                "key \(held.key.string) is held at the end of the clock's range (the year 9999) by machine \(held.time.machine), which no write can pass; remove \(SyncFile.fileName(of: held.time.machine)) from the sync folder"
            )
        }
        return time
    }

    /// Refuses a change that takes the merged application past the limits;
    /// a change that shrinks it, or stays within them, passes.
    private func checkLimits(before: SyncApplication, own: SyncApplication, change: Change) throws(PrefsError) {
        var after = before
        after.merge(own)
        let addsKey = change.values.contains { $0.value != nil && before.values[$0.key]?.value == nil }
        if addsKey && after.liveCount > SyncLimits.maximumKeys {
            throw PrefsError(.invalidArgument, "an application syncs at most \(SyncLimits.maximumKeys) keys")
        }
        if change.values.contains(where: { $0.value != nil }) {
            let bytes = after.liveBytes
            if bytes > SyncLimits.maximumBytes && bytes > before.liveBytes {
                throw PrefsError(.invalidArgument, "an application syncs at most \(SyncLimits.maximumBytes) bytes of keys and values")
            }
        }
    }
}
