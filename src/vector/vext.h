/* vext.h — external vector stores (Chroma, Qdrant) behind struct mg_vstore_ops.
 *
 * vector_store = chroma | qdrant (with allow_external_vectors = on) puts a
 * repo's vectors in one collection of that store per (tenant, repo), named
 * PREFIX-<24 hex digits of BLAKE2b(tenant, repo id)>: never the raw names.
 * Every point carries its metadata (payload): tenant, repo (id), fp (the
 * repo's fingerprint), file (file id), chunk (chunk id; the point's id).
 *
 *   put     delete the file's points (a filter on file), then upsert its vectors
 *   prune   delete the points of files gone from the index (file in [...]),
 *           or (all) every point of the repo
 *   search  top k, with the candidate chunk ranges pushed down as the store's
 *           metadata filter, and tenant, repo and fingerprint too (Qdrant:
 *           must conditions; Chroma: the collection is the tenant's and
 *           repo's own, and equality filters selecting all of it cost a
 *           metadata scan per query, so they are checked here only) (at most
 *           MG_VEXT_PUSH_RANGES ranges; more are merged into that many covering
 *           ranges and the answer is filtered here, asking again for more
 *           when the filter left fewer than k)
 *   score   the given chunk ids' scores
 *   pin     nothing to load: 0
 *
 * Whatever the store answers is checked before it is used: a point whose
 * tenant, repo or fingerprint is not the handle's, or whose chunk is not
 * among the candidates, is dropped and counted as an isolation drop
 * (memgate_isolation_drops_total{kind="vector"}); it is never served.
 *
 * The repo database keeps its `vectors` table as the list of files that
 * have vectors (n, and an empty blob), so that index runs stay incremental
 * and status counts them; the meta row vec_store names the store (and
 * collection) the vectors are in, and a change of store embeds again.
 *
 * A store that is down, slow or answers something else fails the call with
 * vector_store_unavailable or vector_store_bad_response, counted in
 * memgate_provider_errors_total{provider="chroma"|"qdrant"}; callers
 * degrade (hybrid.c, search.c: words only, and the answer says so; vindex.c:
 * a warning, the lexical index stands).
 */
#ifndef MG_VEXT_H
#define MG_VEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"
#include "vector/vstore.h"

#define MG_VEXT_PUSH_RANGES 16          /* chunk ranges sent as a filter, at most */
#define MG_VEXT_MAX_RESPONSE (64u << 20) /* bytes of one answer, at most */
#define MG_VEXT_MAX_POINTS 4096         /* points one search asks for, at most */

/* A point as the store returned it. */
struct mg_vext_hit {
    int64_t chunk, file;
    double score;
    bool meta_ok;     /* the metadata had all five fields, of the right types */
    char tenant[65];
    char repo[129];
    char fp[33];
};

/* One (tenant, repo)'s collection name: prefix-<24 hex>. */
void mg_vext_collection(const char *prefix, const char *tenant, const char *repo_id, char *out, size_t cap);

/* Merge sorted ranges r[0..nr) into at most max covering ranges (closing the
 * smallest gaps first); returns the count written to out. */
size_t mg_vext_cover(const struct mg_vrange *r, size_t nr, struct mg_vrange *out, size_t max);

/* Is a returned point the handle's: meta_ok, same tenant, repo and
 * fingerprint, and its chunk among the candidates (r sorted by lo; NULL: any)? */
bool mg_vext_hit_ok(const struct mg_vext_hit *h, const char *tenant, const char *repo_id, const char *fp,
                    const struct mg_vrange *r, size_t nr);

/* ---- the answers' parsers (exposed for tests and fuzzing; each caps its input) ---- */

/* Chroma POST .../collections (get_or_create): the collection's id. */
int mg_chroma_parse_collection(const char *body, size_t len, char *id, size_t cap, struct mg_err *err);
/* Chroma POST .../query (one query embedding, include metadatas and
 * distances; space ip: score = 1 - distance): at most max hits. The count,
 * or -1 (vector_store_bad_response). */
