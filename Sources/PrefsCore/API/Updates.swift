// Change streams and callbacks over the store's observers: a value first,
// then the value after every change that alters what a read returns.

/// A registered change callback; ``cancel()`` (or dropping the last
/// reference) stops delivery and frees what it held. When ``cancel()``
/// returns, a callback of ``Preferences/observe(_:_:)-(_,(Preferences.Change<Value>)->Void)`` is not running and
/// will not run again (unless called from within that very callback); one
/// of ``Preferences/onDidChange(_:)-method`` may still be finishing on the thread
/// that made a change. Thread-safe.
public final class PreferenceObservation: Sendable {
    private let stop: @Sendable () -> Void
    private let cancelled = ForkSafeFlag()

    init(store: PreferencesStore, token: PreferencesStore.ObserverToken?) {
        self.stop = { if let token { store.removeObserver(token) } }
    }

    init(_ stop: @escaping @Sendable () -> Void) {
        self.stop = stop
    }

    /// Stops delivery; later calls do nothing.
    public func cancel() {
        guard cancelled.set() else { return }
        stop()
    }

    deinit { cancel() }
}

/// A flag that is set once, under a lock.
final class ForkSafeFlag: @unchecked Sendable {
    private let lock = ForkSafeMutex()
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
    let lock = ForkSafeMutex()
    var started = false
    var value: PropertyList? = nil
}

/// Names and last values of the keys a stream of several keys follows.
private final class LastValues: @unchecked Sendable {
    let lock = ForkSafeMutex()
    var values: [String: PropertyList?] = [:]
}

extension Preferences {
    /// A change of a key's value, as ``observe(_:_:)-(_,(Preferences.Change<Value>)->Void)``
    /// passes it: the value a read returned before and the one it returns now.
    public struct Change<Value: Sendable>: Sendable {
        /// What a read returned before the change (the default when unset).
        public let oldValue: Value
        /// What a read returns after it.
        public let newValue: Value
    }

    /// The value for `key` (`nil` when absent) now, unless `initial` is
    /// false, then after every change that alters what a read returns: a
    /// set or removal in this process, another process's synchronize, a
    /// hand edit of the file, a registration, a suite added or removed.
    /// Breaking out of the loop stops delivery and frees what it held.
    /// Values arrive in order on a library thread; each is read when its
    /// change is delivered, so changes that come faster than delivery are
    /// coalesced and the last value always arrives.
    public func updates(forKey key: String, initial: Bool = true) -> AsyncStream<PropertyList?> {
        stream(key, initial: initial) { $0 }
    }

    /// The typed value for `key` (its default when unset or invalid) now,
    /// unless `initial` is false, then after every change, as
    /// ``updates(forKey:initial:)``.
    public func updates<Value>(for key: Key<Value>, initial: Bool = true) -> AsyncStream<Value> {
        key.declare(in: applicationID)
        return stream(key.name, initial: initial) { p in p.flatMap(key.decode) ?? key.defaultValue }
    }

    /// An element now, unless `initial` is false, then one after every
    /// change that alters what a read of any of `keys` returns (keys of
    /// different value types may be mixed: `updates(for: [.fontSize,
    /// .theme])`); read the values you need in the loop. Changes that come
    /// faster than delivery are coalesced. Breaking out of the loop stops
    /// delivery and frees what it held.
    public func updates(for keys: [Keys], initial: Bool = true) -> AsyncStream<Void> {
        let me = self
        for key in keys { key.declare(in: applicationID) }
        let names = Set(keys.map(\.name))
        return AsyncStream { continuation in
            let last = LastValues()
            // Observe first, so that no change between the first read and
            // the observer's start is missed.
            let token = try? me.store.addObserver(application: me.applicationID, key: nil) { _, key in
                guard names.contains(key) else { return }
                last.lock.withLock {
                    let v = me.propertyList(forKey: key)
                    if let old = last.values[key], old == v { return }
                    last.values[key] = v
                    continuation.yield()
                }
            }
            last.lock.withLock {
                for n in names where last.values[n] == nil { last.values[n] = .some(me.propertyList(forKey: n)) }
                if initial { continuation.yield() }
            }
            let observation = PreferenceObservation(store: me.store, token: token)
            continuation.onTermination = { _ in observation.cancel() }
        }
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

    /// Calls `callback` with the old and the new value for `key` after
    /// every change that alters what a read returns, as
    /// ``observe(_:_:)-(_,(Value)->Void)``:
    ///
    /// ```swift
    /// let token = prefs.observe(.fontSize) { change in
    ///     print(change.oldValue, "->", change.newValue)
    /// }
    /// ```
    @_disfavoredOverload
    public func observe<Value>(
        _ key: Key<Value>, _ callback: @escaping @Sendable (Change<Value>) -> Void
    ) -> PreferenceObservation {
        key.declare(in: applicationID)
        return observeChanges(forKey: key.name) { old, new in
            callback(Change(oldValue: old.flatMap(key.decode) ?? key.defaultValue, newValue: new.flatMap(key.decode) ?? key.defaultValue))
        }
    }

    /// Calls `callback` with the new value for `key` (`nil`: absent) after
    /// every change that alters what a read returns, as ``observe(_:_:)-(_,(Value)->Void)``.
    public func observe(forKey key: String, _ callback: @escaping @Sendable (PropertyList?) -> Void) -> PreferenceObservation {
        observeChanges(forKey: key) { _, new in callback(new) }
    }

    /// Calls `callback` with the value before and after every change of
    /// `key` that alters what a read returns.
    func observeChanges(
        forKey key: String, _ callback: @escaping @Sendable (PropertyList?, PropertyList?) -> Void
    ) -> PreferenceObservation {
        let me = self
        let last = LastYielded()
        last.started = true
        last.value = propertyList(forKey: key)
        let token = try? store.addObserver(application: applicationID, key: key) { _, _ in
            last.lock.lock()
            let v = me.propertyList(forKey: key)
            guard v != last.value else { return last.lock.unlock() }
            let old = last.value
            last.value = v
            last.lock.unlock()
            callback(old, v)
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

    private func stream<T>(_ key: String, initial: Bool, _ transform: @escaping @Sendable (PropertyList?) -> T) -> AsyncStream<T> {
        let me = self
        return AsyncStream { continuation in
            let last = LastYielded()
            // Reads and yields under one lock, so values arrive in the order
            // they were read and each change is compared with the last one.
            let emit: @Sendable (_ first: Bool) -> Void = { first in
                last.lock.withLock {
                    let v = me.propertyList(forKey: key)
                    if last.started && v == last.value { return }
                    last.started = true
                    last.value = v
                    if !first || initial { continuation.yield(transform(v)) }
                }
            }
            // Observe first, so that no change between the first read and
            // the observer's start is missed.
            let token = try? me.store.addObserver(application: me.applicationID, key: key) { _, _ in emit(false) }
            emit(true)
            let observation = PreferenceObservation(store: me.store, token: token)
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}
