/*
 * test_hostile.c — preference files that are not what they should be, and
 * users who are not who they should be. Every case runs in a child process
 * with a time limit, so a hang or a crash fails that case only:
 *
 *   - a domain file, .GlobalPreferences.plist or a change counter that is a
 *     FIFO: reads and synchronize return at once; synchronize refuses with
 *     kPrefsErrorIO and leaves the FIFO;
 *   - other files that are not regular (a directory, a symlink to
 *     /dev/null): refused the same way, nothing replaced;
 *   - a change counter truncated while mapped, one owned by another user,
 *     one that is a symlink: no SIGBUS, no write through the link;
 *   - a domain symlink planted by another user in a shared directory, or
 *     leading to another user's file: a root writer refuses it;
 *   - a setuid-root copy of this program run by nobody ignores the
 *     caller's XDG_CONFIG_HOME, HOME and PREFS_* variables;
 *   - any-user domains are written 0644 in 0755 directories whatever the
 *     umask; an existing file keeps its mode;
 *   - a sparse 2 GiB domain file is refused at once, under a 1 GiB address
 *     space limit;
 *   - a read-only directory: reads work, writes fail cleanly;
 *   - readers create nothing: no $HOME, no $XDG_CONFIG_HOME, no counter in
 *     a preference directory, nothing beside a plist file read by path, and
 *     a write by path removes no other file's temporaries;
 *   - a domain symlinked into another directory (a dotfile manager's):
 *     another process's synchronize is seen by the next read, and an edit
 *     there reaches observers.
 *
 * Cases that need a second user run when root (as nobody) and are skipped
 * otherwise. A full disk is tested by test_processes.c.
 */
#define _GNU_SOURCE

#include <prefs/Prefs.h>

#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "children.h"
#include "sandbox.h"
#include "support.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uid_t nobody_uid = 65534;
static gid_t nobody_gid = 65534;

/* Whether cases that need a second user can run. */
static int have_second_user(void)
{
    return geteuid() == 0;
}

/* In a child: becomes nobody (when root). */
static int become_nobody(void)
{
    return setgroups(0, NULL) == 0 && setgid(nobody_gid) == 0 && setuid(nobody_uid) == 0 ? 0 : -1;
}

/* Makes `path` (and parents) as directories, then sets `mode`. */
static int make_dir(const char *path, mode_t mode)
{
    return sandbox_mkdirs(path) == 0 && chmod(path, mode) == 0 ? 0 : -1;
}

/* The directories of one case, under the sandbox root. */
struct dirs {
    char base[400], config[450], system[450], managed[450], runtime[450];
};

/*
 * Makes <root>/<name>/{config,system,managed,runtime} (mode 0755, runtime
 * 0700) and points the environment at them; without `runtime` the runtime
 * directory is not made and XDG_RUNTIME_DIR is unset. Call in a child,
 * before its first Prefs call.
 */
static void case_dirs(struct dirs *d, const char *name, int runtime)
{
    struct sandbox *sb = sandbox();
    sandbox_fmt(d->base, sizeof d->base, "%s/%s", sb->root, name);
    sandbox_fmt(d->config, sizeof d->config, "%s/config", d->base);
    sandbox_fmt(d->system, sizeof d->system, "%s/system", d->base);
    sandbox_fmt(d->managed, sizeof d->managed, "%s/managed", d->base);
    sandbox_fmt(d->runtime, sizeof d->runtime, "%s/runtime", d->base);
    CHECK(make_dir(d->base, 0755) == 0 && make_dir(d->config, 0755) == 0 && make_dir(d->system, 0755) == 0 &&
          make_dir(d->managed, 0755) == 0);
    setenv("XDG_CONFIG_HOME", d->config, 1);
    setenv("PREFS_SYSTEM_DIR", d->system, 1);
    setenv("PREFS_MANAGED_DIR", d->managed, 1);
    if (runtime) {
        CHECK(make_dir(d->runtime, 0700) == 0);
        setenv("XDG_RUNTIME_DIR", d->runtime, 1);
    } else {
        unsetenv("XDG_RUNTIME_DIR");
    }
}

