/* internal.h — what the memory providers share (the files of memory/ only): the
 * tenant's memory database, the place of a request (its repo, conversation
 * and project), the per-dialect SQL and full-text search.
 *
 * The database is reached through store/sql.h, so one piece of code serves
 * both backends:
 *   - SQLite (the default): the tenant's file <home>/memory/<tenant>.db,
 *     opened once per process and kept; a call holds the file's mutex from
 *     place_begin to place_end (one statement sequence at a time);
 *   - PostgreSQL (storage = postgres://...): the shared tables of schema
 *     step 0002_memory (store/pgschema.c); a call takes a pooled connection
 *     acting for its tenant (row-level security) at place_begin and gives it
 *     back at place_end. No process-wide lock: the database serialises.
 */
#ifndef MG_MEMORY_INTERNAL_H
#define MG_MEMORY_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "memory/memory.h"
#include "store/sql.h"
#include "util/buf.h"

struct mem;  /* SQLite: one tenant's file (memory.c) */
struct mg_pg;

/* Where a call works, from place_begin (or place_tenant) to place_end. */
struct place {
    struct mg_sql *db;              /* the tenant's memory; NULL once ended */
    struct mem *file;               /* SQLite: the tenant's file, its mutex held */
    struct mg_pg *pool;             /* PostgreSQL: where db goes back */
    const struct mg_repo *repo;     /* the request's one repo (pcall's); NULL for place_tenant */
    const char *tenant;
    char ext[MG_SESSION_ID_MAX + 1]; /* the conversation's durable id */
    int64_t sid;                    /* its row (0 unless asked for) */
    int64_t project;                /* its project, 0 = none */
    char project_name[MG_ID_MAX + 1];
};

/* Begin a call: the request's one repo (pcall), and with session the
 * conversation's row (made on first use) and its current project. 0, or -1
 * with err (nothing held). place_end gives the database back and leaves the
 * rest of *p readable. */
int mg__place_begin(const struct mg_pcall *pc, const char *session, struct place *p, struct mg_err *err);
/* Begin a call of the tenant's, in no repo (profiles). */
int mg__place_tenant(const struct mg_config *cfg, const char *tenant, struct place *p, struct mg_err *err);
void mg__place_end(struct place *p);
/* Inside a write transaction of a call with a session: read the session's
 * project again and hold the session's row until commit (PostgreSQL: FOR
 * SHARE), so that a project deleted meanwhile by another daemon cannot
 * leave this call's rows in it, or release them into the shared pool.
 * Updates p->project and p->project_name. 0 or -1 with err. */
int mg__place_hold_session(struct place *p, struct mg_err *err);
/* Describe the place in out->place (repo, session, project), owned like a
 * memory row. -1 out of memory. */
int mg__place_report(const struct place *p, struct mg_items *out, struct mg_err *err);
/* An item's owner from a row's tenant, repo, fingerprint and project. */
void mg__row_owner(struct mg_item *it, const char *tenant, const char *repo, const char *fp, int64_t project);

int64_t mg__now_s(void);
/* Run sql (taking ?1 = a) to the end; *count (may be NULL) gets the rows changed. */
int mg__mem_run1(struct place *p, const char *sql, int64_t a, int64_t *count, struct mg_err *err);

/* Full-text search. SQLite: FTS5 tables notes_fts, episodes_fts and
 * entities_fts (tokenizer mgcode), rowid = the row's id. PostgreSQL: the
 * row's `body` tsvector (GIN-indexed), whose lexemes are the stream's tokens
 * as they are (no parser, no dictionary), searched with a tsquery OR of the
 * query's words and ranked with ts_rank; see docs/memory.md. */
/* The token stream of up to three texts. */
char *mg__fts_stream(const char *a, const char *b, const char *c);
/* The query's words, any of which may match, as the dialect's expression
 * (pg: tsquery text, else FTS5 MATCH text); NULL when it has none. */
char *mg__fts_match(bool pg, const char *q);
/* Store row `id` of table ("notes", "episodes", "entities")'s stream. */
int mg__fts_put(struct place *p, const char *table, int64_t id, const char *stream, struct mg_err *err);
static inline bool mg__mem_pg(const struct place *p) { return mg_sql_dialect(p->db) == MG_SQL_PG; }

/* Memory by meaning (memvec.c): each row of notes, episodes and entities
 * keeps the code model's vector of its text in its `vec` column, sealed
 * under the tenant's key and bound to its row; a search fuses its word list
 * with the nearest rows of its own scope. */
struct mg__mvq;
/* A search's query vector, the model and the key; NULL: words only (no
 * query, embedder = none, or the model or key unusable: warned once). */
struct mg__mvq *mg__mvec_query(const struct place *p, const struct mg_config *cfg, const char *query);
void mg__mvec_end(struct mg__mvq **v);
/* Store row `id` of table's vector of text (nothing when vectors are off). 0 or -1. */
int mg__mvec_put(struct place *p, const struct mg_config *cfg, const char *table, int64_t id, const char *text,
                 struct mg_err *err);
