/* Makes libxml2's SAX2 parser callable from Swift.
 * Why a shim: `xmlFree` is a C global function pointer that Swift 6 refuses
 * to call (mutable global), and some helpers are macros. */
#ifndef PREFS_CLIBXML2_SHIM_H
#define PREFS_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

static inline void prefs_xml_free(void *p) { xmlFree(p); }

#endif
