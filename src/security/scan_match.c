/* scan_match.c — one pass of the secret scanner over a buffer (scan_int.h:
 * mg__scan_run): the first pass (one Vectorscan database) gives hits; each
 * is confirmed with its rule's PCRE2 pattern on a bounded window around it,
 * which extracts the secret; the candidates are sorted, and of overlapping
 * ones the better is kept, checked for its entropy and against its
 * allowlists only when it would be. The passes over joined literals and
 * decoded base64 (scan_join.c, scan_b64.c) run it on the texts they make.
 *
 * Sections:
 *   1. entropy
 *   2. the pool of per-scan state
 *   3. checks: allowlists and entropy
 *   4. confirming a first-pass hit
 *   5. the first pass
 *   6. overlaps, and the pass whole
 */
#include "security/scan_int.h"

#include <math.h>
#include <stdlib.h>

/* ---- 1. entropy ------------------------------------------------------------------------- */

/* c * log2(c) for the small counts a secret has, filled once */
#define CLOG_N 1024
static double clog_tab[CLOG_N];
static pthread_once_t clog_once = PTHREAD_ONCE_INIT;

static void clog_init(void)
{
    for (int c = 1; c < CLOG_N; c++) clog_tab[c] = (double)c * log2((double)c);
}

/* The byte counts of mg_shannon_entropy, all zero between calls: a call
 * sets back to zero the ones it used, instead of clearing 256 of them. */
static _Thread_local uint32_t ent_count[256];

static inline double c_log2_c(size_t c)
{
    return c < CLOG_N ? clog_tab[c] : (double)c * log2((double)c);
}

/* H = -sum p log2 p = log2 n - (sum c log2 c) / n, over the byte counts c */
double mg_shannon_entropy(const char *s, size_t n)
{
    if (n == 0) return 0;
    pthread_once(&clog_once, clog_init);
    uint32_t *count = ent_count;
    unsigned char seen[257];
    int nseen = 0;
    for (size_t i = 0; i < n; i++) { /* without a branch: a random secret would mispredict it */
        unsigned char c = (unsigned char)s[i];
        seen[nseen] = c;
        nseen += count[c]++ == 0; /* (n is under 4 GiB: scan.h) */
    }
    double sum = 0;
    for (int i = 0; i < nseen; i++) {
        sum += c_log2_c(count[seen[i]]);
        count[seen[i]] = 0;
    }
    double h = c_log2_c(n) / (double)n - sum / (double)n;
    return h > 0 ? h : 0;
}

/* ---- 2. the pool of per-scan state ------------------------------------------------------ */

/* A first-pass hit, kept until FP_BATCH of them are confirmed together:
 * Vectorscan then runs with its state in the cache, not evicted by PCRE2
 * after every hit. */
struct fp_hit {
    uint32_t id;
    size_t to;
};
#define FP_BATCH 512

struct mg__scan_slot {
    struct mg__scan_slot *next;
    hs_scratch_t *scratch;
    hs_scratch_t *ascratch; /* for the allowlist databases */
    pcre2_match_data *md;
    size_t *resume;      /* per rule: where its next match may start (the end of its last one) */
    size_t *searched;    /* per rule: end of a window searched to its end from resume[] without a match */
    struct fp_hit *fh;   /* first-pass hits not yet confirmed (FP_BATCH) */
};

static struct mg__scan_slot *slot_get(const struct mg_scanner *cs)
{
    struct mg_scanner *s = (struct mg_scanner *)cs; /* the pool is the only mutable part */
    pthread_mutex_lock(&s->mu);
    struct mg__scan_slot *sl = s->pool;
    if (sl) s->pool = sl->next;
    pthread_mutex_unlock(&s->mu);
    if (sl) return sl;
    if (!(sl = calloc(1, sizeof(*sl)))) return NULL;
    if (hs_clone_scratch(s->proto, &sl->scratch) != HS_SUCCESS) sl->scratch = NULL;
    bool aok = !s->aproto || hs_clone_scratch(s->aproto, &sl->ascratch) == HS_SUCCESS;
    sl->md = pcre2_match_data_create(100, NULL);
    if ((sl->resume = calloc(2 * s->nrules, sizeof(size_t)))) sl->searched = sl->resume + s->nrules;
    sl->fh = malloc(FP_BATCH * sizeof(*sl->fh));
    if (!sl->scratch || !aok || !sl->md || !sl->resume || !sl->fh) {
        if (sl->scratch) hs_free_scratch(sl->scratch);
        if (sl->ascratch) hs_free_scratch(sl->ascratch);
        pcre2_match_data_free(sl->md);
        free(sl->resume);
        free(sl->fh);
        free(sl);
        return NULL;
    }
    return sl;
}

