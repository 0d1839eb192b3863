/* memvec_kept.c — memory vectors opened once (internal.h's mg__mvkept_*):
 * a search by meaning reads every row of its scope, and opening a row's
 * sealed vector (XChaCha20-Poly1305 and its associated data) was most of
 * what it cost: 5,000 entities 9.8 ms a search against 0.46 ms by words.
 *
 * An opened vector is kept for every later search of the process, by the
 * context it was sealed in (a keyed hash of table, tenant, fingerprint and
 * signature, the model's and the key's, under the tenant's key: memvec.c's
 * ctx_of), its row id
 * and the sealed value it came from. A search finds it only when the row
 * holds that same value in that same context, that is a value that opened
 * there before: a vector moved to another row, repo or tenant, or changed
 * on disk, or a key replaced, is not found and is opened (and refused) as
 * without this. Nothing here is written to disk.
 *
 * "The same value" is compared on its length, its head (the model's
 * signature and the nonce) and its last MG_MVKEPT_TAG bytes (the
 * Poly1305 tag), not on every byte: another ciphertext under the same key,
 * nonce, associated data and tag would be a forgery of the AEAD, which is
 * what opening it refuses. So an entry holds ~60 bytes of the value, not all
 * of it, and a lookup reads one or two cache lines.
 *
 * Bound: KEPT_MAX bytes in all; past it everything kept is let go and the
 * next searches open their rows again (one clear is cheaper than keeping an
 * order of use per row: a search that reads its scope's rows reads them all).
 * One mutex; a lookup copies the vector out, so no entry is used unlocked.
 *
 * Sections:
 *   1. vectors by row (both backends)
 *   2. a scope's vectors kept whole (SQLite: valid at one data version of
 *      the file, so a search ranks them without reading its rows)
 */
#include "memory/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KEPT_MAX (32u << 20) /* bytes of entries kept at most */
#define KEPT_BUCKETS 65536u  /* a power of two */

/* ---- 1. vectors by row --------------------------------------------------------------------- */

struct kept {
    struct kept *next;
    int64_t id;
    unsigned char ctx[MG_MVKEPT_CTX];
    float norm;         /* the int8 vector's length */
    uint32_t n, head, dim; /* the value's length; data: its first head and last MG_MVKEPT_TAG bytes, dim int8 */
    unsigned char data[];
};

/* Whether k was made from this sealed value (see the top of the file). */
static bool same_value(const struct kept *k, const unsigned char *v, size_t n, size_t head)
{
    return k->n == n && k->head == head && memcmp(k->data, v, head) == 0 &&
           memcmp(k->data + head, v + n - MG_MVKEPT_TAG, MG_MVKEPT_TAG) == 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct kept **tab;
static size_t used;

static size_t slot(const unsigned char *ctx, int64_t id)
{
    uint64_t h;
    memcpy(&h, ctx, sizeof(h)); /* a keyed hash already: its first bytes are as good as any */
    h ^= (uint64_t)id * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)(h & (KEPT_BUCKETS - 1));
}

static void clear_locked(void)
{
    for (size_t i = 0; tab && i < KEPT_BUCKETS; i++) {
        for (struct kept *k = tab[i], *nx; k; k = nx) {
            nx = k->next;
            free(k);
        }
        tab[i] = NULL;
    }
    used = 0;
}

bool mg__mvkept_get(const unsigned char *ctx, int64_t id, const void *sealed, size_t n, size_t head, int dim,
                    int8_t *m, float *norm)
{
    if (head + MG_MVKEPT_TAG > n) return false;
    bool found = false;
    pthread_mutex_lock(&mu);
    for (struct kept *k = tab ? tab[slot(ctx, id)] : NULL; k; k = k->next) {
        if (k->id != id || k->dim != (uint32_t)dim || memcmp(k->ctx, ctx, MG_MVKEPT_CTX) != 0 ||
            !same_value(k, sealed, n, head))
            continue;
        memcpy(m, k->data + head + MG_MVKEPT_TAG, (size_t)dim);
        *norm = k->norm;
        found = true;
        break;
    }
    pthread_mutex_unlock(&mu);
    return found;
}

