/*
 * test_managed.c — managed preferences from configuration tools
 * (shared/spec/fleet.md):
 *
 *   - drop-ins: every *.plist of $PREFS_MANAGED_DIR/<id>.d/ merged after
 *     <id>.plist in the byte order of the names, a later file winning, and
 *     the same for one user's <user>/<id>.d/ (which wins over everyone's);
 *     every key forced (PrefsAppValueIsForced, writes refused); dotfiles
 *     and names not ending in .plist ignored;
 *   - a drop-in that does not parse is skipped, the others still apply, and
 *     the first read reports kPrefsErrorCorruptFile naming it;
 *   - managed values of the global domain (.GlobalPreferences.plist and
 *     .GlobalPreferences.d/) forced for every application;
 *   - a drop-in added, changed or removed while the program runs: seen by
 *     the next read after PrefsAppSynchronize, and without any call of this
 *     program within a few seconds (the directory watcher, which also
 *     watches a .d directory made after the program started); one written
 *     by another libprefs process (`prefs profile install`, which moves
 *     the managed directory's change counter) by the very next read.
 */
#define _XOPEN_SOURCE 700

#include <prefs/Prefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "sandbox.h"

#define APP "com.example.fleet"
#define APP2 "com.example.fleet.other"

static char path_buf[1024];

/* $PREFS_MANAGED_DIR/<rel>. */
static const char *managed(const char *rel)
{
    return sandbox_fmt(path_buf, sizeof path_buf, "%s/%s", sandbox()->managed, rel);
}

/* Writes an XML plist of `text` (old-style dictionary text) at `rel`
 * under the managed directory, atomically (as configuration tools do). */
static int put(const char *rel, const char *text)
{
    char tmp[1100];
    PrefsErrorRef e = NULL;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(text, strlen(text), &e);
    if (v == NULL) {
        PrefsRelease(e);
        return -1;
    }
    const char *path = managed(rel);
    sandbox_fmt(tmp, sizeof tmp, "%s.tmp-test", path);
    int r = sandbox_write_plist(tmp, v);
    PrefsRelease(v);
    if (r == 0)
        r = rename(tmp, path);
    return r;
}

/* The string value of `key` for `app`, or "" when absent or not a string. */
static const char *str(const char *key, const char *app)
{
    static char out[256];
    PrefsPropertyListRef v = PrefsCopyAppValue(key, app);
    out[0] = '\0';
    if (v != NULL && PrefsGetType(v) == kPrefsTypeString)
        snprintf(out, sizeof out, "%s", PrefsStringGetCString((PrefsStringRef)v));
    if (v != NULL)
        PrefsRelease(v);
    return out;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Waits up to 5 s, reading without synchronizing, for `key` of `app` to
 * read `want`. */
static int eventually(const char *key, const char *app, const char *want)
{
    for (int i = 0; i < 100; i++) {
        if (strcmp(str(key, app), want) == 0)
            return 1;
        sleep_ms(50);
    }
    return 0;
}

static void test_order_and_forcing(void)
{
    CHECK(put(APP ".plist", "{A = base; B = base; C = base; D = base;}") == 0);
    sandbox_mkdirs(managed(APP ".d"));
    CHECK(put(APP ".d/10-first.plist", "{B = first; C = first;}") == 0);
    CHECK(put(APP ".d/20-second.plist", "{C = second;}") == 0);
    /* Byte order: "2" (0x32) < "B" (0x42) < "a" (0x61). */
    CHECK(put(APP ".d/B-third.plist", "{D = B-third;}") == 0);
    CHECK(put(APP ".d/a-fourth.plist", "{D = a-fourth;}") == 0);
    CHECK(put(APP ".d/.hidden.plist", "{A = hidden;}") == 0);
    CHECK(put(APP ".d/notes.txt", "{A = txt;}") == 0);

    CHECK(strcmp(str("A", APP), "base") == 0);
    CHECK(strcmp(str("B", APP), "first") == 0);
    CHECK(strcmp(str("C", APP), "second") == 0);
    CHECKF(strcmp(str("D", APP), "a-fourth") == 0, "D = %s", str("D", APP));

    /* Forced: reported so, and a write is refused. */
    CHECK(PrefsAppValueIsForced("C", APP));
    CHECK(PrefsAppValueIsForced("D", APP));
    CHECK(!PrefsAppValueIsForced("Z", APP));
    PrefsStringRef mine = PrefsStringCreate("mine");
    PrefsSetAppValue("C", mine, APP);
    PrefsErrorRef e = PrefsCopyLastError();
    CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorForcedValue);
    PrefsRelease(e);
    CHECK(strcmp(str("C", APP), "second") == 0);

    /* One user's drop-ins win over everyone's, and are forced too. */
    char rel[600];
    sandbox_fmt(rel, sizeof rel, "%s/" APP ".d", sandbox()->user);
    sandbox_mkdirs(managed(rel));
    sandbox_fmt(rel, sizeof rel, "%s/" APP ".d/00-user.plist", sandbox()->user);
    CHECK(put(rel, "{C = user; U = user;}") == 0);
    CHECK(PrefsAppSynchronize(APP));
    CHECK(strcmp(str("C", APP), "user") == 0);
    CHECK(PrefsAppValueIsForced("U", APP));
    PrefsSetAppValue("U", mine, APP);
    e = PrefsCopyLastError();
    CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorForcedValue);
    PrefsRelease(e);
    PrefsRelease(mine);
}

