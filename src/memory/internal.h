/* internal.h — what the memory providers share (the files of memory/ only): the
 * per-tenant database, the place of a request (its repo, conversation and
 * project), SQL and FTS helpers.
 */
#ifndef MG_MEMORY_INTERNAL_H
#define MG_MEMORY_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "memory/memory.h"
#include "util/buf.h"

/* One tenant's database, opened once per process (memory.c). */
struct mem {
    char home[PATH_MAX];
    char tenant[65];
    char path[PATH_MAX + 80];
    sqlite3 *db;
    pthread_mutex_t mu; /* one statement sequence at a time */
};

/* The tenant's database (opened on first use, then cached until
 * mg_memory_close_all). NULL with err set. */
struct mem *mg_mem_get(const struct mg_config *cfg, const char *tenant, struct mg_err *err);

/* Where a call works, resolved under m->mu (place_begin .. place_end). */
struct place {
    struct mem *m;
    const struct mg_repo *repo;     /* the request's one repo (pcall's) */
    const char *tenant;
    char ext[MG_SESSION_ID_MAX + 1]; /* the conversation's durable id */
    int64_t sid;                    /* its row (0 unless asked for) */
    int64_t project;                /* its project, 0 = none */
    char project_name[MG_ID_MAX + 1];
};

/* Begin a call: the request's one repo (pcall), and with session the
 * conversation's row (made on first use) and its current project. Holds
 * m->mu until place_end. 0, or -1 with err (nothing held). */
int mg_place_begin(const struct mg_pcall *pc, const char *session, struct place *p, struct mg_err *err);
void mg_place_end(struct place *p);
/* Describe the place in out->place (repo, session, project), owned like a
 * memory row. -1 out of memory. */
int mg_place_report(const struct place *p, struct mg_items *out, struct mg_err *err);
/* An item's owner from a row's tenant, repo, fingerprint and project. */
void mg_row_owner(struct mg_item *it, const char *tenant, const char *repo, const char *fp, int64_t project);

/* SQL */
int mg_mem_fail(struct mem *m, const char *what, struct mg_err *err);
int mg_mem_prep(struct mem *m, const char *sql, sqlite3_stmt **st, struct mg_err *err);
int mg_mem_begin(struct mem *m, struct mg_err *err);
int mg_mem_commit(struct mem *m, struct mg_err *err); /* rolls back on failure */
void mg_mem_rollback(struct mem *m);
const char *mg_col(sqlite3_stmt *st, int i);            /* a column's text, "" for NULL */
int64_t mg_now_s(void);

/* FTS: the token stream of up to three texts; an FTS5 MATCH of a query's
 * words (any may match; NULL when it has none); a row's stream stored. */
char *mg_fts_stream(const char *a, const char *b, const char *c);
char *mg_fts_match(const char *q);
int mg_fts_put(struct mem *m, const char *table, int64_t id, const char *stream, struct mg_err *err);

/* The project of the place's repo named `name`: its id, or 0 with
 * project_not_found (a row of another tenant or repo is not looked at). */
int64_t mg_project_id(struct place *p, const char *name, struct mg_err *err);

/* Delete the rows of pcall's repo with sql (NULL-terminated statements
 * taking ?1 = repo id), in one transaction; out->total counts them. */
int mg_mem_forget(const struct mg_pcall *pc, const char *const *sql, struct mg_items *out, struct mg_err *err);

/* The providers' close: the tenant databases of the process go. */
void mg_mem_close(void *self);

/* The providers (notes.c, sessions.c, entities.c, profiles.c). */
extern const struct mg_notes_ops mg_notes_builtin_ops;
extern const struct mg_sessions_ops mg_sessions_builtin_ops;
extern const struct mg_entities_ops mg_entities_builtin_ops;
extern const struct mg_profiles_ops mg_profiles_builtin_ops;

#endif
