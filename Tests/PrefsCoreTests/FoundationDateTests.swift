import Foundation
import Testing

@testable import PrefsCore

// Dates as Foundation counts them: its Gregorian calendar (ICU's) switches
// to the Julian calendar before 1582-10-15, and macOS writes XML dates
// with it, so Date.distantPast is <date>0001-01-01T00:00:00Z</date>.
// Foundation's calendar on this machine is the oracle for every day;
// its PropertyListSerialization for dates from 1582-10-15 on (before it,
// the Linux Foundation writes proleptic Gregorian dates, unlike macOS).

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

@Suite("Dates as Foundation counts them")
struct FoundationDateTests {

    @Test func distantPastAndFuture() {
        let past = Date.distantPast.timeIntervalSince1970
        let future = Date.distantFuture.timeIntervalSince1970
        #expect(xmlDate(past) == "0001-01-01T00:00:00Z")
        #expect(xmlDate(future) == "4001-01-01T00:00:00Z")
        #expect(readDate("0001-01-01T00:00:00Z") == past)
        #expect(readDate("4001-01-01T00:00:00Z") == future)
        // One second earlier is year 0, outside the four-digit years.
        #expect(xmlDate(past - 1) == nil)
        // Binary files carry distantPast as it is, and read back.
        let binary = try? PropertyList.date(past).binaryData()
        #expect(binary.flatMap { try? PropertyList.parse($0).dateValue } == past)
    }

    @Test func theCutover() {
        #expect(xmlDate(-12_219_292_800) == "1582-10-15T00:00:00Z")
        #expect(xmlDate(-12_219_292_801) == "1582-10-04T23:59:59Z")
        #expect(readDate("1582-10-04T00:00:00Z") == -12_219_379_200)
        // Days the switch skipped do not exist.
        for day in 5...14 { #expect(readDate("1582-10-\(day < 10 ? "0" : "")\(day)T00:00:00Z") == nil) }
        // Julian leap years: 1500 has a 29 February, 1700 has none.
        #expect(readDate("1500-02-29T00:00:00Z") != nil)
        #expect(readDate("1700-02-29T00:00:00Z") == nil)
    }

    /// Every day from the year 1 to 9999 in steps, and random seconds: the
    /// library's calendar is Foundation's.
    @Test func everyEraAgreesWithFoundationsCalendar() {
        var rng = SplitMix64(seed: 0xDA7E)
        var times: [Double] = stride(from: -62_135_769_600.0, to: 253_402_300_800, by: 86400 * 97).map { $0 }
        for _ in 0..<5000 {
            times.append(Double(Int64(bitPattern: rng.next()) % 158_000_000_000 + 95_000_000_000).rounded())
        }
        times += [-12_219_292_800, -12_219_292_801, -62_135_769_600, 253_402_300_799]
        var failures = 0
        for t in times where t >= -62_135_769_600 && t < 253_402_300_800 {
            let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: t))
            let want = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
            if xmlDate(t) != want || readDate(want) != t {
                failures += 1
                if failures < 5 { Issue.record("\(t): Foundation \(want), libprefs \(xmlDate(t) ?? "nil")") }
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
