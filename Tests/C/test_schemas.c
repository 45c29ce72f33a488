/*
 * test_schemas.c — installed schemas and PrefsCopyAppValueAndSource:
 *
 *   a schema in $XDG_DATA_HOME/prefs/schemas (child pane included) gives
 *   its defaults with no call; $XDG_DATA_HOME comes before each of
 *   $XDG_DATA_DIRS; a registered default and a user value shadow it, and
 *   PrefsCopyAppValueAndSource names each layer (arguments, app, current
 *   host, suite, any user, global, managed, language, registration,
 *   schema); a schema that does not
 *   parse is reported once as kPrefsErrorCorruptFile and contributes
 *   nothing; a schema installed, changed or removed while the program runs
 *   is picked up at synchronize and, by the directory watcher, within a
 *   second without any call.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"
#include "support.h"

#define APP "com.example.schematest"

static char data_home[400], data_dir[400];

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[600];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return;
    fputs(text, f);
    fclose(f);
}

static char *schema(const char *key, const char *value, const char *pane)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "{ PreferenceSpecifiers = ("
             "{ Type = PSTextFieldSpecifier; Key = %s; DefaultValue = %s; Title = T; Description = D; }"
             "%s%s%s ); }",
             key, value, pane ? ", { Type = PSChildPaneSpecifier; File = " : "", pane ? pane : "",
             pane ? "; }" : "");
    return text;
}

/* Whether APP's `key` reads as `want`. */
#define reads(key, want) support_reads(APP, (key), (want))

static int source_is(const char *key, PrefsSource want, const char *domain)
{
    PrefsSource source = kPrefsSourceNone;
    char *name = NULL;
    PrefsPropertyListRef v = PrefsCopyAppValueAndSource(key, APP, &source, &name);
    int ok = source == want && (domain == NULL ? name == NULL : name != NULL && strcmp(name, domain) == 0);
    if (!ok)
        fprintf(stderr, "    %s: source %d (%s), wanted %d (%s)\n", key, (int)source, name ? name : "NULL",
                (int)want, domain ? domain : "NULL");
    PrefsRelease(v);
    PrefsFree(name);
    return ok;
}

/* Waits up to two seconds for `key` to read `want`, with no call but reads. */
static int eventually_reads(const char *key, const char *want)
{
    for (int i = 0; i < 200; i++) {
        PrefsPropertyListRef v = PrefsCopyAppValue(key, APP);
        int ok = strcmp(support_text_of(v), want) == 0;
        PrefsRelease(v);
        if (ok)
            return 1;
        usleep(10000);
    }
    return reads(key, want);
}

