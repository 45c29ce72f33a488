/// Writes binary property lists (`bplist00`) as CoreFoundation lays them
/// out: the top object first, then each container's items depth first (a
/// dictionary's keys, then its values), equal scalars written once,
/// integers in the fewest of 1, 2, 4 or 8 bytes (negative ones in 8, those
/// over 2^63-1 in 16), reals in 8 bytes, strings in ASCII when they are
/// ASCII and in big-endian UTF-16 otherwise, and offsets and references in
/// the fewest of 1, 2, 4 or 8 bytes. Dictionary keys are written sorted by
/// their UTF-8 bytes, so that the same value always gives the same bytes;
/// a container shared by several parents is written once.
package enum BinaryWriter {
    /// The value as a binary property list. Throws `.tooDeep` past
    /// ``PropertyList/maxNesting``; every other value is representable.
    /// Thread-safe.
    package static func write(_ value: PropertyList) throws(PrefsError) -> [UInt8] {
        guard value.depth < PropertyList.maxNesting else {
            throw PrefsError(.tooDeep, "nesting deeper than \(PropertyList.maxNesting) levels")
        }
        var w = Writer()
        _ = w.flatten(value)
        return w.encode()
    }

    /// A dictionary written as ``write(_:)`` writes it, given as its
    /// entries sorted by key (each key once), as a domain keeps them from
    /// one write to the next: nothing is sorted again. Thread-safe.
    package static func write(dictionaryEntries entries: [(key: PropertyList.Key, value: PropertyList)]) throws(PrefsError) -> [UInt8] {
        for e in entries where e.value.depth + 1 >= PropertyList.maxNesting {
            throw PrefsError(.tooDeep, "nesting deeper than \(PropertyList.maxNesting) levels")
        }
        var w = Writer()
        let top = w.append(PropertyList.emptyDictionary)
        w.objectCounts[top] = entries.count
        var refs = [Int]()
        refs.reserveCapacity(2 * entries.count)
        for (key, _) in entries { refs.append(w.flattenString(key, nil)) }
        for (_, item) in entries { refs.append(w.flatten(item)) }
        w.children[top] = refs
        return w.encode()
    }

    /// A scalar as it is uniqued: by kind and exact bytes (strings by
    /// their UTF-8, not by Unicode equivalence; reals and dates by bits).
    enum Unique: Hashable {
        case integer(Int128)
        case real(UInt64)
        case boolean(Bool)
        case date(UInt64)
        case data([UInt8])
        case uid(UInt32)
    }

    /// The objects to write, in order, and what is already among them.
    struct Writer {
        /// An object to write: a value, or a dictionary key (a string
        /// written without making a value for it).
        enum Object {
            case value(PropertyList)
            case key(PropertyList.Key)
        }
        var objects: [Object] = []
        /// For containers: the references of their items, in write order.
        var children: [[Int]] = []
        var scalars: [Unique: Int] = [:]
        /// Strings and keys already written, by their UTF-8 bytes (the
        /// key's own fast hash).
        var strings: [PropertyList.Key: Int] = [:]
        var containers: [ObjectIdentifier: Int] = [:]
        /// The item count of a dictionary written from entries (see
        /// ``write(dictionaryEntries:)``), by object index.
        var objectCounts: [Int: Int] = [:]

        /// Appends `v` (and what it holds) unless it is there already, and
        /// returns its index.
        mutating func flatten(_ v: PropertyList) -> Int {
            let unique: Unique
            switch v.value {
            case .string(let s): return flattenString(PropertyList.Key(s), v)
            case .integer(let i): unique = .integer(i)
            case .real(let d): unique = .real(d.bitPattern)
            case .boolean(let b): unique = .boolean(b)
            case .date(let t): unique = .date(t.bitPattern)
            case .data(let d): unique = .data(d)
            case .uid(let u): unique = .uid(u)
            case .array(let items):
                if let known = containers[ObjectIdentifier(v)] { return known }
                let index = append(v)
                containers[ObjectIdentifier(v)] = index
                var refs = [Int]()
                refs.reserveCapacity(items.count)
                for item in items { refs.append(flatten(item)) }
                children[index] = refs
                return index
            case .dictionary(let items):
                if let known = containers[ObjectIdentifier(v)] { return known }
                let index = append(v)
                containers[ObjectIdentifier(v)] = index
                let sorted = items.sorted { $0.key < $1.key }
                var refs = [Int]()
                refs.reserveCapacity(2 * sorted.count)
                for (key, _) in sorted { refs.append(flattenString(key, nil)) }
                for (_, item) in sorted { refs.append(flatten(item)) }
                children[index] = refs
                return index
            }
            if let known = scalars[unique] { return known }
            let index = append(v)
            scalars[unique] = index
            return index
        }

        /// The index of the string `key` (the value `v` holding it, or a
        /// dictionary key when `nil`), appended unless already there.
        mutating func flattenString(_ key: PropertyList.Key, _ v: PropertyList?) -> Int {
            if let known = strings[key] { return known }
            objects.append(v.map { .value($0) } ?? .key(key))
            children.append([])
            strings[key] = objects.count - 1
            return objects.count - 1
        }

        mutating func append(_ v: PropertyList) -> Int {
            objects.append(.value(v))
            children.append([])
            return objects.count - 1
        }

        /// A string object: ASCII when every byte is, else big-endian UTF-16.
        static func string(_ utf8: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
            if !utf8.contains(where: { $0 >= 0x80 }) {
                marker(0x50, utf8.count, &out)
                out.append(contentsOf: utf8)
            } else {
                let units = Array(String(decoding: utf8, as: UTF8.self).utf16)
                marker(0x60, units.count, &out)
                for u in units {
                    out.append(UInt8(u >> 8))
                    out.append(UInt8(u & 0xFF))
                }
            }
        }

        /// The file: header, objects, offset table, trailer.
        func encode() -> [UInt8] {
            var out = BinaryReader.magic
            out.reserveCapacity(8 + 12 * objects.count)
            let refSize = Self.width(UInt64(objects.count))
            let offsets = encodeObjects(&out, refSize: refSize, first: 0, shift: 0)
            let tableStart = out.count
            let offsetSize = Self.width(UInt64(tableStart))
            for o in offsets { Self.bigEndian(UInt64(o), offsetSize, &out) }
            out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
            Self.bigEndian(UInt64(objects.count), 8, &out)
            Self.bigEndian(0, 8, &out)
            Self.bigEndian(UInt64(tableStart), 8, &out)
            return out
        }

        /// Appends the objects to `out` and returns where each starts.
        /// Object `j` is numbered `first` when `j` is 0, else `j + shift`
        /// (the numbers a splice gives objects it appends to a file), and
        /// referred to in `refSize` bytes.
        func encodeObjects(_ out: inout [UInt8], refSize: Int, first: Int, shift: Int) -> [Int] {
            @inline(__always) func number(_ r: Int) -> UInt64 { UInt64(r == 0 ? first : r + shift) }
            var offsets = [Int]()
            offsets.reserveCapacity(objects.count)
            for (index, object) in objects.enumerated() {
                offsets.append(out.count)
                let v: PropertyList
                switch object {
                case .key(let k):
                    k.withBytes { Self.string($0, &out) }
                    continue
                case .value(let value): v = value
                }
                switch v.value {
                case .string(let s):
                    PropertyList.Key(s).withBytes { Self.string($0, &out) }
                case .integer(let i): Self.integer(i, &out)
                case .real(let d):
                    out.append(0x23)
                    Self.bigEndian(d.bitPattern, 8, &out)
                case .boolean(let b): out.append(b ? 0x09 : 0x08)
                case .date(let t):
                    out.append(0x33)
                    Self.bigEndian((t - BinaryReader.epoch2001).bitPattern, 8, &out)
                case .data(let d):
                    Self.marker(0x40, d.count, &out)
                    out.append(contentsOf: d)
                case .uid(let u):
                    // As CoreFoundation: the fewest of 1, 2 or 4 bytes.
                    let w = Self.width(UInt64(u))
                    out.append(0x80 | UInt8(w - 1))
                    Self.bigEndian(UInt64(u), w, &out)
                case .array(let items):
                    Self.marker(0xA0, items.count, &out)
                    for r in children[index] { Self.bigEndian(number(r), refSize, &out) }
                case .dictionary(let items):
                    Self.marker(0xD0, objectCounts[index] ?? items.count, &out)
                    for r in children[index] { Self.bigEndian(number(r), refSize, &out) }
                }
            }
            return offsets
        }

        /// The fewest of 1, 2, 4 or 8 bytes that hold `n`.
        static func width(_ n: UInt64) -> Int {
            if n <= 0xFF { return 1 }
            if n <= 0xFFFF { return 2 }
            if n <= 0xFFFF_FFFF { return 4 }
            return 8
        }

        /// The low `width` bytes of `v`, most significant first.
        static func bigEndian(_ v: UInt64, _ width: Int, _ out: inout [UInt8]) {
            for i in stride(from: width - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * i))) }
        }

        /// A marker with its count: in the low nibble below 15, else 0xF
        /// and an integer object.
        static func marker(_ high: UInt8, _ count: Int, _ out: inout [UInt8]) {
            if count < 15 {
                out.append(high | UInt8(count))
            } else {
                out.append(high | 0x0F)
                integer(Int128(count), &out)
            }
        }

        /// An integer object.
        static func integer(_ i: Int128, _ out: inout [UInt8]) {
            if i < 0 {
                out.append(0x13)
                bigEndian(UInt64(truncatingIfNeeded: i), 8, &out)
            } else if i > Int128(Int64.max) {
                out.append(0x14)
                bigEndian(0, 8, &out)
                bigEndian(UInt64(i), 8, &out)
            } else {
                let w = width(UInt64(i))
                out.append(0x10 | UInt8(w.trailingZeroBitCount))
                bigEndian(UInt64(i), w, &out)
            }
        }
    }
}

extension PropertyList {
    /// The value as a binary property list (`bplist00`), as
    /// `BinaryWriter` lays it out. Throws `.tooDeep` past
    /// ``maxNesting``. Thread-safe.
    public func binaryData() throws(PrefsError) -> [UInt8] {
        try BinaryWriter.write(self)
    }
}
