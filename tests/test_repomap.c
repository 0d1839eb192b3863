/* test_repomap.c — the repo map (search/repomap.h): ranks, focus, budget,
 * scope, incremental updates, the graph saved beside the index, an index
 * without the names, and the tool. */
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixtures.h"
#include "index/indexer.h"
#include "index/refs.h"
#include "inproc.h"
#include "search/repomap.h"
#include "store/catalog.h"
#include "util/config.h"
#include "util/tokens.h"

/* hub.c is used by three files; leaf.c by one; main.c by none. */
static const char HUB_H[] = "int hub_lookup(int key);\n"
                            "void hub_store(int key, int value);\n";
static const char HUB_C[] = "#include \"hub.h\"\n"
                            "static struct { int key, value; } table[16];\n"
                            "int hub_lookup(int key) { return table[key & 15].value; }\n"
                            "void hub_store(int key, int value)\n"
                            "{\n"
                            "\ttable[key & 15].value = value;\n"
                            "}\n";
static const char A_C[] = "#include \"hub.h\"\n"
                          "int alpha_run(int n)\n"
                          "{\n"
                          "\tint e = 0;\n"
                          "\thub_store(n, 1);\n"
                          "\treturn hub_lookup(n) + e;\n"
                          "}\n";
static const char B_C[] = "int beta_run(int n)\n"
                          "{\n"
                          "\treturn hub_lookup(n) + leaf_helper(n);\n"
                          "}\n";
static const char C_C[] = "int gamma_run(int n)\n"
                          "{\n"
                          "\thub_store(n, 2);\n"
                          "\treturn beta_run(n);\n"
                          "}\n";
static const char LEAF_C[] = "int leaf_helper(int n) { return n * 2; }\n";
static const char MAIN_C[] = "int main(void)\n"
                             "{\n"
                             "\treturn alpha_run(1) + gamma_run(2);\n"
                             "}\n";

struct env {
    struct mg_config cfg;
    struct mg_db *d;
    char *repo, *home, dbpath[4096];
};

