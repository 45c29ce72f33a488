/*
 * read_bench.c — a read of a synced key against a read of a local key.
 *
 *   read_bench <reads>     prints "synced <ns/read>" and "local <ns/read>"
 *                          (the best of five runs of <reads> reads each)
 *
 * The environment is set up by run.sh: private XDG_CONFIG_HOME,
 * XDG_RUNTIME_DIR and PREFS_SYNC_DIR. Both keys are set once; every timed
 * read is PrefsCopyAppValue + PrefsRelease, as a program reads.
 */
#define _POSIX_C_SOURCE 200809L
#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define APP "com.example.syncbench"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double time_reads(const char *key, long reads)
{
    double best = 1e300;
    for (int run = 0; run < 5; run++) {
        double start = now();
        for (long i = 0; i < reads; i++) {
            PrefsPropertyListRef v = PrefsCopyAppValue(key, APP);
            if (v == NULL) {
                fprintf(stderr, "read_bench: %s has no value\n", key);
                exit(1);
            }
            PrefsRelease(v);
        }
        double ns = (now() - start) / (double)reads;
        if (ns < best)
            best = ns;
    }
    return best;
}

int main(int argc, char **argv)
{
    long reads = argc > 1 ? atol(argv[1]) : 1000000;
    PrefsNumberRef n = PrefsNumberCreateInt64(42);
    if (!PrefsAppSetKeySynced("Synced", true, APP)) {
        fprintf(stderr, "read_bench: cannot declare the key synced\n");
        return 1;
    }
    PrefsSetAppValue("Synced", n, APP);
    PrefsSetAppValue("Local", n, APP);
    PrefsRelease(n);
    if (!PrefsAppSynchronize(APP))
        return 1;
    PrefsSource source;
    PrefsRelease(PrefsCopyAppValueAndSource("Synced", APP, &source, NULL));
    if (source != kPrefsSourceSynced) {
        fprintf(stderr, "read_bench: the synced key is not read from the sync folder\n");
        return 1;
    }
    if (reads <= 1) {
        /* One read of each, for counting the system calls of the start. */
        PrefsRelease(PrefsCopyAppValue("Synced", APP));
        PrefsRelease(PrefsCopyAppValue("Local", APP));
        return 0;
    }
    printf("synced %.1f\n", time_reads("Synced", reads));
    printf("local %.1f\n", time_reads("Local", reads));
    return 0;
}
