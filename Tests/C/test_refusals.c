/*
 * test_refusals.c — what the library must refuse, and how: hostile or
 * broken input to PrefsPropertyListCreateWithData, values the XML format
 * cannot carry, NULL and wrong-type arguments. Each refusal returns the
 * failure value, reports the documented error code through outError and
 * PrefsCopyLastError, and never crashes, hangs or opens a file the input
 * names.
 *
 * Pieces that could crash or hang run in child processes (RUN_ISOLATED),
 * so that one such bug shows up as one failed check.
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "check.h"
#include "support.h"

#define PLIST(body) \
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" body "\n</plist>\n"

/* ------------------------------------------------------------------ */

/*
 * Parses n bytes and checks the refusal: NULL, an error in *outError and
 * from PrefsCopyLastError with code `code`, a description naming a line.
 * A negative `code` accepts any of the parse-error codes (Malformed,
 * ForbiddenMarkup, TooDeep).
 */
static void expect_refusal_at(const char *label, const void *bytes, size_t n, int code, const char *file,
                              int line)
{
    PrefsErrorRef err = NULL;
    PrefsErrorRef last;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(bytes, n, &err);
    char expr[600];
    int want = code;

    last = PrefsCopyLastError();
    if (code < 0 && err != NULL) {
        int got = (int)PrefsErrorGetCode(err);
        want = (got == kPrefsErrorMalformed || got == kPrefsErrorForbiddenMarkup || got == kPrefsErrorTooDeep)
                   ? got
                   : kPrefsErrorMalformed;
    }
    snprintf(expr, sizeof expr, "%s: refused (NULL)", label);
    if (!check_record(v == NULL, file, line, expr)) {
        char *d = PrefsCopyDescription(v);
        fprintf(stderr, "    parsed as: %.80s\n", d ? d : "?");
        PrefsFree(d);
    }
    support_check_error(err, want, "line", file, line, label);
    snprintf(expr, sizeof expr, "%s (PrefsCopyLastError)", label);
    support_check_error(last, want, NULL, file, line, expr);
    if (err != NULL && last != NULL) {
        snprintf(expr, sizeof expr, "%s: outError and PrefsCopyLastError agree", label);
        check_record(PrefsErrorGetCode(err) == PrefsErrorGetCode(last), file, line, expr);
    }
    if (err != NULL) {
        snprintf(expr, sizeof expr, "%s: the error object has type kPrefsTypeError", label);
        check_record(PrefsGetType(err) == kPrefsTypeError, file, line, expr);
    }
    PrefsRelease(last);
    PrefsRelease(err);
    PrefsRelease(v);
}

#define EXPECT_REFUSAL(label, bytes, n, code) \
  expect_refusal_at((label), (bytes), (n), (code), __FILE__, __LINE__)
#define EXPECT_REFUSAL_TEXT(label, text, code) EXPECT_REFUSAL((label), (text), sizeof(text) - 1, (code))

/* ------------------------------------------------------------------ */
/* Malformed documents                                                  */
/* ------------------------------------------------------------------ */

