/* vext.c — the common part of the external vector stores (see vext.h).
 *
 * Sections:
 *   1. names, ranges, checks
 *   2. requests
 *   3. the store
 *   4. opening a store
 */
#include "vector/vext.h"

#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/audit.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "util/httpc.h"
#include "util/metrics.h"

/* ---- 1. names, ranges, checks ------------------------------------------------------------------- */

void mg_vext_collection(const char *prefix, const char *tenant, const char *repo_id, char *out, size_t cap)
{
    unsigned char h[12];
    crypto_generichash_state st;
    crypto_generichash_init(&st, (const unsigned char *)"memgate collection v1", 21, sizeof(h));
    crypto_generichash_update(&st, (const unsigned char *)tenant, strlen(tenant) + 1);
    crypto_generichash_update(&st, (const unsigned char *)repo_id, strlen(repo_id) + 1);
    crypto_generichash_final(&st, h, sizeof(h));
    char hex[25];
    for (size_t i = 0; i < sizeof(h); i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
    snprintf(out, cap, "%s-%s", prefix, hex);
}

size_t mg_vext_cover(const struct mg_vrange *r, size_t nr, struct mg_vrange *out, size_t max)
{
    if (max == 0) return 0;
    size_t n = 0;
    for (size_t i = 0; i < nr; i++) {
        if (n && r[i].lo <= out[n - 1].hi + 1) {
            if (r[i].hi > out[n - 1].hi) out[n - 1].hi = r[i].hi;
            continue;
        }
        if (n < max) {
            out[n++] = r[i];
            continue;
        }
        /* full: close the smallest gap (among the kept ones and this range) */
        size_t best = n; /* n: the gap before r[i] */
        int64_t gap = r[i].lo - out[n - 1].hi;
        for (size_t j = 1; j < n; j++)
            if (out[j].lo - out[j - 1].hi < gap) gap = out[j].lo - out[j - 1].hi, best = j;
        if (best == n) {
            out[n - 1].hi = r[i].hi;
        } else {
            out[best - 1].hi = out[best].hi;
            memmove(&out[best], &out[best + 1], (n - best - 1) * sizeof(*out));
            out[n - 1] = r[i];
        }
    }
    return n;
}

static bool in_ranges(int64_t id, const struct mg_vrange *r, size_t nr)
{
    size_t a = 0, b = nr;
    while (a < b) { /* the last range with lo <= id */
        size_t m = (a + b) / 2;
        if (r[m].lo <= id) a = m + 1;
        else b = m;
    }
    return a > 0 && id <= r[a - 1].hi;
}

bool mg_vext_hit_ok(const struct mg_vext_hit *h, const char *tenant, const char *repo_id, const char *fp,
                    const struct mg_vrange *r, size_t nr)
{
    if (!h->meta_ok || strcmp(h->tenant, tenant) != 0 || strcmp(h->repo, repo_id) != 0 || strcmp(h->fp, fp) != 0)
        return false;
    return !r || in_ranges(h->chunk, r, nr);
}

/* ---- 2. requests -------------------------------------------------------------------------------- */

int mg_vext_fail(struct mg_vext *x, struct mg_err *err)
{
    mg_metrics_provider_error(x->api->name);
    fprintf(stderr, "memgate: warning: vector store %s: error[%s]: %s\n", x->api->name,
            err && err->code ? err->code : MG_E_VSTORE_UNAVAILABLE, err ? err->msg : "");
    return -1;
}

int mg_vext_call(struct mg_vext *x, const char *method, const char *path, const char *body, long accept,
                 char **out, size_t *outlen, struct mg_err *err)
{
    char url[1200], what[64];
    snprintf(url, sizeof(url), "%s%s", x->url, path);
    snprintf(what, sizeof(what), "the %s vector store", x->api->name);
    struct mg_http_post rq = {.method = method, .url = url, .what = what, .key = x->key,
                              .key_header = x->api == &mg_vext_qdrant ? "api-key" : "x-chroma-token",
                              .key_setting = "vector_api_key", .also_ok = accept, .payload = body,
                              .timeout_s = x->timeout, .retries = x->retries, .max_response = MG_VEXT_MAX_RESPONSE,
                              .code_unavailable = MG_E_VSTORE_UNAVAILABLE, .code_rejected = MG_E_VSTORE_UNAVAILABLE,
                              .code_too_large = MG_E_VSTORE_BAD_RESPONSE};
    struct mg_buf b;
    mg_buf_init(&b, MG_VEXT_MAX_RESPONSE);
    *out = NULL;
    if (outlen) *outlen = 0;
    if (mg_http_post_json(&rq, &b, err) != 0) {
        mg_buf_release(&b);
        return mg_vext_fail(x, err);
    }
    size_t len = 0;
    char *p = mg_buf_detach(&b, &len); /* NUL-terminated, "" for an empty answer */
    if (!p) return mg_err_oom(err);
    *out = p;
    if (outlen) *outlen = len;
    return 0;
}

/* ---- 3. the store ------------------------------------------------------------------------------- */

struct ext_store {
    struct mg_vext x;
};

static int ensure(struct ext_store *s, int dim, bool create, struct mg_err *err)
{
    if (s->x.dim == dim && (s->x.api != &mg_vext_chroma || s->x.coll_id[0])) return 0;
    if (s->x.api->ensure(&s->x, dim, create, err) != 0) return -1;
    s->x.dim = dim;
    return 0;
}

static int es_put(struct mg_vstore *vs, int64_t file_id, const int64_t *ids, const float *vecs, size_t n, int dim,
                  struct mg_err *err)
{
    struct ext_store *s = vs->self;
    if (ensure(s, dim, true, err) != 0 || s->x.api->del(&s->x, &file_id, 1, err) != 0) return -1;
    if (n && s->x.api->upsert(&s->x, file_id, ids, vecs, n, dim, err) != 0) return -1;
    /* the list of files with vectors: an empty blob, the vectors are in the store */
    return mg_idx_vectors_put(s->x.d, file_id, n, NULL, 0, err);
}

static int es_prune(struct mg_vstore *vs, int all, struct mg_err *err)
{
    struct ext_store *s = vs->self;
    if (all) {
        /* (a repo never embedded has no collection yet: nothing to delete there) */
        if (mg_idx_vectors_any(s->x.d) && s->x.api->del(&s->x, NULL, 0, err) != 0) return -1;
        return mg_idx_vectors_prune(s->x.d, true, err);
    }
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (mg_idx_vectors_orphans(s->x.d, &cur, err) != 0) return -1;
    int64_t batch[256];
    size_t n = 0;
    int rc = 0;
    for (;;) {
        int step = mg_idx_next(&cur, &row);
        if (step > 0) batch[n++] = row.file_id;
        if ((step <= 0 || n == 256) && n) {
            if (s->x.api->del(&s->x, batch, n, err) != 0) {
                rc = -1;
                break;
            }
            n = 0;
        }
        if (step <= 0) break;
    }
    mg_idx_done(&cur);
    if (rc != 0) return -1;
    return mg_idx_vectors_prune(s->x.d, false, err);
}

static int cmp_match(const void *a, const void *b)
{
    const struct mg_vmatch *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void count_drops(struct ext_store *s, size_t drops)
{
    if (!drops) return;
    mg_metrics_isolation_drop("vector", drops);
    fprintf(stderr, "memgate: warning: dropped %zu points from the %s vector store that are not repo '%s''s "
            "(tenant, repo, fingerprint or chunk)\n", drops, s->x.api->name, s->x.repo);
}

static long es_search(struct mg_vstore *vs, const float *q, int dim, const struct mg_vrange *r, size_t nr, int k,
                      struct mg_vmatch *out, struct mg_err *err)
{
    struct ext_store *s = vs->self;
    if (k <= 0) return 0;
    if (r && nr == 0) return 0;
    if (ensure(s, dim, false, err) != 0) return -1;
    struct mg_vrange push[MG_VEXT_PUSH_RANGES];
    size_t npush = r ? mg_vext_cover(r, nr, push, MG_VEXT_PUSH_RANGES) : 0;
    bool exact_push = !r || npush == nr;
    bool pushed = r && (exact_push || s->x.api->push_cover); /* else: the answer is filtered here only */
    size_t want = (size_t)k + (exact_push ? 0 : (size_t)k);
    if (want > MG_VEXT_MAX_POINTS) want = MG_VEXT_MAX_POINTS;
    struct mg_vext_hit *h = NULL;
    long found = 0;
    size_t drops = 0;
    for (;;) {
        struct mg_vext_hit *nh = realloc(h, want * sizeof(*h));
        if (!nh) {
            free(h);
            return mg_err_oom(err);
        }
        h = nh;
        long got = s->x.api->query(&s->x, q, dim, pushed ? push : NULL, pushed ? npush : 0, NULL, 0, want, h, err);
        if (got < 0) {
            free(h);
            return -1;
        }
        found = 0;
        drops = 0;
        for (long i = 0; i < got; i++) {
            if (!mg_vext_hit_ok(&h[i], s->x.tenant, s->x.repo, s->x.fp, r, nr)) {
                /* a chunk outside the candidates but inside what was sent (the covering ranges, or nothing) is
                 * expected; anything else is not */
                if (!mg_vext_hit_ok(&h[i], s->x.tenant, s->x.repo, s->x.fp, pushed ? push : NULL, pushed ? npush : 0))
                    drops++;
                continue;
            }
            bool dup = false;
            for (long j = 0; j < found && !dup; j++) dup = out[j].id == h[i].chunk;
            if (dup || found >= k || !isfinite(h[i].score)) continue;
            out[found++] = (struct mg_vmatch){h[i].chunk, (float)h[i].score};
        }
        /* enough, or the store has no more to give */
        if (found >= k || (size_t)got < want || want >= MG_VEXT_MAX_POINTS) break;
        want = want * 4 > MG_VEXT_MAX_POINTS ? MG_VEXT_MAX_POINTS : want * 4;
    }
    free(h);
    count_drops(s, drops);
    qsort(out, (size_t)found, sizeof(*out), cmp_match);
    return found;
}

static int es_score(struct mg_vstore *vs, const float *q, int dim, const int64_t *ids, size_t n, float *scores,
                    struct mg_err *err)
{
    struct ext_store *s = vs->self;
    for (size_t i = 0; i < n; i++) scores[i] = NAN;
    if (n == 0) return 0;
    if (ensure(s, dim, false, err) != 0) return -1;
    struct mg_vext_hit *h = calloc(n, sizeof(*h));
    if (!h) return mg_err_oom(err);
    long got = s->x.api->query(&s->x, q, dim, NULL, 0, ids, n, n, h, err);
    size_t drops = 0;
    for (long i = 0; i < got; i++) {
        if (!mg_vext_hit_ok(&h[i], s->x.tenant, s->x.repo, s->x.fp, NULL, 0)) {
            drops++;
            continue;
        }
        for (size_t j = 0; j < n; j++)
            if (ids[j] == h[i].chunk && isfinite(h[i].score)) scores[j] = (float)h[i].score;
    }
    free(h);
    count_drops(s, drops);
    return got < 0 ? -1 : 0;
}

static void es_close(struct mg_vstore *vs)
{
    struct ext_store *s = vs->self;
    sodium_memzero(s->x.key, sizeof(s->x.key));
    free(s);
}

static int es_pin(struct mg_vstore *vs, bool wait, const float *q, int dim, struct mg_vload *loading,
                  struct mg_err *err)
{
    (void)vs, (void)wait, (void)q, (void)dim, (void)loading, (void)err;
    return 0; /* nothing to load: the store answers each search */
}

static const struct mg_vstore_ops ext_ops = {es_put, es_prune, es_search, es_score, es_close, es_pin};

/* ---- 4. opening a store ------------------------------------------------------------------------- */

const struct mg_vext_api *mg_vext_api_of(const struct mg_config *cfg)
{
    if (strcmp(cfg->vector_store, "chroma") == 0) return &mg_vext_chroma;
    if (strcmp(cfg->vector_store, "qdrant") == 0) return &mg_vext_qdrant;
    return NULL;
}

static void base_url(const struct mg_config *cfg, char *out, size_t cap)
{
    const char *u = mg_config_vector_url(cfg);
    size_t n = strlen(u);
    while (n > 0 && u[n - 1] == '/') n--;
    snprintf(out, cap, "%.*s", (int)n, u);
}

void mg_vext_sig(const struct mg_config *cfg, const char *tenant, const char *repo_id, char *out, size_t cap)
{
    const struct mg_vext_api *api = mg_vext_api_of(cfg);
    if (!api) {
        snprintf(out, cap, "builtin");
        return;
    }
    char url[512], coll[96];
    base_url(cfg, url, sizeof(url));
    mg_vext_collection(cfg->vector_collection_prefix, tenant, repo_id, coll, sizeof(coll));
    snprintf(out, cap, "%s %s %s", api->name, url, coll);
}

/* One audit event per process and repo for vectors kept outside: op
 * external_vectors, status naming the store and collection (never the key). */
static void audit_once(const struct mg_config *cfg, const struct mg_vext *x)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char seen[16][200];
    static size_t nseen;
    char id[200], status[700];
    snprintf(id, sizeof(id), "%s/%s", x->tenant, x->repo);
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nseen; i++)
        if (strcmp(seen[i], id) == 0) {
            pthread_mutex_unlock(&mu);
            return;
        }
    if (nseen < 16) snprintf(seen[nseen++], sizeof(seen[0]), "%s", id);
    pthread_mutex_unlock(&mu);
    snprintf(status, sizeof(status), "%s %s %s (allow_external_vectors = on)", x->api->name, x->url, x->collection);
    struct mg_audit *a = NULL;
    struct mg_err e = {0};
    const char *flags[] = {"unencrypted_vectors"};
    struct mg_audit_event ev = {.tenant = x->tenant, .repo = x->repo, .op = "external_vectors", .status = status,
                                .flags = flags, .nflags = 1, .durable = true};
    if (mg_audit_open(cfg, &a, &e) != 0 || mg_audit_emit(a, &ev, &e) != 0)
        fprintf(stderr, "memgate: warning: audit event 'external_vectors' not written: %s\n", e.msg);
    if (a) mg_audit_close(a);
}

