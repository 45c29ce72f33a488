/*
 * check.h — the assertion macros of the C tests.
 *
 *   CHECK(cond)              counts a check; on failure prints
 *                            "file:line: CHECK failed: cond" to stderr.
 *   CHECKF(cond, fmt, ...)   the same, and prints fmt/... as a detail line.
 *   CHECK_FINISH()           prints the totals and gives the exit status:
 *                            return CHECK_FINISH(); at the end of main().
 *   CHECK_ASAN               1 in a program built with AddressSanitizer
 *                            (make test-c-asan), else 0.
 *
 * The counters are updated atomically, so CHECK may be used from several
 * threads at once.
 */
#ifndef PREFS_TESTS_CHECK_H
#define PREFS_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#  define CHECK_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define CHECK_ASAN 1
#  endif
#endif
#ifndef CHECK_ASAN
#  define CHECK_ASAN 0
#endif

static unsigned long check_total_count;
static unsigned long check_failure_count;

#if defined(__GNUC__) || defined(__clang__)
#  define CHECK_ATOMIC_INC(counter) ((void)__atomic_fetch_add(&(counter), 1UL, __ATOMIC_RELAXED))
#  define CHECK_ATOMIC_LOAD(counter) __atomic_load_n(&(counter), __ATOMIC_RELAXED)
#else
#  define CHECK_ATOMIC_INC(counter) ((void)((counter)++))
#  define CHECK_ATOMIC_LOAD(counter) (counter)
#endif

/* Records the outcome of one check; returns `ok` so that callers can skip
 * work that depends on it. */
static inline int check_record(int ok, const char *file, int line, const char *expr)
{
    CHECK_ATOMIC_INC(check_total_count);
    if (!ok) {
        CHECK_ATOMIC_INC(check_failure_count);
        fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
        fflush(stderr);
    }
    return ok;
}

#define CHECK(cond) check_record((cond) ? 1 : 0, __FILE__, __LINE__, #cond)

#define CHECKF(cond, ...)                                           \
  do {                                                              \
    if (!check_record((cond) ? 1 : 0, __FILE__, __LINE__, #cond)) { \
      fprintf(stderr, "    ");                                      \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      fflush(stderr);                                               \
    }                                                               \
  } while (0)

/* The number of failed checks so far. */
static inline unsigned long check_failures(void)
{
    return CHECK_ATOMIC_LOAD(check_failure_count);
}

/* Prints "<program>: N checks, N failed" and returns the exit status. */
static inline int check_finish(const char *file)
{
    unsigned long total = CHECK_ATOMIC_LOAD(check_total_count);
    unsigned long failed = CHECK_ATOMIC_LOAD(check_failure_count);
    printf("%s: %lu checks, %lu failed\n", file, total, failed);
    fflush(stdout);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#define CHECK_FINISH() check_finish(__FILE__)

#endif /* PREFS_TESTS_CHECK_H */
