/*
 * support.h — helpers shared by the C tests: checking errors and running a
 * piece of a test in a child process, so that a crash is reported as a
 * failed check instead of ending the whole program.
 *
 * Include after defining _POSIX_C_SOURCE (fork, waitpid).
 */
#ifndef PREFS_TESTS_SUPPORT_H
#define PREFS_TESTS_SUPPORT_H

#include <prefs/Prefs.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* The name of an error code, for messages. */
static inline const char *support_code_name(int code)
{
    switch (code) {
    case 0:
        return "0 (no error)";
    case kPrefsErrorInvalidArgument:
        return "kPrefsErrorInvalidArgument";
    case kPrefsErrorMalformed:
        return "kPrefsErrorMalformed";
    case kPrefsErrorForbiddenMarkup:
        return "kPrefsErrorForbiddenMarkup";
    case kPrefsErrorTooDeep:
        return "kPrefsErrorTooDeep";
    case kPrefsErrorUnrepresentable:
        return "kPrefsErrorUnrepresentable";
    case kPrefsErrorInvalidApplicationID:
        return "kPrefsErrorInvalidApplicationID";
    case kPrefsErrorIO:
        return "kPrefsErrorIO";
    case kPrefsErrorCorruptFile:
        return "kPrefsErrorCorruptFile";
    case kPrefsErrorForcedValue:
        return "kPrefsErrorForcedValue";
    case kPrefsErrorSchemaViolation:
        return "kPrefsErrorSchemaViolation";
    case kPrefsErrorInternal:
        return "kPrefsErrorInternal";
    default:
        return "unknown code";
    }
}

/*
 * Checks that `err` is an error object with code `code` and, when `needle`
 * is not NULL, a description containing `needle`. Prints the description on
 * failure. Does not release `err`. Uses only the Error functions, so the
 * thread's last error is left as it was. Returns 1 when everything matched.
 */
static inline int support_check_error(PrefsErrorRef err, int code, const char *needle, const char *file,
                                      int line, const char *what)
{
    char expr[512];
    char *description;
    int ok;

    snprintf(expr, sizeof expr, "%s: an error is reported", what);
    if (!check_record(err != NULL, file, line, expr))
        return 0;
    ok = 1;
    description = PrefsErrorCopyDescription(err);
    snprintf(expr, sizeof expr, "%s: code %s", what, support_code_name(code));
    if (!check_record((int)PrefsErrorGetCode(err) == code, file, line, expr)) {
        fprintf(stderr, "    got %s: %s\n", support_code_name((int)PrefsErrorGetCode(err)),
                description ? description : "(no description)");
        ok = 0;
    }
    snprintf(expr, sizeof expr, "%s: the error has a description", what);
    ok &= check_record(description != NULL && description[0] != '\0', file, line, expr);
    if (needle != NULL) {
        snprintf(expr, sizeof expr, "%s: the description contains \"%s\"", what, needle);
        if (!check_record(description != NULL && strstr(description, needle) != NULL, file, line, expr)) {
            fprintf(stderr, "    description: %s\n", description ? description : "(none)");
            ok = 0;
        }
    }
    PrefsFree(description);
    return ok;
}

/* CHECK_ERROR(err, code, needle, what): see support_check_error. */
#define CHECK_ERROR(err, code, needle, what) \
  support_check_error((err), (code), (needle), __FILE__, __LINE__, (what))

/* Checks that PrefsCopyLastError() reports `code` (releases the copy). */
static inline int support_check_last_error(int code, const char *file, int line, const char *what)
{
    PrefsErrorRef err = PrefsCopyLastError();
    int ok = support_check_error(err, code, NULL, file, line, what);
    PrefsRelease(err);
    return ok;
}

#define CHECK_LAST_ERROR(code, what) support_check_last_error((code), __FILE__, __LINE__, (what))

/* Checks that PrefsCopyLastError() reports success (NULL). */
static inline int support_check_no_last_error(const char *file, int line, const char *what)
{
    char expr[512];
    PrefsErrorRef err = PrefsCopyLastError();
    int ok;
    snprintf(expr, sizeof expr, "%s: PrefsCopyLastError() is NULL after a successful call", what);
    ok = check_record(err == NULL, file, line, expr);
    if (!ok) {
        char *d = PrefsErrorCopyDescription(err);
        fprintf(stderr, "    last error: %s: %s\n", support_code_name((int)PrefsErrorGetCode(err)),
                d ? d : "");
        PrefsFree(d);
    }
    PrefsRelease(err);
    return ok;
}

#define CHECK_NO_LAST_ERROR(what) support_check_no_last_error(__FILE__, __LINE__, (what))

/*
 * Runs fn() in a child process. The child's own CHECK failures make it exit
 * 1; a signal (a crash) or a hang longer than `seconds` counts as a failure
 * too. Records one check in this process for the outcome.
 */
static inline int support_run_isolated(void (*fn)(void), const char *name, unsigned seconds, const char *file,
                                       int line)
{
    char expr[512];
    pid_t pid;
    int status = 0;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        snprintf(expr, sizeof expr, "%s: fork() succeeded", name);
        return check_record(0, file, line, expr);
    }
    if (pid == 0) {
        /* The child counts its own checks. */
        check_total_count = 0;
        check_failure_count = 0;
        alarm(seconds);
        fn();
        printf("  %s: %lu checks, %lu failed\n", name, CHECK_ATOMIC_LOAD(check_total_count),
               check_failures());
        fflush(stdout);
        fflush(stderr);
        _exit(check_failures() == 0 ? 0 : 1);
    }
    while (waitpid(pid, &status, 0) < 0) {
        /* retry on EINTR */
    }
    if (WIFSIGNALED(status)) {
        snprintf(expr, sizeof expr, "%s: finished without a crash (killed by signal %d%s)", name,
                 WTERMSIG(status), WTERMSIG(status) == SIGALRM ? ", a hang" : "");
        return check_record(0, file, line, expr);
    }
    snprintf(expr, sizeof expr, "%s: every check in the child process passed", name);
    return check_record(WIFEXITED(status) && WEXITSTATUS(status) == 0, file, line, expr);
}

#define RUN_ISOLATED(fn, seconds) support_run_isolated((fn), #fn, (seconds), __FILE__, __LINE__)

/* The value's description, or "(null)"; freed by the next call. */
static inline const char *support_text_of(PrefsPropertyListRef v)
{
    static char *last;
    PrefsFree(last);
    last = v ? PrefsCopyDescription(v) : NULL;
    return last ? last : "(null)";
}

/* Whether `app`'s value of `key` reads as `want` (its description); what it
 * read, on stderr, when not. */
static inline int support_reads(const char *app, const char *key, const char *want)
{
    PrefsPropertyListRef v = PrefsCopyAppValue(key, app);
    int ok = strcmp(support_text_of(v), want) == 0;
    if (!ok)
        fprintf(stderr, "    %s reads %s, wanted %s\n", key, support_text_of(v), want);
    PrefsRelease(v);
    return ok;
}

#endif /* PREFS_TESTS_SUPPORT_H */
