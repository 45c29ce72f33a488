@testable import PrefsCore

/// The XML reader on arbitrary bytes: it returns a value or an error,
/// never crashes, hangs or leaks, and what it returns keeps to the limits.
/// The partial read of a few keys (``XMLReader/readEntries(_:only:)``)
/// runs on the same bytes: when it returns entries, the whole read returns
/// a dictionary with the same values for those keys.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let whole = Result(catching: { () throws(PrefsError) in try XMLReader.read(bytes) })
    switch whole {
    case .success(let v):
        if v.depth >= PropertyList.maxNesting { failure("a value nests \(v.depth) levels") }
    case .failure(let e):
        if e.message.isEmpty { failure("an error without a message") }
    }
    // Wanted: "a", "key3", and the whole read's smallest key when it has one.
    var wanted = ["a", "key3"]
    let entries = (try? whole.get())?.dictionaryValue
    if let first = entries?.keys.min() { wanted.append(first.string) }
    if let part = XMLReader.readEntries(bytes, only: wanted) {
        guard let entries else { failure("a partial read of a document the whole read does not take as a dictionary") }
        if part.count < entries.count { failure("a partial read counts \(part.count) entries of \(entries.count)") }
        if part.values != entries.filter({ wanted.contains($0.key.string) }) { failure("a partial read's values differ") }
    }
    return 0
}
