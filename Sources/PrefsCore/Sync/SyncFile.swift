/// The latest write of one synced key by one machine: its value, or `nil`
/// for a removal (a tombstone, kept so that the removal travels), and when.
package struct SyncRecord: Sendable, Equatable {
    /// The value written; `nil` when the key was removed.
    package var value: PropertyList?
    /// When, and by which machine.
    package var time: SyncTimestamp

    package init(value: PropertyList?, time: SyncTimestamp) {
        self.value = value
        self.time = time
    }
}

/// The latest declaration of one key as synced, or as no longer synced.
package struct SyncDeclaration: Sendable, Equatable {
    /// Whether the key syncs.
    package var synced: Bool
    /// When, and by which machine.
    package var time: SyncTimestamp

    package init(synced: Bool, time: SyncTimestamp) {
        self.synced = synced
        self.time = time
    }
}

/// What a sync folder says about one application: per key, the latest
/// write and the latest declaration. In one machine's file these are that
/// machine's own; merged (``merge(_:)``), the newest of every machine's.
package struct SyncApplication: Sendable, Equatable {
    /// The latest write of each key.
    package var values: [PropertyList.Key: SyncRecord] = [:]
    /// The latest declaration of each key.
    package var declarations: [PropertyList.Key: SyncDeclaration] = [:]

    package init() {}

    /// Whether nothing at all is recorded.
    package var isEmpty: Bool { values.isEmpty && declarations.isEmpty }

    /// The keys declared synced by their latest declaration, sorted.
    package var syncedKeys: [PropertyList.Key] {
        declarations.filter { $0.value.synced }.map(\.key).sorted()
    }

    /// Takes in `other`: per key, the newer of the two records and of the
    /// two declarations. Commutative, associative and idempotent, so that
    /// merging the same files in any order, any number of times, gives the
    /// same application.
    package mutating func merge(_ other: SyncApplication) {
        for (key, record) in other.values {
            if let mine = values[key], mine.time >= record.time { continue }
            values[key] = record
        }
        for (key, declaration) in other.declarations {
            if let mine = declarations[key], mine.time >= declaration.time { continue }
            declarations[key] = declaration
        }
    }

    /// The number of keys with a value (tombstones not counted).
    package var liveCount: Int { values.values.reduce(0) { $0 + ($1.value == nil ? 0 : 1) } }

    /// The bytes the application's values take against
    /// ``SyncLimits/maximumBytes``: each live key's UTF-8 and its value's
    /// binary property-list encoding.
    package var liveBytes: Int {
        var total = 0
        for (key, record) in values {
            guard let value = record.value else { continue }
            total += key.string.utf8.count + SyncLimits.encodedSize(of: value)
        }
        return total
    }
}

/// The limits of NSUbiquitousKeyValueStore, applied per application.
package enum SyncLimits {
    /// Keys with a synced value, per application.
    package static let maximumKeys = 1024
    /// Bytes of synced keys and values, per application (1 MB).
    package static let maximumBytes = 1 << 20
    /// Bytes of one key's UTF-8.
    package static let maximumKeyLength = 64
    /// The largest machine file a reader takes (and a writer writes):
    /// beyond it the file is ignored and reported, unread. Enough for one
    /// application at its limit and many small ones (typical synced
    /// settings take a few kilobytes), while a hostile file costs every
    /// process that reads the folder a bounded parse.
    package static let maximumFileSize = 4 << 20

    /// A value's size as counted against ``maximumBytes``: its binary
    /// property-list encoding (an unencodable value counts as too large).
    package static func encodedSize(of value: PropertyList) -> Int {
        (try? BinaryWriter.write(value).count) ?? Int.max / 4
    }

    /// Why `key` cannot sync, or `nil` when it can.
    package static func problem(ofKey key: String) -> String? {
        if key.isEmpty { return "an empty key cannot sync" }
        if key.utf8.count > maximumKeyLength {
            return "key is \(key.utf8.count) bytes long; a synced key holds at most \(maximumKeyLength)"
        }
        return nil
    }
}

