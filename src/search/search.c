/* search.c — a search request across repos (search.h): validation, then for
 * each repo its handle and one mode's run (lexical.c, regex.c, symbol.c,
 * semantic.c, fusion.c; search_int.h), then the merge: ranked hits by
 * score, regex hits by position, cut to the limit.
 *
 * Sections:
 *   1. validation
 *   2. freshness of hits
 *   3. mg_search: per repo, merge
 */
#include "search/search_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/lang.h"
#include "search/hybrid.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/utf8.h"

/* ---- 1. validation ----------------------------------------------------------------------------- */

int mg_mode_parse(const char *s, enum mg_mode *out, struct mg_err *err)
{
    if (strcmp(s, "lexical") == 0) *out = MG_MODE_LEXICAL;
    else if (strcmp(s, "regex") == 0) *out = MG_MODE_REGEX;
    else if (strcmp(s, "symbol") == 0) *out = MG_MODE_SYMBOL;
    else if (strcmp(s, "semantic") == 0) *out = MG_MODE_SEMANTIC;
    else if (strcmp(s, "hybrid") == 0) *out = MG_MODE_HYBRID;
    else if (strcmp(s, "auto") == 0) *out = MG_MODE_AUTO;
    else return mg_err_set(err, MG_E_BAD_MODE, "unknown search mode '%s'; use lexical, regex, symbol, semantic, "
                           "hybrid or auto", s);
    return 0;
}

int mg_search_validate(const struct mg_config *c, const struct mg_search_req *q, struct mg_err *err)
{
    size_t n = q->query ? strlen(q->query) : 0;
    if (n == 0) return mg_err_set(err, MG_E_QUERY_EMPTY, "the query is empty; give the text to search for");
    if (n > c->max_query_bytes)
        return mg_err_set(err, MG_E_QUERY_TOO_LONG, "the query is %zu bytes; the limit is %zu (max_query_bytes)", n,
                          c->max_query_bytes);
    if (mg_utf8_valid_prefix(q->query, n) != n)
        return mg_err_set(err, MG_E_QUERY_INVALID, "the query is not valid UTF-8; search for UTF-8 text");
    for (size_t i = 0; i < q->nlangs; i++) {
        if (!mg_lang_by_name(q->langs[i])) return mg_lang_unknown(q->langs[i], err);
    }
    if (q->limit < 0 || q->limit > c->search_max_limit)
        return mg_err_set(err, MG_E_USAGE, "limit %d is out of range; use 1 to %d", q->limit, c->search_max_limit);
    struct mg_globset *g;
    if (mg_globset_new(q->globs, q->nglobs, q->excludes, q->nexcludes, &g, err) != 0) return -1;
    mg_globset_free(&g);
    return 0;
}

/* ---- 2. freshness of hits ------------------------------------------------------------------------ */

/* The freshness contract: a hit whose file changed on disk since it was
 * indexed (size or mtime, or gone) says so, so that its lines are not taken
 * for the file's (the watcher re-indexes it within about a second). One
 * lookup and one stat per hit. */
