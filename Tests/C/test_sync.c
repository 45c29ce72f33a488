/*
 * test_sync.c — synced preferences through the C API:
 *
 *   PrefsAppSetKeySynced declares a key synced (PrefsAppKeyIsSynced says
 *   so); a set of it goes to this machine's file in the sync folder
 *   ($PREFS_SYNC_DIR), not to the app's domain, and reads name
 *   kPrefsSourceSynced; another machine (this program run again with a
 *   configuration of its own, so an identity of its own, over the same
 *   folder) learns the declaration, reads the value, and its write reaches
 *   this process's next read after PrefsAppSynchronize and its observer;
 *   keys over 64 bytes and refused application IDs are refused with an
 *   error, changing nothing.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"
#include "support.h"

#define APP "com.example.synced"

static pthread_mutex_t heard_lock = PTHREAD_MUTEX_INITIALIZER;
static int heard;

static void on_change(const char *applicationID, const char *key, void *context)
{
    (void)applicationID;
    (void)context;
    if (strcmp(key, "Color") != 0)
        return;
    pthread_mutex_lock(&heard_lock);
    heard++;
    pthread_mutex_unlock(&heard_lock);
}

static int heard_count(void)
{
    pthread_mutex_lock(&heard_lock);
    int n = heard;
    pthread_mutex_unlock(&heard_lock);
    return n;
}

/* The other machine: checks what it learnt, then writes Color. */
static int other_machine(const char *color)
{
    int ok = PrefsAppKeyIsSynced("Color", APP);
    PrefsPropertyListRef v = PrefsCopyAppValue("Color", APP);
    ok = ok && sandbox_is_string(v, "red");
    PrefsRelease(v);
    sandbox_set_string("Color", color, APP, kPrefsCurrentUser, kPrefsAnyHost);
    ok = ok && PrefsAppSynchronize(APP);
    return ok ? 0 : 1;
}

/* Runs this program as another machine: its own configuration and
 * runtime directory, the same sync folder. */
static int run_other_machine(const char *self, const char *color)
{
    char config[600], runtime[600];
    sandbox_fmt(config, sizeof config, "%s/other-config", sandbox()->root);
    sandbox_fmt(runtime, sizeof runtime, "%s/other-runtime", sandbox()->root);
    sandbox_mkdirs(config);
    sandbox_mkdirs(runtime);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("XDG_CONFIG_HOME", config, 1);
        setenv("XDG_RUNTIME_DIR", runtime, 1);
        execl(self, self, "other-machine", color, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int machine_files(const char *folder)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "machine-", 8) == 0)
            n++;
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "other-machine") == 0)
        return other_machine(argv[2]);
    if (sandbox_init("sync") != 0)
        return CHECK_FINISH();
    char folder[600], path[600];
    sandbox_fmt(folder, sizeof folder, "%s/sync", sandbox()->root);
    setenv("PREFS_SYNC_DIR", folder, 1);

    CHECK(!PrefsAppKeyIsSynced("Color", APP));
    CHECK(PrefsCopyLastError() == NULL);
    CHECK(PrefsAppSetKeySynced("Color", true, APP));
    CHECK(PrefsAppKeyIsSynced("Color", APP));
    sandbox_set_string("Color", "red", APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(PrefsAppSynchronize(APP));
    PrefsSource source = kPrefsSourceNone;
    PrefsPropertyListRef v = PrefsCopyAppValueAndSource("Color", APP, &source, NULL);
    CHECKF(sandbox_is_string(v, "red"), "synced value: %s", sandbox_describe(v));
    CHECK(source == kPrefsSourceSynced);
    PrefsRelease(v);
    /* In the folder, not in the app's domain. */
    CHECK(machine_files(folder) == 1);
    CHECK(PrefsCopyValue("Color", APP, kPrefsCurrentUser, kPrefsAnyHost) == NULL);
    sandbox_domain_path(path, sizeof path, APP, 0, 0);
    char *text = sandbox_read_file(path, NULL);
    CHECK(text == NULL || strstr(text, "Color") == NULL);
    free(text);

    PrefsObserverRef observer = PrefsAddObserver(APP, "Color", on_change, NULL);
    CHECK(observer != NULL);
    CHECK(run_other_machine(argv[0], "blue") == 0);
    CHECK(machine_files(folder) == 2);
    for (int i = 0; i < 400 && heard_count() == 0; i++)
        usleep(5000);
    CHECK(heard_count() >= 1);
    CHECK(PrefsAppSynchronize(APP));
    v = PrefsCopyAppValue("Color", APP);
    CHECKF(sandbox_is_string(v, "blue"), "after the other machine: %s", sandbox_describe(v));
    PrefsRelease(v);
    PrefsRemoveObserver(observer);

    /* Refusals change nothing. */
    char longKey[80];
    memset(longKey, 'k', 65);
    longKey[65] = '\0';
    CHECK(!PrefsAppSetKeySynced(longKey, true, APP));
    CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsAppSetKeySynced with a 65-byte key");
    CHECK(!PrefsAppKeyIsSynced(longKey, APP));
    CHECK(!PrefsAppSetKeySynced("Color", true, "a/b"));
    CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "PrefsAppSetKeySynced a/b");
    CHECK(!PrefsAppKeyIsSynced("Color", "a/b"));
    CHECK(PrefsAppKeyIsSynced("Color", APP));

    /* No longer synced: the value stays, locally. */
    CHECK(PrefsAppSetKeySynced("Color", false, APP));
    CHECK(!PrefsAppKeyIsSynced("Color", APP));
    v = PrefsCopyAppValueAndSource("Color", APP, &source, NULL);
    CHECK(sandbox_is_string(v, "blue") && source == kPrefsSourceApp);
    PrefsRelease(v);

    sandbox_remove();
    return CHECK_FINISH();
}
