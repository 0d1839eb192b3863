/* test_lexical.c — lexical search's any-word step and the scope cache
 * (search.c, search/scope.c), in process: the repos are indexed by the CLI,
 * searched with mg_search, so the caches of one process are exercised. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "search/chunkset.h"
#include "search/search.h"
#include "search/search_int.h"
#include "search/texts.h"
#include "store/catalog.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "util/config.h"

struct env {
    char *repo, *home;
    struct mg_config cfg;
};

static void index_repo(struct env *e)
{
    json_decref(mg_fx_run_json(NULL, e->home, (const char *const[]){"index", e->repo, "--name", "lx", "--json", NULL}));
}

static void open_env(struct env *e)
{
    e->repo = mg_t_tmpdir();
    e->home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", e->home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
}

static void load_config(struct env *e)
{
    struct mg_err err = {0};
    if (mg_config_load(&e->cfg, &err) != 0) FAIL("config: %s", err.msg);
}

/* A lexical search of repo "lx" into *res; the repos it resolved, for the
 * caller to free after releasing *res. */
static struct mg_repo *lexical_search(struct env *e, const char *query, int limit, const char *const *globs,
                                      size_t nglobs, struct mg_results *res)
{
    struct mg_err err = {0};
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"lx"};
    if (mg_catalog_resolve(&e->cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    struct mg_search_req req = {.query = query, .mode = MG_MODE_LEXICAL, .limit = limit, .globs = globs, .nglobs = nglobs};
    if (mg_search(&e->cfg, rv, nr, &req, res, &err) != 0) FAIL("search '%s': %s", query, err.msg);
    return rv;
}

/* The distinct paths of a search's results, sorted, joined by spaces. */
static char *search_paths(struct env *e, const char *query, const char *const *globs, size_t nglobs)
{
    struct mg_results res;
    struct mg_repo *rv = lexical_search(e, query, 50, globs, nglobs, &res);
    const char *v[64];
    size_t n = 0;
    for (size_t i = 0; i < res.n && n < 64; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++) seen = strcmp(v[j], res.v[i].path) == 0;
        if (!seen) v[n++] = res.v[i].path;
    }
    for (size_t i = 0; i < n; i++) /* insertion sort: a handful of paths */
        for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    char *out = calloc(1, 4096);
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(out, " ");
        strncat(out, v[i], 4096 - strlen(out) - 2);
    }
    mg_results_release(&res);
    free(rv);
    return out;
}

static void put(struct env *e, const char *path, const char *words)
{
    char text[512];
    snprintf(text, sizeof(text), "/* %s */\nint f(void)\n{\n    return 0;\n}\n", words);
    mg_t_write_str(e->repo, path, text);
}

TEST(any_word_step_ranks_the_rarest_words_rows)
{
    struct env e;
    open_env(&e);
    /* no file holds all three words; "walrus" is rare, "harbor" less so, "ocean" common */
    put(&e, "rare.c", "walrus harbor");
    for (int i = 0; i < 4; i++) {
        char p[32];
        snprintf(p, sizeof(p), "harbor%d.c", i);
        put(&e, p, "harbor ocean");
    }
    for (int i = 0; i < 8; i++) {
        char p[32];
        snprintf(p, sizeof(p), "ocean%d.c", i);
        put(&e, p, "ocean");
    }
    index_repo(&e);
    load_config(&e);
    /* within the budget: any word, every file holding one */
    char *all = search_paths(&e, "walrus harbor ocean", NULL, 0);
    ASSERT_CONTAINS(all, "rare.c");
    ASSERT_CONTAINS(all, "harbor3.c");
    ASSERT_CONTAINS(all, "ocean7.c");
    free(all);
    /* a budget of 5 rows: walrus (1) and harbor (5) together are 5 rows; ocean is left out */
    e.cfg.lexical_any_rows = 5;
    char *some = search_paths(&e, "walrus harbor ocean", NULL, 0);
    ASSERT_EQ_STR(some, "harbor0.c harbor1.c harbor2.c harbor3.c rare.c");
    free(some);
    /* a budget of 2: walrus alone */
    e.cfg.lexical_any_rows = 2;
    char *one = search_paths(&e, "walrus harbor ocean", NULL, 0);
    ASSERT_EQ_STR(one, "rare.c");
    free(one);
}

