/*
 * test_processes.c — many processes, one domain, with real processes (the
 * program starts itself again with a role argument, see children.h):
 *
 *   - 16 processes, released at one instant, each set 50 keys of their own
 *     and synchronize, 20 rounds: all 16,000 keys are on disk;
 *   - 8 processes write at once to a domain whose file is corrupt: the file
 *     is moved aside once, byte for byte, and every key is kept;
 *   - readers parse the file throughout continuous rewrites: every read
 *     parses and holds one whole version;
 *   - a process looping set + synchronize is killed with SIGKILL at random
 *     instants 50 times: the file always parses and holds a whole version,
 *     never older than one seen before, and the next write clears the
 *     temporary file a killed writer left;
 *   - 200 trials: after another process's synchronize returns, this
 *     process's next read (no synchronize) returns the new value;
 *   - a file rewritten by another program (renamed into place, or in
 *     place) is noticed by reads without synchronize;
 *   - a full disk (a 256 KiB tmpfs, when this runs as root and may mount):
 *     synchronize fails with kPrefsErrorIO, the old file stays, the change
 *     stays pending and is written once there is room; a process exiting
 *     with changes it cannot write exits normally;
 *   - fork: observers keep working in the child (in-process and from
 *     another process), and children forked while another thread writes
 *     never hang.
 *
 * Set PROCESSES_SEED to repeat the random kill instants of a run.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* mount, umount2 */

#include <prefs/Prefs.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "children.h"
#include "sandbox.h"

#define WRITERS 16
#define KEYS_PER_ROUND 50
#define ROUNDS 20
#define KILLS 50
#define VISIBILITY_TRIALS 200

/* ------------------------------------------------------------------ */
/* Versions: values written together, checked together                 */
/* ------------------------------------------------------------------ */

/* The length of version v's payload: it varies, so that a torn file or
 * a mix of two versions cannot pass for a whole one. */
static size_t payload_length(int64_t v)
{
    return 300 + (size_t)((v * 37) % 23) * 350;
}

/* Sets version v: "version" = v, "check" = "v<v>", "payload" = a string
 * of payload_length(v) times one letter, as one change. */
