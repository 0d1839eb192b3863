/* chunk.c — chunks along definitions, windows elsewhere (see chunk.h).
 *
 * Sections:
 *   1. lines: a line-start table and byte -> line lookups
 *   2. windows: cutting a byte range into line windows under the caps
 *   3. definitions: the language's chunker (chunker.h) finds them; comments join them
 *   4. the recursive cut along definitions
 */
#include "index/chunk.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "index/chunker.h"

/* ---- 1. lines ------------------------------------------------------------ */

struct lines {
    const char *text;
    size_t len;
    uint32_t *start; /* start[i] = byte offset of line i+1 */
    uint32_t n;
};

static int lines_build(struct lines *L, const char *text, size_t len)
{
    L->text = text;
    L->len = len;
    uint32_t n = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + len - p))); p++) n++;
    if (len > 0 && text[len - 1] == '\n') n--; /* a final newline ends the last line */
    L->start = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!L->start) return -1;
    uint32_t k = 0;
    L->start[k++] = 0;
    for (size_t i = 0; i < len && k < n; i++)
        if (text[i] == '\n') L->start[k++] = (uint32_t)(i + 1);
    L->n = n;
    L->start[n] = (uint32_t)len;
    return 0;
}

/* 1-based line containing byte off. */
static uint32_t line_of(const struct lines *L, uint32_t off)
{
    uint32_t lo = 0, hi = L->n;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (L->start[mid] <= off) lo = mid;
        else hi = mid;
    }
    return lo + 1;
}

/* Line of the last byte of [s, e). */
static uint32_t end_line_of(const struct lines *L, uint32_t s, uint32_t e)
{
    return line_of(L, e > s ? e - 1 : s);
}

/* ---- 2. windows ----------------------------------------------------------- */

static int push_chunk(struct mg_parsed *p, const struct lines *L, uint32_t s, uint32_t e, int def)
{
    if (e <= s) return 0;
    if (p->nchunks == p->capchunks) {
        size_t cap = p->capchunks ? p->capchunks * 2 : 32;
        struct mg_chunk *c = realloc(p->chunks, cap * sizeof(*c));
        if (!c) return -1;
        p->chunks = c;
        p->capchunks = cap;
    }
    p->chunks[p->nchunks++] = (struct mg_chunk){s, e, line_of(L, s), end_line_of(L, s, e), def};
    return 0;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\f' && s[i] != '\v')
            return false;
    return true;
}

/* Back up from off to a UTF-8 character boundary (never below lo). */
static uint32_t utf8_floor(const char *t, uint32_t off, uint32_t lo)
{
    while (off > lo && ((unsigned char)t[off] & 0xc0) == 0x80) off--;
    return off;
}

/* Cut [s, e) into windows of at most `lines` lines and max_bytes bytes,
 * attributed to def. Blank windows are dropped when skip_blank. */
static int windows(struct mg_parsed *p, const struct lines *L, uint32_t s, uint32_t e, int lines, size_t max_bytes,
                   int def, bool skip_blank)
{
    while (s < e) {
        uint32_t l0 = line_of(L, s);
        uint32_t lend = l0 - 1 + (uint32_t)lines; /* index of the line after the window */
        uint32_t w = lend < L->n ? L->start[lend] : (uint32_t)L->len;
        if (w > e) w = e;
        if (w - s > max_bytes) {
            /* too many bytes: end at the last line start that fits, else mid-line */
            uint32_t lim = s + (uint32_t)max_bytes, cut = 0;
            for (uint32_t k = l0; k < L->n && L->start[k] <= lim; k++)
                if (L->start[k] > s) cut = L->start[k];
            w = cut ? cut : utf8_floor(L->text, lim, s + 1);
            if (w <= s) w = lim;
        }
        if (!(skip_blank && blank(L->text + s, w - s)) && push_chunk(p, L, s, w, def) != 0) return -1;
        s = w;
    }
    return 0;
}

/* ---- 3. definitions --------------------------------------------------------- */

/* Extend a definition's start up over the comment lines right above it
 * (no blank line between), but never before `floor`. */
static uint32_t with_comments(const struct lines *L, const struct mg_chunker *ch, uint32_t start, uint32_t floor)
{
    uint32_t line = line_of(L, start); /* 1-based */
    uint32_t best = start;
    while (line > 1) {
        uint32_t ls = L->start[line - 2], le = L->start[line - 1];
        if (ls < floor || !ch->ops->comment_line(ch, L->text + ls, le - ls)) break;
        best = ls;
        line--;
    }
    /* from the start of the definition's own line, if only blanks precede it there */
    uint32_t own = L->start[line_of(L, start) - 1];
    if (best == start && own >= floor && blank(L->text + own, start - own)) best = own;
    return best;
}

/* ---- 4. the recursive cut ---------------------------------------------------- */

struct cut {
    struct mg_parsed *p;
    const struct lines *L;
    const struct mg_chunk_opts *o;
    uint32_t *ext_start; /* per def: start extended over comments */
};

static bool fits(const struct cut *c, uint32_t s, uint32_t e)
{
    return e - s <= c->o->max_bytes &&
           (int)(end_line_of(c->L, s, e) - line_of(c->L, s) + 1) <= c->o->max_lines;
}

