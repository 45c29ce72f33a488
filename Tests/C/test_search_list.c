/*
 * test_search_list.c — the search list of PrefsCopyAppValue, first match
 * wins. One key is put in every layer:
 *
 *   managed for this user, managed for everyone (files in
 *   $PREFS_MANAGED_DIR/<user>/ and $PREFS_MANAGED_DIR), the argument domain
 *   (PrefsSetArguments), the app for this user on this host and on any
 *   host, two suites (newest first, this host then any host), the global
 *   domain for this user (this host, any host), the app for any user, the
 *   suites for any user, the global domain for any user, the language
 *   domain (PrefsSetVolatileDomain named by the language of LANG, set before
 *   the first call), and the registration domain (the app's, then the one
 *   for every app)
 *
 * then the layers are taken away from the top, one by one, and each time
 * the next layer must answer, through PrefsCopyAppValue and
 * PrefsCopyAppDictionary alike.
 */
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox.h"

#define APP "com.example.searchlist"
#define SUITE1 "com.example.searchlist.suite1"
#define SUITE2 "com.example.searchlist.suite2"
#define OTHER_APP "com.example.searchlist.other"

/* A stored layer: a domain set with PrefsSetValue. */
struct stored_layer {
    const char *label;
    const char *app;
    const char *user;
    const char *host;
};

static const struct stored_layer stored[] = {
    {"app-current-user-current-host", APP, kPrefsCurrentUser, kPrefsCurrentHost},
    {"app-current-user-any-host", APP, kPrefsCurrentUser, kPrefsAnyHost},
    {"suite2-current-user-current-host", SUITE2, kPrefsCurrentUser, kPrefsCurrentHost},
    {"suite2-current-user-any-host", SUITE2, kPrefsCurrentUser, kPrefsAnyHost},
    {"suite1-current-user-current-host", SUITE1, kPrefsCurrentUser, kPrefsCurrentHost},
    {"suite1-current-user-any-host", SUITE1, kPrefsCurrentUser, kPrefsAnyHost},
    {"global-current-user-current-host", kPrefsAnyApplication, kPrefsCurrentUser, kPrefsCurrentHost},
    {"global-current-user-any-host", "NSGlobalDomain", kPrefsCurrentUser, kPrefsAnyHost},
    {"app-any-user-current-host", APP, kPrefsAnyUser, kPrefsCurrentHost},
    {"app-any-user-any-host", APP, kPrefsAnyUser, kPrefsAnyHost},
    {"suite2-any-user-current-host", SUITE2, kPrefsAnyUser, kPrefsCurrentHost},
    {"suite2-any-user-any-host", SUITE2, kPrefsAnyUser, kPrefsAnyHost},
    {"suite1-any-user-current-host", SUITE1, kPrefsAnyUser, kPrefsCurrentHost},
    {"suite1-any-user-any-host", SUITE1, kPrefsAnyUser, kPrefsAnyHost},
    {"global-any-user-current-host", kPrefsAnyApplication, kPrefsAnyUser, kPrefsCurrentHost},
    {"global-any-user-any-host", kPrefsAnyApplication, kPrefsAnyUser, kPrefsAnyHost},
};
#define STORED_COUNT (sizeof stored / sizeof stored[0])

static char managed_user_path[700];
static char managed_all_path[700];

/* Checks that `app` reads `expected` for K, through both read paths. */
static void expect_layer(const char *app, const char *expected, int line)
{
    PrefsPropertyListRef v = PrefsCopyAppValue("K", app);
    PrefsDictionaryRef all = PrefsCopyAppDictionary(app);
    char what[300];

    snprintf(what, sizeof what, "PrefsCopyAppValue(\"K\", %s) is \"%s\"", app, expected);
    if (!check_record(sandbox_is_string(v, expected), __FILE__, line, what))
        fprintf(stderr, "    got %s\n", sandbox_describe(v));
    snprintf(what, sizeof what, "PrefsCopyAppDictionary(%s)[\"K\"] is \"%s\"", app, expected);
    if (!check_record(all != NULL && sandbox_is_string(PrefsDictionaryGetValue(all, "K"), expected), __FILE__,
                      line, what))
        fprintf(stderr, "    got %s\n",
                all != NULL ? sandbox_describe(PrefsDictionaryGetValue(all, "K")) : "no dictionary");
    PrefsRelease(v);
    PrefsRelease(all);
}

