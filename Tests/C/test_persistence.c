/*
 * test_persistence.c — when changes reach the disk, and what a failed
 * write leaves behind. The program re-executes itself (/proc/self/exe) with
 * a role argument to play the other processes:
 *
 *   - a value set and never synchronized is on disk once a child process
 *     returns from main, and once it calls exit() from deep inside;
 *   - a value set is on disk within about a second without synchronize,
 *     while the process keeps running;
 *   - with PREFS_TEST_FAIL=write or =rename (read once per process, so set
 *     in a child), synchronize returns false with kPrefsErrorIO, the old
 *     file stays byte-identical, no temporary file is left, and the change
 *     stays visible (pending);
 *   - a write that fails for a real reason (a read-only directory; as root,
 *     which ignores directory permissions, a path component that is a
 *     file) is retried by a later synchronize, which writes the pending
 *     changes;
 *   - after another process's synchronize returns, this process's next read
 *     returns its values, without synchronizing;
 *   - two processes writing different keys of one domain at once both keep
 *     every key;
 *   - reading creates no file in the system-wide and managed directories.
 */
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "children.h"
#include "sandbox.h"

/* ------------------------------------------------------------------ */
/* Child roles                                                         */
/* ------------------------------------------------------------------ */

static void set_string_app(const char *key, const char *text, const char *app)
{
    PrefsStringRef s = PrefsStringCreate(text);
    PrefsSetAppValue(key, s, app);
    PrefsRelease(s);
}

/* Leaves through exit() from a nested call, not by returning from main. */
static void leave_with_exit(void)
{
    exit(0);
}

static void set_then_leave(void)
{
    set_string_app("fromChild", "called exit()", "com.example.persistence.exit");
    leave_with_exit();
}

