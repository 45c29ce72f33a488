import CSystemShims
import Glibc
import Synchronization

/// An immutable property-list value: a string, integer, real, boolean, date,
/// data, UID, array or dictionary.
///
/// `PropertyList` is a class so that one value can be shared, without copying,
/// by the domain caches, by Swift callers and by C callers (a C
/// `PrefsPropertyListRef` is a pointer to one of these). It is immutable once
/// created and safe to share between threads.
///
/// Build values with the static constructors (`.string("x")`, `.integer(5)`)
/// or with literals:
///
/// ```swift
/// let v: PropertyList = ["name": "Ada", "sizes": [1, 2, 3], "on": true]
/// ```
///
/// and take them apart with ``value`` or the typed accessors.
public final class PropertyList: Sendable {
    /// The content of a property list.
    public enum Content: Sendable {
        /// Text (any Unicode, byte-exact).
        case string(String)
        /// An integer from -2^63 to 2^64-1. Values outside that range are
        /// never stored: the constructors clamp nothing, they refuse.
        case integer(Int128)
        /// A double, including NaN and the infinities.
        case real(Double)
        /// `true` or `false`.
        case boolean(Bool)
        /// Seconds since 1970-01-01T00:00:00Z, in the proleptic Gregorian
        /// calendar for every year (as macOS computes dates), any double.
        case date(Double)
        /// Bytes.
        case data([UInt8])
        /// A UID: the reference to an object of a keyed archive
        /// (`NSKeyedArchiver`), 0 to 2^32-1. Binary property lists hold it
        /// as an object of its own, XML ones as a dictionary whose only key
        /// is `CF$UID` with an integer value (as CoreFoundation writes it).
        case uid(UInt32)
        /// An ordered list.
        case array([PropertyList])
        /// A map from byte-exact string keys to values.
        case dictionary([Key: PropertyList])
    }

    /// The smallest integer a property list holds: -2^63.
    public static let minInteger = Int128(Int64.min)
    /// The largest integer a property list holds: 2^64-1.
    public static let maxInteger = Int128(UInt64.max)

    /// The deepest nesting of arrays and dictionaries that the XML reader
    /// accepts and the XML writer produces (the `<plist>` wrapper does not
    /// count).
    public static let maxNesting = 256

    /// The largest XML property list the library writes: 64 MiB. A value
    /// whose XML would be larger is refused as `.unrepresentable`, so that
    /// no value (even a small one whose containers share sub-values, each
    /// written out in full) can make a writer exhaust memory.
    public static let maxDocumentSize = 64 * 1024 * 1024

    /// The most text one `<string>`, `<key>` or `<data>` element may hold
    /// (libxml2's limit for a text node without `XML_PARSE_HUGE`): the
    /// reader refuses more, so the writer never writes more.
    public static let maxTextLength = 10_000_000

    /// The content.
    public let value: Content

    /// How deep this value nests: 0 for a scalar or an empty container,
    /// 1 + the deepest child otherwise. Stored so that depth checks are O(1).
    public var depth: Int { Int(storedDepth) }

    /// ``depth``, in the padding after ``value``'s tag: a 32-bit field there
    /// keeps the object at 56 bytes (a 64-byte heap block) where an `Int`
    /// made it 64 (an 80-byte block), a fifth of the memory of every scalar
    /// a file holds. No value nests 2^32 deep (each level is an object).
    private let storedDepth: UInt32

    /// A lower bound on the bytes of this value's XML: 8 for each value and
    /// each dictionary key (the shortest element, `<true/>` and its line
    /// break), plus the bytes of every string, key and data value, each
    /// shared sub-value counted every time it occurs, saturating at
    /// `Int.max`. Stored, so that a value too large for any document
    /// (``maxDocumentSize``) is recognised in O(1), however it was built.
    package let minimumXMLSize: Int

    /// A NUL-terminated copy of a string's UTF-8, made on first request from
    /// C and freed with the value (see ``stableCString()``).
    private let cString = Atomic<UInt>(0)

    /// Wraps a container whose ``depth`` and ``minimumXMLSize`` the caller
    /// computed while building it (a reader that already holds each child),
    /// saving a second pass over the items. The caller must compute them as
    /// ``init(_:)`` does.
    package init(container value: Content, depth: Int, minimumXMLSize: Int) {
        self.value = value
        self.storedDepth = UInt32(clamping: depth)
        self.minimumXMLSize = minimumXMLSize
    }

