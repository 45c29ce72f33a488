import CPrefs
import PrefsCore

// The "Serialization", "Errors" and "Version" sections of Prefs.h.

@c @implementation
public func PrefsPropertyListCreateWithData(_ bytes: UnsafeRawPointer?, _ length: Int, _ outError: UnsafeMutablePointer<OpaquePointer?>?) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsPropertyListCreateWithData)
    defer { gate.leave() }
    guard length >= 0 else {
        return failed(PrefsError(.invalidArgument, "PrefsPropertyListCreateWithData: \(UInt(bitPattern: length)) is not a possible length"), outError)
    }
    guard length == 0 || bytes != nil else {
        return failed(PrefsError(.invalidArgument, "PrefsPropertyListCreateWithData: NULL bytes with a length of \(length)"), outError)
    }
    do {
        let v = try PropertyList.parse(UnsafeRawBufferPointer(start: bytes, count: length))
        succeeded()
        return UnsafeRawPointer(retained(v))
    } catch {
        return failed(error, outError)
    }
}

@c @implementation
public func PrefsPropertyListCreateXMLData(_ propertyList: UnsafeRawPointer, _ outError: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsPropertyListCreateXMLData)
    defer { gate.leave() }
    guard let v = plist(propertyList) else {
        return failed(PrefsError(.invalidArgument, "PrefsPropertyListCreateXMLData: not a property list"), outError)
    }
    do {
        let bytes = try v.xmlData()
        succeeded()
        return retained(.data(bytes))
    } catch {
        return failed(error, outError)
    }
}

@c @implementation
public func PrefsPropertyListCreateData(
    _ propertyList: UnsafeRawPointer, _ format: PrefsPropertyListFormat, _ outError: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsPropertyListCreateData)
    defer { gate.leave() }
    guard let v = plist(propertyList) else {
        return failed(PrefsError(.invalidArgument, "PrefsPropertyListCreateData: not a property list"), outError)
    }
    do {
        let bytes: [UInt8]
        switch format {
        case kPrefsPropertyListXMLFormat_v1_0: bytes = try v.xmlData()
        case kPrefsPropertyListBinaryFormat_v1_0: bytes = try v.binaryData()
        default:
            return failed(PrefsError(.invalidArgument, "PrefsPropertyListCreateData: \(format.rawValue) is not a property-list format"), outError)
        }
        succeeded()
        return retained(.data(bytes))
    } catch {
        return failed(error, outError)
    }
}

@c @implementation
public func PrefsCopyLastError() -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyLastError)
    defer { gate.leave() }
    return copyLastError()
}

@c @implementation
public func PrefsErrorGetCode(_ error: OpaquePointer) -> PrefsErrorCode {
    let gate = FirstUseGate(.PrefsErrorGetCode)
    defer { gate.leave() }
    guard let e = errorObject(error) else { return kPrefsErrorInvalidArgument }
    return cCode(e.error.code)
}

/// The C constant of a core error code. Exhaustive, and by name: a code
/// added to the core does not compile until it has its C constant.
private func cCode(_ code: PrefsError.Code) -> PrefsErrorCode {
    switch code {
    case .invalidArgument: return kPrefsErrorInvalidArgument
    case .malformed: return kPrefsErrorMalformed
    case .forbiddenMarkup: return kPrefsErrorForbiddenMarkup
    case .tooDeep: return kPrefsErrorTooDeep
    case .unrepresentable: return kPrefsErrorUnrepresentable
    case .invalidApplicationID: return kPrefsErrorInvalidApplicationID
    case .io: return kPrefsErrorIO
    case .corruptFile: return kPrefsErrorCorruptFile
    case .forcedValue: return kPrefsErrorForcedValue
    case .schemaViolation: return kPrefsErrorSchemaViolation
    case .internal: return kPrefsErrorInternal
    }
}

@c @implementation
public func PrefsErrorCopyDescription(_ error: OpaquePointer) -> UnsafeMutablePointer<CChar>? {
    let gate = FirstUseGate(.PrefsErrorCopyDescription)
    defer { gate.leave() }
    guard let e = errorObject(error) else { return mallocCString("not an error object") }
    return mallocCString(e.error.message)
}

@c @implementation
public func PrefsGetVersionNumber() -> Int32 {
    let gate = FirstUseGate(.PrefsGetVersionNumber)
    defer { gate.leave() }
    succeeded()
    return PREFS_VERSION_NUMBER
}