/* Whether `path` is a FIFO. */
static int is_fifo(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Sets key = "text" in app's own domain and synchronizes; returns what
 * PrefsAppSynchronize returned. */
static bool set_and_sync(const char *key, const char *text, const char *app)
{
    PrefsStringRef s = PrefsStringCreate(text);
    PrefsSetAppValue(key, s, app);
    PrefsRelease(s);
    return PrefsAppSynchronize(app);
}

/* As set_and_sync, for the any-user, any-host domain of `app`. */
static bool set_and_sync_any_user(const char *key, const char *text, const char *app)
{
    sandbox_set_string(key, text, app, kPrefsAnyUser, kPrefsAnyHost);
    return PrefsSynchronize(app, kPrefsAnyUser, kPrefsAnyHost);
}

/* Whether the file at `path` holds exactly `text`. */
static int file_holds(const char *path, const char *text)
{
    size_t n = 0;
    char *bytes = sandbox_read_file(path, &n);
    int same = bytes != NULL && n == strlen(text) && memcmp(bytes, text, n) == 0;
    free(bytes);
    return same;
}

/* Writes {key = "text";} to `path`. */
static int write_domain(const char *path, const char *key, const char *text)
{
    PrefsDictionaryRef d = sandbox_dict1s(key, text);
    int r = sandbox_write_plist(path, d);
    PrefsRelease(d);
    return r;
}

/* The number of entries in `dir` (not . and ..), -1 when it cannot be read. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------ */
/* FIFOs and other files that are not regular                          */
/* ------------------------------------------------------------------ */

static void fifo_domain(void)
{
    const char *app = "com.example.hostile.fifo";
    struct dirs d;
    char path[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "fifo-domain", 1);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.config, app);
    CHECK(mkfifo(path, 0600) == 0);
    v = PrefsCopyAppValue("k", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(!set_and_sync("k", "v", app));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize onto a FIFO");
    CHECKF(is_fifo(path), "the FIFO %s was replaced", path);
}

static void fifo_global_domain(void)
{
    const char *app = "com.example.hostile.fifoglobal";
    struct dirs d;
    char path[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "fifo-global", 1);
    sandbox_fmt(path, sizeof path, "%s/.GlobalPreferences.plist", d.config);
    CHECK(mkfifo(path, 0600) == 0);
    v = PrefsCopyAppValue("k", app); /* the global domain is on every search list */
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(set_and_sync("k", "v", app)); /* the app's own file is fine */
    CHECK(!set_and_sync("k", "v", kPrefsAnyApplication));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize onto a FIFO global domain");
    CHECKF(is_fifo(path), "the FIFO %s was replaced", path);
}

/* A counter that is a FIFO this process may not write (as nobody when
 * root; a 0444 FIFO otherwise): opening it read-only used to block. */
static void fifo_counter(void)
{
    const char *app = "com.example.hostile.fifocounter";
    struct dirs d;
    char system_counter[600], user_counter[600], path[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "fifo-counter", 0);
    sandbox_fmt(system_counter, sizeof system_counter, "%s/%s", d.system, SANDBOX_COUNTER_FILE);
    sandbox_fmt(user_counter, sizeof user_counter, "%s/%s", d.config, SANDBOX_COUNTER_FILE);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.system, app);
    CHECK(write_domain(path, "k", "system") == 0 && chmod(path, 0644) == 0);
    CHECK(mkfifo(system_counter, 0444) == 0);
    if (have_second_user()) {
        CHECK(chown(d.config, nobody_uid, nobody_gid) == 0);
        CHECK(become_nobody() == 0);
    }
    CHECK(mkfifo(user_counter, 0444) == 0);
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "system"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(set_and_sync("k", "user", app));
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "user"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(is_fifo(system_counter) && is_fifo(user_counter));
}

