@testable import PrefsCore

/// The XML reader on arbitrary bytes: it returns a value or an error,
/// never crashes, hangs or leaks, and what it returns keeps to the limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    switch Result(catching: { () throws(PrefsError) in try XMLReader.read(bytes) }) {
    case .success(let v):
        if v.depth >= PropertyList.maxNesting { failure("a value nests \(v.depth) levels") }
    case .failure(let e):
        if e.message.isEmpty { failure("an error without a message") }
    }
    return 0
}
