/* test_model.c — the code model (src/embed/model.c): the loader refuses a
 * file that is missing, truncated, of other dimensions or corrupt
 * (model_invalid), the vectors do not depend on the thread count, and a
 * repo whose model is unusable is searched by words, saying so in the
 * search's answer, the index run's and index_status.
 */
#include <math.h>
#include <sodium.h>
#include <unistd.h>

#include "embed/embed.h"
#include "fixtures.h"
#include "test.h"

extern const unsigned char mg_model_data[];
extern const unsigned char mg_model_data_end[];

/* The compiled-in model's bytes, changed by edit (may be NULL), written to dir/name: its path. */
static const char *model_copy(const char *dir, const char *name, size_t keep, void (*edit)(unsigned char *, size_t),
                              bool resum)
{
    size_t n = (size_t)(mg_model_data_end - mg_model_data);
    unsigned char *b = malloc(n);
    ASSERT(b != NULL);
    memcpy(b, mg_model_data, n);
    if (edit) edit(b, n);
    if (resum) crypto_generichash(b + n - 32, 32, b, n - 32, NULL, 0);
    mg_t_write(dir, name, (const char *)b, keep ? keep : n);
    free(b);
    static char path[8][4200];
    static int at;
    char *p = path[at++ % 8];
    snprintf(p, 4200, "%s/%s", dir, name);
    return p;
}

static void set_dim(unsigned char *b, uint32_t dim) { memcpy(b + 12, &dim, 4); }
static void dim_doubled(unsigned char *b, size_t n)
{
    uint32_t d;
    memcpy(&d, b + 12, 4);
    set_dim(b, d * 2);
}
static void dim_odd(unsigned char *b, size_t n) { set_dim(b, 12); }
static void flip_middle(unsigned char *b, size_t n) { b[n / 2] ^= 0x40; }
static void scale_nan(unsigned char *b, size_t n)
{
    uint32_t d;
    memcpy(&d, b + 12, 4);
    float nan = NAN;
    memcpy(b + 56 + 8 * d + 4 * 7, &nan, 4); /* the scale of bucket 7 */
}

static void expect_invalid(const char *path, const char *words)
{
    struct mg_model *m = NULL;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_model_load(path, &m, &err), -1);
    ASSERT(m == NULL);
    ASSERT_EQ_STR(err.code, MG_E_MODEL_INVALID);
    ASSERT_CONTAINS(err.msg, words);
}

TEST(model_loader_refuses_missing_truncated_wrong_dimensions_and_corrupt_files)
{
    char *dir = mg_t_tmpdir();
    struct mg_err err = {0};
    struct mg_model *m = NULL;
    ASSERT_EQ_INT(mg_model_load(NULL, &m, &err), 0); /* the compiled-in one */
    int dim = mg_model_dim(m);
    ASSERT(dim >= 8 && dim % 8 == 0);
    const char *q = "close the connection when the peer stops answering";
    float *a = calloc((size_t)dim, sizeof(float)), *b = calloc((size_t)dim, sizeof(float));
    ASSERT_EQ_INT(mg_model_embed(m, 1, q, strlen(q), a, &err), 0);
    mg_model_free(&m);
    ASSERT(m == NULL);

    /* a good copy loads and embeds alike */
    size_t n = (size_t)(mg_model_data_end - mg_model_data);
    ASSERT_EQ_INT(mg_model_load(model_copy(dir, "good.mgm", 0, NULL, false), &m, &err), 0);
    ASSERT_EQ_INT(mg_model_embed(m, 1, q, strlen(q), b, &err), 0);
    ASSERT_EQ_INT(memcmp(a, b, (size_t)dim * sizeof(float)), 0);
    double norm = 0;
    for (int j = 0; j < dim; j++) norm += (double)a[j] * a[j];
    ASSERT(norm > 0);
    mg_model_free(&m);

    char missing[4200];
    snprintf(missing, sizeof(missing), "%s/nowhere.mgm", dir);
    expect_invalid(missing, "cannot read");
    expect_invalid(model_copy(dir, "short.mgm", n - 1, NULL, false), "truncated");
    expect_invalid(model_copy(dir, "half.mgm", n / 2, NULL, false), "truncated");
    expect_invalid(model_copy(dir, "head.mgm", 20, NULL, false), "not a memgate model");
    expect_invalid(model_copy(dir, "flip.mgm", 0, flip_middle, false), "checksum");
    /* other dimensions, checksum made again: the size no longer matches, or they are out of range */
    expect_invalid(model_copy(dir, "dim2.mgm", 0, dim_doubled, true), "other dimensions");
    expect_invalid(model_copy(dir, "dim12.mgm", 0, dim_odd, true), "out of range");
    expect_invalid(model_copy(dir, "nan.mgm", 0, scale_nan, true), "not finite");
    /* ... and with the checksum left as it was, the header's change is caught too */
    expect_invalid(model_copy(dir, "dim2s.mgm", 0, dim_doubled, false), "other dimensions");

    /* through the registry: embedder = model with such a file is model_invalid */
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.embedder, sizeof(c.embedder), "model");
    snprintf(c.model_file, sizeof(c.model_file), "%s/short.mgm", dir);
    struct mg_embedder *e = NULL;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_MODEL_INVALID);
    c.model_file[0] = 0;
    ASSERT_EQ_INT(mg_embedder_open(&c, &e, &err), 0);
    ASSERT_EQ_STR(e->name, "model");
    ASSERT_EQ_INT(e->dim, dim);
    mg_embedder_free(&e);
    free(a);
    free(b);
}

