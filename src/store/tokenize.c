/* tokenize.c — identifier-aware tokens and the FTS5 "mgcode" tokenizer.
 *
 * Sections:
 *   1. tokens — words and their identifier parts (camelCase, snake_case, digits)
 *   2. query expressions — the FTS5 query for a text
 *   3. token streams — the text stored for the FTS index
 *   4. FTS5 glue — the "mgcode" tokenizer
 */
#include "store/tokenize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/simd.h"

/* ---- 1. tokens ----------------------------------------------------------- */

/* byte classes: a word byte (ASCII letters, digits, '_', bytes >= 0x80), and what makes a word have parts */
enum { C_WORD = 1, C_SPLIT = 2 /* '_' or an upper-case letter */ };
static const unsigned char byte_class[256] = {
    ['0' ... '9'] = C_WORD, ['a' ... 'z'] = C_WORD, ['A' ... 'Z'] = C_WORD | C_SPLIT, ['_'] = C_WORD | C_SPLIT,
    [0x80 ... 0xff] = C_WORD,
};
static inline bool is_word(unsigned char c) { return byte_class[c] & C_WORD; }
static inline bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static inline bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static inline char lower(unsigned char c) { return (char)(is_upper(c) ? c + 32 : c); }

static size_t lower_copy(char *dst, const char *src, size_t n)
{
    if (n > MG_TOKEN_MAX) n = MG_TOKEN_MAX;
    for (size_t i = 0; i < n; i++) dst[i] = lower((unsigned char)src[i]);
    dst[n] = 0;
    return n;
}

/* The parts of the word w[0..n) into starts/ends (at most MG_PARTS): split
 * at '_', at lower->Upper, at Upper->Upper+lower. Their number; 0 when the
 * word has no inner structure (one part, the whole word). */
#define MG_PARTS 64
static size_t split_parts(const char *w, size_t n, size_t *starts, size_t *ends)
{
    size_t np = 0, i = 0;
    while (i < n && np < MG_PARTS) {
        while (i < n && w[i] == '_') i++;
        if (i >= n) break;
        size_t s = i++;
        while (i < n && w[i] != '_') {
            unsigned char p = (unsigned char)w[i - 1], c = (unsigned char)w[i];
            if (is_upper(c) && (is_lower(p) || (p >= '0' && p <= '9'))) break;
            if (is_upper(p) && is_upper(c) && i + 1 < n && is_lower((unsigned char)w[i + 1])) break;
            i++;
        }
        starts[np] = s;
        ends[np] = i;
        np++;
    }
    return np == 1 && starts[0] == 0 && ends[0] == n ? 0 : np;
}

/* Emit the word w[0..n) (at text offset off), and its parts unless whole_only. */
static int emit_word(const char *w, size_t n, size_t off, mg_token_cb cb, void *ctx, bool whole_only)
{
    char tok[MG_TOKEN_MAX + 1];
    size_t tl = lower_copy(tok, w, n);
    int rc = cb(ctx, tok, tl, off, off + n, false);
    if (rc || whole_only) return rc;
    size_t starts[MG_PARTS], ends[MG_PARTS], np = split_parts(w, n, starts, ends);
    for (size_t k = 0; k < np; k++) {
        char part[MG_TOKEN_MAX + 1];
        size_t pl = lower_copy(part, w + starts[k], ends[k] - starts[k]);
        rc = cb(ctx, part, pl, off, off + n, k == 0);
        if (rc) return rc;
    }
    return 0;
}

/* The next word of t[0..len) at or after *i: its start, *i its end (both len: none); *seen its bytes'
 * classes or'ed. */
static size_t next_word(const char *text, size_t len, size_t *i, unsigned *seen)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t k = *i;
    while (k < len && !is_word(t[k])) k++;
    size_t s = k;
    unsigned m = 0;
    while (k < len && is_word(t[k])) m |= byte_class[t[k++]];
    *i = k;
    *seen = m;
    return s;
}

static int tokenize(const char *text, size_t len, mg_token_cb cb, void *ctx, bool whole_only)
{
    size_t i = 0;
    unsigned seen;
    while (i < len) {
        size_t s = next_word(text, len, &i, &seen);
        if (i > s) {
            int rc = emit_word(text + s, i - s, s, cb, ctx, whole_only);
            if (rc) return rc;
        }
    }
    return 0;
}

