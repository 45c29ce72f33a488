import Glibc

/// A cache of one domain file's values in binary form, so that a new
/// process reads a key of a domain without parsing its XML (and without
/// loading libxml2), and without decoding the other keys.
///
/// The XML file stays the one truth. An index lives in the user's cache
/// directory (`$XDG_CACHE_HOME/prefs`, see ``Locations/indexDirectory``),
/// one file per domain file. Integers are little-endian; offsets count from
/// the start of the body, which follows the path:
///
/// | bytes | what |
/// |---|---|
/// | 8 | `prefsidx` |
/// | 4 | format version (3) |
/// | 4 | length of the domain file's path |
/// | 8 | size of the XML file the index was made from |
/// | 8 | ``ContentHash`` of that file's bytes |
/// | 8 | ``ContentHash`` of the body |
/// | 4, 4 | number of entries; number of hash buckets (a power of two) |
/// | n | the domain file's path |
/// | 4 × buckets | per bucket, 1 + the index of an entry, or 0 |
/// | 16 × entries | per entry, offset and length of its key, of its value |
/// | rest | keys (UTF-8) and values (see ``Contents/decodeValue(_:)``) |
///
/// Entries are in the order of the keys' bytes, the order the XML file
/// lists them in, so that a writer that reads another's index need not sort.
///
/// A key's bucket is its ``ContentHash`` modulo the bucket count, then the
/// next ones in turn (open addressing). The layout has no pointers, so it
/// could be mapped; it is read with one `read` instead, because a mapped
/// file that another process truncates kills the reader (SIGBUS).
///
/// A reader uses an index only when it is a regular file of this user, not
/// writable by anyone else, whose path is the domain's, whose XML size and
/// hash are those of the bytes the reader has just read from the domain
/// file, and whose body hashes as recorded. The XML's content is checked,
/// not only its identity (device, inode, size, modification time): file
/// times are as coarse as the kernel's clock tick, so an edit of the same
/// size within one tick, or a copy that keeps the time, keeps the identity.
/// Otherwise the XML is parsed as if there were no index, and the index is
/// made anew. An index is therefore never trusted over the XML: at worst it
/// costs a parse.
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
    /// 3: UIDs are values of their own (2 read them as `CF$UID` dictionaries).
    static let version: UInt32 = 3
    static let headerSize = 48

    /// The index of the domain file at `domainPath`, in `directory`.
    init(domainPath: String, directory: String) {
        self.domainPath = domainPath
        let name = FileSystem.lastComponent(of: domainPath)
        let h = String(FileSystem.stableHash(domainPath), radix: 16)
        // The name's start is only for people looking at the directory.
        path = directory + "/" + String(decoding: name.utf8.prefix(100), as: UTF8.self) + "." + String(repeating: "0", count: 16 - h.utf8.count) + h + ".index"
    }

    /// The index's contents for the domain file whose bytes have the
    /// fingerprint `xml`, or `nil` when there is no index that can be used
    /// for them.
    func contents(for xml: Domain.Fingerprint) -> Contents? {
        guard let bytes = readOwnFile() else { return nil }
        let header = bytes.withUnsafeBytes { b -> (body: Int, entries: Int, buckets: Int)? in
            guard b.count >= Self.headerSize, b.starts(with: Self.magic) else { return nil }
            let pathBytes = domainPath.utf8
            let bodyStart = Self.headerSize + pathBytes.count
            guard Self.load32(b, 8) == Self.version, Int(Self.load32(b, 12)) == pathBytes.count,
                Self.load64(b, 16) == UInt64(xml.count), Self.load64(b, 24) == xml.hash, b.count >= bodyStart,
                UnsafeRawBufferPointer(rebasing: b[Self.headerSize..<bodyStart]).elementsEqual(pathBytes)
            else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: b[bodyStart...])
            let entries = Int(Self.load32(b, 40))
            let buckets = Int(Self.load32(b, 44))
            guard buckets > 0, buckets & (buckets - 1) == 0, entries < buckets,
                buckets * 4 + entries * 16 <= body.count,
                Self.load64(b, 32) == ContentHash.of(body)
            else { return nil }
            return (bodyStart, entries, buckets)
        }
        guard let header else { return nil }
        return Contents(bytes: bytes, body: header.body, entries: header.entries, buckets: header.buckets)
    }

    /// An index read and checked: lookups of single keys. Immutable.
    final class Contents: @unchecked Sendable {
        private let bytes: [UInt8]
        private let body: Int
        private let entries: Int
        private let buckets: Int

        fileprivate init(bytes: [UInt8], body: Int, entries: Int, buckets: Int) {
            self.bytes = bytes
            self.body = body
            self.entries = entries
            self.buckets = buckets
        }

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
            bytes.withUnsafeBytes { all in
                let b = UnsafeRawBufferPointer(rebasing: all[body...])
                return key.withBytes { k -> Found in
                    var bucket = Int(truncatingIfNeeded: ContentHash.of(k)) & (buckets - 1)
                    for _ in 0..<buckets {
                        let slot = Int(DomainIndex.load32(b, bucket * 4))
                        if slot == 0 { return .absent }
                        guard let (keyBytes, valueBytes) = entry(slot - 1, b) else { return .corrupt }
                        if keyBytes.count == k.count && (k.count == 0 || memcmp(keyBytes.baseAddress!, k.baseAddress!, k.count) == 0) {
                            guard let v = Contents.decodeValue(valueBytes) else { return .corrupt }
                            return .value(v)
                        }
                        bucket = (bucket + 1) & (buckets - 1)
                    }
                    return .absent
                }
            }
        }

        /// Every key and value, and the entries in the index's order when it
        /// is the written order (each key after the one before, by bytes);
        /// `nil` when an entry is not what this library writes.
        func allValues() -> (values: PropertyListDictionary, order: [(key: PropertyList.Key, value: PropertyList)]?)? {
            bytes.withUnsafeBytes { all -> (PropertyListDictionary, [(key: PropertyList.Key, value: PropertyList)]?)? in
                let b = UnsafeRawBufferPointer(rebasing: all[body...])
                var out = PropertyListDictionary(minimumCapacity: entries)
                var order: [(key: PropertyList.Key, value: PropertyList)]? = []
                order!.reserveCapacity(entries)
                var previous: UnsafeRawBufferPointer? = nil
                for i in 0..<entries {
                    guard let (k, v) = entry(i, b), let value = Contents.decodeValue(v) else { return nil }
                    let key = PropertyList.Key(String(decoding: k, as: UTF8.self))
                    out[key] = value
                    if order != nil, let p = previous, !p.lexicographicallyPrecedes(k) { order = nil }
                    order?.append((key, value))
                    previous = k
                }
                return (out, order)
            }
        }

        /// The key and value bytes of entry `i`, when they lie in the body.
        private func entry(_ i: Int, _ b: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
            guard i < entries else { return nil }
            let at = buckets * 4 + i * 16
            let ko = Int(DomainIndex.load32(b, at)), kl = Int(DomainIndex.load32(b, at + 4))
            let vo = Int(DomainIndex.load32(b, at + 8)), vl = Int(DomainIndex.load32(b, at + 12))
            guard ko <= b.count, kl <= b.count - ko, vo <= b.count, vl <= b.count - vo else { return nil }
            return (UnsafeRawBufferPointer(rebasing: b[ko..<ko + kl]), UnsafeRawBufferPointer(rebasing: b[vo..<vo + vl]))
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
    /// domain file whose bytes have the fingerprint `xml` holds. Best
    /// effort: an index that cannot be written is simply not there, and the
    /// next reader parses the XML. A writer makes the cache
    /// directory when it is missing; a reader only makes `prefs` in an
    /// existing one, so that reading never creates `$HOME` or `.cache`.
    func save(_ values: [(key: PropertyList.Key, value: PropertyList)], for xml: Domain.Fingerprint, byWriter: Bool) {
        var buckets = 8
        while buckets < values.count * 2 { buckets *= 2 }
        guard buckets <= Int(UInt32.max) else { return }
        var table = [UInt32](repeating: 0, count: buckets)
        var entries = [UInt32]()
        entries.reserveCapacity(values.count * 4)
        var data = [UInt8]()
        let dataStart = buckets * 4 + values.count * 16
        for (i, (key, value)) in values.enumerated() {
            let keyOffset = dataStart + data.count
            let keyLength = key.withBytes { k -> Int in
                data += k
                var bucket = Int(truncatingIfNeeded: ContentHash.of(k)) & (buckets - 1)
                while table[bucket] != 0 { bucket = (bucket + 1) & (buckets - 1) }
                table[bucket] = UInt32(i + 1)
                return k.count
            }
            let valueOffset = dataStart + data.count
            guard Contents.encodeValue(value, &data) else { return }
            entries.append(UInt32(keyOffset))
            entries.append(UInt32(keyLength))
            entries.append(UInt32(valueOffset))
            entries.append(UInt32(dataStart + data.count - valueOffset))
        }
        guard dataStart + data.count <= Int(UInt32.max) else { return }
        var body = [UInt8]()
        body.reserveCapacity(dataStart + data.count)
        // Little-endian in the file: the same bytes as in memory here.
        for i in table.indices { table[i] = table[i].littleEndian }
        for i in entries.indices { entries[i] = entries[i].littleEndian }
        table.withUnsafeBytes { body += $0 }
        entries.withUnsafeBytes { body += $0 }
        body += data
        let pathBytes = Array(domainPath.utf8)
        var out = Self.magic
        out.reserveCapacity(Self.headerSize + pathBytes.count + body.count)
        Self.append32(Self.version, &out)
        Self.append32(UInt32(pathBytes.count), &out)
        Self.append64(UInt64(xml.count), &out)
        Self.append64(xml.hash, &out)
        Self.append64(body.withUnsafeBytes { ContentHash.of($0) }, &out)
        Self.append32(UInt32(values.count), &out)
        Self.append32(UInt32(buckets), &out)
        out += pathBytes
        out += body
        let dir = FileSystem.parent(of: path)
        if byWriter {
            guard (try? FileSystem.makeDirectories(dir, mode: 0o700)) != nil else { return }
        } else if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            return
        }
        guard Self.isOwnPrivateDirectory(dir) else { return }
        try? FileSystem.replaceCacheFile(path, with: out)
    }

    /// Removes the index (its domain file went away).
    func remove() {
        unlink(path)
    }

    /// The index file's bytes, when it is a regular file of this user that
    /// nobody else can write; `nil` otherwise (a symlink included).
    private func readOwnFile() -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), st.st_mode & 0o022 == 0,
            st.st_size <= FileSystem.maximumFileSize * 2
        else { return nil }
        return try? FileSystem.readToEnd(descriptor: fd, name: path)
    }

    /// Whether `dir` is a directory of this user that nobody else can write.
    private static func isOwnPrivateDirectory(_ dir: String) -> Bool {
        var st = stat()
        return lstat(dir, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR && st.st_uid == geteuid() && st.st_mode & 0o022 == 0
    }

    fileprivate static func load32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
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
/// machine (Swift's `Hasher` is seeded per process). Not cryptographic: it
/// tells a file's versions apart, it does not resist someone choosing them.
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
