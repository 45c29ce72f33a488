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
/// are unique.
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

/// A private directory for this process's index file.
private let directory: String = {
    var template = Array("/tmp/prefs-fuzz-index.XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { failure("mkdtemp") }
    return String(cString: made)
}()
