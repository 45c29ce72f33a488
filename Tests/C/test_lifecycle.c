/*
 * test_lifecycle.c — the library's threads and one-time set-up against
 * what a program does around them, and search-list promises that hold for
 * every application:
 *
 *   - fork() while another thread makes the process's first call: the
 *     child's own first call returns (it never inherits a half-made store);
 *   - with no inotify instance left, an observer still hears another
 *     libprefs process's synchronize (through the change counter), and
 *     PrefsAddObserver says that other programs' changes may go unnoticed;
 *   - application IDs whose file name cannot exist (250+ bytes; for a
 *     current-host file, with the host id) are refused at the call;
 *   - the first read that meets a domain file that does not parse says so
 *     (PrefsCopyLastError), while returning what the other layers hold;
 *   - a key forced in the managed global domain is forced for every
 *     application: read, PrefsAppValueIsForced, and writes refused.
 *
 * The program re-executes itself (/proc/self/exe) with a role argument to
 * play the other processes. Every child is bounded by alarm(), so a hang
 * fails a check instead of the run.
 */
#define _GNU_SOURCE

#include <prefs/Prefs.h>

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "children.h"
#include "support.h"
#include "sandbox.h"

#define FIRST_USE_APP "com.example.lifecycle.first"

/* ------------------------------------------------------------------ */
/* fork() during the first call                                        */
/* ------------------------------------------------------------------ */

static volatile int first_call_started;

static void *first_call(void *unused)
{
    (void)unused;
    first_call_started = 1;
    PrefsRelease(PrefsCopyAppValue("k0", FIRST_USE_APP));
    return NULL;
}

/* Child role: a thread makes the first call while this thread forks after
 * `delay` microseconds; the grandchild makes its own first call within 5 s. */
static int role_fork_during_first_use(long delay)
{
    pthread_t thread;
    pid_t pid;
    int status;

    alarm(20);
    pthread_create(&thread, NULL, first_call, NULL);
    while (!first_call_started) { /* spin: fork as close to the call as can be */
    }
    if (delay > 0)
        children_sleep_us(delay);
    pid = fork();
    if (pid == 0) {
        PrefsPropertyListRef v;
        alarm(5);
        v = PrefsCopyAppValue("k1", FIRST_USE_APP);
        _exit(sandbox_is_int(v, 1) ? 0 : 3);
    }
    pthread_join(thread, NULL);
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 4;
    if (WIFSIGNALED(status))
        return 10 + WTERMSIG(status); /* SIGALRM: the child hung */
    return WEXITSTATUS(status);
}

static void test_fork_during_first_use(void)
{
    enum { count = 2000 };
    static char names[count][16];
    static const char *keys[count];
    static PrefsPropertyListRef values[count];
    char path[600];
    PrefsDictionaryRef d;
    int i, hung = 0, failed = 0;

    /* A domain big enough that the first call takes a while. */
    for (i = 0; i < count; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        keys[i] = names[i];
        values[i] = PrefsNumberCreateInt64(i);
    }
    d = PrefsDictionaryCreate(keys, values, count);
    CHECK(sandbox_write_plist(sandbox_domain_path(path, sizeof path, FIRST_USE_APP, 0, 0), d) == 0);
    PrefsRelease(d);
    for (i = 0; i < count; i++)
        PrefsRelease(values[i]);

    for (i = 0; i < 40; i++) {
        char delay[32];
        const char *args[] = {"--child-fork-first-use", delay, NULL};
        int status;
        /* The store is made within the first few hundred microseconds. */
        snprintf(delay, sizeof delay, "%d", (i % 20) * 20);
        status = children_run(NULL, args);
        if (status == 10 + SIGALRM)
            hung++;
        else if (status != 0) {
            printf("child forked after %s us: status %d (signal %d)\n", delay, status, children_last_signal);
            failed++;
        }
    }
    CHECKF(hung == 0, "%d of 40 children forked during the first call hung at their own first call", hung);
    CHECKF(failed == 0, "%d of 40 children forked during the first call failed otherwise", failed);
}

/* ------------------------------------------------------------------ */
/* No inotify instance left                                            */
/* ------------------------------------------------------------------ */

#define WATCHED_APP "com.example.lifecycle.watched"

static int heard;

static void on_change(const char *app, const char *key, void *context)
{
    (void)app;
    (void)context;
    if (strcmp(key, "fromWriter") == 0)
        __atomic_store_n(&heard, 1, __ATOMIC_RELEASE);
}

/* Child role: writes one value and synchronizes. */
static int role_write_one(void)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(7);
    PrefsSetAppValue("fromWriter", n, WATCHED_APP);
    PrefsRelease(n);
    return PrefsAppSynchronize(WATCHED_APP) ? 0 : 1;
}

