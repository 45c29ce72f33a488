#include "contenders.h"

#include <string.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <plist/plist.h>

void cb_xml_init(void)
{
    xmlInitParser();
}

/* ---- The raw libxml2 SAX2 floor ---------------------------------------- */

struct floor_state {
    long elements;
};

static void floor_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                        int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                        const xmlChar **attributes)
{
    (void)localname;
    (void)prefix;
    (void)uri;
    (void)nb_namespaces;
    (void)namespaces;
    (void)nb_attributes;
    (void)nb_defaulted;
    (void)attributes;
    xmlParserCtxtPtr ctxt = ctx;
    ((struct floor_state *)ctxt->_private)->elements++;
}

static void floor_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
    (void)ctx;
    (void)localname;
    (void)prefix;
    (void)uri;
}

static void floor_characters(void *ctx, const xmlChar *ch, int len)
{
    (void)ctx;
    (void)ch;
    (void)len;
}

static void floor_error(void *ctx, const xmlError *error)
{
    (void)ctx;
    (void)error;
}

long cb_sax_floor(const char *bytes, int len)
{
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = floor_start;
    handler.endElementNs = floor_end;
    handler.characters = floor_characters;
    handler.ignorableWhitespace = floor_characters;
    handler.serror = (xmlStructuredErrorFunc)floor_error;

    xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(bytes, len);
    if (ctxt == NULL)
        return -1;
    memcpy(ctxt->sax, &handler, sizeof handler);
    struct floor_state state = {0};
    ctxt->_private = &state;
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET);
    xmlParseDocument(ctxt);
    int ok = ctxt->wellFormed;
    xmlFreeParserCtxt(ctxt);
    return ok ? state.elements : -1;
}

/* ---- libplist ----------------------------------------------------------- */

void *cb_plist_parse(const char *bytes, uint32_t len)
{
    plist_t plist = NULL;
    plist_from_xml(bytes, len, &plist);
    return plist;
}

void *cb_plist_parse_bin(const char *bytes, uint32_t len)
{
    plist_t plist = NULL;
    plist_from_bin(bytes, len, &plist);
    return plist;
}

uint32_t cb_plist_dict_size(void *plist)
{
    if (plist == NULL || plist_get_node_type(plist) != PLIST_DICT)
        return 0;
    return plist_dict_get_size(plist);
}

char *cb_plist_write(void *plist, uint32_t *len)
{
    char *xml = NULL;
    *len = 0;
    plist_to_xml(plist, &xml, len);
    return xml;
}

char *cb_plist_write_bin(void *plist, uint32_t *len)
{
    char *bin = NULL;
    *len = 0;
    plist_to_bin(plist, &bin, len);
    return bin;
}

void cb_plist_bin_free(char *bin)
{
    plist_to_bin_free(bin);
}

/* libplist 2.3 added plist_mem_free; 2.2 (Debian bookworm) frees the XML
 * text with plist_to_xml_free, which both versions export. */
void cb_plist_xml_free(char *xml)
{
    plist_to_xml_free(xml);
}

void cb_plist_free(void *plist)
{
    if (plist != NULL)
        plist_free(plist);
}
