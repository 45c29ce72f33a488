/*
 * children.h — running other processes in the C tests: the program starts
 * itself again (/proc/self/exe) with a role argument, so every "other
 * process" is a real, separately started process with its own copy of the
 * library.
 *
 *   children_start(env, args)   fork + exec this program; env is a list of
 *                               "NAME=value" (NULL-terminated, or NULL) set
 *                               in the child only; args follow argv[0]
 *   children_wait(pid)          the child's exit status, -1 if it did not
 *                               exit (a signal), with the signal in
 *                               *children_last_signal
 *   children_run(env, args)     both
 *   children_now()              CLOCK_MONOTONIC seconds (system-wide, so
 *                               comparable between processes)
 *   children_sleep_us(us)
 *   children_read_byte(fd, ms)  one byte from a pipe, -1 on EOF or after ms
 *                               milliseconds
 *   children_write_byte(fd, c)
 *   children_pipe(fds)          pipe() whose ends children started later
 *                               do not inherit; pass an end on with
 *                               children_inherit(fd)
 *
 * Set children_self to argv[0] in main. Define _XOPEN_SOURCE 700 before
 * including.
 */
#ifndef PREFS_TESTS_CHILDREN_H
#define PREFS_TESTS_CHILDREN_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *children_self = "child";
static int children_last_signal;

static inline pid_t children_start(const char *const *env, const char *const *args)
{
    char *argv[16];
    int i;
    pid_t pid;

    argv[0] = (char *)children_self;
    for (i = 0; args[i] != NULL && i < 14; i++)
        argv[i + 1] = (char *)args[i];
    argv[i + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        for (i = 0; env != NULL && env[i] != NULL; i++)
            putenv((char *)env[i]);
        execv("/proc/self/exe", argv);
        perror("execv /proc/self/exe");
        _exit(127);
    }
    return pid;
}

static inline int children_wait(pid_t pid)
{
    int status = 0;
    children_last_signal = 0;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    if (WIFSIGNALED(status))
        children_last_signal = WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline int children_run(const char *const *env, const char *const *args)
{
    return children_wait(children_start(env, args));
}

static inline double children_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline void children_sleep_us(long us)
{
    struct timespec t;
    t.tv_sec = us / 1000000L;
    t.tv_nsec = (us % 1000000L) * 1000L;
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static inline int children_read_byte(int fd, int timeout_ms)
{
    struct pollfd p;
    unsigned char c;
    ssize_t n;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        break;
    }
    do {
        n = read(fd, &c, 1);
    } while (n < 0 && errno == EINTR);
    return n == 1 ? (int)c : -1;
}

static inline int children_write_byte(int fd, int c)
{
    unsigned char b = (unsigned char)c;
    ssize_t n;
    do {
        n = write(fd, &b, 1);
    } while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

static inline int children_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Lets children started from now on inherit `fd` (for the end of a pipe
 * they use; its number goes to them as an argument). */
static inline void children_inherit(int fd)
{
    fcntl(fd, F_SETFD, 0);
}

#endif /* PREFS_TESTS_CHILDREN_H */
