/* catalogpg.c — the shared catalog (catalog.h "The shared catalog"): the
 * table memgate_repos, the process's copy of it in memory, and each of its
 * repos joined with this daemon's local index.
 *
 * The copy in memory: a following process (mg_catalog_follow(c, true):
 * `memgate serve`, http/follow.c) answers every listing from it; it is read
 * whole after each (re)connect of the follower's LISTEN connection and one
 * row at a time after each notification, and a write by this process puts
 * its row in at once. Other processes read the table at each listing.
 *
 * Sections:
 *   1. the entry, the process's copy
 *   2. reading the table
 *   3. the copy in memory
 *   4. each repo with this daemon's index of it
 *   5. writing — registering an index, catching up, removing, settings
 *   6. waiting for a catch-up
 */
#include "store/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/db.h"
#include "store/pg.h"
#include "util/buf.h"
#include "util/clock.h"

/* ---- 1. the entry, the process's copy ------------------------------------ */

#define COLUMNS                                                                                                  \
    "id, tenant, root, fingerprint, generation, created_at, indexed_at, setting_watch, setting_reindex_interval, " \
    "setting_pull_on_push"
#define WAIT_POLL_MS 250 /* a waiter looks again this often (a local index written by another process) */

/* One row of memgate_repos. */
struct entry {
    char id[MG_ID_MAX + 1];
    char tenant[65];
    char root[PATH_MAX];
    char fp[33];
    int64_t generation, created_at, indexed_at;
    struct mg_repo_settings settings;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* the copy changed, or a local index caught up */
    char url[1024];    /* the storage the copy is of */
    bool live;         /* kept current by a follower: listings read it */
    struct entry *v;   /* sorted by id (strcmp) */
    size_t n;
} M = {.mu = PTHREAD_MUTEX_INITIALIZER};
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;

static void cv_init(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&M.cv, &ca);
    pthread_condattr_destroy(&ca);
}

bool mg_catalog_shared(const struct mg_config *c) { return mg_pg_configured(c); }

static int64_t now_ms(void) { return (int64_t)mg_clock_ms(); }

/* ---- 2. reading the table ------------------------------------------------ */

static void take_setting(struct mg_repo_settings *s, const char *name, struct mg_sql_st *st, int col)
{
    if (mg_sql_is_null(st, col)) return;
    char key[64];
    snprintf(key, sizeof(key), MG_SETTING_PREFIX "%s", name);
    mg_settings_take(s, key, mg_sql_text(st, col));
}

static void row_entry(struct mg_sql_st *st, struct entry *e)
{
    memset(e, 0, sizeof(*e));
    snprintf(e->id, sizeof(e->id), "%s", mg_sql_text(st, 0));
    snprintf(e->tenant, sizeof(e->tenant), "%s", mg_sql_text(st, 1));
    snprintf(e->root, sizeof(e->root), "%s", mg_sql_text(st, 2));
    snprintf(e->fp, sizeof(e->fp), "%s", mg_sql_text(st, 3));
    e->generation = mg_sql_int(st, 4);
    e->created_at = mg_sql_int(st, 5);
    e->indexed_at = mg_sql_int(st, 6);
    mg_settings_defaults(&e->settings);
    take_setting(&e->settings, "watch", st, 7);
    take_setting(&e->settings, "reindex_interval", st, 8);
    take_setting(&e->settings, "pull_on_push", st, 9);
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->id, ((const struct entry *)b)->id);
}

