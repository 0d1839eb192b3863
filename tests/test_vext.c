/* test_vext.c — the external vector stores' pure parts (vector/vext.h):
 * collection names, pushed-down ranges, the check of what a store returns,
 * the answers' parsers, and the allow_external_vectors switch. The stores
 * themselves are tested against a real Chroma and a Qdrant fake in
 * tests/node/providers_vectors.test.mjs. */
#include <math.h>
#include <string.h>

#include "test.h"
#include "util/config.h"
#include "vector/vext.h"

TEST(vext_collection_names_hash_tenant_and_repo)
{
    char a[96], b[96], c[96], d[96];
    mg_vext_collection("memgate", "local", "api-3fa2c1", a, sizeof(a));
    mg_vext_collection("memgate", "local", "api-3fa2c1", b, sizeof(b));
    mg_vext_collection("memgate", "acme", "api-3fa2c1", c, sizeof(c));
    mg_vext_collection("memgate", "local", "web-000001", d, sizeof(d));
    ASSERT(strcmp(a, b) == 0);                  /* stable */
    ASSERT(strcmp(a, c) != 0 && strcmp(a, d) != 0); /* one per tenant and repo */
    ASSERT(strncmp(a, "memgate-", 8) == 0);
    ASSERT_EQ_INT(strlen(a), 8 + 24);
    ASSERT(strstr(a, "api") == NULL && strstr(c, "acme") == NULL); /* never the raw names */
    /* ("ab","c") and ("a","bc") are two pairs, not one string */
    mg_vext_collection("p", "ab", "c", a, sizeof(a));
    mg_vext_collection("p", "a", "bc", b, sizeof(b));
    ASSERT(strcmp(a, b) != 0);
}

TEST(vext_cover_merges_ranges_into_few)
{
    struct mg_vrange r[40], out[16];
    for (int i = 0; i < 40; i++) r[i] = (struct mg_vrange){i * 100, i * 100 + 9};
    r[20].lo = 2000, r[20].hi = 2009;
    size_t n = mg_vext_cover(r, 40, out, 16);
    ASSERT_EQ_INT(n, 16);
    /* a superset: every range is inside one covering range, and they are sorted */
    for (int i = 0; i < 40; i++) {
        bool in = false;
        for (size_t j = 0; j < n && !in; j++) in = out[j].lo <= r[i].lo && r[i].hi <= out[j].hi;
        ASSERT(in);
    }
    for (size_t j = 1; j < n; j++) ASSERT(out[j - 1].hi < out[j].lo);
    /* few ranges pass as they are; touching ones join */
    struct mg_vrange t[3] = {{1, 5}, {6, 9}, {20, 30}};
    n = mg_vext_cover(t, 3, out, 16);
    ASSERT_EQ_INT(n, 2);
    ASSERT(out[0].lo == 1 && out[0].hi == 9 && out[1].lo == 20 && out[1].hi == 30);
}

static struct mg_vext_hit hit(const char *tenant, const char *repo, const char *fp, int64_t chunk)
{
    struct mg_vext_hit h = {.chunk = chunk, .file = 1, .score = 0.5, .meta_ok = true};
    snprintf(h.tenant, sizeof(h.tenant), "%s", tenant);
    snprintf(h.repo, sizeof(h.repo), "%s", repo);
    snprintf(h.fp, sizeof(h.fp), "%s", fp);
    return h;
}

