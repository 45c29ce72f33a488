// Reads of one integer preference, a million at a time, through:
//   libprefs: a typed key (prefs[.fontSize]), integer(forKey:),
//             propertyList(forKey:), object(forKey:) as? Int (an Any read)
//   Foundation: UserDefaults.object(forKey:), integer(forKey:),
//             object(forKey:) as? Int
// in interleaved rounds, so that every contender meets the same load.
// Prints a Markdown table of medians (ns per read) and ratios; then the
// latency of a change stream: from a set in this process to the element
// that reports it (libprefs' updates(for:), against an AsyncStream fed by
// UserDefaults.didChangeNotification, which Foundation posts inside the
// set).
import Foundation
import PrefsCore

extension Preferences.Keys {
    static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
}

let reads = Int(ProcessInfo.processInfo.environment["READS"] ?? "") ?? 1_000_000
let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 11

let prefs = try Preferences(applicationID: "com.example.bench")
prefs[.fontSize] = 14
let defaults = UserDefaults(suiteName: "com.example.bench.foundation")!
defaults.set(14, forKey: "FontSize")

/// Keeps results alive so the reads are not optimized away.
nonisolated(unsafe) var sink = 0

func measure(_ body: () -> Int) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    var sum = 0
    for _ in 0..<reads { sum &+= body() }
    let end = DispatchTime.now().uptimeNanoseconds
    sink &+= sum
    return Double(end - start) / Double(reads)
}

let allContenders: [(String, () -> Int)] = [
    ("libprefs `prefs[.fontSize]` (typed key)", { prefs[.fontSize] }),
    ("libprefs `integer(forKey:)`", { prefs.integer(forKey: "FontSize") }),
    ("libprefs `propertyList(forKey:)`", { prefs.propertyList(forKey: "FontSize") == nil ? 0 : 1 }),
    ("libprefs `object(forKey:) as? Int` (`Any`)", { (prefs.object(forKey: "FontSize") as? Int) ?? 0 }),
    ("Foundation `UserDefaults.object(forKey:)`", { defaults.object(forKey: "FontSize") == nil ? 0 : 1 }),
    ("Foundation `UserDefaults.integer(forKey:)`", { defaults.integer(forKey: "FontSize") }),
    ("Foundation `UserDefaults.object(forKey:) as? Int`", { (defaults.object(forKey: "FontSize") as? Int) ?? 0 }),
]

// ONLY=n keeps the n-th contender alone (for a profiler).
let contenders = ProcessInfo.processInfo.environment["ONLY"].flatMap(Int.init).map { [allContenders[$0]] } ?? allContenders
var times = Array(repeating: [Double](), count: contenders.count)
for (i, c) in contenders.enumerated() { _ = measure(c.1); _ = i }  // warm-up
for _ in 0..<rounds {
    for (i, c) in contenders.enumerated() { times[i].append(measure(c.1)) }
}
func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
let medians = times.map(median)
let typed = medians[0]
if contenders.count == 1 { print(contenders[0].0, typed); exit(0) }
if ProcessInfo.processInfo.environment["STREAMS_ONLY"] == nil {
    print("| read of one integer | median ns/read | typed key is faster by |")
    print("|---|---|---|")
    for (i, c) in contenders.enumerated() {
        let ratio = i == 0 ? "—" : String(format: "%.1f×", medians[i] / typed)
        print("| \(c.0) | \(String(format: "%.1f", medians[i])) | \(ratio) |")
    }
    print("\n(\(rounds) interleaved rounds of \(reads) reads each; medians; check value \(sink % 7))")
}

// MARK: Stream latency

let changes = Int(ProcessInfo.processInfo.environment["CHANGES"] ?? "") ?? 2_000

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Microseconds from each set to the element that reports it, `changes` times.
func latencies(_ set: (Int) -> Void, _ stream: AsyncStream<Void>) async -> [Double] {
    var it = stream.makeAsyncIterator()
    var out: [Double] = []
    out.reserveCapacity(changes)
    for i in 0..<changes {
        let start = now()
        set(1_000 + i)
        _ = await it.next()
        out.append(Double(now() - start) / 1000)
    }
    return out
}

let prefsStream = AsyncStream<Void> { c in
    let t = Task {
        for await _ in prefs.updates(for: .fontSize, initial: false) { c.yield() }
    }
    c.onTermination = { _ in t.cancel() }
}
try await Task.sleep(for: .milliseconds(100))
let libprefsLatency = await latencies({ prefs[.fontSize] = $0 }, prefsStream)

// Foundation: UserDefaults.didChangeNotification, waited for up to 200 ms
// after each of a few sets (on Linux, set(_:forKey:) may post none).
let posted = DispatchSemaphore(value: 0)
let token = NotificationCenter.default.addObserver(
    forName: UserDefaults.didChangeNotification, object: nil, queue: nil
) { _ in posted.signal() }
let tries = 20
var foundationLatency: [Double] = []
for i in 0..<tries {
    let start = now()
    defaults.set(2_000 + i, forKey: "FontSize")
    if posted.wait(timeout: .now() + .milliseconds(200)) == .success {
        foundationLatency.append(Double(now() - start) / 1000)
    }
}
NotificationCenter.default.removeObserver(token)
func percentile(_ xs: [Double], _ p: Double) -> Double { let s = xs.sorted(); return s[min(s.count - 1, Int(Double(s.count) * p))] }
print("\n| from a set to the change's report | median µs | 90th percentile µs | reported |")
print("|---|---|---|---|")
print(
    "| libprefs `updates(for: .fontSize, initial: false)` | \(String(format: "%.1f", median(libprefsLatency))) | \(String(format: "%.1f", percentile(libprefsLatency, 0.9))) | \(changes) of \(changes) |"
)
if foundationLatency.isEmpty {
    print("| Foundation `UserDefaults.didChangeNotification` | — | — | 0 of \(tries) within 200 ms |")
} else {
    print(
        "| Foundation `UserDefaults.didChangeNotification` | \(String(format: "%.1f", median(foundationLatency))) | \(String(format: "%.1f", percentile(foundationLatency, 0.9))) | \(foundationLatency.count) of \(tries) |"
    )
}
print("\n(\(changes) changes through libprefs, one after another)")