/* The rows (id NULL: all; else that one, or none), sorted by id. */
static int load_rows(const struct mg_config *c, const char *id, struct entry **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    struct mg_pg *pool;
    struct mg_sql *conn;
    if (mg_pg_get(c, NULL, &pool, &conn, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = mg_sql_prepare(conn, id ? "SELECT " COLUMNS " FROM memgate_repos WHERE id = ?"
                                     : "SELECT " COLUMNS " FROM memgate_repos", &st, err);
    if (rc == 0) {
        if (id) mg_sql_bind_text(st, 1, id);
        size_t cap = 0;
        int r;
        while ((r = mg_sql_step(st, err)) == 1) {
            struct entry *v = mg_grow(*out, *n, &cap, sizeof(*v));
            if (!v) {
                r = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the repo catalog");
                break;
            }
            *out = v;
            row_entry(st, &(*out)[(*n)++]);
        }
        mg_sql_finalize(&st);
        rc = r < 0 ? -1 : 0;
    }
    mg_pg_put(pool, &conn);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
        return -1;
    }
    if (*n > 1) qsort(*out, *n, sizeof(**out), cmp_entry);
    return 0;
}

/* ---- 3. the copy in memory ----------------------------------------------- */

void mg_catalog_follow(const struct mg_config *c, bool live)
{
    pthread_once(&cv_once, cv_init);
    pthread_mutex_lock(&M.mu);
    if (!live || strcmp(M.url, c->storage) != 0) {
        free(M.v);
        M.v = NULL;
        M.n = 0;
    }
    snprintf(M.url, sizeof(M.url), "%s", c->storage);
    M.live = live;
    pthread_mutex_unlock(&M.mu);
}

/* Is the copy the one listings of c read? (M.mu held) */
static bool copy_serves(const struct mg_config *c) { return M.live && strcmp(M.url, c->storage) == 0; }

int mg_catalog_reload(const struct mg_config *c, struct mg_err *err)
{
    struct entry *v;
    size_t n;
    if (load_rows(c, NULL, &v, &n, err) != 0) return -1;
    pthread_once(&cv_once, cv_init);
    pthread_mutex_lock(&M.mu);
    if (strcmp(M.url, c->storage) == 0) {
        free(M.v);
        M.v = v;
        M.n = n;
        v = NULL;
        pthread_cond_broadcast(&M.cv);
    }
    pthread_mutex_unlock(&M.mu);
    free(v);
    return 0;
}

/* Put row e (NULL: none) in the copy as repo id's. (M.mu held) */
static void put_row(const char *id, const struct entry *e)
{
    size_t i = 0;
    while (i < M.n && strcmp(M.v[i].id, id) < 0) i++;
    bool here = i < M.n && strcmp(M.v[i].id, id) == 0;
    if (!e) {
        if (here) memmove(&M.v[i], &M.v[i + 1], (M.n - i - 1) * sizeof(*M.v)), M.n--;
    } else if (here) {
        M.v[i] = *e;
    } else {
        struct entry *v = realloc(M.v, (M.n + 1) * sizeof(*v));
        if (!v) return; /* out of memory: the next reload brings it */
        M.v = v;
        memmove(&M.v[i + 1], &M.v[i], (M.n - i) * sizeof(*M.v));
        M.v[i] = *e;
        M.n++;
    }
    pthread_cond_broadcast(&M.cv);
}

int mg_catalog_refresh(const struct mg_config *c, const char *id, struct mg_err *err)
{
    struct entry *v;
    size_t n;
    if (load_rows(c, id, &v, &n, err) != 0) return -1;
    pthread_once(&cv_once, cv_init);
    pthread_mutex_lock(&M.mu);
    if (strcmp(M.url, c->storage) == 0) put_row(id, n ? &v[0] : NULL);
    pthread_mutex_unlock(&M.mu);
    free(v);
    return 0;
}

/* The catalog's rows: the copy's when it serves, else the table's. */
static int rows(const struct mg_config *c, const char *id, struct entry **out, size_t *n, struct mg_err *err)
{
    pthread_once(&cv_once, cv_init);
    pthread_mutex_lock(&M.mu);
    if (copy_serves(c)) {
        size_t from = 0, count = M.n;
        if (id) { /* (sorted: one row or none) */
            while (from < M.n && strcmp(M.v[from].id, id) < 0) from++;
            count = from < M.n && strcmp(M.v[from].id, id) == 0;
        }
        *out = count ? malloc(count * sizeof(**out)) : NULL;
        *n = *out ? count : 0;
        if (*n) memcpy(*out, &M.v[from], count * sizeof(**out));
        pthread_mutex_unlock(&M.mu);
        return count && !*out ? mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing repos") : 0;
    }
    pthread_mutex_unlock(&M.mu);
    return load_rows(c, id, out, n, err);
}

/* ---- 4. each repo with this daemon's index of it ------------------------- */

static void join_local(const struct mg_config *c, const struct entry *e, struct mg_repo *r)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->id, sizeof(r->id), "%s", e->id);
    snprintf(r->root, sizeof(r->root), "%s", e->root);
    snprintf(r->fingerprint, sizeof(r->fingerprint), "%s", e->fp);
    snprintf(r->tenant, sizeof(r->tenant), "%s", e->tenant);
    mg_repo_dbpath(c, e->id, r->dbpath, sizeof(r->dbpath));
    r->created_at = e->created_at;
    r->indexed_at = e->indexed_at;
    r->settings = e->settings;
    r->reindex_interval = e->settings.reindex_interval;
    r->catalog_generation = e->generation;
    struct mg_repo loc;
    struct stat sb;
    if (access(r->dbpath, F_OK) == 0) {
        if (mg_catalog_read_local(r->dbpath, &loc, NULL) != 0 || strcmp(loc.root, e->root) != 0 ||
            strcmp(loc.fingerprint, e->fp) != 0 || strcmp(loc.tenant, e->tenant) != 0) {
            r->copy = MG_COPY_CONFLICT; /* another tenant's or root's index under this id: never served */
            return;
        }
        r->files = loc.files;
        r->chunks = loc.chunks;
        r->symbols = loc.symbols;
        r->bytes = loc.bytes;
        r->db_bytes = loc.db_bytes;
        r->generation = loc.generation;
        r->copy = loc.generation >= e->generation ? MG_COPY_CURRENT : MG_COPY_BEHIND;
    } else {
        r->copy = stat(e->root, &sb) == 0 && S_ISDIR(sb.st_mode) ? MG_COPY_PENDING : MG_COPY_ABSENT;
    }
}

