// UserDefaultsProc.swift: Foundation's UserDefaults on Linux in the
// many-processes benchmark. The same roles, pipes (orders on fd 3, answers
// on fd 4) and output lines as prefs_proc.c (see proc.h):
//
//   userdefaults_proc lost ROUNDS KEYS PROC
//   userdefaults_proc count PROCS ROUNDS KEYS LABEL
//   userdefaults_proc sync1 ITERS
//   userdefaults_proc first-writer TRIALS
//   userdefaults_proc first-reader TRIALS plain|sync
//   userdefaults_proc poll-writer TRIALS
//   userdefaults_proc poll-reader TRIALS TIMEOUT_MS plain|sync
//   userdefaults_proc obs-writer TRIALS TIMEOUT_MS LABEL
//   userdefaults_proc obs-reader plain|sync
//
// "plain" reads with object(forKey:) alone; "sync" calls synchronize()
// before each read (for the observer: every 50 ms, from a run-loop timer),
// since without it Foundation may never see another process's change.
// Every process uses UserDefaults(suiteName: "com.example.bench"): all of
// them share the file $XDG_CONFIG_HOME/com.example.bench.plist.
//
// Build: swiftc -O UserDefaultsProc.swift -o userdefaults_proc
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let app = "com.example.bench"
let probe = "Probe"
let probeBase = 1_000_000  // PROC_PROBE_BASE
let fdIn: Int32 = 3, fdOut: Int32 = 4

/// CLOCK_MONOTONIC, one clock for the whole system (as in proc.h).
func nowNS() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

func die(_ why: String) -> Never {
    FileHandle.standardError.write("benchmark failed: \(why)\n".data(using: .utf8)!)
    exit(2)
}

/// Reads exactly `count` bytes into `buffer`; false at end of file.
func readAll(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Bool {
    var done = 0
    while done < count {
        let got = Glibc.read(fd, buffer + done, count - done)
        if got < 0 && errno == EINTR { continue }
        if got < 0 { die("read from a pipe failed") }
        if got == 0 { return false }
        done += got
    }
    return true
}

func writeAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let put = Glibc.write(fd, buffer + done, count - done)
        if put < 0 && errno == EINTR { continue }
        if put < 0 { die("write to a pipe failed") }
        done += put
    }
}

func readByte() {
    var b: UInt8 = 0
    if !readAll(fdIn, &b, 1) { die("the other process closed its pipe") }
}

func writeByte() {
    var b: UInt8 = 0x67
    writeAll(fdOut, &b, 1)
}

/// Two Int64 (a proc_message, or two times).
func readPair() -> (Int64, Int64) {
    var m: (Int64, Int64) = (0, 0)
    if !withUnsafeMutableBytes(of: &m, { readAll(fdIn, $0.baseAddress!, 16) }) { die("the other process closed its pipe") }
    return m
}

func writePair(_ a: Int64, _ b: Int64) {
    var m: (Int64, Int64) = (a, b)
    withUnsafeBytes(of: &m) { writeAll(fdOut, $0.baseAddress!, 16) }
}

/// An R line; NaN ("never") prints as x.
func report(_ name: String, _ label: String, _ unit: String, _ samples: [Double]) {
    let values = samples.map { $0.isNaN ? "x" : String(format: "%.6g", $0) }.joined(separator: " ")
    print("R \(name) \(label) \(unit) \(samples.count) \(values)")
    fflush(stdout)
}

func ms(_ ns: Int64) -> Double { Double(ns) / 1e6 }

let args = CommandLine.arguments
func arg(_ i: Int, _ fallback: Int) -> Int { args.count > i ? Int(args[i])! : fallback }
func word(_ i: Int, _ fallback: String) -> String { args.count > i ? args[i] : fallback }
guard args.count >= 2 else { die("usage: userdefaults_proc ROLE ARGS (see the source)") }
guard let defaults = UserDefaults(suiteName: app) else { die("no suite \(app)") }

/// synchronize() whose result does not matter (the observer's timer).
@Sendable func resynchronize() { _ = defaults.synchronize() }

func synchronize() {
    if !defaults.synchronize() { die("synchronize() returned false") }
}

/// The normal read, as an integer; -1 when absent. (@Sendable: the
/// observer calls it too.)
@Sendable func readProbe() -> Int {
    (defaults.object(forKey: probe) as? Int) ?? -1
}

