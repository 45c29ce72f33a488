/*
 * test_serialization.c — PrefsPropertyListCreateXMLData writes Apple's XML
 * format byte for byte; PrefsPropertyListCreateWithData reads it back (and
 * old-style text, other encodings, the XML forms other writers use) to an
 * equal value.
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

#define XML_HEAD                                            \
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"            \
  "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" " \
  "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"   \
  "<plist version=\"1.0\">\n"
#define XML_TAIL "</plist>\n"

/* ------------------------------------------------------------------ */
/* Small builders. Each returns +1; the *_take variants consume refs.  */
/* ------------------------------------------------------------------ */

static PrefsPropertyListRef str(const char *s)
{
    return PrefsStringCreate(s);
}
static PrefsPropertyListRef i64(int64_t v)
{
    return PrefsNumberCreateInt64(v);
}
static PrefsPropertyListRef u64(uint64_t v)
{
    return PrefsNumberCreateUInt64(v);
}
static PrefsPropertyListRef dbl(double v)
{
    return PrefsNumberCreateDouble(v);
}
static PrefsPropertyListRef boolean(bool v)
{
    return PrefsBooleanCreate(v);
}
static PrefsPropertyListRef date(double t)
{
    return PrefsDateCreate(t);
}
static PrefsPropertyListRef data(const void *p, size_t n)
{
    return PrefsDataCreate(p, n);
}

/* An array of n values; releases them. */
static PrefsPropertyListRef array_take(size_t n, PrefsPropertyListRef *items)
{
    PrefsArrayRef a = PrefsArrayCreate(items, n);
    size_t i;
    for (i = 0; i < n; i++)
        PrefsRelease(items[i]);
    return a;
}

/* A dictionary of n pairs; releases the values. */
static PrefsPropertyListRef dict_take(size_t n, const char **keys, PrefsPropertyListRef *values)
{
    PrefsDictionaryRef d = PrefsDictionaryCreate(keys, values, n);
    size_t i;
    for (i = 0; i < n; i++)
        PrefsRelease(values[i]);
    return d;
}

/* Whether `needle` occurs in the n bytes at p. */
static int contains_bytes(const uint8_t *p, size_t n, const char *needle)
{
    size_t m = strlen(needle), i;
    for (i = 0; m <= n && i <= n - m; i++)
        if (memcmp(p + i, needle, m) == 0)
            return 1;
    return 0;
}

/* Prints the first difference between two byte strings. */
static void show_difference(const char *label, const uint8_t *got, size_t got_len, const char *want,
                            size_t want_len)
{
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == (uint8_t)want[i])
        i++;
    fprintf(stderr, "    %s: lengths %zu (got) and %zu (expected); first difference at byte %zu\n", label,
            got_len, want_len, i);
    fprintf(stderr, "    --- got ---\n%.*s\n    --- expected ---\n%.*s\n", (int)got_len, (const char *)got,
            (int)want_len, want);
}

/* Serialises `value` and compares the bytes with `expected`. */
static void check_xml(const char *label, PrefsPropertyListRef value, const char *expected,
                      size_t expected_len)
{
    PrefsErrorRef err = NULL;
    PrefsDataRef xml;

    CHECKF(value != NULL, "%s: value built", label);
    if (value == NULL)
        return;
    xml = PrefsPropertyListCreateXMLData(value, &err);
    CHECKF(xml != NULL && err == NULL, "%s: serialised", label);
    if (xml == NULL) {
        char *d = PrefsErrorCopyDescription(err);
        fprintf(stderr, "    error: %s\n", d ? d : "(none)");
        PrefsFree(d);
        PrefsRelease(err);
        return;
    }
    CHECK(PrefsGetType(xml) == kPrefsTypeData);
    if (!CHECK(PrefsDataGetLength(xml) == expected_len &&
               memcmp(PrefsDataGetBytePtr(xml), expected, expected_len) == 0))
        show_difference(label, PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), expected, expected_len);
    PrefsRelease(xml);
}

/* ------------------------------------------------------------------ */
/* The Apple format, byte for byte                                      */
/* ------------------------------------------------------------------ */

static PrefsPropertyListRef build_document_value(void)
{
    PrefsPropertyListRef array_items[4];
    PrefsPropertyListRef nested_values[3];
    const char *nested_keys[3] = {"z", "A", "m"};
    PrefsPropertyListRef reals[6];
    PrefsPropertyListRef dates[5];
    const char *keys[16];
    PrefsPropertyListRef values[16];
    size_t n = 0;

    array_items[0] = i64(1);
    array_items[1] = str("two");
    array_items[2] = boolean(true);
    array_items[3] = boolean(false);

    nested_values[0] = str("last");
    nested_values[1] = u64(UINT64_MAX);
    nested_values[2] = dbl(2.5);

    reals[0] = dbl(NAN);
    reals[1] = dbl(INFINITY);
    reals[2] = dbl(-INFINITY);
    reals[3] = dbl(0.1);
    reals[4] = dbl(-0.0);
    reals[5] = dbl(100.0);

    dates[0] = date(1.9);            /* truncated to 00:00:01 */
    dates[1] = date(-0.5);           /* truncated toward the earlier second */
    dates[2] = date(253402300799.0); /* the last second of 9999 */
    dates[3] = date(-62135769600.0); /* distantPast: 0000-12-30, proleptic */
    dates[4] = date(951782400.0);    /* 2000-02-29 */

    /* Given in an order unlike the sorted one. */
    keys[n] = "unicode";
    values[n++] = str("caf\xc3\xa9 \xf0\x9f\x98\x80");
    keys[n] = "real";
    values[n++] = dbl(1.5);
    keys[n] = "nested";
    values[n++] = dict_take(3, nested_keys, nested_values);
    keys[n] = "integer";
    values[n++] = i64(-42);
    keys[n] = "min";
    values[n++] = i64(INT64_MIN);
    keys[n] = "escaped";
    values[n++] = str("a & b < c > d\re \"q\" 'a' ]]>\ttab\nnewline");
    keys[n] = "empty dict";
    values[n++] = PrefsDictionaryCreate(NULL, NULL, 0);
    keys[n] = "empty data";
    values[n++] = data(NULL, 0);
    keys[n] = "empty array";
    values[n++] = PrefsArrayCreate(NULL, 0);
    keys[n] = "dates";
    values[n++] = array_take(5, dates);
    keys[n] = "date";
    values[n++] = date(0.0);
    keys[n] = "data";
    values[n++] = data("hello", 5);
    keys[n] = "array";
    values[n++] = array_take(4, array_items);
    keys[n] = "reals";
    values[n++] = array_take(6, reals);
    keys[n] = "";
    values[n++] = str("empty key");
    keys[n] = "<&>";
    values[n++] = str("");
    return dict_take(n, keys, values);
}

