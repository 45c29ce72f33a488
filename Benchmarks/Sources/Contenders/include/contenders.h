/* The C contenders of the codec benchmarks, behind opaque handles so that
 * Swift sees neither libxml2's nor libplist's headers. */
#ifndef CODEC_BENCH_CONTENDERS_H
#define CODEC_BENCH_CONTENDERS_H

#include <stddef.h>
#include <stdint.h>

/* Initialises libxml2 once (the floor and libprefs share it). */
void cb_xml_init(void);

/* The floor: one libxml2 SAX2 pass over `len` bytes, set up as libprefs sets
 * up its own (memory parser context, XML_PARSE_NONET), with callbacks that do
 * nothing. Returns the number of start-element events (so the pass can be
 * checked), or -1 when the document is not well-formed. */
long cb_sax_floor(const char *bytes, int len);

/* libplist: parse XML into a tree; NULL on failure. */
void *cb_plist_parse(const char *bytes, uint32_t len);
/* libplist: parse a binary property list (bplist00) into a tree; NULL on
 * failure. */
void *cb_plist_parse_bin(const char *bytes, uint32_t len);
/* libplist: entries of a dictionary node (0 for other nodes). */
uint32_t cb_plist_dict_size(void *plist);
/* libplist: the tree as XML; free the text with cb_plist_xml_free. */
char *cb_plist_write(void *plist, uint32_t *len);
void cb_plist_xml_free(char *xml);
/* libplist: the tree as a binary property list; free it with
 * cb_plist_bin_free. */
char *cb_plist_write_bin(void *plist, uint32_t *len);
void cb_plist_bin_free(char *bin);
void cb_plist_free(void *plist);

#endif
