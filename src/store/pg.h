/* pg.h — the shared PostgreSQL database (`storage = postgres://...`, or
 * MEMGATE_DATABASE_URL): the connection pool, the schema, LISTEN/NOTIFY.
 *
 * One pool per process and URL, made on first use (mg_pg_pool): at most
 * storage_pool_max connections (default 8), each opened when first needed
 * (connect_timeout = storage_timeout), with application_name "memgate" and
 * statement_timeout = storage_statement_timeout. A caller takes one with
 * mg_pg_acquire, which waits at most storage_timeout seconds for a free
 * connection (storage_unavailable after that), and gives it back with
 * mg_pg_put (an open transaction is rolled back; a connection found
 * broken is closed, and the next acquire opens a new one). So when
 * PostgreSQL goes down, calls fail with storage_unavailable, and when it is
 * back they succeed again: nothing needs a restart. After a failed connect
 * the pool answers storage_unavailable at once for MG_PG_BACKOFF_MS rather
 * than have every request wait for its own timeout.
 *
 * Row-level security. Tenant-owned tables carry a policy keyed on the
 * setting memgate.tenant (pgschema.c). mg_pg_acquire sets it to the
 * caller's tenant on the connection (set_config(..., false): for the
 * connection's life, re-set on every acquire for another tenant); "" for
 * callers that act for no tenant (the catalog, the audit chain): such a
 * connection sees no tenant's rows. The role memgate connects as must not be
 * a superuser nor have BYPASSRLS (superusers skip the policies): pool
 * creation refuses one.
 *
 * The schema: pgschema.c's steps, each applied once, in order, by the first
 * process that needs it, under an advisory lock (so daemons starting
 * together migrate once); memgate_migrations records each step's name. A
 * database holding a step this memgate does not know was migrated by a
 * newer one: schema_too_new, naming it.
 *
 * LISTEN/NOTIFY: mg_pg_listen runs a thread on a connection of its own that
 * LISTENs to the given channels and calls back for each notification, and
 * once after every (re)connect with channel NULL: notifications sent while
 * it was disconnected are lost, so the callback re-reads what it follows.
 * It reconnects by itself (backoff 0.2 s to 2 s).
 *
 * Secrets: the URL's password is never printed (mg_pg_url_safe).
 */
#ifndef MG_PG_H
#define MG_PG_H

#include <stdbool.h>
#include <stddef.h>

#include "store/sql.h"
#include "util/config.h"
#include "util/err.h"

#define MG_PG_BACKOFF_MS 250

struct mg_pg;
struct mg_pg_listener;

/* Is storage a PostgreSQL URL (postgres:// or postgresql://)? */
bool mg_pg_configured(const struct mg_config *c);
/* The process's pool for c's URL, made and the schema brought up to date
 * on first use. The pool lives until mg_pg_close_all. */
int mg_pg_pool(const struct mg_config *c, struct mg_pg **out, struct mg_err *err);
/* A connection acting for tenant (NULL or "": for none). */
int mg_pg_acquire(struct mg_pg *p, const char *tenant, struct mg_sql **out, struct mg_err *err);
/* Give c back to p (as mg_db_put does a handle); *c becomes NULL. */
void mg_pg_put(struct mg_pg *p, struct mg_sql **c);
/* Both in one: the pool of c, then a connection. */
int mg_pg_get(const struct mg_config *c, const char *tenant, struct mg_pg **pool, struct mg_sql **out,
              struct mg_err *err);
/* Can a connection be had and answer SELECT 1 now? 0 or -1 with err. */
int mg_pg_ping(struct mg_pg *p, struct mg_err *err);
/* Connections open now, and in use now (metrics, status). */
void mg_pg_counts(struct mg_pg *p, int *open, int *busy);

/* Follow channels (names of [a-z_], at most 8). fn runs on the listener's
 * thread: (ud, channel, payload) per notification, (ud, NULL, NULL) after
 * each (re)connect. */
int mg_pg_listen(struct mg_pg *p, const char *const *channels, size_t n,
                 void (*fn)(void *ud, const char *channel, const char *payload), void *ud,
                 struct mg_pg_listener **out, struct mg_err *err);
void mg_pg_listen_stop(struct mg_pg_listener **l);
/* Send a notification on c (inside the caller's transaction, if any: it is
 * delivered at commit). payload: at most 7999 bytes. */
int mg_pg_notify(struct mg_sql *c, const char *channel, const char *payload, struct mg_err *err);

/* Close every pool of the process (at exit; no connection may be in use). */
void mg_pg_close_all(void);

/* url with the password (user:PASS@, password=PASS) replaced by "***". */
void mg_pg_url_safe(const char *url, char *out, size_t cap);

/* ---- the schema (pgschema.c) ---- */
struct mg_pg_step {
    const char *name; /* "0001_base": unique, never renamed */
    const char *sql;  /* one or more statements */
};
extern const struct mg_pg_step mg_pg_steps[];
extern const size_t mg_pg_nsteps;

#endif
