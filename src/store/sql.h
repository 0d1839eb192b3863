/* sql.h — one SQL interface over SQLite and PostgreSQL.
 *
 * What must be shared between several daemons (tokens, memory, rate limits,
 * the audit chain, sessions and handles, webhook deliveries, the repo
 * catalog) lives in SQLite files of the data directory by default, or in one
 * PostgreSQL database (`storage = postgres://...`, docs/deploy.md). The code
 * that reads and writes it is written once, against this interface:
 *
 *   - a connection (struct mg_sql) is either an SQLite handle (store/sqlite.h
 *     opens it; mg_sql_sqlite wraps it) or a PostgreSQL connection taken
 *     from the process's pool (store/pg.h);
 *   - statements use SQLite's placeholders, `?` (numbered in order) or
 *     `?N`; for PostgreSQL they are rewritten to `$N` (outside string
 *     literals and quoted names). Parameters are sent as text (libpq's text
 *     format): integers and reals are formatted here;
 *   - the SQL itself must mean the same on both: INSERT ... ON CONFLICT
 *     (...) DO UPDATE / DO NOTHING, RETURNING, coalesce, substr, length,
 *     integer columns for booleans. What differs (full-text search, LIKE's
 *     case, INSERT OR REPLACE, rowid) is written per dialect by the caller,
 *     after mg_sql_dialect.
 *
 * Errors. SQLite's are mapped as store/sqlite.h says. PostgreSQL's: a lost
 * or refused connection (SQLSTATE class 08, 57P01-57P03, 53300, or libpq
 * reporting the connection bad) is storage_unavailable (HTTP 503 with
 * Retry-After), and marks the connection broken so that the pool replaces
 * it; a unique violation (23505) is storage_conflict; a serialization
 * failure or deadlock (40001, 40P01) is storage_retry (the caller may run
 * the transaction again); a row refused by row-level security (42501) is
 * db_error naming the policy; the rest db_error with the server's message.
 *
 * Thread safety: a connection and its statements are used by one thread at
 * a time (callers hold a mutex, or the pool hands a connection to one
 * caller). Statement handles must be finalised before their connection is
 * released or closed.
 */
#ifndef MG_SQL_H
#define MG_SQL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum mg_sql_dialect { MG_SQL_SQLITE, MG_SQL_PG };

struct mg_sql;
struct mg_sql_st;

/* Wrap an open SQLite handle (store/sqlite.h's mg_sqlite_open). The wrapper
 * owns db from now on: mg_sql_close closes it. path and what name it in
 * errors ("memory database '/x/y.db'"). NULL when out of memory (db is then
 * closed). */
struct mg_sql *mg_sql_sqlite(sqlite3 *db, const char *path, const char *what);
/* Close a connection this file made (SQLite), or a PostgreSQL one that is
 * not the pool's (store/pg.h closes its own); NULLs *c. */
void mg_sql_close(struct mg_sql **c);

enum mg_sql_dialect mg_sql_dialect(const struct mg_sql *c);
/* The SQLite handle of an SQLite connection (NULL for PostgreSQL), for what
 * only SQLite has (FTS5 tables, PRAGMA data_version). */
sqlite3 *mg_sql_sqlite_db(struct mg_sql *c);

/* Prepare sql (one statement). 0 with *st, or -1 with err. */
int mg_sql_prepare(struct mg_sql *c, const char *sql, struct mg_sql_st **st, struct mg_err *err);
/* Bind parameter i (1-based). Text is copied (the caller's string may go);
 * NULL text binds NULL. Binding past the statement's parameters, or running
 * out of memory, makes the next step fail (db_error / out_of_memory). */
void mg_sql_bind_text(struct mg_sql_st *st, int i, const char *s);
void mg_sql_bind_textn(struct mg_sql_st *st, int i, const char *s, size_t n);
void mg_sql_bind_int(struct mg_sql_st *st, int i, int64_t v);
void mg_sql_bind_double(struct mg_sql_st *st, int i, double v);
void mg_sql_bind_null(struct mg_sql_st *st, int i);
void mg_sql_bind_blob(struct mg_sql_st *st, int i, const void *p, size_t n);
/* Run (first call) or go to the next row. 1: a row is ready; 0: done; -1:
 * error (err set). On PostgreSQL the first call sends the statement and
 * receives every row. */