bool mg_token_is_number(const char *t, size_t n)
{
    size_t i = 0;
    if (n > 2 && t[0] == '0' && t[1] == 'x') {
        for (i = 2; i < n; i++)
            if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f'))) return false;
        return true;
    }
    for (; i < n; i++)
        if (t[i] < '0' || t[i] > '9') return false;
    return true;
}

int mg_tokenize(const char *text, size_t len, mg_token_cb cb, void *ctx)
{
    return tokenize(text, len, cb, ctx, false);
}

/* ---- token counts ---- */

static uint32_t hash_lower(const char *w, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)lower((unsigned char)w[i])) * 16777619u;
    return h;
}

int mg_token_counter_init(struct mg_token_counter *c, const char *const *toks, const size_t *lens, size_t n)
{
    memset(c, 0, sizeof(*c));
    memset(c->slot, -1, sizeof(c->slot));
    if (n > MG_COUNT_TOKENS) return -1;
    for (size_t k = 0; k < n; k++) {
        if (lens[k] == 0 || lens[k] > MG_TOKEN_MAX) return -1;
        c->tok[k] = toks[k];
        c->len[k] = (unsigned char)lens[k];
        c->lens |= 1ull << (lens[k] - 1);
        c->first[(unsigned char)toks[k][0] >> 6] |= 1ull << ((unsigned char)toks[k][0] & 63);
        unsigned i = hash_lower(toks[k], lens[k]) & (MG_COUNT_SLOTS - 1);
        while (c->slot[i] >= 0) i = (i + 1) & (MG_COUNT_SLOTS - 1);
        c->slot[i] = (signed char)k;
    }
    c->n = n;
    return 0;
}

/* w[0..n) (its first MG_TOKEN_MAX bytes, as a token is cut) counted if it is one of c's tokens */
static inline void count_one(const struct mg_token_counter *c, uint64_t which, const char *w, size_t n,
                             double *counts)
{
    if (n > MG_TOKEN_MAX) n = MG_TOKEN_MAX;
    unsigned char f = (unsigned char)lower((unsigned char)w[0]);
    if (!(c->lens >> (n - 1) & 1) || !(c->first[f >> 6] >> (f & 63) & 1)) return;
    for (unsigned i = hash_lower(w, n) & (MG_COUNT_SLOTS - 1); c->slot[i] >= 0; i = (i + 1) & (MG_COUNT_SLOTS - 1)) {
        int k = c->slot[i];
        if (c->len[k] != n) continue;
        size_t j = 0;
        while (j < n && lower((unsigned char)w[j]) == c->tok[k][j]) j++;
        if (j == n) {
            if (which >> k & 1) counts[k] += 1;
            return;
        }
    }
}

/* Count the word w[0..n) (its whole form and its parts); seen: its bytes' classes or'ed. */
static void count_word(const struct mg_token_counter *c, uint64_t which, const char *w, size_t n, unsigned seen,
                       double *counts)
{
    count_one(c, which, w, n, counts);
    if (!(seen & C_SPLIT)) return; /* no '_' and no capital: the word is its only part */
    size_t starts[MG_PARTS], ends[MG_PARTS], np = split_parts(w, n, starts, ends);
    for (size_t k = 0; k < np; k++) count_one(c, which, w + starts[k], ends[k] - starts[k], counts);
}

/* Word by word. */
static void count_all(const struct mg_token_counter *c, uint64_t which, const char *text, size_t len,
                      double *counts)
{
    size_t i = 0;
    unsigned seen;
    while (i < len) {
        size_t s = next_word(text, len, &i, &seen);
        if (i > s) count_word(c, which, text + s, i - s, seen, counts);
    }
}


static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

void mg_token_lower(char *dst, const char *text, size_t n)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) { /* 16 bytes at a time (SSE2, NEON): 'A'..'Z' are the bytes b with b - 'A' < 26 */
        mg_v16 v;
        memcpy(&v, t + i, 16);
        v += (mg_v16)((mg_v16)(v - 'A') < 26) & 32;
        memcpy(dst + i, &v, 16);
    }
    for (; i < n; i++) dst[i] = lower(t[i]);
}

/* The first place of needle[0..nn) in hay[0..hn), or NULL: 16 places at a
 * time tested on the needle's first and last bytes (SSE2 or NEON), then the
 * bytes between compared; glibc's memmem is a scalar loop, and the whole-file
 * rescore looks up each query word in every chunk it counts. nn >= 1. */
