import Foundation
import Synchronization
import Testing

@testable import PrefsCore

// Eight threads hammer one store (and a second store over the same files,
// standing for another process) with sets, multiple sets, reads,
// synchronizes, registrations, suites, volatile and argument domains.
// Meant to run under ThreadSanitizer (Tests/tsan.sh); it also checks that no
// change is lost and that a multiple set is never seen half done.
//
// PREFS_STRESS_ITERATIONS overrides the number of rounds per thread.

private let stressApps = ["com.example.stress0", "com.example.stress1", "com.example.stress2"]
private let stressSuite = "com.example.stress-suite"

final class StressCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite("Stress")
struct StressTests {
    static let threads = 8
    static var iterations: Int {
        ProcessInfo.processInfo.environment["PREFS_STRESS_ITERATIONS"].flatMap { Int($0) } ?? 300
    }

    @Test func eightThreadsOnOneStore() throws {
        // On a memory file system when there is one: the point is the
        // interleavings of threads, not the speed of fsync.
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        try inSandbox(base: base) { box in
            let main = box.store(arguments: ["stress", "-fromArguments", "1"])
            let other = box.store()
            writePlist(["forced": "managed"], to: box.managedPath(stressApps[0], userOnly: false))
            let rounds = Self.iterations
            let halfSeen = StressCounter()
            let failures = StressCounter()

            let start = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            for t in 0..<Self.threads {
                // Threads 6 and 7 write through the other store, as another process would.
                let store = t >= 6 ? other : main
                let thread = Thread {
                    start.wait()
                    for i in 0..<rounds {
                        if !Self.round(t, i, store, halfSeen: halfSeen) { failures.add() }
                    }
                    done.signal()
                }
                thread.start()
            }
            for _ in 0..<Self.threads { start.signal() }
            for _ in 0..<Self.threads { done.wait() }

            #expect(halfSeen.value == 0, "a multiple set was seen half applied")
            #expect(failures.value == 0, "unexpected errors from the store")

            try main.synchronizeAll()
            try other.synchronizeAll()
            // What a fresh process sees: every thread's last write of its
            // own keys, in each app, and every pair of a multiple set equal.
            let fresh = box.store()
            for (a, app) in stressApps.enumerated() {
                let stored = try fresh.values(in: DomainID(application: app, user: .current, host: .any))
                for t in 0..<Self.threads {
                    let last = (0..<rounds).last { $0 % stressApps.count == a }
                    #expect(stored[PropertyList.Key("t\(t)")] == last.map { .integer($0) }, "\(app) t\(t): \(render(stored[PropertyList.Key("t\(t)")]))")
                    #expect(stored[PropertyList.Key("m\(t)a")] == stored[PropertyList.Key("m\(t)b")])
                    #expect(stored[PropertyList.Key("p\(t)")] == last.map { .integer($0) }, "\(app) p\(t)")
                }
                #expect(stored["forced"] == nil)
            }
            #expect(try fresh.value(forKey: "forced", application: stressApps[0]) == .string("managed"))
        }
    }

    /// One round of thread `t`; false on an unexpected error.
    static func round(_ t: Int, _ i: Int, _ store: PreferencesStore, halfSeen: StressCounter) -> Bool {
        let app = stressApps[i % stressApps.count]
        let own = DomainID(application: app, user: .current, host: .any)
        do {
            try store.set([("t\(t)", .integer(i)), ("shared", .string("\(t)-\(i)"))], in: own)
            try store.set([("m\(t)a", .integer(i)), ("m\(t)b", .integer(i)), ("gone\(t)", nil)], in: own)
            _ = try store.value(forKey: "shared", application: app)
            let snapshot = try store.dictionary(application: app)
            for u in 0..<threads where snapshot[PropertyList.Key("m\(u)a")] != snapshot[PropertyList.Key("m\(u)b")] {
                halfSeen.add()
            }
            let prefs = try Preferences(applicationID: app, store: store)
            // A set of one key through the resolved search list (the short path).
            try prefs.trySet(i, forKey: "p\(t)")
            _ = prefs.integer(forKey: "t\(t)")
            _ = prefs.bool(forKey: "fromArguments")
            _ = try store.isForced("forced", application: app)
            switch i % 20 {
            case 0:
                try store.synchronize(application: app)
            case 1:
                try store.register(plistDict(["reg\(t)": .integer(i)]), application: app)
            case 2:
                try store.addSuite(stressSuite, to: app)
            case 3:
                try store.removeSuite(stressSuite, from: app)
            case 4:
                store.setVolatileDomain("stress-volatile-\(t)", plistDict(["v": .integer(i)]))
                _ = store.volatileDomain("stress-volatile-\(t)")
            case 5:
                if t == 0 { store.setArguments(["stress", "-fromArguments", "\(i % 2)"]) }
                _ = try store.values(in: own, keys: ["t\(t)", "absent"])
            case 6:
                try store.set([("s\(t)", .integer(i))], in: DomainID(application: stressSuite, user: .current, host: .current))
                _ = try store.problems(application: app)
            case 7:
                _ = store.applications(user: .current, host: .any)
                try store.synchronize(own)
            case 8:
                try store.register(plistDict(["everywhere": .integer(i)]), application: globalDomainName)
                _ = try store.dictionary(application: globalDomainName)
            case 9:
                if t % 4 == 0 { try store.synchronizeAll() }
                if app == stressApps[0] {
                    do {
                        try store.set([("forced", "mine")], in: own)
                        return false  // a forced key was written
                    } catch {
                        if error.code != .forcedValue { return false }
                    }
                    do {
                        try prefs.trySet("mine", forKey: "forced")
                        return false
                    } catch {
                        if error.code != .forcedValue { return false }
                    }
                }
            case 10:
                // An observer comes and goes while other threads set.
                let token = try store.addObserver(application: app, key: "p\(t)") { _, _ in }
                try prefs.trySet(-i, forKey: "p\(t)")
                store.removeObserver(token)
                try prefs.trySet(i, forKey: "p\(t)")
            default:
                break  // the reads above only
            }
            return true
        } catch {
            return false
        }
    }
}
