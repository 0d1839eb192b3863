/* repomap_saved.c — the repo map's graphs cached in the process (by
 * database and index generation, reference-counted) and saved beside the
 * index (DB.map) for the next process, rebuilt in the background when stale
 * (repomap_int.h).
 *
 * Sections:
 *   1. The cache     graphs by database and index generation, reference-counted
 *   2. Saved graphs  the graph and its ranks in a file beside the index (DB.map)
 */
#include "search/repomap_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/indexdb.h"
#include "util/buf.h"
#include "util/file.h"

#define CACHE_SLOTS 4

/* ---- 1. The cache ----------------------------------------------------------------------------- */

static struct graph *cache[CACHE_SLOTS]; /* most recent first */

void mg__rmap_graph_put(struct graph *g)
{
    if (!g) return;
    pthread_mutex_lock(&mg__rmap_mu);
    bool last = --g->refs == 0;
    pthread_mutex_unlock(&mg__rmap_mu);
    if (last) mg__rmap_graph_free(g);
}

void mg_repomap_cache_clear(void)
{
    pthread_mutex_lock(&mg__rmap_mu);
    struct graph *gone[CACHE_SLOTS];
    for (int i = 0; i < CACHE_SLOTS; i++) {
        gone[i] = cache[i];
        cache[i] = NULL;
    }
    pthread_mutex_unlock(&mg__rmap_mu);
    for (int i = 0; i < CACHE_SLOTS; i++) mg__rmap_graph_put(gone[i]);
}

/* Put g (one reference for the cache) first in the cache, in place of its
 * repo's older graph, or of the least recent. */
static void graph_cache(struct graph *g)
{
    struct graph *old = NULL;
    pthread_mutex_lock(&mg__rmap_mu);
    for (int i = 0; i < CACHE_SLOTS; i++) /* the same repo's older graph goes first */
        if (cache[i] && strcmp(cache[i]->path, g->path) == 0) {
            old = cache[i];
            memmove(cache + i, cache + i + 1, (size_t)(CACHE_SLOTS - 1 - i) * sizeof(*cache));
            cache[CACHE_SLOTS - 1] = NULL;
            break;
        }
    if (!old) old = cache[CACHE_SLOTS - 1];
    memmove(cache + 1, cache, (CACHE_SLOTS - 1) * sizeof(*cache));
    cache[0] = g;
    pthread_mutex_unlock(&mg__rmap_mu);
    mg__rmap_graph_put(old);
}

/* ---- 2. Saved graphs ------------------------------------------------------------------------- */

/* A full index run saves its graph, with the ranks of the whole repo, beside
 * the index: a server's (or `memgate repo-map`'s) first map reads it instead
 * of building (a read of tens of MB, where building takes seconds on a large
 * repo). The file is a cache: written to a temporary name, synced and
 * renamed; a file that is missing, damaged or of another generation is
 * ignored or answered as stale. Layout, in the writer's byte order, every
 * section starting at a multiple of 8 bytes:
 *     struct saved_head
 *     fid[nf] int64, paths and languages (strbytes: "path\0lang\0" per file),
 *     nhash[nn] u32, ncls[nn] u8, doff[nn + 1] u32, dfile[nd] u32,
 *     lookup[nn] u64, uoff[nf + 1] u32, uname[nu] u32, ucnt[nu] u16,
 *     rank0[nf] double, nin0[nn] double */

#define SAVED_MAGIC   "MGRMAP\r\n"
#define SAVED_VERSION 1
#define SAVED_ORDER   0x01020304u
#define SAVED_MAX     ((uint64_t)4 << 30)

struct saved_head {
    char magic[8];
    uint32_t version, order;
    int64_t gen, at;
    uint64_t nf, nn, nused, nd, nu, strbytes;
};



static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static void saved_path(const char *dbpath, char *out, size_t cap) { snprintf(out, cap, "%s.map", dbpath); }