static const char *find_bytes(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (hn < nn) return NULL;
    if (nn == 1) return memchr(hay, needle[0], hn);
    const unsigned char *h = (const unsigned char *)hay;
    size_t last = nn - 1, places = hn - nn + 1, i = 0;
    mg_v16 first = (mg_v16){0} + (unsigned char)needle[0], end = (mg_v16){0} + (unsigned char)needle[last];
    for (; i + 16 <= places; i += 16) {
        mg_v16 a, b;
        memcpy(&a, h + i, 16);
        memcpy(&b, h + i + last, 16); /* (i + 15 + last < hn) */
        mg_v16 m = (mg_v16)(a == first) & (mg_v16)(b == end);
        for (unsigned bits = mg_v16_bits(m); bits; bits &= bits - 1) {
            size_t at = i + (size_t)__builtin_ctz(bits);
            if (memcmp(h + at + 1, needle + 1, nn - 2) == 0) return hay + at;
        }
    }
    for (; i < places; i++)
        if (h[i] == (unsigned char)needle[0] && memcmp(h + i + 1, needle + 1, nn - 1) == 0) return hay + i;
    return NULL;
}

/* The words holding one of the tokens in which as a substring of their lowercased bytes: every
 * token, whole word or part, is its word's bytes lowercased (or their first MG_TOKEN_MAX), so no
 * other word counts. Each token is looked for (find_bytes) in the text lowercased (buf, len bytes),
 * and each word found is counted once. */
static void count_substr(const struct mg_token_counter *c, uint64_t which, const char *text, size_t len,
                         const char *buf, double *counts)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t nstarts = 0, cap = 64;
    size_t one[64], *starts = one; /* the words' starts found (sorted and deduplicated below) */
    for (uint64_t w = which; w; w &= w - 1) {
        int k = __builtin_ctzll(w);
        const char *p = buf, *end = buf + len;
        while ((size_t)(end - p) >= c->len[k] && (p = find_bytes(p, (size_t)(end - p), c->tok[k], c->len[k]))) {
            size_t s = (size_t)(p - buf), e = s + c->len[k];
            while (s > 0 && is_word(t[s - 1])) s--;
            while (e < len && is_word(t[e])) e++;
            if (nstarts == cap) {
                size_t *g = malloc(2 * cap * sizeof(*g));
                if (!g) break; /* (out of memory: the words found so far) */
                memcpy(g, starts, nstarts * sizeof(*g));
                if (starts != one) free(starts);
                starts = g, cap *= 2;
            }
            starts[nstarts++] = s;
            p = buf + e; /* the next word */
        }
    }
    /* each word once, in order */
    if (nstarts > 1) qsort(starts, nstarts, sizeof(*starts), cmp_size);
    for (size_t i = 0; i < nstarts; i++) {
        if (i && starts[i] == starts[i - 1]) continue;
        size_t s = starts[i], e = s;
        unsigned seen = 0;
        while (e < len && is_word(t[e])) seen |= byte_class[t[e++]];
        count_word(c, which, text + s, e - s, seen, counts);
    }
    if (starts != one) free(starts);
}

void mg_token_count(const struct mg_token_counter *c, uint64_t which, const char *text, const char *low, size_t len,
                    double *counts)
{
    which &= c->n < 64 ? (1ull << c->n) - 1 : ~0ull;
    if (!which) return;
    if (__builtin_popcountll(which) <= MG_COUNT_SUBSTR) { /* few tokens: each looked for as bytes */
        if (low) {
            count_substr(c, which, text, len, low, counts);
            return;
        }
        char stack[16384], *buf = len <= sizeof(stack) ? stack : malloc(len);
        if (buf) {
            mg_token_lower(buf, text, len);
            count_substr(c, which, text, len, buf, counts);
            if (buf != stack) free(buf);
            return;
        }
    }
    count_all(c, which, text, len, counts);
}

bool mg_token_marks(const char *const *toks, size_t n, const char *low, size_t len, char *mark)
{
    if (n > MG_COUNT_SUBSTR) return false;
    memset(mark, 0, len);
    for (size_t k = 0; k < n; k++) {
        const char *p = low, *end = low + len;
        size_t tl = strlen(toks[k]);
        while (tl && (size_t)(end - p) >= tl && (p = find_bytes(p, (size_t)(end - p), toks[k], tl))) {
            mark[p - low] = 1;
            p++;
        }
    }
    return true;
}