static const char expected_document[] =
    XML_HEAD "<dict>\n"
             "\t<key></key>\n"
             "\t<string>empty key</string>\n"
             "\t<key>&lt;&amp;&gt;</key>\n"
             "\t<string></string>\n"
             "\t<key>array</key>\n"
             "\t<array>\n"
             "\t\t<integer>1</integer>\n"
             "\t\t<string>two</string>\n"
             "\t\t<true/>\n"
             "\t\t<false/>\n"
             "\t</array>\n"
             "\t<key>data</key>\n"
             "\t<data>\n"
             "\taGVsbG8=\n"
             "\t</data>\n"
             "\t<key>date</key>\n"
             "\t<date>1970-01-01T00:00:00Z</date>\n"
             "\t<key>dates</key>\n"
             "\t<array>\n"
             "\t\t<date>1970-01-01T00:00:01Z</date>\n"
             "\t\t<date>1969-12-31T23:59:59Z</date>\n"
             "\t\t<date>9999-12-31T23:59:59Z</date>\n"
             "\t\t<date>0000-12-30T00:00:00Z</date>\n"
             "\t\t<date>2000-02-29T00:00:00Z</date>\n"
             "\t</array>\n"
             "\t<key>empty array</key>\n"
             "\t<array/>\n"
             "\t<key>empty data</key>\n"
             "\t<data>\n"
             "\t</data>\n"
             "\t<key>empty dict</key>\n"
             "\t<dict/>\n"
             "\t<key>escaped</key>\n"
             "\t<string>a &amp; b &lt; c &gt; d&#13;e \"q\" 'a' ]]&gt;\ttab\nnewline</string>\n"
             "\t<key>integer</key>\n"
             "\t<integer>-42</integer>\n"
             "\t<key>min</key>\n"
             "\t<integer>-9223372036854775808</integer>\n"
             "\t<key>nested</key>\n"
             "\t<dict>\n"
             "\t\t<key>A</key>\n"
             "\t\t<integer>18446744073709551615</integer>\n"
             "\t\t<key>m</key>\n"
             "\t\t<real>2.5</real>\n"
             "\t\t<key>z</key>\n"
             "\t\t<string>last</string>\n"
             "\t</dict>\n"
             "\t<key>real</key>\n"
             "\t<real>1.5</real>\n"
             "\t<key>reals</key>\n"
             "\t<array>\n"
             "\t\t<real>nan</real>\n"
             "\t\t<real>+infinity</real>\n"
             "\t\t<real>-infinity</real>\n"
             "\t\t<real>0.10000000000000001</real>\n"
             "\t\t<real>-0.0</real>\n"
             "\t\t<real>100</real>\n"
             "\t</array>\n"
             "\t<key>unicode</key>\n"
             "\t<string>caf\xc3\xa9 \xf0\x9f\x98\x80</string>\n"
             "</dict>\n" XML_TAIL;

/* Base64 laid out as Apple's writer does: `indent` tabs (at most 8) before
 * each line, 76 - 8 * indent characters per line. Written from RFC 4648 and
 * CFPropertyList.c's rule, independently of the library. */
static size_t apple_base64(const uint8_t *p, size_t n, int indent, char *out)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int tabs = indent > 8 ? 8 : indent;
    size_t line = (size_t)(76 - 8 * tabs);
    size_t used = 0, column = 0, i;
    int t;
    for (i = 0; i < n; i += 3) {
        uint32_t triple = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                          (i + 2 < n ? (uint32_t)p[i + 2] : 0);
        if (column == 0)
            for (t = 0; t < tabs; t++)
                out[used++] = '\t';
        out[used++] = alphabet[triple >> 18 & 63];
        out[used++] = alphabet[triple >> 12 & 63];
        out[used++] = i + 1 < n ? alphabet[triple >> 6 & 63] : '=';
        out[used++] = i + 2 < n ? alphabet[triple & 63] : '=';
        column += 4;
        if (column >= line) {
            out[used++] = '\n';
            column = 0;
        }
    }
    if (column > 0)
        out[used++] = '\n';
    return used;
}