/* A directory and a symlink to /dev/null as domain files. */
static void not_regular(void)
{
    const char *dir_app = "com.example.hostile.isdir", *null_app = "com.example.hostile.devnull";
    struct dirs d;
    char path[600];
    struct stat st;
    PrefsPropertyListRef v;

    case_dirs(&d, "not-regular", 1);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.config, dir_app);
    CHECK(mkdir(path, 0700) == 0);
    v = PrefsCopyAppValue("k", dir_app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(!set_and_sync("k", "v", dir_app));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize onto a directory");
    CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode));

    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.config, null_app);
    CHECK(symlink("/dev/null", path) == 0);
    v = PrefsCopyAppValue("k", null_app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(!set_and_sync("k", "v", null_app));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize onto a link to /dev/null");
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

/* ------------------------------------------------------------------ */
/* Change counters                                                     */
/* ------------------------------------------------------------------ */

/* With no runtime directory, the user's counter used to be made by the
 * first read in the configuration directory and mapped; truncating it
 * killed the next read. Now a read makes no counter there. */
static void truncated_user_counter(void)
{
    const char *app = "com.example.hostile.truncate";
    struct dirs d;
    char counter[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "truncate-user", 0);
    sandbox_fmt(counter, sizeof counter, "%s/%s", d.config, SANDBOX_COUNTER_FILE);
    v = PrefsCopyAppValue("k", app);
    PrefsRelease(v);
    if (access(counter, F_OK) == 0)
        CHECK(truncate(counter, 0) == 0);
    v = PrefsCopyAppValue("k", app);
    CHECK(v == NULL);
    PrefsRelease(v);
}

/* A system-directory counter owned by another user: not mapped, so that
 * user cannot kill readers by truncating it, and never written. */
static void foreign_counter(void)
{
    const char *app = "com.example.hostile.foreigncounter";
    struct dirs d;
    char counter[600], path[600], page[4096], *now;
    PrefsPropertyListRef v;

    case_dirs(&d, "foreign-counter", 1);
    sandbox_fmt(counter, sizeof counter, "%s/%s", d.system, SANDBOX_COUNTER_FILE);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.system, app);
    memset(page, 'N', sizeof page);
    CHECK(sandbox_write_file(counter, page, sizeof page) == 0 && chmod(counter, 0644) == 0 &&
          chown(counter, nobody_uid, nobody_gid) == 0);
    CHECK(write_domain(path, "k", "one") == 0);
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "one"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(set_and_sync_any_user("k", "two", app));
    now = sandbox_read_file(counter, NULL);
    CHECKF(now != NULL && memcmp(now, page, 8) == 0, "a root writer changed nobody's %s", counter);
    free(now);
    CHECK(truncate(counter, 0) == 0); /* as its owner could */
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "two"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
}

/* A counter that is a symlink: a writer must not write through it. */
static void counter_symlink(void)
{
    const char *app = "com.example.hostile.counterlink";
    struct dirs d;
    char counter[600], victim[600], page[4097];

    case_dirs(&d, "counter-link", 1);
    sandbox_fmt(counter, sizeof counter, "%s/%s", d.system, SANDBOX_COUNTER_FILE);
    sandbox_fmt(victim, sizeof victim, "%s/victim", d.base);
    memset(page, 'V', sizeof page - 1);
    page[sizeof page - 1] = '\0';
    CHECK(sandbox_write_file(victim, page, sizeof page - 1) == 0);
    CHECK(symlink(victim, counter) == 0);
    CHECK(set_and_sync_any_user("k", "v", app));
    CHECKF(file_holds(victim, page), "a write went through the symlink %s to %s", counter, victim);
}

/* ------------------------------------------------------------------ */
/* Symlinks of another user                                            */
/* ------------------------------------------------------------------ */

