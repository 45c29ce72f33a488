// Foundation's value types as property-list values, for programs that
// already use Foundation. The core and libprefs.so never load Foundation;
// only programs that import this module do.

import Foundation
@_exported import PrefsCore

extension Date: PropertyListConvertible {
    /// A date value (stored in whole seconds; see the README).
    public var propertyList: PropertyList? { .date(timeIntervalSince1970) }
    /// A date; `nil` for other kinds.
    public init?(propertyList plist: PropertyList) {
        guard let t = plist.dateValue else { return nil }
        self.init(timeIntervalSince1970: t)
    }
}

extension Data: PropertyListConvertible {
    /// A data value.
    public var propertyList: PropertyList? { .data([UInt8](self)) }
    /// The bytes of a data value; `nil` for other kinds.
    public init?(propertyList plist: PropertyList) {
        guard let bytes = plist.dataValue else { return nil }
        self.init(bytes)
    }
}

extension URL: PropertyListConvertible {
    /// A string: a file URL's path with the home directory abbreviated to
    /// `~`, as `UserDefaults` stores it; another URL's absolute string
    /// (where swift-corelibs-foundation keeps only the path and loses the
    /// rest).
    public var propertyList: PropertyList? {
        guard isFileURL else { return .string(absoluteString) }
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let p = path
        if p == home { return .string("~") }
        if p.hasPrefix(home + "/") { return .string("~" + p.dropFirst(home.count)) }
        return .string(p)
    }
    /// A string with a scheme (`https://...`) as that URL; any other
    /// string as a file path, `~` expanded, as `UserDefaults.url(forKey:)`
    /// reads it. `nil` for other kinds (never a crash on data, where
    /// swift-corelibs-foundation aborts).
    public init?(propertyList plist: PropertyList) {
        guard let s = plist.stringValue, !s.isEmpty else { return nil }
        if let colon = s.firstIndex(of: ":"), s[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
            !s[..<colon].isEmpty, let u = URL(string: s)
        {
            self = u
            return
        }
        self.init(fileURLWithPath: (s as NSString).expandingTildeInPath)
    }
}

extension Preferences {
    /// The data for `key` as `Data`, or `nil` (as `UserDefaults`).
    public func data(forKey key: String) -> Data? {
        object(forKey: key).flatMap { Data(propertyList: $0) }
    }

    /// The URL for `key`: a string with a scheme as that URL, any other
    /// string as a file path (`~` expanded); `nil` when absent or another
    /// kind (as `UserDefaults`).
    public func url(forKey key: String) -> URL? {
        object(forKey: key).flatMap { URL(propertyList: $0) }
    }

    /// The date for `key` as `Date`, or `nil`.
    public func dateValue(forKey key: String) -> Date? {
        object(forKey: key).flatMap { Date(propertyList: $0) }
    }

    /// Stores `url` as `UserDefaults` does (a file URL as its path, `~`
    /// for the home directory); `nil` removes.
    public func set(_ url: URL?, forKey key: String) {
        set(url as (any PropertyListConvertible)?, forKey: key)
    }

    /// Every key visible along the search list, as Foundation objects
    /// (`String`, `NSNumber`-bridgeable numbers, `Date`, `Data`, arrays,
    /// dictionaries): for code that wants `UserDefaults`' `[String: Any]`.
    public func foundationDictionaryRepresentation() -> [String: Any] {
        dictionaryRepresentation().mapValues(Self.foundationObject)
    }

    /// `plist` as the Foundation object `UserDefaults` would return (a UID,
    /// for which Foundation has no public class, as `["CF$UID": n]`).
    public static func foundationObject(_ plist: PropertyList) -> Any {
        switch plist.value {
        case .string(let s): return s
        case .integer(let i): return Int64(exactly: i).map { Int($0) as Any } ?? (UInt64(i) as Any)
        case .real(let d): return d
        case .boolean(let b): return b
        case .date(let t): return Date(timeIntervalSince1970: t)
        case .data(let bytes): return Data(bytes)
        // Foundation has no public UID class: the form XML gives it.
        case .uid(let u): return ["CF$UID": Int(u)] as [String: Any]
        case .array(let items): return items.map(foundationObject)
        case .dictionary(let d):
            var out = [String: Any](minimumCapacity: d.count)
            for (k, v) in d { out[k.string] = foundationObject(v) }
            return out
        }
    }
}