long mg_chroma_parse_query(const char *body, size_t len, struct mg_vext_hit *out, size_t max, struct mg_err *err);
/* Chroma POST .../get (ids; include metadatas and embeddings): each
 * point's metadata and its score, dot(q, its vector) over dim dimensions. */
long mg_chroma_parse_get(const char *body, size_t len, const float *q, int dim, struct mg_vext_hit *out, size_t max,
                         struct mg_err *err);
/* A point's metadata (payload) into h (meta_ok false when a field is
 * missing or of another type); a point id (integer or decimal string). */
void mg_vext_meta_of(json_t *m, struct mg_vext_hit *h);
bool mg_vext_id_of(json_t *id, int64_t *out);
/* Qdrant POST /collections/{c}/points/search: at most max hits, or -1. */
long mg_qdrant_parse_search(const char *body, size_t len, struct mg_vext_hit *out, size_t max, struct mg_err *err);

/* ---- the stores (vext.c is the common part; chroma.c and qdrant.c the APIs) ---- */

struct mg_vext;
struct mg_vext_api {
    const char *name;                  /* "chroma", "qdrant": the metrics' provider label */
    /* more candidate ranges than MG_VEXT_PUSH_RANGES: send covering ranges
     * (true), or none and filter the answer here (false: a store whose
     * filters cost more than they save, measured: Chroma) */
    bool push_cover;
    /* the collection exists (created for dim when create); 0 or -1 */
    int (*ensure)(struct mg_vext *x, int dim, bool create, struct mg_err *err);
    /* delete the points of these files (n > 0), or of the whole repo (files NULL) */
    int (*del)(struct mg_vext *x, const int64_t *files, size_t n, struct mg_err *err);
    int (*upsert)(struct mg_vext *x, int64_t file, const int64_t *ids, const float *vecs, size_t n, int dim,
                  struct mg_err *err);
    /* up to n nearest points among ranges r (NULL: all; the filter also names
     * tenant, repo, fp); or, with ids, the points of those chunk ids */
    long (*query)(struct mg_vext *x, const float *q, int dim, const struct mg_vrange *r, size_t nr,
                  const int64_t *ids, size_t nids, size_t n, struct mg_vext_hit *out, struct mg_err *err);
};

struct mg_vext {
    const struct mg_vext_api *api;
    struct mg_db *d;
    char url[512];          /* base, without a trailing / */
    char key[512];          /* the API key (never in a message) */
    int timeout, retries;
    char tenant[65], repo[129], fp[33];
    char collection[96];
    char coll_id[64];       /* chroma: the collection's id once known */
    int dim;                /* the collection's, once ensured */
};

/* One request to the store: method, path (after the base URL), JSON body
 * (may be NULL); the answer's body (NUL-terminated; the caller frees it)
 * when the status is 2xx or accept. Else -1 with vector_store_unavailable,
 * counted as the store's provider error. */
int mg_vext_call(struct mg_vext *x, const char *method, const char *path, const char *body, long accept,
                 char **out, size_t *outlen, struct mg_err *err);
/* Count a failure of the store (metrics, one line on stderr); returns -1. */
int mg_vext_fail(struct mg_vext *x, struct mg_err *err);

extern const struct mg_vext_api mg_vext_chroma, mg_vext_qdrant;

/* The store cfg names (vector_store), or NULL for builtin. */
const struct mg_vext_api *mg_vext_api_of(const struct mg_config *cfg);
/* What the repo's meta vec_store says for cfg: "builtin", or
 * "chroma <url> <collection>" (no key). */
void mg_vext_sig(const struct mg_config *cfg, const char *tenant, const char *repo_id, char *out, size_t cap);

int mg_vext_open(const struct mg_config *cfg, const struct mg_vext_api *api, struct mg_db *d, const char *repo_id,
                 struct mg_vstore **out, struct mg_err *err);

#endif
