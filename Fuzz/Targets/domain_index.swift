import Glibc

@testable import PrefsCore

/// A domain index file (the binary cache of a domain in
/// `$XDG_CACHE_HOME/prefs`), which anyone able to write the user's cache
/// can shape. The input is the index's counts and body (4 bytes of entry
/// count, 4 of bucket count, then the bucket table, entries and data); the
/// target gives it a header that checks, recording the identity of a real
/// XML file beside it as made after that file's times (not racy), so that
/// the lookups and the full decoding behind it are reached. Nothing may
/// crash or hang; what decodes whole agrees with single lookups where keys
/// are unique. The body is also spliced (a writer's commit) into an XML
/// file made to fit the entries' text lengths: a splice that is made must
/// give an index whose every entry a reader finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard input.count >= 8 else { return 0 }
    let path = directory + "/com.example.fuzz.plist"
    guard
        let xml = try? FileSystem.stamp(path)
            ?? {
                try FileSystem.replaceAtomically(path, with: Array("<plist version=\"1.0\"><dict/></plist>".utf8), mode: 0o600)
                return try FileSystem.stamp(path)
            }()
    else { failure("cannot write the XML file") }
    let body = UnsafeRawBufferPointer(rebasing: input[8...])
    var file = Array("prefsidx".utf8)
    func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { file += $0 } }
    append(DomainIndex.version)
    append(UInt32(path.utf8.count))
    for v in [xml.device, xml.inode, UInt64(bitPattern: xml.size), UInt64(bitPattern: xml.mtimeSeconds)] { append(v) }
    for v in [xml.mtimeNanoseconds, xml.ctimeNanoseconds, Int64.max] { append(v) }
    for _ in 0..<4 { append(UInt64(0)) }
    append(UInt64(DomainIndex.headerSize + path.utf8.count + body.count))
    file += input[0..<8]
    append((file + Array(path.utf8)).withUnsafeBytes { ContentHash.of($0) })
    file += path.utf8
    file += body
    let index = DomainIndex(domainPath: path, directory: directory)
    guard (try? FileSystem.replaceCacheFile(index.path, with: file)) != nil else { failure("cannot write the index") }
    guard let contents = index.contents(for: xml, content: { failure("a non-racy index asked for the XML") }) else { return 0 }
    for key in ["", "a", "key0", "FontSize"] { _ = contents.value(forKey: PropertyList.Key(key)) }
    splice(contents)
    if let all = contents.allValues(), all.values.count == contents.count {
        // Unique keys: each one's lookup finds what the decoding found.
        for (k, v) in all.values.prefix(64) {
            if case .value(let found) = contents.value(forKey: k), found != v {
                failure("a lookup of \(k) found another value than the decoding")
            }
        }
    }
    return 0
}

/// Splices a few changes into the index's body and an XML file whose
/// entries' texts have the lengths the entries give (filler bytes: the
/// splice copies them, it does not read them).
private func splice(_ contents: DomainIndex.Contents) {
    guard let body = contents.rawBody(), contents.buckets <= 1 << 16, contents.entries <= 4096 else { return }
    var xml = XMLWriter.domainPrefix
    body.withUnsafeBytes { b in
        for i in 0..<contents.entries {
            let at = contents.buckets * 4 + i * DomainIndex.entrySize
            guard at + DomainIndex.entrySize <= b.count else { return }
            let text = Int(DomainIndex.load32(b, at + 12))
            guard text <= 1 << 16, xml.count < 1 << 22 else { return }
            xml += repeatElement(UInt8(ascii: "x"), count: text)
        }
    }
    xml += contents.entries == 0 ? [] : XMLWriter.domainSuffix
    if contents.entries == 0 { xml = XMLWriter.emptyDomain }
    let changes: [PropertyList.Key: PropertyList?] = ["": .some(1), "a": .some("b"), "key0": nil, "FontSize": .some(.array([1]))]
    guard
        let new = DomainIndex.splice(
            old: body, entries: contents.entries, buckets: contents.buckets, xml: xml, changes: changes)
    else { return }
    guard new.xml.starts(with: XMLWriter.header) else { failure("a splice lost the XML header") }
    // With the old keys in order and unique, a reader finds each key set
    // and not the one removed.
    let ordered = body.withUnsafeBytes { b -> Bool in
        var previous: UnsafeRawBufferPointer? = nil
        for i in 0..<contents.entries {
            let at = contents.buckets * 4 + i * DomainIndex.entrySize
            let offset = Int(DomainIndex.load32(b, at)), length = Int(DomainIndex.load32(b, at + 4))
            let key = UnsafeRawBufferPointer(rebasing: b[offset..<offset + length])
            if let p = previous, !p.lexicographicallyPrecedes(key) { return false }
            previous = key
        }
        return true
    }
    guard ordered else { return }
    new.body.withUnsafeBytes { b in
        let mask = new.buckets - 1
        for (key, value) in changes {
            var bucket = key.withBytes { Int(truncatingIfNeeded: ContentHash.of($0)) } & mask
            var found = false
            for _ in 0...mask {
                let slot = DomainIndex.load32(b, bucket * 4)
                if slot == DomainIndex.emptyBucket { break }
                guard slot >= 1, Int(slot) <= new.entries else { failure("a spliced bucket names no entry") }
                let at = new.buckets * 4 + (Int(slot) - 1) * DomainIndex.entrySize
                let offset = Int(DomainIndex.load32(b, at)), length = Int(DomainIndex.load32(b, at + 4))
                guard offset + length <= b.count else { failure("a spliced entry's key is out of bounds") }
                if key.withBytes({ UnsafeRawBufferPointer(rebasing: b[offset..<offset + length]).elementsEqual($0) }) {
                    found = true
                    break
                }
                bucket = (bucket + 1) & mask
            }
            if found != (value != nil) { failure("after a splice, \(key.string) is \(found ? "found" : "missing")") }
        }
    }
}

/// A private directory for this process's index file.
private let directory: String = {
    var template = Array("/tmp/prefs-fuzz-index.XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { failure("mkdtemp") }
    return String(cString: made)
}()