TEST(any_word_step_with_only_common_words_takes_two_of_the_three_rarest)
{
    struct env e;
    open_env(&e);
    /* each word alone is in 4+ files; no file holds all three */
    static const char *const files[][2] = {
        {"ab.c", "apple banana"}, {"bc.c", "banana cherry"}, {"a1.c", "apple"}, {"a2.c", "apple"},
        {"a3.c", "apple"},        {"b1.c", "banana"},        {"b2.c", "banana"}, {"c1.c", "cherry"},
        {"c2.c", "cherry"},       {"c3.c", "cherry"},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) put(&e, files[i][0], files[i][1]);
    index_repo(&e);
    load_config(&e);
    e.cfg.lexical_any_rows = 3;
    char *p = search_paths(&e, "apple banana cherry", NULL, 0);
    ASSERT_EQ_STR(p, "ab.c bc.c");
    free(p);
}

TEST(any_word_step_passes_over_words_no_row_holds)
{
    struct env e;
    open_env(&e);
    /* a long report names a dozen things this repo does not have, and two it has */
    put(&e, "rare.c", "walrus harbor");
    put(&e, "other.c", "harbor");
    put(&e, "ocean.c", "ocean");
    index_repo(&e);
    load_config(&e);
    const char *q = "zqxa zqxb zqxc zqxd zqxe zqxf zqxg zqxh zqxi zqxj zqxk zqxl walrus harbor";
    char *p = search_paths(&e, q, NULL, 0);
    ASSERT_EQ_STR(p, "other.c rare.c");
    free(p);
    /* none of its words: nothing, and no error */
    char *none = search_paths(&e, "zqxa zqxb zqxc zqxd zqxe zqxf zqxg zqxh zqxi zqxj zqxk zqxl", NULL, 0);
    ASSERT_EQ_STR(none, "");
    free(none);
}

/* The first result's path of a lexical search. */
static char *first_path(struct env *e, const char *query)
{
    struct mg_results res;
    struct mg_repo *rv = lexical_search(e, query, 10, NULL, 0, &res);
    char *p = strdup(res.n ? res.v[0].path : "");
    mg_results_release(&res);
    free(rv);
    return p;
}

TEST(any_word_step_ranks_by_more_than_the_ten_rarest_words)
{
    struct env e;
    open_env(&e);
    /* ten words one file each; three words two files each, and the file that holds all three is the one
     * the long query is about: ranked by the ten rarest alone, it is not even among the rows */
    const char *rare[] = {"alder", "birch", "cedar", "elmwood", "hazel", "larch", "maple", "rowan", "spruce", "yew"};
    char q[512] = "";
    for (int i = 0; i < 10; i++) {
        char p[32];
        snprintf(p, sizeof(p), "rare%d.c", i);
        put(&e, p, rare[i]);
        strcat(q, rare[i]);
        strcat(q, " ");
    }
    put(&e, "target.c", "otter badger heron");
    put(&e, "twin.c", "otter badger heron");
    for (int i = 0; i < 8; i++) {
        char p[32];
        snprintf(p, sizeof(p), "pad%d.c", i);
        put(&e, p, "pebble");
    }
    strcat(q, "otter badger heron");
    index_repo(&e);
    load_config(&e);
    snprintf(e.cfg.rank_off, sizeof(e.cfg.rank_off), "whole"); /* the chunk pool alone */
    char *p = first_path(&e, q);
    ASSERT_EQ_STR(p, "target.c");
    free(p);
    snprintf(e.cfg.rank_off, sizeof(e.cfg.rank_off), "whole,words"); /* the ablation: the ten rarest only */
    char *ten = first_path(&e, q);
    ASSERT_EQ_STR(ten, "rare0.c");
    free(ten);
    e.cfg.rank_off[0] = 0;
    /* a word in over a quarter of the chunks does not join past the ten */
    char q2[600];
    snprintf(q2, sizeof(q2), "%s pebble", q);
    char *all = search_paths(&e, q2, NULL, 0);
    ASSERT_NOT_CONTAINS(all, "pad0.c");
    free(all);
}

