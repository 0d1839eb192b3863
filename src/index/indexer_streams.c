/* indexer_streams.c — the token streams of a file's word rows: the path,
 * then per chunk its symbol column and body (indexer_int.h). */
#include "index/indexer_int.h"

#include <stdlib.h>
#include <string.h>

#include "index/defs.h"

/* Each token of out from s0 on followed by its mark (MG_TOKEN_MARK and the
 * token): the symbol column's marks, which the tokenizer gives FTS5 at the
 * same position (no length counted), and which only the search of a common
 * word asks for (store/indexdb_chunks.c). */
static int mark(struct mg_buf *out, size_t s0, struct mg_buf *tmp)
{
    mg_buf_reset(tmp);
    if (mg_buf_add(tmp, out->p + s0, out->len - s0) != 0 || mg_buf_addc(tmp, 0) != 0) return -1;
    out->len = s0;
    int bad = 0;
    for (const char *t = tmp->p; *t;) {
        size_t n = strcspn(t, " ");
        bad |= (out->len > s0 ? mg_buf_addc(out, ' ') : 0) | mg_buf_add(out, t, n) | mg_buf_addc(out, ' ') |
               mg_buf_addc(out, MG_TOKEN_MARK) | mg_buf_add(out, t, n);
        t += n;
        while (*t == ' ') t++;
    }
    return bad ? -1 : 0;
}

int mg__build_streams(struct mg_token_set *ts, struct mg_buf *scratch, const struct stream_src *s,
                         struct mg_buf *out, uint32_t *off)
{
    mg_buf_reset(out);
    off[0] = 0;
    if (mg_token_stream(ts, s->path, strlen(s->path), out) != 0) return -1;
    off[1] = (uint32_t)out->len;
    size_t d0 = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct stream_chunk *c = &s->c[i];
        mg_buf_reset(scratch);
        if (c->sym) mg_buf_adds(scratch, c->sym);
        if (c->sym && c->container) mg_buf_addf(scratch, " %s", c->container);
        while (d0 < s->ndefs && s->defs[d0].line < c->line0) d0++;
        for (size_t k = d0; k < s->ndefs && s->defs[k].line <= c->line1; k++)
            mg_buf_addf(scratch, " %s", s->defs[k].name);
        size_t s0 = out->len;
        if (scratch->len && mg_token_stream(ts, scratch->p, scratch->len, out) != 0) return -1;
        if (s->marks && out->len > s0 && mark(out, s0, scratch) != 0) return -1;
        off[2 * i + 2] = (uint32_t)out->len;
        if (mg_token_stream(ts, s->text + c->start, c->end - c->start, out) != 0) return -1;
        off[2 * i + 3] = (uint32_t)out->len;
    }
    return 0;
}

static int cmp_stream_def(const void *a, const void *b)
{
    const struct stream_def *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

void mg__stream_defs_sort(struct stream_def *defs, size_t nd)
{
    for (size_t i = 1; i < nd; i++)
        if (defs[i].line < defs[i - 1].line) {
            qsort(defs, nd, sizeof(*defs), cmp_stream_def);
            return;
        }
}

/* The streams of a freshly chunked file. */
int mg__result_streams(struct result *r, struct mg_token_set *ts, struct mg_buf *scratch, bool marks)
{
    const struct mg_parsed *p = &r->parsed;
    size_t n = p->nchunks;
    struct stream_chunk *c = malloc((n + 1) * sizeof(*c));
    struct stream_def *defs = malloc((p->defs.n + 1) * sizeof(*defs));
    r->fts_off = malloc((2 * n + 2) * sizeof(uint32_t));
    int rc = -1;
    if (!c || !defs || !r->fts_off) goto out;
    for (size_t i = 0; i < n; i++) {
        const struct mg_chunk *k = &p->chunks[i];
        const struct mg_def *d = k->def >= 0 ? &p->defs.v[k->def] : NULL;
        c[i] = (struct stream_chunk){k->start_byte, k->end_byte, k->start_line, k->end_line,
                                     d ? d->name : NULL, d ? d->container : NULL};
    }
    size_t nd = 0;
    for (size_t i = 0; i < p->defs.n; i++)
        if (!mg_kind_member(p->defs.v[i].kind))
            defs[nd++] = (struct stream_def){p->def_lines[2 * i], p->defs.v[i].name};
    /* stable order for equal lines: the writer reads them back by id, which is this order */
    mg__stream_defs_sort(defs, nd);
    struct stream_src src = {r->path, r->text, c, n, defs, nd, marks};
    struct mg_buf out;
    mg_buf_init(&out, UINT32_MAX - 1);
    rc = mg__build_streams(ts, scratch, &src, &out, r->fts_off);
    r->fts = mg_buf_detach(&out, NULL);
out:
    free(c);
    free(defs);
    return rc;
}
