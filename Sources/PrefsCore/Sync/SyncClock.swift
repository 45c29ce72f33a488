import Glibc

/// The identity of one machine (one user account on one computer) in a
/// sync folder: 32 lowercase hexadecimal digits, made at random the first
/// time (see ``SyncIdentity``). Immutable; safe from any thread.
package struct MachineID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 32 hexadecimal digits.
    package let text: String

    /// The identity written as `text`; `nil` unless it is exactly 32
    /// lowercase hexadecimal digits (a file name or an entry from the folder
    /// is never trusted further than that).
    package init?(_ text: String) {
        guard text.utf8.count == 32, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { return nil }
        self.text = text
    }

    /// A new identity from the system's random source.
    package static func random() -> MachineID {
        var g = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<2 {
            let h = String(g.next() as UInt64, radix: 16)
            text += String(repeating: "0", count: 16 - h.utf8.count) + h
        }
        return MachineID(text)!
    }

    package static func < (a: MachineID, b: MachineID) -> Bool { a.text < b.text }
    package var description: String { text }
}

/// The time of one write in a sync folder: a hybrid logical clock's reading
/// (wall time in milliseconds since 1970, then a counter), then the writing
/// machine. Timestamps are totally ordered in that order, so every machine
/// that holds the same writes picks the same newest one. Immutable; safe
/// from any thread.
package struct SyncTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, in `0...maximumWall`.
    package var wall: Int64
    /// Writes within one millisecond of ``wall``, or after a newer write seen
    /// from another machine.
    package var counter: UInt32
    /// Who wrote.
    package var machine: MachineID

    /// The latest wall time a timestamp may carry: the end of the year 9999,
    /// the last date a property list holds. A file that says more is not
    /// believed (its entry is ignored), so no arithmetic on it can overflow.
    package static let maximumWall: Int64 = 253_402_300_799_999

    package init(wall: Int64, counter: UInt32, machine: MachineID) {
        self.wall = wall
        self.counter = counter
        self.machine = machine
    }

    package static func < (a: SyncTimestamp, b: SyncTimestamp) -> Bool {
        if a.wall != b.wall { return a.wall < b.wall }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.machine < b.machine
    }

    /// The time as seconds since 1970, for dates shown to people.
    package var seconds: Double { Double(wall) / 1000 }

    package var description: String { "\(wall).\(counter)@\(machine)" }
}

/// The hybrid logical clock of the machine that writes: the time of its next
/// write is its physical clock, unless a write it has seen is as new or
/// newer, in which case it is that write's time with the counter moved on.
/// A machine whose clock runs a year fast pins no key: the first machine
/// that reads its write writes after it. The clock keeps no state of its
/// own: the times to pass are found in the folder at each write (see
/// ``SyncWriter``), and only times at most ``maximumLead`` ahead of the
/// physical clock move it, so that one entry stamped in the year 9999 does
/// not drag every later write of every machine to the end of the range.
package enum HybridClock {
    /// The physical clock, in milliseconds since 1970 (`CLOCK_REALTIME`),
    /// clamped to `0...SyncTimestamp.maximumWall`.
    package static func physicalNow() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        let ms = Int64(t.tv_sec).multipliedReportingOverflow(by: 1000)
        guard !ms.overflow else { return t.tv_sec < 0 ? 0 : SyncTimestamp.maximumWall }
        return min(max(ms.partialValue &+ Int64(t.tv_nsec / 1_000_000), 0), SyncTimestamp.maximumWall)
    }

    /// How far ahead of the physical clock a time seen in the folder may be
    /// and still move the clock for every key: one day (a clock that runs
    /// fast by more is wrong, not early). A write still passes every
    /// entry of the keys it writes, however far ahead.
    package static let maximumLead: Int64 = 86_400_000

    /// The time of a write by `machine` made when its physical clock reads
    /// `physical` (milliseconds) and the newest time it has seen is `seen`.
    /// Newer than `seen` whenever any newer time exists: only a write seen
    /// at the very end of the clock's range (year 9999, counter at its
    /// maximum) is matched rather than passed, and then ties go by machine.
    package static func next(physical: Int64, after seen: SyncTimestamp?, machine: MachineID) -> SyncTimestamp {
        let now = min(max(physical, 0), SyncTimestamp.maximumWall)
        guard let seen, seen.wall >= now else { return SyncTimestamp(wall: now, counter: 0, machine: machine) }
        if seen.counter < UInt32.max { return SyncTimestamp(wall: seen.wall, counter: seen.counter + 1, machine: machine) }
        if seen.wall < SyncTimestamp.maximumWall { return SyncTimestamp(wall: seen.wall + 1, counter: 0, machine: machine) }
        return SyncTimestamp(wall: seen.wall, counter: seen.counter, machine: machine)
    }
}
