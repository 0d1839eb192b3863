/* scan_cache.c — compiled Vectorscan databases, shipped in the binary and
 * cached on disk (scan.h: mg_scanner_cache_dir, mg_hs_compile_cached,
 * mg_scanner_ship; scan_int.h): the scanner's first pass and allowlists, and
 * the prompt-injection patterns (injection.c), are found ready instead of
 * compiled again (seconds of CPU in a fresh data directory).
 *
 * Sections:
 *   1. where: a set's key, the images shipped in the binary, the cache file
 *   2. loading: a shipped image or a cached database used where it lies
 *   3. storing
 *   4. what Vectorscan rejected, remembered beside a set
 *   5. compiling through the cache
 */
#include "security/scan_int.h"

#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "security/common.h"
#include "util/file.h"

/* ---- 1. where --------------------------------------------------------------------------- */

/* A set of patterns is named by a hash of the patterns, their flags, what
 * else its use depends on (extra) and the Vectorscan version, then either:
 *
 * - **shipped**: the built-in sets compiled at build time (src/rulesdb.c,
 *   the Makefile's gen/rules_images.c) for any x86-64 CPU Vectorscan runs
 *   on (no instruction set beyond its baseline: on this machine as fast as
 *   the ones compiled for its AVX-512, docs/benchmarks.md), linked into
 *   memgate and used in place from its read-only data. A binary built
 *   without them (the fuzz build, the build tool itself) has none: the
 *   symbols are weak. MEMGATE_SHIPPED_RULES=off ignores them (to compare,
 *   or to rule them out);
 * - **cached** (mg_scanner_cache_dir): compiled at run time for this CPU's
 *   instruction sets, a file of the cache directory: custom rules, and the
 *   built-in ones when the run-time Vectorscan is not the one the binary
 *   was built with. Compiling 250 rules takes seconds, loading the file a
 *   millisecond. A file that does not load (another CPU, a torn write) is
 *   recompiled and replaced. Written to a temporary name and renamed.
 *
 * Shipping (mg_scanner_ship) compiles for any CPU and names the cache files
 * by the shipped key, which the build tool packs. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static char cache_dir[PATH_MAX];
static bool shipping;

extern const struct mg__hs_image mg__hs_shipped[] __attribute__((weak));
extern const size_t mg__hs_nshipped __attribute__((weak));

void mg_scanner_cache_dir(const char *dir)
{
    pthread_mutex_lock(&cache_mu);
    snprintf(cache_dir, sizeof(cache_dir), "%s", dir ? dir : "");
    pthread_mutex_unlock(&cache_mu);
}

void mg_scanner_ship(const char *dir)
{
    mg_scanner_cache_dir(dir);
    shipping = true;
}

const hs_platform_info_t *mg__hs_platform(void)
{
    static const hs_platform_info_t any = {.tune = HS_TUNE_FAMILY_GENERIC, .cpu_features = 0};
    return shipping ? &any : NULL; /* NULL: this CPU */
}

/* How many images this binary has (0: built without them, the symbols weak). */
static size_t nshipped(void) { return &mg__hs_nshipped && mg__hs_shipped ? mg__hs_nshipped : 0; }

/* The shipped entry of key and what (MG__HS_DB, MG__HS_REJECTS), or NULL. */
static const struct mg__hs_image *shipped(const unsigned char key[16], unsigned what)
{
    if (shipping || !nshipped()) return NULL;
    const char *off = getenv("MEMGATE_SHIPPED_RULES");
    if (off && strcmp(off, "off") == 0) return NULL;
    for (size_t i = 0; i < mg__hs_nshipped; i++)
        if (mg__hs_shipped[i].what == what && memcmp(mg__hs_shipped[i].key, key, 16) == 0) return &mg__hs_shipped[i];
    return NULL;
}

