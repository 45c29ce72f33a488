/*
 * prefs: the command-line front of libprefs (see doc/prefs.1).
 *
 * The command's code lives in libprefs.so itself (Sources/PrefsTool), so a
 * machine carries one copy of the library's core and of the Swift runtime
 * inside it; this program is only its main. prefs_tool_main is a private
 * entry point of the library, exported under the version node
 * LIBPREFS_PRIVATE and declared in no installed header: this program must
 * run with the libprefs.so built from the same source.
 */

/* Runs the whole command; returns its exit status (0, 1 or 64). Not
 * thread-safe: a program's main, called once from the main thread.
 * argv is borrowed for the call. */
extern int prefs_tool_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return prefs_tool_main(argc, argv);
}
