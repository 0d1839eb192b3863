/* catalog_local.c — this data directory's own indexes (catalog.h): the
 * directory, ids, names and fingerprints, reading an index's meta (cached by
 * the file's identity), and listing them. The catalog (catalog.c) answers
 * from these alone with SQLite storage, and joins them with the shared table
 * (catalogpg.c) with PostgreSQL's. */
#include "store/catalog.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/db.h"
#include "store/settings.h"
#include "util/buf.h"

static int mkdir_0700(const char *path, struct mg_err *err)
{
    if (mkdir(path, 0700) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
        return mg_err_set(err, MG_E_NOT_A_DIR, "'%s' exists but is not a directory", path);
    }
    return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot create '%s': %s", path,
                      strerror(errno));
}

/* mkdir -p, 0700 for what it creates. */
static int mkdirs(const char *path, struct mg_err *err)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            *s = '/';
            return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot create '%s': %s", p,
                              strerror(errno));
        }
        *s = '/';
    }
    return mkdir_0700(p, err);
}

int mg_catalog_dir(const struct mg_config *c, int create, char *out, size_t cap, struct mg_err *err)
{
    snprintf(out, cap, "%s/repos", c->home);
    if (!create) return 0;
    if (mkdirs(c->home, err) != 0 || mkdir_0700(out, err) != 0) return -1;
    return 0;
}

void mg_repo_dbpath(const struct mg_config *c, const char *id, char *out, size_t cap)
{
    snprintf(out, cap, "%s/repos/%s.db", c->home, id);
}

void mg_repo_fingerprint(const char *root, char out[33])
{
    XXH128_hash_t h = XXH3_128bits_withSeed(root, strlen(root), 0x6d656d67617465ull /* "memgate" */);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

void mg_repo_derive_id(const char *root, char *out, size_t cap)
{
    const char *base = strrchr(root, '/');
    base = base && base[1] ? base + 1 : "root";
    char name[25];
    size_t n = 0;
    for (const char *p = base; *p && n < 24; p++) {
        char ch = *p;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        name[n++] = ok ? ch : '-';
    }
    while (n > 0 && (name[n - 1] == '-' || name[n - 1] == '.')) n--;
    name[n] = 0;
    /* an id must start with [a-z0-9] */
    const char *nm = name;
    while (*nm == '-' || *nm == '.' || *nm == '_') nm++;
    uint64_t h = XXH3_64bits(root, strlen(root));
    snprintf(out, cap, "%s%s%06llx", *nm ? nm : "repo", "-", (unsigned long long)(h & 0xffffff));
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Read a repo's meta from its database (uncached). */
static int read_repo_db(const char *dbpath, struct mg_repo *r, struct mg_err *err)
{
    struct mg_db *d;
    if (mg_db_open(dbpath, MG_DB_READONLY, &d, err) != 0) return -1;
    memset(r, 0, sizeof(*r));
    snprintf(r->dbpath, sizeof(r->dbpath), "%s", dbpath);
    int rc = 0;
    if (mg_db_meta_get(d, "id", r->id, sizeof(r->id)) != 0 || mg_db_meta_get(d, "root", r->root, sizeof(r->root)) != 0) {
        rc = mg_db_failed(d) ? mg_db_error(d, "read the index's meta", err) /* (not its content: a read failed) */
                             : mg_err_set(err, MG_E_DB, "index '%s' has no repo id; remove it and index again", dbpath);
    } else {
        mg_db_meta_get(d, "fingerprint", r->fingerprint, sizeof(r->fingerprint));
        if (mg_db_meta_get(d, "tenant", r->tenant, sizeof(r->tenant)) != 0) snprintf(r->tenant, sizeof(r->tenant), "local");
        r->files = mg_db_meta_int(d, "files", 0);
        r->chunks = mg_db_meta_int(d, "chunks", 0);
        r->symbols = mg_db_meta_int(d, "symbols", 0);
        r->bytes = mg_db_meta_int(d, "bytes", 0);
        r->created_at = mg_db_meta_int(d, "created_at", 0);
        r->indexed_at = mg_db_meta_int(d, "indexed_at", 0);
        r->generation = mg_db_meta_int(d, "catalog.generation", 0);
        /* for the re-index scheduler, which lists the repos every few seconds, and the webhook */
        if (mg_settings_read(d, &r->settings, NULL) != 0) mg_settings_defaults(&r->settings);
        r->reindex_interval = r->settings.reindex_interval;
        char p[PATH_MAX + 8];
        r->db_bytes = file_size(dbpath);
        snprintf(p, sizeof(p), "%s-wal", dbpath);
        r->db_bytes += file_size(p);
    }
    mg_db_close(&d);
    return rc;
}

/* Every tool call resolves its repo, and opening the repo's database for its
 * meta costs more than most searches (the WAL's shared memory is set up each
 * time). The meta is cached per database file, valid while the database (its
 * inode, size and modification time) and its WAL (size and modification
 * time) are unchanged. A stale hit could only show old counts: a repo's id,
 * root, fingerprint and tenant never change in one database file. */
struct meta_cache {
    char dbpath[PATH_MAX];
    struct timespec db_m, wal_m;
    off_t db_size, wal_size;
    ino_t db_ino;
    struct mg_repo r;
};
static pthread_mutex_t meta_mu = PTHREAD_MUTEX_INITIALIZER;
static struct meta_cache meta[256];
static size_t nmeta, next_meta;

static ino_t file_sig(const char *path, struct timespec *m, off_t *size)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        *m = st.st_mtim;
        *size = st.st_size;
        return st.st_ino;
    }
    memset(m, 0, sizeof(*m));
    *size = -1;
    return 0;
}

