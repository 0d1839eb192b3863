/* session_pg.c — shared sessions' rows in PostgreSQL (session_pg.h). */
#include "request/session_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store/pg.h"

/* The database's clock in ms and the ttl, as the derived table p(now, ttl) of
 * the statements below: one clock for every daemon. */
#define P_NOW_TTL "(SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now, CAST(?2 AS bigint) AS ttl) AS p"

static const char *const scope_keys[] = {"globs", "exclude_globs", "languages", "repos"};

/* The scope as the JSON text of the scope column (malloc'd), or NULL out of memory. */
static char *scope_text(const struct mg_scope *sc)
{
    char *const *lists[4] = {sc->globs, sc->excludes, sc->langs, sc->repos};
    const size_t ns[4] = {sc->nglobs, sc->nexcludes, sc->nlangs, sc->nrepos};
    json_t *o = json_object();
    for (int i = 0; o && i < 4; i++) {
        if (!ns[i]) continue;
        json_t *a = json_array();
        for (size_t k = 0; a && k < ns[i]; k++) json_array_append_new(a, json_string(lists[i][k]));
        if (!a || json_object_set_new(o, scope_keys[i], a) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return t;
}

/* The scope column's text into sc (empty before); -1 when it is not what scope_text writes. */
static int scope_parse(const char *text, struct mg_scope *sc)
{
    json_t *o = json_loads(text, 0, NULL);
    int rc = json_is_object(o) ? 0 : -1;
    char ***const lists[4] = {&sc->globs, &sc->excludes, &sc->langs, &sc->repos};
    size_t *const ns[4] = {&sc->nglobs, &sc->nexcludes, &sc->nlangs, &sc->nrepos};
    for (int i = 0; rc == 0 && i < 4; i++) {
        json_t *a = json_object_get(o, scope_keys[i]), *e;
        size_t k;
        json_array_foreach(a, k, e)
        {
            if (!json_is_string(e) || mg_scope_push(lists[i], ns[i], json_string_value(e)) != 0) rc = -1;
        }
    }
    json_decref(o);
    if (rc != 0) mg_scope_release(sc);
    return rc;
}

int mg__session_pg_insert(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                          const char *kind, const char *instance, struct mg_err *err)
{
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(cfg, tenant, &pool, &c, err) != 0) return -1;
    int64_t n = 0;
    int rc = mg_sql_runf(c, &n, err,
                         "INSERT INTO memgate_sessions(id, tenant, kind, instance, created_at, last_use_ms, "
                         "purge_after_ms) SELECT ?1, ?3, ?4, ?5, p.now / 1000, p.now, "
                         "CASE WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END FROM " P_NOW_TTL " "
                         "ON CONFLICT (tenant, id) DO NOTHING",
                         "sisss", id, ttl_ms, tenant, kind, instance);
    mg_pg_put(pool, &c);
    return rc != 0 ? -1 : n == 1;
}

int mg__session_pg_read(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                        struct mg__session_row *row, enum mg__row_state *state, struct mg_err *err)
{
    *state = MG__ROW_UNKNOWN;
    memset(row, 0, sizeof(*row));
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_sql_st *st = NULL;
    if (mg_pg_get(cfg, tenant, &pool, &c, err) != 0) return -1;
    /* read it and touch it in one statement; idle past the ttl it turns into a tombstone, untouched */
    const char *sql = "UPDATE memgate_sessions AS s SET "
                      "expired = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN 1 ELSE 0 END, "
                      "last_use_ms = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN s.last_use_ms ELSE p.now END, "
                      "purge_after_ms = CASE WHEN s.expired = 1 OR (p.ttl > 0 AND p.now - s.last_use_ms > p.ttl) "
                      "THEN s.purge_after_ms WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END "
                      "FROM " P_NOW_TTL " WHERE s.id = ?1 AND s.tenant = ?3 "
                      "RETURNING s.kind, s.tenant, s.instance, s.repo, s.scope, s.expired";
    int rc = mg_sql_prepare(c, sql, &st, err);
    if (rc == 0) {
        mg_sql_bind_text(st, 1, id);
        mg_sql_bind_int(st, 2, ttl_ms);
        mg_sql_bind_text(st, 3, tenant);
        rc = mg_sql_step(st, err);
    }
    if (rc == 1 && mg_sql_int(st, 5)) {
        *state = MG__ROW_EXPIRED;
    } else if (rc == 1 && strcmp(mg_sql_text(st, 1), tenant) == 0) {
        if (scope_parse(mg_sql_text(st, 4), &row->scope) != 0) {
            rc = mg_err_set(err, MG_E_DB, "the PostgreSQL database: session '%.40s' has a malformed scope", id);
        } else {
            snprintf(row->kind, sizeof(row->kind), "%s", mg_sql_text(st, 0));
            snprintf(row->tenant, sizeof(row->tenant), "%s", mg_sql_text(st, 1));
            snprintf(row->instance, sizeof(row->instance), "%s", mg_sql_text(st, 2));
            snprintf(row->repo, sizeof(row->repo), "%s", mg_sql_text(st, 3));
            *state = MG__ROW_FOUND;
        }
    }
    mg_sql_finalize(&st);
    mg_pg_put(pool, &c);
    return rc < 0 ? -1 : 0;
}

int mg__session_pg_save(const struct mg_config *cfg, int64_t ttl_ms, const char *id, const char *tenant,
                        const char *repo, const struct mg_scope *scope, struct mg_err *err)
{
    char *text = scope_text(scope);
    if (!text) return mg_err_oom(err);
    struct mg_pg *pool;
    struct mg_sql *c;
    int64_t n = 0;
    int rc = mg_pg_get(cfg, tenant, &pool, &c, err);
    if (rc == 0) {
        rc = mg_sql_runf(c, &n, err,
                         "UPDATE memgate_sessions AS s SET repo = ?4, scope = ?5, last_use_ms = p.now, "
                         "purge_after_ms = CASE WHEN p.ttl > 0 THEN p.now + 2 * p.ttl END FROM " P_NOW_TTL " "
                         "WHERE s.id = ?1 AND s.tenant = ?3 AND s.expired = 0",
                         "sisss", id, ttl_ms, tenant, repo, text);
        mg_pg_put(pool, &c);
    }
    free(text);
    if (rc == 0 && n != 1)
        rc = mg_err_set(err, MG_E_SESSION_EXPIRED, "session '%.40s' expired (or was removed) while this call ran; "
                        "nothing was stored: start a new session", id);
    return rc;
}

long mg__session_pg_purge(const struct mg_config *cfg, struct mg_err *err)
{
    struct mg_pg *pool;
    struct mg_sql *c;
    if (mg_pg_get(cfg, NULL, &pool, &c, err) != 0) return -1;
    /* acting for no tenant, a DELETE that names no row reaches exactly the rows past their purge time
     * (pgschema.c, 0007_sessions); the condition keeps it from a connection that acts for a tenant */
    int64_t n = 0;
    int rc = mg_sql_runf(c, &n, err, "DELETE FROM memgate_sessions WHERE current_setting('memgate.tenant', true) = ''",
                         "");
    mg_pg_put(pool, &c);
    return rc != 0 ? -1 : (long)n;
}