static void test_malformed(void)
{
    static const char *const integers[] = {
        "18446744073709551616",
        "-9223372036854775809",
        "99999999999999999999999",
        "0x10000000000000000",
        "12abc",
        "",
        "1.5",
        "0x",
        "--1",
        "1e3",
        "0x1G",
        "one",
    };
    static const char *const reals[] = {"abc", "", "1.2.3", "1e", "nanx", "--1", "1,5", "e5", "1.5  "};
    static const char *const base64[] = {"a===", "aGVsbG8", "!!!!", "aGVsbG8=aGVs", "a", "=aaa", "aGVs*G8="};
    static const char *const dates[] = {
        "2024-13-01T00:00:00Z",
        "2024-00-10T00:00:00Z",
        "2024-01-01 00:00:00Z",
        "2024-01-01T00:00:00",
        "2024-01-01T00:00:00.5Z",
        "2024-1-01T00:00:00Z",
        "1234567890-01-01T00:00:00Z",
        "",
        "yesterday",
        "2024-01-01T00:00:00+01:00",
        " 2024-01-01T00:00:00Z",
    };
    static const struct {
        const char *label;
        const char *text;
    } docs[] = {
        {"mismatched tags", PLIST("<dict><key>a</key><string>x</dict>")},
        {"an unclosed element", PLIST("<array><true/>")},
        {"an unknown element", PLIST("<foo/>")},
        {"an unknown element in an array", PLIST("<array><integer>1</integer><blob/></array>")},
        {"a dict value without a key", PLIST("<dict><string>x</string></dict>")},
        {"a dict value after a key's value", PLIST("<dict><key>a</key><true/><false/></dict>")},
        {"a key without a value", PLIST("<dict><key>a</key></dict>")},
        {"a key without a value, then another key", PLIST("<dict><key>a</key><key>b</key><true/></dict>")},
        {"a key outside a dict", PLIST("<array><key>a</key></array>")},
        {"a key as the root", PLIST("<key>a</key>")},
        {"two root values", PLIST("<true/><false/>")},
        {"an empty plist element", PLIST("")},
        {"text between values", PLIST("<array>text<true/></array>")},
        {"an element inside a string", PLIST("<string><integer>1</integer></string>")},
        {"text in <true/>", PLIST("<true>yes</true>")},
        {"an element inside <data>", PLIST("<data><string/></data>")},
        {"plist inside plist", PLIST("<plist><true/></plist>")},
        {"two root elements", "<plist version=\"1.0\"><true/></plist><plist version=\"1.0\"><true/></plist>"},
        {"bytes that are not UTF-8", PLIST("<string>\xff\xfe</string>")},
        {"an unterminated comment", PLIST("<!-- <true/>")},
        {"a bare ampersand", PLIST("<string>a & b</string>")},
        {"a lone less-than sign", PLIST("<string>a < b</string>")},
        {"an unquoted attribute", "<plist version=1.0><true/></plist>"},
        {"an XML declaration not at the start", "\n\n<plist><true/></plist><?xml version=\"1.0\"?>"},
        {"old-style: unterminated array", "(a, b"},
        {"old-style: unterminated dictionary", "{a = b;"},
        {"old-style: missing semicolon", "{a = b}"},
        {"old-style: missing equals sign", "{a b;}"},
        {"old-style: unterminated string", "\"abc"},
        {"old-style: odd hex digits", "<abc>"},
        {"old-style: bad hex digit", "<0g>"},
        {"old-style: text after the value", "(a) b"},
        {"old-style: a stray comma", "(,)"},
        {"old-style: an unterminated comment", "(a) /* b"},
    };
    char doc[512];
    size_t i;

    for (i = 0; i < sizeof docs / sizeof docs[0]; i++)
        EXPECT_REFUSAL(docs[i].label, docs[i].text, strlen(docs[i].text), kPrefsErrorMalformed);

    for (i = 0; i < sizeof integers / sizeof integers[0]; i++) {
        char label[128];
        int n = snprintf(doc, sizeof doc, PLIST("<integer>%s</integer>"), integers[i]);
        snprintf(label, sizeof label, "<integer>%s</integer>", integers[i]);
        EXPECT_REFUSAL(label, doc, (size_t)n, kPrefsErrorMalformed);
    }
    for (i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        char label[128];
        int n = snprintf(doc, sizeof doc, PLIST("<real>%s</real>"), reals[i]);
        snprintf(label, sizeof label, "<real>%s</real>", reals[i]);
        EXPECT_REFUSAL(label, doc, (size_t)n, kPrefsErrorMalformed);
    }
    for (i = 0; i < sizeof base64 / sizeof base64[0]; i++) {
        char label[128];
        int n = snprintf(doc, sizeof doc, PLIST("<data>%s</data>"), base64[i]);
        snprintf(label, sizeof label, "<data>%s</data>", base64[i]);
        EXPECT_REFUSAL(label, doc, (size_t)n, kPrefsErrorMalformed);
    }
    for (i = 0; i < sizeof dates / sizeof dates[0]; i++) {
        char label[128];
        int n = snprintf(doc, sizeof doc, PLIST("<date>%s</date>"), dates[i]);
        snprintf(label, sizeof label, "<date>%s</date>", dates[i]);
        EXPECT_REFUSAL(label, doc, (size_t)n, kPrefsErrorMalformed);
    }

    /* The error names the line of the problem. */
    {
        static const char text[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                   "<plist version=\"1.0\">\n"
                                   "<dict>\n"
                                   "\t<key>a</key>\n"
                                   "\t<integer>1</integer>\n"
                                   "\t<key>b</key>\n"
                                   "\t<integer>x7</integer>\n" /* line 7 */
                                   "</dict>\n"
                                   "</plist>\n";
        PrefsErrorRef err = NULL;
        PrefsPropertyListRef v = PrefsPropertyListCreateWithData(text, sizeof text - 1, &err);
        CHECK(v == NULL);
        CHECK_ERROR(err, kPrefsErrorMalformed, "7", "a bad integer on line 7");
        PrefsRelease(err);
        PrefsRelease(v);
    }
}

/* ------------------------------------------------------------------ */
/* Empty, truncated and random input                                    */
/* ------------------------------------------------------------------ */

static void test_empty_truncated_random(void)
{
    static const char valid[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
                                "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
                                "<plist version=\"1.0\">\n"
                                "<dict>\n"
                                "\t<key>list</key>\n"
                                "\t<array>\n"
                                "\t\t<integer>12345</integer>\n"
                                "\t\t<real>2.5</real>\n"
                                "\t\t<date>2001-02-03T04:05:06Z</date>\n"
                                "\t\t<data>\n"
                                "\t\taGVsbG8gd29ybGQ=\n"
                                "\t\t</data>\n"
                                "\t\t<true/>\n"
                                "\t</array>\n"
                                "\t<key>name</key>\n"
                                "\t<string>value</string>\n"
                                "</dict>\n"
                                "</plist>\n";
    const char *end = strstr(valid, "</plist>");
    size_t complete = (size_t)(end - valid) + strlen("</plist>");
    size_t n;
    PrefsPropertyListRef v;

    EXPECT_REFUSAL("NULL bytes, length 0", NULL, 0, kPrefsErrorMalformed);
    EXPECT_REFUSAL("empty input", "", 0, kPrefsErrorMalformed);
    EXPECT_REFUSAL_TEXT("only whitespace", " \n\t\r\n ", kPrefsErrorMalformed);
    EXPECT_REFUSAL_TEXT("only a BOM", "\xef\xbb\xbf", kPrefsErrorMalformed);
    EXPECT_REFUSAL_TEXT("only an XML declaration", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                        kPrefsErrorMalformed);
    EXPECT_REFUSAL_TEXT("only a comment", "<!-- nothing -->", kPrefsErrorMalformed);

    /* The whole document parses... */
    v = PrefsPropertyListCreateWithData(valid, sizeof valid - 1, NULL);
    CHECK(v != NULL);
    PrefsRelease(v);
    /* ...and every proper prefix of it that stops before "</plist>" is
     * complete is refused. */
    for (n = 1; n < complete; n++) {
        char label[64];
        snprintf(label, sizeof label, "the first %zu bytes", n);
        EXPECT_REFUSAL(label, valid, n, kPrefsErrorMalformed);
        if (check_failures() > 200)
            break; /* enough said */
    }

    /* Random bytes: pure, behind an XML prologue, behind an old-style opener. */
    {
        uint64_t state = 0x9E3779B97F4A7C15u;
        static const char *const prefixes[] = {
            "",
            "",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n",
            "{ key = ",
            "(",
            "<plist>",
            "\xef\xbb\xbf",
            "\xff\xfe",
        };
        unsigned char buffer[1024];
        int round;
        for (round = 0; round < 800; round++) {
            const char *prefix = prefixes[round % 8];
            size_t plen = strlen(prefix);
            size_t len, k;
            char label[64];
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            len = plen + 16 + (size_t)(state % 700);
            memcpy(buffer, prefix, plen);
            for (k = plen; k < len; k++) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                buffer[k] = (unsigned char)(state >> 24);
            }
            snprintf(label, sizeof label, "random bytes, round %d", round);
            EXPECT_REFUSAL(label, buffer, len, -1);
        }
    }
}

/* ------------------------------------------------------------------ */
/* A library does not write to the program's stderr                     */
/* ------------------------------------------------------------------ */

static void test_silent_on_stderr(void)
{
    static const char *const inputs[] = {
        "\xff\xfe\x3c\x00\x70\x00\x00\xd8\x41\x00", /* UTF-16LE with a lone surrogate */
        "\xfe\xff\x00\x3c\xdc\x00\x00\x41",         /* UTF-16BE with a lone low surrogate */
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><string>\xc3\x28</string></plist>",
        "<?xml version=\"1.0\" encoding=\"NO-SUCH-ENCODING\"?><plist><true/></plist>",
        "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"b\">]><plist><string>&a;</string></plist>",
        "<plist><string>&undefined;</string></plist>",
        "<plist><array></plist>",
    };
    char path[] = "/tmp/prefs-stderr-XXXXXX";
    int fd = mkstemp(path);
    int saved;
    size_t i;
    off_t size;

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    fflush(stderr);
    saved = dup(2);
    dup2(fd, 2);
    for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        size_t n = (i < 2) ? (i == 0 ? 10 : 8) : strlen(inputs[i]);
        PrefsErrorRef err = NULL;
        PrefsPropertyListRef v = PrefsPropertyListCreateWithData(inputs[i], n, &err);
        PrefsRelease(v);
        PrefsRelease(err);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size = lseek(fd, 0, SEEK_END);
    CHECKF(size == 0, "parsing bad input wrote %ld bytes to stderr", (long)size);
    if (size > 0) {
        char text[512];
        ssize_t got = pread(fd, text, sizeof text - 1, 0);
        if (got > 0) {
            ssize_t k;
            for (k = 0; k < got; k++)
                if (text[k] == '\n' || text[k] == '\0')
                    text[k] = '|';
            text[got] = '\0';
            fprintf(stderr, "    it wrote: %s\n", text);
        }
    }
    close(fd);
    unlink(path);
}

/* ------------------------------------------------------------------ */
/* Forbidden markup: entities, external resources                       */
/* ------------------------------------------------------------------ */

static char secret_path[64];
static char dtd_path[64];

/* Creates the files that hostile documents name. */
static int make_bait_files(void)
{
    static const char secret[] = "TOP-SECRET-CONTENT";
    static const char dtd[] = "<!ENTITY x \"from the external DTD\">\n";
    int fd;

    strcpy(secret_path, "/tmp/prefs-secret-XXXXXX");
    fd = mkstemp(secret_path);
    if (fd < 0)
        return 0;
    if (write(fd, secret, sizeof secret - 1) != (ssize_t)(sizeof secret - 1)) {
        close(fd);
        return 0;
    }
    close(fd);
    strcpy(dtd_path, "/tmp/prefs-dtd-XXXXXX");
    fd = mkstemp(dtd_path);
    if (fd < 0)
        return 0;
    if (write(fd, dtd, sizeof dtd - 1) != (ssize_t)(sizeof dtd - 1)) {
        close(fd);
        return 0;
    }
    close(fd);
    return 1;
}

/* Parses a document that names the bait files; checks the refusal and that
 * neither file was opened (inotify reports every open). */
static void expect_forbidden_without_opening(const char *label, const char *doc)
{
    int in = inotify_init1(IN_NONBLOCK);
    int w1 = -1, w2 = -1;
    char events[4096];
    ssize_t got;

    CHECK(in >= 0);
    if (in >= 0) {
        w1 = inotify_add_watch(in, secret_path, IN_OPEN | IN_ACCESS);
        w2 = inotify_add_watch(in, dtd_path, IN_OPEN | IN_ACCESS);
        CHECK(w1 >= 0 && w2 >= 0);
    }
    EXPECT_REFUSAL(label, doc, strlen(doc), kPrefsErrorForbiddenMarkup);
    if (in >= 0) {
        got = read(in, events, sizeof events);
        CHECKF(got < 0 && errno == EAGAIN, "%s: a file named by the document was opened", label);
        close(in);
    }
}

static void test_forbidden_markup(void)
{
    char doc[1024];

    CHECK(make_bait_files());

    /* An external entity naming a local file. */
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY x SYSTEM \"file://%s\">\n]>\n"
             "<plist version=\"1.0\"><string>&x;</string></plist>\n",
             secret_path);
    expect_forbidden_without_opening("an external entity (file URL)", doc);
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY x SYSTEM \"%s\">\n]>\n"
             "<plist version=\"1.0\"><string>&x;</string></plist>\n",
             secret_path);
    expect_forbidden_without_opening("an external entity (plain path)", doc);
    /* The same entity declared but never used is still refused. */
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY x SYSTEM \"%s\">\n]>\n"
             "<plist version=\"1.0\"><string>plain</string></plist>\n",
             secret_path);
    expect_forbidden_without_opening("an unused external entity declaration", doc);
    /* A parameter entity pulling in an external file. */
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY %% p SYSTEM \"%s\">\n%%p;\n]>\n"
             "<plist version=\"1.0\"><string>&x;</string></plist>\n",
             dtd_path);
    expect_forbidden_without_opening("an external parameter entity", doc);
    /* An external DTD that would declare the entity: not loaded, so the
     * reference is to an undeclared entity. */
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist SYSTEM \"%s\">\n"
             "<plist version=\"1.0\"><string>&x;</string></plist>\n",
             dtd_path);
    expect_forbidden_without_opening("an entity from an external DTD", doc);
    /* An external unparsed entity. */
    snprintf(doc, sizeof doc,
             "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!NOTATION n SYSTEM \"n\">\n"
             "<!ENTITY u SYSTEM \"%s\" NDATA n>\n]>\n<plist version=\"1.0\"><true/></plist>\n",
             secret_path);
    expect_forbidden_without_opening("an unparsed entity", doc);

    /* Internal entities. */
    EXPECT_REFUSAL_TEXT("an internal entity",
                        "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ENTITY a \"text\">]>\n"
                        "<plist version=\"1.0\"><string>&a;</string></plist>\n",
                        kPrefsErrorForbiddenMarkup);
    EXPECT_REFUSAL_TEXT("an undeclared entity", PLIST("<string>&nbsp;</string>"), kPrefsErrorForbiddenMarkup);
    EXPECT_REFUSAL_TEXT("an undeclared entity in a key", PLIST("<dict><key>&copy;</key><true/></dict>"),
                        kPrefsErrorForbiddenMarkup);
    /* The classic exponential expansion, and the quadratic one. */
    EXPECT_REFUSAL_TEXT("billion laughs",
                        "<?xml version=\"1.0\"?>\n"
                        "<!DOCTYPE lolz [\n"
                        " <!ENTITY lol \"lol\">\n"
                        " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
                        " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
                        " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
                        " <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
                        " <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
                        " <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
                        " <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
                        " <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
                        " <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
                        "]>\n"
                        "<plist version=\"1.0\"><string>&lol9;</string></plist>\n",
                        kPrefsErrorForbiddenMarkup);
    {
        /* One 50 KB entity referenced 50,000 times. */
        size_t cap = 200000 + 50000 * 4, used = 0, k;
        char *big = malloc(cap);
        CHECK(big != NULL);
        if (big != NULL) {
            used += (size_t)sprintf(big, "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ENTITY a \"");
            memset(big + used, 'a', 50000);
            used += 50000;
            used += (size_t)sprintf(big + used, "\">]>\n<plist version=\"1.0\"><string>");
            for (k = 0; k < 50000; k++)
                used += (size_t)sprintf(big + used, "&a;");
            used += (size_t)sprintf(big + used, "</string></plist>\n");
            EXPECT_REFUSAL("quadratic blowup", big, used, kPrefsErrorForbiddenMarkup);
            free(big);
        }
    }

    unlink(secret_path);
    unlink(dtd_path);
}

