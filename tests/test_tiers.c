/* test_tiers.c — the store's faster ways to the same ranking
 * (store/indexdb_chunks.c): a common word ranked over its rows with the word
 * in a symbol first, and a one-word expression ranked in one call (rank.h's
 * mgtop), each the same rows as ranking every row through SQL; the symbol
 * marks the indexer writes for the first (meta fts.marks), made for a new
 * index and once for an index made before them, which also rank the symbol
 * column alone; and a name prefix ranked over the names short enough
 * (store/indexdb_symbols.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "fixtures.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "store/rank.h"
#include "store/tokenize.h"

/* nfiles C files of 10 functions each; every function's body holds "widget"
 * and "gadget"; of every 10, `named` are called widget_N (the rest thing_N),
 * and one in a hundred gadget_N. */
static void write_repo(const char *repo, int nfiles, int named)
{
    for (int f = 0; f < nfiles; f++) {
        char rel[64], *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        for (int k = 0; k < 10; k++) {
            int n = f * 10 + k;
            const char *name = n % 100 == 7 ? "gadget" : k < named ? "widget" : "thing";
            fprintf(m, "int %s_%d(int x)\n{\n    /* a widget, a gadget */\n    return x + %d;\n}\n\n", name, n, n);
        }
        fclose(m);
        snprintf(rel, sizeof(rel), "src/f%03d.c", f);
        mg_t_write(repo, rel, text, len);
        free(text);
    }
}

static void index_repo(const char *repo, const char *home)
{
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "tr", "--json", NULL}));
}

static struct mg_db *open_index(const char *home)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/tr.db", home);
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, MG_DB_READONLY, &d, &err) != 0) FAIL("open %s: %s", path, err.msg);
    return d;
}

#define MAXROWS 1024

/* The best `limit` rows of match ranked the given ways (0: every row through SQL), of scope (NULL: all),
 * into ids/scores; whether they came from memory (a tier or one call). */
static bool rank(struct mg_db *d, const char *match, int limit, unsigned ways, const struct mg_idx_idset *scope,
                 int64_t *ids, double *scores, int *n)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    struct mg_err err = {0};
    if (mg_idx_rank(d, match, 0, limit, scope, ways, &c, &err) != 0) FAIL("rank %s: %s", match, err.msg);
    bool mem = c.mid != NULL;
    *n = 0;
    int k;
    while (*n < MAXROWS && (k = mg_idx_next(&c, &r)) > 0) {
        ids[*n] = r.id;
        scores[(*n)++] = r.score;
    }
    ASSERT(k == 0);
    mg_idx_done(&c);
    return mem;
}

/* Whether match ranks the same rows in the same order, with the same scores, the given ways as through SQL
 * row by row; *mem: the rows came from memory. The count of rows found, at most limit. */
static int same_rows(struct mg_db *d, const char *match, int limit, unsigned ways, const struct mg_idx_idset *scope,
                     bool *mem)
{
    static int64_t a[MAXROWS], b[MAXROWS];
    static double sa[MAXROWS], sb[MAXROWS];
    int na, nb;
    rank(d, match, limit, 0, scope, a, sa, &na);
    *mem = rank(d, match, limit, ways, scope, b, sb, &nb);
    ASSERT_EQ_INT(nb, na);
    ASSERT(na <= limit);
    for (int i = 0; i < na; i++) {
        ASSERT_EQ_INT((long long)b[i], (long long)a[i]);
        ASSERT(sb[i] == sa[i]);
    }
    return na;
}

/* the search as a whole answers alike with the ranking way `off` turned off (config rank_off) */
static void same_search(const char *repo, const char *home, const char *q, const char *off, size_t n)
{
    json_t *with = mg_fx_search(repo, home, q, "lexical", 30);
    setenv("MEMGATE_RANK_OFF", off, 1);
    json_t *without = mg_fx_search(repo, home, q, "lexical", 30);
    unsetenv("MEMGATE_RANK_OFF");
    json_object_del(with, "took_ms");
    json_object_del(without, "took_ms");
    ASSERT(json_equal(with, without));
    ASSERT_EQ_INT((long long)json_array_size(json_object_get(with, "results")), (long long)n);
    json_decref(with);
    json_decref(without);
}

