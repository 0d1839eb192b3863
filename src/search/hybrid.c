/* hybrid.c — natural-language detection, semantic top k, rank fusion (see hybrid.h).
 *
 * Sections:
 *   1. natural language
 *   2. content words
 *   3. semantic
 *   4. reciprocal rank fusion
 */
#include "search/hybrid.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed/embed.h"
#include "search/chunkset.h"
#include "store/db.h"
#include "util/rrf.h"
#include "vector/vext.h"

/* ---- 1. natural language ------------------------------------------------------------------------ */

/* An identifier as code writes it: an underscore, or an inner capital
 * after a small letter (parseHeader). */
static bool code_word(const char *s, size_t n)
{
    if (memchr(s, '_', n)) return true;
    for (size_t i = 1; i < n; i++)
        if (isupper((unsigned char)s[i]) && islower((unsigned char)s[i - 1])) return true;
    return false;
}

bool mg_query_is_natural(const char *q)
{
    static const char code_punct[] = "()[]{}<>;=*&|\\/\"'`#$@^~";
    int words = 0, marks = 0; /* plain words; code punctuation and identifiers written as code */
    const char *p = q;
    while (*p) {
        unsigned char ch = (unsigned char)*p;
        if (strchr(code_punct, ch) || (ch == '-' && p[1] == '>') || (ch == ':' && p[1] == ':')) {
            marks++;
            p += (ch == '-' || ch == ':') ? 2 : 1;
            continue;
        }
        if (isalnum(ch) || ch >= 0x80 || ch == '_') {
            const char *s = p;
            while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || *p == '_')) p++;
            /* a dot joining two words (obj.field, file.c) is code, a version (7.0.2) or a full stop not */
            bool joined = *p == '.' && (isalnum((unsigned char)p[1]) || p[1] == '_') && !isdigit((unsigned char)*s);
            if (joined || code_word(s, (size_t)(p - s))) marks++;
            else words++;
            if (joined) { /* the rest of a.b.c is one mark */
                while (*p == '.' || isalnum((unsigned char)*p) || *p == '_') p++;
            }
            continue;
        }
        p++;
    }
    /* prose; or prose that names some code (a bug report): six plain words at least, three per mark */
    return words >= 3 && (marks == 0 || (words >= 6 && words >= 3 * marks));
}

const char *mg_query_word(const char **p, size_t *len)
{
    const char *s = *p;
    while (*s && !(isalnum((unsigned char)*s) || *s == '_')) s++;
    if (!*s) return NULL;
    const char *e = s;
    while (isalnum((unsigned char)*e) || *e == '_') e++;
    *p = e;
    *len = (size_t)(e - s);
    return s;
}

size_t mg_query_identifiers(const char *q, const char **start, size_t *len, size_t max)
{
    size_t n = 0;
    const char *s;
    size_t l;
    for (const char *p = q; n < max && (s = mg_query_word(&p, &l));) {
        while (l && s[0] == '_') s++, l--; /* _private and __attr__ name what they wrap */
        while (l && s[l - 1] == '_') l--;
        if (l < 4 || !code_word(s, l) || isdigit((unsigned char)*s)) continue;
        bool dup = false;
        for (size_t i = 0; i < n && !dup; i++) dup = len[i] == l && memcmp(start[i], s, l) == 0;
        if (dup) continue;
        start[n] = s;
        len[n++] = l;
    }
    return n;
}

/* ---- 2. content words --------------------------------------------------------------------------- */

/* English function words: they carry no topic, match most chunks, and make
 * the lexical half of a hybrid search slow. */
static const char *const stopwords[] = {
    "a", "about", "above", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "during",
    "each", "either", "etc", "every", "for", "from", "further", "had", "has", "have", "having", "here", "how",
    "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "may", "might", "more", "most",
    "much", "must", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other", "our",
    "out", "over", "own", "same", "shall", "should", "so", "some", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "through", "thus", "to", "too", "under",
    "until", "up", "upon", "us", "used", "uses", "using", "very", "via", "was", "we", "were", "what", "when",
    "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "would",
    "you", "your",
};

