/*
 * prefs-ui — `prefs ui [<domain>]`: a live, full-screen view of one
 * domain's search list (or of the list of domains), over the public C API
 * only. bin/prefs execs it from $(LIBEXECDIR)/prefs/.
 *
 * Each key shows its type, its value (`>` at the end when cut to fit), the
 * layer it came from and the badges `forced` (a managed value) and
 * `default` (registration or schema). The
 * view reads again four times a second: reads are served from memory and
 * follow other processes' writes and hand edits (the library's change
 * counters and directory watcher), so a change shows within a second.
 *
 * Keys: arrows, j/k, PgUp/PgDn, Home/End move; / filters by key or value
 * as it is typed (Enter keeps, Esc clears); Enter edits the value as old-style plist text
 * (a number or boolean stays one: the text must be of its type); d
 * removes the user's value; Left or h goes back to the domain list; q
 * quits. A value that is refused changes nothing and the status line says
 * why. Files that did not parse are listed in a pane at the bottom.
 *
 * On a terminal that cannot address the cursor (TERM unset or dumb, or
 * output not a terminal) it prints a plain listing instead and exits.
 */
#ifndef _XOPEN_SOURCE
#  define _XOPEN_SOURCE 700
#endif

#include <prefs/Prefs.h>

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <term.h>
#include <unistd.h>

/* The terminal rule of the prefs command (C0 and C1 controls, DEL and
 * text-direction marks escaped as \n, \t, \Uxxxx): a private export of
 * libprefs.so, so that the command and this view escape by one rule. The
 * first `length` bytes of `text`; a new string to PrefsFree, NULL when
 * memory runs out. */
extern char *prefs_tool_escape(const char *text, size_t length);

struct row {
    char *key;
    size_t key_len;  /* in bytes: more than strlen(key) when it holds a NUL */
    int key_has_nul; /* the C API cannot name it: no action acts on it */
    char *value;
    const char *type;
    char layer[64];
    int forced, deflt;
};

static struct row *rows;
static size_t nrows;
static char app[256];
static int listing_domains; /* the list of domains is shown */
static int started_with_list;
static char filter_text[256];
static char status_text[512];
static char problems[2048];
static int selected, top;
static int domain_missing;         /* the domain named has no file and no value */
static const char *cut_mark = ">"; /* ends a value cut to fit */

static void set_status(const char *fmt, const char *a, const char *b)
{
    snprintf(status_text, sizeof status_text, fmt, a ? a : "", b ? b : "");
}

static void free_rows(void)
{
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].key);
        PrefsFree(rows[i].value);
    }
    free(rows);
    rows = NULL;
    nrows = 0;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p != NULL)
        memcpy(p, s, n + 1);
    return p;
}

/* The value on one line: newlines and tabs as spaces, runs of spaces as one. */
static char *one_line(PrefsPropertyListRef v)
{
    char *d = v ? PrefsCopyDescription(v) : NULL;
    if (d == NULL)
        return NULL;
    char *w = d;
    for (char *r = d; *r; r++) {
        char c = (*r == '\n' || *r == '\t') ? ' ' : *r;
        if (c == ' ' && w > d && w[-1] == ' ')
            continue;
        *w++ = c;
    }
    *w = 0;
    return d;
}

