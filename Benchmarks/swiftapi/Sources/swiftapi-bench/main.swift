// Reads of one integer preference, a million at a time, through:
//   libprefs: a typed key (prefs[.fontSize]), integer(forKey:), object(forKey:)
//   Foundation: UserDefaults.object(forKey:), integer(forKey:)
// in interleaved rounds, so that every contender meets the same load.
// Prints a Markdown table of medians (ns per read) and ratios.
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
    ("libprefs `object(forKey:)`", { prefs.object(forKey: "FontSize") == nil ? 0 : 1 }),
    ("Foundation `UserDefaults.object(forKey:)`", { defaults.object(forKey: "FontSize") == nil ? 0 : 1 }),
    ("Foundation `UserDefaults.integer(forKey:)`", { defaults.integer(forKey: "FontSize") }),
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
print("| read of one integer | median ns/read | typed key is faster by |")
print("|---|---|---|")
for (i, c) in contenders.enumerated() {
    let ratio = i == 0 ? "—" : String(format: "%.1f×", medians[i] / typed)
    print("| \(c.0) | \(String(format: "%.1f", medians[i])) | \(ratio) |")
}
print("\n(\(rounds) interleaved rounds of \(reads) reads each; medians; check value \(sink % 7))")
