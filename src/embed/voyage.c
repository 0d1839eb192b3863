/* voyage.c — the `voyage` embedder: Voyage AI's embeddings API (see
 * embed.h).
 *
 * POST <voyage_url>/embeddings (default https://api.voyageai.com/v1) with
 * {"input": [texts], "model": M, "input_type": "query" | "document"} and,
 * when voyage_dimensions is set, "output_dimension"; the key
 * (voyage_api_key) as a bearer token. The answer is OpenAI's shape,
 * {"data": [{"embedding": [...], "index": i}, ...], "model", "usage"}, read
 * by mg_embed_parse_response; an error answer is {"detail": "..."}.
 *
 * Voyage takes at most 1000 texts and, for voyage-code-3, 120k tokens per
 * request: a request carries at most embed_batch (and never more than
 * 1000) texts and at most 256 KiB of text, which stays under the token
 * budget even for dense code (about 3 bytes a token). The client, its
 * retries (Retry-After honoured) and its limits are http.c's.
 */
#include <stdio.h>
#include <string.h>

#include "embed/http.h"

#define VOYAGE_MAX_TEXTS 1000
#define VOYAGE_MAX_BYTES (256u << 10)

static json_t *voyage_payload(struct mg_embedder *e, enum mg_embed_input type, json_t *input)
{
    struct mg_embed_http *h = e->self;
    json_t *req = mg_embed_http_payload(e, type, input);
    if (!req) return NULL;
    /* (json_object_set_new takes the value's reference even when it fails) */
    if (json_object_set_new(req, "input_type", json_string(type == MG_EMBED_QUERY ? "query" : "document")) != 0 ||
        (h->out_dims > 0 && json_object_set_new(req, "output_dimension", json_integer(h->out_dims)) != 0)) {
        json_decref(req);
        return NULL;
    }
    return req;
}

int mg_embedder_voyage_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err)
{
    *out = NULL;
    const char *base = c->voyage_url[0] ? c->voyage_url : "https://api.voyageai.com/v1";
    if (mg_embed_http_check_url("voyage_url", base, err) != 0) return -1;
    if (!c->voyage_api_key[0])
        return mg_err_set(err, MG_E_CONFIG, "embedder = voyage needs an API key: set voyage_api_key in the config "
                          "file or MEMGATE_VOYAGE_API_KEY (keys at https://dash.voyageai.com)");
    struct mg_embedder *e;
    if (mg_embed_http_new("voyage", &e, err) != 0) return -1;
    struct mg_embed_http *h = e->self;
    mg_embed_http_url_v1(e, base);
    snprintf(e->model, sizeof(e->model), "%s", c->voyage_model[0] ? c->voyage_model : "voyage-code-3");
    snprintf(h->key, sizeof(h->key), "%s", c->voyage_api_key);
    snprintf(h->key_setting, sizeof(h->key_setting), "voyage_api_key (MEMGATE_VOYAGE_API_KEY)");
    h->timeout = c->embed_timeout > 0 ? c->embed_timeout : 60;
    h->retries = c->embed_retries;
    h->out_dims = c->voyage_dimensions;
    h->max_bytes = VOYAGE_MAX_BYTES;
    h->payload = voyage_payload;
    h->parse = mg_embed_parse_response;
    e->batch = c->embed_batch > 0 ? c->embed_batch : 64;
    if (e->batch > VOYAGE_MAX_TEXTS) e->batch = VOYAGE_MAX_TEXTS;
    *out = e;
    return 0;
}
