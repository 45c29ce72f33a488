import CPrefs
import Glibc
import PrefsCore

// The "Values" section of Prefs.h. Each function records its outcome for
// PrefsCopyLastError; Retain, Release and Free do not.

@c @implementation
public func PrefsRetain(_ object: UnsafeRawPointer?) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsRetain)
    defer { gate.leave() }
    if let object { _ = Unmanaged<AnyObject>.fromOpaque(object).retain() }
    return object
}

@c @implementation
public func PrefsRelease(_ object: UnsafeRawPointer?) {
    let gate = FirstUseGate(.PrefsRelease)
    defer { gate.leave() }
    if let object { Unmanaged<AnyObject>.fromOpaque(object).release() }
}

@c @implementation
public func PrefsFree(_ memory: UnsafeMutableRawPointer?) {
    let gate = FirstUseGate(.PrefsFree)
    defer { gate.leave() }
    free(memory)
}

@c @implementation
public func PrefsGetType(_ object: UnsafeRawPointer) -> PrefsType {
    let gate = FirstUseGate(.PrefsGetType)
    defer { gate.leave() }
    succeeded()
    guard let v = plist(object) else { return kPrefsTypeError }
    switch v.kind {
    case .string: return kPrefsTypeString
    case .integer: return kPrefsTypeInteger
    case .real: return kPrefsTypeReal
    case .boolean: return kPrefsTypeBoolean
    case .date: return kPrefsTypeDate
    case .data: return kPrefsTypeData
    case .uid: return kPrefsTypeUID
    case .array: return kPrefsTypeArray
    case .dictionary: return kPrefsTypeDictionary
    }
}

@c @implementation
public func PrefsEqual(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?) -> Bool {
    let gate = FirstUseGate(.PrefsEqual)
    defer { gate.leave() }
    succeeded()
    if a == b { return true }
    guard let a, let b else { return false }
    if let x = plist(a), let y = plist(b) { return x == y }
    if let x = anyObject(a) as? ErrorObject, let y = anyObject(b) as? ErrorObject { return x.error == y.error }
    return false
}

@c @implementation
public func PrefsCopyDescription(_ object: UnsafeRawPointer) -> UnsafeMutablePointer<CChar>? {
    let gate = FirstUseGate(.PrefsCopyDescription)
    defer { gate.leave() }
    succeeded()
    if let v = plist(object) {
        guard let text = OldStylePlist.format(v, maxBytes: PropertyList.maxDocumentSize) else {
            failed(PrefsError(.unrepresentable, "PrefsCopyDescription: the text would be larger than \(PropertyList.maxDocumentSize) bytes"))
            return nil
        }
        return mallocCString(text)
    }
    if let e = anyObject(object) as? ErrorObject { return mallocCString(e.error.message) }
    return nil
}

// MARK: Strings

@c @implementation
public func PrefsStringCreate(_ utf8: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsStringCreate)
    defer { gate.leave() }
    return PrefsStringCreateWithBytes(utf8, strlen(utf8))
}

@c @implementation
public func PrefsStringCreateWithBytes(_ bytes: UnsafePointer<CChar>?, _ length: Int) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsStringCreateWithBytes)
    defer { gate.leave() }
    guard validCount(length, "PrefsStringCreateWithBytes: length") else { return nil }
    if length == 0 { succeeded(); return retained(.string("")) }
    guard let bytes else { refuse("PrefsStringCreateWithBytes: NULL bytes with a length of \(length)"); return nil }
    let buffer = UnsafeRawBufferPointer(start: bytes, count: length).bindMemory(to: UInt8.self)
    guard let s = String(validating: buffer, as: UTF8.self) else {
        refuse("PrefsStringCreate: the bytes are not valid UTF-8")
        return nil
    }
    succeeded()
    return retained(.string(s))
}

private let emptyCString: StaticString = ""

