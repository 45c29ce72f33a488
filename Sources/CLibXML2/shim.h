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
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

static inline void prefs_xml_free(void *p)
{
    xmlFree(p);
}

/* libxml2 reports some errors (encoding conversion, I/O) through its
 * per-thread "generic" error function, which prints to stderr by default.
 * A library must not write to its host's stderr, nor keep the host's own
 * handler from working: these swap in a silent handler for one parse and
 * put the previous one back. The function is variadic, hence C. */
static void prefs_xml_silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

typedef struct {
    xmlGenericErrorFunc func;
    void *context;
} prefs_xml_error_state;

static inline prefs_xml_error_state prefs_xml_silence(void)
{
    prefs_xml_error_state previous = {xmlGenericError, xmlGenericErrorContext};
    xmlSetGenericErrorFunc(NULL, prefs_xml_silent);
    return previous;
}

static inline void prefs_xml_restore(prefs_xml_error_state previous)
{
    xmlSetGenericErrorFunc(previous.context, previous.func);
}

#endif
