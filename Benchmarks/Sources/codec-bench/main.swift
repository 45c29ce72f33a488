// codec-bench: times libprefs' XML property-list reader and writer against
// Foundation's PropertyListSerialization, libplist and a bare libxml2 SAX2
// pass, and measures peak memory and growth on large inputs.
//
//   codec-bench                         everything, Markdown tables on stdout
//   codec-bench --quick                 fewer repetitions (for trying changes)
//   codec-bench generate BYTES PATH     write a generated input
//   codec-bench parse-once WHO PATH     parse one file once (memory sub-mode);
//                                       WHO: startup (reads nothing), none (reads
//                                       only), prefs foundation libplist floor
//   codec-bench binary [--quick]        the binary reader against libplist,
//                                       Foundation and Python's plistlib
//   codec-bench binary generate BYTES PATH
//                                       write the binary input of about BYTES
//   codec-bench binary compare PATH COUNT
//                                       libprefs against libplist alone on a
//                                       binary (or XML) file, COUNT rounds: medians
//                                       from a fresh heap, from each reader's
//                                       own garbage and from the other's
//   codec-bench binary split PATH COUNT
//                                       libprefs against libplist alternating,
//                                       each run from a fresh heap: median CPU
//                                       time to parse, to free, and both
//   codec-bench binary write PATH COUNT
//                                       the binary writers, libprefs against
//                                       libplist alternating: median CPU time
//   codec-bench binary loop WHO PATH COUNT
//                                       parse a binary or XML file COUNT times
//                                       (for callgrind); WHO: prefs libplist
//                                       foundation none
//   codec-bench profile parse|write BYTES COUNT
//                                       loop one PrefsCore operation (for perf)

import Contenders
import Foundation
import PrefsCore

cb_xml_init()

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "generate" {
    guard arguments.count == 3, let size = Int(arguments[1]) else { note("usage: codec-bench generate BYTES PATH"); exit(2) }
    exit(writeFile(arguments[2], InputGenerator.document(targetBytes: size).bytes) ? 0 : 1)
}

if arguments.first == "profile" {
    // A steady loop of one PrefsCore operation, to run under perf or callgrind.
    guard arguments.count == 4, ["parse", "write"].contains(arguments[1]), let size = Int(arguments[2]), let count = Int(arguments[3]) else {
        note("usage: codec-bench profile parse|write BYTES COUNT")
        exit(2)
    }
    let input = Input(InputGenerator.document(targetBytes: size).bytes)
    let value = Run.prefsParse(input)
    var total = 0
    for _ in 0..<count {
        if arguments[1] == "parse" {
            total += Run.prefsParse(input).dictionaryValue?.count ?? 0
        } else {
            total += Run.prefsWrite(value).count
        }
    }
    exit(total > 0 ? 0 : 1)
}

if arguments.first == "parse-once" {
    guard arguments.count == 3 else { note("usage: codec-bench parse-once WHO PATH"); exit(2) }
    if arguments[1] == "startup" { exit(0) }  // the runtime alone: no input, no parse
    guard var bytes = readFile(arguments[2]) else { note("cannot read \(arguments[2])"); exit(2) }
    let ok: Bool
    switch arguments[1] {
    case "none":
        ok = bytes.reduce(0 as UInt8, &+) != 1  // touch every page of the input, build nothing
    case "prefs":
        ok = (try? PropertyList.parse(bytes))?.dictionaryValue?.isEmpty == false
    case "foundation":
        ok = bytes.withUnsafeMutableBytes { b in
            let data = Data(bytesNoCopy: b.baseAddress!, count: b.count, deallocator: .none)
            var format = PropertyListSerialization.PropertyListFormat.xml
            return (try? PropertyListSerialization.propertyList(from: data, options: [], format: &format)) != nil
        }
    case "libplist":
        ok = PlistTree(bytes).map { $0.topLevelCount > 0 } ?? false
    case "floor":
        ok =
            bytes.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { cb_sax_floor($0.baseAddress, Int32(b.count)) }
            } > 0
    default:
        note("unknown contender \(arguments[1])")
        exit(2)
    }
    exit(ok ? 0 : 1)
}

