/*
 * dconf_bench.c: dconf's C client, the same cases and output lines as
 * prefs_bench.c (see bench.h). One case per process; run.sh starts it in
 * a D-Bus session of its own whose dconf database it has loaded with the
 * same keys and values, under /bench/.
 *
 *   dconf_bench hit|registered|miss RUNS ITERS   dconf_client_read + g_variant_unref
 *   dconf_bench set RUNS ITERS                   dconf_client_write_fast of an existing key
 *   dconf_bench bulk N                           N write_fast of new keys, then dconf_client_sync
 *   dconf_bench growth                           per-write cost at 1k, 5k, 10k, 20k pending keys
 *   dconf_bench sync1 RUNS                       dconf_client_sync after one write_fast
 *
 * "registered" reads a key that only the profile's second database (a
 * file-db compiled by `dconf compile`) holds: dconf has no registration
 * domain, and this is its nearest fall-through below the user's database.
 */
#include <dconf.h>
#include "bench.h"

static const char *contender = "dconf";
static DConfClient *client;

static void expect_string(const char *key, const char *expected)
{
    GVariant *v = dconf_client_read(client, key);
    if (expected == NULL) {
        if (v != NULL)
            bench_die("a key defined nowhere has a value");
        return;
    }
    if (v == NULL || !g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
        bench_die("the key has no string value");
    if (strcmp(g_variant_get_string(v, NULL), expected) != 0)
        bench_die("the key has the wrong value");
    g_variant_unref(v);
}

static void reads(const char *name, const char *key, const char *expected, int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES];
    expect_string(key, expected);
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++) {
            GVariant *v = dconf_client_read(client, key);
            if (v != NULL)
                g_variant_unref(v);
        }
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        wall[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair(name, contender, iters, wall, cpu, runs);
}

static void write_fast(const char *key, gint64 value)
{
    GError *error = NULL;
    if (!dconf_client_write_fast(client, key, g_variant_new_int64(value), &error)) {
        fprintf(stderr, "dconf_client_write_fast: %s\n", error ? error->message : "failed");
        exit(2);
    }
}

static void sets(int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES], drain[BENCH_MAX_SAMPLES];
    GVariant *v = dconf_client_read(client, "/bench/FontSize");
    if (v == NULL)
        bench_die("FontSize is not in the database");
    g_variant_unref(v);
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++)
            write_fast("/bench/FontSize", 12 + (i & 1) * 2);
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        double t1 = bench_now_ns();
        wall[r] = (t1 - t0) / (double)iters;
        dconf_client_sync(client); /* the service catches up before the next run */
        drain[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair("set", contender, iters, wall, cpu, runs);
    bench_report("set-until-written", contender, "ns/op", iters, drain, runs);
}

static char **make_keys(long n)
{
    char **keys = malloc(sizeof *keys * (size_t)n);
    if (keys == NULL)
        bench_die("out of memory");
    for (long i = 0; i < n; i++) {
        keys[i] = malloc(32);
        if (keys[i] == NULL)
            bench_die("out of memory");
        snprintf(keys[i], 32, "/bench/new%05ld", i);
    }
    return keys;
}

static void bulk(long n)
{
    char **keys = make_keys(n);
    expect_string("/bench/MissingKey", NULL);
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++)
        write_fast(keys[i], i);
    double t1 = bench_now_ns();
    dconf_client_sync(client);
    double t2 = bench_now_ns();
    double sets_ms = (t1 - t0) / 1e6, sync_ms = (t2 - t1) / 1e6, total_ms = (t2 - t0) / 1e6;
    bench_report("bulk-sets", contender, "ms", n, &sets_ms, 1);
    bench_report("bulk-sync", contender, "ms", n, &sync_ms, 1);
    bench_report("bulk-total", contender, "ms", n, &total_ms, 1);
    printf("N bulk %s the service writes while the client sets (asynchronous)\n", contender);
}

static void growth(void)
{
    long last = bench_growth_points[BENCH_GROWTH_POINTS - 1] + BENCH_GROWTH_WINDOW;
    char **keys = make_keys(last);
    expect_string("/bench/MissingKey", NULL);
    long i = 0;
    double start = bench_now_ns();
    for (int p = 0; p < BENCH_GROWTH_POINTS; p++) {
        for (; i < bench_growth_points[p]; i++)
            write_fast(keys[i], i);
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long j = 0; j < BENCH_GROWTH_WINDOW; j++, i++)
            write_fast(keys[i], i);
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
    /* No final sync: the service would spend seconds writing 20,200 keys. */
}

static void sync1(int runs)
{
    double samples[BENCH_MAX_SAMPLES];
    gint n = 0;
    gchar **list = dconf_client_list(client, "/bench/", &n);
    if (n < 1000)
        bench_die("the database does not hold 1,000 keys under /bench/");
    g_strfreev(list);
    for (int r = 0; r < runs; r++) {
        write_fast("/bench/FontSize", 100 + r);
        double t0 = bench_now_ns();
        dconf_client_sync(client);
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report("sync1", contender, "ms", 1, samples, runs);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        bench_die("usage: dconf_bench CASE ARGS");
    const char *mode = argv[1];
    int runs = (int)bench_arg(argc, argv, 2, 15);
    long iters = bench_arg(argc, argv, 3, 1000000);
    if (runs > BENCH_MAX_SAMPLES)
        runs = BENCH_MAX_SAMPLES;
    client = dconf_client_new();
    if (strcmp(mode, "hit") == 0) {
        reads("hit", "/bench/FontName", "Helvetica Neue", runs, iters);
    } else if (strcmp(mode, "registered") == 0) {
        reads("registered", "/bench/RegisteredOnly", "Registered value", runs, iters);
    } else if (strcmp(mode, "miss") == 0) {
        reads("miss", "/bench/MissingKey", NULL, runs, iters);
    } else if (strcmp(mode, "set") == 0) {
        sets(runs, iters);
    } else if (strcmp(mode, "bulk") == 0) {
        bulk(bench_arg(argc, argv, 2, 10000));
    } else if (strcmp(mode, "growth") == 0) {
        growth();
    } else if (strcmp(mode, "sync1") == 0) {
        sync1(runs);
    } else {
        bench_die("unknown case");
    }
    g_object_unref(client);
    return 0;
}
