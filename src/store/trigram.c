/* trigram.c — trigram extraction, posting-list segments, candidate sets.
 *
 * Sections:
 *   1. varints and extraction
 *   2. the builder (hash map key -> growing varint list) and its flush
 *   3. reading posting lists and evaluating a formula into candidates
 *   4. compaction
 */
#include "store/trigram.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "store/content.h"

/* ---- 1. varints and extraction ----------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Decode one varint from p[*i..n); false on truncation or overflow. */
static bool get_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64 && *i < n; shift += 7) {
        uint8_t b = p[(*i)++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

static inline uint8_t fold(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

uint32_t mg_tri_key(const unsigned char *p)
{
    return (uint32_t)fold(p[0]) << 16 | (uint32_t)fold(p[1]) << 8 | fold(p[2]);
}

#define SCRATCH_BITS_BYTES ((size_t)(1u << 24) / 8)

/* The bit set is mapped, not calloc'ed: pages come zeroed when first
 * touched, and a small file touches few (calloc of reused heap memory
 * cleared all 2 MiB, twice per watcher run). */
int mg_tri_scratch_init(struct mg_tri_scratch *s)
{
    memset(s, 0, sizeof(*s));
    void *p = mmap(NULL, SCRATCH_BITS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    s->bits = p;
    return 0;
}

void mg_tri_scratch_release(struct mg_tri_scratch *s)
{
    if (s->bits) munmap(s->bits, SCRATCH_BITS_BYTES);
    free(s->keys);
    memset(s, 0, sizeof(*s));
}

size_t mg_tri_extract(struct mg_tri_scratch *s, const char *text, size_t len)
{
    if (len < 3) return 0;
    size_t need = len - 2 < (1u << 24) ? len - 2 : (1u << 24);
    if (need > s->cap) {
        uint32_t *k = realloc(s->keys, need * sizeof(uint32_t));
        if (!k) return (size_t)-1;
        s->keys = k;
        s->cap = need;
    }
    const uint8_t *p = (const uint8_t *)text;
    uint64_t *bits = s->bits;
    size_t n = 0;
    uint32_t key = (uint32_t)fold(p[0]) << 8 | fold(p[1]);
    for (size_t i = 2; i < len; i++) {
        key = ((key << 8) | fold(p[i])) & 0xffffff;
        uint64_t m = 1ull << (key & 63);
        if (!(bits[key >> 6] & m)) {
            bits[key >> 6] |= m;
            s->keys[n++] = key;
        }
    }
    for (size_t i = 0; i < n; i++) bits[s->keys[i] >> 6] = 0;
    return n;
}

/* ---- 2. the builder ---------------------------------------------------- */

struct plist {
    uint32_t key1;  /* key + 1; 0 = empty slot */
    uint32_t len, cap;
    uint8_t *buf;
    int64_t last;   /* last id added */
};

struct mg_tri_builder {
    struct plist *slots;
    size_t nslots, used;
    size_t bytes;       /* posting bytes held */
    int64_t *ids;       /* the files added, ascending */
    size_t nids, capids;
};

struct mg_tri_builder *mg_tri_builder_new(void)
{
    struct mg_tri_builder *b = calloc(1, sizeof(*b));
    if (!b) return NULL;
    b->nslots = 1 << 12; /* grows by doubling: a watcher's run of one file needs a few thousand */
    b->slots = calloc(b->nslots, sizeof(struct plist));
    if (!b->slots) {
        free(b);
        return NULL;
    }
    return b;
}

static inline size_t slot_of(uint32_t key, size_t mask)
{
    return (size_t)((key * 2654435761u) ^ (key >> 13)) & mask;
}

static int grow_table(struct mg_tri_builder *b)
{
    size_t n = b->nslots * 2;
    struct plist *s = calloc(n, sizeof(*s));
    if (!s) return -1;
    for (size_t i = 0; i < b->nslots; i++) {
        if (!b->slots[i].key1) continue;
        size_t j = slot_of(b->slots[i].key1 - 1, n - 1);
        while (s[j].key1) j = (j + 1) & (n - 1);
        s[j] = b->slots[i];
    }
    free(b->slots);
    b->slots = s;
    b->nslots = n;
    return 0;
}

int mg_tri_builder_add(struct mg_tri_builder *b, int64_t id, const uint32_t *keys, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (b->used * 2 >= b->nslots && grow_table(b) != 0) return -1;
        uint32_t key = keys[k];
        size_t mask = b->nslots - 1, j = slot_of(key, mask);
        while (b->slots[j].key1 && b->slots[j].key1 != key + 1) j = (j + 1) & mask;
        struct plist *p = &b->slots[j];
        if (!p->key1) {
            p->key1 = key + 1;
            p->last = 0;
            b->used++;
        }
        if (p->len + 10 > p->cap) {
            uint32_t cap = p->cap ? p->cap * 2 : 8;
            uint8_t *nb = realloc(p->buf, cap);
            if (!nb) return -1;
            b->bytes += cap - p->cap;
            p->buf = nb;
            p->cap = cap;
        }
        p->len += (uint32_t)put_varint(p->buf + p->len, (uint64_t)(id - p->last));
        p->last = id;
    }
    if (b->nids == b->capids) {
        size_t cap = b->capids ? b->capids * 2 : 256;
        int64_t *v = realloc(b->ids, cap * sizeof(int64_t));
        if (!v) return -1;
        b->ids = v;
        b->capids = cap;
    }
    b->ids[b->nids++] = id;
    return 0;
}

size_t mg_tri_builder_bytes(const struct mg_tri_builder *b)
{
    return b->bytes + b->nslots * sizeof(struct plist) + b->capids * sizeof(int64_t);
}

size_t mg_tri_builder_files(const struct mg_tri_builder *b)
{
    return b->nids;
}

static void builder_clear(struct mg_tri_builder *b)
{
    for (size_t i = 0; i < b->nslots; i++) free(b->slots[i].buf);
    memset(b->slots, 0, b->nslots * sizeof(struct plist));
    b->used = 0;
    b->bytes = 0;
    b->nids = 0;
}

static int int_query(struct mg_db *d, const char *sql, int64_t *v, struct mg_err *err)
{
    sqlite3_stmt *st;
    if (mg_db_prepare(d, sql, &st, err) != 0) return -1;
    *v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

/* A new segment's number, from meta tri_seg_next: max(seg) is a scan of the
 * table (no index on seg). Numbers only grow, from 2; compaction and the
 * merge of tri_recent write segment 1. */
static int take_seg(struct mg_db *d, int64_t *seg, struct mg_err *err)
{
    int64_t next = mg_db_meta_int(d, "tri_seg_next", -1);
    if (next < 2) { /* not kept yet: once, above every segment there is */
        int64_t a, b;
        if (int_query(d, "SELECT coalesce(max(seg), 0) FROM trigrams", &a, err) != 0 ||
            int_query(d, "SELECT coalesce(max(seg), 0) FROM tri_recent", &b, err) != 0)
            return -1;
        next = (a > b ? a : b) + 1;
        if (next < 2) next = 2;
    }
    *seg = next;
    return mg_db_meta_set_int(d, "tri_seg_next", next + 1, err);
}

/* meta key += 1 when it is kept (mg_tri_tidy counts it once otherwise). */
static int count_up(struct mg_db *d, const char *key, struct mg_err *err)
{
    int64_t n = mg_db_meta_int(d, key, -1);
    return n < 0 ? 0 : mg_db_meta_set_int(d, key, n + 1, err);
}

int mg_tri_builder_flush(struct mg_tri_builder *b, struct mg_db *d, struct mg_err *err)
{
    if (b->nids == 0) return 0;
    sqlite3_stmt *st;
    int64_t seg = 0;
    /* a small segment's rows would land one per leaf page of the big table
     * (0.3 s for one edited file of Linux): tri_recent takes them */
    bool small = b->used <= MG_TRI_SMALL_KEYS;
    if (take_seg(d, &seg, err) != 0 || count_up(d, small ? "tri_recent_segs" : "tri_segs", err) != 0) return -1;
    /* a segment's rows are written in key order: the b-tree fills sequentially */
    uint32_t *order = malloc((b->used + 1) * sizeof(uint32_t));
    if (!order) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing trigrams");
    size_t n = 0;
    for (size_t i = 0; i < b->nslots; i++)
        if (b->slots[i].key1) order[n++] = (uint32_t)i;
    struct plist *slots = b->slots;
    /* slot indexes sorted by key: an LSD radix sort over the key's 3 bytes */
    uint32_t *tmp = malloc((n + 1) * sizeof(uint32_t));
    if (!tmp) {
        free(order);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing trigrams");
    }
    for (int pass = 0; pass < 3; pass++) {
        size_t count[257] = {0};
        int shift = pass * 8;
        for (size_t i = 0; i < n; i++) count[((slots[order[i]].key1 - 1) >> shift & 0xff) + 1]++;
        for (int c = 0; c < 256; c++) count[c + 1] += count[c];
        for (size_t i = 0; i < n; i++) tmp[count[(slots[order[i]].key1 - 1) >> shift & 0xff]++] = order[i];
        uint32_t *sw = order;
        order = tmp;
        tmp = sw;
    }
    free(tmp);
    int rc = 0;
    if (mg_db_prepare(d, small ? "INSERT INTO tri_recent(tri, seg, ids) VALUES(?, ?, ?)"
                               : "INSERT INTO trigrams(tri, seg, ids) VALUES(?, ?, ?)", &st, err) != 0) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct plist *p = &slots[order[i]];
        sqlite3_bind_int64(st, 1, p->key1 - 1);
        sqlite3_bind_int64(st, 2, seg);
        sqlite3_bind_blob(st, 3, p->buf, (int)p->len, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = mg_db_error(d, "write trigrams", err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    free(order);
    /* these files have postings now */
    if (rc == 0 && mg_db_prepare(d, "DELETE FROM tri_pending WHERE file_id = ?", &st, err) == 0) {
        for (size_t i = 0; i < b->nids && rc == 0; i++) {
            sqlite3_bind_int64(st, 1, b->ids[i]);
            if (sqlite3_step(st) != SQLITE_DONE) rc = mg_db_error(d, "write trigrams", err);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    } else if (rc == 0) {
        rc = -1;
    }
    builder_clear(b);
    return rc;
}

int mg_tri_add_pending(struct mg_db *d, size_t flush_bytes, struct mg_err *err)
{
    sqlite3_stmt *st;
    bool any; /* nearly always none: then no scratch and builder (4 MiB) to set up */
    if (mg_db_prepare(d, "SELECT 1 FROM tri_pending LIMIT 1", &st, err) != 0) return -1;
    any = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!any) return 0;
    /* ordered by p's key: ORDER BY f.id made SQLite scan every file to probe tri_pending (a second per
     * run on Linux, with nothing pending) */
    if (mg_db_prepare(d, "SELECT f.id, f.content, f.size FROM tri_pending p JOIN files f ON f.id = p.file_id "
                         "ORDER BY p.file_id", &st, err) != 0)
        return -1;
    struct mg_tri_scratch sc;
    struct mg_tri_builder *b = mg_tri_builder_new();
    if (!b || mg_tri_scratch_init(&sc) != 0) {
        sqlite3_finalize(st);
        mg_tri_builder_free(&b);
        return mg_err_oom(err);
    }
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        char *text;
        size_t len;
        if (mg_content_unpack(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                              (size_t)sqlite3_column_int64(st, 2), &text, &len) != 0) {
            rc = mg_err_set(err, MG_E_DB, "stored text is corrupt; remove the repo and index it again");
            break;
        }
        size_t n = mg_tri_extract(&sc, text, len);
        if (n == (size_t)-1 || mg_tri_builder_add(b, sqlite3_column_int64(st, 0), sc.keys, n) != 0)
            rc = mg_err_oom(err);
        free(text);
        /* all of a repo is pending after a schema upgrade: segments of bounded size */
        if (rc == 0 && mg_tri_builder_bytes(b) > flush_bytes) rc = mg_tri_builder_flush(b, d, err);
    }
    sqlite3_finalize(st);
    mg_tri_scratch_release(&sc);
    if (rc == 0) rc = mg_tri_builder_flush(b, d, err);
    mg_tri_builder_free(&b);
    return rc;
}

void mg_tri_builder_free(struct mg_tri_builder **pb)
{
    struct mg_tri_builder *b = *pb;
    if (!b) return;
    builder_clear(b);
    free(b->slots);
    free(b->ids);
    free(b);
    *pb = NULL;
}

/* ---- 3. reading and evaluating ------------------------------------------- */

void mg_ids_release(struct mg_ids *ids)
{
    free(ids->v);
    memset(ids, 0, sizeof(*ids));
}

bool mg_ids_contains(const struct mg_ids *ids, int64_t id)
{
    if (ids->all) return true;
    size_t lo = 0, hi = ids->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ids->v[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < ids->n && ids->v[lo] == id;
}

static int ids_push(struct mg_ids *ids, int64_t v)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 64;
        int64_t *p = realloc(ids->v, cap * sizeof(int64_t));
        if (!p) return -1;
        ids->v = p;
        ids->cap = cap;
    }
    ids->v[ids->n++] = v;
    return 0;
}

/* Union of two ascending lists into out (which is neither). */
static int ids_union(const struct mg_ids *a, const struct mg_ids *b, struct mg_ids *out)
{
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int64_t v;
        if (j >= b->n || (i < a->n && a->v[i] < b->v[j])) v = a->v[i++];
        else if (i >= a->n || b->v[j] < a->v[i]) v = b->v[j++];
        else v = a->v[i++], j++;
        if (ids_push(out, v) != 0) return -1;
    }
    return 0;
}

/* a := a AND b, in place. */
static void ids_intersect(struct mg_ids *a, const struct mg_ids *b)
{
    if (b->all) return;
    if (a->all) {
        /* caller never intersects into "all"; see eval_and */
        return;
    }
    size_t i = 0, j = 0, o = 0;
    while (i < a->n && j < b->n) {
        if (a->v[i] < b->v[j]) i++;
        else if (b->v[j] < a->v[i]) j++;
        else a->v[o++] = a->v[i++], j++;
    }
    a->n = o;
}

/* The posting list of one trigram across all segments. */
static int load_postings(sqlite3_stmt *st, uint32_t key, struct mg_ids *out, struct mg_db *d, struct mg_err *err)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, key);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const uint8_t *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0), i = 0;
        int64_t id = 0;
        struct mg_ids seg = {0};
        uint64_t delta;
        while (i < n && get_varint(p, n, &i, &delta)) {
            id += (int64_t)delta;
            if (ids_push(&seg, id) != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading trigrams");
        }
        if (out->n == 0 || seg.n == 0 || out->v[out->n - 1] < seg.v[0]) {
            for (size_t k = 0; k < seg.n; k++)
                if (ids_push(out, seg.v[k]) != 0) return mg_err_oom(err);
        } else {
            struct mg_ids u = {0};
            if (ids_union(out, &seg, &u) != 0) return mg_err_oom(err);
            mg_ids_release(out);
            *out = u;
        }
        mg_ids_release(&seg);
    }
    if (rc != SQLITE_DONE) return mg_db_error(d, "read trigrams", err);
    return 0;
}

