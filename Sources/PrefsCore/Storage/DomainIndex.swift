import Glibc

/// A cache of one domain file's values in binary form, so that a new
/// process reads a key of a domain without reading or parsing its XML (and
/// without loading libxml2), and without decoding the other keys: its cost
/// does not grow with the domain.
///
/// The XML file stays the one truth. An index lives in the user's cache
/// directory (`$XDG_CACHE_HOME/prefs`, see ``Locations/indexDirectory``),
/// one file per domain file. Integers are little-endian:
///
/// | at | bytes | what |
/// |---|---|---|
/// | 0 | 8 | `prefsidx` |
/// | 8 | 4 | format version (5) |
/// | 12 | 4 | length of the domain file's path |
/// | 16 | 8 × 6 | the XML file's identity when the index was made: device, inode, size, modification time (seconds, nanoseconds), change time (nanoseconds) |
/// | 64 | 8 | when the index was made, by the clock of the file system's times (nanoseconds) |
/// | 72 | 16 | the key of the XML's ``SipHash``: random, made for this index |
/// | 88 | 16 | the ``SipHash`` of the XML's bytes under that key, or zeros when the index was not racy when made (no reader compares them then) |
/// | 104 | 8 | length of the whole index file |
/// | 112 | 4, 4 | number of entries; number of hash buckets (a power of two) |
/// | 120 | 8 | ``ContentHash`` of the 120 bytes before and the path |
/// | 128 | n | the domain file's path; the body starts after it |
/// | body | 4 × buckets | per bucket, 1 + the index of an entry, or `FFFFFFFF` when empty |
/// | | 20 × entries | per entry: offset (from the body's start) of its key, which its value follows; length of the key; of the value; of its text in the XML file (0 when unknown); a check |
/// | | rest | keys (UTF-8) and values (see ``Contents/decodeValue(_:)``) |
///
/// Entries are in the order of the keys' bytes, the order the XML file
/// lists them in, so that a writer that reads another's index need not sort.
/// Their keys and values follow one another in that order too. When the
/// file is XML written by this library, each entry records the length of
/// its text there: the entries' texts follow ``XMLWriter/domainPrefix``
/// one after another, so that a writer copies the unchanged ones instead
/// of formatting them again (see ``splice(_:xml:)``); 0 in every entry
/// otherwise (a binary file).
/// A key's bucket is its ``ContentHash`` modulo the bucket count, then the
/// next ones in turn (open addressing). An entry's check is the low 32 bits
/// of the ``ContentHash`` of its key and value bytes mixed with its number
/// and its text's length, with the lowest bit set, so that damage (a crash's zero-filled block, a
/// flipped bit) reads as damage: a bucket of 0, an entry of zeros.
///
/// **When an index is used.** It must be a regular file of this user, not
/// writable by anyone else, of the recorded length, whose header checks
/// and whose path is the domain's. Then, as git decides whether its index
/// is current (`racy-git.txt`), the XML file's identity as `fstat` gives
/// it must equal the recorded one, and the XML file must not be *racy*:
/// a file whose change or modification time is not strictly before the
/// index was made could have been changed again within the same tick of
/// the file system's clock with its identity kept (an editor's same-size
/// save, a `cp -p`, times put back with `utimensat`). A racy file, or one
/// on another device than the index (whose clock may differ), is read and
/// its keyed hash compared with the recorded one. Otherwise the XML is not
/// read at all: a change after the index was made moves the change time,
/// which nobody can set back. A key is then looked up with a few `pread`s
/// of the index, never the whole file: not mapped, because a mapped file
/// that another process truncates kills the reader (SIGBUS).
///
/// Any mismatch and the XML is parsed as if there were no index: an index
/// is never trusted over the XML, and at worst it costs a parse. Only
/// writers make indexes (``save(_:written:digest:key:)``); a process that
/// only reads writes none.
///
/// Indexes are made only for the user's own domain files (not for any-user
/// or managed ones, whose index in the user's cache the user could forge),
/// and never in a setuid or setgid process.
struct DomainIndex {
    /// The domain file this index is for.
    let domainPath: String
    /// The index file.
    let path: String