int mg_vext_open(const struct mg_config *cfg, const struct mg_vext_api *api, struct mg_db *d, const char *repo_id,
                 struct mg_vstore **out, struct mg_err *err)
{
    *out = NULL;
    if (mg_config_check_vectors(cfg, "the configuration", err) != 0) return -1;
    struct mg_vstore *vs = calloc(1, sizeof(*vs));
    struct ext_store *s = calloc(1, sizeof(*s));
    if (!vs || !s) {
        free(vs);
        free(s);
        return mg_err_oom(err);
    }
    struct mg_vext *x = &s->x;
    x->api = api;
    x->d = d;
    base_url(cfg, x->url, sizeof(x->url));
    snprintf(x->key, sizeof(x->key), "%s", cfg->vector_api_key);
    x->timeout = cfg->vector_timeout > 0 ? cfg->vector_timeout : 10;
    x->retries = 1;
    if (mg_db_meta_get(d, "tenant", x->tenant, sizeof(x->tenant)) != 0) snprintf(x->tenant, sizeof(x->tenant), "local");
    mg_db_meta_get(d, "fingerprint", x->fp, sizeof(x->fp));
    snprintf(x->repo, sizeof(x->repo), "%s", repo_id);
    mg_vext_collection(cfg->vector_collection_prefix, x->tenant, repo_id, x->collection, sizeof(x->collection));
    vs->ops = &ext_ops;
    vs->self = s;
    audit_once(cfg, x);
    *out = vs;
    return 0;
}