TEST(scope_cache_follows_a_new_index_run)
{
    struct env e;
    open_env(&e);
    put(&e, "src/one.c", "zebra");
    put(&e, "docs/two.c", "zebra");
    index_repo(&e);
    load_config(&e);
    const char *src[] = {"src/**"}, *docs[] = {"docs/**"};
    char *p = search_paths(&e, "zebra", src, 1);
    ASSERT_EQ_STR(p, "src/one.c");
    free(p);
    p = search_paths(&e, "zebra", docs, 1);
    ASSERT_EQ_STR(p, "docs/two.c");
    free(p);
    /* a new file in scope, indexed while this process keeps the scope's ranges */
    put(&e, "src/three.c", "zebra");
    index_repo(&e);
    p = search_paths(&e, "zebra", src, 1);
    ASSERT_EQ_STR(p, "src/one.c src/three.c");
    free(p);
    /* ... and a file gone from it */
    char gone[4096];
    snprintf(gone, sizeof(gone), "%s/src/one.c", e.repo);
    ASSERT_EQ_INT(unlink(gone), 0);
    index_repo(&e);
    p = search_paths(&e, "zebra", src, 1);
    ASSERT_EQ_STR(p, "src/three.c");
    free(p);
}

/* A re-index that removes a file between a search's ranking and its reading
 * of the hits' text (the watcher does this beside a running search) drops
 * that file's hits; the search does not fail. */
