// `Any`-typed values in and out, as code written for UserDefaults has
// them: `[String: Any]` dictionaries, `[Any]` arrays, `as? Int` on what
// comes out. The core knows Swift's own types; PrefsFoundation, when it is
// linked into the program, adds Foundation's (Date, Data, URL, NSNumber,
// NSString, ...) through `PropertyListAnyBridge`.
/// Foundation's side of the `Any` conversions, implemented by
/// PrefsFoundation's `FoundationAnyBridge` and found by name at run time,
/// so that the core never links Foundation and a program that links
/// PrefsFoundation gets `Date` and `Data` out of every `Any` read.
package protocol PropertyListAnyBridge {
    /// The property list for a Foundation value (`NSNumber`, `Date`,
    /// `Data`, `URL`, `NSString`, `NSArray`, `NSDictionary`, ...), `nil`
    /// when `value` is none of them. `convert` converts nested values.
    static func propertyList(
        fromObject value: Any, _ convert: (Any) throws(PrefsError) -> PropertyList?
    ) throws(PrefsError) -> PropertyList?
    /// A date as `Date`.
    static func object(date seconds1970: Double) -> Any
    /// Data as `Data`.
    static func object(data bytes: [UInt8]) -> Any
}

/// A value that may be an optional, so that `nil` inside an `Any` is seen.
private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { self.map { $0 as Any } }
}

/// The conversions between `Any` and ``PropertyList``.
package enum AnyValues {
    /// PrefsFoundation's bridge when the program links it (looked up once;
    /// a constant type with no state, so safe to share across threads).
    package nonisolated(unsafe) static let bridge: (any PropertyListAnyBridge.Type)? =
        _typeByName("15PrefsFoundation19FoundationAnyBridgeO") as? any PropertyListAnyBridge.Type

    /// Deeper nesting is refused, as every reader refuses it (and a
    /// Foundation container can hold itself).
    static let maximumDepth = PropertyList.maxNesting

    /// The property list for `value`: `String`, `Bool`, the integers,
    /// `Double`, `Float`, `[UInt8]` (data), ``PropertyList``, any
    /// ``PropertyListConvertible``, `[Any]`, `[String: Any]`,
    /// `AnyHashable`, an `Encodable` value (as native values), and with
    /// PrefsFoundation Foundation's types. `nil` for an optional's `nil`
    /// (which removes a key). Throws `.unrepresentable` for anything else,
    /// naming the type, and `.tooDeep` beyond ``PropertyList/maxNesting``
    /// levels.
    package static func propertyList(_ value: Any) throws(PrefsError) -> PropertyList? {
        try convert(value, depth: 0)
    }

    private static func convert(_ value: Any, depth: Int) throws(PrefsError) -> PropertyList? {
        if depth > maximumDepth {
            throw PrefsError(.tooDeep, "values nested more than \(maximumDepth) deep")
        }
        let nested: (Any) throws(PrefsError) -> PropertyList? = { (v: Any) throws(PrefsError) in
            try convert(v, depth: depth + 1)
        }
        // An instance of a class is cast only to classes first: casting a
        // Foundation container to a Swift type or a protocol bridges it
        // whole, and one that holds itself never comes back.
        if type(of: value) is AnyObject.Type {
            if let p = value as? PropertyList { return p }
            if let bridge, let p = try bridge.propertyList(fromObject: value, nested) { return p }
        }
        if let o = value as? any OptionalValue {
            guard let w = o.wrappedAny else { return nil }
            return try convert(w, depth: depth + 1)
        }
        if let bridge, !(type(of: value) is AnyObject.Type), let p = try bridge.propertyList(fromObject: value, nested) {
            return p
        }
        switch value {
        case let p as PropertyList: return p
        case let s as String: return .string(s)
        case let b as Bool: return .boolean(b)
        case let i as Int: return .integer(i)
        case let i as Int64: return .integer(i)
        case let i as Int32: return .integer(i)
        case let i as Int16: return .integer(i)
        case let i as Int8: return .integer(i)
        case let i as UInt: return .integer(i)
        case let i as UInt64: return .integer(i)
        case let i as UInt32: return .integer(i)
        case let i as UInt16: return .integer(i)
        case let i as UInt8: return .integer(i)
        case let d as Double: return .real(d)
        case let f as Float: return .real(Double(f))
        default: break
        }
        // Exactly [UInt8]: an empty [Int] would cast to it as well.
        if type(of: value) == [UInt8].self, let bytes = value as? [UInt8] { return .data(bytes) }
        if let h = value as? AnyHashable, type(of: value) == AnyHashable.self { return try nested(h.base) }
        if let c = value as? any PropertyListConvertible {
            guard let p = c.propertyList else { return nil }
            return p
        }
        if let items = value as? [Any] {
            var out = [PropertyList]()
            out.reserveCapacity(items.count)
            for item in items {
                guard let p = try nested(item) else {
                    throw PrefsError(.unrepresentable, "an array holds nil, which a property list cannot")
                }
                out.append(p)
            }
            return .array(out)
        }
        if let items = value as? [String: Any] {
            var out = PropertyListDictionary(minimumCapacity: items.count)
            for (k, v) in items {
                guard let p = try nested(v) else {
                    throw PrefsError(.unrepresentable, "the value of \(k) is nil, which a property list cannot hold")
                }
                out[PropertyList.Key(k)] = p
            }
            return .dictionary(out)
        }
        if let e = value as? any Encodable { return try Preferences.encode(e) }
        throw PrefsError(.unrepresentable, "a property list cannot hold a value of type \(type(of: value))")
    }

    /// The values of `dictionary` as property lists, or the reason one of
    /// them cannot be (a `nil` value leaves its key out).
    package static func propertyListDictionary(_ dictionary: [String: Any]) throws(PrefsError) -> PropertyListDictionary {
        var out = PropertyListDictionary(minimumCapacity: dictionary.count)
        for (k, v) in dictionary {
            do {
                if let p = try propertyList(v) { out[PropertyList.Key(k)] = p }
            } catch {
                throw PrefsError(error.code, "\(k): \(error.message)")
            }
        }
        return out
    }

    /// `plist` as `UserDefaults` returns it: `String`, `Int` (an integer
    /// beyond `Int.max` as `UInt64`), `Double`, `Bool`, `[Any]`,
    /// `[String: Any]`; data as `Data` and dates as `Date` with
    /// PrefsFoundation, else data as `[UInt8]` and a date as the
    /// ``PropertyList`` itself; a UID, for which Foundation has no public
    /// class, as `["CF$UID": n]`, the form XML gives it.
    package static func object(_ plist: PropertyList) -> Any {
        switch plist.value {
        case .string(let s): return s
        case .integer(let i): return Int(exactly: i).map { $0 as Any } ?? (UInt64(exactly: i).map { $0 as Any } ?? plist)
        case .real(let d): return d
        case .boolean(let b): return b
        case .date(let t): return bridge?.object(date: t) ?? plist
        case .data(let bytes): return bridge?.object(data: bytes) ?? bytes
        case .uid(let u): return ["CF$UID": Int(u)] as [String: Any]
        case .array(let items): return items.map(object)
        case .dictionary(let d): return objects(d)
        }
    }

    /// Every value of `d` as ``object(_:)`` gives it.
    package static func objects(_ d: PropertyListDictionary) -> [String: Any] {
        var out = [String: Any](minimumCapacity: d.count)
        for (k, v) in d { out[k.string] = object(v) }
        return out
    }
}