static void test_exact_format(void)
{
    PrefsPropertyListRef doc = build_document_value();
    check_xml("the reference document", doc, expected_document, sizeof expected_document - 1);

    /* Reading the reference document gives the value back (its dates were
     * whole seconds apart from the two fractional ones, so compare those
     * separately). */
    {
        PrefsErrorRef err = NULL;
        PrefsPropertyListRef back =
            PrefsPropertyListCreateWithData(expected_document, sizeof expected_document - 1, &err);
        CHECK(back != NULL && err == NULL);
        if (back != NULL) {
            PrefsArrayRef dates = PrefsDictionaryGetValue(back, "dates");
            CHECK(PrefsDictionaryGetCount(back) == PrefsDictionaryGetCount(doc));
            CHECK(
                PrefsEqual(PrefsDictionaryGetValue(back, "nested"), PrefsDictionaryGetValue(doc, "nested")));
            CHECK(PrefsEqual(PrefsDictionaryGetValue(back, "escaped"),
                             PrefsDictionaryGetValue(doc, "escaped")));
            CHECK(PrefsEqual(PrefsDictionaryGetValue(back, "reals"), PrefsDictionaryGetValue(doc, "reals")));
            CHECK(PrefsEqual(PrefsDictionaryGetValue(back, "<&>"), PrefsDictionaryGetValue(doc, "<&>")));
            CHECK(PrefsEqual(PrefsDictionaryGetValue(back, ""), PrefsDictionaryGetValue(doc, "")));
            CHECK(dates != NULL && PrefsArrayGetCount(dates) == 5);
            if (dates != NULL && PrefsArrayGetCount(dates) == 5) {
                CHECK(PrefsDateGetUnixTime(PrefsArrayGetValueAtIndex(dates, 0)) == 1.0);
                CHECK(PrefsDateGetUnixTime(PrefsArrayGetValueAtIndex(dates, 1)) == -1.0);
                CHECK(PrefsDateGetUnixTime(PrefsArrayGetValueAtIndex(dates, 2)) == 253402300799.0);
                CHECK(PrefsDateGetUnixTime(PrefsArrayGetValueAtIndex(dates, 3)) == -62135769600.0);
                CHECK(PrefsDateGetUnixTime(PrefsArrayGetValueAtIndex(dates, 4)) == 951782400.0);
            }
            {
                PrefsArrayRef reals = PrefsDictionaryGetValue(back, "reals");
                double z = 1.0;
                CHECK(reals != NULL && PrefsNumberGetDouble(PrefsArrayGetValueAtIndex(reals, 4), &z) &&
                      z == 0.0 && signbit(z));
            }
        }
        PrefsRelease(back);
        PrefsRelease(err);
    }
    PrefsRelease(doc);

    /* Scalars and empty containers as the root. */
    {
        PrefsPropertyListRef v;
        v = str("root");
        check_xml("string root", v, XML_HEAD "<string>root</string>\n" XML_TAIL,
                  sizeof(XML_HEAD "<string>root</string>\n" XML_TAIL) - 1);
        PrefsRelease(v);
        v = i64(7);
        check_xml("integer root", v, XML_HEAD "<integer>7</integer>\n" XML_TAIL,
                  sizeof(XML_HEAD "<integer>7</integer>\n" XML_TAIL) - 1);
        PrefsRelease(v);
        v = boolean(true);
        check_xml("true root", v, XML_HEAD "<true/>\n" XML_TAIL, sizeof(XML_HEAD "<true/>\n" XML_TAIL) - 1);
        PrefsRelease(v);
        v = PrefsDictionaryCreate(NULL, NULL, 0);
        check_xml("empty dict root", v, XML_HEAD "<dict/>\n" XML_TAIL,
                  sizeof(XML_HEAD "<dict/>\n" XML_TAIL) - 1);
        PrefsRelease(v);
        v = PrefsArrayCreate(NULL, 0);
        check_xml("empty array root", v, XML_HEAD "<array/>\n" XML_TAIL,
                  sizeof(XML_HEAD "<array/>\n" XML_TAIL) - 1);
        PrefsRelease(v);
        v = data(NULL, 0);
        check_xml("empty data root", v, XML_HEAD "<data>\n</data>\n" XML_TAIL,
                  sizeof(XML_HEAD "<data>\n</data>\n" XML_TAIL) - 1);
        PrefsRelease(v);
    }

    /* Long data: base64 lines of 76 - 8 * indent columns. */
    {
        static const size_t sizes[] = {1, 2, 3, 56, 57, 58, 100, 200, 1000};
        uint8_t bytes[1000];
        char *expected = malloc(8192);
        size_t s, i;
        CHECK(expected != NULL);
        if (expected == NULL)
            return;
        for (i = 0; i < sizeof bytes; i++)
            bytes[i] = (uint8_t)(i * 131 + 17);
        for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s], used;
            char label[64];
            PrefsPropertyListRef d = data(bytes, n);
            PrefsPropertyListRef in_array[1];
            PrefsPropertyListRef arr, deep;
            int depth;

            /* At the root: indent 0. */
            used = (size_t)sprintf(expected, "%s<data>\n", XML_HEAD);
            used += apple_base64(bytes, n, 0, expected + used);
            used += (size_t)sprintf(expected + used, "</data>\n%s", XML_TAIL);
            snprintf(label, sizeof label, "%zu bytes of data at the root", n);
            check_xml(label, d, expected, used);

            /* One level down: indent 1. */
            in_array[0] = d;
            arr = PrefsArrayCreate(in_array, 1);
            used = (size_t)sprintf(expected, "%s<array>\n\t<data>\n", XML_HEAD);
            used += apple_base64(bytes, n, 1, expected + used);
            used += (size_t)sprintf(expected + used, "\t</data>\n</array>\n%s", XML_TAIL);
            snprintf(label, sizeof label, "%zu bytes of data in an array", n);
            check_xml(label, arr, expected, used);

            /* Ten levels down: the indentation of the base64 stops at 8 tabs. */
            deep = arr;
            for (depth = 2; depth <= 10; depth++) {
                PrefsPropertyListRef wrap[1];
                wrap[0] = deep;
                deep = PrefsArrayCreate(wrap, 1);
                PrefsRelease(wrap[0]);
            }
            {
                int k;
                used = (size_t)sprintf(expected, "%s", XML_HEAD);
                for (k = 0; k < 10; k++) {
                    memset(expected + used, '\t', (size_t)k);
                    used += (size_t)k;
                    used += (size_t)sprintf(expected + used, "<array>\n");
                }
                memset(expected + used, '\t', 10);
                used += 10;
                used += (size_t)sprintf(expected + used, "<data>\n");
                used += apple_base64(bytes, n, 10, expected + used);
                memset(expected + used, '\t', 10);
                used += 10;
                used += (size_t)sprintf(expected + used, "</data>\n");
                for (k = 9; k >= 0; k--) {
                    memset(expected + used, '\t', (size_t)k);
                    used += (size_t)k;
                    used += (size_t)sprintf(expected + used, "</array>\n");
                }
                used += (size_t)sprintf(expected + used, "%s", XML_TAIL);
            }
            snprintf(label, sizeof label, "%zu bytes of data 10 levels down", n);
            check_xml(label, deep, expected, used);

            PrefsRelease(deep);
            PrefsRelease(d);
        }
        free(expected);
    }
}