static void corpus(const char *repo)
{
    mg_t_write_str(repo, "net/conn.c", "/* Close the connection when the peer stops answering: the keepalive\n"
                                       " * timer fired twice without an acknowledgement. */\n"
                                       "static void conn_timeout(struct conn *c) { conn_close(c, ETIMEDOUT); }\n");
    mg_t_write_str(repo, "fs/cache.py", "def evict(cache, limit):\n"
                                        "    \"\"\"Drop the least recently used entries until the cache fits.\"\"\"\n"
                                        "    while cache.size > limit:\n"
                                        "        cache.pop_oldest()\n");
    mg_t_write_str(repo, "auth/token.go", "// Verify checks the signature and the expiry of a bearer token.\n"
                                          "func Verify(tok string, key []byte) error {\n"
                                          "\treturn check(tok, key)\n}\n");
    mg_t_write_str(repo, "util/strings.rs", "/// Split a line into words at white space.\n"
                                            "pub fn words(line: &str) -> Vec<&str> { line.split_whitespace().collect() }\n");
    mg_t_sh(repo, "git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm init");
}

static json_t *index_json(const char *repo, const char *home)
{
    return mg_fx_run_json(repo, home, (const char *const[]){"index", repo, "--name", "mdl", "--json", NULL});
}

TEST(model_vectors_do_not_depend_on_the_thread_count)
{
    char *repo = mg_t_tmpdir(), *h1 = mg_t_tmpdir(), *h4 = mg_t_tmpdir();
    corpus(repo);
    setenv("MEMGATE_EMBEDDER", "model", 1);
    setenv("MEMGATE_INDEX_THREADS", "1", 1);
    json_decref(index_json(repo, h1));
    setenv("MEMGATE_INDEX_THREADS", "4", 1);
    json_t *ix = index_json(repo, h4);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(ix, "vectors"), "embedder")), "model:");
    json_decref(ix);
    const char *qs[] = {"drop old entries when the cache is full", "check that a token has not expired",
                        "peer does not answer"};
    for (size_t i = 0; i < 3; i++) {
        json_t *r1 = mg_fx_search(repo, h1, qs[i], "semantic", 4), *r4 = mg_fx_search(repo, h4, qs[i], "semantic", 4);
        char *s1 = json_dumps(json_object_get(r1, "results"), JSON_COMPACT | JSON_SORT_KEYS);
        char *s4 = json_dumps(json_object_get(r4, "results"), JSON_COMPACT | JSON_SORT_KEYS);
        ASSERT_CONTAINS(s1, "\"path\"");
        ASSERT_EQ_STR(s1, s4); /* same files, same order, same scores */
        free(s1);
        free(s4);
        json_decref(r1);
        json_decref(r4);
    }
    /* and the model finds the code a question in other words is about */
    json_t *r = mg_fx_search(repo, h1, "drop old entries when the cache is full", "semantic", 1);
    ASSERT(mg_fx_has_hit(r, "fs/cache.py", NULL));
    json_decref(r);
}

TEST(model_invalid_is_said_and_search_goes_on_by_words)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir(), *dir = mg_t_tmpdir();
    corpus(repo);
    setenv("MEMGATE_EMBEDDER", "model", 1);
    setenv("MEMGATE_MODEL_FILE", model_copy(dir, "short.mgm", 1000, NULL, false), 1);
    /* the index run succeeds, keyword-only, and says why */
    json_t *ix = index_json(repo, home);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(ix, "vectors"), "warning")), "model_invalid");
    ASSERT_EQ_INT(mg_fx_int(ix, "vectors.chunks"), 0);
    json_decref(ix);
    /* hybrid answers by words and says so */
    json_t *r = mg_fx_search(repo, home, "close the connection when the peer stops answering", "hybrid", 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "mode")), "lexical");
    json_t *sem = json_object_get(r, "semantic");
    ASSERT_EQ_STR(json_string_value(json_object_get(sem, "error")), "model_invalid");
    ASSERT(mg_fx_has_hit(r, "net/conn.c", NULL));
    json_decref(r);
    /* semantic alone cannot answer: the error, with what to do */
    struct mg_t_out o = MG_RUN(repo, home, "search", "peer stops answering", "--mode", "semantic");
    ASSERT(o.status != 0);
    ASSERT_CONTAINS(o.err, "error[model_invalid]");
    ASSERT_CONTAINS(o.err, "make model");
    mg_t_out_free(&o);
    /* status: the embedder cannot be made, and the repo's last embedding pass says why */
    json_t *st = mg_fx_run_json(repo, home, (const char *const[]){"status", "--json", NULL});
    ASSERT_CONTAINS(json_string_value(json_object_get(st, "embedder")), "error[model_invalid]");
    char *s = json_dumps(json_object_get(st, "repos"), JSON_COMPACT);
    ASSERT_CONTAINS(s, "\"vectors_warning\":\"model_invalid:");
    free(s);
    json_decref(st);
    /* the model back: the next index run embeds, and the warning is gone */
    unsetenv("MEMGATE_MODEL_FILE");
    ix = index_json(repo, home);
    ASSERT(json_is_null(json_object_get(json_object_get(ix, "vectors"), "warning")));
    ASSERT_GE_INT(mg_fx_int(ix, "vectors.chunks"), 4);
    json_decref(ix);
    st = mg_fx_run_json(repo, home, (const char *const[]){"status", "--json", NULL});
    s = json_dumps(json_object_get(st, "repos"), JSON_COMPACT);
    ASSERT_NOT_CONTAINS(s, "model_invalid");
    free(s);
    json_decref(st);
    r = mg_fx_search(repo, home, "close the connection when the peer stops answering", "hybrid", 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "mode")), "hybrid");
    json_decref(r);
}
