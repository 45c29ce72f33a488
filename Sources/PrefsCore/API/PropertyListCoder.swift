// An Encoder and a Decoder over PropertyList, so that Codable types are
// stored as native property-list values: a struct becomes a dictionary, an
// array an array, a string a string (never JSON text or an archive).

/// Encodes an `Encodable` value as a ``PropertyList``: keyed containers
/// become dictionaries, unkeyed ones arrays, single values scalars; a
/// ``PropertyListConvertible`` value met anywhere (a `[UInt8]`, a
/// `PropertyList`) is stored as it converts, so `[UInt8]` is data.
///
/// An optional's `nil` is left out of its dictionary (property lists have
/// no null); an explicit `encodeNil` is refused. A value type; thread-safe.
///
/// ```swift
/// struct Window: Codable { var width = 800, height = 600 }
/// let plist = try PropertyListValueEncoder().encode(Window())  // {height = 600; width = 800;}
/// ```
public struct PropertyListValueEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The property list of `value`. Throws `EncodingError.invalidValue`
    /// for what a property list cannot hold (a top-level `nil`, an
    /// explicit null, an integer outside -2^63...2^64-1).
    public func encode<T: Encodable>(_ value: T) throws -> PropertyList {
        let slot = Slot()
        try PlistEncoding.box(value, into: slot, path: [])
        guard let plist = slot.finish() else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "the value encodes nothing"))
        }
        return plist
    }
}

/// Decodes a `Decodable` value from a ``PropertyList``, the reverse of
/// ``PropertyListValueEncoder``. Scalars convert as
/// ``PropertyListConvertible`` says (an `Int` from an integer or an
/// integral real, a `Double` from a real or an integer); anything else
/// throws `DecodingError`. A value type; thread-safe.
public struct PropertyListValueDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// The `T` that `plist` holds.
    public func decode<T: Decodable>(_ type: T.Type, from plist: PropertyList) throws -> T {
        try PlistDecoding.unbox(type, from: plist, path: [])
    }
}

// MARK: Encoding

/// Where one encoded value goes; filled in as containers are used.
private final class Slot {
    enum Content {
        case empty
        case leaf(PropertyList)
        case array([Slot])
        case dictionary([String: Slot])
    }
    var content = Content.empty

    func finish() -> PropertyList? {
        switch content {
        case .empty: return nil
        case .leaf(let p): return p
        case .array(let items): return .array(items.compactMap { $0.finish() })
        case .dictionary(let items):
            var d = PropertyListDictionary(minimumCapacity: items.count)
            for (k, v) in items { if let p = v.finish() { d[PropertyList.Key(k)] = p } }
            return .dictionary(d)
        }
    }
}

/// A coding key for dictionary entries and array positions.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

private enum PlistEncoding {
    static func box<T: Encodable>(_ value: T, into slot: Slot, path: [any CodingKey]) throws {
        if let direct = value as? any PropertyListConvertible {
            if let p = direct.propertyList { slot.content = .leaf(p) }
            return
        }
        try value.encode(to: PlistEncoder(slot: slot, codingPath: path))
    }

    static func integer<I: BinaryInteger>(_ v: I, _ path: [any CodingKey]) throws -> PropertyList {
        guard let i = Int128(exactly: v), i >= PropertyList.minInteger, i <= PropertyList.maxInteger else {
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "integer outside -2^63...2^64-1"))
        }
        return PropertyList(.integer(i))
    }
}

