import CPrefs
import CProcessHooks
import Glibc
import PrefsCore

// The "Preferences" section of Prefs.h: C strings in, core calls, handles out.

private var store: PreferencesStore { PreferencesStore.shared }

/// Runs `body` with the shared store borrowed rather than retained: once
/// published, the shared store is never released (it lives as long as the
/// process), so the calls made most often count no reference for it.
@inline(__always)
private func withStore<R>(_ body: (PreferencesStore) -> R) -> R {
    guard let p = prefs_shared_store() else { return body(PreferencesStore.shared) }
    return Unmanaged<PreferencesStore>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
}

/// The application ID a C argument stands for: the constants resolved, the
/// rest taken as written (the core validates it); not UTF-8 is refused.
func applicationName(_ id: UnsafePointer<CChar>) throws(PrefsError) -> String {
    if strcmp(id, kPrefsCurrentApplication) == 0 { return ApplicationID.current }
    if strcmp(id, kPrefsAnyApplication) == 0 { return globalDomainName }
    return try utf8String(id, "the application ID")
}

/// The application a C argument names, resolved once per thread for as
/// long as the thread keeps naming it: this thread's record's
/// ``ResolvedApplication`` (unmanaged, held by the record), or nil with the
/// refusal recorded for IDs the core refuses. The record's entry is
/// replaced only by this function, on this thread, so a call may borrow it
/// (``ResolvedApplication/borrow(_:)``) until it returns: the core calls no
/// function of the C face on the thread that called it.
@inline(__always)
private func resolvedApplication(_ id: UnsafePointer<CChar>, _ t: UnsafeMutablePointer<prefs_thread_state>) -> UnsafeMutableRawPointer? {
    if let last = t.pointee.application, strcmp(id, t.pointee.application_id) == 0 { return last }
    return resolveApplication(id, t)
}

@inline(never)
private func resolveApplication(_ id: UnsafePointer<CChar>, _ t: UnsafeMutablePointer<prefs_thread_state>) -> UnsafeMutableRawPointer? {
    do throws(PrefsError) {
        let handle = try store.handle(application: applicationName(id))
        let resolved = Unmanaged.passRetained(ResolvedApplication(id, handle))
        let old = t.pointee.application
        t.pointee.application = resolved.toOpaque()
        t.pointee.application_id = UnsafePointer(resolved._withUnsafeGuaranteedRef { $0.id })
        if let old { Unmanaged<ResolvedApplication>.fromOpaque(old).release() }
        return resolved.toOpaque()
    } catch {
        failed(error, t)
        return nil
    }
}

/// The canonical application a C argument names, without loading its
/// search list (writes and one-domain calls need only the name); records
/// the refusal and returns nil for IDs the core refuses.
private func application(_ id: UnsafePointer<CChar>) -> String? {
    if let t = prefs_thread_state(), let last = t.pointee.application, strcmp(id, t.pointee.application_id) == 0 {
        return Unmanaged<ResolvedApplication>.fromOpaque(last).takeUnretainedValue().handle.application
    }
    do throws(PrefsError) {
        return try PreferencesStore.canonicalApplication(applicationName(id))
    } catch {
        failed(error)
        return nil
    }
}

/// An application ID as a caller wrote it and the store's handle for it,
/// as a thread's record keeps them. Never changed once made.
private final class ResolvedApplication {
    /// The ID's bytes and NUL, `malloc`ed.
    let id: UnsafeMutablePointer<CChar>
    let handle: PreferencesStore.ApplicationHandle

    init(_ id: UnsafePointer<CChar>, _ handle: PreferencesStore.ApplicationHandle) {
        guard let copy = strdup(id) else { fatalError("out of memory") }
        self.id = copy
        self.handle = handle
    }

    deinit { free(id) }

    /// Runs `body` with the handle of the entry at `p`, borrowed: no
    /// reference counted, since the record holds the entry.
    @inline(__always)
    static func borrow<R>(_ p: UnsafeMutableRawPointer, _ body: (PreferencesStore.ApplicationHandle) -> R) -> R {
        Unmanaged<ResolvedApplication>.fromOpaque(p)._withUnsafeGuaranteedRef { body($0.handle) }
    }
}