static void mark_stale(struct mg__repo *r, struct mg_results *out, size_t base)
{
    if (out->n == base) return;
    int rootfd = open(r->repo->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = base; i < out->n; i++) {
        struct mg_hit *h = &out->v[i];
        struct mg_idx_cur c;
        struct mg_idx_row row;
        if (mg_idx_file_by_path(r->d, h->path, 0, &c, NULL) != 0) break;
        if (mg_idx_next(&c, &row) > 0) {
            struct stat sb;
            h->stale = rootfd < 0 || fstatat(rootfd, h->path, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
                       sb.st_size != row.size ||
                       (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec != row.mtime;
        }
        mg_idx_done(&c);
    }
    if (rootfd >= 0) close(rootfd);
}

/* ---- 3. mg_search: per repo, merge ---------------------------------------------------------------- */

/* Ranked hits: by score, ties by repo, path and lines (a total order: pages are prefix-stable) */
static int cmp_score(const void *a, const void *b)
{
    const struct mg_hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    int k = strcmp(x->repo, y->repo);
    if (!k) k = strcmp(x->path, y->path);
    if (k) return k;
    if (x->start_line != y->start_line) return x->start_line - y->start_line;
    if (x->end_line != y->end_line) return x->end_line - y->end_line;
    return x->line - y->line;
}

static int cmp_position(const void *a, const void *b)
{
    const struct mg_hit *x = a, *y = b;
    int k = strcmp(x->repo, y->repo);
    if (k) return k;
    k = strcmp(x->path, y->path);
    return k ? k : x->line - y->line;
}

/* regex and fixed-string hits read best in file order; ranked ones by score */
static bool positional(const struct mg_results *out)
{
    return strcmp(out->mode, "regex") == 0 || strcmp(out->mode, "fixed") == 0;
}

int mg_search(const struct mg_config *cfg, const struct mg_repo *repos, size_t nrepos, const struct mg_search_req *q,
              struct mg_results *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    out->total_matches = -1;
    double t0 = mg_clock_ms();
    if (mg_search_validate(cfg, q, err) != 0) return -1;
    int limit = q->limit > 0 ? q->limit : cfg->search_limit;
    enum mg_mode mode = q->mode;
    if (mode == MG_MODE_AUTO) mode = mg_query_is_natural(q->query) ? MG_MODE_HYBRID : MG_MODE_LEXICAL;
    int semantic_repos = 0;
    /* languages by their canonical names ("ts" and "tsx" are "typescript") */
    const char **langs = q->nlangs ? calloc(q->nlangs, sizeof(char *)) : NULL;
    if (q->nlangs && !langs) return mg_err_oom(err);
    for (size_t i = 0; i < q->nlangs; i++) langs[i] = mg_lang_by_name(q->langs[i])->name;
    out->mode = mode == MG_MODE_REGEX ? (q->fixed ? "fixed" : "regex") : mode == MG_MODE_SYMBOL ? "symbol"
              : mode == MG_MODE_SEMANTIC ? "semantic" : mode == MG_MODE_HYBRID ? "hybrid" : "lexical";
    struct mg_globset *globs = NULL;
    if (mg_globset_new(q->globs, q->nglobs, q->excludes, q->nexcludes, &globs, err) != 0) {
        free(langs);
        return -1;
    }
    /* the scope as text, which names it in caches (hybrid.c's candidates) */
    struct mg_buf key;
    mg_buf_init(&key, 1u << 20);
    int kr = 0;
    for (size_t i = 0; i < q->nglobs; i++) kr |= mg_buf_addf(&key, "+%s\x1f", q->globs[i]);
    for (size_t i = 0; i < q->nexcludes; i++) kr |= mg_buf_addf(&key, "-%s\x1f", q->excludes[i]);
    for (size_t i = 0; i < q->nlangs; i++) kr |= mg_buf_addf(&key, "=%s\x1f", langs[i]);
    int rc = 0, rank_off = mg_rank_off_parse(cfg->rank_off);
    for (size_t i = 0; i < nrepos && rc == 0; i++) {
        struct mg__repo r = {.cfg = cfg, .repo = &repos[i], .q = q, .err = err};
        r.terms.lines = mode == MG_MODE_LEXICAL;
        r.whole_read = mode == MG_MODE_LEXICAL || mode == MG_MODE_HYBRID;
        r.texts_alone = (rank_off & MG_RANK_TEXTS) != 0;
        r.lines_all = (rank_off & MG_RANK_LINES) != 0;
        r.filter.globs = globs;
        r.filter.langs = langs;
        r.filter.nlangs = (int)q->nlangs;
        r.filter.key = key.len && kr == 0 ? key.p : NULL; /* (a key cut short would name another scope) */
        /* one read transaction for the whole search of the repo: one snapshot
         * (the rows a ranking names are the rows its text and checks read),
         * and SQLite takes its shared lock, checks the file and the WAL once,
         * not for each of the search's dozens of statements (they were 15%
         * of a search's CPU on a small repo) */
        if (mg_db_get(q->pool, repos[i].dbpath, q->deadline_ms, &r.d, err) != 0) {
            rc = -1;
            break;
        }
        if (mg_db_begin_read(r.d, err) != 0) {
            mg_db_put(q->pool, &r.d);
            rc = -1;
            break;
        }
        /* each repo contributes up to `limit` (ranked modes: the file-level
         * order's pool, filerank.c); the merge keeps the best */
        size_t base = out->n;
        int pool = limit > MG__RANK_POOL ? limit : MG__RANK_POOL;
        switch (mode) {
        case MG_MODE_AUTO: /* resolved above */
        case MG_MODE_LEXICAL: rc = mg__lexical(&r, q->query, out, base, pool); break;
        case MG_MODE_SEMANTIC: rc = mg__semantic(&r, q->query, out, out, pool); break;
        case MG_MODE_HYBRID: rc = mg__hybrid(&r, out, &semantic_repos, out, base, pool); break;
        case MG_MODE_SYMBOL: rc = mg__symbol(&r, q->query, out, limit, 0); break;
        case MG_MODE_REGEX: rc = mg__regex(&r, q->query, q->fixed, q->ignore_case, out, base, limit); break;
        }
        /* ranked modes: the file-level order (filerank.c) */
        if (rc == 0 && (mode == MG_MODE_LEXICAL || mode == MG_MODE_SEMANTIC || mode == MG_MODE_HYBRID) &&
            mg__rank_files(&r, out, base, limit, cmp_score) != 0)
            rc = -1;
        /* only this repo's best `limit` can be among the answer's (the merge
         * below sorts by the same total order): the rest go before their
         * text is read and their files are checked */
        if (rc == 0 && out->n - base > (size_t)limit) {
            qsort(out->v + base, out->n - base, sizeof(*out->v), positional(out) ? cmp_position : cmp_score);
            while (out->n - base > (size_t)limit) mg_hit_release(&out->v[--out->n]);
        }
        if (rc == 0 && mg__hits_text(&r, out, base) != 0) rc = -1;
        mg__repo_release(&r);
        if (rc == 0) mark_stale(&r, out, base);
        mg_db_rollback(r.d); /* (read only: ends the snapshot) */
        mg_db_put(q->pool, &r.d);
    }
    mg_globset_free(&globs);
    free(langs);
    mg_buf_release(&key);
    if (rc != 0) {
        mg_results_release(out);
        return -1;
    }
    /* hybrid where no repo had vectors is lexical search, and says so */
    if (mode == MG_MODE_HYBRID && semantic_repos == 0) out->mode = "lexical";
    if (out->n) qsort(out->v, out->n, sizeof(*out->v), positional(out) ? cmp_position : cmp_score);
    while (out->n > (size_t)limit) mg_hit_release(&out->v[--out->n]);
    out->took_ms = mg_clock_ms() - t0;
    return 0;
}
