/*
 * prefs_bench.c: libprefs through its C API, one case per process.
 *
 *   prefs_bench hit|registered|miss RUNS ITERS   PrefsCopyAppValue + PrefsRelease
 *   prefs_bench schema RUNS ITERS                the same, of a key only the installed
 *                                                schema has (Benchmarks/store/schema.sh)
 *   prefs_bench set RUNS ITERS                   PrefsSetAppValue of an existing key
 *   prefs_bench bulk N                           N sets of new keys, then PrefsAppSynchronize
 *   prefs_bench growth                           per-set cost at 1k, 5k, 10k, 20k pending keys
 *   prefs_bench sync1 RUNS                       PrefsAppSynchronize of one changed key
 *   prefs_bench first1                           a new process's first PrefsAppSynchronize
 *                                                after one change (wall and CPU, ms)
 *   prefs_bench loop N                           N reads, no timing (for strace)
 *
 * The domain is com.example.bench in $XDG_CONFIG_HOME, prepared by run.sh.
 */
#include <prefs/Prefs.h>
#include <sys/stat.h>
#include "bench.h"

#define APP "com.example.bench"
static const char *contender = "libprefs";

static void expect_string(const char *key, const char *expected)
{
    PrefsPropertyListRef v = PrefsCopyAppValue(key, APP);
    if (expected == NULL) {
        if (v != NULL)
            bench_die("a key defined nowhere has a value");
        return;
    }
    if (v == NULL || PrefsGetType(v) != kPrefsTypeString)
        bench_die("the key has no string value");
    if (strcmp(PrefsStringGetCString((PrefsStringRef)v), expected) != 0)
        bench_die("the key has the wrong value");
    PrefsRelease(v);
}

static void register_defaults(void)
{
    const char *keys[] = {"RegisteredOnly"};
    PrefsStringRef value = PrefsStringCreate("Registered value");
    PrefsPropertyListRef values[] = {value};
    PrefsDictionaryRef d = PrefsDictionaryCreate(keys, values, 1);
    PrefsRegisterDefaults(d, APP);
    PrefsRelease(d);
    PrefsRelease(value);
}

static void reads(const char *name, const char *key, const char *expected, int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES];
    expect_string(key, expected); /* loads every domain of the search list */
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++) {
            PrefsPropertyListRef v = PrefsCopyAppValue(key, APP);
            PrefsRelease(v);
        }
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        wall[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair(name, contender, iters, wall, cpu, runs);
}

static void sets(int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES];
    PrefsPropertyListRef v = PrefsCopyAppValue("FontSize", APP);
    if (v == NULL)
        bench_die("FontSize is not in the domain");
    PrefsRelease(v);
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++) {
            PrefsNumberRef n = PrefsNumberCreateInt64(12 + (i & 1) * 2);
            PrefsSetAppValue("FontSize", n, APP);
            PrefsRelease(n);
        }
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        wall[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair("set", contender, iters, wall, cpu, runs);
}

static char **make_keys(long n)
{
    char **keys = malloc(sizeof *keys * (size_t)n);
    if (keys == NULL)
        bench_die("out of memory");
    for (long i = 0; i < n; i++) {
        keys[i] = malloc(24);
        if (keys[i] == NULL)
            bench_die("out of memory");
        snprintf(keys[i], 24, "new%05ld", i);
    }
    return keys;
}

static void set_new(const char *key, long i)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(i);
    PrefsSetAppValue(key, n, APP);
    PrefsRelease(n);
}

static int domain_file_exists(void)
{
    const char *dir = getenv("XDG_CONFIG_HOME");
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.plist", dir ? dir : ".", APP);
    return stat(path, &st) == 0;
}

static void bulk(long n)
{
    char **keys = make_keys(n);
    expect_string("MissingKey", NULL); /* loads the (empty) domain */
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++)
        set_new(keys[i], i);
    double t1 = bench_now_ns();
    int written_early = domain_file_exists();
    if (!PrefsAppSynchronize(APP))
        bench_die("PrefsAppSynchronize failed");
    double t2 = bench_now_ns();
    double sets_ms = (t1 - t0) / 1e6, sync_ms = (t2 - t1) / 1e6, total_ms = (t2 - t0) / 1e6;
    bench_report("bulk-sets", contender, "ms", n, &sets_ms, 1);
    bench_report("bulk-sync", contender, "ms", n, &sync_ms, 1);
    bench_report("bulk-total", contender, "ms", n, &total_ms, 1);
    printf("N bulk %s written-before-synchronize=%s\n", contender, written_early ? "yes" : "no");
}

