/* indexdb.c — cursors over the repo index, and the statements each handle
 * keeps (indexdb.h, indexdb_int.h). */
#include "store/indexdb_int.h"

#include <stdlib.h>
#include <string.h>

#include "store/content.h"

void mg__idx_cur(struct mg_idx_cur *c, struct mg_db *d, sqlite3_stmt *st, bool own, const unsigned char *cols)
{
    c->d = d;
    c->st = st;
    c->own = own;
    c->cols = cols;
}

int mg__idx_open(struct mg_db *d, int slot, const char *sql, const unsigned char *cols, struct mg_idx_cur *c,
                 struct mg_err *err)
{
    bool own;
    memset(c, 0, sizeof(*c));
    sqlite3_stmt *st = mg_db_stmt(d, slot, sql, &own, err);
    if (!st) return -1;
    mg__idx_cur(c, d, st, own, cols);
    return 0;
}

int64_t mg__idx_int(struct mg_db *d, int slot, const char *sql, int64_t dflt)
{
    return mg__idx_int_at(d, slot, sql, 0, dflt);
}

int64_t mg__idx_int_at(struct mg_db *d, int slot, const char *sql, int64_t arg, int64_t dflt)
{
    bool own;
    sqlite3_stmt *st = mg_db_stmt(d, slot, sql, &own, NULL);
    if (!st) return dflt;
    if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_int64(st, 1, arg);
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : dflt;
    if (own) sqlite3_finalize(st);
    else sqlite3_reset(st);
    return v;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static void bind_blob(sqlite3_stmt *st, int i, const void *b, size_t n, bool empty_is_null)
{
    if (empty_is_null && !n) sqlite3_bind_null(st, i);
    else sqlite3_bind_blob(st, i, b, (int)n, SQLITE_STATIC);
}

void mg__idx_bind(sqlite3_stmt *st, const unsigned char *cols, const struct mg_idx_row *r)
{
    for (int i = 0; cols[i] != K_END; i++) {
        int k = i + 1;
        switch (cols[i]) {
        case K_ID: sqlite3_bind_int64(st, k, r->id); break;
        case K_FILE_ID: sqlite3_bind_int64(st, k, r->file_id); break;
        case K_PATH: bind_text(st, k, r->path); break;
        case K_LANG: bind_text(st, k, r->lang); break;
        case K_SIZE: sqlite3_bind_int64(st, k, r->size); break;
        case K_HASH: sqlite3_bind_int64(st, k, (int64_t)r->hash); break;
        case K_MTIME: sqlite3_bind_int64(st, k, r->mtime); break;
        case K_LINES: sqlite3_bind_int64(st, k, r->lines); break;
        case K_FLAGS: sqlite3_bind_int(st, k, r->flags); break;
        case K_CHUNK_LO: sqlite3_bind_int64(st, k, r->chunk_lo); break;
        case K_CHUNK_HI: sqlite3_bind_int64(st, k, r->chunk_hi); break;
        case K_SYM_LO: sqlite3_bind_int64(st, k, r->sym_lo); break;
        case K_SYM_HI: sqlite3_bind_int64(st, k, r->sym_hi); break;
        case K_BLOB: bind_blob(st, k, r->blob, r->bloblen, false); break;
        case K_START_LINE: sqlite3_bind_int64(st, k, r->start_line); break;
        case K_END_LINE: sqlite3_bind_int64(st, k, r->end_line); break;
        case K_START_BYTE: sqlite3_bind_int64(st, k, r->start_byte); break;
        case K_END_BYTE: sqlite3_bind_int64(st, k, r->end_byte); break;
        case K_NAME: bind_text(st, k, r->name); break;
        case K_SYMBOL: bind_text(st, k, r->symbol); break;
        case K_KIND: bind_text(st, k, r->kind); break;
        case K_CONTAINER: bind_text(st, k, r->container); break;
        case K_DEFS: bind_blob(st, k, r->defs, r->ndefs, true); break;
        case K_USES: bind_blob(st, k, r->uses, r->nuses, true); break;
        case K_FIELD: bind_text(st, k, r->field); break;
        case K_ORDINAL: sqlite3_bind_int64(st, k, r->ordinal); break;
        case K_INDEX: sqlite3_bind_int64(st, k, r->index); break;
        default: sqlite3_bind_null(st, k); break;
        }
    }
}

static const void *column_blob(sqlite3_stmt *st, int i, size_t *n)
{
    const void *b = sqlite3_column_blob(st, i);
    *n = (size_t)sqlite3_column_bytes(st, i);
    return b;
}

int mg_idx_next(struct mg_idx_cur *c, struct mg_idx_row *r)
{
    if (c->mid) {
        if (c->mi >= c->mn) return 0;
        memset(r, 0, sizeof(*r));
        r->score = c->mscore[c->mi];
        r->id = c->mid[c->mi++];
        return 1;
    }
    int s = sqlite3_step(c->st);
    if (s == SQLITE_DONE) return 0;
    if (s != SQLITE_ROW) return -1;
    sqlite3_stmt *st = c->st;
    memset(r, 0, sizeof(*r));
    for (int i = 0; c->cols[i] != K_END; i++) {
        switch (c->cols[i]) {
        case K_ID: r->id = sqlite3_column_int64(st, i); break;
        case K_FILE_ID: r->file_id = sqlite3_column_int64(st, i); break;
        case K_PATH: r->path = (const char *)sqlite3_column_text(st, i); break;
        case K_LANG: r->lang = (const char *)sqlite3_column_text(st, i); break;
        case K_SIZE: r->size = sqlite3_column_int64(st, i); break;
        case K_HASH: r->hash = (uint64_t)sqlite3_column_int64(st, i); break;
        case K_MTIME: r->mtime = sqlite3_column_int64(st, i); break;
        case K_LINES: r->lines = sqlite3_column_int64(st, i); break;
        case K_FLAGS: r->flags = sqlite3_column_int(st, i); break;
        case K_CHUNK_LO: r->chunk_lo = sqlite3_column_int64(st, i); break;
        case K_CHUNK_HI: r->chunk_hi = sqlite3_column_int64(st, i); break;
        case K_SYM_LO: r->sym_lo = sqlite3_column_int64(st, i); break;
        case K_SYM_HI: r->sym_hi = sqlite3_column_int64(st, i); break;
        case K_BLOB: r->blob = column_blob(st, i, &r->bloblen); break;
        case K_START_LINE: r->start_line = sqlite3_column_int(st, i); break;
        case K_END_LINE: r->end_line = sqlite3_column_int(st, i); break;
        case K_START_BYTE: r->start_byte = sqlite3_column_int64(st, i); break;
        case K_END_BYTE: r->end_byte = sqlite3_column_int64(st, i); break;
        case K_NAME: r->name = (const char *)sqlite3_column_text(st, i); break;
        case K_SYMBOL: r->symbol = (const char *)sqlite3_column_text(st, i); break;
        case K_KIND: r->kind = (const char *)sqlite3_column_text(st, i); break;
        case K_CONTAINER: r->container = (const char *)sqlite3_column_text(st, i); break;
        case K_SCORE: r->score = sqlite3_column_double(st, i); break;
        case K_N: r->n = sqlite3_column_int64(st, i); break;
        case K_INDEX: r->index = sqlite3_column_int64(st, i); break;
        case K_TIER: r->tier = sqlite3_column_int(st, i); break;
        case K_ORDER: r->order = sqlite3_column_int(st, i); break;
        case K_DEFS: r->defs = column_blob(st, i, &r->ndefs); break;
        case K_USES: r->uses = column_blob(st, i, &r->nuses); break;
        case K_FIELD: r->field = (const char *)sqlite3_column_text(st, i); break;
        case K_ORDINAL: r->ordinal = sqlite3_column_int64(st, i); break;
        }
    }
    return 1;
}

void mg_idx_done(struct mg_idx_cur *c)
{
    if (c->mid) {
        free(c->mid);
        free(c->mscore);
        c->mid = NULL;
        c->mscore = NULL;
        c->mn = c->mi = 0;
    }
    if (!c->st) return;
    if (c->own) sqlite3_finalize(c->st);
    else sqlite3_reset(c->st);
    c->st = NULL;
}

int mg_idx_text(const struct mg_idx_row *r, size_t max, char **text, size_t *len)
{
    return mg_content_unpack(r->blob, r->bloblen, max, text, len);
}

void mg_idx_stamp(struct mg_db *d, int64_t *gen, int64_t *at)
{
    *gen = mg_db_meta_int(d, "index_gen", 0);
    *at = mg_db_meta_int(d, "index.changed_at", -1);
    if (*at < 0) *at = mg_db_meta_int(d, "indexed_at", 0);
}

int mg_idx_stamp_run(struct mg_db *d, bool changed, int64_t now, struct mg_err *err)
{
    int64_t gen, at;
    mg_idx_stamp(d, &gen, &at);
    if (changed || gen == 0) {
        gen++;
        at = now;
    }
    if (mg_db_meta_set_int(d, "index_gen", gen, err) != 0) return -1;
    return mg_db_meta_set_int(d, "index.changed_at", at, err);
}
