/* test_vload.c — a server's vectors load in the background.
 *
 *   - a server started on a data directory loads its repos' vectors at once,
 *     before any search asks for them;
 *   - a hybrid search whose vectors are not in memory yet is answered at
 *     once by words (mode lexical, "semantic": {"state": "loading", ...}),
 *     exactly as a lexical search of the query, and once they are in, as
 *     the CLI's hybrid search (which waits for them) answers;
 *   - after a re-index the old generation's vectors are never used: the
 *     next search is answered by words while the new ones load; a tampered
 *     blob fails the search with vector_tampered once the load has met it;
 *   - get_context's code part says so too;
 *   - a new generation takes its own repo's place in the cache;
 *   - a CLI search reads the query's columns from the column file, with
 *     the answer of every blob, and never uses a changed one.
 */
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "inproc.h"
#include "security/access.h"
#include "test.h"
#include "vector/vstore.h"

#define NET_Q "send a packet on the network device"

static void corpus(const char *repo)
{
    mg_t_write_str(repo, "alpha/pool.c",
                   "/* Grow the buffer pool when every buffer is in use. */\n"
                   "int pool_grow(struct pool *p)\n{\n    return pool_alloc_buffers(p, p->count * 2);\n}\n");
    mg_t_write_str(repo, "beta/pool.c",
                   "/* Shrink the buffer pool when buffers sit unused. */\n"
                   "int pool_shrink(struct pool *p)\n{\n    return pool_free_buffers(p, p->count / 2);\n}\n");
    mg_t_write_str(repo, "gamma/net.c",
                   "/* Send a packet on the network device queue. */\n"
                   "int net_xmit(struct sk_buff *skb)\n{\n    return dev_queue_xmit(skb);\n}\n");
    mg_t_write_str(repo, "delta/route.c",
                   "/* Pick the outgoing interface for a destination address. */\n"
                   "int route_lookup(unsigned dst)\n{\n    return fib_find(dst);\n}\n");
}

static void index_repo(const char *home, const char *repo, const char *name)
{
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", name, "--quiet");
    if (o.status != 0) FAIL("index %s: %s", name, o.err);
    mg_t_out_free(&o);
}

/* The hits of a search result as text: "path:start-end score" each. */
static char *hits(json_t *res)
{
    static char buf[8][4096];
    static int at;
    char *b = buf[at++ % 8];
    size_t o = 0;
    b[0] = 0;
    json_t *h;
    size_t i;
    json_array_foreach(json_object_get(res, "results"), i, h)
        o += (size_t)snprintf(b + o, sizeof(buf[0]) - o, "%s%s:%lld-%lld %.3f", i ? " " : "",
                              json_string_value(json_object_get(h, "path")),
                              json_integer_value(json_object_get(h, "start_line")),
                              json_integer_value(json_object_get(h, "end_line")),
                              json_real_value(json_object_get(h, "score")));
    return b;
}

static json_t *search(struct mg_t_srv *t, const char *repo_id, const char *query, const char *mode, char *code)
{
    char args[512];
    snprintf(args, sizeof(args), "{\"query\":\"%s\",\"mode\":\"%s\",\"repo_id\":\"%s\"}", query, mode, repo_id);
    return mg_t_call(t, "search_code", args, code);
}

static const char *mode_of(json_t *r) { return json_string_value(json_object_get(r, "mode")); }

static void nap(void)
{
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
}

/* Search until the answer is no longer the words-only one (at most 20 s). */
static json_t *search_until_hybrid(struct mg_t_srv *t, const char *repo_id, const char *query)
{
    char code[64] = "";
    for (int i = 0; i < 1000; i++) {
        json_t *r = search(t, repo_id, query, "hybrid", code);
        if (!r) FAIL("search: %s", code);
        if (strcmp(mode_of(r), "hybrid") == 0) return r;
        ASSERT_EQ_STR(mode_of(r), "lexical");
        ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "semantic"), "state")), "loading");
        json_decref(r);
        nap();
    }
    FAIL("the vectors of %s never loaded", repo_id);
    return NULL;
}

/* The CLI's hybrid search (another process: it loads the vectors and waits for them). */
static json_t *cli_hybrid(const char *home, const char *repo, const char *repo_id, const char *query)
{
    return mg_fx_run_json(repo, home, (const char *const[]){"search", query, "--mode", "hybrid", "--repo", repo_id,
                                                            "--json", NULL});
}

