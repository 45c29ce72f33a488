/*
 * test_thread_state.c — what the C face keeps per thread, through the calls
 * that use it most: PrefsSetAppValue and PrefsCopyAppValue.
 *
 * Each thread keeps its last error and the last application ID it named
 * (with the store's handle for it). Threads that set and read their own
 * applications in lock-step, failing on purpose in between, must each see
 * only their own values and their own last error; a success clears the
 * error; an ID is matched by its bytes, not by where they are; a thread
 * that exits holding both gives them back (the heap does not grow with the
 * number of such threads; under AddressSanitizer, LeakSanitizer checks it),
 * and a call made by another destructor after that gets a record again.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE

#include <prefs/Prefs.h>

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox.h"

#define THREADS 6
#define ROUNDS 200
/* What last_error_code() answers when the thread has no last error. */
#define LAST_NONE (-1)

static pthread_barrier_t lockstep;

/* The value of key "k" in app, or -1 when it has none or not an integer. */
static int64_t read_k(const char *app)
{
    PrefsPropertyListRef v = PrefsCopyAppValue("k", app);
    int64_t n = -1;
    if (v != NULL && PrefsGetType(v) == kPrefsTypeInteger && !PrefsNumberGetInt64((PrefsNumberRef)v, &n))
        n = -1;
    PrefsRelease(v);
    return n;
}

static int last_error_code(void)
{
    PrefsErrorRef e = PrefsCopyLastError();
    int code = e != NULL ? (int)PrefsErrorGetCode(e) : LAST_NONE;
    PrefsRelease(e);
    return code;
}

/* Each round every thread acts at once, then each looks at once: a set
 * refused for its key, a set refused for its value (not a property list),
 * a read of an application ID the core refuses, or a set and a read of its
 * own application that succeed. */
static void *worker(void *arg)
{
    int id = *(const int *)arg;
    char app[64];
    unsigned long wrong_error = 0, wrong_value = 0, uncleared = 0;
    int round;

    snprintf(app, sizeof app, "com.example.threadstate.t%d", id);
    for (round = 0; round < ROUNDS; round++) {
        int kind = (id + round) % 4;
        int64_t expected = (int64_t)id * 100000 + round;
        PrefsNumberRef n = PrefsNumberCreateInt64(expected);
        int code;
        int64_t got = -2;

        pthread_barrier_wait(&lockstep);
        if (kind == 0) {
            PrefsSetAppValue("\xff", n, app); /* kPrefsErrorInvalidArgument */
        } else if (kind == 1) {
            PrefsSetAppValue("k", n, app);
            PrefsStringRef bad = PrefsStringCreate("\xc3"); /* refused: NULL */
            PrefsErrorRef e = PrefsCopyLastError();
            PrefsSetAppValue("k", e, app); /* not a property list */
            PrefsRelease(e);
            PrefsRelease(bad);
        } else if (kind == 2) {
            PrefsRelease(PrefsCopyAppValue("k", "")); /* no application */
        } else {
            PrefsSetAppValue("k", n, app);
            got = read_k(app);
        }
        PrefsRelease(n);
        pthread_barrier_wait(&lockstep);
        code = last_error_code();
        if (kind == 3) {
            wrong_error += code != LAST_NONE;
            wrong_value += got != expected;
        } else {
            wrong_error += code == LAST_NONE;
            if (kind == 1)
                wrong_value += read_k(app) != expected; /* the refused set changed nothing */
            else
                read_k(app);
            /* ...and the read, a success, cleared the error. */
            uncleared += last_error_code() != LAST_NONE;
        }
    }
    CHECKF(wrong_error == 0, "thread %d saw the wrong last error %lu times out of %d", id, wrong_error,
           ROUNDS);
    CHECKF(wrong_value == 0, "thread %d read another value than its own %lu times", id, wrong_value);
    CHECKF(uncleared == 0, "thread %d kept a last error after a success %lu times", id, uncleared);
    return NULL;
}

static void test_threads_keep_their_own(void)
{
    pthread_t threads[THREADS];
    int ids[THREADS];
    int i, started = 0;

    CHECK(pthread_barrier_init(&lockstep, NULL, THREADS) == 0);
    for (i = 0; i < THREADS; i++) {
        ids[i] = i;
        if (pthread_create(&threads[i], NULL, worker, &ids[i]) != 0)
            break;
        started++;
    }
    if (!CHECK(started == THREADS)) {
        fprintf(stderr, "could not start %d threads\n", THREADS);
        exit(EXIT_FAILURE);
    }
    for (i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&lockstep);
    /* The main thread named none of those applications and failed nothing. */
    CHECK(last_error_code() == LAST_NONE);
}