TEST(tiers_rank_a_common_word_as_ranking_every_row_does)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_repo(repo, 60, 4); /* 600 functions: 240 named widget_N */
    index_repo(repo, home);
    struct mg_db *d = open_index(home);
    bool tier;
    /* widget: a symbol of 240 rows, the best 100 among them beat every other row */
    same_rows(d, "(\"widget\")", 100, MG_IDX_TIERS, NULL, &tier);
    ASSERT(tier);
    same_rows(d, "(\"widget\" AND \"gadget\")", 60, MG_IDX_TIERS, NULL, &tier);
    ASSERT(tier);
    /* gadget: six rows with it in a symbol, fewer than asked: every row ranked */
    same_rows(d, "(\"gadget\")", 40, MG_IDX_TIERS, NULL, &tier);
    ASSERT(!tier);
    /* more rows asked than the symbol has: every row ranked */
    same_rows(d, "(\"widget\")", 250, MG_IDX_TIERS, NULL, &tier);
    ASSERT(!tier);
    mg_db_close(&d);
    /* and the search as a whole: the same answer with rank_off=tiers */
    same_search(repo, home, "widget", "tiers", 30);
}

static bool every_third(const void *self, int64_t id)
{
    (void)self;
    return id % 3 == 0;
}

TEST(one_call_ranks_a_word_as_ranking_every_row_does)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_repo(repo, 60, 4); /* 600 functions, most of them tied with many others */
    index_repo(repo, home);
    struct mg_db *d = open_index(home);
    const struct mg_idx_idset third = {every_third, NULL};
    bool mem;
    /* one word: every limit, of every row or of a scope, ranked alike, ties by id */
    const int limits[] = {1, 7, 100, 250, 599, 600, 1000};
    for (size_t i = 0; i < sizeof(limits) / sizeof(*limits); i++) {
        int n = same_rows(d, "(\"widget\")", limits[i], MG_IDX_ONE_CALL, NULL, &mem);
        ASSERT(mem);
        ASSERT_EQ_INT(n, limits[i] < 600 ? limits[i] : 600);
        n = same_rows(d, "\"gadget\"", limits[i], MG_IDX_ONE_CALL, &third, &mem);
        ASSERT(mem && n > 0 && n < 600);
    }
    /* a word of no row: an empty list */
    ASSERT_EQ_INT(same_rows(d, "(\"nosuchword\")", 10, MG_IDX_ONE_CALL, NULL, &mem), 0);
    ASSERT(mem);
    /* both ways together: the tier answers first where it can */
    ASSERT_EQ_INT(same_rows(d, "(\"widget\")", 100, MG_IDX_TIERS | MG_IDX_ONE_CALL, NULL, &mem), 100);
    ASSERT_EQ_INT(same_rows(d, "(\"gadget\")", 100, MG_IDX_TIERS | MG_IDX_ONE_CALL, NULL, &mem), 100);
    ASSERT(mem);
    /* more than one phrase: ranked through SQL */
    same_rows(d, "(\"widget\" AND \"gadget\")", 60, MG_IDX_ONE_CALL, NULL, &mem);
    ASSERT(!mem);
    same_rows(d, "(\"widget\" OR \"thing\")", 60, MG_IDX_ONE_CALL, NULL, &mem);
    ASSERT(!mem);
    mg_db_close(&d);
    same_search(repo, home, "gadget", "onecall", 30);
}

/* nfiles C files (name prefix) of 10 functions each: "alpha" in the bodies of the functions n % every == 0,
 * "beta" in those n % 5 == 0 */
static void write_words(const char *repo, const char *prefix, int nfiles, int every)
{
    for (int f = 0; f < nfiles; f++) {
        char rel[64], *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        for (int n = f * 10; n < f * 10 + 10; n++)
            fprintf(m, "int %s_%d(int x)\n{\n    /* %s %s */\n    return x + %d;\n}\n\n", prefix, n,
                    n % every ? "plain" : "alpha", n % 5 ? "text" : "beta", n);
        fclose(m);
        snprintf(rel, sizeof(rel), "src/%s%03d.c", prefix, f);
        mg_t_write(repo, rel, text, len);
        free(text);
    }
}

