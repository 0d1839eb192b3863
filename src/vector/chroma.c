/* chroma.c — Chroma (API v2) as a vector store (see vext.h).
 *
 * The routes, under <vector_url>/api/v2/tenants/default_tenant/databases/default_database
 * (Chroma's own tenant and database; memgate's tenants are told apart by
 * collection and metadata):
 *   POST /collections                    {"name", "metadata": {"hnsw:space": "ip"}, "get_or_create": true}
 *   POST /collections/{id}/upsert        {"ids", "embeddings", "metadatas"}
 *   POST /collections/{id}/delete        {"where"}
 *   POST /collections/{id}/query         {"query_embeddings": [q], "n_results", "where"?, "include"}
 *   POST /collections/{id}/get           {"ids", "where", "include": ["metadatas", "embeddings"]}
 * The token (vector_api_key) goes in x-chroma-token. Chroma's query is HNSW:
 * approximate (docs/benchmarks.md measures its recall); scores of given
 * chunks (score) are computed here from the stored vectors, exactly.
 *
 * Sections:
 *   1. parsers
 *   2. requests
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vector/vext.h"

#define BASE "/api/v2/tenants/default_tenant/databases/default_database"
#define UPSERT_BATCH 1000

/* ---- 1. parsers --------------------------------------------------------------------------------- */

static json_t *load(const char *body, size_t len, struct mg_err *err)
{
    if (len > MG_VEXT_MAX_RESPONSE) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the answer is %zu bytes; at most %u are read", len,
                   MG_VEXT_MAX_RESPONSE);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the answer is not JSON (%s at byte %d)", je.text, je.position);
    return root;
}

/* A point's metadata (Chroma's metadatas[i], Qdrant's payload) into h. */
static void meta_of(json_t *m, struct mg_vext_hit *h)
{
    json_t *t = json_object_get(m, "tenant"), *r = json_object_get(m, "repo"), *fp = json_object_get(m, "fp"),
           *f = json_object_get(m, "file"), *c = json_object_get(m, "chunk");
    h->meta_ok = json_is_string(t) && json_is_string(r) && json_is_string(fp) && json_is_integer(f) &&
                 json_is_integer(c) && json_string_length(t) < sizeof(h->tenant) &&
                 json_string_length(r) < sizeof(h->repo) && json_string_length(fp) < sizeof(h->fp);
    if (!h->meta_ok) return;
    snprintf(h->tenant, sizeof(h->tenant), "%s", json_string_value(t));
    snprintf(h->repo, sizeof(h->repo), "%s", json_string_value(r));
    snprintf(h->fp, sizeof(h->fp), "%s", json_string_value(fp));
    h->file = json_integer_value(f);
    h->chunk = json_integer_value(c);
    /* a NUL inside a string would compare short: not ours */
    h->meta_ok = strlen(h->tenant) == json_string_length(t) && strlen(h->repo) == json_string_length(r) &&
                 strlen(h->fp) == json_string_length(fp);
}

/* The point's id as a chunk id (Chroma: a decimal string; Qdrant: an integer). */
static bool id_of(json_t *id, int64_t *out)
{
    if (json_is_integer(id)) {
        *out = json_integer_value(id);
        return true;
    }
    if (!json_is_string(id)) return false;
    const char *s = json_string_value(id);
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 0) return false;
    *out = v;
    return true;
}

void mg_vext_meta_of(json_t *m, struct mg_vext_hit *h) { meta_of(m, h); }
bool mg_vext_id_of(json_t *id, int64_t *out) { return id_of(id, out); }

int mg_chroma_parse_collection(const char *body, size_t len, char *id, size_t cap, struct mg_err *err)
{
    json_t *root = load(body, len, err);
    if (!root) return -1;
    json_t *v = json_object_get(root, "id");
    int rc = 0;
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= cap ||
        strspn(json_string_value(v), "0123456789abcdefABCDEF-") != json_string_length(v))
        rc = mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the collection has no valid \"id\"");
    else snprintf(id, cap, "%s", json_string_value(v));
    json_decref(root);
    return rc;
}

long mg_chroma_parse_query(const char *body, size_t len, struct mg_vext_hit *out, size_t max, struct mg_err *err)
{
    json_t *root = load(body, len, err);
    if (!root) return -1;
    json_t *ids = json_array_get(json_object_get(root, "ids"), 0),
           *metas = json_array_get(json_object_get(root, "metadatas"), 0),
           *dist = json_array_get(json_object_get(root, "distances"), 0);
    long n = -1;
    if (!json_is_array(ids) || !json_is_array(metas) || !json_is_array(dist) ||
        json_array_size(metas) != json_array_size(ids) || json_array_size(dist) != json_array_size(ids)) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the query's answer has no ids, metadatas and distances of one "
                   "length");
        goto out;
    }
    if (json_array_size(ids) > max) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the query's answer has %zu points; %zu were asked for",
                   json_array_size(ids), max);
        goto out;
    }
    n = 0;
    for (size_t i = 0; i < json_array_size(ids); i++) {
        struct mg_vext_hit *h = &out[n];
        memset(h, 0, sizeof(*h));
        json_t *d = json_array_get(dist, i);
        int64_t id;
        if (!json_is_number(d) || !isfinite(json_number_value(d)) || !id_of(json_array_get(ids, i), &id)) {
            mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "point %zu of the query's answer has no valid id or distance", i);
            n = -1;
            goto out;
        }
        h->score = 1.0 - json_number_value(d); /* space ip: distance = 1 - dot */
        meta_of(json_array_get(metas, i), h);
        if (h->meta_ok && h->chunk != id) h->meta_ok = false; /* the id and its metadata disagree */
        n++;
    }
