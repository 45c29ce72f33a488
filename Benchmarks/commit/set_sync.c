/* set_sync KEY VALUE [NEW]: one process sets KEY of the domain
   com.example.commit to the integer VALUE, and NEW new keys
   (new-VALUE-0, ...; default none), then synchronizes: what
   Benchmarks/commit/run.sh counts with callgrind. */
#include <prefs/Prefs.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *key = argc > 1 ? argv[1] : "key0000500";
    long value = argc > 2 ? atol(argv[2]) : 42;
    PrefsNumberRef n = PrefsNumberCreateInt64(value);
    PrefsSetAppValue(key, n, "com.example.commit");
    PrefsRelease(n);
    long added = argc > 3 ? atol(argv[3]) : 0;
    for (long i = 0; i < added; i++) {
        char name[64];
        snprintf(name, sizeof name, "new-%ld-%ld", value, i);
        PrefsNumberRef v = PrefsNumberCreateInt64(i);
        PrefsSetAppValue(name, v, "com.example.commit");
        PrefsRelease(v);
    }
    if (!PrefsAppSynchronize("com.example.commit")) {
        fputs("set_sync: PrefsAppSynchronize failed\n", stderr);
        return 1;
    }
    return 0;
}
