/* test_trigram.c — trigram extraction, segments, candidates, compaction. */
#include "test.h"

#include <sqlite3.h>

#include "store/rxlit.h"
#include "store/db.h"
#include "store/trigram.h"

static int has_key(const uint32_t *k, size_t n, uint32_t key)
{
    for (size_t i = 0; i < n; i++)
        if (k[i] == key) return 1;
    return 0;
}

TEST(trigram_extract_distinct_folded)
{
    struct mg_tri_scratch s;
    ASSERT_EQ_INT(mg_tri_scratch_init(&s), 0);
    const char *t = "AbcABCabc";
    size_t n = mg_tri_extract(&s, t, strlen(t));
    /* abc bca cab (case folded, distinct) */
    ASSERT_EQ_INT(n, 3);
    ASSERT(has_key(s.keys, n, mg_tri_key((const unsigned char *)"abc")));
    ASSERT(has_key(s.keys, n, mg_tri_key((const unsigned char *)"bca")));
    ASSERT(has_key(s.keys, n, mg_tri_key((const unsigned char *)"cab")));
    /* the scratch set is clean again: a second text is independent */
    n = mg_tri_extract(&s, "xyz", 3);
    ASSERT_EQ_INT(n, 1);
    ASSERT_EQ_INT(mg_tri_extract(&s, "ab", 2), 0);
    /* brute force on a pseudo-random text */
    char buf[5000];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) buf[i] = "aAbB c_(\xc3\xa9"[(x = x * 1103515245 + 12345) >> 16 & 7];
    n = mg_tri_extract(&s, buf, sizeof(buf));
    size_t distinct = 0;
    for (size_t i = 0; i + 3 <= sizeof(buf); i++) {
        uint32_t k = mg_tri_key((const unsigned char *)buf + i);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = mg_tri_key((const unsigned char *)buf + j) == k;
        if (!seen) {
            distinct++;
            ASSERT(has_key(s.keys, n, k));
        }
    }
    ASSERT_EQ_INT(n, distinct);
    mg_tri_scratch_release(&s);
}

static struct mg_db *fresh_db(void)
{
    char *dir = mg_t_tmpdir(), path[4200];
    snprintf(path, sizeof(path), "%s/t.db", dir);
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, MG_DB_CREATE, &d, &err) != 0) FAIL("open: %s", err.msg);
    return d;
}

static void add_file(struct mg_db *d, struct mg_tri_builder *b, struct mg_tri_scratch *s, int64_t id, const char *text)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "INSERT INTO files(id, path, lang, size, hash, mtime, lines, chunk_lo, chunk_hi, sym_lo, sym_hi, content) "
             "VALUES(%lld, 'f%lld', 'text', 0, 0, 0, 1, 1, 0, 1, 0, x''); INSERT INTO tri_pending VALUES(%lld)",
             (long long)id, (long long)id, (long long)id);
    if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK) FAIL("insert: %s", sqlite3_errmsg(d->db));
    size_t n = mg_tri_extract(s, text, strlen(text));
    ASSERT_EQ_INT(mg_tri_builder_add(b, id, s->keys, n), 0);
}

static struct mg_ids cands(struct mg_db *d, const char *pattern)
{
    struct mg_rx_node *f;
    struct mg_err err = {0};
    struct mg_ids ids;
    if (mg_rxlit_analyze(pattern, strlen(pattern), 0, &f, &err) != 0) FAIL("rxlit: %s", err.msg);
    if (mg_tri_candidates(d, f, &ids, &err) != 0) FAIL("candidates: %s", err.msg);
    mg_rxlit_free(&f);
    return ids;
}

#define ASSERT_IDS(ids, ...)                                                \
    do {                                                                    \
        int64_t want_[] = {__VA_ARGS__};                                    \
        size_t nw_ = sizeof(want_) / sizeof(want_[0]);                      \
        ASSERT(!(ids).all);                                                 \
        ASSERT_EQ_INT((ids).n, nw_);                                        \
        for (size_t i_ = 0; i_ < nw_; i_++) ASSERT_EQ_INT((ids).v[i_], want_[i_]); \
    } while (0)