static bool is_stopword(const char *w, size_t n)
{
    char low[16];
    if (n >= sizeof(low)) return false;
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)w[i]);
    low[n] = 0;
    size_t a = 0, b = sizeof(stopwords) / sizeof(stopwords[0]);
    while (a < b) {
        size_t m = (a + b) / 2;
        int k = strcmp(stopwords[m], low);
        if (k == 0) return true;
        if (k < 0) a = m + 1;
        else b = m;
    }
    return false;
}

size_t mg_query_content_words(const char *q, size_t max, char *out, size_t cap)
{
    struct word { const char *s; size_t n; } w[64];
    size_t nw = 0;
    const char *p = q;
    if (cap == 0) return 0;
    while (*p && nw < sizeof(w) / sizeof(w[0])) {
        if (!(isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || *p == '_')) {
            p++;
            continue;
        }
        const char *s = p;
        while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || *p == '_')) p++;
        size_t n = (size_t)(p - s);
        bool dup = false;
        for (size_t i = 0; i < nw && !dup; i++) dup = w[i].n == n && strncasecmp(w[i].s, s, n) == 0;
        if (!dup && !is_stopword(s, n)) w[nw++] = (struct word){s, n};
    }
    /* past max words, the longest stay: long words are the rare, telling ones */
    while (max && nw > max) {
        size_t shortest = 0;
        for (size_t i = 1; i < nw; i++)
            if (w[i].n < w[shortest].n) shortest = i;
        memmove(&w[shortest], &w[shortest + 1], (nw - shortest - 1) * sizeof(w[0]));
        nw--;
    }
    size_t o = 0, words = 0;
    for (size_t i = 0; i < nw; i++) {
        if (o + w[i].n + 2 > cap) break;
        if (o) out[o++] = ' ';
        memcpy(out + o, w[i].s, w[i].n);
        o += w[i].n;
        words++;
    }
    out[o] = 0;
    return words;
}

/* ---- 3. semantic -------------------------------------------------------------------------------- */

/* The configured embedder, prepared for this repo (unless !prepare: a
 * preload embeds nothing), and its store; 0 or -1 (no_embeddings when the
 * repo's vectors are not the embedder's). */
static int open_semantic(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, bool prepare,
                         struct mg_embedder **e, struct mg_vstore **vs, int *dim, struct mg_err *err)
{
    *e = NULL;
    *vs = NULL;
    char sig[160], have[160] = "", kid[17], have_kid[32] = "";
    unsigned char key[MG_VKEY_BYTES];
    if (mg_embedder_open(cfg, e, err) != 0) return -1;
    if (!*e)
        return mg_err_set(err, MG_E_NO_EMBEDDINGS, "semantic search is off (embedder = none); set "
                          "MEMGATE_EMBEDDER=builtin, openai, voyage or ollama and index repo '%s' again", repo_id);
    mg_embedder_sig(*e, sig, sizeof(sig));
    mg_db_meta_get(d, "embed_sig", have, sizeof(have));
    if (strcmp(have, sig) != 0) {
        mg_err_set(err, MG_E_NO_EMBEDDINGS, "repo '%s' has no vectors from the configured embedder (%s; the repo "
                   "has %s); run `memgate index` on it", repo_id, sig, have[0] ? have : "none");
        goto fail;
    }
    if (!mg_idx_vectors_any(d)) {
        mg_err_set(err, MG_E_NO_EMBEDDINGS, "repo '%s' has no vectors yet (the last `memgate index` could not "
                   "embed it); run `memgate index` on it again", repo_id);
        goto fail;
    }
    char tenant[65]; /* the repo's owner: its vectors are sealed under that tenant's key */
    if (mg_db_meta_get(d, "tenant", tenant, sizeof(tenant)) != 0) snprintf(tenant, sizeof(tenant), "local");
    /* the store the vectors are in is the configured one (vector/vext.h; no row: the built-in one) */
    char vstore[700], have_vstore[700] = "builtin";
    mg_vext_sig(cfg, tenant, repo_id, vstore, sizeof(vstore));
    mg_db_meta_get(d, "vec_store", have_vstore, sizeof(have_vstore));
    if (strcmp(vstore, have_vstore) != 0) {
        mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' are in another vector store than "
                   "vector_store = %s names; run `memgate index` on it to embed it again", repo_id,
                   cfg->vector_store);
        goto fail;
    }
    if (mg_vkey_load(cfg, tenant, key, err) != 0) goto fail;
    mg_vkey_id(key, kid);
    mg_db_meta_get(d, "vec_key_id", have_kid, sizeof(have_kid));
    if (strcmp(kid, have_kid) != 0) {
        mg_err_set(err, MG_E_NO_EMBEDDINGS, "the vectors of repo '%s' were sealed with another key; run "
                   "`memgate index` on it to embed it again", repo_id);
        goto fail;
    }
    /* (an HTTP embedder learns its dimensions from the query's answer: no probe of its own) */
    *dim = (*e)->dim;
    if ((prepare && mg_embedder_prepare(*e, d, 0, err) != 0) || mg_vstore_open(cfg, d, repo_id, key, vs, err) != 0)
        goto fail;
    memset(key, 0, sizeof(key));
    return 0;
