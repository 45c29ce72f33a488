import Glibc
import Testing

@testable import PrefsCore

// The sync engine on its own: machine identities, the hybrid logical clock,
// machine files, the merge, and the folder reader and writer over a real
// (hostile) folder. No store, no sync engine: files are copied by hand.

private func machine(_ n: Int) -> MachineID {
    let h = String(n, radix: 16)
    return MachineID(String(repeating: "0", count: 32 - h.count) + h)!
}

private let year: Int64 = 365 * 24 * 3600 * 1000

@Suite struct SyncClockTests {
    @Test func identitiesAreHexAndRandom() {
        #expect(MachineID("0123456789abcdef0123456789abcdef") != nil)
        #expect(MachineID("0123456789ABCDEF0123456789ABCDEF") == nil)
        #expect(MachineID("../../etc/passwd") == nil)
        #expect(MachineID("0123456789abcdef0123456789abcde") == nil)
        let a = MachineID.random()
        let b = MachineID.random()
        #expect(a != b)
        #expect(MachineID(a.text) == a)
    }

    @Test func nextWriteFollowsThePhysicalClockOrPassesWhatWasSeen() {
        let m = machine(1)
        let seen = SyncTimestamp(wall: 5000, counter: 7, machine: machine(2))
        #expect(HybridClock.next(physical: 6000, after: seen, machine: m) == SyncTimestamp(wall: 6000, counter: 0, machine: m))
        let t = HybridClock.next(physical: 4000, after: seen, machine: m)
        #expect(t == SyncTimestamp(wall: 5000, counter: 8, machine: m))
        #expect(t > seen)
        let full = SyncTimestamp(wall: 5000, counter: .max, machine: machine(2))
        let u = HybridClock.next(physical: 0, after: full, machine: m)
        #expect(u == SyncTimestamp(wall: 5001, counter: 0, machine: m))
        #expect(u > full)
        // The very end of the range cannot be passed, nor overflow.
        let end = SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: .max, machine: machine(2))
        #expect(HybridClock.next(physical: .max, after: end, machine: m).wall == SyncTimestamp.maximumWall)
        #expect(HybridClock.next(physical: -5, after: nil, machine: m).wall == 0)
    }

    @Test func aClockAYearFastPinsNoKey() {
        // Machine 1's clock runs a year fast; machine 2, reading its write,
        // writes after it with its own (correct) clock.
        let fast = machine(1)
        let slow = machine(2)
        let now: Int64 = 1_800_000_000_000
        var file1 = SyncFile(machine: fast, machineName: "fast")
        let t1 = HybridClock.next(physical: now + year, after: nil, machine: fast)
        file1.applications["com.example.app", default: .init()].values["Color"] = SyncRecord(value: "red", time: t1)
        let seenBy2 = SyncState(merging: [file1])
        var file2 = SyncFile(machine: slow, machineName: "slow")
        let t2 = HybridClock.next(physical: now + 1000, after: seenBy2.newest, machine: slow)
        file2.applications["com.example.app", default: .init()].values["Color"] = SyncRecord(value: "blue", time: t2)
        for files in [[file1, file2], [file2, file1]] {
            #expect(SyncState(merging: files).record(of: "Color", in: "com.example.app")?.value == "blue")
        }
    }
}

@Suite struct SyncFileTests {
    @Test func namesAreOnlyMachineFiles() {
        let m = machine(0xabc)
        #expect(SyncFile.machine(ofFileName: SyncFile.fileName(of: m)) == m)
        for bad in [
            "machine-.plist", "machine-00000000000000000000000000000abc.plist.tmp", "x.plist",
            "machine-00000000000000000000000000000ABC.plist", "machine-../../../../../../../etc/x.plist",
            "machine-00000000000000000000000000000abc.sync-conflict-20250101-000000-ABCDEFG.plist",
        ] {
            #expect(SyncFile.machine(ofFileName: bad) == nil, "\(bad)")
        }
    }