/// The objects last given to a whole-domain setter
/// (``Preferences/setVolatileDomain(_:forName:)``,
/// ``Preferences/setPersistentDomain(_:forName:)``), so that reading the
/// domain back gives each unchanged key's object as it was given, as
/// `UserDefaults` does (a `Date` keeps its sub-microsecond part, which a
/// property-list date, seconds since 1970 as a `Double`, cannot always
/// hold). A key whose stored value has changed since, or whose object was
/// an instance of a class (which may have changed since), is converted
/// afresh.
enum GivenObjects {
    private struct Memo: @unchecked Sendable {
        var values: PropertyListDictionary
        var objects: [String: Any]
    }
    private struct Name: Hashable {
        let store: ObjectIdentifier
        let persistent: Bool
        let domain: String
    }
    /// Guarded by a ``ForkSafeMutex`` (not `Mutex`, which fails in a child of `fork`).
    private final class Memos: @unchecked Sendable {
        let lock = ForkSafeMutex()
        var byName: [Name: Memo] = [:]
    }
    private static let memos = Memos()

    /// Remembers `objects`, given as the domain whose values are now `values`.
    static func remember(
        _ objects: [String: Any], as values: PropertyListDictionary, store: PreferencesStore, persistent: Bool, domain: String
    ) {
        let name = Name(store: ObjectIdentifier(store), persistent: persistent, domain: domain)
        let memo = Memo(values: values, objects: objects)
        memos.lock.withLock { memos.byName[name] = memo }
    }

    /// `values` as `Any` objects, each unchanged key as it was given.
    static func objects(
        _ values: PropertyListDictionary, store: PreferencesStore, persistent: Bool, domain: String
    ) -> [String: Any] {
        let name = Name(store: ObjectIdentifier(store), persistent: persistent, domain: domain)
        let memo = memos.lock.withLock { memos.byName[name] }
        var out = [String: Any](minimumCapacity: values.count)
        for (k, v) in values {
            // Only values: a given object of a class may have changed since.
            if let memo, memo.values[k] == v, let given = memo.objects[k.string], !(type(of: given) is AnyObject.Type) {
                out[k.string] = given
            } else {
                out[k.string] = AnyValues.object(v)
            }
        }
        return out
    }
}
