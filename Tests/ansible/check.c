/*
 * check.c <domain> — after Tests/ansible/playbook.yml: every value its
 * osx_defaults tasks set is there, through the C API, with its type, and
 * the deleted key is absent. Prints one line per failure; exit 0 when all
 * hold.
 */
#include <prefs/Prefs.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void fail(const char *key, const char *why)
{
    printf("FAIL  %s: %s\n", key, why);
    failures++;
}

static PrefsPropertyListRef get(const char *key, const char *app, PrefsType type)
{
    PrefsPropertyListRef v = PrefsCopyAppValue(key, app);
    if (v == NULL) {
        fail(key, "absent");
        return NULL;
    }
    if (PrefsGetType(v) != type) {
        fail(key, "wrong type");
        PrefsRelease(v);
        return NULL;
    }
    return v;
}

static int array_string_is(PrefsArrayRef a, size_t i, const char *want)
{
    PrefsPropertyListRef item = PrefsArrayGetValueAtIndex(a, i);
    return item != NULL && PrefsGetType(item) == kPrefsTypeString &&
           strcmp(PrefsStringGetCString((PrefsStringRef)item), want) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <domain>\n", argv[0]);
        return 2;
    }
    const char *app = argv[1];
    PrefsPropertyListRef v;
    int64_t i;
    double d;

    if ((v = get("Count", app, kPrefsTypeInteger)) != NULL) {
        if (!PrefsNumberGetInt64((PrefsNumberRef)v, &i) || i != 42)
            fail("Count", "not the integer 42");
        PrefsRelease(v);
    }
    if ((v = get("Title", app, kPrefsTypeString)) != NULL) {
        if (strcmp(PrefsStringGetCString((PrefsStringRef)v), "Fleet \"managed\" editor") != 0)
            fail("Title", PrefsStringGetCString((PrefsStringRef)v));
        PrefsRelease(v);
    }
    if ((v = get("Enabled", app, kPrefsTypeBoolean)) != NULL) {
        if (!PrefsBooleanGetValue((PrefsBooleanRef)v))
            fail("Enabled", "false");
        PrefsRelease(v);
    }
    if ((v = get("Servers", app, kPrefsTypeArray)) != NULL) {
        PrefsArrayRef a = (PrefsArrayRef)v;
        if (PrefsArrayGetCount(a) != 3 || !array_string_is(a, 0, "alpha.example.org") ||
            !array_string_is(a, 1, "beta gamma") || !array_string_is(a, 2, "quote\"d"))
            fail("Servers", "not (alpha.example.org, \"beta gamma\", \"quote\\\"d\")");
        PrefsRelease(v);
    }
    if ((v = get("Since", app, kPrefsTypeDate)) != NULL) {
        /* 2026-03-04 05:06:07 local time; the run uses TZ=UTC. */
        if (PrefsDateGetUnixTime((PrefsDateRef)v) != 1772600767.0)
            fail("Since", "not 2026-03-04 05:06:07 UTC");
        PrefsRelease(v);
    }
    if ((v = get("Ratio", app, kPrefsTypeReal)) != NULL) {
        if (!PrefsNumberGetDouble((PrefsNumberRef)v, &d) || d != 2.75)
            fail("Ratio", "not the real 2.75");
        PrefsRelease(v);
    }
    v = PrefsCopyAppValue("Obsolete", app);
    if (v != NULL) {
        fail("Obsolete", "still there");
        PrefsRelease(v);
    }
    if (failures == 0)
        printf("check: Count, Title, Enabled, Servers, Since, Ratio there with their types; Obsolete gone\n");
    return failures == 0 ? 0 : 1;
}
