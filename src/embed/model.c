/* model.c — the `model` embedder: a code model trained for the task
 * (model/train.py), run here at indexing speed.
 *
 * The model is UNIF-shaped: every token of a text (store/tokenize.h: whole
 * identifiers and their sub-words, lower-cased, no numbers; hashed into
 * 2^bits buckets with XXH3) has a learned vector; a text's vector is the
 * attention-weighted sum of its tokens' vectors, the weight of a token being
 * softmax over the text of (its vector . a), with one attention vector a for
 * documents (code) and one for queries. Training put a doc comment's vector
 * near its function's (model/train.py), so a question in words lands near
 * the code that does it.
 *
 * The file (model/memgate-code.mgm, compiled into the binary; or the
 * `model_file` setting), little-endian:
 *
 *   0   "MGMODEL\0"                  magic
 *   8   u32 version (1)
 *   12  u32 dim                      8..1024, a multiple of 8
 *   16  u32 bits                     buckets = 2^bits, 8..20
 *   20  u32 max_tokens               tokens read per text (the rest ignored)
 *   24  char name[32]                NUL-padded, e.g. "unif-v1"
 *   56  f32 attn_doc[dim], f32 attn_query[dim]
 *       f32 scale[buckets]           a bucket's vector = scale * int8 row
 *       i8  vec[buckets][dim]
 *   end-32  BLAKE2b-256 of every byte before it
 *
 * Anything else — a file missing, shorter or longer than its header says,
 * a wrong checksum, dimensions out of range, a value not finite — is
 * model_invalid, and the caller goes on by words (docs/semantic.md).
 *
 * A text's tokens are model_tokens.c's (model/tokens.c gives training the
 * same ones).
 *
 * Sections:
 *   1. loading and checking a model file
 *   2. the process's model
 *   3. the vtable
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embed/embedder.h"

#define MAGIC "MGMODEL"
#define VERSION 1u
#define HEAD 56u
#define SUM 32u
#define MAX_FILE (256u << 20)

/* The model compiled in (model_data.c); its checksum is checked like a file's. */
extern const unsigned char mg_model_data[];
extern const unsigned char mg_model_data_end[];

/* ---- 1. loading and checking a model file ------------------------------------------------------- */

struct model {
    unsigned char *own;       /* the bytes, when read from a file (else the compiled-in ones) */
    const unsigned char *p;
    size_t len;
    uint32_t dim, bits, max_tokens;
    char name[33];
    char sum[17];             /* the checksum's first 8 bytes in hex: the model's identity in signatures */
    float *logit[2];          /* per bucket: vec . attn_doc, vec . attn_query */
    float *scale;
    const int8_t *vec;
};

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void model_free(struct model *m)
{
    if (!m) return;
    free(m->own);
    free(m->logit[0]);
    free(m->logit[1]);
    free(m->scale);
    free(m);
}

/* The whole file, up to MAX_FILE bytes; 0 or -1 with a reason in why. */
static int read_all(const char *path, unsigned char **out, size_t *len, char *why, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return snprintf(why, cap, "%s", strerror(errno)), -1;
    size_t n = 0, c = 1 << 20;
    unsigned char *b = malloc(c);
    while (b) {
        size_t got = fread(b + n, 1, c - n, f);
        n += got;
        if (n < c) break;
        if (c >= MAX_FILE) {
            snprintf(why, cap, "larger than %u MiB", MAX_FILE >> 20);
            free(b);
            b = NULL;
            fclose(f);
            return -1;
        }
        unsigned char *nb = realloc(b, c * 2);
        if (!nb) free(b);
        b = nb;
        c *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return snprintf(why, cap, "%s", b ? "read error" : "out of memory"), -1;
    }
    *out = b;
    *len = n;
    return 0;
}

