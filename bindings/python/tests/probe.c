/*
 * probe.c: the C side of the Python package's tests, built against the
 * installed library with pkg-config. It reads what Python stored and
 * stores what Python reads, through the C API only.
 *
 *   probe get <app> <key> [<user> <host>]   the value of one stored domain,
 *                                           as an XML property list on
 *                                           stdout (binary when
 *                                           PROBE_FORMAT=binary); exit 1
 *                                           when absent
 *   probe app <app> <key>                   the same along the search list
 *   probe type <app> <key>                  the value's PrefsType name
 *   probe set <app> <key>                   sets the property list read from
 *                                           stdin, then synchronizes
 *   probe count <app> <prefix> <n>          sets <prefix>0 ... <prefix><n-1>
 *                                           to 0 ... n-1, synchronizing
 *                                           after each
 */
#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what)
{
    PrefsErrorRef error = PrefsCopyLastError();
    char *text = error != NULL ? PrefsErrorCopyDescription(error) : NULL;
    fprintf(stderr, "probe: %s: %s\n", what, text != NULL ? text : "no error recorded");
    PrefsFree(text);
    PrefsRelease(error);
    return 2;
}

static int emit(PrefsPropertyListRef value)
{
    if (value == NULL) {
        printf("absent\n");
        return 1;
    }
    PrefsErrorRef error = NULL;
    const char *format = getenv("PROBE_FORMAT");
    PrefsDataRef data = PrefsPropertyListCreateData(value,
                                                    format != NULL && strcmp(format, "binary") == 0
                                                        ? kPrefsPropertyListBinaryFormat_v1_0
                                                        : kPrefsPropertyListXMLFormat_v1_0,
                                                    &error);
    PrefsRelease(value);
    if (data == NULL) {
        PrefsRelease(error);
        return fail("writing the value");
    }
    size_t n = PrefsDataGetLength(data);
    int ok = fwrite(PrefsDataGetBytePtr(data), 1, n, stdout) == n && fflush(stdout) == 0;
    PrefsRelease(data);
    return ok ? 0 : 2;
}

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

static int set_from_stdin(const char *app, const char *key)
{
    static char buffer[1 << 20];
    size_t n = fread(buffer, 1, sizeof buffer, stdin);
    PrefsErrorRef error = NULL;
    PrefsPropertyListRef value = PrefsPropertyListCreateWithData(buffer, n, &error);
    if (value == NULL) {
        PrefsRelease(error);
        fprintf(stderr, "probe: stdin is not a property list\n");
        return 2;
    }
    PrefsSetValue(key, value, app, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsRelease(value);
    PrefsErrorRef refused = PrefsCopyLastError();
    if (refused != NULL) {
        PrefsRelease(refused);
        return fail("set");
    }
    return PrefsSynchronize(app, kPrefsCurrentUser, kPrefsAnyHost) ? 0 : fail("synchronize");
}

static int count(const char *app, const char *prefix, long n)
{
    char key[256];
    for (long i = 0; i < n; i++) {
        snprintf(key, sizeof key, "%s%ld", prefix, i);
        PrefsNumberRef v = PrefsNumberCreateInt64(i);
        PrefsSetAppValue(key, v, app);
        PrefsRelease(v);
        if (!PrefsAppSynchronize(app))
            return fail("synchronize");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "get") == 0)
        return emit(PrefsCopyValue(argv[3], argv[2], kPrefsCurrentUser, kPrefsAnyHost));
    if (argc == 6 && strcmp(argv[1], "get") == 0)
        return emit(PrefsCopyValue(argv[3], argv[2], argv[4], argv[5]));
    if (argc == 4 && strcmp(argv[1], "app") == 0)
        return emit(PrefsCopyAppValue(argv[3], argv[2]));
    if (argc == 4 && strcmp(argv[1], "type") == 0) {
        PrefsPropertyListRef value = PrefsCopyAppValue(argv[3], argv[2]);
        if (value == NULL) {
            printf("absent\n");
            return 1;
        }
        printf("%s\n", type_name(PrefsGetType(value)));
        PrefsRelease(value);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "set") == 0)
        return set_from_stdin(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "count") == 0)
        return count(argv[2], argv[3], strtol(argv[4], NULL, 10));
    fprintf(stderr, "usage: probe get|app|type|set|count ...\n");
    return 2;
}