/* the same rows and scores for match from handle a as for match_b from handle b */
static void same_on_both(struct mg_db *a, const char *match, struct mg_db *b, const char *match_b)
{
    static int64_t ia[MAXROWS], ib[MAXROWS];
    static double sa[MAXROWS], sb[MAXROWS];
    int na, nb;
    rank(a, match, 500, 0, NULL, ia, sa, &na);
    rank(b, match_b, 500, 0, NULL, ib, sb, &nb);
    ASSERT(na > 0);
    ASSERT_EQ_INT(na, nb);
    for (int i = 0; i < na; i++) {
        ASSERT_EQ_INT((long long)ia[i], (long long)ib[i]);
        ASSERT(sa[i] == sb[i]);
    }
}

/* mg_idx_match_count of match, up to max, in a read transaction (where a handle keeps it) */
static long count_in_read(struct mg_db *d, const char *match, long max)
{
    struct mg_err err = {0};
    if (mg_db_begin_read(d, &err) != 0) FAIL("begin: %s", err.msg);
    long n = mg_idx_match_count(d, match, max, NULL, NULL, &err);
    if (n < 0) FAIL("count %s: %s", match, err.msg);
    mg_db_rollback(d);
    return n;
}

/* whether d keeps (kind, expr, max), asked in a read transaction */
static bool kept(struct mg_db *d, char kind, const char *expr, long max)
{
    struct mg_err err = {0};
    struct mg_count v;
    if (mg_db_begin_read(d, &err) != 0) FAIL("begin: %s", err.msg);
    mg_db_meta_int(d, "files", 0); /* (a read: the transaction holds its snapshot from here) */
    bool got = mg_counts_get(d->counts, kind, expr, strlen(expr), max, &v);
    mg_db_rollback(d);
    return got;
}

/* A handle keeps the sampled counts of the words it ranks and counts (rank.h's mg_counts): the same rows and
 * scores as a fresh handle's, whatever expression the counts were kept for, and none of them once the index
 * changed under it. */
TEST(word_counts_kept_by_a_handle_while_its_index_is_the_same)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_words(repo, "a", 20, 3);
    index_repo(repo, home);
    struct mg_db *d = open_index(home), *e = open_index(home);
    static int64_t ids[MAXROWS];
    static double sc[MAXROWS];
    int n;
    /* the phrases' counts are kept by their text, whatever their place in the expression */
    rank(d, "\"alpha\"", 500, 0, NULL, ids, sc, &n);
    ASSERT(kept(d, 'p', "\"alpha\"", 2000) && !kept(d, 'p', "\"beta\"", 2000));
    same_on_both(d, "(\"beta\" OR \"alpha\")", e, "(\"beta\" OR \"alpha\")");
    same_on_both(d, "(\"beta\" OR \"alpha\")", e, "(beta OR alpha)"); /* (bare words: none kept, counted afresh) */
    ASSERT(kept(d, 'p', "\"beta\"", 2000) && !kept(d, 'p', "\"plain\"", 2000));
    same_on_both(d, "(\"alpha\" OR \"beta\")", e, "(\"alpha\" OR \"beta\")");
    same_on_both(d, "(\"alpha\" OR \"beta\")", e, "(alpha OR beta)");
    same_on_both(d, "(\"alpha\" NOT \"beta\")", e, "(\"alpha\" NOT \"beta\")");
    long before = count_in_read(d, "\"alpha\"", 10000);
    ASSERT(kept(d, 'e', "\"alpha\"", 10000));
    ASSERT_EQ_INT(count_in_read(d, "\"alpha\"", 10000), before);
    /* the index changes (alpha in every function of 20 more files): the next count, asked before the
     * transaction has read anything, is the new one */
    write_words(repo, "b", 20, 1);
    index_repo(repo, home);
    struct mg_db *f = open_index(home);
    long after = count_in_read(f, "\"alpha\"", 10000);
    ASSERT(after > before);
    ASSERT_EQ_INT(count_in_read(d, "\"alpha\"", 10000), after);
    same_on_both(d, "(\"alpha\" OR \"beta\")", f, "(\"alpha\" OR \"beta\")");
    same_on_both(d, "(\"alpha\" OR \"beta\")", f, "(alpha OR beta)");
    same_on_both(d, "\"alpha\"", f, "\"alpha\"");
    mg_db_close(&d);
    mg_db_close(&e);
    mg_db_close(&f);
}

