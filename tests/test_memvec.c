/* test_memvec.c — memory recalled by meaning (src/memory/memvec.c) stays in
 * its place: the same memory stored in two projects, the shared pool,
 * another repo and another tenant, and a question that shares no word with
 * it, asked through recall, search_notes, search_entities and get_context,
 * finds the copy of the caller's place and no other (another tenant's copy
 * planted in the file: never either); a vector moved to another row fails to
 * open and is dropped and counted; words alone do not find the memory.
 *
 * The model is a file the test writes ("near": every text has the same
 * vector), so that the vector list holds every row a search may see and a
 * row of another place would show; what the trained model finds is
 * bench/memory_recall.py's measure. Each test runs on SQLite and, as
 * "_pg", on a PostgreSQL database of its own.
 */
#include <sodium.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "inproc.h"
#include "memory/memory.h"
#include "store/tokenize.h"
#include "test.h"
#include "util/metrics.h"

/* A memory and a question about it that share no word (after bench/memrecall/set.tsv's m04). */
#define MEMORY "Moved secrets out of the repository into the vault; the app reads them from environment variables"
#define QUESTION "where do credentials live now if not in source control"

/* A model file (src/embed/model.c's format) under which every text is near
 * every other: 8 dimensions, 2^8 buckets, every bucket's vector (1, ..., 1).
 * Used through embedder = model and model_file. */
static void use_near_model(const char *dir)
{
    enum { DIM = 8, NB = 256, LEN = 56 + 8 * DIM + 4 * NB + NB * DIM + 32 };
    static unsigned char b[LEN];
    memset(b, 0, sizeof(b));
    memcpy(b, "MGMODEL", 8);
    uint32_t head[4] = {1, DIM, 8, 16};
    memcpy(b + 8, head, sizeof(head));
    memcpy(b + 24, "near", 4);
    for (int i = 0; i < NB; i++) {
        float one = 1.0f;
        memcpy(b + 56 + 8 * DIM + 4 * i, &one, 4);
    }
    memset(b + 56 + 8 * DIM + 4 * NB, 1, NB * DIM);
    crypto_generichash(b + LEN - 32, 32, b, LEN - 32, NULL, 0);
    mg_t_write(dir, "near.mgm", (const char *)b, LEN);
    static char path[4200];
    snprintf(path, sizeof(path), "%s/near.mgm", dir);
    mg_t_srv_embedder("model", path);
}

static void use_no_model(void) { mg_t_srv_embedder(NULL, NULL); }

