/// Spliced commits: a domain file and its index rewritten from the bytes
/// they already hold, with only the changed entries formatted and encoded.
///
/// An index made for an XML file this library wrote records, for each
/// entry, the length of its text in that file; the texts follow
/// ``XMLWriter/domainPrefix`` one after another in the index's order, then
/// ``XMLWriter/domainSuffix``. A writer that finds the index current for
/// the file on disk (the same proof as a reader's, see ``DomainIndex``)
/// copies each run of unchanged entries' text in one piece, formats the
/// changed ones, and makes the new index the same way: the unchanged
/// entries' keys and values are copied, their offsets moved, their checks
/// moved to their new numbers (``DomainIndex/moved(_:from:to:)``), and the
/// bucket table updated in place when its size holds. The file is the one a
/// full write of the same entries makes, byte for byte; it is still
/// written whole to a new file and renamed over the old one.
extension DomainIndex {
    /// A spliced file and the body of its index.
    struct Spliced {
        /// The XML file; empty when a binary file's index was spliced.
        let xml: [UInt8]
        let body: [UInt8]
        let entries: Int
        let buckets: Int
        /// The changes applied, in key order, each with its place among
        /// the old entries (what a binary file's splice needs).
        let changes: [Change]
    }

    /// One change, placed: `at` is the first old entry whose key is not
    /// before `key`, `replaces` whether that entry is `key`'s; `value`
    /// `nil` removes it.
    struct Change {
        let at: Int
        let replaces: Bool
        let key: PropertyList.Key
        let value: PropertyList?
    }

    /// At most this many inserted or removed keys update the bucket table
    /// in place; more rebuild it (each key hashed once).
    static let inPlaceTableChanges = 64

    /// Whether the machine's integers are the file's (little-endian): the
    /// tables are then copied as they are.
    private static let littleEndian = UInt32(1).littleEndian == 1

    /// The XML file `xml` (the one `old` is the body of the index of) with
    /// `changes` applied (`nil` removes a key), and the new index's body;
    /// `nil` when splicing does not apply: the index records no XML texts
    /// (a binary file), its tables or the file are not as this library
    /// writes them, or a changed value is one only the binary format
    /// carries or none does (the full write then decides, and says why).
    /// With `xml` `nil`, only the index of a binary file is spliced (its
    /// entries record no texts); ``BinarySplice`` makes the file.
    static func splice(
        old body: [UInt8], entries n: Int, buckets: Int, xml: [UInt8]?, changes: [PropertyList.Key: PropertyList?]
    ) -> Spliced? {
        let entrySize = Self.entrySize
        guard buckets > 0, buckets & (buckets - 1) == 0, n < buckets, buckets * 4 + n * entrySize <= body.count else { return nil }
        return body.withUnsafeBytes { b -> Spliced? in
            guard let xml else { return splice(b, n: n, buckets: buckets, nil, changes: changes) }
            return xml.withUnsafeBytes { x -> Spliced? in
                splice(b, n: n, buckets: buckets, x, changes: changes)
            }
        }
    }

