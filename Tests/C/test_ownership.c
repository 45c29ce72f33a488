/*
 * test_ownership.c — the reference-counting rules of <prefs/Prefs.h>:
 * Create/Copy return +1 references, Get returns borrowed values that live
 * as long as their parent, Retain/Release balance, NULL is a no-op, and
 * nothing leaks (resident memory stays flat over 100,000 object graphs).
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "support.h"

/* Resident set size in bytes, from /proc/self/statm; 0 if unknown. */
static size_t resident_bytes(void)
{
    unsigned long size = 0, resident = 0;
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return (size_t)resident * (size_t)(page > 0 ? page : 4096);
}

/* Allocates and frees a lot of objects, so that memory freed too early is
 * likely to be reused and overwritten. */
static void churn(void)
{
    int i;
    for (i = 0; i < 2000; i++) {
        char text[64];
        PrefsStringRef s;
        PrefsDataRef d;
        snprintf(text, sizeof text, "churn churn churn churn %d", i);
        s = PrefsStringCreate(text);
        d = PrefsDataCreate(text, strlen(text));
        PrefsRelease(s);
        PrefsRelease(d);
    }
}

/* ------------------------------------------------------------------ */

static void test_borrowed_values_outlive_own_references(void)
{
    static const char text[] = "a child string that should outlive its creator's reference";
    uint8_t bytes[1000];
    PrefsStringRef s;
    PrefsDataRef data;
    PrefsArrayRef inner;
    PrefsDictionaryRef dict;
    PrefsPropertyListRef items[2];
    const char *keys[3] = {"s", "arr", "data"};
    PrefsPropertyListRef values[3];
    const char *early_cstring;
    const uint8_t *early_bytes;
    size_t i;

    for (i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7 + 3);
    s = PrefsStringCreate(text);
    data = PrefsDataCreate(bytes, sizeof bytes);
    CHECK(s != NULL && data != NULL);
    items[0] = s;
    items[1] = data;
    inner = PrefsArrayCreate(items, 2);
    values[0] = s;
    values[1] = inner;
    values[2] = data;
    dict = PrefsDictionaryCreate(keys, values, 3);
    CHECK(inner != NULL && dict != NULL);
    if (dict == NULL || inner == NULL)
        return;

    /* Borrowed pointers taken while the caller still holds the children... */
    early_cstring = PrefsStringGetCString(s);
    early_bytes = PrefsDataGetBytePtr(data);

    /* ...stay valid after the caller lets its own references go. */
    PrefsRelease(s);
    PrefsRelease(data);
    PrefsRelease(inner);
    churn();

    CHECK(strcmp(early_cstring, text) == 0);
    CHECK(memcmp(early_bytes, bytes, sizeof bytes) == 0);
    {
        PrefsStringRef s2 = PrefsDictionaryGetValue(dict, "s");
        PrefsArrayRef arr = PrefsDictionaryGetValue(dict, "arr");
        PrefsDataRef d2 = PrefsDictionaryGetValue(dict, "data");
        PrefsStringRef s3;
        PrefsDataRef d3;
        const char *c2;
        const uint8_t *b2;

        CHECK(s2 != NULL && arr != NULL && d2 != NULL);
        if (s2 == NULL || arr == NULL || d2 == NULL)
            goto done;
        c2 = PrefsStringGetCString(s2);
        b2 = PrefsDataGetBytePtr(d2);
        CHECK(strcmp(c2, text) == 0);
        CHECK(PrefsStringGetLength(s2) == strlen(text));
        CHECK(PrefsDataGetLength(d2) == sizeof bytes && memcmp(b2, bytes, sizeof bytes) == 0);
        CHECK(PrefsArrayGetCount(arr) == 2);
        s3 = PrefsArrayGetValueAtIndex(arr, 0);
        d3 = PrefsArrayGetValueAtIndex(arr, 1);
        CHECK(s3 != NULL && d3 != NULL);
        if (s3 == NULL || d3 == NULL)
            goto done;
        CHECK(strcmp(PrefsStringGetCString(s3), text) == 0);
        CHECK(memcmp(PrefsDataGetBytePtr(d3), bytes, sizeof bytes) == 0);

        /* Borrowed pointers fetched earlier stay valid while the parent lives. */
        churn();
        CHECK(strcmp(c2, text) == 0);
        CHECK(memcmp(b2, bytes, sizeof bytes) == 0);

        /* Retaining a borrowed value keeps it beyond its parent. */
        CHECK(PrefsRetain(s3) == s3);
        CHECK(PrefsRetain(arr) == arr);
        PrefsRelease(dict);
        dict = NULL;
        churn();
        CHECK(strcmp(PrefsStringGetCString(s3), text) == 0);
        CHECK(PrefsArrayGetCount(arr) == 2);
        CHECK(memcmp(PrefsDataGetBytePtr(PrefsArrayGetValueAtIndex(arr, 1)), bytes, sizeof bytes) == 0);
        PrefsRelease(arr);
        churn();
        CHECK(strcmp(PrefsStringGetCString(s3), text) == 0);
        PrefsRelease(s3);
    }
done:
    PrefsRelease(dict);
}