struct evalctx {
    struct mg_db *d;
    sqlite3_stmt *st;
    struct mg_err *err;
};

static int eval(struct evalctx *c, const struct mg_rx_node *f, struct mg_ids *out);

static int eval_lit(struct evalctx *c, const struct mg_rx_node *f, struct mg_ids *out)
{
    if (f->litlen < 3) {
        out->all = true;
        return 0;
    }
    /* distinct keys of the literal; intersect their lists, shortest first
     * would need all loaded: load one by one and stop at empty instead */
    bool first = true;
    for (size_t i = 0; i + 3 <= f->litlen; i++) {
        uint32_t key = mg_tri_key((const unsigned char *)f->lit + i);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) seen = mg_tri_key((const unsigned char *)f->lit + j) == key;
        if (seen) continue;
        struct mg_ids p = {0};
        if (load_postings(c->st, key, &p, c->d, c->err) != 0) {
            mg_ids_release(&p);
            return -1;
        }
        if (first) {
            *out = p;
            first = false;
        } else {
            ids_intersect(out, &p);
            mg_ids_release(&p);
        }
        if (out->n == 0) break;
    }
    return 0;
}

static int eval(struct evalctx *c, const struct mg_rx_node *f, struct mg_ids *out)
{
    memset(out, 0, sizeof(*out));
    switch (f->op) {
    case MG_RX_TRUE: out->all = true; return 0;
    case MG_RX_LIT: return eval_lit(c, f, out);
    case MG_RX_AND: {
        bool have = false;
        for (size_t k = 0; k < f->nkids; k++) {
            struct mg_ids sub;
            if (eval(c, f->kids[k], &sub) != 0) return -1;
            if (sub.all) continue;
            if (!have) {
                *out = sub;
                have = true;
            } else {
                ids_intersect(out, &sub);
                mg_ids_release(&sub);
            }
            if (out->n == 0) break;
        }
        if (!have) out->all = true;
        return 0;
    }
    case MG_RX_OR: {
        for (size_t k = 0; k < f->nkids; k++) {
            struct mg_ids sub;
            if (eval(c, f->kids[k], &sub) != 0) return -1;
            if (sub.all) {
                mg_ids_release(out);
                out->all = true;
                return 0;
            }
            struct mg_ids u = {0};
            if (ids_union(out, &sub, &u) != 0) {
                mg_ids_release(&sub);
                return mg_err_oom(c->err);
            }
            mg_ids_release(out);
            mg_ids_release(&sub);
            *out = u;
        }
        return 0;
    }
    }
    out->all = true;
    return 0;
}