    @Test func encodesAndDecodesEverything() throws {
        let m = machine(7)
        var file = SyncFile(machine: m, machineName: "laptop")
        var app = SyncApplication()
        app.values["Size"] = SyncRecord(value: 12, time: SyncTimestamp(wall: 10, counter: 0, machine: m))
        app.values["Gone"] = SyncRecord(value: nil, time: SyncTimestamp(wall: 11, counter: 2, machine: m))
        app.values["Deep"] = SyncRecord(
            value: ["a": [1, 2.5, true], "d": .date(1.5), "b": .data([0, 255])], time: SyncTimestamp(wall: 12, counter: 0, machine: m))
        app.declarations["Size"] = SyncDeclaration(synced: true, time: SyncTimestamp(wall: 9, counter: 0, machine: m))
        app.declarations["Old"] = SyncDeclaration(synced: false, time: SyncTimestamp(wall: 9, counter: 1, machine: m))
        file.applications["com.example.app"] = app
        let (back, problems) = try SyncFile.decode(try file.encoded(), machine: m)
        #expect(problems.isEmpty)
        #expect(back == file)
        #expect(back.applications["com.example.app"]?.syncedKeys == ["Size"])
        // The same bytes under another machine's name are refused whole.
        #expect(throws: PrefsError.self) { try SyncFile.decode(try file.encoded(), machine: machine(8)) }
    }

    @Test func badEntriesAreIgnoredAndReportedTheRestApplies() throws {
        let m = machine(3)
        let good: PropertyList = ["T": 5, "C": 0, "V": "ok"]
        let root: PropertyList = [
            "Format": 1, "Machine": .string(m.text), "Name": "x",
            "Applications": [
                "com.example.app": [
                    "Values": [
                        "Good": good,
                        "Future": ["T": .integer(Int64.max), "C": 0, "V": "pinned"],
                        "Negative": ["T": -1, "C": 0, "V": "x"],
                        "BigCounter": ["T": 5, "C": .integer(UInt64(1) << 40), "V": "x"],
                        "RealTime": ["T": 5.5, "C": 0, "V": "x"],
                        "NotADict": "x",
                        "Escape": ["T": 5, "C": 0, "V": "\u{1B}[31m"],
                        "Key\u{1B}": good,
                        .init(String(repeating: "k", count: 65)): good,
                    ],
                    "Synced": ["Good": ["T": 5, "C": 0, "S": true], "NoFlag": ["T": 5, "C": 0]],
                ],
                "../../etc": ["Values": ["Good": good]],
                "": ["Values": ["Good": good]],
                "com.example.other": "not a dictionary",
            ],
        ]
        let (file, problems) = try SyncFile.decode(try BinaryWriter.write(root), machine: m)
        #expect(file.applications.keys.sorted() == ["com.example.app"])
        // A control character is a value like any other (a domain file
        // that holds one is kept binary): the escape sequence and the key
        // with ESC apply; readers escape them when they print them.
        #expect(file.applications["com.example.app"]?.values.keys.sorted() == ["Escape", "Good", "Key\u{1B}"])
        #expect(file.applications["com.example.app"]?.values["Good"]?.value == "ok")
        #expect(file.applications["com.example.app"]?.syncedKeys == ["Good"])
        #expect(problems.contains("6 values with an unusable key, time or value ignored"))
        #expect(problems.contains("3 applications with an unusable ID or shape ignored"))
        #expect(problems.contains("1 declarations with an unusable key, time or flag ignored"))
        for bad: PropertyList in [
            "text", ["Format": 2, "Machine": .string(m.text)], ["Format": 1, "Machine": "other"],
            ["Format": 1],
        ] {
            #expect(throws: PrefsError.self) { try SyncFile.decode(try bad.xmlData(), machine: m) }
        }
        #expect(throws: PrefsError.self) { try SyncFile.decode(Array("garbage <<".utf8), machine: m) }
    }
}

// MARK: Convergence over simulated machines

/// A deterministic random source (xorshift), so a failing seed repeats.
private struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// A machine that writes its own file and holds whatever versions of the
/// others' files were delivered to it, as a sync engine leaves them.
private struct SimulatedMachine {
    let id: MachineID
    var clockOffset: Int64
    var own: SyncFile
    var received: [MachineID: SyncFile] = [:]

    init(_ id: MachineID, clockOffset: Int64) {
        self.id = id
        self.clockOffset = clockOffset
        own = SyncFile(machine: id, machineName: "m\(id.text.suffix(1))")
    }

    var state: SyncState { SyncState(merging: [own] + received.values.sorted { $0.machine < $1.machine }) }
}

@Suite struct SyncConvergenceTests {
    static let app = "com.example.sync"
    static let keys: [PropertyList.Key] = ["a", "b", "c", "d", "e"]