static void test_copy_keys_outlive_dictionary(void)
{
    const char *keys[3] = {"gamma", "alpha", "beta"};
    PrefsPropertyListRef values[3];
    PrefsDictionaryRef dict;
    PrefsArrayRef copied;
    PrefsStringRef v = PrefsStringCreate("v");
    const char *first;

    values[0] = v;
    values[1] = v;
    values[2] = v;
    dict = PrefsDictionaryCreate(keys, values, 3);
    PrefsRelease(v);
    copied = PrefsDictionaryCopyKeys(dict);
    PrefsRelease(dict);
    churn();
    CHECK(copied != NULL && PrefsArrayGetCount(copied) == 3);
    if (copied == NULL || PrefsArrayGetCount(copied) != 3) {
        PrefsRelease(copied);
        return;
    }
    first = PrefsStringGetCString(PrefsArrayGetValueAtIndex(copied, 0));
    CHECK(strcmp(first, "alpha") == 0);
    CHECK(strcmp(PrefsStringGetCString(PrefsArrayGetValueAtIndex(copied, 2)), "gamma") == 0);
    PrefsRelease(copied);
}

static void test_xml_data_outlives_value(void)
{
    PrefsStringRef s = PrefsStringCreate("serialised");
    PrefsDataRef xml = PrefsPropertyListCreateXMLData(s, NULL);
    const uint8_t *p;
    size_t n;
    CHECK(xml != NULL);
    PrefsRelease(s);
    churn();
    if (xml == NULL)
        return;
    p = PrefsDataGetBytePtr(xml);
    n = PrefsDataGetLength(xml);
    CHECK(n > 20 && memcmp(p, "<?xml", 5) == 0);
    PrefsRelease(xml);
}

static void test_retain_release_patterns(void)
{
    static const char text[] = "counted";
    PrefsStringRef s = PrefsStringCreate(text);
    PrefsPropertyListRef holders[64];
    PrefsErrorRef err;
    int i;

    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK(PrefsRetain(NULL) == NULL);
    PrefsRelease(NULL);
    PrefsFree(NULL);

    /* Retain returns its argument. */
    CHECK(PrefsRetain(s) == s);
    PrefsRelease(s);

    /* Many retains, then as many releases: still alive. */
    for (i = 0; i < 1000; i++)
        PrefsRetain(s);
    for (i = 0; i < 1000; i++)
        PrefsRelease(s);
    churn();
    CHECK(strcmp(PrefsStringGetCString(s), text) == 0);

    /* Interleaved: containers and direct retains holding the same object. */
    for (i = 0; i < 64; i++) {
        if (i % 3 == 0) {
            PrefsPropertyListRef one[1];
            one[0] = s;
            holders[i] = PrefsArrayCreate(one, 1);
        } else if (i % 3 == 1) {
            const char *k[1] = {"k"};
            PrefsPropertyListRef one[1];
            one[0] = s;
            holders[i] = PrefsDictionaryCreate(k, one, 1);
        } else {
            holders[i] = PrefsRetain(s);
        }
        CHECK(holders[i] != NULL);
    }
    /* Release in an order unrelated to creation. */
    for (i = 0; i < 64; i++) {
        int j = (i * 37) % 64;
        PrefsRelease(holders[j]);
        holders[j] = NULL;
        if (i % 16 == 0) {
            churn();
            CHECK(strcmp(PrefsStringGetCString(s), text) == 0);
        }
    }
    churn();
    CHECK(strcmp(PrefsStringGetCString(s), text) == 0);
    CHECK(PrefsStringGetLength(s) == strlen(text));
    PrefsRelease(s);

    /* Errors are objects with the same rules. */
    PrefsRelease(PrefsStringCreate("\xff"));
    err = PrefsCopyLastError();
    CHECK(err != NULL);
    CHECK(PrefsRetain(err) == err);
    PrefsRelease(err);
    CHECK(err != NULL && PrefsErrorGetCode(err) == kPrefsErrorInvalidArgument);
    PrefsRelease(err);

    /* Description strings are freed with PrefsFree. */
    {
        PrefsNumberRef n = PrefsNumberCreateInt64(12345);
        char *d = PrefsCopyDescription(n);
        CHECK(d != NULL && strstr(d, "12345") != NULL);
        PrefsFree(d);
        PrefsRelease(n);
    }
}