/* ------------------------------------------------------------------ */
/* Round trips                                                          */
/* ------------------------------------------------------------------ */

static PrefsPropertyListRef parse(const char *label, const void *bytes, size_t n);

/* Writes, reads back, compares; writes again and compares the bytes. */
static void check_round_trip(const char *label, PrefsPropertyListRef value)
{
    PrefsErrorRef err = NULL;
    PrefsDataRef xml, xml2 = NULL;
    PrefsPropertyListRef back = NULL;

    CHECKF(value != NULL, "%s: built", label);
    if (value == NULL)
        return;
    xml = PrefsPropertyListCreateXMLData(value, &err);
    CHECKF(xml != NULL, "%s: serialised", label);
    if (xml == NULL) {
        char *d = PrefsErrorCopyDescription(err);
        fprintf(stderr, "    error: %s\n", d ? d : "(none)");
        PrefsFree(d);
        PrefsRelease(err);
        return;
    }
    back = PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), &err);
    CHECKF(back != NULL, "%s: read back", label);
    if (back == NULL) {
        char *d = PrefsErrorCopyDescription(err);
        fprintf(stderr, "    error: %s\n", d ? d : "(none)");
        PrefsFree(d);
        PrefsRelease(err);
        PrefsRelease(xml);
        return;
    }
    CHECKF(PrefsEqual(value, back), "%s: equal after the round trip", label);
    CHECKF(PrefsGetType(value) == PrefsGetType(back), "%s: same type", label);
    xml2 = PrefsPropertyListCreateXMLData(back, NULL);
    CHECKF(xml2 != NULL && PrefsEqual(xml, xml2), "%s: written again, the same bytes", label);
    PrefsRelease(xml2);
    PrefsRelease(back);
    PrefsRelease(xml);
}

/* Round trip of a real that also keeps the sign of zero and NaN-ness. */
static void check_real_round_trip(double v)
{
    char label[64];
    PrefsPropertyListRef n = dbl(v);
    PrefsDataRef xml = PrefsPropertyListCreateXMLData(n, NULL);
    PrefsPropertyListRef back = NULL;
    double got = 12345.0;

    snprintf(label, sizeof label, "real %.17g", v);
    check_round_trip(label, n);
    if (xml != NULL)
        back = PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), NULL);
    CHECKF(back != NULL && PrefsGetType(back) == kPrefsTypeReal && PrefsNumberGetDouble(back, &got),
           "%s: read back as a real", label);
    if (isnan(v))
        CHECKF(isnan(got), "%s: got %.17g", label, got);
    else
        CHECKF(memcmp(&got, &v, sizeof v) == 0, "%s: bit-exact, got %.17g", label, got);
    PrefsRelease(back);
    PrefsRelease(xml);
    PrefsRelease(n);
}

static PrefsPropertyListRef nested_arrays(int depth, PrefsPropertyListRef innermost /* consumed */)
{
    PrefsPropertyListRef v = innermost;
    int i;
    for (i = 0; i < depth; i++) {
        PrefsPropertyListRef one[1];
        PrefsArrayRef a;
        one[0] = v;
        a = PrefsArrayCreate(one, v == NULL ? 0 : 1);
        PrefsRelease(v);
        v = a;
    }
    return v;
}

static PrefsPropertyListRef nested_dicts(int depth, PrefsPropertyListRef innermost /* consumed */)
{
    PrefsPropertyListRef v = innermost;
    int i;
    for (i = 0; i < depth; i++) {
        const char *k[1] = {"k"};
        PrefsPropertyListRef one[1];
        PrefsDictionaryRef d;
        one[0] = v;
        d = PrefsDictionaryCreate(k, one, v == NULL ? 0 : 1);
        PrefsRelease(v);
        v = d;
    }
    return v;
}