if arguments.first == "binary" {
    if arguments.count == 4, arguments[1] == "generate", let size = Int(arguments[2]) {
        // The benchmark's binary input of about BYTES, written to PATH.
        exit(writeFile(arguments[3], binaryInput(target: size).bytes) ? 0 : 1)
    }
    if arguments.count == 5, arguments[1] == "loop", ["prefs", "libplist", "foundation", "none"].contains(arguments[2]),
        let bytes = readFile(arguments[3]), let count = Int(arguments[4])
    {
        // COUNT parses of one file by one reader, nothing else: run under
        // callgrind with COUNT 0 and N, the difference divided by N is the
        // reader's cost per parse. An XML file is read by libplist's XML
        // reader, a binary one by its binary reader.
        let binary = bytes.starts(with: Array("bplist".utf8))
        var total = 0
        for _ in 0..<count {
            switch arguments[2] {
            case "prefs": total += (try? PropertyList.parse(bytes))?.dictionaryValue?.count ?? 0
            case "libplist": total += (binary ? PlistTree(binary: bytes) : PlistTree(bytes))?.topLevelCount ?? 0
            case "foundation":
                let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
                total += (object as? [String: Any])?.count ?? 0
            default: total += 1
            }
        }
        exit(count == 0 || total > 0 ? 0 : 1)
    }
    if arguments.count == 4, arguments[1] == "compare", let bytes = readFile(arguments[2]), let reps = Int(arguments[3]) {
        // libprefs and libplist alone, round-robin on one file: medians,
        // from each of the three heaps a run can start from.
        // An XML file is read by libplist's XML reader, a binary one by its binary reader.
        let binary = bytes.starts(with: Array("bplist".utf8))
        let ops = [
            Op(contender: .prefs, isWrite: false, body: { try! PropertyList.parse(bytes) }),
            Op(contender: .libplist, isWrite: false, body: { binary ? PlistTree(binary: bytes)! : PlistTree(bytes)! }),
        ]
        for (label, settle) in [("fresh heap", Settle.fresh), ("own garbage", .again), ("other's garbage", .none)] {
            let t = measure(ops, repetitions: reps, warmups: 2, batch: 1, settle: settle)
            print(
                "\(label): libprefs \(duration(t[0].wall.median)) (CPU \(duration(t[0].cpu.median))), libplist \(duration(t[1].wall.median)) "
                    + "(CPU \(duration(t[1].cpu.median))), vs libplist \(String(format: "%.3f×", t[1].wall.median / t[0].wall.median)) wall, "
                    + "\(String(format: "%.3f×", t[1].cpu.median / t[0].cpu.median)) CPU")
        }
        exit(0)
    }
    if arguments.count == 4, arguments[1] == "write", let bytes = readFile(arguments[2]), let reps = Int(arguments[3]) {
        // The binary writers: libprefs' value and libplist's tree of one
        // file, each written back as a binary property list, alternating;
        // median thread CPU time (user + system), output freed untimed.
        let value = try! PropertyList.parse(bytes)
        guard let tree = PlistTree(binary: bytes) else { note("libplist cannot read \(arguments[2])"); exit(1) }
        var cpu = [[UInt64]](repeating: [], count: 2)
        var sizes = [0, 0]
        for round in 0..<(reps + 1) {
            for k in 0..<2 {
                let i = (k + round) % 2
                let c0 = cpuNow()
                if i == 0 {
                    let out = try! value.binaryData()
                    let c1 = cpuNow()
                    sizes[0] = out.count
                    if round > 0 { cpu[0].append(c1 - c0) }
                } else {
                    var n: UInt32 = 0
                    let out = cb_plist_write_bin(tree.handle, &n)
                    let c1 = cpuNow()
                    sizes[1] = Int(n)
                    cb_plist_bin_free(out)
                    if round > 0 { cpu[1].append(c1 - c0) }
                }
            }
        }
        let prefs = Stats(samples: cpu[0]).median, plist = Stats(samples: cpu[1]).median
        print("\(arguments[2]): \(reps) runs each, alternating, load \(loadAverage())")
        print("  libprefs binaryData(): \(duration(prefs)) CPU median, \(sizes[0]) bytes")
        print("  libplist plist_to_bin: \(duration(plist)) CPU median, \(sizes[1]) bytes")
        print("  libprefs / libplist: \(String(format: "%.3f", prefs / plist))")
        exit(0)
    }
    if arguments.count == 4, arguments[1] == "split", let bytes = readFile(arguments[2]), let reps = Int(arguments[3]) {
        // libprefs and libplist alternating on one binary file, each run from
        // a fresh heap: the thread's CPU time (user + system) to parse, to
        // free the value, and both, as medians.
        let bodies: [(String, () -> AnyObject)] = [
            ("libprefs", { try! PropertyList.parse(bytes) }),
            ("libplist", { PlistTree(binary: bytes)! }),
        ]
        var parse = [[UInt64]](repeating: [], count: 2), free = parse, both = parse
        for round in 0..<(reps + 1) {
            for k in 0..<2 {
                let i = (k + round) % 2
                _ = mallocTrim(0)
                let c0 = cpuNow()
                var value: AnyObject? = bodies[i].1()
                let c1 = cpuNow()
                value = nil
                let c2 = cpuNow()
                precondition(value == nil)
                if round > 0 {
                    parse[i].append(c1 - c0)
                    free[i].append(c2 - c1)
                    both[i].append(c2 - c0)
                }
            }
        }
        print("\(arguments[2]): \(reps) runs each, alternating, fresh heap, load \(loadAverage())")
        for i in 0..<2 {
            print(
                "  \(bodies[i].0): parse \(duration(Stats(samples: parse[i]).median)), free \(duration(Stats(samples: free[i]).median)), "
                    + "parse and free \(duration(Stats(samples: both[i]).median)) (CPU medians)")
        }
        let ratio = { (x: [[UInt64]]) in String(format: "%.3f", Stats(samples: x[0]).median / Stats(samples: x[1]).median) }
        print("  libprefs / libplist: parse \(ratio(parse)), free \(ratio(free)), parse and free \(ratio(both))")
        exit(0)
    }
    if arguments.count == 3, arguments[1] == "profile", let count = Int(arguments[2]) {
        // A steady loop of the binary reader on the 1 MB input, for perf.
        let (bytes, _) = binaryInput(target: 1_000_000)
        var total = 0
        for _ in 0..<count { total += (try? PropertyList.parse(bytes))?.dictionaryValue?.count ?? 0 }
        exit(total > 0 ? 0 : 1)
    }
    runBinaryBenchmark(quick: arguments.contains("--quick"))
    exit(0)
}