static void reindex(struct env *e)
{
    if (e->d) mg_db_close(&e->d);
    json_decref(mg_fx_run_json(NULL, e->home, (const char *const[]){"index", e->repo, "--name", "rmap", "--json", NULL}));
    struct mg_err err = {0};
    if (mg_db_open(e->dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
}

static void open_env(struct env *e)
{
    memset(e, 0, sizeof(*e));
    e->repo = mg_t_tmpdir();
    e->home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", e->home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(e->repo, "src/hub.h", HUB_H);
    mg_t_write_str(e->repo, "src/hub.c", HUB_C);
    mg_t_write_str(e->repo, "src/a.c", A_C);
    mg_t_write_str(e->repo, "src/b.c", B_C);
    mg_t_write_str(e->repo, "src/c.c", C_C);
    mg_t_write_str(e->repo, "lib/leaf.c", LEAF_C);
    mg_t_write_str(e->repo, "main.c", MAIN_C);
    mg_t_write_str(e->repo, "README.md", "# hub_lookup and hub_store\n");
    json_decref(mg_fx_run_json(NULL, e->home, (const char *const[]){"index", e->repo, "--name", "rmap", "--json", NULL}));
    struct mg_err err = {0};
    if (mg_config_load(&e->cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"rmap"};
    if (mg_catalog_resolve(&e->cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    snprintf(e->dbpath, sizeof(e->dbpath), "%s", rv[0].dbpath);
    free(rv);
    if (mg_db_open(e->dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
}

/* "path(def,def) path(...)" of a map: files best first, their definitions by line. */
static char *files_str(const struct mg_repomap *m)
{
    static char b[4096];
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < m->n; i++) {
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s(", i ? " " : "", m->files[i].path);
        for (size_t k = 0; k < m->files[i].ndefs; k++)
            o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s", k ? "," : "", m->files[i].defs[k].name);
        o += (size_t)snprintf(b + o, sizeof(b) - o, ")");
    }
    return b;
}

static int map(struct env *e, const struct mg_filter *f, int64_t budget, const char *focus_file, const char *focus_sym,
               struct mg_repomap *m, struct mg_err *err)
{
    struct mg_repomap_in in = {budget, &focus_file, focus_file != NULL, &focus_sym, focus_sym != NULL, false};
    return mg_repomap(e->d, f, &in, m, err);
}

TEST(repomap_ranks_the_hub_first_and_renders_definitions)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store) lib/leaf.c(leaf_helper) src/b.c(beta_run) "
                                 "src/a.c(alpha_run) src/c.c(gamma_run)");
    ASSERT_EQ_STR(m.text, "src/hub.c\n"
                          "  3: int hub_lookup(int key) { return table[key & 15].value; }\n"
                          "  4: void hub_store(int key, int value)\n"
                          "lib/leaf.c\n"
                          "  1: int leaf_helper(int n) { return n * 2; }\n"
                          "src/b.c\n"
                          "  1: int beta_run(int n)\n"
                          "src/a.c\n"
                          "  2: int alpha_run(int n)\n"
                          "src/c.c\n"
                          "  1: int gamma_run(int n)\n");
    ASSERT_EQ_INT(m.considered, 7); /* the .c and .h files; README.md has no lexer */
    ASSERT_NOT_CONTAINS(m.text, "main.c"); /* it defines nothing that is used */
    ASSERT(!m.truncated);
    ASSERT(m.cached); /* the index run saved its graph */
    ASSERT_EQ_INT(m.tokens, (int64_t)(m.len + 3) / 4);
    double sum = 0;
    for (size_t i = 0; i < m.n; i++) sum += m.files[i].rank;
    ASSERT(sum > 0.5 && sum <= 1.0 + 1e-9);
    ASSERT(m.files[0].rank > m.files[1].rank);
    mg_repomap_release(&m);
    /* the second call: the graph and the ranks from the cache, the same map */
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(m.cached);
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store) lib/leaf.c(leaf_helper) src/b.c(beta_run) "
                                 "src/a.c(alpha_run) src/c.c(gamma_run)");
    mg_repomap_release(&m);
    mg_db_close(&e.d);
}

TEST(repomap_focus_changes_the_order)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    /* from main.c (the focus, defining nothing used): what it calls, and what they call, before the leaf
     * (second without a focus) */
    ASSERT_EQ_INT(map(&e, NULL, 1024, "main.c", NULL, &m, &err), 0);
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store) src/a.c(alpha_run) src/c.c(gamma_run) "
                                 "src/b.c(beta_run) lib/leaf.c(leaf_helper)");
    mg_repomap_release(&m);
    ASSERT_EQ_INT(map(&e, NULL, 1024, "./main.c", NULL, &m, &err), 0); /* ./ is the root */
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store) src/a.c(alpha_run) src/c.c(gamma_run) "
                                 "src/b.c(beta_run) lib/leaf.c(leaf_helper)");
    mg_repomap_release(&m);
    /* a focus symbol: its file first */
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, "leaf_helper", &m, &err), 0);
    ASSERT_EQ_STR(m.files[0].path, "lib/leaf.c");
    mg_repomap_release(&m);
    /* unknown focus: a clear error */
    ASSERT_EQ_INT(map(&e, NULL, 1024, "nope.c", NULL, &m, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_FOCUS_NOT_FOUND);
    ASSERT_CONTAINS(err.msg, "'nope.c'");
    ASSERT_EQ_INT(map(&e, NULL, 1024, "README.md", NULL, &m, &err), -1); /* no source file: not in the graph */
    ASSERT_EQ_STR(err.code, MG_E_FOCUS_NOT_FOUND);
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, "no_such_name", &m, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_FOCUS_NOT_FOUND);
    ASSERT_CONTAINS(err.msg, "'no_such_name'");
    mg_db_close(&e.d);
}

/* C function pointers: impl.c stores its functions into struct codec's
 * fields; run.c calls through them and names nothing impl.c defines. The
 * map leans from run.c on impl.c as on a function it calls. */