/* Check the bytes and build the tables; 0 or -1 (model_invalid, naming where). */
static int model_parse(struct model *m, const char *where, struct mg_err *err)
{
    const unsigned char *p = m->p;
    if (m->len < HEAD + SUM || memcmp(p, MAGIC, 8) != 0)
        return mg_err_set(err, MG_E_MODEL_INVALID, "%s is not a memgate model file (%zu bytes, no header)", where,
                          m->len);
    unsigned char sum[SUM];
    crypto_generichash(sum, SUM, p, m->len - SUM, NULL, 0);
    uint32_t ver = rd32(p + 8), dim = rd32(p + 12), bits = rd32(p + 16), maxt = rd32(p + 20);
    if (ver != VERSION)
        return mg_err_set(err, MG_E_MODEL_INVALID, "%s is model format %u; this memgate reads %u", where, ver,
                          VERSION);
    if (dim < 8 || dim > 1024 || dim % 8 || bits < 8 || bits > 20 || maxt < 16 || maxt > (1u << 20))
        return mg_err_set(err, MG_E_MODEL_INVALID, "%s has dimensions out of range (dim %u, 2^%u buckets, %u tokens)",
                          where, dim, bits, maxt);
    uint64_t nb = 1ull << bits;
    uint64_t want = HEAD + 8ull * dim + 4 * nb + nb * dim + SUM;
    if (m->len != want)
        return mg_err_set(err, MG_E_MODEL_INVALID, "%s is %zu bytes; its header (dim %u, 2^%u buckets) says %llu: "
                          "truncated or of other dimensions", where, m->len, dim, bits, (unsigned long long)want);
    if (sodium_memcmp(sum, p + m->len - SUM, SUM) != 0)
        return mg_err_set(err, MG_E_MODEL_INVALID, "%s fails its checksum (BLAKE2b-256): the file is corrupt", where);
    m->dim = dim;
    m->bits = bits;
    m->max_tokens = maxt;
    memcpy(m->name, p + 24, 32);
    m->name[32] = 0;
    for (int i = 0; i < 8; i++) snprintf(m->sum + 2 * i, 3, "%02x", sum[i]);
    const unsigned char *attn = p + HEAD;
    const unsigned char *sc = attn + 8ull * dim;
    m->vec = (const int8_t *)(sc + 4 * nb);
    m->scale = malloc(nb * sizeof(float));
    m->logit[0] = malloc(nb * sizeof(float));
    m->logit[1] = malloc(nb * sizeof(float));
    float *a = malloc(2ull * dim * sizeof(float));
    if (!m->scale || !m->logit[0] || !m->logit[1] || !a) {
        free(a);
        return mg_err_oom(err);
    }
    memcpy(m->scale, sc, nb * sizeof(float));
    memcpy(a, attn, 2ull * dim * sizeof(float));
    for (uint64_t i = 0; i < 2ull * dim; i++)
        if (!isfinite(a[i])) {
            free(a);
            return mg_err_set(err, MG_E_MODEL_INVALID, "%s has an attention weight that is not finite", where);
        }
    for (uint64_t b = 0; b < nb; b++) {
        if (!isfinite(m->scale[b]) || m->scale[b] < 0) {
            free(a);
            return mg_err_set(err, MG_E_MODEL_INVALID, "%s has a scale that is not finite", where);
        }
        const int8_t *v = m->vec + b * dim;
        float s0 = 0, s1 = 0;
        for (uint32_t j = 0; j < dim; j++) {
            s0 += a[j] * v[j];
            s1 += a[dim + j] * v[j];
        }
        m->logit[0][b] = s0 * m->scale[b];
        m->logit[1][b] = s1 * m->scale[b];
    }
    free(a);
    return 0;
}

int mg_model_load(const char *path, struct mg_model **out, struct mg_err *err)
{
    *out = NULL;
    struct model *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_oom(err);
    char where[600];
    if (path && path[0]) {
        snprintf(where, sizeof(where), "model file '%s'", path);
        char why[128];
        if (read_all(path, &m->own, &m->len, why, sizeof(why)) != 0) {
            model_free(m);
            return mg_err_set(err, MG_E_MODEL_INVALID, "cannot read model file '%s' (%s); run `make model` or "
                              "unset model_file to use the built-in model", path, why);
        }
        m->p = m->own;
    } else {
        snprintf(where, sizeof(where), "the built-in model");
        m->p = mg_model_data;
        m->len = (size_t)(mg_model_data_end - mg_model_data);
    }
    if (model_parse(m, where, err) != 0) {
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        mg_err_set(err, MG_E_MODEL_INVALID, "%s; %s", why,
                   m->own ? "run `make model`, or unset model_file to use the built-in model"
                          : "rebuild memgate (`make model` then `make`)");
        model_free(m);
        return -1;
    }
    *out = (struct mg_model *)m;
    return 0;
}

int mg_model_parse(const void *data, size_t len, struct mg_model **out, struct mg_err *err)
{
    *out = NULL;
    if (len > MAX_FILE)
        return mg_err_set(err, MG_E_MODEL_INVALID, "a model of %zu bytes is larger than %u MiB", len, MAX_FILE >> 20);
    struct model *m = calloc(1, sizeof(*m));
    if (!m || !(m->own = malloc(len ? len : 1))) {
        model_free(m);
        return mg_err_oom(err);
    }
    memcpy(m->own, data, len);
    m->p = m->own;
    m->len = len;
    if (model_parse(m, "the model given", err) != 0) {
        model_free(m);
        return -1;
    }
    *out = (struct mg_model *)m;
    return 0;
}

void mg_model_free(struct mg_model **pm)
{
    model_free((struct model *)*pm);
    *pm = NULL;
}

int mg_model_dim(const struct mg_model *m) { return (int)((const struct model *)m)->dim; }

/* A text's vector (dim floats, not normalised): the attention-weighted sum
 * of its tokens' vectors. ids: scratch of max_tokens. */
