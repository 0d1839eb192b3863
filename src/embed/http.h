/* http.h — the client the HTTP embedders share (openai.c, voyage.c,
 * ollama.c; see embed.h).
 *
 * One embedder is a struct mg_embed_http behind the shared ops
 * (mg_embed_http_ops): the texts go out in batches of at most e->batch
 * texts and max_bytes bytes of text, each batch one POST of the JSON that
 * payload() builds, with "Authorization: Bearer KEY" when a key is set.
 * A request times out after timeout seconds; one that cannot connect, times
 * out, or is answered 429 or 5xx is retried `retries` times, after 0.25 s,
 * 0.5 s, 1 s, ... or after what the endpoint's Retry-After asks when that is
 * longer (at most MG_HTTP_RETRY_AFTER_MAX seconds; the retries are util/httpc.h's mg_http_post_json). Other answers than 200
 * are final: embed_rejected, naming the key's setting on 401 and 403. An
 * answer is read up to a size proportional to the batch and parsed by
 * parse(); the first answer fixes the dimensions, and a later answer of
 * other dimensions is embed_bad_response. Every failed call counts in
 * memgate_provider_errors_total{provider=<name>}.
 *
 * The key never appears in a message: messages name the URL, the HTTP
 * status and the setting, and any echo of the key is masked.
 */
#ifndef MG_EMBED_HTTP_H
#define MG_EMBED_HTTP_H

#include <jansson.h>

#include "embed/embedder.h"

struct mg_embed_http {
    char key[512];         /* bearer token; "" for none */
    char key_setting[64];  /* where the key comes from, for 401/403 messages: "voyage_api_key" */
    char prefix[2][48];    /* put before each text, per enum mg_embed_input ("" for none) */
    int timeout, retries;
    int out_dims;          /* voyage: output_dimension (0: the model's) */
    size_t max_bytes;      /* most bytes of text in one request (0: no limit) */
    /* The request body for n texts (each already prefixed): a JSON object
     * (new reference), or NULL when out of memory. input: the texts' array
     * (a new reference the function takes). */
    json_t *(*payload)(struct mg_embedder *e, enum mg_embed_input type, json_t *input);
    /* Parse an answer: see mg_embed_parse_response. */
    int (*parse)(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err);
    /* What to add to the message of a final error answer (after the
     * endpoint's text), e.g. "; run `ollama pull M`"; NULL: nothing. */
    void (*hint)(struct mg_embedder *e, long status, const char *text, char *out, size_t cap);
};

extern const struct mg_embedder_ops mg_embed_http_ops;

/* A new HTTP embedder named name (e->self is a zeroed struct
 * mg_embed_http but for payload, mg_embed_http_payload; e->ops the shared
 * ops, e->batch 64): fill in the rest. */
int mg_embed_http_new(const char *name, struct mg_embedder **out, struct mg_err *err);

/* The plain request body: {"input": input, "model": e->model} (no model
 * when e->model is ""), as OpenAI's and Ollama's APIs take it; NULL when out
 * of memory. Takes input's reference. */
json_t *mg_embed_http_payload(struct mg_embedder *e, enum mg_embed_input type, json_t *input);

/* e->url for an OpenAI-style base URL (trailing slashes dropped): base +
 * /v1/embeddings; base + /embeddings when it ends in /v1; base itself when
 * it ends in /embeddings. */
void mg_embed_http_url_v1(struct mg_embedder *e, const char *base);

/* url is http:// or https:// (else invalid_config naming setting). */
int mg_embed_http_check_url(const char *setting, const char *url, struct mg_err *err);

#endif