static json_t *call(struct mg_t_srv *t, const char *tool, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static json_t *call(struct mg_t_srv *t, const char *tool, const char *fmt, ...)
{
    char args[8192], code[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    json_t *r = mg_t_call(t, tool, args, code);
    if (!r) FAIL("%s %s failed: %s", tool, args, code);
    return r;
}

static char *dump(json_t *r)
{
    char *s = json_dumps(r, JSON_COMPACT);
    json_decref(r);
    return s;
}

static void index_repo_at(const char *home, const char *name, const char *repo)
{
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", name, "--quiet");
    if (o.status != 0) FAIL("index: %s", o.err);
    mg_t_out_free(&o);
}

static void index_repo(const char *home, const char *name)
{
    char *repo = mg_t_tmpdir();
    mg_t_write_str(repo, "src/main.c", "int main(void) { return 0; }\n");
    index_repo_at(home, name, repo);
}

/* A daemon's token pepper (`memgate serve` makes it; the daemons of one
 * PostgreSQL database share it: docs/deploy.md), the same bytes each call. */
static void daemon_pepper(const char *home)
{
    unsigned char b[32];
    memset(b, 0x5a, sizeof(b));
    mg_t_write(home, "token.pepper", (const char *)b, sizeof(b));
    char path[4200];
    snprintf(path, sizeof(path), "%s/token.pepper", home);
    ASSERT_EQ_INT(chmod(path, 0600), 0);
}

static void sql_file(const char *home, const char *tenant, const char *sql)
{
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/%s.db", home, tenant);
    sqlite3 *h;
    ASSERT_EQ_INT(sqlite3_open(db, &h), SQLITE_OK);
    ASSERT_EQ_INT(mg_tokenizer_register(h), 0);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) FAIL("sql: %s", msg);
    sqlite3_close(h);
}

/* The same memory in every place, each copy tagged with its place. */
static void store_everywhere(struct mg_t_srv *t)
{
    json_decref(call(t, "create_project", "{\"name\":\"p1\",\"repo\":\"alpha\"}"));
    json_decref(call(t, "create_project", "{\"name\":\"p2\",\"repo\":\"alpha\"}"));
    json_decref(call(t, "join_project", "{\"project\":\"p1\",\"session_id\":\"s1\",\"repo\":\"alpha\"}"));
    json_decref(call(t, "join_project", "{\"project\":\"p2\",\"session_id\":\"s2\",\"repo\":\"alpha\"}"));
    static const char *const where[][2] = {{"s1", "alpha"}, {"s2", "alpha"}, {"s3", "alpha"}, {"s4", "beta"}};
    for (size_t i = 0; i < 4; i++) {
        json_decref(call(t, "remember", "{\"summary\":\"" MEMORY "\",\"tags\":[\"canary_%s_%s\"],\"session_id\":\"%s\","
                         "\"repo\":\"%s\"}", where[i][1], where[i][0], where[i][0], where[i][1]));
        json_decref(call(t, "add_entities", "{\"entities\":[{\"name\":\"vault\",\"type\":\"service\",\"notes\":\""
                         MEMORY " canary_%s_%s\"}],\"session_id\":\"%s\",\"repo\":\"%s\"}", where[i][1], where[i][0],
                         where[i][0], where[i][1]));
    }
    json_decref(call(t, "set_note", "{\"key\":\"canary_alpha_note\",\"value\":\"" MEMORY "\",\"repo\":\"alpha\"}"));
    json_decref(call(t, "set_note", "{\"key\":\"canary_beta_note\",\"value\":\"" MEMORY "\",\"repo\":\"beta\"}"));
}

/* Of the canaries, s holds exactly `want` (a list ending with NULL). */
static void only(const char *s, const char *const *want)
{
    static const char *const all[] = {"canary_alpha_s1", "canary_alpha_s2", "canary_alpha_s3", "canary_beta_s4",
                                      "canary_alpha_note", "canary_beta_note", "canary_other", NULL};
    /* (canary_other_note contains canary_other) */
    for (size_t i = 0; all[i]; i++) {
        bool wanted = false;
        for (size_t j = 0; want[j]; j++) wanted |= strcmp(want[j], all[i]) == 0;
        if (wanted) ASSERT_CONTAINS(s, all[i]);
        else ASSERT_NOT_CONTAINS(s, all[i]);
    }
}

static void by_meaning_stays_in_its_place(const char *pg)
{
    char *home = mg_t_tmpdir();
    use_near_model(home);
    if (pg) {
        mg_t_srv_storage(pg);
        daemon_pepper(home);
    }
    index_repo(home, "alpha");
    index_repo(home, "beta");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    store_everywhere(&t);
    if (!pg) {
        /* another tenant's copy of s1's episode and note, vectors and all, in the same file (PostgreSQL: row-level
         * security hides such rows, memory_pg_rls_hides_other_tenants_rows) */
        mg_t_srv_close(&t);
        mg_memory_close_all();
        sql_file(home, "local", "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at, vec)"
                                " SELECT 'other', repo, repo_fp, session_id, summary, 'canary_other', created_at, vec"
                                " FROM episodes WHERE tags = 'canary_alpha_s1';"
                                "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, created_at,"
                                " updated_at, vec) SELECT 'other', repo, repo_fp, 'canary_other_note', value, source,"
                                " trust, created_at, updated_at, vec FROM notes WHERE key = 'canary_alpha_note';");
        mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    }
    uint64_t drops = mg_metrics_isolation_drops();

    /* each place finds its own copy by meaning, and only it */
    char *s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_s1", NULL});
    free(s);
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s2\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_s2", NULL});
    free(s);
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s3\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_s3", NULL}); /* the pool: no project's */
    free(s);
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s4\",\"repo\":\"beta\"}"));
    only(s, (const char *const[]){"canary_beta_s4", NULL});
    free(s);
    s = dump(call(&t, "search_entities", "{\"query\":\"" QUESTION "\",\"session_id\":\"s2\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_s2", NULL});
    free(s);
    s = dump(call(&t, "search_entities", "{\"query\":\"" QUESTION "\",\"session_id\":\"s3\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){NULL}); /* no project: no entities */
    free(s);
    s = dump(call(&t, "search_notes", "{\"query\":\"" QUESTION "\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_note", NULL});
    free(s);
    s = dump(call(&t, "get_context", "{\"prompt\":\"" QUESTION "\",\"session_id\":\"s1\",\"repo\":\"alpha\"}"));
    only(s, (const char *const[]){"canary_alpha_s1", "canary_alpha_note", NULL});
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops); /* nothing crossed: the guardrail had nothing to drop */
    mg_t_srv_close(&t);
    mg_memory_close_all();
    use_no_model();
}