/* ------------------------------------------------------------------ */
/* Nesting                                                              */
/* ------------------------------------------------------------------ */

/* `open` repeated `depth` times, `middle`, `close` repeated `depth` times. */
static char *repeat_document(const char *head, const char *open, size_t depth, const char *middle,
                             const char *close, const char *tail, size_t *length)
{
    size_t lo = strlen(open), lc = strlen(close), lh = strlen(head), lm = strlen(middle), lt = strlen(tail);
    size_t n = lh + depth * (lo + lc) + lm + lt, used = 0, k;
    char *doc = malloc(n + 1);
    if (doc == NULL)
        return NULL;
    memcpy(doc, head, lh);
    used = lh;
    for (k = 0; k < depth; k++, used += lo)
        memcpy(doc + used, open, lo);
    memcpy(doc + used, middle, lm);
    used += lm;
    for (k = 0; k < depth; k++, used += lc)
        memcpy(doc + used, close, lc);
    memcpy(doc + used, tail, lt);
    used += lt;
    doc[used] = '\0';
    *length = used;
    return doc;
}

static void expect_too_deep(const char *label, const char *head, const char *open, size_t depth,
                            const char *middle, const char *close, const char *tail)
{
    size_t n = 0;
    char *doc = repeat_document(head, open, depth, middle, close, tail, &n);
    CHECK(doc != NULL);
    if (doc != NULL)
        EXPECT_REFUSAL(label, doc, n, kPrefsErrorTooDeep);
    free(doc);
}