TEST(hits_of_a_file_removed_after_ranking_are_dropped)
{
    struct env e;
    open_env(&e);
    put(&e, "src/one.c", "walrus");
    put(&e, "src/two.c", "walrus");
    index_repo(&e);
    load_config(&e);
    struct mg_err err = {0};
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"lx"};
    if (mg_catalog_resolve(&e.cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    struct mg_search_req req = {.query = "walrus", .mode = MG_MODE_LEXICAL, .limit = 10};
    struct mg__repo r = {.cfg = &e.cfg, .repo = &rv[0], .q = &req, .err = &err};
    r.terms.lines = true;
    if (mg_db_get(NULL, rv[0].dbpath, 0, &r.d, &err) != 0) FAIL("open: %s", err.msg);
    struct mg_results out = {0};
    ASSERT_EQ_INT(mg__lexical(&r, "walrus", &out, 0, 10), 0);
    ASSERT_EQ_INT((int)out.n, 2);
    for (size_t i = 0; i < out.n; i++) ASSERT(out.v[i].text_file != 0);
    char gone[4096];
    snprintf(gone, sizeof(gone), "%s/src/one.c", e.repo);
    ASSERT_EQ_INT(unlink(gone), 0);
    index_repo(&e);
    if (mg__hits_text(&r, &out, 0) != 0) FAIL("hits' text: %s", err.msg);
    ASSERT_EQ_INT((int)out.n, 1);
    ASSERT_EQ_STR(out.v[0].path, "src/two.c");
    ASSERT(out.v[0].snippet && strstr(out.v[0].snippet, "walrus"));
    mg__repo_release(&r);
    mg_db_put(NULL, &r.d);
    mg_results_release(&out);
    free(rv);
}

/* The whole-file ranking finds each posting's file by a lookup until the
 * lookups made would have paid for reading every file's range at once (the
 * file map, search/chunkset.h); then by the map. Both give the same files. */
TEST(whole_file_ranking_finds_files_alike_by_lookup_and_by_map)
{
    struct env e;
    open_env(&e);
    for (int i = 0; i < 1500; i++) { /* (the words in a fifth of the files: rare enough to be ranked whole) */
        char p[32];
        snprintf(p, sizeof(p), "dir%d/f%04d.c", i % 7, i);
        put(&e, p, i % 5 ? "ocean" : i % 3 ? "lantern harbor" : "lantern");
    }
    index_repo(&e);
    load_config(&e);
    char *first = search_paths(&e, "lantern harbor", NULL, 0); /* 500 postings: a lookup per file */
    ASSERT(first[0] != 0);
    for (int k = 0; k < 20; k++) { /* 20 x 500 lookups: past what the map costs; it is read and used */
        char *again = search_paths(&e, "lantern harbor", NULL, 0);
        ASSERT_EQ_STR(again, first);
        free(again);
    }
    struct mg_db *d;
    struct mg_err err = {0};
    char dbpath[4200];
    snprintf(dbpath, sizeof(dbpath), "%s/repos/lx.db", e.home);
    if (mg_db_open(dbpath, MG_DB_READONLY, &d, &err) != 0) FAIL("open: %s", err.msg);
    struct mg_filemap *map = NULL;
    ASSERT_EQ_INT(mg_filemap_get(d, 0, &map, &err), 0);
    ASSERT(map != NULL); /* (cached by the searches above) */
    ASSERT_EQ_INT((long long)map->n, 1500);
    for (size_t k = 0; k < map->n; k++) { /* each file the same by the map and by a lookup, at each end */
        for (int end = 0; end < 2; end++) {
            int64_t id = end ? map->r[k].hi : map->r[k].lo;
            ASSERT_EQ_INT(mg_filemap_find(map, id), (long)k);
            struct mg_idx_cur c = {0};
            struct mg_idx_row row;
            ASSERT_EQ_INT(mg_idx_file_of_chunk(d, id, &c, &err), 0);
            ASSERT_EQ_INT(mg_idx_next(&c, &row), 1);
            ASSERT_EQ_INT(row.id, map->id[k]);
            ASSERT_EQ_INT(row.flags, map->flags[k]);
            ASSERT_EQ_INT(row.chunk_lo, map->r[k].lo);
            ASSERT_EQ_INT(row.chunk_hi, map->r[k].hi);
            mg_idx_done(&c);
        }
    }
    /* ids taken in ascending order, each found from the last file found (filerank_whole.c's
     * group): the same answers as a search of all, skips of any length, ids between files too */
    for (unsigned seed = 1; seed <= 4; seed++) {
        size_t at = 0;
        unsigned x = seed;
        for (size_t k = 0; k < map->n; k += 1 + ((x = x * 1103515245u + 12345u) >> 16 & (seed * 8 - 1))) {
            int64_t ids[3] = {map->r[k].lo, map->r[k].hi, map->r[k].hi + 1};
            for (int j = 0; j < 3; j++) {
                long want = mg_filemap_find(map, ids[j]), got = mg_filemap_find_from(map, ids[j], at);
                ASSERT_EQ_INT(got, want);
                if (got >= 0) at = (size_t)got;
            }
        }
        ASSERT_EQ_INT(mg_filemap_find_from(map, map->r[map->n - 1].hi + 1, at), -1);
    }
    mg_filemap_unref(map);
    mg_db_close(&d);
    free(first);
}

/* The first hit's snippet for query (NULL: no hit); the caller frees it. */
static char *first_snippet(struct env *e, const char *query)
{
    struct mg_results res;
    struct mg_repo *rv = lexical_search(e, query, 5, NULL, 0, &res);
    char *s = res.n && res.v[0].snippet ? strdup(res.v[0].snippet) : NULL;
    mg_results_release(&res);
    free(rv);
    return s;
}

/* Searches share the files' texts they unpack (search/texts.c), by the index, file id and the
 * row's content hash: a file re-indexed with other bytes of the same length, or the first file of
 * a repo removed and indexed again (a new database at the same path, ids from 1 again), is read
 * anew, never served from an earlier search's copy. With rank_off=texts nothing is kept. */
TEST(searches_share_unpacked_texts_and_never_a_stale_one)
{
    struct env e;
    open_env(&e);
    put(&e, "src/one.c", "narwhal alpha");
    index_repo(&e);
    load_config(&e);
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), 0);
    char *s = first_snippet(&e, "narwhal");
    ASSERT(s && strstr(s, "alpha"));
    free(s);
    size_t kept = mg_texts_kept_bytes();
    if (kept == 0) FAIL("the search kept no text for the next");
    s = first_snippet(&e, "narwhal"); /* the same text again: nothing more kept */
    ASSERT(s && strstr(s, "alpha"));
    free(s);
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), (int)kept);
    put(&e, "src/one.c", "narwhal omega"); /* the same length */
    index_repo(&e);
    s = first_snippet(&e, "narwhal");
    if (!s || !strstr(s, "omega")) FAIL("after the re-index the snippet is \"%s\"", s ? s : "(none)");
    free(s);
    /* the repo removed and indexed again under its id: a new database at the same path, whose
     * first file takes id 1 again, with bytes of the same length */
    json_decref(mg_fx_run_json(NULL, e.home, (const char *const[]){"repos", "rm", "lx", "--json", NULL}));
    put(&e, "src/one.c", "narwhal delta");
    index_repo(&e);
    s = first_snippet(&e, "narwhal");
    if (!s || !strstr(s, "delta")) FAIL("the new index's snippet is \"%s\"", s ? s : "(none)");
    free(s);

    struct env o; /* another repo, rank_off=texts: a search keeps its texts to itself */
    open_env(&o);
    put(&o, "src/one.c", "walrus alpha");
    index_repo(&o);
    setenv("MEMGATE_RANK_OFF", "texts", 1);
    load_config(&o);
    unsetenv("MEMGATE_RANK_OFF");
    kept = mg_texts_kept_bytes();
    s = first_snippet(&o, "walrus");
    ASSERT(s && strstr(s, "alpha"));
    free(s);
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), (int)kept);
}