static void planted_symlink(void)
{
    const char *app = "com.example.hostile.planted", *mine = "com.example.hostile.theirs";
    const char *secret = "root's own file\n";
    struct dirs d;
    char link_path[600], victim[600], theirs_dir[600], theirs[600];
    struct stat st;

    case_dirs(&d, "planted", 1);
    sandbox_fmt(victim, sizeof victim, "%s/victim.plist", d.base);
    CHECK(sandbox_write_file(victim, secret, strlen(secret)) == 0);
    /* A shared, sticky directory in which nobody planted a link. */
    CHECK(chmod(d.system, 01777) == 0);
    sandbox_fmt(link_path, sizeof link_path, "%s/%s.plist", d.system, app);
    CHECK(symlink(victim, link_path) == 0 && lchown(link_path, nobody_uid, nobody_gid) == 0);
    CHECK(!set_and_sync_any_user("k", "v", app));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize through another user's symlink");
    CHECKF(file_holds(victim, secret), "%s was replaced through nobody's link", victim);
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));

    /* My own link, to a file of nobody's. */
    sandbox_fmt(theirs_dir, sizeof theirs_dir, "%s/nobody", d.base);
    sandbox_fmt(theirs, sizeof theirs, "%s/%s.plist", theirs_dir, mine);
    CHECK(make_dir(theirs_dir, 0755) == 0 && write_domain(theirs, "k", "nobody's") == 0);
    CHECK(chown(theirs_dir, nobody_uid, nobody_gid) == 0 && chown(theirs, nobody_uid, nobody_gid) == 0);
    sandbox_fmt(link_path, sizeof link_path, "%s/%s.plist", d.config, mine);
    CHECK(symlink(theirs, link_path) == 0);
    CHECK(!set_and_sync("k", "mine", mine));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize onto another user's file through my link");
    CHECK(lstat(theirs, &st) == 0 && st.st_uid == nobody_uid);
}

/* ------------------------------------------------------------------ */
/* A setuid program                                                    */
/* ------------------------------------------------------------------ */

#define SETUID_APP "com.example.hostile.setuid"

/* --setuid-reader: run as a setuid-root copy by nobody; exits 0 when the
 * caller's files were not read. */
static int role_setuid_reader(void)
{
    PrefsPropertyListRef v = PrefsCopyAppValue("secret", SETUID_APP);
    int leaked = v != NULL;
    if (leaked)
        fprintf(stderr, "the setuid program read %s from the caller's directories\n", sandbox_describe(v));
    PrefsRelease(v);
    v = PrefsCopyValue("secret", SETUID_APP, kPrefsAnyUser, kPrefsAnyHost);
    if (v != NULL) {
        fprintf(stderr, "the setuid program read %s from the caller's system directory\n",
                sandbox_describe(v));
        leaked = 1;
    }
    PrefsRelease(v);
    return leaked ? 3 : 0;
}