int mg__catalog_shared_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    struct entry *v;
    size_t nv;
    if (rows(c, NULL, &v, &nv, err) != 0) return -1;
    if (nv && !(*out = calloc(nv, sizeof(**out)))) {
        free(v);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing repos");
    }
    for (size_t i = 0; i < nv; i++) join_local(c, &v[i], &(*out)[i]);
    *n = nv;
    free(v);
    return 0;
}

int mg__catalog_shared_get(const struct mg_config *c, const char *id, struct mg_repo *out, struct mg_err *err)
{
    struct entry *v = NULL;
    size_t n = 0;
    if (mg_repo_check_id(id, NULL) == 0 && rows(c, id, &v, &n, err) != 0) return -1;
    if (n == 1) join_local(c, &v[0], out);
    free(v);
    return n == 1;
}

/* ---- 5. writing ---------------------------------------------------------- */

bool mg_catalog_delivery_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n >= 1 && n <= 128 &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

/* The notification of a change to repo id (ids and reasons need no JSON escaping; a delivery id that might is
 * left out). */
static int notify(struct mg_sql *conn, const char *id, int64_t generation, const char *reason, const char *delivery,
                  struct mg_err *err)
{
    char payload[512];
    bool with = mg_catalog_delivery_ok(delivery);
    snprintf(payload, sizeof(payload), "{\"repo\":\"%s\",\"generation\":%lld,\"reason\":\"%s\"%s%s%s}", id,
             (long long)generation, reason, with ? ",\"delivery\":\"" : "", with ? delivery : "", with ? "\"" : "");
    return mg_pg_notify(conn, MG_CATALOG_CHANNEL, payload, err);
}

