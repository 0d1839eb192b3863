/* enclose.c — the enclosing definition of search hits (code.h): for each
 * hit, the innermost definition of the symbols table whose lines hold the
 * hit's line, its signature, and its text from the index's stored text
 * (which the index redacted; the gate cleans it again on its way out), so
 * that lines match the ones search saw.
 *
 * A struct's field or an enum's member stands for its struct or enum.
 * The text is the whole definition, with the comment lines its chunk holds
 * above it, when it spans at most max_lines lines; else a window of
 * max_lines lines centred on the hit's line. A hit in no definition (text
 * between definitions, a file without a grammar) stands for its chunk's
 * lines, windowed the same way. The text is cut at a line end to
 * max_chunk_bytes (one longer line: at a character boundary), and body_*
 * says which lines it holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code/code.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "util/utf8.h"

/* ---- signatures (the outline's too, read.c) ---- */

#define SIG_MAX MG_CODE_SIG_MAX
#define SIG_LINES 8  /* most lines one spans */

bool mg_code_callable(const char *kind)
{
    return strcmp(kind, "function") == 0 || strcmp(kind, "method") == 0 || strcmp(kind, "constructor") == 0;
}

/* The signature of a definition whose first line starts at p (text ends at
 * e), spanning `lines` lines, into out (SIG_MAX + 1 bytes): its text up to
 * the `{` that opens its body, or to the end of the first line that closes
 * its brackets (a function's, once it has its parameters: a C return type on
 * a line of its own is kept), whitespace collapsed. Decorators and
 * attributes before it (@x(..), #[x]) are left out. */
void mg_code_signature(const char *p, const char *e, int64_t lines, bool fn, char *out)
{
    char b[SIG_MAX + 2];
    size_t n = 0;
    int depth = 0, line = 1, used = 0;
    bool paren = false, space = false, deco = false;
    for (; p < e && n <= SIG_MAX; p++) {
        char c = *p;
        if (c == '\n') {
            if (deco) deco = depth > 0;
            else if (n && depth == 0 && (paren || !fn)) break;
            if (++line > lines || (n && ++used >= SIG_LINES)) break;
            space = n > 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
            if (deco && depth == 0) deco = false; /* the end of `@Override` in `@Override void f()` */
            space = n > 0;
            continue;
        }
        if (n == 0 && !deco && (c == '@' || (c == '#' && p + 1 < e && p[1] == '['))) deco = true;
        if (c == '(' || c == '[') {
            depth++;
            paren |= c == '(' && !deco;
        } else if ((c == ')' || c == ']') && depth > 0) {
            depth--;
        } else if (c == '{' && depth == 0 && !deco) {
            break;
        }
        if (deco) continue;
        if (space) b[n++] = ' ';
        space = false;
        if (n <= SIG_MAX) b[n++] = c;
    }
    bool cut = n > SIG_MAX;
    if (cut) n = mg_utf8_cut(b, n, SIG_MAX - 3);
    while (n && (b[n - 1] == ' ' || (!cut && b[n - 1] == '\\'))) n--; /* a macro's line continuation */
    memcpy(out, b, n);
    strcpy(out + n, cut ? "..." : "");
}

/* ---- enclosing definitions ---- */

#define DOC_LINES_MAX 30 /* comment lines above a definition that its text takes along */

struct enc {
    struct mg_code_self *self;
    const struct mg_pcall *pc;
    struct mg_err *err;
    const struct mg_repo *repo; /* whose database d is */
    struct mg_db *d;
    char *path;                 /* the file whose text is cached */
    int64_t fid, sym_lo, sym_hi;
    char *text;
    size_t len;
};

static void enc_close_db(struct enc *c)
{
    mg_db_put(c->self->pool, &c->d);
    c->repo = NULL;
    free(c->path);
    free(c->text);
    c->path = c->text = NULL;
}

/* Make h's file current: its id, symbol range and text. 1, 0 when the index
 * no longer holds it (the hit keeps no definition), -1 error. */
static int enc_file(struct enc *c, const struct mg_code_hit *h)
{
    const struct mg_repo *r = NULL;
    for (size_t i = 0; i < c->pc->nrepos && !r; i++)
        if (strcmp(c->pc->repos[i].id, h->repo) == 0) r = &c->pc->repos[i];
    if (!r) return 0;
    if (r != c->repo) {
        enc_close_db(c);
        if (mg_db_get(c->self->pool, r->dbpath, c->pc->deadline_ms, &c->d, c->err) != 0) return -1;
        c->repo = r;
    }
    if (c->path && strcmp(c->path, h->path) == 0) return 1;
    free(c->path);
    free(c->text);
    c->path = c->text = NULL;
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (mg_idx_file_by_path(c->d, h->path, MG_IDX_TEXT, &cur, c->err) != 0) return -1;
    int step = mg_idx_next(&cur, &row);
    if (step <= 0) {
        mg_idx_done(&cur);
        return step == 0 ? 0 : mg_db_error(c->d, "read the files table", c->err);
    }
    c->fid = row.id;
    c->sym_lo = row.sym_lo;
    c->sym_hi = row.sym_hi;
    if (mg_idx_text(&row, (size_t)row.size, &c->text, &c->len) != 0) {
        c->text = NULL;
        mg_idx_done(&cur);
        return mg_err_set(c->err, MG_E_DB, "the stored text of '%s' in repo '%s' is corrupt; index the repo again",
                          h->path, r->id);
    }
    mg_idx_done(&cur);
    if (!(c->path = strdup(h->path))) return mg_err_oom(c->err);
    return 1;
}

