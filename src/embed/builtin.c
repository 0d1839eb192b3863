/* builtin.c — the `builtin` embedder: local, deterministic, no model file.
 *
 * A text's features are the code tokens of tokenize.h (whole identifiers
 * and their sub-words: spin_lock_irqsave gives spin_lock_irqsave, spin,
 * lock, irqsave), lower-cased, without numbers; and for words of six or
 * more letters a five-letter stem ("schedul" and "scheduling" share
 * "sched"), at half weight. Each feature weighs (1 + ln tf) * idf, where
 * the document frequencies are learned from the repo's own stored chunks
 * (a sample of up to SAMPLE_BYTES of text, taken on the first embedding run
 * and kept in the repo's embed_model table), so words common in this corpus
 * ("return", "struct", "the") count little and its rare words much. The
 * weighted features are hashed into DIM dimensions (two signed buckets per
 * feature) and the vector is normalised: the cosine of two vectors
 * approximates the TF-IDF cosine of the texts, across spellings.
 *
 * Sections:
 *   1. the model
 *   2. features
 *   3. document frequencies
 *   4. the vtable
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "embed/embed.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "store/tokenize.h"

#define DIM 256
#define MODEL "hash256-idf-v1"
#define SAMPLE_BYTES (24u << 20)
#define STATS_VERSION 1u
#define STEM_LEN 5

/* ---- 1. the model ------------------------------------------------------------------------------- */

struct stats {
    uint64_t *h;     /* feature hashes, ascending */
    uint32_t *df;
    size_t n;
    uint32_t ndocs;  /* chunks sampled */
    /* for embedding: idf by hash, open addressing (h == 0 empty) */
    struct idf_slot { uint64_t h; float idf; } *tab;
    size_t mask;
    float idf_unseen;
};

struct builtin {
    struct stats st;
};

/* The statistics a process loaded last, by database and vec_gen: a query
 * embeds one text, and should not rebuild a table of 100,000 words for it. */
static struct {
    char key[4200];
    struct stats st;
} last;
static pthread_mutex_t last_mu = PTHREAD_MUTEX_INITIALIZER;

static int stats_copy(struct stats *dst, const struct stats *src)
{
    *dst = *src;
    dst->h = NULL;
    dst->df = NULL;
    dst->tab = NULL;
    if (src->tab && !(dst->tab = malloc((src->mask + 1) * sizeof(*dst->tab)))) return -1;
    if (src->tab) memcpy(dst->tab, src->tab, (src->mask + 1) * sizeof(*dst->tab));
    dst->n = 0; /* embedding needs only the table */
    return 0;
}

__attribute__((destructor)) static void last_drop(void)
{
    free(last.st.h);
    free(last.st.df);
    free(last.st.tab);
}

/* ---- 2. features -------------------------------------------------------------------------------- */

struct feat {
    uint64_t h;
    float w;   /* base weight: 1 for a token, 0.5 for a stem */
    uint32_t tf;
};

struct fset {
    struct feat *v;  /* open addressing, h == 0 empty */
    uint32_t *used;  /* the occupied slots, in insertion order */
    size_t cap, n;
};

static void fset_release(struct fset *s)
{
    free(s->v);
    free(s->used);
    memset(s, 0, sizeof(*s));
}

/* Empty the set, with room for about want features. Only occupied slots
 * are cleared, so a big table costs nothing for a small text. */
static int fset_reset(struct fset *s, size_t want)
{
    size_t cap = 64;
    while (cap < want * 2) cap *= 2;
    if (cap > s->cap) {
        fset_release(s);
        s->v = calloc(cap, sizeof(*s->v));
        s->used = malloc(cap / 2 * sizeof(uint32_t));
        if (!s->v || !s->used) {
            fset_release(s);
            return -1;
        }
        s->cap = cap;
    } else {
        for (size_t i = 0; i < s->n; i++) s->v[s->used[i]].h = 0;
    }
    s->n = 0;
    return 0;
}