static const char *layer_name(PrefsSource s, const char *domain, char *buf, size_t size)
{
    static const char *names[] = {"",        "managed",  "arguments",          "app-currenthost",
                                  "app",     "suite",    "global-currenthost", "global",
                                  "anyuser", "language", "registration",       "schema"};
    const char *n = (int)s >= 0 && (size_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
    if ((s == kPrefsSourceSuite || s == kPrefsSourceAnyUser || s == kPrefsSourceLanguage) && domain != NULL)
        snprintf(buf, size, "%s %s", n, domain);
    else
        snprintf(buf, size, "%s", n);
    return buf;
}

/* Schema text as the terminal may show it: as it is, unless it holds a
 * control character (C0, DEL, C1) or a text-direction control; then quoted
 * and escaped as values are (PrefsCopyDescription). Free with PrefsFree. */
static char *schema_text(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    int risky = 0;
    for (size_t i = 0; u[i] && !risky; i++) {
        risky = u[i] < 0x20 || u[i] == 0x7F || (u[i] == 0xC2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F) ||
                (u[i] == 0xE2 && u[i + 1] == 0x80 && (u[i + 2] == 0x8E || u[i + 2] == 0x8F)) ||
                (u[i] == 0xE2 && u[i + 1] == 0x80 && u[i + 2] >= 0xAA && u[i + 2] <= 0xAE) ||
                (u[i] == 0xE2 && u[i + 1] == 0x81 && u[i + 2] >= 0xA6 && u[i + 2] <= 0xA9);
    }
    if (!risky) {
        char *copy = malloc(strlen(s) + 1);
        if (copy != NULL)
            strcpy(copy, s);
        return copy;
    }
    PrefsStringRef str = PrefsStringCreate(s);
    char *d = str ? PrefsCopyDescription(str) : NULL;
    PrefsRelease(str);
    return d;
}

/* The string `name` of the schema description `d`, as schema_text gives
 * it; NULL when absent. */
static char *schema_field(PrefsDictionaryRef d, const char *name)
{
    PrefsPropertyListRef v = d ? PrefsDictionaryGetValue(d, name) : NULL;
    if (v == NULL || PrefsGetType(v) != kPrefsTypeString)
        return NULL;
    return schema_text(PrefsStringGetCString((PrefsStringRef)v));
}

/* The three lines about the selected key: its title and description; its
 * type and what the schema accepts; the values its answer shadows. */
static void describe_key(const char *key, char info[3][1024])
{
    info[0][0] = info[1][0] = info[2][0] = 0;
    PrefsDictionaryRef d = PrefsCopyAppKeySchema(key, app);
    if (d != NULL) {
        char *title = schema_field(d, "Title"), *desc = schema_field(d, "Description");
        char *type = schema_field(d, "ValueType"), *accepts = schema_field(d, "Accepts");
        snprintf(info[0], sizeof info[0], "%s%s%s", title ? title : "", title && desc ? ": " : "",
                 desc ? desc : "");
        snprintf(info[1], sizeof info[1], "type: %s  accepts: %s", type ? type : "any",
                 accepts ? accepts : "anything (the schema does not bind it)");
        PrefsFree(title);
        PrefsFree(desc);
        PrefsFree(type);
        PrefsFree(accepts);
        PrefsRelease(d);
    }
    PrefsArrayRef all = PrefsCopyAppValueSources(key, app);
    size_t used = 0;
    for (size_t i = 1; all && i < PrefsArrayGetCount(all) && used < sizeof info[2] - 1; i++) {
        PrefsDictionaryRef s = (PrefsDictionaryRef)PrefsArrayGetValueAtIndex(all, i);
        PrefsPropertyListRef src = PrefsDictionaryGetValue(s, "Source"),
                             dom = PrefsDictionaryGetValue(s, "Domain");
        int64_t n = 0;
        char layer[64];
        if (src != NULL)
            PrefsNumberGetInt64((PrefsNumberRef)src, &n);
        char *text = one_line(PrefsDictionaryGetValue(s, "Value"));
        int ignored = PrefsDictionaryGetValue(s, "Ignored") != NULL;
        int w = snprintf(info[2] + used, sizeof info[2] - used, "%s%.80s (%s%s)",
                         used ? "  " : "shadows: ", text ? text : "",
                         layer_name((PrefsSource)n, dom ? PrefsStringGetCString((PrefsStringRef)dom) : NULL,
                                    layer, sizeof layer),
                         ignored ? ", ignored: breaks the schema" : "");
        PrefsFree(text);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    PrefsRelease(all);
}

/* For a key whose schema lists the values it accepts: a list to pick one
 * from (arrows, Enter; Esc cancels), stored as the value. 0 when the key
 * has no such list (the caller edits text instead). */
static int choose_value(const char *key);

/* A value's type as the row shows it. */
static const char *type_name(PrefsPropertyListRef v)
{
    static const char *names[] = {"", "string", "int", "real", "bool", "date", "data", "array", "dict"};
    PrefsType t = PrefsGetType(v);
    return (int)t > 0 && (size_t)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* A row's value as shown: a boolean as true or false (its description is
 * 1 or 0, which reads as a number). */
static const char *shown_value(const struct row *r)
{
    if (r->value != NULL && !strcmp(r->type, "bool"))
        return strcmp(r->value, "0") ? "true" : "false";
    return r->value ? r->value : "";
}

static int matches(const char *key, const char *value)
{
    if (filter_text[0] == 0)
        return 1;
    for (const char *s = key; s && *s; s++)
        if (strncasecmp(s, filter_text, strlen(filter_text)) == 0)
            return 1;
    for (const char *s = value; s && *s; s++)
        if (strncasecmp(s, filter_text, strlen(filter_text)) == 0)
            return 1;
    return 0;
}

static void add_row(const char *key, size_t key_len, char *value, const char *type, const char *layer,
                    int forced, int deflt)
{
    struct row *r = realloc(rows, (nrows + 1) * sizeof *rows);
    if (r == NULL) {
        PrefsFree(value);
        return;
    }
    rows = r;
    rows[nrows].key = malloc(key_len + 1);
    if (rows[nrows].key == NULL) {
        PrefsFree(value);
        return;
    }
    memcpy(rows[nrows].key, key, key_len);
    rows[nrows].key[key_len] = 0;
    rows[nrows].key_len = key_len;
    rows[nrows].key_has_nul = strlen(key) != key_len;
    rows[nrows].value = value;
    rows[nrows].type = type;
    snprintf(rows[nrows].layer, sizeof rows[nrows].layer, "%s", layer);
    rows[nrows].forced = forced;
    rows[nrows].deflt = deflt;
    nrows++;
}

static int by_key(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->key_len < y->key_len ? x->key_len : y->key_len);
    return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* Whether the user has a domain named `name` (a file, any host or this one). */
static int user_has_domain(const char *name)
{
    if (!strcmp(name, "NSGlobalDomain"))
        return 1;
    int found = 0;
    for (int h = 0; h < 2 && !found; h++) {
        PrefsArrayRef list =
            PrefsCopyApplicationList(kPrefsCurrentUser, h ? kPrefsCurrentHost : kPrefsAnyHost);
        for (size_t i = 0; list && i < PrefsArrayGetCount(list) && !found; i++)
            found = !strcmp(name, PrefsStringGetCString((PrefsStringRef)PrefsArrayGetValueAtIndex(list, i)));
        PrefsRelease(list);
    }
    return found;
}

/* Reads the rows again; `check_files` also asks which files did not parse
 * and whether the domain exists. */
static void load(int check_files)
{
    free_rows();
    if (listing_domains) {
        PrefsArrayRef list = PrefsCopyApplicationList(kPrefsCurrentUser, kPrefsAnyHost);
        add_row("NSGlobalDomain", strlen("NSGlobalDomain"), NULL, "", "", 0, 0);
        for (size_t i = 0; list && i < PrefsArrayGetCount(list); i++) {
            const char *name = PrefsStringGetCString((PrefsStringRef)PrefsArrayGetValueAtIndex(list, i));
            if (matches(name, NULL))
                add_row(name, strlen(name), NULL, "", "", 0, 0);
        }
        PrefsRelease(list);
        return;
    }
    PrefsDictionaryRef all = PrefsCopyAppDictionary(app);
    PrefsArrayRef keys = all ? PrefsDictionaryCopyKeys(all) : NULL;
    for (size_t i = 0; keys && i < PrefsArrayGetCount(keys); i++) {
        PrefsStringRef key_string = (PrefsStringRef)PrefsArrayGetValueAtIndex(keys, i);
        const char *key = PrefsStringGetCString(key_string);
        size_t key_len = PrefsStringGetLength(key_string);
        if (strlen(key) != key_len) {
            /* A key holding a NUL: the C API would read a shorter key (and
             * another key's value). Shown, never acted on. */
            if (matches(key, NULL))
                add_row(key, key_len, NULL, "", "?", 0, 0);
            continue;
        }
        PrefsSource source = kPrefsSourceNone;
        char *domain = NULL, layer[64];
        PrefsPropertyListRef v = PrefsCopyAppValueAndSource(key, app, &source, &domain);
        /* The languages and locale derived from the environment are in
         * every search list: left out. */
        if (v != NULL && !(source == kPrefsSourceLanguage && domain == NULL)) {
            char *text = one_line(v);
            int is_bool = PrefsGetType(v) == kPrefsTypeBoolean;
            if (matches(key, is_bool ? (PrefsBooleanGetValue((PrefsBooleanRef)v) ? "true" : "false") : text))
                add_row(key, key_len, text, type_name(v), layer_name(source, domain, layer, sizeof layer),
                        source == kPrefsSourceManaged,
                        source == kPrefsSourceRegistration || source == kPrefsSourceSchema);
            else
                PrefsFree(text);
        }
        PrefsRelease(v);
        PrefsFree(domain);
    }
    PrefsRelease(keys);
    PrefsRelease(all);
    qsort(rows, nrows, sizeof *rows, by_key);
    if (check_files) {
        /* No file of its own and nothing but the global domains' keys:
         * most likely a mistyped name. */
        int own = 0;
        for (size_t i = 0; i < nrows && !own; i++)
            own = strncmp(rows[i].layer, "global", 6) != 0;
        domain_missing = !own && !user_has_domain(app);
        /* Synchronize names every file of the search list that cannot be
         * used, each time. */
        problems[0] = 0;
        PrefsAppSynchronize(app);
        PrefsErrorRef e = PrefsCopyLastError();
        if (e != NULL &&
            (PrefsErrorGetCode(e) == kPrefsErrorCorruptFile || PrefsErrorGetCode(e) == kPrefsErrorIO)) {
            char *d = PrefsErrorCopyDescription(e);
            snprintf(problems, sizeof problems, "%s", d ? d : "");
            PrefsFree(d);
        }
        PrefsRelease(e);
    }
}

/* Prints `s` in at most `width` columns at the cursor, escaped by the
 * terminal rule: every key, value, name and message reaches the screen
 * through here. */
static void put(const char *s, int width)
{
    if (width <= 0 || s == NULL)
        return;
    char *e = prefs_tool_escape(s, strlen(s));
    if (e != NULL)
        addnstr(e, width);
    PrefsFree(e);
}

/* put() for the first `n` bytes of `s` (a key holding a NUL shows whole). */
static void put_n(const char *s, size_t n, int width)
{
    if (width <= 0 || s == NULL)
        return;
    char *e = prefs_tool_escape(s, n);
    if (e != NULL)
        addnstr(e, width);
    PrefsFree(e);
}

/* The same for the plain listing: the first `n` bytes of `s` to stdout. */
static void print_shown(const char *s, size_t n)
{
    char *e = prefs_tool_escape(s ? s : "", s ? n : 0);
    if (e != NULL)
        fputs(e, stdout);
    PrefsFree(e);
}

static void print_all_shown(const char *s)
{
    print_shown(s, s ? strlen(s) : 0);
}

/* Text made of lines (the files that did not parse): each line escaped. */
static void print_lines_shown(const char *s)
{
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        print_shown(s, n);
        putchar('\n');
        s += n + (end != NULL);
    }
}

static void draw(void)
{
    int h = LINES, w = COLS;
    int problem_lines = 0;
    if (problems[0]) {
        problem_lines = 2;
        for (const char *p = problems; *p; p++)
            problem_lines += *p == '\n';
        if (problem_lines > h / 3)
            problem_lines = h / 3;
    }
    int detail_lines = listing_domains ? 0 : 3;
    /* The status line wraps (up to 3 lines) rather than cutting a message. */
    int status_lines = w > 0 ? ((int)strlen(status_text) + w - 1) / w : 1;
    if (status_lines < 1)
        status_lines = 1;
    if (status_lines > 3)
        status_lines = 3;
    int list_h = h - 2 - status_lines - problem_lines - detail_lines;
    if (list_h < 1)
        list_h = 1;
    if (selected >= (int)nrows)
        selected = nrows ? (int)nrows - 1 : 0;
    if (selected < top)
        top = selected;
    if (selected >= top + list_h)
        top = selected - list_h + 1;
    erase();
    attron(A_REVERSE);
    mvhline(0, 0, ' ', w);
    char title[400];
    if (listing_domains)
        snprintf(title, sizeof title, " prefs ui: domains (%zu)%s%.60s", nrows,
                 filter_text[0] ? "  filter: " : "", filter_text);
    else
        snprintf(title, sizeof title, " prefs ui: %.120s%s (%zu keys)%s%.60s", app,
                 domain_missing ? ", no such domain" : "", nrows, filter_text[0] ? "  filter: " : "",
                 filter_text);
    move(0, 0);
    put(title, w);
    attroff(A_REVERSE);

    int keyw = w / 3 > 28 ? 28 : w / 3, typew = listing_domains ? 0 : 6, layerw = listing_domains ? 0 : 18,
        badgew = listing_domains ? 0 : 9;
    int valw = w - keyw - typew - layerw - badgew - 4;
    for (int i = 0; i < list_h && top + i < (int)nrows; i++) {
        struct row *r = &rows[top + i];
        int y = 1 + i;
        if (top + i == selected)
            attron(A_REVERSE);
        mvhline(y, 0, ' ', w);
        move(y, 0);
        put_n(r->key, r->key_len, keyw);
        if (!listing_domains) {
            move(y, keyw + 1);
            put(r->type, typew);
            move(y, keyw + 1 + typew + 1);
            const char *value = shown_value(r);
            if (valw > 1 && (int)strlen(value) > valw) {
                put(value, valw - 1);
                addstr(cut_mark);
            } else {
                put(value, valw);
            }
            move(y, keyw + 1 + typew + 1 + valw + 1);
            put(r->layer, layerw);
            move(y, w - badgew);
            char badges[32];
            snprintf(badges, sizeof badges, "%s%s", r->forced ? "[forced]" : "", r->deflt ? "[default]" : "");
            put(badges, badgew);
        }
        if (top + i == selected)
            attroff(A_REVERSE);
    }
    if (detail_lines && nrows) {
        /* The selected key: title and description, type and what the
         * schema accepts, the values its answer shadows. */
        char info[3][1024];
        describe_key(rows[selected].key, info);
        int y = h - 1 - status_lines - problem_lines - detail_lines;
        attron(A_BOLD);
        mvhline(y, 0, '-', w);
        move(y, 0);
        put(info[0][0] ? info[0] : "- not in the schema ", w);
        attroff(A_BOLD);
        move(y + 1, 0);
        put(info[1], w);
        move(y + 2, 0);
        put(info[2], w);
    }
    if (problem_lines) {
        int y = h - 1 - status_lines - problem_lines;
        attron(A_BOLD);
        mvhline(y, 0, '-', w);
        move(y, 0);
        put("- files that did not parse ", w);
        attroff(A_BOLD);
        const char *p = problems;
        for (int i = 1; i < problem_lines && *p; i++) {
            const char *end = strchr(p, '\n');
            int n = end ? (int)(end - p) : (int)strlen(p);
            move(y + i, 0);
            char *line = strndup(p, (size_t)n);
            put(line, w);
            free(line);
            p = end ? end + 1 : p + n;
        }
    }
    for (int i = 0; i < status_lines; i++) {
        move(h - 1 - status_lines + i, 0);
        if ((size_t)i * (size_t)w < strlen(status_text))
            put(status_text + (size_t)i * (size_t)w, w);
    }
    attron(A_REVERSE);
    mvhline(h - 1, 0, ' ', w);
    move(h - 1, 0);
    put(listing_domains ? " Enter open  / filter  q quit"
                        : " Enter edit  d remove user's value  / filter  h back  q quit",
        w);
    attroff(A_REVERSE);
    refresh();
}

static void load(int check_files);
static void draw(void);

/* Reads a line at the bottom, starting with `initial`: a new string to
 * free when accepted (as long as typed: nothing is cut), NULL when
 * cancelled or when memory runs out. With `live`, each change becomes the
 * filter and the view follows. */
static char *prompt_line(const char *label, const char *initial, int live)
{
    size_t n = strlen(initial), size = n + 256;
    char *buf = malloc(size);
    if (buf == NULL)
        return NULL;
    memcpy(buf, initial, n + 1);
    timeout(-1);
    curs_set(1);
    for (;;) {
        if (live) {
            snprintf(filter_text, sizeof filter_text, "%s", buf);
            selected = top = 0;
            load(0);
            draw();
        }
        move(LINES - 2, 0);
        clrtoeol();
        /* A long label (a long key) keeps to half the line, so that what
         * is typed shows. */
        int lw = (int)strlen(label);
        if (lw > COLS / 2) {
            lw = COLS / 2;
            put(label, lw - 6);
            put(" ... ", 5);
        } else {
            put(label, lw);
        }
        move(LINES - 2, lw);
        int avail = COLS - lw - 1;
        const char *shown = buf + ((int)n > avail && avail > 0 ? n - (size_t)avail : 0);
        put(shown, avail);
        refresh();
        int c = getch();
        if (c == '\n' || c == '\r' || c == KEY_ENTER) {
            curs_set(0);
            timeout(250);
            return buf;
        }
        if (c == 27) {
            curs_set(0);
            timeout(250);
            free(buf);
            return NULL;
        }
        if (c == 21) { /* Ctrl-U: clears the line */
            n = 0;
            buf[0] = 0;
        } else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && n > 0) {
            /* Back over a whole UTF-8 sequence. */
            do
                n--;
            while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80);
            buf[n] = 0;
        } else if (c >= 32 && c < 256 && c != 127) {
            if (n + 1 >= size) {
                char *bigger = realloc(buf, size * 2);
                if (bigger == NULL)
                    continue;
                buf = bigger;
                size *= 2;
            }
            buf[n++] = (char)c;
            buf[n] = 0;
        }
    }
}

