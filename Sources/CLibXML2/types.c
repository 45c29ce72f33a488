/* CLibXML2 is a C target so that its headers can be found without
 * pkg-config (which would link libxml2; see include/shim.h), and for the
 * scan below, which runs over every byte of a document and so is C
 * compiled as C. */
#include "shim.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

/* Where three bytes `a b c` first occur in [p, end), or NULL. */
static const unsigned char *prefs_xml_find3(const unsigned char *p, const unsigned char *end, unsigned char a,
                                            unsigned char b, unsigned char c)
{
    while (end - p >= 3) {
        const unsigned char *q = (const unsigned char *)memchr(p, a, (size_t)(end - p - 2));
        if (q == NULL)
            return NULL;
        if (q[1] == b && q[2] == c)
            return q;
        p = q + 1;
    }
    return NULL;
}

#if defined(__SSE2__)
/* One bit per byte of the 64 in `a b c d` that equals the byte of `x`. */
static inline uint64_t prefs_xml_mask64(__m128i a, __m128i b, __m128i c, __m128i d, __m128i x)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, x)) |
           (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, x)) << 16 |
           (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, x)) << 32 |
           (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(d, x)) << 48;
}
#endif

/* Whether some stretch of `p` between two `<` holds more than `limit`
 * `=`: a start tag libxml2 parses with more than `limit` attributes has an
 * `=` for each (a `<` inside one stops libxml2 there), so when this is
 * false no tag is crowded. Property lists hold `=` rarely, so this looks at
 * 64 (SSE2) or eight bytes at a time and at single bytes only around an
 * `=`. A block without `=` leaves the count as it is or resets it, so it
 * is looked at for a `<` only while the count is not 0 already. */
int prefs_xml_may_crowd(const unsigned char *p, size_t n, int limit)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t eq = ones * '=', lt = ones * '<';
    size_t i = 0;
    int count = 0;
#if defined(__SSE2__)
    const __m128i eq16 = _mm_set1_epi8('='), lt16 = _mm_set1_epi8('<');
    for (; i + 64 <= n; i += 64) {
        const __m128i *q = (const __m128i *)(const void *)(p + i);
        __m128i a = _mm_loadu_si128(q), b = _mm_loadu_si128(q + 1);
        __m128i c = _mm_loadu_si128(q + 2), d = _mm_loadu_si128(q + 3);
        __m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, eq16), _mm_cmpeq_epi8(b, eq16)),
                                 _mm_or_si128(_mm_cmpeq_epi8(c, eq16), _mm_cmpeq_epi8(d, eq16)));
        if (_mm_movemask_epi8(e) == 0) {
            if (count != 0) {
                __m128i l = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, lt16), _mm_cmpeq_epi8(b, lt16)),
                                         _mm_or_si128(_mm_cmpeq_epi8(c, lt16), _mm_cmpeq_epi8(d, lt16)));
                if (_mm_movemask_epi8(l) != 0)
                    count = 0;
            }
            continue;
        }
        /* The block's `<` and `=` in order, one bit each. */
        uint64_t lts = prefs_xml_mask64(a, b, c, d, lt16);
        uint64_t marks = prefs_xml_mask64(a, b, c, d, eq16) | lts;
        while (marks != 0) {
            uint64_t bit = marks & (~marks + 1);
            if (lts & bit) {
                count = 0;
            } else if (++count > limit) {
                return 1;
            }
            marks ^= bit;
        }
    }
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, eq16)) == 0) {
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, lt16)) != 0)
                count = 0;
            continue;
        }
        for (size_t j = i; j < i + 16; j++) {
            if (p[j] == '<') {
                count = 0;
            } else if (p[j] == '=' && ++count > limit) {
                return 1;
            }
        }
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        uint64_t e = x ^ eq, l = x ^ lt;
        if ((((e - ones) & ~e) & highs) == 0) {
            if ((((l - ones) & ~l) & highs) != 0)
                count = 0;
            continue;
        }
        for (size_t j = i; j < i + 8; j++) {
            if (p[j] == '<') {
                count = 0;
            } else if (p[j] == '=' && ++count > limit) {
                return 1;
            }
        }
    }
    for (; i < n; i++) {
        if (p[i] == '<') {
            count = 0;
        } else if (p[i] == '=' && ++count > limit) {
            return 1;
        }
    }
    return 0;
}

