/*
 * test_values.c — every value function of <prefs/Prefs.h>: creating,
 * reading, typing, comparing and describing strings, numbers, booleans,
 * dates, data, UIDs, arrays and dictionaries.
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"

/* ------------------------------------------------------------------ */

static void test_version(void)
{
    int major = 0, minor = 0, patch = 0;

    CHECK(PrefsGetVersionNumber() == PREFS_VERSION_NUMBER);
    CHECK(sscanf(PREFS_VERSION_STRING, "%d.%d.%d", &major, &minor, &patch) == 3);
    CHECK(major * 10000 + minor * 100 + patch == PREFS_VERSION_NUMBER);
}

/* ------------------------------------------------------------------ */

static void test_strings(void)
{
    static const char *const invalid[] = {
        "\xff",                 /* never valid */
        "\xc3",                 /* truncated two-byte sequence */
        "\xc0\xaf",             /* overlong '/' */
        "\xe0\x80\xaf",         /* overlong, three bytes */
        "\xed\xa0\x80",         /* UTF-16 surrogate U+D800 */
        "\xf4\x90\x80\x80",     /* above U+10FFFF */
        "\xf8\x88\x80\x80\x80", /* five-byte form */
        ("abc\x80"
         "def"),               /* stray continuation byte */
        "caf\xc3\xa9\xe2\x82", /* valid, then a truncated euro sign */
    };
    static const char *const valid[] = {
        "",
        "plain ascii",
        "caf\xc3\xa9",      /* é */
        "\xe2\x82\xac",     /* € */
        "\xf0\x9f\x98\x80", /* U+1F600 */
        "\xf4\x8f\xbf\xbf", /* U+10FFFF */
        "\xef\xbf\xbf",     /* U+FFFF: a noncharacter, still valid UTF-8 */
        "tab\tnewline\ncr\r",
    };
    size_t i;

    for (i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        PrefsStringRef s = PrefsStringCreate(valid[i]);
        CHECKF(s != NULL, "valid UTF-8 #%zu refused", i);
        if (s == NULL)
            continue;
        CHECK_NO_LAST_ERROR("PrefsStringCreate(valid)");
        CHECK(PrefsGetType(s) == kPrefsTypeString);
        CHECK(PrefsStringGetLength(s) == strlen(valid[i]));
        CHECK(PrefsStringGetCString(s) != NULL);
        CHECKF(strcmp(PrefsStringGetCString(s), valid[i]) == 0, "string #%zu reads back differently", i);
        PrefsRelease(s);

        s = PrefsStringCreateWithBytes(valid[i], strlen(valid[i]));
        CHECKF(s != NULL && PrefsStringGetLength(s) == strlen(valid[i]) &&
                   memcmp(PrefsStringGetCString(s), valid[i], strlen(valid[i]) + 1) == 0,
               "PrefsStringCreateWithBytes(valid #%zu)", i);
        PrefsRelease(s);
    }

    for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        PrefsStringRef s = PrefsStringCreate(invalid[i]);
        CHECKF(s == NULL, "invalid UTF-8 #%zu accepted by PrefsStringCreate", i);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsStringCreate(invalid UTF-8)");
        PrefsRelease(s);

        s = PrefsStringCreateWithBytes(invalid[i], strlen(invalid[i]));
        CHECKF(s == NULL, "invalid UTF-8 #%zu accepted by PrefsStringCreateWithBytes", i);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsStringCreateWithBytes(invalid UTF-8)");
        PrefsRelease(s);
    }

    /* Embedded NUL: the full length is kept, the C string reads short. */
    {
        static const char bytes[] = {'a', '\0', 'b', 'c'};
        PrefsStringRef s = PrefsStringCreateWithBytes(bytes, sizeof bytes);
        CHECK(s != NULL);
        if (s != NULL) {
            const char *c = PrefsStringGetCString(s);
            CHECK(PrefsStringGetLength(s) == 4);
            CHECK(c != NULL && strlen(c) == 1);
            CHECK(c != NULL && memcmp(c, "a\0bc", 5) == 0); /* bytes plus the terminating NUL */
        }
        PrefsRelease(s);
    }
    /* Validation covers the bytes after an embedded NUL too. */
    {
        static const char bytes[] = {'a', '\0', '\xff'};
        PrefsStringRef s = PrefsStringCreateWithBytes(bytes, sizeof bytes);
        CHECK(s == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "invalid UTF-8 after an embedded NUL");
        PrefsRelease(s);
    }
    /* Only `length` bytes are read. */
    {
        PrefsStringRef s = PrefsStringCreateWithBytes("hello\xff", 5);
        CHECK(s != NULL && PrefsStringGetLength(s) == 5 && strcmp(PrefsStringGetCString(s), "hello") == 0);
        PrefsRelease(s);
    }
    /* NULL bytes with length 0 is the empty string. */
    {
        PrefsStringRef s = PrefsStringCreateWithBytes(NULL, 0);
        CHECK(s != NULL);
        CHECK(s != NULL && PrefsStringGetLength(s) == 0 && PrefsStringGetCString(s) != NULL &&
              PrefsStringGetCString(s)[0] == '\0');
        PrefsRelease(s);
    }
    /* The string holds a copy of its bytes. */
    {
        char buffer[] = "mutable";
        PrefsStringRef s = PrefsStringCreate(buffer);
        buffer[0] = 'M';
        CHECK(s != NULL && strcmp(PrefsStringGetCString(s), "mutable") == 0);
        PrefsRelease(s);
    }
    /* A long string. */
    {
        size_t n = 1u << 20;
        char *big = malloc(n + 1);
        PrefsStringRef s;
        CHECK(big != NULL);
        if (big == NULL)
            return;
        for (i = 0; i < n; i++)
            big[i] = (char)('a' + (int)(i % 26));
        big[n] = '\0';
        s = PrefsStringCreate(big);
        CHECK(s != NULL && PrefsStringGetLength(s) == n && strcmp(PrefsStringGetCString(s), big) == 0);
        PrefsRelease(s);
        free(big);
    }
}