TEST(repomap_follows_calls_through_function_pointers)
{
    struct env e;
    memset(&e, 0, sizeof(e));
    e.repo = mg_t_tmpdir();
    e.home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", e.home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(e.repo, "codec.h", "struct codec { int (*encode_frame)(int); int (*decode_frame)(int); };\n");
    mg_t_write_str(e.repo, "impl.c", "#include \"codec.h\"\n"
                                     "static int zz_encode_frame(int x) { return x + 1; }\n"
                                     "static int zz_decode_frame(int x) { return x - 1; }\n"
                                     "const struct codec zz_codec = {\n"
                                     "\t.encode_frame = zz_encode_frame,\n"
                                     "\t.decode_frame = zz_decode_frame,\n"
                                     "};\n");
    mg_t_write_str(e.repo, "other.c", "int other_helper(int n) { return n * 3; }\n");
    mg_t_write_str(e.repo, "run.c", "#include \"codec.h\"\n"
                                    "int run_codec(const struct codec *c, int v)\n"
                                    "{\n"
                                    "\treturn c->decode_frame(c->encode_frame(v));\n"
                                    "}\n"
                                    "int run_other(int n) { return other_helper(n); }\n");
    json_decref(mg_fx_run_json(NULL, e.home, (const char *const[]){"index", e.repo, "--name", "rmap", "--json", NULL}));
    struct mg_err err = {0};
    if (mg_config_load(&e.cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"rmap"};
    if (mg_catalog_resolve(&e.cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    snprintf(e.dbpath, sizeof(e.dbpath), "%s", rv[0].dbpath);
    free(rv);
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    struct mg_repomap m;
    ASSERT_EQ_INT(map(&e, NULL, 1024, "run.c", NULL, &m, &err), 0);
    /* impl.c, with the functions stored into the fields run.c calls through, as other.c with the function
     * run.c calls by name */
    ASSERT_CONTAINS(files_str(&m), "impl.c(zz_encode_frame,zz_decode_frame)");
    ASSERT_CONTAINS(files_str(&m), "other.c(other_helper)");
    mg_repomap_release(&m);
    mg_db_close(&e.d);
}

TEST(repomap_budget_is_honoured_and_checked)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    /* 32 tokens: 128 bytes, the hub and what else fits */
    ASSERT_EQ_INT(map(&e, NULL, 32, NULL, NULL, &m, &err), 0);
    ASSERT(m.len <= 128);
    ASSERT_EQ_INT((int64_t)strlen(m.text), (int64_t)m.len);
    ASSERT(m.tokens <= 32);
    ASSERT(m.truncated);
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store)");
    ASSERT_EQ_STR(m.text, "src/hub.c\n  3: int hub_lookup(int key) { return table[key & 15].value; }\n"
                          "  4: void hub_store(int key, int value)\n");
    mg_repomap_release(&m);
    for (int b = 32; b <= 120; b += 8) {
        ASSERT_EQ_INT(map(&e, NULL, b, NULL, NULL, &m, &err), 0);
        ASSERT(m.len <= (size_t)b * 4);
        ASSERT(m.n >= 1);
        mg_repomap_release(&m);
    }
    const int64_t bad[] = {0, -1, 31, 65537, INT64_MAX};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ_INT(map(&e, NULL, bad[i], NULL, NULL, &m, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
        ASSERT_CONTAINS(err.msg, "budget_tokens must be 32 to 65536");
    }
    mg_db_close(&e.d);
}

TEST(repomap_scope_filter_excludes_files)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    struct mg_globset *gs;
    const char *exc[] = {"src/hub.*"};
    ASSERT_EQ_INT(mg_globset_new(NULL, 0, exc, 1, &gs, &err), 0);
    struct mg_filter f = {.globs = gs};
    ASSERT_EQ_INT(map(&e, &f, 1024, NULL, NULL, &m, &err), 0);
    ASSERT_EQ_STR(files_str(&m), "lib/leaf.c(leaf_helper) src/b.c(beta_run) src/a.c(alpha_run) src/c.c(gamma_run)");
    ASSERT_EQ_INT(m.considered, 5);
    ASSERT_NOT_CONTAINS(m.text, "hub");
    mg_repomap_release(&m);
    /* a focus outside the scope is not found, as if it did not exist */
    ASSERT_EQ_INT(map(&e, &f, 1024, "src/hub.c", NULL, &m, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_FOCUS_NOT_FOUND);
    ASSERT_EQ_INT(map(&e, &f, 1024, NULL, "hub_lookup", &m, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_FOCUS_NOT_FOUND);
    mg_globset_free(&gs);
    mg_db_close(&e.d);
}

TEST(repomap_follows_an_incremental_index)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT_EQ_STR(m.files[0].path, "src/hub.c");
    mg_repomap_release(&m);
    /* nobody uses the hub any more; a.c uses the leaf */
    mg_t_write_str(e.repo, "src/a.c", "int alpha_run(int n) { return leaf_helper(n); }\n");
    mg_t_write_str(e.repo, "src/b.c", "int beta_run(int n) { return n; }\n");
    mg_t_write_str(e.repo, "src/c.c", "int gamma_run(int n) { return beta_run(n); }\n");
    reindex(&e);
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(m.cached && !m.stale); /* the run saved the new generation's graph */
    ASSERT_EQ_STR(files_str(&m), "lib/leaf.c(leaf_helper) src/b.c(beta_run) src/a.c(alpha_run) src/c.c(gamma_run)");
    mg_repomap_release(&m);
    mg_db_close(&e.d);
}

/* An incremental run of paths (a watcher's): it saves no graph. */
static void reindex_paths(struct env *e, const char *const *paths, size_t n)
{
    if (e->d) mg_db_close(&e->d);
    struct mg_index_opts o = {.path = e->repo, .name = "rmap", .stored_root = e->repo, .paths = paths, .npaths = n};
    struct mg_index_stats st;
    struct mg_err err = {0};
    if (mg_index_run(&e->cfg, &o, &st, &err) != 0) FAIL("index %s: %s", paths[0], err.msg);
    if (mg_db_open(e->dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
}

static off_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_size : -1;
}

static char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("open %s", path);
    static char b[1 << 20];
    *len = fread(b, 1, sizeof(b), f);
    fclose(f);
    char *c = malloc(*len + 1);
    memcpy(c, b, *len);
    return c;
}

static void write_bytes(const char *path, const char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, len, f) != len) FAIL("write %s", path);
    fclose(f);
}