/* prompt_line into a buffer of `size` bytes (the filter): 1 when accepted. */
static int prompt(const char *label, char *buf, size_t size, const char *initial, int live)
{
    char *line = prompt_line(label, initial, live);
    if (line == NULL)
        return 0;
    snprintf(buf, size, "%s", line);
    free(line);
    return 1;
}

/* A date typed as `YYYY-MM-DD HH:MM:SS +0000` (as shown, quotes allowed)
 * or `YYYY-MM-DDTHH:MM:SSZ`, read by the library's own XML reader (so the
 * calendar is the library's); NULL, and the status says why, otherwise. */
static PrefsPropertyListRef parse_date(const char *text)
{
    char iso[21];
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
        text++;
        n -= 2;
    }
    if (n == 25 && text[10] == ' ' && text[19] == ' ' && !strncmp(text + 20, "+0000", 5)) {
        memcpy(iso, text, 19);
        iso[10] = 'T';
        iso[19] = 'Z';
        iso[20] = 0;
    } else if (n == 20 && text[10] == 'T' && text[19] == 'Z') {
        memcpy(iso, text, 20);
        iso[20] = 0;
    } else {
        iso[0] = 0;
    }
    for (size_t i = 0; iso[0] && i < 19; i++)
        if (!(isdigit((unsigned char)iso[i]) || i == 4 || i == 7 || i == 10 || i == 13 || i == 16))
            iso[0] = 0;
    if (iso[0]) {
        char xml[128];
        snprintf(xml, sizeof xml, "<?xml version=\"1.0\"?><plist version=\"1.0\"><date>%s</date></plist>",
                 iso);
        PrefsPropertyListRef v = PrefsPropertyListCreateWithData(xml, strlen(xml), NULL);
        if (v != NULL && PrefsGetType(v) == kPrefsTypeDate)
            return v;
        PrefsRelease(v);
    }
    set_status(
        "refused: '%.200s' is not a date (YYYY-MM-DD HH:MM:SS +0000, the value is one); nothing changed",
        text, NULL);
    return NULL;
}

