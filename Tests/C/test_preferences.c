/*
 * test_preferences.c — every function of the Preferences section of
 * Prefs.h, against the installed library:
 *
 *   PrefsCopyAppValue / PrefsSetAppValue / PrefsAppSynchronize, where the
 *   files go and their modes; PrefsCopyValue / PrefsSetValue /
 *   PrefsSynchronize for one domain, with user and host names;
 *   PrefsCopyMultiple / PrefsSetMultiple (all or nothing); PrefsCopyKeyList
 *   (sorted by UTF-8 bytes); PrefsCopyApplicationList;
 *   PrefsCopyAppDictionary; PrefsAppValueIsForced and refused writes to
 *   forced keys; the typed getters and their validity flag; suites;
 *   PrefsRegisterDefaults and PrefsRegisterDefaultsFromFile with a settings
 *   schema and child panes; PrefsSetArguments; volatile domains; the
 *   application IDs that are refused, touching nothing on disk.
 */
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"

#define APP "com.example.preferences"

static const char *program_name = "test_preferences";

static PrefsStringRef S(const char *text)
{
    return PrefsStringCreate(text);
}

/* Sets key to a new value (released here) in the app's own domain. */
static void set_app(const char *key, PrefsPropertyListRef value, const char *app)
{
    PrefsSetAppValue(key, value, app);
    PrefsRelease(value);
}

static void expect_code(int code, const char *what, int line)
{
    int got = sandbox_last_code();
    char expr[300];
    snprintf(expr, sizeof expr, "%s: last error %d", what, code);
    if (!check_record(got == code, __FILE__, line, expr))
        fprintf(stderr, "    got %d\n", got);
}

#define EXPECT_CODE(code, what) expect_code((code), (what), __LINE__)

/* ------------------------------------------------------------------ */

static void test_app_values(void)
{
    char path[700];
    PrefsPropertyListRef v, stored;
    PrefsNumberRef n = PrefsNumberCreateInt64(14);

    PrefsSetAppValue("FontSize", n, APP);
    EXPECT_CODE(0, "PrefsSetAppValue");
    v = PrefsCopyAppValue("FontSize", APP);
    CHECK(v != NULL && PrefsEqual(v, n)); /* seen at once */
    CHECK(v != NULL && PrefsGetType(v) == kPrefsTypeInteger);
    PrefsRelease(v);
    PrefsRelease(n);

    /* Not on disk before a synchronize (the timed write is a second away). */
    sandbox_domain_path(path, sizeof path, APP, 0, 0);
    CHECKF(access(path, F_OK) != 0, "%s exists before any synchronize", path);
    CHECK(PrefsAppSynchronize(APP));
    EXPECT_CODE(0, "PrefsAppSynchronize");
    stored = sandbox_read_plist(path);
    CHECKF(stored != NULL && sandbox_is_int(PrefsDictionaryGetValue(stored, "FontSize"), 14), "%s holds %s",
           path, sandbox_describe(stored));
    PrefsRelease(stored);
    CHECKF(sandbox_mode(path) == 0600, "%s has mode %o", path, sandbox_mode(path));

    /* NULL removes. */
    PrefsSetAppValue("FontSize", NULL, APP);
    v = PrefsCopyAppValue("FontSize", APP);
    CHECK(v == NULL);
    CHECK(PrefsAppSynchronize(APP));
    stored = sandbox_read_plist(path);
    CHECK(stored != NULL && PrefsDictionaryGetValue(stored, "FontSize") == NULL);
    PrefsRelease(stored);

    /* An absent key: NULL, and that is not an error. */
    v = PrefsCopyAppValue("never-set", APP);
    CHECK(v == NULL);
    EXPECT_CODE(0, "PrefsCopyAppValue of an absent key");

    /* A value XML cannot carry is kept: the domain's file becomes binary. */
    set_app("bad",
            S("a\x01"
              "b"),
            APP);
    EXPECT_CODE(0, "PrefsSetAppValue with U+0001");
    CHECK(PrefsAppSynchronize(APP));
    v = PrefsCopyAppValue("bad", APP);
    CHECK(v != NULL && PrefsGetType(v) == kPrefsTypeString && PrefsStringGetLength(v) == 3 &&
          memcmp(PrefsStringGetCString(v),
                 "a\x01"
                 "b",
                 3) == 0);
    PrefsRelease(v);
}

/* kPrefsCurrentApplication is the program's name; NSGlobalDomain and
 * kPrefsAnyApplication are both the global domain. */
static void test_application_names(void)
{
    char path[700];
    PrefsPropertyListRef v;

    set_app("mine", S("current"), kPrefsCurrentApplication);
    v = PrefsCopyAppValue("mine", program_name);
    CHECKF(sandbox_is_string(v, "current"), "kPrefsCurrentApplication is not \"%s\"", program_name);
    PrefsRelease(v);
    CHECK(PrefsAppSynchronize(kPrefsCurrentApplication));
    sandbox_domain_path(path, sizeof path, program_name, 0, 0);
    CHECKF(access(path, F_OK) == 0, "no file %s", path);

    set_app("g", S("global"), "NSGlobalDomain");
    v = PrefsCopyAppValue("g", kPrefsAnyApplication);
    CHECK(sandbox_is_string(v, "global"));
    PrefsRelease(v);
    v = PrefsCopyAppValue("g", APP); /* the global domain is in every search list */
    CHECK(sandbox_is_string(v, "global"));
    PrefsRelease(v);
    CHECK(PrefsAppSynchronize(kPrefsAnyApplication));
    sandbox_domain_path(path, sizeof path, "NSGlobalDomain", 0, 0);
    CHECKF(access(path, F_OK) == 0, "no file %s", path);
    PrefsSetAppValue("g", NULL, kPrefsAnyApplication);
    CHECK(PrefsAppSynchronize(kPrefsAnyApplication));
}

