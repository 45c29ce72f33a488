/// Deterministic property-list inputs: the same bytes on every run, made in
/// code. Dictionaries of preference-like values (window frames, recent
/// documents, fonts, tokens, counters...), written in Apple's XML layout:
/// tab indentation, keys sorted by their UTF-8 bytes, `&`, `<`, `>` escaped,
/// base64 wrapped at 76 - 8 * indent columns, `<array/>` and `<dict/>` for
/// empty containers, reals as `%.17g`.

import Foundation

/// SplitMix64: small, fast and the same everywhere.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in `range` (the slight modulo bias does not matter here).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// A generated value, before it is written out.
indirect enum Node {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Int64)  // seconds since 1970, whole
    case data([UInt8])
    case array([Node])
    case dictionary([(String, Node)])
}

/// Statistics of one generated document.
struct Generated {
    var bytes: [UInt8]
    var keys: Int
    var topLevelEntries: Int
}

enum InputGenerator {
    /// A document of about `targetBytes` bytes. Documents of different
    /// sizes share their beginning: a 5 MB file is the first quarter of the
    /// 20 MB one, so per-megabyte costs compare like with like.
    static func document(targetBytes: Int) -> Generated {
        var w = Writer()
        w.literal("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        w.literal("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        w.literal("<plist version=\"1.0\">\n")
        w.literal("<dict>\n")
        let footer = "</dict>\n</plist>\n".utf8.count
        var rng = SplitMix64(seed: 0x7072_6566_7320_786D)  // fixed
        var entries = 0
        if targetBytes < 8 * 1024 {
            // Small: one application's preferences at the top level.
            var entry = Writer()
            let sorted = Preferences.domain(&rng).sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (key, value) in sorted {
                entry.out.removeAll(keepingCapacity: true)
                entry.keys = 0
                entry.entry(key, value, indent: 1)
                if w.out.count + entry.out.count + footer > targetBytes + targetBytes / 10 { continue }
                w.out.append(contentsOf: entry.out)
                w.keys += entry.keys
                entries += 1
                if w.out.count + footer >= targetBytes - targetBytes / 20 { break }
            }
        } else {
            // Large: many applications' preferences, one dictionary each,
            // keyed so that generation order is sorted order.
            while w.out.count + footer < targetBytes {
                let name = "org.example.s" + padded(entries, 6) + "." + rng.pick(Preferences.appNames)
                w.entry(name, .dictionary(Preferences.domain(&rng)), indent: 1)
                entries += 1
            }
        }
        w.literal("</dict>\n</plist>\n")
        return Generated(bytes: w.out, keys: w.keys, topLevelEntries: entries)
    }

    static func padded(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Apple's XML layout, written directly.
    struct Writer {
        var out: [UInt8] = []
        var keys = 0

        mutating func literal(_ s: String) { out.append(contentsOf: s.utf8) }
        mutating func tabs(_ n: Int) { for _ in 0..<n { out.append(0x09) } }

        mutating func escaped(_ s: String) {
            for c in s.utf8 {
                switch c {
                case UInt8(ascii: "&"): literal("&amp;")
                case UInt8(ascii: "<"): literal("&lt;")
                case UInt8(ascii: ">"): literal("&gt;")
                default: out.append(c)
                }
            }
        }

        mutating func entry(_ key: String, _ value: Node, indent: Int) {
            tabs(indent)
            literal("<key>")
            escaped(key)
            literal("</key>\n")
            keys += 1
            node(value, indent: indent)
        }

        mutating func node(_ n: Node, indent: Int) {
            tabs(indent)
            switch n {
            case .string(let s):
                literal("<string>"); escaped(s); literal("</string>\n")
            case .integer(let i):
                literal("<integer>\(i)</integer>\n")
            case .real(let d):
                // As Apple writes a real: 17 significant digits (`%.17g`,
                // 0.070000000000000007), and `0.0` for zero.
                literal("<real>\(d == 0 ? "0.0" : String(format: "%.17g", d))</real>\n")
            case .boolean(let b):
                literal(b ? "<true/>\n" : "<false/>\n")
            case .date(let t):
                literal("<date>\(isoDate(t))</date>\n")
            case .data(let bytes):
                literal("<data>\n")
                base64(bytes, indent: indent)
                tabs(indent)
                literal("</data>\n")
            case .array(let items):
                if items.isEmpty { literal("<array/>\n"); return }
                literal("<array>\n")
                for item in items { node(item, indent: indent + 1) }
                tabs(indent)
                literal("</array>\n")
            case .dictionary(let entries):
                if entries.isEmpty { literal("<dict/>\n"); return }
                literal("<dict>\n")
                let sorted = entries.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
                for (k, v) in sorted { entry(k, v, indent: indent + 1) }
                tabs(indent)
                literal("</dict>\n")
            }
        }

        static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

        /// Base64 in lines that start with `indent` tabs (at most 8) and hold
        /// at most 76 - 8 * that many characters.
        mutating func base64(_ bytes: [UInt8], indent: Int) {
            let t = min(indent, 8)
            let width = 76 - 8 * t
            var line: [UInt8] = []
            var i = 0
            while i < bytes.count {
                let n = min(3, bytes.count - i)
                var v = UInt32(bytes[i]) << 16
                if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
                if n > 2 { v |= UInt32(bytes[i + 2]) }
                line.append(Self.alphabet[Int(v >> 18 & 63)])
                line.append(Self.alphabet[Int(v >> 12 & 63)])
                line.append(n > 1 ? Self.alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
                line.append(n > 2 ? Self.alphabet[Int(v & 63)] : UInt8(ascii: "="))
                i += 3
                if line.count >= width { flush(&line, t) }
            }
            if !line.isEmpty { flush(&line, t) }
        }

        private mutating func flush(_ line: inout [UInt8], _ t: Int) {
            tabs(t)
            out.append(contentsOf: line)
            out.append(0x0A)
            line.removeAll(keepingCapacity: true)
        }

        /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since 1970 (years 1970-9999).
        func isoDate(_ t: Int64) -> String {
            let days = Int(t / 86400), rem = Int(t % 86400)
            // Civil date from a day count (era-based; March-first years).
            let z = days + 719_468
            let era = z / 146_097
            let doe = z - era * 146_097
            let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
            let mp = (5 * doy + 2) / 153
            let day = doy - (153 * mp + 2) / 5 + 1
            let month = mp < 10 ? mp + 3 : mp - 9
            let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
            return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
                + padded(rem / 3600, 2) + ":" + padded(rem / 60 % 60, 2) + ":" + padded(rem % 60, 2) + "Z"
        }
    }
}

/// What applications keep in their preferences.
enum Preferences {
    static let appNames = [
        "editor", "mail", "terminal", "photos", "player", "browser", "notes",
        "calendar", "finder", "backup", "chat", "maps", "reader", "ide", "sync",
    ]
    static let languages = ["en", "en-GB", "fr", "fr-CA", "de", "ja", "zh-Hans", "pt-BR", "es", "it", "ko", "nl"]
    static let fonts = [
        "Helvetica Neue", "Menlo-Regular", "DejaVu Sans Mono", "Noto Sans", "Source Code Pro",
        "Inter", "Fira Code Retina", "Liberation Serif",
    ]
    static let words = [
        "alpha", "budget", "report", "draft", "final", "notes", "invoice", "photo", "summer",
        "project", "meeting", "plan", "archive", "backup", "design", "review", "roadmap",
        "q3", "2024", "client", "release", "build", "test", "data", "export", "import",
    ]
    static let people = [
        "Ada Lovelace", "Zoë Ångström", "José Müller", "田中 太郎", "Ольга Петрова",
        "Søren Kierkegaard", "Chloé Dubois", "Marek Nowák", "Ana O'Neil", "Li Wei",
    ]
    static let searches = [
        "size > 10MB & kind == \"image\"", "<draft>", "Tom & Jerry", "a < b && b > c",
        "invoice 2024", "name:\"Q3 plan\"", "résumé", "R&D budget", "<tag>&amp;</tag>",
        "x>=1", "error log", "it's done",
    ]
    static let sentences = [
        "Thanks for your message & have a good day.", "Sent from my desk.",
        "Please don't reply to this address.", "Cheers, the <team>.",
        "Cordialement — l'équipe.", "Mit freundlichen Grüßen.", "よろしくお願いします。",
        "P.S. \"Quotes\" and 'apostrophes' stay as they are.", "1 < 2 > 0 & so on.",
        "Call me at +1 555 0100 ext. 42.",
    ]
    static let themes = ["Light", "Dark", "Solarized Dark", "High Contrast", "Sepia", "Nord"]

    static func word(_ r: inout SplitMix64) -> String { r.pick(words) }

    static func path(_ r: inout SplitMix64) -> String {
        var p = "/home/" + r.pick(["ada", "zoe", "jose", "taro", "olga", "li"])
        for _ in 0..<r.int(2...5) { p += "/" + word(&r).capitalized(r.chance(30)) }
        return p + "/" + word(&r) + "-" + String(r.int(1...999)) + r.pick([".txt", ".pdf", ".png", ".md", ".odt", ""])
    }

    static func blob(_ r: inout SplitMix64, _ range: ClosedRange<Int>) -> [UInt8] {
        (0..<r.int(range)).map { _ in UInt8(truncatingIfNeeded: r.next()) }
    }

    static func date(_ r: inout SplitMix64) -> Node {
        .date(Int64(r.int(978_307_200...1_893_456_000)))  // 2001...2030
    }

    static func real(_ r: inout SplitMix64, _ range: ClosedRange<Int>, over divisor: Int) -> Node {
        .real(Double(r.int(range)) / Double(divisor))
    }

    static func uuid(_ r: inout SplitMix64) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var s = [UInt8]()
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { s.append(UInt8(ascii: "-")) }
            s.append(hex[r.int(0...15)])
        }
        return String(decoding: s, as: UTF8.self)
    }

    /// Candidate entries of one application's preferences.
    static let templates: [(String, @Sendable (inout SplitMix64) -> Node)] = [
        ("AppleLanguages", { r in .array((0..<r.int(1...4)).map { _ in .string(r.pick(languages)) }) }),
        ("AutoSaveInterval", { r in .integer(Int64(r.int(30...600))) }),
        ("AutomaticUpdateCheck", { r in .boolean(r.chance(70)) }),
        ("CrashReporterLastSubmitted", { r in date(&r) }),
        ("DefaultFontName", { r in .string(r.pick(fonts)) }),
        ("DefaultFontSize", { r in real(&r, 16...48, over: 2) }),
        (
            "DocumentWindowFrame",
            { r in
                .string("{{\(r.int(0...2000)), \(r.int(0...1200))}, {\(r.int(400...2560)), \(r.int(300...1440))}}")
            }
        ),
        ("ExportPath", { r in .string(path(&r)) }),
        ("FirstLaunchDate", { r in date(&r) }),
        ("HasShownWelcome", { r in .boolean(r.chance(90)) }),
        ("HistoryLimit", { r in .integer(Int64(r.int(0...10_000))) }),
        ("IgnoredWarnings", { r in .array((0..<r.int(0...6)).map { _ in .string("warning." + word(&r) + "." + word(&r)) }) }),
        ("LastSearchQuery", { r in .string(r.pick(searches)) }),
        ("LastUpdateCheck", { r in date(&r) }),
        ("LicenseToken", { r in .data(blob(&r, 32...96)) }),
        (
            "MainWindow",
            { r in
                .dictionary([
                    ("Frame", .string("\(r.int(0...2400)) \(r.int(0...1400)) \(r.int(320...3840)) \(r.int(240...2160)) 0 0 3840 2160 ")),
                    ("Maximized", .boolean(r.chance(20))),
                    ("Screen", .string("DISPLAY-\(r.int(1...3))")),
                    ("SplitPositions", .array((0..<r.int(1...3)).map { _ in real(&r, 100...900, over: 4) })),
                ])
            }
        ),
        ("NSNavLastRootDirectory", { r in .string(path(&r)) }),
        (
            "NSRecentDocuments",
            { r in
                .array(
                    (0..<r.int(0...3)).map { _ in
                        .dictionary([
                            ("Name", .string(word(&r) + " " + word(&r) + ".txt")), ("OpenedAt", date(&r)),
                            ("Bookmark", .data(blob(&r, 96...256))),
                        ])
                    })
            }
        ),
        ("OpacityLevel", { r in real(&r, 20...100, over: 100) }),
        ("ProxyHost", { r in .string("proxy\(r.int(1...9)).corp.example.net") }),
        ("ProxyPort", { r in .integer(Int64(r.pick([3128, 8080, 8888, 1080, 443]))) }),
        ("ReleaseNotesSeen", { r in .string("\(r.int(1...9)).\(r.int(0...30)).\(r.int(0...12))") }),
        ("ScaleFactor", { r in real(&r, 4...12, over: 4) }),
        ("ShowLineNumbers", { r in .boolean(r.chance(50)) }),
        ("ShowStatusBar", { r in .boolean(r.chance(60)) }),
        ("SidebarWidth", { r in .integer(Int64(r.int(120...480))) }),
        ("SignatureText", { r in .string(r.pick(people) + "\n" + (0..<r.int(2...6)).map { _ in r.pick(sentences) }.joined(separator: " ")) }),
        ("SpellCheckerDictionary", { r in .string(r.pick(languages) + "_" + r.pick(["US", "GB", "FR", "DE"])) }),
        ("SyncAccountIdentifier", { r in .string(uuid(&r)) }),
        ("TabWidth", { r in .integer(Int64(r.pick([2, 4, 8]))) }),
        ("Theme", { r in .string(r.pick(themes)) }),
        (
            "ToolbarConfiguration",
            { r in
                .dictionary([
                    ("DisplayMode", .integer(Int64(r.int(0...3)))), ("IsVisible", .boolean(r.chance(80))),
                    ("ItemIdentifiers", .array((0..<r.int(0...5)).map { _ in .string("item." + word(&r)) })),
                    ("SizeMode", .integer(Int64(r.int(0...2)))),
                ])
            }
        ),
        ("TotalBytesTransferred", { r in .integer(Int64(r.next() >> 22)) }),
        ("UsageCounters", { r in .dictionary((0..<r.int(1...3)).map { i in ("feature.\(i)." + word(&r), .integer(Int64(r.int(0...99_999)))) }) }),
        ("UserFullName", { r in .string(r.pick(people)) }),
        ("RecentSearches", { r in .array((0..<r.int(0...6)).map { _ in .string(r.pick(searches)) }) }),
        ("ColorWellColor", { r in .data(blob(&r, 12...24)) }),
        ("ExcludedPaths", { r in .array((0..<r.int(1...5)).map { _ in .string(path(&r)) }) }),
        (
            "Notifications",
            { r in
                .dictionary([
                    ("Enabled", .boolean(r.chance(75))), ("Sound", .string(r.pick(["Glass", "Ping", "Tink", "none"]))),
                    ("QuietHours", .string("\(r.int(18...23)):00-0\(r.int(5...9)):30")),
                ])
            }
        ),
        ("TimeZoneOffset", { r in .integer(Int64(r.int(-43_200...50_400))) }),
        ("ZoomLevel", { r in real(&r, -8...12, over: 4) }),
        ("PinnedItems", { r in .array(r.chance(50) ? [] : (0..<r.int(1...3)).map { _ in .string(word(&r)) }) }),
        ("LastSessionState", { r in .data(blob(&r, 96...256)) }),
        ("Comment", { r in .string(r.pick(sentences)) }),
        ("Volume", { r in real(&r, 0...100, over: 100) }),
        (
            "RecentURLs",
            { r in
                .array(
                    (0..<r.int(3...10)).map { _ in
                        .string(
                            "https://\(r.pick(["docs", "www", "api", "intranet"])).example.com/\(word(&r))/\(word(&r))?id=\(r.int(1...99_999))&lang=\(r.pick(languages))&ref=\(word(&r))"
                        )
                    })
            }
        ),
        (
            "UserAgent",
            { r in .string("Mozilla/5.0 (X11; Linux x86_64) ExampleKit/\(r.int(500...620)).\(r.int(1...40)) (KHTML, like Gecko) Example/\(r.int(90...130)).0") }
        ),
        ("OpenFolders", { r in .array((0..<r.int(3...12)).map { _ in .string(path(&r)) }) }),
        ("LastErrorMessage", { r in .string((0..<r.int(2...8)).map { _ in r.pick(sentences) }.joined(separator: " ")) }),
        ("LaunchCount", { r in .integer(Int64(r.int(1...5000))) }),
    ]

    /// One application's preferences: a varying subset of the templates.
    static func domain(_ r: inout SplitMix64) -> [(String, Node)] {
        var out: [(String, Node)] = []
        for (key, make) in templates where r.chance(55) {
            out.append((key, make(&r)))
        }
        return out
    }
}

extension String {
    fileprivate func capitalized(_ yes: Bool) -> String {
        guard yes, let first = first else { return self }
        return first.uppercased() + dropFirst()
    }
}
