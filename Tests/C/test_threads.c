/*
 * test_threads.c — objects are immutable and shared between threads freely;
 * every function is thread-safe; PrefsCopyLastError is per thread.
 *
 * Many threads read one nested value at once (borrowed reads, C strings
 * made on first use, retain/release of shared children, serialisation and
 * parsing), then check it is intact. Then threads fail and succeed in
 * lock-step and each checks that it sees its own last error.
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support.h"

#define THREADS 16
#define ITEMS 1000
#define ITERATIONS 3000
#define BLOB 4096

static PrefsDictionaryRef shared_root;
static const uint8_t *expected_xml;
static size_t expected_xml_length;
static PrefsDataRef expected_xml_data;
static pthread_barrier_t start_line;

static void item_text(char *buffer, size_t size, int i)
{
    snprintf(buffer, size, "item-%d-%s", i, (i % 3 == 0) ? "caf\xc3\xa9" : "plain");
}

static uint8_t blob_byte(size_t i)
{
    return (uint8_t)(i * 31 + 7);
}

/* {items: [1000 strings], numbers: [1000 integers], blob: <4 KB>,
 *  nested: {deep: [[...]] 20 levels around "bottom"}} */
static PrefsDictionaryRef build_root(void)
{
    PrefsPropertyListRef strings[ITEMS], numbers[ITEMS];
    PrefsArrayRef items, nums;
    PrefsPropertyListRef deep;
    PrefsDataRef blob;
    PrefsDictionaryRef nested, root;
    uint8_t bytes[BLOB];
    const char *nested_keys[1] = {"deep"};
    const char *keys[4] = {"items", "numbers", "blob", "nested"};
    PrefsPropertyListRef values[4];
    PrefsPropertyListRef one[1];
    char text[64];
    int i;

    for (i = 0; i < ITEMS; i++) {
        item_text(text, sizeof text, i);
        strings[i] = PrefsStringCreate(text);
        numbers[i] = PrefsNumberCreateInt64((int64_t)i * 1000003);
    }
    items = PrefsArrayCreate(strings, ITEMS);
    nums = PrefsArrayCreate(numbers, ITEMS);
    for (i = 0; i < ITEMS; i++) {
        PrefsRelease(strings[i]);
        PrefsRelease(numbers[i]);
    }
    for (i = 0; i < BLOB; i++)
        bytes[i] = blob_byte((size_t)i);
    blob = PrefsDataCreate(bytes, BLOB);
    deep = PrefsStringCreate("bottom");
    for (i = 0; i < 20; i++) {
        PrefsArrayRef a;
        one[0] = deep;
        a = PrefsArrayCreate(one, 1);
        PrefsRelease(deep);
        deep = a;
    }
    one[0] = deep;
    nested = PrefsDictionaryCreate(nested_keys, one, 1);
    values[0] = items;
    values[1] = nums;
    values[2] = blob;
    values[3] = nested;
    root = PrefsDictionaryCreate(keys, values, 4);
    PrefsRelease(items);
    PrefsRelease(nums);
    PrefsRelease(blob);
    PrefsRelease(deep);
    PrefsRelease(nested);
    return root;
}

/* Reads everything of `root` that a reader would; returns 1 when it all matched. */
static int verify_root(PrefsDictionaryRef root, int thorough)
{
    PrefsArrayRef items = PrefsDictionaryGetValue(root, "items");
    PrefsArrayRef nums = PrefsDictionaryGetValue(root, "numbers");
    PrefsDataRef blob = PrefsDictionaryGetValue(root, "blob");
    PrefsDictionaryRef nested = PrefsDictionaryGetValue(root, "nested");
    PrefsPropertyListRef deep;
    char text[64];
    int i, ok = 1;

    if (items == NULL || nums == NULL || blob == NULL || nested == NULL)
        return 0;
    if (PrefsArrayGetCount(items) != ITEMS || PrefsArrayGetCount(nums) != ITEMS ||
        PrefsDataGetLength(blob) != BLOB)
        return 0;
    for (i = 0; i < ITEMS; i += thorough ? 1 : 97) {
        int64_t v = -1;
        item_text(text, sizeof text, i);
        ok &= strcmp(PrefsStringGetCString(PrefsArrayGetValueAtIndex(items, (size_t)i)), text) == 0;
        ok &=
            PrefsNumberGetInt64(PrefsArrayGetValueAtIndex(nums, (size_t)i), &v) && v == (int64_t)i * 1000003;
    }
    for (i = 0; i < BLOB; i += thorough ? 1 : 61)
        ok &= PrefsDataGetBytePtr(blob)[i] == blob_byte((size_t)i);
    deep = PrefsDictionaryGetValue(nested, "deep");
    for (i = 0; i < 19 && deep != NULL; i++)
        deep = PrefsArrayGetValueAtIndex(deep, 0);
    ok &= deep != NULL && PrefsArrayGetCount(deep) == 1 &&
          strcmp(PrefsStringGetCString(PrefsArrayGetValueAtIndex(deep, 0)), "bottom") == 0;
    return ok;
}

