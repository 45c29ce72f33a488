/*
 * prefs_proc.c: the libprefs side of the many-processes benchmark, through
 * the C API. One role per process; coord.c starts the processes of a case
 * and connects their pipes (orders on fd 3, answers on fd 4, see proc.h).
 *
 *   prefs_proc lost ROUNDS KEYS PROC    one of the 16 writers: per round, wait
 *                                       for the release byte, set KEYS new keys
 *                                       p<PROC>-r<round>-k<i>, synchronize, answer
 *   prefs_proc count PROCS ROUNDS KEYS LABEL
 *                                       a fresh process: how many of those keys
 *                                       the domain holds (R lost-keys LABEL)
 *   prefs_proc sync1 ITERS              set + synchronize of one key in the
 *                                       1,000-key domain, ITERS times
 *   prefs_proc first-writer TRIALS      set + synchronize Probe, then tell the reader
 *   prefs_proc first-reader TRIALS      on the writer's word, exactly one read
 *   prefs_proc poll-writer TRIALS       on the reader's word: set + synchronize Probe,
 *                                       then send the times of both calls
 *   prefs_proc poll-reader TRIALS TIMEOUT_MS
 *                                       read Probe in a loop until the new value shows
 *   prefs_proc obs-writer TRIALS TIMEOUT_MS
 *                                       set + synchronize Probe, wait for the reader's
 *                                       observer to report it
 *   prefs_proc obs-reader               an observer of Probe that reports each call
 *
 * The domain is com.example.bench in $XDG_CONFIG_HOME (run.sh gives every
 * case a fresh one).
 */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <prefs/Prefs.h>
#include "proc.h"

#define APP "com.example.bench"
#define PROBE "Probe"
static const char *contender = "libprefs";

/* Prints the library's last error and exits. */
static void die_with_last_error(const char *what)
{
    PrefsErrorRef e = PrefsCopyLastError();
    char *why = e ? PrefsErrorCopyDescription(e) : NULL;
    fprintf(stderr, "benchmark failed: %s: %s\n", what, why ? why : "(no error recorded)");
    PrefsFree(why);
    PrefsRelease(e);
    exit(2);
}

static void set_int(const char *key, int64_t value)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(value);
    PrefsSetAppValue(key, n, APP);
    PrefsRelease(n);
}

static void synchronize(void)
{
    if (!PrefsAppSynchronize(APP))
        die_with_last_error("PrefsAppSynchronize failed");
}

/* The normal read: PrefsCopyAppValue, as an integer; -1 when absent. */
static int64_t read_probe(void)
{
    PrefsPropertyListRef v = PrefsCopyAppValue(PROBE, APP);
    int64_t n = -1;
    if (v != NULL && PrefsGetType(v) == kPrefsTypeInteger)
        PrefsNumberGetInt64((PrefsNumberRef)v, &n);
    PrefsRelease(v);
    return n;
}

