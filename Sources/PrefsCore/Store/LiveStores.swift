import CProcessHooks
import Glibc
import Synchronization

/// Every store of the process, for the moments that concern them all:
/// writing pending changes in the background and at normal exit, and
/// `fork`, across which each store's locks are held so that no other
/// thread is half-way through a change when the process is copied.
///
/// Stores are held unretained (a weak reference would slow every retain of
/// a store): a store removes itself first thing in its deinit, which waits
/// for this lock, so a store found in the list under the lock is alive for
/// as long as the lock is held. A library thread working on a store under
/// the lock may still hold a retain of its own (an unoptimised build
/// retains around closures); if the program drops its reference meanwhile,
/// that thread's release runs the deinit, on the thread that holds this
/// lock. `remove` then takes the store out without waiting for the lock,
/// and `withEach` skips a store that is no longer listed.
///
/// Lock order: the initialisation lock (`prefs_init_lock`), this lock, a
/// store's lock, the writer's lock; a store's observers' lock after the
/// store's.
enum LiveStores {
    private static let lock = ForkSafeMutex()
    /// The thread inside ``withEach(_:_:)``, holding the lock; 0 for none.
    private static let holder = Atomic<UInt>(0)
    nonisolated(unsafe) private static var stores: [Unmanaged<PreferencesStore>] = []

    /// Adds a new store. The first call installs the exit handler and the
    /// fork hooks, under the lock `fork` waits for.
    static func add(_ store: PreferencesStore) {
        prefs_init_lock()
        defer { prefs_init_unlock() }
        _ = installed
        lock.withLock { stores.append(.passUnretained(store)) }
    }

    /// Removes a store; once this returns, no library thread touches it.
    static func remove(_ store: PreferencesStore) {
        let gone = Unmanaged.passUnretained(store).toOpaque()
        if holder.load(ordering: .acquiring) == UInt(pthread_self()) {
            // The last release came from this thread's own withEach, which
            // holds the lock: waiting for it would wait for ever.
            stores.removeAll { $0.toOpaque() == gone }
        } else {
            lock.withLock { stores.removeAll { $0.toOpaque() == gone } }
        }
        BackgroundWriter.cancel(gone)
    }

    private static let installed: Void = {
        _ = lock
        BackgroundWriter.prepare()
        atexit { LiveStores.flushAll() }
        prefs_set_fork_hooks(
            { LiveStores.prepareFork() }, { LiveStores.resumeAfterFork(inChild: false) },
            { LiveStores.resumeAfterFork(inChild: true) })
    }()

    /// Runs `body` with each of `wanted` (every store when nil) that is
    /// still alive, under the lock, so that none can go away meanwhile.
    static func withEach(_ wanted: [UnsafeMutableRawPointer]?, _ body: (PreferencesStore) -> Void) {
        lock.withLock {
            holder.store(UInt(pthread_self()), ordering: .releasing)
            defer { holder.store(0, ordering: .releasing) }
            for s in stores where wanted?.contains(s.toOpaque()) ?? true {
                // One that went away while an earlier one was served (its
                // deinit ran on this thread) is no longer listed.
                guard stores.contains(where: { $0.toOpaque() == s.toOpaque() }) else { continue }
                s._withUnsafeGuaranteedRef(body)
            }
        }
    }

    private static func flushAll() {
        withEach(nil) { try? $0.synchronizeAllUnretained() }
    }

    private static func prepareFork() {
        lock.lock()
        for s in stores { s._withUnsafeGuaranteedRef { $0.lockForFork() } }
        BackgroundWriter.lockForFork()
        // Leaves, last: their holders wait for no other lock.
        DeclaredDefaults.lockForFork()
        DeclaredSyncedKeys.lockForFork()
    }

    private static func resumeAfterFork(inChild: Bool) {
        DeclaredSyncedKeys.unlockAfterFork()
        DeclaredDefaults.unlockAfterFork()
        BackgroundWriter.unlockAfterFork(inChild: inChild)
        for s in stores.reversed() { s._withUnsafeGuaranteedRef { $0.unlockAfterFork(inChild: inChild) } }
        lock.unlock()
    }
}

extension PreferencesStore {
    // MARK: Fork

    /// Before `fork`: takes the store's locks, so that the child gets the
    /// state whole (see ``LiveStores``).
    func lockForFork() {
        lock.lock()
        observers.lockForFork()
    }

    /// After `fork`, in the parent or the child: releases the locks. The
    /// child has none of the parent's threads, so its writing by itself,
    /// delivery to observers and directory watcher start again.
    func unlockAfterFork(inChild: Bool) {
        observers.unlockAfterFork(inChild: inChild)
        if inChild {
            state.flushScheduled = false
            if state.domains.values.contains(where: { $0.hasPendingChanges }) { scheduleFlush(&state) }
            watcher?.abandonAfterFork()
            watcher = nil
            if !state.domains.isEmpty { startWatcher(immediately: !observers.isEmpty, state.linkedDirectories) }
        }
        lock.unlock()
    }
}