static void test_round_trips(void)
{
    static const int64_t ints[] = {0,
                                   1,
                                   -1,
                                   42,
                                   -42,
                                   INT32_MAX,
                                   INT32_MIN,
                                   INT64_MAX,
                                   INT64_MIN,
                                   INT64_MAX - 1,
                                   INT64_MIN + 1,
                                   INT64_C(9007199254740993)};
    static const uint64_t uints[] = {UINT64_MAX, UINT64_MAX - 1, UINT64_C(9223372036854775808),
                                     UINT64_C(12345678901234567890)};
    static const char *const strings[] = {
        "",
        "x",
        " ",
        "  leading and trailing  ",
        "\t\n\r",
        "\r\n",
        "\r",
        "line1\nline2\n",
        "<tag attr=\"v\"> & ]]> \"' &amp;",
        "<![CDATA[not cdata]]>",
        "42",
        "-0x10",
        "true",
        "caf\xc3\xa9",
        "cafe\xcc\x81",
        "\xef\xbf\xbd",
        "\xf4\x8f\xbf\xbf",
        "\xf0\x9f\x98\x80\xf0\x9f\x8e\x89",
        "\xe4\xb8\xad\xe6\x96\x87",
        "\xd7\xa2\xd7\x91\xd7\xa8\xd7\x99\xd7\xaa",
        "\xc2\x85 next line",
        "\xe2\x80\xa8 line separator",
        "\xef\xbb\xbf starts with a BOM",
    };
    double reals[] = {0.0,
                      -0.0,
                      0.1,
                      1.0 / 3.0,
                      2.0 / 3.0,
                      1e21,
                      1e22,
                      1e-7,
                      123456789012345680.0,
                      DBL_MAX,
                      -DBL_MAX,
                      DBL_MIN,
                      4.9406564584124654e-324,
                      DBL_EPSILON,
                      1.0 + DBL_EPSILON,
                      9007199254740994.0,
                      -1.5,
                      100.0,
                      1e100,
                      3.141592653589793,
                      NAN,
                      INFINITY,
                      -INFINITY};
    static const double dates[] = {
        0.0,         1.0,          -1.0, 1e9, 1700000000.0, -62135596800.0, 253402300799.0,
        951782400.0, -2208988800.0 /* 1900-01-01 */};
    static const size_t data_sizes[] = {0, 1, 2, 3, 4, 5, 56, 57, 58, 59, 100, 1000, 5000};
    size_t i;
    char label[128];

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        PrefsPropertyListRef v = i64(ints[i]);
        PrefsDataRef xml;
        snprintf(label, sizeof label, "integer %lld", (long long)ints[i]);
        check_round_trip(label, v);
        /* The integer is written in decimal, digit for digit. */
        xml = PrefsPropertyListCreateXMLData(v, NULL);
        if (xml != NULL) {
            char want[64];
            snprintf(want, sizeof want, "<integer>%lld</integer>", (long long)ints[i]);
            CHECKF(contains_bytes(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), want),
                   "%s written as %s", label, want);
        }
        PrefsRelease(xml);
        PrefsRelease(v);
    }
    for (i = 0; i < sizeof uints / sizeof uints[0]; i++) {
        PrefsPropertyListRef v = u64(uints[i]);
        PrefsDataRef xml;
        snprintf(label, sizeof label, "unsigned integer %llu", (unsigned long long)uints[i]);
        check_round_trip(label, v);
        xml = PrefsPropertyListCreateXMLData(v, NULL);
        if (xml != NULL) {
            char want[64];
            snprintf(want, sizeof want, "<integer>%llu</integer>", (unsigned long long)uints[i]);
            CHECKF(contains_bytes(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), want),
                   "%s written as %s", label, want);
        }
        PrefsRelease(xml);
        PrefsRelease(v);
    }
    for (i = 0; i < sizeof reals / sizeof reals[0]; i++)
        check_real_round_trip(reals[i]);
    for (i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        PrefsPropertyListRef v = str(strings[i]);
        const char *keys[1];
        PrefsPropertyListRef values[1];
        PrefsDictionaryRef d;
        snprintf(label, sizeof label, "string #%zu", i);
        check_round_trip(label, v);
        /* The same text as a key. */
        keys[0] = strings[i];
        values[0] = v;
        d = PrefsDictionaryCreate(keys, values, 1);
        snprintf(label, sizeof label, "key #%zu", i);
        check_round_trip(label, d);
        PrefsRelease(d);
        PrefsRelease(v);
    }
    /* A string of 100,000 characters. */
    {
        size_t n = 100000;
        char *big = malloc(n + 1);
        if (big != NULL) {
            PrefsPropertyListRef v;
            for (i = 0; i < n; i++)
                big[i] = "abc &<>\r\n\t"[i % 11];
            big[n] = '\0';
            v = str(big);
            check_round_trip("100,000-character string", v);
            PrefsRelease(v);
            free(big);
        }
    }
    {
        PrefsPropertyListRef t = boolean(true), f = boolean(false);
        check_round_trip("true", t);
        check_round_trip("false", f);
        PrefsRelease(t);
        PrefsRelease(f);
    }
    for (i = 0; i < sizeof dates / sizeof dates[0]; i++) {
        PrefsPropertyListRef v = date(dates[i]);
        snprintf(label, sizeof label, "date %.0f", dates[i]);
        check_round_trip(label, v);
        PrefsRelease(v);
    }
    {
        uint8_t *bytes = malloc(5000);
        if (bytes != NULL) {
            for (i = 0; i < 5000; i++)
                bytes[i] = (uint8_t)(i ^ (i >> 8));
            for (i = 0; i < sizeof data_sizes / sizeof data_sizes[0]; i++) {
                PrefsPropertyListRef v = data(bytes, data_sizes[i]);
                snprintf(label, sizeof label, "%zu bytes of data", data_sizes[i]);
                check_round_trip(label, v);
                PrefsRelease(v);
            }
            free(bytes);
        }
    }
    /* Containers. */
    {
        PrefsPropertyListRef v = build_document_value();
        PrefsPropertyListRef items[3];
        PrefsPropertyListRef arr;
        const char *keys[2] = {"caf\xc3\xa9", "cafe\xcc\x81"}; /* two distinct keys */
        PrefsPropertyListRef values[2];

        /* The reference document has fractional dates; all else round-trips. */
        items[0] = PrefsRetain(PrefsDictionaryGetValue(v, "nested"));
        items[1] = PrefsRetain(PrefsDictionaryGetValue(v, "reals"));
        items[2] = PrefsRetain(PrefsDictionaryGetValue(v, "escaped"));
        arr = array_take(3, items);
        check_round_trip("containers from the reference document", arr);
        PrefsRelease(arr);
        PrefsRelease(v);

        values[0] = i64(1);
        values[1] = i64(2);
        v = dict_take(2, keys, values);
        CHECK(PrefsDictionaryGetCount(v) == 2);
        check_round_trip("keys differing only in normalisation", v);
        PrefsRelease(v);
    }
    /* Deep nesting up to PREFS_MAX_NESTING arrays and dictionaries. */
    {
        PrefsPropertyListRef v;
        v = nested_arrays(PREFS_MAX_NESTING, NULL);
        check_round_trip("256 nested arrays, the innermost empty", v);
        PrefsRelease(v);
        v = nested_dicts(PREFS_MAX_NESTING, NULL);
        check_round_trip("256 nested dictionaries, the innermost empty", v);
        PrefsRelease(v);
        v = nested_arrays(PREFS_MAX_NESTING - 1, str("leaf"));
        check_round_trip("255 nested arrays around a string", v);
        PrefsRelease(v);
        v = nested_dicts(PREFS_MAX_NESTING / 2 - 1, nested_arrays(PREFS_MAX_NESTING / 2, i64(1)));
        check_round_trip("127 dictionaries around 128 arrays around an integer", v);
        PrefsRelease(v);
        /* The header counts element levels: 256 containers around a scalar
         * are one level too many, and building them is refused. */
        v = nested_arrays(PREFS_MAX_NESTING, str("leaf"));
        CHECKF(v == NULL, "256 nested arrays around a string: refused");
        CHECK_LAST_ERROR(kPrefsErrorTooDeep, "building 256 nested arrays around a string");
        PrefsRelease(v);
    }
    /* The same 256 arrays around a string, as text for the reader: refused. */
    {
        size_t cap = 64 + (size_t)PREFS_MAX_NESTING * 16, used = 0;
        char *doc = malloc(cap);
        int k;
        if (doc != NULL) {
            PrefsPropertyListRef v;
            used += (size_t)sprintf(doc + used, "<plist version=\"1.0\">");
            for (k = 0; k < PREFS_MAX_NESTING; k++)
                used += (size_t)sprintf(doc + used, "<array>");
            used += (size_t)sprintf(doc + used, "<string>leaf</string>");
            for (k = 0; k < PREFS_MAX_NESTING; k++)
                used += (size_t)sprintf(doc + used, "</array>");
            used += (size_t)sprintf(doc + used, "</plist>");
            {
                PrefsErrorRef err = NULL;
                v = PrefsPropertyListCreateWithData(doc, used, &err);
                CHECKF(v == NULL, "reading 256 nested arrays around a string: refused");
                CHECK_ERROR(err, kPrefsErrorTooDeep, "line", "reading 256 nested arrays around a string");
                PrefsRelease(err);
            }
            PrefsRelease(v);
            free(doc);
        }
    }
    /* One level deeper cannot be written unreadably: either building it or
     * writing it is refused with kPrefsErrorTooDeep. */
    {
        PrefsErrorRef err = NULL;
        PrefsPropertyListRef v = nested_arrays(PREFS_MAX_NESTING, NULL);
        PrefsPropertyListRef one[1];
        PrefsArrayRef deeper;
        one[0] = v;
        deeper = v != NULL ? PrefsArrayCreate(one, 1) : NULL;
        if (deeper == NULL) {
            CHECK(v != NULL);
            CHECK_LAST_ERROR(kPrefsErrorTooDeep, "building 257 nested arrays");
        } else {
            PrefsDataRef xml = PrefsPropertyListCreateXMLData(deeper, &err);
            CHECK(xml == NULL);
            CHECK_LAST_ERROR(kPrefsErrorTooDeep, "writing 257 nested arrays");
            CHECK_ERROR(err, kPrefsErrorTooDeep, NULL, "writing 257 nested arrays");
            PrefsRelease(err);
            PrefsRelease(xml);
        }
        PrefsRelease(deeper);
        PrefsRelease(v);
    }
}

