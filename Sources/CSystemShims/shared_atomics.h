/* Atomic operations on memory Swift did not allocate (a shared mapping of a
 * file), which Swift's Synchronization module cannot address. */
#ifndef PREFS_SHARED_ATOMICS_H
#define PREFS_SHARED_ATOMICS_H

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

#endif
