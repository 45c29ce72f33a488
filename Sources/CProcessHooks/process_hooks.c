#define _GNU_SOURCE
#include "process_hooks.h"

#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t init_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static prefs_fork_hook hook_prepare, hook_parent, hook_child;
void *prefs_shared_store_pointer;
unsigned char prefs_warm_flags[PREFS_ENTRY_POINTS];

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

__attribute__((constructor)) static void install_fork_handlers(void)
{
    pthread_atfork(prepare, parent, child);
}
