import PrefsCore

/// The value grammar of `prefs write D K ...` on the input's NUL-separated
/// words: it gives an edit or a refusal, and every value it gives is one a
/// property list can hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let args = words(UnsafeRawBufferPointer(start: data, count: size))
    let edit: ValueGrammar.Edit
    do throws(Failure) {
        edit = try ValueGrammar.parse(args[...])
    } catch {
        if error.message.isEmpty { failure("a refusal without a message") }
        return 0
    }
    var values: [PropertyList] = []
    switch edit {
    case .set(let v): values = [v]
    case .arrayAdd(let items): values = items
    case .dictAdd(let entries): values = entries.map { $0.1 }
    }
    for v in values {
        if v.depth >= PropertyList.maxNesting { failure("a value nests \(v.depth) levels") }
        _ = try? v.xmlData()
    }
    return 0
}