static ino_t inode_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_ino : 0;
}

/* A re-index that changes nothing keeps index_gen and the saved graph (it
 * was built again on every run: 1.0-2.5 s of Linux's no-op re-index); one
 * that changes a file gives a new generation and a new graph. A watcher's
 * run of unchanged paths keeps them too. */
TEST(repomap_reindex_that_changed_nothing_keeps_the_graph)
{
    struct env e;
    open_env(&e);
    char saved[4200];
    snprintf(saved, sizeof(saved), "%s.map", e.dbpath);
    int64_t gen0 = mg_db_meta_int(e.d, "index_gen", 0);
    ino_t ino0 = inode_of(saved);
    ASSERT(gen0 > 0 && ino0 != 0);
    reindex(&e);
    ASSERT_EQ_INT(mg_db_meta_int(e.d, "index_gen", 0), gen0);
    ASSERT(inode_of(saved) == ino0); /* not written again */
    reindex_paths(&e, (const char *const[]){"src/a.c"}, 1);
    ASSERT_EQ_INT(mg_db_meta_int(e.d, "index_gen", 0), gen0);
    struct mg_err err = {0};
    struct mg_repomap m;
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(m.cached && !m.stale); /* the saved graph is current */
    ASSERT_EQ_STR(m.files[0].path, "src/hub.c");
    mg_repomap_release(&m);
    mg_t_write_str(e.repo, "src/b.c", "int beta_run(int n) { return n; }\n");
    reindex(&e);
    ASSERT_EQ_INT(mg_db_meta_int(e.d, "index_gen", 0), gen0 + 1);
    ASSERT(inode_of(saved) != ino0);
    mg_db_close(&e.d);
}

/* A full index run saves the graph and its ranks beside the index; a new
 * process (an empty cache) reads it and maps what a build maps; a missing
 * or damaged file is built again (and saved again); removing the repo
 * removes it. */