static int fset_add(struct fset *s, uint64_t h, float w)
{
    if (h == 0) h = 1;
    if ((s->n + 1) * 2 > s->cap) {
        struct fset bigger = {0};
        if (fset_reset(&bigger, s->cap) != 0) return -1;
        for (size_t i = 0; i < s->n; i++) {
            const struct feat *f = &s->v[s->used[i]];
            size_t j = (size_t)f->h & (bigger.cap - 1);
            while (bigger.v[j].h) j = (j + 1) & (bigger.cap - 1);
            bigger.v[j] = *f;
            bigger.used[bigger.n++] = (uint32_t)j;
        }
        fset_release(s);
        *s = bigger;
    }
    size_t j = (size_t)h & (s->cap - 1);
    while (s->v[j].h && s->v[j].h != h) j = (j + 1) & (s->cap - 1);
    if (!s->v[j].h) {
        s->v[j] = (struct feat){h, w, 0};
        s->used[s->n++] = (uint32_t)j;
    }
    s->v[j].tf++;
    return 0;
}

static bool all_letters(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((t[i] >= 'a' && t[i] <= 'z') || (unsigned char)t[i] >= 0x80)) return false;
    return true;
}

static int feat_cb(void *ctx, const char *tok, size_t len, size_t s, size_t e, bool colocated)
{
    struct fset *fs = ctx;
    if (len < 2 || mg_token_is_number(tok, len)) return 0;
    if (fset_add(fs, XXH3_64bits(tok, len), 1.0f) != 0) return 1;
    if (len > STEM_LEN && all_letters(tok, len) && fset_add(fs, XXH3_64bits_withSeed(tok, STEM_LEN, 5), 0.5f) != 0)
        return 1;
    return 0;
}

static int featurize(struct fset *fs, const char *text, size_t len)
{
    if (fset_reset(fs, len / 8 + 16) != 0) return -1;
    return mg_tokenize(text, len, feat_cb, fs) != 0 ? -1 : 0;
}

/* ---- 3. document frequencies -------------------------------------------------------------------- */

static float idf_of(const struct stats *st, uint32_t df)
{
    double n = st->ndocs ? st->ndocs : 1;
    return (float)(log((n + 1.0) / ((double)df + 0.5)) + 0.5);
}

static float idf(const struct stats *st, uint64_t h)
{
    if (!st->tab) return st->idf_unseen;
    size_t j = (size_t)h & st->mask;
    while (st->tab[j].h) {
        if (st->tab[j].h == h) return st->tab[j].idf;
        j = (j + 1) & st->mask;
    }
    return st->idf_unseen; /* unseen: as rare as seen once */
}

/* The lookup table of idf by hash, from the sorted arrays. */
static int stats_index(struct stats *st)
{
    st->idf_unseen = idf_of(st, 1);
    size_t cap = 16;
    while (cap < st->n * 2) cap *= 2;
    st->tab = calloc(cap, sizeof(*st->tab));
    if (!st->tab) return -1;
    st->mask = cap - 1;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t h = st->h[i] ? st->h[i] : 1;
        size_t j = (size_t)h & st->mask;
        while (st->tab[j].h) j = (j + 1) & st->mask;
        st->tab[j] = (struct idf_slot){h, idf_of(st, st->df[i])};
    }
    return 0;
}

static void stats_release(struct stats *st)
{
    free(st->h);
    free(st->df);
    free(st->tab);
    memset(st, 0, sizeof(*st));
}

/* blob: u32 version, u32 ndocs, u64 n, then n u64 hashes, n u32 dfs */
static int stats_load(struct stats *st, const void *blob, size_t len)
{
    const unsigned char *p = blob;
    uint32_t ver, ndocs;
    uint64_t n;
    if (len < 16) return -1;
    memcpy(&ver, p, 4);
    memcpy(&ndocs, p + 4, 4);
    memcpy(&n, p + 8, 8);
    if (ver != STATS_VERSION || n > (len - 16) / 12 || 16 + n * 12 != len) return -1;
    st->h = malloc((n + 1) * 8);
    st->df = malloc((n + 1) * 4);
    if (!st->h || !st->df) {
        stats_release(st);
        return -1;
    }
    memcpy(st->h, p + 16, n * 8);
    memcpy(st->df, p + 16 + n * 8, n * 4);
    st->n = n;
    st->ndocs = ndocs;
    if (stats_index(st) != 0) {
        stats_release(st);
        return -1;
    }
    return 0;
}

struct dfmap {
    uint64_t *h;
    uint32_t *c;
    size_t cap, n;
};