void mg__hs_set_of(const char *kind, const char *const *pats, const unsigned *flags, size_t n,
                   const char *const *extra, size_t nextra, struct mg__hs_set *set)
{
    pthread_mutex_lock(&cache_mu);
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", cache_dir);
    pthread_mutex_unlock(&cache_mu);
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, sizeof(set->key));
    const char *v = hs_version();
    crypto_generichash_update(&h, (const unsigned char *)v, strlen(v) + 1);
    crypto_generichash_update(&h, (const unsigned char *)kind, strlen(kind) + 1);
    for (size_t i = 0; i < n; i++) {
        crypto_generichash_update(&h, (const unsigned char *)pats[i], strlen(pats[i]) + 1);
        crypto_generichash_update(&h, (const unsigned char *)&flags[i], sizeof(flags[i]));
    }
    for (size_t i = 0; i < nextra; i++) crypto_generichash_update(&h, (const unsigned char *)extra[i], strlen(extra[i]) + 1);
    /* a cached image is Vectorscan's in-memory database, built for this
     * CPU's instruction sets: another CPU gets its own file; a shipped one
     * is for any (~0) */
    crypto_generichash_state c = h;
    unsigned any = ~0u;
    unsigned cpu = (unsigned)__builtin_cpu_supports("sse4.2") | (unsigned)__builtin_cpu_supports("popcnt") << 1 |
                   (unsigned)__builtin_cpu_supports("avx2") << 2 | (unsigned)__builtin_cpu_supports("bmi2") << 3 |
                   (unsigned)__builtin_cpu_supports("avx512f") << 4 | (unsigned)__builtin_cpu_supports("avx512bw") << 5 |
                   (unsigned)__builtin_cpu_supports("avx512vbmi") << 6;
    if (shipping) cpu = any;
    crypto_generichash_update(&h, (const unsigned char *)&any, sizeof(any));
    crypto_generichash_final(&h, set->key, sizeof(set->key));
    unsigned char ckey[16];
    crypto_generichash_update(&c, (const unsigned char *)&cpu, sizeof(cpu));
    crypto_generichash_final(&c, ckey, sizeof(ckey));
    char hex[2 * sizeof(ckey) + 1];
    sodium_bin2hex(hex, sizeof(hex), ckey, sizeof(ckey));
    set->cache = dir[0] && snprintf(set->path, sizeof(set->path), "%s/secrets-%s.hsimg", dir, hex) < (int)sizeof(set->path);
}

/* ---- 2. loading ------------------------------------------------------------------------- */

/* A cached database is Vectorscan's in-memory database itself (what
 * hs_deserialize_database_at builds, at a page-aligned address), followed by
 * the XXH3 hash of those bytes: it is mapped read-only and used where it
 * lies, as Vectorscan allows for shared memory. A one-shot command then
 * neither copies nor zeroes 2.7 MB of databases (a quarter of a CLI
 * search's CPU); the pages it scans come from the page cache, shared by
 * every process. A file that is short, does not hash to its trailer or is
 * not a database of this Vectorscan is recompiled and replaced. The mapped
 * ones are listed, so that mg_hs_free unmaps rather than frees them. */
#define MAX_MAPPED 64
static struct {
    const void *p;
    size_t len;
} mapped[MAX_MAPPED];

static bool cache_load(const char *path, hs_database_t **db)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 64 && st.st_size < (64 << 20)) {
        size_t len = (size_t)st.st_size, n = len - sizeof(uint64_t), dbsz = 0;
        void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            uint64_t want;
            memcpy(&want, (const char *)m + n, sizeof(want));
            ok = XXH3_64bits(m, n) == want && hs_database_size(m, &dbsz) == HS_SUCCESS && dbsz <= n;
            pthread_mutex_lock(&cache_mu);
            size_t k = 0;
            while (k < MAX_MAPPED && mapped[k].p) k++;
            if (ok && k < MAX_MAPPED) mapped[k].p = m, mapped[k].len = len;
            else ok = false;
            pthread_mutex_unlock(&cache_mu);
            if (ok) *db = m;
            else munmap(m, len);
        }
    }
    close(fd);
    return ok;
}

bool mg__hs_load(const struct mg__hs_set *set, hs_database_t **db)
{
    const struct mg__hs_image *e = shipped(set->key, MG__HS_DB);
    size_t dbsz = 0;
    if (e && hs_database_size((const hs_database_t *)e->p, &dbsz) == HS_SUCCESS && dbsz <= e->len) {
        *db = (hs_database_t *)e->p; /* read-only data of the binary, used where it lies */
        return true;
    }
    return set->cache && cache_load(set->path, db);
}

static bool is_shipped(const void *p)
{
    for (size_t i = 0; i < nshipped(); i++)
        if (mg__hs_shipped[i].p == p) return true;
    return false;
}

void mg_hs_free(hs_database_t *db)
{
    if (!db || is_shipped(db)) return;
    pthread_mutex_lock(&cache_mu);
    for (size_t k = 0; k < MAX_MAPPED; k++)
        if (mapped[k].p == db) {
            munmap((void *)mapped[k].p, mapped[k].len);
            mapped[k].p = NULL;
            pthread_mutex_unlock(&cache_mu);
            return;
        }
    pthread_mutex_unlock(&cache_mu);
    hs_free_database(db);
}

