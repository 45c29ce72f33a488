/*
 * capi.c: the C side of the prefs command tests. Built against the
 * installed library, it reads what `prefs write` stored and stores values
 * for `prefs read` to find.
 *
 *   capi get <app> <key> [current-host]   prints "<type> <description>"; exit 1 when absent
 *   capi app <app> <key>                  the same along the app's search list
 *                                         (PrefsCopyAppValue), then " (forced)"
 *                                         when a managed value decides it
 *   capi put <app>                        stores one value of each type and synchronizes
 */
#include <prefs/Prefs.h>

#include <stdio.h>
#include <string.h>

static const char *type_name(PrefsType type)
{
    switch (type) {
    case kPrefsTypeString:
        return "string";
    case kPrefsTypeInteger:
        return "integer";
    case kPrefsTypeReal:
        return "real";
    case kPrefsTypeBoolean:
        return "boolean";
    case kPrefsTypeDate:
        return "date";
    case kPrefsTypeData:
        return "data";
    case kPrefsTypeArray:
        return "array";
    case kPrefsTypeDictionary:
        return "dictionary";
    default:
        return "other";
    }
}

static int get(const char *app, const char *key, int currentHost)
{
    PrefsPropertyListRef value =
        PrefsCopyValue(key, app, kPrefsCurrentUser, currentHost ? kPrefsCurrentHost : kPrefsAnyHost);
    if (value == NULL) {
        printf("absent\n");
        return 1;
    }
    char *text = PrefsCopyDescription(value);
    printf("%s %s\n", type_name(PrefsGetType(value)), text != NULL ? text : "(no description)");
    PrefsFree(text);
    PrefsRelease(value);
    return 0;
}

static int get_app(const char *app, const char *key)
{
    PrefsPropertyListRef value = PrefsCopyAppValue(key, app);
    if (value == NULL) {
        printf("absent\n");
        return 1;
    }
    char *text = PrefsCopyDescription(value);
    printf("%s %s%s\n", type_name(PrefsGetType(value)), text != NULL ? text : "(no description)",
           PrefsAppValueIsForced(key, app) ? " (forced)" : "");
    PrefsFree(text);
    PrefsRelease(value);
    return 0;
}

static void set(const char *app, const char *key, PrefsPropertyListRef value)
{
    PrefsSetValue(key, value, app, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsRelease(value);
}

static int put(const char *app)
{
    static const unsigned char bytes[] = {0xde, 0xad, 0xbe, 0xef};
    set(app, "cstring", PrefsStringCreate("from C, with spaces"));
    set(app, "cint", PrefsNumberCreateInt64(-42));
    set(app, "creal", PrefsNumberCreateDouble(0.25));
    set(app, "cbool", PrefsBooleanCreate(true));
    set(app, "cdate", PrefsDateCreate(1767322800.0)); /* 2026-01-02T03:00:00Z */
    set(app, "cdata", PrefsDataCreate(bytes, sizeof bytes));

    PrefsStringRef x = PrefsStringCreate("x");
    PrefsNumberRef seven = PrefsNumberCreateInt64(7);
    PrefsPropertyListRef items[] = {x, seven};
    set(app, "carray", PrefsArrayCreate(items, 2));

    const char *keys[] = {"k"};
    PrefsPropertyListRef values[] = {x};
    set(app, "cdict", PrefsDictionaryCreate(keys, values, 1));
    PrefsRelease(x);
    PrefsRelease(seven);

    if (!PrefsSynchronize(app, kPrefsCurrentUser, kPrefsAnyHost)) {
        fprintf(stderr, "capi: synchronize failed\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "get") == 0)
        return get(argv[2], argv[3], argc >= 5 && strcmp(argv[4], "current-host") == 0);
    if (argc == 4 && strcmp(argv[1], "app") == 0)
        return get_app(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "put") == 0)
        return put(argv[2]);
    fprintf(stderr, "usage: capi get <app> <key> [current-host] | capi put <app>\n");
    return 2;
}
