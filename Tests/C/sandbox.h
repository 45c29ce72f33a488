/*
 * sandbox.h — private preference directories for one C test program, and
 * the file helpers the preferences tests share.
 *
 * sandbox_init() makes a fresh directory tree under /tmp and points the
 * library at it (XDG_CONFIG_HOME, PREFS_SYSTEM_DIR, PREFS_MANAGED_DIR,
 * XDG_RUNTIME_DIR, and HOME for good measure). Call it before the first
 * Prefs* call of the process: the library reads the environment once, at
 * first use. Child processes started afterwards inherit the same
 * environment.
 *
 * Define _XOPEN_SOURCE 700 before including (mkdtemp, nftw, setenv).
 */
#ifndef PREFS_TESTS_SANDBOX_H
#define PREFS_TESTS_SANDBOX_H

#include <prefs/Prefs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"

/* The change counter the store keeps in each preferences directory. */
#define SANDBOX_COUNTER_FILE ".prefs-changes"

struct sandbox {
    char root[256];
    char config[320];  /* current user: $XDG_CONFIG_HOME */
    char system[320];  /* any user: $PREFS_SYSTEM_DIR */
    char managed[320]; /* managed: $PREFS_MANAGED_DIR */
    char runtime[320]; /* $XDG_RUNTIME_DIR, where the user's change counter lives */
    char user[256];    /* the login name, as the library takes it */
    char host[256];    /* the host id, as the library takes it */
};

static inline struct sandbox *sandbox(void)
{
    static struct sandbox sb;
    return &sb;
}

/* snprintf into `out`, which is `size` bytes; returns `out`. */
static inline char *sandbox_fmt(char *out, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(out, size, format, ap);
    va_end(ap);
    return out;
}

/* mkdir -p with mode 0700 (for the test's own directories). */
static inline int sandbox_mkdirs(const char *path)
{
    char buffer[1024];
    size_t i, n = strlen(path);
    if (n >= sizeof buffer)
        return -1;
    memcpy(buffer, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buffer[i] == '/' || buffer[i] == '\0') {
            char c = buffer[i];
            buffer[i] = '\0';
            if (mkdir(buffer, 0700) != 0 && errno != EEXIST)
                return -1;
            buffer[i] = c;
        }
    }
    return 0;
}

/* The host id the library uses: the first line of /etc/machine-id, else
 * the host name. */
static inline void sandbox_read_host_id(char *out, size_t size)
{
    FILE *f = fopen("/etc/machine-id", "r");
    out[0] = '\0';
    if (f != NULL) {
        if (fgets(out, (int)size, f) == NULL)
            out[0] = '\0';
        fclose(f);
        out[strcspn(out, "\r\n ")] = '\0';
    }
    if (out[0] == '\0' && gethostname(out, size - 1) != 0)
        snprintf(out, size, "localhost");
}

/*
 * Makes /tmp/prefs-<name>.XXXXXX with config/, system/ and managed/ in it
 * and points the environment at them. Returns 0, or -1 (and reports a
 * failed check) when it cannot.
 */
static inline int sandbox_init(const char *name)
{
    struct sandbox *sb = sandbox();
    struct passwd *pw;
    char home[400];

    snprintf(sb->root, sizeof sb->root, "/tmp/prefs-%s.XXXXXX", name);
    if (!CHECK(mkdtemp(sb->root) != NULL))
        return -1;
    sandbox_fmt(sb->config, sizeof sb->config, "%s/config", sb->root);
    sandbox_fmt(sb->system, sizeof sb->system, "%s/system", sb->root);
    sandbox_fmt(sb->managed, sizeof sb->managed, "%s/managed", sb->root);
    sandbox_fmt(sb->runtime, sizeof sb->runtime, "%s/runtime", sb->root);
    sandbox_fmt(home, sizeof home, "%s/home", sb->root);
    if (!CHECK(sandbox_mkdirs(sb->config) == 0 && sandbox_mkdirs(sb->system) == 0 &&
               sandbox_mkdirs(sb->managed) == 0 && sandbox_mkdirs(sb->runtime) == 0 &&
               sandbox_mkdirs(home) == 0))
        return -1;
    setenv("XDG_RUNTIME_DIR", sb->runtime, 1);
    setenv("XDG_CONFIG_HOME", sb->config, 1);
    setenv("PREFS_SYSTEM_DIR", sb->system, 1);
    setenv("PREFS_MANAGED_DIR", sb->managed, 1);
    setenv("HOME", home, 1);
    unsetenv("PREFS_TEST_FAIL");
    pw = getpwuid(getuid());
    snprintf(sb->user, sizeof sb->user, "%s", pw != NULL && pw->pw_name != NULL ? pw->pw_name : "unknown");
    sandbox_read_host_id(sb->host, sizeof sb->host);
    return 0;
}