TEST(repomap_saved_graph_answers_the_first_map)
{
    struct env e;
    open_env(&e);
    char saved[4200];
    snprintf(saved, sizeof(saved), "%s.map", e.dbpath);
    ASSERT(file_size(saved) > 0);
    struct mg_err err = {0};
    struct mg_repomap m;
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(m.cached && !m.stale);
    char *want = strdup(m.text), *want_files = strdup(files_str(&m));
    double want_rank = m.files[0].rank;
    mg_repomap_release(&m);
    /* no saved graph: built, the same map, and saved again */
    ASSERT_EQ_INT(unlink(saved), 0);
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(!m.cached);
    ASSERT_EQ_STR(m.text, want);
    ASSERT_EQ_STR(files_str(&m), want_files);
    ASSERT(m.files[0].rank == want_rank);
    mg_repomap_release(&m);
    ASSERT(file_size(saved) > 0);
    size_t len;
    char *good = read_bytes(saved, &len);
    ASSERT_EQ_INT(mg_repomap_saved_check(good, len, &err), 0);
    /* damaged files: cut, a count changed, a use pointing past the names, garbage: each refused, built again */
    for (int k = 0; k < 4; k++) {
        char *bad = malloc(len);
        memcpy(bad, good, len);
        size_t blen = len;
        if (k == 0) blen = len - 5;
        if (k == 1) bad[32] ^= 0x10; /* the file count */
        if (k == 2) memset(bad + len - 8, 0xff, 8); /* the last name's rank: not a number */
        if (k == 3) memset(bad, 'x', len);
        ASSERT_EQ_INT(mg_repomap_saved_check(bad, blen, &err), -1);
        ASSERT_EQ_STR(err.code, MG_E_IO);
        ASSERT_CONTAINS(err.msg, "damaged");
        write_bytes(saved, bad, blen);
        free(bad);
        mg_repomap_cache_clear();
        ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
        ASSERT(!m.cached);
        ASSERT_EQ_STR(m.text, want);
        mg_repomap_release(&m);
        ASSERT_EQ_INT(file_size(saved), (off_t)len); /* saved again, whole */
    }
    /* a focus on the saved graph ranks again */
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(map(&e, NULL, 1024, "main.c", NULL, &m, &err), 0);
    ASSERT(m.cached);
    ASSERT_EQ_STR(files_str(&m), "src/hub.c(hub_lookup,hub_store) src/a.c(alpha_run) src/c.c(gamma_run) "
                                 "src/b.c(beta_run) lib/leaf.c(leaf_helper)");
    mg_repomap_release(&m);
    /* no temporary file is left beside it */
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s", e.dbpath);
    *strrchr(dir, '/') = 0;
    char *ls = NULL;
    size_t lslen = 0;
    FILE *lf = open_memstream(&ls, &lslen);
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "ls -a '%s'", dir);
    FILE *p = popen(cmd, "r");
    char line[512];
    while (fgets(line, sizeof(line), p)) fputs(line, lf);
    pclose(p);
    fclose(lf);
    ASSERT_NOT_CONTAINS(ls, ".tmp");
    free(ls);
    free(good);
    free(want);
    free(want_files);
    mg_db_close(&e.d);
    json_decref(mg_fx_run_json(NULL, e.home, (const char *const[]){"repos", "rm", "rmap", "--json", NULL}));
    ASSERT_EQ_INT(file_size(saved), -1);
}

/* Wait until a stale_ok call is answered from the current generation (the
 * background build), and check that map. */