TEST(vload_hybrid_answers_by_words_while_vectors_load_then_fully)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    corpus(repo);
    struct mg_t_srv t;
    mg_t_srv_open_serving(&t, home, "local", MG_LEVEL_ADMIN);
    /* indexed after the server started: nothing was loaded for it, so the
     * first hybrid search surely finds its vectors not in memory */
    index_repo(home, repo, "vl");
    char db[4200], code[64] = "";
    snprintf(db, sizeof(db), "%s/repos/vl.db", home);
    ASSERT_EQ_INT(mg_vcache_state(db, NULL), 0);

    json_t *first = search(&t, "vl", NET_Q, "hybrid", code);
    ASSERT(first);
    ASSERT_EQ_STR(mode_of(first), "lexical");
    json_t *sem = json_object_get(first, "semantic");
    ASSERT_EQ_STR(json_string_value(json_object_get(sem, "state")), "loading");
    ASSERT(json_is_integer(json_object_get(sem, "vectors_loaded")));
    ASSERT(json_is_integer(json_object_get(sem, "vectors_total")));
    /* exactly what a lexical search of the query answers */
    json_t *lex = search(&t, "vl", NET_Q, "lexical", code);
    ASSERT(lex);
    ASSERT(!json_object_get(lex, "semantic"));
    ASSERT_EQ_STR(hits(first), hits(lex));
    ASSERT_CONTAINS(hits(first), "gamma/net.c:1-5");
    json_decref(first);
    json_decref(lex);

    /* then the full hybrid answer, the CLI's exactly, without the flag */
    json_t *full = search_until_hybrid(&t, "vl", NET_Q);
    ASSERT(!json_object_get(full, "semantic"));
    ASSERT_EQ_INT(mg_vcache_state(db, NULL), 2);
    json_t *cli = cli_hybrid(home, repo, "vl", NET_Q);
    ASSERT_EQ_STR(mode_of(cli), "hybrid");
    ASSERT_EQ_STR(hits(full), hits(cli));
    /* semantic search itself (not hybrid) never answers without vectors */
    json_t *s = search(&t, "vl", "outgoing interface for a destination", "semantic", code);
    ASSERT(s);
    ASSERT_EQ_STR(mode_of(s), "semantic");
    ASSERT_CONTAINS(hits(s), "delta/route.c:1-5");
    json_decref(s);
    json_decref(full);
    json_decref(cli);
    mg_t_srv_close(&t);
}

TEST(vload_server_loads_vectors_from_its_start)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    corpus(repo);
    index_repo(home, repo, "vs");
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/vs.db", home);
    ASSERT_EQ_INT(mg_vcache_state(db, NULL), 0);
    struct mg_t_srv t;
    mg_t_srv_open_serving(&t, home, "local", MG_LEVEL_ADMIN);
    /* no search asks for them: the server's start did */
    struct mg_vload p = {0};
    int state = 0;
    for (int i = 0; i < 1000 && (state = mg_vcache_state(db, &p)) == 1; i++) nap();
    ASSERT_EQ_INT(state, 2);
    ASSERT_EQ_INT(p.total, 4);
    ASSERT_EQ_INT(p.done, 4);
    /* so the first hybrid search is a full one */
    char code[64] = "";
    json_t *r = search(&t, "vs", NET_Q, "hybrid", code);
    ASSERT(r);
    ASSERT_EQ_STR(mode_of(r), "hybrid");
    json_t *cli = cli_hybrid(home, repo, "vs", NET_Q);
    ASSERT_EQ_STR(hits(r), hits(cli));
    json_decref(r);
    json_decref(cli);
    mg_t_srv_close(&t);
    /* a process that is not a server loads nothing at its start */
    char *home2 = mg_t_tmpdir(), db2[4200];
    index_repo(home2, repo, "vs2");
    snprintf(db2, sizeof(db2), "%s/repos/vs2.db", home2);
    mg_t_srv_open(&t, home2, "local", MG_LEVEL_ADMIN);
    ASSERT_EQ_INT(mg_vcache_state(db2, NULL), 0);
    mg_t_srv_close(&t);
}

