/* startup_schema.c: a new process's first read of a key only the installed
 * schema has (Benchmarks/store/schema.sh). */
#include <prefs/Prefs.h>

int main(void)
{
    PrefsPropertyListRef v = PrefsCopyAppValue("SchemaDefault1", "com.example.bench");
    int missing = v == NULL;
    PrefsRelease(v);
    return missing;
}
