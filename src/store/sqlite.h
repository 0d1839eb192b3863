/* sqlite.h — the one way memgate opens a SQLite database of its own (a
 * repo's index, a tenant's memory, the token store).
 *
 * mg_sqlite_open
 *   - creates the file 0600 when spec->create is set (before SQLite does, so
 *     the -wal and -shm files get the same mode); without it a missing file
 *     is spec->missing (default path_not_found);
 *   - opens it without SQLite's own mutex (a handle is used by one thread at
 *     a time: callers serialise or keep one per thread), read-only when
 *     spec->readonly;
 *   - turns on extended result codes and a busy timeout, runs spec->pragmas,
 *     and calls spec->setup (tokenizers, SQL functions);
 *   - unless read-only, brings the schema to spec->version: migrations[v]
 *     takes PRAGMA user_version from v to v + 1, all in one IMMEDIATE
 *     transaction, the version re-read under the write lock so two processes
 *     starting together migrate once. A database of a newer version is
 *     refused with schema_too_new.
 *
 * Errors name the file and what it is (spec->what), and map SQLite's codes to
 * memgate's: busy or locked -> index_busy, disk full -> io_error, the rest ->
 * db_error (mg_sqlite_fail).
 */
#ifndef MG_SQLITE_H
#define MG_SQLITE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "util/err.h"

struct mg_sqlite_spec {
    const char *what;                /* "index", "memory database", "token store": named in errors */
    bool create;                     /* create the file (0600) when missing */
    bool readonly;                   /* open read-only; no migration */
    const char *missing;             /* error code when the file is missing and !create (NULL: path_not_found) */
    int busy_ms;                     /* busy timeout (0: 10000) */
    const char *pragmas;             /* SQL run after opening, or NULL */
    int (*setup)(sqlite3 *db);       /* tokenizers, functions; nonzero fails the open (NULL: none) */
    const char *const *migrations;   /* migrations[v]: schema version v -> v + 1 */
    int version;                     /* the newest version (the number of migrations) */
};

/* Open path as spec says. 0 with *out (close with sqlite3_close_v2), or -1
 * with err set and *out NULL. */
int mg_sqlite_open(const char *path, const struct mg_sqlite_spec *spec, sqlite3 **out, struct mg_err *err);

/* Fill err from db's last error while doing `what` on path (the mapping
 * above); returns -1. db may be NULL. */
int mg_sqlite_fail(sqlite3 *db, const char *path, const char *what, struct mg_err *err);

#endif
