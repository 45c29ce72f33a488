@testable import PrefsCore

/// Parse, write, parse: whatever parses (XML, binary or old-style text)
/// reads back from binary as an equal value; what can be written as XML
/// reads back equal too, and writing refuses only what XML cannot carry;
/// a set's check of the value agrees with a trial write of it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let v = try? PropertyList.parse(bytes) else { return 0 }
    // A set's check, which skips the trial write for plain values, takes
    // and refuses exactly what the trial write of the value does.
    let trial: PrefsError.Code?
    do throws(PrefsError) {
        _ = try XMLWriter.carries(PropertyList(.dictionary(["k": v])))
        trial = nil
    } catch {
        trial = error.code
    }
    do throws(PrefsError) {
        try PropertyList.checkStorable(v, forKey: "k")
        if trial != nil { failure("a set's check takes a value the trial write refuses") }
    } catch {
        if error.code != trial { failure("a set's check refuses with \(error.code), the trial write with \(String(describing: trial))") }
    }
    // A set's check of a key's bytes (the C API's): a string that passes
    // it as a key, under which the value passes too, is one the trial
    // write carries.
    if case .string(var text) = v.value {
        let plain = text.withUTF8 { PropertyList.isPlainlyStorable(v, keyBytes: UnsafeRawBufferPointer($0)) }
        if plain && (try? XMLWriter.carries(PropertyList(.dictionary([PropertyList.Key(text): v])))) == nil {
            failure("a set's check of a key's bytes takes a key the trial write refuses")
        }
    }
    // Binary carries every value (UIDs, control characters, any date),
    // bit for bit.
    if v.depth < PropertyList.maxNesting {
        guard let binary = try? v.binaryData() else { failure("binary writing refused a value") }
        guard let back = try? PropertyList.parse(binary), back == v else { failure("written binary reads back as another value") }
    }
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