/* ------------------------------------------------------------------ */
/* Reading what other writers produce                                   */
/* ------------------------------------------------------------------ */

static PrefsPropertyListRef parse(const char *label, const void *bytes, size_t n)
{
    PrefsErrorRef err = NULL;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(bytes, n, &err);
    CHECKF(v != NULL && err == NULL, "%s: parsed", label);
    if (v == NULL && err != NULL) {
        char *d = PrefsErrorCopyDescription(err);
        fprintf(stderr, "    error %s: %s\n", support_code_name((int)PrefsErrorGetCode(err)), d ? d : "");
        PrefsFree(d);
    }
    PrefsRelease(err);
    return v;
}

#define PARSE(label, text) parse((label), (text), sizeof(text) - 1)

/* Parses `text` and checks that it equals `expected` (consumed). */
static void check_parse(const char *label, const char *text, size_t n, PrefsPropertyListRef expected)
{
    PrefsPropertyListRef v = parse(label, text, n);
    if (v != NULL) {
        CHECKF(PrefsEqual(v, expected), "%s: the expected value", label);
        if (!PrefsEqual(v, expected)) {
            char *a = PrefsCopyDescription(v), *b = PrefsCopyDescription(expected);
            fprintf(stderr, "    got: %s\n    expected: %s\n", a ? a : "", b ? b : "");
            PrefsFree(a);
            PrefsFree(b);
        }
    }
    PrefsRelease(v);
    PrefsRelease(expected);
}

#define CHECK_PARSE(label, text, expected) check_parse((label), (text), sizeof(text) - 1, (expected))

#define PLIST(body) \
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" body "\n</plist>\n"

