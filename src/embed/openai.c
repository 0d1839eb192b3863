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
 * The client is http.c's, shared with voyage.c and ollama.c; the answer's
 * parser (below) is voyage.c's too.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/http.h"

/* ---- the response ------------------------------------------------------------------ */

int mg_embed_parse_response(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err)
{
    *out = NULL;
    json_t *data, *root = mg_embed_answer(body, len, "data", n, &data, err);
    if (!root) return -1;
    float *v = NULL;
    unsigned char *seen = NULL;
    int d = *dim;
    seen = calloc(n + 1, 1);
    if (!seen) {
        mg_err_oom(err);
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
        if (mg_embed_take_row(emb, i, at, n, &d, &v, err) != 0) goto fail;
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

/* ---- the embedder ----------------------------------------------------------------- */

int mg_embedder_openai_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *base = c->embed_url[0] ? c->embed_url : "https://api.openai.com/v1";
    if (mg_embed_http_check_url("embed_url", base, err) != 0) return -1;
    struct mg_embedder *e;
    if (mg_embed_http_new("openai", &e, err) != 0) return -1;
    struct mg_embed_http *h = e->self;
    mg_embed_http_url_v1(e, base);
    snprintf(e->model, sizeof(e->model), "%s",
             c->embed_model[0] ? c->embed_model : c->embed_url[0] ? "" : "text-embedding-3-small");
    snprintf(h->key, sizeof(h->key), "%s", c->embed_api_key);
    snprintf(h->key_setting, sizeof(h->key_setting), "embed_api_key");
    h->timeout = c->embed_timeout > 0 ? c->embed_timeout : 60;
    h->retries = c->embed_retries;
    h->parse = mg_embed_parse_response;
    e->batch = c->embed_batch > 0 ? c->embed_batch : 64;
    *out = e;
    return 0;
}