    private static func splice(
        _ b: UnsafeRawBufferPointer, n: Int, buckets: Int, _ xmlFile: UnsafeRawBufferPointer?, changes: [PropertyList.Key: PropertyList?]
    ) -> Spliced? {
        // A binary file's index: every text length 0, no text to copy.
        let isXML = xmlFile != nil
        let x = xmlFile ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let entrySize = Self.entrySize
        let table = buckets * 4
        let dataStart = table + n * entrySize
        @inline(__always) func field(_ i: Int, _ f: Int) -> UInt32 { load32(b, table + i * entrySize + f * 4) }
        // The whole entry table is checked as this library writes it: keys
        // and values one after another, each entry with its XML text, the
        // texts filling the file between its prefix and suffix.
        let prefix = XMLWriter.domainPrefix, suffix = XMLWriter.domainSuffix
        var expected = dataStart
        var textTotal = 0
        // An XML file's every entry has text; a binary file's none.
        var empty = 0
        for i in 0..<n {
            let offset = Int(field(i, 0)), length = Int(field(i, 1)) + Int(field(i, 2)), text = Int(field(i, 3))
            guard offset == expected, length <= b.count - offset else { return nil }
            expected += length
            textTotal += text
            empty &+= text == 0 ? 1 : 0
        }
        guard expected == b.count, isXML ? empty == 0 : textTotal == 0 else { return nil }
        if isXML && n == 0 {
            guard x.elementsEqual(XMLWriter.emptyDomain) else { return nil }
        } else if isXML {
            guard x.count == prefix.count + textTotal + suffix.count, x.starts(with: prefix),
                UnsafeRawBufferPointer(rebasing: x[(x.count - suffix.count)...]).elementsEqual(suffix)
            else { return nil }
        }
        @inline(__always) func key(_ i: Int) -> UnsafeRawBufferPointer {
            let offset = Int(field(i, 0))
            return UnsafeRawBufferPointer(rebasing: b[offset..<offset + Int(field(i, 1))])
        }

        // Where each change goes: the first old entry whose key is not
        // before it, and whether that entry is its key.
        var ops: [Change] = []
        ops.reserveCapacity(changes.count)
        var from = 0
        for k in changes.keys.sorted() {
            let value = changes[k]!
            let (at, found) = k.withBytes { kb -> (Int, Bool) in
                var low = from, high = n
                while low < high {
                    let mid = (low + high) / 2
                    if key(mid).lexicographicallyPrecedes(kb) { low = mid + 1 } else { high = mid }
                }
                return (low, low < n && key(low).elementsEqual(kb))
            }
            from = at
            if !found && value == nil { continue }
            ops.append(Change(at: at, replaces: found, key: k, value: value))
        }
        let inserted = ops.count(where: { !$0.replaces }), removed = ops.count(where: { $0.replaces && $0.value == nil })
        let count = n + inserted - removed
        let newBuckets = bucketCount(count)
        guard newBuckets <= Int(UInt32.max) else { return nil }
        let newDataStart = newBuckets * 4 + count * entrySize

        // The file's text and the index's entries and data, run by run.
        var out = [UInt8]()
        if isXML {
            out.reserveCapacity(x.count + 256 * ops.count)
            out += prefix
        }
        // The entry table, filled in order (`made` words so far).
        let entries = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count * 5 + 1)
        defer { entries.deallocate() }
        var made = 0
        var data = [UInt8]()
        data.reserveCapacity(b.count - dataStart + 64 * ops.count)
        // The new number of each old entry, when keys come and go.
        var renumbered: [UInt32] = inserted + removed > 0 ? [UInt32](repeating: 0, count: n) : []
        var added: [Int] = []
        var i = 0
        var text = prefix.count
        func copy(upTo end: Int) {
            guard end > i else { return }
            let first = Int(field(i, 0))
            let last = Int(field(end - 1, 0)) + Int(field(end - 1, 1)) + Int(field(end - 1, 2))
            let shift = newDataStart + data.count - first
            data += UnsafeRawBufferPointer(rebasing: b[first..<last])
            var texts = 0
            guard made + (end - i) * 5 <= count * 5 else {
                made = -1
                return
            }
            let renumber = !renumbered.isEmpty
            for k in i..<end {
                let j = made / 5
                let at = table + k * entrySize
                let text = load32(b, at + 12)
                texts += Int(text)
                entries[made] = UInt32(truncatingIfNeeded: Int(load32(b, at)) + shift)
                entries[made + 1] = load32(b, at + 4)
                entries[made + 2] = load32(b, at + 8)
                entries[made + 3] = text
                entries[made + 4] = moved(load32(b, at + 16), from: k, to: j)
                made += 5
                if renumber { renumbered[k] = UInt32(j) }
            }
            if isXML { out += UnsafeRawBufferPointer(rebasing: x[text..<text + texts]) }
            text += texts
            i = end
        }
        for op in ops {
            copy(upTo: op.at)
            guard made >= 0 else { return nil }
            let old = i
            if op.replaces {
                // The old entry's text is skipped.
                text += Int(field(i, 3))
                i += 1
            }
            guard let value = op.value else { continue }
            var entry: [UInt8] = []
            if isXML {
                guard let e = try? XMLWriter.domainEntry(op.key, value), e.count <= Int(UInt32.max) else { return nil }
                entry = e
            } else {
                // As the full binary write refuses it (``BinaryWriter``).
                guard value.depth + 1 < PropertyList.maxNesting else { return nil }
            }
            guard made + 5 <= count * 5 else { return nil }
            let j = made / 5
            if !op.replaces {
                added.append(j)
            } else if !renumbered.isEmpty {
                // Its bucket stays; only its number changes.
                renumbered[old] = UInt32(j)
            }
            let start = data.count
            let keyLength = op.key.withBytes { k -> Int in
                data += k
                return k.count
            }
            guard Contents.encodeValue(value, &data) else { return nil }
            let sum = data.withUnsafeBytes {
                check(UnsafeRawBufferPointer(rebasing: $0[start...]), entry: j, xmlLength: UInt32(entry.count))
            }
            entries[made] = UInt32(truncatingIfNeeded: newDataStart + start)
            entries[made + 1] = UInt32(keyLength)
            entries[made + 2] = UInt32(truncatingIfNeeded: data.count - start - keyLength)
            entries[made + 3] = UInt32(entry.count)
            entries[made + 4] = sum
            made += 5
            out += entry
        }
        copy(upTo: n)
        if isXML { if count == 0 { out = XMLWriter.emptyDomain } else { out += suffix } }
        guard made == count * 5, out.count <= PropertyList.maxDocumentSize,
            newDataStart + data.count <= Int(UInt32.max)
        else { return nil }

