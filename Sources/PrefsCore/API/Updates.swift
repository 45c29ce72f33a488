// Change streams and callbacks over the store's observers: a value first,
// then the value after every change that alters what a read returns.

/// A registered change callback; ``cancel()`` (or dropping the last
/// reference) stops delivery and frees what it held. When ``cancel()``
/// returns, the callback is not running and will not run again (unless
/// called from within that very callback). Thread-safe.
public final class PreferenceObservation: Sendable {
    private let store: PreferencesStore
    private let token: PreferencesStore.ObserverToken?
    private let cancelled = ProcessLockedFlag()

    init(store: PreferencesStore, token: PreferencesStore.ObserverToken?) {
        self.store = store
        self.token = token
    }

    /// Stops delivery; later calls do nothing.
    public func cancel() {
        guard cancelled.set(), let token else { return }
        store.removeObserver(token)
    }

    deinit { cancel() }
}

/// A flag that is set once, under a lock.
final class ProcessLockedFlag: @unchecked Sendable {
    private let lock = ProcessLock()
    private var isSet = false
    /// Sets the flag; true when this call set it.
    func set() -> Bool {
        lock.withLock {
            defer { isSet = true }
            return !isSet
        }
    }
}

/// The last value a stream yielded, so that a change that leaves a read's
/// result as it was yields nothing.
private final class LastYielded: @unchecked Sendable {
    let lock = ProcessLock()
    var started = false
    var value: PropertyList? = nil
}

extension Preferences {
    /// The value for `key` (`nil` when absent) now, then after every change
    /// that alters what a read returns: a set or removal in this process,
    /// another process's synchronize, a hand edit of the file, a
    /// registration, a suite added or removed. Breaking out of the loop
    /// stops delivery and frees what it held. Values arrive in order on a
    /// library thread; each is read when its change is delivered, so
    /// changes that come faster than delivery are coalesced and the last
    /// value always arrives.
    public func updates(forKey key: String) -> AsyncStream<PropertyList?> {
        stream(key) { $0 }
    }

    /// The typed value for `key` (its default when unset or invalid) now,
    /// then after every change, as ``updates(forKey:)``.
    public func updates<Value>(for key: Key<Value>) -> AsyncStream<Value> {
        key.declare(in: applicationID)
        return stream(key.name) { p in p.flatMap(key.decode) ?? key.defaultValue }
    }

    /// Calls `callback` with the new value for `key` after every change
    /// that alters what a read returns (not for the current value; changes
    /// faster than delivery are coalesced, the last one always arrives), on a
    /// library thread, outside every lock (it may call back into the
    /// library). Keep the returned observation: cancelling or dropping it
    /// stops the calls.
    public func observe<Value>(_ key: Key<Value>, _ callback: @escaping @Sendable (Value) -> Void) -> PreferenceObservation {
        key.declare(in: applicationID)
        return observe(forKey: key.name) { p in callback(p.flatMap(key.decode) ?? key.defaultValue) }
    }

    /// Calls `callback` with the new value for `key` (`nil`: absent) after
    /// every change that alters what a read returns, as ``observe(_:_:)``.
    public func observe(forKey key: String, _ callback: @escaping @Sendable (PropertyList?) -> Void) -> PreferenceObservation {
        let me = self
        let last = LastYielded()
        last.started = true
        last.value = object(forKey: key)
        let token = try? store.addObserver(application: applicationID, key: key) { _, _ in
            last.lock.lock()
            let v = me.object(forKey: key)
            guard v != last.value else { return last.lock.unlock() }
            last.value = v
            last.lock.unlock()
            callback(v)
        }
        return PreferenceObservation(store: store, token: token)
    }

    /// Calls `callback` after every change of any key of this
    /// application's search list, as ``observe(forKey:_:)`` (no value is
    /// passed: read what you need). Keep the returned observation.
    public func observeAll(_ callback: @escaping @Sendable () -> Void) -> PreferenceObservation {
        let token = try? store.addObserver(application: applicationID, key: nil) { _, _ in callback() }
        return PreferenceObservation(store: store, token: token)
    }

    private func stream<T>(_ key: String, _ transform: @escaping @Sendable (PropertyList?) -> T) -> AsyncStream<T> {
        let me = self
        return AsyncStream { continuation in
            let last = LastYielded()
            // Reads and yields under one lock, so values arrive in the order
            // they were read and each change is compared with the last one.
            let emit: @Sendable () -> Void = {
                last.lock.withLock {
                    let v = me.object(forKey: key)
                    if last.started && v == last.value { return }
                    last.started = true
                    last.value = v
                    continuation.yield(transform(v))
                }
            }
            // Observe first, so that no change between the first read and
            // the observer's start is missed.
            let token = try? me.store.addObserver(application: me.applicationID, key: key) { _, _ in emit() }
            emit()
            let observation = PreferenceObservation(store: me.store, token: token)
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}