let quick = arguments.contains("--quick")
if let unknown = arguments.first(where: { $0 != "--quick" }) {
    note("unknown argument \(unknown)")
    exit(2)
}

struct Size {
    let label: String
    let target: Int
    let repetitions: Int
    let warmups: Int
    /// Runs per sample: each 1 KB sample is the mean of 20 runs in a row,
    /// so that reading the clocks costs little next to what is timed.
    var batch = 1
}

let sizes = [
    Size(label: "1 KB", target: 1_000, repetitions: quick ? 50 : 200, warmups: 20, batch: 20),
    Size(label: "1 MB", target: 1_000_000, repetitions: quick ? 8 : 30, warmups: 2),
    Size(label: "20 MB", target: 20_000_000, repetitions: quick ? 2 : 5, warmups: 0),
]
// Before timing, every contender parses and writes each input once (the
// checks below), which warms caches and allocators; small inputs also get
// warm-up rounds that are not kept.
let growthSizes = [
    Size(label: "5 MB", target: 5_000_000, repetitions: quick ? 2 : 5, warmups: 0),
    Size(label: "10 MB", target: 10_000_000, repetitions: quick ? 2 : 5, warmups: 0),
]

// MARK: Peak memory, first, while this process is still small (Linux carries
// a parent's peak RSS into its child's at exec).

