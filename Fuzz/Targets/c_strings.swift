import CPrefs

/// A C string argument through the C face (keys, here those of
/// `PrefsDictionaryCreate` and `PrefsDictionaryGetValue`): the input up to
/// its first NUL is accepted exactly when Swift reads it as valid UTF-8 (the
/// check looks at eight bytes at a time, whatever the length and the
/// alignment), refused with `kPrefsErrorInvalidArgument` otherwise, and an
/// accepted key finds its value again, byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // Shifted by the first byte, so that the string starts at every alignment.
    let shift = Int(input.first ?? 0) % 8
    let text = Array(input.dropFirst().prefix { $0 != 0 })
    var buffer = [CChar](repeating: 1, count: shift + text.count + 1)
    for (i, b) in text.enumerated() { buffer[shift + i] = CChar(bitPattern: b) }
    buffer[shift + text.count] = 0
    let valid = String(validating: text, as: UTF8.self) != nil
    let value = PrefsNumberCreateInt64(Int64(text.count))
    buffer.withUnsafeBufferPointer { b in
        let key = b.baseAddress! + shift
        var keys: [UnsafePointer<CChar>?] = [key]
        var values: [UnsafeRawPointer?] = [UnsafeRawPointer(value)]
        let d = PrefsDictionaryCreate(&keys, &values, 1)
        guard let d else {
            if valid { failure("valid UTF-8 refused") }
            guard let e = PrefsCopyLastError() else { failure("refused without an error") }
            if PrefsErrorGetCode(e) != kPrefsErrorInvalidArgument { failure("refused with another code") }
            PrefsRelease(UnsafeRawPointer(e))
            return
        }
        if !valid { failure("invalid UTF-8 accepted") }
        if PrefsDictionaryGetValue(d, key) != UnsafeRawPointer(value) { failure("the key does not find its value") }
        PrefsRelease(UnsafeRawPointer(d))
    }
    PrefsRelease(UnsafeRawPointer(value))
    return 0
}