static void setuid_program(void)
{
    struct sandbox *sb = sandbox();
    char evil[500], copy[500], secret[500], dotconfig[600], link1[600], link2[700], run[600];
    char env_config[700], env_home[700], env_system[700], env_managed[700], env_runtime[700];
    int in, out, status;
    pid_t pid;

    sandbox_fmt(evil, sizeof evil, "%s/setuid-caller", sb->root);
    sandbox_fmt(copy, sizeof copy, "%s/setuid-copy", sb->root);
    sandbox_fmt(secret, sizeof secret, "%s/setuid-secret.plist", sb->root);
    sandbox_fmt(dotconfig, sizeof dotconfig, "%s/.config", evil);
    sandbox_fmt(link1, sizeof link1, "%s/%s.plist", evil, SETUID_APP);
    sandbox_fmt(link2, sizeof link2, "%s/%s.plist", dotconfig, SETUID_APP);
    sandbox_fmt(run, sizeof run, "%s/run", evil);
    /* The caller's directories: its links lead to a file only root may read. */
    CHECK(make_dir(evil, 0755) == 0 && make_dir(dotconfig, 0755) == 0 && make_dir(run, 0700) == 0);
    CHECK(write_domain(secret, "secret", "root only") == 0 && chmod(secret, 0600) == 0);
    CHECK(symlink(secret, link1) == 0 && symlink(secret, link2) == 0);
    CHECK(lchown(link1, nobody_uid, nobody_gid) == 0 && lchown(link2, nobody_uid, nobody_gid) == 0);
    CHECK(chown(run, nobody_uid, nobody_gid) == 0);

    /* The copy: root's, setuid. */
    in = open("/proc/self/exe", O_RDONLY);
    out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    if (!CHECK(in >= 0 && out >= 0))
        return;
    {
        char buffer[65536];
        ssize_t n;
        while ((n = read(in, buffer, sizeof buffer)) > 0)
            CHECK(write(out, buffer, (size_t)n) == n);
    }
    close(in);
    close(out);
    CHECK(chmod(copy, 04755) == 0);

    sandbox_fmt(env_config, sizeof env_config, "XDG_CONFIG_HOME=%s", evil);
    sandbox_fmt(env_home, sizeof env_home, "HOME=%s", evil);
    sandbox_fmt(env_system, sizeof env_system, "PREFS_SYSTEM_DIR=%s", evil);
    sandbox_fmt(env_managed, sizeof env_managed, "PREFS_MANAGED_DIR=%s", evil);
    sandbox_fmt(env_runtime, sizeof env_runtime, "XDG_RUNTIME_DIR=%s", run);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        char *args[] = {copy, "--setuid-reader", NULL};
        char *env[] = {env_config, env_home, env_system, env_managed, env_runtime, NULL};
        alarm(10);
        if (become_nobody() != 0)
            _exit(126);
        execve(copy, args, env);
        perror("execve");
        _exit(127);
    }
    status = children_wait(pid);
    CHECKF(status == 0,
           "the setuid copy run by nobody: exit status %d, signal %d (3: it read the caller's files)", status,
           children_last_signal);
    CHECKF(entries(run) == 0, "the setuid program made files in the caller's XDG_RUNTIME_DIR");
}

/* ------------------------------------------------------------------ */
/* Modes                                                               */
/* ------------------------------------------------------------------ */

static void modes(void)
{
    const char *app = "com.example.hostile.modes", *kept = "com.example.hostile.keptmode";
    struct dirs d;
    char system[600], config[600], path[700], byhost[700];

    case_dirs(&d, "modes", 1);
    umask(077);
    sandbox_fmt(system, sizeof system, "%s/system-new", d.base);
    sandbox_fmt(config, sizeof config, "%s/config-new", d.base);
    setenv("PREFS_SYSTEM_DIR", system, 1);
    setenv("XDG_CONFIG_HOME", config, 1);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", system, kept);
    CHECK(make_dir(system, 0755) == 0 && write_domain(path, "k", "v") == 0 && chmod(path, 0640) == 0);
    CHECK(rmdir(system) == 0 || errno == ENOTEMPTY);

    CHECK(set_and_sync_any_user("k", "v", kept));
    CHECKF(sandbox_mode(path) == 0640, "an existing any-user file changed mode to %o", sandbox_mode(path));

    sandbox_set_string("k", "v", app, kPrefsAnyUser, kPrefsCurrentHost);
    CHECK(PrefsSynchronize(app, kPrefsAnyUser, kPrefsCurrentHost));
    CHECK(set_and_sync_any_user("k", "v", app));
    sandbox_fmt(byhost, sizeof byhost, "%s/ByHost", system);
    CHECKF(sandbox_mode(byhost) == 0755, "a new any-user directory has mode %o", sandbox_mode(byhost));
    sandbox_fmt(path, sizeof path, "%s/%s.plist", system, app);
    CHECKF(sandbox_mode(path) == 0644, "a new any-user file has mode %o", sandbox_mode(path));

    CHECK(set_and_sync("k", "v", app));
    sandbox_fmt(path, sizeof path, "%s/%s.plist", config, app);
    CHECKF(sandbox_mode(config) == 0700, "a new user directory has mode %o", sandbox_mode(config));
    CHECKF(sandbox_mode(path) == 0600, "a new user file has mode %o", sandbox_mode(path));
}

