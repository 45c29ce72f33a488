/* Atomic operations on memory Swift did not allocate (a shared mapping of a
 * file), which Swift's Synchronization module cannot address; and two
 * memory facilities Swift has no name for (a prefetch, the usable size of
 * a heap block). */
#ifndef PREFS_CATOMICS_H
#define PREFS_CATOMICS_H

#include <malloc.h>
#include <stdint.h>

_Static_assert(sizeof(uint64_t) == 8, "64-bit counters");

static inline uint64_t prefs_atomic_load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint64_t prefs_atomic_increment(uint64_t *p)
{
    return __atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL);
}

/* Asks for the cache line at `p` ahead of a write to it (a prefetch: no
 * fault, no effect on what the program computes). */
static inline void prefs_prefetch_for_write(const void *p)
{
    __builtin_prefetch(p, 1, 3);
}

/* The bytes usable in the heap block at `p` (glibc's malloc_usable_size,
 * which Swift's Glibc module leaves out). */
static inline size_t prefs_malloc_usable_size(void *p)
{
    return malloc_usable_size(p);
}

#endif
