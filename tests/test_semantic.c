/* test_semantic.c — embedders, the vector store, hybrid search.
 *
 *   - the openai embedder against a loopback embeddings server started by
 *     the test (libmicrohttpd): answers, batching, the key, errors, retries,
 *     slow answers, malformed bodies, a closed port;
 *   - the vector store: exact top k against a brute-force float reference,
 *     candidate ranges, tampered and moved blobs, keys;
 *   - natural-language detection; scope inside semantic search; keyword-only
 *     indexing when the endpoint is down; stale vectors after a change of
 *     embedder; a tampered blob reported by search.
 */
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embed/embed.h"
#include "fakehttp.h"
#include "fixtures.h"
#include "search/hybrid.h"
#include "vector/vstore.h"

/* ---- a loopback embeddings server ------------------------------------------------- */

#define SRV_DIM 8

static struct srv {
    struct MHD_Daemon *d;
    int port;
    int requests;         /* requests answered */
    int max_batch;        /* most inputs in one request */
    int auth_ok;          /* every request carried the expected bearer token */
    pthread_mutex_t mu;
} srv = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A deterministic vector for a text: its length and bytes spread over SRV_DIM. */
static void fake_vec(const char *s, size_t n, double *v)
{
    for (int i = 0; i < SRV_DIM; i++) v[i] = 0.01 * (i + 1);
    for (size_t i = 0; i < n; i++) v[(unsigned char)s[i] % SRV_DIM] += 1.0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **con_cls)
{
    struct mg_t_body *b = mg_t_body_gather(con_cls, data, size);
    if (!b) return MHD_YES;
    pthread_mutex_lock(&srv.mu);
    int nreq = ++srv.requests;
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!auth || strcmp(auth, "Bearer sekrit-key-123") != 0) srv.auth_ok = 0;
    pthread_mutex_unlock(&srv.mu);
    int status = 200;
    char *text = NULL;
    json_t *req = json_loadb(b->p ? b->p : "", b->n, 0, NULL);
    json_t *input = json_object_get(req, "input");
    size_t n = json_array_size(input);
    pthread_mutex_lock(&srv.mu);
    if ((int)n > srv.max_batch) srv.max_batch = (int)n;
    pthread_mutex_unlock(&srv.mu);
    if (strstr(url, "/fail500/")) {
        status = 500;
        text = strdup("{\"error\":{\"message\":\"model crashed\"}}");
    } else if (strstr(url, "/flaky/") && nreq <= 2) {
        status = 503;
        text = strdup("overloaded");
    } else if (strstr(url, "/unauthorized/")) {
        status = 401;
        text = strdup("{\"error\":{\"message\":\"Incorrect API key provided: sekrit-key-123\"}}");
    } else if (strstr(url, "/slow/")) {
        sleep(3);
        text = strdup("{\"data\":[]}");
    } else if (strstr(url, "/malformed/")) {
        text = strdup("{\"data\": [ {\"embedding\": [1, 2,");
    } else if (strstr(url, "/short/")) {
        text = strdup("{\"data\":[{\"embedding\":[1,2,3],\"index\":0}]}");
    } else if (!json_is_array(input) || strcmp(method, "POST") != 0 || !strstr(url, "/v1/embeddings")) {
        status = 400;
        text = strdup("{\"error\":\"bad request\"}");
    } else {
        json_t *arr = json_array();
        /* answer in reverse order: clients must use "index" */
        for (size_t i = n; i-- > 0;) {
            const char *s = json_string_value(json_array_get(input, i));
            double v[SRV_DIM];
            fake_vec(s ? s : "", s ? strlen(s) : 0, v);
            json_t *e = json_array();
            for (int k = 0; k < SRV_DIM; k++) json_array_append_new(e, json_real(v[k]));
            json_array_append_new(arr, json_pack("{s:o, s:I, s:s}", "embedding", e, "index", (json_int_t)i,
                                                  "object", "embedding"));
        }
        json_t *top = json_pack("{s:o, s:s}", "data", arr, "model", "fake");
        text = json_dumps(top, JSON_COMPACT);
        json_decref(top);
    }
    json_decref(req);
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static void srv_start(void)
{
    srv.auth_ok = 1;
    srv.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                             answer, NULL, MHD_OPTION_NOTIFY_COMPLETED, mg_t_body_done, NULL, MHD_OPTION_END);
    ASSERT(srv.d != NULL);
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT);
    srv.port = di->port;
    ASSERT(srv.port > 0);
}

static void cfg_for(struct mg_config *c, const char *mode)
{
    mg_t_config_defaults(c);
    snprintf(c->embedder, sizeof(c->embedder), "openai");
    snprintf(c->embed_url, sizeof(c->embed_url), "http://127.0.0.1:%d/%s/v1", srv.port, mode);
    snprintf(c->embed_model, sizeof(c->embed_model), "fake");
    snprintf(c->embed_api_key, sizeof(c->embed_api_key), "sekrit-key-123");
    c->embed_batch = 4;
    c->embed_timeout = 1;
    c->embed_retries = 2;
}

static int embed_texts(const char *mode, size_t n, float *out, struct mg_err *err)
{
    struct mg_config c;
    cfg_for(&c, mode);
    struct mg_embedder *e;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, err), 0);
    ASSERT_EQ_STR(e->name, "openai");
    const char *texts[16];
    size_t lens[16];
    static const char *words[] = {"alpha", "beta gamma", "delta", "epsilon zeta eta", "theta", "iota kappa",
                                  "lambda", "mu", "nu xi", "omicron", "pi rho", "sigma", "tau", "upsilon",
                                  "phi", "chi"};
    for (size_t i = 0; i < n; i++) {
        texts[i] = words[i];
        lens[i] = strlen(words[i]);
    }
    int rc = mg_embed(e, MG_EMBED_DOCUMENT, texts, lens, n, out, err);
    if (rc == 0) ASSERT_EQ_INT(e->dim, SRV_DIM);
    mg_embedder_free(&e);
    return rc;
}

TEST(openai_embedder_batches_in_order_with_key)
{
    srv_start();
    float out[10 * SRV_DIM];
    struct mg_err err = {0};
    ASSERT_EQ_INT(embed_texts("ok", 10, out, &err), 0);
    /* 10 texts, batches of 4: 3 requests (dimensions come with the first) */
    ASSERT_EQ_INT(srv.requests, 3);
    ASSERT_EQ_INT(srv.max_batch, 4);
    ASSERT_EQ_INT(srv.auth_ok, 1);
    static const char *words[] = {"alpha", "beta gamma", "delta", "epsilon zeta eta", "theta", "iota kappa",
                                  "lambda", "mu", "nu xi", "omicron"};
    for (int i = 0; i < 10; i++) {
        double v[SRV_DIM], norm = 0;
        fake_vec(words[i], strlen(words[i]), v);
        for (int k = 0; k < SRV_DIM; k++) norm += v[k] * v[k];
        for (int k = 0; k < SRV_DIM; k++)
            if (fabs(out[i * SRV_DIM + k] - v[k] / sqrt(norm)) > 1e-5)
                FAIL("text %d dim %d: got %f, expected %f", i, k, out[i * SRV_DIM + k], v[k] / sqrt(norm));
    }
}