/* Whether `v` is written on one line, as old-style text, without changing
 * any type: strings and containers of strings only (old-style text has no
 * numbers, booleans or dates, and the description of data does not read
 * back). */
static int strings_only(PrefsPropertyListRef v)
{
    switch (PrefsGetType(v)) {
    case kPrefsTypeString:
        return 1;
    case kPrefsTypeArray:
        for (size_t i = 0; i < PrefsArrayGetCount((PrefsArrayRef)v); i++)
            if (!strings_only(PrefsArrayGetValueAtIndex((PrefsArrayRef)v, i)))
                return 0;
        return 1;
    case kPrefsTypeDictionary: {
        PrefsArrayRef keys = PrefsDictionaryCopyKeys((PrefsDictionaryRef)v);
        int ok = keys != NULL;
        for (size_t i = 0; ok && i < PrefsArrayGetCount(keys); i++) {
            PrefsStringRef k = (PrefsStringRef)PrefsArrayGetValueAtIndex(keys, i);
            const char *key = PrefsStringGetCString(k);
            ok = strlen(key) == PrefsStringGetLength(k) &&
                 strings_only(PrefsDictionaryGetValue((PrefsDictionaryRef)v, key));
        }
        PrefsRelease(keys);
        return ok;
    }
    default:
        return 0;
    }
}

