/// Spliced commits of binary domain files: append only.
///
/// Every object of the old file keeps its bytes and its number (the object
/// area is copied as it is); the changed values' objects, and new keys'
/// strings, are appended after it; a new top dictionary refers to the
/// unchanged entries' old objects and to the new ones; a new offset table
/// (the old offsets, then the new ones) and trailer end the file. Objects
/// no longer referred to stay in the file unreferenced: a reader follows
/// references from the top object (CoreFoundation's does, see DESIGN.md),
/// and a full write drops them once they are more than half the object
/// area. When the old top dictionary is the last object (as after every
/// splice), its bytes and number are taken by the first new object, so
/// repeated splices leave no dead top dictionaries behind.
///
/// The splice declines (the caller writes the file whole) when the old file
/// is not as expected: not `bplist00`, a trailer that does not describe it
/// exactly, offsets that do not increase, a top object that is not a
/// dictionary of the index's entries, a replaced or removed key not where
/// the index puts it, a reference out of range, an object still referred
/// to that reads past where the next one starts; and when the new objects
/// would need wider references or offsets, or dead bytes would pass half
/// of the object area.
enum BinarySplice {
    /// The file `old` (a binary property list whose top dictionary holds
    /// `n` entries in the index's order) with `changes` applied; `nil` when
    /// the splice does not apply. Thread-safe.
    static func splice(_ old: [UInt8], entries n: Int, changes: [DomainIndex.Change]) -> [UInt8]? {
        old.withUnsafeBytes { splice($0, entries: n, changes: changes) }
    }