/* A removed repo's texts go from memory at once (code.c's remove calls mg_texts_forget); another
 * index's stay. Each is kept with its lowercased copy, counted in the bytes kept. */
TEST(texts_of_a_removed_index_forgotten)
{
    struct mg_text *a = mg_texts_add("/x/a.db", 1, 7, 5, strdup("ALPHA"), 5, true);
    struct mg_text *b = mg_texts_add("/x/b.db", 1, 7, 4, strdup("beta"), 4, true);
    ASSERT(a && b);
    ASSERT_EQ_STR(a->lower, "alpha");
    ASSERT_EQ_STR(a->text, "ALPHA");
    mg_text_unref(a);
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), 18);
    mg_texts_forget("/x/a.db");
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), 8);
    ASSERT(mg_texts_find("/x/a.db", 1, 7, 5) == NULL);
    struct mg_text *again = mg_texts_find("/x/b.db", 1, 7, 4);
    ASSERT(again && strcmp(again->text, "beta") == 0);
    mg_text_unref(again);
    ASSERT_EQ_STR(b->text, "beta"); /* a reader's reference outlives a forget */
    mg_texts_forget("/x/b.db");
    ASSERT_EQ_STR(b->text, "beta");
    mg_text_unref(b);
    ASSERT_EQ_INT((int)mg_texts_kept_bytes(), 0);
}

/* The words counted in a text are kept on it (texts.h): each under its own token, the oldest replaced past
 * MG_TEXT_COUNTS; and a search that finds them kept ranks the files as one that counts them again. */