/* Set meta catalog.generation of the local index of id; *old (may be NULL) gets what it was. */
static int set_local_generation(const struct mg_config *c, const char *id, int64_t generation, int64_t *old,
                                struct mg_err *err)
{
    char dbpath[PATH_MAX];
    mg_repo_dbpath(c, id, dbpath, sizeof(dbpath));
    struct mg_db *d;
    if (mg_db_open(dbpath, 0, &d, err) != 0) return -1;
    if (old) *old = mg_db_meta_int(d, "catalog.generation", 0);
    int rc = mg_db_meta_set_int(d, "catalog.generation", generation, err);
    mg_db_close(&d);
    return rc;
}

/* The local index's settings as the catalog's columns store them (NULL: default). */
struct setting_text {
    char watch[8], interval[24], pull[4];
};
static void settings_text(const struct mg_repo_settings *s, struct setting_text *t)
{
    snprintf(t->watch, sizeof(t->watch), "%s", strcmp(s->watch, "default") == 0 ? "" : s->watch);
    if (s->reindex_interval) snprintf(t->interval, sizeof(t->interval), "%lld", (long long)s->reindex_interval);
    else t->interval[0] = 0;
    snprintf(t->pull, sizeof(t->pull), "%s", s->pull_on_push ? "on" : "");
}
static const char *or_null(const char *s) { return s[0] ? s : NULL; }

/* Why the row of id does not take this run: the catalog's tenant or root differ. */
static int not_ours(struct mg_sql *conn, const char *id, const char *tenant, struct mg_err *err)
{
    struct mg_sql_st *st;
    if (mg_sql_prepare(conn, "SELECT tenant, root FROM memgate_repos WHERE id = ?", &st, err) != 0) return -1;
    mg_sql_bind_text(st, 1, id);
    int r = mg_sql_step(st, err);
    if (r == 1 && strcmp(mg_sql_text(st, 0), tenant) != 0)
        mg_err_set(err, MG_E_REPO_EXISTS, "repo id '%s' belongs to another tenant in the shared catalog; choose "
                   "another with --name", id);
    else if (r == 1)
        mg_err_set(err, MG_E_REPO_EXISTS, "repo id '%s' is taken by '%s' in the shared catalog; choose another "
                   "with --name, or run `memgate repos rm %s` first", id, mg_sql_text(st, 1), id);
    else if (r == 0)
        mg_err_set(err, MG_E_STORAGE_RETRY, "repo '%s' changed in the shared catalog while it was indexed; index "
                   "it again", id);
    mg_sql_finalize(&st);
    return -1;
}