struct reader_result {
    int id;
    unsigned long mismatches;
};

static void *reader(void *arg)
{
    struct reader_result *result = arg;
    int id = result->id;
    PrefsArrayRef items = PrefsDictionaryGetValue(shared_root, "items");
    PrefsArrayRef nums = PrefsDictionaryGetValue(shared_root, "numbers");
    PrefsDataRef blob = PrefsDictionaryGetValue(shared_root, "blob");
    char text[64];
    int it;

    pthread_barrier_wait(&start_line);
    for (it = 0; it < ITERATIONS; it++) {
        /* Every thread walks the items in its own order, so that C strings
         * are made on first use by whichever thread gets there first. */
        size_t idx = (size_t)((id * 7919 + it * 31) % ITEMS);
        PrefsStringRef s = PrefsArrayGetValueAtIndex(items, idx);
        PrefsTypeRef kept;
        const char *c;

        item_text(text, sizeof text, (int)idx);
        c = PrefsStringGetCString(s);
        if (c == NULL || strcmp(c, text) != 0 || PrefsStringGetLength(s) != strlen(text))
            result->mismatches++;

        /* Retain and release shared objects from every thread at once. */
        kept = PrefsRetain(s);
        PrefsRetain(shared_root);
        PrefsRetain(items);
        if (strcmp(PrefsStringGetCString(kept), text) != 0)
            result->mismatches++;
        PrefsRelease(items);
        PrefsRelease(shared_root);
        PrefsRelease(kept);

        /* Containers made on this thread retain the shared children. */
        {
            PrefsPropertyListRef two[2];
            PrefsArrayRef mine;
            two[0] = s;
            two[1] = blob;
            mine = PrefsArrayCreate(two, 2);
            if (mine == NULL || PrefsArrayGetCount(mine) != 2 ||
                !PrefsEqual(PrefsArrayGetValueAtIndex(mine, 0), s))
                result->mismatches++;
            PrefsRelease(mine);
        }
        {
            int64_t v = -1;
            if (!PrefsNumberGetInt64(PrefsArrayGetValueAtIndex(nums, idx), &v) || v != (int64_t)idx * 1000003)
                result->mismatches++;
        }
        if (PrefsDataGetBytePtr(blob)[idx % BLOB] != blob_byte(idx % BLOB))
            result->mismatches++;

        if (it % 10 == 0) {
            char *d = PrefsCopyDescription(s);
            if (d == NULL || strstr(d, "item-") == NULL)
                result->mismatches++;
            PrefsFree(d);
            if (!PrefsEqual(shared_root, shared_root))
                result->mismatches++;
        }
        if (it % 100 == 0 && !verify_root(shared_root, 0))
            result->mismatches++;
        if (it % 250 == 0) {
            /* Serialise and parse concurrently. */
            PrefsDataRef xml = PrefsPropertyListCreateXMLData(shared_root, NULL);
            PrefsPropertyListRef back = NULL;
            if (xml == NULL || PrefsDataGetLength(xml) != expected_xml_length ||
                memcmp(PrefsDataGetBytePtr(xml), expected_xml, expected_xml_length) != 0)
                result->mismatches++;
            back = PrefsPropertyListCreateWithData(expected_xml, expected_xml_length, NULL);
            if (back == NULL || !PrefsEqual(back, shared_root) || !verify_root(back, 0))
                result->mismatches++;
            PrefsRelease(back);
            PrefsRelease(xml);
        }
    }
    return NULL;
}