/* The first `limit` ids of match (a one-phrase expression's in one call, else through SQL), of scope, into
 * ids; whether they came from memory. */
static bool first_ids(struct mg_db *d, const char *match, long limit, const struct mg_idx_idset *scope, int64_t *ids,
                      int *n)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    struct mg_err err = {0};
    if (mg_idx_match_ids(d, match, limit, scope, &c, &err) != 0) FAIL("ids %s: %s", match, err.msg);
    bool mem = c.mid != NULL;
    int k;
    for (*n = 0; *n < MAXROWS && (k = mg_idx_next(&c, &r)) > 0;) ids[(*n)++] = r.id;
    ASSERT(k == 0);
    mg_idx_done(&c);
    return mem;
}

TEST(one_call_reads_a_words_first_rows_as_sql_does)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_repo(repo, 60, 4);
    index_repo(repo, home);
    struct mg_db *d = open_index(home);
    const struct mg_idx_idset third = {every_third, NULL};
    static int64_t a[MAXROWS], b[MAXROWS];
    int na, nb;
    /* "w" AND "w" is the same rows, read through SQL */
    const long limits[] = {1, 50, 240, 241, 1000};
    for (size_t i = 0; i < sizeof(limits) / sizeof(*limits); i++)
        for (int scoped = 0; scoped < 2; scoped++) {
            ASSERT(first_ids(d, "\"widget\"", limits[i], scoped ? &third : NULL, a, &na));
            ASSERT(!first_ids(d, "(\"widget\" AND \"widget\")", limits[i], scoped ? &third : NULL, b, &nb));
            ASSERT_EQ_INT(na, nb);
            ASSERT(na > 0 && na <= limits[i]);
            for (int k = 0; k < na; k++) ASSERT_EQ_INT((long long)a[k], (long long)b[k]);
        }
    ASSERT(first_ids(d, "\"nosuchword\"", 10, NULL, a, &na));
    ASSERT_EQ_INT(na, 0);
    mg_db_close(&d);
}

/* The best `limit` chunks by their symbol column (mg_idx_rank_symbols) as "symbol start_line score" lines. */
static char *symbol_rows(struct mg_db *d, const char *match, int limit)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    struct mg_err err = {0};
    if (mg_idx_rank_symbols(d, match, limit, &c, &err) != 0) FAIL("rank symbols %s: %s", match, err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    int k;
    while ((k = mg_idx_next(&c, &r)) > 0) fprintf(m, "%s %d %.17g\n", r.symbol ? r.symbol : "-", r.start_line, r.score);
    ASSERT(k == 0);
    mg_idx_done(&c);
    fclose(m);
    return text;
}

TEST(symbols_ranked_by_their_marks_as_by_the_symbol_column)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_repo(repo, 30, 4); /* every body holds widget and gadget; 120 functions are widget_N, 3 gadget_N */
    index_repo(repo, home);
    char path[4200];
    snprintf(path, sizeof(path), "%s/repos/tr.db", home);
    static const char *const matches[] = {
        "\"widget\"", "(\"gadget\")", "(\"widget\" OR \"thing\")", "(\"gadget\" AND \"107\")",
        "((\"widget_17\" OR (\"widget\" AND \"17\")))", "(\"nosuchword\")",
    };
    enum { nm = sizeof(matches) / sizeof(*matches) };
    char *marked[nm];
    struct mg_db *d = open_index(home);
    for (size_t i = 0; i < nm; i++) marked[i] = symbol_rows(d, matches[i], 50);
    mg_db_close(&d);
    /* only symbols count: gadget is in 300 bodies and 3 names */
    ASSERT(strstr(marked[1], "gadget_7 ") && strstr(marked[1], "gadget_207 "));
    ASSERT(!strstr(marked[1], "thing_"));
    ASSERT(strstr(marked[3], "gadget_107 ") && !strstr(marked[3], "gadget_7 "));
    ASSERT_EQ_STR(marked[5], "");
    /* the same rows and scores through the column filter, as an index without marks is searched */
    struct mg_err err = {0};
    if (mg_db_open(path, 0, &d, &err) != 0) FAIL("open %s: %s", path, err.msg);
    ASSERT_EQ_INT(mg_db_meta_set_int(d, MG_META_MARKS, 0, &err), 0);
    for (size_t i = 0; i < nm; i++) {
        char *col = symbol_rows(d, matches[i], 50);
        if (strcmp(col, marked[i]) != 0) FAIL("%s: by marks\n%s\nby the column\n%s", matches[i], marked[i], col);
        free(col);
        free(marked[i]);
    }
    mg_db_close(&d);
}

