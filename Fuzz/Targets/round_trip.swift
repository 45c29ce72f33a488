@testable import PrefsCore

/// Parse, write, parse: whatever parses (XML or old-style text) and can be
/// written reads back as an equal value, and writing refuses only what XML
/// cannot carry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let v = try? PropertyList.parse(bytes) else { return 0 }
    let xml: [UInt8]
    do throws(PrefsError) {
        xml = try v.xmlData()
    } catch {
        if error.code != .unrepresentable { failure("writing refused with \(error.code): \(error.message)") }
        return 0
    }
    let again: PropertyList
    do throws(PrefsError) {
        again = try PropertyList.parse(xml)
    } catch {
        failure("written XML does not read back: \(error.message)")
    }
    if again != v { failure("written XML reads back as another value") }
    guard let second = try? again.xmlData(), second == xml else { failure("writing is not deterministic") }
    return 0
}