TEST(memvec_by_meaning_stays_in_its_place) { by_meaning_stays_in_its_place(NULL); }
TEST(memvec_by_meaning_stays_in_its_place_pg) { by_meaning_stays_in_its_place(mg_t_pg_url()); }


/* A server on a fresh home under the near model with two episodes of session s1: the memory (canary_a) and
 * another (canary_b); its data directory. */
static char *two_episodes(struct mg_t_srv *t)
{
    char *home = mg_t_tmpdir();
    use_near_model(home);
    index_repo(home, "alpha");
    mg_t_srv_open(t, home, "local", MG_LEVEL_ADMIN);
    json_decref(call(t, "remember", "{\"summary\":\"" MEMORY "\",\"tags\":[\"canary_a\"],\"session_id\":\"s1\"}"));
    json_decref(call(t, "remember", "{\"summary\":\"Nightly export writes a temporary file and renames it\","
                     "\"tags\":[\"canary_b\"],\"session_id\":\"s1\"}"));
    return home;
}

TEST(memvec_moved_vector_is_dropped_and_words_alone_do_not_find_it)
{
    struct mg_t_srv t;
    char *home = two_episodes(&t);
    char *s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_a");
    free(s);
    mg_t_srv_close(&t);
    mg_memory_close_all();

    /* the vectors are sealed: no plain float or int8 run of the text's vector is in the file, and each is bound
     * to its row: the first episode's vector copied onto the second fails to open */
    sql_file(home, "local", "UPDATE episodes SET vec = (SELECT vec FROM episodes WHERE summary LIKE 'Moved%') "
                            "WHERE summary LIKE 'Nightly%'; UPDATE episodes SET vec = NULL WHERE summary LIKE 'Moved%';"
                            "UPDATE episodes SET summary = 'nothing to see', tags = 'canary_a' WHERE summary LIKE 'Moved%';");
    uint64_t drops = mg_metrics_isolation_drops();
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_NOT_CONTAINS(s, "canary_b"); /* found through the moved vector: never */
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops + 1);
    mg_t_srv_close(&t);

    /* words alone (an embedder other than the code model: memory has no vectors) do not find the memory: the
     * question shares no word with it (the first episode's words are still the memory's) */
    mg_t_srv_embedder("builtin", NULL);
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    json_decref(call(&t, "remember", "{\"summary\":\"" MEMORY "\",\"tags\":[\"canary_c\"],\"session_id\":\"s1\"}"));
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_NOT_CONTAINS(s, "canary_a");
    ASSERT_NOT_CONTAINS(s, "canary_c");
    free(s);
    s = dump(call(&t, "recall", "{\"query\":\"vault secrets\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_c"); /* (its words do) */
    free(s);
    mg_t_srv_close(&t);
    use_no_model();
}

/* The first column of sql's first row on the memory database (pg: PostgreSQL's, as the superuser), malloc'd. */
static char *sql_get(const char *pg, const char *home, const char *sql)
{
    if (pg) {
        char *r = mg_t_pg_su(pg, sql);
        r[strcspn(r, "\n")] = 0;
        return r;
    }
    char db[4200];
    snprintf(db, sizeof(db), "%s/memory/local.db", home);
    sqlite3 *h;
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_open(db, &h), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    char *r = strdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return r;
}

