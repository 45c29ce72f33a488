/* Process-wide state that Swift cannot hold safely across fork():
 *
 *  - the fork handlers, installed when the library is loaded (before any
 *    thread can make a first call), so that a fork never copies a process
 *    in the middle of the library's one-time initialisation;
 *  - the lock that one-time initialisation holds, taken by the fork
 *    handlers;
 *  - the pointer to the process's shared store, readable without a lock;
 *  - each thread's record of the C face (its last error and the last
 *    application it named): a thread-local variable, so that reaching it
 *    costs no one-time check, and the value of a thread-specific key made
 *    when the library is loaded, whose destructor gives it back.
 *
 * Swift's own lazy globals (swift_once) cannot be waited for by a fork
 * handler: a child forked while one is being initialised waits for it
 * forever. */
#ifndef PREFS_PROCESS_HOOKS_H
#define PREFS_PROCESS_HOOKS_H

#include <pthread.h>

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

/** One thread's record of the C face. Each object is an unmanaged Swift
 *  object the record holds +1, or NULL; only its own thread reads or
 *  changes a record. */
struct prefs_thread_state {
    /** The thread's last error (an ErrorObject). */
    void *last_error;
    /** The application the thread named last (a ResolvedApplication). */
    void *application;
    /** That application's ID as the caller wrote it, NUL-terminated: owned
     *  by `application`, valid while it is. */
    const char *application_id;
};

/** Releases one object of a record: a Swift release, set by the Swift side. */
typedef void (*prefs_thread_release)(void *object);

/** The key of the records, made when the library is loaded (its destructor
 *  releases a thread's objects and frees its record when the thread exits). */
extern pthread_key_t prefs_thread_key;

/** This thread's record (also its value for prefs_thread_key, whose
 *  destructor clears it), in a thread-local variable of the default
 *  (global-dynamic) model, which any process may dlopen. */
extern __thread struct prefs_thread_state *prefs_thread_current;

/** This thread's record, or NULL before its first. */
static inline struct prefs_thread_state *prefs_thread_state(void)
{
    return prefs_thread_current;
}

/** This thread's record, made (empty) if it has none; `release` is what its
 *  destructor releases the record's objects with. Aborts when no memory is
 *  left for it, as every Swift allocation does. */
struct prefs_thread_state *prefs_thread_state_make(prefs_thread_release release);

#endif
