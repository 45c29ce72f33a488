/* startup_prefs.c: a new process's first read of a 1,000-key domain with libprefs. */
#include <prefs/Prefs.h>

int main(void)
{
    PrefsPropertyListRef v = PrefsCopyAppValue("key0500", "com.example.bench");
    int missing = v == NULL;
    PrefsRelease(v);
    return missing;
}
