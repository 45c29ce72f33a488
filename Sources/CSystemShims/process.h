/* The process facts Swift's Glibc module leaves out: getauxval is declared
 * in <sys/auxv.h>, which that module does not import. */
#ifndef PREFS_CPROCESS_H
#define PREFS_CPROCESS_H

#include <sys/auxv.h>

/* Whether the kernel started this program with privileges its caller lacks
 * (setuid, setgid, file capabilities): AT_SECURE, the test secure_getenv
 * makes. The environment then belongs to the caller. */
static inline int prefs_process_is_secure(void)
{
    return getauxval(AT_SECURE) != 0;
}

#endif