/* ---- 2. query expressions ------------------------------------------------ */

struct qctx {
    struct mg_buf *b;
    bool whole_only; /* words only, no parts */
    bool tsq;        /* PostgreSQL's tsquery syntax, not FTS5's */
    const char *op;  /* between words */
    size_t words;
    size_t word_start;
    size_t nparts;   /* parts seen of the current word */
    size_t mark;     /* b->len before the current word's parts */
};

/* close the current word: `("whole" OR ("p1" AND "p2"))`, or just `"whole"` */
static void close_word(struct qctx *q)
{
    if (q->words == 0) return;
    if (q->nparts) mg_buf_adds(q->b, "))");
}

/* A token quoted: FTS5's "..." ("" inside), or tsquery's '...' ('' and \\
 * inside). Tokens hold neither quotes nor backslashes (is_word); quoting
 * them anyway keeps the text of a query out of the syntax whatever it is. */
static void add_quoted(struct qctx *q, const char *tok, size_t len)
{
    char qc = q->tsq ? '\'' : '"';
    mg_buf_addc(q->b, qc);
    for (size_t i = 0; i < len; i++) {
        if (tok[i] == qc) mg_buf_addc(q->b, qc);
        else if (q->tsq && tok[i] == '\\') mg_buf_addc(q->b, '\\');
        mg_buf_addc(q->b, tok[i]);
    }
    mg_buf_addc(q->b, qc);
}

static int query_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct qctx *q = ctx;
    if (!colocated && !(q->words && s == q->word_start)) {
        /* a new word: its whole form */
        close_word(q);
        if (q->words++) mg_buf_addf(q->b, " %s ", q->op);
        q->word_start = s;
        q->nparts = 0;
        q->mark = q->b->len;
        add_quoted(q, tok, len);
        return 0;
    }
    if (q->whole_only) return 0;
    /* a part of the current word; the first one opens the word's group */
    if (q->nparts == 0 && mg_buf_addc(q->b, ' ') == 0) {
        memmove(q->b->p + q->mark + 1, q->b->p + q->mark, q->b->len - 1 - q->mark);
        q->b->p[q->mark] = '(';
    }
    if (q->tsq) mg_buf_adds(q->b, q->nparts++ ? " & " : " | (");
    else mg_buf_adds(q->b, q->nparts++ ? " AND " : " OR (");
    add_quoted(q, tok, len);
    return 0;
}

size_t mg_fts_query(const char *text, size_t len, unsigned flags, struct mg_buf *b)
{
    bool tsq = (flags & MG_FTS_TSQUERY) != 0;
    const char *op = (flags & MG_FTS_ANY) ? (tsq ? "|" : "OR") : (tsq ? "&" : "AND");
    struct qctx q = {b, (flags & MG_FTS_WHOLE) != 0, tsq, op, 0, 0, 0, 0};
    size_t start = b->len;
    mg_buf_addc(b, '(');
    tokenize(text, len, query_cb, &q, false);
    close_word(&q);
    if (q.words == 0) {
        b->len = start;
        if (b->p) b->p[start] = 0;
        return 0;
    }
    mg_buf_addc(b, ')');
    return q.words;
}

/* ---- 3. token streams ---------------------------------------------------- */

struct mg_token_set {
    uint32_t *slots;   /* offset+1 into the output buffer of a token, 0 = empty */
    uint32_t *used;    /* slots to clear */
    size_t nslots, nused;
    struct mg_buf *out;
    size_t base;       /* out->len when the stream began */
    int oom;
};

struct mg_token_set *mg_token_set_new(void)
{
    struct mg_token_set *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->nslots = 1 << 12;
    s->slots = calloc(s->nslots, sizeof(uint32_t));
    s->used = malloc(s->nslots * sizeof(uint32_t));
    if (!s->slots || !s->used) mg_token_set_free(&s);
    return s;
}

void mg_token_set_free(struct mg_token_set **ps)
{
    struct mg_token_set *s = *ps;
    if (!s) return;
    free(s->slots);
    free(s->used);
    free(s);
    *ps = NULL;
}

static uint32_t tok_hash(const char *t, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)t[i]) * 16777619u;
    return h;
}