static int dfmap_add(struct dfmap *m, uint64_t h)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1 << 16;
        uint64_t *nh = calloc(cap, 8);
        uint32_t *nc = calloc(cap, 4);
        if (!nh || !nc) {
            free(nh);
            free(nc);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->h[i]) {
                size_t j = (size_t)m->h[i] & (cap - 1);
                while (nh[j]) j = (j + 1) & (cap - 1);
                nh[j] = m->h[i];
                nc[j] = m->c[i];
            }
        free(m->h);
        free(m->c);
        m->h = nh;
        m->c = nc;
        m->cap = cap;
    }
    size_t j = (size_t)h & (m->cap - 1);
    while (m->h[j] && m->h[j] != h) j = (j + 1) & (m->cap - 1);
    if (!m->h[j]) {
        m->h[j] = h;
        m->n++;
    }
    m->c[j]++;
    return 0;
}

struct pair {
    uint64_t h;
    uint32_t c;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return x->h < y->h ? -1 : x->h > y->h;
}

/* Learn document frequencies from a sample of the stored chunks. */
static int stats_learn(struct mg_db *d, struct stats *st, struct mg_err *err)
{
    struct mg_idx_cur files = {0}, chunks = {0};
    struct mg_idx_row fr, cr;
    struct dfmap m = {0};
    struct fset fs = {0};
    struct pair *pairs = NULL;
    unsigned char *blob = NULL;
    int rc = -1;
    uint64_t total = 0;
    mg_idx_totals(d, NULL, &total, NULL, NULL);
    int64_t stride = (int64_t)total / SAMPLE_BYTES + 1;
    if (mg_idx_files_sampled(d, stride, &files, err) != 0) goto out;
    uint32_t ndocs = 0;
    while (mg_idx_next(&files, &fr) > 0) {
        char *text;
        size_t len;
        if (mg_idx_text(&fr, (size_t)fr.size, &text, &len) != 0)
            continue; /* a corrupt file is reported by the pass that reads it for good */
        const char *path = fr.path;
        if (mg_idx_chunks(d, fr.chunk_lo, fr.chunk_hi, &chunks, err) != 0) {
            free(text);
            goto out;
        }
        while (mg_idx_next(&chunks, &cr) > 0) {
            size_t s = (size_t)cr.start_byte, e = (size_t)cr.end_byte;
            if (e > len || s > e) continue;
            if (featurize(&fs, text + s, e - s) != 0 || mg_tokenize(path, strlen(path), feat_cb, &fs) != 0) {
                free(text);
                mg_err_set(err, MG_E_NO_MEMORY, "out of memory learning embedding statistics");
                goto out;
            }
            for (size_t i = 0; i < fs.n; i++)
                if (dfmap_add(&m, fs.v[fs.used[i]].h) != 0) {
                    free(text);
                    mg_err_set(err, MG_E_NO_MEMORY, "out of memory learning embedding statistics");
                    goto out;
                }
            ndocs++;
        }
        mg_idx_done(&chunks);
        free(text);
    }
    mg_idx_done(&files);
    size_t n = 0;
    pairs = malloc((m.n + 1) * sizeof(*pairs));
    if (!pairs) {
        mg_err_oom(err);
        goto out;
    }
    for (size_t i = 0; i < m.cap; i++)
        if (m.h[i] && m.c[i] >= 2) pairs[n++] = (struct pair){m.h[i], m.c[i]};
    qsort(pairs, n, sizeof(*pairs), cmp_pair);
    size_t blen = 16 + n * 12;
    blob = malloc(blen);
    st->h = malloc((n + 1) * 8);
    st->df = malloc((n + 1) * 4);
    if (!blob || !st->h || !st->df) {
        mg_err_oom(err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        st->h[i] = pairs[i].h;
        st->df[i] = pairs[i].c;
    }
    st->n = n;
    st->ndocs = ndocs;
    if (stats_index(st) != 0) {
        mg_err_oom(err);
        goto out;
    }
    uint32_t ver = STATS_VERSION;
    uint64_t n64 = n;
    memcpy(blob, &ver, 4);
    memcpy(blob + 4, &ndocs, 4);
    memcpy(blob + 8, &n64, 8);
    memcpy(blob + 16, st->h, n * 8);
    memcpy(blob + 16 + n * 8, st->df, n * 4);
    if (mg_idx_model_put(d, "builtin.df", blob, blen, err) != 0) goto out;
    rc = 0;
out:
    if (rc != 0) stats_release(st);
    mg_idx_done(&files);
    mg_idx_done(&chunks);
    free(m.h);
    free(m.c);
    fset_release(&fs);
    free(pairs);
    free(blob);
    return rc;
}

/* ---- 4. the vtable ------------------------------------------------------------------------------ */

static int builtin_prepare(struct mg_embedder *e, struct mg_db *d, int learn, struct mg_err *err)
{
    struct builtin *b = e->self;
    stats_release(&b->st);
    b->st.idf_unseen = 1.0f;
    char key[sizeof(last.key)], gen[32] = "0";
    mg_db_meta_get(d, "vec_gen", gen, sizeof(gen));
    snprintf(key, sizeof(key), "%s#%s", d->path, gen);
    if (!learn) {
        pthread_mutex_lock(&last_mu);
        int hit = strcmp(last.key, key) == 0 && stats_copy(&b->st, &last.st) == 0;
        pthread_mutex_unlock(&last_mu);
        if (hit) return 0;
    }
    struct mg_idx_cur st = {0};
    struct mg_idx_row row;
    int found = 0;
    if (mg_idx_model_get(d, "builtin.df", &st, &row) > 0) {
        found = 1;
        if (stats_load(&b->st, row.blob, row.bloblen) != 0) found = -1;
    }
    mg_idx_done(&st);
    if (found == 1 && !learn) {
        pthread_mutex_lock(&last_mu);
        struct stats keep;
        if (stats_copy(&keep, &b->st) == 0) {
            free(last.st.tab);
            last.st = keep;
            snprintf(last.key, sizeof(last.key), "%s", key);
        }
        pthread_mutex_unlock(&last_mu);
    }
    if (found == 1) return 0;
    if (!learn) {
        if (found < 0) return mg_err_set(err, MG_E_DB, "the builtin embedder's statistics in '%s' are corrupt; "
                                         "index the repo again", d->path);
        b->st.idf_unseen = 1.0f;
        return 0; /* nothing learned yet: every word weighs alike */
    }
    return stats_learn(d, &b->st, err);
}

/* (queries and documents are embedded alike: type is not used) */
static int builtin_embed(struct mg_embedder *e, enum mg_embed_input type, const char *const *texts,
                         const size_t *lens, size_t n, float *out, struct mg_err *err)
{
    struct builtin *b = e->self;
    struct fset fs = {0};
    for (size_t i = 0; i < n; i++) {
        float *v = out + i * DIM;
        memset(v, 0, DIM * sizeof(float));
        if (featurize(&fs, texts[i], lens[i]) != 0) {
            fset_release(&fs);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory embedding");
        }
        for (size_t k = 0; k < fs.n; k++) {
            const struct feat *f = &fs.v[fs.used[k]];
            float w = f->w * (f->tf == 1 ? 1.0f : 1.0f + logf((float)f->tf)) * idf(&b->st, f->h) * 0.70710678f;
            uint64_t h = f->h;
            v[h & (DIM - 1)] += (h >> 63) ? -w : w;
            v[(h >> 17) & (DIM - 1)] += ((h >> 62) & 1) ? -w : w;
        }
    }
    fset_release(&fs);
    return 0;
}

static void builtin_release(struct mg_embedder *e)
{
    struct builtin *b = e->self;
    if (b) stats_release(&b->st);
    free(b);
}

static const struct mg_embedder_ops builtin_ops = {builtin_embed, builtin_prepare, builtin_release};

int mg_embedder_builtin_new(struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_embedder *e = calloc(1, sizeof(*e));
    struct builtin *b = calloc(1, sizeof(*b));
    if (!e || !b) {
        free(e);
        free(b);
        return mg_err_oom(err);
    }
    b->st.idf_unseen = 1.0f;
    snprintf(e->name, sizeof(e->name), "builtin");
    snprintf(e->model, sizeof(e->model), MODEL);
    e->dim = DIM;
    e->batch = 256;
    e->ops = &builtin_ops;
    e->self = b;
    *out = e;
    return 0;
}
