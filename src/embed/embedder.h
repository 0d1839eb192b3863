/* embedder.h — what an embedder is, for the registry (embed.c, embed.h) and
 * the implementations alike: the vtable and the state each one fills in,
 * the input types, the built-ins' constructors and the answer parsers the
 * HTTP ones share. Implementations include this header, never embed.h: the
 * registry sits above them.
 */
#ifndef MG_EMBEDDER_H
#define MG_EMBEDDER_H

#include <stddef.h>
#include <stdint.h>

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

/* --- built-ins (constructors the registry calls: embed.c) --- */
int mg_embedder_builtin_new(struct mg_embedder **out, struct mg_err *err);
/* The code model (model.c): c->model_file, else the model compiled in;
 * model_invalid when it is missing or does not check out. */
int mg_embedder_model_new(const struct mg_config *c, struct mg_embedder **out, struct mg_err *err);
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

/* The parsers' first step: the answer body as JSON (a new reference) with
 * *rows its array `key` of exactly n entries; NULL (embed_bad_response: not
 * JSON, no such array, another count) with err. */
json_t *mg_embed_answer(const char *body, size_t len, const char *key, size_t n, json_t **rows, struct mg_err *err);

/* The parsers' common step: answer row i (a JSON array of numbers), the
 * vector of input `at` of n, into *v (n * *d floats, allocated on the first
 * row; *d fixed by the first row when 0). 0, or -1 (embed_bad_response:
 * not an array, wrong or too many dimensions, a value not finite). */
int mg_embed_take_row(json_t *emb, size_t i, size_t at, size_t n, int *d, float **v, struct mg_err *err);

/* --- the code model itself (model.c), for its tests and model/tokens.c --- */
struct mg_model;
/* Load and check a model file (path NULL or "": the one compiled in). 0, or
 * -1 with err (model_invalid: missing, unreadable, truncated or longer than
 * its header says, dimensions out of range, checksum or values wrong). */
int mg_model_load(const char *path, struct mg_model **out, struct mg_err *err);
/* The same from bytes in memory (copied; at most 256 MiB): for the fuzzer. */
int mg_model_parse(const void *data, size_t len, struct mg_model **out, struct mg_err *err);
void mg_model_free(struct mg_model **m);
int mg_model_dim(const struct mg_model *m);
/* One text's vector (mg_model_dim floats, not normalised); query != 0: as a query. */
int mg_model_embed(const struct mg_model *m, int query, const char *text, size_t len, float *out, struct mg_err *err);
/* A text's token ids as the model reads them (the buckets of its tokens, in
 * order, at most cap): what model/train.py trains on. */
size_t mg_model_tokens(const char *text, size_t len, unsigned bits, uint32_t *ids, size_t cap);

#endif