    /// Wraps `value`. Integers must lie in ``minInteger``...``maxInteger``.
    /// A date of -0.0 is stored as +0.0: no file format keeps the sign of a
    /// zero date, so every reader sees the same date.
    public init(_ value: Content) {
        if case .integer(let i) = value {
            precondition(
                i >= PropertyList.minInteger && i <= PropertyList.maxInteger,
                "property-list integers lie in -2^63...2^64-1")
        }
        if case .date(let t) = value, t == 0 { self.value = .date(0) } else { self.value = value }
        var depth = 0
        var size = 8
        /// Adds without overflow: sums of shared sub-values grow exponentially.
        func add(_ n: Int) { size = size > Int.max - n ? Int.max : size + n }
        switch value {
        case .string(let s): add(s.utf8.count)
        case .data(let d): add(d.count)
        case .array(let items):
            for item in items {
                depth = max(depth, item.depth + 1)
                add(item.minimumXMLSize)
            }
        case .dictionary(let items):
            for (key, item) in items {
                depth = max(depth, item.depth + 1)
                add(8 + key.string.utf8.count)
                add(item.minimumXMLSize)
            }
        default: break
        }
        self.storedDepth = UInt32(clamping: depth)
        self.minimumXMLSize = size
    }

    deinit {
        let p = cString.load(ordering: .acquiring)
        if p != 0 { UnsafeMutablePointer<CChar>(bitPattern: p)?.deallocate() }
        prefetchChildren()
    }

    /// Asks the cache for every child of a container before the children
    /// are released. Releasing is an atomic write to each child, and an
    /// atomic write waits for its cache line: without this, freeing a value
    /// larger than the caches waits for memory once per object, one object
    /// at a time. With it the lines arrive together.
    @inline(__always)
    private func prefetchChildren() {
        switch value {
        case .array(let items):
            var i = 0
            let count = items.count
            while i < count {
                prefetchObject(Unmanaged.passUnretained(items[i]).toOpaque())
                i &+= 1
            }
        case .dictionary(let items):
            prefetchStorage(of: items)
            var i = items.values.startIndex
            while i != items.values.endIndex {
                prefetchObject(Unmanaged.passUnretained(items.values[i]).toOpaque())
                items.values.formIndex(after: &i)
            }
        default: break
        }
    }

    /// Asks the cache for a dictionary's storage (its header, occupancy
    /// bitmap, keys and values, one block), up to 4 KiB of it: walking
    /// the values and then releasing every key and value reads all of it,
    /// and line by line each read would wait in turn.
    @inline(__always)
    private func prefetchStorage(of items: [Key: PropertyList]) {
        // A native dictionary is one reference to its storage; an empty
        // one shares a static storage, which needs nothing.
        guard MemoryLayout<[Key: PropertyList]>.size == MemoryLayout<UnsafeRawPointer>.size, !items.isEmpty else { return }
        let storage = unsafeBitCast(items, to: UnsafeRawPointer.self)
        // A table of 2^k buckets holds 3/4 of them; past 128 entries the
        // storage is over 4 KiB.
        let capacity = items.capacity
        var bytes = 4096
        if capacity < 128 {
            var buckets = 1
            while buckets * 3 / 4 < capacity { buckets &<<= 1 }
            let bucketSize = MemoryLayout<Key>.stride + MemoryLayout<PropertyList>.stride
            bytes = Swift.min(bytes, 64 + (buckets + 63) / 64 * 8 + buckets * bucketSize)
        }
        var at = 64
        while at < bytes {
            prefs_prefetch_for_write(storage + at)
            at &+= 64
        }
    }

    /// The lines around a child object: its own 56 bytes (header, content,
    /// and the fields `deinit` reads) start anywhere on a 16-byte boundary,
    /// and the binary reader puts a string's storage just before the object
    /// and a container's buffer just after it.
    @inline(__always)
    private func prefetchObject(_ object: UnsafeRawPointer) {
        prefs_prefetch_for_write(object - 128)
        prefs_prefetch_for_write(object - 64)
        prefs_prefetch_for_write(object)
        prefs_prefetch_for_write(object + 64)
        prefs_prefetch_for_write(object + 128)
    }

    // MARK: Constructors that read like enum cases