private func domainID(_ app: UnsafePointer<CChar>, _ user: UnsafePointer<CChar>, _ host: UnsafePointer<CChar>) -> DomainID? {
    guard let a = application(app) else { return nil }
    guard let userName = utf8Argument(user, "the user name"), let hostName = utf8Argument(host, "the host name") else { return nil }
    let u: DomainUser
    if strcmp(user, kPrefsCurrentUser) == 0 || userName == store.locations.userName {
        u = .current
    } else if strcmp(user, kPrefsAnyUser) == 0 {
        u = .any
    } else {
        refuse("user \"\(userName)\" is neither kPrefsCurrentUser, kPrefsAnyUser nor the current user")
        return nil
    }
    let h: DomainHost
    if strcmp(host, kPrefsCurrentHost) == 0 || hostName == store.locations.hostID {
        h = .current
    } else if strcmp(host, kPrefsAnyHost) == 0 {
        h = .any
    } else {
        refuse("host \"\(hostName)\" is neither kPrefsCurrentHost, kPrefsAnyHost nor this machine's id")
        return nil
    }
    return DomainID(application: a, user: u, host: h)
}

/// Runs `body`, recording its outcome for PrefsCopyLastError.
private func recording<T>(_ fallback: T, _ body: () throws(PrefsError) -> T) -> T {
    do throws(PrefsError) {
        let r = try body()
        succeeded()
        return r
    } catch {
        failed(error)
        return fallback
    }
}

private func dictionaryHandle(_ d: PropertyListDictionary) -> OpaquePointer {
    retained(PropertyList(.dictionary(d)))
}

private func stringArray(_ a: OpaquePointer?, _ name: String) -> [String]? {
    guard let a else { return [] }
    guard let items = plist(a)?.arrayValue else { refuse("\(name): not an array"); return nil }
    var out = [String]()
    for item in items {
        guard let s = item.stringValue else { refuse("\(name): holds a value that is not a string"); return nil }
        out.append(s)
    }
    return out
}

/// Records a synchronize outcome: failures as errors, and a file moved aside
/// (or still unreadable) as a corrupt-file report even though the call succeeded.
private func synchronized(_ body: () throws(PrefsError) -> PrefsError?, problems: () -> [PrefsError]) -> Bool {
    do throws(PrefsError) {
        let note = try body()
        let problems = problems()
        if let note {
            failed(note)
        } else if let first = problems.first {
            // One error can be recorded: it names every file.
            failed(problems.count == 1 ? first : PrefsError(first.code, problems.map(\.message).joined(separator: "; ")))
        } else {
            succeeded()
        }
        return true
    } catch {
        failed(error)
        return false
    }
}

// MARK: The search list

@c @implementation
public func PrefsCopyAppValue(_ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsCopyAppValue)
    defer { gate.leave() }
    let t = thisThread()
    guard let app = resolvedApplication(applicationID, t) else { return nil }
    let k: UnsafeRawBufferPointer
    do throws(PrefsError) { k = try utf8Bytes(key, "the key") } catch { failed(error, t); return nil }
    var problem: PrefsError? = nil
    let value = ResolvedApplication.borrow(app) { handle in
        withStore { $0.value(forKey: k, in: handle, problem: &problem) }
    }
    // Taken out, so that a read without a problem destroys nothing.
    if let problem = problem.take() { failed(problem, t) } else { succeeded(t) }
    return value.map { UnsafeRawPointer(retained($0)) }
}

@c @implementation
public func PrefsCopyAppValueAndSource(
    _ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>, _ outSource: UnsafeMutablePointer<PrefsSource>,
    _ outDomainName: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsCopyAppValueAndSource)
    defer { gate.leave() }
    outSource.pointee = kPrefsSourceNone
    outDomainName?.pointee = nil
    guard let app = application(applicationID), let k = utf8Argument(key, "the key") else { return nil }
    let found: (value: PropertyList, source: PreferenceSource)?
    do throws(PrefsError) { found = try store.valueAndSource(forKey: k, application: app) } catch {
        failed(error)
        return nil
    }
    succeeded()
    guard let found else { return nil }
    outSource.pointee = PrefsSource(rawValue: UInt32(found.source.layer.rawValue))
    if let name = found.source.domain { outDomainName?.pointee = mallocCString(name) }
    return UnsafeRawPointer(retained(found.value))
}