static void *deep_nesting_thread(void *unused)
{
    static const char head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n";
    (void)unused;
    expect_too_deep("257 nested arrays", head, "<array>", PREFS_MAX_NESTING + 1, "", "</array>",
                    "</plist>\n");
    expect_too_deep("257 nested dictionaries", head, "<dict><key>k</key>", PREFS_MAX_NESTING + 1, "<true/>",
                    "</dict>", "</plist>\n");
    expect_too_deep("1,000,000 nested arrays", head, "<array>", 1000000, "", "</array>", "</plist>\n");
    expect_too_deep("1,000,000 nested arrays, one per line", head, "<array>\n", 1000000, "<true/>",
                    "</array>\n", "</plist>\n");
    expect_too_deep("1,000,000 nested dictionaries", head, "<dict><key>k</key>", 1000000, "<true/>",
                    "</dict>", "</plist>\n");
    expect_too_deep("1,000,000 nested arrays without <plist>", "", "<array>", 1000000, "", "</array>", "");
    expect_too_deep("1,000,000 nested arrays, never closed", head, "<array>", 1000000, "", "", "");
    expect_too_deep("old-style: 1,000,000 nested arrays", "", "(", 1000000, "", ")", "");
    expect_too_deep("old-style: 1,000,000 nested dictionaries", "", "{a=", 1000000, "b", ";}", "");
    expect_too_deep("old-style: 257 nested arrays", "", "(", PREFS_MAX_NESTING + 1, "", ")", "");
    return NULL;
}

static void test_nesting(void)
{
    /* On a thread with a modest 1 MB stack: the reader must not recurse
     * once per level. */
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    CHECK(pthread_attr_setstacksize(&attr, 1024 * 1024) == 0);
    CHECK(pthread_create(&thread, &attr, deep_nesting_thread, NULL) == 0);
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attr);
}

/* ------------------------------------------------------------------ */
/* Huge text                                                            */
/* ------------------------------------------------------------------ */

static void test_huge_text_node(void)
{
    /* A single text node larger than 10 MB is refused (libxml2's limit). */
    static const char head[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<string>";
    static const char tail[] = "</string>\n</plist>\n";
    size_t body = 10 * 1000 * 1000 + 500000;
    size_t n = sizeof head - 1 + body + sizeof tail - 1;
    char *big = malloc(n);
    CHECK(big != NULL);
    if (big == NULL)
        return;
    memcpy(big, head, sizeof head - 1);
    memset(big + sizeof head - 1, 'z', body);
    memcpy(big + sizeof head - 1 + body, tail, sizeof tail - 1);
    EXPECT_REFUSAL("a 10.5 MB text node", big, n, kPrefsErrorMalformed);
    free(big);
}

/* ------------------------------------------------------------------ */
/* Values XML cannot carry                                              */
/* ------------------------------------------------------------------ */

static void expect_unrepresentable(const char *label, PrefsPropertyListRef v, const char *path_part)
{
    PrefsErrorRef err = NULL;
    PrefsDataRef xml;
    CHECKF(v != NULL, "%s: built", label);
    if (v == NULL)
        return;
    xml = PrefsPropertyListCreateXMLData(v, &err);
    CHECKF(xml == NULL, "%s: refused", label);
    CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, label);
    CHECK_ERROR(err, kPrefsErrorUnrepresentable, path_part, label);
    PrefsRelease(err);
    PrefsRelease(xml);
    /* outError may be NULL. */
    xml = PrefsPropertyListCreateXMLData(v, NULL);
    CHECKF(xml == NULL, "%s: refused without outError", label);
    CHECK_LAST_ERROR(kPrefsErrorUnrepresentable, label);
    PrefsRelease(xml);
}

