/* A lock between the threads of one process, in one 32-bit word: 0 free,
 * 1 held, 2 held with threads waiting (the scheme of glibc's own
 * low-level lock). Taking a free lock and releasing one nobody waits for
 * are one atomic instruction each; a thread that finds the lock held
 * sleeps in the kernel (futex) until it is released. It records no owner,
 * so a child of fork whose fork handlers held it across the fork can
 * release it. */
#ifndef PREFS_LOCK_H
#define PREFS_LOCK_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Waits for the lock, found held (`seen` is 1 or 2), and takes it marked
 * as waited for: the thread that takes it this way cannot know whether
 * others still wait, so its release wakes one. */
static inline void prefs_lock_wait(int32_t *word, int32_t seen)
{
    if (seen != 2)
        seen = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    while (seen != 0) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, (void *)0, (void *)0, 0);
        seen = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    }
}

/* Takes the lock. */
static inline void prefs_lock(int32_t *word)
{
    int32_t seen = 0;
    if (!__atomic_compare_exchange_n(word, &seen, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        prefs_lock_wait(word, seen);
}

/* Releases the lock taken by prefs_lock(); wakes one waiting thread. */
static inline void prefs_unlock(int32_t *word)
{
    if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2)
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}

#endif
