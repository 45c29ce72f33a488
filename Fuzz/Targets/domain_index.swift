import Glibc

@testable import PrefsCore

/// A domain index file (the binary cache of a domain in
/// `$XDG_CACHE_HOME/prefs`), which anyone able to write the user's cache
/// can shape. The input is the index's counts and body (4 bytes of entry
/// count, 4 of bucket count, then the bucket table, entries and data); the
/// target gives it a header whose hashes match, so that the lookups and
/// the full decoding behind them are reached. Nothing may crash or hang;
/// what decodes whole agrees with single lookups where keys are unique.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard input.count >= 8 else { return 0 }
    let xml = Array("<plist version=\"1.0\"><dict/></plist>".utf8)
    let path = directory + "/com.example.fuzz.plist"
    let body = UnsafeRawBufferPointer(rebasing: input[8...])
    var file = Array("prefsidx".utf8)
    func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { file += $0 } }
    append(UInt32(2))
    append(UInt32(path.utf8.count))
    append(UInt64(xml.count))
    append(xml.withUnsafeBytes { ContentHash.of($0) })
    append(ContentHash.of(body))
    file += input[0..<8]
    file += path.utf8
    file += body
    let index = DomainIndex(domainPath: path, directory: directory)
    guard (try? FileSystem.replaceCacheFile(index.path, with: file)) != nil else { failure("cannot write the index") }
    guard let contents = index.contents(for: Domain.Fingerprint(xml)) else { return 0 }
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