static void test_reading_xml(void)
{
    CHECK_PARSE("hex integer", PLIST("<integer>0x1F</integer>"), i64(31));
    CHECK_PARSE("hex integer, capital X and digits", PLIST("<integer>0XfF</integer>"), i64(255));
    CHECK_PARSE("leading zeros stay decimal", PLIST("<integer>010</integer>"), i64(10));
    CHECK_PARSE("largest integer", PLIST("<integer>18446744073709551615</integer>"), u64(UINT64_MAX));
    CHECK_PARSE("largest hex integer", PLIST("<integer>0xFFFFFFFFFFFFFFFF</integer>"), u64(UINT64_MAX));
    CHECK_PARSE("smallest integer", PLIST("<integer>-9223372036854775808</integer>"), i64(INT64_MIN));
    CHECK_PARSE("real nan", PLIST("<real>nan</real>"), dbl(NAN));
    CHECK_PARSE("real inf", PLIST("<real>inf</real>"), dbl(INFINITY));
    CHECK_PARSE("real +inf", PLIST("<real>+inf</real>"), dbl(INFINITY));
    CHECK_PARSE("real -infinity", PLIST("<real>-infinity</real>"), dbl(-INFINITY));
    CHECK_PARSE("real +infinity", PLIST("<real>+infinity</real>"), dbl(INFINITY));
    CHECK_PARSE("real 1e3", PLIST("<real>1e3</real>"), dbl(1000.0));
    CHECK_PARSE("real 5", PLIST("<real>5</real>"), dbl(5.0));
    CHECK_PARSE("real -0.25", PLIST("<real>-0.25</real>"), dbl(-0.25));
    CHECK_PARSE("real 0.1", PLIST("<real>0.1</real>"), dbl(0.1));
    CHECK_PARSE("date", PLIST("<date>2000-02-29T00:00:00Z</date>"), date(951782400.0));
    CHECK_PARSE("date before 1970", PLIST("<date>1900-01-01T00:00:00Z</date>"), date(-2208988800.0));
    CHECK_PARSE("base64 with whitespace", PLIST("<data>\n\taGVs\n\t bG8=\r\n</data>"), data("hello", 5));
    CHECK_PARSE("empty data", PLIST("<data></data>"), data(NULL, 0));
    CHECK_PARSE("empty string", PLIST("<string></string>"), str(""));
    CHECK_PARSE("self-closing string", PLIST("<string/>"), str(""));
    CHECK_PARSE("whitespace in a string is kept", PLIST("<string>  a \n b  </string>"), str("  a \n b  "));
    CHECK_PARSE("the five predefined entities", PLIST("<string>&amp;&lt;&gt;&quot;&apos;</string>"),
                str("&<>\"'"));
    CHECK_PARSE("character references", PLIST("<string>&#65;&#x42;&#13;&#xE9;</string>"),
                str("AB\r\xc3\xa9"));
    CHECK_PARSE("CDATA", PLIST("<string><![CDATA[a<b&c]]></string>"), str("a<b&c"));
    CHECK_PARSE("comments and processing instructions",
                PLIST("<!-- a comment --><array><?pi x?><true/><!-- --><false/></array>"),
                array_take(2, (PrefsPropertyListRef[]){boolean(true), boolean(false)}));
    CHECK_PARSE("no XML declaration", "<plist version=\"1.0\"><string>x</string></plist>", str("x"));
    CHECK_PARSE("Apple's DOCTYPE is accepted and not fetched",
                XML_HEAD "<array><integer>1</integer></array>\n" XML_TAIL,
                array_take(1, (PrefsPropertyListRef[]){i64(1)}));
    CHECK_PARSE("the last of duplicate keys wins",
                PLIST("<dict><key>a</key><integer>1</integer><key>b</key><true/>"
                      "<key>a</key><integer>2</integer></dict>"),
                dict_take(2, (const char *[]){"a", "b"}, (PrefsPropertyListRef[]){i64(2), boolean(true)}));
    CHECK_PARSE("an empty key", PLIST("<dict><key></key><string>v</string></dict>"),
                dict_take(1, (const char *[]){""}, (PrefsPropertyListRef[]){str("v")}));
    CHECK_PARSE("a self-closing key", PLIST("<dict><key/><string>v</string></dict>"),
                dict_take(1, (const char *[]){""}, (PrefsPropertyListRef[]){str("v")}));
    CHECK_PARSE("an empty array and dictionary written long-hand",
                PLIST("<array><array></array><dict></dict></array>"),
                array_take(2, (PrefsPropertyListRef[]){PrefsArrayCreate(NULL, 0),
                                                       PrefsDictionaryCreate(NULL, NULL, 0)}));

    /* Encodings. */
    CHECK_PARSE("UTF-8 with a BOM", "\xef\xbb\xbf" PLIST("<string>caf\xc3\xa9</string>"), str("caf\xc3\xa9"));
    CHECK_PARSE("ISO-8859-1",
                "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist "
                "version=\"1.0\"><string>caf\xe9</string></plist>",
                str("caf\xc3\xa9"));
    {
        static const char doc[] =
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n"
            "<plist version=\"1.0\"><dict><key>k\xc3\xa9</key><string>\xe2\x82\xac</string></dict></plist>\n";
        /* UTF-8 to UTF-16 (the document uses only U+0000...U+FFFF). */
        uint16_t units[sizeof doc];
        uint8_t le[2 * sizeof doc + 2], be[2 * sizeof doc + 2];
        size_t n = 0, i = 0, k;
        while (doc[i] != '\0') {
            unsigned c = (unsigned char)doc[i];
            if (c < 0x80) {
                units[n++] = (uint16_t)c;
                i += 1;
            } else if (c < 0xE0) {
                units[n++] = (uint16_t)((c & 0x1F) << 6 | ((unsigned char)doc[i + 1] & 0x3F));
                i += 2;
            } else {
                units[n++] = (uint16_t)((c & 0x0F) << 12 | ((unsigned char)doc[i + 1] & 0x3F) << 6 |
                                        ((unsigned char)doc[i + 2] & 0x3F));
                i += 3;
            }
        }
        le[0] = 0xFF;
        le[1] = 0xFE;
        be[0] = 0xFE;
        be[1] = 0xFF;
        for (k = 0; k < n; k++) {
            le[2 + 2 * k] = (uint8_t)(units[k] & 0xFF);
            le[3 + 2 * k] = (uint8_t)(units[k] >> 8);
            be[2 + 2 * k] = (uint8_t)(units[k] >> 8);
            be[3 + 2 * k] = (uint8_t)(units[k] & 0xFF);
        }
        check_parse(
            "UTF-16LE with a BOM", (const char *)le, 2 + 2 * n,
            dict_take(1, (const char *[]){"k\xc3\xa9"}, (PrefsPropertyListRef[]){str("\xe2\x82\xac")}));
        check_parse(
            "UTF-16BE with a BOM", (const char *)be, 2 + 2 * n,
            dict_take(1, (const char *[]){"k\xc3\xa9"}, (PrefsPropertyListRef[]){str("\xe2\x82\xac")}));
    }

    /* Only `length` bytes are read: trailing garbage beyond it is ignored. */
    {
        static const char doc[] = PLIST("<string>x</string>") "GARBAGE<<<";
        PrefsPropertyListRef v = parse("a length that excludes trailing bytes", doc, sizeof doc - 1 - 10);
        CHECK(v != NULL && PrefsGetType(v) == kPrefsTypeString);
        if (v != NULL)
            CHECK(strcmp(PrefsStringGetCString(v), "x") == 0);
        PrefsRelease(v);
    }
}

