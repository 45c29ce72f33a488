/*
 * test_hostile_values.c — values and arguments built to crash a program
 * through the library, or to make it lose data silently:
 *
 *   - a decimal string of 39-40 digits read by the typed getters, from the
 *     command line and from a domain file;
 *   - containers that share sub-values, so that a value of a few hundred
 *     bytes stands for gigabytes of XML;
 *   - text longer than the reader takes, set into a domain;
 *   - keys, application IDs, names and arguments that are not UTF-8;
 *   - ".GlobalPreferences" as an application ID.
 *
 * Each piece runs in a child process (RUN_ISOLATED), so a crash is one
 * failed check.
 */
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox.h"
#include "support.h"

#define APP "com.example.hostile"

/* 40 nines: beyond 2^127, where the getters' accumulator used to trap. */
#define FORTY_NINES "9999999999999999999999999999999999999999"

static void run_huge_decimal_strings(void)
{
    const char *argv[] = {"prog", "-Size", FORTY_NINES, "-Flag", "170141183460469231731687303715884105728"};
    bool valid = true;
    char path[600];
    PrefsStringRef s;
    PrefsDictionaryRef d;
    const char *key = "Stored";

    PrefsSetArguments(5, argv);
    CHECK(PrefsGetAppIntegerValue("Size", APP, &valid) == 0);
    CHECK(!valid);
    valid = true;
    CHECK(!PrefsGetAppBooleanValue("Size", APP, &valid));
    CHECK(!valid);
    valid = true;
    CHECK(!PrefsGetAppBooleanValue("Flag", APP, &valid));
    CHECK(!valid);

    /* The same string in a domain file. */
    s = PrefsStringCreate(FORTY_NINES);
    d = PrefsDictionaryCreate(&key, (const PrefsPropertyListRef *)&s, 1);
    sandbox_domain_path(path, sizeof path, APP, 0, 0);
    CHECK(sandbox_write_plist(path, d) == 0);
    valid = true;
    CHECK(PrefsGetAppIntegerValue("Stored", APP, &valid) == 0);
    CHECK(!valid);
    CHECK(!PrefsGetAppBooleanValue("Stored", APP, &valid));
    CHECK(!valid);
    PrefsRelease(d);
    PrefsRelease(s);
}

/* 28 levels of an array holding the level below twice: 2^28 elements
 * written out. Each level is either built or refused as unrepresentable;
 * what is built is written within the documented size or refused, and
 * neither a set nor a synchronize nor a description exhausts memory. */
static void run_shared_sub_values(void)
{
    PrefsPropertyListRef level = PrefsBooleanCreate(true);
    int built = 0, i;

    for (i = 0; i < 28; i++) {
        PrefsPropertyListRef pair[2] = {level, level};
        PrefsArrayRef next = PrefsArrayCreate(pair, 2);
        if (next == NULL) {
            CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, "PrefsArrayCreate of a value too large to write");
            break;
        }
        PrefsRelease(level);
        level = next;
        built++;
    }
    CHECKF(built < 28, "all 28 levels were built");

    {
        PrefsErrorRef err = NULL;
        PrefsDataRef xml = PrefsPropertyListCreateXMLData(level, &err);
        if (xml != NULL)
            CHECK(PrefsDataGetLength(xml) <= (size_t)PREFS_MAX_DOCUMENT_SIZE);
        else
            CHECK_ERROR(err, kPrefsErrorUnrepresentable, NULL,
                        "PrefsPropertyListCreateXMLData of the largest level");
        PrefsRelease(xml);
        PrefsRelease(err);
    }
    {
        char *text = PrefsCopyDescription(level);
        if (text == NULL)
            CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, "PrefsCopyDescription of the largest level");
        else
            CHECK(strlen(text) <= (size_t)PREFS_MAX_DOCUMENT_SIZE);
        PrefsFree(text);
    }
    PrefsSetAppValue("Shared", level, APP);
    CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, "PrefsSetAppValue of the largest level");
    CHECK(PrefsCopyAppValue("Shared", APP) == NULL);
    CHECK(PrefsAppSynchronize(APP));
    PrefsRelease(level);
}

/* A string the reader would refuse (over 10,000,000 bytes of text) is
 * refused at set: a synchronize never writes a domain no one can read. */
static void run_text_over_the_reader_limit(void)
{
    size_t n = (size_t)PREFS_MAX_TEXT_LENGTH + 1;
    char *big = malloc(n);
    PrefsStringRef s;
    PrefsPropertyListRef v;

    if (!CHECK(big != NULL))
        return;
    memset(big, 'a', n);
    s = PrefsStringCreateWithBytes(big, n);
    PrefsSetAppValue("Big", s, APP);
    CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, "PrefsSetAppValue of a string over 10,000,000 bytes");
    CHECK(PrefsAppSynchronize(APP));
    PrefsRelease(s);
    s = PrefsStringCreateWithBytes(big, n - 1);
    PrefsSetAppValue("Big", s, APP);
    CHECK_NO_LAST_ERROR("PrefsSetAppValue of a string of 10,000,000 bytes");
    CHECK(PrefsAppSynchronize(APP));
    PrefsRelease(s);
    v = PrefsCopyValue("Big", APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(v != NULL && PrefsStringGetLength(v) == n - 1);
    PrefsRelease(v);
    free(big);
}

static void expect_invalid_argument(const char *what)
{
    support_check_last_error(kPrefsErrorInvalidArgument, __FILE__, __LINE__, what);
}

/* Bytes that are not UTF-8 are refused wherever a C string goes, never
 * replaced by U+FFFD (which would make "k\xff" and "k\xfe" one key). */