let memorySizes = [5_000_000, 10_000_000, 20_000_000]
let memoryModes = ["startup", "none"] + Contender.allCases.map(\.flag)
var directoryTemplate = Array("/tmp/codec-bench.XXXXXX".utf8CString)
guard let dirPointer = mkdtemp(&directoryTemplate) else { note("mkdtemp failed"); exit(1) }
let directory = String(cString: dirPointer)
var memory: [Int: [String: Int]] = [:]  // size -> mode -> KiB
var fileSizes: [Int: Int] = [:]
for size in memorySizes {
    let path = "\(directory)/input-\(size).plist"
    note("memory: generating \(size) bytes")
    guard spawnSelf(["generate", String(size), path]).status == 0 else { note("generate failed"); exit(1) }
    var st = stat()
    stat(path, &st)
    fileSizes[size] = Int(st.st_size)
    for mode in memoryModes {
        note("memory: \(mode) on \(size)")
        let (status, kib) = spawnSelf(["parse-once", mode, path])
        guard status == 0 else { note("parse-once \(mode) failed with status \(status)"); exit(1) }
        memory[size, default: [:]][mode] = kib
    }
}
let parentRSSDuringMemory = ownMaxRSSKiB()
let twentyFromFile = readFile("\(directory)/input-20000000.plist")
for size in memorySizes { unlink("\(directory)/input-\(size).plist") }
rmdir(directory)

// MARK: Timing

struct Result {
    let size: Size
    let inputBytes: Int
    let keys: Int
    let parse: [Contender: Timing]
    let write: [Contender: Timing]
    let checks: [String]
}