TEST(openai_embedder_errors)
{
    srv_start();
    float out[4 * SRV_DIM];
    struct mg_err err = {0};
    char url[128];

    /* 5xx: retried (2 retries), then embed_unavailable naming the URL and status */
    ASSERT_EQ_INT(embed_texts("fail500", 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/fail500/v1/embeddings", srv.port);
    ASSERT_CONTAINS(err.msg, url);
    ASSERT_CONTAINS(err.msg, "HTTP 500");
    ASSERT_CONTAINS(err.msg, "model crashed");
    ASSERT_EQ_INT(srv.requests, 3);

    /* a flaky endpoint: two 503s, then answers */
    srv.requests = 0;
    ASSERT_EQ_INT(embed_texts("flaky", 2, out, &err), 0);
    ASSERT_EQ_INT(srv.requests, 3);

    /* 401: final at once, and the key never shows, even when the endpoint echoes it */
    srv.requests = 0;
    mg_err_clear(&err);
    ASSERT_EQ_INT(embed_texts("unauthorized", 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_REJECTED);
    ASSERT_CONTAINS(err.msg, "HTTP 401");
    ASSERT_NOT_CONTAINS(err.msg, "sekrit");
    ASSERT_EQ_INT(srv.requests, 1);

    /* malformed and short bodies: embed_bad_response, no retry */
    srv.requests = 0;
    ASSERT_EQ_INT(embed_texts("malformed", 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_EQ_INT(srv.requests, 1);
    ASSERT_EQ_INT(embed_texts("short", 2, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    ASSERT_CONTAINS(err.msg, "1 embeddings for 2 inputs");

    /* slow: the 1 s timeout, retried, then embed_unavailable */
    srv.requests = 0;
    ASSERT_EQ_INT(embed_texts("slow", 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "imed out");

    /* nobody listening */
    int port = srv.port;
    MHD_stop_daemon(srv.d);
    ASSERT_EQ_INT(embed_texts("ok", 1, out, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_EMBED_UNAVAILABLE);
    snprintf(url, sizeof(url), "'http://127.0.0.1:%d/ok/v1/embeddings'", port);
    ASSERT_CONTAINS(err.msg, url);
}

TEST(openai_response_parser)
{
    int dim = 0;
    float *v;
    struct mg_err err = {0};
    const char *ok = "{\"data\":[{\"embedding\":[0,1],\"index\":1},{\"embedding\":[2,3],\"index\":0}]}";
    ASSERT_EQ_INT(mg_embed_parse_response(ok, strlen(ok), 2, &dim, &v, &err), 0);
    ASSERT_EQ_INT(dim, 2);
    ASSERT(v[0] == 2 && v[1] == 3 && v[2] == 0 && v[3] == 1);
    free(v);
    static const char *bad[] = {
        "", "[]", "{\"data\":{}}", "{\"data\":[{\"embedding\":[1,2]}]}",
        "{\"data\":[{\"embedding\":[1,2],\"index\":0},{\"embedding\":[1],\"index\":1}]}",
        "{\"data\":[{\"embedding\":[1,2],\"index\":0},{\"embedding\":[1,2],\"index\":0}]}",
        "{\"data\":[{\"embedding\":[1,\"x\"],\"index\":0},{\"embedding\":[1,2],\"index\":1}]}",
        "{\"data\":[{\"embedding\":[],\"index\":0},{\"embedding\":[],\"index\":1}]}",
        "{\"data\":[{\"embedding\":[1e999,2],\"index\":0},{\"embedding\":[1,2],\"index\":1}]}",
        "{\"data\":[{\"embedding\":[1,2],\"index\":7},{\"embedding\":[1,2],\"index\":1}]}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        dim = 0;
        if (mg_embed_parse_response(bad[i], strlen(bad[i]), 2, &dim, &v, &err) == 0) FAIL("accepted %s", bad[i]);
        ASSERT_EQ_STR(err.code, MG_E_EMBED_BAD_RESPONSE);
    }
    /* the dimensions must stay what the first answer said */
    dim = 3;
    ASSERT_EQ_INT(mg_embed_parse_response(ok, strlen(ok), 2, &dim, &v, &err), -1);
}

/* ---- the vector store ------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;
static double frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static void rand_unit(float *v, int dim)
{
    for (int i = 0; i < dim; i++) v[i] = (float)frand();
    mg_vec_normalize(v, dim);
}

/* A set of nfiles * per vectors sealed in per-file blobs; the originals in *orig. */
static struct mg_vset *make_set(const unsigned char *key, int dim, int nfiles, int per, bool clustered,
                                float **orig, int64_t **ids)
{
    struct mg_vset *s = calloc(1, sizeof(*s));
    s->refs = 1;
    size_t n = (size_t)nfiles * (size_t)per;
    *orig = malloc(n * (size_t)dim * sizeof(float));
    *ids = malloc(n * sizeof(int64_t));
    float base[1024];
    rand_unit(base, dim);
    for (int f = 0; f < nfiles; f++) {
        for (int j = 0; j < per; j++) {
            size_t i = (size_t)f * (size_t)per + (size_t)j;
            float *v = *orig + i * (size_t)dim;
            rand_unit(v, dim);
            if (clustered) { /* nearly identical vectors: the int8 shortlist cannot decide */
                for (int k = 0; k < dim; k++) v[k] = base[k] + 0.002f * v[k];
                mg_vec_normalize(v, dim);
            }
            (*ids)[i] = (int64_t)(f * 10000 + j * 3 + 7); /* ascending per file, gaps between */
        }
    }
    for (int f = 0; f < nfiles; f++) {
        void *blob;
        size_t len;
        struct mg_err err = {0};
        /* files sealed out of order: the store sorts its file index */
        int fi = (f * 7) % nfiles;
        ASSERT_EQ_INT(mg_vblob_seal(key, "repo1", fi, dim, (size_t)per, *ids + (size_t)fi * (size_t)per,
                                    *orig + (size_t)fi * (size_t)per * (size_t)dim, &blob, &len, &err), 0);
        ASSERT_EQ_INT(mg_vset_add_blob(s, key, "repo1", fi, blob, len, &err), 0);
        free(blob);
    }
    mg_vset_finish(s);
    return s;
}

/* Brute force: float dot of q with the dequantised vectors, best first. */
static size_t reference(const struct mg_vset *s, const float *q, const struct mg_vrange *r, size_t nr, int k,
                        struct mg_vmatch *out, bool original, const float *orig, const int64_t *ids, size_t norig)
{
    size_t n = original ? norig : s->n;
    struct mg_vmatch *all = malloc(n * sizeof(*all));
    size_t m = 0;
    int8_t row[1024];
    for (size_t i = 0; i < n; i++) {
        int64_t id = original ? ids[i] : s->ids[i];
        bool in = !r;
        for (size_t j = 0; r && j < nr && !in; j++) in = id >= r[j].lo && id <= r[j].hi;
        if (!in) continue;
        if (!original) mg_vset_get(s, i, row);
        double d = 0;
        for (int x = 0; x < s->dim; x++)
            d += (double)q[x] * (original ? orig[i * (size_t)s->dim + x]
                                          : (double)row[x] * s->scale[i]);
        all[m++] = (struct mg_vmatch){id, (float)d};
    }
    for (size_t a = 0; a < m; a++) /* selection of the best k */
        for (size_t b = a + 1; b < m && a < (size_t)k; b++)
            if (all[b].score > all[a].score) {
                struct mg_vmatch t = all[a];
                all[a] = all[b];
                all[b] = t;
            }
    size_t got = m < (size_t)k ? m : (size_t)k;
    memcpy(out, all, got * sizeof(*out));
    free(all);
    return got;
}

static void check_exact(int dim, bool clustered, int nfiles, int per)
{
    unsigned char key[MG_VKEY_BYTES];
    memset(key, 7, sizeof(key));
    float *orig;
    int64_t *ids;
    int k = 10;
    struct mg_vset *s = make_set(key, dim, nfiles, per, clustered, &orig, &ids);
    ASSERT_EQ_INT(s->n, nfiles * per);
    size_t overlap = 0, total = 0;
    for (int t = 0; t < 20; t++) {
        float q[1024];
        rand_unit(q, dim);
        if (clustered) memcpy(q, orig + (size_t)(t * 37) * (size_t)dim, (size_t)dim * sizeof(float));
        if (t % 2 && !clustered) { /* a query of a few words: most dimensions zero */
            for (int x = 0; x < dim; x++)
                if ((x * 7 + t) % 13) q[x] = 0;
            mg_vec_normalize(q, dim);
        }
        struct mg_vmatch got[64], want[64], fl[64];
        /* every vector, then a third of the files as candidate ranges */
        struct mg_vrange r[60];
        size_t nr = 0;
        for (int f = t % 3; f < nfiles && nr < 50; f += 3) r[nr++] = (struct mg_vrange){f * 10000, f * 10000 + 9999};
        for (int pass = 0; pass < 2; pass++) {
            const struct mg_vrange *rr = pass ? r : NULL;
            long n = mg_vset_search(s, q, rr, pass ? nr : 0, k, got);
            size_t w = reference(s, q, rr, pass ? nr : 0, k, want, false, NULL, NULL, 0);
            ASSERT_EQ_INT(n, w);
            for (size_t i = 0; i < w; i++) {
                /* the same ids in the same order, but for ties within float rounding */
                if (got[i].id != want[i].id && fabsf(got[i].score - want[i].score) > 1e-5f)
                    FAIL("dim %d query %d pass %d rank %zu: got id %lld (%.6f), expected %lld (%.6f)", dim, t, pass,
                         i, (long long)got[i].id, got[i].score, (long long)want[i].id, want[i].score);
                if (fabsf(got[i].score - want[i].score) > 1e-4f) FAIL("score differs at rank %zu", i);
                if (pass) ASSERT((got[i].id / 10000) % 3 == t % 3); /* only candidates */
            }
            /* against the original floats: quantisation keeps nearly all of the top k */
            size_t fw = reference(s, q, rr, pass ? nr : 0, k, fl, true, orig, ids, s->n);
            for (size_t i = 0; i < fw; i++)
                for (size_t j = 0; j < w; j++)
                    if (fl[i].id == got[j].id) overlap++;
            total += fw;
        }
    }
    if (!clustered && overlap * 10 < total * 9) FAIL("top-k overlap with float originals %zu/%zu", overlap, total);
    /* scoring given ids */
    int64_t some[3] = {ids[5], ids[100], 424242};
    float sc[3], q[1024];
    rand_unit(q, dim);
    ASSERT_EQ_INT(mg_vset_score(s, q, some, 3, sc), 0);
    ASSERT(!isnan(sc[0]) && !isnan(sc[1]) && isnan(sc[2]));
    struct mg_vmatch one[1];
    struct mg_vrange just = {ids[100], ids[100]};
    ASSERT_EQ_INT(mg_vset_search(s, q, &just, 1, 1, one), 1);
    ASSERT(fabsf(one[0].score - sc[1]) < 1e-5f);
    free(orig);
    free(ids);
    mg_vset_unref(&s);
}

TEST(vstore_exact_against_float_reference)
{
    check_exact(256, false, 150, 20);
    check_exact(100, false, 150, 20); /* not a multiple of the SIMD width */
    check_exact(64, true, 150, 20);   /* near-duplicates: the full float rescan path */
    check_exact(32, false, 1000, 400); /* 400,000 vectors: the scan is shared by threads */
}

/* The block kernel against a scalar dot product of the rows: dense and
 * sparse queries, pieces that start and end inside blocks. */
TEST(vstore_int8_scores_match_rows)
{
    unsigned char key[MG_VKEY_BYTES];
    memset(key, 9, sizeof(key));
    float *orig;
    int64_t *ids;
    const int dims[] = {256, 100, 7};
    for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++) {
        int dim = dims[di];
        struct mg_vset *s = make_set(key, dim, 5, 1700, false, &orig, &ids); /* 8,500 vectors: three blocks */
        int8_t row[256], want_q[256], qq[256];
        for (size_t i = 0; i < s->n; i += 97) { /* the layout keeps each vector */
            size_t o = 0;
            while (ids[o] != s->ids[i]) o++;
            float sc;
            mg_vec_quantize(orig + o * (size_t)dim, dim, want_q, &sc);
            mg_vset_get(s, i, row);
            ASSERT(memcmp(row, want_q, (size_t)dim) == 0);
        }
        int32_t *got = malloc(s->n * sizeof(int32_t));
        for (int pass = 0; pass < 3; pass++) {
            for (int x = 0; x < dim; x++) /* dense, 1 in 9 nonzero, a single dimension */
                qq[x] = (int8_t)(pass == 0 || (pass == 1 && x % 9 == 4) || (pass == 2 && x == dim / 2)
                                     ? (x * 53 + 11) % 255 - 127 : 0);
            const size_t B = MG_VBLOCK, n = s->n;
            ASSERT(n > 2 * B + 1);
            const size_t pieces[][2] = {{0, n}, {3, 5}, {B - 20, B + 10}, {B - 1, 2 * B + 1}, {17, n - 167}, {n - 1, n}};
            for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
                size_t lo = pieces[p][0], hi = pieces[p][1];
                ASSERT_EQ_INT(mg_vset_dot_i8(s, qq, lo, hi, got), 0);
                for (size_t i = lo; i < hi; i++) {
                    mg_vset_get(s, i, row);
                    int32_t want = 0;
                    for (int x = 0; x < dim; x++) want += (int32_t)qq[x] * row[x];
                    if (got[i - lo] != want)
                        FAIL("dim %d pass %d vector %zu: %d, expected %d", dim, pass, i, got[i - lo], want);
                }
            }
        }
        free(got);
        free(orig);
        free(ids);
        mg_vset_unref(&s);
    }
}

TEST(vstore_tampered_or_moved_blob_fails)
{
    unsigned char key[MG_VKEY_BYTES], other[MG_VKEY_BYTES];
    memset(key, 1, sizeof(key));
    memset(other, 2, sizeof(other));
    float v[2 * 32];
    rand_unit(v, 32);
    rand_unit(v + 32, 32);
    int64_t ids[2] = {10, 11};
    void *blob;
    size_t len;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_vblob_seal(key, "r", 5, 32, 2, ids, v, &blob, &len, &err), 0);
    struct mg_vset *s = calloc(1, sizeof(*s));
    s->refs = 1;
    ASSERT_EQ_INT(mg_vset_add_blob(s, key, "r", 5, blob, len, &err), 0);
    ASSERT_EQ_INT(s->n, 2);
    unsigned char *b = blob;
    b[len / 2] ^= 1;
    ASSERT_EQ_INT(mg_vset_add_blob(s, key, "r", 5, blob, len, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    b[len / 2] ^= 1;
    ASSERT_EQ_INT(mg_vset_add_blob(s, key, "r", 6, blob, len, &err), -1);   /* another row */
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    ASSERT_EQ_INT(mg_vset_add_blob(s, key, "r2", 5, blob, len, &err), -1);  /* another repo */
    ASSERT_EQ_INT(mg_vset_add_blob(s, other, "r", 5, blob, len, &err), -1); /* another key */
    ASSERT_EQ_INT(mg_vset_add_blob(s, key, "r", 5, blob, 10, &err), -1);    /* truncated */
    ASSERT_EQ_INT(s->n, 2);
    free(blob);
    mg_vset_unref(&s);
}

/* The column file answers exactly as the whole set: the same ids and
 * scores for sparse and dense queries, with and without candidate ranges,
 * reading only the query's columns; and every part is sealed. */
TEST(vstore_column_file_answers_as_the_whole_set)
{
    unsigned char key[MG_VKEY_BYTES], other[MG_VKEY_BYTES];
    memset(key, 3, sizeof(key));
    memset(other, 4, sizeof(other));
    float *orig;
    int64_t *ids;
    int dim = 64;
    struct mg_vset *s = make_set(key, dim, 900, 10, false, &orig, &ids); /* 9,000 vectors: 3 blocks, the last partial */
    char *dir = mg_t_tmpdir(), db[4200], vec[4300];
    snprintf(db, sizeof(db), "%s/r.db", dir);
    mg_vcols_path(db, vec, sizeof(vec));
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_vcols_write(db, "repo1", "7:abc", key, s, &err), 0);
    char gen[64];
    ASSERT_EQ_INT(mg_vcols_gen(db, gen, NULL), 0);
    ASSERT_EQ_STR(gen, "7:abc");
    struct mg_vset *part = NULL;
    for (int t = 0; t < 12; t++) {
        float q[64];
        rand_unit(q, dim);
        if (t < 8) { /* a few words: most dimensions zero */
            for (int x = 0; x < dim; x++)
                if ((x * 5 + t) % 11) q[x] = 0;
            mg_vec_normalize(q, dim);
        }
        struct mg_vset *fresh = NULL;
        ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", key, q, dim, &fresh, &err), 0);
        ASSERT(fresh->have);
        for (int x = 0; x < dim; x++) ASSERT_EQ_INT(fresh->have[x], q[x] != 0); /* only the query's columns */
        /* and a set grown query by query */
        ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", key, q, dim, &part, &err), 0);
        struct mg_vrange r[40];
        size_t nr = 0;
        for (int f = t % 4; f < 900 && nr < 40; f += 4) r[nr++] = (struct mg_vrange){f * 10000, f * 10000 + 9999};
        for (int pass = 0; pass < 2; pass++) {
            struct mg_vmatch want[20], got[20], got2[20];
            long w = mg_vset_search(s, q, pass ? r : NULL, pass ? nr : 0, 20, want);
            ASSERT_EQ_INT(mg_vset_search(fresh, q, pass ? r : NULL, pass ? nr : 0, 20, got), w);
            ASSERT_EQ_INT(mg_vset_search(part, q, pass ? r : NULL, pass ? nr : 0, 20, got2), w);
            for (long i = 0; i < w; i++) {
                ASSERT_EQ_INT(got[i].id, want[i].id);
                ASSERT_EQ_INT(got2[i].id, want[i].id);
                ASSERT(got[i].score == want[i].score && got2[i].score == want[i].score);
            }
        }
        int64_t some[3] = {ids[5], ids[8999], 424242};
        float a[3], b[3];
        ASSERT_EQ_INT(mg_vset_score(s, q, some, 3, a), 0);
        ASSERT_EQ_INT(mg_vset_score(fresh, q, some, 3, b), 0);
        ASSERT(a[0] == b[0] && a[1] == b[1] && isnan(b[2]));
        mg_vset_unref(&fresh);
    }
    mg_vset_unref(&part);

    float dense[64];
    rand_unit(dense, dim);
    struct mg_vset *x = NULL;
    /* another generation, another dimension: not this file's; the blobs answer */
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "8:abc", key, dense, dim, &x, &err), 1);
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", key, dense, 32, &x, &err), 1);
    ASSERT(!x);
    /* another repo or key: every part fails */
    ASSERT_EQ_INT(mg_vcols_read(db, "repo2", "7:abc", key, dense, dim, &x, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", other, dense, dim, &x, &err), -1);
    ASSERT(!x);
    /* one byte of the last column changed: a query that reads it fails, one that does not still answers */
    size_t len;
    FILE *vf = fopen(vec, "rb");
    ASSERT(vf);
    fseek(vf, 0, SEEK_END);
    len = (size_t)ftell(vf);
    rewind(vf);
    unsigned char *bytes = malloc(len);
    ASSERT_EQ_INT(fread(bytes, 1, len, vf), len);
    fclose(vf);
    bytes[len - 20] ^= 1;
    mg_t_write(dir, "r.db.vec", (const char *)bytes, len);
    err = (struct mg_err){0};
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", key, dense, dim, &x, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    ASSERT(!x);
    float first[64] = {1};
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "7:abc", key, first, dim, &x, &err), 0);
    mg_vset_unref(&x);
    /* the header's generation rewritten to another's: every part fails */
    bytes[len - 20] ^= 1;
    memcpy(memmem(bytes, 128, "7:abc", 5), "8:abc", 5);
    mg_t_write(dir, "r.db.vec", (const char *)bytes, len);
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "8:abc", key, first, dim, &x, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    /* truncated */
    mg_t_write(dir, "r.db.vec", (const char *)bytes, len - 1);
    ASSERT_EQ_INT(mg_vcols_read(db, "repo1", "8:abc", key, first, dim, &x, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_VECTOR_TAMPERED);
    ASSERT(!x);
    free(bytes);
    free(orig);
    free(ids);
    mg_vset_unref(&s);
}

TEST(vkey_file_and_master_key)
{
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s/home", mg_t_tmpdir());
    unsetenv("MEMGATE_MASTER_KEY");
    unsigned char k1[MG_VKEY_BYTES], k2[MG_VKEY_BYTES], k3[MG_VKEY_BYTES], k4[MG_VKEY_BYTES];
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_vkey_load(&c, "local", k1, &err), 0);
    char path[4200];
    snprintf(path, sizeof(path), "%s/keys/local.key", c.home);
    struct stat sb;
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT_EQ_INT(sb.st_mode & 0777, 0600);
    ASSERT_EQ_INT(mg_vkey_load(&c, "local", k2, &err), 0);
    ASSERT(memcmp(k1, k2, sizeof(k1)) == 0);
    ASSERT_EQ_INT(mg_vkey_load(&c, "acme", k3, &err), 0); /* each tenant its own */
    ASSERT(memcmp(k1, k3, sizeof(k1)) != 0);
    chmod(path, 0644);
    ASSERT_EQ_INT(mg_vkey_load(&c, "local", k2, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_KEY);
    setenv("MEMGATE_MASTER_KEY", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 1);
    ASSERT_EQ_INT(mg_vkey_load(&c, "local", k2, &err), 0);
    ASSERT_EQ_INT(mg_vkey_load(&c, "acme", k4, &err), 0);
    ASSERT(memcmp(k1, k2, sizeof(k1)) != 0 && memcmp(k2, k4, sizeof(k2)) != 0);
    setenv("MEMGATE_MASTER_KEY", "not-hex", 1);
    ASSERT_EQ_INT(mg_vkey_load(&c, "local", k2, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_KEY);
    unsetenv("MEMGATE_MASTER_KEY");
}

/* ---- natural language, hybrid and scope through the CLI ---------------------------------------- */

TEST(natural_language_rule)
{
    static const char *yes[] = {"how are widgets counted", "where is the http header parsed?",
                                "Free the page cache, then retry.", "memory allocation failure handling",
                                "what does the scheduler do on idle", "crash in redis 7.0.2 when saving",
                                /* a bug report: prose that names some code */
                                "Fix crash on RM_Call inside module load when the cluster is initialized later",
                                "the timeout (in seconds) overflows once getTimeoutFromObjectOrReply multiplies it by a thousand"};
    static const char *no[] = {"spin_lock_irqsave", "http header", "parseHttpHeader in the parser",
                               "foo(bar) is called", "struct file_operations *ops", "a->b member access",
                               "std::vector of ints", "read config.yaml file", "x = y + z", "#include stdio h",
                               "two words", "",
                               /* prose, but too little for the code it names */
                               "RM_Call crashes in module load", "if (x == NULL) return -1; in the parser code",
                               "rename parse_header to parse_http_header and read_line to http_read_line now"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!mg_query_is_natural(yes[i])) FAIL("'%s' should be natural language", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (mg_query_is_natural(no[i])) FAIL("'%s' should not be natural language", no[i]);
}

TEST(identifiers_a_query_names)
{
    const char *st[MG_QUERY_IDENTS_MAX];
    size_t len[MG_QUERY_IDENTS_MAX];
    char got[512];
    static const struct {
        const char *q, *want;
    } cases[] = {
        {"Fix crash on RM_Call when server.cluster_enabled is set, see RM_Call", "RM_Call cluster_enabled"},
        /* (__attribute__ is the plain word it wraps) */
        {"getTimeoutFromObjectOrReply overflows; __attribute__ and _private_thing too",
         "getTimeoutFromObjectOrReply private_thing"},
        {"plain words only, http2 and utf8 and a_b", ""},
        {"a_b_c x_y ab_c9 9a_b", "a_b_c ab_c9"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = mg_query_identifiers(cases[i].q, st, len, MG_QUERY_IDENTS_MAX), o = 0;
        got[0] = 0;
        for (size_t k = 0; k < n; k++) o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%.*s", k ? " " : "", (int)len[k], st[k]);
        ASSERT_EQ_STR(got, cases[i].want);
    }
}

TEST(content_words_for_the_lexical_half)
{
    char out[256];
    ASSERT_EQ_INT(mg_query_content_words("How does the scheduler pick the next task?", 0, out, sizeof(out)), 4);
    ASSERT_EQ_STR(out, "scheduler pick next task");
    /* past the cap, the longest words stay, in query order; repeats count once */
    ASSERT_EQ_INT(mg_query_content_words("a page is freed when the page cache shrinks under memory pressure "
                                         "from the allocator", 3, out, sizeof(out)),
                  3);
    ASSERT_EQ_STR(out, "shrinks pressure allocator");
    ASSERT_EQ_INT(mg_query_content_words("the of and", 5, out, sizeof(out)), 0);
    ASSERT_EQ_STR(out, "");
}

static void push_hit(struct mg_results *r, const char *path, int start, int end, const char *symbol,
                     const char *kind)
{
    r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
    ASSERT(r->v != NULL);
    struct mg_hit *h = &r->v[r->n++];
    memset(h, 0, sizeof(*h));
    snprintf(h->repo, sizeof(h->repo), "poly");
    h->path = strdup(path);
    h->language = strdup("python");
    h->start_line = h->line = start;
    h->end_line = end;
    h->symbol = strdup(symbol);
    h->kind = strdup(kind);
    h->snippet = strdup("...");
}

/* A definition the symbol half found inside a chunk of another half names
 * the fused hit, in either order: a method in its class's chunk is the
 * method (with the chunk's lines and snippet), not the class. The best
 * definition in the chunk names it. */
TEST(hybrid_fusion_names_the_definition_in_a_chunk)
{
    for (int order = 0; order < 2; order++) {
        struct mg_results lex = {.mode = "lexical"}, sym = {.mode = "symbol"}, out = {0};
        push_hit(&lex, "py/bucket.py", 1, 6, "TokenBucket", "class");
        push_hit(&sym, "py/bucket.py", 4, 6, "refill", "method");
        if (order == 0) push_hit(&sym, "py/bucket.py", 1, 6, "TokenBucket", "class");
        struct mg_results *lists[2] = {order ? &sym : &lex, order ? &lex : &sym};
        ASSERT_EQ_INT(mg_rrf_fuse(lists, 2, 10, NULL, 0, &out), 0);
        ASSERT_EQ_INT(out.n, 1);
        ASSERT_EQ_STR(out.v[0].symbol, "refill");
        ASSERT_EQ_STR(out.v[0].kind, "method");
        ASSERT_EQ_INT(out.v[0].start_line, 1);
        ASSERT_EQ_INT(out.v[0].end_line, 6);
        mg_results_release(&out);
        mg_results_release(&lex);
        mg_results_release(&sym);
    }
}

/* A path list (whole files a query's words name) raises the best chunk of
 * each file it names by MG_RRF_PATH_WEIGHT / (K + rank), and brings in no
 * file the other lists did not find. */
TEST(hybrid_fusion_path_list_raises_the_files_best_chunk)
{
    struct mg_results lex = {.mode = "lexical"}, paths = {.mode = "path"}, out = {0};
    push_hit(&lex, "src/a.c", 1, 5, "a_one", "function");
    push_hit(&lex, "src/cluster.c", 10, 20, "c_two", "function");
    push_hit(&lex, "src/cluster.c", 30, 40, "c_three", "function");
    push_hit(&paths, "src/cluster.c", 0, 0, "-", "-");
    push_hit(&paths, "src/other.c", 0, 0, "-", "-"); /* found by no other list */
    struct mg_results *lists[2] = {&lex, &paths};
    ASSERT_EQ_INT(mg_rrf_fuse(lists, 2, 10, NULL, 0, &out), 0);
    ASSERT_EQ_INT(out.n, 3);
    ASSERT_EQ_STR(out.v[0].path, "src/cluster.c");
    ASSERT_EQ_INT(out.v[0].start_line, 10); /* its best chunk, not every chunk */
    double want = 1.0 / (MG_RRF_K + 2) + MG_RRF_PATH_WEIGHT / (MG_RRF_K + 1);
    ASSERT(fabs(out.v[0].score - want) < 1e-12);
    ASSERT_EQ_STR(out.v[1].path, "src/a.c");
    ASSERT_EQ_STR(out.v[2].path, "src/cluster.c");
    ASSERT_EQ_INT(out.v[2].start_line, 30);
    ASSERT(fabs(out.v[2].score - 1.0 / (MG_RRF_K + 3)) < 1e-12);
    mg_results_release(&out);
    mg_results_release(&lex);
    mg_results_release(&paths);
}

/* The lists' weights (config hybrid_weights) and k: a list of weight 0 is
 * left out (what only it found does not come in), a weight scales what its
 * ranks add. */
TEST(hybrid_fusion_weights_and_k)
{
    double w[4] = {1, 0, 2, 0.5};
    struct mg_results lex = {.mode = "lexical"}, sem = {.mode = "semantic"}, sym = {.mode = "symbol"}, out = {0};
    push_hit(&lex, "src/a.c", 1, 5, "a_one", "function");
    push_hit(&lex, "src/b.c", 1, 5, "b_one", "function");
    push_hit(&sem, "src/b.c", 1, 5, "b_one", "function");
    push_hit(&sem, "src/only_semantic.c", 1, 5, "s", "function");
    push_hit(&sym, "src/b.c", 2, 3, "b_one", "function");
    struct mg_results *lists[3] = {&lex, &sem, &sym};
    ASSERT_EQ_INT(mg_rrf_fuse(lists, 3, 10, w, 10, &out), 0);
    ASSERT_EQ_INT(out.n, 2);
    ASSERT_EQ_STR(out.v[0].path, "src/b.c"); /* 1/(10+2) + 2/(10+1), nothing from semantic */
    ASSERT(fabs(out.v[0].score - (1.0 / 12 + 2.0 / 11)) < 1e-12);
    ASSERT_EQ_INT(out.v[0].rank_semantic, 0);
    ASSERT_EQ_STR(out.v[1].path, "src/a.c");
    ASSERT(fabs(out.v[1].score - 1.0 / 11) < 1e-12);
    mg_results_release(&out);
    mg_results_release(&lex);
    mg_results_release(&sem);
    mg_results_release(&sym);
}

/* The graph list (files the reference graph links to the best ones) works
 * as the path list does, with its own weight (w[4]). */
TEST(hybrid_fusion_graph_list)
{
    double w[5] = {1, 1, 2, 0.25, 0.5};
    struct mg_results lex = {.mode = "lexical"}, graph = {.mode = "graph"}, out = {0};
    push_hit(&lex, "src/a.c", 1, 5, "a_one", "function");
    push_hit(&lex, "src/b.c", 1, 5, "b_one", "function");
    push_hit(&graph, "src/b.c", 0, 0, "-", "-");
    push_hit(&graph, "src/elsewhere.c", 0, 0, "-", "-");
    struct mg_results *lists[2] = {&lex, &graph};
    ASSERT_EQ_INT(mg_rrf_fuse(lists, 2, 10, w, 60, &out), 0);
    ASSERT_EQ_INT(out.n, 2);
    ASSERT_EQ_STR(out.v[0].path, "src/b.c");
    ASSERT(fabs(out.v[0].score - (1.0 / 62 + 0.5 / 61)) < 1e-12);
    mg_results_release(&out);
    mg_results_release(&lex);
    mg_results_release(&graph);
}

static void write_corpus(const char *repo)
{
    mg_t_write_str(repo, "alpha/pool.c",
                   "/* Grow the buffer pool when every buffer is in use. */\n"
                   "int pool_grow(struct pool *p)\n{\n    return pool_alloc_buffers(p, p->count * 2);\n}\n");
    mg_t_write_str(repo, "beta/pool.c",
                   "/* Shrink the buffer pool when buffers sit unused. */\n"
                   "int pool_shrink(struct pool *p)\n{\n    return pool_free_buffers(p, p->count / 2);\n}\n");
    mg_t_write_str(repo, "gamma/net.c",
                   "/* Send a packet on the network device queue. */\n"
                   "int net_xmit(struct sk_buff *skb)\n{\n    return dev_queue_xmit(skb);\n}\n");
}

TEST(semantic_and_hybrid_search_with_scope)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    write_corpus(repo);
    json_t *ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "sem", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.chunks"), 3);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(ix, "vectors"), "embedder")), "model:");
    json_decref(ix);

    json_t *j = mg_fx_search(repo, home, "grow the buffer pool", "semantic", 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "semantic");
    ASSERT(mg_fx_has_hit(j, "alpha/pool.c", "pool_grow"));
    json_decref(j);
    /* the scope is applied before scoring: limit 1 inside beta/ still finds beta's chunk */
    json_t *k = mg_fx_run_json(repo, home, (const char *const[]){"search", "grow the buffer pool", "--mode",
                                                                 "semantic", "--glob", "beta/**", "--limit", "1",
                                                                 "--json", NULL});
    ASSERT_EQ_INT(json_array_size(json_object_get(k, "results")), 1);
    ASSERT(mg_fx_has_hit(k, "beta/pool.c", "pool_shrink"));
    json_decref(k);
    k = mg_fx_run_json(repo, home, (const char *const[]){"search", "send a packet on the network", "--mode",
                                                         "semantic", "--exclude", "gamma/**", "--json", NULL});
    ASSERT(!mg_fx_has_hit(k, "gamma/net.c", NULL));
    ASSERT(json_array_size(json_object_get(k, "results")) > 0);
    json_decref(k);

    /* the default: hybrid for natural language, lexical for an identifier */
    k = mg_fx_run_json(repo, home, (const char *const[]){"search", "send a packet on the network", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(k, "mode")), "hybrid");
    json_t *first = json_array_get(json_object_get(k, "results"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(first, "path")), "gamma/net.c");
    json_decref(k);
    k = mg_fx_run_json(repo, home, (const char *const[]){"search", "pool_grow", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(k, "mode")), "lexical");
    first = json_array_get(json_object_get(k, "results"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(first, "symbol")), "pool_grow");
    json_decref(k);
    /* a bug report: prose about the pool that names net_xmit; hybrid, and the definition it names first */
    k = mg_fx_run_json(repo, home, (const char *const[]){"search", "when every buffer of the pool is in use the pool "
                                                         "grows, and net_xmit fails", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(k, "mode")), "hybrid");
    first = json_array_get(json_object_get(k, "results"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(first, "path")), "gamma/net.c");
    ASSERT_EQ_STR(json_string_value(json_object_get(first, "symbol")), "net_xmit");
    json_decref(k);
}

/* The score of path's first hit in a hybrid search's JSON, or -1. */
static double hit_score(json_t *res, const char *path)
{
    json_t *h;
    size_t i;
    json_array_foreach(json_object_get(res, "results"), i, h)
        if (strcmp(json_string_value(json_object_get(h, "path")), path) == 0)
            return json_real_value(json_object_get(h, "score"));
    return -1;
}

/* The graph list: a found file that uses a name one of the best files
 * defines rises (its score grows by the graph list's share); one linked to
 * none does not. */
TEST(hybrid_graph_list_raises_files_linked_to_the_best)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    mg_t_write_str(repo, "ring/reserve.c",
                   "/* Reserve a slot in the ring buffer before writing a record. */\n"
                   "int ring_reserve_slot(struct ring *r)\n{\n    return ring_advance_head(r);\n}\n");
    mg_t_write_str(repo, "log/write.c",
                   "/* Write one record to the log. */\n"
                   "void log_write_record(struct ring *r)\n{\n    ring_reserve_slot(r);\n}\n");
    mg_t_write_str(repo, "trace/put.c",
                   "/* Write one record to the trace. */\n"
                   "void trace_put_record(struct sink *s)\n{\n    sink_append_bytes(s);\n}\n");
    mg_t_write_str(repo, "sink/append.c", "int sink_append_bytes(struct sink *s)\n{\n    return 0;\n}\n");
    mg_t_write_str(repo, "misc/clock.c", "/* Read the wall clock. */\nlong clock_read_wall(void)\n{\n    return 0;\n}\n");
    mg_t_write_str(repo, "misc/units.c", "/* Convert units of time. */\nlong units_to_msecs(long t)\n{\n    return t;\n}\n");
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "gr", "--json", NULL}));
    const char *const argv[] = {"search", "reserve a slot in the ring buffer before writing a record", "--mode",
                                "hybrid", "--json", NULL};
    /* (the whole-file list fuses the files by rank again, which keeps the order and drops the share) */
    setenv("MEMGATE_RANK_OFF", "whole", 1);
    setenv("MEMGATE_HYBRID_WEIGHTS", "1,1,2,0.25,0", 1);
    json_t *off = mg_fx_run_json(repo, home, argv);
    setenv("MEMGATE_HYBRID_WEIGHTS", "1,1,2,0.25,1", 1);
    json_t *on = mg_fx_run_json(repo, home, argv);
    unsetenv("MEMGATE_HYBRID_WEIGHTS");
    unsetenv("MEMGATE_RANK_OFF");
    ASSERT_EQ_STR(json_string_value(json_object_get(on, "mode")), "hybrid");
    double b0 = hit_score(off, "log/write.c"), b1 = hit_score(on, "log/write.c");
    double c0 = hit_score(off, "trace/put.c"), c1 = hit_score(on, "trace/put.c");
    ASSERT(b0 > 0 && c0 > 0);
    if (!(b1 > b0 + 1e-6)) FAIL("log/write.c uses ring_reserve_slot: %.6f -> %.6f", b0, b1);
    if (fabs(c1 - c0) > 1e-9) FAIL("trace/put.c links to no best file: %.6f -> %.6f", c0, c1);
    json_decref(off);
    json_decref(on);
}

TEST(endpoint_down_indexes_keyword_only_then_embeds)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    write_corpus(repo);
    srv_start();
    setenv("MEMGATE_EMBEDDER", "openai", 1);
    setenv("MEMGATE_EMBED_URL", "http://127.0.0.1:1/v1", 1);
    setenv("MEMGATE_EMBED_RETRIES", "0", 1);
    setenv("MEMGATE_EMBED_API_KEY", "sekrit-key-123", 1);
    struct mg_t_out o = MG_RUN(NULL, home, "index", repo, "--name", "down", "--json");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.err, "embed_unavailable");
    ASSERT_CONTAINS(o.err, "http://127.0.0.1:1/v1/embeddings");
    ASSERT_CONTAINS(o.err, "keyword-only");
    ASSERT_NOT_CONTAINS(o.err, "sekrit");
    ASSERT_NOT_CONTAINS(o.out, "sekrit");
    json_t *ix = mg_t_json(o.out);
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.pending"), 3);
    json_decref(ix);
    mg_t_out_free(&o);
    /* keyword search works; semantic says why it cannot */
    json_t *j = mg_fx_search(repo, home, "pool_grow", "lexical", 5);
    ASSERT(mg_fx_has_hit(j, "alpha/pool.c", "pool_grow"));
    json_decref(j);
    j = mg_fx_run_json(repo, home, (const char *const[]){"search", "grow the buffer pool", "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "mode")), "lexical");
    json_decref(j);
    o = MG_RUN(repo, home, "search", "grow the pool", "--mode", "semantic");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "no_embeddings");
    mg_t_out_free(&o);

    /* the endpoint is back: the next index embeds what is missing */
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/ok/v1", srv.port);
    setenv("MEMGATE_EMBED_URL", url, 1);
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 3);
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.pending"), 0);
    json_decref(ix);
    ASSERT_EQ_INT(srv.auth_ok, 1);
    j = mg_fx_search(repo, home, "grow the buffer pool", "semantic", 3);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 3);
    json_decref(j);

    /* another embedder: the vectors are stale and all are made again */
    setenv("MEMGATE_EMBEDDER", "builtin", 1);
    o = MG_RUN(repo, home, "search", "grow the pool", "--mode", "semantic");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "no_embeddings");
    mg_t_out_free(&o);
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 3);
    ASSERT(json_is_true(json_object_get(json_object_get(ix, "vectors"), "reembedded")));
    json_decref(ix);
    /* none drops them */
    setenv("MEMGATE_EMBEDDER", "none", 1);
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--json", NULL});
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(ix, "vectors"), "embedder")), "none");
    json_decref(ix);
    o = MG_RUN(repo, home, "search", "grow the pool", "--mode", "semantic");
    ASSERT_CONTAINS(o.err, "no_embeddings");
    mg_t_out_free(&o);
    unsetenv("MEMGATE_EMBEDDER");
    unsetenv("MEMGATE_EMBED_URL");
    unsetenv("MEMGATE_EMBED_RETRIES");
    unsetenv("MEMGATE_EMBED_API_KEY");
}

