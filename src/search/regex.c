/* regex.c — regex and fixed-string search: the trigram index narrows the
 * files (store/rxlit.h, store/trigram.h), PCRE2 confirms each one, and a hit
 * is made per chunk with matches, listing its matching lines; past the
 * limit, matches are only counted (search_int.h).
 *
 * Sections:
 *   1. a file's chunks and lines
 *   2. confirming one file
 *   3. mg__regex: candidates, then files
 */
#include "search/search_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "store/rxlit.h"
#include "store/trigram.h"
#include "util/buf.h"

#define REGEX_MATCH_LIMIT 10000000u
#define REGEX_DEPTH_LIMIT 100000u
#define MATCHES_PER_FILE 10000

/* One regex search of a repo: where its hits go, the compiled pattern, and
 * the text read past the limit only to count (MG_COUNT_BYTES_MAX). */
struct rx {
    struct mg__repo *r;
    struct mg_results *out;
    size_t base;
    int limit;
    pcre2_code *re;
    pcre2_match_data *md;
    pcre2_match_context *mc;
    size_t counted_bytes;
};

/* ---- 1. a file's chunks and lines ------------------------------------------------------------- */

struct fchunk {
    int64_t start, end;
    int start_line, end_line;
    char *symbol, *kind;
};

static void fchunks_free(struct fchunk *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].symbol);
        free(v[i].kind);
    }
    free(v);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* A file's chunks (ids lo..hi, in file order). */
static int load_chunks(struct mg__repo *r, int64_t lo, int64_t hi, struct fchunk **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    struct mg_idx_cur c;
    struct mg_idx_row row;
    if (mg_idx_chunks(r->d, lo, hi, &c, r->err) != 0) return -1;
    while (mg_idx_next(&c, &row) > 0) {
        struct fchunk *v = mg_grow(*out, *n, &cap, sizeof(*v));
        if (!v) {
            mg_idx_done(&c);
            return mg_err_oom(r->err);
        }
        *out = v;
        struct fchunk *f = &(*out)[(*n)++];
        f->start = row.start_byte;
        f->end = row.end_byte;
        f->start_line = row.start_line;
        f->end_line = row.end_line;
        f->symbol = dup_or_null(row.symbol);
        f->kind = dup_or_null(row.kind);
    }
    mg_idx_done(&c);
    return 0;
}

/* Index of the chunk containing byte off, or -1. */
static ssize_t chunk_at(const struct fchunk *v, size_t n, int64_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].end <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].start <= off ? (ssize_t)lo : -1;
}

static int line_of_off(const char *t, size_t off, size_t from, int from_line)
{
    int line = from_line;
    for (size_t i = from; i < off; i++)
        if (t[i] == '\n') line++;
    return line;
}

/* The line of byte off, counting from byte from on line from_line, and in
 * *lstart the start of that line (left as is when it is from_line). */
static int line_and_start(const char *t, size_t off, size_t from, int from_line, size_t *lstart)
{
    int line = from_line;
    for (size_t i = from; i < off; i++)
        if (t[i] == '\n') {
            line++;
            *lstart = i + 1;
        }
    return line;
}

/* ---- 2. confirming one file ------------------------------------------------------------------- */

/* A candidate file (mg_idx_file_in's row). */
struct rfile {
    int64_t id, chunk_lo, chunk_hi, sym_lo, sym_hi;
    const char *path, *lang;
};

/* The innermost definition of the file (symbols lo..hi) around `line`:
 * symbol and kind into h (a regex hit names the function a line is in,
 * where its chunk may be a whole class). Not a macro, and not a member: a
 * hit on a field's line names its struct. */
static void innermost_symbol(struct mg__repo *r, const struct rfile *f, int line, struct mg_hit *h)
{
    if (f->sym_lo > f->sym_hi) return;
    struct mg_idx_cur c;
    struct mg_idx_row row;
    if (mg_idx_innermost(r->d, f->sym_lo, f->sym_hi, line, &c, NULL) != 0) return;
    if (mg_idx_next(&c, &row) > 0) {
        free(h->symbol);
        free(h->kind);
        h->symbol = dup_or_null(row.name);
        h->kind = dup_or_null(row.kind);
    }
    mg_idx_done(&c);
}

