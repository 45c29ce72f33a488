import CPrefs
import Glibc
import PrefsCore

// The "Observers" section of Prefs.h.

/// The C handle of an observer.
private final class ObserverHandle {
    let token: PreferencesStore.ObserverToken
    init(_ token: PreferencesStore.ObserverToken) { self.token = token }
}

/// A C context pointer, handed back to the C callback on the library's thread.
private struct Context: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
}

@c @implementation
public func PrefsAddObserver(
    _ applicationID: UnsafePointer<CChar>, _ key: UnsafePointer<CChar>?, _ callback: PrefsObserverCallback?, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let gate = FirstUseGate(.PrefsAddObserver)
    defer { gate.leave() }
    guard let callback else { refuse("PrefsAddObserver: NULL callback"); return nil }
    let ctx = Context(pointer: context)
    do throws(PrefsError) {
        let app = try applicationName(applicationID)
        let k = try key.map { (p) throws(PrefsError) in try utf8String(p, "the key") }
        let token = try PreferencesStore.shared.addObserver(application: app, key: k) { a, k in
            a.withCString { ap in k.withCString { kp in callback(ap, kp, ctx.pointer) } }
        }
        // Added, but other programs' changes may go unnoticed: say so.
        if let degraded = PreferencesStore.shared.observationProblem { failed(degraded) } else { succeeded() }
        return OpaquePointer(Unmanaged.passRetained(ObserverHandle(token)).toOpaque())
    } catch {
        failed(error)
        return nil
    }
}

@c @implementation
public func PrefsRemoveObserver(_ observer: OpaquePointer?) {
    let gate = FirstUseGate(.PrefsRemoveObserver)
    defer { gate.leave() }
    guard let observer else { return }
    let handle = Unmanaged<ObserverHandle>.fromOpaque(UnsafeRawPointer(observer)).takeRetainedValue()
    PreferencesStore.shared.removeObserver(handle.token)
    succeeded()
}
