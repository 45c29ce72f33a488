// UserDefaults.didChangeNotification's semantics: a callback for every
// change made through a Preferences, whether or not it altered a value.
import Synchronization

/// The callbacks of ``Preferences/onDidChange(_:)``, process-wide. Its
/// lock is a leaf: callbacks run outside it.
enum DidChangeObservers {
    struct Entry {
        /// The store and application followed; nil for every one.
        let store: ObjectIdentifier?
        let application: String?
        let callback: @Sendable (Preferences) -> Void
    }
    /// Guarded by a ``ForkSafeMutex`` (not `Mutex`, which fails in a child
    /// of `fork`).
    private final class State: @unchecked Sendable {
        let lock = ForkSafeMutex()
        var entries: [Int: Entry] = [:]
        var nextID = 1
        func withLock<T>(_ body: (State) -> T) -> T { lock.withLock { body(self) } }
    }
    private static let state = State()
    /// How many entries there are: a change with none costs one load.
    private static let count = Atomic<Int>(0)

    static func add(_ entry: Entry) -> PreferenceObservation {
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.entries[id] = entry
            return id
        }
        count.add(1, ordering: .releasing)
        return PreferenceObservation {
            let removed = state.withLock { $0.entries.removeValue(forKey: id) }
            if removed != nil { count.subtract(1, ordering: .releasing) }
            // The callback is released here, outside the lock.
            withExtendedLifetime(removed) {}
        }
    }

    /// Calls, in the order they were added, every callback that follows
    /// `prefs`, on this thread, outside every lock.
    static func post(_ prefs: Preferences) {
        guard count.load(ordering: .acquiring) > 0 else { return }
        let store = ObjectIdentifier(prefs.store)
        let targets = state.withLock { s in
            s.entries.sorted { $0.key < $1.key }.map(\.value).filter {
                ($0.store == nil || $0.store == store) && ($0.application == nil || $0.application == prefs.applicationID)
            }
        }
        for t in targets { t.callback(prefs) }
    }
}

extension Preferences {
    /// Calls `callback` after every change made through a `Preferences`
    /// of this application and store, as `UserDefaults` posts
    /// `didChangeNotification`: a set (even of an equal value), a
    /// removal, a reset, a persistent or volatile domain
    /// set or removed, a suite added or removed. A refused change calls
    /// nothing. Changes by other processes are not reported here: for
    /// those, and for values that actually changed, use
    /// ``observe(_:_:)-(_,(Value)->Void)`` or ``updates(for:initial:)->AsyncStream<Value>``.
    ///
    /// The callback runs on the thread that made the change, after it,
    /// outside every lock of the library. Keep the returned observation:
    /// cancelling or dropping it stops the calls.
    public func onDidChange(_ callback: @escaping @Sendable (Preferences) -> Void) -> PreferenceObservation {
        DidChangeObservers.add(.init(store: ObjectIdentifier(store), application: applicationID, callback: callback))
    }

    /// ``onDidChange(_:)`` for changes made through every `Preferences` of
    /// the process (the callback is given the one that changed), as an
    /// observer of `didChangeNotification` with no object.
    public static func onDidChange(_ callback: @escaping @Sendable (Preferences) -> Void) -> PreferenceObservation {
        DidChangeObservers.add(.init(store: nil, application: nil, callback: callback))
    }

    /// Tells the ``onDidChange(_:)`` callbacks of a change made through this.
    func didChange() {
        DidChangeObservers.post(self)
    }
}