static int damaged(const char *why, struct mg_err *err)
{
    return mg_err_set(err, MG_E_IO, "the saved repo map graph is damaged (%s); the next map builds it again", why);
}

/* The graph in the saved bytes b[0 .. len), which it takes (released on
 * failure; mapped: b is the file mapped, else malloc'd): every count
 * checked against len, every index against its array, the ranks finite. */
static int graph_parse(void *b, size_t len, bool mapped, struct graph **out, struct mg_err *err)
{
    *out = NULL;
    struct saved_head h;
    struct graph *g = NULL;
    if (len < sizeof(h)) {
        if (mapped) munmap(b, len);
        else free(b);
        return damaged("too short", err);
    }
    memcpy(&h, b, sizeof(h));
    const char *why = NULL;
    if (memcmp(h.magic, SAVED_MAGIC, 8) != 0) why = "not a repo map graph";
    else if (h.version != SAVED_VERSION || h.order != SAVED_ORDER) why = "another version or byte order";
    else if (h.nf >= FILES_MAX || h.nn >= UINT32_MAX - 2 || h.nd >= UINT32_MAX - 2 || h.nu >= UINT32_MAX - 2 ||
             h.nused > h.nn || h.strbytes > SAVED_MAX)
        why = "counts out of range";
    uint64_t off[13];
    if (!why) { /* section offsets: each count < 2^32, so no sum overflows */
        const uint64_t size[12] = {h.nf * 8, h.strbytes, h.nn * 4, h.nn, (h.nn + 1) * 4, h.nd * 4, h.nn * 8,
                                   (h.nf + 1) * 4, h.nu * 4, h.nu * 2, h.nf * 8, h.nn * 8};
        off[0] = pad8(sizeof(h));
        for (int i = 0; i < 12; i++) off[i + 1] = pad8(off[i] + size[i]);
        if (off[12] != len) why = "its size does not match its counts";
    }
    if (why || !(g = calloc(1, sizeof(*g)))) {
        if (mapped) munmap(b, len);
        else free(b);
        return why ? damaged(why, err) : mg_err_oom(err);
    }
    pthread_mutex_init(&g->mu, NULL);
    g->saved = b;
    g->mapped = mapped ? len : 0;
    char *p = b;
    g->gen = h.gen;
    g->at = h.at;
    g->nf = h.nf;
    g->nn = h.nn;
    g->nused = h.nused;
    g->fid = (int64_t *)(p + off[0]);
    g->nhash = (uint32_t *)(p + off[2]);
    g->ncls = (uint8_t *)(p + off[3]);
    g->doff = (uint32_t *)(p + off[4]);
    g->dfile = (uint32_t *)(p + off[5]);
    g->lookup = (uint64_t *)(p + off[6]);
    g->uoff = (uint32_t *)(p + off[7]);
    g->uname = (uint32_t *)(p + off[8]);
    g->ucnt = (uint16_t *)(p + off[9]);
    g->rank0 = (double *)(p + off[10]);
    g->nin0 = (double *)(p + off[11]);
    g->fpath = malloc((h.nf + 1) * sizeof(char *));
    g->flang = malloc((h.nf + 1) * sizeof(char *));
    if (!g->fpath || !g->flang) {
        mg__rmap_graph_free(g);
        return mg_err_oom(err);
    }
    /* the strings: exactly two per file, each ended */
    char *s = p + off[1], *end = s + h.strbytes;
    for (size_t i = 0; i < 2 * h.nf && !why; i++) {
        char *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
        if (!z) why = "a path or language is cut";
        else {
            if (i % 2) g->flang[i / 2] = s;
            else g->fpath[i / 2] = s;
            s = z + 1;
        }
    }
    if (!why && s != end) why = "bytes after the last path";
    for (size_t n = 0; n < h.nn && !why; n++) {
        if (g->ncls[n] > 3 && g->ncls[n] != STOP) why = "a name's class";
        if (g->doff[n] > g->doff[n + 1]) why = "a name's definers";
        if ((uint32_t)g->lookup[n] >= h.nn || (n && g->lookup[n] >> 32 < g->lookup[n - 1] >> 32))
            why = "the name lookup";
        if (!(isfinite(g->nin0[n]) && g->nin0[n] >= 0)) why = "a name's rank";
    }
    if (!why && (g->doff[0] != 0 || g->doff[h.nn] != h.nd)) why = "the definers' ends";
    for (size_t k = 0; k < h.nd && !why; k++)
        if (g->dfile[k] >= h.nf) why = "a definer's file";
    for (size_t f = 0; f < h.nf && !why; f++) {
        if (g->uoff[f] > g->uoff[f + 1]) why = "a file's uses";
        if (!(isfinite(g->rank0[f]) && g->rank0[f] >= 0)) why = "a file's rank";
    }
    if (!why && (g->uoff[0] != 0 || g->uoff[h.nf] != h.nu)) why = "the uses' ends";
    for (size_t u = 0; u < h.nu && !why; u++)
        if (g->uname[u] >= h.nused) why = "a use's name";
    if (why) {
        mg__rmap_graph_free(g);
        return damaged(why, err);
    }
    *out = g;
    return 0;
}

