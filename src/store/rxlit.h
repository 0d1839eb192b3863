/* rxlit.h — what text a regex match must contain, for the trigram prefilter.
 *
 * mg_rxlit_analyze() reads a PCRE2 pattern and returns a boolean formula over
 * literal strings that every subject the pattern can match must satisfy:
 * a LIT node holds when the subject contains the literal (ASCII
 * case-insensitively), AND/OR as usual, TRUE always. The trigram index turns
 * LITs into posting-list intersections; PCRE2 then confirms each candidate.
 *
 * The one promise is soundness: if the pattern (compiled with PCRE2_UTF |
 * PCRE2_MULTILINE | PCRE2_MATCH_INVALID_UTF, plus PCRE2_CASELESS when
 * MG_RX_CASELESS is given) matches a subject, mg_rxlit_eval() of the formula
 * on that subject is true. Anything the analyzer does not understand becomes
 * TRUE; it is as tight as it can be otherwise (longest literals, alternation
 * as OR).
 *
 * What to expect of the formula: small alternations and optional parts are
 * expanded into the literals around them ((foo|bar)_init gives
 * OR("foo_init","bar_init"); colou?r gives OR("colour","color")); positive
 * lookarounds add their own formula. Under caseless matching (MG_RX_CASELESS
 * or an inline (?i) anywhere, which is taken to apply to the whole pattern) an
 * ASCII k or s also matches U+212A KELVIN SIGN or U+017F LONG S, so such a
 * literal comes as an OR of its spellings ((?i)kfree gives
 * OR("kfree","\xe2\x84\xaafree")), and other non-ASCII characters break
 * literals. A regex literal is at most 1 KiB (a longer run becomes an AND of
 * pieces); a case-sensitive MG_RX_FIXED pattern is one literal of any length.
 * The (?x) extended syntax, callouts and backtracking verbs give TRUE.
 */
#ifndef MG_RXLIT_H
#define MG_RXLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum mg_rx_op { MG_RX_TRUE, MG_RX_LIT, MG_RX_AND, MG_RX_OR };

#define MG_RX_CASELESS 1u /* pattern is matched case-insensitively */
#define MG_RX_FIXED    2u /* pattern is a fixed string, not a regex */

struct mg_rx_node {
    enum mg_rx_op op;
    char *lit;      /* MG_RX_LIT: the literal bytes (UTF-8), NUL-terminated */
    size_t litlen;  /* MG_RX_LIT: length in bytes */
    struct mg_rx_node **kids; /* MG_RX_AND / MG_RX_OR: at least 2 children */
    size_t nkids;
};

/* Analyze pattern[0..len). On success *out is a simplified formula (TRUE
 * children of AND removed, OR with a TRUE child collapsed to TRUE, LITs
 * shorter than 3 bytes turned into TRUE) and 0 is returned. Returns -1 with
 * MG_E_BAD_REGEX or MG_E_NO_MEMORY only for failures of its own; a pattern it
 * cannot follow is not an error (it yields TRUE). Caps: 64 KiB of pattern,
 * nesting depth 256, 4096 nodes; past them the formula is TRUE. */
int mg_rxlit_analyze(const char *pattern, size_t len, unsigned flags, struct mg_rx_node **out,
                     struct mg_err *err);
void mg_rxlit_free(struct mg_rx_node **n);

/* Does text[0..len) satisfy the formula? (LIT: ASCII case-insensitive substring.) */
bool mg_rxlit_eval(const struct mg_rx_node *n, const char *text, size_t len);

/* A stable text form for tests and logs, e.g. AND("spin_lock",OR("irq","bh")).
 * Writes at most cap bytes (NUL-terminated); returns the length it needed. */
size_t mg_rxlit_format(const struct mg_rx_node *n, char *buf, size_t cap);

#endif
