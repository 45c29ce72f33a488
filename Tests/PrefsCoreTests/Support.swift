import Glibc
import PrefsCore
import Synchronization
import Testing

// Shared code for the PrefsCore tests. It uses Glibc only (files,
// FIFOs, threads), so the suite does not depend on Foundation.

/// The UTF-8 bytes of `s`.
func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

/// `body` wrapped in `<plist version="1.0">`, with the usual XML declaration
/// and Apple DOCTYPE in front.
func plistDocument(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>

    """
}

/// Parses `bytes`, turning the typed error into a `Result`.
func parseResult(_ bytes: [UInt8]) -> Result<PropertyList, PrefsError> {
    do { return .success(try PropertyList.parse(bytes)) } catch { return .failure(error) }
}

/// Parses the whole document `xml`; records an issue and returns nil when
/// it is refused.
@discardableResult
func expectParses(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) -> PropertyList? {
    expectParses(utf8(xml), sourceLocation: sourceLocation)
}

@discardableResult
func expectParses(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> PropertyList? {
    switch parseResult(bytes) {
    case .success(let v): return v
    case .failure(let e):
        Issue.record("expected to parse, got \(e.code): \(e.message)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Parses `<plist>body</plist>` and returns the value.
@discardableResult
func expectBody(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) -> PropertyList? {
    expectParses(plistDocument(body), sourceLocation: sourceLocation)
}

/// Expects `bytes` to be refused with `code` and a message that names a line.
@discardableResult
func expectRefused(
    _ bytes: [UInt8], _ code: PrefsError.Code, line: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> PrefsError? {
    switch parseResult(bytes) {
    case .success(let v):
        Issue.record("expected refusal (\(code)), got a value: \(OldStylePlist.format(v))", sourceLocation: sourceLocation)
        return nil
    case .failure(let e):
        #expect(e.code == code, "wrong code for refusal: \(e.message)", sourceLocation: sourceLocation)
        #expect(e.message.contains("line"), "message names no line: \(e.message)", sourceLocation: sourceLocation)
        if let line {
            #expect(
                e.message.contains("line \(line)"), "message should name line \(line): \(e.message)",
                sourceLocation: sourceLocation)
        }
        return e
    }
}

@discardableResult
func expectRefused(
    _ xml: String, _ code: PrefsError.Code = .malformed, line: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> PrefsError? {
    expectRefused(utf8(xml), code, line: line, sourceLocation: sourceLocation)
}

/// Expects `<plist>body</plist>` to be refused.
@discardableResult
func expectBodyRefused(
    _ body: String, _ code: PrefsError.Code = .malformed,
    sourceLocation: SourceLocation = #_sourceLocation
) -> PrefsError? {
    expectRefused(plistDocument(body), code, sourceLocation: sourceLocation)
}

/// The value's XML bytes as text; records an issue on refusal.
func xmlText(_ value: PropertyList, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    do {
        return String(decoding: try value.xmlData(), as: UTF8.self)
    } catch {
        Issue.record("xmlData refused: \(error.code) \(error.message)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `xmlData()` throws, or nil (with an issue) when it succeeds.
func xmlRefusal(_ value: PropertyList, sourceLocation: SourceLocation = #_sourceLocation) -> PrefsError? {
    do {
        let bytes = try value.xmlData()
        Issue.record("xmlData should refuse, wrote \(bytes.count) bytes", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Strict structural equality, stricter than `==`: also tells 0.0 from -0.0
/// (for reals and dates). Returns nil when equal, else where they differ.
func strictDifference(_ a: PropertyList, _ b: PropertyList, path: String = "") -> String? {
    func sameDouble(_ x: Double, _ y: Double) -> Bool {
        if x.isNaN || y.isNaN { return x.isNaN && y.isNaN }
        return x == y && x.sign == y.sign
    }
    let here = path.isEmpty ? "root" : path
    switch (a.value, b.value) {
    case (.string(let x), .string(let y)):
        return Array(x.utf8) == Array(y.utf8) ? nil : "\(here): string \(x.debugDescription) != \(y.debugDescription)"
    case (.integer(let x), .integer(let y)):
        return x == y ? nil : "\(here): integer \(x) != \(y)"
    case (.real(let x), .real(let y)):
        return sameDouble(x, y) ? nil : "\(here): real \(x) != \(y)"
    case (.boolean(let x), .boolean(let y)):
        return x == y ? nil : "\(here): boolean \(x) != \(y)"
    case (.date(let x), .date(let y)):
        return sameDouble(x, y) ? nil : "\(here): date \(x) != \(y)"
    case (.data(let x), .data(let y)):
        return x == y ? nil : "\(here): data of \(x.count) bytes != data of \(y.count) bytes"
    case (.uid(let x), .uid(let y)):
        return x == y ? nil : "\(here): UID \(x) != \(y)"
    case (.array(let x), .array(let y)):
        guard x.count == y.count else { return "\(here): array of \(x.count) != array of \(y.count)" }
        for i in x.indices {
            if let d = strictDifference(x[i], y[i], path: "\(path)[\(i)]") { return d }
        }
        return nil
    case (.dictionary(let x), .dictionary(let y)):
        guard x.count == y.count else {
            let onlyX = x.keys.filter { y[$0] == nil }.map(\.string).sorted()
            let onlyY = y.keys.filter { x[$0] == nil }.map(\.string).sorted()
            return "\(here): dict of \(x.count) keys != dict of \(y.count) keys (only left: \(onlyX.prefix(5)), only right: \(onlyY.prefix(5)))"
        }
        for key in x.keys.sorted() {
            guard let w = y[key] else { return "\(here): key \(key.string.debugDescription) missing" }
            if let d = strictDifference(x[key]!, w, path: "\(path).\(key.string)") { return d }
        }
        return nil
    default:
        return "\(here): \(a.kind) != \(b.kind)"
    }
}

/// Seconds since 1970 of a date as Foundation counts it: Gregorian from
/// 1582-10-15 on, Julian before, computed independently of the library as
/// the Gregorian count shifted by the calendars' difference in days.
func unixTime(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Double {
    guard (y, mo, d) < (1582, 10, 15) else { return gregorianUnixTime(y, mo, d, h, mi, s) }
    let marchYear = mo <= 2 ? y - 1 : y
    func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    let shift = floorDiv(marchYear, 100) - floorDiv(marchYear, 400) - 2
    return gregorianUnixTime(y, mo, d, h, mi, s) + Double(shift * 86400)
}

/// Seconds since 1970 of a proleptic Gregorian UTC date, computed here
/// independently of the library (days counted year by year from 1970).
func gregorianUnixTime(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Double {
    func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
    func daysIn(_ y: Int) -> Int { isLeap(y) ? 366 : 365 }
    var days = 0
    if y >= 1970 {
        for year in 1970..<y { days += daysIn(year) }
    } else {
        for year in y..<1970 { days -= daysIn(year) }
    }
    let monthDays = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    for m in 0..<(mo - 1) { days += monthDays[m] }
    days += d - 1
    return Double(days * 86400 + h * 3600 + mi * 60 + s)
}

/// A small seedable generator (SplitMix64) so that "random" tests are
/// reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n, for tests whose sequences must repeat.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Runs `body` on a detached thread of its own and waits at most `seconds`
/// for it. Returns false when it did not finish in time; `unblock` is then
/// called so that a thread stuck in a system call can get free.
func finishes(within seconds: Double, unblock: () -> Void = {}, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Job: @unchecked Sendable {
        let body: @Sendable () -> Void
        let done = Atomic<Bool>(false)
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let job = Job(body)
    var thread = pthread_t()
    let started = pthread_create(
        &thread, nil,
        { arg in
            let job = Unmanaged<Job>.fromOpaque(arg!).takeRetainedValue()
            job.body()
            job.done.store(true, ordering: .releasing)
            return nil
        }, Unmanaged.passRetained(job).toOpaque())
    guard started == 0 else {
        Issue.record("pthread_create failed: \(started)")
        return false
    }
    pthread_detach(thread)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while clock.now < deadline {
        if job.done.load(ordering: .acquiring) { return true }
        usleep(2_000)
    }
    unblock()
    for _ in 0..<2500 where !job.done.load(ordering: .acquiring) { usleep(2_000) }
    return false
}

/// Seconds `body` takes.
func secondsTaken(_ body: () -> Void) -> Double {
    let d = ContinuousClock().measure(body)
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

// MARK: Files (Glibc)

/// A fresh private directory under $TMPDIR or /tmp; the caller removes it.
func makeTemporaryDirectory() -> String? {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/prefs-tests-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard made != nil else { return nil }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Writes `bytes` to a new file at `path`.
@discardableResult
func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
        let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return false }
        written += n
    }
    return true
}

/// The whole content of the regular file at `path`, or nil.
func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { return nil }
        if n == 0 { return out }
        out.append(contentsOf: chunk[0..<n])
    }
}

/// Whether `path` names a directory.
func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

/// The names in directory `path` (without "." and ".."), sorted; nil when it
/// cannot be read.
func directoryEntries(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names = [String]()
    while let entry = readdir(dir) {
        // d_name in place: a dirent is only as long as its name, so copying
        // the 256-byte field reads past the last record of the buffer.
        let at = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!
        let name = String(cString: at.assumingMemoryBound(to: CChar.self))
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// `path` with "." and ".." components resolved textually.
func normalizedPath(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
        if part == "." { continue }
        if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
        parts.append(part)
    }
    return "/" + parts.joined(separator: "/")
}

/// The directory part of `path`.
func parentDirectory(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Whether `needle` occurs in `haystack`.
func bytesContain(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
}

/// Writes `value` and reads it back; nil when it cannot be written (a value
/// the XML format cannot carry), else whether the result is strictly equal.
func survivesWriteThenRead(_ value: PropertyList) -> Bool? {
    guard let xml = try? value.xmlData() else { return nil }
    guard case .success(let back) = parseResult(xml) else { return false }
    return strictDifference(value, back) == nil
}

/// Every string anywhere in `value` (keys included), for searching results.
func allText(_ value: PropertyList) -> [UInt8] {
    var out = [UInt8]()
    func walk(_ v: PropertyList) {
        switch v.value {
        case .string(let s): out += Array(s.utf8); out.append(0)
        case .data(let d): out += d; out.append(0)
        case .array(let a): a.forEach(walk)
        case .dictionary(let d): for (k, x) in d { out += Array(k.string.utf8); out.append(0); walk(x) }
        default: break
        }
    }
    walk(value)
    return out
}

// MARK: Base64 (independent of the library)

enum TestBase64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = UInt32(bytes[i]), b1 = n > 1 ? UInt32(bytes[i + 1]) : 0, b2 = n > 2 ? UInt32(bytes[i + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(n > 1 ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(n > 2 ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict decoding of unbroken, padded base64; nil when malformed.
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out = [UInt8]()
        var i = 0
        while i < chars.count {
            var quad: UInt32 = 0
            var pad = 0
            for k in 0..<4 {
                let c = chars[i + k]
                if c == UInt8(ascii: "=") {
                    guard i + 4 == chars.count, k >= 2 else { return nil }
                    pad += 1
                    quad <<= 6
                } else {
                    guard pad == 0, let v = alphabet.firstIndex(of: c) else { return nil }
                    quad = quad << 6 | UInt32(v)
                }
            }
            out.append(UInt8(quad >> 16 & 0xFF))
            if pad < 2 { out.append(UInt8(quad >> 8 & 0xFF)) }
            if pad < 1 { out.append(UInt8(quad & 0xFF)) }
            i += 4
        }
        return out
    }
}
