/* injection_check.h — what the prompt-injection tests share
 * (test_injection_*.c): a text's check, and a list of texts all flagged or
 * none. FAIL names the text.
 */
#ifndef MG_TEST_INJECTION_CHECK_H
#define MG_TEST_INJECTION_CHECK_H

#include <string.h>

#include "security/sanitize.h"
#include "test.h"

static inline struct mg_inj inj_check(const char *s)
{
    struct mg_inj r;
    mg_injection_check(s, strlen(s), &r);
    return r;
}

/* Every text of t[0..n) flagged, with one of the reasons any among its own (any 0: whatever the reasons). */
static inline void inj_flagged(const char *const *t, size_t n, unsigned any)
{
    for (size_t i = 0; i < n; i++) {
        struct mg_inj r = inj_check(t[i]);
        if (r.score < MG_INJ_FLAG || (any && !(r.reasons & any)))
            FAIL("not flagged (score %d, reasons %#x, one of %#x wanted): %s", r.score, r.reasons, any, t[i]);
    }
}

/* No text of t[0..n) flagged. */
static inline void inj_unflagged(const char *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct mg_inj r = inj_check(t[i]);
        if (r.score >= MG_INJ_FLAG) FAIL("flagged (score %d, reasons %#x): %s", r.score, r.reasons, t[i]);
    }
}

#define INJ_FLAGGED(t, any) inj_flagged((t), sizeof(t) / sizeof((t)[0]), (any))
#define INJ_UNFLAGGED(t) inj_unflagged((t), sizeof(t) / sizeof((t)[0]))

#endif