@c @implementation
public func PrefsStringGetCString(_ string: OpaquePointer) -> UnsafePointer<CChar> {
    let gate = FirstUseGate(.PrefsStringGetCString)
    defer { gate.leave() }
    guard let p = plist(string)?.stableCString() else {
        refuse("PrefsStringGetCString: not a string")
        return UnsafeRawPointer(emptyCString.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    succeeded()
    return p
}

@c @implementation
public func PrefsStringGetLength(_ string: OpaquePointer) -> Int {
    let gate = FirstUseGate(.PrefsStringGetLength)
    defer { gate.leave() }
    guard let s = plist(string)?.stringValue else { refuse("PrefsStringGetLength: not a string"); return 0 }
    succeeded()
    return s.utf8.count
}

// MARK: Numbers

@c @implementation
public func PrefsNumberCreateInt64(_ value: Int64) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsNumberCreateInt64)
    defer { gate.leave() }
    succeeded()
    return retained(PropertyList(.integer(Int128(value))))
}

@c @implementation
public func PrefsNumberCreateUInt64(_ value: UInt64) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsNumberCreateUInt64)
    defer { gate.leave() }
    succeeded()
    return retained(PropertyList(.integer(Int128(value))))
}

@c @implementation
public func PrefsNumberCreateDouble(_ value: Double) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsNumberCreateDouble)
    defer { gate.leave() }
    succeeded()
    return retained(PropertyList(.real(value)))
}

/// Converts a number exactly, or records why not.
private func exactly<T>(_ number: OpaquePointer, _ name: String, _ fromInteger: (Int128) -> T?, _ fromReal: (Double) -> T?) -> T? {
    guard let v = plist(number) else { refuse("\(name): not a number"); return nil }
    let result: T?
    switch v.value {
    case .integer(let i): result = fromInteger(i)
    case .real(let d): result = fromReal(d)
    default: refuse("\(name): not a number"); return nil
    }
    if result == nil {
        refuse("\(name): \(v) is not exactly representable")
    } else {
        succeeded()
    }
    return result
}

@c @implementation
public func PrefsNumberGetInt64(_ number: OpaquePointer, _ out: UnsafeMutablePointer<Int64>) -> Bool {
    let gate = FirstUseGate(.PrefsNumberGetInt64)
    defer { gate.leave() }
    guard let v = exactly(number, "PrefsNumberGetInt64", { Int64(exactly: $0) }, { Int64(exactly: $0) }) else { return false }
    out.pointee = v
    return true
}

@c @implementation
public func PrefsNumberGetUInt64(_ number: OpaquePointer, _ out: UnsafeMutablePointer<UInt64>) -> Bool {
    let gate = FirstUseGate(.PrefsNumberGetUInt64)
    defer { gate.leave() }
    guard let v = exactly(number, "PrefsNumberGetUInt64", { UInt64(exactly: $0) }, { UInt64(exactly: $0) }) else { return false }
    out.pointee = v
    return true
}

@c @implementation
public func PrefsNumberGetDouble(_ number: OpaquePointer, _ out: UnsafeMutablePointer<Double>) -> Bool {
    let gate = FirstUseGate(.PrefsNumberGetDouble)
    defer { gate.leave() }
    guard let v = exactly(number, "PrefsNumberGetDouble", { Double(exactly: $0) }, { $0 }) else { return false }
    out.pointee = v
    return true
}

// MARK: Booleans and dates

@c @implementation
public func PrefsBooleanCreate(_ value: Bool) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsBooleanCreate)
    defer { gate.leave() }
    succeeded()
    return retained(.boolean(value))
}

@c @implementation
public func PrefsBooleanGetValue(_ boolean: OpaquePointer) -> Bool {
    let gate = FirstUseGate(.PrefsBooleanGetValue)
    defer { gate.leave() }
    guard let b = plist(boolean)?.booleanValue else { refuse("PrefsBooleanGetValue: not a boolean"); return false }
    succeeded()
    return b
}