int mg_catalog_indexed(const struct mg_config *c, const char *id, const char *tenant, const char *root,
                       const char *reason, const char *delivery, int64_t *generation, struct mg_err *err)
{
    *generation = 0;
    char fp[33], dbpath[PATH_MAX];
    mg_repo_fingerprint(root, fp);
    mg_repo_dbpath(c, id, dbpath, sizeof(dbpath));
    /* a new repo brings its settings (one indexed before storage pointed at PostgreSQL may have some) */
    struct mg_repo local;
    struct setting_text t;
    bool have_local = mg_catalog_read_local(dbpath, &local, NULL) == 0;
    if (!have_local) mg_settings_defaults(&local.settings);
    settings_text(&local.settings, &t);
    struct mg_pg *pool;
    struct mg_sql *conn;
    if (mg_pg_get(c, NULL, &pool, &conn, err) != 0) return -1;
    /* created and indexed when the index says, not at a second reading of the clock here: the catalog's
     * indexed_at and the index's own index.full_at name the same second */
    int64_t now = (int64_t)time(NULL), old = 0;
    int64_t created_at = have_local && local.created_at > 0 ? local.created_at : now;
    int64_t indexed_at = have_local && local.indexed_at > 0 ? local.indexed_at : now;
    bool local_set = false;
    int rc = -1;
    struct mg_sql_st *st = NULL;
    if (mg_sql_begin(conn, true, err) != 0) goto out;
    if (mg_sql_prepare(conn, "INSERT INTO memgate_repos(id, tenant, root, fingerprint, generation, created_at, "
                             "indexed_at, setting_watch, setting_reindex_interval, setting_pull_on_push) "
                             "VALUES(?, ?, ?, ?, 1, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                             "generation = memgate_repos.generation + 1, indexed_at = excluded.indexed_at "
                             "WHERE memgate_repos.tenant = excluded.tenant AND memgate_repos.root = excluded.root "
                             "RETURNING generation", &st, err) != 0)
        goto out;
    mg_sql_bind_text(st, 1, id);
    mg_sql_bind_text(st, 2, tenant);
    mg_sql_bind_text(st, 3, root);
    mg_sql_bind_text(st, 4, fp);
    mg_sql_bind_int(st, 5, created_at);
    mg_sql_bind_int(st, 6, indexed_at);
    mg_sql_bind_text(st, 7, or_null(t.watch));
    mg_sql_bind_text(st, 8, or_null(t.interval));
    mg_sql_bind_text(st, 9, or_null(t.pull));
    int r = mg_sql_step(st, err);
    if (r == 1) *generation = mg_sql_int(st, 0);
    mg_sql_finalize(&st);
    if (r < 0) {
        if (err->code && strcmp(err->code, MG_E_STORAGE_CONFLICT) == 0) /* the root is another id's */
            mg_err_set(err, MG_E_REPO_EXISTS, "'%s' is registered under another id in the shared catalog; index it "
                       "under that id (memgate repos lists it)", root);
        goto out;
    }
    if (r == 0) { /* the id is another tenant's or root's */
        mg_sql_rollback(conn);
        not_ours(conn, id, tenant, err);
        goto out;
    }
    /* the local index says which generation it is before the notification goes (at commit): a follower
     * of this data directory then finds it current */
    if (set_local_generation(c, id, *generation, &old, err) != 0) goto out;
    local_set = true;
    if (notify(conn, id, *generation, reason, delivery, err) != 0 || mg_sql_commit(conn, err) != 0) goto out;
    rc = 0;
out:
    if (rc != 0 && local_set) set_local_generation(c, id, old, NULL, NULL); /* not committed: as it was */
    mg_pg_put(pool, &conn);
    if (rc == 0) mg_catalog_refresh(c, id, NULL); /* this process sees it at once */
    return rc;
}

int mg_catalog_caught_up(const struct mg_config *c, const char *id, int64_t generation, struct mg_err *err)
{
    if (set_local_generation(c, id, generation, NULL, err) != 0) return -1;
    pthread_once(&cv_once, cv_init);
    pthread_mutex_lock(&M.mu);
    pthread_cond_broadcast(&M.cv);
    pthread_mutex_unlock(&M.mu);
    return 0;
}

int mg__catalog_shared_remove(const struct mg_config *c, const struct mg_repo *r, struct mg_err *err)
{
    struct mg_pg *pool;
    struct mg_sql *conn;
    if (mg_pg_get(c, NULL, &pool, &conn, err) != 0) return -1;
    int rc = -1;
    if (mg_sql_begin(conn, true, err) == 0 &&
        mg_sql_runf(conn, NULL, err, "DELETE FROM memgate_repos WHERE id = ? AND tenant = ?", "ss", r->id,
                    r->tenant) == 0 &&
        notify(conn, r->id, 0, "remove", NULL, err) == 0 && mg_sql_commit(conn, err) == 0)
        rc = 0;
    mg_pg_put(pool, &conn);
    if (rc == 0) {
        pthread_once(&cv_once, cv_init);
        pthread_mutex_lock(&M.mu);
        if (strcmp(M.url, c->storage) == 0) put_row(r->id, NULL);
        pthread_mutex_unlock(&M.mu);
    }
    return rc;
}

/* The catalog's column of a setting. */
static const char *setting_column(const char *name)
{
    if (strcmp(name, "watch") == 0) return "setting_watch";
    if (strcmp(name, "reindex_interval") == 0) return "setting_reindex_interval";
    return "setting_pull_on_push";
}

