import Foundation
import Testing

@testable import PrefsCore

// Dates as CoreFoundation reads and writes them in XML: the proleptic
// Gregorian calendar for every year, with a year 0 and negative years, so
// Date.distantPast is <date>0000-12-30T00:00:00Z</date>, as a real
// `defaults export` file from a Mac holds it. Foundation's calendar on this
// machine (ICU's, which switches to the Julian calendar before 1582-10-15)
// is the oracle from the cutover on; before it, an independent proleptic
// count (gregorianUnixTime); its PropertyListSerialization agrees for
// dates from the cutover on.

/// Foundation's UTC Gregorian calendar, with its Julian cutover.
private let calendar: Calendar = {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(secondsFromGMT: 0)!
    return c
}()

/// `t` as the library writes it in XML.
private func xmlDate(_ t: Double) -> String? {
    guard let xml = try? PropertyList.date(t).xmlData() else { return nil }
    let text = String(decoding: xml, as: UTF8.self)
    guard let open = text.range(of: "<date>"), let close = text.range(of: "</date>") else { return nil }
    return String(text[open.upperBound..<close.lowerBound])
}

/// `text` read back from an XML date.
private func readDate(_ text: String) -> Double? {
    try? PropertyList.parse(Array(plistDocument("<date>\(text)</date>").utf8)).dateValue
}

@Suite("Dates as CoreFoundation counts them")
struct FoundationDateTests {

    @Test func distantPastAndFuture() {
        let past = Date.distantPast.timeIntervalSince1970
        let future = Date.distantFuture.timeIntervalSince1970
        #expect(xmlDate(past) == "0000-12-30T00:00:00Z")
        #expect(xmlDate(future) == "4001-01-01T00:00:00Z")
        #expect(readDate("0000-12-30T00:00:00Z") == past)
        #expect(readDate("4001-01-01T00:00:00Z") == future)
        // Earlier still: year 0 goes on, then negative years, as CF's %04d.
        #expect(xmlDate(past - 1) == "0000-12-29T23:59:59Z")
        #expect(xmlDate(gregorianUnixTime(0, 1, 1) - 1) == "-001-12-31T23:59:59Z")
        #expect(readDate("-001-12-31T23:59:59Z") == gregorianUnixTime(0, 1, 1) - 1)
        #expect(xmlDate(gregorianUnixTime(10000, 1, 1)) == "10000-01-01T00:00:00Z")
        #expect(readDate("10000-01-01T00:00:00Z") == gregorianUnixTime(10000, 1, 1))
        // Binary files carry distantPast as it is, and read back.
        let binary = try? PropertyList.date(past).binaryData()
        #expect(binary.flatMap { try? PropertyList.parse($0).dateValue } == past)
    }

    /// swift-foundation's PropertyListEncoderTests: a day past the month's
    /// end, a date far in the future, a really old date. Its Swift encoder
    /// counts years before 1582 in the Julian calendar (its "0000-01-02" is
    /// -62167305600); preference files are written by CoreFoundation, whose
    /// proleptic count this library follows (doc/behaviour.md, "Deliberate
    /// differences"), so that instant is -001-12-31 here.
    @Test func swiftFoundationCases() {
        let feb1: Double = 1_706_820_194  // 728512994 since 2001
        #expect(readDate("2024-01-32T20:43:14Z") == feb1)
        #expect(xmlDate(feb1) == "2024-02-01T20:43:14Z")
        let far: Double = 999_999_999_999
        #expect(xmlDate(far).flatMap(readDate) == far)
        #expect(readDate("0009-09-15T23:16:13Z") != nil)
        let zero: Double = -62_167_305_600  // -63145612800 since 2001
        #expect(xmlDate(zero) == "-001-12-31T00:00:00Z")
        #expect(readDate("-001-12-31T00:00:00Z") == zero)
    }

    @Test func noCutover() {
        // The days ICU's calendar skips exist, counted on proleptically.
        #expect(readDate("1582-10-10T00:00:00Z") == gregorianUnixTime(1582, 10, 10))
        #expect(xmlDate(gregorianUnixTime(1582, 10, 10)) == "1582-10-10T00:00:00Z")
        #expect(xmlDate(-12_219_292_801) == "1582-10-14T23:59:59Z")
        // Gregorian leap years: 1700 has no 29 February (it is 1 March).
        #expect(readDate("1700-02-29T00:00:00Z") == gregorianUnixTime(1700, 3, 1))
        #expect(readDate("1600-02-29T00:00:00Z") == gregorianUnixTime(1600, 2, 29))
    }

    /// Every day from the year -2000 to 12000 in steps, and random seconds:
    /// Foundation's calendar from the cutover on, the proleptic count before.
    @Test func everyEraAgreesWithTheProlepticCalendar() {
        var rng = SplitMix64(seed: 0xDA7E)
        var times: [Double] = stride(from: -12_219_292_800.0, to: 253_402_300_800, by: 86400 * 97).map { $0 }
        times += stride(from: -125_294_000_000.0, to: -12_219_292_800, by: 86400 * 997 + 3601).map { $0 }
        times += stride(from: 253_402_300_800.0, to: 316_000_000_000, by: 86400 * 997 + 3601).map { $0 }
        for _ in 0..<5000 {
            times.append(Double(Int64(bitPattern: rng.next()) % 158_000_000_000 + 95_000_000_000).rounded())
        }
        times += [-12_219_292_800, -12_219_292_801, -62_135_769_600, 253_402_300_799]
        var failures = 0
        for t in times {
            let want: String
            if t >= -12_219_292_800 && t < 253_402_300_800 {
                let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: t))
                want = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
            } else {
                // Find the proleptic date by counting from an independent helper.
                var y = Int((t / 31_556_952).rounded(.down)) + 1970 + 1
                while gregorianUnixTime(y, 1, 1) > t { y -= 1 }
                var m = 12
                while gregorianUnixTime(y, m, 1) > t { m -= 1 }
                let rest = Int(t - gregorianUnixTime(y, m, 1))
                want = String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, rest / 86400 + 1, rest % 86400 / 3600, rest % 3600 / 60, rest % 60)
            }
            if xmlDate(t) != want || readDate(want) != t {
                failures += 1
                if failures < 5 { Issue.record("\(t): want \(want), libprefs \(xmlDate(t) ?? "nil")") }
            }
        }
        #expect(failures == 0)
    }

    /// From the cutover on, Foundation's own XML writer on this machine
    /// writes the same text, and reads the library's text to the same date.
    @Test func xmlDatesAgreeWithPropertyListSerialization() throws {
        var rng = SplitMix64(seed: 0x1582)
        for _ in 0..<500 {
            let t = Double(Int64(bitPattern: rng.next()) % 130_000_000_000 + 120_000_000_000).rounded()
            let data = try PropertyListSerialization.data(fromPropertyList: Date(timeIntervalSince1970: t), format: .xml, options: 0)
            let text = String(decoding: data, as: UTF8.self)
            let open = try #require(text.range(of: "<date>")), close = try #require(text.range(of: "</date>"))
            let theirs = String(text[open.upperBound..<close.lowerBound])
            #expect(xmlDate(t) == theirs)
            let back = try PropertyListSerialization.propertyList(from: Data(plistDocument("<date>\(theirs)</date>").utf8), format: nil) as? Date
            #expect(back?.timeIntervalSince1970 == t)
        }
    }
}