static void test_unrepresentable(void)
{
    static const struct {
        const char *label;
        const char *bytes;
        size_t n;
    } bad[] = {
        {"U+0001",
         "a\x01"
         "b",
         3},
        {"U+0000", "a\0b", 3},
        {"U+0008", "\x08", 1},
        {"U+000B", "\x0b", 1},
        {"U+000C", "\x0c", 1},
        {"U+000E", "\x0e", 1},
        {"U+001F", "x\x1f", 2},
        {"U+FFFE", "\xef\xbf\xbe", 3},
        {"U+FFFF", "z\xef\xbf\xbf", 4},
    };
    static const double bad_dates[] = {3e16, -3e16, 1e20, -1e20};
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char label[128];
        PrefsStringRef s = PrefsStringCreateWithBytes(bad[i].bytes, bad[i].n);
        PrefsStringRef ok = PrefsStringCreate("ok");
        const char *k[1];
        PrefsPropertyListRef v[1];
        PrefsDictionaryRef d;

        snprintf(label, sizeof label, "a string holding %s", bad[i].label);
        expect_unrepresentable(label, s, NULL);

        /* As a key. */
        k[0] = NULL;
        v[0] = ok;
        if (s != NULL && memchr(bad[i].bytes, '\0', bad[i].n) == NULL) {
            char key[16];
            memcpy(key, bad[i].bytes, bad[i].n);
            key[bad[i].n] = '\0';
            k[0] = key;
            d = PrefsDictionaryCreate(k, v, 1);
            snprintf(label, sizeof label, "a key holding %s", bad[i].label);
            expect_unrepresentable(label, d, NULL);
            PrefsRelease(d);
        }
        PrefsRelease(ok);
        PrefsRelease(s);
    }

    /* Deep down: the description names the path. */
    {
        PrefsStringRef fine = PrefsStringCreate("fine");
        PrefsStringRef badstr = PrefsStringCreate("bad\x01");
        PrefsPropertyListRef items[2];
        PrefsArrayRef arr;
        const char *k_inner[2] = {"innerkey", "aaa"};
        PrefsPropertyListRef v_inner[2];
        PrefsDictionaryRef inner, outer;
        const char *k_outer[1] = {"outerkey"};
        PrefsPropertyListRef v_outer[1];

        items[0] = fine;
        items[1] = badstr;
        arr = PrefsArrayCreate(items, 2);
        v_inner[0] = arr;
        v_inner[1] = fine;
        inner = PrefsDictionaryCreate(k_inner, v_inner, 2);
        v_outer[0] = inner;
        outer = PrefsDictionaryCreate(k_outer, v_outer, 1);
        expect_unrepresentable("a nested bad string (outer key)", outer, "outerkey");
        expect_unrepresentable("a nested bad string (inner key)", outer, "innerkey");
        PrefsRelease(outer);
        PrefsRelease(inner);
        PrefsRelease(arr);
        PrefsRelease(badstr);
        PrefsRelease(fine);
    }

    for (i = 0; i < sizeof bad_dates / sizeof bad_dates[0]; i++) {
        char label[64];
        PrefsDateRef d = PrefsDateCreate(bad_dates[i]);
        snprintf(label, sizeof label, "the date %.0f", bad_dates[i]);
        expect_unrepresentable(label, d, NULL);
        PrefsRelease(d);
    }
    {
        PrefsDateRef d = PrefsDateCreate(NAN);
        expect_unrepresentable("a NaN date", d, NULL);
        PrefsRelease(d);
        d = PrefsDateCreate(INFINITY);
        expect_unrepresentable("an infinite date", d, NULL);
        PrefsRelease(d);
        d = PrefsDateCreate(-INFINITY);
        expect_unrepresentable("a -infinite date", d, NULL);
        PrefsRelease(d);
    }

    /* Allowed control characters: tab, LF, CR. */
    {
        PrefsStringRef s = PrefsStringCreate("\t\n\r");
        PrefsDataRef xml = PrefsPropertyListCreateXMLData(s, NULL);
        CHECK(xml != NULL);
        CHECK_NO_LAST_ERROR("writing tab, LF and CR");
        PrefsRelease(xml);
        PrefsRelease(s);
    }
}

/* ------------------------------------------------------------------ */
/* The thread's last error                                              */
/* ------------------------------------------------------------------ */