static void slot_put(const struct mg_scanner *cs, struct mg__scan_slot *sl)
{
    struct mg_scanner *s = (struct mg_scanner *)cs;
    pthread_mutex_lock(&s->mu);
    sl->next = s->pool;
    s->pool = sl;
    pthread_mutex_unlock(&s->mu);
}

void mg__scan_pool_free(struct mg_scanner *s)
{
    while (s->pool) {
        struct mg__scan_slot *n = s->pool->next;
        hs_free_scratch(s->pool->scratch);
        if (s->pool->ascratch) hs_free_scratch(s->pool->ascratch);
        pcre2_match_data_free(s->pool->md);
        free(s->pool->resume);
        free(s->pool->fh);
        free(s->pool);
        s->pool = n;
    }
}

/* ---- 3. checks: allowlists and entropy -------------------------------------------------- */

static int on_allow_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id;
    (void)from;
    (void)to;
    (void)flags;
    (void)ctx;
    return 1; /* one match allows: stop */
}

/* JIT code runs by pcre2_jit_match, which skips pcre2_match's per-call checks. */
static int rx_match(struct mg_lre *l, const char *p, size_t len, size_t off, struct mg__scan *sc)
{
    bool jit;
    const pcre2_code *re = mg_lre_get(l, &jit);
    if (!re) return PCRE2_ERROR_NOMATCH; /* (a built-in regex that does not compile: the tests say none) */
    if (jit) return pcre2_jit_match(re, (PCRE2_SPTR)p, len, off, 0, sc->sl->md, sc->s->mctx);
    return pcre2_match(re, (PCRE2_SPTR)p, len, off, 0, sc->sl->md, sc->s->mctx);
}

static bool any_match(const struct mg__scan_aset *as, const char *p, size_t len, struct mg__scan *sc)
{
    if (as->db && hs_scan(as->db, p, (unsigned int)len, 0, sc->sl->ascratch, on_allow_match, NULL) == HS_SCAN_TERMINATED)
        return true;
    for (size_t i = 0; i < as->nextra; i++)
        if (rx_match(as->extra[i], p, len, 0, sc) >= 0) return true;
    return false;
}

/* The start of the line holding pos: after the last '\n' in [lo, pos), or lo. */
static size_t line_start(const char *buf, size_t lo, size_t pos)
{
    const char *q = pos > lo ? memrchr(buf + lo, '\n', pos - lo) : NULL;
    return q ? (size_t)(q - buf) + 1 : lo;
}

/* The end of the line holding pos: the first '\n' in [pos, hi), or hi. */
static size_t line_end(const char *buf, size_t pos, size_t hi)
{
    const char *q = hi > pos ? memchr(buf + pos, '\n', hi - pos) : NULL;
    return q ? (size_t)(q - buf) : hi;
}

static bool allowed(struct mg__scan *sc, const struct mg__scan_rule *r, size_t a, size_t b)
{
    if (any_match(r->asec, sc->buf + a, b - a, sc)) return true;
    if (!r->aline->db && !r->aline->nextra) return false;
    size_t ls = line_start(sc->buf, a > MG_SCAN_WINDOW_MAX ? a - MG_SCAN_WINDOW_MAX : 0, a);
    size_t le = line_end(sc->buf, b, sc->len - b > MG_SCAN_WINDOW_MAX ? b + MG_SCAN_WINDOW_MAX : sc->len);
    return any_match(r->aline, sc->buf + ls, le - ls, sc);
}

/* Is a candidate a finding: its secret reaches the rule's entropy floor and
 * no allowlist of the rule matches it or its line? */
static bool finding(struct mg__scan *sc, const struct mg__scan_hit *h)
{
    const struct mg__scan_rule *r = &sc->s->rules[h->rule];
    /* (1e-9: an entropy of exactly the floor passes whatever the rounding) */
    if (r->entropy > 0 && mg_shannon_entropy(sc->buf + h->start, h->end - h->start) + 1e-9 < r->entropy) return false;
    return !allowed(sc, r, h->start, h->end);
}