/* The ids of the best `limit` symbols whose names start with q: mg_idx_symbols_like's (*n), and the same
 * query without the bound of the names' length, through SQL (*m). */
static void prefix_ids(struct mg_db *d, const char *q, int limit, int64_t *a, int *n, int64_t *b, int *m)
{
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    struct mg_err err = {0};
    if (mg_idx_symbols_like(d, q, NULL, limit, &c, &err) != 0) FAIL("like %s: %s", q, err.msg);
    int k;
    for (*n = 0; *n < MAXROWS && (k = mg_idx_next(&c, &r)) > 0;) a[(*n)++] = r.id;
    ASSERT(k == 0);
    /* a kept statement, planned once: a LIKE of a bound pattern is prepared again at every bind */
    if (sqlite3_stmt_status(c.st, SQLITE_STMTSTATUS_REPREPARE, 0) != 0) FAIL("%s: the statement was prepared again", q);
    mg_idx_done(&c);
    sqlite3_stmt *st;
    char like[64]; /* q's wildcards and the escape taken literally, as the store does */
    size_t l = 0;
    for (const char *p = q; *p && l < sizeof(like) - 3; p++) {
        if (*p == '%' || *p == '_' || *p == '\\') like[l++] = '\\';
        like[l++] = *p;
    }
    like[l++] = '%';
    like[l] = 0;
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT s.id, CASE WHEN s.name = ?1 THEN 0 WHEN s.name = ?1 COLLATE "
                                            "NOCASE THEN 1 ELSE 2 END AS tier, CASE s.kind WHEN 'function' THEN 0 "
                                            "ELSE 3 END AS ko FROM symbols s JOIN files f ON f.id = s.file_id WHERE "
                                            "s.name LIKE ?2 ESCAPE '\\' ORDER BY tier, length(s.name), ko, f.path, "
                                            "s.start_line LIMIT ?3", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, like, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    for (*m = 0; *m < MAXROWS && sqlite3_step(st) == SQLITE_ROW;) b[(*m)++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
}

TEST(symbols_by_prefix_bounded_by_length_as_unbounded)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    /* names of every length under one prefix, in any case, some of them tied (the same length in many files) */
    for (int f = 0; f < 12; f++) {
        char rel[64], *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        fprintf(m, "int widget(void) { return 0; }\nint Widget%d(void) { return 1; }\n", f);
        /* names past a prefix's raised last byte in case-blind order (`@` + 1 is `A`, folded to `a`), UTF-8 */
        fprintf(m, "int w\u00e9%d(void) { return 2; }\nint w\u00ea%d(void) { return 3; }\n", f, f);
        fprintf(m, "int wa%d;\nint wB%d;\nint w_%d;\nint w%d;\n", f, f, f, f);
        for (int k = 0; k < 30; k++) fprintf(m, "int widget_%.*s%d(void) { return %d; }\n", k % 9, "xxxxxxxxx", f, k);
        fclose(m);
        snprintf(rel, sizeof(rel), "src/w%02d.c", f);
        mg_t_write(repo, rel, text, len);
        free(text);
    }
    index_repo(repo, home);
    struct mg_db *d = open_index(home);
    static int64_t a[MAXROWS], b[MAXROWS];
    const char *const qs[] = {"widget", "WIDGET", "widget_", "widget_xx", "w", "Widget1", "nosuch", "W",
                              "w\u00e9", "w\xc3", "w@", "w_", "w%", "\xff", ""};
    const int limits[] = {1, 5, 12, 13, 40, 100, 1000};
    for (size_t i = 0; i < sizeof(qs) / sizeof(*qs); i++)
        for (size_t j = 0; j < sizeof(limits) / sizeof(*limits); j++) {
            int n, m;
            prefix_ids(d, qs[i], limits[j], a, &n, b, &m);
            if (n != m) FAIL("%s, limit %d: %d rows, unbounded %d", qs[i], limits[j], n, m);
            for (int k = 0; k < n; k++)
                if (a[k] != b[k]) FAIL("%s, limit %d: row %d differs", qs[i], limits[j], k);
        }
    mg_db_close(&d);
}

