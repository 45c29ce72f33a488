/* set_sync: one process sets one existing key of the domain
   com.example.commit to a new integer and synchronizes: what
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
    if (!PrefsAppSynchronize("com.example.commit")) {
        fputs("set_sync: PrefsAppSynchronize failed\n", stderr);
        return 1;
    }
    return 0;
}
