/* storage.h — the shared database as the daemon's probes and `memgate
 * status` see it (storage = postgres://..., store/pg.h).
 *
 * Reachability is asked at most once a second: mg_storage_check answers
 * from the last ping when it is younger than MG_STORAGE_PING_MS, else
 * pings (a connection from the pool, SELECT 1; the schema brought up to
 * date first, so a database migrated by a newer memgate reads as
 * schema_too_new). While one caller pings, the others answer from the last
 * result rather than wait. A pool whose every connection is in use counts
 * as reachable without a ping (the connections are at work; a ping would
 * only queue behind them). A change of state is written on stderr once.
 *
 * So /readyz answers 503 within a second of PostgreSQL going away, and 200
 * within a second of its return, with no restart.
 */
#ifndef MG_STORAGE_H
#define MG_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"

#define MG_STORAGE_PING_MS 1000

struct mg_storage_probe;

/* What the probe knows now. */
struct mg_storage_state {
    bool up;                /* the last ping answered */
    char code[32];          /* when not: storage_unavailable, schema_too_new, invalid_config, ... */
    char message[400];      /* its sentence (the URL without its password) */
    int open, busy, max;    /* the pool's connections: open now, in use now, storage_pool_max */
};

/* A probe of cfg's PostgreSQL (cfg must outlive it), or NULL when storage
 * is not PostgreSQL (or out of memory: then there is nothing to probe). */
struct mg_storage_probe *mg_storage_probe_new(const struct mg_config *cfg);
void mg_storage_probe_free(struct mg_storage_probe *p);
/* The state, pinging first when the last ping is older than a second. */
void mg_storage_check(struct mg_storage_probe *p, struct mg_storage_state *out);

/* A schema step recorded in the database (memgate_migrations). */
struct mg_storage_step {
    char name[64];
    char version[32];       /* the memgate that applied it */
    int64_t applied_at;     /* Unix s */
    bool known;             /* a step of this memgate (else: a newer memgate's) */
};
/* The steps applied to cfg's database, in order (malloc'd array in *out);
 * the schema is brought up to date first when it can be. 0, or -1 with err
 * (storage_unavailable, ...). */
int mg_storage_steps(const struct mg_config *cfg, struct mg_storage_step **out, size_t *n, struct mg_err *err);
/* storage's URL with its password masked (any storage: "sqlite" as is). */
void mg_storage_url_safe(const struct mg_config *cfg, char *out, size_t cap);

#endif