int mg_sql_step(struct mg_sql_st *st, struct mg_err *err);
/* Columns of the current row (0-based). Text is "" for NULL and stays valid
 * until the next step, reset or finalize. */
const char *mg_sql_text(struct mg_sql_st *st, int col);
int64_t mg_sql_int(struct mg_sql_st *st, int col);
double mg_sql_double(struct mg_sql_st *st, int col);
bool mg_sql_is_null(struct mg_sql_st *st, int col);
/* A blob column's bytes (PostgreSQL bytea decoded); *n its length. Valid
 * like text. NULL with *n 0 for NULL. */
const void *mg_sql_blob(struct mg_sql_st *st, int col, size_t *n);
/* Rows changed by the statement just run (INSERT, UPDATE, DELETE). */
int64_t mg_sql_changes(struct mg_sql_st *st);
/* Back to before the first step, keeping the bindings. */
void mg_sql_reset(struct mg_sql_st *st);
/* SQLite: the statement's SQL with its bound values written in, malloc'd; NULL on PostgreSQL. */
char *mg_sql_expanded(struct mg_sql_st *st);
/* SQLite: the main database's data version (SQLITE_FCNTL_DATA_VERSION), which changes with every commit
 * to the file, this connection's or another's, as seen by the read transaction open now (step a statement
 * first); false on PostgreSQL. */
bool mg_sql_data_version(struct mg_sql *c, uint32_t *v);
void mg_sql_finalize(struct mg_sql_st **st);

/* Run sql, which may hold several statements and no parameters. */
int mg_sql_exec(struct mg_sql *c, const char *sql, struct mg_err *err);
/* Transactions. write: SQLite takes the write lock now (BEGIN IMMEDIATE);
 * PostgreSQL's BEGIN is the same either way. commit rolls back when it
 * fails. */
int mg_sql_begin(struct mg_sql *c, bool write, struct mg_err *err);
int mg_sql_commit(struct mg_sql *c, struct mg_err *err);
void mg_sql_rollback(struct mg_sql *c);

/* The connection was lost or refused (PostgreSQL): the pool drops it. */
bool mg_sql_broken(const struct mg_sql *c);

/* One statement, bound from a format: each character of fmt binds the next
 * argument — 's' text (const char *, NULL binds NULL), 'i' int64_t, 'd'
 * double. Runs it to the end; 0 or -1 with err. *changes (may be NULL)
 * gets the rows changed. For the many one-line writes. */
int mg_sql_runf(struct mg_sql *c, int64_t *changes, struct mg_err *err, const char *sql, const char *fmt, ...);

/* Rewrite SQLite placeholders (? and ?N) to PostgreSQL's ($N), leaving
 * string literals, quoted names and comments alone. Returns the new text
 * (malloc'd) and the highest parameter number in *nparams; NULL when out of
 * memory or a placeholder is malformed (?0, ?N past 999). Exposed for tests
 * and fuzzing. */
char *mg_sql_pg_placeholders(const char *sql, int *nparams);

/* ---- for store/pg.c: a PostgreSQL connection wrapped (pg.h makes them) ---- */
/* Wrap libpq's PGconn (owned by the wrapper from now on; mg_sql_close
 * finishes it); what names the database in errors. NULL out of memory. */
struct mg_sql *mg_sql_pg_wrap(void *pgconn, const char *what);
void *mg_sql_pg_conn(struct mg_sql *c);
/* The last error's SQLSTATE ("" for none, or on SQLite). */
const char *mg_sql_sqlstate(const struct mg_sql *c);
/* Fill err from a failed libpq result (or the connection when res is NULL)
 * while doing `what`, per the mapping above; marks the connection broken
 * when it is lost. Returns -1. */
int mg_sql_pg_fail(struct mg_sql *c, void *pgresult, const char *what, struct mg_err *err);

#endif