static int add_hit(struct mg__scan *sc, uint32_t rule, size_t a, size_t b)
{
    if (mg__scan_grow((void **)&sc->v, sc->n, &sc->cap, sizeof(struct mg__scan_hit)) != 0) {
        sc->oom = true;
        return -1;
    }
    sc->v[sc->n++] = (struct mg__scan_hit){rule, false, a, b};
    return 0;
}

/* ---- 4. confirming a first-pass hit ----------------------------------------------------- */

/* A multi-line rule's window [ws, ws+wlen) searched from off without a
 * match: where can a match still start? PCRE2's hard partial matching says:
 * where its first partial match starts (one that would go on past the
 * window), or nowhere in the window. The rule's next search begins there, so
 * a run of END lines without their BEGIN is not searched back a whole window
 * for each one. */
static void skip_dead_starts(struct mg__scan *sc, const struct mg__scan_rule *r, size_t *resume, size_t ws, size_t wlen,
                             size_t off)
{
    const pcre2_code *re = mg_lre_get((struct mg_lre *)&r->re, NULL);
    int rc = !re ? PCRE2_ERROR_NOMATCH : pcre2_match(re, (PCRE2_SPTR)sc->buf + ws, wlen, off, PCRE2_PARTIAL_HARD, sc->sl->md, sc->s->mctx);
    if (rc == PCRE2_ERROR_NOMATCH) *resume = ws + wlen;
    else if (rc == PCRE2_ERROR_PARTIAL) *resume = ws + pcre2_get_ovector_pointer(sc->sl->md)[0];
}

/* Search rule id's pattern in the window [ws, we) from where its last match
 * ended (matches of one rule never overlap); a match with the secret's group
 * and one of the rule's keywords is a candidate (finding() checks the rest
 * later, for the candidates that can be kept). The search stops after the
 * first match that ends at or after `stop`, the end of the first-pass hit: a
 * later match ends after that one, so the first pass has a hit for it still
 * to come (its keyword, or its end under the prefilter) that resumes the
 * search. A window searched to its end is remembered, and the hits that
 * follow inside it are skipped. For a keyword hit, kw_start is where the
 * keyword starts (stop is its end), else SIZE_MAX. */
