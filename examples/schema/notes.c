/*
 * notes.c — reads preferences through the header `prefs schema c` made
 * from the installed schema com.example.notes.plist (with its child pane
 * Appearance.plist). The program registers nothing: the defaults come from
 * the installed schema, and a value the user set wins over them.
 *
 * Build and run, in this directory, after `make example` (which installs
 * the schema; env.sh puts its prefix on PATH, PKG_CONFIG_PATH and
 * XDG_DATA_DIRS):
 *
 *     . ../../build/stage/env.sh
 *     prefs schema c com.example.notes >notes.h
 *     cc -std=c99 -Wall -Wextra notes.c $(pkg-config --cflags --libs prefs) \
 *         -Wl,-rpath,$(pkg-config --variable=libdir prefs) -o notes
 *     ./notes
 */
#include "notes.h"

#include <stdio.h>

int main(void)
{
    char *folder = notes_get_DefaultFolder();
    char *theme = notes_get_Theme();
    printf("spell check: %s\n", notes_get_SpellCheck() ? "on" : "off");
    printf("new notes go to: %s\n", folder ? folder : "?");
    printf("font size: %lld points\n", (long long)notes_get_FontSize());
    printf("line spacing: %.1f\n", notes_get_LineSpacing());
    printf("theme: %s\n", theme ? theme : "?");
    free(folder);
    free(theme);
    return 0;
}
