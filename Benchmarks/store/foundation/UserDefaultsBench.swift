// UserDefaultsBench.swift: Foundation's UserDefaults on Linux, the same cases
// and output lines as prefs_bench.c (see bench.h). One case per process:
//
//   userdefaults_bench hit|registered|miss RUNS ITERS
//   userdefaults_bench set RUNS ITERS
//   userdefaults_bench bulk N
//   userdefaults_bench growth
//   userdefaults_bench sync1 RUNS
//
// Build: swiftc -O UserDefaultsBench.swift -o userdefaults_bench
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let app = "com.example.bench"
let contender = "Foundation"
let growthPoints = [1000, 5000, 10000, 20000]
let growthWindow = 500

func nowNS() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

func cpuNS() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

func die(_ why: String) -> Never {
    FileHandle.standardError.write("benchmark setup failed: \(why)\n".data(using: .utf8)!)
    exit(2)
}

func report(_ name: String, _ unit: String, _ iterations: Int, _ samples: [Double]) {
    let values = samples.map { String(format: "%.6g", $0) }.joined(separator: " ")
    print("R \(name) \(contender) \(unit) \(iterations) \(values)")
    fflush(stdout)
}

func domainFileExists() -> Bool {
    let dir = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? "."
    return access("\(dir)/\(app).plist", F_OK) == 0
}

/// Keeps the optimizer from dropping a loop whose result is unused.
@inline(never) func consume(_ n: Int) {
    if n == -1 { print("") }
}

let args = CommandLine.arguments
guard args.count >= 2 else { die("usage: userdefaults_bench CASE ARGS") }
let mode = args[1]
let runs = min(args.count > 2 ? Int(args[2])! : 15, 64)
let iterations = args.count > 3 ? Int(args[3])! : 1_000_000
guard let defaults = UserDefaults(suiteName: app) else { die("no suite") }

@inline(never)  // callgrind counts its instructions by name (Benchmarks/compare.sh)
func reads(_ name: String, key: String, expected: String?) {
    let first = defaults.object(forKey: key) as? String
    if first != expected { die("\(key) reads \(String(describing: first)), not \(String(describing: expected))") }
    var wall = [Double](), cpu = [Double]()
    for _ in 0..<runs {
        var found = 0
        let t0 = nowNS(), c0 = cpuNS()
        for _ in 0..<iterations {
            if defaults.object(forKey: key) != nil { found += 1 }
        }
        cpu.append((cpuNS() - c0) / Double(iterations))
        wall.append((nowNS() - t0) / Double(iterations))
        consume(found)
    }
    report(name, "ns/op", iterations, wall)
    report(name + "-cpu", "ns/op", iterations, cpu)
}

@inline(never)
func sets() {
    if defaults.object(forKey: "FontSize") == nil { die("FontSize is not in the domain") }
    var wall = [Double](), cpu = [Double]()
    for _ in 0..<runs {
        let t0 = nowNS(), c0 = cpuNS()
        for i in 0..<iterations {
            defaults.set(12 + (i & 1) * 2, forKey: "FontSize")
        }
        cpu.append((cpuNS() - c0) / Double(iterations))
        wall.append((nowNS() - t0) / Double(iterations))
    }
    report("set", "ns/op", iterations, wall)
    report("set-cpu", "ns/op", iterations, cpu)
}

func newKeys(_ n: Int) -> [String] {
    (0..<n).map { String(format: "new%05d", $0) }
}

func bulk(_ n: Int) {
    let keys = newKeys(n)
    if defaults.object(forKey: "MissingKey") != nil { die("MissingKey has a value") }
    let t0 = nowNS()
    for i in 0..<n { defaults.set(i, forKey: keys[i]) }
    let t1 = nowNS()
    let early = domainFileExists()
    if !defaults.synchronize() { die("synchronize failed") }
    let t2 = nowNS()
    report("bulk-sets", "ms", n, [(t1 - t0) / 1e6])
    report("bulk-sync", "ms", n, [(t2 - t1) / 1e6])
    report("bulk-total", "ms", n, [(t2 - t0) / 1e6])
    print("N bulk \(contender) written-before-synchronize=\(early ? "yes" : "no")")
}

func growth() {
    let last = growthPoints.last! + growthWindow
    let keys = newKeys(last)
    if defaults.object(forKey: "MissingKey") != nil { die("MissingKey has a value") }
    var i = 0
    let start = nowNS()
    for point in growthPoints {
        while i < point { defaults.set(i, forKey: keys[i]); i += 1 }
        let t0 = nowNS(), c0 = cpuNS()
        for _ in 0..<growthWindow { defaults.set(i, forKey: keys[i]); i += 1 }
        let cpu = (cpuNS() - c0) / 1e3 / Double(growthWindow)
        report("growth-\(point)", "us/set", growthWindow, [(nowNS() - t0) / 1e3 / Double(growthWindow)])
        report("growth-\(point)-cpu", "us/set", growthWindow, [cpu])
    }
    report("growth-all", "ms", last, [(nowNS() - start) / 1e6])
    print("N growth \(contender) written-before-synchronize=\(domainFileExists() ? "yes" : "no")")
    _ = defaults.synchronize()
}

func sync1() {
    let count = defaults.dictionaryRepresentation().keys.filter { $0.hasPrefix("key") || $0.hasPrefix("Font") }.count
    if count < 1000 { die("the domain holds \(count) keys, not 1,000") }
    var samples = [Double]()
    for r in 0..<runs {
        defaults.set(100 + r, forKey: "FontSize")
        let t0 = nowNS()
        if !defaults.synchronize() { die("synchronize failed") }
        samples.append((nowNS() - t0) / 1e6)
    }
    report("sync1", "ms", 1, samples)
}

switch mode {
case "hit": reads("hit", key: "FontName", expected: "Helvetica Neue")
case "registered":
    defaults.register(defaults: ["RegisteredOnly": "Registered value"])
    reads("registered", key: "RegisteredOnly", expected: "Registered value")
case "miss": reads("miss", key: "MissingKey", expected: nil)
case "set": sets()
case "bulk": bulk(args.count > 2 ? Int(args[2])! : 10_000)
case "growth": growth()
case "sync1": sync1()
default: die("unknown case \(mode)")
}