/* The text the editor starts with for `v`: a form that reads back as the
 * same value and type, on one line, never cut. A new string to free;
 * NULL when the value cannot be edited on one line (*why says why). */
static char *edit_text(PrefsPropertyListRef v, const char **why)
{
    *why = NULL;
    if (v == NULL)
        return copy_string("");
    PrefsType t = PrefsGetType(v);
    if (t == kPrefsTypeData) {
        size_t n = PrefsDataGetLength((PrefsDataRef)v);
        const uint8_t *b = PrefsDataGetBytePtr((PrefsDataRef)v);
        char *out = malloc(2 * n + 3);
        if (out == NULL)
            return NULL;
        out[0] = '<';
        for (size_t i = 0; i < n; i++)
            snprintf(out + 1 + 2 * i, 3, "%02x", b[i]);
        out[2 * n + 1] = '>';
        out[2 * n + 2] = 0;
        return out;
    }
    if ((t == kPrefsTypeArray || t == kPrefsTypeDictionary) && !strings_only(v)) {
        *why =
            "an array or dictionary holding numbers, booleans, dates or data is not edited on one line (its "
            "types would be lost): use prefs write";
        return NULL;
    }
    /* Strings are quoted and escaped on one line; containers of strings
     * lose only the line breaks and indentation of their layout (a string
     * inside holds no raw newline: it is escaped). */
    char *d = PrefsCopyDescription(v);
    if (d == NULL)
        return NULL;
    char *w = d;
    for (char *r = d; *r; r++) {
        if (*r == '\n') {
            while (r[1] == ' ')
                r++;
            *w++ = ' ';
            continue;
        }
        *w++ = *r;
    }
    *w = 0;
    return d;
}

