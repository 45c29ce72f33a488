/*
 * header_check.c — <prefs/Prefs.h> as a C99 and a C++11 program sees it.
 *
 * run.sh compiles this file with gcc and clang as C99 and with g++ as
 * C++11, each with -Wall -Wextra -pedantic -Werror, links it against the
 * installed library and runs it: the header must be self-contained, warning
 * free in both languages, guarded against double inclusion, and its
 * functions must link with C linkage.
 */
#include <prefs/Prefs.h>
#include <prefs/Prefs.h> /* a second time: the include guard holds */

#include <stdio.h>

int main(void)
{
    PrefsStringRef s = PrefsStringCreate("header check");
    PrefsNumberRef n = PrefsNumberCreateInt64(42);
    PrefsPropertyListRef values[2];
    const char *keys[2] = {"s", "n"};
    PrefsDictionaryRef d;
    PrefsArrayRef a;
    PrefsErrorRef error = NULL;
    PrefsDataRef xml;
    int ok;

    values[0] = s; /* every specific reference converts to PrefsPropertyListRef */
    values[1] = n;
    a = PrefsArrayCreate(values, 2);
    d = PrefsDictionaryCreate(keys, values, 2);
    xml = d != NULL ? PrefsPropertyListCreateXMLData(d, &error) : NULL;
    ok = PrefsGetVersionNumber() == PREFS_VERSION_NUMBER && a != NULL && PrefsArrayGetCount(a) == 2 &&
         d != NULL && PrefsDictionaryGetCount(d) == 2 && xml != NULL && error == NULL &&
         PrefsGetType(s) == kPrefsTypeString && PrefsGetType(n) == kPrefsTypeInteger;
    /* Not inside printf's arguments: with _FORTIFY_SOURCE, printf may be a
     * macro, and a directive inside a macro's arguments is undefined. */
#ifdef __cplusplus
    const char *language = "C++";
#else
    const char *language = "C";
#endif
    printf("%s: Prefs.h %s, library %d: %s\n", language, PREFS_VERSION_STRING, PrefsGetVersionNumber(),
           ok ? "ok" : "FAILED");
    PrefsRelease(xml);
    PrefsRelease(error);
    PrefsRelease(d);
    PrefsRelease(a);
    PrefsRelease(n);
    PrefsRelease(s);
    return ok ? 0 : 1;
}