static void growth(void)
{
    long last = bench_growth_points[BENCH_GROWTH_POINTS - 1] + BENCH_GROWTH_WINDOW;
    char **keys = make_keys(last);
    expect_string("MissingKey", NULL);
    long i = 0;
    double start = bench_now_ns();
    for (int p = 0; p < BENCH_GROWTH_POINTS; p++) {
        for (; i < bench_growth_points[p]; i++)
            set_new(keys[i], i);
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long j = 0; j < BENCH_GROWTH_WINDOW; j++, i++)
            set_new(keys[i], i);
        double cpu_us = (bench_cpu_ns() - c0) / 1e3 / BENCH_GROWTH_WINDOW;
        double wall_us = (bench_now_ns() - t0) / 1e3 / BENCH_GROWTH_WINDOW;
        char name[32];
        snprintf(name, sizeof name, "growth-%ld", bench_growth_points[p]);
        bench_report(name, contender, "us/set", BENCH_GROWTH_WINDOW, &wall_us, 1);
        snprintf(name, sizeof name, "growth-%ld-cpu", bench_growth_points[p]);
        bench_report(name, contender, "us/set", BENCH_GROWTH_WINDOW, &cpu_us, 1);
    }
    double all_ms = (bench_now_ns() - start) / 1e6;
    bench_report("growth-all", contender, "ms", last, &all_ms, 1);
    printf("N growth %s written-before-synchronize=%s\n", contender, domain_file_exists() ? "yes" : "no");
    PrefsAppSynchronize(APP);
}

static void sync1(int runs)
{
    double samples[BENCH_MAX_SAMPLES];
    bool valid = false;
    PrefsArrayRef keys = PrefsCopyKeyList(APP, kPrefsCurrentUser, kPrefsAnyHost);
    if (keys == NULL || PrefsArrayGetCount(keys) < 1000)
        bench_die("the domain does not hold 1,000 keys");
    PrefsRelease(keys);
    PrefsGetAppIntegerValue("FontSize", APP, &valid);
    if (!valid)
        bench_die("FontSize is not in the domain");
    for (int r = 0; r < runs; r++) {
        PrefsNumberRef n = PrefsNumberCreateInt64(100 + r);
        PrefsSetAppValue("FontSize", n, APP);
        PrefsRelease(n);
        double t0 = bench_now_ns();
        if (!PrefsAppSynchronize(APP))
            bench_die("PrefsAppSynchronize failed");
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report("sync1", contender, "ms", 1, samples, runs);
}

/* The first synchronize of a process after one change: the domain is
   loaded (by a read), one key set, then the synchronize timed, which reads
   the file again under the lock, finds its own bytes, and writes the whole
   domain in the file's format (Benchmarks/store/format.sh). */
static void first1(void)
{
    bool valid = false;
    PrefsGetAppIntegerValue("FontSize", APP, &valid);
    if (!valid)
        bench_die("FontSize is not in the domain");
    PrefsNumberRef n = PrefsNumberCreateInt64(99);
    PrefsSetAppValue("FontSize", n, APP);
    PrefsRelease(n);
    double t0 = bench_now_ns(), c0 = bench_cpu_ns();
    if (!PrefsAppSynchronize(APP))
        bench_die("PrefsAppSynchronize failed");
    double wall = (bench_now_ns() - t0) / 1e6, cpu = (bench_cpu_ns() - c0) / 1e6;
    bench_report("first1", contender, "ms", 1, &wall, 1);
    bench_report("first1-cpu", contender, "ms", 1, &cpu, 1);
}

static void loop(long n)
{
    long found = 0;
    for (long i = 0; i < n; i++) {
        PrefsPropertyListRef v = PrefsCopyAppValue("FontName", APP);
        found += v != NULL;
        PrefsRelease(v);
    }
    if (found != n)
        bench_die("a read missed");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        bench_die("usage: prefs_bench CASE ARGS");
    const char *mode = argv[1];
    int runs = (int)bench_arg(argc, argv, 2, 15);
    long iters = bench_arg(argc, argv, 3, 1000000);
    if (runs > BENCH_MAX_SAMPLES)
        runs = BENCH_MAX_SAMPLES;
    if (strcmp(mode, "hit") == 0) {
        reads("hit", "FontName", "Helvetica Neue", runs, iters);
    } else if (strcmp(mode, "registered") == 0) {
        register_defaults();
        reads("registered", "RegisteredOnly", "Registered value", runs, iters);
    } else if (strcmp(mode, "schema") == 0) {
        reads("schema", "SchemaDefault1", "Schema defaults!", runs, iters);
    } else if (strcmp(mode, "miss") == 0) {
        reads("miss", "MissingKey", NULL, runs, iters);
    } else if (strcmp(mode, "set") == 0) {
        sets(runs, iters);
    } else if (strcmp(mode, "bulk") == 0) {
        bulk(bench_arg(argc, argv, 2, 10000));
    } else if (strcmp(mode, "growth") == 0) {
        growth();
    } else if (strcmp(mode, "sync1") == 0) {
        sync1(runs);
    } else if (strcmp(mode, "first1") == 0) {
        first1();
    } else if (strcmp(mode, "loop") == 0) {
        loop(bench_arg(argc, argv, 2, 1));
    } else {
        bench_die("unknown case");
    }
    return 0;
}