// ---------------------------------------------------------------- 1. lost keys

func lost(rounds: Int, keys: Int, proc: Int) {
    _ = readProbe()  // loads the domain before the first release
    writeByte()
    for r in 0..<rounds {
        readByte()  // blocks until the release
        for i in 0..<keys { defaults.set(i, forKey: "p\(proc)-r\(r)-k\(i)") }
        synchronize()
        writeByte()
    }
}

func count(procs: Int, rounds: Int, keys: Int, label: String) {
    let expected = procs * rounds * keys
    var seen = [Bool](repeating: false, count: expected)
    var found = 0, others = 0
    let domain = defaults.persistentDomain(forName: app) ?? [:]
    for key in domain.keys {
        let parts = key.split(separator: "-")
        if parts.count == 3, parts[0].first == "p", parts[1].first == "r", parts[2].first == "k",
            let p = Int(parts[0].dropFirst()), let r = Int(parts[1].dropFirst()), let i = Int(parts[2].dropFirst()),
            (0..<procs).contains(p), (0..<rounds).contains(r), (0..<keys).contains(i)
        {
            let index = (p * rounds + r) * keys + i
            if !seen[index] { seen[index] = true; found += 1 }
        } else {
            others += 1
        }
    }
    report("lost-keys", label, "keys", [Double(expected - found)])
    var line = "N lost-keys \(label) found=\(found) expected=\(expected) other-keys=\(others)"
    for p in 0..<procs where found < expected {
        let missing = seen[(p * rounds * keys)..<((p + 1) * rounds * keys)].filter { !$0 }.count
        if missing > 0 { line += " p\(p):-\(missing)" }
    }
    print(line)
}

// ---------------------------------------------------------------- 2. set + synchronize

func sync1(iters: Int) {
    let keys = defaults.persistentDomain(forName: app)?.count ?? 0
    if keys < 1000 { die("the domain holds \(keys) keys, not 1,000") }
    var samples = [Double]()
    for i in 0..<iters {
        let t0 = nowNS()
        defaults.set(100 + i, forKey: "FontSize")
        synchronize()
        samples.append(ms(nowNS() - t0))
    }
    report("set-sync", "Foundation", "ms", samples)
}

// ---------------------------------------------------------------- 3a. first read

func firstWriter(trials: Int) {
    readByte()  // the reader has loaded the domain
    for i in 0..<trials {
        defaults.set(probeBase + i, forKey: probe)
        synchronize()
        writeByte()  // synchronize has returned
        readByte()  // the reader has done its read
    }
}

func firstReader(trials: Int, sync: Bool) {
    _ = readProbe()
    writeByte()
    var hits = [Double]()
    for i in 0..<trials {
        readByte()
        if sync { synchronize() }
        hits.append(readProbe() == probeBase + i ? 1 : 0)  // exactly one read
        writeByte()
    }
    report("first-read", sync ? "Foundation+sync" : "Foundation", "hit", hits)
}

// ---------------------------------------------------------------- 3b. polling

func pollWriter(trials: Int) {
    for i in 0..<trials {
        readByte()  // the reader is polling
        let tSet = nowNS()
        defaults.set(probeBase + i, forKey: probe)
        synchronize()
        writePair(tSet, nowNS())
    }
}

func pollReader(trials: Int, timeoutMS: Int, sync: Bool) {
    _ = readProbe()
    var fromSet = [Double](), fromSync = [Double](), polls = [Double]()
    for i in 0..<trials {
        writeByte()
        let deadline = nowNS() + Int64(timeoutMS) * 1_000_000
        var seen: Int64 = -1, n = 0
        while true {
            if sync { _ = defaults.synchronize() }
            let v = readProbe()
            let now = nowNS()
            n += 1
            if v == probeBase + i { seen = now; break }
            if now > deadline { break }
        }
        let (tSet, tSync) = readPair()
        fromSet.append(seen < 0 ? .nan : ms(seen - tSet))
        fromSync.append(seen < 0 ? .nan : ms(seen - tSync))
        polls.append(Double(n))
    }
    let label = sync ? "Foundation+sync" : "Foundation"
    report("poll-from-set", label, "ms", fromSet)
    report("poll-from-sync", label, "ms", fromSync)
    report("poll-reads", label, "reads", polls)
}