#define EXPECT_LAYER(app, expected) expect_layer((app), (expected), __LINE__)

/* The derived language values, for LANG=fr_FR.UTF-8. */
static void test_languages(void)
{
    PrefsPropertyListRef languages = PrefsCopyAppValue("AppleLanguages", APP);
    PrefsPropertyListRef locale = PrefsCopyAppValue("AppleLocale", APP);
    CHECKF(languages != NULL && PrefsGetType(languages) == kPrefsTypeArray &&
               PrefsArrayGetCount(languages) == 1 &&
               sandbox_is_string(PrefsArrayGetValueAtIndex(languages, 0), "fr-FR"),
           "AppleLanguages is %s, expected (\"fr-FR\")", sandbox_describe(languages));
    CHECKF(sandbox_is_string(locale, "fr_FR"), "AppleLocale is %s, expected fr_FR", sandbox_describe(locale));
    PrefsRelease(languages);
    PrefsRelease(locale);
}

/* A volatile domain that is not named by a language of the user is kept
 * but not searched. */
static void test_other_volatile_domains(void)
{
    PrefsDictionaryRef d = sandbox_dict1s("V", "de-DE");
    PrefsPropertyListRef v;
    PrefsSetVolatileDomain("de-DE", d);
    PrefsRelease(d);
    v = PrefsCopyAppValue("V", APP);
    CHECKF(v == NULL, "a volatile domain \"de-DE\" answered for a fr-FR user: %s", sandbox_describe(v));
    PrefsRelease(v);
    PrefsRemoveVolatileDomain("de-DE");
}

static void test_search_list(void)
{
    struct sandbox *sb = sandbox();
    const char *args_with[] = {"test_search_list", "-K", "arguments"};
    const char *args_without[] = {"test_search_list"};
    PrefsDictionaryRef d;
    size_t i;

    /* The stored layers first: once the managed values are in force, sets
     * of K are refused. */
    for (i = 0; i < STORED_COUNT; i++) {
        sandbox_set_string("K", stored[i].label, stored[i].app, stored[i].user, stored[i].host);
        CHECKF(sandbox_last_code() == 0, "setting K in the layer %s", stored[i].label);
    }
    PrefsAddSuitePreferencesToApp(APP, SUITE1);
    PrefsAddSuitePreferencesToApp(APP, SUITE2); /* newest: searched first */
    CHECK(sandbox_last_code() == 0);
    d = sandbox_dict1s("K", "language");
    PrefsSetVolatileDomain("fr-FR", d);
    PrefsRelease(d);
    d = sandbox_dict1s("K", "registration-any-app");
    PrefsRegisterDefaults(d, kPrefsAnyApplication);
    PrefsRelease(d);
    d = sandbox_dict1s("K", "registration-app");
    PrefsRegisterDefaults(d, APP);
    PrefsRelease(d);
    PrefsSetArguments(3, args_with);

    /* Everything stored goes to disk, so that the layers are files that
     * other processes see too. */
    for (i = 0; i < STORED_COUNT; i++)
        CHECKF(PrefsSynchronize(stored[i].app, stored[i].user, stored[i].host), "synchronizing %s",
               stored[i].label);

    sandbox_fmt(managed_user_path, sizeof managed_user_path, "%s/%s/%s.plist", sb->managed, sb->user, APP);
    sandbox_fmt(managed_all_path, sizeof managed_all_path, "%s/%s.plist", sb->managed, APP);
    d = sandbox_dict1s("K", "managed-user");
    CHECK(sandbox_write_plist(managed_user_path, d) == 0);
    PrefsRelease(d);
    d = sandbox_dict1s("K", "managed-all");
    CHECK(sandbox_write_plist(managed_all_path, d) == 0);
    PrefsRelease(d);
    CHECK(PrefsAppSynchronize(APP)); /* picks up the managed files */

    EXPECT_LAYER(APP, "managed-user");
    CHECK(PrefsAppValueIsForced("K", APP));
    unlink(managed_user_path);
    CHECK(PrefsAppSynchronize(APP));

    EXPECT_LAYER(APP, "managed-all");
    CHECK(PrefsAppValueIsForced("K", APP));
    unlink(managed_all_path);
    CHECK(PrefsAppSynchronize(APP));
    CHECK(!PrefsAppValueIsForced("K", APP));

    EXPECT_LAYER(APP, "arguments");
    PrefsSetArguments(1, args_without);

    for (i = 0; i < STORED_COUNT; i++) {
        EXPECT_LAYER(APP, stored[i].label);
        PrefsSetValue("K", NULL, stored[i].app, stored[i].user, stored[i].host);
        CHECKF(sandbox_last_code() == 0, "removing K from the layer %s", stored[i].label);
        /* Half of the removals reach the disk before the next read. */
        if (i % 2 == 0)
            CHECK(PrefsSynchronize(stored[i].app, stored[i].user, stored[i].host));
    }

    EXPECT_LAYER(APP, "language");
    PrefsRemoveVolatileDomain("fr-FR");

    EXPECT_LAYER(APP, "registration-app");
    /* The registrations for every app answer an app without its own. */
    EXPECT_LAYER(OTHER_APP, "registration-any-app");

    /* Taking the suites away changes nothing now. */
    PrefsRemoveSuitePreferencesFromApp(APP, SUITE2);
    PrefsRemoveSuitePreferencesFromApp(APP, SUITE1);
    EXPECT_LAYER(APP, "registration-app");

    for (i = 0; i < STORED_COUNT; i++)
        CHECK(PrefsSynchronize(stored[i].app, stored[i].user, stored[i].host));
}

