import CPrefs

/// `PrefsPropertyListCreateWithData` through the C face, as a C program
/// calls it, with what a caller then does with the result: describe it,
/// write it as XML, release everything.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var error: PrefsErrorRef? = nil
    guard let v = PrefsPropertyListCreateWithData(data, size, &error) else {
        guard let error else { failure("NULL without an error") }
        if PrefsErrorGetCode(error) == kPrefsErrorInternal { failure("internal error") }
        PrefsFree(PrefsErrorCopyDescription(error))
        PrefsRelease(UnsafeRawPointer(error))
        return 0
    }
    if error != nil { failure("a value and an error") }
    PrefsFree(PrefsCopyDescription(v))
    var writeError: PrefsErrorRef? = nil
    if let xml = PrefsPropertyListCreateXMLData(v, &writeError) {
        PrefsRelease(UnsafeRawPointer(xml))
    } else if let writeError {
        PrefsRelease(UnsafeRawPointer(writeError))
    }
    PrefsRelease(v)
    return 0
}