/* ---- 3. storing ------------------------------------------------------------------------- */

void mg__hs_store(const struct mg__hs_set *set, const hs_database_t *db)
{
    if (!set->cache) return;
    const char *path = set->path;
    char *b = NULL, *img = NULL;
    size_t n = 0, len = 0;
    if (hs_serialize_database(db, &b, &n) != HS_SUCCESS) return;
    if (hs_serialized_database_size(b, n, &len) != HS_SUCCESS || posix_memalign((void **)&img, 4096, len + 8) != 0) {
        free(b);
        return;
    }
    memset(img, 0, len);
    if (hs_deserialize_database_at(b, n, (hs_database_t *)img) != HS_SUCCESS) {
        free(b);
        free(img);
        return;
    }
    free(b);
    uint64_t h = XXH3_64bits(img, len);
    memcpy(img + len, &h, sizeof(h));
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    struct mg_err ignored = {0};
    mg_mkdirs_0700(dir, &ignored); /* ~/.cache may not exist yet; failing, the open below fails and nothing is cached */
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        bool ok = write(fd, img, len + 8) == (ssize_t)(len + 8) && fsync(fd) == 0;
        close(fd);
        if (!ok || rename(tmp, path) != 0) unlink(tmp);
    }
    free(img);
}

/* ---- 4. what Vectorscan rejected -------------------------------------------------------- */

/* The regexes of a set Vectorscan rejected, remembered beside the cached
 * databases under the key of the whole set (`<key>.hsimg.rej`: their
 * indexes, u32 each): without it every process compiled the whole set
 * again, found the same rejects, then loaded the rest from the cache (19%
 * of a CLI search). */
void mg__hs_rejects_load(const struct mg__hs_set *set, bool *pc, size_t n)
{
    const struct mg__hs_image *e = shipped(set->key, MG__HS_REJECTS);
    if (e) {
        for (size_t k = 0; k + sizeof(uint32_t) <= e->len; k += sizeof(uint32_t)) {
            uint32_t i;
            memcpy(&i, e->p + k, sizeof(i));
            if (i < n) pc[i] = true;
        }
        return;
    }
    if (!set->cache) return;
    const char *path = set->path;
    char rp[PATH_MAX + 80];
    snprintf(rp, sizeof(rp), "%s.rej", path);
    FILE *f = fopen(rp, "rb");
    if (!f) return;
    uint32_t i;
    while (fread(&i, sizeof(i), 1, f) == 1)
        if (i < n) pc[i] = true;
    fclose(f);
}

struct rejects {
    const bool *pc;
    size_t n;
};

static int rejects_write(FILE *f, void *arg)
{
    const struct rejects *r = arg;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->pc[i] && fwrite(&i, sizeof(i), 1, f) != 1) return -1;
    return 0;
}

void mg__hs_rejects_store(const struct mg__hs_set *set, const bool *pc, size_t n)
{
    if (!set->cache) return;
    const char *path = set->path;
    struct mg_err ignored = {0};
    char rp[PATH_MAX + 80];
    snprintf(rp, sizeof(rp), "%s.rej", path);
    mg_file_replace(rp, rejects_write, &(struct rejects){pc, n}, &ignored);
}

/* ---- 5. compiling through the cache ----------------------------------------------------- */

int mg_hs_compile_cached(const char *kind, const char *const *pats, const unsigned *flags, unsigned n,
                         struct hs_database **db, char *why, size_t cap)
{
    struct mg__hs_set set;
    mg__hs_set_of(kind, pats, flags, n, NULL, 0, &set);
    if (mg__hs_load(&set, db)) return 0;
    unsigned *ids = malloc((n ? n : 1) * sizeof(*ids));
    if (!ids) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < n; i++) ids[i] = i;
    hs_compile_error_t *ce = NULL;
    int rc = 0;
    if (hs_compile_multi(pats, flags, ids, n, HS_MODE_BLOCK, mg__hs_platform(), db, &ce) != HS_SUCCESS) {
        snprintf(why, cap, "pattern %d: %s", ce ? ce->expression : -1, ce ? ce->message : "?");
        hs_free_compile_error(ce);
        *db = NULL;
        rc = -1;
    } else {
        mg__hs_store(&set, *db);
    }
    free(ids);
    return rc;
}