/* Confirm one file: append a hit per chunk with matches, each listing its
 * matching lines, until `limit` hits; past that, only count the matches
 * (c->out->total_matches; no chunks, symbols or lines) until the count
 * passes MG_TOTAL_MATCHES_MAX. */
static int regex_file(struct rx *c, const struct rfile *rf)
{
    struct mg__repo *r = c->r;
    pcre2_code *re = c->re;
    pcre2_match_data *md = c->md;
    pcre2_match_context *mc = c->mc;
    int limit = c->limit;
    int64_t fid = rf->id;
    const char *path = rf->path, *lang = rf->lang;
    struct mg_text *ft;
    int got = mg__file_text(r, fid, &ft);
    if (got != 0) return got < 0 ? -1 : 0; /* 1: the file left the index meanwhile */
    const char *t = ft->text;
    size_t len = ft->len;
    struct fchunk *ch = NULL;
    size_t nch = 0;
    bool loaded = false;
    ssize_t cur = -2;          /* chunk of the current hit */
    struct mg_hit *h = NULL;
    size_t off = 0, lastpos = 0, ls = 0; /* ls: the start of line lastline */
    int lastline = 1, hline = 0, matches = 0, rc = 0;
    bool counting = c->out->n - c->base >= (size_t)limit; /* the hits are all there: count only */
    struct mg_results *out = c->out;
    if (counting) c->counted_bytes += len;
    while (off <= len) {
        int m = pcre2_match(re, (PCRE2_SPTR)t, len, off, 0, md, mc);
        if (m == PCRE2_ERROR_NOMATCH) break;
        if (m < 0) {
            if (m == PCRE2_ERROR_MATCHLIMIT || m == PCRE2_ERROR_DEPTHLIMIT || m == PCRE2_ERROR_HEAPLIMIT)
                fprintf(stderr, "warning: regex too costly in '%s'; file skipped\n", path);
            out->total_capped = true; /* the rest of the file is not counted */
            break;
        }
        if (matches == MATCHES_PER_FILE || (counting && out->total_matches >= MG_TOTAL_MATCHES_MAX)) {
            out->total_capped = true; /* one more match than counted */
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t ms = ov[0], me = ov[1];
        matches++;
        out->total_matches++;
        off = me > ms ? me : ms + 1;
        /* do not start the next match inside a UTF-8 sequence */
        while (off < len && ((unsigned char)t[off] & 0xc0) == 0x80) off++;
        if (counting) continue;
        if (!loaded) {
            if (load_chunks(r, rf->chunk_lo, rf->chunk_hi, &ch, &nch) != 0) {
                rc = -1;
                break;
            }
            loaded = true;
        }
        int line = line_and_start(t, ms, lastpos, lastline, &ls);
        lastpos = ms;
        lastline = line;
        ssize_t k = chunk_at(ch, nch, (int64_t)ms);
        if (k != cur || k < 0) {
            if (out->n - c->base >= (size_t)limit) {
                counting = true;
                continue;
            }
            h = mg__hit_new(out);
            if (!h) {
                rc = mg_err_oom(r->err);
                break;
            }
            cur = k;
            hline = 0;
            snprintf(h->repo, sizeof(h->repo), "%s", r->repo->id);
            h->path = strdup(path);
            h->language = strdup(lang);
            h->line = line;
            if (k >= 0) {
                h->start_line = ch[k].start_line;
                h->end_line = ch[k].end_line;
                h->symbol = ch[k].symbol ? strdup(ch[k].symbol) : NULL;
                h->kind = ch[k].kind ? strdup(ch[k].kind) : NULL;
            } else {
                h->start_line = h->end_line = line;
            }
            innermost_symbol(r, rf, line, h);
            /* the matching line(s): up to three lines from the match start */
            int mlast = line_of_off(t, me > ms ? me - 1 : ms, ms, line);
            if (mlast > line + 2) mlast = line + 2;
            h->snippet = mg__snippet_lines(t, len, ls, line, line, mlast);
            h->snippet_line = line;
        }
        h->score += 1;
        h->match_count++;
        if (line != hline) { /* each matching line once */
            hline = line;
            if (mg__hit_add_line(r, h, t, len, ls, line) != 0) {
                rc = mg_err_oom(r->err);
                break;
            }
        }
    }
    fchunks_free(ch, nch);
    return rc;
}

/* Does the next candidate file need reading: for hits, or to count? */
static bool regex_more(struct rx *c)
{
    if (c->out->n - c->base < (size_t)c->limit) return true;
    if (c->out->total_capped) return false;
    if (c->counted_bytes >= MG_COUNT_BYTES_MAX) { /* counting past the limit has had its share */
        c->out->total_capped = true;
        return false;
    }
    return true;
}

/* ---- 3. mg__regex: candidates, then files ------------------------------------------------------- */

/* Confirm the candidate in row (mg_idx_file_in's). */
static int regex_row(struct rx *c, const struct mg_idx_row *row)
{
    struct rfile rf = {row->id, row->chunk_lo, row->chunk_hi, row->sym_lo, row->sym_hi, row->path, row->lang};
    c->out->candidates++;
    return regex_file(c, &rf);
}

int mg__regex(struct mg__repo *r, const char *pattern, bool fixed, bool caseless, struct mg_results *out,
              size_t base, int limit)
{
    if (out->total_matches < 0) out->total_matches = 0;
    int ec;
    PCRE2_SIZE eo;
    /* (PCRE2_LITERAL refuses PCRE2_MULTILINE, which a literal does not need) */
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (caseless ? PCRE2_CASELESS : 0) |
                    (fixed ? PCRE2_LITERAL : PCRE2_MULTILINE);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &eo, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        return mg_err_set(r->err, MG_E_BAD_REGEX, "invalid regex at offset %zu: %s; fix it or pass `fixed` to search for the text as written",
                          (size_t)eo, (const char *)msg);
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    struct rx c = {.r = r, .out = out, .base = base, .limit = limit, .re = re,
                   .md = pcre2_match_data_create_from_pattern(re, NULL), .mc = pcre2_match_context_create(NULL)};
    struct mg_rx_node *f = NULL;
    struct mg_ids ids = {0};
    struct mg_idx_cur files = {0};
    struct mg_idx_row row;
    int rc = -1;
    if (!c.md || !c.mc) {
        mg_err_oom(r->err);
        goto out;
    }
    pcre2_set_match_limit(c.mc, REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(c.mc, REGEX_DEPTH_LIMIT);
    if (mg_rxlit_analyze(pattern, strlen(pattern), (caseless ? MG_RX_CASELESS : 0) | (fixed ? MG_RX_FIXED : 0), &f,
                         r->err) != 0)
        goto out;
    if (mg_tri_candidates(r->d, f, &ids, r->err) != 0) goto out;
    if (ids.all) {
        if (mg_idx_files_in(r->d, &r->filter, &files, r->err) != 0) goto out;
        while (mg_idx_next(&files, &row) > 0 && regex_more(&c))
            if (regex_row(&c, &row) != 0) goto out;
    } else {
        for (size_t i = 0; i < ids.n && regex_more(&c); i++) {
            if (mg_idx_file_in(r->d, &r->filter, ids.v[i], &files, r->err) != 0) goto out;
            int got = mg_idx_next(&files, &row);
            if (got > 0 && regex_row(&c, &row) != 0) goto out; /* (none: deleted, or out of scope) */
            mg_idx_done(&files);
        }
    }
    rc = 0;
out:
    mg_idx_done(&files);
    mg_ids_release(&ids);
    mg_rxlit_free(&f);
    pcre2_match_context_free(c.mc);
    pcre2_match_data_free(c.md);
    pcre2_code_free(re);
    return rc;
}
