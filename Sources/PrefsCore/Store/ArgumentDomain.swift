import Glibc

/// The argument domain: `-key value` pairs of a command line.
enum ArgumentDomain {
    /// Each `-key value` pair of `args` (after `args[0]`, the program) whose
    /// value does not start with `-`. A value that parses as a property list
    /// (XML or old-style text such as `(1, 2)` or `{a = b;}`) is stored
    /// parsed; anything else is stored as the string it is.
    static func parse(_ args: [String]) -> PropertyListDictionary {
        var out = PropertyListDictionary()
        var i = 1
        while i < args.count {
            let arg = args[i]
            if arg.utf8.count > 1, arg.utf8.first == UInt8(ascii: "-"), i + 1 < args.count,
                args[i + 1].utf8.first != UInt8(ascii: "-")
            {
                out[PropertyList.Key(String(arg.dropFirst()))] = value(args[i + 1])
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }

    static func value(_ text: String) -> PropertyList {
        if let v = try? PropertyList.parse(Array(text.utf8)) { return v }
        return .string(text)
    }
}

/// The user's languages, from the environment.
struct Languages: Sendable {
    /// BCP 47 tags in the user's order, `fr-FR` for `fr_FR.UTF-8`.
    var list: [String]
    /// The locale identifier, `fr_FR` for `fr_FR.UTF-8`.
    var locale: String

    /// `LANGUAGE` (a colon-separated list), else the first of `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`; `C` and `POSIX` mean English. Read even in a
    /// setuid or setgid process (unlike the variables that name places):
    /// the caller's languages only choose which in-memory language domains
    /// are searched, and names that are not bare identifiers are dropped.
    static func fromEnvironment() -> Languages {
        func env(_ name: String) -> String? {
            guard let v = getenv(name) else { return nil }
            let s = String(cString: v)
            return s.isEmpty ? nil : s
        }
        let posix = env("LC_ALL") ?? env("LC_MESSAGES") ?? env("LANG")
        var list: [String] = []
        if let language = env("LANGUAGE") {
            list = language.split(separator: ":").compactMap { tag(String($0)) }
        }
        if list.isEmpty, let p = posix, let t = tag(p) { list = [t] }
        if list.isEmpty { list = ["en"] }
        let locale = posix.flatMap(localeID) ?? list[0].replacingDashes()
        return Languages(list: list, locale: locale)
    }

    /// `fr_FR.UTF-8@euro` → `fr-FR`; `C`/`POSIX` → `en`.
    static func tag(_ posix: String) -> String? {
        guard let id = localeID(posix) else { return nil }
        return String(id.map { $0 == "_" ? "-" : $0 })
    }

    /// `fr_FR.UTF-8@euro` → `fr_FR`; `C`/`POSIX` → `en_US`.
    static func localeID(_ posix: String) -> String? {
        let base = posix.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? ""
        if base == "C" || base == "POSIX" { return "en_US" }
        guard !base.isEmpty, base.utf8.allSatisfy({ OldStylePlist.isBareCharacter($0) }) else { return nil }
        return base
    }
}

private extension String {
    func replacingDashes() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}
