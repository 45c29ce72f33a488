import Glibc

// Dates: ISO 8601 text, the XML property list's `<date>` as CoreFoundation
// reads it, and the calendar arithmetic (Julian before 1582-10-15) both use.
extension ScalarText {
    /// Seconds since 1970 for `YYYY-MM-DDTHH:MM:SSZ` exactly (years 0001-9999,
    /// days that exist in Foundation's calendar, no leap seconds, nothing
    /// before or after). Dates before 1582-10-15 are Julian, as Foundation
    /// reads and writes them (see ``daysFromCivil(_:_:_:)``).
    package static func parseISODate(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        guard t.count == 20,
            t[4] == UInt8(ascii: "-"), t[7] == UInt8(ascii: "-"), t[10] == UInt8(ascii: "T"),
            t[13] == UInt8(ascii: ":"), t[16] == UInt8(ascii: ":"), t[19] == UInt8(ascii: "Z"),
            let y = digits(t, 0, 4), let mo = digits(t, 5, 2), let d = digits(t, 8, 2),
            let h = digits(t, 11, 2), let mi = digits(t, 14, 2), let s = digits(t, 17, 2)
        else { return nil }
        return unixTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// Seconds since 1970 for a valid date and time of Foundation's calendar
    /// (Julian before 1582-10-15, Gregorian from then on; 1582-10-05 to
    /// 1582-10-14 do not exist), else `nil`.
    static func unixTime(year y: Int, month mo: Int, day d: Int, hour h: Int, minute mi: Int, second s: Int) -> Double? {
        guard (1...9999).contains(y), (1...12).contains(mo), d >= 1, d <= daysInMonth(y, mo),
            !(y == 1582 && mo == 10 && (5...14).contains(d)),
            (0...23).contains(h), (0...59).contains(mi), (0...59).contains(s)
        else { return nil }
        let days = daysFromCivil(y, mo, d)
        return Double(days * 86400 + h * 3600 + mi * 60 + s)
    }

    private static func digits(_ t: UnsafeBufferPointer<UInt8>, _ at: Int, _ n: Int) -> Int? {
        var v = 0
        for k in at..<(at + n) {
            let c = t[k]
            guard isDigit(c) else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return v
    }

    /// The days of month `m` of year `y` in Foundation's calendar: Julian
    /// leap years (every fourth) before 1582, Gregorian ones after.
    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2:
            let leap = y < 1582 ? y % 4 == 0 : (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of 1582-10-15, the first Gregorian day of
    /// Foundation's calendar (the day after Julian 1582-10-04).
    static let gregorianCutover = -141_427

    /// Days since 1970-01-01 of a date of Foundation's calendar: Gregorian
    /// from 1582-10-15 on, Julian before (as ICU's calendar, which Foundation
    /// formats dates with, counts them).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let gregorian = gregorianDays(year, month, day)
        return gregorian >= gregorianCutover ? gregorian : julianDays(year, month, day)
    }

    /// The date of Foundation's calendar of a day count since 1970-01-01.
    static func civilFromDays(_ z: Int) -> (year: Int, month: Int, day: Int) {
        z >= gregorianCutover ? gregorianCivil(z) : julianCivil(z)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func gregorianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func gregorianCivil(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days from Julian 0000-03-01 to 1970-01-01: years counted from March,
    /// so that the leap day ends each four-year cycle.
    private static let julianEpochShift = 719_470

    /// Days since 1970-01-01 of a date of the (proleptic) Julian calendar.
    static func julianDays(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let cycle = (y >= 0 ? y : y - 3) / 4
        let yoc = y - cycle * 4
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        return cycle * 1461 + yoc * 365 + doy - julianEpochShift
    }

    /// The Julian date of a day count since 1970-01-01.
    static func julianCivil(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let n = z0 + julianEpochShift
        let cycle = (n >= 0 ? n : n - 1460) / 1461
        let doc = n - cycle * 1461
        let yoc = min(doc / 365, 3)
        let doy = doc - yoc * 365
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (cycle * 4 + yoc + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: Dates of XML property lists, as CoreFoundation computes them

    /// Seconds since 1970 of an XML property list's `<date>` text, as
    /// CoreFoundation reads it: `[-]Y...-MM-DDTHH:MM:SSZ`, the year of one to
    /// nine digits (`-` for years before 0) in the proleptic Gregorian
    /// calendar with a year 0 (0000-12-30 is Foundation's `distantPast`),
    /// the other fields of two digits each; the month 01-12, the day, hour,
    /// minute and second counted on from its start whatever their value
    /// (02-30 is 03-01 or 03-02), as CoreFoundation does. `nil` otherwise.
    package static func parseXMLDate(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = t.first == UInt8(ascii: "-")
        if negative { i = 1 }
        let yearStart = i
        while i < t.count, isDigit(t[i]) { i += 1 }
        let yearDigits = i - yearStart
        guard (1...9).contains(yearDigits), t.count - i == 16,
            t[i] == UInt8(ascii: "-"), t[i + 3] == UInt8(ascii: "-"), t[i + 6] == UInt8(ascii: "T"),
            t[i + 9] == UInt8(ascii: ":"), t[i + 12] == UInt8(ascii: ":"), t[i + 15] == UInt8(ascii: "Z"),
            let y = digits(t, yearStart, yearDigits), let mo = digits(t, i + 1, 2), let d = digits(t, i + 4, 2),
            let h = digits(t, i + 7, 2), let mi = digits(t, i + 10, 2), let s = digits(t, i + 13, 2),
            (1...12).contains(mo)
        else { return nil }
        let days = gregorianDays(negative ? -y : y, mo, 1) + d - 1
        return Double(days) * 86400 + Double(h * 3600 + mi * 60 + s)
    }

    /// The latest magnitude of a unix time that ``formatXMLDate(_:)``
    /// writes: about a billion years either way, so that every date it
    /// writes ``parseXMLDate(_:)`` reads back.
    static let xmlDateLimit = 3.0e16

    /// `YYYY-MM-DDTHH:MM:SSZ` of the whole second at or before `t`, as
    /// CoreFoundation writes a date into XML (`%04d` for the year of the
    /// proleptic Gregorian calendar with a year 0: `0000-12-30`, `-001`,
    /// `12345`); `nil` for a date that is not finite or lies beyond
    /// ``xmlDateLimit``.
    package static func formatXMLDate(_ t: Double) -> String? {
        guard t.isFinite, abs(t) < xmlDateLimit else { return nil }
        let secs = Int(t.rounded(.down))
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = secs - days * 86400
        let (y, m, d) = gregorianCivil(days)
        let year = y < 0 ? "-" + pad(-y, 3) : pad(y, 4)
        return year + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
            + pad(rem / 3600, 2) + ":" + pad(rem / 60 % 60, 2) + ":" + pad(rem % 60, 2) + "Z"
    }

    /// The earliest and latest unix times whose whole second has a four-digit
    /// year: Julian 0001-01-01 (Foundation's `Date.distantPast`) and
    /// 10000-01-01.
    static let firstDate = -62135769600.0  // 0001-01-01T00:00:00Z, Julian
    static let endOfLastDate = 253402300800.0  // 10000-01-01T00:00:00Z

    /// Broken-down UTC time of the whole second at or before `t`; `nil` when
    /// not finite or outside the years 0001-9999.
    static func components(_ t: Double) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)? {
        guard t.isFinite, t >= firstDate, t < endOfLastDate else { return nil }
        let secs = Int(t.rounded(.down))
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = secs - days * 86400
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, rem / 3600, rem / 60 % 60, rem % 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as an XML property list writes the date
    /// (Foundation's calendar), or `nil` outside the years 0001-9999.
    package static func formatISODate(_ t: Double) -> String? {
        guard let c = components(t) else { return nil }
        return pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T"
            + pad(c.hour, 2) + ":" + pad(c.minute, 2) + ":" + pad(c.second, 2) + "Z"
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