/* ------------------------------------------------------------------ */

#define SENTINEL_I64 ((int64_t)0x5A5A5A5A5A5A5A5A)
#define SENTINEL_U64 ((uint64_t)0xA5A5A5A5A5A5A5A5u)
#define SENTINEL_DBL (-12345.25)

/* Expected outcome of the three Get functions on one number. */
struct conversion {
    const char *label;
    PrefsNumberRef number;
    int i64_ok;
    int64_t i64;
    int u64_ok;
    uint64_t u64;
    int dbl_ok;
    double dbl;
};

static void check_conversion(const struct conversion *c)
{
    int64_t i = SENTINEL_I64;
    uint64_t u = SENTINEL_U64;
    double d = SENTINEL_DBL;
    bool got;

    CHECKF(c->number != NULL, "%s: created", c->label);
    if (c->number == NULL)
        return;

    got = PrefsNumberGetInt64(c->number, &i);
    CHECKF(got == (c->i64_ok != 0), "%s: PrefsNumberGetInt64 returned %d", c->label, (int)got);
    if (c->i64_ok)
        CHECKF(i == c->i64, "%s: int64 value %lld", c->label, (long long)i);
    else
        CHECKF(i == SENTINEL_I64, "%s: *out changed on failure", c->label);

    got = PrefsNumberGetUInt64(c->number, &u);
    CHECKF(got == (c->u64_ok != 0), "%s: PrefsNumberGetUInt64 returned %d", c->label, (int)got);
    if (c->u64_ok)
        CHECKF(u == c->u64, "%s: uint64 value %llu", c->label, (unsigned long long)u);
    else
        CHECKF(u == SENTINEL_U64, "%s: *out changed on failure", c->label);

    got = PrefsNumberGetDouble(c->number, &d);
    CHECKF(got == (c->dbl_ok != 0), "%s: PrefsNumberGetDouble returned %d", c->label, (int)got);
    if (c->dbl_ok) {
        if (isnan(c->dbl))
            CHECKF(isnan(d), "%s: double value %.17g", c->label, d);
        else
            CHECKF(d == c->dbl && signbit(d) == signbit(c->dbl), "%s: double value %.17g", c->label, d);
    } else {
        CHECKF(d == SENTINEL_DBL, "%s: *out changed on failure", c->label);
    }
}

