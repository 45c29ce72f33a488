import Glibc
import PrefsCore

// declaring N: one thread declares typed keys (synced ones and defaults)
// without pause, so their locks are often held; the main thread forks N
// children, each of which sets and reads a declared key and exits 0. A
// child that hangs is ended by its alarm. Prints "N children ok", or the
// first child's status and exits 1 (Tests/fork/run.sh).
let p = try! Preferences(applicationID: "com.example.forking")
try! p.trySet(1, forKey: "Warm")
_ = Preferences.Key<Int>("Declared0", default: 0, synced: true)
_ = p[Preferences.Key<Int>("Default0", default: 0)]

var thread = pthread_t()
pthread_create(
    &thread, nil,
    { _ in
        let q = try! Preferences(applicationID: "com.example.forking")
        var i = 0
        while true {
            _ = Preferences.Key<Int>("Declared\(i % 4096)", default: 0, synced: true)
            _ = q[Preferences.Key<Int>("Default\(i % 4096)", default: i)]
            i &+= 1
        }
    }, nil)

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "200")!
for round in 0..<rounds {
    let pid = fork()
    if pid == 0 {
        alarm(10)
        do {
            try p.trySet(round, forKey: "Declared1")
            _ = p[Preferences.Key<Int>("Default1", default: 1)]
        } catch {
            _exit(3)
        }
        _exit(0)
    }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    if status != 0 {
        print("round \(round): child status \(status)")
        exit(1)
    }
}
print("\(rounds) children ok")