/* ------------------------------------------------------------------ */
/* Leak checks                                                          */
/* ------------------------------------------------------------------ */

/* One object graph of roughly 3 KB: a dictionary holding a long string, 1 KB
 * of data, an array of numbers and a nested dictionary. */
static PrefsDictionaryRef make_graph(int seed)
{
    char text[1024];
    uint8_t bytes[1024];
    PrefsStringRef s;
    PrefsDataRef d;
    PrefsPropertyListRef numbers[8];
    PrefsArrayRef arr;
    PrefsDictionaryRef inner, outer;
    const char *inner_keys[2] = {"s", "d"};
    PrefsPropertyListRef inner_values[2];
    const char *outer_keys[4] = {"text", "bytes", "numbers", "inner"};
    PrefsPropertyListRef outer_values[4];
    int i;

    memset(text, 'a' + seed % 26, sizeof text - 1);
    text[sizeof text - 1] = '\0';
    memset(bytes, seed & 0xFF, sizeof bytes);
    s = PrefsStringCreate(text);
    d = PrefsDataCreate(bytes, sizeof bytes);
    for (i = 0; i < 8; i++)
        numbers[i] = (i % 2) ? PrefsNumberCreateInt64(seed + i) : PrefsNumberCreateDouble(seed * 0.5 + i);
    arr = PrefsArrayCreate(numbers, 8);
    inner_values[0] = s;
    inner_values[1] = d;
    inner = PrefsDictionaryCreate(inner_keys, inner_values, 2);
    outer_values[0] = s;
    outer_values[1] = d;
    outer_values[2] = arr;
    outer_values[3] = inner;
    outer = PrefsDictionaryCreate(outer_keys, outer_values, 4);
    PrefsRelease(s);
    PrefsRelease(d);
    for (i = 0; i < 8; i++)
        PrefsRelease(numbers[i]);
    PrefsRelease(arr);
    PrefsRelease(inner);
    return outer;
}

/* Uses the graph the way a program would: borrowed reads, retains, copies. */
static int use_graph(PrefsDictionaryRef g)
{
    PrefsDictionaryRef inner = PrefsDictionaryGetValue(g, "inner");
    PrefsStringRef s = PrefsDictionaryGetValue(inner, "s");
    PrefsArrayRef keys = PrefsDictionaryCopyKeys(g);
    PrefsArrayRef numbers = PrefsDictionaryGetValue(g, "numbers");
    int ok = inner != NULL && s != NULL && keys != NULL && numbers != NULL;
    if (ok) {
        PrefsTypeRef kept = PrefsRetain(PrefsArrayGetValueAtIndex(numbers, 3));
        int64_t v = 0;
        ok = strlen(PrefsStringGetCString(s)) == 1023 && PrefsArrayGetCount(keys) == 4 &&
             PrefsNumberGetInt64(kept, &v);
        PrefsRelease(kept);
    }
    PrefsRelease(keys);
    return ok;
}

#define MB(x) ((double)(x) / (1024.0 * 1024.0))

/* Runs body(i) for warmup iterations, then for n more, and checks that the
 * resident set grew by less than `limit` bytes over the n iterations. */
static void check_flat_memory(const char *what, int (*body)(int), int warmup, int n, size_t limit)
{
    size_t before, after;
    int i, bad = 0;

    for (i = 0; i < warmup; i++)
        bad += !body(i);
    before = resident_bytes();
    for (i = 0; i < n; i++)
        bad += !body(warmup + i);
    after = resident_bytes();
    CHECKF(bad == 0, "%s: %d iterations went wrong", what, bad);
    if (CHECK_ASAN) {
        /* AddressSanitizer holds freed memory in quarantine, so resident
         * memory grows anyway; LeakSanitizer judges leaks at exit. */
        printf("  %-40s %6d iterations: RSS not compared under AddressSanitizer\n", what, n);
        return;
    }
    CHECK(before != 0 && after != 0);
    CHECKF(after < before + limit, "%s: resident memory grew from %.1f MB to %.1f MB over %d iterations",
           what, MB(before), MB(after), n);
    printf("  %-40s %6d iterations: RSS %.1f MB -> %.1f MB\n", what, n, MB(before), MB(after));
}

static int body_graph(int i)
{
    PrefsDictionaryRef g = make_graph(i);
    int ok = g != NULL && use_graph(g);
    PrefsRelease(g);
    return ok;
}

static int body_description(int i)
{
    PrefsDictionaryRef g = make_graph(i);
    char *d = PrefsCopyDescription(g);
    int ok = d != NULL && strlen(d) > 2048;
    PrefsFree(d);
    PrefsRelease(g);
    return ok;
}

