/* indexer_write.c — the index run's writer: a file's rows replaced (the
 * old ones dropped, word rows by their rebuilt streams) or removed, and the
 * refs rows an older index lacks (indexer_int.h; the statements are
 * store/indexdb.h's). */
#include "index/indexer_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/lex.h"
#include "store/indexdb.h"
#include "store/rank.h"

void mg__writer_release(struct writer *w)
{
    mg_token_set_free(&w->ts);
    mg_buf_release(&w->tmp);
    mg_buf_release(&w->streams);
}

/* A file's word rows, from its stored text (contentless FTS5 forgets a row
 * only when given exactly what it indexed, so a delete rebuilds the file's
 * token streams as mg__build_streams made them): dropped (add false) or
 * written again (add true, for mg__mark_words), with w->marks. The file's row
 * in row (MG_IDX_TEXT); *len: its text's length. 0 or -1. */
static int file_words(struct writer *w, const struct mg_idx_row *frow, bool add, size_t *len, struct mg_err *err)
{
    int64_t id = frow->id, clo = frow->chunk_lo, chi = frow->chunk_hi, slo = frow->sym_lo, shi = frow->sym_hi;
    char *text = NULL, *path = strdup(frow->path);
    *len = 0;
    if (!path) return mg_err_oom(err);
    if (mg_idx_text(frow, (size_t)frow->size, &text, len) != 0) {
        free(path);
        return mg_err_set(err, MG_E_DB, "stored text of file %lld is corrupt; remove the repo and index it again",
                          (long long)id);
    }
    int rc = 0;
    struct mg_idx_cur cur = {0};
    struct mg_idx_row row;
    size_t n = clo <= chi ? (size_t)(mg_chunk_seq(chi) - mg_chunk_seq(clo) + 1) : 0, got = 0, nd = 0;
    size_t ns = slo <= shi ? (size_t)(shi - slo + 1) : 0;
    int64_t *ids = malloc((n + 1) * sizeof(int64_t));
    uint32_t *off = malloc((2 * n + 2) * sizeof(uint32_t));
    struct stream_chunk *sc = calloc(n + 1, sizeof(*sc));
    struct stream_def *sd = calloc(ns + 1, sizeof(*sd));
    if (!ids || !off || !sc || !sd) rc = mg_err_oom(err);
    if (rc == 0 && mg_idx_chunks(w->d, clo, chi, &cur, err) != 0) rc = -1;
    while (rc == 0 && got < n && mg_idx_next(&cur, &row) > 0) {
        int64_t s = row.start_byte, e = row.end_byte;
        if (s < 0 || e < s || (size_t)e > *len) {
            rc = mg_err_set(err, MG_E_DB, "chunk %lld is out of range; remove the repo and index it again",
                            (long long)row.id);
            break;
        }
        ids[got] = row.id;
        sc[got] = (struct stream_chunk){(uint32_t)s, (uint32_t)e, (uint32_t)row.start_line, (uint32_t)row.end_line,
                                        row.symbol ? strdup(row.symbol) : NULL,
                                        row.container ? strdup(row.container) : NULL};
        got++;
    }
    mg_idx_done(&cur);
    if (rc == 0 && ns && mg_idx_symbols(w->d, slo, shi, true, &cur, err) != 0) rc = -1;
    while (rc == 0 && ns && nd < ns && mg_idx_next(&cur, &row) > 0) {
        sd[nd].line = (uint32_t)row.start_line;
        sd[nd].name = strdup(row.name);
        nd++;
    }
    mg_idx_done(&cur);
    if (rc == 0) {
        mg__stream_defs_sort(sd, nd);
        struct stream_src src = {path, text, sc, got, sd, nd, w->marks};
        if (mg__build_streams(w->ts, &w->tmp, &src, &w->streams, off) != 0)
            rc = mg_err_oom(err);
    }
    for (size_t i = 0; rc == 0 && i < got; i++) {
        const char *f = w->streams.p;
        rc = (add ? mg_idx_add_words : mg_idx_drop_words)(w->d, ids[i], f + off[0], off[1] - off[0],
                                                            f + off[2 * i + 1], off[2 * i + 2] - off[2 * i + 1],
                                                            f + off[2 * i + 2], off[2 * i + 3] - off[2 * i + 2], err);
    }
    for (size_t i = 0; sc && i < got; i++) {
        free((char *)sc[i].sym);
        free((char *)sc[i].container);
    }
    for (size_t i = 0; sd && i < nd; i++) free((char *)sd[i].name);
    free(sc);
    free(sd);
    free(ids);
    free(off);
    free(text);
    free(path);
    return rc;
}