/* One integer from the repo database of home's repo `name` (-1: no row). */
static long long db_int(const char *home, const char *name, const char *sql)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/%s.db", home, name);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) FAIL("open %s", path);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) FAIL("%s: %s", sql, sqlite3_errmsg(db));
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE) FAIL("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* the vectors match the files: a row for each, none for a file gone, and the pass's mark at the last id */
static void vectors_match_files(const char *home, const char *name, long long nfiles)
{
    ASSERT_EQ_INT(db_int(home, name, "SELECT count(*) FROM vectors"), nfiles);
    ASSERT_EQ_INT(db_int(home, name, "SELECT count(*) FROM files"), nfiles);
    ASSERT_EQ_INT(db_int(home, name, "SELECT count(*) FROM vectors WHERE file_id NOT IN (SELECT id FROM files)"), 0);
    ASSERT_EQ_INT(db_int(home, name, "SELECT count(*) FROM vectors_dropped"), 0);
    ASSERT_EQ_INT(db_int(home, name, "SELECT value FROM meta WHERE key = 'vec_through'"),
                  db_int(home, name, "SELECT max(id) FROM files"));
}

TEST(an_edit_embeds_its_files_and_drops_the_vectors_of_the_files_it_replaced)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    write_corpus(repo);
    json_t *ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "inc", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 3);
    json_decref(ix);
    vectors_match_files(home, "inc", 3);

    /* one file changed, one removed, one added: the pass embeds the two new ones (ids above its mark) and
     * drops the vectors of the two gone (listed by the run that dropped them) */
    mg_t_write_str(repo, "alpha/pool.c",
                   "/* Grow the pool of worker threads. */\nint pool_widen(int n) { return n; }\n");
    char gone[4200];
    snprintf(gone, sizeof(gone), "%s/beta/pool.c", repo);
    ASSERT_EQ_INT(unlink(gone), 0);
    mg_t_write_str(repo, "delta/disk.c",
                   "/* Flush the disk cache to the platters. */\nint disk_flush(void) { return 0; }\n");
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "inc", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 2);
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.pending"), 0);
    json_decref(ix);
    vectors_match_files(home, "inc", 3);
    json_t *j = mg_fx_search(repo, home, "write the cached blocks out to the disk", "semantic", 3);
    ASSERT_EQ_INT(json_array_size(json_object_get(j, "results")), 3);
    char *text = json_dumps(j, 0);
    ASSERT_CONTAINS(text, "delta/disk.c");
    ASSERT_NOT_CONTAINS(text, "beta/pool.c");
    free(text);
    json_decref(j);

    /* an index of schema 6 with an orphan an older pass left: the migration lists it, the next pass drops it */
    ASSERT_EQ_INT(db_int(home, "inc", "INSERT INTO vectors(file_id, n, blob) VALUES(999999, 1, x'00') RETURNING 1"),
                  1);
    db_int(home, "inc", "DROP TABLE vectors_dropped");
    db_int(home, "inc", "DROP INDEX vectors_n");
    db_int(home, "inc", "DELETE FROM meta WHERE key = 'vec_through'");
    db_int(home, "inc", "PRAGMA user_version = 6");
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "inc", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 0);
    json_decref(ix);
    ASSERT_EQ_INT(db_int(home, "inc", "PRAGMA user_version"), 7);
    vectors_match_files(home, "inc", 3);

    /* embedder none drops every vector and the mark; back to builtin, every file is embedded again */
    setenv("MEMGATE_EMBEDDER", "none", 1);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "inc", "--json", NULL}));
    ASSERT_EQ_INT(db_int(home, "inc", "SELECT count(*) FROM vectors"), 0);
    ASSERT_EQ_INT(db_int(home, "inc", "SELECT value FROM meta WHERE key = 'vec_through'"), 0);
    unsetenv("MEMGATE_EMBEDDER");
    ix = mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "inc", "--json", NULL});
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.files"), 3);
    json_decref(ix);
    vectors_match_files(home, "inc", 3);
}

TEST(tampered_vector_blob_is_reported)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    write_corpus(repo);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "tam", "--json", NULL}));
    json_t *j = mg_fx_search(repo, home, "grow the buffer pool", "semantic", 3);
    json_decref(j);
    mg_fx_tamper_vectors(home, "tam");
    /* a process that reads the blobs finds it: one without the column file
     * (a CLI search reads that file instead, a sealed copy of its own:
     * vload_cli_reads_the_column_file changes that one) */
    char vec[4200];
    snprintf(vec, sizeof(vec), "%s/repos/tam.db.vec", home);
    ASSERT_EQ_INT(unlink(vec), 0);
    struct mg_t_out o = MG_RUN(repo, home, "search", "grow the buffer pool", "--mode", "semantic");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "vector_tampered");
    mg_t_out_free(&o);
}
