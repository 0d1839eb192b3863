/* fuzz_rxlit.c — the regex literal analyzer against PCRE2 itself.
 *
 * Input: one flag byte (bit 0: MG_RX_CASELESS; bits 1-2 both set:
 * MG_RX_FIXED), then the pattern, a NUL, and the subject (no NUL: the rest is
 * split in half). Besides "no crash, no leak", two properties must hold:
 *   - soundness: when PCRE2 (with the flags rxlit.h names) matches the
 *     subject, mg_rxlit_eval() of the formula on the subject is true;
 *   - shape: the formula is simplified as rxlit.h promises (no LIT under 3
 *     bytes, no TRUE inside AND/OR, AND/OR with at least two children).
 */
#include "fuzz.h"
#include "store/rxlit.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_shape(const struct mg_rx_node *n, int depth)
{
    if (!n || depth > 10000) abort();
    switch (n->op) {
    case MG_RX_TRUE:
        if (depth > 0) abort(); /* TRUE only as the whole formula */
        return;
    case MG_RX_LIT:
        if (n->litlen < 3 || !n->lit || n->lit[n->litlen] != 0) abort();
        return;
    case MG_RX_AND:
    case MG_RX_OR:
        if (n->nkids < 2 || !n->kids) abort();
        for (size_t i = 0; i < n->nkids; i++) check_shape(n->kids[i], depth + 1);
        return;
    }
    abort();
}

/* 1 match, 0 no match, -1 did not compile or hit a limit. */
static int pcre_match(const char *pat, size_t plen, const char *subj, size_t slen, unsigned flags)
{
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    if (flags & MG_RX_CASELESS) opts |= PCRE2_CASELESS;
    opts |= (flags & MG_RX_FIXED) ? PCRE2_LITERAL : PCRE2_MULTILINE;
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, plen, opts, &errcode, &erroff, NULL);
    if (!re) return -1;
    int r = -1;
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    if (mc && md) {
        pcre2_set_match_limit(mc, 10000);
        pcre2_set_depth_limit(mc, 1000);
        int rc = pcre2_match(re, (PCRE2_SPTR)subj, slen, 0, 0, md, mc);
        r = rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    return r;
}

MG_FUZZ_TARGET(rxlit)
{
    if (size == 0) return 0;
    unsigned flags = 0;
    if (data[0] & 1) flags |= MG_RX_CASELESS;
    if ((data[0] & 6) == 6) flags |= MG_RX_FIXED;
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    const char *nul = memchr(rest, 0, n);
    size_t plen = nul ? (size_t)(nul - rest) : n / 2;
    const char *subj = nul ? nul + 1 : rest + plen;
    size_t slen = n - plen - (nul ? 1 : 0);

    /* exact-size copies, so ASan sees any read past the pattern */
    char *pat = malloc(plen ? plen : 1);
    if (!pat) return 0;
    memcpy(pat, rest, plen);

    struct mg_rx_node *f = NULL;
    struct mg_err err = {0};
    if (mg_rxlit_analyze(pat, plen, flags, &f, &err) != 0) {
        if (!err.code || strcmp(err.code, MG_E_NO_MEMORY) != 0) abort();
        free(pat);
        return 0;
    }
    check_shape(f, 0);

    size_t need = mg_rxlit_format(f, NULL, 0);
    char *text = malloc(need + 1);
    if (!text) abort();
    if (mg_rxlit_format(f, text, need + 1) != need || strlen(text) != need) abort();
    char small[8];
    if (mg_rxlit_format(f, small, sizeof(small)) != need || strlen(small) >= sizeof(small)) abort();

    if (pcre_match(pat, plen, subj, slen, flags) == 1 && !mg_rxlit_eval(f, subj, slen)) {
        fprintf(stderr, "rxlit unsound: flags %u pattern [%.*s] subject [%.*s] formula %s\n", flags,
                (int)plen, pat, (int)slen, subj, text);
        abort();
    }
    free(text);
    mg_rxlit_free(&f);
    if (f) abort();
    free(pat);
    return 0;
}