/* Whether `c` matters inside a start tag: `>`, `=` or a quote. */
static inline int prefs_xml_in_tag(unsigned char c)
{
    return c == '>' || c == '=' || c == '"' || c == '\'';
}

/* The offset of the first start tag in a UTF-8 (or ASCII) document that
 * carries more than `limit` attributes, or -1 when none does.
 *
 * libxml2 (before 2.11) checks a start tag's attributes for duplicates
 * pairwise, before any handler sees the tag: n attributes cost n^2 / 2
 * comparisons. When a whole document is parsed in one call, this scan is
 * what refuses such a tag first. It reads markup as libxml2 does: an
 * attribute is an `=` outside a quoted value; comments, CDATA sections,
 * processing instructions and end tags hold none and are skipped to
 * where libxml2 ends them (`-->`, `]]>`, `?>`, `>`). A DOCTYPE is read to
 * its `>`; one with an internal subset (`[`) ends the scan, because the
 * reader refuses the subset before libxml2 reads past its `[`. Markup
 * that libxml2 refuses stops its parse there, so a tag this scan reads
 * differently is never parsed. */
long prefs_xml_crowded_tag(const unsigned char *p, size_t n, int limit)
{
    const unsigned char *s = p, *end = p + n;
    while (s < end) {
        const unsigned char *lt = (const unsigned char *)memchr(s, '<', (size_t)(end - s));
        if (lt == NULL)
            return -1;
        const unsigned char *t = lt + 1;
        size_t rest = (size_t)(end - t);
        if (rest >= 3 && t[0] == '!' && t[1] == '-' && t[2] == '-') {
            const unsigned char *close = prefs_xml_find3(t + 3, end, '-', '-', '>');
            if (close == NULL)
                return -1;
            s = close + 3;
        } else if (rest >= 8 && memcmp(t, "![CDATA[", 8) == 0) {
            const unsigned char *close = prefs_xml_find3(t + 8, end, ']', ']', '>');
            if (close == NULL)
                return -1;
            s = close + 3;
        } else if (rest >= 1 && t[0] == '?') {
            const unsigned char *q = t + 1;
            for (;;) {
                q = (const unsigned char *)memchr(q, '?', (size_t)(end - q));
                if (q == NULL || end - q < 2)
                    return -1;
                if (q[1] == '>')
                    break;
                q++;
            }
            s = q + 2;
        } else if (rest >= 1 && t[0] == '/') {
            const unsigned char *gt = (const unsigned char *)memchr(t, '>', rest);
            if (gt == NULL)
                return -1;
            s = gt + 1;
        } else if (rest >= 1 && t[0] == '!') {
            /* A declaration (`<!DOCTYPE`). */
            unsigned char quote = 0;
            for (; t < end; t++) {
                unsigned char c = *t;
                if (quote != 0) {
                    if (c == quote)
                        quote = 0;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '>') {
                    break;
                } else if (c == '[') {
                    return -1;
                }
            }
            s = t + 1;
        } else {
            /* A start tag: most hold no attribute, and end at the first `>`
             * after no `=` or quote. */
            int count = 0;
            for (;;) {
                while (t < end && !prefs_xml_in_tag(*t))
                    t++;
                if (t >= end || *t == '>')
                    break;
                if (*t == '=') {
                    if (++count > limit)
                        return (long)(lt - p);
                    t++;
                } else {
                    const unsigned char *q = (const unsigned char *)memchr(t + 1, *t, (size_t)(end - t - 1));
                    if (q == NULL)
                        return -1;
                    t = q + 1;
                }
            }
            s = t + 1;
        }
    }
    return -1;
}
