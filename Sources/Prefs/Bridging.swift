import CPrefs
import CProcessHooks
import Glibc
import PrefsCore

// How C handles map to Swift objects. A `PrefsTypeRef` is an unmanaged
// pointer to either a core `PropertyList` (shared with the core, never
// copied) or an `ErrorObject`; the C reference count is the Swift one.

/// The C face of a `PrefsError`.
final class ErrorObject {
    let error: PrefsError
    init(_ error: PrefsError) { self.error = error }
}

@inline(__always)
func anyObject(_ p: UnsafeRawPointer) -> AnyObject {
    Unmanaged<AnyObject>.fromOpaque(p).takeUnretainedValue()
}

/// The property list behind a handle; `nil` for NULL or another kind of object.
@inline(__always)
func plist(_ p: UnsafeRawPointer?) -> PropertyList? {
    guard let p, isPlist(p) else { return nil }
    return Unmanaged<PropertyList>.fromOpaque(p).takeUnretainedValue()
}

@inline(__always)
func plist(_ p: OpaquePointer?) -> PropertyList? { plist(UnsafeRawPointer(p)) }

/// Whether the object behind a non-NULL handle is a property list, told by
/// its type (an object's first word) without counting a reference: the
/// check of ``plist(_:)``, and of a caller that owns the handle for the
/// call and then borrows it (``borrowPlist(_:_:)``).
@inline(__always)
func isPlist(_ p: UnsafeRawPointer) -> Bool {
    p.load(as: UnsafeRawPointer.self) == unsafeBitCast(PropertyList.self, to: UnsafeRawPointer.self)
}

/// Runs `body` with the property list behind `p` (checked by ``isPlist(_:)``)
/// borrowed: no reference counted, since the caller's handle keeps it alive
/// for the call.
@inline(__always)
func borrowPlist<R>(_ p: UnsafeRawPointer, _ body: (PropertyList) -> R) -> R {
    Unmanaged<PropertyList>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
}

/// The error behind a handle; `nil` for NULL or another kind of object.
func errorObject(_ p: OpaquePointer?) -> ErrorObject? {
    guard let p else { return nil }
    return anyObject(UnsafeRawPointer(p)) as? ErrorObject
}

/// A +1 handle for `v`.
@inline(__always)
func retained(_ v: PropertyList) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(v).toOpaque())
}

/// A borrowed handle for `v`, valid while something else keeps `v` alive.
@inline(__always)
func borrowed(_ v: PropertyList) -> UnsafeRawPointer {
    UnsafeRawPointer(Unmanaged.passUnretained(v).toOpaque())
}