@c @implementation
public func PrefsCopyAppKeySchema(_ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyAppKeySchema)
    defer { gate.leave() }
    guard let app = application(applicationID), let k = utf8Argument(key, "the key") else { return nil }
    let found: SchemaKey?
    do throws(PrefsError) { found = try store.schemaDescription(forKey: k, application: app) } catch {
        failed(error)
        return nil
    }
    succeeded()
    guard let found else { return nil }
    return retained(found.propertyList)
}

@c @implementation
public func PrefsCopyAppValueSources(_ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyAppValueSources)
    defer { gate.leave() }
    guard let app = application(applicationID), let k = utf8Argument(key, "the key") else { return nil }
    let found: [(value: PropertyList, source: PreferenceSource)]
    let schema: SchemaKey?
    do throws(PrefsError) {
        found = try store.sources(forKey: k, application: app)
        // A schema that does not parse binds nothing (and is reported by reads).
        schema = (try? store.schemaDescription(forKey: k, application: app)) ?? nil
    } catch {
        failed(error)
        return nil
    }
    succeeded()
    let items = found.map { f -> PropertyList in
        var d: [PropertyList.Key: PropertyList] = ["Value": f.value, "Source": .integer(f.source.layer.rawValue)]
        if let name = f.source.domain { d["Domain"] = .string(name) }
        if let schema, f.source.layer != .schema, !schema.accepts(f.value) {
            d["Ignored"] = .boolean(true)
            d["Reason"] = .string("the schema accepts \(schema.accepts ?? "")")
        }
        return .dictionary(d)
    }
    return retained(.array(items))
}

@c @implementation
public func PrefsSetAppValue(_ key: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ applicationID: UnsafePointer<CChar>) {
    let gate = FirstUseGate(.PrefsSetAppValue)
    defer { gate.leave() }
    let t = thisThread()
    guard let app = resolvedApplication(applicationID, t) else { return }
    // The key's bytes are used where they are: a key set a moment ago is
    // not copied again (see PreferencesStore.set(keyBytes:_:in:)).
    let k: UnsafeRawBufferPointer
    do throws(PrefsError) { k = try utf8Bytes(key, "the key") } catch { return failed(error, t) }
    guard let value else { return set(k, nil, app, t) }
    guard isPlist(value) else {
        return failed(PrefsError(.invalidArgument, "the value for \"\(String(decoding: k, as: UTF8.self))\" is not a property list"), t)
    }
    // The caller's handle keeps the value alive for the call.
    borrowPlist(value) { set(k, $0, app, t) }
}

/// PrefsSetAppValue once its arguments are checked: sets `value` (borrowed)
/// through this thread's resolved application `app` and records the outcome.
@inline(__always)
private func set(_ k: UnsafeRawBufferPointer, _ value: PropertyList?, _ app: UnsafeMutableRawPointer, _ t: UnsafeMutablePointer<prefs_thread_state>) {
    ResolvedApplication.borrow(app) { handle in
        withStore { store in
            do throws(PrefsError) {
                try store.set(keyBytes: k, value, in: handle)
                succeeded(t)
            } catch {
                failed(error, t)
            }
        }
    }
}

private func setValues(_ changes: [(String, UnsafeRawPointer?)], _ id: DomainID) {
    var values = [(String, PropertyList?)]()
    for (key, handle) in changes {
        if let handle {
            guard let v = plist(handle) else { refuse("the value for \"\(key)\" is not a property list"); return }
            values.append((key, v))
        } else {
            values.append((key, nil))
        }
    }
    recording(()) { () throws(PrefsError) in try store.set(values, in: id) }
}

@c @implementation
public func PrefsAppSynchronize(_ applicationID: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsAppSynchronize)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return false }
    return synchronized(
        { () throws(PrefsError) in try store.synchronize(application: app) },
        problems: { (try? store.problems(application: app)) ?? [] })
}

@c @implementation
public func PrefsGetAppBooleanValue(
    _ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>, _ keyExistsAndHasValidFormat: UnsafeMutablePointer<Bool>?
) -> Bool {
    let gate = FirstUseGate(.PrefsGetAppBooleanValue)
    defer { gate.leave() }
    let v = PrefsCopyAppValue(key, applicationID)
    defer { PrefsRelease(v) }
    let b = plist(v).flatMap(Coercion.boolean)
    keyExistsAndHasValidFormat?.pointee = b != nil
    return b ?? false
}