static void set_version(const char *app, int64_t v)
{
    const char *keys[3] = {"version", "check", "payload"};
    PrefsPropertyListRef values[3];
    PrefsDictionaryRef d;
    size_t n = payload_length(v);
    char check[32];
    char *payload = malloc(n + 1);

    memset(payload, 'a' + (int)(v % 26), n);
    payload[n] = '\0';
    snprintf(check, sizeof check, "v%lld", (long long)v);
    values[0] = PrefsNumberCreateInt64(v);
    values[1] = PrefsStringCreate(check);
    values[2] = PrefsStringCreate(payload);
    d = PrefsDictionaryCreate(keys, values, 3);
    PrefsSetMultiple(d, NULL, app, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsRelease(d);
    PrefsRelease(values[0]);
    PrefsRelease(values[1]);
    PrefsRelease(values[2]);
    free(payload);
}

/* Whether `d` holds one whole version; its number goes to *v. Describes
 * what is wrong in `why` otherwise. */
static int is_whole_version(PrefsPropertyListRef d, int64_t *v, char *why, size_t why_size)
{
    PrefsPropertyListRef version, check, payload;
    char expected[32];
    const char *text;
    size_t i, n;

    if (d == NULL || PrefsGetType(d) != kPrefsTypeDictionary) {
        snprintf(why, why_size, "not a dictionary");
        return 0;
    }
    version = PrefsDictionaryGetValue(d, "version");
    check = PrefsDictionaryGetValue(d, "check");
    payload = PrefsDictionaryGetValue(d, "payload");
    if (version == NULL || PrefsGetType(version) != kPrefsTypeInteger || !PrefsNumberGetInt64(version, v)) {
        snprintf(why, why_size, "no integer version");
        return 0;
    }
    snprintf(expected, sizeof expected, "v%lld", (long long)*v);
    if (!sandbox_is_string(check, expected)) {
        snprintf(why, why_size, "version %lld with check %s", (long long)*v, sandbox_describe(check));
        return 0;
    }
    if (payload == NULL || PrefsGetType(payload) != kPrefsTypeString) {
        snprintf(why, why_size, "version %lld without a payload", (long long)*v);
        return 0;
    }
    text = PrefsStringGetCString(payload);
    n = strlen(text);
    if (n != payload_length(*v)) {
        snprintf(why, why_size, "version %lld with a payload of %zu bytes, not %zu", (long long)*v, n,
                 payload_length(*v));
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (text[i] != 'a' + (int)(*v % 26)) {
            snprintf(why, why_size, "version %lld with a payload of another version", (long long)*v);
            return 0;
        }
    }
    return 1;
}

/* Reads and parses the file at `path` with plain system calls. Returns
 * the value (owned), NULL with *missing set when there is no file, NULL
 * with the parse error in `why` when it does not parse. */
static PrefsPropertyListRef read_file_value(const char *path, int *missing, char *why, size_t why_size)
{
    size_t n = 0;
    char *bytes;
    PrefsErrorRef err = NULL;
    PrefsPropertyListRef v;

    *missing = 0;
    bytes = sandbox_read_file(path, &n);
    if (bytes == NULL) {
        *missing = errno == ENOENT;
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        return NULL;
    }
    v = PrefsPropertyListCreateWithData(bytes, n, &err);
    if (v == NULL) {
        char *d = err != NULL ? PrefsErrorCopyDescription(err) : NULL;
        snprintf(why, why_size, "%zu bytes that do not parse: %s", n, d != NULL ? d : "?");
        PrefsFree(d);
    }
    PrefsRelease(err);
    free(bytes);
    return v;
}

/* How many names in `dir` start with `prefix`. */
static int count_names(const char *dir, const char *prefix)
{
    char listing[8000];
    const char *p = listing;
    int count = 0;
    sandbox_list(dir, listing, sizeof listing);
    while (*p != '\0') {
        size_t len = strcspn(p, " ");
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            count++;
        p += len;
        while (*p == ' ')
            p++;
    }
    return count;
}

static void temp_name_check(const char *dir, const char *when)
{
    char listing[8000];
    int n = count_names(dir, ".prefs.tmp");
    sandbox_list(dir, listing, sizeof listing);
    CHECKF(n == 0, "%s: %d temporary files left in %s: %s", when, n, dir, listing);
}

/* Waits up to `seconds` for child `pid`, then kills it (a child that hangs
 * inside fork itself never reaches its alarm()). As children_wait. */
static int wait_or_kill(pid_t pid, int seconds)
{
    double until = children_now() + seconds;
    int status = 0;
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && children_now() < until)
        children_sleep_us(5000);
    if (done == 0) {
        kill(pid, SIGKILL);
        return children_wait(pid);
    }
    children_last_signal = done == pid && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return done == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ------------------------------------------------------------------ */
/* Child roles                                                         */
/* ------------------------------------------------------------------ */

/* --round-writer APP INDEX KEYS GO DONE: per byte read from fd GO (until
 * EOF), sets KEYS keys "p<INDEX>-r<round>-k<i>" = INDEX*1e6 + round*1000
 * + i, synchronizes, and answers 'y' (or 'n' when synchronize failed) on
 * fd DONE. */
static int role_round_writer(char **argv)
{
    const char *app = argv[2];
    int index = atoi(argv[3]), keys = atoi(argv[4]);
    int go = atoi(argv[5]), done = atoi(argv[6]);
    int round = 0;

    while (children_read_byte(go, -1) >= 0) {
        int i, ok;
        for (i = 0; i < keys; i++) {
            char key[64];
            PrefsNumberRef n = PrefsNumberCreateInt64((int64_t)index * 1000000 + round * 1000 + i);
            snprintf(key, sizeof key, "p%02d-r%02d-k%02d", index, round, i);
            PrefsSetAppValue(key, n, app);
            PrefsRelease(n);
        }
        ok = PrefsAppSynchronize(app);
        if (!ok)
            fprintf(stderr, "writer %d, round %d: synchronize failed (error %d)\n", index, round,
                    sandbox_last_code());
        children_write_byte(done, ok ? 'y' : 'n');
        round++;
    }
    return 0;
}

/* --rewriter APP SECONDS READY: sets and synchronizes version after
 * version for SECONDS, answering 'r' on fd READY after the first. */
static int role_rewriter(char **argv)
{
    const char *app = argv[2];
    double until = children_now() + atof(argv[3]);
    int ready = atoi(argv[4]);
    int64_t v = 0;
    int failures = 0;

    while (children_now() < until || v < 20) {
        set_version(app, ++v);
        if (!PrefsAppSynchronize(app))
            failures++;
        if (v == 1)
            children_write_byte(ready, 'r');
    }
    printf("rewriter: %lld versions written, %d failed\n", (long long)v, failures);
    return failures == 0 ? 0 : 1;
}

/* --reader PATH SECONDS: parses the file over and over for SECONDS; exits
 * 0 when every read parsed to a whole version and several were seen. */
static int role_reader(char **argv)
{
    const char *path = argv[2];
    double until = children_now() + atof(argv[3]);
    long reads = 0, torn = 0, versions = 0;
    int64_t last = -1;

    while (children_now() < until) {
        char why[600];
        int missing;
        int64_t v = -1;
        PrefsPropertyListRef d = read_file_value(path, &missing, why, sizeof why);
        if (d == NULL && missing) {
            fprintf(stderr, "reader: %s vanished\n", path);
            torn++;
            continue;
        }
        reads++;
        if (!is_whole_version(d, &v, why, sizeof why)) {
            if (torn++ < 5)
                fprintf(stderr, "reader: read %ld: %s\n", reads, why);
        } else if (v != last) {
            if (v < last) {
                fprintf(stderr, "reader: version %lld after %lld\n", (long long)v, (long long)last);
                torn++;
            }
            versions++;
            last = v;
        }
        PrefsRelease(d);
    }
    printf("reader: %ld reads, %ld versions seen, %ld bad\n", reads, versions, torn);
    return torn == 0 && reads > 0 ? 0 : 1;
}

/* --killee APP READY: continues from the stored version, setting and
 * synchronizing the next one forever; 'r' on fd READY after the first. */
static int role_killee(char **argv)
{
    const char *app = argv[2];
    int ready = atoi(argv[3]);
    bool exists = false;
    int64_t v = PrefsGetAppIntegerValue("version", app, &exists);
    int first = 1;

    for (;;) {
        set_version(app, ++v);
        if (!PrefsAppSynchronize(app)) {
            fprintf(stderr, "killee: synchronize of version %lld failed\n", (long long)v);
            return 1;
        }
        if (first) {
            children_write_byte(ready, 'r');
            first = 0;
        }
    }
}

/* --pinger APP TRIALS GO ACK: for i = 1...TRIALS sets "ping" = i,
 * synchronizes, answers on ACK, waits for a byte on GO. */
static int role_pinger(char **argv)
{
    const char *app = argv[2];
    int trials = atoi(argv[3]), go = atoi(argv[4]), ack = atoi(argv[5]);
    int i;

    for (i = 1; i <= trials; i++) {
        PrefsNumberRef n = PrefsNumberCreateInt64(i);
        PrefsSetAppValue("ping", n, app);
        PrefsRelease(n);
        if (!PrefsAppSynchronize(app))
            return 1;
        children_write_byte(ack, 'a');
        if (children_read_byte(go, 10000) < 0)
            return 1;
    }
    return 0;
}

/* --disk-full APP FILLER: runs with $XDG_CONFIG_HOME on a full tmpfs
 * whose space FILLER takes. */
static int role_disk_full(char **argv)
{
    struct sandbox *sb = sandbox();
    const char *app = argv[2], *filler = argv[3];
    char path[700], big[65536];
    size_t before_len = 0, after_len = 0;
    char *before, *after;
    PrefsPropertyListRef v;
    PrefsDataRef data;
    PrefsErrorRef err;
    char *description;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    before = sandbox_read_file(path, &before_len);
    CHECK(before != NULL);
    v = PrefsCopyAppValue("old", app);
    CHECKF(sandbox_is_string(v, "kept"), "the old value on a full disk: %s", sandbox_describe(v));
    PrefsRelease(v);

    memset(big, 'x', sizeof big);
    data = PrefsDataCreate(big, sizeof big);
    PrefsSetAppValue("big", data, app);
    PrefsRelease(data);
    CHECKF(!PrefsAppSynchronize(app), "synchronize succeeded on a full disk");
    err = PrefsCopyLastError();
    CHECKF(err != NULL && PrefsErrorGetCode(err) == kPrefsErrorIO, "last error %d, expected kPrefsErrorIO",
           err != NULL ? (int)PrefsErrorGetCode(err) : 0);
    description = err != NULL ? PrefsErrorCopyDescription(err) : NULL;
    CHECKF(description != NULL && strstr(description, strerror(ENOSPC)) != NULL,
           "the error does not say the disk is full: %s", description != NULL ? description : "(none)");
    printf("disk full: %s\n", description != NULL ? description : "(no description)");
    PrefsFree(description);
    PrefsRelease(err);

    after = sandbox_read_file(path, &after_len);
    CHECKF(after != NULL && after_len == before_len && memcmp(before, after, before_len) == 0,
           "%s changed although the write failed", path);
    free(after);
    temp_name_check(sb->config, "after a write failed for want of space");
    v = PrefsCopyAppValue("big", app);
    CHECKF(v != NULL && PrefsGetType(v) == kPrefsTypeData && PrefsDataGetLength(v) == sizeof big,
           "the pending change was lost: %s", sandbox_describe(v));
    PrefsRelease(v);

    /* Room again: the pending change goes out. */
    CHECK(unlink(filler) == 0);
    CHECKF(PrefsAppSynchronize(app), "synchronize failed with room on the disk (error %d)",
           sandbox_last_code());
    v = sandbox_read_plist(path);
    CHECKF(v != NULL && PrefsGetType(PrefsDictionaryGetValue(v, "big")) == kPrefsTypeData &&
               sandbox_is_string(PrefsDictionaryGetValue(v, "old"), "kept"),
           "after the retry %s holds %s", path, sandbox_describe(v));
    PrefsRelease(v);
    free(before);
    return CHECK_FINISH();
}

/* --full-at-exit APP: sets a value on a full disk and returns from main;
 * the exit handler's write fails, and the process still exits with 0. */
static int role_full_at_exit(char **argv)
{
    PrefsStringRef s = PrefsStringCreate("never written");
    PrefsSetAppValue("atExit", s, argv[2]);
    PrefsRelease(s);
    return 0;
}

/* Observer bookkeeping for the fork roles: the last value of "k" (or "j")
 * a callback read back, and how many calls there were. */
static int64_t observed_k = -1, observed_j = -1;

static void on_change(const char *app, const char *key, void *context)
{
    int64_t *slot = context;
    bool ok = false;
    int64_t v = PrefsGetAppIntegerValue(key, app, &ok);
    __atomic_store_n(slot, ok ? v : -1, __ATOMIC_SEQ_CST);
}

/* Waits up to `ms` for *slot to become `value`. */
static int await_value(int64_t *slot, int64_t value, int ms)
{
    double until = children_now() + ms / 1000.0;
    while (__atomic_load_n(slot, __ATOMIC_SEQ_CST) != value) {
        if (children_now() > until)
            return 0;
        children_sleep_us(1000);
    }
    return 1;
}

#if CHECK_ASAN
/* A child made by fork() still holds the objects of the parent's other
 * threads (a store's watcher and observer delivery threads), which fork()
 * does not copy and nothing in the child can free: LeakSanitizer's check
 * at that child's exit would report them. The parent, and every process
 * started with exec, are still checked. */
static volatile int forked_child;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return forked_child;
}
#  define MARK_FORKED_CHILD() ((void)(forked_child = 1))
#else
#  define MARK_FORKED_CHILD() ((void)0)
#endif