    static let magic: [UInt8] = Array("prefsidx".utf8)
    /// 5: the length of each entry's XML text (4: the file's identity in
    /// the header, and UIDs as values of their own). Earlier indexes are
    /// ignored until the next write.
    static let version: UInt32 = 5
    /// The bytes of one entry in the entry table.
    static let entrySize = 20
    static let headerSize = 128
    static let emptyBucket: UInt32 = 0xFFFF_FFFF

    /// The index of the domain file at `domainPath`, in `directory`.
    init(domainPath: String, directory: String) {
        self.domainPath = domainPath
        let name = FileSystem.lastComponent(of: domainPath)
        let h = String(FileSystem.stableHash(domainPath), radix: 16)
        // The name's start is only for people looking at the directory.
        path = directory + "/" + String(decoding: name.utf8.prefix(100), as: UTF8.self) + "." + String(repeating: "0", count: 16 - h.utf8.count) + h + ".index"
    }

    /// What an index says of the XML file it was made from.
    struct Record {
        /// The XML file's identity when the index was made.
        let stamp: FileSystem.Stamp
        /// When the index was made, in nanoseconds, by the file system's clock.
        let made: Int64
        /// The XML's bytes, hashed: recorded only when the index was racy
        /// when made (the only case a reader compares them), else `nil`
        /// (zeros in the file).
        let key: SipHash.Key
        let digest: SipHash?
        /// The device of the index file, whose clock `made` is of.
        let clockDevice: UInt64

        /// Whether a file with this identity could have been changed since
        /// without its identity changing: it was changed in the same tick
        /// of the file system's clock as the index was made, or later.
        var isRacy: Bool { stamp.ctimeNanoseconds >= made || stamp.mtime >= made }
    }