/* In a child process started by a program that called sandbox_init():
 * fills in the same directories from the inherited environment. */
static inline void sandbox_attach(void)
{
    struct sandbox *sb = sandbox();
    const char *config = getenv("XDG_CONFIG_HOME");
    const char *system = getenv("PREFS_SYSTEM_DIR");
    const char *managed = getenv("PREFS_MANAGED_DIR");
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    struct passwd *pw = getpwuid(getuid());
    char *slash;
    snprintf(sb->config, sizeof sb->config, "%s", config != NULL ? config : "");
    snprintf(sb->system, sizeof sb->system, "%s", system != NULL ? system : "");
    snprintf(sb->managed, sizeof sb->managed, "%s", managed != NULL ? managed : "");
    snprintf(sb->runtime, sizeof sb->runtime, "%s", runtime != NULL ? runtime : "");
    sandbox_fmt(sb->root, sizeof sb->root, "%s", sb->config);
    slash = strrchr(sb->root, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(sb->user, sizeof sb->user, "%s", pw != NULL && pw->pw_name != NULL ? pw->pw_name : "unknown");
    sandbox_read_host_id(sb->host, sizeof sb->host);
}

static inline int sandbox_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP || type == FTW_D)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static inline int sandbox_open_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    (void)st;
    if (type == FTW_D || type == FTW_DNR)
        chmod(path, 0700);
    return 0;
}

/* Removes the whole tree. Synchronize everything first, so that no
 * exit-time write re-creates it. */
static inline void sandbox_remove(void)
{
    struct sandbox *sb = sandbox();
    if (sb->root[0] == '\0')
        return;
    nftw(sb->root, sandbox_open_entry, 16, FTW_PHYS);
    nftw(sb->root, sandbox_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The path of a domain file, as the contract places it.
 * anyUser: under $PREFS_SYSTEM_DIR; currentHost: ByHost/<id>.<host>.plist. */
static inline char *sandbox_domain_path(char *out, size_t size, const char *app, int anyUser, int currentHost)
{
    struct sandbox *sb = sandbox();
    const char *base = anyUser ? sb->system : sb->config;
    const char *name = strcmp(app, "NSGlobalDomain") == 0 || strcmp(app, kPrefsAnyApplication) == 0
                           ? ".GlobalPreferences"
                           : app;
    if (currentHost)
        return sandbox_fmt(out, size, "%s/ByHost/%s.%s.plist", base, name, sb->host);
    return sandbox_fmt(out, size, "%s/%s.plist", base, name);
}

/* Writes `length` bytes to `path` (mode 0600), creating directories. */
static inline int sandbox_write_file(const char *path, const void *bytes, size_t length)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    int fd;
    size_t done = 0;
    if (slash != NULL && (size_t)(slash - path) < sizeof dir) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
        sandbox_mkdirs(dir);
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    while (done < length) {
        ssize_t n = write(fd, (const char *)bytes + done, length - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    return close(fd);
}

/* The whole file (malloc'ed, NUL-terminated; length in *length), or NULL
 * when it cannot be read. */
static inline char *sandbox_read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    char *buffer = NULL;
    size_t size = 0, used = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        size_t n;
        if (used + 4096 + 1 > size) {
            char *bigger = realloc(buffer, size = (used + 4096 + 1) * 2);
            if (bigger == NULL) {
                free(buffer);
                fclose(f);
                return NULL;
            }
            buffer = bigger;
        }
        n = fread(buffer + used, 1, size - used - 1, f);
        used += n;
        if (n == 0)
            break;
    }
    fclose(f);
    buffer[used] = '\0';
    if (length != NULL)
        *length = used;
    return buffer;
}

/* Writes `value` as an XML property list at `path`. */
static inline int sandbox_write_plist(const char *path, PrefsPropertyListRef value)
{
    PrefsDataRef xml = PrefsPropertyListCreateXMLData(value, NULL);
    int r;
    if (xml == NULL)
        return -1;
    r = sandbox_write_file(path, PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml));
    PrefsRelease(xml);
    return r;
}