int main(void)
{
    struct sandbox *sb;
    if (sandbox_init("schemas") != 0)
        return CHECK_FINISH();
    sb = sandbox();
    sandbox_fmt(data_home, sizeof data_home, "%s/data/prefs/schemas", sb->root);
    sandbox_fmt(data_dir, sizeof data_dir, "%s/sysdata/prefs/schemas", sb->root);
    sandbox_mkdirs(data_home);
    sandbox_mkdirs(data_dir);
    {
        char d[400];
        setenv("XDG_DATA_HOME", sandbox_fmt(d, sizeof d, "%s/data", sb->root), 1);
        setenv("XDG_DATA_DIRS", sandbox_fmt(d, sizeof d, "/nonexistent:%s/sysdata", sb->root), 1);
    }

    /* Found in XDG_DATA_DIRS, child pane read beside it; no call. */
    write_file(data_dir, APP ".plist", schema("Greeting", "fromsystem", "Pane"));
    write_file(data_dir, "Pane.plist",
               "{ PreferenceSpecifiers = ({ Type = PSSliderSpecifier; Key = Size; "
               "DefaultValue = 12; MinimumValue = 8; MaximumValue = 72; }); }");
    CHECKF(reads("Greeting", "fromsystem"), "a schema default is seen with no call");
    CHECKF(reads("Size", "12"), "a child pane's default");
    CHECK(source_is("Greeting", kPrefsSourceSchema, APP));
    {
        bool valid = false;
        CHECK(PrefsGetAppIntegerValue("Size", APP, &valid) == 12 && valid);
    }
    CHECK(reads("Missing", "(null)"));
    CHECK(source_is("Missing", kPrefsSourceNone, NULL));

    /* Registration shadows the schema; the user's value shadows both. */
    {
        PrefsStringRef s = PrefsStringCreate("registered");
        PrefsDictionaryRef d = sandbox_dict1("Greeting", s);
        PrefsRegisterDefaults(d, APP);
        CHECK(reads("Greeting", "registered"));
        CHECK(source_is("Greeting", kPrefsSourceRegistration, APP));
        PrefsRelease(d);
        PrefsRelease(s);
    }
    sandbox_set_string("Greeting", "the user's", APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(reads("Greeting", "\"the user's\""));
    CHECK(source_is("Greeting", kPrefsSourceApp, APP));
    sandbox_set_string("Global", "g", kPrefsAnyApplication, kPrefsCurrentUser, kPrefsAnyHost);
    CHECK(source_is("Global", kPrefsSourceGlobal, "NSGlobalDomain"));
    {
        PrefsSource source = kPrefsSourceNone;
        PrefsPropertyListRef v = PrefsCopyAppValueAndSource("Size", APP, &source, NULL);
        CHECKF(v != NULL && source == kPrefsSourceSchema, "outDomainName may be NULL");
        PrefsRelease(v);
        v = PrefsCopyAppValueAndSource("Size", "bad/id", &source, NULL);
        CHECK(v == NULL && source == kPrefsSourceNone);
        CHECK_LAST_ERROR(kPrefsErrorInvalidApplicationID, "a refused application ID");
    }

    /* Every other kind of layer names itself. */
    {
        const char *argv[] = {"test_schemas", "-FromArguments", "yes"};
        FILE *f;
        char path[600];
        PrefsSetArguments(3, argv);
        CHECK(source_is("FromArguments", kPrefsSourceArguments, NULL));
        sandbox_set_string("InSuite", "s", APP ".suite", kPrefsCurrentUser, kPrefsAnyHost);
        PrefsAddSuitePreferencesToApp(APP, APP ".suite");
        CHECK(source_is("InSuite", kPrefsSourceSuite, APP ".suite"));
        sandbox_set_string("ForAll", "a", APP, kPrefsAnyUser, kPrefsAnyHost);
        CHECK(source_is("ForAll", kPrefsSourceAnyUser, APP));
        sandbox_set_string("HostOnly", "h", APP, kPrefsCurrentUser, kPrefsCurrentHost);
        CHECK(source_is("HostOnly", kPrefsSourceAppCurrentHost, APP));
        f = fopen(sandbox_fmt(path, sizeof path, "%s/%s.plist", sb->managed, APP), "w");
        if (CHECK(f != NULL)) {
            fputs("{ Size = 99; }", f);
            fclose(f);
        }
        PrefsAppSynchronize(APP);
        CHECK(source_is("Size", kPrefsSourceManaged, APP));
        CHECK(PrefsAppValueIsForced("Size", APP));
        unlink(path);
        PrefsAppSynchronize(APP);
        CHECK(source_is("Size", kPrefsSourceSchema, APP));
        CHECK(source_is("AppleLocale", kPrefsSourceLanguage, NULL));
    }

    /* XDG_DATA_HOME comes first: installed while running, seen at synchronize. */
    write_file(data_home, APP ".plist", schema("Size", "20", NULL));
    PrefsAppSynchronize(APP);
    CHECKF(reads("Size", "20"), "the user's data directory comes first");
    CHECKF(reads("Other", "(null)"), "only the first schema counts");

    /* Changed while running, noticed by the watcher without a call. */
    write_file(data_home, APP ".plist", schema("Size", "30", NULL));
    CHECKF(eventually_reads("Size", "30"), "a changed schema is picked up within a second");

    /* A schema that does not parse: reported once, contributes nothing. */
    write_file(data_home, APP ".plist", "{ PreferenceSpecifiers = ( <<<");
    PrefsAppSynchronize(APP);
    {
        PrefsPropertyListRef v = PrefsCopyAppValue("Size", APP);
        CHECK_LAST_ERROR(kPrefsErrorCorruptFile, "the first read meeting a broken schema");
        PrefsRelease(v);
        v = PrefsCopyAppValue("Greeting", APP);
        CHECK_NO_LAST_ERROR("reported once");
        CHECKF(v != NULL, "the other layers still answer");
        PrefsRelease(v);
    }
    CHECK(reads("Size", "(null)"));

    /* Removed: the next directory's schema answers again. */
    {
        char path[600];
        unlink(sandbox_fmt(path, sizeof path, "%s/%s.plist", data_home, APP));
    }
    CHECKF(eventually_reads("Size", "12"), "a removed schema gives way to the next one");

    sandbox_remove();
    return CHECK_FINISH();
}
