/* refs.c — the names a file defines and uses, coded for table refs (see
 * refs.h).
 *
 * Sections:
 *   (top)     the names' hash and class, the stop words and their table
 *   building  the lexer's identifiers counted by hash, the defs and uses blobs
 *   reading   walking a blob
 */
#include "index/refs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "index/defs.h"
#include "index/lex.h"

uint32_t mg_refs_hash(const char *name, size_t len) { return (uint32_t)XXH3_64bits(name, len); }

int mg_refs_class(const char *name, size_t len)
{
    if (len && name[0] == '_') return MG_REFS_PRIVATE;
    if (len < 8) return MG_REFS_PLAIN;
    for (size_t i = 1; i < len; i++) {
        char a = name[i - 1], b = name[i];
        if (b == '_' || (a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z')) return MG_REFS_SPECIFIC;
    }
    return MG_REFS_PLAIN;
}

bool mg_refs_definer(const char *kind)
{
    return !mg_kind_member(kind) && strcmp(kind, MG_KIND_PROTOTYPE) != 0 && strcmp(kind, MG_KIND_IMPL) != 0 &&
           strcmp(kind, MG_KIND_CONSTRUCTOR) != 0;
}

/* Words of the languages that are never a definition's name, and words
 * that look like calls and are not (`defined(`, `likely(`): not stored. */
const char *const mg_refs_stopwords[] = {
    "and", "auto", "bool", "break", "case", "catch", "char", "class", "const", "continue", "default", "def",
    "defer", "delete", "double", "elif", "else", "enum", "except", "export", "extern", "false", "False", "final",
    "finally", "float", "for", "from", "func", "function", "goto", "import", "inline", "int", "interface", "let",
    "long", "mut", "new", "nil", "None", "not", "null", "NULL", "nullptr", "package", "pass", "private",
    "protected", "pub", "public", "raise", "register", "return", "self", "Self", "short", "signed", "sizeof",
    "static", "struct", "super", "switch", "this", "throw", "true", "True", "try", "typedef", "typeof", "union",
    "unsigned", "use", "var", "void", "volatile", "while", "with", "yield", "async", "await", "impl", "match",
    "where", "string", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "defined", "likely", "unlikely", "__builtin_expect", "__typeof__", "__typeof", "alignof", "_Alignof",
    "__alignof__", "static_assert", "_Static_assert", "__attribute__", "__attribute", "asm", "__asm__", "__asm",
    "__volatile__", "noexcept", "decltype", "operator", "typeid", "lambda", "assert", "print", NULL};

/* The stop words by their hash (mg_refs_hash), in 256 open slots: index + 1, 0 empty. */
static uint8_t stop_slot[256];
static uint32_t stop_hash[256];
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

static void stop_build(void)
{
    for (size_t i = 0; mg_refs_stopwords[i] && i < 255; i++) {
        uint32_t h = mg_refs_hash(mg_refs_stopwords[i], strlen(mg_refs_stopwords[i]));
        size_t j = h & 255;
        while (stop_slot[j]) j = (j + 1) & 255;
        stop_slot[j] = (uint8_t)(i + 1);
        stop_hash[j] = h;
    }
}

/* Is s (n bytes, hash h) a stop word? */
static bool keyword(uint32_t h, const char *s, size_t n)
{
    pthread_once(&stop_once, stop_build);
    for (size_t j = h & 255; stop_slot[j]; j = (j + 1) & 255) {
        const char *w = mg_refs_stopwords[stop_slot[j] - 1];
        if (stop_hash[j] == h && strncmp(w, s, n) == 0 && w[n] == 0) return true;
    }
    return false;
}

/* ---- building ------------------------------------------------------------------------------------- */

struct slot {
    uint32_t hash, count; /* count 0: empty */
    uint32_t off, len;    /* the first occurrence */
    bool strong;          /* called, or named after struct/union/enum/class once */
};

struct set {
    struct slot *v;
    size_t cap, n; /* cap: a power of two */
    const uint32_t *own; /* the file's own names, sorted */
    size_t nown;
    size_t prev_end;     /* the identifier before: where it ended, and whether it was a type keyword */
    bool prev_tag;
    struct mg__ptr_scan *ptr; /* C and C++: stores into fields (refs_ptr.c) */
    bool oom;
};

static bool set_grow(struct set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    struct slot *v = calloc(cap, sizeof(*v));
    if (!v) return false;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->v[i].count) continue;
        size_t k = s->v[i].hash & (cap - 1);
        while (v[k].count) k = (k + 1) & (cap - 1);
        v[k] = s->v[i];
    }
    free(s->v);
    s->v = v;
    s->cap = cap;
    return true;
}