/* Every byte of the word index's segments: after a run that replaced all
 * files by one, merged, only that file's rows are left when every delete
 * matched its insert (a contentless FTS5 table keeps what a delete misses:
 * the marks of 400 functions are thousands of bytes). */
static long long fts_bytes(const char *home)
{
    struct mg_db *d = open_index(home);
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(d->db, "SELECT sum(length(block)) FROM chunks_fts_data", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    mg_db_close(&d);
    return n;
}

static long long meta_marks(const char *home)
{
    struct mg_db *d = open_index(home);
    long long v = mg_db_meta_int(d, MG_META_MARKS, 0);
    mg_db_close(&d);
    return v;
}

TEST(index_marks_the_words_of_an_older_index_once)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    write_repo(repo, 40, 4);
    /* an index as memgate made them before the marks, and a change to it */
    setenv("MEMGATE_TEST_NO_MARKS", "1", 1);
    index_repo(repo, home);
    ASSERT_EQ_INT(meta_marks(home), 0);
    mg_t_write_str(repo, "src/f000.c", "int widget_first(void)\n{\n    return 1; /* a widget */\n}\n");
    index_repo(repo, home);
    struct mg_db *d = open_index(home);
    bool tier;
    same_rows(d, "(\"widget\")", 50, MG_IDX_TIERS, NULL, &tier);
    ASSERT(!tier); /* no marks: every row ranked */
    mg_db_close(&d);
    json_t *before = mg_fx_search(repo, home, "widget", "lexical", 40);
    unsetenv("MEMGATE_TEST_NO_MARKS");

    /* the next full run marks them, once */
    index_repo(repo, home);
    ASSERT_EQ_INT(meta_marks(home), 1);
    d = open_index(home);
    same_rows(d, "(\"widget\")", 50, MG_IDX_TIERS, NULL, &tier);
    ASSERT(tier);
    mg_db_close(&d);
    json_t *after = mg_fx_search(repo, home, "widget", "lexical", 40);
    json_object_del(before, "took_ms");
    json_object_del(after, "took_ms");
    ASSERT(json_equal(before, after));
    json_decref(before);
    json_decref(after);

    /* files changed and removed after the marks: their rows go whole. All but one file removed, the
     * word index merged: a few hundred bytes are left, as in an index of that file alone */
    mg_t_write_str(repo, "src/f001.c", "int widget_second(void) { return 2; }\n");
    index_repo(repo, home);
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s/src' && mkdir '%s/src'", repo, repo);
    ASSERT_EQ_INT(system(cmd), 0);
    mg_t_write_str(repo, "src/only.c", "int widget_only(void) { return 3; }\n");
    index_repo(repo, home);
    long long left = fts_bytes(home);
    char *fresh = mg_t_tmpdir(), *fresh_home = mg_t_tmpdir();
    mg_t_write_str(fresh, "src/only.c", "int widget_only(void) { return 3; }\n");
    json_decref(mg_fx_run_json(NULL, fresh_home, (const char *const[]){"index", fresh, "--name", "tr", "--json", NULL}));
    long long fresh_bytes = fts_bytes(fresh_home); /* (its row ids are smaller: fewer bytes) */
    ASSERT(left >= fresh_bytes && left < 2 * fresh_bytes);
}