/* Remove one file and everything derived from it. */
int mg__delete_file(struct writer *w, int64_t id, struct mg_err *err)
{
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (mg_idx_file_by_id(w->d, id, MG_IDX_TEXT, &cur, err) != 0) return -1;
    if (mg_idx_next(&cur, &row) <= 0) {
        mg_idx_done(&cur);
        return 0; /* already gone */
    }
    int64_t size = row.size, clo = row.chunk_lo, chi = row.chunk_hi, slo = row.sym_lo, shi = row.sym_hi;
    size_t len = 0;
    int rc = file_words(w, &row, false, &len, err);
    mg_idx_done(&cur);
    if (rc != 0) return -1;
    w->dead_bytes += len;
    w->changed = true;
    w->d_files--;
    w->d_bytes -= size;
    w->d_chunks -= clo <= chi ? mg_chunk_seq(chi) - mg_chunk_seq(clo) + 1 : 0;
    w->d_symbols -= slo <= shi ? shi - slo + 1 : 0;
    return mg_idx_drop_file(w->d, id, clo, chi, slo, shi, err);
}

int mg__mark_words(struct writer *w, struct mg_err *err)
{
    if (mg_db_meta_int(w->d, MG_META_MARKS, 0)) return 0;
    if (mg_idx_words_clear(w->d, err) != 0) return -1;
    w->marks = true;
    w->changed = true;
    struct mg_idx_cur sel = {0};
    struct mg_idx_row row;
    int rc = mg_idx_files_text(w->d, &sel, err);
    while (rc == 0) {
        int s = mg_idx_next(&sel, &row);
        if (s <= 0) {
            if (s < 0) rc = mg_db_error(w->d, "read files", err);
            break;
        }
        size_t len;
        rc = file_words(w, &row, true, &len, err);
    }
    mg_idx_done(&sel);
    return rc != 0 ? -1 : mg_db_meta_set_int(w->d, MG_META_MARKS, 1, err);
}

/* The tokens of a stream, its marks not counted (FTS5 counts no length for them either). */
static uint32_t count_tokens(const char *s, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if ((i == 0 || s[i - 1] == ' ') && s[i] != ' ') k += s[i] != MG_TOKEN_MARK;
    return k;
}

static int insert_refs(struct writer *w, int64_t fid, const struct mg_refs_blobs *b, struct mg_err *err)
{
    struct mg_idx_row row = {.file_id = fid, .defs = b->defs, .ndefs = b->ndefs, .uses = b->uses, .nuses = b->nuses};
    if (mg_idx_add_refs(w->d, &row, err) != 0) return -1;
    for (size_t i = 0; i < b->nstores; i++) { /* index/refs_ptr.h */
        const struct mg_refs_store *s = &b->stores[i];
        struct mg_idx_row p = {.file_id = fid, .index = (int64_t)i, .name = s->fn, .container = s->type,
                               .field = s->field, .ordinal = s->ordinal, .start_line = s->line};
        if (mg_idx_add_ptr_store(w->d, &p, err) != 0) return -1;
    }
    for (size_t i = 0; i < b->ncalls; i++) {
        const struct mg_refs_store *s = &b->calls[i];
        struct mg_idx_row p = {.file_id = fid, .index = (int64_t)i, .field = s->field, .container = s->type,
                               .start_line = s->line};
        if (mg_idx_add_ptr_call(w->d, &p, err) != 0) return -1;
    }
    return 0;
}

