/*
 * bench.h: the timing and reporting shared by the C programs of the
 * preferences-store benchmark.
 *
 * Every measurement is printed as one line that run.sh collects:
 *   R <case> <contender> <unit> <iterations-per-sample> <sample> <sample> ...
 * and facts about a run as
 *   N <case> <contender> <text>
 * Loops are timed twice: wall-clock time (<case>) and the thread's CPU time
 * (<case>-cpu), which leaves out the time the thread waited for a core on a
 * busy machine.
 */
#ifndef STORE_BENCH_H
#define STORE_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the calling thread: the time it was not waiting for a core. */
static inline double bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void bench_die(const char *what)
{
    fprintf(stderr, "benchmark setup failed: %s\n", what);
    exit(2);
}

static inline long bench_arg(int argc, char **argv, int index, long fallback)
{
    return argc > index ? strtol(argv[index], NULL, 10) : fallback;
}

static inline void bench_report(const char *name, const char *contender, const char *unit, long iterations,
                                const double *samples, int count)
{
    printf("R %s %s %s %ld", name, contender, unit, iterations);
    for (int i = 0; i < count; i++)
        printf(" %.6g", samples[i]);
    printf("\n");
    fflush(stdout);
}

static inline void bench_report_pair(const char *name, const char *contender, long iterations,
                                     const double *wall, const double *cpu, int count)
{
    char cpu_name[64];
    snprintf(cpu_name, sizeof cpu_name, "%s-cpu", name);
    bench_report(name, contender, "ns/op", iterations, wall, count);
    bench_report(cpu_name, contender, "ns/op", iterations, cpu, count);
}

#define BENCH_MAX_SAMPLES 64

/* The pending-key counts at which the cost of one more set is sampled. */
static const long bench_growth_points[] = {1000, 5000, 10000, 20000};
#define BENCH_GROWTH_POINTS 4
/* Sets timed at each point (the mean of this window is the per-set cost). */
#define BENCH_GROWTH_WINDOW 500

#endif