/// A new `malloc`ed NUL-terminated copy of `s`, for the caller to `PrefsFree`.
func mallocCString(_ s: String) -> UnsafeMutablePointer<CChar>? {
    var s = s
    return s.withUTF8 { u in
        guard let p = malloc(u.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        if u.count > 0 { memcpy(p, u.baseAddress!, u.count) }
        p[u.count] = 0
        return p
    }
}

// MARK: C arguments

/// The bytes of a NUL-terminated C string argument (without the NUL),
/// checked to be UTF-8. The one way C strings enter the library: keys,
/// application IDs, user and host names, domain names, paths and arguments
/// all pass here, so that invalid bytes are refused
/// (`kPrefsErrorInvalidArgument`) and never replaced by U+FFFD, which
/// would let two different byte strings name one key or one domain.
@inline(__always)
func utf8Bytes(_ p: UnsafePointer<CChar>, _ what: @autoclosure () -> String) throws(PrefsError) -> UnsafeRawBufferPointer {
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    // Most arguments are ASCII: checked without building a string.
    if isASCII(bytes) { return UnsafeRawBufferPointer(bytes) }
    return try nonASCIIBytes(bytes, what)
}

/// The rest of ``utf8Bytes(_:_:)``, for arguments that are not ASCII.
@inline(never)
private func nonASCIIBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws(PrefsError) -> UnsafeRawBufferPointer {
    guard String(validating: bytes, as: UTF8.self) != nil else {
        throw PrefsError(.invalidArgument, "\(what()) is not valid UTF-8")
    }
    return UnsafeRawBufferPointer(bytes)
}

/// Whether every byte of `bytes` is below 0x80, looked at eight at a time.
@inline(__always)
func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let p = UnsafeRawPointer(base)
    let n = bytes.count
    var any: UInt64 = 0
    if n >= 8 {
        var i = 0
        while i + 8 <= n {
            any |= p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        // The last eight bytes, which may overlap those already seen.
        any |= p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    } else {
        for i in 0..<n { any |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
    }
    return any & 0x8080_8080_8080_8080 == 0
}

/// A C string argument as a string, checked as ``utf8Bytes(_:_:)`` checks it.
func utf8String(_ p: UnsafePointer<CChar>, _ what: @autoclosure () -> String) throws(PrefsError) -> String {
    String(decoding: try utf8Bytes(p, what()), as: UTF8.self)
}

/// ``utf8String(_:_:)`` for functions that report through
/// PrefsCopyLastError: records the refusal and returns nil.
func utf8Argument(_ p: UnsafePointer<CChar>, _ what: @autoclosure () -> String) -> String? {
    do throws(PrefsError) {
        return try utf8String(p, what())
    } catch {
        failed(error)
        return nil
    }
}

/// A `size_t` count or length that fits in `Int`; past `Int.max` it cannot
/// describe real memory, and is refused (recorded) rather than wrapped to a
/// negative number.
func validCount(_ n: Int, _ what: @autoclosure () -> String) -> Bool {
    if n >= 0 { return true }
    refuse("\(what()): \(UInt(bitPattern: n)) is not a possible size")
    return false
}

// MARK: The per-thread record

/// This thread's record (`prefs_thread_state`: its last error and the last
/// application it named), made at its first use; once made, one load of a
/// thread-local variable. Given back when the thread exits.
@inline(__always)
func thisThread() -> UnsafeMutablePointer<prefs_thread_state> {
    if let t = prefs_thread_state() { return t }
    return prefs_thread_state_make { Unmanaged<AnyObject>.fromOpaque($0!).release() }
}

/// Records that this thread's latest call succeeded.
@inline(__always)
func succeeded() {
    if let t = prefs_thread_state() { succeeded(t) }
}

/// ``succeeded()`` with this thread's record at hand.
@inline(__always)
func succeeded(_ t: UnsafeMutablePointer<prefs_thread_state>) {
    if let old = t.pointee.last_error {
        t.pointee.last_error = nil
        Unmanaged<ErrorObject>.fromOpaque(old).release()
    }
}

/// Records `error` as this thread's latest failure.
func failed(_ error: PrefsError) {
    failed(error, thisThread())
}

/// ``failed(_:)`` with this thread's record at hand.
func failed(_ error: PrefsError, _ t: UnsafeMutablePointer<prefs_thread_state>) {
    let old = t.pointee.last_error
    t.pointee.last_error = Unmanaged.passRetained(ErrorObject(error)).toOpaque()
    if let old { Unmanaged<ErrorObject>.fromOpaque(old).release() }
}

/// Records `error`, stores a +1 copy in `outError` when given, and returns `nil`.
func failed<T>(_ error: PrefsError, _ outError: UnsafeMutablePointer<OpaquePointer?>?) -> T? {
    failed(error)
    outError?.pointee = OpaquePointer(Unmanaged.passRetained(ErrorObject(error)).toOpaque())
    return nil
}

func refuse(_ what: String) {
    failed(PrefsError(.invalidArgument, what))
}

/// The error this thread recorded last, +1.
func copyLastError() -> OpaquePointer? {
    guard let p = prefs_thread_state()?.pointee.last_error else { return nil }
    return OpaquePointer(Unmanaged<ErrorObject>.fromOpaque(p).retain().toOpaque())
}

// MARK: First use and fork

/// Every exported function, each with its own first-use flag (see
/// ``FirstUseGate``). A new C function gets a case here.
enum EntryPoint: Int32, CaseIterable {
    case PrefsRetain
    case PrefsRelease
    case PrefsFree
    case PrefsGetType
    case PrefsEqual
    case PrefsCopyDescription
    case PrefsStringCreate
    case PrefsStringCreateWithBytes
    case PrefsStringGetCString
    case PrefsStringGetLength
    case PrefsNumberCreateInt64
    case PrefsNumberCreateUInt64
    case PrefsNumberCreateDouble
    case PrefsNumberGetInt64
    case PrefsNumberGetUInt64
    case PrefsNumberGetDouble
    case PrefsBooleanCreate
    case PrefsBooleanGetValue
    case PrefsDateCreate
    case PrefsDateGetUnixTime
    case PrefsUIDCreate
    case PrefsUIDGetValue
    case PrefsDataCreate
    case PrefsDataGetBytePtr
    case PrefsDataGetLength
    case PrefsArrayCreate
    case PrefsArrayGetCount
    case PrefsArrayGetValueAtIndex
    case PrefsDictionaryCreate
    case PrefsDictionaryGetCount
    case PrefsDictionaryGetValue
    case PrefsDictionaryCopyKeys
    case PrefsPropertyListCreateWithData
    case PrefsPropertyListCreateXMLData
    case PrefsPropertyListCreateData
    case PrefsCopyLastError
    case PrefsErrorGetCode
    case PrefsErrorCopyDescription
    case PrefsGetVersionNumber
    case PrefsCopyAppValue
    case PrefsSetAppValue
    case PrefsAppSynchronize
    case PrefsGetAppBooleanValue
    case PrefsGetAppIntegerValue
    case PrefsAddSuitePreferencesToApp
    case PrefsRemoveSuitePreferencesFromApp
    case PrefsAppValueIsForced
    case PrefsCopyAppValueAndSource
    case PrefsCopyAppKeySchema
    case PrefsCopyAppValueSources
    case PrefsCopyAppDictionary
    case PrefsCopyValue
    case PrefsSetValue
    case PrefsCopyMultiple
    case PrefsSetMultiple
    case PrefsSynchronize
    case PrefsCopyKeyList
    case PrefsCopyApplicationList
    case PrefsRemoveDomain
    case PrefsRegisterDefaults
    case PrefsRegisterDefaultsFromFile
    case PrefsSetArguments
    case PrefsSetVolatileDomain
    case PrefsRemoveVolatileDomain
    case PrefsAddObserver
    case PrefsRemoveObserver
    case PrefsAppSetKeySynced
    case PrefsAppKeyIsSynced
}

/// Until an entry point's first call has returned, its calls run one at a
/// time under the lock that `fork` waits for, so that no child is copied
/// while another thread is half-way through that call's first-use set-up
/// in the library and in the Swift runtime inside it (type metadata,
/// one-time initialisers), which the child would then wait for forever.
/// After that, a gate costs one load.
struct FirstUseGate {
    private let entry: Int32
    private let held: Bool

    @inline(__always)
    init(_ entry: EntryPoint) {
        self.entry = entry.rawValue
        if prefs_warm(self.entry) != 0 {
            held = false
        } else {
            prefs_init_lock()
            held = true
        }
    }

    /// Call when the entry point returns (`defer`).
    @inline(__always)
    func leave() {
        guard held else { return }
        prefs_set_warm(entry)
        prefs_init_unlock()
    }
}
