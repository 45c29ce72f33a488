/*
 * coord.c: starts the processes of one case of the many-processes
 * benchmark and connects them with pipes. It does not touch preferences,
 * so the same coordinator serves libprefs (prefs_proc) and Foundation
 * (userdefaults_proc).
 *
 *   coord lost LABEL PROCS ROUNDS TIMEOUT_S -- CMD ARGS...
 *       Starts PROCS copies of CMD ARGS, each with its index (0..PROCS-1)
 *       appended, by fork and exec. Each child reads its release bytes on
 *       fd 3 (one pipe shared by all) and answers on fd 4 (one pipe shared
 *       by all). Once every child has answered that it is ready, each round
 *       writes PROCS bytes to the release pipe in one write, so every child
 *       blocked on its read is woken at once, and waits until every child has
 *       answered (set its keys and synchronized). Prints the time from each
 *       release to the last answer: R lost-round LABEL ms ROUNDS ...
 *
 *   coord pair TIMEOUT_S -- WRITER ARGS... -- READER ARGS...
 *       Starts a writer and a reader. The writer's fd 4 is the reader's fd 3
 *       and the reader's fd 4 is the writer's fd 3. Waits for both.
 *
 * A case that has not finished after TIMEOUT_S seconds is killed and
 * coord exits with status 2; so does one whose processes fail.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "proc.h"

#define MAX_PROCS 256

static pid_t children[MAX_PROCS];
static int nchildren;

static void kill_children(void)
{
    for (int i = 0; i < nchildren; i++)
        if (children[i] > 0)
            kill(children[i], SIGKILL);
}

static void fail(const char *what)
{
    fprintf(stderr, "coord: %s\n", what);
    kill_children();
    exit(2);
}

/* A pipe whose two ends sit above fd 10 and close at exec, so that a child
 * keeps only what it dup2s onto fds 3 and 4. */
static void make_pipe(int fds[2])
{
    int raw[2];
    if (pipe(raw) != 0)
        fail("pipe failed");
    for (int i = 0; i < 2; i++) {
        fds[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
        if (fds[i] < 0)
            fail("fcntl failed");
        close(raw[i]);
    }
}

/* fork + exec of argv with `in` on fd 3 and `out` on fd 4. */
static void spawn(char **argv, int in, int out)
{
    if (nchildren == MAX_PROCS)
        fail("too many processes");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        fail("fork failed");
    if (pid == 0) {
        if (dup2(in, PROC_IN) < 0 || dup2(out, PROC_OUT) < 0)
            _exit(126);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    children[nchildren++] = pid;
}

/* Waits for every child, up to `deadline` (CLOCK_MONOTONIC ns). */
static void wait_children(int64_t deadline)
{
    int left = nchildren;
    while (left > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0)
            fail("waitpid failed");
        if (pid == 0) {
            if (proc_now_ns() > deadline)
                fail("timed out");
            struct timespec nap = {0, 20 * 1000000};
            nanosleep(&nap, NULL);
            continue;
        }
        for (int i = 0; i < nchildren; i++)
            if (children[i] == pid)
                children[i] = 0;
        left--;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail("a process failed");
    }
}

/* Reads n bytes from fd, failing at end of file or after `deadline`. */
static void read_until(int fd, size_t n, int64_t deadline)
{
    char buf[MAX_PROCS];
    while (n > 0) {
        int64_t left = (deadline - proc_now_ns()) / 1000000;
        struct pollfd p = {fd, POLLIN, 0};
        if (left < 0 || poll(&p, 1, (int)left + 1) == 0)
            fail("timed out waiting for the processes");
        ssize_t got = read(fd, buf, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            fail("a process exited early");
        n -= (size_t)got;
    }
}

static int lost(int argc, char **argv)
{
    if (argc < 8 || strcmp(argv[6], "--") != 0)
        fail("usage: coord lost LABEL PROCS ROUNDS TIMEOUT_S -- CMD ARGS...");
    const char *label = argv[2];
    int procs = atoi(argv[3]), rounds = atoi(argv[4]);
    int64_t deadline = proc_now_ns() + (int64_t)atol(argv[5]) * 1000000000;
    if (procs < 1 || procs > MAX_PROCS || rounds < 1)
        fail("bad PROCS or ROUNDS");
    int cmd_len = argc - 7;
    char **cmd = calloc((size_t)cmd_len + 2, sizeof *cmd);
    char index[16];
    if (cmd == NULL)
        fail("out of memory");
    memcpy(cmd, argv + 7, (size_t)cmd_len * sizeof *cmd);
    cmd[cmd_len] = index;

    int release[2], done[2];
    make_pipe(release);
    make_pipe(done);
    for (int p = 0; p < procs; p++) {
        snprintf(index, sizeof index, "%d", p);
        spawn(cmd, release[0], done[1]);
    }
    close(release[0]);
    close(done[1]);
    signal(SIGPIPE, SIG_IGN);

    int64_t started = proc_now_ns();
    read_until(done[0], (size_t)procs, deadline); /* every process is ready */
    int64_t ready = proc_now_ns();
    char bytes[MAX_PROCS];
    memset(bytes, 'g', sizeof bytes);
    double *round_ms = calloc((size_t)rounds, sizeof *round_ms);
    if (round_ms == NULL)
        fail("out of memory");
    for (int r = 0; r < rounds; r++) {
        int64_t t0 = proc_now_ns();
        /* One write of PROCS bytes (at most PIPE_BUF: atomic): each blocked
         * reader takes one byte. */
        if (write(release[1], bytes, (size_t)procs) != procs)
            fail("release write failed");
        read_until(done[0], (size_t)procs, deadline);
        round_ms[r] = (double)(proc_now_ns() - t0) / 1e6;
    }
    close(release[1]);
    wait_children(deadline);
    proc_report("lost-round", label, "ms", round_ms, rounds);
    printf("N lost-start %s %d processes ready in %.1f ms\n", label, procs, (double)(ready - started) / 1e6);
    free(round_ms);
    free(cmd);
    return 0;
}

static int pair(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[3], "--") != 0)
        fail("usage: coord pair TIMEOUT_S -- WRITER... -- READER...");
    int64_t deadline = proc_now_ns() + (int64_t)atol(argv[2]) * 1000000000;
    char **writer = argv + 4, **reader = NULL;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            argv[i] = NULL; /* ends the writer's argv */
            reader = argv + i + 1;
            break;
        }
    }
    if (reader == NULL || reader[0] == NULL || writer[0] == NULL)
        fail("usage: coord pair TIMEOUT_S -- WRITER... -- READER...");
    int to_reader[2], to_writer[2];
    make_pipe(to_reader);
    make_pipe(to_writer);
    spawn(writer, to_writer[0], to_reader[1]);
    spawn(reader, to_reader[0], to_writer[1]);
    close(to_reader[0]);
    close(to_reader[1]);
    close(to_writer[0]);
    close(to_writer[1]);
    wait_children(deadline);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "lost") == 0)
        return lost(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "pair") == 0)
        return pair(argc, argv);
    fprintf(stderr, "usage: coord lost|pair ... (see the source)\n");
    return 2;
}