TEST(words_counted_in_a_text_kept_for_the_next_search)
{
    struct mg_text *t = mg_texts_add("/x/c.db", 1, 9, 5, strdup("hello"), 5, true);
    ASSERT(t != NULL);
    const char *toks[] = {"alpha", "beta", "gamma"}, *near[] = {"alph", "gammas", "beta"};
    const size_t lens[] = {5, 4, 5}, near_lens[] = {4, 6, 4};
    const double counts[] = {3, 0, 7};
    double got[3] = {-1, -1, -1};
    ASSERT_EQ_INT((long long)mg_text_counts_get(t, toks, lens, 3, got), 7); /* none kept */
    mg_text_counts_put(t, toks, lens, 5, counts);                             /* alpha, gamma */
    ASSERT_EQ_INT((long long)mg_text_counts_get(t, toks, lens, 3, got), 2);
    ASSERT(got[0] == 3 && got[1] == -1 && got[2] == 7);
    ASSERT_EQ_INT((long long)mg_text_counts_get(t, near, near_lens, 3, got), 7); /* no other token's count */
    char many[MG_TEXT_COUNTS + 2][8];
    const char *mp[MG_TEXT_COUNTS + 2];
    size_t ml[MG_TEXT_COUNTS + 2];
    double mc[MG_TEXT_COUNTS + 2];
    for (int k = 0; k < MG_TEXT_COUNTS + 2; k++) {
        snprintf(many[k], sizeof(many[k]), "w%d", k);
        mp[k] = many[k], ml[k] = strlen(many[k]), mc[k] = k;
    }
    mg_text_counts_put(t, mp, ml, (1ull << (MG_TEXT_COUNTS + 2)) - 1, mc);
    ASSERT_EQ_INT((int)mg_text_counts_kept(), MG_TEXT_COUNTS);
    double mg[MG_TEXT_COUNTS + 2];
    uint64_t missing = mg_text_counts_get(t, mp, ml, MG_TEXT_COUNTS + 2, mg);
    ASSERT_EQ_INT(__builtin_popcountll(missing), 2); /* two replaced by the last two */
    ASSERT(!(missing >> MG_TEXT_COUNTS)); /* (the newest are kept) */
    for (int k = 0; k < MG_TEXT_COUNTS + 2; k++) ASSERT(missing >> k & 1 || mg[k] == k);
    mg_text_unref(t);
    mg_texts_forget("/x/c.db");
    ASSERT_EQ_INT((int)mg_text_counts_kept(), 0);

    /* searches: files with the words in other numbers; the second search's words partly counted by the first */
    struct env e, o;
    open_env(&e);
    for (int i = 0; i < 30; i++) {
        char path[32], words[400] = "";
        snprintf(path, sizeof(path), "src/f%02d.c", i);
        for (int k = 0; k < i % 5 + 1; k++) strcat(words, "alpha ");
        for (int k = 0; k < (i * 7) % 4 + 1; k++) strcat(words, "beta ");
        for (int k = 0; k < (i * 3) % 6; k++) strcat(words, "gamma ");
        put(&e, path, words);
    }
    for (int i = 0; i < 100; i++) { /* the words in under a quarter of the chunks, as the file list takes them */
        char path[32];
        snprintf(path, sizeof(path), "src/other%03d.c", i);
        put(&e, path, "delta epsilon");
    }
    index_repo(&e);
    load_config(&e);
    o = e;
    setenv("MEMGATE_RANK_OFF", "texts", 1); /* o: every search counts anew, nothing kept */
    load_config(&o);
    unsetenv("MEMGATE_RANK_OFF");
    const char *queries[] = {"alpha beta", "beta gamma", "gamma alpha beta", "alpha beta"};
    for (size_t q = 0; q < sizeof(queries) / sizeof(*queries); q++) {
        struct mg_results a, b;
        struct mg_repo *ra = lexical_search(&e, queries[q], 30, NULL, 0, &a);
        struct mg_repo *rb = lexical_search(&o, queries[q], 30, NULL, 0, &b);
        ASSERT(a.n >= 10);
        ASSERT_EQ_INT((long long)a.n, (long long)b.n);
        for (size_t i = 0; i < a.n; i++) {
            ASSERT_EQ_STR(a.v[i].path, b.v[i].path);
            ASSERT(a.v[i].score == b.v[i].score);
        }
        mg_results_release(&a);
        mg_results_release(&b);
        free(ra);
        free(rb);
        if (q == 0 && mg_text_counts_kept() == 0) FAIL("the first search kept no count");
    }
}