out:
    json_decref(root);
    return n;
}

/* The answer of /get for scoring: each point's metadata and dot(q, its vector). */
long mg_chroma_parse_get(const char *body, size_t len, const float *q, int dim, struct mg_vext_hit *out, size_t max,
                         struct mg_err *err)
{
    json_t *root = load(body, len, err);
    if (!root) return -1;
    json_t *ids = json_object_get(root, "ids"), *metas = json_object_get(root, "metadatas"),
           *embs = json_object_get(root, "embeddings");
    long n = -1;
    if (!json_is_array(ids) || !json_is_array(metas) || !json_is_array(embs) ||
        json_array_size(metas) != json_array_size(ids) || json_array_size(embs) != json_array_size(ids) ||
        json_array_size(ids) > max) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the get's answer has no ids, metadatas and embeddings of one "
                   "length (at most %zu)", max);
        goto out;
    }
    n = 0;
    for (size_t i = 0; i < json_array_size(ids); i++) {
        struct mg_vext_hit *h = &out[n];
        memset(h, 0, sizeof(*h));
        json_t *e = json_array_get(embs, i);
        int64_t id;
        if (!id_of(json_array_get(ids, i), &id) || !json_is_array(e) || json_array_size(e) != (size_t)dim) {
            mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "point %zu of the get's answer has no valid id or a vector of "
                       "%zu dimensions (expected %d)", i, json_is_array(e) ? json_array_size(e) : 0, dim);
            n = -1;
            goto out;
        }
        double dot = 0;
        for (int j = 0; j < dim; j++) {
            json_t *x = json_array_get(e, (size_t)j);
            double f = json_is_number(x) ? json_number_value(x) : NAN;
            if (!isfinite(f)) {
                mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "point %zu of the get's answer has a value that is not a "
                           "finite number", i);
                n = -1;
                goto out;
            }
            dot += f * q[j];
        }
        h->score = dot;
        meta_of(json_array_get(metas, i), h);
        if (h->meta_ok && h->chunk != id) h->meta_ok = false;
        n++;
    }
out:
    json_decref(root);
    return n;
}

/* ---- 2. requests -------------------------------------------------------------------------------- */

static int post(struct mg_vext *x, const char *what, json_t *body, char **out, size_t *len, struct mg_err *err)
{
    char path[256];
    char *payload = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(9));
    json_decref(body);
    if (!payload) return mg_err_oom(err);
    snprintf(path, sizeof(path), BASE "/collections/%s/%s", x->coll_id, what);
    char *ans = NULL;
    int rc = mg_vext_call(x, "POST", path, payload, 0, &ans, len, err);
    free(payload);
    if (out) *out = ans;
    else free(ans);
    return rc;
}

static int c_ensure(struct mg_vext *x, int dim, bool create, struct mg_err *err)
{
    (void)dim, (void)create; /* Chroma takes the dimension from the first vectors */
    json_t *b = json_pack("{s:s, s:{s:s}, s:b}", "name", x->collection, "metadata", "hnsw:space", "ip",
                          "get_or_create", 1);
    char *payload = b ? json_dumps(b, JSON_COMPACT) : NULL;
    json_decref(b);
    if (!payload) return mg_err_oom(err);
    char *ans = NULL;
    size_t len = 0;
    int rc = mg_vext_call(x, "POST", BASE "/collections", payload, 0, &ans, &len, err);
    free(payload);
    if (rc == 0) {
        struct mg_err pe = {0};
        if (mg_chroma_parse_collection(ans, len, x->coll_id, sizeof(x->coll_id), &pe) != 0) {
            mg_err_set(err, pe.code, "the chroma vector store at '%s' gave a bad answer: %s", x->url, pe.msg);
            rc = mg_vext_fail(x, err);
        }
    }
    free(ans);
    return rc;
}

static json_t *ours(struct mg_vext *x)
{
    return json_pack("[{s:s}, {s:s}, {s:s}]", "tenant", x->tenant, "repo", x->repo, "fp", x->fp);
}