// ---------------------------------------------------------------- 4. observers

func obsWriter(trials: Int, timeoutMS: Int, label: String) {
    _ = readPair()  // the observer is registered
    var fromSet = [Double](), fromSync = [Double](), stale = 0
    for i in 0..<trials {
        let tSet = nowNS()
        defaults.set(probeBase + i, forKey: probe)
        synchronize()
        let tSync = nowNS(), deadline = tSync + Int64(timeoutMS) * 1_000_000
        var got: Int64 = -1
        while true {
            let left = (deadline - nowNS()) / 1_000_000
            var p = pollfd(fd: fdIn, events: Int16(POLLIN), revents: 0)
            if left < 0 || poll(&p, 1, Int32(left + 1)) == 0 { break }
            let (value, time) = readPair()
            if value == Int64(probeBase + i) { got = time; break }
            stale += 1  // a late notification of an earlier trial, or another value
        }
        fromSet.append(got < 0 ? .nan : ms(got - tSet))
        fromSync.append(got < 0 ? .nan : ms(got - tSync))
    }
    close(fdOut)  // the reader exits
    report("observer-from-set", label, "ms", fromSet)
    report("observer-from-sync", label, "ms", fromSync)
    print("N observer \(label) calls-with-another-value=\(stale) timeout-ms=\(timeoutMS)")
}

/// Until the self-check is over, the observer only counts notifications.
nonisolated(unsafe) var armed = false
nonisolated(unsafe) var selfCheckNotifications = 0

func obsReader(sync: Bool) -> Never {
    signal(SIGPIPE, SIG_IGN)
    _ = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { _ in
        if !armed { selfCheckNotifications += 1; return }
        let t = nowNS()
        var m: (Int64, Int64) = (Int64(readProbe()), t)
        // Fails only when the writer is already gone (SIGPIPE is ignored).
        _ = withUnsafeBytes(of: &m) { Glibc.write(fdOut, $0.baseAddress!, 16) }
    }
    // Self-check that the observer is wired right, in a suite of its own so
    // that the shared file is not touched: count what a set(_:forKey:) in
    // this very process posts, then what setPersistentDomain posts (the
    // one call that posts didChangeNotification in swift-corelibs-foundation).
    let own = UserDefaults(suiteName: app + ".selfcheck")!
    own.set(1, forKey: "SelfCheck")
    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.1))
    let afterSet = selfCheckNotifications
    own.setPersistentDomain(["SelfCheck": 2], forName: app + ".selfcheck")
    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.1))
    print(
        "N observer-self-check \(sync ? "Foundation+sync" : "Foundation") in-process notifications: "
            + "set(_:forKey:) \(afterSet), setPersistentDomain \(selfCheckNotifications - afterSet)")
    fflush(stdout)
    armed = true
    if sync {
        // Foundation re-reads the file only in synchronize(): give it the chance.
        _ = Timer.scheduledTimer(withTimeInterval: 0.05, repeats: true) { _ in resynchronize() }
    }
    _ = readProbe()
    // Exits when the writer closes its end (end of the case).
    Thread.detachNewThread {
        var b: UInt8 = 0
        while readAll(fdIn, &b, 1) {}
        exit(0)
    }
    writePair(-1, nowNS())
    RunLoop.main.run()
    exit(0)
}

switch args[1] {
case "lost": lost(rounds: arg(2, 20), keys: arg(3, 50), proc: arg(4, 0))
case "count": count(procs: arg(2, 16), rounds: arg(3, 20), keys: arg(4, 50), label: word(5, "Foundation"))
case "sync1": sync1(iters: arg(2, 200))
case "first-writer": firstWriter(trials: arg(2, 200))
case "first-reader": firstReader(trials: arg(2, 200), sync: word(3, "plain") == "sync")
case "poll-writer": pollWriter(trials: arg(2, 200))
case "poll-reader": pollReader(trials: arg(2, 200), timeoutMS: arg(3, 2000), sync: word(4, "plain") == "sync")
case "obs-writer": obsWriter(trials: arg(2, 100), timeoutMS: arg(3, 1000), label: word(4, "Foundation"))
case "obs-reader": obsReader(sync: word(2, "plain") == "sync")
default: die("unknown role \(args[1])")
}
