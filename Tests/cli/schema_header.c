/*
 * schema_header.c — the header `prefs schema c` makes from
 * examples/schema, compiled with -std=c99 -Wall -Wextra -pedantic -Werror
 * against the installed library. Run as `schema_header <phase>`:
 *
 *   defaults  nothing stored: every getter returns the schema's default
 *   stored    valid values stored by prefs: the getters return them
 *   invalid   values of another type, out of range, not listed: defaults
 *   set       the setters store values prefs then reads
 *   refuse    the setters refuse what the schema refuses (false), storing
 *             nothing
 *
 * Prints one line per failed check; exit status 0 when all passed.
 */
#include "notes.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

static int string_is(char *s, const char *want)
{
    int ok = s != NULL && strcmp(s, want) == 0;
    if (!ok)
        fprintf(stderr, "    got '%s', wanted '%s'\n", s ? s : "(null)", want);
    free(s);
    return ok;
}

int main(int argc, char **argv)
{
    const char *phase = argc > 1 ? argv[1] : "";
    CHECK(strcmp(NOTES_KEY_FontSize, "FontSize") == 0);
    CHECK(strcmp(NOTES_APPLICATION_ID, "com.example.notes") == 0);
    if (strcmp(phase, "defaults") == 0 || strcmp(phase, "invalid") == 0) {
        CHECK(notes_get_SpellCheck() == true);
        CHECK(notes_get_FontSize() == 13);
        CHECK(notes_get_LineSpacing() == 1.2);
        CHECK(string_is(notes_get_Theme(), "light"));
        CHECK(string_is(notes_get_DefaultFolder(), "Notes"));
    } else if (strcmp(phase, "stored") == 0) {
        CHECK(notes_get_SpellCheck() == false);
        CHECK(notes_get_FontSize() == 30);
        CHECK(notes_get_LineSpacing() == 2.5);
        CHECK(string_is(notes_get_Theme(), "dark"));
        CHECK(string_is(notes_get_DefaultFolder(), "Inbox"));
    } else if (strcmp(phase, "set") == 0) {
        CHECK(notes_set_SpellCheck(false));
        CHECK(notes_set_FontSize(40));
        CHECK(notes_set_LineSpacing(1.5));
        CHECK(notes_set_Theme("system"));
        CHECK(notes_set_DefaultFolder("Drafts"));
        CHECK(notes_get_FontSize() == 40);
        CHECK(PrefsAppSynchronize(NOTES_APPLICATION_ID));
    } else if (strcmp(phase, "refuse") == 0) {
        CHECK(!notes_set_FontSize(1000));
        CHECK(!notes_set_FontSize(7));
        CHECK(!notes_set_LineSpacing(3.5));
        CHECK(!notes_set_LineSpacing(NAN));
        CHECK(!notes_set_Theme("sepia"));
        CHECK(notes_get_FontSize() == 13);
        CHECK(string_is(notes_get_Theme(), "light"));
        /* The library refuses too: the generated check is not the only one. */
        PrefsNumberRef big = PrefsNumberCreateInt64(1000);
        PrefsSetAppValue(NOTES_KEY_FontSize, big, NOTES_APPLICATION_ID);
        PrefsRelease(big);
        PrefsErrorRef e = PrefsCopyLastError();
        CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorSchemaViolation);
        PrefsRelease(e);
        CHECK(notes_get_FontSize() == 13);
    } else {
        fprintf(stderr, "usage: %s defaults|stored|invalid|set|refuse\n", argv[0]);
        return 2;
    }
    return failures != 0;
}