static bool chunk_worthy(const struct mg_def *d)
{
    return mg_kind_chunk_worthy(d->kind);
}

/* End of the line holding byte off-1 (just past its '\n'), capped at lim:
 * what follows a definition on its last line (`;`, `};`, a trailing
 * comment) belongs to it. */
static uint32_t line_tail(const struct lines *L, uint32_t off, uint32_t lim)
{
    if (off == 0 || off >= lim) return off;
    uint32_t line = line_of(L, off - 1); /* 1-based; start[line] is the next line's start */
    uint32_t next = line < L->n ? L->start[line] : (uint32_t)L->len;
    return next < lim ? next : lim;
}

/* Cut [s, e) whose direct definitions are the children of `parent` (-1: top
 * level); gaps between them are windows attributed to gap_def. */
static int cut_range(struct cut *c, uint32_t s, uint32_t e, int parent, int gap_def)
{
    struct mg_defs *D = &c->p->defs;
    /* the chunk-worthy children, in order */
    size_t *kids = malloc((D->n + 1) * sizeof(size_t)), nk = 0;
    if (!kids) return -1;
    for (size_t i = 0; i < D->n; i++)
        if (D->v[i].parent == parent && chunk_worthy(&D->v[i])) kids[nk++] = i;
    uint32_t pos = s;
    int rc = 0;
    for (size_t k = 0; k < nk && rc == 0; k++) {
        size_t i = kids[k];
        struct mg_def *d = &D->v[i];
        uint32_t ds = c->ext_start[i] > pos ? c->ext_start[i] : pos, de = d->end;
        if (de <= ds || d->start < pos || de > e) continue; /* overlapping or outside: left to windows */
        uint32_t next = k + 1 < nk && c->ext_start[kids[k + 1]] > de ? c->ext_start[kids[k + 1]] : e;
        if (k + 1 < nk && D->v[kids[k + 1]].start < de) next = de;
        de = line_tail(c->L, de, next);
        if (windows(c->p, c->L, pos, ds, MG_WINDOW_LINES, c->o->max_bytes, gap_def, true) != 0) rc = -1;
        else if (fits(c, ds, de)) rc = push_chunk(c->p, c->L, ds, de, (int)i);
        else if (d->is_container) rc = cut_range(c, ds, de, (int)i, (int)i);
        else rc = windows(c->p, c->L, ds, de, c->o->max_lines, c->o->max_bytes, (int)i, false);
        pos = de;
    }
    free(kids);
    if (rc != 0) return -1;
    return windows(c->p, c->L, pos, e, MG_WINDOW_LINES, c->o->max_bytes, gap_def, true);
}

int mg_chunk_file(const struct mg_lang *lang, const char *text, size_t len, const struct mg_chunk_opts *o,
                  TSParser *parser, struct mg_parsed *p)
{
    memset(p, 0, sizeof(*p));
    struct lines L = {0};
    if (len >= UINT32_MAX || lines_build(&L, text, len) != 0) return -1;
    p->nlines = len ? L.n : 0;
    int rc = -1;
    const struct mg_chunker *ch = len > 0 ? mg_chunker_for(lang) : NULL;
    if (ch) {
        int d = ch->ops->definitions(ch, lang, text, len, o, parser, &p->defs);
        if (d < 0) goto out;
        if (d > 0) { /* it cannot be parsed: windows only */
            mg_defs_release(&p->defs);
            p->parse_failed = 1;
        }
    }
    if (p->defs.n > 0) {
        p->def_lines = malloc(p->defs.n * 2 * sizeof(uint32_t));
        uint32_t *ext = malloc(p->defs.n * sizeof(uint32_t));
        /* last_end[parent + 1]: end of the latest sibling seen (pre-order) */
        uint32_t *last_end = calloc(p->defs.n + 1, sizeof(uint32_t));
        if (!p->def_lines || !ext || !last_end) {
            free(ext);
            free(last_end);
            goto out;
        }
        for (size_t i = 0; i < p->defs.n; i++) {
            struct mg_def *d = &p->defs.v[i];
            p->def_lines[2 * i] = line_of(&L, d->start);
            p->def_lines[2 * i + 1] = end_line_of(&L, d->start, d->end);
            /* comments above may reach back to the end of the previous
             * sibling, or the start of the parent */
            uint32_t floor = d->parent >= 0 ? p->defs.v[d->parent].start : 0;
            uint32_t *le = &last_end[d->parent + 1];
            if (*le <= d->start && *le > floor) floor = *le;
            ext[i] = with_comments(&L, ch, d->start, floor);
            if (d->end > *le) *le = d->end;
        }
        free(last_end);
        struct cut c = {p, &L, o, ext};
        rc = cut_range(&c, 0, (uint32_t)len, -1, -1);
        free(ext);
    } else {
        rc = windows(p, &L, 0, (uint32_t)len, MG_WINDOW_LINES, o->max_bytes, -1, true);
    }
out:
    free(L.start);
    return rc;
}

void mg_parsed_release(struct mg_parsed *p)
{
    free(p->chunks);
    free(p->def_lines);
    mg_defs_release(&p->defs);
    memset(p, 0, sizeof(*p));
}
