/* Process-wide state that Swift cannot hold safely across fork():
 *
 *  - the fork handlers, installed when the library is loaded (before any
 *    thread can make a first call), so that a fork never copies a process
 *    in the middle of the library's one-time initialisation;
 *  - the lock that one-time initialisation holds, taken by the fork
 *    handlers;
 *  - the pointer to the process's shared store, readable without a lock.
 *
 * Swift's own lazy globals (swift_once) cannot be waited for by a fork
 * handler: a child forked while one is being initialised waits for it
 * forever. */
#ifndef PREFS_PROCESS_HOOKS_H
#define PREFS_PROCESS_HOOKS_H

/** Called by the fork handlers: before fork, then in the parent or the
 *  child after it. Set once, under prefs_init_lock(). */
typedef void (*prefs_fork_hook)(void);

/** Takes the recursive lock that one-time initialisation holds; fork()
 *  waits for it, so it never copies a half-initialised library. */
void prefs_init_lock(void);
/** Releases prefs_init_lock(). */
void prefs_init_unlock(void);

/** Sets the hooks the fork handlers call (under prefs_init_lock). */
void prefs_set_fork_hooks(prefs_fork_hook prepare, prefs_fork_hook parent, prefs_fork_hook child);

/** Where the shared store (an unmanaged Swift object) is published. */
extern void *prefs_shared_store_pointer;

/** The shared store, or NULL before it exists: one load, no lock. */
static inline void *prefs_shared_store(void)
{
    return __atomic_load_n(&prefs_shared_store_pointer, __ATOMIC_ACQUIRE);
}

/** Publishes the shared store (under prefs_init_lock, once). */
static inline void prefs_set_shared_store(void *store)
{
    __atomic_store_n(&prefs_shared_store_pointer, store, __ATOMIC_RELEASE);
}

/** How many entry points prefs_warm() can tell apart. */
#define PREFS_ENTRY_POINTS 128

/** Per entry point of the C face: set once its first call has returned. */
extern unsigned char prefs_warm_flags[PREFS_ENTRY_POINTS];

/** Whether entry point `entry`'s first call has returned: one load. */
static inline int prefs_warm(int entry)
{
    return __atomic_load_n(&prefs_warm_flags[entry], __ATOMIC_ACQUIRE);
}

/** Records that entry point `entry`'s first call has returned. */
static inline void prefs_set_warm(int entry)
{
    __atomic_store_n(&prefs_warm_flags[entry], 1, __ATOMIC_RELEASE);
}

#endif
