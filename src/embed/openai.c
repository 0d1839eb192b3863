/* openai.c — the `openai` embedder: any OpenAI-compatible embeddings
 * endpoint (see embed.h).
 *
 * POST <base>/v1/embeddings {"model": M, "input": [texts]} with
 * "Authorization: Bearer KEY" when a key is set. The base URL may end in
 * /v1 or /v1/embeddings. Requests carry at most embed_batch texts, time out
 * after embed_timeout seconds, and are retried embed_retries times with
 * exponential backoff (0.25 s, 0.5 s, 1 s, ...) when the endpoint cannot be
 * reached, times out, or answers 429 or 5xx. Other 4xx answers are final.
 * The key never appears in an error message: messages name the URL and the
 * HTTP status, and any echo of the key in the endpoint's text is masked.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "util/buf.h"
#include "util/httpc.h"
#include "util/utf8.h"

#define MAX_RESPONSE (256u << 20)

struct openai {
    char key[512];
    int timeout, retries;
};

/* ---- the response ------------------------------------------------------------------ */

int mg_embed_parse_response(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer is not JSON (%s at byte %d)", je.text,
                                 je.position);
    json_t *data = json_object_get(root, "data");
    float *v = NULL;
    unsigned char *seen = NULL;
    int d = *dim;
    if (!json_is_array(data)) {
        mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer has no \"data\" array");
        goto fail;
    }
    if (json_array_size(data) != n) {
        mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the answer has %zu embeddings for %zu inputs",
                   json_array_size(data), n);
        goto fail;
    }
    seen = calloc(n + 1, 1);
    if (!seen) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(data, i);
        json_t *emb = json_object_get(item, "embedding"), *idx = json_object_get(item, "index");
        if (!json_is_array(emb)) {
            mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu is not an array of numbers", i);
            goto fail;
        }
        size_t at = i;
        if (idx) {
            if (!json_is_integer(idx) || json_integer_value(idx) < 0 || (size_t)json_integer_value(idx) >= n) {
                mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu has an invalid index", i);
                goto fail;
            }
            at = (size_t)json_integer_value(idx);
        }
        if (seen[at]++) {
            mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "index %zu appears twice in the answer", at);
            goto fail;
        }
        size_t m = json_array_size(emb);
        if (m == 0 || m > MG_EMBED_MAX_DIM || (d && (size_t)d != m)) {
            mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu has %zu dimensions%s%d", i, m,
                       d ? "; expected " : "; allowed 1 to ", d ? d : MG_EMBED_MAX_DIM);
            goto fail;
        }
        if (!d) d = (int)m;
        if (!v && !(v = malloc(n * (size_t)d * sizeof(float)))) {
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
            goto fail;
        }
        for (size_t k = 0; k < m; k++) {
            json_t *x = json_array_get(emb, k);
            double f = json_is_number(x) ? json_number_value(x) : NAN;
            if (!isfinite(f) || fabs(f) > 1e30) {
                mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "embedding %zu has a value that is not a finite number", i);
                goto fail;
            }
            v[at * (size_t)d + k] = (float)f;
        }
    }
    free(seen);
    json_decref(root);
    *dim = d;
    *out = v;
    return 0;
fail:
    free(seen);
    free(v);
    json_decref(root);
    return -1;
}

/* ---- one request --------------------------------------------------------------------- */

