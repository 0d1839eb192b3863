/* fuzz_inj_fold.c — the prompt-injection normaliser and decoders
 * (sanitize.h) on hostile bytes: look-alike and invisible characters cut
 * anywhere, leetspeak, spaced letters, base64 and hex runs of every length.
 * The normaliser (and its reading of spaced runs with their punctuation) must
 * never write more than it read; the decoders write
 * printable ASCII, spaces and newlines only, never more than they read;
 * and the full check's score is 0, 20 for one cue alone, or in 60..100, with
 * reasons to match. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "security/injection_int.h"
#include "security/sanitize.h"

MG_FUZZ_TARGET(inj_fold)
{
    char *out = malloc(size + 1);
    if (!out) return 0;
    unsigned how = 0;
    size_t n = mg_injection_normalise((const char *)data, size, out, &how);
    if (n > size || (how & ~MG_INJ_HOW)) abort();
    n = mg__inj_normalise_pieces((const char *)data, size, out, &how, true); /* spaced runs with their pieces */
    if (n > size || (how & ~MG_INJ_HOW)) abort();
    for (int k = 0; k < 2; k++) {
        n = mg_injection_decode((const char *)data, size, out, k ? MG_INJ_HEX : MG_INJ_BASE64);
        if (n > size) abort();
        for (size_t i = 0; i < n; i++)
            if (out[i] != '\n' && (out[i] < 0x20 || out[i] > 0x7E)) abort();
    }
    free(out);
    struct mg_inj r;
    int s = mg_injection_check((const char *)data, size, &r);
    /* one cue alone scores 20 (sanitize.h: prose names agents and deletions), every other find 60 or more */
    bool cue_alone = s == 20 && (r.reasons & ~(MG_INJ_CUES | MG_INJ_HOW)) == 0 &&
                     __builtin_popcount(r.reasons & MG_INJ_CUES) == 1;
    if (s != r.score || (s != 0 && !cue_alone && (s < 60 || s > 100)) || (s == 0) != (r.reasons == 0)) abort();
    return 0;
}