TEST(trigram_segments_candidates_compaction)
{
    struct mg_db *d = fresh_db();
    struct mg_err err = {0};
    struct mg_tri_scratch s;
    ASSERT_EQ_INT(mg_tri_scratch_init(&s), 0);
    struct mg_tri_builder *b = mg_tri_builder_new();
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN", &err), 0);
    add_file(d, b, &s, 1, "spin_lock_irqsave(&l, f);");
    add_file(d, b, &s, 2, "mutex_lock(&m);");
    add_file(d, b, &s, 3, "SPIN_LOCK_IRQSAVE in caps");
    ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT count(*) FROM tri_pending", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int(st, 0), 0); /* flushed files are no longer pending */
    sqlite3_finalize(st);
    /* a second segment, as an incremental run writes it */
    add_file(d, b, &s, 7, "spin_unlock(&l); mutex_lock(&m2);");
    ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);

    struct mg_ids ids = cands(d, "spin_lock_irqsave");
    ASSERT_IDS(ids, 1, 3); /* case-folded index: 3 is a candidate, PCRE2 decides */
    mg_ids_release(&ids);
    ids = cands(d, "mutex_lock|spin_unlock");
    ASSERT_IDS(ids, 2, 7);
    mg_ids_release(&ids);
    ids = cands(d, "nothing_like_this");
    ASSERT(!ids.all);
    ASSERT_EQ_INT(ids.n, 0);
    mg_ids_release(&ids);
    ids = cands(d, "\\w+"); /* nothing to require: every file */
    ASSERT(ids.all);
    mg_ids_release(&ids);

    /* a file stored but not yet flushed (a killed run) is a candidate */
    ASSERT_EQ_INT(mg_db_exec(d, "INSERT INTO files(id, path, lang, size, hash, mtime, lines, chunk_lo, chunk_hi, "
                                "sym_lo, sym_hi, content) VALUES(9, 'f9', 'text', 0, 0, 0, 1, 1, 0, 1, 0, x''); "
                                "INSERT INTO tri_pending VALUES(9)",
                             &err), 0);
    ids = cands(d, "spin_lock_irqsave");
    ASSERT_IDS(ids, 1, 3, 9);
    mg_ids_release(&ids);

    /* compaction: one segment, dead ids gone */
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN; DELETE FROM files WHERE id IN (1, 9); DELETE FROM tri_pending", &err), 0);
    ASSERT_EQ_INT(mg_tri_compact(d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT count(DISTINCT seg) FROM trigrams", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    ids = cands(d, "spin_lock_irqsave");
    ASSERT_IDS(ids, 3);
    mg_ids_release(&ids);
    ids = cands(d, "mutex_lock");
    ASSERT_IDS(ids, 2, 7);
    mg_ids_release(&ids);

    mg_tri_builder_free(&b);
    mg_tri_scratch_release(&s);
    mg_db_close(&d);
}

/* Two index threads each flush their own builder, so one run's segments
 * interleave ids (thread A: 1 3, thread B: 2 4). Compaction keeps every id. */
TEST(trigram_compaction_keeps_interleaved_segments)
{
    struct mg_db *d = fresh_db();
    struct mg_err err = {0};
    struct mg_tri_scratch s;
    ASSERT_EQ_INT(mg_tri_scratch_init(&s), 0);
    struct mg_tri_builder *a = mg_tri_builder_new(), *b = mg_tri_builder_new();
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN", &err), 0);
    add_file(d, a, &s, 1, "needle_in_one");
    add_file(d, b, &s, 2, "needle_in_two");
    add_file(d, a, &s, 3, "needle_in_three");
    add_file(d, b, &s, 4, "needle_in_four");
    ASSERT_EQ_INT(mg_tri_builder_flush(a, d, &err), 0);
    ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
    struct mg_ids ids = cands(d, "needle_in");
    ASSERT_IDS(ids, 1, 2, 3, 4);
    mg_ids_release(&ids);
    ASSERT_EQ_INT(mg_tri_compact(d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);
    ids = cands(d, "needle_in");
    ASSERT_IDS(ids, 1, 2, 3, 4);
    mg_ids_release(&ids);
    ids = cands(d, "needle_in_t");
    ASSERT_IDS(ids, 2, 3);
    mg_ids_release(&ids);
    mg_tri_builder_free(&a);
    mg_tri_builder_free(&b);
    mg_tri_scratch_release(&s);
    mg_db_close(&d);
}

static int64_t count_of(struct mg_db *d, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) FAIL("prepare: %s", sqlite3_errmsg(d->db));
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

/* A watcher's run of one file writes a small segment: it goes to tri_recent,
 * queries read both tables, mg_tri_tidy keeps tri_recent to a few segments
 * and compaction folds it into trigrams. A big segment goes to trigrams. */
TEST(trigram_small_segments_in_tri_recent)
{
    struct mg_db *d = fresh_db();
    struct mg_err err = {0};
    struct mg_tri_scratch s;
    ASSERT_EQ_INT(mg_tri_scratch_init(&s), 0);
    struct mg_tri_builder *b = mg_tri_builder_new();
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN", &err), 0);
    /* a big segment: more distinct trigrams than MG_TRI_SMALL_KEYS */
    size_t blen = 400000;
    char *big = malloc(blen + 32);
    unsigned x = 7;
    for (size_t i = 0; i < blen; i++) big[i] = (char)(1 + ((x = x * 1103515245 + 12345) >> 16) % 255);
    strcpy(big + blen, " needle_big");
    add_file(d, b, &s, 1, big);
    free(big);
    ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
    ASSERT_EQ_INT(count_of(d, "SELECT count(*) FROM tri_recent"), 0);
    ASSERT(count_of(d, "SELECT count(*) FROM trigrams") > MG_TRI_SMALL_KEYS);
    /* small ones, each tidied as an incremental run is: merged only past the
     * backstop (a watcher merges them when quiet) */
    int nsmall = MG_TRI_RECENT_SEGS_BACKSTOP + 8;
    bool merged;
    for (int i = 0; i < nsmall; i++) {
        char t[64];
        snprintf(t, sizeof(t), "needle_small %d", i);
        add_file(d, b, &s, 10 + i, t);
        ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
        ASSERT_EQ_INT(mg_tri_tidy(d, 0, 1 << 30, true, &err), 0);
        int64_t segs = count_of(d, "SELECT count(DISTINCT seg) FROM tri_recent");
        ASSERT(segs <= MG_TRI_RECENT_SEGS_BACKSTOP);
        ASSERT_EQ_INT(segs, mg_db_meta_int(d, "tri_recent_segs", -1));
        if (i == MG_TRI_RECENT_SEGS_MAX + 1) ASSERT_EQ_INT(segs, i + 1);
        /* as a quiet watcher does: nothing at or below the threshold, one segment past it */
        if (i == MG_TRI_RECENT_SEGS_BACKSTOP / 2) {
            ASSERT_EQ_INT(mg_tri_merge_recent(d, segs, &merged, &err), 0);
            ASSERT(!merged);
            ASSERT_EQ_INT(mg_tri_merge_recent(d, MG_TRI_RECENT_SEGS_IDLE, &merged, &err), 0);
            ASSERT(merged);
            ASSERT_EQ_INT(count_of(d, "SELECT count(DISTINCT seg) FROM tri_recent"), 1);
        }
    }
    /* a full run merges them past MG_TRI_RECENT_SEGS_MAX */
    ASSERT(count_of(d, "SELECT count(DISTINCT seg) FROM tri_recent") > MG_TRI_RECENT_SEGS_MAX);
    ASSERT_EQ_INT(mg_tri_tidy(d, 0, 1 << 30, false, &err), 0);
    ASSERT_EQ_INT(count_of(d, "SELECT count(DISTINCT seg) FROM tri_recent"), 1);
    ASSERT_EQ_INT(count_of(d, "SELECT count(DISTINCT seg) FROM trigrams"), 1);
    struct mg_ids ids = cands(d, "needle_");
    ASSERT_EQ_INT(ids.n, (size_t)nsmall + 1);
    ASSERT_EQ_INT(ids.v[0], 1);
    for (int i = 0; i < nsmall; i++) ASSERT_EQ_INT(ids.v[i + 1], 10 + i);
    mg_ids_release(&ids);
    ids = cands(d, "needle_big");
    ASSERT_IDS(ids, 1);
    mg_ids_release(&ids);
    /* compaction: everything in one segment of trigrams, tri_recent empty */
    ASSERT_EQ_INT(mg_tri_compact(d, &err), 0);
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);
    ASSERT_EQ_INT(count_of(d, "SELECT count(*) FROM tri_recent"), 0);
    ASSERT_EQ_INT(count_of(d, "SELECT count(DISTINCT seg) FROM trigrams"), 1);
    ids = cands(d, "needle_small");
    ASSERT_EQ_INT(ids.n, (size_t)nsmall);
    mg_ids_release(&ids);
    mg_tri_builder_free(&b);
    mg_tri_scratch_release(&s);
    mg_db_close(&d);
}

/* An index from schema 1 (whose compaction lost ids) is upgraded: its
 * postings are dropped and every file is pending, so the next index run
 * rebuilds them, and until then every file is a candidate. */
TEST(trigram_schema_1_postings_rebuilt)
{
    char *dir = mg_t_tmpdir(), path[4200];
    snprintf(path, sizeof(path), "%s/old.db", dir);
    struct mg_db *d;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_CREATE, &d, &err), 0);
    struct mg_tri_scratch s;
    ASSERT_EQ_INT(mg_tri_scratch_init(&s), 0);
    struct mg_tri_builder *b = mg_tri_builder_new();
    add_file(d, b, &s, 1, "needle one");
    add_file(d, b, &s, 2, "needle two");
    ASSERT_EQ_INT(mg_tri_builder_flush(b, d, &err), 0);
    /* as schema 1 left it: no tri_recent, postings in trigrams (here: one id lost) */
    ASSERT_EQ_INT(mg_db_exec(d, "INSERT INTO trigrams SELECT tri, seg, ids FROM tri_recent WHERE tri % 2 = 0; "
                                "DROP TABLE tri_recent; PRAGMA user_version = 1", &err), 0);
    mg_db_close(&d);
    ASSERT_EQ_INT(mg_db_open(path, MG_DB_READONLY, &d, &err), 0); /* read-only: not migrated, still answers */
    struct mg_ids ids = cands(d, "needle");
    ASSERT(!ids.all);
    mg_ids_release(&ids);
    mg_db_close(&d);
    ASSERT_EQ_INT(mg_db_open(path, 0, &d, &err), 0);
    ASSERT_EQ_INT(count_of(d, "PRAGMA user_version"), MG_SCHEMA_VERSION);
    ASSERT_EQ_INT(count_of(d, "SELECT count(*) FROM trigrams"), 0);
    ASSERT_EQ_INT(count_of(d, "SELECT count(*) FROM tri_pending"), 2);
    ids = cands(d, "needle");
    ASSERT_IDS(ids, 1, 2);
    mg_ids_release(&ids);
    mg_tri_builder_free(&b);
    mg_tri_scratch_release(&s);
    mg_db_close(&d);
}
