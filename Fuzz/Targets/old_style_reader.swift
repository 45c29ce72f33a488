@testable import PrefsCore

/// The old-style (OpenStep) text reader on arbitrary bytes. What it accepts
/// prints, and unless it holds data (printed as `defaults read` shows it,
/// `{length = N, bytes = 0x...}`, which is not the syntax the reader takes)
/// the printed text reads back as the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let v = try? OldStylePlist.parse(bytes) else { return 0 }
    let text = OldStylePlist.format(v)
    guard !holdsData(v) else { return 0 }
    guard let again = try? OldStylePlist.parse(text) else { failure("printed text does not read back: \(text.prefix(200))") }
    if again != v { failure("printed text reads back as another value: \(text.prefix(200))") }
    return 0
}

func holdsData(_ v: PropertyList) -> Bool {
    switch v.value {
    case .data: return true
    case .array(let items): return items.contains(where: holdsData)
    case .dictionary(let entries): return entries.values.contains(where: holdsData)
    default: return false
    }
}
