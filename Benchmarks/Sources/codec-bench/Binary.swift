import Contenders
import Foundation
import PrefsCore

// codec-bench binary [--quick]: libprefs' binary property-list reader against
// libplist's plist_from_bin, Foundation's PropertyListSerialization and
// Python's plistlib, on binary files of about 1 MB and 20 MB made from the
// generated XML inputs (libprefs' binary writer, which lays files out as
// CoreFoundation and plistlib do). All run side by side in one process run;
// plistlib in a python3 child that times plistlib.loads itself, between the
// in-process rounds.

/// A binary file of about `target` bytes: the generated XML input scaled so
/// that its binary form lands near the target.
func binaryInput(target: Int) -> (bytes: [UInt8], keys: Int) {
    var xmlTarget = target * 2
    for _ in 0..<3 {
        let xml = InputGenerator.document(targetBytes: xmlTarget).bytes
        let value = try! PropertyList.parse(xml)
        let binary = try! value.binaryData()
        if abs(binary.count - target) * 50 < target { return (binary, value.dictionaryValue?.count ?? 0) }
        xmlTarget = Int(Double(xmlTarget) * Double(target) / Double(binary.count))
    }
    let value = try! PropertyList.parse(InputGenerator.document(targetBytes: xmlTarget).bytes)
    return (try! value.binaryData(), value.dictionaryValue?.count ?? 0)
}

/// plistlib.loads timed in a python3 child: `repetitions` samples in ns,
/// each the mean of `batch` loads, and the number of top-level keys.
func plistlibTimes(_ path: String, repetitions: Int, batch: Int) -> (samples: [UInt64], keys: Int, version: String)? {
    let script = """
        import plistlib, sys, time
        data = open(sys.argv[1], 'rb').read()
        reps, batch = int(sys.argv[2]), int(sys.argv[3])
        value = plistlib.loads(data)
        out = []
        keep = []
        for _ in range(reps):
            keep = []  # the last values are freed before the clock starts
            t0 = time.perf_counter_ns()
            for _ in range(batch):
                keep.append(plistlib.loads(data))
            out.append((time.perf_counter_ns() - t0) // batch)
        print(len(value), sys.version.split()[0])
        print(' '.join(map(str, out)))
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path, String(repetitions), String(batch)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
    guard lines.count == 2 else { return nil }
    let head = lines[0].split(separator: " ")
    guard head.count == 2, let keys = Int(head[0]) else { return nil }
    return (lines[1].split(separator: " ").compactMap { UInt64($0) }, keys, String(head[1]))
}

func runBinaryBenchmark(quick: Bool) {
    struct Case {
        let label: String
        let target: Int
        let repetitions: Int
        let batch: Int
    }
    let cases = [
        Case(label: "1 MB", target: 1_000_000, repetitions: quick ? 8 : 30, batch: 1),
        Case(label: "20 MB", target: 20_000_000, repetitions: quick ? 2 : 7, batch: 1),
    ]
    print("### Binary property lists: reading")
    print()
    print("| Input | Reader | median wall | min wall | median CPU | MB/s (median wall) | vs libplist | runs |")
    print("|---|---|---|---|---|---|---|---|")
    var notes: [String] = []
    var heaps: [(String, [Timing], Settle)] = []
    for c in cases {
        note("binary: generating \(c.label)")
        let (bytes, keys) = binaryInput(target: c.target)
        let data = Data(bytes)
        // Everyone reads the same value before anything is timed.
        let mine = try! PropertyList.parse(bytes)
        guard let tree = PlistTree(binary: bytes), tree.topLevelCount == keys else {
            note("libplist cannot read the input")
            exit(1)
        }
        let theirs = try! PropertyListSerialization.propertyList(from: data, options: [], format: nil) as! [String: Any]
        precondition(mine.dictionaryValue?.count == keys && theirs.count == keys)
        let path = "/tmp/codec-bench-binary-\(getpid())-\(c.target).plist"
        guard writeFile(path, bytes) else { note("cannot write \(path)"); exit(1) }
        defer { unlink(path) }

        note("binary: timing \(c.label)")
        let ops = [
            Op(contender: .prefs, isWrite: false, body: { try! PropertyList.parse(bytes) }),
            Op(contender: .libplist, isWrite: false, body: { PlistTree(binary: bytes)! }),
            Op(contender: .foundation, isWrite: false, body: { try! PropertyListSerialization.propertyList(from: data, options: [], format: nil) }),
        ]
        // Each run starts from a heap with nothing free in it, as a
        // process's first read of a file does (see `Settle`).
        let timings = measure(ops, repetitions: c.repetitions, warmups: c.batch > 1 ? 2 : 1, batch: c.batch, settle: .fresh)
        note("binary: the two C-speed readers from the other heaps, \(c.label)")
        let pair = Array(ops[0..<2])
        heaps.append((c.label, [timings[0], timings[1]], .fresh))
        for settle in [Settle.again, .none] {
            heaps.append((c.label, measure(pair, repetitions: c.repetitions, warmups: 1, batch: c.batch, settle: settle), settle))
        }
        guard let python = plistlibTimes(path, repetitions: c.repetitions, batch: c.batch), python.keys == keys else {
            note("python3 plistlib failed")
            exit(1)
        }
        let libplistMedian = timings[1].wall.median
        let rows: [(String, Stats, Stats?)] = [
            ("libprefs (PropertyList.parse)", timings[0].wall, timings[0].cpu),
            ("libplist plist_from_bin", timings[1].wall, timings[1].cpu),
            ("Foundation PropertyListSerialization", timings[2].wall, timings[2].cpu),
            ("Python \(python.version) plistlib.loads", Stats(samples: python.samples), nil),
        ]
        for (name, wall, cpu) in rows {
            let speed = Double(bytes.count) / (wall.median / 1e9) / 1e6
            print(
                "| \(c.label) (\(bytes.count) bytes) | \(name) | \(duration(wall.median)) | \(duration(wall.min)) | "
                    + "\(cpu.map { duration($0.median) } ?? "–") | \(String(format: "%.0f", speed)) | "
                    + "\(String(format: "%.2f×", libplistMedian / wall.median)) | \(wall.samples.count) |")
        }
        notes.append("- \(c.label): \(bytes.count) bytes, \(keys) top-level keys; all four readers return \(keys) top-level entries.")
    }
    print()
    print("(\"vs libplist\": libplist's median wall time divided by the reader's; above 1 is faster than libplist.)")
    print()
    for n in notes { print(n) }
    print()
    print("Each run above starts from a heap with nothing free in it. libprefs and libplist from each heap (median CPU):")
    print()
    print("| Input | heap a run starts from | libprefs | libplist | vs libplist | runs |")
    print("|---|---|---|---|---|---|")
    for (label, t, settle) in heaps {
        let heap =
            switch settle {
            case .fresh: "fresh (as a process's first read)"
            case .again: "its own last value freed (reading again)"
            case .none: "the other reader's last value freed (round-robin)"
            }
        print(
            "| \(label) | \(heap) | \(duration(t[0].cpu.median)) | \(duration(t[1].cpu.median)) | "
                + "\(String(format: "%.2f×", t[1].cpu.median / t[0].cpu.median)) | \(t[0].cpu.samples.count) |")
    }
}
