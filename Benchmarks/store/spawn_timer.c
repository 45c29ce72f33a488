/*
 * spawn_timer.c: times whole processes when hyperfine is not installed.
 *
 *   spawn_timer RUNS WARMUP OUT.csv CMD [CMD...]
 *
 * Each CMD (a path, run without a shell or arguments) is started RUNS times
 * after WARMUP untimed starts, by fork and exec, and waited for. Writes the
 * CSV columns hyperfine's --export-csv writes (seconds): command, mean,
 * stddev, median, user, system, min, max.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(const char *path, struct rusage *usage)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        execl(path, path, (char *)NULL);
        perror(path);
        _exit(127);
    }
    int status;
    if (wait4(pid, &status, 0, usage) < 0) {
        perror("wait4");
        exit(2);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s failed (status %d)\n", path, status);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: spawn_timer RUNS WARMUP OUT.csv CMD...\n");
        return 2;
    }
    int runs = atoi(argv[1]), warmup = atoi(argv[2]);
    FILE *out = fopen(argv[3], "w");
    if (out == NULL || runs < 1) {
        perror(argv[3]);
        return 2;
    }
    double *t = malloc(sizeof *t * (size_t)runs);
    fprintf(out, "command,mean,stddev,median,user,system,min,max\n");
    for (int c = 4; c < argc; c++) {
        struct rusage u;
        double user = 0, sys = 0, sum = 0, sq = 0;
        for (int i = 0; i < warmup; i++)
            run(argv[c], &u);
        for (int i = 0; i < runs; i++) {
            double t0 = now();
            run(argv[c], &u);
            t[i] = now() - t0;
            user += u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6;
            sys += u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
            sum += t[i];
        }
        double mean = sum / runs;
        for (int i = 0; i < runs; i++)
            sq += (t[i] - mean) * (t[i] - mean);
        qsort(t, (size_t)runs, sizeof *t, cmp);
        double median = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
        fprintf(out, "%s,%g,%g,%g,%g,%g,%g,%g\n", argv[c], mean, runs > 1 ? sqrt(sq / (runs - 1)) : 0, median,
                user / runs, sys / runs, t[0], t[runs - 1]);
    }
    fclose(out);
    free(t);
    return 0;
}