int mg_catalog_settings_write(const struct mg_config *c, const struct mg_repo *r, const struct mg_setting_change *v,
                              size_t n, struct mg_err *err)
{
    char text[MG_SETTINGS_MAX][32];
    if (n > MG_SETTINGS_MAX) return mg_err_set(err, MG_E_BAD_ARG, "at most %d settings at once", MG_SETTINGS_MAX);
    for (size_t i = 0; i < n; i++)
        if (mg_setting_check(&v[i], text[i], sizeof(text[i]), err) != 0) return -1;
    if (mg_catalog_shared(c)) {
        struct mg_pg *pool;
        struct mg_sql *conn;
        if (mg_pg_get(c, NULL, &pool, &conn, err) != 0) return -1;
        int rc = mg_sql_begin(conn, true, err);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            char sql[128];
            int64_t changed = 0;
            snprintf(sql, sizeof(sql), "UPDATE memgate_repos SET %s = ? WHERE id = ? AND tenant = ?",
                     setting_column(v[i].name));
            rc = mg_sql_runf(conn, &changed, err, sql, "sss", or_null(text[i]), r->id, r->tenant);
            if (rc == 0 && changed == 0)
                rc = mg_err_set(err, MG_E_REPO_NOT_FOUND, "repo '%s' is no longer in the shared catalog", r->id);
        }
        if (rc == 0) rc = notify(conn, r->id, r->catalog_generation, "settings", NULL, err);
        if (rc == 0) rc = mg_sql_commit(conn, err);
        mg_pg_put(pool, &conn);
        if (rc != 0) return -1;
        mg_catalog_refresh(c, r->id, NULL);
        if (!mg_repo_has_index(r)) return 0; /* the catalog is the setting; no local index to keep in step */
    }
    struct mg_db *d;
    if (mg_db_open(r->dbpath, 0, &d, err) != 0) return -1;
    int rc = mg_settings_write(d, v, n, err);
    mg_db_close(&d);
    return rc;
}

int mg_catalog_settings_sync(const struct mg_config *c, const struct mg_repo *r, struct mg_err *err)
{
    if (!mg_catalog_shared(c) || !mg_repo_has_index(r)) return 0;
    struct mg_db *d;
    struct mg_repo_settings have;
    if (mg_db_open(r->dbpath, MG_DB_READONLY, &d, err) != 0) return -1;
    int rc = mg_settings_read(d, &have, err);
    mg_db_close(&d);
    if (rc != 0) return -1;
    const struct mg_repo_settings *want = &r->settings;
    if (strcmp(have.watch, want->watch) == 0 && have.reindex_interval == want->reindex_interval &&
        have.pull_on_push == want->pull_on_push)
        return 0;
    char interval[24];
    snprintf(interval, sizeof(interval), "%lld", (long long)want->reindex_interval);
    struct mg_setting_change v[] = {
        {"watch", want->watch},
        {"reindex_interval", want->reindex_interval ? interval : "default"},
        {"pull_on_push", want->pull_on_push ? "on" : "default"},
    };
    if (mg_db_open(r->dbpath, 0, &d, err) != 0) return -1;
    rc = mg_settings_write(d, v, sizeof(v) / sizeof(v[0]), err);
    mg_db_close(&d);
    return rc;
}

/* ---- 6. waiting for a catch-up ------------------------------------------- */

void mg__catalog_wait_change(int64_t until_ms)
{
    pthread_once(&cv_once, cv_init);
    int64_t now = now_ms();
    if (until_ms <= now) return;
    if (until_ms > now + WAIT_POLL_MS) until_ms = now + WAIT_POLL_MS;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ns = ts.tv_nsec + (until_ms - now) * 1000000;
    ts.tv_sec += ns / 1000000000;
    ts.tv_nsec = ns % 1000000000;
    pthread_mutex_lock(&M.mu);
    pthread_cond_timedwait(&M.cv, &M.mu, &ts);
    pthread_mutex_unlock(&M.mu);
}