/* The text typed for a value that held `old`: old-style plist text, or for
 * a number or boolean a text of its type. NULL (and the status says why)
 * when refused. */
static PrefsPropertyListRef parse_value(const char *text, PrefsPropertyListRef old)
{
    PrefsType t = old ? PrefsGetType(old) : kPrefsTypeString;
    char *end;
    if (t == kPrefsTypeInteger) {
        errno = 0;
        long long i = strtoll(text, &end, 0);
        if (errno == 0 && end != text && *end == 0)
            return PrefsNumberCreateInt64(i);
        set_status("refused: '%.200s' is not an integer (the value is one); nothing changed", text, NULL);
        return NULL;
    }
    if (t == kPrefsTypeReal) {
        double d = strtod(text, &end);
        if (end != text && *end == 0)
            return PrefsNumberCreateDouble(d);
        set_status("refused: '%.200s' is not a number (the value is one); nothing changed", text, NULL);
        return NULL;
    }
    if (t == kPrefsTypeDate)
        return parse_date(text);
    if (t == kPrefsTypeBoolean) {
        if (!strcasecmp(text, "YES") || !strcasecmp(text, "true") || !strcmp(text, "1"))
            return PrefsBooleanCreate(true);
        if (!strcasecmp(text, "NO") || !strcasecmp(text, "false") || !strcmp(text, "0"))
            return PrefsBooleanCreate(false);
        set_status("refused: '%.200s' is not a boolean (YES, NO, true, false, 1, 0); nothing changed", text,
                   NULL);
        return NULL;
    }
    PrefsErrorRef e = NULL;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(text, strlen(text), &e);
    if (v == NULL) {
        char *d = e ? PrefsErrorCopyDescription(e) : NULL;
        set_status("refused: %s; nothing changed", d ? d : "not a property list", NULL);
        PrefsFree(d);
        PrefsRelease(e);
    }
    return v;
}

/* Stores `v` (NULL: removes) for `key`; the status says what happened. */
static void store(const char *key, PrefsPropertyListRef v)
{
    PrefsSetAppValue(key, v, app);
    PrefsErrorRef e = PrefsCopyLastError();
    if (e != NULL) {
        char *d = PrefsErrorCopyDescription(e);
        set_status("refused: %s; nothing changed", d ? d : "", NULL);
        PrefsFree(d);
        PrefsRelease(e);
        return;
    }
    if (!PrefsAppSynchronize(app)) {
        PrefsErrorRef w = PrefsCopyLastError();
        char *d = w ? PrefsErrorCopyDescription(w) : NULL;
        set_status("not saved: %s", d ? d : "", NULL);
        PrefsFree(d);
        PrefsRelease(w);
        return;
    }
    set_status(v ? "saved %s" : "removed the user's value of %s", key, NULL);
}