static int c_del(struct mg_vext *x, const int64_t *files, size_t n, struct mg_err *err)
{
    if (!x->coll_id[0] && c_ensure(x, 0, true, err) != 0) return -1;
    json_t *where;
    if (files) {
        json_t *in = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(in, json_integer(files[i]));
        where = json_pack("{s:{s:o}}", "file", "$in", in);
    } else {
        where = json_pack("{s:o}", "$and", ours(x));
    }
    json_t *b = where ? json_pack("{s:o}", "where", where) : NULL;
    if (!b) return mg_err_oom(err);
    return post(x, "delete", b, NULL, NULL, err);
}

static int c_upsert(struct mg_vext *x, int64_t file, const int64_t *ids, const float *vecs, size_t n, int dim,
                    struct mg_err *err)
{
    for (size_t at = 0; at < n; at += UPSERT_BATCH) {
        size_t m = n - at < UPSERT_BATCH ? n - at : UPSERT_BATCH;
        json_t *jid = json_array(), *emb = json_array(), *meta = json_array();
        for (size_t i = at; i < at + m; i++) {
            char s[24];
            snprintf(s, sizeof(s), "%lld", (long long)ids[i]);
            json_array_append_new(jid, json_string(s));
            json_t *v = json_array();
            for (int j = 0; j < dim; j++) json_array_append_new(v, json_real(vecs[i * (size_t)dim + (size_t)j]));
            json_array_append_new(emb, v);
            json_array_append_new(meta, json_pack("{s:s, s:s, s:s, s:I, s:I}", "tenant", x->tenant, "repo", x->repo,
                                                  "fp", x->fp, "file", (json_int_t)file, "chunk",
                                                  (json_int_t)ids[i]));
        }
        json_t *b = json_pack("{s:o, s:o, s:o}", "ids", jid, "embeddings", emb, "metadatas", meta);
        if (!b) return mg_err_oom(err);
        if (post(x, "upsert", b, NULL, NULL, err) != 0) return -1;
    }
    return 0;
}

static long c_query(struct mg_vext *x, const float *q, int dim, const struct mg_vrange *r, size_t nr,
                    const int64_t *ids, size_t nids, size_t n, struct mg_vext_hit *out, struct mg_err *err)
{
    if (!x->coll_id[0] && c_ensure(x, dim, false, err) != 0) return -1;
    json_t *b;
    if (ids) { /* the given chunks' vectors; scored here */
        json_t *jid = json_array();
        for (size_t i = 0; i < nids; i++) {
            char s[24];
            snprintf(s, sizeof(s), "%lld", (long long)ids[i]);
            json_array_append_new(jid, json_string(s));
        }
        b = json_pack("{s:o, s:[s, s]}", "ids", jid, "include", "metadatas", "embeddings");
    } else {
        /* The collection is the tenant's and repo's own: that is where they are pushed down. Equality
         * filters on tenant, repo and fp would select every point of it and cost Chroma a scan of its
         * metadata (8 ms -> 119 ms a query at 31 k points, measured): they are checked on each point
         * returned instead (vext.c). The scope's chunk ranges select: they go as the filter. */
        json_t *where = NULL;
        if (r && nr) {
            json_t *any = json_array();
            for (size_t i = 0; i < nr; i++)
                json_array_append_new(any, json_pack("{s:[{s:{s:I}}, {s:{s:I}}]}", "$and", "chunk", "$gte",
                                                     (json_int_t)r[i].lo, "chunk", "$lte", (json_int_t)r[i].hi));
            /* ($or needs two at least) */
            where = nr == 1 ? json_incref(json_array_get(any, 0)) : json_pack("{s:O}", "$or", any);
            json_decref(any);
        }
        json_t *qv = json_array();
        for (int j = 0; j < dim; j++) json_array_append_new(qv, json_real(q[j]));
        b = json_pack("{s:[o], s:I, s:[s, s]}", "query_embeddings", qv, "n_results", (json_int_t)n, "include",
                      "metadatas", "distances");
        if (b && where) json_object_set_new(b, "where", where);
        else json_decref(where);
    }
    if (!b) return mg_err_oom(err);
    char *ans = NULL;
    size_t len = 0;
    if (post(x, ids ? "get" : "query", b, &ans, &len, err) != 0) return -1;
    struct mg_err pe = {0};
    long got = ids ? mg_chroma_parse_get(ans, len, q, dim, out, n, &pe) : mg_chroma_parse_query(ans, len, out, n, &pe);
    free(ans);
    if (got < 0) {
        mg_err_set(err, pe.code, "the chroma vector store at '%s' gave a bad answer: %s", x->url, pe.msg);
        return mg_vext_fail(x, err);
    }
    return got;
}

/* (covering ranges are not sent: a filter of 16 ranges took a query of 31 k points from 8 ms to 377 ms,
 * measured; docs/providers.md) */
const struct mg_vext_api mg_vext_chroma = {"chroma", false, c_ensure, c_del, c_upsert,
                                           c_query};