/* The graph saved beside the index at dbpath, mapped (read-only: the file
 * is replaced by rename, never written in place): 0 and *out (one
 * reference, not cached), or -1 when there is none or it is damaged. */
static int graph_load(const char *dbpath, struct graph **out, struct mg_err *err)
{
    char path[4200];
    saved_path(dbpath, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return mg_err_set(err, MG_E_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    void *b = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_size <= SAVED_MAX && sb.st_size >= (off_t)sizeof(struct saved_head))
        b = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (b == MAP_FAILED) return damaged("its size", err);
    madvise(b, (size_t)sb.st_size, MADV_WILLNEED);
    if (graph_parse(b, (size_t)sb.st_size, true, out, err) != 0) return -1;
    snprintf((*out)->path, sizeof((*out)->path), "%s", dbpath);
    (*out)->refs = 1;
    return 0;
}

/* The header of the saved graph beside dbpath, when one reads as such. */
static bool saved_head(const char *dbpath, struct saved_head *h)
{
    char path[4200];
    saved_path(dbpath, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) && memcmp(h->magic, SAVED_MAGIC, 8) == 0;
    close(fd);
    return ok;
}

/* Whether the saved graph beside dbpath is of generation (gen, at), by its
 * header alone: an index run that changed the index need not map and check
 * the old file (90 MB for Linux) to learn that it is stale. */
static bool saved_is(const char *dbpath, int64_t gen, int64_t at)
{
    struct saved_head h;
    return saved_head(dbpath, &h) && h.gen == gen && h.at == at;
}

/* The zeros after a section of n bytes. */
static int write_pad(FILE *f, uint64_t n)
{
    static const char zero[8];
    return pad8(n) > n && fwrite(zero, 1, pad8(n) - n, f) != pad8(n) - n ? -1 : 0;
}

static int write_all(FILE *f, const void *p, uint64_t n)
{
    return (n && fwrite(p, 1, n, f) != n) || write_pad(f, n) ? -1 : 0;
}

/* g's sections into f (an mg_file_writer). */
static int write_graph(FILE *f, void *arg)
{
    const struct graph *g = arg;
    struct saved_head h = {.version = SAVED_VERSION, .order = SAVED_ORDER, .gen = g->gen, .at = g->at,
                           .nf = g->nf, .nn = g->nn, .nused = g->nused, .nd = g->doff[g->nn],
                           .nu = g->uoff[g->nf]};
    memcpy(h.magic, SAVED_MAGIC, 8);
    for (size_t i = 0; i < g->nf; i++) h.strbytes += strlen(g->fpath[i]) + strlen(g->flang[i]) + 2;
    int bad = write_all(f, &h, sizeof(h)) || write_all(f, g->fid, h.nf * 8);
    for (size_t i = 0; i < g->nf && !bad; i++)
        bad = fwrite(g->fpath[i], 1, strlen(g->fpath[i]) + 1, f) != strlen(g->fpath[i]) + 1 ||
              fwrite(g->flang[i], 1, strlen(g->flang[i]) + 1, f) != strlen(g->flang[i]) + 1;
    return bad || write_pad(f, h.strbytes) || write_all(f, g->nhash, h.nn * 4) || write_all(f, g->ncls, h.nn) ||
                   write_all(f, g->doff, (h.nn + 1) * 4) || write_all(f, g->dfile, h.nd * 4) ||
                   write_all(f, g->lookup, h.nn * 8) || write_all(f, g->uoff, (h.nf + 1) * 4) ||
                   write_all(f, g->uname, h.nu * 4) || write_all(f, g->ucnt, h.nu * 2) ||
                   write_all(f, g->rank0, h.nf * 8) || write_all(f, g->nin0, h.nn * 8)
               ? -1
               : 0;
}

/* Save g (with its ranks) beside the index at g->path, whole or not at all. */
static int graph_save(const struct graph *g, struct mg_err *err)
{
    char path[4200];
    saved_path(g->path, path, sizeof(path));
    return mg_file_replace(path, write_graph, (void *)g, err);
}

int mg_repomap_saved_check(const void *data, size_t len, struct mg_err *err)
{
    void *b = malloc(len ? len : 1);
    if (!b) return mg_err_oom(err);
    memcpy(b, data, len);
    struct graph *g;
    if (graph_parse(b, len, false, &g, err) != 0) return -1;
    struct rank_work *w = mg__rmap_work_get(g, err); /* what a map does with it: rank, look names up */
    int rc = w ? 0 : -1;
    if (w) mg__rmap_pagerank(g, &(struct rank_in){0}, w);
    mg__rmap_work_put(g, w);
    for (size_t n = 0; n < g->nn && rc == 0; n++)
        if (mg__rmap_name_find(g, g->nhash[n]) < 0) rc = damaged("a name missing from the lookup", err);
    mg__rmap_graph_free(g);
    return rc;
}

/* Rank g (a graph no one else holds yet) for the whole repo and save it
 * beside its index. */
static int graph_save_ranked(struct graph *g, struct mg_err *err)
{
    if (mg__rmap_rank_whole(g, err) != 0) return -1;
    return graph_save(g, err);
}

/* The graph of the index at path as it is now, on a connection of its own:
 * the saved one when it is current, else built, ranked and saved (-1 when
 * saving fails, the graph cached all the same); cached. */
static int graph_build_at(const char *path, struct mg_err *err)
{
    struct mg_db *d = NULL;
    if (mg_db_open(path, MG_DB_READONLY, &d, err) != 0) return -1;
    int rc = mg_db_begin_read(d, err);
    struct graph *g = NULL;
    bool saved = false;
    if (rc == 0) {
        int64_t gen, at;
        mg_idx_stamp(d, &gen, &at);
        struct mg_err ignored = {0};
        if (saved_is(path, gen, at) && graph_load(path, &g, &ignored) == 0 && g->gen == gen && g->at == at) {
            saved = true; /* another process saved it (a full index run) */
        } else {
            mg__rmap_graph_put(g);
            g = NULL;
            rc = mg__rmap_graph_build(d, &g, err);
        }
        if (rc == 0) {
            snprintf(g->path, sizeof(g->path), "%s", path);
            g->gen = gen;
            g->at = at;
            g->refs = 1; /* the cache's */
        }
        mg_db_commit(d, NULL);
    }
    mg_db_close(&d);
    if (rc != 0) return -1;
    if (!saved) rc = graph_save_ranked(g, err);
    graph_cache(g);
    return rc;
}

int mg_repomap_save(const char *dbpath, struct mg_err *err) { return graph_build_at(dbpath, err); }

bool mg_repomap_saved_any(const char *dbpath)
{
    struct saved_head h;
    return saved_head(dbpath, &h);
}

/* Rebuilds under way in the background, by database path (under mg__rmap_mu). */
static char rebuilding[CACHE_SLOTS][4096];

static void *rebuild_main(void *arg)
{
    char *path = arg;
    struct mg_err err = {0};
    graph_build_at(path, &err); /* a failure leaves the old graph; the next call tries again */
    pthread_mutex_lock(&mg__rmap_mu);
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (strcmp(rebuilding[i], path) == 0) rebuilding[i][0] = 0;
    pthread_mutex_unlock(&mg__rmap_mu);
    free(path);
    return NULL;
}

/* Start rebuilding the graph of path in the background, unless that is under
 * way already (or too many are). Called with mg__rmap_mu held. */
static void rebuild_locked(const char *path)
{
    int free_slot = -1;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (strcmp(rebuilding[i], path) == 0) return;
        if (!rebuilding[i][0] && free_slot < 0) free_slot = i;
    }
    char *p = free_slot >= 0 ? strdup(path) : NULL;
    if (!p) return;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, rebuild_main, p) == 0) snprintf(rebuilding[free_slot], sizeof(rebuilding[0]), "%s", p);
    else free(p);
    pthread_attr_destroy(&at);
}