int mg__write_result(struct writer *w, struct result *r, struct mg_index_stats *st, struct mg_err *err)
{
    if (r->old_id && mg__delete_file(w, r->old_id, err) != 0) return -1;
    const struct mg_parsed *p = &r->parsed;
    /* chunk ids: a sequence number with the chunk's lengths (rank.h) */
    int64_t *cids = malloc((p->nchunks + 1) * sizeof(int64_t));
    if (!cids) return mg_err_oom(err);
    for (size_t i = 0; i < p->nchunks; i++) {
        const uint32_t *o = r->fts_off;
        cids[i] = mg_chunk_id(w->next_chunk++, count_tokens(r->fts + o[2 * i + 2], o[2 * i + 3] - o[2 * i + 2]),
                              count_tokens(r->fts + o[2 * i + 1], o[2 * i + 2] - o[2 * i + 1]));
    }
    int64_t clo = p->nchunks ? cids[0] : 1, chi = p->nchunks ? cids[p->nchunks - 1] : 0, slo = w->next_sym;
    struct mg_idx_row f = {.id = r->fid, .path = r->path, .lang = r->lang, .size = (int64_t)r->len,
                           .hash = r->hash, .mtime = r->mtime, .lines = p->nlines, .flags = r->flags,
                           .chunk_lo = clo, .chunk_hi = chi, .sym_lo = slo, .sym_hi = slo + (int64_t)p->defs.n - 1,
                           .blob = r->blob, .bloblen = r->bloblen};
    if (mg_idx_add_file(w->d, &f, err) != 0) {
        free(cids);
        return -1;
    }
    int64_t fid = r->fid;
    int rc = -1;
    w->changed = true;
    w->d_files++;
    w->d_bytes += (int64_t)r->len;
    w->d_chunks += (int64_t)p->nchunks;
    w->d_symbols += (int64_t)p->defs.n;

    for (size_t i = 0; i < p->nchunks; i++) {
        const struct mg_chunk *c = &p->chunks[i];
        const struct mg_def *d = c->def >= 0 ? &p->defs.v[c->def] : NULL;
        struct mg_idx_row ch = {.id = cids[i], .file_id = fid, .start_line = (int)c->start_line,
                                .end_line = (int)c->end_line, .start_byte = c->start_byte, .end_byte = c->end_byte,
                                .symbol = d ? d->name : NULL, .kind = d ? d->kind : NULL,
                                .container = d ? d->container : NULL};
        if (mg_idx_add_chunk(w->d, &ch, err) != 0) goto out;
        const uint32_t *o = r->fts_off;
        if (mg_idx_add_words(w->d, cids[i], r->fts + o[0], o[1] - o[0], r->fts + o[2 * i + 1],
                             o[2 * i + 2] - o[2 * i + 1], r->fts + o[2 * i + 2], o[2 * i + 3] - o[2 * i + 2], err) != 0)
            goto out;
    }
    for (size_t i = 0; i < p->defs.n; i++) {
        const struct mg_def *d = &p->defs.v[i];
        struct mg_idx_row sy = {.id = w->next_sym++, .file_id = fid, .name = d->name, .kind = d->kind,
                                .container = d->container, .start_line = (int)p->def_lines[2 * i],
                                .end_line = (int)p->def_lines[2 * i + 1]};
        if (mg_idx_add_symbol(w->d, &sy, err) != 0) goto out;
    }
    if (r->has_refs && insert_refs(w, fid, &r->refs, err) != 0) goto out;
    st->chunks_written += p->nchunks;
    st->symbols_written += p->defs.n;
    rc = 0;
out:
    free(cids);
    return rc;
}

/* Rows of table refs for the files an index of schema 2 holds (store/db.c):
 * from their stored text and symbols, once; meta refs_ready says it is done. */
int mg__fill_refs(struct writer *w, struct mg_err *err)
{
    if (mg_db_meta_int(w->d, "refs_ready", 0)) return 0;
    w->changed = true;
    struct mg_idx_cur sel = {0}, syms = {0};
    struct mg_idx_row row, sr;
    int rc = -1;
    if (mg_idx_files_without_refs(w->d, &sel, err) != 0) goto out;
    for (;;) {
        int s = mg_idx_next(&sel, &row);
        if (s == 0) break;
        if (s < 0) {
            mg_db_error(w->d, "read files", err);
            goto out;
        }
        const char *lang = row.lang;
        if (!mg_lex_known(lang)) continue;
        int64_t id = row.id, lo = row.sym_lo, hi = row.sym_hi;
        char *text = NULL;
        size_t len = 0;
        if (mg_idx_text(&row, (size_t)row.size, &text, &len) != 0) {
            mg_err_set(err, MG_E_DB, "stored text of file %lld is corrupt; remove the repo and index it again",
                       (long long)id);
            goto out;
        }
        size_t n = 0, cap = lo <= hi ? (size_t)(hi - lo + 1) : 0;
        char **names = calloc(cap + 1, sizeof(char *)), **kinds = calloc(cap + 1, sizeof(char *));
        bool failed = !names || !kinds;
        if (!failed && mg_idx_symbols(w->d, lo, hi, false, &syms, err) != 0) {
            free(text);
            free(names);
            free(kinds);
            goto out;
        }
        while (!failed && n < cap && mg_idx_next(&syms, &sr) > 0) {
            names[n] = strdup(sr.name);
            kinds[n] = strdup(sr.kind);
            failed = !names[n] || !kinds[n];
            n++;
        }
        mg_idx_done(&syms);
        struct mg_refs_blobs b;
        int brc = failed ? -1 : mg_refs_build(lang, text, len, (const char *const *)names,
                                               (const char *const *)kinds, n, &b);
        for (size_t i = 0; i < n; i++) {
            free(names ? names[i] : NULL);
            free(kinds ? kinds[i] : NULL);
        }
        free(names);
        free(kinds);
        free(text);
        if (brc < 0) {
            mg_err_oom(err);
            goto out;
        }
        int irc = brc == 0 ? insert_refs(w, id, &b, err) : 0;
        mg_refs_blobs_release(&b);
        if (irc != 0) goto out;
    }
    rc = 0;
out:
    mg_idx_done(&sel);
    mg_idx_done(&syms);
    return rc;
}