fail:
    memset(key, 0, sizeof(key));
    mg_embedder_free(e);
    return -1;
}

/* The query's vector; *dim: the embedder's dimensions if known (else 0), then its answer's. */
static int embed_query(struct mg_embedder *e, const char *text, int *dim, float **q, struct mg_err *err)
{
    *q = malloc((size_t)(*dim > 0 ? *dim : MG_EMBED_MAX_DIM) * sizeof(float));
    if (!*q) return mg_err_oom(err);
    const char *t[1] = {text};
    size_t l[1] = {strlen(text)};
    if (mg_embed(e, MG_EMBED_QUERY, t, l, 1, *q, err) != 0) {
        free(*q);
        *q = NULL;
        return -1;
    }
    *dim = e->dim;
    return 0;
}

struct mg_semantic_job {
    struct mg_embedder *e;
    struct mg_vstore *vs;
    struct mg_chunkset *sc;
    float *q;
    int dim, k;
    struct mg_vmatch *m; /* k */
    long n;
    struct mg_err err;
    pthread_t th;
    bool background; /* scanning on a thread of its own (set before it starts) */
    bool threaded;   /* ... which started */
};

static void job_free(struct mg_semantic_job *j)
{
    free(j->q);
    free(j->m);
    mg_chunkset_unref(j->sc);
    mg_vstore_close(&j->vs);
    mg_embedder_free(&j->e);
    free(j);
}

static void *job_run(void *arg)
{
    struct mg_semantic_job *j = arg;
    if (j->background) mg_vset_scan_spare(1); /* the caller searches on meanwhile */
    if (j->sc && j->sc->nr == 0) j->n = 0; /* nothing the filter allows */
    else j->n = j->vs->ops->search(j->vs, j->q, j->dim, j->sc ? j->sc->r : NULL, j->sc ? j->sc->nr : 0, j->k, j->m,
                                   &j->err);
    return NULL;
}

int mg_semantic_start(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *query,
                      const struct mg_filter *f, int k, bool background, struct mg_vload *loading,
                      struct mg_semantic_job **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_semantic_job *j = calloc(1, sizeof(*j));
    if (!j) return mg_err_oom(err);
    j->k = k > 0 ? k : 1;
    /* (with loading, the embedder is prepared only once the vectors are in memory) */
    if (open_semantic(cfg, d, repo_id, !loading, &j->e, &j->vs, &j->dim, err) != 0) {
        free(j);
        return -1;
    }
    if (loading && j->vs->ops->pin) { /* vectors not in memory yet: the caller goes on without them */
        int pr = j->vs->ops->pin(j->vs, false, NULL, 0, loading, err);
        if (pr != 0) {
            job_free(j);
            return pr;
        }
    }
    if (loading && mg_embedder_prepare(j->e, d, 0, err) != 0) goto fail;
    if (!(j->m = malloc((size_t)j->k * sizeof(*j->m)))) {
        mg_err_oom(err);
        goto fail;
    }
    if (embed_query(j->e, query, &j->dim, &j->q, err) != 0) goto fail;
    /* the scope picks the candidate files before any vector is scored */
    if (mg_filter_scoped(f) && mg_chunkset_get(d, f, &j->sc, err) != 0) goto fail;
    if (background && j->vs->ops->pin) {
        /* the scan needs memory only, once the vectors are pinned */
        if (j->vs->ops->pin(j->vs, true, j->q, j->dim, NULL, err) != 0) goto fail;
        j->background = true;
        j->threaded = pthread_create(&j->th, NULL, job_run, j) == 0;
        if (!j->threaded) j->background = false; /* (no thread: no race) */
    }
    if (!j->threaded) job_run(j);
    *out = j;
    return 0;
fail:
    job_free(j);
    return -1;
}