TEST(vload_never_uses_stale_or_tampered_vectors)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    corpus(repo);
    index_repo(home, repo, "vt");
    struct mg_t_srv t;
    mg_t_srv_open_serving(&t, home, "local", MG_LEVEL_ADMIN);
    json_decref(search_until_hybrid(&t, "vt", NET_Q));

    /* a new file about packets: the re-index makes new vectors (vec_gen) */
    mg_t_write_str(repo, "eps/xmit.c",
                   "/* Send a packet on the network device, the fast path. */\n"
                   "int fast_xmit(struct sk_buff *skb)\n{\n    return dev_direct_xmit(skb, 0);\n}\n");
    index_repo(home, repo, "vt");
    char code[64] = "";
    json_t *r = search(&t, "vt", NET_Q, "hybrid", code);
    ASSERT(r);
    /* the old generation's vectors are not used: words only, while the new ones load */
    ASSERT_EQ_STR(mode_of(r), "lexical");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "semantic"), "state")), "loading");
    json_decref(r);
    json_t *full = search_until_hybrid(&t, "vt", NET_Q);
    json_t *cli = cli_hybrid(home, repo, "vt", NET_Q);
    ASSERT_EQ_STR(hits(full), hits(cli));
    ASSERT_CONTAINS(hits(full), "eps/xmit.c");
    json_decref(full);
    json_decref(cli);

    /* one byte of one file's sealed vectors changed, then a re-index that
     * makes new vectors for another file only: the tampered blob is loaded */
    mg_fx_tamper_vectors(home, "vt");
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/vt.db", home);
    mg_t_write_str(repo, "eps/xmit.c", "/* Send a packet, the slow path. */\nint slow_xmit(void) { return 0; }\n");
    index_repo(home, repo, "vt");
    /* get_context's code part is a hybrid search too: answered by words, and it says so */
    r = mg_t_call(&t, "get_context", "{\"prompt\":\"" NET_Q "\",\"repo\":\"vt\"}", code);
    ASSERT(r);
    /* the load has not met it yet ("loading"), or (the server's watcher re-indexed the same change and a
     * search's load began earlier) it has, and no vector was used: the next search says so */
    const char *state = json_string_value(json_object_get(json_object_get(r, "semantic"), "state"));
    if (!state) {
        json_t *s2 = search(&t, "vt", NET_Q, "hybrid", code);
        ASSERT(!s2);
        ASSERT_EQ_STR(code, "vector_tampered");
    } else {
        ASSERT_EQ_STR(state, "loading");
    }
    ASSERT_CONTAINS(json_string_value(json_object_get(r, "block")), "gamma/net.c");
    json_decref(r);
    bool failed = false;
    for (int i = 0; i < 1000 && !failed; i++) {
        r = search(&t, "vt", NET_Q, "hybrid", code);
        if (!r) {
            ASSERT_EQ_STR(code, "vector_tampered");
            failed = true;
            break;
        }
        ASSERT_EQ_STR(mode_of(r), "lexical"); /* never hybrid with a tampered blob */
        json_decref(r);
        nap();
    }
    ASSERT(failed);
    /* and it stays so (semantic search too) until the vectors change */
    ASSERT(!search(&t, "vt", NET_Q, "hybrid", code));
    ASSERT_EQ_STR(code, "vector_tampered");
    ASSERT(!search(&t, "vt", NET_Q, "semantic", code));
    ASSERT_EQ_STR(code, "vector_tampered");
    ASSERT_EQ_INT(mg_vcache_state(db, NULL), -1);
    mg_t_srv_close(&t);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A CLI search reads the query's columns from the column file that the
 * index run wrote: the same answer as from every blob; a missing file is
 * written again by the process that loads the blobs; a changed one is
 * refused, never used. */
