/* texts.c — files' stored texts, unpacked once for every search of the
 * process (texts.h). An agent's searches in a repo keep landing on the same
 * files: the whole-file list's second pass reads its best files' text and the
 * hits shown read theirs, and unpacking them (zstd, and the blob read) was a
 * fifth of a served search's CPU. Each text has its lowercased copy beside
 * it, made once (counting the query's words and marking the lines that hold
 * one read the text lowercased: lowering it again on every search was 3% of
 * a served call's instructions), and the counts of the words the whole-file
 * list counted in it (section 3). A text is kept by the index it came from
 * (its database path), its file id and that row's content hash and size, so
 * a file re-indexed under the same id is a new key, and only a search that
 * has opened that index and read that row finds it. The least recently used
 * go first past MG_TEXTS_SHARED bytes; a text still read by a search is freed
 * when its last reader drops it.
 *
 * Sections:
 *   1. the table
 *   2. find, add, drop
 *   3. words counted in a text
 */
#include "search/texts.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "store/tokenize.h"

/* ---- 1. the table ----------------------------------------------------------------------------- */

#define MG_TEXTS_SHARED (32u << 20) /* bytes of text kept for later searches (lowercased copies included) */
#define MG_TEXT_ALONE (4u << 20)    /* a text larger is not kept (it would push out dozens) */
#define SLOTS 4096                  /* a power of two */

struct mg_text_key {
    uint64_t path_hash, hash;
    int64_t id, size;
};

struct wcount {
    unsigned char len;
    char tok[MG_TOKEN_MAX];
    double n;
};

struct entry {
    struct mg_text t; /* first: a struct mg_text * is a struct entry * */
    struct wcount *counts;      /* MG_TEXT_COUNTS, made at the first kept (under mu) */
    unsigned ncounts, next;     /* counts used; the next to replace when all are */
    struct mg_text_key key;
    char *path;                 /* the database's (compared with the key's path_hash) */
    unsigned refs;              /* searches holding it, and the table while kept */
    bool kept;                  /* in the table and the list */
    struct entry *chain;        /* the slot's next */
    struct entry *newer, *older; /* the list, most recently used first */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry *slots[SLOTS];
static struct entry *newest, *oldest;
static size_t kept_bytes;

static size_t slot_of(const struct mg_text_key *k)
{
    return (size_t)((k->path_hash ^ k->hash ^ (uint64_t)k->id * 0x9E3779B97F4A7C15ull) >> 20) & (SLOTS - 1);
}

static void unlink_list(struct entry *e)
{
    if (e->newer) e->newer->older = e->older;
    else newest = e->older;
    if (e->older) e->older->newer = e->newer;
    else oldest = e->newer;
    e->newer = e->older = NULL;
}

static void push_newest(struct entry *e)
{
    e->older = newest;
    e->newer = NULL;
    if (newest) newest->newer = e;
    newest = e;
    if (!oldest) oldest = e;
}

static void free_entry(struct entry *e)
{
    free(e->counts);
    free(e->t.text);
    free(e->t.lower);
    free(e->path);
    free(e);
}

/* the memory a text holds: it and its lowercased copy */
static size_t bytes_of(const struct mg_text *t) { return t->lower ? 2 * t->len : t->len; }

/* Take e out of the table (the caller holds mu); freed when no search holds it. */
static void drop_kept(struct entry *e)
{
    struct entry **p = &slots[slot_of(&e->key)];
    while (*p && *p != e) p = &(*p)->chain;
    if (*p) *p = e->chain;
    unlink_list(e);
    e->kept = false;
    kept_bytes -= bytes_of(&e->t);
    if (--e->refs == 0) free_entry(e);
}

/* ---- 2. find, add, drop ----------------------------------------------------------------------- */

static struct mg_text_key key_of(const char *dbpath, int64_t id, uint64_t hash, int64_t size)
{
    return (struct mg_text_key){XXH3_64bits(dbpath, strlen(dbpath)), hash, id, size};
}

struct mg_text *mg_texts_find(const char *dbpath, int64_t id, uint64_t hash, int64_t size)
{
    struct mg_text_key k = key_of(dbpath, id, hash, size);
    pthread_mutex_lock(&mu);
    struct entry *e = slots[slot_of(&k)];
    while (e && (memcmp(&e->key, &k, sizeof(k)) != 0 || strcmp(e->path, dbpath) != 0)) e = e->chain;
    if (e) {
        e->refs++;
        unlink_list(e);
        push_newest(e);
    }
    pthread_mutex_unlock(&mu);
    return e ? &e->t : NULL;
}

struct mg_text *mg_texts_add(const char *dbpath, int64_t id, uint64_t hash, int64_t size, char *text, size_t len,
                             bool keep)
{
    struct entry *e = calloc(1, sizeof(*e));
    char *path = keep ? strdup(dbpath) : NULL;
    if (!e || (keep && !path)) {
        free(e);
        free(path);
        free(text);
        return NULL;
    }
    e->t = (struct mg_text){text, malloc(len + 1), len};
    if (e->t.lower) {
        mg_token_lower(e->t.lower, text, len);
        e->t.lower[len] = 0;
    }
    e->key = key_of(dbpath, id, hash, size);
    e->path = path;
    e->refs = 1;
    if (!keep || len > MG_TEXT_ALONE) return &e->t;
    pthread_mutex_lock(&mu);
    struct entry **slot = &slots[slot_of(&e->key)];
    for (struct entry *o = *slot; o; o = o->chain) /* another search added it meanwhile: one copy */
        if (memcmp(&o->key, &e->key, sizeof(e->key)) == 0 && strcmp(o->path, dbpath) == 0) {
            o->refs++;
            pthread_mutex_unlock(&mu);
            free_entry(e);
            return &o->t;
        }
    e->refs++; /* the table's */
    e->kept = true;
    e->chain = *slot;
    *slot = e;
    push_newest(e);
    kept_bytes += bytes_of(&e->t);
    while (kept_bytes > MG_TEXTS_SHARED && oldest != e) drop_kept(oldest);
    pthread_mutex_unlock(&mu);
    return &e->t;
}

void mg_text_unref(struct mg_text *t)
{
    if (!t) return;
    struct entry *e = (struct entry *)t;
    pthread_mutex_lock(&mu);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&mu);
    if (last) free_entry(e);
}

