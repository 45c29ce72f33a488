/*
 * prefs: the command-line front of libprefs (see doc/prefs.1).
 *
 * The command's code lives in libprefs.so itself (Sources/PrefsTool), so a
 * machine carries one copy of the library's core and of the Swift runtime
 * inside it; this program is only its main. prefs_tool_main is a private
 * entry point of the library, exported under the version node
 * LIBPREFS_PRIVATE and declared in no installed header: this program must
 * run with the libprefs.so built from the same source.
 *
 * `prefs ui` is a program of its own (programs/prefs-ui.c, using ncurses),
 * kept out of the library: this main runs it from PREFS_UI, where the
 * Makefile installs it ($(LIBEXECDIR)/prefs/prefs-ui).
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PREFS_UI
#  define PREFS_UI "/usr/local/libexec/prefs/prefs-ui"
#endif

/* Runs the whole command; returns its exit status (0, 1 or 64). Not
 * thread-safe: a program's main, called once from the main thread.
 * argv is borrowed for the call. */
extern int prefs_tool_main(int argc, char **argv);

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ui") == 0) {
        char *args[4] = {(char *)"prefs-ui", NULL, NULL, NULL};
        if (argc > 3) {
            fprintf(stderr, "prefs: usage: prefs ui [<domain>]\n");
            return 64;
        }
        args[1] = argc == 3 ? argv[2] : NULL;
        execv(PREFS_UI, args);
        fprintf(stderr, "prefs: cannot run the terminal view %s: %s\n", PREFS_UI, strerror(errno));
        return 1;
    }
    return prefs_tool_main(argc, argv);
}
