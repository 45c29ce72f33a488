/*
 * xml_demo.c — build a property list, print it as XML, read it back.
 *
 * Build and run, in this directory, against an installed libprefs or the
 * private prefix of `make example` (the rpath is what lets ./xml_demo find
 * libprefs.so.1 there, and is harmless for an installed one):
 *
 *     . ../build/stage/env.sh   # for the private prefix of `make example` only
 *     cc -std=c99 -Wall -Wextra xml_demo.c $(pkg-config --cflags --libs prefs) \
 *         -Wl,-rpath,$(pkg-config --variable=libdir prefs) -o xml_demo
 *     ./xml_demo > demo.plist
 *
 * The XML goes to standard output; the verdict goes to standard error.
 *
 * Ownership in one sentence: a function with "Create" or "Copy" in its name
 * hands you a reference that you must give back with PrefsRelease (or
 * PrefsFree for a char *); a "Get" function lends you a value that lives as
 * long as the object you got it from.
 */
#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>

/* Prints what went wrong and gives the error object back. */
static void report(const char *what, PrefsErrorRef error)
{
    char *text = error != NULL ? PrefsErrorCopyDescription(error) : NULL;
    fprintf(stderr, "%s failed: %s\n", what, text != NULL ? text : "(no details)");
    PrefsFree(text);
    PrefsRelease(error);
}

int main(void)
{
    static const unsigned char bytes[] = {0xDE, 0xAD, 0xBE, 0xEF};
    int status = EXIT_FAILURE;
    PrefsErrorRef error = NULL;

    /* Every reference starts as NULL, so that the clean-up at the end can
     * release all of them whatever happened: PrefsRelease(NULL) does nothing. */
    PrefsStringRef name = NULL, red = NULL, green = NULL, theme = NULL;
    PrefsNumberRef count = NULL, ratio = NULL, font_size = NULL;
    PrefsBooleanRef enabled = NULL;
    PrefsDateRef created = NULL;
    PrefsDataRef blob = NULL, xml = NULL;
    PrefsArrayRef colours = NULL;
    PrefsDictionaryRef window = NULL, settings = NULL;
    PrefsPropertyListRef read_back = NULL;

    /* 1. Scalars. */
    name = PrefsStringCreate("Ada Lovelace & friends"); /* UTF-8; '&' is escaped in the XML */
    count = PrefsNumberCreateInt64(42);
    ratio = PrefsNumberCreateDouble(0.75);
    enabled = PrefsBooleanCreate(true);
    created = PrefsDateCreate(1700000000.0); /* seconds since 1970; XML keeps whole seconds */
    blob = PrefsDataCreate(bytes, sizeof bytes);

    /* 2. An array. Containers retain what they hold, so our own references
     *    to the elements can still be released separately at the end. */
    red = PrefsStringCreate("red");
    green = PrefsStringCreate("green");
    {
        PrefsPropertyListRef items[2];
        items[0] = red;
        items[1] = green;
        colours = PrefsArrayCreate(items, 2);
    }

    /* 3. A nested dictionary: keys are plain C strings. */
    theme = PrefsStringCreate("dark");
    font_size = PrefsNumberCreateInt64(12);
    {
        const char *keys[2] = {"theme", "fontSize"};
        PrefsPropertyListRef values[2];
        values[0] = theme;
        values[1] = font_size;
        window = PrefsDictionaryCreate(keys, values, 2);
    }

    /* 4. The top-level dictionary. A NULL value makes the call fail, so
     *    checking the result also checks every Create above. */
    {
        const char *keys[8] = {"name", "count", "ratio", "enabled", "created", "blob", "colours", "window"};
        PrefsPropertyListRef values[8];
        values[0] = name;
        values[1] = count;
        values[2] = ratio;
        values[3] = enabled;
        values[4] = created;
        values[5] = blob;
        values[6] = colours;
        values[7] = window;
        settings = PrefsDictionaryCreate(keys, values, 8);
    }
    if (settings == NULL) {
        report("building the value", PrefsCopyLastError());
        goto done;
    }

    /* 5. Serialise to Apple's XML property-list format and print it. */
    xml = PrefsPropertyListCreateXMLData(settings, &error);
    if (xml == NULL) {
        report("PrefsPropertyListCreateXMLData", error);
        goto done;
    }
    fwrite(PrefsDataGetBytePtr(xml), 1, PrefsDataGetLength(xml), stdout);

    /* 6. Parse the bytes back and compare (deep equality). */
    read_back = PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(xml), PrefsDataGetLength(xml), &error);
    if (read_back == NULL) {
        report("PrefsPropertyListCreateWithData", error);
        goto done;
    }
    if (!PrefsEqual(settings, read_back)) {
        fprintf(stderr, "the value read back differs from the original\n");
        goto done;
    }

    /* 7. Borrowed look-ups: no release needed for these. */
    {
        PrefsDictionaryRef w = PrefsDictionaryGetValue(read_back, "window");
        PrefsStringRef t = w != NULL ? PrefsDictionaryGetValue(w, "theme") : NULL;
        fprintf(stderr, "read back %zu bytes of XML: equal to the original (window.theme = %s)\n",
                PrefsDataGetLength(xml), t != NULL ? PrefsStringGetCString(t) : "?");
    }
    status = EXIT_SUCCESS;

done:
    /* 8. Give back every reference we created. */
    PrefsRelease(read_back);
    PrefsRelease(xml);
    PrefsRelease(settings);
    PrefsRelease(window);
    PrefsRelease(font_size);
    PrefsRelease(theme);
    PrefsRelease(colours);
    PrefsRelease(green);
    PrefsRelease(red);
    PrefsRelease(blob);
    PrefsRelease(created);
    PrefsRelease(enabled);
    PrefsRelease(ratio);
    PrefsRelease(count);
    PrefsRelease(name);
    return status;
}