/* Child role: takes every inotify instance this user may have, then
 * observes; another process's synchronize must still be heard. */
static int role_observe_without_inotify(void)
{
    PrefsObserverRef o;
    PrefsErrorRef e;
    const char *args[] = {"--child-write-one", NULL};
    int taken = 0, i;
    char *why = NULL;

    alarm(20);
    /* Make the counter exist first: the writer's synchronize then moves it. */
    PrefsRelease(PrefsCopyAppValue("fromWriter", WATCHED_APP));
    while (inotify_init1(IN_CLOEXEC) >= 0)
        taken++;
    if (errno != EMFILE)
        return 20; /* the descriptor limit, not inotify's, stopped us */
    o = PrefsAddObserver(WATCHED_APP, NULL, on_change, NULL);
    if (o == NULL)
        return 21;
    e = PrefsCopyLastError();
    if (e == NULL || PrefsErrorGetCode(e) != kPrefsErrorIO)
        return 22;
    why = PrefsErrorCopyDescription(e);
    if (why == NULL || strstr(why, "inotify") == NULL)
        return 23;
    PrefsFree(why);
    PrefsRelease(e);
    if (children_run(NULL, args) != 0)
        return 24;
    for (i = 0; i < 100 && !__atomic_load_n(&heard, __ATOMIC_ACQUIRE); i++)
        children_sleep_us(20000);
    PrefsRemoveObserver(o);
    if (taken == 0)
        return 26;
    return __atomic_load_n(&heard, __ATOMIC_ACQUIRE) ? 0 : 25;
}

/* Copies this program to `to` (mode 0755), for a user who cannot reach
 * the directory it was built in. */
static int copy_self(const char *to)
{
    size_t length;
    char *bytes = sandbox_read_file("/proc/self/exe", &length);
    int ok = bytes != NULL && sandbox_write_file(to, bytes, length) == 0 && chmod(to, 0755) == 0;
    free(bytes);
    return ok ? 0 : -1;
}

static void test_observers_without_inotify(void)
{
    const char *args[] = {"--child-observe-without-inotify", NULL};
    int status;

    if (geteuid() == 0) {
        /* Take nobody's instances, not root's, which other programs use;
         * nobody gets a program and a configuration directory of its own. */
        struct passwd *pw = getpwnam("nobody");
        char exe[700], config[700], runtime[700];
        pid_t pid;
        if (pw == NULL) {
            printf("skipped: observers without inotify (no user nobody)\n");
            return;
        }
        sandbox_fmt(exe, sizeof exe, "%s/lifecycle-as-nobody", sandbox()->root);
        sandbox_fmt(config, sizeof config, "%s/nobody-config", sandbox()->root);
        sandbox_fmt(runtime, sizeof runtime, "%s/nobody-runtime", sandbox()->root);
        if (!CHECK(copy_self(exe) == 0 && sandbox_mkdirs(config) == 0 && sandbox_mkdirs(runtime) == 0 &&
                   chmod(sandbox()->root, 0755) == 0 && chmod(runtime, 0700) == 0 &&
                   chown(config, pw->pw_uid, pw->pw_gid) == 0 && chown(runtime, pw->pw_uid, pw->pw_gid) == 0))
            return;
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            setenv("XDG_CONFIG_HOME", config, 1);
            setenv("XDG_RUNTIME_DIR", runtime, 1);
            if (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                _exit(30);
            execl(exe, exe, args[0], (char *)NULL);
            _exit(31);
        }
        status = children_wait(pid);
    } else {
        status = children_run(NULL, args);
    }
    CHECKF(status == 0, "observer without inotify: child status %d", status);
}

/* ------------------------------------------------------------------ */
/* Application IDs whose file cannot exist                             */
/* ------------------------------------------------------------------ */

static char *id_of_length(char *out, size_t length)
{
    memset(out, 'a', length);
    memcpy(out, "com.example.", 12);
    out[length] = '\0';
    return out;
}

static void test_long_application_ids(void)
{
    char id[300];
    PrefsNumberRef one = PrefsNumberCreateInt64(1);
    size_t host_length = strlen(sandbox()->host);
    size_t longest_by_host = 255 - 7 - host_length;

    PrefsSetAppValue("k", one, id_of_length(id, 250));
    CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "a 250-byte application ID");
    PrefsSetAppValue("k", one, id_of_length(id, 255));
    CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "a 255-byte application ID");

    PrefsSetAppValue("k", one, id_of_length(id, 249));
    CHECK_NO_LAST_ERROR("a 249-byte application ID");
    CHECK(PrefsAppSynchronize(id));
    CHECK_NO_LAST_ERROR("synchronize of a 249-byte application ID");

    PrefsSetValue("k", one, id_of_length(id, longest_by_host + 1), kPrefsCurrentUser, kPrefsCurrentHost);
    CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "a current-host ID one byte too long");
    PrefsSetValue("k", one, id_of_length(id, longest_by_host), kPrefsCurrentUser, kPrefsCurrentHost);
    CHECK_NO_LAST_ERROR("the longest current-host ID");
    CHECK(PrefsSynchronize(id, kPrefsCurrentUser, kPrefsCurrentHost));
    CHECK_NO_LAST_ERROR("synchronize of the longest current-host ID");

    /* A 240-byte ID's search list has no current-host file: reading it is quiet. */
    PrefsRelease(PrefsCopyAppValue("k", id_of_length(id, 240)));
    CHECK_NO_LAST_ERROR("a read of a 240-byte application ID");
    PrefsRelease(one);
}