static void set_int(const char *key, int64_t v, const char *app)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(v);
    PrefsSetAppValue(key, n, app);
    PrefsRelease(n);
}

/* --forker APP: an observer, then fork; in the child the inherited
 * observer hears the child's own sets and the parent's synchronized
 * ones, and a new observer works; in the parent the observer still works. */
static int role_forker(char **argv)
{
    const char *app = argv[2];
    PrefsObserverRef k_observer, j_observer;
    int to_parent[2], to_child[2];
    pid_t pid;
    int status;

    k_observer = PrefsAddObserver(app, "k", on_change, &observed_k);
    CHECK(k_observer != NULL);
    set_int("k", 1, app);
    CHECKF(await_value(&observed_k, 1, 3000), "before fork: the observer did not hear k = 1");
    CHECK(PrefsAppSynchronize(app));
    CHECK(pipe(to_parent) == 0 && pipe(to_child) == 0);

    pid = fork();
    if (pid == 0) {
        MARK_FORKED_CHILD();
        close(to_parent[0]);
        close(to_child[1]);
        set_int("k", 2, app);
        CHECKF(await_value(&observed_k, 2, 3000), "in the child: the inherited observer did not hear k = 2");
        j_observer = PrefsAddObserver(app, "j", on_change, &observed_j);
        CHECK(j_observer != NULL);
        set_int("j", 7, app);
        CHECKF(await_value(&observed_j, 7, 3000), "in the child: a new observer did not hear j = 7");
        CHECK(PrefsAppSynchronize(app));
        children_write_byte(to_parent[1], 'r');
        /* The parent now sets k = 3 and synchronizes. */
        CHECKF(children_read_byte(to_child[0], 10000) == 's', "the parent did not say it synchronized");
        CHECKF(await_value(&observed_k, 3, 3000),
               "in the child: the inherited observer did not hear the parent's k = 3 (last seen %lld)",
               (long long)__atomic_load_n(&observed_k, __ATOMIC_SEQ_CST));
        PrefsRemoveObserver(j_observer);
        PrefsRemoveObserver(k_observer);
        exit(check_failures() == 0 ? 0 : 1);
    }
    close(to_parent[1]);
    close(to_child[0]);
    CHECK(pid > 0);
    CHECKF(children_read_byte(to_parent[0], 15000) == 'r', "the forked child did not get ready");
    /* The child's synchronized k = 2 reached this process too. */
    CHECKF(await_value(&observed_k, 2, 3000), "in the parent: the child's k = 2 was not heard");
    set_int("k", 3, app);
    CHECK(PrefsAppSynchronize(app));
    children_write_byte(to_child[1], 's');
    status = wait_or_kill(pid, 30);
    CHECKF(status == 0, "the forked child: exit status %d, signal %d", status, children_last_signal);
    set_int("k", 4, app);
    CHECKF(await_value(&observed_k, 4, 3000), "in the parent after fork: the observer did not hear k = 4");
    PrefsRemoveObserver(k_observer);
    return CHECK_FINISH();
}