static int body_xml_round_trip(int i)
{
    PrefsDictionaryRef g = make_graph(i);
    PrefsDataRef xml = PrefsPropertyListCreateXMLData(g, NULL);
    PrefsPropertyListRef back = NULL;
    int ok;
    if (xml != NULL)
        back = PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), NULL);
    ok = xml != NULL && back != NULL && PrefsEqual(g, back);
    PrefsRelease(back);
    PrefsRelease(xml);
    PrefsRelease(g);
    return ok;
}

/* A document that fails late, after a large partial tree has been built. */
static char *failing_document;
static size_t failing_length;

static void build_failing_document(void)
{
    const char *head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n";
    const char *tail = "\t<key>bad</key>\n\t<integer>not a number</integer>\n</dict>\n</plist>\n";
    size_t cap = 64 * 1024, used = 0;
    int i;
    failing_document = malloc(cap);
    if (failing_document == NULL)
        return;
    used += (size_t)sprintf(failing_document + used, "%s", head);
    for (i = 0; i < 16; i++) {
        used += (size_t)sprintf(failing_document + used, "\t<key>k%d</key>\n\t<string>", i);
        memset(failing_document + used, 'x', 256);
        used += 256;
        used += (size_t)sprintf(failing_document + used, "</string>\n");
    }
    used += (size_t)sprintf(failing_document + used, "%s", tail);
    failing_length = used;
}

static int body_failed_parse(int i)
{
    PrefsErrorRef err = NULL;
    PrefsErrorRef last;
    PrefsPropertyListRef v;
    char *d;
    int ok;
    (void)i;
    v = PrefsPropertyListCreateWithData(failing_document, failing_length, &err);
    last = PrefsCopyLastError();
    d = PrefsErrorCopyDescription(err);
    ok = v == NULL && err != NULL && last != NULL && d != NULL &&
         PrefsErrorGetCode(err) == kPrefsErrorMalformed;
    PrefsFree(d);
    PrefsRelease(last);
    PrefsRelease(err);
    PrefsRelease(v);
    return ok;
}

static int body_refused_xml(int i)
{
    /* A string XML cannot carry, deep in a graph: the write is refused. */
    PrefsDictionaryRef g = make_graph(i);
    PrefsStringRef bad = PrefsStringCreate("bell\x07");
    PrefsPropertyListRef items[2];
    PrefsArrayRef arr;
    PrefsErrorRef err = NULL;
    PrefsDataRef xml;
    int ok;
    items[0] = g;
    items[1] = bad;
    arr = PrefsArrayCreate(items, 2);
    xml = PrefsPropertyListCreateXMLData(arr, &err);
    ok = xml == NULL && err != NULL && PrefsErrorGetCode(err) == kPrefsErrorUnrepresentable;
    PrefsRelease(xml);
    PrefsRelease(err);
    PrefsRelease(arr);
    PrefsRelease(bad);
    PrefsRelease(g);
    return ok;
}

static int body_cstrings(int i)
{
    /* PrefsStringGetCString may build its C string lazily; it must be freed
     * with the string. */
    char text[2048];
    PrefsStringRef s;
    int ok;
    memset(text, 'a' + i % 26, sizeof text - 1);
    text[sizeof text - 1] = '\0';
    s = PrefsStringCreate(text);
    ok = s != NULL && strlen(PrefsStringGetCString(s)) == sizeof text - 1;
    PrefsRelease(s);
    return ok;
}

static void test_no_leaks(void)
{
    const size_t limit = 32u * 1024u * 1024u;

    /* 100,000 graphs of ~3 KB: a leak of the graph would add ~300 MB. */
    check_flat_memory("create/use/release graphs", body_graph, 5000, 100000, limit);
    /* 100,000 strings of 2 KB with their C strings: ~200 MB if leaked. */
    check_flat_memory("strings and their C strings", body_cstrings, 5000, 100000, limit);
    /* Each description is > 2 KB. */
    check_flat_memory("descriptions", body_description, 2000, 30000, limit);
    /* Each round trip makes ~5 KB of XML and a second graph. */
    check_flat_memory("XML write and read back", body_xml_round_trip, 2000, 30000, limit);
    /* Each failed parse builds ~4 KB of strings before it fails. */
    build_failing_document();
    CHECK(failing_document != NULL);
    if (failing_document != NULL)
        check_flat_memory("failed parses and their errors", body_failed_parse, 2000, 50000, limit);
    free(failing_document);
    check_flat_memory("refused XML writes", body_refused_xml, 2000, 30000, limit);
}

int main(void)
{
    test_borrowed_values_outlive_own_references();
    test_copy_keys_outlive_dictionary();
    test_xml_data_outlives_value();
    test_retain_release_patterns();
    test_no_leaks();
    return CHECK_FINISH();
}
