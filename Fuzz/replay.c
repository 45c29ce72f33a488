/*
 * replay.c — runs inputs through a fuzz target once each, without libFuzzer.
 *
 *   replay <file or directory>...
 *
 * Linked with a target's LLVMFuzzerTestOneInput (and AddressSanitizer),
 * this is how `make check` replays the committed corpus on machines and
 * compilers without libFuzzer. Each file of each directory (not recursing)
 * is read into a buffer of exactly its size, so that a read past the input
 * is caught, and passed to the target once. A crash stops the run with the
 * sanitizer's report; an input that takes longer than
 * FUZZ_REPLAY_MAX_SECONDS (default 1) fails the run, and one that takes
 * ten times that is stopped. A crash names its input before the
 * sanitizer's own report (a Swift trap is a SIGILL: run with
 * ASAN_OPTIONS=handle_sigill=1 for its stack). Leaks are reported by
 * LeakSanitizer at exit.
 * Exit status: 0 when every input ran in time, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current_input = "";

/* Writes `message` and the current input's path to stderr (async-signal-safe). */
static void say_input(const char *message)
{
    (void)!write(2, message, strlen(message));
    (void)!write(2, current_input, strlen(current_input));
    (void)!write(2, "\n", 1);
}

static void on_alarm(int sig)
{
    (void)sig;
    say_input("replay: stopped an input that ran far too long: ");
    _exit(1);
}

/* The handlers in place before ours (the sanitizer's), per crash signal. */
static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
static struct sigaction previous[sizeof crash_signals / sizeof crash_signals[0]];

/* Names the input, then hands the signal to the previous handler. */
static void on_crash(int sig)
{
    size_t i;
    say_input("replay: crashed on ");
    for (i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
        if (crash_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    raise(sig);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads the whole file into a new buffer of exactly its size. */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *buffer;

    if (f == NULL || fstat(fileno(f), &st) != 0) {
        if (f != NULL)
            fclose(f);
        return NULL;
    }
    *size = (size_t)st.st_size;
    buffer = malloc(*size > 0 ? *size : 1);
    if (buffer != NULL && fread(buffer, 1, *size, f) != *size) {
        free(buffer);
        buffer = NULL;
    }
    fclose(f);
    return buffer;
}

/* Runs one file; 0 when it ran in time. */
static int run_file(const char *path, double limit)
{
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    double start, taken;

    if (data == NULL) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    current_input = path;
    alarm((unsigned)(limit * 10) + 1);
    start = seconds_now();
    LLVMFuzzerTestOneInput(data, size);
    taken = seconds_now() - start;
    alarm(0);
    free(data);
    if (taken > limit) {
        fprintf(stderr, "replay: %s took %.3f s (limit %.3f s)\n", path, taken, limit);
        return 1;
    }
    return 0;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(int argc, char **argv)
{
    const char *limit_text = getenv("FUZZ_REPLAY_MAX_SECONDS");
    double limit = limit_text != NULL ? atof(limit_text) : 1.0;
    int i, failures = 0;
    unsigned long count = 0;

    size_t s;
    signal(SIGALRM, on_alarm);
    for (s = 0; s < sizeof crash_signals / sizeof crash_signals[0]; s++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_crash;
        sigemptyset(&action.sa_mask);
        sigaction(crash_signals[s], &action, &previous[s]);
    }
    for (i = 1; i < argc; i++) {
        if (is_directory(argv[i])) {
            struct dirent **entries;
            int n = scandir(argv[i], &entries, NULL, alphasort), k;
            if (n < 0) {
                fprintf(stderr, "replay: cannot list %s\n", argv[i]);
                failures++;
                continue;
            }
            for (k = 0; k < n; k++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], entries[k]->d_name);
                if (entries[k]->d_name[0] != '.' && !is_directory(path)) {
                    failures += run_file(path, limit);
                    count++;
                }
                free(entries[k]);
            }
            free(entries);
        } else {
            failures += run_file(argv[i], limit);
            count++;
        }
    }
    printf("replay: %lu inputs, %d over %.1f s or unreadable\n", count, failures, limit);
    return failures == 0 ? 0 : 1;
}