/// One machine's file in the sync folder, `machine-<identity>.plist`: the
/// machine's latest write of each synced key (values and tombstones) and
/// its latest declarations, per application. Only that machine writes it;
/// it holds no history, so it stays bounded.
///
/// On disk it is a property-list dictionary (written in the binary format,
/// read in any):
///
/// ```
/// { Format = 1; Machine = "<identity>"; Name = "<host name>";
///   Applications = { "<app>" = {
///       Values = { "<key>" = { T = <ms>; C = <counter>; V = <value> }; ... };  (no V: removed)
///       Synced = { "<key>" = { T = <ms>; C = <counter>; S = <bool> }; ... }; }; }; }
/// ```
package struct SyncFile: Sendable, Equatable {
    /// The version of the format written; a reader ignores other versions.
    package static let format = 1
    /// The prefix of a machine file's name.
    package static let namePrefix = "machine-"
    /// The suffix of a machine file's name.
    package static let nameSuffix = ".plist"

    /// Whose file it is.
    package var machine: MachineID
    /// The machine's name for people (its host name), never trusted for
    /// anything else.
    package var machineName: String
    /// Per application ID.
    package var applications: [String: SyncApplication] = [:]

    package init(machine: MachineID, machineName: String) {
        self.machine = machine
        self.machineName = machineName
    }

    /// The file name of `machine`'s file.
    package static func fileName(of machine: MachineID) -> String { namePrefix + machine.text + nameSuffix }

    /// The machine whose file name is `name`; `nil` for any other name.
    package static func machine(ofFileName name: String) -> MachineID? {
        guard name.hasPrefix(namePrefix), name.hasSuffix(nameSuffix),
            name.utf8.count == namePrefix.utf8.count + 32 + nameSuffix.utf8.count
        else { return nil }
        return MachineID(String(name.dropFirst(namePrefix.count).dropLast(nameSuffix.count)))
    }

    /// The newest time of any entry; `nil` for an empty file.
    package var newest: SyncTimestamp? {
        var n: SyncTimestamp?
        for app in applications.values {
            for r in app.values.values where n == nil || r.time > n! { n = r.time }
            for d in app.declarations.values where n == nil || d.time > n! { n = d.time }
        }
        return n
    }

    // MARK: Encoding

    /// The file's bytes (a binary property list).
    package func encoded() throws(PrefsError) -> [UInt8] {
        var apps = [PropertyList.Key: PropertyList]()
        for (id, app) in applications where !app.isEmpty {
            var values = [PropertyList.Key: PropertyList]()
            for (key, record) in app.values {
                var entry: [PropertyList.Key: PropertyList] = ["T": .integer(record.time.wall), "C": .integer(record.time.counter)]
                if let value = record.value { entry["V"] = value }
                values[key] = .dictionary(entry)
            }
            var declared = [PropertyList.Key: PropertyList]()
            for (key, d) in app.declarations {
                declared[key] = .dictionary([
                    "T": .integer(d.time.wall), "C": .integer(d.time.counter), "S": .boolean(d.synced),
                ])
            }
            apps[PropertyList.Key(id)] = .dictionary(["Values": .dictionary(values), "Synced": .dictionary(declared)])
        }
        let root: PropertyList = .dictionary([
            "Format": .integer(SyncFile.format), "Machine": .string(machine.text), "Name": .string(machineName),
            "Applications": .dictionary(apps),
        ])
        return try BinaryWriter.write(root)
    }

    /// Reads the file of `machine` from `bytes`, which anyone able to write
    /// the sync folder may have shaped. Throws when the whole file is
    /// unusable (it does not parse, is another format version, or names
    /// another machine); otherwise returns what is well formed and, in
    /// `problems`, what was ignored (an entry of the wrong shape, a time
    /// out of range, an application ID or key that cannot sync, values
    /// past an application's limits).
    package static func decode(_ bytes: [UInt8], machine: MachineID) throws(PrefsError) -> (file: SyncFile, problems: [String]) {
        let root = try PropertyList.parse(bytes)
        guard case .dictionary(let top) = root.value else { throw PrefsError(.malformed, "not a dictionary") }
        guard top["Format"]?.integerValue == Int128(format) else {
            throw PrefsError(.malformed, "not a machine file of format \(format)")
        }
        guard let named = top["Machine"]?.stringValue, named == machine.text else {
            throw PrefsError(.malformed, "its Machine is not the one its name says")
        }
        let name = top["Name"]?.stringValue ?? ""
        var file = SyncFile(machine: machine, machineName: String(name.unicodeScalars.prefix(255)))
        var ignored = [String: Int]()
        guard let apps = top["Applications"]?.dictionaryValue else {
            if top["Applications"] != nil { ignored["Applications that is not a dictionary"] = 1 }
            return (file, report(ignored))
        }
        for (id, appValue) in apps {
            guard ApplicationID.problem(id.string) == nil, case .dictionary(let parts) = appValue.value else {
                ignored["applications with an unusable ID or shape", default: 0] += 1
                continue
            }
            var app = SyncApplication()
            for (key, entry) in parts["Values"]?.dictionaryValue ?? [:] {
                guard usable(key), let time = timestamp(entry, machine), entry["V"].map({ storable($0, key) }) ?? true else {
                    ignored["values with an unusable key, time or value", default: 0] += 1
                    continue
                }
                app.values[key] = SyncRecord(value: entry["V"], time: time)
            }
            for (key, entry) in parts["Synced"]?.dictionaryValue ?? [:] {
                guard usable(key), let time = timestamp(entry, machine), let synced = entry["S"]?.booleanValue
                else {
                    ignored["declarations with an unusable key, time or flag", default: 0] += 1
                    continue
                }
                app.declarations[key] = SyncDeclaration(synced: synced, time: time)
            }
            trimToLimits(&app, &ignored)
            if !app.isEmpty { file.applications[id.string] = app }
        }
        return (file, report(ignored))
    }

    /// Drops the values of `app` past an application's limits (1,024 keys
    /// with a value, 1 MB of keys and values), as no writer makes them:
    /// keys are taken in sorted order while they fit, so every reader keeps
    /// the same ones. Removals are kept.
    private static func trimToLimits(_ app: inout SyncApplication, _ ignored: inout [String: Int]) {
        var count = 0
        var bytes = 0
        for key in app.values.keys.sorted() {
            guard let value = app.values[key]?.value else { continue }
            let size = key.string.utf8.count + SyncLimits.encodedSize(of: value)
            if count < SyncLimits.maximumKeys && bytes + size <= SyncLimits.maximumBytes {
                count += 1
                bytes += size
            } else {
                app.values[key] = nil
                ignored["values past an application's limits (1,024 keys, 1 MB)", default: 0] += 1
            }
        }
    }

    /// Whether `key` can sync and be written to a domain file: a synced
    /// key's value may end up in the application's own domain (`prefs sync
    /// remove`), so the folder holds nothing a domain file cannot.
    private static func usable(_ key: PropertyList.Key) -> Bool {
        SyncLimits.problem(ofKey: key.string) == nil && storable(PropertyList.trueValue, key)
    }

    /// Whether a domain file can hold `value` under `key` (nesting and
    /// sizes within limits).
    private static func storable(_ value: PropertyList, _ key: PropertyList.Key) -> Bool {
        (try? PropertyList.checkStorable(value, forKey: key.string)) != nil
    }

    /// The time of an entry: `T` in `0...maximumWall` and `C` a 32-bit
    /// counter, both integers; `nil` otherwise.
    private static func timestamp(_ entry: PropertyList, _ machine: MachineID) -> SyncTimestamp? {
        guard let t = entry["T"]?.integerValue, let c = entry["C"]?.integerValue,
            t >= 0, t <= Int128(SyncTimestamp.maximumWall), c >= 0, c <= Int128(UInt32.max)
        else { return nil }
        return SyncTimestamp(wall: Int64(t), counter: UInt32(c), machine: machine)
    }

    private static func report(_ ignored: [String: Int]) -> [String] {
        ignored.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key) ignored" }
    }
}

