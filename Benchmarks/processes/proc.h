/*
 * proc.h: clock, pipes and output lines shared by the C programs of the
 * many-processes benchmark (coord.c, prefs_proc.c). The Swift program
 * (foundation/UserDefaultsProc.swift) follows the same conventions.
 *
 * Output lines, collected by run.sh into results/raw.txt:
 *   R <case> <contender> <unit> <count> <sample> <sample> ...
 *   N <case> <contender> <text>
 * A sample "x" means "never seen within the timeout" (NAN in the program).
 *
 * Pipes: a worker reads its orders on file descriptor 3 and answers on
 * file descriptor 4 (coord.c sets them up before exec).
 */
#ifndef PROC_BENCH_H
#define PROC_BENCH_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROC_IN 3
#define PROC_OUT 4

/* CLOCK_MONOTONIC is one clock for the whole system, so timestamps taken
 * in different processes can be subtracted. */
static inline int64_t proc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void proc_die(const char *what)
{
    fprintf(stderr, "benchmark failed: %s\n", what);
    exit(2);
}

static inline long proc_arg(int argc, char **argv, int index, long fallback)
{
    return argc > index ? strtol(argv[index], NULL, 10) : fallback;
}

/* Reads exactly n bytes; false at end of file (the other side is gone). */
static inline int proc_read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            proc_die("read from a pipe failed");
        if (got == 0)
            return 0;
        p += got;
        n -= (size_t)got;
    }
    return 1;
}

static inline void proc_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            proc_die("write to a pipe failed");
        p += put;
        n -= (size_t)put;
    }
}

/* Reads exactly n bytes or dies: used where the other side must answer. */
static inline void proc_expect(int fd, void *buf, size_t n)
{
    if (!proc_read_all(fd, buf, n))
        proc_die("the other process closed its pipe");
}

/* One R line; samples printed with %g (milliseconds, counts, 0/1), NAN as x. */
static inline void proc_report(const char *name, const char *contender, const char *unit,
                               const double *samples, long count)
{
    printf("R %s %s %s %ld", name, contender, unit, count);
    for (long i = 0; i < count; i++) {
        if (isnan(samples[i]))
            printf(" x");
        else
            printf(" %.6g", samples[i]);
    }
    printf("\n");
    fflush(stdout);
}

/* What a message between writer and reader carries: a probe value and a
 * CLOCK_MONOTONIC time in ns (the same layout in C and Swift). */
typedef struct {
    int64_t value;
    int64_t time_ns;
} proc_message;

/* Probe values: trial i of a case writes PROC_PROBE_BASE + i, so no trial's
 * value equals an earlier one's or the fixture's. */
#define PROC_PROBE_BASE 1000000

#endif