static int confirm(struct mg__scan *sc, uint32_t id, size_t ws, size_t we, size_t stop, size_t kw_start)
{
    const struct mg__scan_rule *r = &sc->s->rules[id];
    size_t *resume = &sc->sl->resume[id];
    const char *w = sc->buf + ws;
    size_t wlen = we - ws, off = *resume > ws ? *resume - ws : 0;
    pcre2_match_data *md = sc->sl->md;
    while (off <= wlen) {
        int rc = rx_match((struct mg_lre *)&r->re, w, wlen, off, sc);
        if (rc < 0) { /* no (more) matches, or a limit hit: give up on this window */
            if (rc == PCRE2_ERROR_NOMATCH && r->lines > 1) skip_dead_starts(sc, r, resume, ws, wlen, off);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t m0 = ov[0], m1 = ov[1];
        off = m1 > m0 ? m1 : m1 + 1;
        *resume = ws + off;
        int g = 0;
        for (int i = 0; i < r->ngroup && !g; i++)
            if (r->group[i] < rc && ov[2 * r->group[i]] != PCRE2_UNSET) g = r->group[i];
        size_t a = ws + ov[2 * g], b = ws + ov[2 * g + 1];
        bool keep = !(r->ngroup && !g && r->group[0] != 0) && b > a; /* else none of the groups took part */
        bool holds_hit = kw_start != SIZE_MAX && ws + m0 <= kw_start && stop <= ws + m1; /* the hit's keyword */
        if (keep && !holds_hit) {
            keep = false;
            for (size_t k = 0; k < r->nkw && !keep; k++) keep = mg__scan_has_word(w + m0, m1 - m0, r->kw[k]);
        }
        if (keep && add_hit(sc, id, a, b) != 0) return 1; /* stops the scan */
        if (ws + m1 >= stop) return 0;
    }
    sc->sl->searched[id] = we;
    return 0;
}

/* A prefilter hit of rule `id` (one with a common keyword, or multi-line)
 * ending at `end`. The window: the rule's `lines` lines ending with the
 * hit's line (back to where its next match may start at most), and on to
 * the end of that line; at most MG_SCAN_WINDOW_MAX bytes either side, or
 * for a multi-line rule MG_SCAN_BLOCK_MAX bytes before (a PGP key block
 * with subkeys and a photo runs past 16 KiB). */
static int prefilter_hit(struct mg__scan *sc, uint32_t id, size_t end)
{
    const struct mg__scan_rule *r = &sc->s->rules[id];
    /* a match ending here would overlap the last one, or lie in a window searched to its end */
    size_t resume = sc->sl->resume[id];
    if (end <= resume || end <= sc->sl->searched[id]) return 0;
    size_t cap = r->lines > 1 ? MG_SCAN_BLOCK_MAX : MG_SCAN_WINDOW_MAX;
    size_t lo = end > cap ? end - cap : 0;
    size_t ws = end ? end - 1 : 0; /* the hit's last byte is in the window, even a '\n' */
    for (int nl = 0; nl < r->lines && ws > lo; nl++) {
        ws = line_start(sc->buf, lo, ws);
        if (ws <= resume) break; /* no match starts before resume: the lines before are not needed */
        if (ws > lo && nl + 1 < r->lines) ws--; /* onto the '\n' ending the line before */
    }
    /* ... and on to the end of the line (capped), so the hits that follow on a long line are skipped */
    size_t we = line_end(sc->buf, end, sc->len - end > MG_SCAN_WINDOW_MAX ? end + MG_SCAN_WINDOW_MAX : sc->len);
    return confirm(sc, id, ws, we, end, SIZE_MAX);
}

/* An occurrence of keyword e ending at ke: confirm each rule (found by
 * keywords) that lists it. A match holds the keyword and lies on one line
 * (those rules have `lines` 1): the window is the keyword's line, at most
 * MG_SCAN_WINDOW_MAX bytes either side of the keyword. */
static int keyword_hit(struct mg__scan *sc, const struct mg__scan_kw *e, size_t ke)
{
    size_t ks = ke - e->len;
    size_t lo = ks > MG_SCAN_WINDOW_MAX ? ks - MG_SCAN_WINDOW_MAX : 0;
    size_t hi = sc->len - ke > MG_SCAN_WINDOW_MAX ? ke + MG_SCAN_WINDOW_MAX : sc->len;
    bool line = false;
    for (size_t i = 0; i < e->nrules; i++) {
        uint32_t rid = e->rules[i];
        if (ke <= sc->sl->resume[rid]) continue; /* inside the rule's last match */
        if (!line) { /* the keyword's whole line; hits come in order, so a long line's ends are looked for once */
            if (!sc->line_ok || ks < sc->line_s || ke > sc->line_e) {
                sc->line_s = line_start(sc->buf, sc->line_ok && sc->line_e <= ks ? sc->line_e : 0, ks);
                sc->line_e = line_end(sc->buf, ke, sc->len);
                sc->line_ok = true;
            }
            line = true;
        }
        size_t ws = sc->line_s > lo ? sc->line_s : lo, we = sc->line_e < hi ? sc->line_e : hi;
        /* searched to its end already: this window; or, when the window is cut
         * at MG_SCAN_WINDOW_MAX inside a long line, the keyword itself (as for
         * a prefilter hit), else each keyword on a long line would search the
         * next 16 KiB again */
        if (we <= sc->sl->searched[rid] || (we < sc->line_e && ke <= sc->sl->searched[rid])) continue;
        if (confirm(sc, rid, ws, we, ke, ks)) return 1;
    }
    return 0;
}

/* ---- 5. the first pass ------------------------------------------------------------------ */

/* Confirm the first-pass hits kept so far, in the order they came (that of
 * their ends). Nonzero: out of memory, stop. */
static int flush_hits(struct mg__scan *sc)
{
    for (size_t i = 0; i < sc->nfh; i++) {
        const struct fp_hit *h = &sc->sl->fh[i];
        int rc = h->id < sc->s->nrules ? prefilter_hit(sc, h->id, h->to)
                                       : keyword_hit(sc, &sc->s->kws[h->id - sc->s->nrules], h->to);
        if (rc) return rc;
    }
    sc->nfh = 0;
    return 0;
}

static int on_first_pass(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)from;
    (void)flags;
    struct mg__scan *sc = ctx;
    sc->sl->fh[sc->nfh++] = (struct fp_hit){id, (size_t)to};
    return sc->nfh == FP_BATCH ? flush_hits(sc) : 0;
}

/* ---- 6. overlaps, and the pass whole ---------------------------------------------------- */

static int cmp_hit(const void *x, const void *y)
{
    const struct mg__scan_hit *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return a->rule < b->rule ? -1 : a->rule > b->rule;
}

/* The candidates come almost in order (that of the first pass's hits):
 * insertion sort, unless it has to move more than 4 per candidate. */
