/* hybrid.h — semantic scoring and rank fusion, for search.c and for any
 * caller that wants "embed this text and score these rows" (memory recall,
 * context assembly).
 *
 * Natural language (mg_query_is_natural): a query of at least 3 words with
 * no code marks — code punctuation, one of ( ) [ ] { } < > ; = * & | \ / "
 * ' ` # $ @ ^ ~ -> ::, or an identifier written as code (an underscore, an
 * inner capital as in parseHeader, words joined by "." as in obj.field) —
 * or prose that names some code, as a bug report does: at least 6 plain
 * words and 3 for every mark. Such queries default to hybrid search;
 * others to lexical.
 *
 * In hybrid search, the identifiers such prose names (mg_query_identifiers)
 * are looked up as exact definition names: their definitions are the
 * symbol list of the fusion. A fourth list, mode "path", ranks whole files
 * whose paths the query's words name (a file named like a word, a
 * directory, a piece of a name): it adds MG_RRF_PATH_WEIGHT / (MG_RRF_K +
 * rank) to the best chunk of that file the other lists found, and brings
 * no file in alone. A fifth, mode "graph", does the same for the found files
 * the reference graph links to the three best (one uses a specific name
 * the other defines: index/refs.h), by how many of those they meet (off
 * by default: weight MG_RRF_GRAPH_WEIGHT 0).
 *
 * Hybrid search fuses the ranked lists of lexical, symbol and semantic
 * search by reciprocal rank fusion: score = sum over lists of
 * weight / (MG_RRF_K + rank), rank from 1. A symbol hit fuses with the chunk
 * hit of the same file whose lines hold the definition. The weights
 * (lexical 1, semantic 1, symbol MG_RRF_SYMBOL_WEIGHT, path
 * MG_RRF_PATH_WEIGHT, graph MG_RRF_GRAPH_WEIGHT; config hybrid_weights)
 * were chosen on code alone, never on bug reports: docstring -> function
 * retrieval in six repositories outside the bug-localisation benchmark
 * (bench/fusion_tune.py; docs/semantic.md, "Weights and k"). k is reciprocal
 * rank fusion's own constant, 60 (Cormack et al. 2009), not tuned.
 */
#ifndef MG_HYBRID_H
#define MG_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search/search.h"
#include "util/config.h"
#include "util/err.h"
#include "vector/vstore.h"

struct mg_db;
struct mg_filter;

#define MG_RRF_K 60
#define MG_RRF_SYMBOL_WEIGHT 1.0
#define MG_RRF_PATH_WEIGHT 0.5
#define MG_RRF_GRAPH_WEIGHT 0.0

bool mg_query_is_natural(const char *q);

/* The next word of [A-Za-z0-9_] at or after *p: its start, and *len;
 * NULL when none is left. *p moves past it. */
const char *mg_query_word(const char **p, size_t *len);
/* The identifiers written as code in q (an underscore or an inner capital,
 * 4 bytes or more; each word of a.b.c on its own), distinct, in order, at most max:
 * pointers to their starts in q and their lengths. Returns how many. */
#define MG_QUERY_IDENTS_MAX 8
size_t mg_query_identifiers(const char *q, const char **start, size_t *len, size_t max);

/* The query's distinct words less English function words ("the", "of",
 * "how", ...), space-separated, into out (cap bytes); when more than max
 * remain (max > 0), the max longest. Returns how many words are left.
 * Hybrid search gives its lexical half all of them (max 0): capping them
 * at 5 or 8 halved the slowest hybrid queries on Linux but cost recall
 * (docs/benchmarks.md). */
size_t mg_query_content_words(const char *q, size_t max, char *out, size_t cap);

/* The top k chunks of one repo by cosine with the embedded query, among the
 * chunks the filter allows (chosen in SQL before scoring; NULL filter: all).
 * Returns the count (>= 0); -1 with err set, where err is no_embeddings when
 * the repo has no current vectors for the configured embedder. */
long mg_semantic_topk(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *query,
                      const struct mg_filter *f, int k, struct mg_vmatch *out, struct mg_err *err);

/* The same in two steps, so that other work can run while the vectors are
 * scanned: start does all that needs the database (the embedder, the scope,
 * the store's vectors pinned in memory) and, with background, scans on a
 * thread of its own; finish waits for the scan, copies its results to out
 * (k entries) and frees the job. A started job must be finished. start: 0,
 * or -1 with err set (as above); finish: the count, or -1 with err set.
 * With loading (not NULL), start does not wait for vectors that are not in
 * memory yet: it returns 1 (no job) with the load's progress in *loading,
 * and they load in the background for the searches after it (vstore.h).
 */
struct mg_semantic_job;
int mg_semantic_start(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *query,
                      const struct mg_filter *f, int k, bool background, struct mg_vload *loading,
                      struct mg_semantic_job **job, struct mg_err *err);
long mg_semantic_finish(struct mg_semantic_job *job, struct mg_vmatch *out, struct mg_err *err);

/* Start loading the repo's current vectors into this process's cache in
 * the background, if they are not there (a server calls it for its repos
 * when it starts). 0, or -1 with err set (no_embeddings: the repo has no
 * current vectors; nothing to load). */
int mg_semantic_preload(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, struct mg_err *err);

/* Embed text and score the given chunks of one repo (cosine; NAN for a
 * chunk without a vector). 0, or -1 with err set (no_embeddings as above). */
int mg_semantic_score(const struct mg_config *cfg, struct mg_db *d, const char *repo_id, const char *text,
                      const int64_t *chunk_ids, size_t n, float *scores, struct mg_err *err);

/* Reciprocal rank fusion of nlists ranked lists (each best first) into out
 * (appended, best first, at most limit): a hit at rank r of a list adds
 * w / (k + r), w the weight of the list's mode (w[0] lexical, w[1] semantic,
 * w[2] symbol, w[3] path, w[4] graph; config hybrid_weights); a list of
 * weight 0 is left out; path and graph lists raise files the others found
 * (their best chunk) and bring none in. w NULL: 1, 1, MG_RRF_SYMBOL_WEIGHT,
 * MG_RRF_PATH_WEIGHT, MG_RRF_GRAPH_WEIGHT and k MG_RRF_K (the config's
 * defaults). The hits move
 * into out; the lists are left empty. 0, or -1 when memory runs out. */
int mg_rrf_fuse(struct mg_results *const *lists, size_t nlists, int limit, const double *w, int k,
                struct mg_results *out);

#endif