static void test_last_error(void)
{
    static const char good[] = PLIST("<true/>");
    static const char bad[] = PLIST("<integer>x</integer>");
    PrefsErrorRef sentinel = (PrefsErrorRef)(const void *)&sentinel;
    PrefsErrorRef err = sentinel;
    PrefsErrorRef last, again;
    PrefsPropertyListRef v;
    char *d;

    v = PrefsPropertyListCreateWithData(bad, sizeof bad - 1, NULL); /* outError may be NULL */
    CHECK(v == NULL);
    last = PrefsCopyLastError();
    CHECK_ERROR(last, kPrefsErrorMalformed, "line", "the last error after a failed parse");

    /* These do not change the last error. */
    PrefsRelease(NULL);
    PrefsFree(NULL);
    PrefsRelease(PrefsRetain(last));
    d = PrefsErrorCopyDescription(last);
    PrefsFree(d);
    (void)PrefsErrorGetCode(last);
    again = PrefsCopyLastError();
    CHECK(again != NULL);
    CHECK(again != NULL && PrefsErrorGetCode(again) == kPrefsErrorMalformed);
    PrefsRelease(again);
    again = PrefsCopyLastError();
    CHECK(again != NULL); /* copying it does not clear it */
    PrefsRelease(again);
    PrefsRelease(last);

    /* A successful call clears it, and leaves outError alone. */
    v = PrefsPropertyListCreateWithData(good, sizeof good - 1, &err);
    CHECK(v != NULL);
    CHECK(err == sentinel);
    CHECK_NO_LAST_ERROR("after a successful parse");
    PrefsRelease(v);

    /* Any successful call, not only parsing. */
    v = PrefsPropertyListCreateWithData(bad, sizeof bad - 1, NULL);
    PrefsRelease(v);
    v = PrefsStringCreate("fine");
    CHECK_NO_LAST_ERROR("after a successful PrefsStringCreate");
    PrefsRelease(v);

    /* The last error is the latest failure's. */
    v = PrefsPropertyListCreateWithData(bad, sizeof bad - 1, NULL);
    PrefsRelease(v);
    v = PrefsStringCreate("\xff");
    CHECK(v == NULL);
    CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, "the latest failure");

    /* A successful write leaves outError alone. */
    {
        PrefsStringRef s = PrefsStringCreate("x");
        PrefsDataRef xml;
        err = sentinel;
        xml = PrefsPropertyListCreateXMLData(s, &err);
        CHECK(xml != NULL && err == sentinel);
        PrefsRelease(xml);
        PrefsRelease(s);
    }
}

/* ------------------------------------------------------------------ */
/* NULL and wrong-type arguments                                        */
/* ------------------------------------------------------------------ */

/* NULL, hidden from the compiler: clang knows the parameters are _Nonnull
 * and would reject a literal NULL, and the point here is what the library
 * does when a program passes one anyway. */
static const void *volatile null_pointer;
#define NUL_ ((void *)null_pointer)

static int current_case;
static const char *current_label;

/* Objects of each kind, made fresh in each child. Held untyped, as values
 * fetched from a container are, so that passing one of the wrong kind
 * compiles. */
struct objects {
    PrefsTypeRef s;
    PrefsTypeRef n;
    PrefsTypeRef b;
    PrefsTypeRef date;
    PrefsTypeRef data;
    PrefsTypeRef a;
    PrefsTypeRef d;
    PrefsTypeRef e;
};

static void make_objects(struct objects *o)
{
    const char *k[1] = {"k"};
    PrefsPropertyListRef v[1];
    o->s = PrefsStringCreate("str");
    o->n = PrefsNumberCreateInt64(5);
    o->b = PrefsBooleanCreate(true);
    o->date = PrefsDateCreate(0);
    o->data = PrefsDataCreate("dd", 2);
    v[0] = o->s;
    o->a = PrefsArrayCreate(v, 1);
    o->d = PrefsDictionaryCreate(k, v, 1);
    PrefsRelease(PrefsStringCreate("\xff"));
    o->e = PrefsCopyLastError();
    PrefsRelease(PrefsStringCreate("reset the last error"));
}

/*
 * The failure value. Where the header declares the result non-null
 * (PrefsStringGetCString, PrefsDataGetBytePtr, PrefsDictionaryCopyKeys) it
 * contradicts "returns NULL", so a harmless non-null result is accepted as
 * well: an empty string, any byte pointer, an empty array. An Error function
 * may answer kPrefsErrorInvalidArgument instead of 0.
 */
static int null_or_empty(const char *s)
{
    return s == NULL || s[0] == '\0';
}
static int no_code(int code)
{
    return code == 0 || code == kPrefsErrorInvalidArgument;
}

#define EXPECT_REFUSED_CALL(cond)                                \
  do {                                                           \
    int ok_ = (cond);                                            \
    CHECKF(ok_, "%s: returns the failure value", current_label); \
    CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, current_label); \
  } while (0)

/* PrefsDictionaryCopyKeys(object): refused, returning NULL or an empty array. */
#define EXPECT_REFUSED_COPY_KEYS(object)                                                                \
  do {                                                                                                  \
    PrefsArrayRef keys_ = PrefsDictionaryCopyKeys(object);                                              \
    CHECK_LAST_ERROR(kPrefsErrorInvalidArgument, current_label);                                        \
    CHECKF(keys_ == NULL || (PrefsGetType(keys_) == kPrefsTypeArray && PrefsArrayGetCount(keys_) == 0), \
           "%s: returns NULL or an empty array", current_label);                                        \
    PrefsRelease(keys_);                                                                                \
  } while (0)

#define N_ARGUMENT_CASES 56

static const char *const argument_labels[N_ARGUMENT_CASES] = {
    "PrefsGetType(NULL)",
    "PrefsCopyDescription(NULL)",
    "PrefsStringCreate(NULL)",
    "PrefsStringCreateWithBytes(NULL, 3)",
    "PrefsStringGetCString(NULL)",
    "PrefsStringGetLength(NULL)",
    "PrefsNumberGetInt64(NULL, &out)",
    "PrefsNumberGetInt64(number, NULL)",
    "PrefsNumberGetUInt64(NULL, &out)",
    "PrefsNumberGetUInt64(number, NULL)",
    "PrefsNumberGetDouble(NULL, &out)",
    "PrefsNumberGetDouble(number, NULL)",
    "PrefsBooleanGetValue(NULL)",
    "PrefsDateGetUnixTime(NULL)",
    "PrefsDataCreate(NULL, 4)",
    "PrefsDataGetBytePtr(NULL)",
    "PrefsDataGetLength(NULL)",
    "PrefsArrayCreate(NULL, 2)",
    "PrefsArrayGetCount(NULL)",
    "PrefsArrayGetValueAtIndex(NULL, 0)",
    "PrefsDictionaryCreate(NULL keys, values, 1)",
    "PrefsDictionaryCreate(keys, NULL values, 1)",
    "PrefsDictionaryGetCount(NULL)",
    "PrefsDictionaryGetValue(NULL, key)",
    "PrefsDictionaryGetValue(dict, NULL)",
    "PrefsDictionaryCopyKeys(NULL)",
    "PrefsPropertyListCreateWithData(NULL, 5, &err)",
    "PrefsPropertyListCreateXMLData(NULL, &err)",
    "PrefsErrorGetCode(NULL)",
    "PrefsErrorCopyDescription(NULL)",
    "PrefsStringGetCString(number)",
    "PrefsStringGetLength(array)",
    "PrefsNumberGetInt64(string)",
    "PrefsNumberGetUInt64(boolean)",
    "PrefsNumberGetDouble(date)",
    "PrefsBooleanGetValue(number)",
    "PrefsDateGetUnixTime(number)",
    "PrefsDataGetBytePtr(string)",
    "PrefsDataGetLength(string)",
    "PrefsArrayGetCount(dictionary)",
    "PrefsArrayGetValueAtIndex(dictionary, 0)",
    "PrefsDictionaryGetCount(array)",
    "PrefsDictionaryGetValue(array, key)",
    "PrefsDictionaryCopyKeys(array)",
    "PrefsPropertyListCreateXMLData(error object)",
    "PrefsStringGetCString(error object)",
    "PrefsErrorGetCode(string)",
    "PrefsArrayGetCount(string)",
    "PrefsDataGetBytePtr(error object)",
    "PrefsDictionaryGetValue(error object, key)",
    "PrefsEqual(NULL, NULL)",
    "PrefsRetain(NULL)",
    "PrefsStringCreateWithBytes(NULL, 0)",
    "PrefsDataCreate(NULL, 0)",
    "PrefsArrayCreate(NULL, 0)",
    "PrefsDictionaryCreate(NULL, NULL, 0)",
};

