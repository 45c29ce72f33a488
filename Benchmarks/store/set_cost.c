/*
 * set_cost.c: PrefsSetAppValue of an existing key, in memory (no
 * synchronize), for three kinds of value, counted by Benchmarks/sets/run.sh
 * under callgrind.
 *
 *   set_cost integer|string|dictionary N
 *
 * Loads com.example.bench (the 1,000-key domain of make_fixture.sh) with one
 * read, makes the values once, then sets N times a key the file holds,
 * alternating two values so that every set changes it. The values are made
 * before the loop: what is counted is the set alone.
 */
#include <prefs/Prefs.h>
#include "bench.h"

#define APP "com.example.bench"

static PrefsPropertyListRef dictionary(const char *name)
{
    const char *keys[] = {"Name", "Size", "Bold"};
    PrefsStringRef n = PrefsStringCreate(name);
    PrefsNumberRef s = PrefsNumberCreateInt64(12);
    PrefsBooleanRef t = PrefsBooleanCreate(true);
    PrefsPropertyListRef values[] = {n, s, t};
    PrefsDictionaryRef d = PrefsDictionaryCreate(keys, values, 3);
    PrefsRelease(n);
    PrefsRelease(s);
    PrefsRelease(t);
    return d;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        bench_die("usage: set_cost integer|string|dictionary N");
    const char *kind = argv[1];
    long n = bench_arg(argc, argv, 2, 1000);
    const char *key;
    PrefsPropertyListRef a, b;
    if (strcmp(kind, "integer") == 0) {
        key = "FontSize";
        a = PrefsNumberCreateInt64(12);
        b = PrefsNumberCreateInt64(14);
    } else if (strcmp(kind, "string") == 0) {
        key = "FontName";
        a = PrefsStringCreate("Helvetica Neue");
        b = PrefsStringCreate("Menlo Regular");
    } else if (strcmp(kind, "dictionary") == 0) {
        key = "key0000";
        a = dictionary("Helvetica Neue");
        b = dictionary("Menlo Regular");
    } else {
        bench_die("kind: integer, string or dictionary");
        return 2;
    }
    if (a == NULL || b == NULL)
        bench_die("cannot make the values");
    PrefsPropertyListRef v = PrefsCopyAppValue(key, APP);
    if (v == NULL)
        bench_die("the key is not in the domain");
    PrefsRelease(v);
    for (long i = 0; i < n; i++)
        PrefsSetAppValue(key, (i & 1) ? b : a, APP);
    PrefsErrorRef e = PrefsCopyLastError();
    if (e != NULL)
        bench_die("a set failed");
    PrefsRelease(a);
    PrefsRelease(b);
    return 0;
}