    /// A string value.
    public static func string(_ s: String) -> PropertyList { PropertyList(.string(s)) }
    /// An integer value. Traps outside -2^63...2^64-1: check the range first
    /// when the number comes from outside.
    public static func integer<T: BinaryInteger>(_ i: T) -> PropertyList {
        guard let v = Int128(exactly: i), v >= minInteger, v <= maxInteger else {
            preconditionFailure("property-list integers lie in -2^63...2^64-1")
        }
        return PropertyList(.integer(v))
    }
    /// A real value.
    public static func real(_ d: Double) -> PropertyList { PropertyList(.real(d)) }
    /// A boolean value.
    public static func boolean(_ b: Bool) -> PropertyList { b ? trueValue : falseValue }
    /// A date value, seconds since 1970-01-01T00:00:00Z (-0.0 becomes +0.0).
    public static func date(_ t: Double) -> PropertyList { PropertyList(.date(t)) }
    /// A data value.
    public static func data(_ bytes: [UInt8]) -> PropertyList { PropertyList(.data(bytes)) }
    /// A UID value (a keyed archive's object reference).
    public static func uid(_ value: UInt32) -> PropertyList { PropertyList(.uid(value)) }
    /// An array value.
    public static func array(_ items: [PropertyList]) -> PropertyList { PropertyList(.array(items)) }
    /// A dictionary value.
    public static func dictionary(_ items: [Key: PropertyList]) -> PropertyList { PropertyList(.dictionary(items)) }
    /// A dictionary value from Swift string keys.
    public static func dictionary(_ items: [String: PropertyList]) -> PropertyList {
        var d = [Key: PropertyList](minimumCapacity: items.count)
        for (k, v) in items { d[Key(k)] = v }
        return PropertyList(.dictionary(d))
    }

    /// The shared `true` value.
    public static let trueValue = PropertyList(.boolean(true))
    /// The shared `false` value.
    public static let falseValue = PropertyList(.boolean(false))
    /// The shared empty dictionary.
    public static let emptyDictionary = PropertyList(.dictionary([:]))

    // MARK: Typed access

    /// The string, or `nil` for other kinds.
    public var stringValue: String? { if case .string(let s) = value { return s }; return nil }
    /// The integer, or `nil` for other kinds.
    public var integerValue: Int128? { if case .integer(let i) = value { return i }; return nil }
    /// The real, or `nil` for other kinds.
    public var realValue: Double? { if case .real(let d) = value { return d }; return nil }
    /// The boolean, or `nil` for other kinds.
    public var booleanValue: Bool? { if case .boolean(let b) = value { return b }; return nil }
    /// The date as seconds since 1970, or `nil` for other kinds.
    public var dateValue: Double? { if case .date(let d) = value { return d }; return nil }
    /// The bytes, or `nil` for other kinds.
    public var dataValue: [UInt8]? { if case .data(let d) = value { return d }; return nil }
    /// The UID, or `nil` for other kinds.
    public var uidValue: UInt32? { if case .uid(let u) = value { return u }; return nil }
    /// The elements, or `nil` for other kinds.
    public var arrayValue: [PropertyList]? { if case .array(let a) = value { return a }; return nil }
    /// The entries, or `nil` for other kinds.
    public var dictionaryValue: [Key: PropertyList]? { if case .dictionary(let d) = value { return d }; return nil }

    /// The value for `key` in a dictionary; `nil` when absent or not a dictionary.
    public subscript(key: String) -> PropertyList? {
        if case .dictionary(let d) = value { return d[Key(key)] }
        return nil
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> PropertyList? {
        if case .array(let a) = value, a.indices.contains(index) { return a[index] }
        return nil
    }

    /// The kind of value, for callers that only need to branch on it.
    public var kind: Kind {
        switch value {
        case .string: .string
        case .integer: .integer
        case .real: .real
        case .boolean: .boolean
        case .date: .date
        case .data: .data
        case .uid: .uid
        case .array: .array
        case .dictionary: .dictionary
        }
    }

    /// The kinds of property-list values.
    public enum Kind: Sendable, CaseIterable {
        case string, integer, real, boolean, date, data, array, dictionary
        /// A keyed archive's object reference (``Content/uid(_:)``).
        case uid
    }

    /// A NUL-terminated UTF-8 copy of a string value that lives as long as
    /// this value (made once, on first call); `nil` for other kinds.
    /// Thread-safe.
    package func stableCString() -> UnsafePointer<CChar>? {
        guard case .string(let s) = value else { return nil }
        let existing = cString.load(ordering: .acquiring)
        if existing != 0 { return UnsafePointer(bitPattern: existing) }
        let count = s.utf8.count
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        _ = UnsafeMutableBufferPointer(start: buffer, count: count)
            .withMemoryRebound(to: UInt8.self) { $0.initialize(from: s.utf8) }
        buffer[count] = 0
        let mine = UInt(bitPattern: buffer)
        let (exchanged, winner) = cString.compareExchange(expected: 0, desired: mine, ordering: .acquiringAndReleasing)
        if exchanged { return UnsafePointer(buffer) }
        buffer.deallocate()
        return UnsafePointer(bitPattern: winner)
    }
}

extension PropertyList {
    /// A dictionary key: a string compared and hashed by its exact UTF-8
    /// bytes, with no Unicode normalisation (`"é"` and `"e\u{301}"` are two
    /// keys), ordered by those bytes.
    public struct Key: Hashable, Comparable, @unchecked Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        private enum Storage {
            case owned(String)
            /// Bytes borrowed for the length of one lookup (never stored).
            case borrowed(UnsafeRawBufferPointer)
        }
        private let storage: Storage