/* Runs argument case `i` (in a child process). */
static void argument_case(int i, struct objects *o)
{
    int64_t i64 = 77;
    uint64_t u64 = 77;
    double dbl = 77.0;
    PrefsErrorRef err = NULL;
    const char *keys[1] = {"k"};
    PrefsPropertyListRef values[1];
    values[0] = o->s;
    current_label = (i >= 0 && i < N_ARGUMENT_CASES) ? argument_labels[i] : "?";

    switch (i) {
    /* NULL where the header does not allow it. */
    case 0:
        EXPECT_REFUSED_CALL(PrefsGetType(NUL_) == 0);
        break;
    case 1:
        EXPECT_REFUSED_CALL(PrefsCopyDescription(NUL_) == NULL);
        break;
    case 2:
        EXPECT_REFUSED_CALL(PrefsStringCreate(NUL_) == NULL);
        break;
    case 3:
        EXPECT_REFUSED_CALL(PrefsStringCreateWithBytes(NULL, 3) == NULL);
        break;
    case 4:
        EXPECT_REFUSED_CALL(null_or_empty(PrefsStringGetCString(NUL_)));
        break;
    case 5:
        EXPECT_REFUSED_CALL(PrefsStringGetLength(NUL_) == 0);
        break;
    case 6:
        EXPECT_REFUSED_CALL(!PrefsNumberGetInt64(NUL_, &i64) && i64 == 77);
        break;
    case 7:
        EXPECT_REFUSED_CALL(!PrefsNumberGetInt64(o->n, NUL_));
        break;
    case 8:
        EXPECT_REFUSED_CALL(!PrefsNumberGetUInt64(NUL_, &u64) && u64 == 77);
        break;
    case 9:
        EXPECT_REFUSED_CALL(!PrefsNumberGetUInt64(o->n, NUL_));
        break;
    case 10:
        EXPECT_REFUSED_CALL(!PrefsNumberGetDouble(NUL_, &dbl) && dbl == 77.0);
        break;
    case 11:
        EXPECT_REFUSED_CALL(!PrefsNumberGetDouble(o->n, NUL_));
        break;
    case 12:
        EXPECT_REFUSED_CALL(!PrefsBooleanGetValue(NUL_));
        break;
    case 13:
        EXPECT_REFUSED_CALL(PrefsDateGetUnixTime(NUL_) == 0.0);
        break;
    case 14:
        EXPECT_REFUSED_CALL(PrefsDataCreate(NULL, 4) == NULL);
        break;
    case 15:
        EXPECT_REFUSED_CALL((PrefsDataGetBytePtr(NUL_), 1));
        break;
    case 16:
        EXPECT_REFUSED_CALL(PrefsDataGetLength(NUL_) == 0);
        break;
    case 17:
        EXPECT_REFUSED_CALL(PrefsArrayCreate(NULL, 2) == NULL);
        break;
    case 18:
        EXPECT_REFUSED_CALL(PrefsArrayGetCount(NUL_) == 0);
        break;
    case 19:
        EXPECT_REFUSED_CALL(PrefsArrayGetValueAtIndex(NUL_, 0) == NULL);
        break;
    case 20:
        EXPECT_REFUSED_CALL(PrefsDictionaryCreate(NULL, values, 1) == NULL);
        break;
    case 21:
        EXPECT_REFUSED_CALL(PrefsDictionaryCreate(keys, NULL, 1) == NULL);
        break;
    case 22:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetCount(NUL_) == 0);
        break;
    case 23:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetValue(NUL_, "k") == NULL);
        break;
    case 24:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetValue(o->d, NUL_) == NULL);
        break;
    case 25:
        EXPECT_REFUSED_COPY_KEYS(NUL_);
        break;
    case 26:
        EXPECT_REFUSED_CALL(PrefsPropertyListCreateWithData(NULL, 5, &err) == NULL);
        CHECK_ERROR(err, kPrefsErrorInvalidArgument, NULL, current_label);
        break;
    case 27:
        EXPECT_REFUSED_CALL(PrefsPropertyListCreateXMLData(NUL_, &err) == NULL);
        CHECK_ERROR(err, kPrefsErrorInvalidArgument, NULL, current_label);
        break;
    case 28:
        /* The Error functions do not record; they return the failure value. */

        CHECKF(no_code((int)PrefsErrorGetCode(NUL_)), "%s: returns 0 or kPrefsErrorInvalidArgument, got %d",
               current_label, (int)PrefsErrorGetCode(NUL_));
        break;
    case 29: {
        /* NULL, or a string saying what went wrong: either way no crash. */
        char *d = PrefsErrorCopyDescription(NUL_);
        CHECK(d == NULL || strlen(d) < 100000);
        PrefsFree(d);
    } break;

    /* Objects of the wrong kind. */
    case 30:
        EXPECT_REFUSED_CALL(null_or_empty(PrefsStringGetCString(o->n)));
        break;
    case 31:
        EXPECT_REFUSED_CALL(PrefsStringGetLength(o->a) == 0);
        break;
    case 32:
        EXPECT_REFUSED_CALL(!PrefsNumberGetInt64(o->s, &i64) && i64 == 77);
        break;
    case 33:
        EXPECT_REFUSED_CALL(!PrefsNumberGetUInt64(o->b, &u64) && u64 == 77);
        break;
    case 34:
        EXPECT_REFUSED_CALL(!PrefsNumberGetDouble(o->date, &dbl) && dbl == 77.0);
        break;
    case 35:
        EXPECT_REFUSED_CALL(!PrefsBooleanGetValue(o->n));
        break;
    case 36:
        EXPECT_REFUSED_CALL(PrefsDateGetUnixTime(o->n) == 0.0);
        break;
    case 37:
        EXPECT_REFUSED_CALL((PrefsDataGetBytePtr(o->s), 1));
        break;
    case 38:
        EXPECT_REFUSED_CALL(PrefsDataGetLength(o->s) == 0);
        break;
    case 39:
        EXPECT_REFUSED_CALL(PrefsArrayGetCount(o->d) == 0);
        break;
    case 40:
        EXPECT_REFUSED_CALL(PrefsArrayGetValueAtIndex(o->d, 0) == NULL);
        break;
    case 41:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetCount(o->a) == 0);
        break;
    case 42:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetValue(o->a, "k") == NULL);
        break;
    case 43:
        EXPECT_REFUSED_COPY_KEYS(o->a);
        break;
    case 44:
        EXPECT_REFUSED_CALL(PrefsPropertyListCreateXMLData(o->e, &err) == NULL);
        CHECK_ERROR(err, kPrefsErrorInvalidArgument, NULL, current_label);
        break;
    case 45:
        EXPECT_REFUSED_CALL(null_or_empty(PrefsStringGetCString(o->e)));
        break;
    case 46:
        CHECKF(no_code((int)PrefsErrorGetCode(o->s)), "%s: returns 0 or kPrefsErrorInvalidArgument, got %d",
               current_label, (int)PrefsErrorGetCode(o->s));
        break;
    case 47:
        EXPECT_REFUSED_CALL(PrefsArrayGetCount(o->s) == 0);
        break;
    case 48:
        EXPECT_REFUSED_CALL((PrefsDataGetBytePtr(o->e), 1));
        break;
    case 49:
        EXPECT_REFUSED_CALL(PrefsDictionaryGetValue(o->e, "k") == NULL);
        break;

    /* NULL where it is allowed: no error. */
    case 50:
        CHECK(PrefsEqual(NULL, NULL));
        CHECK(!PrefsEqual(NULL, o->s));
        break;
    case 51:
        CHECK(PrefsRetain(NULL) == NULL);
        break;
    case 52: {
        PrefsStringRef s = PrefsStringCreateWithBytes(NULL, 0);
        CHECK(s != NULL && PrefsStringGetLength(s) == 0);
        CHECK_NO_LAST_ERROR(current_label);
        PrefsRelease(s);
    } break;
    case 53: {
        PrefsDataRef d = PrefsDataCreate(NULL, 0);
        CHECK(d != NULL);
        CHECK_NO_LAST_ERROR(current_label);
        PrefsRelease(d);
    } break;
    case 54: {
        PrefsArrayRef a = PrefsArrayCreate(NULL, 0);
        CHECK(a != NULL);
        CHECK_NO_LAST_ERROR(current_label);
        PrefsRelease(a);
    } break;
    case 55: {
        PrefsDictionaryRef d = PrefsDictionaryCreate(NULL, NULL, 0);
        CHECK(d != NULL);
        CHECK_NO_LAST_ERROR(current_label);
        PrefsRelease(d);
    } break;
    default:
        break;
    }
    PrefsRelease(err);
}

