/* session_pg.h — the rows of shared sessions in PostgreSQL (memgate_sessions,
 * row-level security by tenant), for request/session.c alone.
 *
 * Plain data in and out: this file knows nothing of struct mg_session. Every
 * statement takes the database's clock and the ttl (ms, 0: never) so every
 * daemon agrees on what has expired. Errors: storage_unavailable when
 * PostgreSQL cannot be reached, db_error otherwise.
 */
#ifndef MG_SESSION_PG_H
#define MG_SESSION_PG_H

#include <stdint.h>

#include "provider/scope.h"
#include "store/catalog.h"
#include "util/err.h"

struct mg_config;

/* What a row holds beyond its id. */
struct mg__session_row {
    char kind[16];               /* "api" or "handle" */
    char tenant[65];
    char instance[65];
    char repo[MG_ID_MAX + 1];    /* the bound repo, "" when unbound */
    struct mg_scope scope;       /* owned by the caller after a read */
};

/* Insert the row of a new session: 1 inserted, 0 the id is taken (anyone's),
 * -1 with err. */
int mg__session_pg_insert(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                          const char *kind, const char *instance, struct mg_err *err);

enum mg__row_state { MG__ROW_UNKNOWN, MG__ROW_FOUND, MG__ROW_EXPIRED };
/* Read tenant's row of id into *row and touch its last use (one statement);
 * idle past the ttl it is marked expired instead. 0 with *state, or -1 with
 * err (a malformed scope is db_error). */
int mg__session_pg_read(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                        struct mg__session_row *row, enum mg__row_state *state, struct mg_err *err);

/* Write the binding and the scope of tenant's row id, touching its last
 * use: 0; -1 with err, session_expired when it expired (or was purged). */
int mg__session_pg_save(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                        const char *repo, const struct mg_scope *scope, struct mg_err *err);

/* Delete every tenant's rows past their purge time: how many, or -1 with err. */
long mg__session_pg_purge(const struct mg_config *cfg, struct mg_err *err);

#endif