static void wait_fresh(struct env *e, const char *want)
{
    struct mg_repomap_in in = {1024, NULL, 0, NULL, 0, true};
    struct mg_err err = {0};
    struct mg_repomap m;
    bool fresh = false;
    for (int i = 0; i < 400 && !fresh; i++) { /* at most 20 s */
        ASSERT_EQ_INT(mg_repomap(e->d, NULL, &in, &m, &err), 0);
        fresh = !m.stale;
        if (fresh) {
            ASSERT(m.cached); /* built in the background */
            ASSERT_EQ_STR(files_str(&m), want);
        }
        mg_repomap_release(&m);
        if (!fresh) {
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    ASSERT(fresh);
}

/* After the index changed, a server's call (stale_ok) is answered from the
 * last graph at once, marked stale, while the new one is built in the
 * background; a later call has the new generation's map. The last graph
 * may be in memory, or saved beside the index (a server's first call after
 * a restart); a command (no stale_ok) builds the current one first. */
TEST(repomap_answers_stale_while_the_new_graph_is_built)
{
    static const char NEW[] = "lib/leaf.c(leaf_helper) src/b.c(beta_run) src/a.c(alpha_run) src/c.c(gamma_run)";
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    struct mg_repomap_in in = {1024, NULL, 0, NULL, 0, true};
    ASSERT_EQ_INT(mg_repomap(e.d, NULL, &in, &m, &err), 0);
    ASSERT(!m.stale);
    ASSERT_EQ_STR(m.files[0].path, "src/hub.c");
    mg_repomap_release(&m);
    mg_t_write_str(e.repo, "src/a.c", "int alpha_run(int n) { return leaf_helper(n); }\n");
    mg_t_write_str(e.repo, "src/b.c", "int beta_run(int n) { return n; }\n");
    mg_t_write_str(e.repo, "src/c.c", "int gamma_run(int n) { return beta_run(n); }\n");
    const char *changed[] = {"src/a.c", "src/b.c", "src/c.c"};
    reindex_paths(&e, changed, 3);
    ASSERT_EQ_INT(mg_repomap(e.d, NULL, &in, &m, &err), 0);
    ASSERT(m.cached && m.stale);
    ASSERT_EQ_STR(m.files[0].path, "src/hub.c"); /* the last generation's ranks */
    mg_repomap_release(&m);
    wait_fresh(&e, NEW);
    /* the background build saved its graph: a new process's first call is current */
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(mg_repomap(e.d, NULL, &in, &m, &err), 0);
    ASSERT(m.cached && !m.stale);
    ASSERT_EQ_STR(files_str(&m), NEW);
    mg_repomap_release(&m);
    /* a restarted server whose saved graph is a generation behind: stale at once, then current */
    char saved[4200];
    snprintf(saved, sizeof(saved), "%s.map", e.dbpath);
    size_t len;
    char *old = read_bytes(saved, &len);
    mg_t_write_str(e.repo, "src/b.c", "int beta_two(int n) { return n; }\n"); /* used by none */
    const char *b[] = {"src/b.c"};
    reindex_paths(&e, b, 1);
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(mg_repomap(e.d, NULL, &in, &m, &err), 0);
    ASSERT(m.cached && m.stale);
    ASSERT_EQ_STR(m.files[0].path, "lib/leaf.c"); /* (b.c, changed since, is left out: stale) */
    mg_repomap_release(&m);
    wait_fresh(&e, "lib/leaf.c(leaf_helper) src/a.c(alpha_run) src/c.c(gamma_run)");
    /* a command (no stale_ok) with only an older saved graph builds the current one */
    write_bytes(saved, old, len);
    mg_repomap_cache_clear();
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(!m.cached && !m.stale);
    ASSERT_EQ_STR(files_str(&m), "lib/leaf.c(leaf_helper) src/a.c(alpha_run) src/c.c(gamma_run)");
    mg_repomap_release(&m);
    free(old);
    mg_db_close(&e.d);
}

TEST(repomap_on_an_index_without_names_says_to_reindex)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_repomap m;
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    char *want = strdup(m.text);
    mg_repomap_release(&m);
    mg_db_close(&e.d);
    /* an index of schema 2: no refs table, no refs_ready */
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open(e.dbpath, &db), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_exec(db, "DROP TABLE refs; DELETE FROM meta WHERE key = 'refs_ready'; "
                                   "PRAGMA user_version = 2;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_REPOMAP_UNAVAILABLE);
    ASSERT_CONTAINS(err.msg, "run `memgate index`");
    /* the next run migrates and fills every file's row: no file changed */
    reindex(&e);
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT_EQ_STR(m.text, want);
    mg_repomap_release(&m);
    free(want);
    mg_db_close(&e.d);
}

TEST(repomap_refs_blobs_decode_what_was_built)
{
    const char *names[] = {"own_function", "point", "x"};
    const char *kinds[] = {"function", "struct", "field"};
    const char text[] = "int own_function(struct point *p) { return other_call(p->x) + own_function(0) + "
                        "local_var + local_var + counter + sizeof(p) + likely(p) + __builtin_expect(p, 0); }\n"
                        "/* in_comment() */\n";
    struct mg_refs_blobs b;
    ASSERT_EQ_INT(mg_refs_build("c", text, sizeof(text) - 1, names, kinds, 3, &b), 0);
    struct mg_refs_iter it;
    uint32_t h, x;
    size_t n = 0;
    mg_refs_iter_init(&it, b.defs, b.ndefs, false);
    while (mg_refs_next(&it, &h, &x)) {
        ASSERT(h == mg_refs_hash("own_function", 12) || h == mg_refs_hash("point", 5));
        ASSERT_EQ_INT(x, h == mg_refs_hash("point", 5) ? MG_REFS_PLAIN : MG_REFS_SPECIFIC);
        n++;
    }
    ASSERT_EQ_INT(n, 2); /* the field is no definer */
    n = 0;
    mg_refs_iter_init(&it, b.uses, b.nuses, true);
    while (mg_refs_next(&it, &h, &x)) { /* own names, keywords (called ones too: sizeof, likely,
                                         * __builtin_expect), short names, comments, plain words used
                                         * weakly (counter) left out */
        if (h == mg_refs_hash("other_call", 10)) ASSERT_EQ_INT(x, 1 << 1 | 1);
        else if (h == mg_refs_hash("local_var", 9)) ASSERT_EQ_INT(x, 2 << 1);
        else FAIL("unexpected hash %u", h);
        n++;
    }
    ASSERT_EQ_INT(n, 2);
    /* a truncated blob ends the walk */
    mg_refs_iter_init(&it, b.uses, b.nuses - 1, true);
    n = 0;
    while (mg_refs_next(&it, &h, &x)) n++;
    ASSERT_EQ_INT(n, 1);
    mg_refs_blobs_release(&b);
    ASSERT_EQ_INT(mg_refs_build("markdown", text, sizeof(text) - 1, names, kinds, 3, &b), 1);
}

TEST(repomap_tool_renders_the_gated_map)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "src/hub.c", HUB_C);
    mg_t_write_str(repo, "src/hub.h", HUB_H);
    mg_t_write_str(repo, "src/a.c", A_C);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "rtool", "--json", NULL}));
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    char code[64];
    json_t *r = mg_t_call(&t, "repo_map", "{\"repo\":\"rtool\",\"budget_tokens\":128}", code);
    if (!r) FAIL("repo_map: %s", code);
    const char *m = json_string_value(json_object_get(r, "map"));
    if (!m) FAIL("no map");
    ASSERT(strncmp(m, "src/hub.c\n"
                           "  3: int hub_lookup(int key) { return table[key & 15].value; }\n"
                           "  4: void hub_store(int key, int value)\n", 113) == 0);
    json_t *f0 = json_array_get(json_object_get(r, "files"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(f0, "path")), "src/hub.c");
    json_t *d0 = json_array_get(json_object_get(f0, "definitions"), 0);
    ASSERT_EQ_STR(json_string_value(json_object_get(d0, "name")), "hub_lookup");
    ASSERT_EQ_STR(json_string_value(json_object_get(d0, "kind")), "function");
    ASSERT_EQ_INT(json_integer_value(json_object_get(d0, "line")), 3);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "budget_tokens")), 128);
    ASSERT(json_integer_value(json_object_get(r, "tokens")) <= 128);
    json_decref(r);
    /* the budget holds for what the agent reads: the whole text content, the map in it once */
    const struct mg_tool *tool = mg_tool_find("repo_map");
    for (int budget = 64; budget <= 1024; budget *= 2) {
        char args[96];
        snprintf(args, sizeof(args), "{\"repo\":\"rtool\",\"budget_tokens\":%d}", budget);
        r = mg_t_call(&t, "repo_map", args, code);
        if (!r) FAIL("repo_map %d: %s", budget, code);
        char *text = mg_tools_text(tool, r);
        size_t cost = mg_tokens_str(text);
        if (cost > (size_t)budget) FAIL("budget %d: the text costs %zu tokens:\n%s", budget, cost, text);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "tokens")), (long long)cost);
        const char *first = strstr(text, "hub_lookup");
        if ((budget >= 128 && !first) || (first && strstr(first + 1, "hub_lookup"))) FAIL("budget %d: hub_lookup not once in\n%s", budget, text);
        free(text);
        json_decref(r);
    }
    static const struct {
        const char *args, *code;
    } bad[] = {
        {"{\"repo\":\"rtool\",\"budget_tokens\":0}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"budget_tokens\":-3}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"budget_tokens\":1000000}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"budget_tokens\":\"many\"}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"focus_files\":[\"nope.c\"]}", "focus_not_found"},
        {"{\"repo\":\"rtool\",\"focus_files\":[\"\"]}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"focus_files\":7}", "invalid_argument"},
        {"{\"repo\":\"rtool\",\"focus_symbols\":[\"nothing_here\"]}", "focus_not_found"},
        {"{\"repo\":\"rtool\",\"focus\":[\"src/a.c\"]}", "invalid_argument"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *x = mg_t_call(&t, "repo_map", bad[i].args, code);
        if (x) FAIL("%s: no error", bad[i].args);
        ASSERT_EQ_STR(code, bad[i].code);
    }
    r = mg_t_call(&t, "repo_map", "{\"repo\":\"rtool\",\"focus_files\":\"src/a.c\"}", code);
    if (!r) FAIL("repo_map focus: %s", code);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(r, "files"), 0), "path")),
                  "src/hub.c");
    json_decref(r);
    mg_t_srv_close(&t);
}