@c @implementation
public func PrefsDateCreate(_ unixTime: Double) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsDateCreate)
    defer { gate.leave() }
    succeeded()
    return retained(.date(unixTime))
}

@c @implementation
public func PrefsDateGetUnixTime(_ date: OpaquePointer) -> Double {
    let gate = FirstUseGate(.PrefsDateGetUnixTime)
    defer { gate.leave() }
    guard let t = plist(date)?.dateValue else { refuse("PrefsDateGetUnixTime: not a date"); return 0 }
    succeeded()
    return t
}

// MARK: UIDs

@c @implementation
public func PrefsUIDCreate(_ value: UInt32) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsUIDCreate)
    defer { gate.leave() }
    succeeded()
    return retained(.uid(value))
}

@c @implementation
public func PrefsUIDGetValue(_ uid: OpaquePointer) -> UInt32 {
    let gate = FirstUseGate(.PrefsUIDGetValue)
    defer { gate.leave() }
    guard let u = plist(uid)?.uidValue else { refuse("PrefsUIDGetValue: not a UID"); return 0 }
    succeeded()
    return u
}

// MARK: Data

@c @implementation
public func PrefsDataCreate(_ bytes: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsDataCreate)
    defer { gate.leave() }
    guard validCount(length, "PrefsDataCreate: length") else { return nil }
    if length == 0 { succeeded(); return retained(.data([])) }
    guard let bytes else {
        refuse("PrefsDataCreate: NULL bytes with a length of \(length)")
        return nil
    }
    succeeded()
    return retained(.data(Array(UnsafeRawBufferPointer(start: bytes, count: length))))
}

private nonisolated(unsafe) let emptyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

@c @implementation
public func PrefsDataGetBytePtr(_ data: OpaquePointer) -> UnsafePointer<UInt8> {
    let gate = FirstUseGate(.PrefsDataGetBytePtr)
    defer { gate.leave() }
    // The array lives inside the immutable value, so its storage does not move.
    guard let v = plist(data), case .data(let bytes) = v.value else {
        refuse("PrefsDataGetBytePtr: not data")
        return UnsafePointer(emptyBytes)
    }
    succeeded()
    return bytes.withUnsafeBufferPointer { $0.baseAddress } ?? UnsafePointer(emptyBytes)
}

@c @implementation
public func PrefsDataGetLength(_ data: OpaquePointer) -> Int {
    let gate = FirstUseGate(.PrefsDataGetLength)
    defer { gate.leave() }
    guard let bytes = plist(data)?.dataValue else { refuse("PrefsDataGetLength: not data"); return 0 }
    succeeded()
    return bytes.count
}

// MARK: Arrays

@c @implementation
public func PrefsArrayCreate(_ values: UnsafePointer<UnsafeRawPointer?>?, _ count: Int) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsArrayCreate)
    defer { gate.leave() }
    guard validCount(count, "PrefsArrayCreate: count") else { return nil }
    guard count == 0 || values != nil else { refuse("PrefsArrayCreate: NULL values with a count of \(count)"); return nil }
    var items = [PropertyList]()
    items.reserveCapacity(count)
    for i in 0..<count {
        guard let v = plist(values![i]) else { refuse("PrefsArrayCreate: element \(i) is NULL or not a property list"); return nil }
        items.append(v)
    }
    return checkedContainer(PropertyList(.array(items)), "PrefsArrayCreate")
}

/// Refuses containers deeper than the XML format holds, so that every value
/// can be written and no value is deep enough to exhaust the stack; and
/// containers whose XML could not fit in a document of the largest size the
/// library writes, so that no value (say 30 levels of an array holding the
/// level below twice) stands for gigabytes when written, printed or
/// compared.
private func checkedContainer(_ v: PropertyList, _ name: String) -> OpaquePointer? {
    guard v.depth < PropertyList.maxNesting else {
        failed(PrefsError(.tooDeep, "\(name): nesting deeper than \(PropertyList.maxNesting) levels"))
        return nil
    }
    guard v.minimumXMLSize <= PropertyList.maxDocumentSize else {
        failed(
            PrefsError(
                .unrepresentable,
                "\(name): the value would be larger than \(PropertyList.maxDocumentSize) bytes as XML (shared elements count each time they occur)"))
        return nil
    }
    succeeded()
    return retained(v)
}