static void run_invalid_utf8(void)
{
    PrefsNumberRef one = PrefsNumberCreateInt64(1);
    const char *keys[] = {"ok"};
    PrefsDictionaryRef d = PrefsDictionaryCreate(keys, (const PrefsPropertyListRef *)&one, 1);
    const char *bad_argv[] = {"prog", "-Arg", "x\xc3"};
    bool valid = true;

    PrefsSetAppValue("k\xff", one, APP);
    expect_invalid_argument("PrefsSetAppValue with key k\\xff");
    PrefsSetAppValue("k\xfe", one, APP);
    expect_invalid_argument("PrefsSetAppValue with key k\\xfe");
    CHECK(PrefsCopyAppValue("k\xef\xbf\xbd", APP) == NULL); /* nothing stored as k U+FFFD */
    CHECK(PrefsCopyAppValue("k\xff", APP) == NULL);
    expect_invalid_argument("PrefsCopyAppValue with key k\\xff");
    CHECK(PrefsGetAppIntegerValue("k\xff", APP, &valid) == 0 && !valid);

    PrefsSetAppValue("key", one, "com.example.\xc0\xaf");
    expect_invalid_argument("PrefsSetAppValue with an overlong '/' in the application ID");
    CHECK(PrefsCopyAppValue("key", "com.example.\xed\xa0\x80") == NULL);
    expect_invalid_argument("PrefsCopyAppValue with a surrogate in the application ID");
    CHECK(!PrefsAppSynchronize("com.example.\xff"));
    expect_invalid_argument("PrefsAppSynchronize with \\xff in the application ID");

    PrefsSetValue("k\x80", one, APP, kPrefsCurrentUser, kPrefsAnyHost);
    expect_invalid_argument("PrefsSetValue with key k\\x80");
    CHECK(PrefsCopyValue("key", APP, "user\xff", kPrefsAnyHost) == NULL);
    expect_invalid_argument("PrefsCopyValue with \\xff in the user name");
    CHECK(PrefsCopyValue("key", APP, kPrefsCurrentUser, "host\xff") == NULL);
    expect_invalid_argument("PrefsCopyValue with \\xff in the host name");
    CHECK(!PrefsAppValueIsForced("k\xff", APP));
    expect_invalid_argument("PrefsAppValueIsForced with key k\\xff");
    CHECK(PrefsAddObserver(APP, "k\xff", NULL, NULL) == NULL);
    CHECK(PrefsDictionaryGetValue(d, "ok\xff") == NULL);
    expect_invalid_argument("PrefsDictionaryGetValue with key ok\\xff");

    PrefsSetArguments(3, bad_argv);
    expect_invalid_argument("PrefsSetArguments with an argument that is not UTF-8");
    CHECK(PrefsCopyAppValue("Arg", APP) == NULL);
    PrefsSetVolatileDomain("fr\xff", d);
    expect_invalid_argument("PrefsSetVolatileDomain with \\xff in the name");

    CHECK(PrefsAppSynchronize(APP));
    {
        /* No key holding U+FFFD reached the file. */
        PrefsArrayRef list = PrefsCopyKeyList(APP, kPrefsCurrentUser, kPrefsAnyHost);
        size_t i, n = list != NULL ? PrefsArrayGetCount(list) : 0;
        CHECK(list != NULL);
        for (i = 0; i < n; i++) {
            const char *k = PrefsStringGetCString(PrefsArrayGetValueAtIndex(list, i));
            CHECKF(strstr(k, "\xef\xbf\xbd") == NULL, "key %s was stored", k);
        }
        PrefsRelease(list);
    }
    PrefsRelease(d);
    PrefsRelease(one);
}

/* ".GlobalPreferences", the global domain's file name, is the global
 * domain itself, never a second application over the same file. */
static void run_global_preferences_id(void)
{
    PrefsStringRef s = PrefsStringCreate("shared");
    PrefsPropertyListRef v;
    char path[600];

    PrefsSetAppValue("G", s, ".GlobalPreferences");
    CHECK_NO_LAST_ERROR("PrefsSetAppValue for .GlobalPreferences");
    v = PrefsCopyAppValue("G", "NSGlobalDomain");
    CHECK(v != NULL && PrefsEqual(v, s));
    PrefsRelease(v);
    v = PrefsCopyAppValue("G", APP);
    CHECK(v != NULL && PrefsEqual(v, s));
    PrefsRelease(v);
    CHECK(PrefsAppSynchronize(".GlobalPreferences"));
    sandbox_domain_path(path, sizeof path, "NSGlobalDomain", 0, 0);
    {
        size_t n = 0;
        char *bytes = sandbox_read_file(path, &n);
        CHECK(bytes != NULL && strstr(bytes, "<key>G</key>") != NULL);
        free(bytes);
    }
    /* Registered for the global domain is registered for every app. */
    {
        const char *key = "R";
        PrefsDictionaryRef d = PrefsDictionaryCreate(&key, (const PrefsPropertyListRef *)&s, 1);
        PrefsRegisterDefaults(d, ".GlobalPreferences");
        v = PrefsCopyAppValue("R", APP);
        CHECK(v != NULL && PrefsEqual(v, s));
        PrefsRelease(v);
        PrefsRelease(d);
    }
    PrefsRelease(s);
}

int main(void)
{
    if (sandbox_init("hostile-values") != 0)
        return CHECK_FINISH();
    RUN_ISOLATED(run_huge_decimal_strings, 60);
    RUN_ISOLATED(run_shared_sub_values, 120);
    RUN_ISOLATED(run_text_over_the_reader_limit, 120);
    RUN_ISOLATED(run_invalid_utf8, 60);
    RUN_ISOLATED(run_global_preferences_id, 60);
    sandbox_remove();
    return CHECK_FINISH();
}