/* A run that touched under 1% of the files leaves the graph to the first map
 * when an older one is saved (code/code.c): map_seconds 0; a server's call
 * is answered from the saved one, stale; a command builds the current one
 * (and saves it); a run that touched more saves it at its end. */
TEST(repomap_small_run_leaves_the_graph_to_the_first_map)
{
    struct env e;
    open_env(&e);
    for (int i = 0; i < 120; i++) {
        char path[64], text[128];
        snprintf(path, sizeof(path), "fill/f%03d.c", i);
        snprintf(text, sizeof(text), "int fill_%03d(int n) { return n + %d; }\n", i, i);
        mg_t_write_str(e.repo, path, text);
    }
    json_t *j = mg_fx_run_json(NULL, e.home, (const char *const[]){"index", e.repo, "--name", "rmap", "--json", NULL});
    ASSERT(json_real_value(json_object_get(j, "map_seconds")) > 0); /* 120 of 128 files: saved */
    json_decref(j);
    mg_t_write_str(e.repo, "src/b.c", "int beta_run(int n) { return n; }\n"); /* 1 of 128 */
    j = mg_fx_run_json(NULL, e.home, (const char *const[]){"index", e.repo, "--name", "rmap", "--json", NULL});
    ASSERT_EQ_INT((int)json_integer_value(json_object_get(json_object_get(j, "files"), "changed")), 1);
    ASSERT(json_real_value(json_object_get(j, "map_seconds")) == 0);
    json_decref(j);
    mg_db_close(&e.d);
    struct mg_err err = {0};
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    mg_repomap_cache_clear();
    struct mg_repomap m;
    struct mg_repomap_in in = {1024, NULL, 0, NULL, 0, true};
    ASSERT_EQ_INT(mg_repomap(e.d, NULL, &in, &m, &err), 0);
    ASSERT(m.cached && m.stale); /* the saved graph is the last run's but one */
    mg_repomap_release(&m);
    mg_repomap_cache_clear(); /* (a background build may be under way: a command builds its own) */
    ASSERT_EQ_INT(map(&e, NULL, 1024, NULL, NULL, &m, &err), 0);
    ASSERT(!m.stale);
    ASSERT_NOT_CONTAINS(files_str(&m), "leaf_helper,"); /* b.c no longer calls leaf_helper: current ranks */
    mg_repomap_release(&m);
    mg_db_close(&e.d);
}