static volatile int busy_stop;

/* Writes, synchronizes and adds observers until busy_stop is set. */
static void *busy_writer(void *arg)
{
    const char *app = arg;
    int64_t i = 0;
    while (!__atomic_load_n(&busy_stop, __ATOMIC_SEQ_CST)) {
        set_int("busy", ++i, app);
        if (i % 8 == 0)
            PrefsAppSynchronize(app);
        if (i % 16 == 0)
            PrefsRemoveObserver(PrefsAddObserver(app, "busy", on_change, &observed_j));
    }
    return NULL;
}

/* --fork-busy APP: forks 40 children while another thread writes; each
 * child must set, synchronize, read and observe within 10 s (killed after
 * 20 s, counted as hung). */
static int role_fork_busy(char **argv)
{
    const char *app = argv[2];
    pthread_t thread;
    int i, hung = 0, failed = 0;

    CHECK(pthread_create(&thread, NULL, busy_writer, (void *)app) == 0);
    for (i = 0; i < 40; i++) {
        pid_t pid;
        int status;
        children_sleep_us(2000 + (i % 7) * 1500);
        pid = fork();
        if (pid == 0) {
            PrefsObserverRef o;
            PrefsPropertyListRef v;
            int ok;
            alarm(10);
            set_int("child", i, app);
            ok = PrefsAppSynchronize(app);
            v = PrefsCopyAppValue("child", app);
            ok = ok && sandbox_is_int(v, i);
            PrefsRelease(v);
            o = PrefsAddObserver(app, "child", on_change, &observed_k);
            set_int("child", i + 1000, app);
            ok = ok && o != NULL && await_value(&observed_k, i + 1000, 5000);
            PrefsRemoveObserver(o);
            _exit(ok ? 0 : 1);
        }
        status = wait_or_kill(pid, 20);
        if (status != 0) {
            if (children_last_signal == SIGALRM || children_last_signal == SIGKILL)
                hung++;
            else
                failed++;
            fprintf(stderr, "fork %d: child exit status %d, signal %d\n", i, status, children_last_signal);
        }
    }
    __atomic_store_n(&busy_stop, 1, __ATOMIC_SEQ_CST);
    pthread_join(thread, NULL);
    CHECKF(hung == 0, "%d of 40 children forked while another thread wrote hung", hung);
    CHECKF(failed == 0, "%d of 40 children forked while another thread wrote failed", failed);
    return CHECK_FINISH();
}