    /// The unsigned big-endian integer of `width` (1...8) bytes at `at`
    /// (the caller has checked that they are inside `b`).
    @inline(__always)
    fileprivate static func uint(_ b: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> UInt64 {
        BinaryReader.Decoder.uint(b, at, width)
    }

    private static func splice(_ b: UnsafeRawBufferPointer, entries n: Int, changes: [DomainIndex.Change]) -> [UInt8]? {
        // The trailer, checked as the reader checks it.
        guard b.count >= 8 + 1 + 32, b.starts(with: BinaryReader.magic), let trailer = try? BinaryReader.Trailer(b) else { return nil }
        let t = b.count - 32
        let offsetSize = trailer.offsetSize, refSize = trailer.refSize
        let objects = trailer.objects, top = trailer.top, table = trailer.table
        let old = Layout(b: b, objects: objects, table: table, offsetSize: offsetSize, refSize: refSize)
        @inline(__always) func offset(_ i: Int) -> Int { old.offset(i) }
        // Offsets that increase (as every writer lays objects out) give
        // each object's extent: up to the next one's offset.
        var previous = 7
        for i in 0..<objects {
            let o = offset(i)
            guard o > previous, o < table else { return nil }
            previous = o
        }
        @inline(__always) func end(_ i: Int) -> Int { old.end(i) }

        // The top dictionary: its count, then key and value references.
        let topAt = offset(top)
        guard b[topAt] >> 4 == 0xD else { return nil }
        guard let (topCount, refsAt) = containerCount(b, topAt, end: table), topCount == n,
            n <= (table - refsAt) / (2 * refSize)
        else { return nil }
        let refsEnd = refsAt + 2 * n * refSize
        @inline(__always) func ref(_ at: Int) -> Int { Int(truncatingIfNeeded: uint(b, at, refSize)) }
        @inline(__always) func keyRef(_ i: Int) -> Int { ref(refsAt + i * refSize) }
        @inline(__always) func valueRef(_ i: Int) -> Int { ref(refsAt + (n + i) * refSize) }

        // A replaced or removed key must be the index's entry at its place.
        var encodedKey: [UInt8] = []
        for c in changes where c.replaces {
            guard c.at < n else { return nil }
            let k = keyRef(c.at)
            // A reference past Int.max reads as a negative number.
            guard k >= 0, k < objects else { return nil }
            encodedKey.removeAll(keepingCapacity: true)
            c.key.withBytes { BinaryWriter.Writer.string($0, &encodedKey) }
            let at = offset(k)
            guard end(k) - at == encodedKey.count,
                UnsafeRawBufferPointer(rebasing: b[at..<at + encodedKey.count]).elementsEqual(encodedKey)
            else { return nil }
        }

        // The old top's place is taken by the new objects when it is the
        // last object; else it stays, unreferenced.
        let reuse = top == objects - 1 && refsEnd == table
        let kept = reuse ? topAt : table

        // Which old objects the new top still reaches, and their bytes.
        var marker = Marker(objects: objects, top: top, checksExtents: reuse)
        var c = 0
        for i in 0..<n {
            // Insertions before entry i, then entry i's own change.
            while c < changes.count && changes[c].at == i && !changes[c].replaces { c += 1 }
            if c < changes.count && changes[c].at == i {
                if changes[c].value != nil { marker.visit(keyRef(i), old) }
                c += 1
            } else {
                marker.visit(keyRef(i), old)
                marker.visit(valueRef(i), old)
            }
        }
        guard let live = marker.finish(old) else { return nil }

        // The new objects: changed values, and new keys' strings.
        var w = BinaryWriter.Writer()
        var newKeys: [Int] = [], newValues: [Int] = []
        for c in changes {
            guard let v = c.value else { continue }
            newKeys.append(c.replaces ? -1 : w.flattenString(c.key, nil))
            newValues.append(w.flatten(v))
        }
        // Numbers: the first new object takes the old top's when reused.
        let first = reuse ? top : objects
        let shift = reuse ? objects - 1 : objects
        let newTop = w.objects.count == 0 ? first : w.objects.count + shift
        let newCount = newTop + 1 > objects ? newTop + 1 : objects
        if refSize < 8 && newCount >> (8 * refSize) != 0 { return nil }
        @inline(__always) func number(_ j: Int) -> Int { j == 0 ? first : j + shift }

        var out = [UInt8]()
        let count = n + changes.count(where: { $0.value != nil && !$0.replaces }) - changes.count(where: { $0.replaces && $0.value == nil })
        out.reserveCapacity(kept + 64 * changes.count + 2 * count * refSize + 16 + (newCount) * offsetSize + 32)
        out += UnsafeRawBufferPointer(rebasing: b[0..<kept])
        var offsets = w.encodeObjects(&out, refSize: refSize, first: first, shift: shift)
        offsets.append(out.count)

        // The top dictionary: keys' references, then values'.
        BinaryWriter.Writer.marker(0xD0, count, &out)
        for half in 0..<2 {
            var i = 0, j = 0
            func copyOld(upTo stop: Int) {
                guard stop > i else { return }
                let from = refsAt + (half * n + i) * refSize
                out += UnsafeRawBufferPointer(rebasing: b[from..<from + (stop - i) * refSize])
                i = stop
            }
            for c in changes {
                copyOld(upTo: c.at)
                if c.replaces { i += 1 }
                guard c.value != nil else { continue }
                let r = half == 0 ? (c.replaces ? keyRef(c.at) : number(newKeys[j])) : number(newValues[j])
                BinaryWriter.Writer.bigEndian(UInt64(r), refSize, &out)
                j += 1
            }
            copyOld(upTo: n)
        }

        // Dead bytes: the kept area's objects the new top no longer reaches.
        let area = out.count - 8
        let dead = (kept - 8) - live
        guard dead <= area / 2 else { return nil }

        let tableStart = out.count
        if offsetSize < 8 && tableStart >> (8 * offsetSize) != 0 { return nil }
        // The old offsets (the reused top's is the first new object's), then the new.
        out += UnsafeRawBufferPointer(rebasing: b[table..<t])
        for (j, o) in offsets.enumerated() where !(reuse && j == 0) {
            BinaryWriter.Writer.bigEndian(UInt64(o), offsetSize, &out)
        }
        guard !reuse || offsets[0] == topAt else { return nil }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        BinaryWriter.Writer.bigEndian(UInt64(newCount), 8, &out)
        BinaryWriter.Writer.bigEndian(UInt64(newTop), 8, &out)
        BinaryWriter.Writer.bigEndian(UInt64(tableStart), 8, &out)
        guard out.count <= PropertyList.maxDocumentSize else { return nil }
        return out
    }

    /// The count of the container whose marker is at `at` and where its
    /// references start; `nil` when its count runs past `end`.
    fileprivate static func containerCount(_ b: UnsafeRawBufferPointer, _ at: Int, end: Int) -> (Int, Int)? {
        let low = Int(b[at] & 0x0F)
        if low < 15 { return (low, at + 1) }
        guard at + 2 <= end, b[at + 1] >> 4 == 0x1 else { return nil }
        let width = 1 << Int(b[at + 1] & 0x0F)
        guard width <= 8, at + 2 + width <= end else { return nil }
        let v = uint(b, at + 2, width)
        guard v <= UInt64(end) else { return nil }
        return (Int(v), at + 2 + width)
    }

    /// Where the object at `at` that is not a container ends as a reader
    /// reads it; `nil` for a marker no reader takes, or a count that runs
    /// past `end`.
    @inline(never)
    fileprivate static func scalarEnd(_ b: UnsafeRawBufferPointer, _ at: Int, end: Int) -> Int? {
        let marker = b[at]
        switch marker >> 4 {
        case 0x0: return at + 1
        case 0x1, 0x2: return at + 1 + (1 << Int(marker & 0x0F))
        case 0x3: return at + 9
        case 0x4, 0x5, 0x6:
            guard let (count, start) = containerCount(b, at, end: end) else { return nil }
            return start + (marker >> 4 == 0x6 ? 2 * count : count)
        case 0x8: return at + 2 + Int(marker & 0x0F)
        default: return nil
        }
    }

    /// The old file's object area and offset table.
    private struct Layout {
        let b: UnsafeRawBufferPointer
        let objects: Int
        let table: Int
        let offsetSize: Int
        let refSize: Int

        @inline(__always) func offset(_ i: Int) -> Int {
            Int(truncatingIfNeeded: BinarySplice.uint(b, table + i * offsetSize, offsetSize))
        }

        /// Where object `i` ends: where the next starts (offsets increase).
        @inline(__always) func end(_ i: Int) -> Int { i + 1 < objects ? offset(i + 1) : table }
    }

    /// The bytes of the old objects reached from the references visited
    /// (and from containers among them, to any depth), each counted once.
    private struct Marker {
        /// One bit an old object; freed by ``finish(_:)``.
        let seen: UnsafeMutablePointer<UInt64>
        var pending: [Int] = []
        var live = 0
        var bad = false
        let objects: Int
        let top: Int
        /// Whether objects other than containers are checked to end by the
        /// next one's offset: needed when the old top's place is taken.
        let checksExtents: Bool

        init(objects: Int, top: Int, checksExtents: Bool) {
            self.objects = objects
            self.top = top
            self.checksExtents = checksExtents
            seen = .allocate(capacity: (objects + 63) / 64)
            seen.initialize(repeating: 0, count: (objects + 63) / 64)
        }

        @inline(__always)
        mutating func visit(_ r: Int, _ old: Layout) {
            // The old top reached again would be a cycle.
            guard r >= 0, r < objects, r != top else {
                bad = true
                return
            }
            let word = r >> 6, bit = UInt64(1) << UInt64(r & 63)
            if seen[word] & bit != 0 { return }
            seen[word] |= bit
            let at = old.offset(r), stop = old.end(r)
            live += stop - at
            // Read past its extent, an object would read the bytes of the
            // next one, which the new objects take when it is the old top.
            let marker = old.b[at], low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0xA, 0xC, 0xD: pending.append(r)
            case 0x0: break  // one byte
            case 0x1, 0x2: if checksExtents && at + 1 + (1 << low) > stop { bad = true }
            case 0x4,
                0x5 where low != 0x0F:
                if checksExtents && at + 1 + low > stop { bad = true }
            default:
                guard checksExtents else { return }
                guard let e = BinarySplice.scalarEnd(old.b, at, end: stop), e <= stop else { bad = true; return }
            }
        }

        /// The live bytes; `nil` when a reference is out of range, an
        /// object runs past its extent, or the old top is reached.
        mutating func finish(_ old: Layout) -> Int? {
            defer { seen.deallocate() }
            while !bad, let r = pending.popLast() {
                let at = old.offset(r), stop = old.end(r)
                guard let (count, refsAt) = BinarySplice.containerCount(old.b, at, end: stop) else { return nil }
                let refs = old.b[at] >> 4 == 0xD ? 2 * count : count
                guard refs <= (stop - refsAt) / old.refSize else { return nil }
                for k in 0..<refs { visit(Int(truncatingIfNeeded: BinarySplice.uint(old.b, refsAt + k * old.refSize, old.refSize)), old) }
            }
            return bad ? nil : live
        }
    }
}