private struct PlistEncoder: Encoder {
    let slot: Slot
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .dictionary = slot.content {} else { slot.content = .dictionary([:]) }
        return KeyedEncodingContainer(KeyedPlistEncoder<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return UnkeyedPlistEncoder(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SinglePlistEncoder(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedPlistEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    var codingPath: [any CodingKey]

    private func child(_ key: any CodingKey) -> Slot {
        let s = Slot()
        if case .dictionary(var d) = slot.content {
            d[key.stringValue] = s
            slot.content = .dictionary(d)
        }
        return s
    }

    mutating func encodeNil(forKey key: Key) throws {
        throw EncodingError.invalidValue(
            Optional<Int>.none as Any, .init(codingPath: codingPath + [key], debugDescription: "property lists have no null"))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try PlistEncoding.box(value, into: child(key), path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        PlistEncoder(slot: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        PlistEncoder(slot: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        PlistEncoder(slot: child(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedPlistEncoder: UnkeyedEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey]
    var count: Int {
        if case .array(let a) = slot.content { return a.count }
        return 0
    }

    private func next() -> Slot {
        let s = Slot()
        if case .array(var a) = slot.content {
            a.append(s)
            slot.content = .array(a)
        }
        return s
    }

    mutating func encodeNil() throws {
        throw EncodingError.invalidValue(
            Optional<Int>.none as Any, .init(codingPath: codingPath, debugDescription: "property lists have no null"))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [AnyKey(intValue: count)]
        try PlistEncoding.box(value, into: next(), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [AnyKey(intValue: count)]
        return PlistEncoder(slot: next(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [AnyKey(intValue: count)]
        return PlistEncoder(slot: next(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [AnyKey(intValue: count)]
        return PlistEncoder(slot: next(), codingPath: path)
    }
}

private struct SinglePlistEncoder: SingleValueEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        throw EncodingError.invalidValue(
            Optional<Int>.none as Any, .init(codingPath: codingPath, debugDescription: "property lists have no null"))
    }
    mutating func encode(_ value: Bool) throws { slot.content = .leaf(.boolean(value)) }
    mutating func encode(_ value: String) throws { slot.content = .leaf(.string(value)) }
    mutating func encode(_ value: Double) throws { slot.content = .leaf(.real(value)) }
    mutating func encode(_ value: Float) throws { slot.content = .leaf(.real(Double(value))) }
    mutating func encode(_ value: Int) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: Int8) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: Int16) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: Int32) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: Int64) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: UInt) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: UInt8) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: UInt16) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: UInt32) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode(_ value: UInt64) throws { slot.content = .leaf(try PlistEncoding.integer(value, codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try PlistEncoding.box(value, into: slot, path: codingPath) }
}

// MARK: Decoding

private enum PlistDecoding {
    static func unbox<T: Decodable>(_ type: T.Type, from plist: PropertyList, path: [any CodingKey]) throws -> T {
        if let direct = type as? any PropertyListConvertible.Type {
            guard let v = direct.init(propertyList: plist) else { throw mismatch(type, plist, path) }
            return v as! T
        }
        return try T(from: PlistDecoder(plist: plist, codingPath: path))
    }

    static func mismatch(_ type: Any.Type, _ plist: PropertyList, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(plist.kind)"))
    }

    static func scalar<T: PropertyListConvertible>(_ type: T.Type, _ plist: PropertyList, _ path: [any CodingKey]) throws -> T {
        guard let v = T(propertyList: plist) else { throw mismatch(type, plist, path) }
        return v
    }
}

private struct PlistDecoder: Decoder {
    let plist: PropertyList
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let d = plist.dictionaryValue else {
            throw PlistDecoding.mismatch([String: PropertyList].self, plist, codingPath)
        }
        return KeyedDecodingContainer(KeyedPlistDecoder<Key>(entries: d, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let a = plist.arrayValue else { throw PlistDecoding.mismatch([PropertyList].self, plist, codingPath) }
        return UnkeyedPlistDecoder(items: a, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SinglePlistDecoder(plist: plist, codingPath: codingPath)
    }
}

private struct KeyedPlistDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: PropertyListDictionary
    var codingPath: [any CodingKey]
    var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0.string) } }

    func contains(_ key: Key) -> Bool { entries[PropertyList.Key(key.stringValue)] != nil }

    private func value(_ key: Key) throws -> PropertyList {
        guard let v = entries[PropertyList.Key(key.stringValue)] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try PlistDecoding.unbox(type, from: value(key), path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try PlistDecoder(plist: value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try PlistDecoder(plist: value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        PlistDecoder(plist: try value(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedPlistDecoder: UnkeyedDecodingContainer {
    let items: [PropertyList]
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [PropertyList], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    private mutating func next() throws -> (PropertyList, [any CodingKey]) {
        let path = codingPath + [AnyKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, path) = try next()
        return try PlistDecoding.unbox(type, from: v, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, path) = try next()
        return try PlistDecoder(plist: v, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, path) = try next()
        return try PlistDecoder(plist: v, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, path) = try next()
        return PlistDecoder(plist: v, codingPath: path)
    }
}

private struct SinglePlistDecoder: SingleValueDecodingContainer {
    let plist: PropertyList
    var codingPath: [any CodingKey]

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: String.Type) throws -> String { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try PlistDecoding.scalar(type, plist, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try PlistDecoding.unbox(type, from: plist, path: codingPath) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard let i = plist.integerValue, let v = I(exactly: i) else { throw PlistDecoding.mismatch(type, plist, codingPath) }
        return v
    }
}

// MARK: PropertyList as Codable

extension PropertyList: Codable {
    /// Encodes the value's structure: dictionaries keyed, arrays unkeyed,
    /// scalars as single values (a date as its seconds since 1970, data as
    /// an array of bytes, a UID as its number, outside ``PropertyListValueEncoder``, which keeps
    /// every value as it is).
    public func encode(to encoder: any Encoder) throws {
        switch value {
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            if let v = Int64(exactly: i) { try c.encode(v) } else { try c.encode(UInt64(i)) }
        case .real(let d), .date(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .boolean(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .data(let bytes):
            var c = encoder.unkeyedContainer()
            for b in bytes { try c.encode(b) }
        case .uid(let u):
            var c = encoder.singleValueContainer()
            try c.encode(u)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .dictionary(let items):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (k, v) in items { try c.encode(v, forKey: AnyKey(stringValue: k.string)) }
        }
    }

    /// Decodes whatever structure the decoder holds: a dictionary, an
    /// array, or a boolean, integer, real or string.
    public convenience init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var d = PropertyListDictionary()
            for k in keyed.allKeys { d[PropertyList.Key(k.stringValue)] = try keyed.decode(PropertyList.self, forKey: k) }
            self.init(.dictionary(d))
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [PropertyList] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(PropertyList.self)) }
            self.init(.array(items))
            return
        }
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            self.init(.boolean(b))
        } else if let i = try? c.decode(Int64.self) {
            self.init(.integer(Int128(i)))
        } else if let u = try? c.decode(UInt64.self) {
            self.init(.integer(Int128(u)))
        } else if let d = try? c.decode(Double.self) {
            self.init(.real(d))
        } else {
            self.init(.string(try c.decode(String.self)))
        }
    }
}