/* The graph of d's index at (gen, at): cached, saved beside the index, or
 * built and cached. When only an older generation's graph of the same index
 * is cached or saved and stale_ok, that one is returned at once (*stale) and
 * the current one is built (and saved) in the background for the next
 * call. The caller holds a reference (graph_put). */
int mg__rmap_graph_get(struct mg_db *d, int64_t gen, int64_t at, bool stale_ok, struct graph **out, bool *cached,
                     bool *stale, struct mg_err *err)
{
    *stale = false;
    for (int pass = 0; pass < 2; pass++) {
        pthread_mutex_lock(&mg__rmap_mu);
        struct graph *older = NULL;
        for (int i = 0; i < CACHE_SLOTS; i++) {
            struct graph *g = cache[i];
            if (!g || strcmp(g->path, d->path) != 0) continue;
            if (g->gen == gen && g->at == at) {
                g->refs++;
                memmove(cache + 1, cache, (size_t)i * sizeof(*cache));
                cache[0] = g;
                pthread_mutex_unlock(&mg__rmap_mu);
                *out = g;
                *cached = true;
                return 0;
            }
            older = g;
        }
        if (older && stale_ok && older->gen < gen) {
            older->refs++;
            rebuild_locked(d->path);
            pthread_mutex_unlock(&mg__rmap_mu);
            *out = older;
            *cached = *stale = true;
            return 0;
        }
        pthread_mutex_unlock(&mg__rmap_mu);
        if (pass || (older && stale_ok)) break;
        /* the saved graph, when it is this generation's (or, stale_ok and nothing cached, an older one's) */
        struct graph *g = NULL;
        struct mg_err ignored = {0};
        if (graph_load(d->path, &g, &ignored) != 0) break;
        if (!(g->gen == gen && g->at == at) && !(stale_ok && g->gen < gen)) {
            mg__rmap_graph_put(g);
            break;
        }
        graph_cache(g);
    }
    *cached = false;
    /* built outside the lock: two requests may build the same graph; the later one is cached */
    struct graph *g;
    if (mg__rmap_graph_build(d, &g, err) != 0) return -1;
    snprintf(g->path, sizeof(g->path), "%s", d->path);
    g->gen = gen;
    g->at = at;
    g->refs = 2; /* the cache's and the caller's */
    struct mg_err ignored = {0};
    graph_save_ranked(g, &ignored); /* the next process reads it (a failure costs it the build) */
    graph_cache(g);
    *out = g;
    return 0;
}
