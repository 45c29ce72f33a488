/*
 * many_domains N — what a read costs in a process that has loaded N
 * domains, after nothing changed, after its own write and synchronize, and
 * after another process's write (a forked child's). Prints the median of
 * 7 runs of each, in milliseconds. Run it with XDG_CONFIG_HOME (and
 * XDG_RUNTIME_DIR) in a scratch directory: it makes N domain files there.
 * With PREFS naming the prefs command, the other process's write is that
 * command's (exec'd from a fork); otherwise a forked child writes.
 *
 *   cc -O2 -o many_domains many_domains.c $(pkg-config --cflags --libs prefs)
 *   XDG_CONFIG_HOME=$(mktemp -d) ./many_domains 20000
 */
#define _XOPEN_SOURCE 700
#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

static void write_value(const char *app, long long v)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(v);
    PrefsSetAppValue("k", n, app);
    PrefsRelease(n);
    PrefsAppSynchronize(app);
}

static double timed_read(const char *app)
{
    double t = now_ms();
    PrefsRelease(PrefsCopyAppValue("k", app));
    return now_ms() - t;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    const char *dir = getenv("XDG_CONFIG_HOME");
    if (dir == NULL || n < 2) {
        fprintf(stderr, "usage: XDG_CONFIG_HOME=<scratch> %s <domains, at least 2>\n", argv[0]);
        return 2;
    }
    char app[64], path[4096];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/com.example.many%d.plist", dir, i);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            return 1;
        fprintf(f,
                "<?xml version=\"1.0\"?><plist "
                "version=\"1.0\"><dict><key>k</key><integer>%d</integer></dict></plist>\n",
                i);
        fclose(f);
    }
    for (int i = 0; i < n; i++) {
        snprintf(app, sizeof app, "com.example.many%d", i);
        PrefsRelease(PrefsCopyAppValue("k", app));
    }
    enum { RUNS = 7 };
    double quiet[RUNS], own[RUNS], other[RUNS];
    for (int r = 0; r < RUNS; r++) {
        quiet[r] = timed_read("com.example.many0");
        write_value("com.example.many0", r);
        own[r] = timed_read("com.example.many0");
        /* Another process: the prefs command when PREFS names it (no copy
         * of this process's memory), else a forked child. */
        const char *prefs = getenv("PREFS");
        pid_t child = fork();
        if (child == 0) {
            if (prefs != NULL) {
                char value[32];
                snprintf(value, sizeof value, "%d", r);
                execl(prefs, "prefs", "write", "com.example.many1", "k", "-int", value, (char *)NULL);
                _exit(127);
            }
            write_value("com.example.many1", r);
            _exit(0);
        }
        waitpid(child, NULL, 0);
        other[r] = timed_read("com.example.many0");
    }
    printf("%d domains loaded: read %.3f ms; after own synchronize %.3f ms; after another process's write "
           "%.3f ms\n",
           n, median(quiet, RUNS), median(own, RUNS), median(other, RUNS));
    return 0;
}