/* A kind of memory row, for a hybrid search: its table, and three queries
 * of the search's own scope (ctx: the provider's, p: the call's place):
 *   words: the best `limit` rows by words, items in rank order, their row ids into *ids;
 *   scan:  a prepared statement yielding (id, vec) of every row in the scope, newest first,
 *          with tenant and fingerprint in its WHERE, so no vector crosses them;
 *   text:  SQL giving the text a row's vector is made of, the row's id as ?1 (for a row with no
 *          vector of the model: embedded at search time, then stored);
 *   rows:  the items of the rows whose ids idlist holds ("[1,2]" on SQLite for json_each,
 *          "{1,2}" on PostgreSQL for CAST(? AS bigint[])), any order, ids into *ids;
 *   set_score: (may be NULL) give an item its fused score. */
struct mg__mvec_kind {
    const char *table;
    int (*words)(void *ctx, struct place *p, int limit, struct mg_items *out, int64_t **ids, struct mg_err *err);
    int (*scan)(void *ctx, struct place *p, struct mg_sql_st **st, struct mg_err *err);
    const char *text;
    int (*rows)(void *ctx, struct place *p, const char *idlist, int n, struct mg_items *out, int64_t **ids,
                struct mg_err *err);
    void (*set_score)(struct mg_item *it, double score);
};
/* Words and meaning: the word list and the scope's rows nearest the query
 * (at most a cap of them read, newest first; a vector that fails to open is
 * dropped and counted, a missing one made from the text), fused by
 * reciprocal rank into out, the best `limit`. 0 or -1. */
int mg__mvec_search(struct place *p, struct mg__mvq *v, const struct mg__mvec_kind *kind, void *ctx, int limit,
                    struct mg_items *out, struct mg_err *err);
/* Opened vectors kept for the process's later searches (memvec_kept.c): by the
 * context they were sealed in (MG_MVKEPT_CTX bytes, a keyed hash: memvec.c),
 * the row id and the sealed value they were opened from (n bytes: its first
 * `head`, the signature and nonce, and its last MG_MVKEPT_TAG, the AEAD's tag,
 * are what is compared). get: true and the int8 vector and its length when
 * that row held that value in that context before. clear: let everything go
 * (mg_memory_close_all). */
#define MG_MVKEPT_CTX 16
#define MG_MVKEPT_TAG 16
bool mg__mvkept_get(const unsigned char *ctx, int64_t id, const void *sealed, size_t n, size_t head, int dim,
                    int8_t *m, float *norm);
void mg__mvkept_put(const unsigned char *ctx, int64_t id, const void *sealed, size_t n, size_t head, int dim,
                    const int8_t *m, float norm);
/* A scope's vectors kept whole (SQLite: its rows are not read again while
 * the file's data version is the same): key names the scan (its sealing
 * context, connection and SQL with values). each: f once with the n rows
 * (ids, n × dim int8 values, lengths), in the scan's order, and true, when
 * the scope is kept at that version (under the store's lock: f must not
 * call back). put: keep rows (taken: *rows is emptied). */
struct mg__mvkept_rows {
    int64_t *id;
    int8_t *m; /* n × dim */
    float *norm;
    size_t n, cap;
};
bool mg__mvkept_scope_each(const char *key, uint32_t version, int dim,
                           void (*f)(void *arg, const int64_t *id, const int8_t *m, const float *norm, size_t n),
                           void *arg);
void mg__mvkept_scope_put(const char *key, uint32_t version, int dim, struct mg__mvkept_rows *rows);
int mg__mvkept_rows_add(struct mg__mvkept_rows *r, int dim, int64_t id, const int8_t *m, float norm);
void mg__mvkept_rows_free(struct mg__mvkept_rows *r);
void mg__mvkept_clear(void);
/* For the kinds' readers: record the id of l's last item in *ids (grown, *cap its room). 0 or -1. */
int mg__mvec_ids_add(struct mg_items *l, int64_t **ids, size_t *cap, int64_t id);
/* Word-list rows read beyond a search's limit, so that fusion can lift them. */
#define MG_MVEC_EXTRA 50

/* The project of the place's repo named `name`: its id, or 0 with
 * project_not_found (a row of another tenant or repo is not looked at). */
int64_t mg__project_id(struct place *p, const char *name, struct mg_err *err);

/* One statement of forgetting a repo: it takes ?1 = the repo id. fts: it
 * deletes from an FTS5 table (SQLite only: on PostgreSQL the search vector
 * goes with its row). */
struct mg_forget_sql {
    const char *sql;
    bool fts;
};
/* Delete the rows of pcall's repo with sql (ending with {NULL}), in one
 * transaction; out->total counts them. */
int mg__mem_forget(const struct mg_pcall *pc, const struct mg_forget_sql *sql, struct mg_items *out,
                  struct mg_err *err);

/* The providers' close: the tenant databases of the process go. */
void mg__mem_close(void *self);

/* The providers (notes.c, sessions.c, entities.c, profiles.c). */
extern const struct mg_notes_ops mg_notes_builtin_ops;
extern const struct mg_sessions_ops mg_sessions_builtin_ops;
extern const struct mg_entities_ops mg_entities_builtin_ops;
extern const struct mg_profiles_ops mg_profiles_builtin_ops;

#endif
