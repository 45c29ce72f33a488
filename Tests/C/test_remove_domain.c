/*
 * test_remove_domain.c — PrefsRemoveDomain, and observers hearing changes
 * that come from the search list rather than from a set:
 *
 *   a domain written to disk is removed: its file is gone, its pending
 *   changes with it, PrefsCopyApplicationList no longer lists it, reads
 *   fall through to the next layer, observers hear each key that went;
 *   removing a domain that does not exist succeeds; bad arguments are
 *   refused;
 *   observers hear a registration (PrefsRegisterDefaults), a suite added
 *   and removed, and nothing when a registration changes no read.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"
#include "support.h"

#define APP "com.example.removedomain"
#define SUITE "com.example.removedomain.suite"

static pthread_mutex_t heard_lock = PTHREAD_MUTEX_INITIALIZER;
static int heard;

static void on_change(const char *applicationID, const char *key, void *context)
{
    (void)applicationID;
    (void)key;
    (void)context;
    pthread_mutex_lock(&heard_lock);
    heard++;
    pthread_mutex_unlock(&heard_lock);
}

/* Waits up to two seconds for `count` notifications in all. */
static int wait_heard(int count)
{
    for (int i = 0; i < 400; i++) {
        pthread_mutex_lock(&heard_lock);
        int n = heard;
        pthread_mutex_unlock(&heard_lock);
        if (n >= count)
            return n;
        usleep(5000);
    }
    pthread_mutex_lock(&heard_lock);
    int n = heard;
    pthread_mutex_unlock(&heard_lock);
    return n;
}

static int listed(const char *app)
{
    PrefsArrayRef list = PrefsCopyApplicationList(kPrefsCurrentUser, kPrefsAnyHost);
    int found = 0;
    if (list == NULL)
        return -1;
    for (size_t i = 0; i < PrefsArrayGetCount(list); i++)
        if (sandbox_is_string(PrefsArrayGetValueAtIndex(list, i), app))
            found = 1;
    PrefsRelease(list);
    return found;
}

static void test_remove(void)
{
    char path[600];
    sandbox_domain_path(path, sizeof path, APP, 0, 0);
    sandbox_set_string("Name", "stored", APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(PrefsSynchronize(APP, kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(access(path, F_OK) == 0);
    CHECK(listed(APP) == 1);

    PrefsStringRef fallback = PrefsStringCreate("registered");
    PrefsDictionaryRef defaults = sandbox_dict1("Name", fallback);
    PrefsRegisterDefaults(defaults, APP);
    PrefsRelease(defaults);
    PrefsRelease(fallback);

    PrefsObserverRef observer = PrefsAddObserver(APP, "Name", on_change, NULL);
    CHECK(observer != NULL);
    sandbox_set_string("Pending", "not yet written", APP, kPrefsCurrentUser, kPrefsAnyHost);

    CHECK(PrefsRemoveDomain(APP, kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(access(path, F_OK) != 0);
    CHECK(listed(APP) == 0);
    PrefsPropertyListRef v = PrefsCopyAppValue("Name", APP);
    CHECKF(sandbox_is_string(v, "registered"), "after removal: %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(PrefsCopyAppValue("Pending", APP) == NULL);
    CHECK(wait_heard(1) == 1);
    /* Pending changes went with it: a synchronize writes no file back. */
    CHECK(PrefsAppSynchronize(APP));
    CHECK(access(path, F_OK) != 0);
    PrefsRemoveObserver(observer);

    CHECK(PrefsRemoveDomain("com.example.never.written", kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(!PrefsRemoveDomain("a/b", kPrefsCurrentUser, kPrefsAnyHost));
    CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "PrefsRemoveDomain a/b");
    CHECK(!PrefsRemoveDomain(APP, "someone-else", kPrefsAnyHost));
}

static void test_observers_hear_the_search_list(void)
{
    pthread_mutex_lock(&heard_lock);
    heard = 0;
    pthread_mutex_unlock(&heard_lock);
    PrefsObserverRef observer = PrefsAddObserver(APP, "Layered", on_change, NULL);

    PrefsStringRef one = PrefsStringCreate("registered");
    PrefsDictionaryRef defaults = sandbox_dict1("Layered", one);
    PrefsRegisterDefaults(defaults, APP);
    CHECKF(wait_heard(1) == 1, "a registration");

    sandbox_set_string("Layered", "from the suite", SUITE, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsAddSuitePreferencesToApp(APP, SUITE);
    CHECKF(wait_heard(2) == 2, "a suite added");
    PrefsRemoveSuitePreferencesFromApp(APP, SUITE);
    CHECKF(wait_heard(3) == 3, "a suite removed");

    sandbox_set_string("Layered", "the user's", APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(wait_heard(4) == 4);
    PrefsRegisterDefaults(defaults, APP);
    usleep(100000);
    CHECKF(wait_heard(5) == 4, "a registration under a set value changes no read");
    PrefsRelease(defaults);
    PrefsRelease(one);
    PrefsRemoveObserver(observer);
}

int main(void)
{
    if (sandbox_init("remove-domain") != 0)
        return CHECK_FINISH();
    test_remove();
    test_observers_hear_the_search_list();
    sandbox_remove();
    return CHECK_FINISH();
}