long mg_semantic_finish(struct mg_semantic_job *j, struct mg_vmatch *out, struct mg_err *err)
{
    if (j->threaded) pthread_join(j->th, NULL);
    long n = j->n;
    if (n < 0) *err = j->err;
    else if (out && n > 0) memcpy(out, j->m, (size_t)n * sizeof(*out));
    job_free(j);
    return n;
}

int mg_semantic_preload(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, struct mg_err *err)
{
    struct mg_embedder *e;
    struct mg_vstore *vs;
    int dim;
    if (open_semantic(cfg, d, repo_id, false, &e, &vs, &dim, err) != 0) return -1;
    struct mg_vload l;
    int rc = vs->ops->pin ? vs->ops->pin(vs, false, NULL, 0, &l, err) : 0;
    mg_vstore_close(&vs);
    mg_embedder_free(&e);
    return rc < 0 ? -1 : 0;
}

long mg_semantic_topk(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *query,
                      const struct mg_filter *f, int k, struct mg_vmatch *out, struct mg_err *err)
{
    struct mg_semantic_job *j;
    if (mg_semantic_start(cfg, d, repo_id, query, f, k, false, NULL, &j, err) != 0) return -1;
    return mg_semantic_finish(j, out, err);
}

int mg_semantic_score(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *text,
                      const int64_t *chunk_ids, size_t n, float *scores, struct mg_err *err)
{
    struct mg_embedder *e;
    struct mg_vstore *vs;
    int dim;
    if (open_semantic(cfg, d, repo_id, true, &e, &vs, &dim, err) != 0) return -1;
    float *q = NULL;
    int rc = embed_query(e, text, &dim, &q, err);
    if (rc == 0) rc = vs->ops->score(vs, q, dim, chunk_ids, n, scores, err);
    free(q);
    mg_vstore_close(&vs);
    mg_embedder_free(&e);
    return rc;
}

/* ---- 4. reciprocal rank fusion ------------------------------------------------------------------ */

struct fused {
    struct mg_hit h;
    double score;
    bool chunk;    /* h spans a chunk (lexical, semantic), not just a definition */
    bool named;    /* h's symbol and kind are a definition's that matched */
    int ranks[3];  /* its place in the lexical, semantic and symbol lists (1-based; 0: not there) */
};

/* Which of struct fused's ranks a list's mode fills, or -1. */
static int rank_slot(const char *mode)
{
    if (!mode) return -1;
    if (strcmp(mode, "lexical") == 0 || strcmp(mode, "fixed") == 0) return 0;
    if (strcmp(mode, "semantic") == 0) return 1;
    return strcmp(mode, "symbol") == 0 ? 2 : -1;
}

/* A chunk holding a matched definition takes its name and kind: a method
 * found in its class's chunk is named, not the class. The first (best)
 * definition wins. */
static void take_name(struct fused *f, struct mg_hit *def)
{
    if (f->named || !def->symbol) return;
    free(f->h.symbol);
    free(f->h.kind);
    f->h.symbol = def->symbol;
    f->h.kind = def->kind;
    def->symbol = def->kind = NULL;
    f->named = true;
}

static bool same_place(const struct fused *f, const struct mg_hit *h, bool chunk)
{
    if (strcmp(f->h.repo, h->repo) != 0 || strcmp(f->h.path, h->path) != 0) return false;
    if (chunk && f->chunk) return f->h.start_line == h->start_line && f->h.end_line == h->end_line;
    if (chunk) return f->h.start_line >= h->start_line && f->h.start_line <= h->end_line;
    if (f->chunk) return h->start_line >= f->h.start_line && h->start_line <= f->h.end_line;
    return f->h.start_line == h->start_line;
}