/* Sets a value, then fails to synchronize it (PREFS_TEST_FAIL is set). */
static int child_fail(const char *operation)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.persistence.fail";
    char path[700], listing[2000];
    size_t before_len = 0, after_len = 0;
    char *before, *after;
    PrefsPropertyListRef v;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    before = sandbox_read_file(path, &before_len);
    CHECK(before != NULL);
    v = PrefsCopyAppValue("old", app);
    CHECK(sandbox_is_string(v, "kept"));
    PrefsRelease(v);

    set_string_app("new", operation, app);
    CHECKF(!PrefsAppSynchronize(app), "PrefsAppSynchronize succeeded with PREFS_TEST_FAIL=%s", operation);
    CHECKF(sandbox_last_code() == kPrefsErrorIO, "last error %d, expected kPrefsErrorIO",
           sandbox_last_code());
    CHECK(!PrefsSynchronize(app, kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(sandbox_last_code() == kPrefsErrorIO);

    /* The old file is intact, no temporary file is left... */
    after = sandbox_read_file(path, &after_len);
    CHECKF(after != NULL && after_len == before_len && memcmp(before, after, before_len) == 0,
           "%s changed although the write failed", path);
    sandbox_list(sb->config, listing, sizeof listing);
    CHECKF(strstr(listing, "tmp") == NULL, "left in %s: %s", sb->config, listing);
    /* ...and the change is still there for this process. */
    v = PrefsCopyAppValue("new", app);
    CHECKF(sandbox_is_string(v, operation), "the pending change was lost: %s", sandbox_describe(v));
    PrefsRelease(v);
    free(before);
    free(after);
    return CHECK_FINISH();
}

/* Writes `count` keys "<prefix>-<i>", synchronizing after each. */
static int child_writer(const char *prefix, int count)
{
    const char *app = "com.example.persistence.merge";
    int i;
    for (i = 0; i < count; i++) {
        char key[64];
        PrefsNumberRef n = PrefsNumberCreateInt64(i);
        snprintf(key, sizeof key, "%s-%d", prefix, i);
        PrefsSetAppValue(key, n, app);
        PrefsRelease(n);
        CHECKF(PrefsAppSynchronize(app), "synchronize of %s", key);
    }
    return CHECK_FINISH();
}

static int run_child_role(int argc, char **argv)
{
    const char *role = argv[1];
    if (strcmp(role, "--child-return") == 0) {
        set_string_app("fromChild", "returned from main", "com.example.persistence.return");
        return 0; /* no synchronize: the exit handler writes it */
    }
    if (strcmp(role, "--child-exit") == 0) {
        set_then_leave();
        return 1;
    }
    if (strcmp(role, "--child-fail") == 0 && argc > 2)
        return child_fail(argv[2]);
    if (strcmp(role, "--child-set") == 0 && argc > 4) {
        if (strcmp(argv[3], "-") == 0)
            PrefsSetAppValue(argv[2], NULL, argv[4]);
        else
            set_string_app(argv[2], argv[3], argv[4]);
        if (!PrefsAppSynchronize(argv[4]))
            return 1;
        return 0;
    }
    if (strcmp(role, "--child-writer") == 0 && argc > 3)
        return child_writer(argv[2], atoi(argv[3]));
    fprintf(stderr, "unknown role %s\n", role);
    return 2;
}

/* ------------------------------------------------------------------ */
/* Running children                                                    */
/* ------------------------------------------------------------------ */

/* Starts this program again with `args`; `fail` (may be NULL) goes into
 * PREFS_TEST_FAIL of the child only. */
static pid_t start_child(const char *fail, const char *const *args)
{
    static char setting[64];
    const char *env[] = {setting, NULL};
    snprintf(setting, sizeof setting, "PREFS_TEST_FAIL=%s", fail != NULL ? fail : "");
    return children_start(fail != NULL ? env : NULL, args);
}

static int run_child(const char *fail, const char *const *args)
{
    return children_wait(start_child(fail, args));
}

static void sleep_ms(long ms)
{
    children_sleep_us(ms * 1000L);
}

/* Whether the domain file of `app` holds key = text. */
static int file_has_string(const char *app, const char *key, const char *text)
{
    char path[700];
    PrefsPropertyListRef stored;
    int ok;
    sandbox_domain_path(path, sizeof path, app, 0, 0);
    stored = sandbox_read_plist(path);
    ok = stored != NULL && PrefsGetType(stored) == kPrefsTypeDictionary &&
         sandbox_is_string(PrefsDictionaryGetValue(stored, key), text);
    PrefsRelease(stored);
    return ok;
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

/* Reading makes no file in the preference directories (the user's counter
 * lives in $XDG_RUNTIME_DIR); the first write to an any-user domain makes
 * the system directory's counter. */
static void test_counter_files(void)
{
    struct sandbox *sb = sandbox();
    char system_counter[400], managed_counter[400], user_counter[400], runtime_counter[400];
    PrefsPropertyListRef v;

    sandbox_fmt(system_counter, sizeof system_counter, "%s/%s", sb->system, SANDBOX_COUNTER_FILE);
    sandbox_fmt(managed_counter, sizeof managed_counter, "%s/%s", sb->managed, SANDBOX_COUNTER_FILE);
    sandbox_fmt(user_counter, sizeof user_counter, "%s/%s", sb->config, SANDBOX_COUNTER_FILE);
    sandbox_fmt(runtime_counter, sizeof runtime_counter, "%s/prefs-changes", sb->runtime);
    v = PrefsCopyAppValue("anything", "com.example.persistence.counters");
    PrefsRelease(v);
    CHECKF(access(system_counter, F_OK) != 0, "a read made %s", system_counter);
    CHECKF(access(managed_counter, F_OK) != 0, "a read made %s", managed_counter);
    CHECKF(access(user_counter, F_OK) != 0, "a read made %s", user_counter);
    CHECKF(access(runtime_counter, F_OK) == 0, "the store did not make %s", runtime_counter);

    sandbox_set_string("k", "v", "com.example.persistence.counters", kPrefsAnyUser, kPrefsAnyHost);
    CHECK(PrefsSynchronize("com.example.persistence.counters", kPrefsAnyUser, kPrefsAnyHost));
    CHECKF(access(system_counter, F_OK) == 0, "a write to an any-user domain did not make %s",
           system_counter);
    CHECKF(access(managed_counter, F_OK) != 0, "a write made %s", managed_counter);
}

static void test_written_at_exit(void)
{
    const char *ret[] = {"--child-return", NULL};
    const char *ex[] = {"--child-exit", NULL};
    char path[700];

    CHECK(run_child(NULL, ret) == 0);
    sandbox_domain_path(path, sizeof path, "com.example.persistence.return", 0, 0);
    CHECKF(file_has_string("com.example.persistence.return", "fromChild", "returned from main"),
           "a value set and never synchronized was lost when the child returned from main (%s)", path);
    CHECKF(sandbox_mode(path) == 0600, "%s has mode %o", path, sandbox_mode(path));

    CHECK(run_child(NULL, ex) == 0);
    CHECKF(file_has_string("com.example.persistence.exit", "fromChild", "called exit()"),
           "a value set and never synchronized was lost when the child called exit()");
}

static void test_written_by_itself(void)
{
    const char *app = "com.example.persistence.timed";
    char path[700];
    double start, waited;
    int seen = 0;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    set_string_app("timed", "by itself", app);
    start = children_now();
    while ((waited = children_now() - start) < 1.5) {
        if (file_has_string(app, "timed", "by itself")) {
            seen = 1;
            break;
        }
        sleep_ms(20);
    }
    CHECKF(seen, "a set value was not on disk %.2f s later, without synchronize", waited);
    if (seen)
        printf("a set value reached the disk by itself after %.2f s\n", waited);
}

static void test_injected_failures(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.persistence.fail";
    const char *operations[] = {"write", "rename"};
    char path[700], listing[2000];
    size_t i, before_len = 0;
    char *before;

    /* The file the failing children must leave alone. */
    set_string_app("old", "kept", app);
    CHECK(PrefsAppSynchronize(app));
    sandbox_domain_path(path, sizeof path, app, 0, 0);
    before = sandbox_read_file(path, &before_len);
    CHECK(before != NULL);

    for (i = 0; i < 2; i++) {
        const char *args[] = {"--child-fail", operations[i], NULL};
        size_t after_len = 0;
        char *after;
        int status = run_child(operations[i], args);
        CHECKF(status == 0, "the child with PREFS_TEST_FAIL=%s: exit status %d", operations[i], status);
        /* Its exit handler failed too; the file is still the old one. */
        after = sandbox_read_file(path, &after_len);
        CHECKF(after != NULL && before != NULL && after_len == before_len &&
                   memcmp(before, after, before_len) == 0,
               "%s changed after the child with PREFS_TEST_FAIL=%s", path, operations[i]);
        free(after);
    }
    sandbox_list(sb->config, listing, sizeof listing);
    CHECKF(strstr(listing, "tmp") == NULL, "left in %s: %s", sb->config, listing);
    free(before);
}

/* A real write failure, then a synchronize that works. */
static void test_failure_then_retry(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.persistence.retry";
    char path[700], blocker[700];
    PrefsPropertyListRef v, stored;
    int as_root = geteuid() == 0;

    if (!as_root) {
        /* A directory this process may not write to. */
        size_t before_len = 0, after_len = 0;
        char *before, *after;
        set_string_app("old", "x", app);
        CHECK(PrefsAppSynchronize(app));
        sandbox_domain_path(path, sizeof path, app, 0, 0);
        before = sandbox_read_file(path, &before_len);
        CHECK(chmod(sb->config, 0500) == 0);
        set_string_app("new", "y", app);
        CHECK(!PrefsAppSynchronize(app));
        CHECKF(sandbox_last_code() == kPrefsErrorIO, "last error %d", sandbox_last_code());
        after = sandbox_read_file(path, &after_len);
        CHECK(before != NULL && after != NULL && before_len == after_len &&
              memcmp(before, after, before_len) == 0);
        free(before);
        free(after);
        v = PrefsCopyAppValue("new", app);
        CHECK(sandbox_is_string(v, "y"));
        PrefsRelease(v);
        CHECK(chmod(sb->config, 0700) == 0);
        CHECK(PrefsAppSynchronize(app));
        CHECK(file_has_string(app, "new", "y") && file_has_string(app, "old", "x"));
        return;
    }

    printf("running as root, which ignores directory permissions: the retry test uses a path component "
           "that is a file instead of a read-only directory (PREFS_TEST_FAIL covers the rest)\n");
    /* The any-user, current-host domain lives in $PREFS_SYSTEM_DIR/ByHost:
     * make that name a file. */
    sandbox_fmt(blocker, sizeof blocker, "%s/ByHost", sb->system);
    CHECK(access(blocker, F_OK) != 0);
    CHECK(sandbox_write_file(blocker, "not a directory\n", 16) == 0);
    sandbox_set_string("new", "y", app, kPrefsAnyUser, kPrefsCurrentHost);
    CHECK(sandbox_last_code() == 0);
    CHECK(!PrefsSynchronize(app, kPrefsAnyUser, kPrefsCurrentHost));
    CHECKF(sandbox_last_code() == kPrefsErrorIO, "last error %d", sandbox_last_code());
    v = PrefsCopyValue("new", app, kPrefsAnyUser, kPrefsCurrentHost);
    CHECKF(sandbox_is_string(v, "y"), "the pending change was lost: %s", sandbox_describe(v));
    PrefsRelease(v);
    /* The app's synchronize fails too, for the same domain. */
    CHECK(!PrefsAppSynchronize(app));

    CHECK(unlink(blocker) == 0);
    CHECK(PrefsSynchronize(app, kPrefsAnyUser, kPrefsCurrentHost));
    sandbox_domain_path(path, sizeof path, app, 1, 1);
    stored = sandbox_read_plist(path);
    CHECKF(stored != NULL && sandbox_is_string(PrefsDictionaryGetValue(stored, "new"), "y"),
           "after the retry %s holds %s", path, sandbox_describe(stored));
    PrefsRelease(stored);
}

static void test_other_process_is_seen(void)
{
    const char *app = "com.example.persistence.visible";
    const char *set1[] = {"--child-set", "shared", "child-1", app, NULL};
    const char *set2[] = {"--child-set", "shared", "child-2", app, NULL};
    const char *remove[] = {"--child-set", "shared", "-", app, NULL};
    PrefsPropertyListRef v;

    v = PrefsCopyAppValue("shared", app); /* loaded: absent */
    CHECK(v == NULL);
    CHECK(run_child(NULL, set1) == 0);
    v = PrefsCopyAppValue("shared", app);
    CHECKF(sandbox_is_string(v, "child-1"), "another process's synchronized value is not seen: %s",
           sandbox_describe(v));
    PrefsRelease(v);
    CHECK(run_child(NULL, set2) == 0);
    v = PrefsCopyAppValue("shared", app);
    CHECKF(sandbox_is_string(v, "child-2"), "another process's second value is not seen: %s",
           sandbox_describe(v));
    PrefsRelease(v);
    CHECK(run_child(NULL, remove) == 0);
    v = PrefsCopyAppValue("shared", app);
    CHECKF(v == NULL, "another process's removal is not seen: %s", sandbox_describe(v));
    PrefsRelease(v);
}

static void test_concurrent_writers(void)
{
    const char *app = "com.example.persistence.merge";
    const char *a[] = {"--child-writer", "a", "40", NULL};
    const char *b[] = {"--child-writer", "b", "40", NULL};
    char path[700];
    PrefsPropertyListRef stored;
    PrefsArrayRef keys;
    pid_t pa, pb;
    int i, missing = 0;

    pa = start_child(NULL, a);
    pb = start_child(NULL, b);
    CHECK(children_wait(pa) == 0);
    CHECK(children_wait(pb) == 0);
    sandbox_domain_path(path, sizeof path, app, 0, 0);
    stored = sandbox_read_plist(path);
    CHECK(stored != NULL && PrefsGetType(stored) == kPrefsTypeDictionary);
    for (i = 0; stored != NULL && i < 40; i++) {
        char ka[16], kb[16];
        snprintf(ka, sizeof ka, "a-%d", i);
        snprintf(kb, sizeof kb, "b-%d", i);
        if (!sandbox_is_int(PrefsDictionaryGetValue(stored, ka), i))
            missing++;
        if (!sandbox_is_int(PrefsDictionaryGetValue(stored, kb), i))
            missing++;
    }
    CHECKF(stored != NULL && missing == 0 && PrefsDictionaryGetCount(stored) == 80,
           "two processes writing different keys: %d of 80 keys lost", missing);
    PrefsRelease(stored);
    keys = PrefsCopyKeyList(app, kPrefsCurrentUser, kPrefsAnyHost);
    CHECKF(keys != NULL && PrefsArrayGetCount(keys) == 80, "this process sees %zu keys",
           keys != NULL ? PrefsArrayGetCount(keys) : (size_t)0);
    PrefsRelease(keys);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strncmp(argv[1], "--child-", 8) == 0) {
        sandbox_attach(); /* the environment is the parent's */
        return run_child_role(argc, argv);
    }
    if (argc > 0 && argv[0] != NULL)
        children_self = argv[0];

    if (sandbox_init("persistence") != 0)
        return CHECK_FINISH();

    test_counter_files();
    test_written_at_exit();
    test_written_by_itself();
    test_injected_failures();
    test_failure_then_retry();
    test_other_process_is_seen();
    test_concurrent_writers();

    CHECK(PrefsAppSynchronize("com.example.persistence.timed"));
    sandbox_remove();
    return CHECK_FINISH();
}