/* POST one batch; parses the answer into out (n * dim). */
static int post_batch(struct mg_embedder *e, struct openai *o, const char *const *texts, const size_t *lens,
                      size_t n, float *out, struct mg_err *err)
{
    json_t *input = json_array();
    json_t *req = json_object();
    if (!input || !req) goto nomem_json;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_stringn(texts[i], lens[i]);
        if (!s) { /* not UTF-8: send it repaired */
            char *fixed;
            size_t fl;
            if (mg_utf8_repair(texts[i], lens[i], &fixed, &fl) == (size_t)-1) goto nomem_json;
            s = json_stringn(fixed, fl);
            free(fixed);
        }
        if (!s || json_array_append_new(input, s) != 0) goto nomem_json;
    }
    if (e->model[0]) json_object_set_new(req, "model", json_string(e->model));
    json_object_set_new(req, "input", input);
    input = NULL;
    char *payload = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!payload) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");

    struct mg_http_post post = {
        .url = e->url,
        .what = "the embeddings endpoint",
        .key = o->key,
        .payload = payload,
        .timeout_s = o->timeout,
        .retries = o->retries,
        .max_response = MAX_RESPONSE,
        .code_unavailable = MG_E_EMBED_UNAVAILABLE,
        .code_rejected = MG_E_EMBED_REJECTED,
    };
    struct mg_buf body;
    mg_buf_init(&body, MAX_RESPONSE);
    int rc = -1;
    if (mg_http_post_json(&post, &body, err) == 0) {
        int d = __atomic_load_n(&e->dim, __ATOMIC_ACQUIRE);
        float *v;
        struct mg_err pe = {0};
        int zero = 0;
        if (mg_embed_parse_response(body.p ? body.p : "", body.len, n, &d, &v, &pe) != 0) {
            mg_err_set(err, pe.code, "the embeddings endpoint '%s' gave a bad answer: %s", e->url, pe.msg);
        } else if (!__atomic_compare_exchange_n(&e->dim, &zero, d, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
                   zero != d) {
            free(v);
            mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the embeddings endpoint '%s' changed dimensions from %d to %d",
                       e->url, zero, d);
        } else {
            memcpy(out, v, n * (size_t)d * sizeof(float));
            free(v);
            rc = 0;
        }
    }
    mg_buf_release(&body);
    free(payload);
    return rc;
nomem_json:
    json_decref(input);
    json_decref(req);
    return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
}

static int openai_embed(struct mg_embedder *e, const char *const *texts, const size_t *lens, size_t n, float *out,
                        struct mg_err *err)
{
    struct openai *o = e->self;
    for (size_t i = 0; i < n; i += (size_t)e->batch) {
        size_t m = n - i < (size_t)e->batch ? n - i : (size_t)e->batch;
        /* the first answer fixes the dimensions, and so where out's rows are */
        if (post_batch(e, o, texts + i, lens + i, m, out + i * (size_t)e->dim, err) != 0) return -1;
    }
    return 0;
}

static void openai_release(struct mg_embedder *e)
{
    struct openai *o = e->self;
    if (o) memset(o->key, 0, sizeof(o->key));
    free(o);
}

static const struct mg_embedder_ops openai_ops = {openai_embed, NULL, openai_release};

int mg_embedder_openai_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *base = c->embed_url[0] ? c->embed_url : "https://api.openai.com/v1";
    if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0)
        return mg_err_set(err, MG_E_CONFIG, "embed_url '%s' is not an http:// or https:// URL", base);
    struct mg_embedder *e = calloc(1, sizeof(*e));
    struct openai *o = calloc(1, sizeof(*o));
    if (!e || !o) {
        free(e);
        free(o);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    }
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/') bl--;
    const char *tail = "/v1/embeddings";
    if (bl >= 11 && strncmp(base + bl - 11, "/embeddings", 11) == 0) tail = "";
    else if (bl >= 3 && strncmp(base + bl - 3, "/v1", 3) == 0) tail = "/embeddings";
    snprintf(e->url, sizeof(e->url), "%.*s%s", (int)bl, base, tail);
    snprintf(e->name, sizeof(e->name), "openai");
    snprintf(e->model, sizeof(e->model), "%s",
             c->embed_model[0] ? c->embed_model : c->embed_url[0] ? "" : "text-embedding-3-small");
    snprintf(o->key, sizeof(o->key), "%s", c->embed_api_key);
    o->timeout = c->embed_timeout > 0 ? c->embed_timeout : 60;
    o->retries = c->embed_retries;
    e->batch = c->embed_batch > 0 ? c->embed_batch : 64;
    e->ops = &openai_ops;
    e->self = o;
    *out = e;
    return 0;
}