static void model_embed1(const struct model *m, int side, const char *text, size_t len, uint32_t *ids, float *w,
                         float *out)
{
    size_t n = mg_model_tokens(text, len, m->bits, ids, m->max_tokens);
    memset(out, 0, m->dim * sizeof(float));
    if (n == 0) return;
    const float *lg = m->logit[side];
    float mx = -INFINITY;
    for (size_t t = 0; t < n; t++) mx = lg[ids[t]] > mx ? lg[ids[t]] : mx;
    double sum = 0;
    for (size_t t = 0; t < n; t++) sum += w[t] = expf(lg[ids[t]] - mx);
    const uint32_t dim = m->dim;
    for (size_t t = 0; t < n; t++) {
        const int8_t *v = m->vec + (size_t)ids[t] * dim;
        const float c = (float)(w[t] / sum) * m->scale[ids[t]];
        for (uint32_t j = 0; j < dim; j++) out[j] += c * (float)v[j];
    }
}

int mg_model_embed(const struct mg_model *mm, int query, const char *text, size_t len, float *out,
                   struct mg_err *err)
{
    const struct model *m = (const struct model *)mm;
    uint32_t *ids = malloc(m->max_tokens * sizeof(uint32_t));
    float *w = malloc(m->max_tokens * sizeof(float));
    if (!ids || !w) {
        free(ids);
        free(w);
        return mg_err_oom(err);
    }
    model_embed1(m, query ? 1 : 0, text, len, ids, w, out);
    free(ids);
    free(w);
    return 0;
}

/* ---- 2. the process's model --------------------------------------------------------------------- */

/* Loaded once per process and path (a search opens the embedder per query):
 * checking 4 MiB costs milliseconds. A file that changes (size, mtime,
 * inode) is loaded again; the old model lives on until the process ends,
 * since an embedder opened earlier may still use it. */
static struct {
    char path[512];
    struct stat st;
    struct model *m;
} cache[4];
static size_t ncache;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct model *retired[16];
static size_t nretired;

__attribute__((destructor)) static void cache_drop(void)
{
    for (size_t i = 0; i < ncache; i++) model_free(cache[i].m);
    for (size_t i = 0; i < nretired; i++) model_free(retired[i]);
}

static int model_get(const char *path, struct model **out, struct mg_err *err)
{
    struct stat st = {0};
    if (path[0] && stat(path, &st) != 0)
        return mg_err_set(err, MG_E_MODEL_INVALID, "model file '%s' is missing; run `make model` or unset "
                          "model_file to use the built-in model", path);
    pthread_mutex_lock(&cache_mu);
    size_t i = 0;
    while (i < ncache && strcmp(cache[i].path, path) != 0) i++;
    if (i < ncache && st.st_size == cache[i].st.st_size && st.st_mtim.tv_sec == cache[i].st.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == cache[i].st.st_mtim.tv_nsec && st.st_ino == cache[i].st.st_ino) {
        *out = cache[i].m;
        pthread_mutex_unlock(&cache_mu);
        return 0;
    }
    struct mg_model *m;
    if (mg_model_load(path, &m, err) != 0) {
        pthread_mutex_unlock(&cache_mu);
        return -1;
    }
    if (i == ncache && ncache == sizeof(cache) / sizeof(cache[0])) i = 0;
    if (i < ncache && cache[i].m) {
        if (nretired < sizeof(retired) / sizeof(retired[0])) retired[nretired++] = cache[i].m;
        /* else: kept alive by leaking it, never freed under a user */
    }
    if (i == ncache) ncache++;
    snprintf(cache[i].path, sizeof(cache[i].path), "%s", path);
    cache[i].st = st;
    cache[i].m = (struct model *)m;
    *out = cache[i].m;
    pthread_mutex_unlock(&cache_mu);
    return 0;
}

/* ---- 3. the vtable ------------------------------------------------------------------------------ */

static int model_embed(struct mg_embedder *e, enum mg_embed_input type, const char *const *texts,
                       const size_t *lens, size_t n, float *out, struct mg_err *err)
{
    const struct model *m = e->self;
    uint32_t *ids = malloc(m->max_tokens * sizeof(uint32_t));
    float *w = malloc(m->max_tokens * sizeof(float));
    if (!ids || !w) {
        free(ids);
        free(w);
        return mg_err_oom(err);
    }
    for (size_t i = 0; i < n; i++)
        model_embed1(m, type == MG_EMBED_QUERY, texts[i], lens[i], ids, w, out + i * (size_t)m->dim);
    free(ids);
    free(w);
    return 0;
}

static void model_release(struct mg_embedder *e) { (void)e; /* the model stays in the process's cache */ }

static const struct mg_embedder_ops model_ops = {model_embed, NULL, model_release};

int mg_embedder_model_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    struct model *m = NULL;
    if (model_get(c->model_file, &m, err) != 0) return -1;
    struct mg_embedder *e = calloc(1, sizeof(*e));
    if (!e) return mg_err_oom(err);
    snprintf(e->name, sizeof(e->name), "model");
    snprintf(e->model, sizeof(e->model), "%s-%s", m->name, m->sum);
    e->dim = (int)m->dim;
    e->batch = 256;
    e->ops = &model_ops;
    e->self = m;
    *out = e;
    return 0;
}
