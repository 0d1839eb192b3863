/* catalog.h — the repos of a data directory.
 *
 * <data dir>/repos/<id>.db is one repo's index; its meta table names the
 * repo (id, canonical root, fingerprint). There is no separate registry to
 * drift out of step: listing reads the databases themselves.
 *
 * Ids are short, stable and readable: the root's base name (lower-cased,
 * [a-z0-9._-], at most 24 chars) and 6 hex digits of a hash of the canonical
 * root path, e.g. "linux-3fa2c1"; `--name` may choose one instead. The
 * fingerprint is a 128-bit hash of the canonical root, used to tag memory.
 */
#ifndef MG_CATALOG_H
#define MG_CATALOG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"

#define MG_ID_MAX 64

struct mg_repo {
    char id[MG_ID_MAX + 1];
    char root[PATH_MAX];
    char fingerprint[33];
    char tenant[65];                       /* the owning tenant ("local" for repos indexed before tenants) */
    char dbpath[PATH_MAX];
    int64_t files, chunks, symbols, bytes; /* as of the last index run */
    int64_t created_at, indexed_at;        /* unix seconds; 0 = never finished */
    int64_t db_bytes;                      /* size of the database files on disk */
    int64_t reindex_interval;              /* its setting (store/settings.h): seconds, 0 = none */
};

/* <home>/repos, created 0700 (and <home>) when create is set. */
int mg_catalog_dir(const struct mg_config *c, int create, char *out, size_t cap, struct mg_err *err);
void mg_repo_dbpath(const struct mg_config *c, const char *id, char *out, size_t cap);

/* All repos, sorted by id (*out malloc'd). Unreadable databases are skipped
 * with a warning on stderr. */
int mg_catalog_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err);
/* One repo by id; repo_not_found (listing the known ids) if absent. */
int mg_catalog_get(const struct mg_config *c, const char *id, struct mg_repo *out, struct mg_err *err);
/* The repo whose root is `root` (canonical): 1 found, 0 not, -1 error. */
int mg_catalog_find_root(const struct mg_config *c, const char *root, struct mg_repo *out, struct mg_err *err);
/* Delete a repo's database files. */
int mg_catalog_remove(const struct mg_config *c, const char *id, struct mg_err *err);

/* Choose the repos a command works on: the explicit ids if any (each must
 * exist), else the repo whose root contains cwd (the innermost), else the
 * only repo, else repo_required listing the ids. *out is malloc'd. */
int mg_catalog_resolve(const struct mg_config *c, const char *const *ids, size_t nids, const char *cwd,
                       struct mg_repo **out, size_t *n, struct mg_err *err);

/* The index of the repo with the innermost root containing path (a
 * canonical path; the root itself counts), or -1. */
int mg_catalog_containing(const struct mg_repo *v, size_t n, const char *path);
/* "a, b, c" (", ..." when cap runs out; "none" for n == 0) into buf. */
void mg_repo_id_list(const struct mg_repo *v, size_t n, char *buf, size_t cap);

void mg_repo_derive_id(const char *root, char *out, size_t cap);
int mg_repo_check_name(const char *name, struct mg_err *err);
void mg_repo_fingerprint(const char *root, char out[33]);

#endif