@c @implementation
public func PrefsArrayGetCount(_ array: OpaquePointer) -> Int {
    let gate = FirstUseGate(.PrefsArrayGetCount)
    defer { gate.leave() }
    guard let items = plist(array)?.arrayValue else { refuse("PrefsArrayGetCount: not an array"); return 0 }
    succeeded()
    return items.count
}

@c @implementation
public func PrefsArrayGetValueAtIndex(_ array: OpaquePointer, _ index: Int) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsArrayGetValueAtIndex)
    defer { gate.leave() }
    guard let items = plist(array)?.arrayValue else { refuse("PrefsArrayGetValueAtIndex: not an array"); return nil }
    guard index >= 0 && index < items.count else {
        refuse("PrefsArrayGetValueAtIndex: index \(UInt(bitPattern: index)) out of range (count \(items.count))")
        return nil
    }
    succeeded()
    return borrowed(items[index])
}

// MARK: Dictionaries

@c @implementation
public func PrefsDictionaryCreate(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<UnsafeRawPointer?>?, _ count: Int) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsDictionaryCreate)
    defer { gate.leave() }
    guard validCount(count, "PrefsDictionaryCreate: count") else { return nil }
    guard count == 0 || (keys != nil && values != nil) else {
        refuse("PrefsDictionaryCreate: NULL keys or values with a count of \(count)")
        return nil
    }
    var entries = [PropertyList.Key: PropertyList](minimumCapacity: count)
    for i in 0..<count {
        guard let k = keys![i] else {
            refuse("PrefsDictionaryCreate: key \(i) is NULL")
            return nil
        }
        guard let key = utf8Argument(k, "PrefsDictionaryCreate: key \(i)") else { return nil }
        guard let v = plist(values![i]) else {
            refuse("PrefsDictionaryCreate: the value of \"\(key)\" is NULL or not a property list")
            return nil
        }
        entries[PropertyList.Key(key)] = v
    }
    return checkedContainer(PropertyList(.dictionary(entries)), "PrefsDictionaryCreate")
}

@c @implementation
public func PrefsDictionaryGetCount(_ dictionary: OpaquePointer) -> Int {
    let gate = FirstUseGate(.PrefsDictionaryGetCount)
    defer { gate.leave() }
    guard let d = plist(dictionary)?.dictionaryValue else { refuse("PrefsDictionaryGetCount: not a dictionary"); return 0 }
    succeeded()
    return d.count
}

@c @implementation
public func PrefsDictionaryGetValue(_ dictionary: OpaquePointer, _ key: UnsafePointer<CChar>) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsDictionaryGetValue)
    defer { gate.leave() }
    guard let d = plist(dictionary)?.dictionaryValue else { refuse("PrefsDictionaryGetValue: not a dictionary"); return nil }
    guard let k = utf8Argument(key, "PrefsDictionaryGetValue: the key") else { return nil }
    succeeded()
    return d[PropertyList.Key(k)].map(borrowed)
}

@c @implementation
public func PrefsDictionaryCopyKeys(_ dictionary: OpaquePointer) -> OpaquePointer {
    let gate = FirstUseGate(.PrefsDictionaryCopyKeys)
    defer { gate.leave() }
    guard let d = plist(dictionary)?.dictionaryValue else {
        refuse("PrefsDictionaryCopyKeys: not a dictionary")
        return retained(.array([]))
    }
    succeeded()
    return retained(.array(d.keys.sorted().map { .string($0.string) }))
}