static void test_broken_drop_in(void)
{
    CHECK(sandbox_write_file(managed(APP ".d/15-broken.plist"), "<plist><dict><key>", 18) == 0);
    CHECK(PrefsAppSynchronize(APP));
    /* The others still apply. */
    PrefsPropertyListRef v = PrefsCopyAppValue("B", APP);
    PrefsErrorRef e = PrefsCopyLastError();
    CHECK(v != NULL && strcmp(PrefsStringGetCString((PrefsStringRef)v), "first") == 0);
    CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorCorruptFile);
    if (e != NULL) {
        char *why = PrefsErrorCopyDescription(e);
        CHECKF(strstr(why, "15-broken.plist") != NULL, "%s", why);
        PrefsFree(why);
        PrefsRelease(e);
    }
    if (v != NULL)
        PrefsRelease(v);
    CHECK(strcmp(str("C", APP), "user") == 0);
    CHECK(strcmp(str("D", APP), "a-fourth") == 0);
    /* Reported once. */
    v = PrefsCopyAppValue("B", APP);
    e = PrefsCopyLastError();
    CHECK(e == NULL);
    PrefsRelease(e);
    PrefsRelease(v);
    unlink(managed(APP ".d/15-broken.plist"));
}

static void test_global(void)
{
    CHECK(put(".GlobalPreferences.plist", "{G1 = global;}") == 0);
    sandbox_mkdirs(managed(".GlobalPreferences.d"));
    CHECK(put(".GlobalPreferences.d/50-site.plist", "{G2 = site; G1 = site;}") == 0);
    CHECK(PrefsAppSynchronize(APP2));
    CHECK(strcmp(str("G1", APP2), "site") == 0);
    CHECK(strcmp(str("G2", APP2), "site") == 0);
    CHECK(PrefsAppValueIsForced("G1", APP2));
    CHECK(PrefsAppValueIsForced("G2", "NSGlobalDomain"));
    /* A user's own global value does not beat a managed one. */
    PrefsStringRef mine = PrefsStringCreate("mine");
    PrefsSetAppValue("G2", mine, APP2);
    PrefsErrorRef e = PrefsCopyLastError();
    CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorForcedValue);
    PrefsRelease(e);
    PrefsSetValue("G2", mine, "NSGlobalDomain", kPrefsCurrentUser, kPrefsAnyHost);
    e = PrefsCopyLastError();
    CHECK(e != NULL && PrefsErrorGetCode(e) == kPrefsErrorForcedValue);
    PrefsRelease(e);
    PrefsRelease(mine);
    CHECK(strcmp(str("G2", APP2), "site") == 0);
    /* The application's own managed values win over the global ones. */
    CHECK(put(APP2 ".plist", "{G1 = own;}") == 0);
    CHECK(PrefsAppSynchronize(APP2));
    CHECK(strcmp(str("G1", APP2), "own") == 0);
}

static void test_changes_while_running(const char *prefs_bin)
{
    /* Synchronize sees a new drop-in, a changed one and a removed one. */
    CHECK(put(APP ".d/30-late.plist", "{L = late;}") == 0);
    CHECK(PrefsAppSynchronize(APP));
    CHECK(strcmp(str("L", APP), "late") == 0);
    CHECK(put(APP ".d/30-late.plist", "{L = later;}") == 0);
    CHECK(PrefsAppSynchronize(APP));
    CHECK(strcmp(str("L", APP), "later") == 0);
    unlink(managed(APP ".d/30-late.plist"));
    CHECK(PrefsAppSynchronize(APP));
    CHECK(strcmp(str("L", APP), "") == 0);

    /* Without synchronize: the watcher sees files written by hand, also
     * in a .d directory made after the first read. */
    sleep_ms(1500); /* the watcher starts one second after the first read */
    CHECK(put(APP ".d/40-watch.plist", "{W = seen;}") == 0);
    CHECK(eventually("W", APP, "seen"));
    CHECK(put(APP ".d/40-watch.plist", "{W = changed;}") == 0);
    CHECK(eventually("W", APP, "changed"));
    unlink(managed(APP ".d/40-watch.plist"));
    CHECK(eventually("W", APP, ""));
    CHECK(strcmp(str("X", APP2), "") == 0);
    sandbox_mkdirs(managed(APP2 ".d"));
    sleep_ms(200);
    CHECK(put(APP2 ".d/new.plist", "{X = new-dir;}") == 0);
    CHECK(eventually("X", APP2, "new-dir"));

    /* Another libprefs process's write moves the counter: the very next
     * read sees it. */
    if (prefs_bin != NULL) {
        char profile[700], cmd[2200];
        sandbox_fmt(profile, sizeof profile, "%s/p.mobileconfig", sandbox()->root);
        const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                          "<key>PayloadIdentifier</key><string>com.example.counter</string>"
                          "<key>PayloadType</key><string>Configuration</string>"
                          "<key>PayloadContent</key><array><dict>"
                          "<key>PayloadType</key><string>" APP "</string>"
                          "<key>P</key><string>from-profile</string></dict></array></dict></plist>\n";
        CHECK(sandbox_write_file(profile, xml, strlen(xml)) == 0);
        sandbox_fmt(cmd, sizeof cmd, "'%s' profile install '%s' >/dev/null", prefs_bin, profile);
        CHECK(system(cmd) == 0);
        CHECK(strcmp(str("P", APP), "from-profile") == 0);
        sandbox_fmt(cmd, sizeof cmd, "'%s' profile remove com.example.counter >/dev/null", prefs_bin);
        CHECK(system(cmd) == 0);
        CHECK(strcmp(str("P", APP), "") == 0);
    }
}

int main(void)
{
    if (sandbox_init("managed") != 0)
        return CHECK_FINISH();
    test_order_and_forcing();
    test_broken_drop_in();
    test_global();
    test_changes_while_running(getenv("PREFS_BIN"));
    sandbox_remove();
    return CHECK_FINISH();
}