/* The start of line `line` (1-based) of the cached text, or its end. */
static const char *line_at(const struct enc *c, int64_t line)
{
    const char *p = c->text, *e = c->text + c->len;
    for (int64_t l = 1; l < line && p < e; l++) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        p = nl ? nl + 1 : e;
    }
    return p;
}

static int enc_hit(struct enc *c, struct mg_code_hit *h, int max_lines)
{
    int f = enc_file(c, h);
    if (f <= 0) return f;
    bool failed = false;
    int64_t line = h->line > 0 ? h->line : h->start_line;
    int64_t from = h->start_line, to = h->end_line; /* the chunk, unless a definition holds the line */
    if (c->sym_lo <= c->sym_hi) {
        /* the innermost definition holding the line; else (the line is a comment above it) the
         * definition the hit's chunk is named for, starting in the chunk */
        struct mg_idx_cur cur = {0};
        struct mg_idx_row row;
        int found = 0;
        for (int pass = 0; pass < 2 && found == 0; pass++) {
            if (pass == 1 && !h->symbol) break;
            if ((pass ? mg_idx_named_def(c->d, c->sym_lo, c->sym_hi, c->fid, (int)h->start_line, (int)h->end_line,
                                         h->symbol, &cur, c->err)
                      : mg_idx_enclosing(c->d, c->sym_lo, c->sym_hi, c->fid, (int)line, &cur, c->err)) != 0)
                return -1;
            found = mg_idx_next(&cur, &row);
            if (found <= 0) mg_idx_done(&cur);
            if (found < 0) return mg_db_error(c->d, "read the symbols table", c->err);
        }
        if (found > 0) {
            const char *kind = row.kind;
            h->def_name = mg_item_dup(row.name, &failed);
            h->def_kind = mg_item_dup(kind, &failed);
            h->def_container = mg_item_dup(row.container, &failed);
            h->def_start_line = row.start_line;
            h->def_end_line = row.end_line;
            char sig[MG_CODE_SIG_MAX + 1];
            mg_code_signature(line_at(c, h->def_start_line), c->text + c->len,
                              h->def_end_line - h->def_start_line + 1, kind && mg_code_callable(kind), sig);
            h->def_signature = mg_item_dup(sig, &failed);
            from = h->def_start_line;
            to = h->def_end_line;
            /* the comment above it, when the hit's chunk is the definition's and holds one */
            if (h->symbol && h->def_name && strcmp(h->symbol, h->def_name) == 0 && h->start_line < from &&
                h->start_line >= from - DOC_LINES_MAX && h->end_line >= from)
                from = h->start_line;
            mg_idx_done(&cur);
        }
    }
    if (to < from) to = from;
    if (to - from + 1 > max_lines) { /* a window centred on the line */
        int64_t ws = line - max_lines / 2;
        if (ws > to - max_lines + 1) ws = to - max_lines + 1;
        if (ws < from) ws = from;
        from = ws;
        to = ws + max_lines - 1;
    }
    /* lines [from, to], cut at a line end to max_chunk_bytes */
    const char *s = line_at(c, from), *e = c->text + c->len, *end = s;
    size_t cap = c->pc->cfg->max_chunk_bytes;
    int64_t last = from - 1;
    while (last < to && end < e) {
        const char *nl = memchr(end, '\n', (size_t)(e - end));
        const char *ne = nl ? nl + 1 : e;
        if ((size_t)(ne - s) > cap) {
            if (last < from) { /* one line over the cap: cut on a character boundary */
                end = s + mg_utf8_cut(s, (size_t)(ne - s), cap);
                last = from;
            }
            break;
        }
        end = ne;
        last++;
    }
    if (last < from) last = from;
    h->body = mg_item_dupn(s, (size_t)(end - s), &failed);
    h->body_start_line = from;
    h->body_end_line = last;
    free(h->snippet); /* the body says more */
    h->snippet = NULL;
    return failed ? mg_err_oom(c->err) : 0;
}

int mg_code_enclose(struct mg_code_self *self, const struct mg_pcall *pc, struct mg_items *out, size_t from,
                    int max_lines, struct mg_err *err)
{
    struct enc c = {.self = self, .pc = pc, .err = err};
    int rc = 0;
    for (size_t i = from; i < out->n && rc == 0; i++)
        if (out->v[i]->type == &mg_item_code_hit) rc = enc_hit(&c, (struct mg_code_hit *)out->v[i], max_lines);
    enc_close_db(&c);
    return rc;
}