        /// A key for `string`.
        public init(_ string: String) { storage = .owned(string) }
        /// A key from a string literal.
        public init(stringLiteral value: String) { storage = .owned(value) }
        /// A key over `bytes` for one lookup, without copying them. The key
        /// must not outlive the bytes nor be stored in a dictionary.
        package init(borrowing bytes: UnsafeRawBufferPointer) { storage = .borrowed(bytes) }

        /// This key owning its text: a borrowed key's bytes copied into a
        /// string, so that it may be stored.
        package var owned: Key {
            if case .borrowed(let b) = storage { return Key(String(decoding: b, as: UTF8.self)) }
            return self
        }

        /// The key's text.
        public var string: String {
            switch storage {
            case .owned(let s): return s
            case .borrowed(let b): return String(decoding: b, as: UTF8.self)
            }
        }

        @inline(__always)
        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch storage {
            case .owned(let s):
                // Native strings expose their UTF-8 in place; only bridged
                // or lazily decoded ones need the copy `withUTF8` makes.
                if let r = s.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return r }
                var copy = s
                return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            case .borrowed(let b): return body(b)
            }
        }

        public static func == (a: Key, b: Key) -> Bool {
            if case .owned(let x) = a.storage, case .owned(let y) = b.storage {
                // The same representation (an identical small string, or the
                // same buffer) holds the same bytes: the usual case of a
                // dictionary's hit, decided without touching the bytes.
                if MemoryLayout<String>.size == 16,
                    unsafeBitCast(x, to: (UInt64, UInt64).self) == unsafeBitCast(y, to: (UInt64, UInt64).self)
                {
                    return true
                }
                if x.utf8.count != y.utf8.count { return false }
            }
            // A lookup's borrowed bytes against a stored key, without closures.
            if case .borrowed(let p) = a.storage, case .owned(let y) = b.storage { return equal(p, y) }
            if case .owned(let x) = a.storage, case .borrowed(let p) = b.storage { return equal(p, x) }
            return a.withBytes { pa in
                b.withBytes { pb in
                    pa.count == pb.count && (pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0)
                }
            }
        }
        @inline(__always)
        private static func equal(_ p: UnsafeRawBufferPointer, _ s: String) -> Bool {
            guard p.count == s.utf8.count else { return false }
            if p.isEmpty { return true }
            return s.utf8.withContiguousStorageIfAvailable { memcmp(p.baseAddress!, $0.baseAddress!, p.count) == 0 }
                ?? p.elementsEqual(s.utf8)
        }

        public static func < (a: Key, b: Key) -> Bool {
            a.withBytes { pa in b.withBytes { pb in pa.lexicographicallyPrecedes(pb) } }
        }
        public func hash(into hasher: inout Hasher) {
            withBytes { hasher.combine(bytes: $0) }
        }
        /// What dictionaries use instead of ``hash(into:)``: a seeded
        /// multiply-and-rotate hash over 8 bytes at a time, several times
        /// cheaper than the SipHash of `Hasher` for the short keys of
        /// preferences, which are looked up on every read.
        public func _rawHashValue(seed: Int) -> Int {
            // A lookup's borrowed bytes are hashed where they are.
            if case .borrowed(let b) = storage { return Self.hash(b, seed: seed) }
            return withBytes { Self.hash($0, seed: seed) }
        }

        @inline(__always)
        private static func hash(_ b: UnsafeRawBufferPointer, seed: Int) -> Int {
            var h = UInt64(truncatingIfNeeded: seed) ^ (UInt64(b.count) &* 0x9E37_79B9_7F4A_7C15)
            var i = 0
            while i + 8 <= b.count {
                h = (h ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                h = (h << 31) | (h >> 33)
                i += 8
            }
            if i < b.count {
                var tail: UInt64 = 0
                while i < b.count { tail = (tail << 8) | UInt64(b[i]); i += 1 }
                h = (h ^ tail) &* 0xBF58_476D_1CE4_E5B9
            }
            // Final mix, so that every input bit reaches the low bits
            // the table indexes by.
            h ^= h >> 30
            h = h &* 0x94D0_49BB_1331_11EB
            h ^= h >> 31
            return Int(truncatingIfNeeded: h)

        }
        public var description: String { string }
    }
}

