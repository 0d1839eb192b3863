/* embed.h — embedders: text in, unit-length float vectors out.
 *
 * An embedder is a vtable (struct mg_embedder_ops) plus its state. The
 * registry (embed.c) builds one from the configuration:
 *
 *   embedder = auto | builtin | openai | voyage | ollama | none   (MEMGATE_EMBEDDER)
 *   embed_url, embed_model, embed_api_key          (MEMGATE_EMBED_URL, ...)
 *   voyage_api_key, voyage_url, voyage_model, voyage_dimensions
 *   ollama_url, ollama_model
 *
 * auto picks from what is configured, in this order, without asking the
 * network: embed_url or embed_api_key set -> openai; voyage_api_key set ->
 * voyage; ollama_url set -> ollama; else builtin.
 * none means keyword-only: mg_embedder_open() gives *out == NULL.
 *
 *   builtin  local and deterministic: hashed identifier sub-words and word
 *            stems weighted by document frequencies learned from the repo's
 *            own stored text (builtin.c). Needs mg_embedder_prepare() with
 *            the repo's database before embedding.
 *   openai   any OpenAI-compatible POST /v1/embeddings endpoint (OpenAI,
 *            Ollama, llama.cpp's server, vLLM, text-embeddings-inference);
 *            batching, timeouts, retries with backoff (openai.c). The API
 *            key is sent as a bearer token and never appears in a message.
 *   voyage   Voyage AI's POST /v1/embeddings (voyage.c): voyage-code-3 by
 *            default, with input_type query or document.
 *   ollama   Ollama's native POST /api/embed (ollama.c): nomic-embed-text
 *            by default (its task prefixes added for query and document).
 *   The three HTTP embedders share one client (http.c): batching, timeouts,
 *   retries with backoff honouring Retry-After, capped answers.
 *
 * Every caller says what it embeds (enum mg_embed_input): text being
 * indexed is a document, a search query is a query. builtin and openai
 * make the same vector for both; voyage and ollama do not.
 *
 * Vectors are always L2-normalised by the registry, so a dot product is the
 * cosine. The signature (mg_embedder_sig) names the embedder, model and
 * dimensions; stored vectors made under another signature are stale.
 */
#ifndef MG_EMBED_H
#define MG_EMBED_H

#include <stddef.h>

#include <jansson.h>

#include "util/config.h"
#include "util/err.h"

struct mg_db;
struct mg_embedder;

#define MG_EMBED_MAX_DIM 8192

/* What a text is: indexed text (a chunk) or a search query. */
enum mg_embed_input { MG_EMBED_DOCUMENT = 0, MG_EMBED_QUERY = 1 };

struct mg_embedder_ops {
    /* Embed n texts of one input type into out (n * dim floats). 0, or -1
     * with err set (and out undefined). May set e->dim on the first call
     * (the HTTP embedders). */
    int (*embed)(struct mg_embedder *e, enum mg_embed_input type, const char *const *texts, const size_t *lens,
                 size_t n, float *out, struct mg_err *err);
    /* Bind to a repo's database (builtin: load or learn its statistics;
     * learn != 0 allows learning and writing them). NULL: nothing to do. */
    int (*prepare)(struct mg_embedder *e, struct mg_db *d, int learn, struct mg_err *err);
    void (*release)(struct mg_embedder *e);
};

struct mg_embedder {
    const struct mg_embedder_ops *ops;
    void *self;
    char name[16];     /* "builtin", "openai", "voyage", "ollama" */
    char model[128];   /* builtin: the algorithm version; the others: the model */
    char url[512];     /* the HTTP embedders: the endpoint (no credentials) */
    int dim;           /* 0 until known (HTTP embedders learn it from the first answer) */
    int batch;         /* texts per request */
};

/* Build the configured embedder; *out is NULL for `none`. */
int mg_embedder_open(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);
void mg_embedder_free(struct mg_embedder **e);

/* Bind to a repo database (see ops->prepare). */
int mg_embedder_prepare(struct mg_embedder *e, struct mg_db *d, int learn, struct mg_err *err);

/* Embed n texts of one type (n * e->dim floats into out, each L2-normalised). */
int mg_embed(struct mg_embedder *e, enum mg_embed_input type, const char *const *texts, const size_t *lens, size_t n,
             float *out, struct mg_err *err);

/* The embedder's dimensions, asking the endpoint once if not known yet
 * (openai). >0, or -1 with err set. */
int mg_embedder_dim(struct mg_embedder *e, struct mg_err *err);

/* "name:model[@url]" — stored vectors were made by this embedder iff the
 * repo's embed_sig equals it (dimensions are checked separately). */
void mg_embedder_sig(const struct mg_embedder *e, char *buf, size_t cap);

/* Scale v to unit length (a zero vector stays zero). */
void mg_vec_normalize(float *v, int dim);

/* --- built-ins (constructors used by the registry) --- */
int mg_embedder_builtin_new(struct mg_embedder **out, struct mg_err *err);
int mg_embedder_openai_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);
int mg_embedder_voyage_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);
int mg_embedder_ollama_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);

/* Parse an /v1/embeddings response body (OpenAI's and Voyage's
 * {"data": [{"embedding": [...], "index": i}, ...]}): n vectors expected. On success
 * *dim is set (and must match *dim if it was non-zero on entry) and out
 * (malloc'd, n * dim floats, in input order) is returned. Exposed for
 * tests and fuzzing. 0 or -1 (embed_bad_response). */
int mg_embed_parse_response(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err);

/* The same for Ollama's POST /api/embed: {"embeddings": [[...], ...]}, in
 * input order. Exposed for tests and fuzzing. 0 or -1 (embed_bad_response). */
int mg_embed_parse_ollama(const char *body, size_t len, size_t n, int *dim, float **out, struct mg_err *err);

/* (An endpoint's own error text: mg_http_endpoint_message, util/httpc.h.) */

/* The parsers' common step: answer row i (a JSON array of numbers), the
 * vector of input `at` of n, into *v (n * *d floats, allocated on the first
 * row; *d fixed by the first row when 0). 0, or -1 (embed_bad_response:
 * not an array, wrong or too many dimensions, a value not finite). */
int mg_embed_take_row(json_t *emb, size_t i, size_t at, size_t n, int *d, float **v, struct mg_err *err);

#endif