func run(_ size: Size, writes: Bool) -> Result {
    note("timing: \(size.label)")
    let generated = InputGenerator.document(targetBytes: size.target)
    let input = Input(generated.bytes)
    var checks: [String] = []

    // Each contender parses once, and the results are checked before anything is timed.
    let prefsValue = Run.prefsParse(input)
    let foundationValue = Run.foundationParse(input.data)
    let tree = Run.libplistParse(input)
    let floorElements = Run.floor(input)
    let entries = generated.topLevelEntries
    checks.append(
        "\(megabytes(input.bytes.count)) (\(input.bytes.count) bytes), \(generated.keys) keys, \(entries) top-level entries, \(floorElements) elements")
    checks.append(
        "top-level entries: PrefsCore \(prefsValue.dictionaryValue?.count ?? -1), "
            + "PropertyListSerialization \((foundationValue as? [String: Any])?.count ?? -1), libplist \(tree.topLevelCount)")
    if size.target == 20_000_000, let fromFile = twentyFromFile {
        checks.append("the generator made the same bytes in two processes: \(fromFile == input.bytes)")
    }
    guard writes else {
        let stats = measure(
            [
                Op(contender: .prefs, isWrite: false) { Run.prefsParse(input) },
                Op(contender: .foundation, isWrite: false) { Run.foundationParse(input.data) },
                Op(contender: .libplist, isWrite: false) { Run.libplistParse(input) },
                Op(contender: .floor, isWrite: false) { Run.floor(input) },
            ], repetitions: size.repetitions, warmups: size.warmups, batch: size.batch)
        withExtendedLifetime((foundationValue, tree)) {}
        return Result(
            size: size, inputBytes: input.bytes.count, keys: generated.keys,
            parse: Dictionary(uniqueKeysWithValues: zip(Contender.allCases, stats)), write: [:], checks: checks)
    }

    let prefsOut = Run.prefsWrite(prefsValue)
    let foundationOut = Run.foundationWrite(foundationValue)
    let libplistOut = Run.libplistWrite(tree)
    checks.append("PrefsCore write of its parse is byte-identical to the input: \(prefsOut == input.bytes)")
    let foundationBack = try? PropertyList.parse(Array(foundationOut))
    let libplistBack = try? PropertyList.parse(
        Array(UnsafeBufferPointer(start: UnsafeRawPointer(libplistOut.text).assumingMemoryBound(to: UInt8.self), count: libplistOut.count)))
    checks.append(
        "outputs: PrefsCore \(prefsOut.count) bytes; PropertyListSerialization \(foundationOut.count) bytes, "
            + "reads back equal: \(foundationBack.map { $0 == prefsValue } ?? false); libplist \(libplistOut.count) bytes, "
            + "reads back equal: \(libplistBack.map { $0 == prefsValue } ?? false)")

    var ops = [
        Op(contender: .prefs, isWrite: false) { Run.prefsParse(input) },
        Op(contender: .foundation, isWrite: false) { Run.foundationParse(input.data) },
        Op(contender: .libplist, isWrite: false) { Run.libplistParse(input) },
        Op(contender: .floor, isWrite: false) { Run.floor(input) },
    ]
    if writes {
        ops += [
            Op(contender: .prefs, isWrite: true) { Run.prefsWrite(prefsValue) },
            Op(contender: .foundation, isWrite: true) { Run.foundationWrite(foundationValue) },
            Op(contender: .libplist, isWrite: true) { Run.libplistWrite(tree) },
        ]
    }
    let stats = measure(ops, repetitions: size.repetitions, warmups: size.warmups, batch: size.batch)
    var parse: [Contender: Timing] = [:], write: [Contender: Timing] = [:]
    for (op, s) in zip(ops, stats) {
        if op.isWrite { write[op.contender] = s } else { parse[op.contender] = s }
    }
    withExtendedLifetime((foundationValue, tree, libplistOut)) {}
    return Result(size: size, inputBytes: input.bytes.count, keys: generated.keys, parse: parse, write: write, checks: checks)
}

let results = sizes.map { run($0, writes: true) }
let growth = growthSizes.map { run($0, writes: false) } + [results[2]]

// MARK: Report

print("### Inputs and checks\n")
for r in results + growth.dropLast() {
    print("- \(r.size.label): " + r.checks.joined(separator: "; "))
}
print("")

print(
    "Times are per run. Wall = elapsed time (what the targets are stated in); CPU = the thread's own CPU time, "
        + "which leaves out time spent waiting for a core on this shared machine. MB = 10^6 bytes; write throughput is "
        + "counted against the input file's size.\n")
for (title, isWrite) in [("Parse (XML bytes to values)", false), ("Write (values to XML bytes)", true)] {
    print("### \(title)\n")
    print("| Input | Contender | Wall median | Wall min | CPU median | CPU min | MB/s (wall median) | MB/s (CPU median) | Samples |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results {
        for c in Contender.allCases where !isWrite || c.writes {
            let t = isWrite ? r.write[c]! : r.parse[c]!
            let cells: [String] = [
                r.size.label, c.rawValue, duration(t.wall.median), duration(t.wall.min),
                duration(t.cpu.median), duration(t.cpu.min),
                throughput(bytes: r.inputBytes, ns: t.wall.median), throughput(bytes: r.inputBytes, ns: t.cpu.median),
                r.size.batch > 1 ? "\(t.runs) × \(r.size.batch) runs" : "\(t.runs)",
            ]
            print("| " + cells.joined(separator: " | ") + " |")
        }
    }
    print("")
}

print("### Ratios\n")
print(
    "Speed-up = the other's time / PrefsCore's time (above 1: PrefsCore is faster). Cost vs floor = PrefsCore's parse time / "
        + "the bare SAX pass's time (below 2.5 meets the target).\n")