    @Test(arguments: [UInt64(1), 2, 3, 42, 1234, 99999, 314159, 271828])
    func threeMachinesConvergeOnTheNewestWrites(seed: UInt64) throws {
        var rng = SeededRandom(seed)
        // Machine 3's clock runs a year fast, machine 2's an hour slow.
        var machines = [
            SimulatedMachine(machine(1), clockOffset: 0), SimulatedMachine(machine(2), clockOffset: -3_600_000),
            SimulatedMachine(machine(3), clockOffset: year),
        ]
        var published: [[SyncFile]] = [[], [], []]  // every version each machine's file had, oldest first
        var writes: [(key: PropertyList.Key, value: PropertyList?, time: SyncTimestamp)] = []
        var physical: Int64 = 1_800_000_000_000
        for step in 0..<300 {
            physical += Int64.random(in: 0...3, using: &rng)
            let who = Int.random(in: 0..<3, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:  // a write or a removal
                let key = SyncConvergenceTests.keys.randomElement(using: &rng)!
                let value: PropertyList? = Int.random(in: 0..<4, using: &rng) == 0 ? nil : .integer(step)
                let m = machines[who]
                let time = HybridClock.next(physical: physical + m.clockOffset, after: m.state.newest, machine: m.id)
                machines[who].own.applications[SyncConvergenceTests.app, default: .init()].values[key] =
                    SyncRecord(value: value, time: time)
                writes.append((key, value, time))
                published[who].append(machines[who].own)
            default:  // a delivery: any version of another machine's file, stale or duplicate
                let from = Int.random(in: 0..<3, using: &rng)
                guard from != who, !published[from].isEmpty else { continue }
                let version = published[from][Int.random(in: 0..<published[from].count, using: &rng)]
                let bytes = try version.encoded()
                machines[who].received[version.machine] = try SyncFile.decode(bytes, machine: version.machine).file
            }
        }
        // The engine settles: each machine gets the latest of every file, in any order.
        for who in 0..<3 {
            for from in (0..<3).shuffled(using: &rng) where from != who {
                if let latest = published[from].last { machines[who].received[latest.machine] = latest }
            }
        }
        let states = machines.map(\.state)
        #expect(states[0].applications == states[1].applications)
        #expect(states[1].applications == states[2].applications)
        // Every key holds the value of its newest write.
        for key in SyncConvergenceTests.keys {
            let newest = writes.filter { $0.key == key }.max { $0.time < $1.time }
            let record = states[0].record(of: key, in: SyncConvergenceTests.app)
            #expect(record?.value == newest?.value, "key \(key) seed \(seed)")
            #expect(record?.time == newest?.time)
        }
        // Merging the final files in every order gives the same state.
        let files = machines.map(\.own)
        for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [2, 0, 1, 1, 2]] {
            #expect(SyncState(merging: order.map { files[$0] }).applications == states[0].applications)
        }
    }

    @Test func aWriteMadeAfterSeeingAnotherWinsWhateverTheClocks() {
        // However the clocks disagree, a machine that saw a write and then
        // wrote the same key wins: the write it made is newer.
        var rng = SeededRandom(7)
        for _ in 0..<500 {
            let a = machine(Int.random(in: 1...1000, using: &rng))
            let b = machine(Int.random(in: 1...1000, using: &rng))
            let ta = HybridClock.next(
                physical: Int64.random(in: 0...SyncTimestamp.maximumWall, using: &rng),
                after: nil, machine: a)
            let tb = HybridClock.next(
                physical: Int64.random(in: 0...SyncTimestamp.maximumWall, using: &rng), after: ta, machine: b)
            #expect(tb > ta)
        }
    }
}

// MARK: The folder, for real

