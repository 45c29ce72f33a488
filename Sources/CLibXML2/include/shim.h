/* Makes libxml2's SAX2 parser callable from Swift.
 * Why a shim: `xmlFree` is a C global function pointer that Swift 6 refuses
 * to call (mutable global), and some helpers are macros. */
#ifndef PREFS_CLIBXML2_SHIM_H
#define PREFS_CLIBXML2_SHIM_H

/* Debian's libxml2 is built with ICU, so <libxml/encoding.h> pulls in
 * <unicode/ucnv.h> and this module would carry the system's ICU types
 * (UErrorCode, ...). Foundation carries its own, different ICU
 * (_FoundationICU), and clang refuses the two definitions side by side: any
 * Swift module that imports both Foundation and PrefsCore and calls a C
 * function failed to compile ("'UErrorCode' has different definitions in
 * different modules") on a clean build. Nothing here uses ICU or the
 * encoding handler's ICU fields, so leave them out of this module's view. */
#include <libxml/xmlversion.h> /* through include/libxml, a link to the system's headers */
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

#include <stddef.h>

/* The scan that refuses a crowded start tag before libxml2 parses a whole
 * UTF-8 document in one call (types.c says how it reads markup).
 * prefs_xml_may_crowd: whether some stretch of the `n` bytes at `p`
 * between two `<` holds more than `limit` `=`; when it does not, no start
 * tag carries more than `limit` attributes. prefs_xml_crowded_tag: the
 * offset of the first start tag carrying more than `limit` attributes, or
 * -1. */
int prefs_xml_may_crowd(const unsigned char *p, size_t n, int limit);
long prefs_xml_crowded_tag(const unsigned char *p, size_t n, int limit);

/* libprefs does not link libxml2: it loads it (dlopen) the first time an
 * XML property list is parsed, so that a process that only reads through
 * the binary indexes never pays for libxml2 and the libraries it pulls in
 * (ICU, lzma, zlib). Only libxml2's types come from these headers; its
 * functions are called through pointers found with dlsym. */

/* libxml2 reports some errors (encoding conversion, I/O) through its
 * per-thread "generic" error function, which prints to stderr by default.
 * A library must not write to its host's stderr, nor keep the host's own
 * handler from working: these swap in a silent handler for one parse and
 * put the previous one back. The function is variadic, hence C; libxml2's
 * functions are passed in as the addresses dlsym found. */
static void prefs_xml_silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

typedef struct {
    xmlGenericErrorFunc func;
    void *context;
} prefs_xml_error_state;

typedef struct {
    /* __xmlGenericError, __xmlGenericErrorContext, xmlSetGenericErrorFunc */
    xmlGenericErrorFunc *(*generic_error)(void);
    void **(*generic_error_context)(void);
    void (*set_generic_error_func)(void *, xmlGenericErrorFunc);
} prefs_xml_error_functions;

static inline prefs_xml_error_functions
prefs_xml_error_functions_at(void *generic_error, void *generic_error_context, void *set_generic_error_func)
{
    prefs_xml_error_functions f;
    f.generic_error = (xmlGenericErrorFunc * (*)(void)) generic_error;
    f.generic_error_context = (void **(*)(void))generic_error_context;
    f.set_generic_error_func = (void (*)(void *, xmlGenericErrorFunc))set_generic_error_func;
    return f;
}

static inline prefs_xml_error_state prefs_xml_silence(prefs_xml_error_functions f)
{
    prefs_xml_error_state previous = {*f.generic_error(), *f.generic_error_context()};
    f.set_generic_error_func(NULL, prefs_xml_silent);
    return previous;
}

static inline void prefs_xml_restore(prefs_xml_error_functions f, prefs_xml_error_state previous)
{
    f.set_generic_error_func(previous.context, previous.func);
}

#endif