/* ------------------------------------------------------------------ */
/* A huge file                                                         */
/* ------------------------------------------------------------------ */

static void huge_file(void)
{
    const char *app = "com.example.hostile.huge";
    const off_t size = ((off_t)2 << 30) + 1;
    struct dirs d;
    char path[600];
    struct rlimit limit;
    struct stat st;
    double start;
    PrefsPropertyListRef v;
    PrefsErrorRef e;
    int fd;

    case_dirs(&d, "huge", 1);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.config, app);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, size) == 0);
    close(fd);
    /* AddressSanitizer reserves terabytes of address space: there the
     * time bound and LeakSanitizer stand in for the memory bound. */
    if (!CHECK_ASAN) {
        limit.rlim_cur = limit.rlim_max = (rlim_t)1 << 30;
        CHECK(setrlimit(RLIMIT_AS, &limit) == 0);
    }

    start = children_now();
    v = PrefsCopyAppValue("k", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(!set_and_sync("k", "v", app));
    e = PrefsCopyLastError();
    CHECK_ERROR(e, kPrefsErrorIO, "64 MiB", "synchronize onto a 2 GiB file");
    PrefsRelease(e);
    CHECKF(children_now() - start < 2.0, "refusing a 2 GiB file took %.1f s", children_now() - start);
    CHECK(stat(path, &st) == 0 && st.st_size == size);
}

/* ------------------------------------------------------------------ */
/* A read-only directory                                               */
/* ------------------------------------------------------------------ */

static void read_only_directory(void)
{
    const char *app = "com.example.hostile.readonly";
    struct dirs d;
    char path[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "read-only", 0);
    sandbox_fmt(path, sizeof path, "%s/%s.plist", d.config, app);
    CHECK(write_domain(path, "k", "kept") == 0);
    if (have_second_user()) {
        CHECK(chown(d.config, nobody_uid, nobody_gid) == 0 && chown(path, nobody_uid, nobody_gid) == 0);
        CHECK(become_nobody() == 0);
    }
    CHECK(chmod(d.config, 0555) == 0);
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "kept"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(!set_and_sync("k", "new", app));
    CHECK_LAST_ERROR(kPrefsErrorIO, "synchronize in a read-only directory");
    CHECKF(entries(d.config) == 1, "%d entries in the read-only directory", entries(d.config));
    v = PrefsCopyAppValue("k", app);
    CHECKF(sandbox_is_string(v, "new"), "the pending change is still seen: %s", sandbox_describe(v));
    PrefsRelease(v);
}

/* ------------------------------------------------------------------ */
/* Readers create nothing                                              */
/* ------------------------------------------------------------------ */