static int on_ident(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct set *s = ud;
    const char *w = t + off;
    if (s->ptr) mg__ptr_scan_ident(s->ptr, off, len, line, call);
    bool tagged = s->prev_tag;
    for (size_t i = s->prev_end; tagged && i < off; i++) tagged = t[i] == ' ' || t[i] == '\t' || t[i] == '\n';
    s->prev_end = off + len;
    s->prev_tag = (len == 6 && memcmp(w, "struct", 6) == 0) || (len == 5 && memcmp(w, "union", 5) == 0) ||
                  (len == 4 && memcmp(w, "enum", 4) == 0) || (len == 5 && memcmp(w, "class", 5) == 0);
    if (len < MG_REFS_MIN_NAME || len > MG_REFS_NAME_MAX) return 0;
    bool strong = call || tagged;
    if ((s->n + 1) * 2 > s->cap && !set_grow(s)) {
        s->oom = true;
        return 1;
    }
    uint32_t h = mg_refs_hash(t + off, len);
    size_t k = h & (s->cap - 1);
    while (s->v[k].count && s->v[k].hash != h) k = (k + 1) & (s->cap - 1);
    if (!s->v[k].count) {
        s->v[k] = (struct slot){h, 1, (uint32_t)off, (uint32_t)len, strong};
        s->n++;
    } else {
        if (s->v[k].count < MG_REFS_COUNT_MAX) s->v[k].count++;
        s->v[k].strong = s->v[k].strong || strong;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_slot(const void *a, const void *b)
{
    uint32_t x = ((const struct slot *)a)->hash, y = ((const struct slot *)b)->hash;
    return x < y ? -1 : x > y;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static bool owned(const struct set *s, uint32_t h)
{
    return bsearch(&h, s->own, s->nown, sizeof(uint32_t), cmp_u32) != NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int mg_refs_build(const char *lang, const char *text, size_t len, const char *const *names,
                  const char *const *kinds, size_t n, struct mg_refs_blobs *out)
{
    memset(out, 0, sizeof(*out));
    if (!mg_lex_known(lang)) return 1;
    int rc = -1;
    uint32_t *own = malloc((n + 1) * sizeof(uint32_t));
    uint64_t *defs = malloc((n + 1) * sizeof(uint64_t)); /* hash << 2 | class, of definers */
    struct set s = {0};
    if (!own || !defs) goto out;
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        own[i] = mg_refs_hash(names[i], l);
        if (mg_refs_definer(kinds[i])) defs[nd++] = (uint64_t)own[i] << 2 | (uint64_t)mg_refs_class(names[i], l);
    }
    qsort(own, n, sizeof(uint32_t), cmp_u32);
    qsort(defs, nd, sizeof(uint64_t), cmp_u64);
    s.own = own;
    s.nown = n;
    if (!set_grow(&s)) goto out;
    bool oom;
    s.ptr = mg__ptr_scan_new(lang, text, len, &oom);
    if (oom) goto out;
    mg_lex(lang, text, len, on_ident, &s);
    struct mg__ptr_scan *ptr = s.ptr;
    s.ptr = NULL;
    if (ptr && mg__ptr_scan_end(ptr, &out->stores, &out->nstores, &out->calls, &out->ncalls) != 0) goto out;
    if (s.oom) goto out;
    /* the defs blob: distinct hashes (one class per hash: the first) */
    if (nd) {
        uint8_t *p = out->defs = malloc(nd * 5 + 1);
        if (!p) goto out;
        uint32_t prev = 0;
        for (size_t i = 0; i < nd; i++) {
            uint32_t h = (uint32_t)(defs[i] >> 2);
            if (i && h == prev) continue;
            p = put_varint(p, (uint64_t)(h - prev) << 2 | (defs[i] & 3));
            prev = h;
        }
        out->ndefs = (size_t)(p - out->defs);
    }
    /* the uses blob: the set, less own names and keywords, sorted */
    size_t k = 0;
    for (size_t i = 0; i < s.cap; i++) {
        const struct slot *e = &s.v[i];
        if (!e->count || owned(&s, e->hash) || keyword(e->hash, text + e->off, e->len)) continue;
        /* a plain word never called nor tagged (a local, a field, most often) weighs nothing in a map
         * (search/repomap.c): not stored, which halves the rows */
        if (!e->strong && mg_refs_class(text + e->off, e->len) != MG_REFS_SPECIFIC) continue;
        s.v[k++] = *e;
    }
    if (k) {
        qsort(s.v, k, sizeof(*s.v), cmp_slot);
        uint8_t *p = out->uses = malloc(k * 7 + 1);
        if (!p) goto out;
        uint32_t prev = 0;
        for (size_t i = 0; i < k; i++) {
            p = put_varint(p, s.v[i].hash - prev);
            p = put_varint(p, (uint64_t)s.v[i].count << 1 | s.v[i].strong);
            prev = s.v[i].hash;
        }
        out->nuses = (size_t)(p - out->uses);
    }
    rc = 0;
out:
    if (rc != 0) mg_refs_blobs_release(out);
    if (s.ptr) {
        struct mg_refs_store *v, *c;
        size_t nv, nc;
        if (mg__ptr_scan_end(s.ptr, &v, &nv, &c, &nc) == 0) {
            mg_refs_stores_free(v, nv);
            mg_refs_stores_free(c, nc);
        }
    }
    free(own);
    free(defs);
    free(s.v);
    return rc;
}

void mg_refs_blobs_release(struct mg_refs_blobs *b)
{
    free(b->defs);
    free(b->uses);
    mg_refs_stores_free(b->stores, b->nstores);
    mg_refs_stores_free(b->calls, b->ncalls);
    memset(b, 0, sizeof(*b));
}

/* ---- reading -------------------------------------------------------------------------------------- */

void mg_refs_iter_init(struct mg_refs_iter *it, const void *blob, size_t len, bool uses)
{
    it->p = blob;
    it->end = it->p ? it->p + len : NULL;
    it->hash = 0;
    it->uses = uses;
}

static bool get_varint(struct mg_refs_iter *it, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && it->p < it->end; shift += 7) {
        uint8_t b = *it->p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

bool mg_refs_next(struct mg_refs_iter *it, uint32_t *hash, uint32_t *extra)
{
    uint64_t g, c;
    if (!it->p || it->p >= it->end || !get_varint(it, &g)) return false;
    if (it->uses) {
        if (g > UINT32_MAX || !get_varint(it, &c) || (c >> 1) == 0 || (c >> 1) > MG_REFS_COUNT_MAX) return false;
        it->hash += (uint32_t)g;
        *extra = (uint32_t)c;
    } else {
        if ((g >> 2) > UINT32_MAX) return false;
        it->hash += (uint32_t)(g >> 2);
        *extra = (uint32_t)(g & 3);
    }
    *hash = it->hash;
    return true;
}
