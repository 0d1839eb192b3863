/* qdrant.c — Qdrant (REST) as a vector store (see vext.h).
 *
 * The subset memgate calls, under <vector_url> (default http://127.0.0.1:6333),
 * with the key (vector_api_key) in the api-key header:
 *   PUT  /collections/{c}                      {"vectors": {"size", "distance": "Cosine"}} (409: it exists)
 *   PUT  /collections/{c}/points?wait=true     {"points": [{"id", "vector", "payload"}]}
 *   POST /collections/{c}/points/delete?wait=true  {"filter": {"must": [...]}}
 *   POST /collections/{c}/points/search        {"vector", "limit", "filter", "with_payload": true,
 *                                               "params": {"exact": true}}
 * Search is exact (params.exact): the same top k as the built-in store up to
 * the built-in store's int8 rounding. Point ids are the chunk ids.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vector/vext.h"

#define UPSERT_BATCH 1000

long mg_qdrant_parse_search(const char *body, size_t len, struct mg_vext_hit *out, size_t max, struct mg_err *err)
{
    if (len > MG_VEXT_MAX_RESPONSE)
        return mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the answer is %zu bytes; at most %u are read", len,
                          MG_VEXT_MAX_RESPONSE);
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the answer is not JSON (%s at byte %d)", je.text,
                          je.position);
    json_t *res = json_object_get(root, "result");
    long n = -1;
    if (!json_is_array(res)) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the search's answer has no \"result\" array");
        goto out;
    }
    if (json_array_size(res) > max) {
        mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "the search's answer has %zu points; %zu were asked for",
                   json_array_size(res), max);
        goto out;
    }
    n = 0;
    for (size_t i = 0; i < json_array_size(res); i++) {
        json_t *p = json_array_get(res, i), *sc = json_object_get(p, "score");
        struct mg_vext_hit *h = &out[n];
        memset(h, 0, sizeof(*h));
        int64_t id;
        if (!json_is_object(p) || !json_is_number(sc) || !isfinite(json_number_value(sc)) ||
            !mg_vext_id_of(json_object_get(p, "id"), &id)) {
            mg_err_set(err, MG_E_VSTORE_BAD_RESPONSE, "point %zu of the search's answer has no valid id or score", i);
            n = -1;
            goto out;
        }
        h->score = json_number_value(sc);
        mg_vext_meta_of(json_object_get(p, "payload"), h);
        if (h->meta_ok && h->chunk != id) h->meta_ok = false;
        n++;
    }
out:
    json_decref(root);
    return n;
}

static int call(struct mg_vext *x, const char *method, const char *tail, json_t *body, long accept, char **out,
                size_t *len, struct mg_err *err)
{
    char path[256];
    snprintf(path, sizeof(path), "/collections/%s%s", x->collection, tail);
    char *payload = body ? json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(body);
    if (!payload) return mg_err_oom(err);
    char *ans = NULL;
    int rc = mg_vext_call(x, method, path, payload, accept, &ans, len, err);
    free(payload);
    if (out) *out = ans;
    else free(ans);
    return rc;
}

static int q_ensure(struct mg_vext *x, int dim, bool create, struct mg_err *err)
{
    if (!create) return 0; /* searching a collection that is not there answers 404: an error then */
    json_t *b = json_pack("{s:{s:i, s:s}}", "vectors", "size", dim, "distance", "Cosine");
    if (!b) return mg_err_oom(err);
    return call(x, "PUT", "", b, 409, NULL, NULL, err);
}

static json_t *ours(struct mg_vext *x)
{
    return json_pack("[{s:s, s:{s:s}}, {s:s, s:{s:s}}, {s:s, s:{s:s}}]", "key", "tenant", "match", "value",
                     x->tenant, "key", "repo", "match", "value", x->repo, "key", "fp", "match", "value", x->fp);
}

static int q_del(struct mg_vext *x, const int64_t *files, size_t n, struct mg_err *err)
{
    json_t *must = ours(x);
    if (files) {
        json_t *any = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(any, json_integer(files[i]));
        json_array_append_new(must, json_pack("{s:s, s:{s:o}}", "key", "file", "match", "any", any));
    }
    json_t *b = json_pack("{s:{s:o}}", "filter", "must", must);
    if (!b) return mg_err_oom(err);
    return call(x, "POST", "/points/delete?wait=true", b, 0, NULL, NULL, err);
}

static int q_upsert(struct mg_vext *x, int64_t file, const int64_t *ids, const float *vecs, size_t n, int dim,
                    struct mg_err *err)
{
    for (size_t at = 0; at < n; at += UPSERT_BATCH) {
        size_t m = n - at < UPSERT_BATCH ? n - at : UPSERT_BATCH;
        json_t *pts = json_array();
        for (size_t i = at; i < at + m; i++) {
            json_t *v = json_array();
            for (int j = 0; j < dim; j++) json_array_append_new(v, json_real(vecs[i * (size_t)dim + (size_t)j]));
            json_array_append_new(pts, json_pack("{s:I, s:o, s:{s:s, s:s, s:s, s:I, s:I}}", "id", (json_int_t)ids[i],
                                                 "vector", v, "payload", "tenant", x->tenant, "repo", x->repo, "fp",
                                                 x->fp, "file", (json_int_t)file, "chunk", (json_int_t)ids[i]));
        }
        json_t *b = json_pack("{s:o}", "points", pts);
        if (!b) return mg_err_oom(err);
        if (call(x, "PUT", "/points?wait=true", b, 0, NULL, NULL, err) != 0) return -1;
    }
    return 0;
}

static long q_query(struct mg_vext *x, const float *q, int dim, const struct mg_vrange *r, size_t nr,
                    const int64_t *ids, size_t nids, size_t n, struct mg_vext_hit *out, struct mg_err *err)
{
    json_t *filter = json_pack("{s:o}", "must", ours(x));
    if (ids) {
        json_t *has = json_array();
        for (size_t i = 0; i < nids; i++) json_array_append_new(has, json_integer(ids[i]));
        json_array_append_new(json_object_get(filter, "must"), json_pack("{s:o}", "has_id", has));
    } else if (r && nr) {
        json_t *should = json_array();
        for (size_t i = 0; i < nr; i++)
            json_array_append_new(should, json_pack("{s:s, s:{s:I, s:I}}", "key", "chunk", "range", "gte",
                                                    (json_int_t)r[i].lo, "lte", (json_int_t)r[i].hi));
        json_object_set_new(filter, "should", should);
    }
    json_t *qv = json_array();
    for (int j = 0; j < dim; j++) json_array_append_new(qv, json_real(q[j]));
    json_t *b = json_pack("{s:o, s:I, s:o, s:b, s:{s:b}}", "vector", qv, "limit", (json_int_t)n, "filter", filter,
                          "with_payload", 1, "params", "exact", 1);
    if (!b) return mg_err_oom(err);
    char *ans = NULL;
    size_t len = 0;
    if (call(x, "POST", "/points/search", b, 0, &ans, &len, err) != 0) return -1;
    struct mg_err pe = {0};
    long got = mg_qdrant_parse_search(ans, len, out, n, &pe);
    free(ans);
    if (got < 0) {
        mg_err_set(err, pe.code, "the qdrant vector store at '%s' gave a bad answer: %s", x->url, pe.msg);
        return mg_vext_fail(x, err);
    }
    return got;
}

const struct mg_vext_api mg_vext_qdrant = {"qdrant", true, q_ensure, q_del, q_upsert,
                                           q_query};