static void test_shared_readers(void)
{
    pthread_t threads[THREADS];
    struct reader_result results[THREADS];
    int i, started = 0;
    unsigned long mismatches = 0;

    shared_root = build_root();
    CHECK(shared_root != NULL);
    if (shared_root == NULL)
        return;
    expected_xml_data = PrefsPropertyListCreateXMLData(shared_root, NULL);
    CHECK(expected_xml_data != NULL);
    if (expected_xml_data == NULL)
        return;
    expected_xml = PrefsDataGetBytePtr(expected_xml_data);
    expected_xml_length = PrefsDataGetLength(expected_xml_data);

    CHECK(pthread_barrier_init(&start_line, NULL, THREADS) == 0);
    for (i = 0; i < THREADS; i++) {
        results[i].id = i;
        results[i].mismatches = 0;
        if (pthread_create(&threads[i], NULL, reader, &results[i]) != 0)
            break;
        started++;
    }
    CHECK(started == THREADS);
    if (started != THREADS) {
        /* The barrier would never open; give up on this test. */
        fprintf(stderr, "could not start %d threads\n", THREADS);
        exit(EXIT_FAILURE);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        mismatches += results[i].mismatches;
        CHECKF(results[i].mismatches == 0, "reader %d saw %lu wrong values", i, results[i].mismatches);
    }
    pthread_barrier_destroy(&start_line);
    printf("  %d threads x %d iterations over one shared value: %lu mismatches\n", THREADS, ITERATIONS,
           mismatches);

    /* The shared value is intact: every retain was matched by a release. */
    CHECK(verify_root(shared_root, 1));
    {
        PrefsDataRef again = PrefsPropertyListCreateXMLData(shared_root, NULL);
        CHECK(again != NULL && PrefsEqual(again, expected_xml_data));
        PrefsRelease(again);
    }
    PrefsRelease(expected_xml_data);
    PrefsRelease(shared_root);
}

/* ------------------------------------------------------------------ */
/* PrefsCopyLastError is per thread                                     */
/* ------------------------------------------------------------------ */

#define ROUNDS 300
static pthread_barrier_t lockstep;

static void *last_error_worker(void *arg)
{
    int id = *(const int *)arg;
    static const char bad_xml[] = "<plist version=\"1.0\"><integer>nope</integer></plist>";
    int round;
    unsigned long wrong = 0;

    for (round = 0; round < ROUNDS; round++) {
        int kind = (id + round) % 3;
        PrefsPropertyListRef v = NULL;
        PrefsErrorRef last;

        /* Everyone acts at once... */
        pthread_barrier_wait(&lockstep);
        if (kind == 0)
            v = PrefsStringCreate("\xc3"); /* refused: kPrefsErrorInvalidArgument */
        else if (kind == 1)
            v = PrefsPropertyListCreateWithData(bad_xml, sizeof bad_xml - 1, NULL); /* kPrefsErrorMalformed */
        else
            v = PrefsStringCreate("fine"); /* success */
        PrefsRelease(v);
        /* ...and looks only after every other thread has acted too. */
        pthread_barrier_wait(&lockstep);
        last = PrefsCopyLastError();
        if (kind == 0)
            wrong += !(last != NULL && PrefsErrorGetCode(last) == kPrefsErrorInvalidArgument);
        else if (kind == 1)
            wrong += !(last != NULL && PrefsErrorGetCode(last) == kPrefsErrorMalformed);
        else
            wrong += last != NULL;
        PrefsRelease(last);
    }
    CHECKF(wrong == 0, "thread %d saw another thread's last error %lu times out of %d", id, wrong, ROUNDS);
    return NULL;
}

static void test_last_error_per_thread(void)
{
    enum { N = 9 };
    pthread_t threads[N];
    int ids[N];
    int i, started = 0;

    CHECK(pthread_barrier_init(&lockstep, NULL, N) == 0);
    for (i = 0; i < N; i++) {
        ids[i] = i;
        if (pthread_create(&threads[i], NULL, last_error_worker, &ids[i]) != 0)
            break;
        started++;
    }
    CHECK(started == N);
    if (started != N) {
        fprintf(stderr, "could not start %d threads\n", N);
        exit(EXIT_FAILURE);
    }
    for (i = 0; i < N; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&lockstep);

    /* The main thread's own last error was untouched by all of that. */
    {
        PrefsStringRef ok = PrefsStringCreate("main");
        PrefsErrorRef last;
        CHECK_NO_LAST_ERROR("the main thread after the workers");
        PrefsRelease(ok);
        PrefsRelease(PrefsStringCreate("\xff"));
        last = PrefsCopyLastError();
        CHECK(last != NULL && PrefsErrorGetCode(last) == kPrefsErrorInvalidArgument);
        PrefsRelease(last);
    }
}

/* A thread that exits with a last error recorded does not leak or crash
 * (the per-thread slot is cleaned up). */
static void *fail_and_exit(void *unused)
{
    (void)unused;
    PrefsRelease(PrefsStringCreate("\xff"));
    return NULL;
}

static void test_thread_exit_with_error(void)
{
    int i;
    for (i = 0; i < 2000; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, fail_and_exit, NULL) != 0) {
            CHECK(0 && "pthread_create");
            return;
        }
        pthread_join(t, NULL);
    }
    CHECK(1);
}

int main(void)
{
    test_shared_readers();
    test_last_error_per_thread();
    test_thread_exit_with_error();
    return CHECK_FINISH();
}
