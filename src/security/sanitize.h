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
 *   mg_injection_check  scores how much text reads like an instruction to
 *                 the model ("ignore previous instructions", "you are now an
 *                 unrestricted assistant", role markers, hidden tag
 *                 characters), in English and twenty-one other languages, also
 *                 when obfuscated, and says why. The gate marks such results
 *                 `flags: ["prompt_injection"]` with `injection: {score,
 *                 reasons}` and audits them; it does not drop them (the
 *                 agent decides).
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

/* Prompt injection: how much s[0..n) reads like an instruction aimed at the
 * model, and why. Checks the text as it came (call it before mg_sanitize:
 * hidden characters are a signal), then, when that finds nothing and the
 * text holds something to fold or decode, the text as an attacker would
 * have hidden it: invisible characters between letters dropped, fullwidth,
 * mathematical and look-alike (Cyrillic, Greek) letters made ASCII in
 * words that mix them with ASCII, leetspeak undone where it spells a word
 * the patterns look for, letters spaced out one by one joined; its ROT13
 * when it asks for that; what its base64 and hex runs decode to. Texts over
 * MG_INJECTION_FOLD_MAX are checked as they came only. */
#define MG_INJECTION_FOLD_MAX (1u << 20)

/* What was found (bits of mg_inj.reasons). */
#define MG_INJ_OVERRIDE   0x0001u /* ignore / forget / stop following the previous instructions */
#define MG_INJ_EXFIL      0x0002u /* reveal the system prompt, keep it from the user */
#define MG_INJ_PERSONA    0x0004u /* you are now ..., from now on you ..., act as ... */
#define MG_INJ_TOOL       0x0008u /* a spoofed tool call or tool result */
#define MG_INJ_ROLE       0x0010u /* role and chat-template markers */
#define MG_INJ_HIDDEN     0x0020u /* Unicode tags, a bidi override, a run of zero-width characters */
#define MG_INJ_CUE_HIDDEN 0x0040u /* a cue (below) found only in a hidden form: an attacker's, not prose */
#define MG_INJ_MODEL      0x0080u /* the learned model (injection_model.c) reads an instruction to the agent */
/* how it was hidden: the form in which it matched */
#define MG_INJ_INVISIBLE  0x0100u /* invisible or combining characters between letters */
#define MG_INJ_LOOKALIKE  0x0200u /* fullwidth, mathematical, circled or Cyrillic/Greek look-alike letters */
#define MG_INJ_LEET       0x0400u
#define MG_INJ_SPACED     0x0800u /* l e t t e r s  s p a c e d  o u t */
#define MG_INJ_ROT13      0x1000u
#define MG_INJ_BASE64     0x2000u
#define MG_INJ_HEX        0x4000u
#define MG_INJ_HOW        0xFF00u
/* cues: each alone is ordinary text, two kinds together in one text are an
 * attack (an agent addressed and told to send a key; the rules declared
 * void and a script piped into sh) */
#define MG_INJ_ADDRESS    0x10000u /* an AI agent or model addressed ("Note to the AI reviewing this:") */
#define MG_INJ_ACTION     0x20000u /* a harmful action asked for (a secret sent, curl | sh, rm -rf ~, force-push) */
#define MG_INJ_VOID       0x40000u /* instructions declared void, or set aside with no "previous" */
#define MG_INJ_SECRECY    0x80000u /* keep it from the user, leave no trace, report success regardless */
#define MG_INJ_MODEL_CUE  0x100000u /* the learned model reads one, less sure (its lower threshold) */
#define MG_INJ_CUES       0x1F0000u

/* score: 0 when nothing was found, else 20..100: the strongest reason
 * (override 90, exfiltration 85, persona 80, tool call 75, role marker or
 * the learned model 70, hidden characters or a hidden cue 60), 5 more for
 * each further reason, 10 more when it was hidden; with none of those, two kinds of cue give 60 (5 more for each
 * further kind) and one cue alone 20. The gate flags an item at MG_INJ_FLAG
 * or more. */
#define MG_INJ_FLAG 50
struct mg_inj {
    int score;
    unsigned reasons; /* MG_INJ_* */
};

/* The score of s[0..n); *r (may be NULL) gets score and reasons. */
int mg_injection_check(const char *s, size_t n, struct mg_inj *r);
/* Compile every injection pattern now (they are compiled when first needed):
 * 0, or -1 and which one does not compile in why. For the tests. */
int mg_injection_patterns_check(char *why, size_t cap);

/* mg_injection_check(s, n, NULL) >= MG_INJ_FLAG. */
bool mg_injection(const char *s, size_t n);

/* Load or compile the check's databases now (they are otherwise made at the
 * first check; a fresh cache directory compiles them, about 3 CPU-s): a long
 * operation starts it on a thread of its own so that its answer's check does
 * not wait. Idempotent and thread-safe. False if they did not compile (a
 * bug: the check then flags nothing). */
bool mg_injection_prepare(void);

/* The names of the reasons in why ("instruction_override", "leetspeak",
 * ...), at most cap of them into names; returns how many. */
size_t mg_inj_reason_names(unsigned why, const char **names, size_t cap);

/* The normaliser, for tests and fuzzing: s[0..n) folded as mg_injection
 * folds it, into out (room for n bytes: it never grows); *how gets the
 * MG_INJ_* forms it undid. Returns the length written. */
size_t mg_injection_normalise(const char *s, size_t n, char *out, unsigned *how);

/* The decoder: what the base64 (how = MG_INJ_BASE64) or hex (MG_INJ_HEX)
 * runs of s[0..n) decode to when that is text, a line each, into out (room
 * for n bytes). Hex is read as digits, spaced pairs ("49 67", "49:67") and
 * bytes as code writes them ("0x49, 0x67", "\\x49\\x67"). Returns the length
 * written. */
size_t mg_injection_decode(const char *s, size_t n, char *out, unsigned how);

#endif