/* The property list stored at `path` (+1), or NULL. */
static inline PrefsPropertyListRef sandbox_read_plist(const char *path)
{
    size_t n = 0;
    char *bytes = sandbox_read_file(path, &n);
    PrefsPropertyListRef v;
    if (bytes == NULL)
        return NULL;
    v = PrefsPropertyListCreateWithData(bytes, n, NULL);
    free(bytes);
    return v;
}

/* The permission bits of `path`, or -1 when it does not exist. */
static inline int sandbox_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return (int)(st.st_mode & 07777);
}

/* The names in `dir` (not ".", "..", or the change counter), sorted, joined
 * by spaces into `out`. Returns the number of names. */
static inline int sandbox_list(const char *dir, char *out, size_t size)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    int i, count = 0;
    size_t used = 0;
    if (size > 0)
        out[0] = '\0';
    for (i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && strcmp(name, SANDBOX_COUNTER_FILE) != 0) {
            int w = snprintf(out + used, used < size ? size - used : 0, "%s%s", count ? " " : "", name);
            if (w > 0)
                used += (size_t)w;
            count++;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

/* ---- values ---- */

static inline PrefsDictionaryRef sandbox_dict1(const char *key, PrefsPropertyListRef value)
{
    const char *keys[1];
    PrefsPropertyListRef values[1];
    keys[0] = key;
    values[0] = value;
    return PrefsDictionaryCreate(keys, values, 1);
}

/* {key = "text";} */
static inline PrefsDictionaryRef sandbox_dict1s(const char *key, const char *text)
{
    PrefsStringRef s = PrefsStringCreate(text);
    PrefsDictionaryRef d = sandbox_dict1(key, s);
    PrefsRelease(s);
    return d;
}

/* Whether `v` is the string `text`. */
static inline int sandbox_is_string(PrefsPropertyListRef v, const char *text)
{
    return v != NULL && PrefsGetType(v) == kPrefsTypeString && strcmp(PrefsStringGetCString(v), text) == 0;
}

/* Whether `v` is the integer `n`. */
static inline int sandbox_is_int(PrefsPropertyListRef v, int64_t n)
{
    int64_t got;
    return v != NULL && PrefsGetType(v) == kPrefsTypeInteger && PrefsNumberGetInt64(v, &got) && got == n;
}

/* A description of `v` for messages: a static buffer, "(null)" for NULL. */
static inline const char *sandbox_describe(PrefsPropertyListRef v)
{
    static char buffer[512];
    char *d;
    if (v == NULL)
        return "(null)";
    d = PrefsCopyDescription(v);
    snprintf(buffer, sizeof buffer, "%s", d != NULL ? d : "?");
    PrefsFree(d);
    return buffer;
}

/* Sets key = "text" in one domain. */
static inline void sandbox_set_string(const char *key, const char *text, const char *app, const char *user,
                                      const char *host)
{
    PrefsStringRef s = PrefsStringCreate(text);
    PrefsSetValue(key, s, app, user, host);
    PrefsRelease(s);
}

/* The code of this thread's last error, 0 when none. */
static inline int sandbox_last_code(void)
{
    PrefsErrorRef e = PrefsCopyLastError();
    int code = e != NULL ? (int)PrefsErrorGetCode(e) : 0;
    PrefsRelease(e);
    return code;
}

#endif /* PREFS_TESTS_SANDBOX_H */