static void readers_create_nothing(void)
{
    const char *app = "com.example.hostile.reader";
    struct dirs d;
    char home[600], missing[600], runtime_counter[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "readers", 1);
    sandbox_fmt(home, sizeof home, "%s/missing-home", d.base);
    sandbox_fmt(missing, sizeof missing, "%s/missing-config", d.base);
    sandbox_fmt(runtime_counter, sizeof runtime_counter, "%s/prefs-changes", d.runtime);
    setenv("HOME", home, 1);
    setenv("XDG_CONFIG_HOME", missing, 1);
    v = PrefsCopyAppValue("k", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    v = PrefsCopyValue("k", app, kPrefsAnyUser, kPrefsCurrentHost);
    PrefsRelease(v);
    CHECKF(access(missing, F_OK) != 0, "a read made $XDG_CONFIG_HOME %s", missing);
    CHECKF(access(home, F_OK) != 0, "a read made $HOME %s", home);
    CHECKF(entries(d.system) == 0 && entries(d.managed) == 0,
           "a read made files in the system or managed directory");
    CHECKF(access(runtime_counter, F_OK) == 0, "no change counter in $XDG_RUNTIME_DIR");
}

/* As above with $XDG_CONFIG_HOME unset and no runtime directory. */
static void readers_create_nothing_at_home(void)
{
    const char *app = "com.example.hostile.reader";
    struct dirs d;
    char home[600];
    PrefsPropertyListRef v;

    case_dirs(&d, "readers-home", 0);
    sandbox_fmt(home, sizeof home, "%s/missing-home", d.base);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    v = PrefsCopyAppValue("k", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECKF(access(home, F_OK) != 0, "a read made $HOME %s", home);
}

/* An existing configuration directory gets no counter from a read. */
static void readers_create_nothing_in_config(void)
{
    struct dirs d;
    PrefsPropertyListRef v;

    case_dirs(&d, "readers-config", 0);
    v = PrefsCopyAppValue("k", "com.example.hostile.reader");
    PrefsRelease(v);
    CHECKF(entries(d.config) == 0, "a read made %d files in $XDG_CONFIG_HOME", entries(d.config));
}

/* The installed prefs command, found beside the library: <prefix>/bin/prefs. */
static int find_prefs_command(char *out, size_t size)
{
    Dl_info info;
    char *lib;
    if (dladdr((void *)PrefsGetVersionNumber, &info) == 0 || info.dli_fname == NULL)
        return -1;
    snprintf(out, size, "%s", info.dli_fname);
    lib = strstr(out, "/lib/");
    if (lib == NULL)
        return -1;
    snprintf(lib, size - (size_t)(lib - out), "/bin/prefs");
    return access(out, X_OK);
}

/* Runs the prefs command with `args`; returns its exit status. */
static int run_prefs(const char *prefs, const char *const *args)
{
    char *argv[12];
    int i, status;
    pid_t pid;
    argv[0] = (char *)prefs;
    for (i = 0; args[i] != NULL && i < 10; i++)
        argv[i + 1] = (char *)args[i];
    argv[i + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(prefs, argv);
        _exit(127);
    }
    status = children_wait(pid);
    return status;
}

/* A plist file named by path: no library file beside it, and a write
 * removes no temporary file of another file's. */
static void path_domain(void)
{
    const char *const names[] = {".prefs.tmp-1234-5678", ".prefs.tmp-kept", "other.plist"};
    struct dirs d;
    char prefs[600], dir[600], path[700], other[700];
    size_t i;

    if (find_prefs_command(prefs, sizeof prefs) != 0) {
        printf("SKIP path domains: no prefs command beside the library\n");
        return;
    }
    case_dirs(&d, "path-domain", 0);
    sandbox_fmt(dir, sizeof dir, "%s/files", d.base);
    sandbox_fmt(path, sizeof path, "%s/x.plist", dir);
    CHECK(make_dir(dir, 0755) == 0 && write_domain(path, "k", "v") == 0);
    {
        const char *args[] = {"read", path, "k", NULL};
        CHECK(run_prefs(prefs, args) == 0);
        CHECKF(entries(dir) == 1, "prefs read %s left %d files in %s", path, entries(dir), dir);
    }
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        sandbox_fmt(other, sizeof other, "%s/%s", dir, names[i]);
        CHECK(sandbox_write_file(other, "x", 1) == 0);
    }
    {
        const char *args[] = {"write", path, "k", "-string", "w", NULL};
        CHECK(run_prefs(prefs, args) == 0);
    }
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        sandbox_fmt(other, sizeof other, "%s/%s", dir, names[i]);
        CHECKF(access(other, F_OK) == 0, "prefs write %s removed %s", path, other);
    }
    CHECKF(entries(dir) == 4, "prefs write %s left %d files in %s", path, entries(dir), dir);
}

/* ------------------------------------------------------------------ */
/* A domain symlinked into another directory                           */
/* ------------------------------------------------------------------ */

#define LINKED_APP "com.example.hostile.linked"

static int observed_changes;

static void on_linked_change(const char *app, const char *key, void *context)
{
    (void)app;
    (void)key;
    (void)context;
    __atomic_add_fetch(&observed_changes, 1, __ATOMIC_SEQ_CST);
}

/* --linked-writer VALUE: sets k = VALUE and synchronizes. */
static int role_linked_writer(const char *value)
{
    return set_and_sync("k", value, LINKED_APP) ? 0 : 1;
}

