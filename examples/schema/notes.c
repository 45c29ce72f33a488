/*
 * notes.c — reads preferences through the header `prefs schema c` made
 * from the installed schema com.example.notes.plist (with its child pane
 * Appearance.plist). The program registers nothing: the defaults come from
 * the installed schema, and a value the user set wins over them.
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
