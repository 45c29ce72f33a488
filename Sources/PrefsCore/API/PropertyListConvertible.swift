/// A Swift type whose values a property list holds directly: `String`,
/// `Bool`, the integers, `Double`, `Float`, `[UInt8]` (data),
/// ``PropertyList`` itself, and optionals, arrays and `[String: V]`
/// dictionaries of them.
///
/// Any of these passes wherever ``Preferences`` takes a value, as a
/// variable as well as a literal:
///
/// ```swift
/// let name = "Ada"
/// prefs.set(name, forKey: "Name")
/// prefs.set(["a.txt", "b.txt"], forKey: "Recent")
/// ```
///
/// A type of your own conforms by giving ``propertyList`` and
/// ``init(propertyList:)``, without `Codable`, and is stored as what
/// ``propertyList`` returns:
///
/// ```swift
/// struct RGB: PropertyListConvertible, Sendable {
///     var r, g, b: Int
///     var propertyList: PropertyList? { .array([.integer(r), .integer(g), .integer(b)]) }
///     init?(propertyList plist: PropertyList) {
///         guard let c = [Int](propertyList: plist), c.count == 3 else { return nil }
///         (r, g, b) = (c[0], c[1], c[2])
///     }
/// }
/// ```
///
/// A collection stored as its elements conforms to
/// ``PropertyListElements`` instead. Conversions are pure functions of the
/// value: thread-safe.
public protocol PropertyListConvertible {
    /// The property list holding this value; `nil` for a value that holds
    /// nothing (an optional's `nil`, which removes a key when set).
    var propertyList: PropertyList? { get }
    /// The value `plist` holds, or `nil` when it holds another type (a
    /// string for an `Int`, an integer out of range).
    init?(propertyList plist: PropertyList)
}

extension PropertyList: PropertyListConvertible {
    /// Itself.
    public var propertyList: PropertyList? { self }
    /// `plist` itself (a new reference to the same immutable content).
    public convenience init?(propertyList plist: PropertyList) { self.init(plist.value) }
}

extension String: PropertyListConvertible {
    /// A string value.
    public var propertyList: PropertyList? { .string(self) }
    /// A string's text; `nil` for other kinds.
    public init?(propertyList plist: PropertyList) {
        guard let s = plist.stringValue else { return nil }
        self = s
    }
}

extension Bool: PropertyListConvertible {
    /// A boolean value.
    public var propertyList: PropertyList? { .boolean(self) }
    /// A boolean, or the integer 0 or 1 (what `defaults write -int` and C
    /// callers often store); `nil` otherwise.
    public init?(propertyList plist: PropertyList) {
        switch plist.value {
        case .boolean(let b): self = b
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
}

/// Integers convert from a property-list integer in their range, or from a
/// real with an integral value in range; anything else is `nil`.
extension PropertyListConvertible where Self: FixedWidthInteger {
    /// An integer value.
    public var propertyList: PropertyList? { .integer(self) }
    /// The integer `plist` holds, when it fits exactly.
    public init?(propertyList plist: PropertyList) {
        switch plist.value {
        case .integer(let i):
            guard let v = Self(exactly: i) else { return nil }
            self = v
        case .real(let d):
            guard d.isFinite, let v = Self(exactly: d) else { return nil }
            self = v
        default: return nil
        }
    }
}

extension Int: PropertyListConvertible {}
extension Int64: PropertyListConvertible {}
extension Int32: PropertyListConvertible {}
extension UInt64: PropertyListConvertible {}
extension UInt32: PropertyListConvertible {}
/// An element of `[UInt8]`, which as a whole is stored as data.
extension UInt8: PropertyListConvertible {}

extension Double: PropertyListConvertible {
    /// A real value.
    public var propertyList: PropertyList? { .real(self) }
    /// A real, or an integer that a `Double` holds exactly.
    public init?(propertyList plist: PropertyList) {
        switch plist.value {
        case .real(let d): self = d
        case .integer(let i):
            guard let d = Double(exactly: i) else { return nil }
            self = d
        default: return nil
        }
    }
}

extension Float: PropertyListConvertible {
    /// A real value (widened to `Double`).
    public var propertyList: PropertyList? { .real(Double(self)) }
    /// A real or an integer, rounded to the nearest `Float`.
    public init?(propertyList plist: PropertyList) {
        guard let d = Double(propertyList: plist) else { return nil }
        self = Float(d)
    }
}

extension Optional: PropertyListConvertible where Wrapped: PropertyListConvertible {
    /// The wrapped value's property list; `nil` for `nil`.
    public var propertyList: PropertyList? { self.flatMap { $0.propertyList } }
    /// The wrapped type's conversion; a value of another type is `nil`
    /// (the conversion fails) rather than `.some(nil)`.
    public init?(propertyList plist: PropertyList) {
        guard let w = Wrapped(propertyList: plist) else { return nil }
        self = .some(w)
    }
}

extension Array: PropertyListConvertible where Element: PropertyListConvertible {
    /// An array value; `[UInt8]` is data. `nil` elements are left out.
    public var propertyList: PropertyList? {
        if let bytes = self as? [UInt8] { return .data(bytes) }
        return .array(compactMap { $0.propertyList })
    }
    /// The elements of an array when every one converts; for `[UInt8]`,
    /// the bytes of data. `nil` otherwise.
    public init?(propertyList plist: PropertyList) {
        if Element.self == UInt8.self {
            guard let bytes = plist.dataValue else { return nil }
            self = bytes as! [Element]
            return
        }
        guard let items = plist.arrayValue else { return nil }
        var out = [Element]()
        out.reserveCapacity(items.count)
        for item in items {
            guard let e = Element(propertyList: item) else { return nil }
            out.append(e)
        }
        self = out
    }
}

extension Dictionary: PropertyListConvertible where Key == String, Value: PropertyListConvertible {
    /// A dictionary value; `nil` values are left out.
    public var propertyList: PropertyList? {
        var d = PropertyListDictionary(minimumCapacity: count)
        for (k, v) in self { if let p = v.propertyList { d[PropertyList.Key(k)] = p } }
        return .dictionary(d)
    }
    /// The entries of a dictionary when every value converts; `nil` otherwise.
    public init?(propertyList plist: PropertyList) {
        guard let items = plist.dictionaryValue else { return nil }
        var out = [String: Value](minimumCapacity: items.count)
        for (k, item) in items {
            guard let v = Value(propertyList: item) else { return nil }
            out[k.string] = v
        }
        self = out
    }
}

/// A collection stored as an array of its elements: conform with
/// ``init(propertyListElements:)`` and get ``PropertyListConvertible``'s
/// two members (each element converts as its own type does; a stored
/// array with an element of another type reads as `nil`).
///
/// ```swift
/// struct Tags: Sequence, PropertyListElements, Sendable {
///     var items: [String]
///     init(propertyListElements items: [String]) { self.items = items }
///     func makeIterator() -> [String].Iterator { items.makeIterator() }
/// }
/// ```
public protocol PropertyListElements: Sequence, PropertyListConvertible where Element: PropertyListConvertible {
    /// The collection of `elements`, in order.
    init(propertyListElements elements: [Element])
}

extension PropertyListElements {
    /// An array of the elements' property lists (`nil` elements left out).
    public var propertyList: PropertyList? { .array(compactMap { $0.propertyList }) }

    /// The collection of a stored array's elements, when every one converts.
    public init?(propertyList plist: PropertyList) {
        guard let items = [Element](propertyList: plist) else { return nil }
        self.init(propertyListElements: items)
    }
}