/* Under the default embedder (auto, no remote one configured: the code model) memory is stored with its
 * vectors; rows without one of the model (stored before, or by another model) get theirs from the first search
 * that reads them, and keep it. */
static void default_embeds_and_fills(const char *pg)
{
    char *home = mg_t_tmpdir();
    use_no_model();
    if (pg) {
        mg_t_srv_storage(pg);
        daemon_pepper(home);
    }
    index_repo(home, "alpha");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_ADMIN);
    for (int i = 0; i < 3; i++)
        json_decref(call(&t, "set_note", "{\"key\":\"k%d\",\"value\":\"" MEMORY " %d\",\"repo\":\"alpha\"}", i, i));
    char *n = sql_get(pg, home, "SELECT count(*) FROM notes WHERE vec IS NOT NULL");
    ASSERT_EQ_STR(n, "3");
    free(n);
    /* k0 as stored before memory vectors were on; k1 with another model's (signature "other") */
    free(sql_get(pg, home, pg ? "UPDATE notes SET vec = NULL WHERE key = 'k0';"
                                "UPDATE notes SET vec = '\\x056f74686572'::bytea || vec WHERE key = 'k1'; SELECT 1"
                              : "UPDATE notes SET vec = NULL WHERE key = 'k0' RETURNING 1"));
    if (!pg) free(sql_get(pg, home, "UPDATE notes SET vec = X'056f74686572' || vec WHERE key = 'k1' RETURNING 1"));
    char *before = sql_get(pg, home, pg ? "SELECT encode(vec, 'hex') FROM notes WHERE key = 'k2'"
                                        : "SELECT hex(vec) FROM notes WHERE key = 'k2'");
    char *s = dump(call(&t, "search_notes", "{\"query\":\"" QUESTION "\",\"repo\":\"alpha\"}"));
    free(s);
    n = sql_get(pg, home, pg ? "SELECT count(*) FROM notes WHERE vec IS NULL OR substring(vec from 1 for 6) = "
                               "'\\x056f74686572'::bytea"
                             : "SELECT count(*) FROM notes WHERE vec IS NULL OR substr(vec, 1, 6) = X'056f74686572'");
    ASSERT_EQ_STR(n, "0"); /* both filled */
    free(n);
    char *after = sql_get(pg, home, pg ? "SELECT encode(vec, 'hex') FROM notes WHERE key = 'k2'"
                                       : "SELECT hex(vec) FROM notes WHERE key = 'k2'");
    ASSERT_EQ_STR(after, before); /* a row with its vector is left as it is */
    free(before);
    free(after);
    before = sql_get(pg, home, "SELECT count(*) FROM notes WHERE vec IS NOT NULL");
    ASSERT_EQ_STR(before, "3");
    free(before);
    mg_t_srv_close(&t);
    mg_memory_close_all();
    if (pg) mg_t_srv_storage(NULL);
}

TEST(memvec_default_embeds_memory_and_fills_rows_without_a_vector) { default_embeds_and_fills(NULL); }
TEST(memvec_default_embeds_memory_and_fills_rows_without_a_vector_pg) { default_embeds_and_fills(mg_t_pg_url()); }

/* A vector opened by one search is kept for the next (memvec_kept.c) by its row, context and sealed value: one
 * moved onto another row afterwards, while the process keeps what it opened, is still refused and counted; a
 * scope kept whole is read again after any write to the file, the server's or another process's. */