static void run_current_argument_case(void)
{
    struct objects o;
    make_objects(&o);
    argument_case(current_case, &o);
    if (check_failures() != 0)
        fprintf(stderr, "    (in the case %s)\n", current_label);
}

/* Cases that pass NULL for a parameter the header does not mark nullable.
 * The header makes that a programming error, as in CoreFoundation (clang
 * warns about it through the nullability annotations), so they are not
 * run; NULL with a non-zero length or count, which the header does allow
 * the caller to get wrong, is still checked. */
static int passes_null_for_nonnull(int i)
{
    static const int cases[] = {0,  1,  2,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                13, 15, 16, 18, 19, 22, 23, 24, 25, 27, 28, 29};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (cases[k] == i)
            return 1;
    return 0;
}

static void test_arguments(void)
{
    for (current_case = 0; current_case < N_ARGUMENT_CASES; current_case++) {
        char name[128];
        if (passes_null_for_nonnull(current_case))
            continue;
        snprintf(name, sizeof name, "argument case %d, %s", current_case, argument_labels[current_case]);
        support_run_isolated(run_current_argument_case, name, 30, __FILE__, __LINE__);
    }
}

/* ------------------------------------------------------------------ */

static void run_malformed(void)
{
    test_malformed();
}
static void run_empty_truncated_random(void)
{
    test_empty_truncated_random();
}
static void run_silent_on_stderr(void)
{
    test_silent_on_stderr();
}
static void run_forbidden_markup(void)
{
    test_forbidden_markup();
}
static void run_nesting(void)
{
    test_nesting();
}
static void run_huge_text_node(void)
{
    test_huge_text_node();
}
static void run_unrepresentable(void)
{
    test_unrepresentable();
}
static void run_last_error(void)
{
    test_last_error();
}

int main(void)
{
    RUN_ISOLATED(run_malformed, 120);
    RUN_ISOLATED(run_empty_truncated_random, 120);
    RUN_ISOLATED(run_silent_on_stderr, 60);
    RUN_ISOLATED(run_forbidden_markup, 60);
    RUN_ISOLATED(run_nesting, 120);
    RUN_ISOLATED(run_huge_text_node, 60);
    RUN_ISOLATED(run_unrepresentable, 60);
    RUN_ISOLATED(run_last_error, 60);
    test_arguments();
    return CHECK_FINISH();
}
