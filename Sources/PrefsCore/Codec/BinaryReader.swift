import CSystemShims
import Glibc

/// Reads binary property lists (`bplist00`), the format macOS writes
/// preference files in by default.
///
/// The layout: the 8-byte header, the objects, a table of object offsets,
/// and a 32-byte trailer naming the widths of offsets and object
/// references, the number of objects, the top object and where the offset
/// table starts. Everything read from the file is checked before it is
/// used: the trailer must describe the file exactly, every offset and
/// every count is bounded by the bytes that are there before anything is
/// allocated, arithmetic on them never overflows, an object that refers
/// back to one being decoded (a cycle) is refused, and an object referred
/// to many times is decoded once and shared, with a cap on the size the
/// value would take written out in full (``maxExpandedSize(forFileSize:)``).
package enum BinaryReader {
    /// The 8 bytes a binary property list starts with (the writer's; the
    /// reader takes any eighth byte, as CoreFoundation does).
    package static let magic: [UInt8] = Array("bplist00".utf8)

    /// Seconds from 1970-01-01 to 2001-01-01, the epoch of binary dates.
    package static let epoch2001: Double = 978_307_200

    /// Whether `bytes` start like a binary property list (`bplist`), so
    /// that the binary reader, not a text reader, reports what is wrong.
    package static func looksBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 6 && bytes[0] == 0x62 && bytes[1] == 0x70 && bytes[2] == 0x6C && bytes[3] == 0x69
            && bytes[4] == 0x73 && bytes[5] == 0x74
    }

    /// The most a value read from a file of `size` bytes may expand to, in
    /// ``PropertyList/minimumXMLSize`` (every shared sub-value counted each
    /// time it occurs): the larger of the biggest XML document the library
    /// writes and 16 times the file. A few hundred bytes of shared
    /// references cannot become gigabytes for the code that walks the
    /// value.
    package static func maxExpandedSize(forFileSize size: Int) -> Int {
        let (scaled, overflow) = size.multipliedReportingOverflow(by: 16)
        return max(PropertyList.maxDocumentSize, overflow ? Int.max : scaled)
    }

    /// Parses a binary property list. Throws `.malformed` naming the
    /// problem (and the object, by its index) for anything that is not
    /// exactly a `bplist00` file, and `.tooDeep` past
    /// ``PropertyList/maxNesting``. Thread-safe.
    package static func read(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        let decoder = try Decoder(bytes)
        defer { decoder.deallocate() }
        return try decoder.decode(decoder.top, level: 0)
    }

    /// The 32-byte trailer of a file of at least 41 bytes (the caller
    /// checked), checked as a reader needs it: widths of 1 to 8 bytes
    /// that can name every object and reach the offset table, a top object
    /// among the objects, and an offset table inside the file that ends
    /// where the trailer starts.
    struct Trailer {
        let offsetSize: Int
        let refSize: Int
        let objects: Int
        let top: Int
        /// Where the offset table starts (the object area ends).
        let table: Int

        init(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) {
            let t = bytes.count - 32
            offsetSize = Int(bytes[t + 6])
            refSize = Int(bytes[t + 7])
            guard (1...8).contains(offsetSize) else { throw Decoder.fail("offsets of \(offsetSize) bytes") }
            guard (1...8).contains(refSize) else { throw Decoder.fail("object references of \(refSize) bytes") }
            let count = Decoder.uint(bytes, t + 8, 8)
            let topObject = Decoder.uint(bytes, t + 16, 8)
            let table = Decoder.uint(bytes, t + 24, 8)
            guard count >= 1, count <= UInt64(t) else { throw Decoder.fail("\(count) objects in \(bytes.count) bytes") }
            guard topObject < count else { throw Decoder.fail("the top object \(topObject) is not one of the \(count) objects") }
            guard table >= 9, table < UInt64(t) else { throw Decoder.fail("the offset table starts at \(table), outside the file") }
            // Widths must be able to name every object and offset.
            if refSize < 8 && count >> UInt64(8 * refSize) != 0 {
                throw Decoder.fail("\(count) objects cannot be named by references of \(refSize) bytes")
            }
            if offsetSize < 8 && table >> UInt64(8 * offsetSize) != 0 {
                throw Decoder.fail("offsets of \(offsetSize) bytes cannot reach the offset table at \(table)")
            }
            let (tableSize, o1) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
            let (tableEnd, o2) = table.addingReportingOverflow(tableSize)
            guard !o1, !o2, tableEnd == UInt64(t) else {
                throw Decoder.fail(
                    "the offset table (\(count) offsets of \(offsetSize) bytes at \(table)) does not end where the trailer starts")
            }
            objects = Int(count)
            top = Int(topObject)
            self.table = Int(table)
        }
    }

    /// The state of one parse: the checked trailer, and what is known of
    /// each object.
    struct Decoder {
        let bytes: UnsafeRawBufferPointer
        /// `bytes.baseAddress`: the file is never empty here.
        let base: UnsafeRawPointer
        let offsetSize: Int
        let refSize: Int
        let objectCount: Int
        let top: Int
        let tableStart: Int
        let limit: Int
        /// Each object once decoded, unretained: no reference counting
        /// on the hot path and nothing to release at the end. Every value
        /// in it stays alive until the parse ends, because it is held by
        /// a container under construction (on the stack of `decode`), by
        /// the result, or by ``keepAlive``; after an error nothing reads it.
        let decoded: UnsafeMutablePointer<Unmanaged<PropertyList>?>
        /// Whether each object is being decoded now (on the current path).
        let active: UnsafeMutablePointer<Bool>
        /// For a file whose offsets do not increase, the index each object
        /// is decoded and remembered under: the first index with the same
        /// offset. `nil` when the offsets increase (what every writer
        /// produces). The memo is kept by object bytes, as CoreFoundation
        /// keeps it by offset: otherwise n references to n indexes over one
        /// container of n items would decode n^2 values from a file of 3n
        /// bytes.
        let canonicalIndexes: UnsafeMutablePointer<UInt32>?
        /// Whether objects are remembered by their offset (one slot per
        /// byte of the object area) rather than by index: for a file whose
        /// offsets do not increase and whose offset table is long next to
        /// its objects (many entries naming few objects). Per-index state
        /// would then cost memory in proportion to what the table declares,
        /// not to what the file holds (a 64 MiB table naming one boolean
        /// asked for about 900 MB).
        let byOffset: Bool
        /// Values the result may not hold but ``decoded`` names: strings
        /// decoded only as dictionary keys, and values a later duplicate
        /// key replaced. Released in ``deallocate()``.
        let keepAlive: UnsafeMutablePointer<[PropertyList]>

        init(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) {
            self.bytes = bytes
            // Header, at least one object byte, trailer.
            guard bytes.count >= 8 + 1 + 32 else { throw Self.fail("a binary property list of \(bytes.count) bytes is too short") }
            // CoreFoundation takes any "bplist0?" header (the layout of
            // version 00); "bplist1?" files are a different format.
            for i in 0..<7 where bytes[i] != BinaryReader.magic[i] {
                throw Self.fail("not a binary property list of version 0x (bplist0?)")
            }
            base = bytes.baseAddress!
            let trailer = try Trailer(bytes)
            offsetSize = trailer.offsetSize
            refSize = trailer.refSize
            objectCount = trailer.objects
            top = trailer.top
            tableStart = trailer.table
            // The memo's slots: one per object when the offsets increase
            // (then there are no more objects than bytes); otherwise the
            // cheaper of one per byte of the object area (9 bytes each) and
            // one per index plus the sorted table (about 30 bytes each), so
            // that a read's memory stays a small multiple of the file's size.
            let area = tableStart - 8
            if Self.offsetsIncrease(base, tableStart, objectCount, offsetSize) {
                byOffset = false
                canonicalIndexes = nil
            } else if area / 3 <= objectCount {
                byOffset = true
                canonicalIndexes = nil
            } else {
                byOffset = false
                canonicalIndexes = try Self.canonicalIndexes(base, tableStart, objectCount, offsetSize)
            }
            let slots = byOffset ? area : objectCount
            limit = BinaryReader.maxExpandedSize(forFileSize: bytes.count)
            decoded = .allocate(capacity: slots)
            decoded.initialize(repeating: nil, count: slots)
            active = .allocate(capacity: slots)
            active.initialize(repeating: false, count: slots)
            keepAlive = .allocate(capacity: 1)
            keepAlive.initialize(to: [])
        }

        /// Whether the offsets of the table at `table` increase, as every
        /// writer lays them out.
        static func offsetsIncrease(_ base: UnsafeRawPointer, _ table: Int, _ count: Int, _ width: Int) -> Bool {
            var previous = entry(base, table, 0, width)
            var i = 1
            while i < count {
                let o = entry(base, table, i, width)
                if o <= previous { return false }
                previous = o
                i += 1
            }
            return true
        }

        /// The first index with the same offset, for every index of the
        /// offset table at `table`; `nil` when the offsets increase, which
        /// one pass finds without allocating. Otherwise (offset, index)
        /// pairs are sorted: 8 bytes an object while sorting, 4 kept.
        static func canonicalIndexes(
            _ base: UnsafeRawPointer, _ table: Int, _ count: Int, _ width: Int
        ) throws(PrefsError)
            -> UnsafeMutablePointer<UInt32>?
        {
            var previous = entry(base, table, 0, width)
            var i = 1
            while i < count {
                let o = entry(base, table, i, width)
                if o <= previous { break }
                previous = o
                i += 1
            }
            guard i < count else { return nil }
            guard count <= Int(UInt32.max), table <= Int(UInt32.max) else {
                throw fail("a file of over 4 GiB whose objects are out of order")
            }
            var pairs = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
                for i in 0..<count {
                    // Offsets past the objects are refused when decoded; they
                    // share one key here, so none can pass for a valid one.
                    let o = min(entry(base, table, i, width), UInt64(table))
                    buffer[i] = o << 32 | UInt64(i)
                }
                initialized = count
            }
            pairs.sort()
            let canonical = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
            var first: UInt32 = 0
            for j in 0..<count {
                let index = UInt32(truncatingIfNeeded: pairs[j])
                if j == 0 || pairs[j] >> 32 != pairs[j - 1] >> 32 { first = index }
                canonical[Int(index)] = first
            }
            return canonical
        }

        /// The index an object is decoded under.
        @inline(__always)
        func canonical(_ index: Int) -> Int {
            guard let canonicalIndexes else { return index }
            return Int(canonicalIndexes[index])
        }

        /// The slot of ``decoded`` and ``active`` object `index` (a
        /// canonical index) is remembered in: the index, or its offset in
        /// the object area (refused when outside it).
        @inline(__always)
        func slot(_ index: Int) throws(PrefsError) -> Int {
            byOffset ? try offset(of: index) &- 8 : index
        }

        /// Releases what the decoder holds; the values it returned live on.
        func deallocate() {
            canonicalIndexes?.deallocate()
            decoded.deallocate()
            active.deallocate()
            keepAlive.deinitialize(count: 1)
            keepAlive.deallocate()
        }

        /// A `.malformed` error about binary property lists.
        static func fail(_ what: String) -> PrefsError {
            PrefsError(.malformed, "binary property list: " + what)
        }
        func fail(_ what: String) -> PrefsError { Self.fail(what) }

        /// The big-endian unsigned integer of `width` (1...8) bytes at `at`;
        /// the caller has checked that they are there.
        @inline(__always)
        static func uint(_ b: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> UInt64 {
            uint(b.baseAddress!, at, width)
        }

        /// The same over the file's first byte: one load for the widths
        /// writers use (1, 2, 4 and 8 bytes), a loop for the others.
        @inline(__always)
        static func uint(_ p: UnsafeRawPointer, _ at: Int, _ width: Int) -> UInt64 {
            switch width {
            case 1: return UInt64(p.load(fromByteOffset: at, as: UInt8.self))
            case 2: return UInt64(UInt16(bigEndian: p.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
            case 4: return UInt64(UInt32(bigEndian: p.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            case 8: return UInt64(bigEndian: p.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            default:
                var v: UInt64 = 0
                for i in 0..<width { v = v << 8 | UInt64(p.load(fromByteOffset: at + i, as: UInt8.self)) }
                return v
            }
        }

        /// Entry `index` of the offset table at `table`, of `width` bytes
        /// (unchecked: the trailer checks placed the table).
        @inline(__always)
        static func entry(_ base: UnsafeRawPointer, _ table: Int, _ index: Int, _ width: Int) -> UInt64 {
            uint(base, table &+ index &* width, width)
        }

        /// Where object `index` starts: inside the object area.
        @inline(__always)
        func offset(of index: Int) throws(PrefsError) -> Int {
            let o = Self.entry(base, tableStart, index, offsetSize)
            guard o >= 8, o < UInt64(tableStart) else { throw fail("object \(index) starts at \(o), outside the objects") }
            return Int(o)
        }

        /// Checks that `count` items of `width` bytes starting at `start`
        /// lie before the offset table, and returns where they end.
        func span(_ start: Int, _ count: Int, _ width: Int, _ index: Int) throws(PrefsError) -> Int {
            let (size, o1) = count.multipliedReportingOverflow(by: width)
            let (end, o2) = start.addingReportingOverflow(size)
            guard !o1, !o2, end <= tableStart else {
                throw fail("object \(index) claims \(count) items of \(width) bytes, more than the file holds")
            }
            return end
        }

        /// The count of a data, string or container object whose marker is
        /// at `at`: the low nibble, or when it is 15 an integer object that
        /// follows. Returns the count and where the content starts.
        func count(_ at: Int, _ index: Int) throws(PrefsError) -> (Int, Int) {
            let low = Int(bytes[at] & 0x0F)
            guard low == 0x0F else { return (low, at + 1) }
            guard at + 1 < tableStart else { throw fail("object \(index) ends before its count") }
            let marker = bytes[at + 1]
            guard marker & 0xF0 == 0x10, marker & 0x0F <= 3 else { throw fail("object \(index) has a count that is not an integer of 1 to 8 bytes") }
            let width = 1 << Int(marker & 0x0F)
            let start = at + 2
            _ = try span(start, width, 1, index)
            let n = Self.uint(bytes, start, width)
            guard n <= UInt64(Int.max) else { throw fail("object \(index) has a count of \(n)") }
            return (Int(n), start + width)
        }

        /// Object reference `i` of a container whose references start at `at`
        /// (the caller has checked with ``span(_:_:_:_:)`` that they are there).
        @inline(__always)
        func reference(_ at: Int, _ i: Int, _ index: Int) throws(PrefsError) -> Int {
            let r = Self.uint(base, at &+ i &* refSize, refSize)
            guard r < UInt64(objectCount) else { throw fail("object \(index) refers to object \(r) of \(objectCount)") }
            return Int(r)
        }

        /// Decodes object `index`, at nesting `level` (the top object is at 0).
        func decode(_ index: Int, level: Int) throws(PrefsError) -> PropertyList {
            let index = canonical(index)
            let slot = try slot(index)
            if let done = decoded[slot] { return done.takeUnretainedValue() }
            guard !active[slot] else { throw fail("object \(index) contains itself") }
            guard level < PropertyList.maxNesting else {
                throw PrefsError(.tooDeep, "binary property list: nesting deeper than \(PropertyList.maxNesting) levels")
            }
            let at = try offset(of: index)
            let marker = bytes[at]
            let value: PropertyList
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = PropertyList.falseValue
                case 0x09: value = PropertyList.trueValue
                default: throw fail("object \(index) has marker 0x\(hex(marker)), not a property-list value")
                }
            case 0x1: value = try integer(at, index)
            case 0x2:
                switch marker & 0x0F {
                case 2:
                    _ = try span(at + 1, 4, 1, index)
                    value = .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: Self.uint(bytes, at + 1, 4)))))
                case 3:
                    _ = try span(at + 1, 8, 1, index)
                    value = .real(Double(bitPattern: Self.uint(bytes, at + 1, 8)))
                default: throw fail("object \(index) is a real of \(1 << Int(marker & 0x0F)) bytes")
                }
            case 0x3:
                guard marker == 0x33 else { throw fail("object \(index) is a date that is not 8 bytes") }
                _ = try span(at + 1, 8, 1, index)
                value = .date(Double(bitPattern: Self.uint(bytes, at + 1, 8)) + BinaryReader.epoch2001)
            case 0x4:
                let (n, start) = try count(at, index)
                let end = try span(start, n, 1, index)
                value = .data(Array(UnsafeRawBufferPointer(rebasing: bytes[start..<end])))
            case 0x5:
                let (n, start) = try count(at, index)
                let end = try span(start, n, 1, index)
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                guard Self.isASCII(text) else { throw fail("object \(index) is an ASCII string with a byte over 127") }
                value = .string(String(decoding: text, as: UTF8.self))
            case 0x6:
                let (n, start) = try count(at, index)
                _ = try span(start, n, 2, index)
                value = .string(try utf16(start, n, index))
            case 0x8:
                let width = Int(marker & 0x0F) + 1
                guard width <= 8 else { throw fail("object \(index) is a UID of \(width) bytes") }
                _ = try span(at + 1, width, 1, index)
                let uid = Self.uint(bytes, at + 1, width)
                guard uid <= UInt64(UInt32.max) else { throw fail("object \(index) is a UID of \(uid), over 2^32-1") }
                value = PropertyList(.uid(UInt32(uid)))
            case 0xA:
                let (n, start) = try count(at, index)
                _ = try span(start, n, refSize, index)
                active[slot] = true
                value = try array(start, n, index, level)
                active[slot] = false
            case 0xD:
                let (n, start) = try count(at, index)
                let (pairs, overflow) = n.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw fail("object \(index) claims \(n) entries") }
                _ = try span(start, pairs, refSize, index)
                active[slot] = true
                value = try dictionary(start, n, index, level)
                active[slot] = false
            default:
                throw fail("object \(index) has marker 0x\(hex(marker)), not a property-list value")
            }
            decoded[slot] = Unmanaged.passUnretained(value)
            return value
        }

        // A container's object is made after its items, but freeing the
        // value visits it before them: made last, it lies past all of its
        // items in memory, and on a value larger than the caches each such
        // jump is one wait for memory (freeing the 20 MB file's value took
        // about as long as parsing it, four times libplist's free). So a
        // block of the object's size is taken before the items are decoded
        // and given back just before the object is made: the allocator
        // hands that block out again (glibc's per-thread cache is last in,
        // first out), and the container lies before its items, in the
        // order freeing walks them. Only where the object lands changes.

        /// The size of a block that holds a ``PropertyList`` object: an
        /// allocation of this many bytes is served from the same free list.
        static let objectBlockSize: Int = {
            let probe = PropertyList(.uid(0))
            return prefs_malloc_usable_size(Unmanaged.passUnretained(probe).toOpaque())
        }()

        /// An array of `n` items whose references start at `start`.
        func array(_ start: Int, _ n: Int, _ index: Int, _ level: Int) throws(PrefsError) -> PropertyList {
            var reserved = malloc(Self.objectBlockSize)
            defer { free(reserved) }
            var items = [PropertyList]()
            items.reserveCapacity(n)
            var depth = 0
            var size = Sizer()
            for i in 0..<n {
                let item = try decode(try reference(start, i, index), level: level + 1)
                depth = max(depth, item.depth + 1)
                size.add(item.minimumXMLSize)
                items.append(consume item)
            }
            try checkLimits(depth, size.total, index)
            free(reserved)
            reserved = nil
            return PropertyList(container: .array(consume items), depth: depth, minimumXMLSize: size.total)
        }

        /// A dictionary of `n` entries whose references start at `start`;
        /// of two equal keys, the later wins.
        func dictionary(_ start: Int, _ n: Int, _ index: Int, _ level: Int) throws(PrefsError) -> PropertyList {
            var reserved = malloc(Self.objectBlockSize)
            defer { free(reserved) }
            var items = [PropertyList.Key: PropertyList](minimumCapacity: n)
            var depth = 0
            var size = Sizer()
            for i in 0..<n {
                let (key, length) = try self.key(try reference(start, i, index), of: index)
                let item = try decode(try reference(start, n + i, index), level: level + 1)
                depth = max(depth, item.depth + 1)
                size.add(8)
                size.add(length)
                size.add(item.minimumXMLSize)
                if let replaced = items.updateValue(consume item, forKey: consume key) {
                    // ``decoded`` may name it: keep it alive.
                    keepAlive.pointee.append(replaced)
                }
            }
            free(reserved)
            reserved = nil
            if items.count < n {
                // A later duplicate key wins; count only what is kept.
                let kept = PropertyList(.dictionary(consume items))
                try checkLimits(kept.depth, kept.minimumXMLSize, index)
                return kept
            }
            try checkLimits(depth, size.total, index)
            return PropertyList(container: .dictionary(consume items), depth: depth, minimumXMLSize: size.total)
        }

        /// Whether every byte of `text` is below 0x80, eight at a time.
        @inline(__always)
        static func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
            var i = 0
            var high: UInt64 = 0
            while i + 8 <= text.count {
                high |= text.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < text.count {
                high |= UInt64(text[i])
                i += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }

        /// A dictionary key: string object `ref` as a key, and its UTF-8
        /// length; decoded once per object, like values.
        func key(_ ref: Int, of index: Int) throws(PrefsError) -> (PropertyList.Key, Int) {
            let ref = canonical(ref)
            let slot = try slot(ref)
            if let done = decoded[slot] {
                let known = done._withUnsafeGuaranteedRef { v -> (PropertyList.Key, Int)? in
                    guard case .string(let s) = v.value else { return nil }
                    return (PropertyList.Key(s), s.utf8.count)
                }
                if let known { return known }
            }
            guard !active[slot] else { throw fail("object \(ref) contains itself") }
            let at = try offset(of: ref)
            let marker = bytes[at] >> 4
            guard marker == 0x5 || marker == 0x6 else {
                let kinds: [UInt8: String] = [
                    0x0: "boolean", 0x1: "integer", 0x2: "real", 0x3: "date", 0x4: "data", 0x8: "UID", 0xA: "array", 0xD: "dictionary",
                ]
                throw fail("object \(index) is a dictionary with a\(marker == 0xA ? "n" : "") \(kinds[marker] ?? "non-string") key")
            }
            let v = try decode(ref, level: PropertyList.maxNesting - 1)
            guard case .string(let s) = v.value else { throw fail("object \(index) is a dictionary with a \(v.kind) key") }
            // Only a key holds the string: ``decoded`` names the value.
            keepAlive.pointee.append(v)
            return (PropertyList.Key(s), s.utf8.count)
        }

        /// Refuses a container of `depth` and ``PropertyList/minimumXMLSize``
        /// `size` that nests too deep or expands past the cap.
        @inline(__always)
        func checkLimits(_ depth: Int, _ size: Int, _ index: Int) throws(PrefsError) {
            guard depth < PropertyList.maxNesting else {
                throw PrefsError(.tooDeep, "binary property list: nesting deeper than \(PropertyList.maxNesting) levels")
            }
            guard size <= limit else {
                throw fail("object \(index) expands to more than \(limit) bytes through shared objects")
            }
        }

        /// An integer object: 1, 2 and 4 bytes unsigned, 8 bytes signed,
        /// 16 bytes signed when the value lies in -2^63...2^64-1.
        func integer(_ at: Int, _ index: Int) throws(PrefsError) -> PropertyList {
            let n = Int(bytes[at] & 0x0F)
            guard n <= 4 else { throw fail("object \(index) is an integer of \(1 << n) bytes") }
            let width = 1 << n
            _ = try span(at + 1, width, 1, index)
            switch width {
            case 8: return PropertyList(.integer(Int128(Int64(bitPattern: Self.uint(bytes, at + 1, 8)))))
            case 16:
                let high = Int64(bitPattern: Self.uint(bytes, at + 1, 8))
                let low = Self.uint(bytes, at + 9, 8)
                let v = Int128(high) << 64 | Int128(low)
                guard v >= PropertyList.minInteger, v <= PropertyList.maxInteger else {
                    throw fail("object \(index) is an integer outside -2^63...2^64-1")
                }
                return PropertyList(.integer(v))
            default: return PropertyList(.integer(Int128(Self.uint(bytes, at + 1, width))))
            }
        }

        /// `n` big-endian UTF-16 units at `start` as a string; a lone
        /// surrogate is refused, not replaced.
        func utf16(_ start: Int, _ n: Int, _ index: Int) throws(PrefsError) -> String {
            // Each unit becomes at most 3 bytes of UTF-8 (a pair, 4 for 2).
            let (capacity, overflow) = n.multipliedReportingOverflow(by: 3)
            guard !overflow else { throw fail("object \(index) claims \(n) UTF-16 units") }
            var failure: PrefsError?
            let text = String(unsafeUninitializedCapacity: max(capacity, 1)) { out in
                var o = 0
                var i = 0
                while i < n {
                    let u = UInt32(bytes[start + 2 * i]) << 8 | UInt32(bytes[start + 2 * i + 1])
                    i += 1
                    var scalar = u
                    if u >= 0xD800 && u <= 0xDBFF {
                        guard i < n else {
                            failure = fail("object \(index) is a string ending in a lone surrogate")
                            return 0
                        }
                        let l = UInt32(bytes[start + 2 * i]) << 8 | UInt32(bytes[start + 2 * i + 1])
                        guard l >= 0xDC00 && l <= 0xDFFF else {
                            failure = fail("object \(index) is a string with a lone surrogate")
                            return 0
                        }
                        i += 1
                        scalar = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00)
                    } else if u >= 0xDC00 && u <= 0xDFFF {
                        failure = fail("object \(index) is a string with a lone surrogate")
                        return 0
                    }
                    switch scalar {
                    case 0..<0x80:
                        out[o] = UInt8(scalar)
                        o += 1
                    case 0x80..<0x800:
                        out[o] = UInt8(0xC0 | scalar >> 6)
                        out[o + 1] = UInt8(0x80 | scalar & 0x3F)
                        o += 2
                    case 0x800..<0x10000:
                        out[o] = UInt8(0xE0 | scalar >> 12)
                        out[o + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                        out[o + 2] = UInt8(0x80 | scalar & 0x3F)
                        o += 3
                    default:
                        out[o] = UInt8(0xF0 | scalar >> 18)
                        out[o + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                        out[o + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                        out[o + 3] = UInt8(0x80 | scalar & 0x3F)
                        o += 4
                    }
                }
                return o
            }
            if let failure { throw failure }
            return text
        }
    }

    /// A sum that saturates at `Int.max`, as ``PropertyList/minimumXMLSize``.
    struct Sizer {
        var total = 8
        mutating func add(_ n: Int) { total = total > Int.max - n ? Int.max : total + n }
    }

    /// Two hex digits.
    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: [digits[Int(b >> 4)], digits[Int(b & 0x0F)]], as: UTF8.self)
    }
}