print(
    "| Input | Clock | Parse speed-up vs PropertyListSerialization | Parse speed-up vs libplist | Parse cost vs libxml2 floor | Write speed-up vs PropertyListSerialization | Write speed-up vs libplist |"
)
print("|---|---|---:|---:|---:|---:|---:|")
for r in results {
    for (clock, pick) in [
        ("wall median", { (t: Timing) in t.wall.median }), ("CPU median", { (t: Timing) in t.cpu.median }),
        ("wall min", { (t: Timing) in t.wall.min }),
    ] {
        let p = pick(r.parse[.prefs]!), w = pick(r.write[.prefs]!)
        let cells: [String] = [
            r.size.label, clock, ratio(pick(r.parse[.foundation]!) / p), ratio(pick(r.parse[.libplist]!) / p),
            ratio(p / pick(r.parse[.floor]!)), ratio(pick(r.write[.foundation]!) / w), ratio(pick(r.write[.libplist]!) / w),
        ]
        print("| " + cells.joined(separator: " | ") + " |")
    }
}
print("")

print("### Growth: parse time per MB\n")
print("The 5 and 10 MB inputs are the first quarter and half of the 20 MB one. Flat per-MB times mean linear growth.\n")
print("| Contender | Clock | " + growth.map { "\($0.size.label) (\($0.keys) keys)" }.joined(separator: " | ") + " | 20 MB / 5 MB |")
print("|---|---|" + growth.map { _ in "---:|" }.joined() + "---:|")
for c in Contender.allCases {
    for (clock, pick) in [("wall median", { (t: Timing) in t.wall.median }), ("CPU median", { (t: Timing) in t.cpu.median })] {
        let perMB = growth.map { pick($0.parse[c]!) / (Double($0.inputBytes) / 1_000_000) }
        print("| \(c.rawValue) | \(clock) | " + perMB.map { duration($0) }.joined(separator: " | ") + " | \(ratio(perMB.last! / perMB.first!)) |")
    }
}
print("")

print("### Peak memory of a process that only parses (max RSS, from wait4)\n")
print(
    "Each figure is a fresh run of this executable that parses the file once. \"startup\" reads nothing (the Swift runtime and the "
        + "libraries this executable links, Foundation included); \"reading only\" loads the file and builds nothing. In brackets: the peak "
        + "minus \"reading only\". This process's own peak was \(parentRSSDuringMemory / 1024) MiB while the children ran "
        + "(Linux carries a parent's peak into its child's at exec, so it must stay below theirs).\n")
let file20 = Double(fileSizes[20_000_000]!)
print(
    "| Process | " + memorySizes.map { "\(megabytes(fileSizes[$0]!)) file" }.joined(separator: " | ")
        + " | 20 MB: peak / file | 20 MB: (peak − startup) / file | 20 MB: (peak − reading only) / file |")
print("|---|" + memorySizes.map { _ in "---:|" }.joined() + "---:|---:|---:|")
for mode in memoryModes {
    let name = mode == "startup" ? "startup" : mode == "none" ? "reading only" : Contender.allCases.first { $0.flag == mode }!.rawValue
    let cells = memorySizes.map { size -> String in
        let kib = memory[size]![mode]!
        let over = kib - memory[size]!["none"]!
        let mib = String(format: "%.1f MiB", Double(kib) / 1024)
        return mode == "startup" || mode == "none" ? mib : mib + String(format: " (+%.1f)", Double(over) / 1024)
    }
    let m = memory[20_000_000]!
    let peak = Double(m[mode]! * 1024)
    let overStartup = Double((m[mode]! - m["startup"]!) * 1024)
    let overReading = Double((m[mode]! - m["none"]!) * 1024)
    let contender = mode != "startup" && mode != "none"
    let startupCell: String = mode == "startup" ? "—" : ratio(overStartup / file20)
    let readingCell: String = contender ? ratio(overReading / file20) : "—"
    let row: [String] = [name] + cells + [ratio(peak / file20), startupCell, readingCell]
    print("| " + row.joined(separator: " | ") + " |")
}
