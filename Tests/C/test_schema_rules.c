/*
 * test_schema_rules.c — an installed schema binds its keys, for every C
 * writer and reader. With Tests/schemas/com.example.every.plist (a
 * specifier of every type) installed:
 *
 *   PrefsSetAppValue, PrefsSetValue and PrefsSetMultiple refuse a value of
 *   the wrong type, out of range or not listed (kPrefsErrorSchemaViolation,
 *   naming the key and what it accepts), storing nothing, and store what
 *   the schema accepts; keys it does not bind stay free;
 *   a hand-edited file with such values reads as the schema's defaults,
 *   with kPrefsSourceSchema, and the file is left as it was;
 *   PrefsCopyAppKeySchema describes a key, PrefsCopyAppValueSources marks
 *   the values the schema ignores.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sandbox.h"
#include "support.h"

#define APP "com.example.every"

/* Whether APP's `key` reads as `want`. */
#define reads(key, want) support_reads(APP, (key), (want))

static int stored(const char *key)
{
    PrefsPropertyListRef v = PrefsCopyValue(key, APP, kPrefsCurrentUser, kPrefsAnyHost);
    PrefsRelease(v);
    return v != NULL;
}

/* Whether the latest call was refused by the schema, with a message that
 * names `key` and says what it accepts. */
static int refused_by_schema(const char *key, const char *accepts)
{
    PrefsErrorRef e = PrefsCopyLastError();
    char *d = e ? PrefsErrorCopyDescription(e) : NULL;
    int ok = e != NULL && PrefsErrorGetCode(e) == kPrefsErrorSchemaViolation && d != NULL &&
             strstr(d, key) != NULL && strstr(d, accepts) != NULL;
    if (!ok)
        fprintf(stderr, "    %s: error %d, %s\n", key, e ? (int)PrefsErrorGetCode(e) : -1, d ? d : "(none)");
    PrefsFree(d);
    PrefsRelease(e);
    return ok;
}

static void refuse(const char *key, PrefsPropertyListRef bad, const char *accepts)
{
    PrefsSetAppValue(key, bad, APP);
    CHECKF(refused_by_schema(key, accepts), "PrefsSetAppValue %s = %s refused", key, support_text_of(bad));
    PrefsSetValue(key, bad, APP, kPrefsCurrentUser, kPrefsAnyHost);
    CHECKF(refused_by_schema(key, accepts), "PrefsSetValue %s refused", key);
    {
        const char *keys[] = {"Free", key};
        PrefsStringRef free_value = PrefsStringCreate("x");
        PrefsPropertyListRef values[] = {free_value, bad};
        PrefsDictionaryRef d = PrefsDictionaryCreate(keys, values, 2);
        PrefsSetMultiple(d, NULL, APP, kPrefsCurrentUser, kPrefsAnyHost);
        CHECKF(refused_by_schema(key, accepts), "PrefsSetMultiple with %s refused whole", key);
        PrefsRelease(d);
        PrefsRelease(free_value);
    }
    CHECKF(!stored(key) && !stored("Free"), "%s: nothing stored", key);
    PrefsRelease(bad);
}

static void accept(const char *key, PrefsPropertyListRef good, const char *want)
{
    PrefsSetAppValue(key, good, APP);
    PrefsErrorRef e = PrefsCopyLastError();
    CHECKF(e == NULL, "%s = %s accepted", key, want);
    PrefsRelease(e);
    CHECK(reads(key, want));
    PrefsRelease(good);
}

static int source_is_schema(const char *key)
{
    PrefsSource source = kPrefsSourceNone;
    char *name = NULL;
    PrefsPropertyListRef v = PrefsCopyAppValueAndSource(key, APP, &source, &name);
    int ok = source == kPrefsSourceSchema && name != NULL && strcmp(name, APP) == 0;
    if (!ok)
        fprintf(stderr, "    %s: source %d\n", key, (int)source);
    PrefsRelease(v);
    PrefsFree(name);
    return ok;
}

static const char *string_in(PrefsDictionaryRef d, const char *key)
{
    PrefsPropertyListRef v = d ? PrefsDictionaryGetValue(d, key) : NULL;
    return v && PrefsGetType(v) == kPrefsTypeString ? PrefsStringGetCString((PrefsStringRef)v) : "(none)";
}