void mg_texts_forget(const char *dbpath)
{
    pthread_mutex_lock(&mu);
    for (struct entry *e = oldest, *next; e; e = next) {
        next = e->newer;
        if (strcmp(e->path, dbpath) == 0) drop_kept(e);
    }
    pthread_mutex_unlock(&mu);
}

size_t mg_texts_kept_bytes(void)
{
    pthread_mutex_lock(&mu);
    size_t n = kept_bytes;
    pthread_mutex_unlock(&mu);
    return n;
}

/* ---- 3. words counted in a text ---------------------------------------------------------------- */

uint64_t mg_text_counts_get(struct mg_text *t, const char *const *toks, const size_t *lens, size_t n,
                            double *counts)
{
    uint64_t missing = n < 64 ? (1ull << n) - 1 : ~0ull;
    struct entry *e = (struct entry *)t;
    pthread_mutex_lock(&mu);
    for (unsigned i = 0; i < e->ncounts; i++) {
        const struct wcount *w = &e->counts[i];
        for (uint64_t m = missing; m; m &= m - 1) {
            int k = __builtin_ctzll(m);
            if (lens[k] == w->len && memcmp(toks[k], w->tok, w->len) == 0) {
                counts[k] = w->n;
                missing &= ~(1ull << k);
                break;
            }
        }
    }
    pthread_mutex_unlock(&mu);
    return missing;
}

void mg_text_counts_put(struct mg_text *t, const char *const *toks, const size_t *lens, uint64_t mask,
                        const double *counts)
{
    struct entry *e = (struct entry *)t;
    pthread_mutex_lock(&mu);
    if (!e->counts) e->counts = calloc(MG_TEXT_COUNTS, sizeof(*e->counts));
    for (; e->counts && mask; mask &= mask - 1) {
        int k = __builtin_ctzll(mask);
        if (lens[k] == 0 || lens[k] > MG_TOKEN_MAX) continue;
        struct wcount *w;
        if (e->ncounts < MG_TEXT_COUNTS) {
            w = &e->counts[e->ncounts++];
        } else {
            w = &e->counts[e->next];
            e->next = (e->next + 1) % MG_TEXT_COUNTS;
        }
        w->len = (unsigned char)lens[k];
        memcpy(w->tok, toks[k], lens[k]);
        w->n = counts[k];
    }
    pthread_mutex_unlock(&mu);
}

size_t mg_text_counts_kept(void)
{
    size_t n = 0;
    pthread_mutex_lock(&mu);
    for (const struct entry *e = newest; e; e = e->older) n += e->ncounts;
    pthread_mutex_unlock(&mu);
    return n;
}