static int grow_set(struct mg_token_set *s)
{
    size_t n = s->nslots * 2;
    uint32_t *slots = calloc(n, sizeof(uint32_t)), *used = malloc(n * sizeof(uint32_t));
    if (!slots || !used) {
        free(slots);
        free(used);
        return -1;
    }
    size_t nu = 0;
    for (size_t i = 0; i < s->nused; i++) {
        uint32_t off = s->slots[s->used[i]] - 1;
        const char *t = s->out->p + off;
        size_t tl = strcspn(t, " ");
        size_t j = tok_hash(t, tl) & (n - 1);
        while (slots[j]) j = (j + 1) & (n - 1);
        slots[j] = off + 1;
        used[nu++] = (uint32_t)j;
    }
    free(s->slots);
    free(s->used);
    s->slots = slots;
    s->used = used;
    s->nslots = n;
    return 0;
}

static int stream_cb(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated)
{
    struct mg_token_set *s = ctx;
    if ((s->nused + 1) * 2 > s->nslots && grow_set(s) != 0) return s->oom = 1;
    size_t mask = s->nslots - 1, j = tok_hash(tok, len) & mask;
    while (s->slots[j]) {
        const char *t = s->out->p + s->slots[j] - 1;
        if (strncmp(t, tok, len) == 0 && (t[len] == ' ' || t[len] == 0)) return 0; /* seen */
        j = (j + 1) & mask;
    }
    size_t off = s->out->len + (s->out->len > s->base);
    if ((s->out->len > s->base && mg_buf_addc(s->out, ' ') != 0) || mg_buf_add(s->out, tok, len) != 0)
        return s->oom = 1;
    s->slots[j] = (uint32_t)off + 1;
    s->used[s->nused++] = (uint32_t)j;
    return 0;
}

int mg_token_stream(struct mg_token_set *s, const char *text, size_t len, struct mg_buf *out)
{
    s->out = out;
    s->base = out->len;
    s->oom = 0;
    if (out->len >= UINT32_MAX - len * 2) return -1;
    mg_tokenize(text, len, stream_cb, s);
    for (size_t i = 0; i < s->nused; i++) s->slots[s->used[i]] = 0;
    s->nused = 0;
    return s->oom ? -1 : 0;
}

/* ---- 4. FTS5 glue -------------------------------------------------------- */

struct fts_ctx {
    void *pCtx;
    int (*xToken)(void *, int, const char *, int, int, int);
};

static int fts_cb(void *ctx, const char *tok, size_t len, size_t start, size_t end, bool colocated)
{
    struct fts_ctx *c = ctx;
    return c->xToken(c->pCtx, colocated ? FTS5_TOKEN_COLOCATED : 0, tok, (int)len, (int)start, (int)end);
}

static int tok_create(void *ud, const char **az, int n, Fts5Tokenizer **out)
{
    static int dummy;
    *out = (Fts5Tokenizer *)&dummy;
    return SQLITE_OK;
}

static void tok_delete(Fts5Tokenizer *t) {}

static int tok_tokenize(Fts5Tokenizer *t, void *pCtx, int flags, const char *text, int n,
                        int (*xToken)(void *, int, const char *, int, int, int))
{
    if (n <= 0) return SQLITE_OK;
    if (flags & FTS5_TOKENIZE_DOCUMENT) {
        /* a token stream: split at spaces */
        int i = 0;
        while (i < n) {
            int s = i;
            while (i < n && text[i] != ' ') i++;
            if (i > s) {
                int rc = xToken(pCtx, text[s] == MG_TOKEN_MARK && s > 0 ? FTS5_TOKEN_COLOCATED : 0, text + s, i - s, s, i);
                if (rc) return rc;
            }
            i++;
        }
        return SQLITE_OK;
    }
    /* a query string: one token per whole word; mg_fts_query spells out
     * the parts itself. A mark is one token. */
    if (text[0] == MG_TOKEN_MARK) return xToken(pCtx, 0, text, n < MG_TOKEN_MAX + 1 ? n : MG_TOKEN_MAX + 1, 0, n);
    struct fts_ctx c = {pCtx, xToken};
    return tokenize(text, (size_t)n, fts_cb, &c, true);
}

static fts5_api *fts5_api_of(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    return api;
}

int mg_tokenizer_register(sqlite3 *db)
{
    fts5_api *api = fts5_api_of(db);
    if (!api) return -1;
    static fts5_tokenizer tk = {tok_create, tok_delete, tok_tokenize};
    return api->xCreateTokenizer(api, "mgcode", NULL, &tk, NULL) == SQLITE_OK ? 0 : -1;
}
