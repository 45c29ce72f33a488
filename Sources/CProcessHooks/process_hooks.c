#define _GNU_SOURCE
#include "process_hooks.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

static pthread_mutex_t init_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static prefs_fork_hook hook_prepare, hook_parent, hook_child;
void *prefs_shared_store_pointer;
unsigned char prefs_warm_flags[PREFS_ENTRY_POINTS];
pthread_key_t prefs_thread_key;
__thread struct prefs_thread_state *prefs_thread_current;
static prefs_thread_release thread_release;

void prefs_init_lock(void)
{
    pthread_mutex_lock(&init_lock);
}
void prefs_init_unlock(void)
{
    pthread_mutex_unlock(&init_lock);
}

void prefs_set_fork_hooks(prefs_fork_hook prepare, prefs_fork_hook parent, prefs_fork_hook child)
{
    hook_prepare = prepare;
    hook_parent = parent;
    hook_child = child;
}

/* The hooks are read under init_lock, which prefs_set_fork_hooks is called under. */
static void prepare(void)
{
    pthread_mutex_lock(&init_lock);
    if (hook_prepare)
        hook_prepare();
}

static void parent(void)
{
    if (hook_parent)
        hook_parent();
    pthread_mutex_unlock(&init_lock);
}

static void child(void)
{
    if (hook_child)
        hook_child();
    /* A recursive mutex remembers its owner's thread id, which in the child
     * names no thread: start it again instead of unlocking it. */
    pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    init_lock = fresh;
}

/* A thread's record when it exits. The variable is cleared first, so that a
 * call from a destructor that runs later makes a new record (given back in
 * the next round of destructors) instead of using this one. The release
 * function was set before the record held any object (on this thread). */
static void thread_exit(void *record)
{
    struct prefs_thread_state *s = record;
    prefs_thread_current = NULL;
    prefs_thread_release release = __atomic_load_n(&thread_release, __ATOMIC_ACQUIRE);
    if (s->last_error)
        release(s->last_error);
    if (s->application)
        release(s->application);
    free(s);
}

struct prefs_thread_state *prefs_thread_state_make(prefs_thread_release release)
{
    struct prefs_thread_state *s = prefs_thread_state();
    if (s)
        return s;
    __atomic_store_n(&thread_release, release, __ATOMIC_RELEASE);
    if (prefs_thread_key == PTHREAD_KEYS_MAX)
        abort();
    s = calloc(1, sizeof *s);
    if (s == NULL || pthread_setspecific(prefs_thread_key, s) != 0)
        abort();
    prefs_thread_current = s;
    return s;
}

/* Made at load, before any thread can call the library: neither needs a
 * one-time check later, which a fork could catch half-way. The library is
 * never unloaded (-z nodelete), so the key's destructor stays mapped. When
 * the process has no key left, the key is one glibc answers NULL for, and
 * the first record made aborts (as a failed Swift allocation does) rather
 * than loading the library does. */
__attribute__((constructor)) static void install_process_hooks(void)
{
    pthread_atfork(prepare, parent, child);
    if (pthread_key_create(&prefs_thread_key, thread_exit) != 0)
        prefs_thread_key = PTHREAD_KEYS_MAX;
}