TEST(vload_cli_reads_the_column_file)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    unsetenv("MEMGATE_EMBEDDER");
    corpus(repo);
    index_repo(home, repo, "vc");
    char vec[4200], gen[64], gen2[64];
    snprintf(vec, sizeof(vec), "%s/repos/vc.db", home);
    ASSERT_EQ_INT(mg_vcols_gen(vec, gen, NULL), 0); /* written by the index run */
    strcat(vec, ".vec");
    json_t *cols = cli_hybrid(home, repo, "vc", NET_Q);
    json_t *sem_cols = mg_fx_run_json(repo, home, (const char *const[]){"search", "outgoing interface for a "
                                      "destination", "--mode", "semantic", "--repo", "vc", "--json", NULL});
    ASSERT_EQ_INT(unlink(vec), 0);
    json_t *blobs = cli_hybrid(home, repo, "vc", NET_Q);
    ASSERT(exists(vec)); /* the loading process wrote it again */
    json_t *sem_blobs = mg_fx_run_json(repo, home, (const char *const[]){"search", "outgoing interface for a "
                                       "destination", "--mode", "semantic", "--repo", "vc", "--json", NULL});
    ASSERT_EQ_STR(mode_of(cols), "hybrid");
    ASSERT_EQ_STR(hits(cols), hits(blobs));
    ASSERT_CONTAINS(hits(cols), "gamma/net.c");
    ASSERT_EQ_STR(hits(sem_cols), hits(sem_blobs));
    ASSERT_CONTAINS(hits(sem_cols), "delta/route.c");
    json_decref(cols);
    json_decref(blobs);
    json_decref(sem_cols);
    json_decref(sem_blobs);

    /* a re-index that changes the vectors writes the new generation's */
    mg_t_write_str(repo, "eps/xmit.c", "/* Send a packet on the network device, the fast path. */\n"
                                        "int fast_xmit(void) { return 0; }\n");
    index_repo(home, repo, "vc");
    vec[strlen(vec) - 4] = 0;
    ASSERT_EQ_INT(mg_vcols_gen(vec, gen2, NULL), 0);
    ASSERT(strcmp(gen, gen2) != 0);
    strcat(vec, ".vec");

    /* one byte of the file table changed: the search fails, it does not answer without it */
    FILE *f = fopen(vec, "r+b");
    ASSERT(f);
    ASSERT_EQ_INT(fseek(f, 200, SEEK_SET), 0);
    int c = fgetc(f);
    ASSERT_EQ_INT(fseek(f, 200, SEEK_SET), 0);
    fputc(c ^ 1, f);
    fclose(f);
    struct mg_t_out o = MG_RUN(repo, home, "search", NET_Q, "--mode", "hybrid", "--repo", "vc");
    ASSERT(o.status != 0);
    ASSERT_CONTAINS(o.err, "vector_tampered");
    mg_t_out_free(&o);
}

/* A new generation takes its own repo's old place in the cache (8 repos),
 * not another repo's, even when another's is the least recently used. */
TEST(vload_new_generation_replaces_its_own_repo_in_the_cache)
{
    char *home = mg_t_tmpdir(), *repo[MG_VCACHE_REPOS], id[MG_VCACHE_REPOS][8], db[MG_VCACHE_REPOS][4200];
    unsetenv("MEMGATE_EMBEDDER");
    struct mg_t_srv t;
    mg_t_srv_open_serving(&t, home, "local", MG_LEVEL_ADMIN);
    for (int i = 0; i < MG_VCACHE_REPOS; i++) {
        repo[i] = mg_t_tmpdir();
        corpus(repo[i]);
        snprintf(id[i], sizeof(id[i]), "c%d", i);
        snprintf(db[i], sizeof(db[i]), "%s/repos/%s.db", home, id[i]);
        index_repo(home, repo[i], id[i]);
    }
    for (int i = 0; i < MG_VCACHE_REPOS; i++) json_decref(search_until_hybrid(&t, id[i], NET_Q));
    json_decref(search_until_hybrid(&t, id[0], NET_Q)); /* c0 the most recent, c1 the least */
    mg_t_write_str(repo[0], "eps/xmit.c", "/* Send a packet, the fast path. */\nint fast_xmit(void) { return 0; }\n");
    index_repo(home, repo[0], id[0]);
    json_decref(search_until_hybrid(&t, id[0], NET_Q));
    for (int i = 0; i < MG_VCACHE_REPOS; i++) ASSERT_EQ_INT(mg_vcache_state(db[i], NULL), 2);
    /* none of them was loaded again: the first search of each is a full one */
    char code[64] = "";
    for (int i = 1; i < MG_VCACHE_REPOS; i++) {
        json_t *r = search(&t, id[i], NET_Q, "hybrid", code);
        ASSERT(r);
        ASSERT_EQ_STR(mode_of(r), "hybrid");
        json_decref(r);
    }
    mg_t_srv_close(&t);
}