static double *samples_alloc(long n)
{
    double *s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    if (s == NULL)
        proc_die("out of memory");
    return s;
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* ---------------------------------------------------------------- 1. lost keys */

static void lost(long rounds, long keys, long proc)
{
    char key[64], byte = 'r';
    (void)read_probe(); /* loads the domain before the first release */
    proc_write_all(PROC_OUT, &byte, 1);
    for (long r = 0; r < rounds; r++) {
        proc_expect(PROC_IN, &byte, 1); /* blocks until the release */
        for (long i = 0; i < keys; i++) {
            snprintf(key, sizeof key, "p%ld-r%ld-k%ld", proc, r, i);
            set_int(key, i);
        }
        synchronize();
        proc_write_all(PROC_OUT, &byte, 1);
    }
}

static void count(long procs, long rounds, long keys, const char *label)
{
    long expected = procs * rounds * keys, found = 0, others = 0;
    char *seen = calloc((size_t)expected, 1);
    if (seen == NULL)
        proc_die("out of memory");
    PrefsArrayRef list = PrefsCopyKeyList(APP, kPrefsCurrentUser, kPrefsAnyHost);
    if (list == NULL)
        die_with_last_error("PrefsCopyKeyList failed");
    size_t n = PrefsArrayGetCount(list);
    for (size_t j = 0; j < n; j++) {
        PrefsPropertyListRef k = PrefsArrayGetValueAtIndex(list, j);
        long p, r, i;
        int end = 0;
        if (k == NULL || PrefsGetType(k) != kPrefsTypeString) {
            others++;
            continue;
        }
        const char *s = PrefsStringGetCString((PrefsStringRef)k);
        if (sscanf(s, "p%ld-r%ld-k%ld%n", &p, &r, &i, &end) == 3 && s[end] == '\0' && p >= 0 && p < procs &&
            r >= 0 && r < rounds && i >= 0 && i < keys) {
            long idx = (p * rounds + r) * keys + i;
            if (!seen[idx]) {
                seen[idx] = 1;
                found++;
            }
        } else {
            others++;
        }
    }
    PrefsRelease(list);
    double lost_keys = (double)(expected - found);
    proc_report("lost-keys", label, "keys", &lost_keys, 1);
    printf("N lost-keys %s found=%ld expected=%ld other-keys=%ld", label, found, expected, others);
    /* Which processes and rounds lost keys, when any did. */
    for (long p = 0; p < procs && found < expected; p++) {
        long missing = 0;
        for (long x = 0; x < rounds * keys; x++)
            missing += !seen[p * rounds * keys + x];
        if (missing)
            printf(" p%ld:-%ld", p, missing);
    }
    printf("\n");
    free(seen);
}

/* ---------------------------------------------------------------- 2. set + synchronize */

static void sync1(long iters)
{
    PrefsArrayRef list = PrefsCopyKeyList(APP, kPrefsCurrentUser, kPrefsAnyHost);
    if (list == NULL || PrefsArrayGetCount(list) < 1000)
        proc_die("the domain does not hold 1,000 keys");
    PrefsRelease(list);
    double *s = samples_alloc(iters);
    for (long i = 0; i < iters; i++) {
        int64_t t0 = proc_now_ns();
        set_int("FontSize", 100 + i);
        synchronize();
        s[i] = ms(proc_now_ns() - t0);
    }
    proc_report("set-sync", contender, "ms", s, iters);
    free(s);
}

/* ---------------------------------------------------------------- 3a. first read */

static void first_writer(long trials)
{
    char byte;
    proc_expect(PROC_IN, &byte, 1); /* the reader has loaded the domain */
    for (long i = 0; i < trials; i++) {
        set_int(PROBE, PROC_PROBE_BASE + i);
        synchronize();
        byte = 'g';
        proc_write_all(PROC_OUT, &byte, 1); /* synchronize has returned */
        proc_expect(PROC_IN, &byte, 1);     /* the reader has done its read */
    }
}

static void first_reader(long trials)
{
    char byte = 'r';
    double *hit = samples_alloc(trials);
    (void)read_probe();
    proc_write_all(PROC_OUT, &byte, 1);
    for (long i = 0; i < trials; i++) {
        proc_expect(PROC_IN, &byte, 1);
        hit[i] = read_probe() == PROC_PROBE_BASE + i; /* exactly one read */
        proc_write_all(PROC_OUT, &byte, 1);
    }
    proc_report("first-read", contender, "hit", hit, trials);
    free(hit);
}

/* ---------------------------------------------------------------- 3b. polling */

static void poll_writer(long trials)
{
    char byte;
    for (long i = 0; i < trials; i++) {
        proc_expect(PROC_IN, &byte, 1); /* the reader is polling */
        int64_t t[2];
        t[0] = proc_now_ns();
        set_int(PROBE, PROC_PROBE_BASE + i);
        synchronize();
        t[1] = proc_now_ns();
        proc_write_all(PROC_OUT, t, sizeof t);
    }
}

static void poll_reader(long trials, long timeout_ms)
{
    char byte = 'r';
    double *from_set = samples_alloc(trials), *from_sync = samples_alloc(trials),
           *polls = samples_alloc(trials);
    (void)read_probe();
    for (long i = 0; i < trials; i++) {
        proc_write_all(PROC_OUT, &byte, 1);
        int64_t start = proc_now_ns(), seen = -1, deadline = start + (int64_t)timeout_ms * 1000000;
        long n = 0;
        for (;;) {
            int64_t v = read_probe();
            int64_t now = proc_now_ns();
            n++;
            if (v == PROC_PROBE_BASE + i) {
                seen = now;
                break;
            }
            if (now > deadline)
                break;
        }
        int64_t t[2];
        proc_expect(PROC_IN, t, sizeof t);
        from_set[i] = seen < 0 ? NAN : ms(seen - t[0]);
        from_sync[i] = seen < 0 ? NAN : ms(seen - t[1]);
        polls[i] = (double)n;
    }
    proc_report("poll-from-set", contender, "ms", from_set, trials);
    proc_report("poll-from-sync", contender, "ms", from_sync, trials);
    proc_report("poll-reads", contender, "reads", polls, trials);
    free(from_set);
    free(from_sync);
    free(polls);
}

/* ---------------------------------------------------------------- 4. observers */

static void obs_writer(long trials, long timeout_ms)
{
    proc_message m;
    long stale = 0;
    double *from_set = samples_alloc(trials), *from_sync = samples_alloc(trials);
    proc_expect(PROC_IN, &m, sizeof m); /* the observer is registered */
    for (long i = 0; i < trials; i++) {
        int64_t t_set = proc_now_ns();
        set_int(PROBE, PROC_PROBE_BASE + i);
        synchronize();
        int64_t t_sync = proc_now_ns(), deadline = t_sync + (int64_t)timeout_ms * 1000000, got = -1;
        for (;;) {
            int64_t left = (deadline - proc_now_ns()) / 1000000;
            struct pollfd p = {PROC_IN, POLLIN, 0};
            if (left < 0 || poll(&p, 1, (int)left + 1) == 0)
                break;
            proc_expect(PROC_IN, &m, sizeof m);
            if (m.value == PROC_PROBE_BASE + i) {
                got = m.time_ns;
                break;
            }
            stale++; /* a late call of an earlier trial, or a value not yet new */
        }
        from_set[i] = got < 0 ? NAN : ms(got - t_set);
        from_sync[i] = got < 0 ? NAN : ms(got - t_sync);
    }
    close(PROC_OUT); /* the reader exits */
    proc_report("observer-from-set", contender, "ms", from_set, trials);
    proc_report("observer-from-sync", contender, "ms", from_sync, trials);
    printf("N observer %s calls-with-another-value=%ld timeout-ms=%ld\n", contender, stale, timeout_ms);
    free(from_set);
    free(from_sync);
}

/* On the library's thread: when, and the value a read now returns. */
static void observed(const char *applicationID, const char *key, void *context)
{
    proc_message m;
    (void)applicationID;
    (void)key;
    (void)context;
    m.time_ns = proc_now_ns();
    m.value = read_probe();
    /* One 16-byte write to a pipe is atomic. It fails only when the writer
     * is already gone (SIGPIPE is ignored): a late call, not an error. */
    if (write(PROC_OUT, &m, sizeof m) < 0)
        return;
}

static void obs_reader(void)
{
    char byte;
    signal(SIGPIPE, SIG_IGN);
    PrefsObserverRef o = PrefsAddObserver(APP, PROBE, observed, NULL);
    if (o == NULL)
        die_with_last_error("PrefsAddObserver failed");
    proc_message ready = {-1, proc_now_ns()};
    (void)read_probe();
    proc_write_all(PROC_OUT, &ready, sizeof ready);
    while (proc_read_all(PROC_IN, &byte, 1)) {
    } /* until the writer is done */
    PrefsRemoveObserver(o);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        proc_die("usage: prefs_proc ROLE ARGS (see the source)");
    const char *role = argv[1];
    if (strcmp(role, "lost") == 0) {
        lost(proc_arg(argc, argv, 2, 20), proc_arg(argc, argv, 3, 50), proc_arg(argc, argv, 4, 0));
    } else if (strcmp(role, "count") == 0) {
        count(proc_arg(argc, argv, 2, 16), proc_arg(argc, argv, 3, 20), proc_arg(argc, argv, 4, 50),
              argc > 5 ? argv[5] : contender);
    } else if (strcmp(role, "sync1") == 0) {
        sync1(proc_arg(argc, argv, 2, 200));
    } else if (strcmp(role, "first-writer") == 0) {
        first_writer(proc_arg(argc, argv, 2, 200));
    } else if (strcmp(role, "first-reader") == 0) {
        first_reader(proc_arg(argc, argv, 2, 200));
    } else if (strcmp(role, "poll-writer") == 0) {
        poll_writer(proc_arg(argc, argv, 2, 200));
    } else if (strcmp(role, "poll-reader") == 0) {
        poll_reader(proc_arg(argc, argv, 2, 200), proc_arg(argc, argv, 3, 2000));
    } else if (strcmp(role, "obs-writer") == 0) {
        obs_writer(proc_arg(argc, argv, 2, 100), proc_arg(argc, argv, 3, 1000));
    } else if (strcmp(role, "obs-reader") == 0) {
        obs_reader();
    } else {
        proc_die("unknown role");
    }
    return 0;
}