TEST(vext_hit_check_drops_other_tenants_repos_and_chunks)
{
    struct mg_vrange r[2] = {{10, 19}, {40, 49}};
    struct mg_vext_hit h = hit("local", "api-1", "fp1", 12);
    ASSERT(mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    ASSERT(mg_vext_hit_ok(&h, "local", "api-1", "fp1", NULL, 0));
    h = hit("acme", "api-1", "fp1", 12);
    ASSERT(!mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    h = hit("local", "web-2", "fp1", 12);
    ASSERT(!mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    h = hit("local", "api-1", "fp2", 12); /* the same id, another checkout */
    ASSERT(!mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    h = hit("local", "api-1", "fp1", 30); /* outside the candidates */
    ASSERT(!mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    h = hit("local", "api-1", "fp1", 49);
    ASSERT(mg_vext_hit_ok(&h, "local", "api-1", "fp1", r, 2));
    h.meta_ok = false; /* metadata missing or of another type */
    ASSERT(!mg_vext_hit_ok(&h, "local", "api-1", "fp1", NULL, 0));
}

TEST(vext_chroma_query_parser)
{
    const char *ok = "{\"ids\":[[\"7\",\"9\"]],\"metadatas\":[[{\"tenant\":\"local\",\"repo\":\"r\",\"fp\":\"f\","
                     "\"file\":1,\"chunk\":7},{\"tenant\":\"local\",\"repo\":\"r\",\"fp\":\"f\",\"file\":1,\"chunk\":8}]],"
                     "\"distances\":[[0.25,0.5]]}";
    struct mg_vext_hit h[4];
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_chroma_parse_query(ok, strlen(ok), h, 4, &err), 2);
    ASSERT(h[0].meta_ok && h[0].chunk == 7 && fabs(h[0].score - 0.75) < 1e-9);
    ASSERT(!h[1].meta_ok); /* id 9 with chunk 8 in its metadata: not trusted */
    ASSERT_EQ_INT(mg_chroma_parse_query(ok, strlen(ok), h, 1, &err), -1); /* more than asked for */
    ASSERT(strcmp(err.code, MG_E_VSTORE_BAD_RESPONSE) == 0);
    const char *ragged = "{\"ids\":[[\"7\",\"9\"]],\"metadatas\":[[{}]],\"distances\":[[0.25,0.5]]}";
    ASSERT_EQ_INT(mg_chroma_parse_query(ragged, strlen(ragged), h, 4, &err), -1);
    ASSERT_EQ_INT(mg_chroma_parse_query("not json", 8, h, 4, &err), -1);
    const char *missing = "{\"ids\":[[\"7\"]],\"metadatas\":[[{\"tenant\":\"local\",\"repo\":\"r\",\"file\":1,"
                          "\"chunk\":7}]],\"distances\":[[0.1]]}";
    ASSERT_EQ_INT(mg_chroma_parse_query(missing, strlen(missing), h, 4, &err), 1);
    ASSERT(!h[0].meta_ok); /* no fp */
}

TEST(vext_chroma_get_scores_and_qdrant_search_parser)
{
    const char *get = "{\"ids\":[\"3\"],\"embeddings\":[[0.5,0.5,0]],\"metadatas\":[{\"tenant\":\"t\",\"repo\":\"r\","
                      "\"fp\":\"f\",\"file\":2,\"chunk\":3}]}";
    float q[3] = {1, 0, 0};
    struct mg_vext_hit h[4];
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_chroma_parse_get(get, strlen(get), q, 3, h, 4, &err), 1);
    ASSERT(h[0].meta_ok && fabs(h[0].score - 0.5) < 1e-9 && h[0].file == 2);
    ASSERT_EQ_INT(mg_chroma_parse_get(get, strlen(get), q, 2, h, 4, &err), -1); /* wrong dimensions */
    const char *qs = "{\"result\":[{\"id\":3,\"version\":1,\"score\":0.875,\"payload\":{\"tenant\":\"t\",\"repo\":\"r\","
                     "\"fp\":\"f\",\"file\":2,\"chunk\":3}}],\"status\":\"ok\",\"time\":0.001}";
    ASSERT_EQ_INT(mg_qdrant_parse_search(qs, strlen(qs), h, 4, &err), 1);
    ASSERT(h[0].meta_ok && h[0].chunk == 3 && fabs(h[0].score - 0.875) < 1e-9);
    const char *bad = "{\"result\":[{\"id\":\"x\",\"score\":0.5}]}";
    ASSERT_EQ_INT(mg_qdrant_parse_search(bad, strlen(bad), h, 4, &err), -1);
    const char *err404 = "{\"status\":{\"error\":\"Not found\"},\"time\":0}";
    ASSERT_EQ_INT(mg_qdrant_parse_search(err404, strlen(err404), h, 4, &err), -1);
    char id[64];
    const char *coll = "{\"id\":\"0357a112-2a76-49b2-bb5a-22798ce070fb\",\"name\":\"m\"}";
    ASSERT_EQ_INT(mg_chroma_parse_collection(coll, strlen(coll), id, sizeof(id), &err), 0);
    ASSERT(strcmp(id, "0357a112-2a76-49b2-bb5a-22798ce070fb") == 0);
    const char *evil = "{\"id\":\"../../reset\"}"; /* goes into a URL path: hex and dashes only */
    ASSERT_EQ_INT(mg_chroma_parse_collection(evil, strlen(evil), id, sizeof(id), &err), -1);
}

TEST(vext_external_store_needs_allow_external_vectors)
{
    struct mg_config c;
    struct mg_err err = {0};
    mg_t_config_defaults(&c);
    ASSERT_EQ_INT(mg_config_check_vectors(&c, "t", &err), 0); /* builtin */
    ASSERT_EQ_INT(mg_config_set(&c, "vector_store", "chroma", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_check_vectors(&c, "t", &err), -1);
    ASSERT(strcmp(err.code, MG_E_CONFIG) == 0 && strstr(err.msg, "allow_external_vectors = on") &&
           strstr(err.msg, "encryption at rest"));
    ASSERT_EQ_INT(mg_config_set(&c, "allow_external_vectors", "on", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_check_vectors(&c, "t", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "vector_store", "pinecone", "t", &err), -1);
    ASSERT_EQ_INT(mg_config_set(&c, "vector_collection_prefix", "Bad/Prefix", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_check_vectors(&c, "t", &err), -1);
    ASSERT_EQ_INT(mg_config_set(&c, "vector_collection_prefix", "team-a", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "vector_url", "ftp://x", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_check_vectors(&c, "t", &err), -1);
    /* the signature the repo's meta keeps names the store, URL and collection, never the key */
    char sig[700];
    ASSERT_EQ_INT(mg_config_set(&c, "vector_url", "http://127.0.0.1:9/", "t", &err), 0);
    ASSERT_EQ_INT(mg_config_set(&c, "vector_api_key", "sekrit-key-123", "t", &err), 0);
    mg_vext_sig(&c, "local", "api-1", sig, sizeof(sig));
    ASSERT(strncmp(sig, "chroma http://127.0.0.1:9 team-a-", 33) == 0);
    ASSERT(strstr(sig, "sekrit") == NULL);
}
