/* Two facilities of the memory system Swift has no name for: a prefetch
 * and the usable size of a heap block. */
#ifndef PREFS_MEMORY_H
#define PREFS_MEMORY_H

#include <malloc.h>
#include <stddef.h>

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