static void edit(void)
{
    if (nrows == 0)
        return;
    if (rows[selected].key_has_nul) {
        set_status("this key holds a NUL byte, which the terminal view cannot name: nothing changed", NULL,
                   NULL);
        return;
    }
    /* The row's own key, whatever its length: a copy, since a reload
     * frees the rows. */
    char *key = copy_string(rows[selected].key);
    if (key == NULL)
        return;
    if (choose_value(key)) {
        free(key);
        return;
    }
    PrefsPropertyListRef old = PrefsCopyAppValue(key, app);
    const char *why = NULL;
    char *current = edit_text(old, &why);
    size_t label_size = strlen(key) + 4;
    char *label = malloc(label_size);
    if (current == NULL || label == NULL) {
        set_status("not edited: %s", why ? why : "out of memory", NULL);
    } else {
        snprintf(label, label_size, "%s = ", key);
        char *text = prompt_line(label, current, 0);
        if (text == NULL) {
            set_status("edit cancelled", NULL, NULL);
        } else if (strcmp(text, current) == 0) {
            /* Accepted as it was shown: nothing is written, so nothing can
             * change (not even a date's fraction of a second). */
            set_status("unchanged: %s", key, NULL);
        } else {
            PrefsPropertyListRef v = parse_value(text, old);
            if (v != NULL) {
                store(key, v);
                PrefsRelease(v);
            }
        }
        free(text);
    }
    free(label);
    free(current);
    free(key);
    PrefsRelease(old);
}

static int choose_value(const char *key)
{
    PrefsDictionaryRef d = PrefsCopyAppKeySchema(key, app);
    PrefsPropertyListRef vals = d ? PrefsDictionaryGetValue(d, "Values") : NULL;
    PrefsPropertyListRef titles = d ? PrefsDictionaryGetValue(d, "Titles") : NULL;
    size_t n = vals && PrefsGetType(vals) == kPrefsTypeArray ? PrefsArrayGetCount((PrefsArrayRef)vals) : 0;
    if (n == 0) {
        PrefsRelease(d);
        return 0;
    }
    PrefsPropertyListRef current = PrefsCopyAppValue(key, app);
    int pick = 0;
    for (size_t i = 0; i < n; i++)
        if (PrefsEqual(PrefsArrayGetValueAtIndex((PrefsArrayRef)vals, i), current))
            pick = (int)i;
    PrefsRelease(current);
    int h = (int)n + 2 < LINES - 2 ? (int)n + 2 : LINES - 2, w = COLS - 4 > 20 ? COLS - 4 : COLS;
    int top_row = 0, chosen = -1;
    timeout(-1);
    for (;;) {
        int shown = h - 2;
        if (pick < top_row)
            top_row = pick;
        if (pick >= top_row + shown)
            top_row = pick - shown + 1;
        for (int r = 0; r < h; r++) {
            move(1 + r, 2);
            attron(A_BOLD);
            hline(r == 0 || r == h - 1 ? '-' : ' ', w);
            attroff(A_BOLD);
        }
        move(1, 3);
        put(" choose a value (Enter: store, Esc: cancel) ", w - 2);
        for (int r = 0; r < shown && top_row + r < (int)n; r++) {
            size_t i = (size_t)(top_row + r);
            char *text = one_line(PrefsArrayGetValueAtIndex((PrefsArrayRef)vals, i));
            PrefsPropertyListRef t = titles && PrefsGetType(titles) == kPrefsTypeArray &&
                                             i < PrefsArrayGetCount((PrefsArrayRef)titles)
                                         ? PrefsArrayGetValueAtIndex((PrefsArrayRef)titles, i)
                                         : NULL;
            char *title = t && PrefsGetType(t) == kPrefsTypeString
                              ? schema_text(PrefsStringGetCString((PrefsStringRef)t))
                              : NULL;
            char line[1024];
            snprintf(line, sizeof line, " %-20.200s %.400s", text ? text : "", title ? title : "");
            if ((int)i == pick)
                attron(A_REVERSE);
            move(2 + r, 3);
            put(line, w - 2);
            if ((int)i == pick)
                attroff(A_REVERSE);
            PrefsFree(text);
            PrefsFree(title);
        }
        refresh();
        int c = getch();
        if ((c == KEY_UP || c == 'k') && pick > 0)
            pick--;
        else if ((c == KEY_DOWN || c == 'j') && pick + 1 < (int)n)
            pick++;
        else if (c == '\n' || c == '\r' || c == KEY_ENTER) {
            chosen = pick;
            break;
        } else if (c == 27 || c == 'q')
            break;
    }
    timeout(250);
    if (chosen >= 0)
        store(key, PrefsArrayGetValueAtIndex((PrefsArrayRef)vals, (size_t)chosen));
    else
        set_status("choice cancelled", NULL, NULL);
    PrefsRelease(d);
    return 1;
}