/* One buffer, rewritten between calls: the ID is its bytes at each call. */
static void test_reused_buffer(void)
{
    char app[64];
    PrefsNumberRef one = PrefsNumberCreateInt64(1), two = PrefsNumberCreateInt64(2);

    strcpy(app, "com.example.threadstate.first");
    PrefsSetAppValue("k", one, app);
    strcpy(app, "com.example.threadstate.second");
    PrefsSetAppValue("k", two, app);
    CHECK(read_k("com.example.threadstate.first") == 1);
    CHECK(read_k("com.example.threadstate.second") == 2);
    strcpy(app, "com.example.threadstate.first");
    CHECK(read_k(app) == 1);
    /* A shorter ID in the same bytes. */
    strcpy(app, "com.example.threadstate.firs");
    CHECK(read_k(app) == -1);
    strcpy(app, "\xff");
    CHECK(read_k(app) == -1);
    CHECK(last_error_code() == (int)kPrefsErrorInvalidArgument);
    PrefsRelease(one);
    PrefsRelease(two);
}

static void *set_fail_and_exit(void *unused)
{
    PrefsNumberRef n = PrefsNumberCreateInt64(7);
    (void)unused;
    PrefsSetAppValue("k", n, "com.example.threadstate.exit");
    PrefsSetAppValue("\xff", n, "com.example.threadstate.exit");
    PrefsRelease(n);
    return NULL;
}

static int run_exiting_threads(int count)
{
    int i;
    for (i = 0; i < count; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, set_fail_and_exit, NULL) != 0)
            return -1;
        pthread_join(t, NULL);
    }
    return 0;
}

/* Threads that exit holding a last error and a resolved application. */
static void test_exiting_threads_give_back(void)
{
    size_t before, after;

    /* The first threads warm the store and the allocator up. */
    if (!CHECK(run_exiting_threads(200) == 0))
        return;
    before = mallinfo2().uordblks;
    if (!CHECK(run_exiting_threads(3000) == 0))
        return;
    after = mallinfo2().uordblks;
    /* A record kept per exited thread would be at least 100 bytes each. */
    if (!CHECK_ASAN)
        CHECKF(after < before + 64 * 1024, "the heap grew by %zu bytes over 3000 threads", after - before);
    CHECK(read_k("com.example.threadstate.exit") == 7);
}

/* A program's own thread-specific destructor that calls the library while
 * the thread exits, after the library's own destructor has given the
 * thread's record back (its key was made first, when the library was
 * loaded, so its destructor runs first): the calls get a new record. */
static pthread_key_t late_key;
static int late_calls, late_saw_error;

static void late_destructor(void *value)
{
    PrefsErrorRef e;
    (void)value;
    PrefsSetAppValue("\xff", NULL, "com.example.threadstate.late");
    e = PrefsCopyLastError();
    __atomic_add_fetch(&late_calls, 1, __ATOMIC_RELAXED);
    if (e != NULL && PrefsErrorGetCode(e) == kPrefsErrorInvalidArgument)
        __atomic_add_fetch(&late_saw_error, 1, __ATOMIC_RELAXED);
    PrefsRelease(e);
}

static void *set_and_exit_late(void *unused)
{
    (void)unused;
    set_fail_and_exit(NULL);
    pthread_setspecific(late_key, &late_key);
    return NULL;
}

static void test_calls_while_the_thread_exits(void)
{
    int i;
    if (!CHECK(pthread_key_create(&late_key, late_destructor) == 0))
        return;
    for (i = 0; i < 100; i++) {
        pthread_t t;
        if (!CHECK(pthread_create(&t, NULL, set_and_exit_late, NULL) == 0))
            return;
        pthread_join(t, NULL);
    }
    CHECK(late_calls == 100);
    CHECKF(late_saw_error == 100, "%d of 100 late calls saw their own error", late_saw_error);
}

int main(void)
{
    if (sandbox_init("thread-state") != 0)
        return CHECK_FINISH();
    test_threads_keep_their_own();
    test_reused_buffer();
    test_exiting_threads_give_back();
    test_calls_while_the_thread_exits();
    sandbox_remove();
    return CHECK_FINISH();
}