/* ------------------------------------------------------------------ */
/* Old-style (OpenStep) text                                            */
/* ------------------------------------------------------------------ */

static void test_old_style(void)
{
    CHECK_PARSE("(1, 2) is an array of two strings", "(1, 2)",
                array_take(2, (PrefsPropertyListRef[]){str("1"), str("2")}));
    CHECK_PARSE("{a = b;}", "{a = b;}",
                dict_take(1, (const char *[]){"a"}, (PrefsPropertyListRef[]){str("b")}));
    CHECK_PARSE("the header's example", "{ key = value; list = (1, 2); bytes = <0102>; }",
                dict_take(3, (const char *[]){"key", "list", "bytes"},
                          (PrefsPropertyListRef[]){
                              str("value"), array_take(2, (PrefsPropertyListRef[]){str("1"), str("2")}),
                              data("\x01\x02", 2)}));
    CHECK_PARSE("a quoted string", "\"hello, world\"", str("hello, world"));
    CHECK_PARSE("a bare word", "word", str("word"));
    CHECK_PARSE("an empty array", "()", PrefsArrayCreate(NULL, 0));
    CHECK_PARSE("an empty dictionary", "{}", PrefsDictionaryCreate(NULL, NULL, 0));
    CHECK_PARSE("empty data", "<>", data(NULL, 0));
    CHECK_PARSE("data with spaces and capitals", "<0a0B 0c>", data("\x0a\x0b\x0c", 3));
    CHECK_PARSE("nesting and whitespace", " \n ( ( a ) ,\n { \"b c\" = \"d\" ; } ) \n",
                array_take(2, (PrefsPropertyListRef[]){array_take(1, (PrefsPropertyListRef[]){str("a")}),
                                                       dict_take(1, (const char *[]){"b c"},
                                                                 (PrefsPropertyListRef[]){str("d")})}));
    CHECK_PARSE("UTF-8 in a quoted string", "\"caf\xc3\xa9\"", str("caf\xc3\xa9"));
    /* The description is old-style text: it reads back to an equal value. */
    {
        PrefsPropertyListRef v =
            dict_take(3, (const char *[]){"name", "list", "needs quotes"},
                      (PrefsPropertyListRef[]){str("Ada"),
                                               array_take(2, (PrefsPropertyListRef[]){str("x"), str("y z")}),
                                               str("a \"quoted\" \\ value\nwith a newline")});
        char *text = PrefsCopyDescription(v);
        CHECK(text != NULL);
        if (text != NULL) {
            PrefsPropertyListRef back = parse("a description read back", text, strlen(text));
            CHECK(back != NULL && PrefsEqual(back, v));
            PrefsRelease(back);
        }
        PrefsFree(text);
        PrefsRelease(v);
    }
}

/* ------------------------------------------------------------------ */

static void test_out_error(void)
{
    /* outError may be NULL; on success it is left alone. */
    static const char doc[] = PLIST("<true/>");
    PrefsErrorRef sentinel = (PrefsErrorRef)(const void *)&sentinel;
    PrefsErrorRef err = sentinel;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(doc, sizeof doc - 1, &err);
    PrefsDataRef xml;
    CHECK(v != NULL && err == sentinel);
    CHECK_NO_LAST_ERROR("PrefsPropertyListCreateWithData");
    xml = PrefsPropertyListCreateXMLData(v, &err);
    CHECK(xml != NULL && err == sentinel);
    CHECK_NO_LAST_ERROR("PrefsPropertyListCreateXMLData");
    PrefsRelease(xml);
    PrefsRelease(v);
    v = PrefsPropertyListCreateWithData(doc, sizeof doc - 1, NULL);
    CHECK(v != NULL);
    PrefsRelease(v);
}

int main(void)
{
    test_exact_format();
    test_round_trips();
    test_reading_xml();
    test_old_style();
    test_out_error();
    return CHECK_FINISH();
}
