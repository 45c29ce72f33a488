// A key's value as an object the Observation module tracks, so that an
// @Observable model (and whatever follows it) sees every change of the
// preference, other processes' included.
import Observation

/// A key's value as an `Observable` object: reading ``value`` inside
/// `withObservationTracking` (or from an `@Observable` model's property,
/// or a SwiftUI view) registers interest, and every change of what a read
/// of the key returns — by this process, by another process's write, by a
/// hand edit of the file — reports a mutation.
///
/// ```swift
/// @Observable final class EditorModel {
///     @ObservationIgnored let size = ObservablePreference(.fontSize)
///     var fontSize: Int {
///         get { size.value }            // tracked through `size`
///         set { size.value = newValue } // stored in the preferences
///     }
/// }
/// ```
///
/// Changes from elsewhere are reported on a library thread. Setting
/// ``value`` stores it (a refused write changes nothing) and reports the
/// mutation at once. The object follows the key until it is released.
/// Thread-safe.
public final class ObservablePreference<Value: Sendable>: Observable, @unchecked Sendable {
    /// The key it follows.
    public let key: Preferences.Key<Value>
    /// The preferences it reads and writes.
    public let preferences: Preferences
    private let registrar = ObservationRegistrar()
    private let lock = ForkSafeMutex()
    private var current: Value
    private var currentList: PropertyList?
    private var observation: PreferenceObservation?

    /// Follows `key` in `preferences` (``Preferences/standard`` by default).
    public init(_ key: Preferences.Key<Value>, in preferences: Preferences = .standard) {
        self.key = key
        self.preferences = preferences
        let p = preferences.propertyList(forKey: key.name)
        currentList = p
        current = p.flatMap(key.decode) ?? key.defaultValue
        observation = preferences.observe(forKey: key.name) { [weak self] p in self?.update(p) }
    }

    /// The key's value (its default when unset); assigning stores it.
    public var value: Value {
        get {
            registrar.access(self, keyPath: \.value)
            return lock.withLock { current }
        }
        set {
            preferences[key] = newValue
            update(preferences.propertyList(forKey: key.name))
        }
    }

    /// Takes `p` as the key's value, reporting a mutation when it differs
    /// from the last one taken.
    private func update(_ p: PropertyList?) {
        let changed = lock.withLock { currentList != p }
        guard changed else { return }
        registrar.withMutation(of: self, keyPath: \.value) {
            lock.withLock {
                currentList = p
                current = p.flatMap(key.decode) ?? key.defaultValue
            }
        }
    }
}