void mg__mvkept_put(const unsigned char *ctx, int64_t id, const void *sealed, size_t n, size_t head, int dim,
                    const int8_t *m, float norm)
{
    if (head + MG_MVKEPT_TAG > n) return;
    size_t sz = sizeof(struct kept) + head + MG_MVKEPT_TAG + (size_t)dim;
    if (sz > KEPT_MAX / 64) return; /* not one of ours: a vector is a few hundred bytes */
    struct kept *k = malloc(sz);
    if (!k) return; /* kept or not, the search is the same */
    k->id = id;
    memcpy(k->ctx, ctx, MG_MVKEPT_CTX);
    k->norm = norm;
    k->n = (uint32_t)n;
    k->head = (uint32_t)head;
    k->dim = (uint32_t)dim;
    memcpy(k->data, sealed, head);
    memcpy(k->data + head, (const unsigned char *)sealed + n - MG_MVKEPT_TAG, MG_MVKEPT_TAG);
    memcpy(k->data + head + MG_MVKEPT_TAG, m, (size_t)dim);
    pthread_mutex_lock(&mu);
    if (!tab && !(tab = calloc(KEPT_BUCKETS, sizeof(*tab)))) {
        pthread_mutex_unlock(&mu);
        free(k);
        return;
    }
    if (used + sz > KEPT_MAX) clear_locked();
    size_t s = slot(ctx, id);
    for (struct kept **pp = &tab[s]; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id && memcmp((*pp)->ctx, ctx, MG_MVKEPT_CTX) == 0) { /* the row's older value */
            struct kept *old = *pp;
            *pp = old->next;
            used -= sizeof(struct kept) + old->head + MG_MVKEPT_TAG + old->dim;
            free(old);
            break;
        }
    k->next = tab[s];
    tab[s] = k;
    used += sz;
    pthread_mutex_unlock(&mu);
}

static void scopes_clear_locked(void);

void mg__mvkept_clear(void)
{
    pthread_mutex_lock(&mu);
    clear_locked();
    scopes_clear_locked();
    free(tab);
    tab = NULL;
    pthread_mutex_unlock(&mu);
}

/* ---- 2. a scope's vectors, kept whole (SQLite) ------------------------------------------------- */

/* The vectors of one scan (key: its context, connection and SQL with
 * values), in its order, as read at one data version of the file. */
struct scope {
    struct scope *next;
    char *key;
    uint32_t version;
    int dim;
    size_t n, bytes;
    int64_t *id;
    int8_t *m;
    float *norm;
};

#define SCOPES_MAX (64u << 20) /* bytes of scopes kept at most */

static struct scope *scopes;
static size_t scope_bytes;

static void scope_free(struct scope *s)
{
    free(s->key);
    free(s->id);
    free(s->m);
    free(s->norm);
    free(s);
}

static void scopes_clear_locked(void)
{
    for (struct scope *s = scopes, *nx; s; s = nx) {
        nx = s->next;
        scope_free(s);
    }
    scopes = NULL;
    scope_bytes = 0;
}

bool mg__mvkept_scope_each(const char *key, uint32_t version, int dim,
                           void (*f)(void *arg, const int64_t *id, const int8_t *m, const float *norm, size_t n),
                           void *arg)
{
    bool found = false;
    pthread_mutex_lock(&mu);
    for (struct scope *s = scopes; s; s = s->next) {
        if (strcmp(s->key, key) != 0) continue;
        if (s->version == version && s->dim == dim) {
            f(arg, s->id, s->m, s->norm, s->n);
            found = true;
        }
        break;
    }
    pthread_mutex_unlock(&mu);
    return found;
}

void mg__mvkept_scope_put(const char *key, uint32_t version, int dim, struct mg__mvkept_rows *rows)
{
    struct scope *s = calloc(1, sizeof(*s));
    if (!s || !(s->key = strdup(key))) {
        free(s);
        return;
    }
    s->version = version;
    s->dim = dim;
    s->n = rows->n;
    s->id = rows->id;
    s->m = rows->m;
    s->norm = rows->norm;
    memset(rows, 0, sizeof(*rows)); /* ours now */
    s->bytes = sizeof(*s) + strlen(key) + s->n * (sizeof(int64_t) + (size_t)dim + sizeof(float));
    if (s->bytes > SCOPES_MAX / 4) {
        scope_free(s);
        return;
    }
    pthread_mutex_lock(&mu);
    for (struct scope **pp = &scopes; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->key, key) == 0) { /* the scope at an older version */
            struct scope *old = *pp;
            *pp = old->next;
            scope_bytes -= old->bytes;
            scope_free(old);
            break;
        }
    if (scope_bytes + s->bytes > SCOPES_MAX) scopes_clear_locked();
    s->next = scopes;
    scopes = s;
    scope_bytes += s->bytes;
    pthread_mutex_unlock(&mu);
}

int mg__mvkept_rows_add(struct mg__mvkept_rows *r, int dim, int64_t id, const int8_t *m, float norm)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        int64_t *ni = realloc(r->id, cap * sizeof(*ni));
        if (ni) r->id = ni;
        int8_t *nm = ni ? realloc(r->m, cap * (size_t)dim) : NULL;
        if (nm) r->m = nm;
        float *nn = nm ? realloc(r->norm, cap * sizeof(*nn)) : NULL;
        if (!nn) return -1;
        r->norm = nn;
        r->cap = cap;
    }
    r->id[r->n] = id;
    memcpy(r->m + r->n * (size_t)dim, m, (size_t)dim);
    r->norm[r->n++] = norm;
    return 0;
}

void mg__mvkept_rows_free(struct mg__mvkept_rows *r)
{
    free(r->id);
    free(r->m);
    free(r->norm);
    memset(r, 0, sizeof(*r));
}