int mg_catalog_read_local(const char *dbpath, struct mg_repo *r, struct mg_err *err)
{
    char wal[PATH_MAX + 8];
    snprintf(wal, sizeof(wal), "%s-wal", dbpath);
    struct timespec dm, wm;
    off_t ds, ws;
    ino_t di = file_sig(dbpath, &dm, &ds);
    file_sig(wal, &wm, &ws);
    pthread_mutex_lock(&meta_mu);
    for (size_t i = 0; i < nmeta; i++) {
        struct meta_cache *c = &meta[i];
        if (strcmp(c->dbpath, dbpath) == 0 && c->db_ino == di && c->db_size == ds && c->wal_size == ws && c->db_m.tv_sec == dm.tv_sec &&
            c->db_m.tv_nsec == dm.tv_nsec && c->wal_m.tv_sec == wm.tv_sec && c->wal_m.tv_nsec == wm.tv_nsec) {
            *r = c->r;
            pthread_mutex_unlock(&meta_mu);
            return 0;
        }
    }
    pthread_mutex_unlock(&meta_mu);
    if (read_repo_db(dbpath, r, err) != 0) {
        /* The same file read before: its id, root and tenant cannot have changed, only its counts. A read
         * that fails while a run rewrites the index (SQLITE_IOERR_SHORT_READ was seen during a watcher's
         * large run) must not make the repo vanish ("no repo is indexed yet"): the answer read last, and
         * the question's own reads report what is wrong with the file, if anything is. */
        bool found = false;
        pthread_mutex_lock(&meta_mu);
        for (size_t i = 0; i < nmeta && !found; i++)
            if (strcmp(meta[i].dbpath, dbpath) == 0 && meta[i].db_ino == di) {
                *r = meta[i].r;
                found = true;
            }
        pthread_mutex_unlock(&meta_mu);
        if (!found) return -1;
        if (err) *err = (struct mg_err){0};
        return 0;
    }
    pthread_mutex_lock(&meta_mu);
    size_t slot = nmeta;
    for (size_t i = 0; i < nmeta; i++)
        if (strcmp(meta[i].dbpath, dbpath) == 0) slot = i;
    if (slot == nmeta) {
        if (nmeta < sizeof(meta) / sizeof(meta[0])) nmeta++;
        else slot = next_meta++ % nmeta; /* full: replace round-robin */
    }
    struct meta_cache *c = &meta[slot];
    snprintf(c->dbpath, sizeof(c->dbpath), "%s", dbpath);
    c->db_m = dm;
    c->wal_m = wm;
    c->db_size = ds;
    c->wal_size = ws;
    c->db_ino = di;
    c->r = *r;
    pthread_mutex_unlock(&meta_mu);
    return 0;
}

static int cmp_repo(const void *a, const void *b)
{
    return strcmp(((const struct mg_repo *)a)->id, ((const struct mg_repo *)b)->id);
}

const char *mg_repo_copy_name(enum mg_repo_copy c)
{
    static const char *const names[] = {NULL, "current", "behind", "pending", "absent", "conflict"};
    return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : NULL;
}

bool mg_repo_has_index(const struct mg_repo *r)
{
    return r->copy == MG_COPY_NONE || r->copy == MG_COPY_CURRENT || r->copy == MG_COPY_BEHIND;
}

int mg_catalog_local_list(const struct mg_config *c, struct mg_repo **out, size_t *n, struct mg_err *err)
{
    *out = NULL;
    *n = 0;
    char dir[PATH_MAX];
    mg_catalog_dir(c, 0, dir, sizeof(dir), NULL);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return 0;
        return mg_err_set(err, MG_E_IO, "cannot read '%s': %s", dir, strerror(errno));
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".db") != 0 || de->d_name[0] == '.') continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            struct mg_repo *v = realloc(*out, cap * sizeof(**out));
            if (!v) {
                closedir(d);
                return mg_err_set(err, MG_E_NO_MEMORY, "out of memory listing repos");
            }
            *out = v;
        }
        struct mg_err e2 = {0};
        if (mg_catalog_read_local(path, &(*out)[*n], &e2) != 0) {
            fprintf(stderr, "warning: skipping '%s': %s\n", path, e2.msg);
            continue;
        }
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(*out, *n, sizeof(**out), cmp_repo);
    return 0;
}

/* "a, b, c" (or "none") into buf. */
void mg_repo_id_list(const struct mg_repo *v, size_t n, char *buf, size_t cap)
{
    struct mg_buf b;
    mg_buf_init(&b, cap > 6 ? cap - 6 : 1); /* room for ", ..." */
    size_t i = 0;
    while (i < n && mg_buf_addf(&b, "%s%s", i ? ", " : "", v[i].id) == 0) i++;
    snprintf(buf, cap, "%s%s", n ? (b.p ? b.p : "") : "none", i < n ? ", ..." : "");
    mg_buf_release(&b);
}

int mg_catalog_containing(const struct mg_repo *v, size_t n, const char *path)
{
    int best = -1;
    size_t bestlen = 0;
    for (size_t i = 0; path && i < n; i++) {
        size_t rl = strlen(v[i].root);
        if (strncmp(path, v[i].root, rl) == 0 && (path[rl] == 0 || path[rl] == '/' || rl == 1) && rl > bestlen) {
            best = (int)i;
            bestlen = rl;
        }
    }
    return best;
}