int mg_tri_candidates(struct mg_db *d, const struct mg_rx_node *f, struct mg_ids *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    if (!f || f->op == MG_RX_TRUE) {
        out->all = true;
        return 0;
    }
    struct evalctx c = {d, NULL, err};
    /* a database from before tri_recent, opened read-only (so not migrated yet), has only trigrams */
    if (sqlite3_prepare_v2(d->db, "SELECT ids FROM trigrams WHERE tri=?1 UNION ALL "
                                  "SELECT ids FROM tri_recent WHERE tri=?1", -1, &c.st, NULL) != SQLITE_OK &&
        mg_db_prepare(d, "SELECT ids FROM trigrams WHERE tri=?", &c.st, err) != 0)
        return -1;
    int rc = eval(&c, f, out);
    sqlite3_finalize(c.st);
    if (rc != 0 || out->all) return rc;
    /* files not yet in any segment are candidates too */
    struct mg_ids pending = {0};
    sqlite3_stmt *st;
    if (mg_db_prepare(d, "SELECT file_id FROM tri_pending ORDER BY file_id", &st, err) != 0) return -1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW)
        if (ids_push(&pending, sqlite3_column_int64(st, 0)) != 0) rc = mg_err_oom(err);
    sqlite3_finalize(st);
    if (rc == 0 && pending.n) {
        struct mg_ids u = {0};
        if (ids_union(out, &pending, &u) != 0) rc = mg_err_oom(err);
        mg_ids_release(out);
        *out = u;
    }
    mg_ids_release(&pending);
    return rc;
}