@c @implementation
public func PrefsGetAppIntegerValue(
    _ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>, _ keyExistsAndHasValidFormat: UnsafeMutablePointer<Bool>?
) -> Int64 {
    let gate = FirstUseGate(.PrefsGetAppIntegerValue)
    defer { gate.leave() }
    let v = PrefsCopyAppValue(key, applicationID)
    defer { PrefsRelease(v) }
    let i = plist(v).flatMap(Coercion.integer)
    keyExistsAndHasValidFormat?.pointee = i != nil
    return i ?? 0
}

@c @implementation
public func PrefsAddSuitePreferencesToApp(_ applicationID: UnsafePointer<CChar>, _ suiteID: UnsafePointer<CChar>) {
    let gate = FirstUseGate(.PrefsAddSuitePreferencesToApp)
    defer { gate.leave() }
    guard let app = application(applicationID), let suite = application(suiteID) else { return }
    recording(()) { () throws(PrefsError) in try store.addSuite(suite, to: app) }
}

@c @implementation
public func PrefsRemoveSuitePreferencesFromApp(_ applicationID: UnsafePointer<CChar>, _ suiteID: UnsafePointer<CChar>) {
    let gate = FirstUseGate(.PrefsRemoveSuitePreferencesFromApp)
    defer { gate.leave() }
    guard let app = application(applicationID), let suite = application(suiteID) else { return }
    recording(()) { () throws(PrefsError) in try store.removeSuite(suite, from: app) }
}

@c @implementation
public func PrefsAppValueIsForced(_ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsAppValueIsForced)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return false }
    return recording(false) { () throws(PrefsError) in try store.isForced(utf8String(key, "the key"), application: app) }
}

@c @implementation
public func PrefsAppSetKeySynced(_ key: UnsafePointer<CChar>, _ synced: Bool, _ applicationID: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsAppSetKeySynced)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return false }
    return recording(false) { () throws(PrefsError) in
        try store.setSynced(synced, forKey: utf8String(key, "the key"), application: app)
        return true
    }
}

@c @implementation
public func PrefsAppKeyIsSynced(_ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsAppKeyIsSynced)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return false }
    return recording(false) { () throws(PrefsError) in try store.isSynced(utf8String(key, "the key"), application: app) }
}

@c @implementation
public func PrefsCopyAppDictionary(_ applicationID: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyAppDictionary)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return nil }
    return recording(nil) { () throws(PrefsError) in dictionaryHandle(try store.dictionary(application: app)) }
}

// MARK: One domain

@c @implementation
public func PrefsCopyValue(
    _ key: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>
) -> UnsafeRawPointer? {
    let gate = FirstUseGate(.PrefsCopyValue)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName), let k = utf8Argument(key, "the key") else { return nil }
    return recording(nil) { () throws(PrefsError) in
        try store.values(in: id, keys: [k])[PropertyList.Key(k)].map { UnsafeRawPointer(retained($0)) }
    }
}

@c @implementation
public func PrefsSetValue(
    _ key: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>,
    _ hostName: UnsafePointer<CChar>
) {
    let gate = FirstUseGate(.PrefsSetValue)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName), let k = utf8Argument(key, "the key") else { return }
    setValues([(k, value)], id)
}

@c @implementation
public func PrefsCopyMultiple(
    _ keysToFetch: OpaquePointer?, _ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>
) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyMultiple)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName) else { return nil }
    guard let keys = stringArray(keysToFetch, "PrefsCopyMultiple") else { return nil }
    return recording(nil) { () throws(PrefsError) in
        dictionaryHandle(try store.values(in: id, keys: keysToFetch == nil ? nil : keys))
    }
}

@c @implementation
public func PrefsSetMultiple(
    _ keysToSet: OpaquePointer?, _ keysToRemove: OpaquePointer?, _ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>,
    _ hostName: UnsafePointer<CChar>
) {
    let gate = FirstUseGate(.PrefsSetMultiple)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName) else { return }
    var changes = [(String, PropertyList?)]()
    if let keysToSet {
        guard let d = plist(keysToSet)?.dictionaryValue else { refuse("PrefsSetMultiple: keysToSet is not a dictionary"); return }
        for (k, v) in d { changes.append((k.string, v)) }
    }
    guard let removals = stringArray(keysToRemove, "PrefsSetMultiple") else { return }
    for k in removals { changes.append((k, nil)) }
    recording(()) { () throws(PrefsError) in try store.set(changes, in: id) }
}

