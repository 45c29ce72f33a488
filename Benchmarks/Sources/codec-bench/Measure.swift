import Foundation
import Glibc

/// Monotonic nanoseconds.
@inline(never)
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU nanoseconds of the calling thread (user and system): on a shared
/// machine, time spent waiting for a core does not count.
@inline(never)
func cpuNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// glibc's `malloc_trim`, which Glibc's module map leaves out.
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

/// The state of the heap a timed run starts from. Freeing a large value
/// leaves the allocator's free lists full of its blocks, and the next
/// reader's first large allocation pays for coalescing all of them; in a
/// plain round-robin each reader is charged for the previous reader's
/// garbage, and which one precedes which changes every round.
enum Settle {
    /// As the previous run left it (the other contender's garbage, in a
    /// round-robin).
    case none
    /// Every free block given back to the kernel (`malloc_trim(0)`): each
    /// run starts as a process's first read of a file does, faulting in
    /// the memory its value takes.
    case fresh
    /// The same op run once untimed just before: the heap holds the op's
    /// own garbage, as in a program that reads the same file again.
    case again
}

/// Wall-clock and CPU nanoseconds per run of `body`, over `batch` runs in a
/// row. What `body` returns is released after the clocks stop, so no
/// contender is charged for freeing its result.
@inline(never)
func timed(_ body: () -> Any, batch: Int, keep: inout [Any], settle: Settle = .none) -> (wall: UInt64, cpu: UInt64) {
    keep.removeAll(keepingCapacity: true)
    switch settle {
    case .none: break
    case .fresh: _ = mallocTrim(0)
    case .again:
        keep.append(body())
        keep.removeAll(keepingCapacity: true)
    }
    let t0 = now(), c0 = cpuNow()
    for _ in 0..<batch { keep.append(body()) }
    let c1 = cpuNow(), t1 = now()
    return ((t1 - t0) / UInt64(batch), (c1 - c0) / UInt64(batch))
}

struct Stats {
    var samples: [UInt64]
    var median: Double {
        let s = samples.sorted()
        let n = s.count
        return n % 2 == 1 ? Double(s[n / 2]) : (Double(s[n / 2 - 1]) + Double(s[n / 2])) / 2
    }
    var min: Double { Double(samples.min()!) }
}

/// Wall-clock and CPU-time samples of one op.
struct Timing {
    var wall: Stats
    var cpu: Stats
    var runs: Int { wall.samples.count }
}

/// One thing to time.
struct Op {
    let contender: Contender
    let isWrite: Bool
    let body: () -> Any
}

/// Times `ops` round-robin: each repetition runs every op once (`batch`
/// times in a row), starting from a different op each time, so that drift
/// and noise on a shared machine fall on all contenders alike. The first
/// `warmups` rounds are not kept. `settle` sets the heap each run starts
/// from.
func measure(_ ops: [Op], repetitions: Int, warmups: Int, batch: Int, settle: Settle = .none) -> [Timing] {
    var wall = Array(repeating: [UInt64](), count: ops.count)
    var cpu = wall
    var keep: [Any] = []
    keep.reserveCapacity(batch)
    for round in 0..<(warmups + repetitions) {
        for k in 0..<ops.count {
            let i = (k + round) % ops.count
            let t = timed(ops[i].body, batch: batch, keep: &keep, settle: settle)
            if round >= warmups {
                wall[i].append(t.wall)
                cpu[i].append(t.cpu)
            }
        }
    }
    return zip(wall, cpu).map { Timing(wall: Stats(samples: $0), cpu: Stats(samples: $1)) }
}

func duration(_ ns: Double) -> String {
    if ns < 1_000_000 { return String(format: "%.1f µs", ns / 1_000) }
    if ns < 1_000_000_000 { return String(format: "%.2f ms", ns / 1_000_000) }
    return String(format: "%.3f s", ns / 1_000_000_000)
}

/// 10^6 bytes per second.
func throughput(bytes: Int, ns: Double) -> String {
    String(format: "%.1f", Double(bytes) / ns * 1_000)
}

func ratio(_ x: Double) -> String { String(format: "%.2f×", x) }

func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1_000_000) }

func note(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

// MARK: Child processes

/// The path of this executable.
func selfPath() -> String {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    precondition(n > 0, "cannot find /proc/self/exe")
    return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Runs this executable with `arguments` and returns its exit status and
/// peak resident set size in KiB, from wait4. Linux carries the parent's
/// peak into a child's at exec, so call this while the parent is small.
func spawnSelf(_ arguments: [String]) -> (status: Int32, maxRSSKiB: Int) {
    let exe = selfPath()
    let argv: [UnsafeMutablePointer<CChar>?] = ([exe] + arguments).map { strdup($0) } + [nil]
    let env: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in env { free(p) }
    }
    var pid = pid_t()
    let rc = posix_spawn(&pid, exe, nil, nil, argv, env)
    precondition(rc == 0, "posix_spawn failed: \(rc)")
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let exited = status & 0x7F == 0
    return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), Int(usage.ru_maxrss))
}

/// Peak resident set size of this process so far, in KiB.
func ownMaxRSSKiB() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Int(usage.ru_maxrss)
}

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let size = ftell(f)
    fseek(f, 0, SEEK_SET)
    guard size >= 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: size)
    let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, f) }
    return got == size ? bytes : nil
}

func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
    guard let f = fopen(path, "wb") else { return false }
    defer { fclose(f) }
    return bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } == bytes.count
}

/// The 1, 5 and 15 minute load averages, as `/proc/loadavg` gives them.
func loadAverage() -> String {
    guard let f = fopen("/proc/loadavg", "r") else { return "unknown" }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), f) != nil else { return "unknown" }
    let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}