static void linked_domain(void)
{
    struct dirs d;
    char dotfiles[600], target[700], link_path[700], temp[720];
    const char *args[] = {"--linked-writer", "from another process", NULL};
    PrefsPropertyListRef v;
    PrefsObserverRef o;
    struct stat st;
    double until;
    int status;

    case_dirs(&d, "linked", 1);
    sandbox_fmt(dotfiles, sizeof dotfiles, "%s/dotfiles", d.base);
    sandbox_fmt(target, sizeof target, "%s/%s.plist", dotfiles, LINKED_APP);
    sandbox_fmt(link_path, sizeof link_path, "%s/%s.plist", d.config, LINKED_APP);
    CHECK(make_dir(dotfiles, 0700) == 0 && write_domain(target, "k", "first") == 0);
    CHECK(symlink(target, link_path) == 0);

    v = PrefsCopyAppValue("k", LINKED_APP);
    CHECKF(sandbox_is_string(v, "first"), "read %s", sandbox_describe(v));
    PrefsRelease(v);
    status = children_run(NULL, args);
    CHECKF(status == 0, "the writer: status %d", status);
    v = PrefsCopyAppValue("k", LINKED_APP);
    CHECKF(sandbox_is_string(v, "from another process"),
           "the next read after another process's synchronize: %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));

    o = PrefsAddObserver(LINKED_APP, "k", on_linked_change, NULL);
    CHECK(o != NULL);
    children_sleep_us(100000);
    sandbox_fmt(temp, sizeof temp, "%s/edit.tmp", dotfiles);
    CHECK(write_domain(temp, "k", "edited by hand") == 0 && rename(temp, target) == 0);
    until = children_now() + 3.0;
    while (__atomic_load_n(&observed_changes, __ATOMIC_SEQ_CST) == 0 && children_now() < until)
        children_sleep_us(5000);
    CHECKF(__atomic_load_n(&observed_changes, __ATOMIC_SEQ_CST) > 0,
           "no observer call within 3 s of an edit where the symlinked file lives");
    PrefsRemoveObserver(o);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    struct passwd *pw;

    children_self = argv[0];
    if (argc == 2 && strcmp(argv[1], "--setuid-reader") == 0)
        return role_setuid_reader();
    if (argc == 3 && strcmp(argv[1], "--linked-writer") == 0)
        return role_linked_writer(argv[2]);

    pw = getpwnam("nobody");
    if (pw != NULL) {
        nobody_uid = pw->pw_uid;
        nobody_gid = pw->pw_gid;
    }
    if (sandbox_init("hostile") != 0)
        return CHECK_FINISH();
    CHECK(chmod(sandbox()->root, 0755) == 0); /* nobody goes through it */

    RUN_ISOLATED(fifo_domain, 10);
    RUN_ISOLATED(fifo_global_domain, 10);
    RUN_ISOLATED(fifo_counter, 10);
    RUN_ISOLATED(not_regular, 10);
    RUN_ISOLATED(truncated_user_counter, 10);
    RUN_ISOLATED(counter_symlink, 10);
    RUN_ISOLATED(modes, 10);
    RUN_ISOLATED(huge_file, 20);
    RUN_ISOLATED(read_only_directory, 10);
    RUN_ISOLATED(readers_create_nothing, 10);
    RUN_ISOLATED(readers_create_nothing_at_home, 10);
    RUN_ISOLATED(readers_create_nothing_in_config, 10);
    RUN_ISOLATED(path_domain, 15);
    RUN_ISOLATED(linked_domain, 15);
    if (have_second_user()) {
        RUN_ISOLATED(foreign_counter, 10);
        RUN_ISOLATED(planted_symlink, 10);
        RUN_ISOLATED(setuid_program, 15);
    } else {
        printf("SKIP another user's counter, planted symlinks, a setuid program: not root\n");
    }
    sandbox_remove();
    return CHECK_FINISH();
}