@c @implementation
public func PrefsSynchronize(_ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsSynchronize)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName) else { return false }
    return synchronized(
        { () throws(PrefsError) in try store.synchronize(id) },
        problems: { [(try? store.problem(in: id)) ?? nil].compactMap { $0 } })
}

@c @implementation
public func PrefsCopyKeyList(_ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyKeyList)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName) else { return nil }
    return recording(nil) { () throws(PrefsError) in
        retained(.array(try store.values(in: id).keys.sorted().map { .string($0.string) }))
    }
}

@c @implementation
public func PrefsCopyApplicationList(_ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsCopyApplicationList)
    defer { gate.leave() }
    guard let id = domainID(kPrefsAnyApplication, userName, hostName) else { return nil }
    succeeded()
    return retained(.array(store.applications(user: id.user, host: id.host).map { .string($0) }))
}

@c @implementation
public func PrefsRemoveDomain(_ applicationID: UnsafePointer<CChar>, _ userName: UnsafePointer<CChar>, _ hostName: UnsafePointer<CChar>) -> Bool {
    let gate = FirstUseGate(.PrefsRemoveDomain)
    defer { gate.leave() }
    guard let id = domainID(applicationID, userName, hostName) else { return false }
    return recording(false) { () throws(PrefsError) in try store.removeDomain(id) }
}

// MARK: In-memory domains

@c @implementation
public func PrefsRegisterDefaults(_ defaults: OpaquePointer, _ applicationID: UnsafePointer<CChar>) {
    let gate = FirstUseGate(.PrefsRegisterDefaults)
    defer { gate.leave() }
    guard let app = application(applicationID) else { return }
    guard let d = plist(defaults)?.dictionaryValue else { refuse("PrefsRegisterDefaults: not a dictionary"); return }
    recording(()) { () throws(PrefsError) in try store.register(d, application: app) }
}

@c @implementation
public func PrefsRegisterDefaultsFromFile(
    _ path: UnsafePointer<CChar>, _ applicationID: UnsafePointer<CChar>, _ outError: UnsafeMutablePointer<OpaquePointer?>?
) -> Bool {
    let gate = FirstUseGate(.PrefsRegisterDefaultsFromFile)
    defer { gate.leave() }
    guard let app = application(applicationID) else {
        if let e = copyLastError() { outError?.pointee = e }
        return false
    }
    do throws(PrefsError) {
        try store.register(SettingsSchema.defaults(fromFile: utf8String(path, "the path")), application: app)
        succeeded()
        return true
    } catch {
        let _: Bool? = failed(error, outError)
        return false
    }
}

@c @implementation
public func PrefsSetArguments(_ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?) {
    let gate = FirstUseGate(.PrefsSetArguments)
    defer { gate.leave() }
    var args = [String]()
    if let argv {
        for i in 0..<Int(max(argc, 0)) {
            guard let p = argv[i] else { args.append(""); continue }
            guard let arg = utf8Argument(p, "argument \(i)") else { return }
            args.append(arg)
        }
    }
    store.setArguments(args)
    succeeded()
}

@c @implementation
public func PrefsSetVolatileDomain(_ domainName: UnsafePointer<CChar>, _ values: OpaquePointer?) {
    let gate = FirstUseGate(.PrefsSetVolatileDomain)
    defer { gate.leave() }
    var d: PropertyListDictionary? = nil
    if let values {
        guard let v = plist(values)?.dictionaryValue else { refuse("PrefsSetVolatileDomain: not a dictionary"); return }
        d = v
    }
    guard let name = utf8Argument(domainName, "the domain name") else { return }
    store.setVolatileDomain(name, d)
    succeeded()
}

@c @implementation
public func PrefsRemoveVolatileDomain(_ domainName: UnsafePointer<CChar>) {
    let gate = FirstUseGate(.PrefsRemoveVolatileDomain)
    defer { gate.leave() }
    guard let name = utf8Argument(domainName, "the domain name") else { return }
    store.setVolatileDomain(name, nil)
    succeeded()
}
