// Foundation's value types as property-list values, for programs that
// already use Foundation. The core and libprefs.so never load Foundation;
// only programs that import this module do.

import Foundation
@_exported import PrefsCore
import Synchronization

extension Date: PropertyListConvertible {
    /// A date value (stored in whole seconds; see doc/behaviour.md).
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
        propertyList(forKey: key).flatMap { Data(propertyList: $0) }
    }

    /// The URL for `key`: a string with a scheme as that URL, any other
    /// string as a file path (`~` expanded); `nil` when absent or another
    /// kind (as `UserDefaults`).
    public func url(forKey key: String) -> URL? {
        propertyList(forKey: key).flatMap { URL(propertyList: $0) }
    }

    /// The date for `key` as `Date`, or `nil`.
    public func dateValue(forKey key: String) -> Date? {
        propertyList(forKey: key).flatMap { Date(propertyList: $0) }
    }

    /// Stores `url` as `UserDefaults` does (a file URL as its path, `~`
    /// for the home directory); `nil` removes.
    public func set(_ url: URL?, forKey key: String) {
        set(url as (any PropertyListConvertible)?, forKey: key)
    }

    /// Every key visible along the search list, as Foundation objects:
    /// the same as ``Preferences/dictionaryRepresentation()`` now that
    /// `Any` reads give `Date` and `Data` wherever PrefsFoundation is linked.
    public func foundationDictionaryRepresentation() -> [String: Any] {
        dictionaryRepresentation()
    }

    /// `plist` as the Foundation object `UserDefaults` would return (a UID,
    /// for which Foundation has no public class, as `["CF$UID": n]`).
    public static func foundationObject(_ plist: PropertyList) -> Any {
        AnyValues.object(plist)
    }

    /// The name of the notification posted to `NotificationCenter.default`
    /// after every change made through a `Preferences` (see
    /// ``Preferences/onDidChange(_:)``), as `UserDefaults` posts its
    /// `didChangeNotification`: on the thread that made the change, with
    /// no object (a `Preferences` is a value, not an object) and the
    /// application ID under `"applicationID"` in `userInfo`. Posting
    /// starts when this name is first used.
    public static let didChangeNotification: Notification.Name = {
        let name = Notification.Name("PreferencesDidChangeNotification")
        DidChangePoster.observation.withLock { o in
            if o == nil {
                o = Preferences.onDidChange { prefs in
                    NotificationCenter.default.post(
                        name: name, object: nil, userInfo: ["applicationID": prefs.applicationID])
                }
            }
        }
        return name
    }()
}

/// The process's poster of ``Preferences/didChangeNotification``, kept
/// for the life of the process.
private enum DidChangePoster {
    static let observation = Mutex<PreferenceObservation?>(nil)
}

/// Foundation's side of `Any` conversions for the core (found there by
/// name, `_typeByName`): Foundation objects in, `Date` and `Data` out.
enum FoundationAnyBridge: PropertyListAnyBridge {
    static func propertyList(
        fromObject value: Any, _ convert: (Any) throws(PrefsError) -> PropertyList?
    ) throws(PrefsError) -> PropertyList? {
        // Foundation's value types; a class instance is never cast to them
        // (the cast would bridge it whole first, and a container that
        // holds itself never comes back).
        guard type(of: value) is AnyObject.Type else {
            switch value {
            case let d as Date: return d.propertyList
            case let d as Data: return d.propertyList
            case let u as URL: return u.propertyList
            default: return nil
            }
        }
        // Instances of Foundation's classes (a Swift value, a String or an
        // [Int], would bridge to them too, and is the core's to convert).
        switch value {
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            // swift-corelibs-foundation gives "c" only for booleans (an Int8 is "i").
            case "c", "B": return .boolean(n.boolValue)
            case "f", "d": return .real(n.doubleValue)
            case "Q", "L", "I", "S", "C": return .integer(n.uint64Value)
            default: return .integer(n.int64Value)
            }
        case let d as NSDate: return (d as Date).propertyList
        case let d as NSData: return (d as Data).propertyList
        case let u as NSURL: return (u as URL).propertyList
        case let s as NSString: return .string(s as String)
        case let a as NSArray:
            var out = [PropertyList]()
            for item in a {
                guard let p = try convert(item) else {
                    throw PrefsError(.unrepresentable, "an array holds nil, which a property list cannot")
                }
                out.append(p)
            }
            return .array(out)
        case let d as NSDictionary:
            var out = PropertyListDictionary(minimumCapacity: d.count)
            for (k, v) in d {
                guard let key = k as? String else {
                    throw PrefsError(.unrepresentable, "a dictionary key is not a string (\(type(of: k)))")
                }
                guard let p = try convert(v) else {
                    throw PrefsError(.unrepresentable, "the value of \(key) is nil, which a property list cannot hold")
                }
                out[PropertyList.Key(key)] = p
            }
            return .dictionary(out)
        default: return nil
        }
    }

    static func object(date seconds1970: Double) -> Any { Date(timeIntervalSince1970: seconds1970) }

    static func object(data bytes: [UInt8]) -> Any { Data(bytes) }
}