/* The suites' order: the newest suite first; re-adding makes it newest. */
static void test_suite_order(void)
{
    sandbox_set_string("S", "suite1", SUITE1, kPrefsCurrentUser, kPrefsAnyHost);
    sandbox_set_string("S", "suite2", SUITE2, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsAddSuitePreferencesToApp(OTHER_APP, SUITE2);
    PrefsAddSuitePreferencesToApp(OTHER_APP, SUITE1);
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("S", OTHER_APP);
        CHECKF(sandbox_is_string(v, "suite1"), "the newest suite answers first: %s", sandbox_describe(v));
        PrefsRelease(v);
    }
    PrefsAddSuitePreferencesToApp(OTHER_APP, SUITE2);
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("S", OTHER_APP);
        CHECKF(sandbox_is_string(v, "suite2"), "a suite added again is the newest: %s", sandbox_describe(v));
        PrefsRelease(v);
    }
    PrefsRemoveSuitePreferencesFromApp(OTHER_APP, SUITE2);
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("S", OTHER_APP);
        CHECKF(sandbox_is_string(v, "suite1"), "after removing suite2: %s", sandbox_describe(v));
        PrefsRelease(v);
    }
    PrefsRemoveSuitePreferencesFromApp(OTHER_APP, SUITE1);
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("S", OTHER_APP);
        CHECKF(v == NULL, "no suite left: %s", sandbox_describe(v));
        PrefsRelease(v);
    }
    PrefsSetValue("S", NULL, SUITE1, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsSetValue("S", NULL, SUITE2, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(PrefsSynchronize(SUITE1, kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(PrefsSynchronize(SUITE2, kPrefsCurrentUser, kPrefsAnyHost));
}

int main(void)
{
    /* The language comes from the environment, read once at first use. */
    unsetenv("LANGUAGE");
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    setenv("LANG", "fr_FR.UTF-8", 1);
    if (sandbox_init("search-list") != 0)
        return CHECK_FINISH();

    test_languages();
    test_other_volatile_domains();
    test_search_list();
    test_suite_order();

    sandbox_remove();
    return CHECK_FINISH();
}
