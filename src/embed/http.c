/* http.c — the HTTP embedders' shared client (see http.h). */
#include "embed/http.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/httpc.h"
#include "util/metrics.h"
#include "util/utf8.h"

/* The most an answer for n texts may be: every number of the largest
 * vectors written out long, and room for the rest. */
static size_t answer_cap(size_t n) { return (64u << 10) + n * (size_t)MG_EMBED_MAX_DIM * 32; }

int mg_embed_http_check_url(const char *setting, const char *url, struct mg_err *err)
{
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return mg_err_set(err, MG_E_CONFIG, "%s '%s' is not an http:// or https:// URL", setting, url);
    return 0;
}

/* The JSON body for texts [0, n) of type t. */
static char *payload_for(struct mg_embedder *e, struct mg_embed_http *h, enum mg_embed_input t,
                         const char *const *texts, const size_t *lens, size_t n)
{
    json_t *input = json_array();
    if (!input) return NULL;
    const char *pre = h->prefix[t == MG_EMBED_QUERY];
    size_t pl = strlen(pre);
    for (size_t i = 0; i < n; i++) {
        char *joined = malloc(pl + lens[i] + 1);
        if (!joined) goto nomem;
        memcpy(joined, pre, pl);
        memcpy(joined + pl, texts[i], lens[i]);
        json_t *s = json_stringn(joined, pl + lens[i]);
        if (!s) { /* not UTF-8: send it repaired */
            char *fixed;
            size_t fl;
            if (mg_utf8_repair(joined, pl + lens[i], &fixed, &fl) != (size_t)-1) {
                s = json_stringn(fixed, fl);
                free(fixed);
            }
        }
        free(joined);
        if (!s || json_array_append_new(input, s) != 0) goto nomem;
    }
    json_t *req = h->payload(e, t, input);
    if (!req) return NULL;
    char *out = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    return out;
nomem:
    json_decref(input);
    return NULL;
}

static void hint_of(void *ud, long status, const char *text, char *out, size_t cap)
{
    struct mg_embedder *e = ud;
    struct mg_embed_http *h = e->self;
    if (h->hint) h->hint(e, status, text, out, cap);
}

/* POST one batch and parse the answer into out (n * dim). */
static int post_batch(struct mg_embedder *e, struct mg_embed_http *h, enum mg_embed_input t,
                      const char *const *texts, const size_t *lens, size_t n, float *out, struct mg_err *err)
{
    char *payload = payload_for(e, h, t, texts, lens, n);
    if (!payload) return mg_err_oom(err);
    struct mg_buf body;
    mg_buf_init(&body, 0);
    struct mg_http_post post = {.url = e->url, .what = "the embeddings endpoint", .key = h->key,
                                .key_setting = h->key_setting[0] ? h->key_setting : NULL, .payload = payload,
                                .timeout_s = h->timeout, .retries = h->retries, .max_response = answer_cap(n),
                                .code_unavailable = MG_E_EMBED_UNAVAILABLE, .code_rejected = MG_E_EMBED_REJECTED,
                                .code_too_large = MG_E_EMBED_BAD_RESPONSE, .hint = hint_of, .hint_ud = e};
    int rc = mg_http_post_json(&post, &body, err);
    free(payload);
    if (rc == 0) {
        int d = __atomic_load_n(&e->dim, __ATOMIC_ACQUIRE);
        float *v;
        struct mg_err pe = {0};
        if (h->parse(body.p ? body.p : "", body.len, n, &d, &v, &pe) != 0) {
            rc = mg_err_set(err, pe.code, "the embeddings endpoint '%s' gave a bad answer: %s", e->url, pe.msg);
        } else {
            int zero = 0;
            if (!__atomic_compare_exchange_n(&e->dim, &zero, d, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
                zero != d)
                rc = mg_err_set(err, MG_E_EMBED_BAD_RESPONSE, "the embeddings endpoint '%s' changed dimensions "
                                "from %d to %d; index the repo again if the model changed", e->url, zero, d);
            else memcpy(out, v, n * (size_t)d * sizeof(float));
            free(v);
        }
    }
    mg_buf_release(&body);
    return rc;
}

static int http_embed(struct mg_embedder *e, enum mg_embed_input t, const char *const *texts, const size_t *lens,
                      size_t n, float *out, struct mg_err *err)
{
    struct mg_embed_http *h = e->self;
    size_t batch = e->batch > 0 ? (size_t)e->batch : 1;
    for (size_t i = 0; i < n;) {
        /* at most batch texts and max_bytes of them (but always one) */
        size_t m = 1, bytes = lens[i];
        while (m < batch && i + m < n && (!h->max_bytes || bytes + lens[i + m] <= h->max_bytes)) bytes += lens[i + m++];
        /* the first answer fixes the dimensions, and so where out's rows are */
        if (post_batch(e, h, t, texts + i, lens + i, m, out + i * (size_t)e->dim, err) != 0) {
            mg_metrics_provider_error(e->name);
            return -1;
        }
        i += m;
    }
    return 0;
}

static void http_release(struct mg_embedder *e)
{
    struct mg_embed_http *h = e->self;
    if (h) memset(h->key, 0, sizeof(h->key));
    free(h);
}

const struct mg_embedder_ops mg_embed_http_ops = {http_embed, NULL, http_release};

void mg_embed_http_url_v1(struct mg_embedder *e, const char *base)
{
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/') bl--;
    const char *tail = "/v1/embeddings";
    if (bl >= 11 && strncmp(base + bl - 11, "/embeddings", 11) == 0) tail = "";
    else if (bl >= 3 && strncmp(base + bl - 3, "/v1", 3) == 0) tail = "/embeddings";
    snprintf(e->url, sizeof(e->url), "%.*s%s", (int)bl, base, tail);
}

json_t *mg_embed_http_payload(struct mg_embedder *e, enum mg_embed_input type, json_t *input)
{
    (void)type; /* OpenAI's API has no input types; Ollama's prefixes carry them (payload_for adds them) */
    json_t *req = json_object();
    if (!req) {
        json_decref(input);
        return NULL;
    }
    /* (json_object_set_new takes the value's reference even when it fails) */
    if (json_object_set_new(req, "input", input) != 0 ||
        (e->model[0] && json_object_set_new(req, "model", json_string(e->model)) != 0)) {
        json_decref(req);
        return NULL;
    }
    return req;
}

int mg_embed_http_new(const char *name, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_embedder *e = calloc(1, sizeof(*e));
    struct mg_embed_http *h = calloc(1, sizeof(*h));
    if (!e || !h) {
        free(e);
        free(h);
        return mg_err_oom(err);
    }
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->batch = 64;
    e->ops = &mg_embed_http_ops;
    e->self = h;
    h->timeout = 60;
    h->payload = mg_embed_http_payload;
    *out = e;
    return 0;
}