TEST(memvec_kept_vectors_are_bound_to_their_row_and_value_and_follow_writes)
{
    struct mg_t_srv t;
    char *home = two_episodes(&t);
    uint64_t drops = mg_metrics_isolation_drops();
    char *s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_b"); /* the near model: every row is near, both opened and kept */
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops);
    /* the near model gives every text the same vector; the sealed bytes still differ (nonce, row): the second
     * episode given the first's sealed vector, and the first's text changed so words do not find it */
    sql_file(home, "local", "UPDATE episodes SET vec = (SELECT vec FROM episodes WHERE summary LIKE 'Moved%') "
                            "WHERE summary LIKE 'Nightly%';");
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_NOT_CONTAINS(s, "canary_b"); /* its kept vector is not its row's bytes now, the moved one fails */
    ASSERT_CONTAINS(s, "canary_a");     /* the first's, kept, still serves */
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops + 1);
    /* the scope kept whole (SQLite) follows the file: the second episode's own vector back (another connection's
     * write), then a new episode through the server (its own), each seen by the next search */
    sql_file(home, "local", "UPDATE episodes SET vec = NULL WHERE summary LIKE 'Nightly%';");
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_b"); /* embedded again from its text, and stored */
    free(s);
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_b"); /* (the scope now kept whole) */
    free(s);
    json_decref(call(&t, "remember", "{\"summary\":\"Rotated the signing key on Tuesday\",\"tags\":[\"canary_c\"],"
                     "\"session_id\":\"s1\"}"));
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_CONTAINS(s, "canary_c"); /* found by meaning alone: the kept scope was read again */
    free(s);
    sql_file(home, "local", "DELETE FROM episodes WHERE summary LIKE 'Rotated%';");
    s = dump(call(&t, "recall", "{\"query\":\"" QUESTION "\",\"session_id\":\"s1\"}"));
    ASSERT_NOT_CONTAINS(s, "canary_c");
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops + 1);
    mg_t_srv_close(&t);
    mg_memory_close_all();
    use_no_model();
}

/* On PostgreSQL every daemon reads the memory rows, and each has its own data directory (keys/): the vectors are
 * sealed under a key of the tenant derived from the token pepper the daemons share, so a memory one daemon
 * stored is found by meaning through another, nothing dropped. A query of one word is a lookup: words only. */
TEST(memvec_pg_daemons_open_each_others_vectors_and_one_word_is_a_lookup)
{
    const char *pg = mg_t_pg_url();
    char *h1 = mg_t_tmpdir(), *h2 = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    use_near_model(h1);
    mg_t_srv_storage(pg);
    daemon_pepper(h1);
    daemon_pepper(h2);
    mg_t_write_str(repo, "src/main.c", "int main(void) { return 0; }\n");
    index_repo_at(h1, "alpha", repo);
    index_repo_at(h2, "alpha", repo);
    struct mg_t_srv t;
    mg_t_srv_open(&t, h1, "local", MG_LEVEL_ADMIN);
    json_decref(call(&t, "set_note", "{\"key\":\"canary_one\",\"value\":\"" MEMORY "\",\"repo\":\"alpha\"}"));
    mg_t_srv_close(&t);
    mg_memory_close_all();
    uint64_t drops = mg_metrics_isolation_drops();
    char *before = sql_get(pg, NULL, "SELECT encode(vec, 'hex') FROM notes WHERE key = 'canary_one'");
    ASSERT(strlen(before) > 100);
    mg_t_srv_open(&t, h2, "local", MG_LEVEL_ADMIN);
    char *s = dump(call(&t, "search_notes", "{\"query\":\"" QUESTION "\",\"repo\":\"alpha\"}"));
    ASSERT_CONTAINS(s, "canary_one"); /* by meaning (the near model), through the other daemon */
    free(s);
    ASSERT_EQ_INT(mg_metrics_isolation_drops(), drops);
    char *after = sql_get(pg, NULL, "SELECT encode(vec, 'hex') FROM notes WHERE key = 'canary_one'");
    ASSERT_EQ_STR(after, before); /* opened as its own: not embedded again and rewritten */
    free(before);
    free(after);
    /* one word: no vector list, so the near model's "everything is near" finds nothing */
    s = dump(call(&t, "search_notes", "{\"query\":\"credentials\",\"repo\":\"alpha\"}"));
    ASSERT_NOT_CONTAINS(s, "canary_one");
    free(s);
    mg_t_srv_close(&t);
    mg_memory_close_all();
    mg_t_srv_storage(NULL);
    use_no_model();
}