static void sort_hits(struct mg__scan_hit *v, size_t n)
{
    size_t moves = 0;
    for (size_t i = 1; i < n; i++) {
        struct mg__scan_hit x = v[i];
        size_t j = i;
        for (; j > 0 && cmp_hit(&v[j - 1], &x) > 0 && moves <= 4 * n; j--, moves++) v[j] = v[j - 1];
        v[j] = x;
        if (moves > 4 * n) {
            qsort(v, n, sizeof(*v), cmp_hit);
            return;
        }
    }
}

bool mg__scan_better(const struct mg_scanner *s, const struct mg__scan_hit *a, const struct mg__scan_hit *b)
{
    size_t la = a->end - a->start, lb = b->end - b->start;
    if (la != lb) return la > lb;
    if (s->rules[a->rule].sev != s->rules[b->rule].sev) return s->rules[a->rule].sev > s->rules[b->rule].sev;
    return a->rule < b->rule;
}

/* The candidates in order; of overlapping ones the better is kept. With
 * check, a candidate is kept only when it is a finding (entropy,
 * allowlists: finding()), checked only when it would be kept: one that
 * loses to the finding it overlaps is dropped either way, so the result is
 * that of checking them all first. */
static void keep_best(const struct mg_scanner *s, struct mg__scan *sc, bool check)
{
    sort_hits(sc->v, sc->n);
    size_t k = 0;
    for (size_t i = 0; i < sc->n; i++) {
        struct mg__scan_hit *h = &sc->v[i];
        if (k > 0 && h->start < sc->v[k - 1].end) {
            if (mg__scan_better(s, h, &sc->v[k - 1]) && (!check || finding(sc, h))) sc->v[k - 1] = *h;
            continue;
        }
        if (!check || finding(sc, h)) sc->v[k++] = *h;
    }
    sc->n = k;
}

/* Run the scan; leaves sc->v sorted, without overlaps. */
int mg__scan_run(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err)
{
    memset(sc, 0, sizeof(*sc));
    if (!s) return mg_err_set(err, MG_E_INTERNAL, "no secret scanner (the rules did not load); see the error above");
    if (len > MG_SCAN_MAX_BYTES)
        return mg_err_set(err, MG_E_TOO_LARGE, "input of %zu bytes is over the scanner's %u-byte cap; scan it in parts", len,
                          MG_SCAN_MAX_BYTES);
    sc->s = s;
    sc->buf = buf;
    sc->len = len;
    if (len == 0) return 0;
    if (!(sc->sl = slot_get(s))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory for scanner scratch space");
    memset(sc->sl->resume, 0, 2 * s->nrules * sizeof(size_t)); /* and searched */
    hs_error_t he = hs_scan(s->db, buf, (unsigned int)len, 0, sc->sl->scratch, on_first_pass, sc);
    if (he == HS_SUCCESS) flush_hits(sc);
    if (sc->oom || (he != HS_SUCCESS && he != HS_SCAN_TERMINATED)) {
        slot_put(s, sc->sl);
        free(sc->v);
        if (sc->oom) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory collecting scanner findings");
        return mg_err_set(err, MG_E_INTERNAL, "Vectorscan scan failed (error %d)", (int)he);
    }
    if (sc->n == 0) {
        slot_put(s, sc->sl);
        return 0;
    }
    keep_best(s, sc, true);
    slot_put(s, sc->sl);
    sc->sl = NULL;
    return 0;
}

int mg__scan_text(const struct mg_scanner *s, const char *t, size_t n,
                  int (*map)(void *ud, const struct mg__scan_hit *h, struct mg_err *err), void *ud, struct mg_err *err)
{
    if (n == 0) return 0;
    struct mg__scan in;
    if (mg__scan_run(s, t, n, &in, err) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < in.n && rc == 0; i++) rc = map(ud, &in.v[i], err);
    free(in.v);
    return rc;
}

int mg__scan_merge(const struct mg_scanner *s, struct mg__scan *sc, const struct mg__scan_hit *v, size_t nv,
                   struct mg_err *err)
{
    if (nv == 0) return 0;
    for (size_t k = 0; k < nv; k++) {
        if (mg__scan_grow((void **)&sc->v, sc->n, &sc->cap, sizeof(struct mg__scan_hit)) != 0)
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory merging scanner findings");
        sc->v[sc->n++] = v[k];
    }
    keep_best(s, sc, false); /* (both sides were checked already) */
    return 0;
}