static void test_numbers(void)
{
    const double two53 = 9007199254740992.0;    /* 2^53 */
    const double two63 = 9223372036854775808.0; /* 2^63 */
    const double two64 = 18446744073709551616.0;
    struct conversion cases[] = {
        /* label, number, int64?, value, uint64?, value, double?, value */
        {"int 0", PrefsNumberCreateInt64(0), 1, 0, 1, 0, 1, 0.0},
        {"int -1", PrefsNumberCreateInt64(-1), 1, -1, 0, 0, 1, -1.0},
        {"int 3", PrefsNumberCreateInt64(3), 1, 3, 1, 3, 1, 3.0},
        {"INT64_MAX", PrefsNumberCreateInt64(INT64_MAX), 1, INT64_MAX, 1, (uint64_t)INT64_MAX, 0, 0},
        {"INT64_MIN", PrefsNumberCreateInt64(INT64_MIN), 1, INT64_MIN, 0, 0, 1, -two63},
        {"UINT64_MAX", PrefsNumberCreateUInt64(UINT64_MAX), 0, 0, 1, UINT64_MAX, 0, 0},
        {"uint 2^63", PrefsNumberCreateUInt64(UINT64_C(9223372036854775808)), 0, 0, 1,
         UINT64_C(9223372036854775808), 1, two63},
        {"uint INT64_MAX", PrefsNumberCreateUInt64((uint64_t)INT64_MAX), 1, INT64_MAX, 1, (uint64_t)INT64_MAX,
         0, 0},
        {"uint 7", PrefsNumberCreateUInt64(7), 1, 7, 1, 7, 1, 7.0},
        {"int 2^53", PrefsNumberCreateInt64(INT64_C(9007199254740992)), 1, INT64_C(9007199254740992), 1,
         UINT64_C(9007199254740992), 1, two53},
        {"int 2^53+1", PrefsNumberCreateInt64(INT64_C(9007199254740993)), 1, INT64_C(9007199254740993), 1,
         UINT64_C(9007199254740993), 0, 0},
        {"int -(2^53+1)", PrefsNumberCreateInt64(-INT64_C(9007199254740993)), 1, -INT64_C(9007199254740993),
         0, 0, 0, 0},
        {"real 3.0", PrefsNumberCreateDouble(3.0), 1, 3, 1, 3, 1, 3.0},
        {"real 1.5", PrefsNumberCreateDouble(1.5), 0, 0, 0, 0, 1, 1.5},
        {"real -1.0", PrefsNumberCreateDouble(-1.0), 1, -1, 0, 0, 1, -1.0},
        {"real -0.0", PrefsNumberCreateDouble(-0.0), 1, 0, 1, 0, 1, -0.0},
        {"real 0.1", PrefsNumberCreateDouble(0.1), 0, 0, 0, 0, 1, 0.1},
        {"real 2^63", PrefsNumberCreateDouble(two63), 0, 0, 1, UINT64_C(9223372036854775808), 1, two63},
        {"real -2^63", PrefsNumberCreateDouble(-two63), 1, INT64_MIN, 0, 0, 1, -two63},
        {"real 2^64", PrefsNumberCreateDouble(two64), 0, 0, 0, 0, 1, two64},
        {"real 2^53", PrefsNumberCreateDouble(two53), 1, INT64_C(9007199254740992), 1,
         UINT64_C(9007199254740992), 1, two53},
        {"real 1e300", PrefsNumberCreateDouble(1e300), 0, 0, 0, 0, 1, 1e300},
        {"real DBL_MIN", PrefsNumberCreateDouble(DBL_MIN), 0, 0, 0, 0, 1, DBL_MIN},
        {"real nan", PrefsNumberCreateDouble(NAN), 0, 0, 0, 0, 1, NAN},
        {"real +inf", PrefsNumberCreateDouble(INFINITY), 0, 0, 0, 0, 1, INFINITY},
        {"real -inf", PrefsNumberCreateDouble(-INFINITY), 0, 0, 0, 0, 1, -INFINITY},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int is_real = strncmp(cases[i].label, "real", 4) == 0;
        check_conversion(&cases[i]);
        if (cases[i].number != NULL)
            CHECKF(PrefsGetType(cases[i].number) == (is_real ? kPrefsTypeReal : kPrefsTypeInteger),
                   "%s: type %d", cases[i].label, (int)PrefsGetType(cases[i].number));
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        PrefsRelease(cases[i].number);
}

/* ------------------------------------------------------------------ */

static void test_booleans_dates_data(void)
{
    PrefsBooleanRef t = PrefsBooleanCreate(true);
    PrefsBooleanRef f = PrefsBooleanCreate(false);
    PrefsDateRef epoch = PrefsDateCreate(0.0);
    PrefsDateRef frac = PrefsDateCreate(1234567890.75);
    PrefsDateRef before = PrefsDateCreate(-62135596800.0); /* 0001-01-01 */
    uint8_t bytes[256];
    PrefsDataRef data, empty, empty2;
    size_t i;

    CHECK(t != NULL && f != NULL);
    CHECK(PrefsGetType(t) == kPrefsTypeBoolean && PrefsGetType(f) == kPrefsTypeBoolean);
    CHECK(PrefsBooleanGetValue(t) == true);
    CHECK(PrefsBooleanGetValue(f) == false);
    CHECK(!PrefsEqual(t, f));

    CHECK(epoch != NULL && frac != NULL && before != NULL);
    CHECK(PrefsGetType(epoch) == kPrefsTypeDate);
    CHECK(PrefsDateGetUnixTime(epoch) == 0.0);
    CHECK(PrefsDateGetUnixTime(frac) == 1234567890.75); /* fractions are kept in memory */
    CHECK(PrefsDateGetUnixTime(before) == -62135596800.0);
    CHECK(!PrefsEqual(epoch, frac));

    for (i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)i;
    data = PrefsDataCreate(bytes, sizeof bytes);
    memset(bytes, 0xEE, sizeof bytes); /* the data holds a copy */
    CHECK(data != NULL);
    CHECK(PrefsGetType(data) == kPrefsTypeData);
    CHECK(PrefsDataGetLength(data) == 256);
    CHECK(PrefsDataGetBytePtr(data) != NULL);
    for (i = 0; i < 256 && PrefsDataGetBytePtr(data) != NULL; i++)
        if (PrefsDataGetBytePtr(data)[i] != (uint8_t)i)
            break;
    CHECKF(i == 256, "data byte %zu differs", i);

    empty = PrefsDataCreate(NULL, 0);
    empty2 = PrefsDataCreate(bytes, 0);
    CHECK(empty != NULL && empty2 != NULL);
    CHECK(PrefsDataGetLength(empty) == 0);
    CHECK(PrefsDataGetBytePtr(empty) != NULL); /* never NULL, even when empty */
    CHECK(PrefsDataGetBytePtr(empty2) != NULL);
    CHECK(PrefsEqual(empty, empty2));
    CHECK(!PrefsEqual(empty, data));

    PrefsRelease(t);
    PrefsRelease(f);
    PrefsRelease(epoch);
    PrefsRelease(frac);
    PrefsRelease(before);
    PrefsRelease(data);
    PrefsRelease(empty);
    PrefsRelease(empty2);
}

/* ------------------------------------------------------------------ */

static PrefsErrorRef make_error(void)
{
    PrefsStringRef s = PrefsStringCreate("\xff");
    PrefsRelease(s);
    return PrefsCopyLastError();
}

static void test_arrays(void)
{
    PrefsStringRef one = PrefsStringCreate("one");
    PrefsNumberRef two = PrefsNumberCreateInt64(2);
    PrefsBooleanRef three = PrefsBooleanCreate(true);
    PrefsPropertyListRef items[3];
    PrefsArrayRef array, empty, empty2;
    PrefsErrorRef err;

    items[0] = one;
    items[1] = two;
    items[2] = three;
    array = PrefsArrayCreate(items, 3);
    CHECK(array != NULL);
    CHECK(PrefsGetType(array) == kPrefsTypeArray);
    CHECK(PrefsArrayGetCount(array) == 3);
    CHECK(PrefsEqual(PrefsArrayGetValueAtIndex(array, 0), one));
    CHECK(PrefsEqual(PrefsArrayGetValueAtIndex(array, 1), two));
    CHECK(PrefsEqual(PrefsArrayGetValueAtIndex(array, 2), three));
    CHECK(PrefsGetType(PrefsArrayGetValueAtIndex(array, 0)) == kPrefsTypeString);
    CHECK(PrefsArrayGetValueAtIndex(array, 3) == NULL);
    CHECK(PrefsArrayGetValueAtIndex(array, 1000) == NULL);
    CHECK(PrefsArrayGetValueAtIndex(array, SIZE_MAX) == NULL);
    CHECK(PrefsArrayGetValueAtIndex(array, SIZE_MAX / 2 + 1) == NULL);

    empty = PrefsArrayCreate(NULL, 0);
    empty2 = PrefsArrayCreate(items, 0);
    CHECK(empty != NULL && empty2 != NULL);
    CHECK(PrefsArrayGetCount(empty) == 0);
    CHECK(PrefsArrayGetValueAtIndex(empty, 0) == NULL);
    CHECK(PrefsEqual(empty, empty2));
    CHECK(PrefsGetType(empty) == kPrefsTypeArray);

    /* A NULL element is refused. */
    {
        PrefsPropertyListRef with_null[2];
        PrefsArrayRef bad;
        with_null[0] = one;
        with_null[1] = NULL;
        bad = PrefsArrayCreate(with_null, 2);
        CHECK(bad == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsArrayCreate with a NULL element");
        PrefsRelease(bad);
    }
    /* An error object is not a property list. */
    err = make_error();
    CHECK(err != NULL);
    if (err != NULL) {
        PrefsPropertyListRef with_error[2];
        PrefsArrayRef bad;
        CHECK(PrefsGetType(err) == kPrefsTypeError);
        with_error[0] = one;
        with_error[1] = err;
        bad = PrefsArrayCreate(with_error, 2);
        CHECK(bad == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsArrayCreate with an error element");
        PrefsRelease(bad);
    }
    PrefsRelease(err);

    /* Arrays of arrays. */
    {
        PrefsPropertyListRef outer_items[2];
        PrefsArrayRef outer;
        outer_items[0] = array;
        outer_items[1] = empty;
        outer = PrefsArrayCreate(outer_items, 2);
        CHECK(outer != NULL && PrefsArrayGetCount(outer) == 2);
        CHECK(PrefsEqual(PrefsArrayGetValueAtIndex(outer, 0), array));
        CHECK(PrefsArrayGetCount(PrefsArrayGetValueAtIndex(outer, 0)) == 3);
        CHECK(PrefsEqual(PrefsArrayGetValueAtIndex(PrefsArrayGetValueAtIndex(outer, 0), 2), three));
        PrefsRelease(outer);
    }

    PrefsRelease(array);
    PrefsRelease(empty);
    PrefsRelease(empty2);
    PrefsRelease(one);
    PrefsRelease(two);
    PrefsRelease(three);
}

/* ------------------------------------------------------------------ */

static int compare_bytes(const void *a, const void *b)
{
    /* strcmp compares as unsigned char: UTF-8 byte order. */
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_dictionaries(void)
{
    /* A later duplicate key wins. */
    {
        const char *keys[3] = {"k", "other", "k"};
        PrefsNumberRef n1 = PrefsNumberCreateInt64(1);
        PrefsNumberRef n2 = PrefsNumberCreateInt64(2);
        PrefsNumberRef n3 = PrefsNumberCreateInt64(3);
        PrefsPropertyListRef values[3];
        PrefsDictionaryRef d;
        values[0] = n1;
        values[1] = n2;
        values[2] = n3;
        d = PrefsDictionaryCreate(keys, values, 3);
        CHECK(d != NULL);
        CHECK(PrefsGetType(d) == kPrefsTypeDictionary);
        CHECK(PrefsDictionaryGetCount(d) == 2);
        CHECK(PrefsEqual(PrefsDictionaryGetValue(d, "k"), n3));
        CHECK(PrefsEqual(PrefsDictionaryGetValue(d, "other"), n2));
        CHECK(PrefsDictionaryGetValue(d, "absent") == NULL);
        CHECK(PrefsDictionaryGetValue(d, "K") == NULL);
        CHECK(PrefsDictionaryGetValue(d, "") == NULL);
        PrefsRelease(d);
        PrefsRelease(n1);
        PrefsRelease(n2);
        PrefsRelease(n3);
    }

    /* Keys compare byte by byte and sort by their UTF-8 bytes. */
    {
        const char *keys[] = {
            "b", "\xf0\x9f\x98\x80" /* U+1F600 */, "a",
            "B", "\xef\xbd\x9e" /* U+FF5E */,      "aa",
            "",  "\xc3\xa9" /* é precomposed */,   "e\xcc\x81" /* e + combining acute */,
            "Z",
        };
        enum { N = sizeof keys / sizeof keys[0] };
        const char *expected[N];
        PrefsPropertyListRef values[N];
        PrefsDictionaryRef d;
        PrefsArrayRef sorted;
        size_t i;

        for (i = 0; i < N; i++) {
            values[i] = PrefsNumberCreateInt64((int64_t)i);
            expected[i] = keys[i];
        }
        qsort(expected, N, sizeof expected[0], compare_bytes);
        /* The byte order differs from UTF-16 order here: U+FF5E sorts
         * before U+1F600 in UTF-8 (EF < F0), after it in UTF-16. */
        CHECK(strcmp(expected[N - 2], "\xef\xbd\x9e") == 0);

        d = PrefsDictionaryCreate(keys, values, N);
        CHECK(d != NULL);
        CHECK(PrefsDictionaryGetCount(d) == N); /* é and e+U+0301 are two keys */
        for (i = 0; i < N; i++)
            CHECKF(PrefsEqual(PrefsDictionaryGetValue(d, keys[i]), values[i]), "key #%zu", i);

        sorted = PrefsDictionaryCopyKeys(d);
        CHECK(sorted != NULL);
        CHECK(PrefsGetType(sorted) == kPrefsTypeArray);
        CHECK(PrefsArrayGetCount(sorted) == N);
        for (i = 0; i < N && i < PrefsArrayGetCount(sorted); i++) {
            PrefsStringRef k = PrefsArrayGetValueAtIndex(sorted, i);
            CHECKF(k != NULL && PrefsGetType(k) == kPrefsTypeString, "key %zu is a string", i);
            if (k != NULL)
                CHECKF(strcmp(PrefsStringGetCString(k), expected[i]) == 0,
                       "key %zu: got \"%s\", expected \"%s\"", i, PrefsStringGetCString(k), expected[i]);
        }
        PrefsRelease(sorted);
        PrefsRelease(d);
        for (i = 0; i < N; i++)
            PrefsRelease(values[i]);
    }

    /* Empty dictionaries; keys of an empty dictionary. */
    {
        PrefsDictionaryRef e = PrefsDictionaryCreate(NULL, NULL, 0);
        PrefsArrayRef k;
        CHECK(e != NULL);
        CHECK(PrefsDictionaryGetCount(e) == 0);
        CHECK(PrefsDictionaryGetValue(e, "x") == NULL);
        k = PrefsDictionaryCopyKeys(e);
        CHECK(k != NULL && PrefsArrayGetCount(k) == 0);
        PrefsRelease(k);
        PrefsRelease(e);
    }

    /* Refused: NULL key, key not UTF-8, NULL value, error value. */
    {
        PrefsStringRef v = PrefsStringCreate("v");
        PrefsErrorRef err = make_error();
        const char *null_key[2] = {"ok", NULL};
        const char *bad_key[2] = {"ok", "\xc3\x28"};
        const char *keys[2] = {"ok", "fine"};
        PrefsPropertyListRef values[2];
        PrefsPropertyListRef null_value[2];
        PrefsPropertyListRef error_value[2];
        PrefsDictionaryRef d;

        values[0] = v;
        values[1] = v;
        null_value[0] = v;
        null_value[1] = NULL;
        error_value[0] = v;
        error_value[1] = err;

        d = PrefsDictionaryCreate(null_key, values, 2);
        CHECK(d == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsDictionaryCreate with a NULL key");
        PrefsRelease(d);

        d = PrefsDictionaryCreate(bad_key, values, 2);
        CHECK(d == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsDictionaryCreate with a non-UTF-8 key");
        PrefsRelease(d);

        d = PrefsDictionaryCreate(keys, null_value, 2);
        CHECK(d == NULL);
        CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsDictionaryCreate with a NULL value");
        PrefsRelease(d);

        CHECK(err != NULL);
        if (err != NULL) {
            d = PrefsDictionaryCreate(keys, error_value, 2);
            CHECK(d == NULL);
            CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsDictionaryCreate with an error value");
            PrefsRelease(d);
        }

        d = PrefsDictionaryCreate(keys, values, 2);
        CHECK(d != NULL && PrefsDictionaryGetCount(d) == 2);
        CHECK_NO_LAST_ERROR("PrefsDictionaryCreate");
        PrefsRelease(d);

        PrefsRelease(err);
        PrefsRelease(v);
    }
}

/* ------------------------------------------------------------------ */

/* {"name": "Ada", "list": [1, 2.5, true, {"deep": <data 01 02>}], "when": date 0} */
static PrefsDictionaryRef build_nested(const char *name, double real, uint8_t last_byte, int reverse_keys)
{
    uint8_t bytes[2];
    PrefsDataRef data;
    PrefsDictionaryRef deep;
    PrefsNumberRef n1, n2;
    PrefsBooleanRef b;
    PrefsArrayRef list;
    PrefsStringRef s;
    PrefsDateRef when;
    PrefsDictionaryRef top;
    const char *deep_key[1] = {"deep"};
    PrefsPropertyListRef deep_value[1];
    PrefsPropertyListRef list_items[4];
    const char *keys[3] = {"name", "list", "when"};
    const char *rkeys[3] = {"when", "list", "name"};
    PrefsPropertyListRef values[3];

    bytes[0] = 1;
    bytes[1] = last_byte;
    data = PrefsDataCreate(bytes, 2);
    deep_value[0] = data;
    deep = PrefsDictionaryCreate(deep_key, deep_value, 1);
    n1 = PrefsNumberCreateInt64(1);
    n2 = PrefsNumberCreateDouble(real);
    b = PrefsBooleanCreate(true);
    list_items[0] = n1;
    list_items[1] = n2;
    list_items[2] = b;
    list_items[3] = deep;
    list = PrefsArrayCreate(list_items, 4);
    s = PrefsStringCreate(name);
    when = PrefsDateCreate(0);
    if (reverse_keys) {
        values[0] = when;
        values[1] = list;
        values[2] = s;
        top = PrefsDictionaryCreate(rkeys, values, 3);
    } else {
        values[0] = s;
        values[1] = list;
        values[2] = when;
        top = PrefsDictionaryCreate(keys, values, 3);
    }
    PrefsRelease(data);
    PrefsRelease(deep);
    PrefsRelease(n1);
    PrefsRelease(n2);
    PrefsRelease(b);
    PrefsRelease(list);
    PrefsRelease(s);
    PrefsRelease(when);
    return top;
}

/* The next double above a positive finite x (nextafter without libm). */
static double next_double_up(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits++;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static void test_equality(void)
{
    PrefsNumberRef i1 = PrefsNumberCreateInt64(1);
    PrefsNumberRef r1 = PrefsNumberCreateDouble(1.0);
    PrefsNumberRef i5 = PrefsNumberCreateInt64(5);
    PrefsNumberRef u5 = PrefsNumberCreateUInt64(5);
    PrefsNumberRef im1 = PrefsNumberCreateInt64(-1);
    PrefsNumberRef umax = PrefsNumberCreateUInt64(UINT64_MAX);
    PrefsNumberRef imax = PrefsNumberCreateInt64(INT64_MAX);
    PrefsNumberRef uimax = PrefsNumberCreateUInt64((uint64_t)INT64_MAX);
    PrefsNumberRef nan1 = PrefsNumberCreateDouble(NAN);
    PrefsNumberRef nan2 = PrefsNumberCreateDouble(-NAN);
    PrefsNumberRef zero = PrefsNumberCreateDouble(0.0);
    PrefsNumberRef negzero = PrefsNumberCreateDouble(-0.0);
    PrefsNumberRef tenth = PrefsNumberCreateDouble(0.1);
    PrefsNumberRef tenth_next = PrefsNumberCreateDouble(next_double_up(0.1));
    PrefsBooleanRef t = PrefsBooleanCreate(true);
    PrefsBooleanRef t2 = PrefsBooleanCreate(true);
    PrefsDateRef d5 = PrefsDateCreate(5.0);
    PrefsDateRef d5b = PrefsDateCreate(5.0);
    PrefsNumberRef r5 = PrefsNumberCreateDouble(5.0);
    PrefsStringRef nfc = PrefsStringCreate("caf\xc3\xa9");
    PrefsStringRef nfd = PrefsStringCreate("cafe\xcc\x81");
    PrefsStringRef abc = PrefsStringCreate("abc");
    PrefsStringRef abc2 = PrefsStringCreateWithBytes("abcdef", 3);
    PrefsStringRef nul_b = PrefsStringCreateWithBytes("a\0b", 3);
    PrefsStringRef nul_c = PrefsStringCreateWithBytes("a\0c", 3);
    PrefsStringRef just_a = PrefsStringCreate("a");
    PrefsDataRef data_abc = PrefsDataCreate("abc", 3);
    PrefsDataRef empty_data = PrefsDataCreate(NULL, 0);
    PrefsStringRef empty_string = PrefsStringCreate("");
    PrefsDictionaryRef n1 = build_nested("Ada", 2.5, 2, 0);
    PrefsDictionaryRef n2 = build_nested("Ada", 2.5, 2, 1);
    PrefsDictionaryRef n3 = build_nested("Ada", 2.5, 3, 0); /* one byte differs, deep down */
    PrefsDictionaryRef n4 = build_nested("Ada", 2.5000001, 2, 0);
    PrefsDictionaryRef n5 = build_nested("Bob", 2.5, 2, 0);

    CHECK(!PrefsEqual(i1, r1)); /* integer 1 and real 1.0 differ */
    CHECK(!PrefsEqual(r1, i1));
    CHECK(PrefsEqual(i5, u5));     /* one integer type, whichever constructor */
    CHECK(!PrefsEqual(im1, umax)); /* not the same bits: -1 vs 2^64-1 */
    CHECK(PrefsEqual(imax, uimax));
    CHECK(PrefsEqual(nan1, nan2)); /* NaN equals NaN */
    CHECK(PrefsEqual(nan1, nan1));
    CHECK(PrefsEqual(zero, negzero));
    CHECK(!PrefsEqual(tenth, tenth_next));
    CHECK(PrefsEqual(t, t2));
    CHECK(!PrefsEqual(t, i1)); /* true is not 1 */
    CHECK(PrefsEqual(d5, d5b));
    CHECK(!PrefsEqual(d5, r5));   /* a date is not a real */
    CHECK(!PrefsEqual(nfc, nfd)); /* no Unicode normalisation */
    CHECK(PrefsEqual(abc, abc2));
    CHECK(!PrefsEqual(nul_b, nul_c)); /* compared over the full length */
    CHECK(!PrefsEqual(nul_b, just_a));
    CHECK(!PrefsEqual(data_abc, abc)); /* data is not a string */
    CHECK(!PrefsEqual(empty_data, empty_string));
    CHECK(PrefsEqual(NULL, NULL));
    CHECK(!PrefsEqual(NULL, abc));
    CHECK(!PrefsEqual(abc, NULL));
    CHECK(n1 != NULL && n2 != NULL && n3 != NULL && n4 != NULL && n5 != NULL);
    CHECK(PrefsEqual(n1, n2)); /* same content, built in another order */
    CHECK(PrefsEqual(n2, n1));
    CHECK(!PrefsEqual(n1, n3));
    CHECK(!PrefsEqual(n1, n4));
    CHECK(!PrefsEqual(n1, n5));

    /* Array order matters; a prefix is not equal. */
    {
        PrefsPropertyListRef ab[2], ba[2];
        PrefsArrayRef x, y, z;
        ab[0] = i1;
        ab[1] = abc;
        ba[0] = abc;
        ba[1] = i1;
        x = PrefsArrayCreate(ab, 2);
        y = PrefsArrayCreate(ba, 2);
        z = PrefsArrayCreate(ab, 1);
        CHECK(!PrefsEqual(x, y));
        CHECK(!PrefsEqual(x, z));
        CHECK(!PrefsEqual(z, x));
        PrefsRelease(x);
        PrefsRelease(y);
        PrefsRelease(z);
    }
    /* {a: 1} vs {a: 1.0} vs {b: 1}. */
    {
        const char *ka[1] = {"a"};
        const char *kb[1] = {"b"};
        PrefsPropertyListRef vi[1], vr[1];
        PrefsDictionaryRef x, y, z;
        vi[0] = i1;
        vr[0] = r1;
        x = PrefsDictionaryCreate(ka, vi, 1);
        y = PrefsDictionaryCreate(ka, vr, 1);
        z = PrefsDictionaryCreate(kb, vi, 1);
        CHECK(!PrefsEqual(x, y));
        CHECK(!PrefsEqual(x, z));
        PrefsRelease(x);
        PrefsRelease(y);
        PrefsRelease(z);
    }

    PrefsRelease(i1);
    PrefsRelease(r1);
    PrefsRelease(i5);
    PrefsRelease(u5);
    PrefsRelease(im1);
    PrefsRelease(umax);
    PrefsRelease(imax);
    PrefsRelease(uimax);
    PrefsRelease(nan1);
    PrefsRelease(nan2);
    PrefsRelease(zero);
    PrefsRelease(negzero);
    PrefsRelease(tenth);
    PrefsRelease(tenth_next);
    PrefsRelease(t);
    PrefsRelease(t2);
    PrefsRelease(d5);
    PrefsRelease(d5b);
    PrefsRelease(r5);
    PrefsRelease(nfc);
    PrefsRelease(nfd);
    PrefsRelease(abc);
    PrefsRelease(abc2);
    PrefsRelease(nul_b);
    PrefsRelease(nul_c);
    PrefsRelease(just_a);
    PrefsRelease(data_abc);
    PrefsRelease(empty_data);
    PrefsRelease(empty_string);
    PrefsRelease(n1);
    PrefsRelease(n2);
    PrefsRelease(n3);
    PrefsRelease(n4);
    PrefsRelease(n5);
}

/* ------------------------------------------------------------------ */

static int description_contains(PrefsTypeRef object, const char *needle)
{
    char *d = PrefsCopyDescription(object);
    int found = d != NULL && strstr(d, needle) != NULL;
    if (!found)
        fprintf(stderr, "    description: %s\n", d ? d : "(NULL)");
    PrefsFree(d);
    return found;
}

static void test_descriptions(void)
{
    PrefsDictionaryRef nested = build_nested("Ada Lovelace", 2.5, 2, 0);
    PrefsStringRef s = PrefsStringCreate("word");
    PrefsNumberRef n = PrefsNumberCreateInt64(-42);
    PrefsNumberRef r = PrefsNumberCreateDouble(2.5);
    PrefsBooleanRef b = PrefsBooleanCreate(true);
    PrefsDateRef d = PrefsDateCreate(0);
    PrefsDataRef data = PrefsDataCreate("\x01\x02", 2);
    PrefsArrayRef a = PrefsArrayCreate(NULL, 0);
    PrefsErrorRef err = make_error();
    PrefsTypeRef all[8];
    size_t i;

    all[0] = nested;
    all[1] = s;
    all[2] = n;
    all[3] = r;
    all[4] = b;
    all[5] = d;
    all[6] = data;
    all[7] = a;
    for (i = 0; i < 8; i++) {
        char *text = PrefsCopyDescription(all[i]);
        CHECKF(text != NULL && text[0] != '\0', "description of value #%zu", i);
        PrefsFree(text);
    }
    CHECK(description_contains(nested, "name"));
    CHECK(description_contains(nested, "Ada Lovelace"));
    CHECK(description_contains(nested, "deep"));
    CHECK(description_contains(s, "word"));
    CHECK(description_contains(n, "-42"));
    CHECK(description_contains(r, "2.5"));
    CHECK(description_contains(d, "1970"));
    CHECK(err != NULL);
    if (err != NULL) {
        char *text = PrefsCopyDescription(err);
        char *text2 = PrefsErrorCopyDescription(err);
        CHECK(text != NULL && text[0] != '\0');
        CHECK(text2 != NULL && text2[0] != '\0');
        PrefsFree(text);
        PrefsFree(text2);
    }

    PrefsRelease(nested);
    PrefsRelease(s);
    PrefsRelease(n);
    PrefsRelease(r);
    PrefsRelease(b);
    PrefsRelease(d);
    PrefsRelease(data);
    PrefsRelease(a);
    PrefsRelease(err);
}

/* ------------------------------------------------------------------ */

/* UIDs (1.3): the object references of keyed archives. */
static void test_uids(void)
{
    PrefsUIDRef zero = PrefsUIDCreate(0);
    PrefsUIDRef max = PrefsUIDCreate(UINT32_MAX);
    PrefsUIDRef seven = PrefsUIDCreate(7), seven2 = PrefsUIDCreate(7);
    PrefsNumberRef n7 = PrefsNumberCreateInt64(7);
    PrefsErrorRef err = NULL;
    PrefsDataRef xml, bin;
    PrefsPropertyListRef back;
    char *text;

    CHECK(zero != NULL && max != NULL && seven != NULL);
    CHECK(PrefsGetType(seven) == kPrefsTypeUID && kPrefsTypeUID == 10);
    CHECK(PrefsUIDGetValue(zero) == 0);
    CHECK(PrefsUIDGetValue(max) == UINT32_MAX);
    CHECK(PrefsUIDGetValue(seven) == 7);
    CHECK_NO_LAST_ERROR("PrefsUIDGetValue");
    CHECK(PrefsEqual(seven, seven2) && !PrefsEqual(seven, zero));
    /* A UID is not the integer it holds. */
    CHECK(!PrefsEqual(seven, n7));
    CHECK(PrefsUIDGetValue((PrefsUIDRef)n7) == 0);
    CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "PrefsUIDGetValue of a number");

    text = PrefsCopyDescription(seven);
    CHECK(text != NULL && strcmp(text, "\"<CFKeyedArchiverUID>{value = 7}\"") == 0);
    PrefsFree(text);

    /* XML writes it as CoreFoundation does, a one-key CF$UID dictionary,
       and reads that back as a UID; binary keeps it as a UID object. */
    xml = PrefsPropertyListCreateXMLData(max, &err);
    CHECK(xml != NULL && err == NULL);
    CHECK(xml != NULL &&
          strstr((const char *)PrefsDataGetBytePtr(xml),
                 "<dict>\n\t<key>CF$UID</key>\n\t<integer>4294967295</integer>\n</dict>") != NULL);
    back =
        xml ? PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), NULL) : NULL;
    CHECK(back != NULL && PrefsGetType(back) == kPrefsTypeUID && PrefsEqual(back, max));
    PrefsRelease(back);
    bin = PrefsPropertyListCreateData(seven, kPrefsPropertyListBinaryFormat_v1_0, NULL);
    CHECK(bin != NULL && PrefsDataGetLength(bin) > 9 && PrefsDataGetBytePtr(bin)[8] == 0x80 &&
          PrefsDataGetBytePtr(bin)[9] == 7);
    back =
        bin ? PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(bin), PrefsDataGetLength(bin), NULL) : NULL;
    CHECK(back != NULL && PrefsEqual(back, seven));
    PrefsRelease(back);

    PrefsRelease(bin);
    PrefsRelease(xml);
    PrefsRelease(n7);
    PrefsRelease(seven2);
    PrefsRelease(seven);
    PrefsRelease(max);
    PrefsRelease(zero);
}

static void test_types(void)
{
    PrefsStringRef s = PrefsStringCreate("s");
    PrefsNumberRef i = PrefsNumberCreateInt64(1);
    PrefsNumberRef u = PrefsNumberCreateUInt64(UINT64_MAX);
    PrefsNumberRef r = PrefsNumberCreateDouble(1);
    PrefsBooleanRef b = PrefsBooleanCreate(false);
    PrefsDateRef d = PrefsDateCreate(1);
    PrefsDataRef data = PrefsDataCreate("x", 1);
    PrefsArrayRef a = PrefsArrayCreate(NULL, 0);
    PrefsDictionaryRef dict = PrefsDictionaryCreate(NULL, NULL, 0);
    PrefsErrorRef err = make_error();

    CHECK(PrefsGetType(s) == kPrefsTypeString);
    CHECK(PrefsGetType(i) == kPrefsTypeInteger);
    CHECK(PrefsGetType(u) == kPrefsTypeInteger);
    CHECK(PrefsGetType(r) == kPrefsTypeReal);
    CHECK(PrefsGetType(b) == kPrefsTypeBoolean);
    CHECK(PrefsGetType(d) == kPrefsTypeDate);
    CHECK(PrefsGetType(data) == kPrefsTypeData);
    CHECK(PrefsGetType(a) == kPrefsTypeArray);
    CHECK(PrefsGetType(dict) == kPrefsTypeDictionary);
    CHECK(err != NULL && PrefsGetType(err) == kPrefsTypeError);
    /* The fixed numbers of the enumeration. */
    CHECK(kPrefsTypeString == 1 && kPrefsTypeDictionary == 8 && kPrefsTypeError == 9);
    CHECK(kPrefsErrorInvalidArgument == 1 && kPrefsErrorForcedValue == 9 && kPrefsErrorInternal == 100);

    PrefsRelease(s);
    PrefsRelease(i);
    PrefsRelease(u);
    PrefsRelease(r);
    PrefsRelease(b);
    PrefsRelease(d);
    PrefsRelease(data);
    PrefsRelease(a);
    PrefsRelease(dict);
    PrefsRelease(err);
}

int main(void)
{
    test_version();
    test_strings();
    test_numbers();
    test_booleans_dates_data();
    test_arrays();
    test_dictionaries();
    test_equality();
    test_descriptions();
    test_types();
    test_uids();
    return CHECK_FINISH();
}
