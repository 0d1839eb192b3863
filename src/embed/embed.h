/* embed.h — embedders: text in, unit-length float vectors out.
 *
 * An embedder is a vtable (struct mg_embedder_ops) plus its state
 * (embedder.h, what each implementation fills in). The registry (embed.c)
 * builds one from the configuration:
 *
 *   embedder = auto | builtin | model | openai | voyage | ollama | none   (MEMGATE_EMBEDDER)
 *   embed_url, embed_model, embed_api_key          (MEMGATE_EMBED_URL, ...)
 *   voyage_api_key, voyage_url, voyage_model, voyage_dimensions
 *   ollama_url, ollama_model
 *
 * auto picks from what is configured, in this order, without asking the
 * network: embed_url or embed_api_key set -> openai; voyage_api_key set ->
 * voyage; ollama_url set -> ollama; else model (the code model compiled in:
 * as good as builtin in hybrid search, its vectors a quarter of the room,
 * docs/semantic.md). none means keyword-only: mg_embedder_open() gives
 * *out == NULL.
 *
 *   builtin  local and deterministic: hashed identifier sub-words and word
 *            stems weighted by document frequencies learned from the repo's
 *            own stored text (builtin.c). Needs mg_embedder_prepare() with
 *            the repo's database before embedding.
 *   model    the code model compiled in (model.c): local, deterministic,
 *            trained offline on doc comment -> function and doc summary ->
 *            prose pairs of public code (model/).
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

#include "embed/embedder.h"
#include "util/config.h"
#include "util/err.h"

struct mg_db;

/* The embedder `auto` stands for (auto_choice: from what is configured), or the configured one. */
const char *mg_embedder_chosen(const struct mg_config *c);

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

#endif