/* ------------------------------------------------------------------ */
/* A domain that does not parse, met by a read                         */
/* ------------------------------------------------------------------ */

#define CORRUPT_APP "com.example.lifecycle.corrupt"

static void test_corrupt_domain_is_reported_by_a_read(void)
{
    char path[600];
    PrefsPropertyListRef v;
    PrefsDictionaryRef registered = sandbox_dict1s("k", "registered");

    PrefsRegisterDefaults(registered, CORRUPT_APP);
    PrefsRelease(registered);
    CHECK(sandbox_write_file(sandbox_domain_path(path, sizeof path, CORRUPT_APP, 0, 0), "<plist><dict><key>k",
                             19) == 0);

    v = PrefsCopyAppValue("k", CORRUPT_APP);
    CHECK_LAST_ERROR(kPrefsErrorCorruptFile, "the first read that meets the file");
    CHECKF(sandbox_is_string(v, "registered"), "the other layers still answer: %s", sandbox_describe(v));
    PrefsRelease(v);

    v = PrefsCopyAppValue("k", CORRUPT_APP);
    PrefsRelease(v);
    CHECK_NO_LAST_ERROR("a second read: the problem was reported once");

    CHECK(PrefsAppSynchronize(CORRUPT_APP));
    CHECK_LAST_ERROR(kPrefsErrorCorruptFile, "synchronize still lists the file");
}

/* ------------------------------------------------------------------ */
/* Managed global values                                               */
/* ------------------------------------------------------------------ */

#define MANAGED_APP "com.example.lifecycle.managed"

static void test_managed_global_is_forced_everywhere(void)
{
    char path[700];
    PrefsPropertyListRef v;
    PrefsStringRef mine = PrefsStringCreate("mine");
    PrefsDictionaryRef forced = sandbox_dict1s("AppleLocale", "fr_FR");

    PrefsSetAppValue("AppleLocale", mine, MANAGED_APP);
    CHECK_NO_LAST_ERROR("the app's own value, before it is managed");
    CHECK(PrefsAppSynchronize(MANAGED_APP));

    sandbox_fmt(path, sizeof path, "%s/.GlobalPreferences.plist", sandbox()->managed);
    CHECK(sandbox_write_plist(path, forced) == 0);
    PrefsRelease(forced);
    CHECK(PrefsAppSynchronize(MANAGED_APP));

    v = PrefsCopyAppValue("AppleLocale", MANAGED_APP);
    CHECKF(sandbox_is_string(v, "fr_FR"), "the managed global value wins: %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(PrefsAppValueIsForced("AppleLocale", MANAGED_APP));
    CHECK(PrefsAppValueIsForced("AppleLocale", kPrefsAnyApplication));
    CHECK(!PrefsAppValueIsForced("Other", MANAGED_APP));

    PrefsSetAppValue("AppleLocale", mine, MANAGED_APP);
    CHECK_LAST_ERROR(kPrefsErrorForcedValue, "a write to a key the managed global domain forces");
    PrefsSetAppValue("AppleLocale", mine, kPrefsAnyApplication);
    CHECK_LAST_ERROR(kPrefsErrorForcedValue, "a write to the global domain's forced key");
    PrefsRelease(mine);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (argc > 1 && strncmp(argv[1], "--child-", 8) == 0) {
        sandbox_attach();
        if (strcmp(argv[1], "--child-fork-first-use") == 0 && argc > 2)
            return role_fork_during_first_use(atol(argv[2]));
        if (strcmp(argv[1], "--child-observe-without-inotify") == 0)
            return role_observe_without_inotify();
        if (strcmp(argv[1], "--child-write-one") == 0)
            return role_write_one();
        return 99;
    }
    if (argc > 0 && argv[0] != NULL)
        children_self = argv[0];
    if (sandbox_init("lifecycle") != 0)
        return CHECK_FINISH();

    test_fork_during_first_use();
    test_observers_without_inotify();
    test_long_application_ids();
    test_corrupt_domain_is_reported_by_a_read();
    test_managed_global_is_forced_everywhere();

    sandbox_remove();
    return CHECK_FINISH();
}
