/* sanitize.h — make retrieved text safe to hand to an agent.
 *
 * Everything memgate returns (search snippets, file text, notes, context
 * blocks) passes through the SecurityGate (gate.h), which calls these:
 *
 *   mg_sanitize   strips what a terminal or a model would act on rather than
 *                 read: ANSI/VT escape sequences (CSI, OSC, DCS, ...), C0 and
 *                 C1 control characters other than tab and newline, model
 *                 control markers (<|im_start|>, [INST], <<SYS>>, ...), Unicode
 *                 tag characters (U+E0000..U+E007F, invisible "ASCII
 *                 smuggling"), bidi overrides (Trojan Source) and runs of
 *                 zero-width characters. A lone ZWJ/ZWNJ (emoji, Indic
 *                 scripts) is kept. Invalid UTF-8 becomes U+FFFD.
 *   mg_injection  says whether text reads like an instruction to the model
 *                 ("ignore previous instructions", "you are now an
 *                 unrestricted assistant", role markers, hidden tag
 *                 characters), in English and a few other languages. The
 *                 gate marks such results `flags: ["prompt_injection"]` and
 *                 audits them; it does not drop them (the agent decides).
 *
 * The patterns aim at a false-positive rate under 1% on ordinary code
 * comments and docs that talk about ignoring, instructions and systems
 * (measured by tests/test_sanitize.c on /usr/include and by make bench).
 */
#ifndef MG_SANITIZE_H
#define MG_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* What mg_sanitize found (bits of *found). */
#define MG_SAN_ESCAPES  0x01u /* terminal escape sequences or control characters */
#define MG_SAN_MARKERS  0x02u /* model control markers */
#define MG_SAN_HIDDEN   0x04u /* Unicode tags, bidi overrides, zero-width runs */

/* Append the sanitised text of s[0..n) to out. *found (may be NULL) receives
 * MG_SAN_* bits for what was removed. -1 only when out is full or out of
 * memory. */
int mg_sanitize(const char *s, size_t n, struct mg_buf *out, unsigned *found);

/* True when s[0..n) holds instruction-like text aimed at the model. Checks
 * the raw text (call it before mg_sanitize: hidden characters are a signal),
 * then, when that finds nothing, the text folded as an attacker would hide
 * it: invisible characters between letters dropped, fullwidth, mathematical
 * and look-alike (Cyrillic, Greek) letters made ASCII in words that mix
 * them with ASCII, leetspeak undone in words that hold a letter, letters
 * spaced out one by one joined; and its ROT13, and what its base64 runs
 * decode to. Texts over MG_INJECTION_FOLD_MAX are checked raw only. */
#define MG_INJECTION_FOLD_MAX (1u << 20)
bool mg_injection(const char *s, size_t n);

#endif