/* ---- 4. compaction ---------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A table's rows in key order, one at a time. */
struct cursor {
    sqlite3_stmt *st;
    int64_t tri; /* of the current row; -1 at the end */
};

static int cursor_next(struct cursor *c, struct mg_db *d, struct mg_err *err)
{
    c->tri = -1;
    if (!c->st) return 0;
    int rc = sqlite3_step(c->st);
    if (rc == SQLITE_ROW) c->tri = sqlite3_column_int64(c->st, 0);
    else if (rc != SQLITE_DONE) return mg_db_error(d, "compact trigrams", err);
    return 0;
}

/* The live ids of trigram tri from the current rows of c (and the rows of tri
 * after them), appended to all; *sorted becomes false when they are not
 * already ascending. */
static int take_rows(struct cursor *c, int64_t tri, const uint64_t *live, int64_t maxid, struct mg_ids *all,
                     bool *sorted, struct mg_db *d, struct mg_err *err)
{
    while (c->tri == tri) {
        const uint8_t *p = sqlite3_column_blob(c->st, 1);
        size_t n = (size_t)sqlite3_column_bytes(c->st, 1), i = 0;
        int64_t id = 0;
        uint64_t delta;
        while (i < n && get_varint(p, n, &i, &delta)) {
            id += (int64_t)delta;
            if (id <= 0 || id > maxid || !(live[id / 64] >> (id % 64) & 1)) continue;
            if (all->n && id <= all->v[all->n - 1]) *sorted = false;
            if (ids_push(all, id) != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory compacting trigrams");
        }
        if (cursor_next(c, d, err) != 0) return -1;
    }
    return 0;
}

/* Merge the segments of the big table (when big) and of tri_recent into one
 * segment of dest, dropping ids no longer in `files`. */
static int merge_segments(struct mg_db *d, bool big, const char *dest, struct mg_err *err)
{
    /* live ids as a bitmap */
    sqlite3_stmt *st = NULL, *ins = NULL;
    int64_t maxid = 0;
    if (mg_db_prepare(d, "SELECT coalesce(max(id), 0) FROM files", &st, err) != 0) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) maxid = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    uint64_t *live = calloc((size_t)maxid / 64 + 1, sizeof(uint64_t));
    if (!live) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory compacting trigrams");
    struct cursor a = {NULL, -1}, r = {NULL, -1};
    struct mg_ids all = {0};
    uint8_t *buf = NULL;
    size_t cap = 0;
    int rc = -1;
    if (mg_db_prepare(d, "SELECT id FROM files", &st, err) != 0) goto out;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        live[id / 64] |= 1ull << (id % 64);
    }
    sqlite3_finalize(st);
    st = NULL;

    if (mg_db_exec(d, "CREATE TEMP TABLE tri_new(tri INTEGER PRIMARY KEY, ids BLOB NOT NULL)", err) != 0) goto out;
    if ((big && mg_db_prepare(d, "SELECT tri, ids FROM trigrams ORDER BY tri, seg", &a.st, err) != 0) ||
        mg_db_prepare(d, "SELECT tri, ids FROM tri_recent ORDER BY tri, seg", &r.st, err) != 0 ||
        mg_db_prepare(d, "INSERT INTO tri_new(tri, ids) VALUES(?, ?)", &ins, err) != 0 ||
        cursor_next(&a, d, err) != 0 || cursor_next(&r, d, err) != 0)
        goto out;
    /* one trigram at a time, its ids from all its segments in both tables:
     * the index threads of a run flush segments whose ids interleave, so
     * they are sorted, not concatenated */
    while (a.tri >= 0 || r.tri >= 0) {
        int64_t tri = a.tri < 0 ? r.tri : r.tri < 0 ? a.tri : a.tri < r.tri ? a.tri : r.tri;
        bool sorted = true;
        all.n = 0;
        if (take_rows(&a, tri, live, maxid, &all, &sorted, d, err) != 0 ||
            take_rows(&r, tri, live, maxid, &all, &sorted, d, err) != 0)
            goto out;
        if (all.n == 0) continue;
        if (!sorted) qsort(all.v, all.n, sizeof(int64_t), cmp_id);
        if (all.n * 10 > cap) {
            uint8_t *nb = realloc(buf, all.n * 10);
            if (!nb) {
                mg_err_set(err, MG_E_NO_MEMORY, "out of memory compacting trigrams");
                goto out;
            }
            buf = nb;
            cap = all.n * 10;
        }
        size_t len = 0;
        int64_t last = 0;
        for (size_t k = 0; k < all.n; k++) {
            if (all.v[k] == last) continue; /* in two segments (never written so; harmless) */
            len += put_varint(buf + len, (uint64_t)(all.v[k] - last));
            last = all.v[k];
        }
        sqlite3_bind_int64(ins, 1, tri);
        sqlite3_bind_blob(ins, 2, buf, (int)len, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            mg_db_error(d, "compact trigrams", err);
            goto out;
        }
        sqlite3_reset(ins);
    }
    sqlite3_finalize(a.st);
    sqlite3_finalize(r.st);
    sqlite3_finalize(ins);
    a.st = r.st = ins = NULL;
    char sql[256];
    snprintf(sql, sizeof(sql), "%sDELETE FROM tri_recent; INSERT INTO %s(tri, seg, ids) SELECT tri, 1, ids FROM tri_new;"
             "DROP TABLE tri_new;", big ? "DELETE FROM trigrams; " : "", dest);
    if (mg_db_exec(d, sql, err) != 0) goto out;
    rc = 0;