int main(void)
{
    struct sandbox *sb;
    char dir[400], path[600], src[600], domain[600];
    if (sandbox_init("schema-rules") != 0)
        return CHECK_FINISH();
    sb = sandbox();
    setenv("XDG_DATA_HOME", sandbox_fmt(dir, sizeof dir, "%s/data", sb->root), 1);
    setenv("XDG_DATA_DIRS", "/nonexistent", 1);
    sandbox_fmt(dir, sizeof dir, "%s/data/prefs/schemas", sb->root);
    sandbox_mkdirs(dir);
    {
        /* The shared schema, beside this file: ../schemas/. */
        const char *here = __FILE__, *slash = strrchr(here, '/');
        int n = slash ? (int)(slash - here) : 1;
        snprintf(src, sizeof src, "%.*s/../schemas/%s.plist", n, slash ? here : ".", APP);
        FILE *in = fopen(src, "rb");
        char buf[65536];
        size_t len = in ? fread(buf, 1, sizeof buf, in) : 0;
        if (in)
            fclose(in);
        CHECKF(len > 0, "the schema %s is readable", src);
        if (len == 0)
            return CHECK_FINISH();
        sandbox_write_file(sandbox_fmt(path, sizeof path, "%s/%s.plist", dir, APP), buf, len);
    }

    refuse("Toggle", PrefsNumberCreateInt64(1), "a boolean");
    refuse("YesNo", PrefsStringCreate("maybe"), "one of yes, no");
    refuse("Size", PrefsNumberCreateInt64(1000), "an integer from 8 to 72");
    refuse("Size", PrefsNumberCreateDouble(13), "an integer from 8 to 72");
    refuse("Spacing", PrefsNumberCreateDouble(NAN), "a number from 1 to 3");
    refuse("Spacing", PrefsNumberCreateDouble(INFINITY), "a number from 1 to 3");
    refuse("Theme", PrefsStringCreate("sepia"), "one of light, dark, system");
    refuse("Level", PrefsNumberCreateInt64(4), "one of 1, 2, 3");
    refuse("Name", PrefsNumberCreateInt64(3), "a string");
    refuse("Version", PrefsBooleanCreate(true), "a string");
    refuse("Since", PrefsNumberCreateDouble(0), "a date");
    refuse("Token", PrefsStringCreate("AP8="), "data");

    accept("Toggle", PrefsBooleanCreate(false), "0");
    accept("YesNo", PrefsStringCreate("no"), "no");
    accept("Size", PrefsNumberCreateInt64(8), "8");
    accept("Spacing", PrefsNumberCreateInt64(3), "3");
    accept("Theme", PrefsStringCreate("system"), "system");
    accept("Level", PrefsNumberCreateInt64(2), "2");
    accept("Since", PrefsDateCreate(86400), "\"1970-01-02 00:00:00 +0000\"");
    accept("Broken", PrefsStringCreate("free"), "free");
    accept("NotInTheSchema", PrefsNumberCreateInt64(-1), "-1");
    PrefsSetAppValue("Size", NULL, APP);
    CHECKF(reads("Size", "13"), "removing is always allowed; the default shows");
    CHECK(PrefsAppSynchronize(APP));

    /* A hand edit: values of the wrong type, out of range, not listed. */
    sandbox_domain_path(domain, sizeof domain, APP, 0, 0);
    {
        static const char edited[] =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
            "<key>Level</key><real>2</real><key>Name</key><integer>7</integer>"
            "<key>Size</key><integer>1000</integer><key>Spacing</key><real>nan</real>"
            "<key>Theme</key><string>sepia</string><key>Toggle</key><string>perhaps</string>"
            "<key>YesNo</key><true/></dict></plist>\n";
        sleep(1); /* a new stamp even where times are coarse */
        sandbox_write_file(domain, edited, sizeof edited - 1);
        CHECK(PrefsAppSynchronize(APP));
        CHECKF(reads("Size", "13"), "out of range: the default");
        CHECKF(reads("Spacing", "1.5"), "NaN: the default");
        CHECKF(reads("Theme", "light"), "not listed: the default");
        CHECKF(reads("Level", "1"), "a real where an integer is listed: the default");
        CHECKF(reads("Toggle", "1"), "a string for a toggle: the default");
        CHECKF(reads("YesNo", "yes"), "a boolean for a toggle of strings: the default");
        CHECKF(reads("Name", "Anne"), "an integer for a text field: the default");
        CHECK(source_is_schema("Size") && source_is_schema("Theme") && source_is_schema("Toggle"));
        {
            bool valid = false;
            CHECK(PrefsGetAppIntegerValue("Size", APP, &valid) == 13 && valid);
            CHECK(PrefsGetAppBooleanValue("Toggle", APP, &valid) && valid);
        }
        /* Many reads build the merged view: the same answers. */
        for (int i = 0; i < 100; i++)
            PrefsRelease(PrefsCopyAppValue("Size", APP));
        CHECK(reads("Size", "13") && reads("Theme", "light"));
        {
            PrefsDictionaryRef all = PrefsCopyAppDictionary(APP);
            CHECK(all != NULL && strcmp(support_text_of(PrefsDictionaryGetValue(all, "Size")), "13") == 0);
            PrefsRelease(all);
        }
        /* The file is left as it was. */
        CHECK(PrefsAppSynchronize(APP));
        {
            FILE *f = fopen(domain, "rb");
            char buf[4096];
            size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
            if (f)
                fclose(f);
            CHECKF(n == sizeof edited - 1 && memcmp(buf, edited, n) == 0,
                   "the hand-edited file is untouched");
        }
    }

    /* What the schema says of a key. */
    {
        PrefsDictionaryRef d = PrefsCopyAppKeySchema("Size", APP);
        CHECK(d != NULL);
        CHECK(strcmp(string_in(d, "Type"), "PSSliderSpecifier") == 0);
        CHECK(strcmp(string_in(d, "ValueType"), "integer") == 0);
        CHECK(strcmp(string_in(d, "Title"), "Font size") == 0);
        CHECK(strcmp(string_in(d, "Accepts"), "an integer from 8 to 72") == 0);
        CHECK(strcmp(support_text_of(d ? PrefsDictionaryGetValue(d, "MaximumValue") : NULL), "72") == 0);
        PrefsRelease(d);
        d = PrefsCopyAppKeySchema("Level", APP);
        CHECK(strcmp(support_text_of(d ? PrefsDictionaryGetValue(d, "Titles") : NULL),
                     "(\n    Low,\n    Middle,\n    High\n)") == 0);
        PrefsRelease(d);
        d = PrefsCopyAppKeySchema("Broken", APP);
        CHECKF(d != NULL && PrefsDictionaryGetValue(d, "Accepts") == NULL,
               "a key whose default breaks it is free");
        PrefsRelease(d);
        CHECK(PrefsCopyAppKeySchema("NotInTheSchema", APP) == NULL);
        PrefsErrorRef e = PrefsCopyLastError();
        CHECKF(e == NULL, "a key the schema does not name: NULL, no error");
        PrefsRelease(e);
    }

    /* Every layer of a key, the ignored value marked. */
    {
        PrefsArrayRef all = PrefsCopyAppValueSources("Size", APP);
        CHECK(all != NULL && PrefsArrayGetCount(all) == 2);
        if (all != NULL && PrefsArrayGetCount(all) == 2) {
            PrefsDictionaryRef first = (PrefsDictionaryRef)PrefsArrayGetValueAtIndex(all, 0);
            PrefsDictionaryRef second = (PrefsDictionaryRef)PrefsArrayGetValueAtIndex(all, 1);
            CHECK(strcmp(support_text_of(PrefsDictionaryGetValue(first, "Value")), "13") == 0);
            CHECK(strcmp(support_text_of(PrefsDictionaryGetValue(first, "Source")), "11") == 0);
            CHECK(PrefsDictionaryGetValue(first, "Ignored") == NULL);
            CHECK(strcmp(support_text_of(PrefsDictionaryGetValue(second, "Value")), "1000") == 0);
            CHECK(strcmp(support_text_of(PrefsDictionaryGetValue(second, "Source")), "4") == 0);
            CHECK(PrefsDictionaryGetValue(second, "Ignored") != NULL);
            CHECK(strcmp(string_in(second, "Reason"), "the schema accepts an integer from 8 to 72") == 0);
        }
        PrefsRelease(all);
    }
    support_text_of(NULL);
    return CHECK_FINISH();
}