static int run_role(int argc, char **argv)
{
    static const struct {
        const char *name;
        int args;
        int (*run)(char **);
    } roles[] = {
        {"--round-writer", 5, role_round_writer},
        {"--rewriter", 3, role_rewriter},
        {"--reader", 2, role_reader},
        {"--killee", 2, role_killee},
        {"--pinger", 4, role_pinger},
        {"--disk-full", 2, role_disk_full},
        {"--full-at-exit", 1, role_full_at_exit},
        {"--forker", 1, role_forker},
        {"--fork-busy", 1, role_fork_busy},
    };
    size_t i;
    for (i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        if (strcmp(argv[1], roles[i].name) == 0 && argc == roles[i].args + 2)
            return roles[i].run(argv);
    }
    fprintf(stderr, "unknown role or wrong arguments: %s\n", argv[1]);
    return 2;
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

/* Starts `count` round writers for `app`, runs `rounds` rounds, each
 * released at one instant (a byte to each writer's own pipe, back to
 * back). Returns how many synchronizes failed. */
static int run_round_writers(const char *app, int count, int keys, int rounds)
{
    int go[WRITERS][2], done[2];
    pid_t pids[WRITERS];
    char gofd[WRITERS][16], donefd[16], index[WRITERS][16], nkeys[16];
    int i, round, failed = 0;

    if (!CHECK(children_pipe(done) == 0))
        return -1;
    children_inherit(done[1]);
    snprintf(donefd, sizeof donefd, "%d", done[1]);
    snprintf(nkeys, sizeof nkeys, "%d", keys);
    for (i = 0; i < count; i++) {
        const char *args[] = {"--round-writer", app, index[i], nkeys, gofd[i], donefd, NULL};
        if (!CHECK(children_pipe(go[i]) == 0))
            return -1;
        children_inherit(go[i][0]);
        snprintf(index[i], sizeof index[i], "%d", i);
        snprintf(gofd[i], sizeof gofd[i], "%d", go[i][0]);
        pids[i] = children_start(NULL, args);
        close(go[i][0]);
    }
    close(done[1]);
    for (round = 0; round < rounds; round++) {
        for (i = 0; i < count; i++)
            children_write_byte(go[i][1], 'g');
        for (i = 0; i < count; i++) {
            int answer = children_read_byte(done[0], 60000);
            if (answer != 'y') {
                failed++;
                if (answer < 0) {
                    CHECKF(0, "round %d: a writer did not answer within 60 s", round);
                    break;
                }
            }
        }
    }
    for (i = 0; i < count; i++)
        close(go[i][1]);
    for (i = 0; i < count; i++)
        CHECKF(children_wait(pids[i]) == 0, "writer %d ended badly (signal %d)", i, children_last_signal);
    close(done[0]);
    return failed;
}

static void test_sixteen_writers(void)
{
    const char *app = "com.example.processes.sixteen";
    char path[700];
    PrefsPropertyListRef stored;
    int p, r, k, lost = 0, failed;
    double start = children_now();

    failed = run_round_writers(app, WRITERS, KEYS_PER_ROUND, ROUNDS);
    CHECKF(failed == 0, "%d synchronizes failed", failed);
    sandbox_domain_path(path, sizeof path, app, 0, 0);
    stored = sandbox_read_plist(path);
    CHECK(stored != NULL && PrefsGetType(stored) == kPrefsTypeDictionary);
    for (p = 0; stored != NULL && p < WRITERS; p++) {
        for (r = 0; r < ROUNDS; r++) {
            for (k = 0; k < KEYS_PER_ROUND; k++) {
                char key[64];
                snprintf(key, sizeof key, "p%02d-r%02d-k%02d", p, r, k);
                if (!sandbox_is_int(PrefsDictionaryGetValue(stored, key),
                                    (int64_t)p * 1000000 + r * 1000 + k)) {
                    if (lost++ < 5)
                        fprintf(stderr, "lost: %s\n", key);
                }
            }
        }
    }
    CHECKF(lost == 0, "%d of %d keys lost", lost, WRITERS * ROUNDS * KEYS_PER_ROUND);
    CHECKF(stored != NULL && PrefsDictionaryGetCount(stored) == WRITERS * ROUNDS * KEYS_PER_ROUND,
           "the file holds %zu keys", stored != NULL ? PrefsDictionaryGetCount(stored) : (size_t)0);
    printf("%d processes x %d keys x %d rounds: %d of %d keys lost, %.1f s\n", WRITERS, KEYS_PER_ROUND,
           ROUNDS, lost, WRITERS * ROUNDS * KEYS_PER_ROUND, children_now() - start);
    PrefsRelease(stored);
}

static void test_corrupt_file_many_writers(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.processes.corrupt";
    /* Unclosed markup, then bytes that are not UTF-8. */
    const char garbage[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
                           "\t<key>precious</key>\n\t<string>half a \xff\xfe file";
    char path[700], aside[900], listing[8000], prefix[300];
    PrefsPropertyListRef stored;
    const char *name;
    int i, failed;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    CHECK(sandbox_write_file(path, garbage, sizeof garbage - 1) == 0);
    failed = run_round_writers(app, 8, 1, 1);
    CHECKF(failed == 0, "%d of 8 synchronizes failed", failed);

    snprintf(prefix, sizeof prefix, "%s.plist.corrupt-", app);
    CHECKF(count_names(sb->config, prefix) == 1, "%d files moved aside: %d", count_names(sb->config, prefix),
           1);
    sandbox_list(sb->config, listing, sizeof listing);
    name = strstr(listing, prefix);
    if (name != NULL) {
        size_t n = 0;
        char *moved;
        sandbox_fmt(aside, sizeof aside, "%s/%.*s", sb->config, (int)strcspn(name, " "), name);
        moved = sandbox_read_file(aside, &n);
        CHECKF(moved != NULL && n == sizeof garbage - 1 && memcmp(moved, garbage, n) == 0,
               "%s is not the corrupt file, byte for byte", aside);
        free(moved);
    }
    stored = sandbox_read_plist(path);
    for (i = 0; i < 8; i++) {
        char key[64];
        snprintf(key, sizeof key, "p%02d-r00-k00", i);
        CHECKF(stored != NULL && sandbox_is_int(PrefsDictionaryGetValue(stored, key), (int64_t)i * 1000000),
               "%s is missing after 8 writers met a corrupt file: %s", key, sandbox_describe(stored));
    }
    PrefsRelease(stored);
}

static void test_no_torn_reads(void)
{
    const char *app = "com.example.processes.torn";
    char path[700], readyfd[16];
    int ready[2];
    pid_t writer, readers[2];
    int i, status;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    CHECK(children_pipe(ready) == 0);
    children_inherit(ready[1]);
    snprintf(readyfd, sizeof readyfd, "%d", ready[1]);
    {
        const char *args[] = {"--rewriter", app, "3", readyfd, NULL};
        writer = children_start(NULL, args);
    }
    close(ready[1]);
    CHECKF(children_read_byte(ready[0], 15000) == 'r', "the rewriter wrote no first version");
    close(ready[0]);
    for (i = 0; i < 2; i++) {
        const char *args[] = {"--reader", path, "2.5", NULL};
        readers[i] = children_start(NULL, args);
    }
    for (i = 0; i < 2; i++) {
        status = children_wait(readers[i]);
        CHECKF(status == 0, "reader %d saw a torn or partial file (exit status %d, signal %d)", i, status,
               children_last_signal);
    }
    status = children_wait(writer);
    CHECKF(status == 0, "the rewriter: exit status %d, signal %d", status, children_last_signal);
}

static void test_sigkill(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.processes.killed";
    const char *seed_text = getenv("PROCESSES_SEED");
    unsigned seed = seed_text != NULL ? (unsigned)strtoul(seed_text, NULL, 10)
                                      : (unsigned)time(NULL) ^ (unsigned)getpid();
    char path[700], readyfd[16];
    int i, unreadable = 0, older = 0, mid_write = 0;
    int64_t last = 0;

    printf("SIGKILL instants from PROCESSES_SEED=%u\n", seed);
    srand(seed);
    sandbox_domain_path(path, sizeof path, app, 0, 0);
    for (i = 0; i < KILLS; i++) {
        int ready[2], missing, status;
        char why[600];
        int64_t v = -1;
        pid_t pid;
        PrefsPropertyListRef d;

        if (!CHECK(children_pipe(ready) == 0))
            break;
        children_inherit(ready[1]);
        snprintf(readyfd, sizeof readyfd, "%d", ready[1]);
        {
            const char *args[] = {"--killee", app, readyfd, NULL};
            pid = children_start(NULL, args);
        }
        close(ready[1]);
        CHECKF(children_read_byte(ready[0], 15000) == 'r', "kill %d: the writer did not start", i);
        close(ready[0]);
        children_sleep_us(rand() % 40000);
        kill(pid, SIGKILL);
        status = children_wait(pid);
        CHECKF(status == -1 && children_last_signal == SIGKILL, "kill %d: the writer ended with status %d", i,
               status);

        mid_write += count_names(sb->config, ".prefs.tmp") > 0;
        d = read_file_value(path, &missing, why, sizeof why);
        if (d == NULL) {
            unreadable++;
            CHECKF(0, "after kill %d the file is unreadable: %s", i, why);
        } else if (!is_whole_version(d, &v, why, sizeof why)) {
            unreadable++;
            CHECKF(0, "after kill %d the file holds no whole version: %s", i, why);
        } else if (v < last) {
            older++;
            CHECKF(0, "after kill %d the file holds version %lld, older than %lld seen before", i,
                   (long long)v, (long long)last);
        } else {
            last = v;
        }
        PrefsRelease(d);
    }
    printf("%d kills: %d unreadable files, %d older versions, %d kills left a temporary file, last version "
           "%lld\n",
           KILLS, unreadable, older, mid_write, (long long)last);
    CHECK(count_names(sb->config, app) == 1); /* no .corrupt-* beside it */

    /* The next write, by a fresh process, sweeps up what killed writers left. */
    CHECK(run_round_writers(app, 1, 1, 1) == 0);
    temp_name_check(sb->config, "after the next write");
}

static void test_visible_at_once(void)
{
    const char *app = "com.example.processes.visible";
    int go[2], ack[2], i, misses = 0, status;
    char trials[16], gofd[16], ackfd[16];
    PrefsPropertyListRef v;
    pid_t pid;

    v = PrefsCopyAppValue("ping", app); /* loaded and cached: absent */
    CHECK(v == NULL);
    CHECK(children_pipe(go) == 0 && children_pipe(ack) == 0);
    children_inherit(go[0]);
    children_inherit(ack[1]);
    snprintf(trials, sizeof trials, "%d", VISIBILITY_TRIALS);
    snprintf(gofd, sizeof gofd, "%d", go[0]);
    snprintf(ackfd, sizeof ackfd, "%d", ack[1]);
    {
        const char *args[] = {"--pinger", app, trials, gofd, ackfd, NULL};
        pid = children_start(NULL, args);
    }
    close(go[0]);
    close(ack[1]);
    for (i = 1; i <= VISIBILITY_TRIALS; i++) {
        bool exists = false;
        int64_t got;
        if (children_read_byte(ack[0], 15000) != 'a') {
            CHECKF(0, "trial %d: the writer did not answer", i);
            break;
        }
        got = PrefsGetAppIntegerValue("ping", app, &exists);
        if (!exists || got != i) {
            if (misses++ < 5)
                fprintf(stderr, "trial %d: the next read returned %lld\n", i, exists ? (long long)got : -1LL);
        }
        children_write_byte(go[1], 'g');
    }
    close(go[1]);
    close(ack[0]);
    status = children_wait(pid);
    CHECKF(status == 0, "the writer: exit status %d", status);
    CHECKF(misses == 0, "%d of %d next reads after another process's synchronize missed the new value",
           misses, VISIBILITY_TRIALS);
    printf("%d of %d next reads after another process's synchronize saw the new value\n",
           VISIBILITY_TRIALS - misses, VISIBILITY_TRIALS);
}

/* Polls `key` of `app` (no synchronize) for up to 3 s until it is the
 * integer `want`; returns the seconds it took, or -1. */
static double seconds_until_seen(const char *app, const char *key, int64_t want, double since)
{
    for (;;) {
        bool exists = false;
        int64_t got = PrefsGetAppIntegerValue(key, app, &exists);
        double now = children_now();
        if (exists && got == want)
            return now - since;
        if (now - since > 3.0)
            return -1;
        children_sleep_us(500);
    }
}

/* A file written by another program (an editor's write-and-rename, or an
 * in-place rewrite) is noticed by this process's reads, with no
 * synchronize and no change counter moved. */
static void test_hand_edits_noticed(void)
{
    const char *app = "com.example.processes.byhand";
    const char *one = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
                      "<dict><key>edited</key><integer>1</integer></dict>\n</plist>\n";
    const char *two = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
                      "<dict><key>edited</key><integer>22</integer></dict>\n</plist>\n";
    char path[700], temp[720];
    PrefsPropertyListRef v;
    double renamed, in_place;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    v = PrefsCopyAppValue("edited", app); /* loaded: no file yet */
    CHECK(v == NULL);
    sandbox_fmt(temp, sizeof temp, "%s.swp", path);
    CHECK(sandbox_write_file(temp, one, strlen(one)) == 0);
    CHECK(rename(temp, path) == 0);
    renamed = seconds_until_seen(app, "edited", 1, children_now());
    CHECKF(renamed >= 0, "a file written beside and renamed into place was not noticed within 3 s");

    CHECK(sandbox_write_file(path, two, strlen(two)) == 0); /* truncate and write in place */
    in_place = seconds_until_seen(app, "edited", 22, children_now());
    CHECKF(in_place >= 0, "a file rewritten in place was not noticed within 3 s");
    printf("edits by another program noticed after %.1f ms (rename) and %.1f ms (in place)\n", renamed * 1e3,
           in_place * 1e3);
}

static void test_disk_full(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.processes.full";
    char mnt[400], config[450], filler[450], path[700], env_config[500];
    char *before;
    size_t before_len = 0, after_len = 0;
    PrefsDictionaryRef d;
    int fd, status;

    sandbox_fmt(mnt, sizeof mnt, "%s/small-disk", sb->root);
    CHECK(sandbox_mkdirs(mnt) == 0);
    if (geteuid() != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=256k,mode=0700") != 0) {
        printf(
            "SKIP disk full: cannot mount a small tmpfs here (%s); test_persistence injects ENOSPC instead\n",
            geteuid() != 0 ? "not root" : strerror(errno));
        return;
    }
    sandbox_fmt(config, sizeof config, "%s/config", mnt);
    sandbox_fmt(filler, sizeof filler, "%s/filler", mnt);
    sandbox_fmt(env_config, sizeof env_config, "XDG_CONFIG_HOME=%s", config);
    CHECK(sandbox_mkdirs(config) == 0);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", config, app);
    d = sandbox_dict1s("old", "kept");
    CHECK(sandbox_write_plist(path, d) == 0);
    PrefsRelease(d);
    before = sandbox_read_file(path, &before_len);

    /* Fill every block that is left. */
    fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (CHECK(fd >= 0)) {
        char block[4096];
        memset(block, 0, sizeof block);
        while (write(fd, block, sizeof block) > 0) {
        }
        CHECKF(errno == ENOSPC, "filling the tmpfs ended with %s", strerror(errno));
        close(fd);
    }

    {
        const char *env[] = {env_config, NULL};
        const char *exit_args[] = {"--full-at-exit", app, NULL};
        const char *args[] = {"--disk-full", app, filler, NULL};
        char *after;

        /* A process whose exit handler cannot write still exits normally. */
        status = children_run(env, exit_args);
        CHECKF(status == 0, "a process exiting with changes it cannot write: status %d, signal %d", status,
               children_last_signal);
        after = sandbox_read_file(path, &after_len);
        CHECKF(after != NULL && before != NULL && after_len == before_len &&
                   memcmp(before, after, before_len) == 0,
               "%s changed while the disk was full", path);
        free(after);

        status = children_run(env, args);
        CHECKF(status == 0, "the process on the full disk: status %d, signal %d", status,
               children_last_signal);
    }
    free(before);
    CHECKF(umount2(mnt, MNT_DETACH) == 0, "umount %s: %s", mnt, strerror(errno));
}

static void test_fork(void)
{
    const char *forker[] = {"--forker", "com.example.processes.fork", NULL};
    const char *busy[] = {"--fork-busy", "com.example.processes.forkbusy", NULL};
    int status = children_run(NULL, forker);
    CHECKF(status == 0, "observers across fork: exit status %d, signal %d", status, children_last_signal);
    status = children_run(NULL, busy);
    CHECKF(status == 0, "forks while another thread writes: exit status %d, signal %d", status,
           children_last_signal);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
        sandbox_attach(); /* the environment is the parent's */
        return run_role(argc, argv);
    }
    children_self = argv[0];
    if (sandbox_init("processes") != 0)
        return CHECK_FINISH();

    test_sixteen_writers();
    test_corrupt_file_many_writers();
    test_no_torn_reads();
    test_sigkill();
    test_visible_at_once();
    test_hand_edits_noticed();
    test_disk_full();
    test_fork();

    sandbox_remove();
    return CHECK_FINISH();
}