private final class SyncSandbox {
    let root: String
    var folder: String { root + "/sync" }
    init() {
        var template = Array("/tmp/prefs-sync-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        root = String(cString: made!)
        mkdir(root + "/sync", 0o700)
    }
    deinit { _ = system("rm -rf '\(root)'") }

    func writer(_ id: MachineID, clock: @escaping @Sendable () -> Int64 = { HybridClock.physicalNow() }) -> SyncWriter {
        var w = SyncWriter(machine: id, machineName: "host-\(id.text.suffix(2))", reader: SyncFolderReader(folder: folder))
        w.clock = clock
        return w
    }

    func write(_ bytes: [UInt8], _ name: String) {
        let fd = open(folder + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func listing(_ dir: String? = nil) -> [String] { FileSystem.list(dir ?? folder).sorted() }
}

@Suite(.serialized) struct SyncFolderTests {
    static let app = "com.example.sync"

    @Test func writersOfTwoMachinesSeeEachOther() throws {
        let box = SyncSandbox()
        let a = box.writer(machine(1))
        let b = box.writer(machine(2))
        try a.apply(.init(values: ["Color": "red"], declarations: ["Color": true]), to: Self.app)
        let s = try b.apply(.init(values: ["Size": 3]), to: Self.app)
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "red")
        #expect(s.state.record(of: "Size", in: Self.app)?.value == 3)
        #expect(s.state.isSynced("Color", in: Self.app))
        #expect(s.files.count == 2 && s.problems.isEmpty)
        // A removal is a newer write.
        let r = try b.apply(.init(values: ["Color": PropertyList?.none]), to: Self.app)
        #expect(r.state.record(of: "Color", in: Self.app)?.value == nil)
        #expect(r.state.record(of: "Color", in: Self.app) != nil)
        #expect(box.listing() == [SyncFile.fileName(of: machine(1)), SyncFile.fileName(of: machine(2))])
        #expect(permissionsOf(box.folder + "/" + SyncFile.fileName(of: machine(1))) == 0o600)
    }

    @Test func aMachineFileHoldsTheLatestWritePerKeyNotAHistory() throws {
        let box = SyncSandbox()
        let a = box.writer(machine(1))
        try a.apply(.init(values: ["Counter": 0]), to: Self.app)
        var size1 = 0
        for i in 1...200 {
            try a.apply(.init(values: ["Counter": .integer(i)]), to: Self.app)
            if i == 1 { size1 = fileSize(box.folder + "/" + SyncFile.fileName(of: machine(1))) }
        }
        let size200 = fileSize(box.folder + "/" + SyncFile.fileName(of: machine(1)))
        // The binary file stores equal values once: which of its integers
        // (the value, the clock's counter, the format) coincide depends on
        // timing, and moves the size by a few bytes. A history of 200
        // writes would add several bytes each.
        #expect(size200 <= size1 + 32)
    }

    @Test func limitsAreRefusedAndChangeNothing() throws {
        let box = SyncSandbox()
        let a = box.writer(machine(1))
        let long = PropertyList.Key(String(repeating: "x", count: 65))
        #expect(throws: PrefsError.self) { try a.apply(.init(values: [long: 1]), to: Self.app) }
        #expect(throws: PrefsError.self) { try a.apply(.init(declarations: [long: true]), to: Self.app) }
        #expect(box.listing().isEmpty)
        var many = [PropertyList.Key: PropertyList?]()
        for i in 0..<1024 { many[PropertyList.Key("k\(i)")] = .integer(i) }
        try a.apply(.init(values: many), to: Self.app)
        let file = box.folder + "/" + SyncFile.fileName(of: machine(1))
        let before = readAll(file)
        #expect(throws: PrefsError.self) { try a.apply(.init(values: ["one-too-many": 1]), to: Self.app) }
        // Another machine cannot add the 1,025th either; replacing one can.
        let b = box.writer(machine(2))
        #expect(throws: PrefsError.self) { try b.apply(.init(values: ["k-new": 1]), to: Self.app) }
        #expect(readAll(file) == before)
        try b.apply(.init(values: ["k5": "changed"]), to: Self.app)
        // 1 MB of values, in another application.
        let big = PropertyList.data([UInt8](repeating: 1, count: 600_000))
        try a.apply(.init(values: ["big1": big]), to: "com.example.big")
        #expect(throws: PrefsError.self) { try a.apply(.init(values: ["big2": big]), to: "com.example.big") }
        let s = SyncFolderReader(folder: box.folder).scan()
        #expect(s.state.record(of: "big2", in: "com.example.big") == nil)
        #expect(s.state.record(of: "one-too-many", in: Self.app) == nil)
        #expect(s.state.record(of: "k5", in: Self.app)?.value == "changed")
    }

    @Test func hostileEntriesAreIgnoredAndReportedTheOthersApply() throws {
        let box = SyncSandbox()
        let good = box.writer(machine(1))
        try good.apply(.init(values: ["Color": "red"]), to: Self.app)
        // Garbage under a machine's name, and a file of no machine.
        box.write(Array("\u{0}\u{1}garbage<<<".utf8), SyncFile.fileName(of: machine(2)))
        box.write(Array("hello".utf8), "notes.txt")
        // A FIFO (an open would block), a directory, a symlink to a valid
        // file outside, a file of another user, a huge sparse file.
        #expect(mkfifo(box.folder + "/" + SyncFile.fileName(of: machine(3)), 0o600) == 0)
        #expect(mkdir(box.folder + "/" + SyncFile.fileName(of: machine(4)), 0o700) == 0)
        var outside = SyncFile(machine: machine(5), machineName: "evil")
        outside.applications[Self.app, default: .init()].values["Color"] = SyncRecord(
            value: "evil", time: SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: 9, machine: machine(5)))
        let outsidePath = box.root + "/outside.plist"
        writeAll(outsidePath, try outside.encoded())
        #expect(symlink(outsidePath, box.folder + "/" + SyncFile.fileName(of: machine(5))) == 0)
        box.write(try outside.encoded().map { $0 }, SyncFile.fileName(of: machine(6)))
        var other = SyncFile(machine: machine(6), machineName: "other user")
        other.applications[Self.app, default: .init()].values["Color"] = SyncRecord(
            value: "other", time: SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: 9, machine: machine(6)))
        box.write(try other.encoded(), SyncFile.fileName(of: machine(6)))
        let otherUser: uid_t = getuid() == 0 ? 65534 : getuid()
        let chowned = chown(box.folder + "/" + SyncFile.fileName(of: machine(6)), otherUser, gid_t(otherUser)) == 0
        let huge = box.folder + "/" + SyncFile.fileName(of: machine(7))
        box.write([], SyncFile.fileName(of: machine(7)))
        #expect(truncate(huge, off_t(SyncLimits.maximumFileSize + 1)) == 0)
        let listing = box.listing()

        let s = SyncFolderReader(folder: box.folder).scan()
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "red")
        #expect(s.files.keys.sorted() == (getuid() == 0 && chowned ? [machine(1)] : [machine(1), machine(6)]).sorted())
        #expect(s.problems[SyncFile.fileName(of: machine(2))]?.hasPrefix("ignored") == true)
        #expect(s.problems["notes.txt"] != nil)
        #expect(s.problems[SyncFile.fileName(of: machine(3))]?.contains("not a regular file") == true)
        #expect(s.problems[SyncFile.fileName(of: machine(4))]?.contains("directory") == true)
        #expect(s.problems[SyncFile.fileName(of: machine(5))]?.contains("symbolic link") == true)
        if getuid() == 0 && chowned {
            #expect(s.problems[SyncFile.fileName(of: machine(6))]?.contains("another user") == true)
        }
        #expect(s.problems[SyncFile.fileName(of: machine(7))]?.contains("MiB") == true)
        // Reading created nothing.
        #expect(box.listing() == listing)
        // A write still works, and writes only this machine's file.
        try good.apply(.init(values: ["Color": "green"]), to: Self.app)
        #expect(box.listing() == listing)
        #expect(readAll(outsidePath) == (try outside.encoded()))
    }

    @Test func aSymlinkInPlaceOfTheOwnFileIsReplacedNotFollowed() throws {
        let box = SyncSandbox()
        let target = box.root + "/victim"
        writeAll(target, Array("keep me".utf8))
        #expect(symlink(target, box.folder + "/" + SyncFile.fileName(of: machine(1))) == 0)
        try box.writer(machine(1)).apply(.init(values: ["Color": "red"]), to: Self.app)
        #expect(readAll(target) == Array("keep me".utf8))
        let s = SyncFolderReader(folder: box.folder).scan()
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "red")
        #expect(s.problems.isEmpty)
    }

    @Test func anUnreadableOwnFileIsKeptAside() throws {
        let box = SyncSandbox()
        box.write(Array("not a plist <<<".utf8), SyncFile.fileName(of: machine(1)))
        try box.writer(machine(1)).apply(.init(values: ["Color": "red"]), to: Self.app)
        let names = box.listing()
        #expect(names.count == 2)
        #expect(names.contains { $0.hasPrefix(SyncFile.fileName(of: machine(1)) + ".corrupt-") })
    }

    @Test func aFastMachineInTheFolderPinsNothing() throws {
        let box = SyncSandbox()
        let now = HybridClock.physicalNow()
        let fast = box.writer(machine(9), clock: { now + year })
        try fast.apply(.init(values: ["Color": "fast"]), to: Self.app)
        let normal = box.writer(machine(1))
        let s = try normal.apply(.init(values: ["Color": "normal"]), to: Self.app)
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "normal")
    }

    /// A machine file holding `key` of `app` at `time`.
    private func plant(_ box: SyncSandbox, _ app: String, _ key: PropertyList.Key, _ time: SyncTimestamp) throws {
        var f = SyncFile(machine: time.machine, machineName: "hostile")
        f.applications[app, default: .init()].values[key] = SyncRecord(value: "hostile", time: time)
        box.write(try f.encoded(), SyncFile.fileName(of: time.machine))
    }

    private func time(of key: PropertyList.Key, _ app: String, _ box: SyncSandbox) -> SyncTimestamp? {
        SyncFolderReader(folder: box.folder).scan().state.record(of: key, in: app)?.time
    }

    @Test func oneEntryAtTheEndOfTimeDragsNoClock() throws {
        // One entry of an unrelated application, at the very end of the
        // clock's range: every other key is still written at honest times,
        // and a lower machine's write still wins.
        let box = SyncSandbox()
        let end = SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: .max, machine: machine(5))
        try plant(box, "com.example.unrelated", "X", end)
        let now = HybridClock.physicalNow()
        let low = box.writer(machine(1))
        let high = box.writer(machine(2))
        try low.apply(.init(values: ["Color": "low"]), to: Self.app)
        #expect(time(of: "Color", Self.app, box)!.wall < now + HybridClock.maximumLead)
        try high.apply(.init(values: ["Color": "high"]), to: Self.app)
        let s = try low.apply(.init(values: ["Color": "low again"]), to: Self.app)
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "low again")
        #expect(s.state.record(of: "Color", in: Self.app)!.time.wall < now + HybridClock.maximumLead)
    }

    @Test func aWriteThatCannotPassAKeysEntryIsRefusedNotLost() throws {
        let box = SyncSandbox()
        let top = MachineID(String(repeating: "f", count: 32))!
        try plant(box, Self.app, "Color", SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: .max, machine: top))
        let a = box.writer(machine(1))
        #expect(throws: PrefsError.self) { try a.apply(.init(values: ["Color": "mine"]), to: Self.app) }
        #expect(throws: PrefsError.self) { try a.apply(.init(values: ["Size": 2, "Color": "mine"]), to: Self.app) }
        #expect(box.listing() == [SyncFile.fileName(of: top)])
        // Other keys of the application are written, at honest times.
        let s = try a.apply(.init(values: ["Size": 2]), to: Self.app)
        #expect(s.state.record(of: "Size", in: Self.app)?.value == 2)
        #expect(s.state.record(of: "Size", in: Self.app)!.time.wall < HybridClock.physicalNow() + HybridClock.maximumLead)
    }

    @Test func aKeyHeldFarAheadIsPassedAndRecoversOnceItsFileIsGone() throws {
        let box = SyncSandbox()
        let hostile = machine(5)
        try plant(box, Self.app, "Color", SyncTimestamp(wall: SyncTimestamp.maximumWall, counter: 0, machine: hostile))
        let a = box.writer(machine(1))
        let s = try a.apply(.init(values: ["Color": "mine"]), to: Self.app)
        #expect(s.state.record(of: "Color", in: Self.app)?.value == "mine")
        // The hostile file goes: this machine's next write of the key is at
        // an honest time again, and still wins.
        #expect(unlink(box.folder + "/" + SyncFile.fileName(of: hostile)) == 0)
        let now = HybridClock.physicalNow()
        let r = try a.apply(.init(values: ["Color": "later"]), to: Self.app)
        #expect(r.state.record(of: "Color", in: Self.app)?.value == "later")
        #expect(r.state.record(of: "Color", in: Self.app)!.time.wall < now + HybridClock.maximumLead)
        let b = box.writer(machine(2))
        let t = try b.apply(.init(values: ["Color": "other"]), to: Self.app)
        #expect(t.state.record(of: "Color", in: Self.app)?.value == "other")
        #expect(t.state.record(of: "Color", in: Self.app)!.time.wall < now + HybridClock.maximumLead)
    }

    @Test func aFileOverTheLimitsIsReadWithinThemAlike() throws {
        // 2,000 keys in one application, and 3 values of 400 kB in another:
        // every reader keeps the same 1,024 keys and the same 1 MB.
        var f = SyncFile(machine: machine(3), machineName: "big")
        let t = SyncTimestamp(wall: 1000, counter: 0, machine: machine(3))
        for i in 0..<2000 { f.applications[Self.app, default: .init()].values[PropertyList.Key("k\(i)")] = SyncRecord(value: .integer(i), time: t) }
        f.applications[Self.app]!.values["gone"] = SyncRecord(value: nil, time: t)
        let big = PropertyList.data([UInt8](repeating: 7, count: 400_000))
        for k in ["b1", "b2", "b3"] { f.applications["com.example.big", default: .init()].values[PropertyList.Key(k)] = SyncRecord(value: big, time: t) }
        let (read, problems) = try SyncFile.decode(try f.encoded(), machine: machine(3))
        let app = read.applications[Self.app]!
        #expect(app.liveCount == SyncLimits.maximumKeys)
        #expect(app.values["gone"] != nil)
        #expect(read.applications["com.example.big"]!.liveBytes <= SyncLimits.maximumBytes)
        #expect(read.applications["com.example.big"]!.liveCount == 2)
        #expect(problems.contains { $0.contains("limits") })
        let again = try SyncFile.decode(try read.encoded(), machine: machine(3)).file
        #expect(again == read)
        #expect(Set(app.values.keys) == Set(try SyncFile.decode(try f.encoded(), machine: machine(3)).file.applications[Self.app]!.values.keys))
    }

    @Test func aMachineFileStaysUnderTheSizeReadersTake() throws {
        let box = SyncSandbox()
        let a = box.writer(machine(1))
        var refused = false
        for i in 0..<(SyncLimits.maximumFileSize / 900_000 + 1) {
            // Values that differ (a binary property list stores equal ones once).
            let big = PropertyList.data([UInt8](repeating: UInt8(i), count: 900_000))
            do { try a.apply(.init(values: ["big": big]), to: "com.example.big\(i)") } catch { refused = true }
        }
        #expect(refused)
        let s = SyncFolderReader(folder: box.folder).scan()
        #expect(s.problems.isEmpty)
        #expect(s.files[machine(1)] != nil)
    }

    @Test func twoWritersOfOneMachineKeepBothKeys() throws {
        let box = SyncSandbox()
        let first = box.writer(machine(1))
        let second = box.writer(machine(1))
        try first.apply(.init(values: ["A": 1]), to: Self.app)
        try second.apply(.init(values: ["B": 2]), to: Self.app)
        try first.apply(.init(values: ["C": 3]), to: "com.example.other")
        let s = SyncFolderReader(folder: box.folder).scan()
        #expect(s.state.record(of: "A", in: Self.app)?.value == 1)
        #expect(s.state.record(of: "B", in: Self.app)?.value == 2)
        #expect(s.state.record(of: "C", in: "com.example.other")?.value == 3)
    }

    @Test func theIdentityIsMadeOnceAndKeptOutsideTheFolder() throws {
        let box = SyncSandbox()
        let config = box.root + "/config"
        #expect(SyncSettings.existingIdentity(config, hostID: "h1") == nil)
        let id = try SyncSettings.identity(config, hostID: "h1")
        #expect(try SyncSettings.identity(config, hostID: "h1") == id)
        #expect(SyncSettings.existingIdentity(config, hostID: "h1") == id)
        // Another computer sharing this home (or a clone with a new machine id).
        #expect(try SyncSettings.identity(config, hostID: "h2") != id)
        #expect(box.listing().isEmpty)
        #expect(permissionsOf(config + "/prefs/sync.plist") == 0o600)
        try SyncSettings.setFolder(box.folder, config)
        #expect(SyncSettings.chosenFolder(config) == box.folder)
        #expect(try SyncSettings.identity(config, hostID: "h1") == id)
        #expect(throws: PrefsError.self) { try SyncSettings.setFolder("relative/path", config) }
    }
}

private func permissionsOf(_ path: String) -> mode_t? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o777
}

private func fileSize(_ path: String) -> Int {
    var st = stat()
    guard stat(path, &st) == 0 else { return -1 }
    return Int(st.st_size)
}

private func readAll(_ path: String) -> [UInt8]? {
    (try? FileSystem.read(path, followingLinks: false))??.bytes
}

private func writeAll(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0)
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}