/* ------------------------------------------------------------------ */

static void test_one_domain(void)
{
    struct sandbox *sb = sandbox();
    const char *users[] = {kPrefsCurrentUser, kPrefsAnyUser};
    const char *hosts[] = {kPrefsCurrentHost, kPrefsAnyHost};
    int u, h;
    char path[700], listing[2000];

    for (u = 0; u < 2; u++) {
        for (h = 0; h < 2; h++) {
            char text[64];
            PrefsPropertyListRef v, stored;
            snprintf(text, sizeof text, "u%d-h%d", u, h);
            sandbox_set_string("where", text, APP, users[u], hosts[h]);
            EXPECT_CODE(0, "PrefsSetValue");
            v = PrefsCopyValue("where", APP, users[u], hosts[h]);
            CHECKF(sandbox_is_string(v, text), "PrefsCopyValue(%s, %s) is %s", users[u], hosts[h],
                   sandbox_describe(v));
            PrefsRelease(v);
            CHECK(PrefsSynchronize(APP, users[u], hosts[h]));
            sandbox_domain_path(path, sizeof path, APP, u == 1, h == 0);
            stored = sandbox_read_plist(path);
            CHECKF(stored != NULL && sandbox_is_string(PrefsDictionaryGetValue(stored, "where"), text),
                   "%s holds %s", path, sandbox_describe(stored));
            PrefsRelease(stored);
            /* The user's files are the user's; any-user files are for every user. */
            CHECKF(sandbox_mode(path) == (u == 0 ? 0600 : 0644), "%s has mode %o", path, sandbox_mode(path));
        }
    }
    /* Directories the library made: 0700 for the user, 0755 for every user. */
    sandbox_fmt(path, sizeof path, "%s/ByHost", sb->config);
    CHECKF(sandbox_mode(path) == 0700, "%s has mode %o", path, sandbox_mode(path));
    sandbox_fmt(path, sizeof path, "%s/ByHost", sb->system);
    CHECKF(sandbox_mode(path) == 0755, "%s has mode %o", path, sandbox_mode(path));

    /* One domain only: no search list. */
    {
        PrefsPropertyListRef v =
            PrefsCopyValue("where", "com.example.nothing", kPrefsCurrentUser, kPrefsAnyHost);
        CHECK(v == NULL);
        PrefsRelease(v);
    }

    /* The login name and the host id name the current user and host. */
    {
        PrefsPropertyListRef v = PrefsCopyValue("where", APP, sb->user, sb->host);
        CHECKF(sandbox_is_string(v, "u0-h0"), "user %s, host %s: %s", sb->user, sb->host,
               sandbox_describe(v));
        PrefsRelease(v);
    }
    /* Anything else is refused. */
    {
        PrefsPropertyListRef v = PrefsCopyValue("where", APP, "somebody-else", kPrefsAnyHost);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidArgument, "another user's name");
        v = PrefsCopyValue("where", APP, kPrefsCurrentUser, "another-host");
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidArgument, "another host's id");
        sandbox_set_string("where", "x", APP, "somebody-else", kPrefsAnyHost);
        EXPECT_CODE(kPrefsErrorInvalidArgument, "PrefsSetValue for another user");
        CHECK(!PrefsSynchronize(APP, kPrefsCurrentUser, "another-host"));
        EXPECT_CODE(kPrefsErrorInvalidArgument, "PrefsSynchronize for another host");
    }

    sandbox_list(sb->config, listing, sizeof listing);
    CHECKF(strstr(listing, ".tmp") == NULL, "temporary files left: %s", listing);
}