static int cmp_fused(const void *a, const void *b)
{
    const struct fused *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    int k = strcmp(x->h.path, y->h.path);
    return k ? k : x->h.start_line - y->h.start_line;
}

static void hit_release(struct mg_hit *h)
{
    mg_hit_release(h);
    memset(h, 0, sizeof(*h));
}

int mg_rrf_fuse(struct mg_results *const *lists, size_t nlists, int limit, const double *w, int k,
                struct mg_results *out)
{
    static const double w_default[5] = {1, 1, MG_RRF_SYMBOL_WEIGHT, MG_RRF_PATH_WEIGHT, MG_RRF_GRAPH_WEIGHT};
    if (!w) {
        w = w_default;
        k = MG_RRF_K;
    }
    size_t total = 0;
    for (size_t l = 0; l < nlists; l++) total += lists[l]->n;
    struct fused *v = calloc(total + 1, sizeof(*v));
    if (!v) return -1;
    size_t n = 0;
    for (size_t l = 0; l < nlists; l++) {
        struct mg_results *r = lists[l];
        /* symbol results are definitions; the others chunks, but path results whole files */
        bool chunk = !(r->mode && strcmp(r->mode, "symbol") == 0);
        bool graph = r->mode && strcmp(r->mode, "graph") == 0;
        bool path = graph || (r->mode && strcmp(r->mode, "path") == 0);
        int slot = rank_slot(r->mode);
        double weight = graph ? w[4] : path ? w[3] : slot >= 0 ? w[slot] : 1;
        if (weight <= 0) { /* left out */
            for (size_t i = 0; i < r->n; i++) hit_release(&r->v[i]);
            r->n = 0;
            continue;
        }
        if (path) {
            for (size_t i = 0; i < r->n; i++) { /* the file's best chunk so far rises; no file comes in alone */
                size_t best = n;
                for (size_t j = 0; j < n; j++)
                    if (strcmp(v[j].h.path, r->v[i].path) == 0 && strcmp(v[j].h.repo, r->v[i].repo) == 0 &&
                        (best == n || v[j].score > v[best].score))
                        best = j;
                if (best < n) v[best].score += mg_rrf(weight, k, (double)(i + 1));
                hit_release(&r->v[i]);
            }
            r->n = 0;
            continue;
        }
        for (size_t i = 0; i < r->n; i++) {
            struct mg_hit *h = &r->v[i];
            double s = mg_rrf(weight, k, (double)(i + 1));
            size_t j = 0;
            while (j < n && !same_place(&v[j], h, chunk)) j++;
            if (j < n && slot >= 0 && !v[j].ranks[slot]) v[j].ranks[slot] = (int)i + 1;
            else if (j == n && slot >= 0) v[n].ranks[slot] = (int)i + 1;
            if (j < n) {
                v[j].score += s;
                if (chunk && !v[j].chunk) { /* the chunk reads better than the definition alone */
                    struct mg_hit def = v[j].h;
                    v[j].h = *h;
                    v[j].chunk = true;
                    v[j].named = false;
                    memset(h, 0, sizeof(*h));
                    take_name(&v[j], &def);
                    hit_release(&def);
                } else {
                    if (!chunk && v[j].chunk) take_name(&v[j], h);
                    hit_release(h);
                }
            } else {
                v[n].h = *h;
                v[n].score = s;
                v[n].chunk = chunk;
                v[n].named = !chunk;
                memset(h, 0, sizeof(*h));
                n++;
            }
        }
        r->n = 0;
    }
    qsort(v, n, sizeof(*v), cmp_fused);
    int rc = 0;
    for (size_t j = 0; j < n; j++) {
        if ((int)j >= limit || rc != 0) {
            hit_release(&v[j].h);
            continue;
        }
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 32;
            struct mg_hit *nv = realloc(out->v, cap * sizeof(*nv));
            if (!nv) {
                rc = -1;
                hit_release(&v[j].h);
                continue;
            }
            out->v = nv;
            out->cap = cap;
        }
        v[j].h.score = v[j].score;
        v[j].h.rank_lexical = v[j].ranks[0];
        v[j].h.rank_semantic = v[j].ranks[1];
        v[j].h.rank_symbol = v[j].ranks[2];
        out->v[out->n++] = v[j].h;
    }
    free(v);
    return rc;
}