/* The plain listing for terminals without cursor addressing. */
static int plain(void)
{
    load(1);
    if (!listing_domains && domain_missing && filter_text[0] == 0)
        fprintf(stderr,
                "prefs: no such domain: nothing is stored for it; the keys below are the global domain's\n");
    if (listing_domains) {
        for (size_t i = 0; i < nrows; i++) {
            print_all_shown(rows[i].key);
            putchar('\n');
        }
    } else {
        for (size_t i = 0; i < nrows; i++) {
            print_shown(rows[i].key, rows[i].key_len);
            fputs(" = ", stdout);
            print_all_shown(shown_value(&rows[i]));
            printf(" (%s, ", rows[i].type);
            print_all_shown(rows[i].layer);
            printf(")%s%s\n", rows[i].forced ? " forced" : "", rows[i].deflt ? " default" : "");
        }
        if (problems[0]) {
            printf("files that did not parse:\n");
            print_lines_shown(problems);
        }
    }
    free_rows();
    /* A listing that did not reach its reader (a full disk, a closed
     * pipe) is a failure. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "prefs: cannot write standard output: %s\n", strerror(errno ? errno : EIO));
        return 1;
    }
    return 0;
}

static int capable_terminal(void)
{
    const char *term = getenv("TERM");
    int err = 0;
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || term == NULL || !strcmp(term, "dumb"))
        return 0;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
        return 0;
    char cup[] = "cup";
    const char *s = tigetstr(cup);
    return s != NULL && s != (char *)-1;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    if (!strcmp(nl_langinfo(CODESET), "UTF-8"))
        cut_mark = "\u2026";
    if (argc > 2) {
        fprintf(stderr, "usage: prefs ui [<domain>]\n");
        return 64;
    }
    if (argc == 2) {
        const char *d = argv[1];
        if (!strcmp(d, "-g") || !strcmp(d, "-globalDomain"))
            d = "NSGlobalDomain";
        snprintf(app, sizeof app, "%s", d);
        PrefsRelease(PrefsCopyAppValue("", app));
        PrefsErrorRef e = PrefsCopyLastError();
        if (e != NULL && PrefsErrorGetCode(e) == kPrefsErrorInvalidApplicationID) {
            char *m = PrefsErrorCopyDescription(e);
            char *shown_name = prefs_tool_escape(argv[1], strlen(argv[1]));
            char *shown_why = prefs_tool_escape(m ? m : "", m ? strlen(m) : 0);
            fprintf(stderr, "prefs: cannot use '%s' as a domain: %s\n", shown_name ? shown_name : "",
                    shown_why ? shown_why : "");
            PrefsFree(shown_name);
            PrefsFree(shown_why);
            PrefsFree(m);
            PrefsRelease(e);
            return 1;
        }
        PrefsRelease(e);
    } else {
        listing_domains = started_with_list = 1;
    }
    if (!capable_terminal())
        return plain();

    if (initscr() == NULL)
        return plain();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(250);
    set_escdelay(25);
    int tick = 0;
    load(1);
    for (;;) {
        draw();
        int c = getch();
        if (c == ERR) {
            load(++tick % 4 == 0);
            continue;
        }
        if (c == 'q')
            break;
        switch (c) {
        case KEY_UP:
        case 'k':
            if (selected > 0)
                selected--;
            break;
        case KEY_DOWN:
        case 'j':
            if (selected + 1 < (int)nrows)
                selected++;
            break;
        case KEY_PPAGE:
            selected = selected > LINES - 4 ? selected - (LINES - 4) : 0;
            break;
        case KEY_NPAGE:
            selected += LINES - 4;
            break;
        case KEY_HOME:
            selected = 0;
            break;
        case KEY_END:
            selected = nrows ? (int)nrows - 1 : 0;
            break;
        case '/': {
            char f[256];
            if (prompt("/", f, sizeof f, filter_text, 1))
                snprintf(filter_text, sizeof filter_text, "%s", f);
            else
                filter_text[0] = 0;
            selected = top = 0;
            break;
        }
        case '\n':
        case '\r':
        case KEY_ENTER:
            if (listing_domains) {
                if (nrows) {
                    snprintf(app, sizeof app, "%s", rows[selected].key);
                    listing_domains = 0;
                    filter_text[0] = 0;
                    selected = top = 0;
                    status_text[0] = 0;
                }
            } else {
                edit();
            }
            break;
        case 'd':
            if (!listing_domains && nrows) {
                /* Exactly the key shown, whatever its length. */
                if (rows[selected].key_has_nul) {
                    set_status(
                        "this key holds a NUL byte, which the terminal view cannot name: nothing changed",
                        NULL, NULL);
                } else {
                    char *key = copy_string(rows[selected].key);
                    if (key != NULL)
                        store(key, NULL);
                    free(key);
                }
            }
            break;
        case 'h':
        case KEY_LEFT:
            if (started_with_list && !listing_domains) {
                listing_domains = 1;
                filter_text[0] = 0;
                selected = top = 0;
                status_text[0] = 0;
            }
            break;
        default:
            break;
        }
        load(1);
    }
    endwin();
    free_rows();
    return 0;
}
