/* startup_regfile.c: what a program did before installed schemas: register
 * the schema file $BENCH_SCHEMA by hand, then read a key only it has
 * (Benchmarks/store/schema.sh). */
#include <prefs/Prefs.h>
#include <stdlib.h>

int main(void)
{
    const char *path = getenv("BENCH_SCHEMA");
    if (path == NULL || !PrefsRegisterDefaultsFromFile(path, "com.example.bench", NULL))
        return 2;
    PrefsPropertyListRef v = PrefsCopyAppValue("SchemaDefault1", "com.example.bench");
    int missing = v == NULL;
    PrefsRelease(v);
    return missing;
}
