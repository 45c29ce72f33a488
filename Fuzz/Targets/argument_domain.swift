@testable import PrefsCore

/// The argument domain's parser on a command line made of the input's
/// NUL-separated words, and the typed getters on every value it stores.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let args = ["program"] + words(UnsafeRawBufferPointer(start: data, count: size))
    let domain = ArgumentDomain.parse(args)
    if domain.count > args.count / 2 { failure("more pairs than arguments allow") }
    for (_, value) in domain {
        _ = Coercion.boolean(value)
        _ = Coercion.integer(value)
    }
    return 0
}