out:
    sqlite3_finalize(st);
    sqlite3_finalize(a.st);
    sqlite3_finalize(r.st);
    sqlite3_finalize(ins);
    if (rc != 0) sqlite3_exec(d->db, "DROP TABLE IF EXISTS temp.tri_new", NULL, NULL, NULL);
    mg_ids_release(&all);
    free(buf);
    free(live);
    return rc;
}

int mg_tri_compact(struct mg_db *d, struct mg_err *err)
{
    if (merge_segments(d, true, "trigrams", err) != 0 || mg_db_meta_set_int(d, "tri_segs", 1, err) != 0) return -1;
    return mg_db_meta_set_int(d, "tri_recent_segs", 0, err);
}

/* A meta count of segments; counted in the table the first time. */
static int seg_count(struct mg_db *d, const char *key, const char *table, int64_t *n, struct mg_err *err)
{
    *n = mg_db_meta_int(d, key, -1);
    if (*n >= 0) return 0;
    char sql[96];
    snprintf(sql, sizeof(sql), "SELECT count(DISTINCT seg) FROM %s", table);
    if (int_query(d, sql, n, err) != 0) return -1;
    return mg_db_meta_set_int(d, key, *n, err);
}

int mg_tri_merge_recent(struct mg_db *d, int64_t above, bool *merged, struct mg_err *err)
{
    int64_t recent;
    *merged = false;
    if (seg_count(d, "tri_recent_segs", "tri_recent", &recent, err) != 0) return -1;
    if (recent <= above) return 0;
    if (merge_segments(d, false, "tri_recent", err) != 0 || mg_db_meta_set_int(d, "tri_recent_segs", 1, err) != 0)
        return -1;
    *merged = true;
    return 0;
}

int mg_tri_tidy(struct mg_db *d, uint64_t dead_bytes, uint64_t total_bytes, bool incremental, struct mg_err *err)
{
    uint64_t dead = (uint64_t)mg_db_meta_int(d, "tri_dead_bytes", 0) + dead_bytes;
    int64_t segs;
    bool merged;
    if (seg_count(d, "tri_segs", "trigrams", &segs, err) != 0) return -1;
    /* the big table is rewritten (seconds on Linux) when a quarter of the text
     * it indexes is gone, or its segments pile up (an incremental run waits for a
     * full one, up to a backstop) */
    if (dead * 4 > total_bytes || segs > (incremental ? MG_TRI_SEGS_BACKSTOP : MG_TRI_SEGS_MAX)) {
        if (mg_tri_compact(d, err) != 0) return -1;
        dead = 0;
    } else if (mg_tri_merge_recent(d, incremental ? MG_TRI_RECENT_SEGS_BACKSTOP : MG_TRI_RECENT_SEGS_MAX, &merged,
                                   err) != 0) {
        return -1;
    }
    return mg_db_meta_set_int(d, "tri_dead_bytes", (int64_t)dead, err);
}