/// What a set of machine files says, merged: per application and key, the
/// newest write and the newest declaration of every machine, with the
/// machines seen. The same files give the same state, whatever the order
/// in which they arrive or are merged. Immutable once built; safe to share.
package struct SyncState: Sendable, Equatable {
    /// Per application ID.
    package var applications: [String: SyncApplication] = [:]
    /// Every machine seen: its name and its newest entry.
    package var machines: [MachineID: (name: String, newest: SyncTimestamp?)] = [:]
    /// The newest time of any entry, which the next write must pass.
    package var newest: SyncTimestamp?

    package init() {}

    /// The state of `files` merged.
    package init(merging files: [SyncFile]) {
        for file in files { merge(file) }
    }

    /// Takes in one machine's file.
    package mutating func merge(_ file: SyncFile) {
        for (id, app) in file.applications { applications[id, default: SyncApplication()].merge(app) }
        let fileNewest = file.newest
        if let old = machines[file.machine] {
            // Two copies of one machine's file (never in one folder): the
            // newer names it, the smaller name on a tie, whatever the order.
            let name =
                old.newest == fileNewest
                ? min(old.name, file.machineName)
                : (max(old.newest, fileNewest) == old.newest ? old.name : file.machineName)
            machines[file.machine] = (name, max(old.newest, fileNewest))
        } else {
            machines[file.machine] = (file.machineName, fileNewest)
        }
        newest = max(newest, fileNewest)
    }

    /// The value of `key` of `application`: `.value` when its newest write
    /// set it, `.removed` when that write removed it, `nil` when no machine
    /// wrote it.
    package func record(of key: PropertyList.Key, in application: String) -> SyncRecord? {
        applications[application]?.values[key]
    }

    /// Whether the newest declaration of `key` of `application` says it syncs.
    package func isSynced(_ key: PropertyList.Key, in application: String) -> Bool {
        applications[application]?.declarations[key]?.synced ?? false
    }

    package static func == (a: SyncState, b: SyncState) -> Bool {
        a.applications == b.applications && a.newest == b.newest && a.machines.count == b.machines.count
            && a.machines.allSatisfy { m in b.machines[m.key].map { $0.name == m.value.name && $0.newest == m.value.newest } ?? false }
    }
}

/// `max` of two optional timestamps, `nil` the smallest.
private func max(_ a: SyncTimestamp?, _ b: SyncTimestamp?) -> SyncTimestamp? {
    guard let a else { return b }
    guard let b else { return a }
    return a > b ? a : b
}