static void test_multiple(void)
{
    const char *keys[] = {"a", "b", "c"};
    PrefsPropertyListRef values[3];
    PrefsDictionaryRef set, got;
    PrefsArrayRef fetch, remove;
    PrefsStringRef names[3];
    size_t i;

    for (i = 0; i < 3; i++)
        values[i] = PrefsNumberCreateInt64((int64_t)i + 1);
    set = PrefsDictionaryCreate(keys, values, 3);
    PrefsSetMultiple(set, NULL, APP, kPrefsCurrentUser, kPrefsAnyHost);
    EXPECT_CODE(0, "PrefsSetMultiple");
    PrefsRelease(set);

    /* NULL keys: the whole domain. */
    got = PrefsCopyMultiple(NULL, APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(got != NULL && sandbox_is_int(PrefsDictionaryGetValue(got, "a"), 1) &&
          sandbox_is_int(PrefsDictionaryGetValue(got, "c"), 3));
    PrefsRelease(got);

    /* Absent keys are left out. */
    names[0] = S("a");
    names[1] = S("absent");
    names[2] = S("c");
    fetch = PrefsArrayCreate((const PrefsPropertyListRef *)names, 3);
    got = PrefsCopyMultiple(fetch, APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECKF(got != NULL && PrefsDictionaryGetCount(got) == 2 && PrefsDictionaryGetValue(got, "absent") == NULL,
           "got %s", sandbox_describe(got));
    PrefsRelease(got);

    /* Set and remove as one change. */
    {
        PrefsStringRef rm[1];
        PrefsDictionaryRef d = sandbox_dict1s("d", "four");
        rm[0] = S("a");
        remove = PrefsArrayCreate((const PrefsPropertyListRef *)rm, 1);
        PrefsRelease(rm[0]);
        PrefsSetMultiple(d, remove, APP, kPrefsCurrentUser, kPrefsAnyHost);
        EXPECT_CODE(0, "PrefsSetMultiple set and remove");
        PrefsRelease(d);
        got = PrefsCopyMultiple(NULL, APP, kPrefsCurrentUser, kPrefsAnyHost);
        CHECK(got != NULL && PrefsDictionaryGetValue(got, "a") == NULL &&
              sandbox_is_string(PrefsDictionaryGetValue(got, "d"), "four"));
        PrefsRelease(got);
    }

    /* Refused whole: one value no domain file can hold (a string longer
       than any reader takes). */
    {
        const char *k[] = {"e", "bad"};
        PrefsPropertyListRef v[2];
        PrefsDictionaryRef d;
        char *text = malloc(PREFS_MAX_TEXT_LENGTH + 1);
        CHECK(text != NULL);
        if (text == NULL)
            return;
        memset(text, 'x', PREFS_MAX_TEXT_LENGTH + 1);
        v[0] = PrefsNumberCreateInt64(5);
        v[1] = PrefsStringCreateWithBytes(text, PREFS_MAX_TEXT_LENGTH + 1);
        free(text);
        d = PrefsDictionaryCreate(k, v, 2);
        CHECK(d != NULL);
        PrefsSetMultiple(d, remove, APP, kPrefsCurrentUser, kPrefsAnyHost);
        EXPECT_CODE(kPrefsErrorUnrepresentable, "PrefsSetMultiple of a string too long for any file");
        got = PrefsCopyMultiple(NULL, APP, kPrefsCurrentUser, kPrefsAnyHost);
        CHECKF(got != NULL && PrefsDictionaryGetValue(got, "e") == NULL,
               "a part of a refused change was applied: %s", sandbox_describe(got));
        PrefsRelease(got);
        PrefsRelease(d);
        PrefsRelease(v[0]);
        PrefsRelease(v[1]);
    }
    CHECK(PrefsSynchronize(APP, kPrefsCurrentUser, kPrefsAnyHost));

    PrefsRelease(remove);
    PrefsRelease(fetch);
    for (i = 0; i < 3; i++) {
        PrefsRelease(values[i]);
        PrefsRelease(names[i]);
    }
}

static void test_key_and_application_lists(void)
{
    const char *keys[] = {"b", "a", "B", "\xc3\xa9", "Z", "a1"};
    const char *sorted[] = {"B", "Z", "a", "a1", "b", "\xc3\xa9"};
    PrefsPropertyListRef values[6];
    PrefsDictionaryRef d;
    PrefsArrayRef list;
    size_t i;

    for (i = 0; i < 6; i++)
        values[i] = PrefsBooleanCreate(true);
    d = PrefsDictionaryCreate(keys, values, 6);
    PrefsSetMultiple(d, NULL, "com.example.keys", kPrefsCurrentUser, kPrefsAnyHost);
    PrefsRelease(d);
    for (i = 0; i < 6; i++)
        PrefsRelease(values[i]);

    list = PrefsCopyKeyList("com.example.keys", kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(list != NULL && PrefsArrayGetCount(list) == 6);
    for (i = 0; list != NULL && i < 6 && i < PrefsArrayGetCount(list); i++)
        CHECKF(sandbox_is_string(PrefsArrayGetValueAtIndex(list, i), sorted[i]), "key %zu is %s, expected %s",
               i, sandbox_describe(PrefsArrayGetValueAtIndex(list, i)), sorted[i]);
    PrefsRelease(list);

    list = PrefsCopyKeyList("com.example.empty", kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(list != NULL && PrefsArrayGetCount(list) == 0);
    EXPECT_CODE(0, "PrefsCopyKeyList of an empty domain");
    PrefsRelease(list);

    /* Stored domains of this user on any host: sorted, no global domain. */
    CHECK(PrefsSynchronize("com.example.keys", kPrefsCurrentUser, kPrefsAnyHost));
    CHECK(PrefsAppSynchronize(APP));
    list = PrefsCopyApplicationList(kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(list != NULL);
    if (list != NULL) {
        size_t n = PrefsArrayGetCount(list);
        int has_app = 0, has_keys = 0, has_global = 0, in_order = 1;
        for (i = 0; i < n; i++) {
            PrefsPropertyListRef s = PrefsArrayGetValueAtIndex(list, i);
            if (sandbox_is_string(s, APP))
                has_app = 1;
            if (sandbox_is_string(s, "com.example.keys"))
                has_keys = 1;
            if (sandbox_is_string(s, ".GlobalPreferences") || sandbox_is_string(s, "NSGlobalDomain"))
                has_global = 1;
            if (i > 0 && strcmp(PrefsStringGetCString(PrefsArrayGetValueAtIndex(list, i - 1)),
                                PrefsStringGetCString(s)) >= 0)
                in_order = 0;
        }
        CHECKF(has_app && has_keys && !has_global && in_order, "application list: %s",
               sandbox_describe(list));
    }
    PrefsRelease(list);

    /* Any user, this host: the domains written there by test_one_domain. */
    list = PrefsCopyApplicationList(kPrefsAnyUser, kPrefsCurrentHost);
    CHECKF(list != NULL && PrefsArrayGetCount(list) == 1 &&
               sandbox_is_string(PrefsArrayGetValueAtIndex(list, 0), APP),
           "any user, current host: %s", sandbox_describe(list));
    PrefsRelease(list);
}

/* ------------------------------------------------------------------ */

static void write_managed(const char *app, const char *key, const char *text, int user_only)
{
    struct sandbox *sb = sandbox();
    char path[700];
    PrefsDictionaryRef d = sandbox_dict1s(key, text);
    if (user_only)
        sandbox_fmt(path, sizeof path, "%s/%s/%s.plist", sb->managed, sb->user, app);
    else
        sandbox_fmt(path, sizeof path, "%s/%s.plist", sb->managed, app);
    CHECK(sandbox_write_plist(path, d) == 0);
    PrefsRelease(d);
}

static void test_forced(void)
{
    const char *app = "com.example.forced";
    PrefsPropertyListRef v;
    PrefsDictionaryRef d;

    write_managed(app, "locked", "by the administrator", 0);
    write_managed(app, "mine", "by my administrator", 1);

    CHECK(PrefsAppValueIsForced("locked", app));
    EXPECT_CODE(0, "PrefsAppValueIsForced");
    CHECK(PrefsAppValueIsForced("mine", app));
    CHECK(!PrefsAppValueIsForced("free", app));
    CHECK(!PrefsAppValueIsForced("locked", APP));

    set_app("locked", S("user's choice"), app);
    EXPECT_CODE(kPrefsErrorForcedValue, "PrefsSetAppValue of a forced key");
    sandbox_set_string("mine", "x", app, kPrefsCurrentUser, kPrefsCurrentHost);
    EXPECT_CODE(kPrefsErrorForcedValue, "PrefsSetValue of a forced key");
    PrefsSetAppValue("locked", NULL, app);
    EXPECT_CODE(kPrefsErrorForcedValue, "removing a forced key");
    d = sandbox_dict1s("locked", "x");
    PrefsSetMultiple(NULL, NULL, app, kPrefsCurrentUser, kPrefsAnyHost);
    EXPECT_CODE(0, "PrefsSetMultiple with nothing");
    PrefsSetMultiple(d, NULL, app, kPrefsCurrentUser, kPrefsAnyHost);
    EXPECT_CODE(kPrefsErrorForcedValue, "PrefsSetMultiple of a forced key");
    PrefsRelease(d);
    {
        const char *k[] = {"free", "mine"};
        PrefsPropertyListRef vals[2];
        vals[0] = S("free");
        vals[1] = S("mine");
        d = PrefsDictionaryCreate(k, vals, 2);
        PrefsSetMultiple(d, NULL, app, kPrefsCurrentUser, kPrefsAnyHost);
        EXPECT_CODE(kPrefsErrorForcedValue, "PrefsSetMultiple with one forced key");
        PrefsRelease(d);
        PrefsRelease(vals[0]);
        PrefsRelease(vals[1]);
        v = PrefsCopyAppValue("free", app);
        CHECKF(v == NULL, "a part of a refused PrefsSetMultiple was applied: %s", sandbox_describe(v));
        PrefsRelease(v);
    }

    v = PrefsCopyAppValue("locked", app);
    CHECK(sandbox_is_string(v, "by the administrator"));
    PrefsRelease(v);
    v = PrefsCopyAppValue("mine", app);
    CHECK(sandbox_is_string(v, "by my administrator"));
    PrefsRelease(v);
    CHECK(PrefsAppSynchronize(app));
}

/* ------------------------------------------------------------------ */

struct typed_case {
    const char *key;
    PrefsPropertyListRef value;
    int valid;
    int64_t expected;
};

static void test_typed_getters(void)
{
    const char *app = "com.example.typed";
    struct typed_case ints[] = {
        {"i42", PrefsNumberCreateInt64(42), 1, 42},
        {"i2^40", PrefsNumberCreateInt64(INT64_C(1) << 40), 1, INT64_C(1) << 40},
        {"imax", PrefsNumberCreateInt64(INT64_MAX), 1, INT64_MAX},
        {"imin", PrefsNumberCreateInt64(INT64_MIN), 1, INT64_MIN},
        {"u2^63", PrefsNumberCreateUInt64(UINT64_C(1) << 63), 0, 0},
        {"true", PrefsBooleanCreate(true), 1, 1},
        {"false", PrefsBooleanCreate(false), 1, 0},
        {"r3.9", PrefsNumberCreateDouble(3.9), 1, 3},
        {"r-3.9", PrefsNumberCreateDouble(-3.9), 1, -3},
        {"r1e300", PrefsNumberCreateDouble(1e300), 0, 0},
        {"s-12", S("  -12 "), 1, -12},
        {"s2^40", S("1099511627776"), 1, INT64_C(1) << 40},
        {"s2^63", S("9223372036854775808"), 0, 0},
        {"s12abc", S("12abc"), 0, 0},
        {"s1.5", S("1.5"), 0, 0},
        {"date", PrefsDateCreate(0), 0, 0},
    };
    struct typed_case bools[] = {
        {"YES", S("YES"), 1, 1},
        {"no", S("no"), 1, 0},
        {"TRUE", S("TRUE"), 1, 1},
        {"False", S("False"), 1, 0},
        {"s0", S("0"), 1, 0},
        {"s17", S("17"), 1, 1},
        {"sy", S("y"), 0, 0},
        {"b", PrefsBooleanCreate(true), 1, 1},
        {"i0", PrefsNumberCreateInt64(0), 1, 0},
        {"i2^32", PrefsNumberCreateInt64(INT64_C(1) << 32), 1, 1},
        {"r1.0", PrefsNumberCreateDouble(1.0), 0, 0},
        {"r0.0", PrefsNumberCreateDouble(0.0), 0, 0},
        {"data", PrefsDataCreate("x", 1), 0, 0},
    };
    size_t i;
    bool flag;

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        int64_t got;
        PrefsSetAppValue(ints[i].key, ints[i].value, app);
        flag = !ints[i].valid;
        got = PrefsGetAppIntegerValue(ints[i].key, app, &flag);
        CHECKF(flag == (ints[i].valid != 0) && got == ints[i].expected,
               "PrefsGetAppIntegerValue(%s = %s): %lld, flag %d", ints[i].key,
               sandbox_describe(ints[i].value), (long long)got, (int)flag);
        PrefsRelease(ints[i].value);
    }
    for (i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        bool got;
        PrefsSetAppValue(bools[i].key, bools[i].value, app);
        flag = !bools[i].valid;
        got = PrefsGetAppBooleanValue(bools[i].key, app, &flag);
        CHECKF(flag == (bools[i].valid != 0) && (int)got == (int)bools[i].expected,
               "PrefsGetAppBooleanValue(%s = %s): %d, flag %d", bools[i].key,
               sandbox_describe(bools[i].value), (int)got, (int)flag);
        PrefsRelease(bools[i].value);
    }
    /* Absent keys; a NULL flag pointer is allowed. */
    flag = true;
    CHECK(PrefsGetAppIntegerValue("absent", app, &flag) == 0 && !flag);
    flag = true;
    CHECK(!PrefsGetAppBooleanValue("absent", app, &flag) && !flag);
    CHECK(PrefsGetAppIntegerValue("i42", app, NULL) == 42);
    CHECK(PrefsGetAppBooleanValue("YES", app, NULL));
    CHECK(PrefsAppSynchronize(app));
}

/* ------------------------------------------------------------------ */

static void test_suites(void)
{
    const char *app = "com.example.withsuite";
    const char *suite = "com.example.thesuite";
    PrefsPropertyListRef v;
    PrefsDictionaryRef all;

    sandbox_set_string("shared", "from the suite", suite, kPrefsCurrentUser, kPrefsAnyHost);
    v = PrefsCopyAppValue("shared", app);
    CHECK(v == NULL);
    PrefsAddSuitePreferencesToApp(app, suite);
    EXPECT_CODE(0, "PrefsAddSuitePreferencesToApp");
    v = PrefsCopyAppValue("shared", app);
    CHECK(sandbox_is_string(v, "from the suite"));
    PrefsRelease(v);
    all = PrefsCopyAppDictionary(app);
    CHECK(all != NULL && sandbox_is_string(PrefsDictionaryGetValue(all, "shared"), "from the suite"));
    PrefsRelease(all);
    PrefsRemoveSuitePreferencesFromApp(app, suite);
    EXPECT_CODE(0, "PrefsRemoveSuitePreferencesFromApp");
    v = PrefsCopyAppValue("shared", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    CHECK(PrefsSynchronize(suite, kPrefsCurrentUser, kPrefsAnyHost));
}

static void test_app_dictionary(void)
{
    const char *app = "com.example.dictionary";
    const char *args[] = {"program", "-fromArgs", "(1, 2)", "-flag", "-x", "-name", "plain text"};
    PrefsDictionaryRef d, reg;
    PrefsPropertyListRef v;

    set_app("own", S("own"), app);
    reg = sandbox_dict1s("registered", "default");
    PrefsRegisterDefaults(reg, app);
    EXPECT_CODE(0, "PrefsRegisterDefaults");
    PrefsRelease(reg);
    PrefsSetArguments(7, args);
    EXPECT_CODE(0, "PrefsSetArguments");

    d = PrefsCopyAppDictionary(app);
    CHECK(d != NULL);
    if (d != NULL) {
        PrefsPropertyListRef a = PrefsDictionaryGetValue(d, "fromArgs");
        CHECK(sandbox_is_string(PrefsDictionaryGetValue(d, "own"), "own"));
        CHECK(sandbox_is_string(PrefsDictionaryGetValue(d, "registered"), "default"));
        CHECKF(a != NULL && PrefsGetType(a) == kPrefsTypeArray && PrefsArrayGetCount(a) == 2, "fromArgs: %s",
               sandbox_describe(a));
        CHECK(sandbox_is_string(PrefsDictionaryGetValue(d, "name"), "plain text"));
        CHECK(PrefsDictionaryGetValue(d, "flag") == NULL); /* its value starts with '-' */
        CHECK(PrefsDictionaryGetValue(d, "x") == NULL);
        CHECK(PrefsDictionaryGetValue(d, "AppleLanguages") != NULL);
        CHECK(PrefsDictionaryGetValue(d, "AppleLocale") != NULL);
    }
    PrefsRelease(d);

    /* Registration is memory only and never beats a stored value. */
    reg = sandbox_dict1s("own", "registered own");
    PrefsRegisterDefaults(reg, app);
    PrefsRelease(reg);
    v = PrefsCopyAppValue("own", app);
    CHECK(sandbox_is_string(v, "own"));
    PrefsRelease(v);

    /* The argument domain and the registration domain by name. */
    reg = sandbox_dict1s("fromArgs", "replaced");
    PrefsSetVolatileDomain("NSArgumentDomain", reg);
    PrefsRelease(reg);
    v = PrefsCopyAppValue("fromArgs", app);
    CHECK(sandbox_is_string(v, "replaced"));
    PrefsRelease(v);
    v = PrefsCopyAppValue("name", app);
    CHECK(v == NULL);
    PrefsSetArguments(0, NULL);
    v = PrefsCopyAppValue("fromArgs", app);
    CHECK(v == NULL);

    /* A volatile domain with another name is kept but not searched. */
    reg = sandbox_dict1s("volatile", "yes");
    PrefsSetVolatileDomain("com.example.scratch", reg);
    PrefsRelease(reg);
    v = PrefsCopyAppValue("volatile", app);
    CHECK(v == NULL);
    PrefsRemoveVolatileDomain("com.example.scratch");
    EXPECT_CODE(0, "PrefsRemoveVolatileDomain");
    CHECK(PrefsAppSynchronize(app));
}

/* ------------------------------------------------------------------ */

static void write_text(const char *path, const char *text)
{
    CHECK(sandbox_write_file(path, text, strlen(text)) == 0);
}

#define PLIST_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
#define PLIST_TAIL "</plist>\n"

static void test_register_from_file(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.schema";
    char dir[700], root[800], child[800], grand[800], plain[800], broken[800];
    PrefsErrorRef err = NULL;
    PrefsPropertyListRef v;
    bool flag;

    sandbox_fmt(dir, sizeof dir, "%s/Settings.bundle", sb->root);
    sandbox_fmt(root, sizeof root, "%s/Root.plist", dir);
    sandbox_fmt(child, sizeof child, "%s/Child.plist", dir);
    sandbox_fmt(grand, sizeof grand, "%s/Grand.plist", dir);
    write_text(
        root, PLIST_HEAD
        "<dict><key>PreferenceSpecifiers</key><array>\n"
        "<dict><key>Type</key><string>PSGroupSpecifier</string><key>Title</key><string>General</string></"
        "dict>\n"
        "<dict><key>Type</key><string>PSToggleSwitchSpecifier</string><key>Key</key><string>sound</string>"
        "<key>DefaultValue</key><true/></dict>\n"
        "<dict><key>Type</key><string>PSTitleValueSpecifier</string><key>Key</key><string>dup</string>"
        "<key>DefaultValue</key><string>root</string></dict>\n"
        "<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>Title</key><string>More</string>"
        "<key>File</key><string>Child</string></dict>\n"
        "</array><key>StringsTable</key><string>Root</string></dict>\n" PLIST_TAIL);
    /* The child pane points back at the root (a cycle) and on to a
     * grandchild; each file is read once, so the root's "dup" does not
     * come back over the child's. */
    write_text(
        child, PLIST_HEAD
        "<dict><key>PreferenceSpecifiers</key><array>\n"
        "<dict><key>Type</key><string>PSMultiValueSpecifier</string><key>Key</key><string>volume</string>"
        "<key>DefaultValue</key><integer>7</integer></dict>\n"
        "<dict><key>Type</key><string>PSTitleValueSpecifier</string><key>Key</key><string>dup</string>"
        "<key>DefaultValue</key><string>child</string></dict>\n"
        "<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>File</key><string>Root</string></"
        "dict>\n"
        "<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>File</key><string>Grand</string></"
        "dict>\n"
        "</array></dict>\n" PLIST_TAIL);
    write_text(
        grand, PLIST_HEAD
        "<dict><key>PreferenceSpecifiers</key><array>\n"
        "<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>nickname</string>"
        "<key>DefaultValue</key><string>anon</string></dict>\n"
        "<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>File</key><string>Child</string></"
        "dict>\n"
        "</array></dict>\n" PLIST_TAIL);

    CHECK(PrefsRegisterDefaultsFromFile(root, app, &err));
    CHECK(err == NULL);
    EXPECT_CODE(0, "PrefsRegisterDefaultsFromFile");
    CHECK(PrefsGetAppBooleanValue("sound", app, &flag) && flag);
    CHECK(PrefsGetAppIntegerValue("volume", app, &flag) == 7 && flag);
    v = PrefsCopyAppValue("nickname", app);
    CHECK(sandbox_is_string(v, "anon"));
    PrefsRelease(v);
    v = PrefsCopyAppValue("dup", app);
    CHECKF(sandbox_is_string(v, "child"), "dup is %s: a file was read twice?", sandbox_describe(v));
    PrefsRelease(v);
    v = PrefsCopyAppValue("PreferenceSpecifiers", app);
    CHECK(v == NULL);

    /* A plain dictionary registers as it is. */
    sandbox_fmt(plain, sizeof plain, "%s/plain.plist", sb->root);
    write_text(plain, PLIST_HEAD "<dict><key>plainKey</key><integer>3</integer></dict>\n" PLIST_TAIL);
    CHECK(PrefsRegisterDefaultsFromFile(plain, app, NULL));
    CHECK(PrefsGetAppIntegerValue("plainKey", app, NULL) == 3);

    /* A missing child pane: false, an error, and nothing registered. */
    sandbox_fmt(broken, sizeof broken, "%s/Broken.plist", sb->root);
    write_text(
        broken, PLIST_HEAD
        "<dict><key>PreferenceSpecifiers</key><array>\n"
        "<dict><key>Key</key><string>brokenKey</string><key>DefaultValue</key><integer>1</integer></dict>\n"
        "<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>File</key><string>Missing</string></"
        "dict>\n"
        "</array></dict>\n" PLIST_TAIL);
    err = NULL;
    CHECK(!PrefsRegisterDefaultsFromFile(broken, app, &err));
    CHECK(err != NULL);
    if (err != NULL) {
        char *d = PrefsErrorCopyDescription(err);
        CHECKF(d != NULL && strstr(d, "Missing.plist") != NULL, "error: %s", d ? d : "(none)");
        PrefsFree(d);
    }
    PrefsRelease(err);
    CHECK(sandbox_last_code() != 0);
    v = PrefsCopyAppValue("brokenKey", app);
    CHECK(v == NULL);

    /* No such file; a file that does not parse. */
    sandbox_fmt(broken, sizeof broken, "%s/none.plist", sb->root);
    CHECK(!PrefsRegisterDefaultsFromFile(broken, app, NULL));
    sandbox_fmt(broken, sizeof broken, "%s/bad.plist", sb->root);
    write_text(broken, PLIST_HEAD "<dict><key>a</key></dict>\n" PLIST_TAIL);
    err = NULL;
    CHECK(!PrefsRegisterDefaultsFromFile(broken, app, &err));
    CHECK(err != NULL);
    PrefsRelease(err);
}

/* ------------------------------------------------------------------ */

/* A domain file that does not parse is never overwritten: reads see the
 * domain empty, synchronize reports kPrefsErrorCorruptFile, and a write
 * moves the file aside, byte-identical, before writing a new one. */
static void test_corrupt_file(void)
{
    struct sandbox *sb = sandbox();
    const char *app = "com.example.corrupt";
    const char garbage[] = PLIST_HEAD "<dict><key>lost</key><string>x</dict>\n" PLIST_TAIL;
    char path[700], listing[4000], aside[900];
    PrefsPropertyListRef v;
    PrefsErrorRef err;
    char *moved, *description = NULL;
    size_t n = 0;
    const char *name;

    sandbox_domain_path(path, sizeof path, app, 0, 0);
    CHECK(sandbox_write_file(path, garbage, strlen(garbage)) == 0);
    v = PrefsCopyAppValue("lost", app);
    CHECK(v == NULL);
    PrefsRelease(v);
    v = PrefsCopyKeyList(app, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(v != NULL && PrefsArrayGetCount(v) == 0);
    PrefsRelease(v);

    /* Nothing to write: the file stays, the problem is reported. */
    CHECK(PrefsAppSynchronize(app));
    CHECKF(sandbox_last_code() == kPrefsErrorCorruptFile, "last error %d", sandbox_last_code());
    moved = sandbox_read_file(path, &n);
    CHECK(moved != NULL && n == strlen(garbage) && memcmp(moved, garbage, n) == 0);
    free(moved);

    /* A write: true, and kPrefsErrorCorruptFile naming both files. */
    set_app("fresh", S("new"), app);
    CHECK(PrefsAppSynchronize(app));
    err = PrefsCopyLastError();
    CHECK(err != NULL && PrefsErrorGetCode(err) == kPrefsErrorCorruptFile);
    if (err != NULL)
        description = PrefsErrorCopyDescription(err);
    PrefsRelease(err);
    sandbox_list(sb->config, listing, sizeof listing);
    name = strstr(listing, "com.example.corrupt.plist.corrupt-");
    CHECKF(name != NULL, "no file moved aside in %s: %s", sb->config, listing);
    if (name != NULL) {
        size_t len = strcspn(name, " ");
        char file[300];
        sandbox_fmt(file, sizeof file, "%.*s", (int)len, name);
        sandbox_fmt(aside, sizeof aside, "%s/%s", sb->config, file);
        moved = sandbox_read_file(aside, &n);
        CHECKF(moved != NULL && n == strlen(garbage) && memcmp(moved, garbage, n) == 0,
               "%s is not the old file, byte for byte", aside);
        free(moved);
        CHECKF(description != NULL && strstr(description, file) != NULL && strstr(description, path) != NULL,
               "the error does not name both files: %s", description != NULL ? description : "(none)");
        CHECKF(sandbox_mode(aside) == 0600, "%s has mode %o", aside, sandbox_mode(aside));
    }
    PrefsFree(description);
    v = sandbox_read_plist(path);
    CHECKF(v != NULL && PrefsDictionaryGetCount(v) == 1 &&
               sandbox_is_string(PrefsDictionaryGetValue(v, "fresh"), "new"),
           "the new file holds %s", sandbox_describe(v));
    PrefsRelease(v);
    CHECK(PrefsAppSynchronize(app));
    EXPECT_CODE(0, "synchronize after the file was replaced");
}

/* ------------------------------------------------------------------ */

/* Every Preferences function refuses a bad application ID with
 * kPrefsErrorInvalidApplicationID and touches nothing on disk. */
static void test_refused_application_ids(void)
{
    struct sandbox *sb = sandbox();
    char long_id[257];
    const char *ids[] = {"", long_id, "a/b", "/etc/passwd", ".", ".."};
    char dirs[6][700], before[6][4000], after[6][4000], path[700];
    size_t i;
    PrefsStringRef value = S("v");
    PrefsDictionaryRef dict = sandbox_dict1s("k", "v");

    memset(long_id, 'a', 256);
    long_id[256] = '\0';
    /* Everything this program wrote so far is on disk. */
    CHECK(PrefsAppSynchronize(APP));
    sandbox_fmt(dirs[0], sizeof dirs[0], "%s", sb->root);
    sandbox_fmt(dirs[1], sizeof dirs[1], "%s", sb->config);
    sandbox_fmt(dirs[2], sizeof dirs[2], "%s/ByHost", sb->config);
    sandbox_fmt(dirs[3], sizeof dirs[3], "%s", sb->system);
    sandbox_fmt(dirs[4], sizeof dirs[4], "%s/ByHost", sb->system);
    sandbox_fmt(dirs[5], sizeof dirs[5], "%s", sb->managed);
    for (i = 0; i < 6; i++)
        sandbox_list(dirs[i], before[i], sizeof before[i]);

    for (i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const char *id = ids[i];
        char what[400];
        PrefsPropertyListRef v;
        PrefsErrorRef err = NULL;
        bool flag = true;
        snprintf(what, sizeof what, "application ID \"%.40s\"%s", id, strlen(id) > 40 ? "..." : "");

        v = PrefsCopyAppValue("k", id);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsSetAppValue("k", value, id);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        CHECK(!PrefsAppSynchronize(id));
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        CHECK(!PrefsGetAppBooleanValue("k", id, &flag) && !flag);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        flag = true;
        CHECK(PrefsGetAppIntegerValue("k", id, &flag) == 0 && !flag);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsAddSuitePreferencesToApp(id, APP);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsAddSuitePreferencesToApp(APP, id);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsRemoveSuitePreferencesFromApp(id, APP);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        CHECK(!PrefsAppValueIsForced("k", id));
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        v = PrefsCopyValue("k", id, kPrefsCurrentUser, kPrefsAnyHost);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsSetValue("k", value, id, kPrefsAnyUser, kPrefsCurrentHost);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        v = PrefsCopyMultiple(NULL, id, kPrefsCurrentUser, kPrefsAnyHost);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsSetMultiple(dict, NULL, id, kPrefsCurrentUser, kPrefsAnyHost);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        CHECK(!PrefsSynchronize(id, kPrefsCurrentUser, kPrefsCurrentHost));
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        v = PrefsCopyKeyList(id, kPrefsCurrentUser, kPrefsAnyHost);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        v = PrefsCopyAppDictionary(id);
        CHECK(v == NULL);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        PrefsRegisterDefaults(dict, id);
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        sandbox_fmt(path, sizeof path, "%s/plain.plist", sb->root);
        CHECK(!PrefsRegisterDefaultsFromFile(path, id, &err));
        EXPECT_CODE(kPrefsErrorInvalidApplicationID, what);
        CHECK(err != NULL && PrefsErrorGetCode(err) == kPrefsErrorInvalidApplicationID);
        PrefsRelease(err);
    }
    /* A valid call clears the last error. */
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("k", APP);
        PrefsRelease(v);
        EXPECT_CODE(0, "a valid call after refusals");
    }
    CHECK(PrefsAppSynchronize(APP));
    for (i = 0; i < 6; i++) {
        sandbox_list(dirs[i], after[i], sizeof after[i]);
        CHECKF(strcmp(before[i], after[i]) == 0, "files changed in %s:\n    before: %s\n    after:  %s",
               dirs[i], before[i], after[i]);
    }
    PrefsRelease(value);
    PrefsRelease(dict);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0] != NULL) {
        const char *slash = strrchr(argv[0], '/');
        program_name = slash != NULL ? slash + 1 : argv[0];
    }
    if (sandbox_init("preferences") != 0)
        return CHECK_FINISH();

    test_app_values();
    test_application_names();
    test_one_domain();
    test_multiple();
    test_key_and_application_lists();
    test_forced();
    test_typed_getters();
    test_suites();
    test_app_dictionary();
    test_register_from_file();
    test_corrupt_file();
    test_refused_application_ids();

    sandbox_remove();
    return CHECK_FINISH();
}