        // The bucket table.
        let mask = newBuckets - 1
        var slots: [UInt32]
        /// Puts entry `j` in the first free bucket from its key's; false
        /// when none is free (a table not as this library writes it).
        func place(_ k: UnsafeRawBufferPointer, _ j: Int) -> Bool {
            var bucket = Int(truncatingIfNeeded: ContentHash.of(k)) & mask
            for _ in 0..<newBuckets {
                if slots[bucket] == emptyBucket {
                    slots[bucket] = UInt32(j + 1)
                    return true
                }
                bucket = (bucket + 1) & mask
            }
            return false
        }
        if newBuckets == buckets && inserted + removed <= inPlaceTableChanges {
            slots = [UInt32](unsafeUninitializedCapacity: buckets) { buffer, made in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: b[0..<buckets * 4]))
                made = buckets
            }
            if !littleEndian { for s in 0..<buckets { slots[s] = UInt32(littleEndian: slots[s]) } }
            // Removed keys leave by backward shift, so that no probe
            // sequence breaks; then the others get their new numbers.
            for op in ops where op.replaces && op.value == nil {
                let gone = UInt32(op.at + 1)
                var hole = Int(truncatingIfNeeded: ContentHash.of(key(op.at))) & mask
                var probes = 0
                while slots[hole] != gone {
                    guard slots[hole] != emptyBucket, probes < buckets else { return nil }
                    hole = (hole + 1) & mask
                    probes += 1
                }
                var next = (hole + 1) & mask
                while slots[next] != emptyBucket {
                    let e = Int(slots[next]) - 1
                    guard e >= 0, e < n, probes < buckets else { return nil }
                    probes += 1
                    let home = Int(truncatingIfNeeded: ContentHash.of(key(e))) & mask
                    if (next - home) & mask >= (next - hole) & mask {
                        slots[hole] = slots[next]
                        hole = next
                    }
                    next = (next + 1) & mask
                }
                slots[hole] = emptyBucket
            }
            // Every bucket must name an entry; the kept ones get their new numbers.
            let named = slots.withUnsafeMutableBufferPointer { t -> Bool in
                // Entry numbers are 1...n; an empty bucket's wraps to the largest.
                if renumbered.isEmpty {
                    // Branch-free, so that it vectorizes: x is 0 for an empty bucket.
                    var bad: UInt32 = 0
                    let count = UInt32(n)
                    for v in t {
                        let x = v &+ 1
                        bad |= (x != 0 && x &- 2 >= count) ? 1 : 0
                    }
                    return bad == 0
                }
                return renumbered.withUnsafeBufferPointer { r in
                    for s in t.indices where t[s] != emptyBucket {
                        let e = Int(t[s]) - 1
                        guard e >= 0, e < n else { return false }
                        t[s] = r[e] + 1
                    }
                    return true
                }
            }
            guard named else { return nil }
            let placed = data.withUnsafeBytes { d in
                added.allSatisfy { j in
                    let offset = Int(entries[j * 5]) - newDataStart
                    return place(UnsafeRawBufferPointer(rebasing: d[offset..<offset + Int(entries[j * 5 + 1])]), j)
                }
            }
            guard placed else { return nil }
        } else {
            slots = [UInt32](repeating: emptyBucket, count: newBuckets)
            // Never full: there are at least twice as many buckets as entries.
            data.withUnsafeBytes { d in
                for j in 0..<count {
                    let offset = Int(entries[j * 5]) - newDataStart
                    _ = place(UnsafeRawBufferPointer(rebasing: d[offset..<offset + Int(entries[j * 5 + 1])]), j)
                }
            }
        }

        var newBody = [UInt8]()
        newBody.reserveCapacity(newDataStart + data.count)
        // Little-endian in the file: the same bytes as in memory here.
        if !littleEndian {
            for s in slots.indices { slots[s] = slots[s].littleEndian }
            for e in 0..<made { entries[e] = entries[e].littleEndian }
        }
        slots.withUnsafeBytes { newBody += $0 }
        newBody += UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: entries[0..<made]))
        newBody += data
        return Spliced(xml: out, body: newBody, entries: count, buckets: newBuckets, changes: ops)
    }
}