    /// The index's contents when it describes the domain file whose
    /// identity is `xml` (just `fstat`ed); `content` gives that file's
    /// bytes when its identity alone cannot tell (see the type's
    /// documentation), `nil` when they cannot be read. `nil` when there is
    /// no index that can be used for that file.
    func contents(for xml: FileSystem.Stamp, content: () -> [UInt8]?) -> Contents? {
        guard let fd = try? SystemCall.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) else { return nil }
        var keep = false
        defer { if !keep { SystemCall.close(fd) } }
        guard let st = try? SystemCall.fstat(fd), (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), st.st_mode & 0o022 == 0,
            st.st_size >= Self.headerSize, st.st_size <= FileSystem.maximumFileSize * 2
        else { return nil }
        let pathBytes = Array(domainPath.utf8)
        var head = [UInt8](repeating: 0, count: Self.headerSize + pathBytes.count)
        guard Self.pread(fd, &head, 0) else { return nil }
        let parsed = head.withUnsafeBytes { b -> (record: Record, length: Int, entries: Int, buckets: Int)? in
            guard b.starts(with: Self.magic), Self.load32(b, 8) == Self.version, Int(Self.load32(b, 12)) == pathBytes.count,
                UnsafeRawBufferPointer(rebasing: b[Self.headerSize...]).elementsEqual(pathBytes),
                Self.load64(b, 120) == Self.headerCheck(b)
            else { return nil }
            var s = stat()
            s.st_dev = UInt(Self.load64(b, 16))
            s.st_ino = UInt(Self.load64(b, 24))
            s.st_size = Int(Int64(bitPattern: Self.load64(b, 32)))
            s.st_mtim = timespec(tv_sec: Int(Int64(bitPattern: Self.load64(b, 40))), tv_nsec: Int(Int64(bitPattern: Self.load64(b, 48))))
            let ctime = Int64(bitPattern: Self.load64(b, 56))
            s.st_ctim = timespec(tv_sec: Int(ctime / 1_000_000_000), tv_nsec: Int(ctime % 1_000_000_000))
            let record = Record(
                stamp: FileSystem.Stamp(s), made: Int64(bitPattern: Self.load64(b, 64)),
                key: SipHash.Key(k0: Self.load64(b, 72), k1: Self.load64(b, 80)),
                digest: Self.load64(b, 88) | Self.load64(b, 96) == 0 ? nil : SipHash(h0: Self.load64(b, 88), h1: Self.load64(b, 96)),
                clockDevice: UInt64(st.st_dev))
            return (record, Int(Int64(bitPattern: Self.load64(b, 104))), Int(Self.load32(b, 112)), Int(Self.load32(b, 116)))
        }
        guard let parsed, parsed.length == Int(st.st_size) else { return nil }
        let record = parsed.record
        let bodyStart = head.count
        let body = parsed.length - bodyStart
        let (entries, buckets) = (parsed.entries, parsed.buckets)
        guard buckets > 0, buckets & (buckets - 1) == 0, entries < buckets, buckets * 4 + entries * Self.entrySize <= body,
            record.stamp.sameIdentity(xml)
        else { return nil }
        if record.isRacy || record.clockDevice != xml.device {
            guard let digest = record.digest, let bytes = content(), bytes.count == Int(xml.size), SipHash(bytes, key: record.key) == digest
            else { return nil }
        }
        keep = true
        return Contents(descriptor: fd, record: record, body: bodyStart, length: parsed.length, entries: entries, buckets: buckets)
    }

    /// An index opened and checked: lookups of single keys, each a few
    /// `pread`s of the index file, which it keeps open (and closes when
    /// released). The file is never written in place (a writer replaces
    /// it), so what it reads stays consistent. Immutable; lookups may run
    /// on any thread (`pread` keeps no file position).
    final class Contents: @unchecked Sendable {
        private let descriptor: Int32
        /// What the index says of its XML file.
        let record: Record
        private let body: Int
        private let length: Int
        let entries: Int
        let buckets: Int

        init(descriptor: Int32, record: Record, body: Int, length: Int, entries: Int, buckets: Int) {
            self.descriptor = descriptor
            self.record = record
            self.body = body
            self.length = length
            self.entries = entries
            self.buckets = buckets
        }

        deinit { SystemCall.close(descriptor) }

        /// What a lookup found.
        enum Found {
            case value(PropertyList)
            case absent
            /// The entry is not what this library writes: the index must
            /// not be used.
            case corrupt
        }

        var count: Int { entries }

        /// The value of `key`.
        func value(forKey key: PropertyList.Key) -> Found {
            key.withBytes { k -> Found in
                var bucket = Int(truncatingIfNeeded: ContentHash.of(k)) & (buckets - 1)
                var entry = [UInt8](repeating: 0, count: DomainIndex.entrySize)
                var slot = [UInt8](repeating: 0, count: 4)
                for _ in 0..<buckets {
                    guard DomainIndex.pread(descriptor, &slot, body + bucket * 4) else { return .corrupt }
                    let s = slot.withUnsafeBytes { DomainIndex.load32($0, 0) }
                    if s == DomainIndex.emptyBucket { return .absent }
                    guard s >= 1, Int(s) <= entries, DomainIndex.pread(descriptor, &entry, body + buckets * 4 + (Int(s) - 1) * DomainIndex.entrySize)
                    else { return .corrupt }
                    let (offset, keyLength, valueLength, xmlLength, check) = entry.withUnsafeBytes {
                        (
                            Int(DomainIndex.load32($0, 0)), Int(DomainIndex.load32($0, 4)), Int(DomainIndex.load32($0, 8)),
                            DomainIndex.load32($0, 12), DomainIndex.load32($0, 16)
                        )
                    }
                    guard offset <= length - body, keyLength <= length - body - offset, valueLength <= length - body - offset - keyLength
                    else { return .corrupt }
                    // A key of another length is skipped without reading it.
                    if keyLength == k.count {
                        var bytes = [UInt8](repeating: 0, count: keyLength + valueLength)
                        guard DomainIndex.pread(descriptor, &bytes, body + offset) else { return .corrupt }
                        let found = bytes.withUnsafeBytes { b -> Found? in
                            guard DomainIndex.check(b, entry: Int(s) - 1, xmlLength: xmlLength) == check else { return .corrupt }
                            guard k.count == 0 || memcmp(b.baseAddress!, k.baseAddress!, k.count) == 0 else { return nil }
                            guard let v = Contents.decodeValue(UnsafeRawBufferPointer(rebasing: b[keyLength...])) else { return .corrupt }
                            return .value(v)
                        }
                        if let found { return found }
                    }
                    bucket = (bucket + 1) & (buckets - 1)
                }
                return .absent
            }
        }

        /// Every key and value, and the entries in the index's order when it
        /// is the written order (each key after the one before, by bytes);
        /// `nil` when the file cannot be read or an entry is not what this
        /// library writes.
        func allValues() -> (values: PropertyListDictionary, order: [(key: PropertyList.Key, value: PropertyList)]?)? {
            guard let all = rawBody() else { return nil }
            return all.withUnsafeBytes { b -> (PropertyListDictionary, [(key: PropertyList.Key, value: PropertyList)]?)? in
                var out = PropertyListDictionary(minimumCapacity: entries)
                var order: [(key: PropertyList.Key, value: PropertyList)]? = []
                order!.reserveCapacity(entries)
                var previous: UnsafeRawBufferPointer? = nil
                for i in 0..<entries {
                    let at = buckets * 4 + i * DomainIndex.entrySize
                    let offset = Int(DomainIndex.load32(b, at)), keyLength = Int(DomainIndex.load32(b, at + 4))
                    let valueLength = Int(DomainIndex.load32(b, at + 8))
                    guard offset <= b.count, keyLength <= b.count - offset, valueLength <= b.count - offset - keyLength else { return nil }
                    let both = UnsafeRawBufferPointer(rebasing: b[offset..<offset + keyLength + valueLength])
                    guard DomainIndex.check(both, entry: i, xmlLength: DomainIndex.load32(b, at + 12)) == DomainIndex.load32(b, at + 16),
                        let value = Contents.decodeValue(UnsafeRawBufferPointer(rebasing: both[keyLength...]))
                    else { return nil }
                    let k = UnsafeRawBufferPointer(rebasing: both[0..<keyLength])
                    let key = PropertyList.Key(String(decoding: k, as: UTF8.self))
                    out[key] = value
                    if order != nil, let p = previous, !p.lexicographicallyPrecedes(k) { order = nil }
                    order?.append((key, value))
                    previous = k
                }
                return (out, order)
            }
        }

        /// The index's body (bucket table, entry table, keys and values) as
        /// it is in the file; `nil` when it cannot be read.
        func rawBody() -> [UInt8]? {
            // Not zero-filled first: every byte is read into, or none is returned.
            var ok = false
            let all = [UInt8](unsafeUninitializedCapacity: length - body) { buffer, count in
                ok = DomainIndex.pread(descriptor, UnsafeMutableRawBufferPointer(buffer), body)
                count = ok ? buffer.count : 0
            }
            return ok ? all : nil
        }

        /// A value's encoding: a tag byte, then 1 string (UTF-8), 2 integer
        /// (16 bytes, two's complement), 3 false, 4 true, 5 real (8 bytes,
        /// IEEE 754), 6 date (the same), 7 anything else as a binary
        /// property list, 8 UID (4 bytes).
        static func encodeValue(_ v: PropertyList, _ out: inout [UInt8]) -> Bool {
            switch v.value {
            case .string(let s):
                out.append(1)
                out += s.utf8
            case .integer(let i):
                out.append(2)
                withUnsafeBytes(of: i.littleEndian) { out += $0 }
            case .boolean(let flag): out.append(flag ? 4 : 3)
            case .real(let d):
                out.append(5)
                withUnsafeBytes(of: d.bitPattern.littleEndian) { out += $0 }
            case .date(let d):
                out.append(6)
                withUnsafeBytes(of: d.bitPattern.littleEndian) { out += $0 }
            case .uid(let u):
                out.append(8)
                withUnsafeBytes(of: u.littleEndian) { out += $0 }
            default:
                guard let bytes = try? BinaryWriter.write(v) else { return false }
                out.append(7)
                out += bytes
            }
            return true
        }

        static func decodeValue(_ b: UnsafeRawBufferPointer) -> PropertyList? {
            guard let tag = b.first else { return nil }
            let payload = UnsafeRawBufferPointer(rebasing: b[1...])
            switch tag {
            case 1: return .string(String(decoding: payload, as: UTF8.self))
            case 2:
                guard payload.count == 16 else { return nil }
                let i = Int128(littleEndian: payload.loadUnaligned(as: Int128.self))
                guard i >= PropertyList.minInteger, i <= PropertyList.maxInteger else { return nil }
                return PropertyList(.integer(i))
            case 3, 4: return payload.isEmpty ? .boolean(tag == 4) : nil
            case 5, 6:
                guard payload.count == 8 else { return nil }
                let d = Double(bitPattern: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
                return tag == 5 ? .real(d) : .date(d)
            case 7: return try? BinaryReader.read(payload)
            case 8:
                guard payload.count == 4 else { return nil }
                return .uid(UInt32(littleEndian: payload.loadUnaligned(as: UInt32.self)))
            default: return nil
            }
        }
    }

    /// Records `values` (the entries in the file's order) as what the
    /// domain file holds that a writer has just replaced with `bytes`:
    /// `written` is the new file's stamp before its rename (the rename moves
    /// only its change time). The bytes are hashed (``SipHash``, under a new
    /// random key) only when the index is racy when made. Returns the
    /// record the index was written with, or `nil` when none was (best
    /// effort: an index that cannot be written is removed, and the next
    /// reader parses the XML). Only writers call it, under the domain's
    /// directory lock; it makes the cache directory when it is missing.
    ///
    /// The order of steps is what makes the index safe to trust on the
    /// file's identity alone: the time the index is made is taken from the
    /// file system's clock (a new file's change time, after a `stat` so that
    /// file systems with fine-grained times give one) *before* the XML's
    /// identity is taken, so any change of the XML after that identity was
    /// taken gets a later change time than the index records.
    ///
    /// `spans` are the lengths of the entries' texts in an XML file
    /// (``XMLWriter/writeDomainWithSpans(_:)``), `nil` for a binary one.
    @discardableResult
    func save(
        _ values: [(key: PropertyList.Key, value: PropertyList)], spans: [UInt32]?, written: FileSystem.Stamp, bytes: [UInt8]
    ) -> Contents? {
        guard let body = Self.body(values, spans: spans) else {
            remove()
            return nil
        }
        return save(body: body.data, entries: values.count, buckets: body.buckets, written: written, bytes: bytes)
    }

    /// As ``save(_:spans:written:bytes:)``, with the body already made
    /// (``splice(_:xml:)``): the index opened, or `nil` when none was written.
    func save(body: [UInt8], entries: Int, buckets: Int, written: FileSystem.Stamp, bytes: [UInt8]) -> Contents? {
        let dir = FileSystem.parent(of: path)
        guard (try? FileSystem.makeDirectories(dir, mode: 0o700)) != nil, Self.isOwnPrivateDirectory(dir) else { return nil }
        let temp = FileSystem.temporaryPath(for: path)
        // Read and write: once renamed, the same descriptor serves lookups.
        guard let fd = try? SystemCall.open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) else { return nil }
        var done = false
        defer {
            if !done {
                SystemCall.close(fd)
                try? SystemCall.unlink(temp)
            }
        }
        // The clock: stat the new file, change it, stat it again.
        guard (try? SystemCall.fstat(fd)) != nil, (try? FileSystem.writeAll(fd, Self.magic)) != nil, let st = try? SystemCall.fstat(fd)
        else { return nil }
        let made = max(FileSystem.Stamp(st).ctimeNanoseconds, FileSystem.Stamp(st).mtime)
        // The XML now: the file this process wrote, unchanged but for the
        // rename's change time, or no index.
        guard let now = try? FileSystem.stamp(domainPath), now.device == written.device, now.inode == written.inode,
            now.size == written.size, now.mtime == written.mtime
        else {
            remove()
            return nil
        }
        var record = Record(stamp: now, made: made, key: SipHash.Key(k0: 0, k1: 0), digest: nil, clockDevice: UInt64(st.st_dev))
        if record.isRacy || record.clockDevice != now.device {
            let key = SipHash.Key.random()
            record = Record(stamp: now, made: made, key: key, digest: SipHash(bytes, key: key), clockDevice: record.clockDevice)
        }
        let pathBytes = Array(domainPath.utf8)
        var out = [UInt8]()
        out.reserveCapacity(Self.headerSize + pathBytes.count + body.count)
        Self.append32(Self.version, &out)
        Self.append32(UInt32(pathBytes.count), &out)
        for v in [now.device, now.inode, UInt64(bitPattern: now.size), UInt64(bitPattern: now.mtimeSeconds)] { Self.append64(v, &out) }
        for v in [now.mtimeNanoseconds, now.ctimeNanoseconds, made] { Self.append64(UInt64(bitPattern: v), &out) }
        for v in [record.key.k0, record.key.k1, record.digest?.h0 ?? 0, record.digest?.h1 ?? 0] { Self.append64(v, &out) }
        let length = Self.headerSize + pathBytes.count + body.count
        Self.append64(UInt64(length), &out)
        Self.append32(UInt32(entries), &out)
        Self.append32(UInt32(buckets), &out)
        let check = (Self.magic + out).withUnsafeBytes { Self.headerCheck($0, path: pathBytes) }
        Self.append64(check, &out)
        out += pathBytes
        // Header and body in one write, without copying the body.
        let bodyStart = out.count
        guard (try? FileSystem.writeAll(fd, out)) != nil, (try? FileSystem.writeAll(fd, body)) != nil,
            (try? SystemCall.rename(temp, path)) != nil
        else {
            remove()
            return nil
        }
        done = true
        return Contents(descriptor: fd, record: record, body: bodyStart + Self.magic.count, length: length, entries: entries, buckets: buckets)
    }

    /// The body of an index of `values`, and its bucket count; `nil` when
    /// a value cannot be encoded or the body would not fit 32-bit offsets.
    static func body(
        _ values: [(key: PropertyList.Key, value: PropertyList)], spans: [UInt32]?
    ) -> (data: [UInt8], buckets: Int)? {
        let buckets = bucketCount(values.count)
        guard buckets <= Int(UInt32.max) else { return nil }
        var table = [UInt32](repeating: emptyBucket, count: buckets)
        var entries = [UInt32]()
        entries.reserveCapacity(values.count * 5)
        var data = [UInt8]()
        let dataStart = buckets * 4 + values.count * entrySize
        for (i, (key, value)) in values.enumerated() {
            let start = data.count
            let keyLength = key.withBytes { k -> Int in
                data += k
                var bucket = Int(truncatingIfNeeded: ContentHash.of(k)) & (buckets - 1)
                while table[bucket] != emptyBucket { bucket = (bucket + 1) & (buckets - 1) }
                table[bucket] = UInt32(i + 1)
                return k.count
            }
            guard Contents.encodeValue(value, &data) else { return nil }
            let xmlLength = spans?[i] ?? 0
            let sum = data.withUnsafeBytes { Self.check(UnsafeRawBufferPointer(rebasing: $0[start...]), entry: i, xmlLength: xmlLength) }
            entries.append(UInt32(truncatingIfNeeded: dataStart + start))
            entries.append(UInt32(keyLength))
            entries.append(UInt32(truncatingIfNeeded: data.count - start - keyLength))
            entries.append(xmlLength)
            entries.append(sum)
        }
        guard dataStart + data.count <= Int(UInt32.max) else { return nil }
        var body = [UInt8]()
        body.reserveCapacity(dataStart + data.count)
        // Little-endian in the file: the same bytes as in memory here.
        for i in table.indices { table[i] = table[i].littleEndian }
        for i in entries.indices { entries[i] = entries[i].littleEndian }
        table.withUnsafeBytes { body += $0 }
        entries.withUnsafeBytes { body += $0 }
        body += data
        return (body, buckets)
    }

    /// The number of buckets of an index of `count` entries: a power of
    /// two, at least twice the entries.
    static func bucketCount(_ count: Int) -> Int {
        var buckets = 8
        while buckets < count * 2 { buckets *= 2 }
        return buckets
    }

    /// An entry's check: its key and value bytes, its number and the length
    /// of its XML text, hashed, never 0. The number and the length are
    /// mixed in last, so that an entry moved or given another text length
    /// gets its new check from the old one (``moved(_:from:to:)``).
    static func check(_ bytes: UnsafeRawBufferPointer, entry: Int, xmlLength: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: ContentHash.of(bytes)) ^ mix(entry: entry, xmlLength: xmlLength) | 1
    }

    /// The check of an entry of check `check` and number `from` once it
    /// is number `to`, its bytes and text unchanged.
    static func moved(_ check: UInt32, from: Int, to: Int) -> UInt32 {
        check ^ mix(entry: from, xmlLength: 0) ^ mix(entry: to, xmlLength: 0) | 1
    }

    @inline(__always)
    private static func mix(entry: Int, xmlLength: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(entry) &* 0x9E37_79B9_7F4A_7C15) ^ (xmlLength &* 0x85EB_CA6B)
    }

    /// The check of a header: its first 120 bytes, and the path after them
    /// (from the header itself, or `path` while it is being written).
    fileprivate static func headerCheck(_ b: UnsafeRawBufferPointer, path: [UInt8]? = nil) -> UInt64 {
        var bytes = Array(b[0..<120])
        if let path { bytes += path } else { bytes += b[headerSize...] }
        return bytes.withUnsafeBytes { ContentHash.of($0) }
    }

    /// Removes the index (its domain file went away, or it no longer
    /// describes it).
    func remove() {
        try? SystemCall.unlink(path)
    }

    /// Reads `buffer.count` bytes of `fd` at `offset` into `buffer`.
    static func pread(_ fd: Int32, _ buffer: inout [UInt8], _ offset: Int) -> Bool {
        buffer.withUnsafeMutableBytes { pread(fd, $0, offset) }
    }

    /// Reads `buffer.count` bytes of `fd` at `offset` into `buffer`.
    static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> Bool {
        var done = 0
        while done < buffer.count {
            guard let n = try? SystemCall.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done), n > 0
            else { return false }
            done += n
        }
        return true
    }

    /// Whether `dir` is a directory of this user that nobody else can write.
    private static func isOwnPrivateDirectory(_ dir: String) -> Bool {
        guard let st = try? SystemCall.lstat(dir) else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR && st.st_uid == geteuid() && st.st_mode & 0o022 == 0
    }

    static func load32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    private static func load64(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }
    private static func append32(_ v: UInt32, _ out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out += $0 }
    }
    private static func append64(_ v: UInt64, _ out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out += $0 }
    }
}

/// A fast 64-bit hash of bytes, the same in every process and on every
/// machine (Swift's `Hasher` is seeded per process). Not cryptographic:
/// it places keys in an index's buckets and notices accidental damage; it
/// does not resist someone choosing the bytes (a file's content is
/// compared with ``SipHash``).
enum ContentHash {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let m1: UInt64 = 0x9E37_79B9_7F4A_7C15
        let m2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        let n = bytes.count
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (UInt64(n) ^ m1, m2, m1 &+ m2, 0x1656_67B1_9E37_79F9)
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let x = h ^ (w &* m2)
            return ((x << 29) | (x >> 35)) &* m1
        }
        var i = 0
        while i + 32 <= n {
            lanes.0 = mix(lanes.0, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            lanes.1 = mix(lanes.1, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
            lanes.2 = mix(lanes.2, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)))
            lanes.3 = mix(lanes.3, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)))
            i += 32
        }
        var h = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        while i + 8 <= n {
            h = mix(h, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = mix(h, tail)
        // A final avalanche, so that every input bit reaches every output bit.
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
