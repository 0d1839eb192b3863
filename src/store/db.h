/* db.h — one repo's index database: open it, the pool of read handles,
 * transactions, the meta rows, the scope filter.
 *
 * Each repo lives in its own SQLite file, <data dir>/repos/<id>.db (WAL,
 * mode 0600). A handle opened for one repo can only ever return that repo's
 * rows: there is no shared table to filter wrongly. Its tables and every
 * read and write of them are store/indexdb.h's; the schema's versions are
 * db.c's migrations.
 *
 * SQL functions registered on every handle:
 *   mg_filter_ok(filter, path, lang)   filter is a struct mg_filter bound with
 *                                     sqlite3_bind_pointer(..., "mg_filter", ...)
 *   mg_in_idset(set, rowid)           set is a struct mg_idx_idset bound as
 *                                     "mg_idset" (indexdb.h)
 */
#ifndef MG_DB_H
#define MG_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"
#include "util/glob.h"

#define MG_SCHEMA_VERSION 7

#define MG_DB_CREATE   1 /* create the file (0600) and schema if missing */
#define MG_DB_READONLY 2

/* File flags (files.flags). */
#define MG_FILE_REPAIRED 1 /* invalid UTF-8 was replaced with U+FFFD */
/* bits 1-3: the file's role (index/role.h's enum mg_role; 0: indexed before roles were stored) */
#define MG_FILE_ROLE_SHIFT 1
#define MG_FILE_ROLE_MASK (7 << MG_FILE_ROLE_SHIFT)

struct sqlite3;
struct sqlite3_stmt;

struct mg_db {
    struct sqlite3 *db;
    char path[4096];
    /* statements kept on this handle (mg_db_stmt prepares them once, by slot;
     * closing the handle finalizes them) */
    struct sqlite3_stmt **stmts;
    /* a pooled handle (mg_db_get): the pool's generation of its path when it
     * was handed out (0: not the pool's) */
    unsigned long long gen;
    /* the word index's sampled counts, kept while the database is the same (rank.h's mg_counts) */
    struct mg_counts *counts;
};

/* The scope a query runs in, applied inside SQL via mg_filter_ok(). */
struct mg_filter {
    struct mg_globset *globs;  /* NULL: all paths */
    const char *const *langs;  /* language names; NULL or nlangs == 0: all */
    int nlangs;
    const char *key;           /* the scope as text, naming it in caches (NULL: not cached) */
};

int mg_db_open(const char *path, int flags, struct mg_db **out, struct mg_err *err);
void mg_db_close(struct mg_db **db);

/* A pool of read-only handles, shared by the threads of a process: opening
 * an index costs more than most searches (the schema, the WAL's shared
 * memory, the map of the file, a cold page cache), so a reader takes an open
 * handle and gives it back. At most per_file handles of one file are out at
 * once: mg_db_get waits beyond that, which also bounds how many reads of one
 * repo compete for the CPUs. A handle whose file was replaced (another
 * inode) or dropped is closed instead of reused. */
struct mg_db_pool;
int mg_db_pool_new(int per_file, struct mg_db_pool **out, struct mg_err *err);
/* Close every handle (none may be out). */
void mg_db_pool_free(struct mg_db_pool **p);
/* A read-only handle on path: an idle one, or a new one; waits while
 * per_file are out, until deadline_ms (CLOCK_MONOTONIC ms; 0: no limit),
 * then timeout. p NULL: a handle of its own (mg_db_open). */
int mg_db_get(struct mg_db_pool *p, const char *path, int64_t deadline_ms, struct mg_db **out, struct mg_err *err);
/* Give d back to p (p NULL: close it); *d becomes NULL. */
void mg_db_put(struct mg_db_pool *p, struct mg_db **d);
/* Close path's idle handles, and those out when they come back (the file
 * is going away). */
void mg_db_pool_drop(struct mg_db_pool *p, const char *path);

/* The statement slots of a handle (mg_db_stmt): db.c's, then indexdb.c's
 * from MG_DB_S_OWN on (store/indexdb_int.h), MG_DB_NSTMT in all. */
enum { MG_DB_S_META_GET, MG_DB_S_BEGIN_READ, MG_DB_S_ROLLBACK, MG_DB_S_OWN };
#define MG_DB_NSTMT 128
/* d's statement in slot (sql the first time, kept until the handle is
 * closed: a search's statements are parsed once a handle, not once a
 * call), reset (the caller binds every parameter: old bindings are
 * overwritten). NULL with err set (err may be NULL) when it cannot be
 * prepared. A slot whose statement is running (a cursor of it is open)
 * gets a statement of its own: *own set, the caller finalizes it. */
struct sqlite3_stmt *mg_db_stmt(struct mg_db *d, int slot, const char *sql, bool *own, struct mg_err *err);
/* Step st (mg_db_stmt's, bound; no rows) once, then reset it, or finalize
 * it when own: 0, or -1 with err set (what; err may be NULL). */
int mg_db_run(struct mg_db *d, struct sqlite3_stmt *st, bool own, const char *what, struct mg_err *err);
/* Run SQL with no result rows; on failure fills err (db_error) with context. */
int mg_db_exec(struct mg_db *d, const char *sql, struct mg_err *err);
/* Prepare or fail with db_error. */
int mg_db_prepare(struct mg_db *d, const char *sql, struct sqlite3_stmt **st, struct mg_err *err);
/* Transactions: a write one (BEGIN IMMEDIATE: waits for the writer's lock
 * up to the busy timeout), a read one (BEGIN: one snapshot for several
 * reads), its end, and its rollback (no error: nothing to report). */
int mg_db_begin(struct mg_db *d, struct mg_err *err);
int mg_db_begin_read(struct mg_db *d, struct mg_err *err);
int mg_db_commit(struct mg_db *d, struct mg_err *err);
void mg_db_rollback(struct mg_db *d);
/* Fill err from the handle's last error; returns -1. */
int mg_db_error(struct mg_db *d, const char *what, struct mg_err *err);

int mg_db_meta_get(struct mg_db *d, const char *key, char *out, size_t cap);  /* 0, or -1 if absent */
/* Did d's last statement fail (an I/O or database error, not "no row")? */
bool mg_db_failed(struct mg_db *d);
int64_t mg_db_meta_int(struct mg_db *d, const char *key, int64_t dflt);
int mg_db_meta_set(struct mg_db *d, const char *key, const char *value, struct mg_err *err);
int mg_db_meta_set_int(struct mg_db *d, const char *key, int64_t v, struct mg_err *err);

/* Does f narrow a search (globs or languages)? NULL: no. */
bool mg_filter_scoped(const struct mg_filter *f);
/* Does the filter allow this path and language? (What mg_filter_ok computes.) */
bool mg_filter_allows(const struct mg_filter *f, const char *path, size_t pathlen, const char *lang);

#endif