/// Byte-wise equality of two strings' UTF-8 (no normalisation).
@inline(__always)
func utf8Equal(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in pa.count == pb.count && (pa.count == 0 || memcmpEqual(pa, pb)) } }
}

@inline(__always)
private func memcmpEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
}

// MARK: Equality

extension PropertyList: Equatable {
    /// Deep equality: strings and keys byte by byte, integer 1 and real 1.0
    /// differ, NaN equals NaN, 0.0 equals -0.0.
    public static func == (a: PropertyList, b: PropertyList) -> Bool {
        if a === b { return true }
        switch (a.value, b.value) {
        case (.string(let x), .string(let y)): return utf8Equal(x, y)
        case (.integer(let x), .integer(let y)): return x == y
        case (.real(let x), .real(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.data(let x), .data(let y)): return x == y
        case (.uid(let x), .uid(let y)): return x == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0 == $1 }
        case (.dictionary(let x), .dictionary(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x {
                guard let w = y[k], v == w else { return false }
            }
            return true
        default: return false
        }
    }
}

// MARK: Literals

extension PropertyList: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public convenience init(stringLiteral value: String) { self.init(.string(value)) }
    public convenience init(integerLiteral value: Int64) { self.init(.integer(Int128(value))) }
    public convenience init(floatLiteral value: Double) { self.init(.real(value)) }
    public convenience init(booleanLiteral value: Bool) { self.init(.boolean(value)) }
    public convenience init(arrayLiteral elements: PropertyList...) { self.init(.array(elements)) }
    public convenience init(dictionaryLiteral elements: (Key, PropertyList)...) {
        var d = [Key: PropertyList](minimumCapacity: elements.count)
        for (k, v) in elements { d[k] = v }
        self.init(.dictionary(d))
    }
}

extension PropertyList: CustomStringConvertible {
    /// The old-style (OpenStep) text form, as `prefs read` prints it.
    public var description: String { OldStylePlist.format(self) }
}

/// The entries of a dictionary value, with byte-exact keys.
public typealias PropertyListDictionary = [PropertyList.Key: PropertyList]

extension Dictionary where Key == PropertyList.Key, Value == PropertyList {
    /// The entries in key order (by UTF-8 bytes), as writers list them.
    /// The keys' bytes are copied once into one buffer and positions are
    /// sorted by comparing that buffer, so the sort itself moves integers
    /// and touches no reference counts.
    package func sortedByKey() -> [(key: PropertyList.Key, value: PropertyList)] {
        let pairs = Array(self)
        guard pairs.count > 1 else { return pairs }
        var bytes = [UInt8]()
        var bounds = [Int]()
        bounds.reserveCapacity(pairs.count + 1)
        for pair in pairs {
            bounds.append(bytes.count)
            pair.key.withBytes { bytes.append(contentsOf: $0) }
        }
        bounds.append(bytes.count)
        var order = Array(pairs.indices)
        bytes.withUnsafeBytes { b in
            bounds.withUnsafeBufferPointer { at in
                order.sort { i, j in
                    let li = at[i + 1] - at[i], lj = at[j + 1] - at[j]
                    let common = Swift.min(li, lj)
                    let c = common == 0 ? 0 : memcmp(b.baseAddress! + at[i], b.baseAddress! + at[j], common)
                    return c != 0 ? c < 0 : li < lj
                }
            }
        }
        return order.map { pairs[$0] }
    }
}
