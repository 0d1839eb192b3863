/* quality.c — the retrieval-quality benchmark on linux-6.1 (bench/run.sh).
 *
 *   memgate-quality build KERNEL_TREE OUT.tsv [--repo ID] [--max N]
 *   memgate-quality run QUERIES.tsv KERNEL_TREE [--repo ID] [--no-rg]
 *
 * build makes queries from text the kernel's authors wrote, each with the
 * set of files that answer it (docs/benchmarks.md, "Retrieval quality"):
 *
 *   maintainers  a MAINTAINERS entry: the query is its title (lower-cased,
 *                '/' and brackets as spaces); the answer is every indexed
 *                file its F: patterns cover, less its X: patterns. Entries
 *                covering no file or more than 100 are left out.
 *   docfunc      a sentence of Documentation/ *.rst that names functions
 *                with :c:func:`name`: the query is the sentence with every
 *                role, literal and identifier (a word with '_', '(' or a
 *                digit) removed, at least 5 words left; the answer is the
 *                files defining a named function (symbols table, kind
 *                function or macro, at most 10 files).
 *   kerneldoc    a `.. kernel-doc:: FILE` directive: the query is the
 *                nearest heading above it plus the prose paragraph between
 *                them, identifiers removed as above; the answer is FILE.
 *
 * Sources are sampled evenly to at most --max queries each (default 100).
 * Every search excludes MAINTAINERS and Documentation/ (the text the
 * queries come from); so does the rg baseline.
 *
 * run searches each query with lexical, semantic and hybrid (limit 50
 * chunks, folded to files in rank order) and with rg-style keyword matching
 * (`rg -i -o -w` of the query's words of 3+ letters; files ranked by the
 * number of distinct words matched, then by matches), and prints recall@10
 * (relevant files in the top 10 / min(10, relevant files)), MRR over the
 * files (1 / rank of the first relevant file, 0 if none in the top 50) and
 * the latency of each mode.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/search.h"
#include "store/catalog.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/config.h"

#define MAX_REL 100
#define TOPK 10
#define FETCH 50

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *m)
{
    fprintf(stderr, "memgate-quality: %s\n", m);
    exit(1);
}

struct strv {
    char **v;
    size_t n, cap;
};

static void sv_push(struct strv *s, const char *x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = realloc(s->v, s->cap * sizeof(char *));
        if (!s->v) die("out of memory");
    }
    s->v[s->n++] = strdup(x);
}

static void sv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static struct mg_repo *open_repo(struct mg_config *cfg, const char *repo, size_t *nr)
{
    struct mg_err err = {0};
    if (mg_config_load(cfg, &err) != 0) die(err.msg);
    struct mg_repo *rv;
    const char *ids[1] = {repo};
    if (mg_catalog_resolve(cfg, ids, repo ? 1 : 0, NULL, &rv, nr, &err) != 0) die(err.msg);
    return rv;
}

/* ---- build ------------------------------------------------------------------------- */

static bool excluded_path(const char *p) { return strcmp(p, "MAINTAINERS") == 0 || strncmp(p, "Documentation/", 14) == 0; }

static bool pattern_match(const char *pat, const char *path)
{
    size_t pl = strlen(pat);
    if (pl && pat[pl - 1] == '/') return strncmp(path, pat, pl) == 0;
    if (strpbrk(pat, "*?[")) {
        /* a glob covers the files it matches (not below a directory it names with a final star),
         * and everything under a directory it matches otherwise */
        if (fnmatch(pat, path, FNM_PATHNAME) == 0) return true;
        return fnmatch(pat, path, FNM_PATHNAME | FNM_LEADING_DIR) == 0 && strchr(pat, '*') != pat + pl - 1;
    }
    if (strcmp(pat, path) == 0) return true;
    return strncmp(path, pat, pl) == 0 && path[pl] == '/';
}

/* Keep words: no '_', '(', digits; letters, apostrophes and hyphens inside. */
static void clean_words(const char *in, struct mg_buf *out, int *nwords)
{
    *nwords = 0;
    mg_buf_reset(out);
    const char *p = in;
    while (*p) {
        while (*p && isspace((unsigned char)*p)) p++;
        const char *s = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        size_t n = (size_t)(p - s);
        if (!n) continue;
        /* trailing punctuation of prose is fine */
        size_t m = n;
        while (m && strchr(".,;:!?\"')", s[m - 1])) m--;
        size_t a = 0;
        while (a < m && strchr("\"'(", s[a])) a++;
        bool ok = m > a;
        for (size_t i = a; i < m && ok; i++) {
            unsigned char c = (unsigned char)s[i];
            if (!(isalpha(c) || ((c == '-' || c == '\'') && i > a && i + 1 < m))) ok = false;
        }
        if (!ok) continue;
        if (out->len) mg_buf_addc(out, ' ');
        mg_buf_add(out, s + a, m - a);
        (*nwords)++;
    }
}

/* Remove `...` roles and ``...`` literals (with their :role: prefix). */
static void strip_roles(const char *in, struct mg_buf *out)
{
    mg_buf_reset(out);
    const char *p = in;
    while (*p) {
        if (*p == ':' && p[1] && isalpha((unsigned char)p[1])) {
            const char *q = p + 1;
            while (*q && (isalnum((unsigned char)*q) || *q == ':' || *q == '-')) q++;
            if (q > p + 1 && q[-1] == ':' && *q == '`') p = q;
        }
        if (*p == '`') {
            size_t ticks = p[1] == '`' ? 2 : 1;
            const char *e = strstr(p + ticks, ticks == 2 ? "``" : "`");
            if (e) {
                p = e + ticks;
                if (*p == '_') p++;
                mg_buf_addc(out, ' ');
                continue;
            }
        }
        mg_buf_addc(out, *p++);
    }
}

struct query {
    char src[16];
    char *text;
    struct strv rel;
};

struct qset {
    struct query *v;
    size_t n, cap;
};

static void qs_add(struct qset *s, const char *src, const char *text, struct strv *rel)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof(*s->v));
        if (!s->v) die("out of memory");
    }
    struct query *q = &s->v[s->n++];
    snprintf(q->src, sizeof(q->src), "%s", src);
    q->text = strdup(text);
    q->rel = *rel;
    memset(rel, 0, sizeof(*rel));
}

/* First index of a sorted list whose first n bytes are >= key's. */
static size_t lower_bound(const struct strv *v, const char *key, size_t n)
{
    size_t a = 0, b = v->n;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (strncmp(v->v[m], key, n) < 0) a = m + 1;
        else b = m;
    }
    return a;
}

static void build_maintainers(const char *tree, struct strv *files, struct qset *out)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/MAINTAINERS", tree);
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open MAINTAINERS");
    char line[4096], title[1024] = "";
    struct strv inc = {0}, exc = {0};
    bool started = false;
    struct mg_buf w;
    mg_buf_init(&w, 1 << 16);
    for (;;) {
        char *got = fgets(line, sizeof(line), f);
        if (got) line[strcspn(line, "\n")] = 0;
        bool tag = got && strlen(line) > 2 && isupper((unsigned char)line[0]) && line[1] == ':' && line[2] == '\t';
        if (!started) {
            /* entries begin after the line "Maintainers List" (and its rule and note) */
            if (got && strncmp(line, "Maintainers List", 16) == 0) started = true;
            if (!got) break;
            continue;
        }
        if (!got || (!tag && line[0] && !isspace((unsigned char)line[0]) && line[0] != '-' && line[0] != '.')) {
            /* a new entry starts (or the file ends): finish the last one */
            if (started && title[0] && inc.n) {
                struct strv rel = {0};
                for (size_t k = 0; k < inc.n && rel.n <= MAX_REL; k++) {
                    /* files sorted by path: only those under the pattern's literal prefix */
                    size_t pl = strcspn(inc.v[k], "*?[");
                    size_t i = lower_bound(files, inc.v[k], pl);
                    for (; i < files->n && rel.n <= MAX_REL && strncmp(files->v[i], inc.v[k], pl) == 0; i++) {
                        const char *p = files->v[i];
                        bool in = !excluded_path(p) && pattern_match(inc.v[k], p);
                        for (size_t x = 0; x < exc.n && in; x++) in = !pattern_match(exc.v[x], p);
                        for (size_t d = 0; d < rel.n && in; d++) in = strcmp(rel.v[d], p) != 0;
                        if (in) sv_push(&rel, p);
                    }
                }
                char t[1024];
                size_t j = 0;
                for (const char *c = title; *c && j + 1 < sizeof(t); c++)
                    t[j++] = strchr("/()[],", *c) ? ' ' : (char)tolower((unsigned char)*c);
                t[j] = 0;
                int nw;
                clean_words(t, &w, &nw);
                if (rel.n >= 1 && rel.n <= MAX_REL && nw >= 2) qs_add(out, "maintainers", w.p, &rel);
                sv_free(&rel);
            }
            sv_free(&inc);
            sv_free(&exc);
            if (!got) break;
            snprintf(title, sizeof(title), "%s", line);
            continue;
        }
        if (tag && line[0] == 'F') sv_push(&inc, line + 3);
        if (tag && line[0] == 'X') sv_push(&exc, line + 3);
    }
    mg_buf_release(&w);
    fclose(f);
}

/* Every .rst under Documentation/, via find. */
static void list_rst(const char *tree, struct strv *out)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "cd '%s' && find Documentation -name '*.rst' -type f | LC_ALL=C sort", tree);
    FILE *p = popen(cmd, "r");
    if (!p) die("find failed");
    char line[4096];
    while (fgets(line, sizeof(line), p)) {
        line[strcspn(line, "\n")] = 0;
        sv_push(out, line);
    }
    pclose(p);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        fclose(f);
        return NULL;
    }
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static bool heading_rule(const char *l)
{
    if (!l[0] || !strchr("=-~^*#+", l[0])) return false;
    size_t n = 0;
    for (; l[n]; n++)
        if (l[n] != l[0]) return false;
    return n >= 3;
}

static void build_docs(const char *tree, sqlite3_stmt *defs, struct strv *indexed, struct qset *fn,
                       struct qset *kd)
{
    struct strv rst = {0};
    list_rst(tree, &rst);
    struct mg_buf para, a, b;
    mg_buf_init(&para, 1 << 20);
    mg_buf_init(&a, 1 << 20);
    mg_buf_init(&b, 1 << 20);
    for (size_t r = 0; r < rst.n; r++) {
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", tree, rst.v[r]);
        size_t len;
        char *text = slurp(path, &len);
        if (!text) continue;
        struct strv lines = {0};
        for (char *s = text, *e; s && *s; s = e ? e + 1 : NULL) {
            e = strchr(s, '\n');
            if (e) *e = 0;
            sv_push(&lines, s);
        }
        char heading[1024] = "";
        mg_buf_reset(&para);      /* prose since the heading */
        for (size_t i = 0; i < lines.n; i++) {
            char *l = lines.v[i];
            if (i + 1 < lines.n && l[0] && !isspace((unsigned char)l[0]) && heading_rule(lines.v[i + 1]) &&
                !heading_rule(l)) {
                snprintf(heading, sizeof(heading), "%s", l);
                mg_buf_reset(&para);
                i++;
                continue;
            }
            const char *k = strstr(l, ".. kernel-doc::");
            if (k) {
                char file[1024];
                if (sscanf(k + 15, " %1023s", file) == 1 && heading[0]) {
                    size_t at = lower_bound(indexed, file, strlen(file) + 1);
                    bool known = at < indexed->n && strcmp(indexed->v[at], file) == 0;
                    char q[4096];
                    strip_roles(para.p ? para.p : "", &a);
                    snprintf(q, sizeof(q), "%s %s", heading, a.p ? a.p : "");
                    int nw;
                    clean_words(q, &b, &nw);
                    if (known && nw >= 2 && b.len < 600) {
                        struct strv rel = {0};
                        sv_push(&rel, file);
                        qs_add(kd, "kerneldoc", b.p, &rel);
                    }
                }
                mg_buf_reset(&para);
                continue;
            }
            if (l[0] == '.' && l[1] == '.') continue; /* other directives */
            if (!l[0]) continue;
            if (para.len) mg_buf_addc(&para, ' ');
            mg_buf_adds(&para, l);
            /* sentences with :c:func: roles (within this paragraph line run) */
            if (!strstr(l, ":c:func:")) continue;
            /* the sentence around each role: from the previous full stop to the next */
            char *s = strdup(l);
            /* join continuation lines of the same paragraph */
            for (size_t j = i + 1; j < lines.n && lines.v[j][0] && !strstr(lines.v[j], "..") && j < i + 4; j++) {
                size_t sl = strlen(s), nl = strlen(lines.v[j]);
                char *t = realloc(s, sl + nl + 2);
                if (!t) die("out of memory");
                s = t;
                s[sl] = ' ';
                memcpy(s + sl + 1, lines.v[j], nl + 1);
            }
            char *role = strstr(s, ":c:func:`");
            if (!role) {
                free(s);
                continue;
            }
            char *st = role;
            while (st > s && !(st[-1] == ' ' && st - 2 >= s && st[-2] == '.')) st--;
            char *en = strstr(role, ". ");
            if (en) en[1] = 0;
            struct strv names = {0};
            for (char *x = strstr(st, ":c:func:`"); x; x = strstr(x + 1, ":c:func:`")) {
                char name[256];
                size_t n = 0;
                const char *y = x + 9;
                const char *lt = strchr(y, '<'), *bt = strchr(y, '`');
                if (lt && bt && lt < bt) y = lt + 1; /* :c:func:`text <name>` */
                while (*y && (isalnum((unsigned char)*y) || *y == '_') && n + 1 < sizeof(name)) name[n++] = *y++;
                name[n] = 0;
                if (n) sv_push(&names, name);
            }
            strip_roles(st, &a);
            int nw;
            clean_words(a.p ? a.p : "", &b, &nw);
            struct strv rel = {0};
            for (size_t j = 0; j < names.n; j++) {
                sqlite3_reset(defs);
                sqlite3_bind_text(defs, 1, names.v[j], -1, SQLITE_STATIC);
                while (sqlite3_step(defs) == SQLITE_ROW) {
                    const char *p = (const char *)sqlite3_column_text(defs, 0);
                    bool dup = excluded_path(p);
                    for (size_t k2 = 0; k2 < rel.n && !dup; k2++) dup = strcmp(rel.v[k2], p) == 0;
                    if (!dup) sv_push(&rel, p);
                }
            }
            if (nw >= 5 && rel.n >= 1 && rel.n <= 10 && b.len < 600) qs_add(fn, "docfunc", b.p, &rel);
            sv_free(&rel);
            sv_free(&names);
            free(s);
        }
        sv_free(&lines);
        free(text);
    }
    sv_free(&rst);
    mg_buf_release(&para);
    mg_buf_release(&a);
    mg_buf_release(&b);
}

static void emit(FILE *o, struct qset *s, size_t max)
{
    /* an even sample, first occurrence of a query text only */
    size_t step = s->n > max ? s->n / max : 1, taken = 0;
    for (size_t i = 0; i < s->n && taken < max; i += step) {
        struct query *q = &s->v[i];
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++) dup = strcmp(s->v[j].text, q->text) == 0;
        if (dup) continue;
        fprintf(o, "%s\t%s\t", q->src, q->text);
        for (size_t k = 0; k < q->rel.n; k++) fprintf(o, "%s%s", k ? "|" : "", q->rel.v[k]);
        fputc('\n', o);
        taken++;
    }
}

static int cmd_build(const char *tree, const char *outpath, const char *repo, size_t max)
{
    struct mg_config cfg;
    size_t nr;
    struct mg_repo *rv = open_repo(&cfg, repo, &nr);
    if (nr != 1) die("give --repo");
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &d, &err) != 0) die(err.msg);
    struct strv files = {0};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, "SELECT path FROM files ORDER BY path", -1, &st, NULL) != SQLITE_OK) die("sql");
    while (sqlite3_step(st) == SQLITE_ROW) sv_push(&files, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_stmt *defs;
    if (sqlite3_prepare_v2(d->db, "SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE "
                                  "s.name = ?1 COLLATE NOCASE AND s.name = ?1 AND s.kind IN ('function', 'macro') ORDER BY f.path", -1, &defs,
                           NULL) != SQLITE_OK)
        die("sql");
    struct qset m = {0}, fn = {0}, kd = {0};
    build_maintainers(tree, &files, &m);
    build_docs(tree, defs, &files, &fn, &kd);
    sqlite3_finalize(defs);
    FILE *o = fopen(outpath, "w");
    if (!o) die("cannot write the output");
    fprintf(o, "# memgate retrieval-quality queries on linux-6.1, made by `memgate-quality build` (bench/quality.c)\n"
               "# source <TAB> query <TAB> relevant files separated by |\n");
    emit(o, &m, max);
    emit(o, &fn, max);
    emit(o, &kd, max);
    fclose(o);
    fprintf(stderr, "memgate-quality: candidates: %zu maintainers, %zu docfunc, %zu kerneldoc\n", m.n, fn.n, kd.n);
    mg_db_close(&d);
    free(rv);
    sv_free(&files);
    return 0;
}

/* ---- run --------------------------------------------------------------------------- */

struct acc {
    double recall, mrr;
    size_t n;
    double *lat;
    size_t nlat;
};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pctl(double *v, size_t n, double p)
{
    if (!n) return 0;
    qsort(v, n, sizeof(double), cmp_d);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* Score a ranked file list against the relevant set. */
static void score(struct strv *ranked, struct strv *rel, double *recall, double *rr)
{
    size_t hit = 0;
    *rr = 0;
    for (size_t i = 0; i < ranked->n; i++) {
        bool r = false;
        for (size_t k = 0; k < rel->n && !r; k++) r = strcmp(rel->v[k], ranked->v[i]) == 0;
        if (r && i < TOPK) hit++;
        if (r && *rr == 0) *rr = 1.0 / (double)(i + 1);
    }
    size_t denom = rel->n < TOPK ? rel->n : TOPK;
    *recall = denom ? (double)hit / (double)denom : 0;
}

static void add_file(struct strv *v, const char *p)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], p) == 0) return;
    sv_push(v, p);
}

/* rg-style keyword matching over the tree. */
static void rg_rank(const char *tree, const char *query, struct strv *out)
{
    struct mg_buf cmd;
    mg_buf_init(&cmd, 1 << 16);
    mg_buf_addf(&cmd, "cd '%s' && rg -i -o -w --no-messages --no-heading --with-filename -g '!MAINTAINERS' "
                      "-g '!Documentation/**'", tree);
    int words = 0;
    const char *p = query;
    while (*p) {
        while (*p && !isalpha((unsigned char)*p)) p++;
        const char *s = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
        if (p - s >= 3) {
            mg_buf_addf(&cmd, " -e '%.*s'", (int)(p - s), s);
            words++;
        }
    }
    mg_buf_adds(&cmd, " . | awk -F: '{ sub(/^\\.\\//, \"\", $1); w = tolower($NF); if (!((($1) SUBSEP w) in seen)) "
                      "{ seen[$1, w] = 1; d[$1]++ } t[$1]++ } END { for (f in d) printf \"%d\\t%d\\t%s\\n\", d[f], "
                      "t[f], f }' | sort -t'\t' -k1,1nr -k2,2nr -k3,3 | head -50");
    if (!words) {
        mg_buf_release(&cmd);
        return;
    }
    FILE *f = popen(cmd.p, "r");
    char line[8192];
    while (f && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        char *t = strrchr(line, '\t');
        if (t) add_file(out, t + 1);
    }
    if (f) pclose(f);
    mg_buf_release(&cmd);
}

static int cmd_run(const char *qpath, const char *tree, const char *repo, bool with_rg)
{
    struct mg_config cfg;
    size_t nr;
    struct mg_repo *rv = open_repo(&cfg, repo, &nr);
    FILE *f = fopen(qpath, "r");
    if (!f) die("cannot open the queries");
    static const char *modes[] = {"lexical", "semantic", "hybrid", "rg"};
    static const char *srcs[] = {"maintainers", "docfunc", "kerneldoc", "all"};
    struct acc acc[4][4];
    memset(acc, 0, sizeof(acc));
    const char *excl[] = {"MAINTAINERS", "Documentation/**"};
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = 0;
        char *src = line, *q = strchr(line, '\t');
        if (!q) continue;
        *q++ = 0;
        char *rels = strchr(q, '\t');
        if (!rels) continue;
        *rels++ = 0;
        struct strv rel = {0};
        for (char *s = strtok(rels, "|"); s; s = strtok(NULL, "|")) sv_push(&rel, s);
        int si = strcmp(src, "maintainers") == 0 ? 0 : strcmp(src, "docfunc") == 0 ? 1 : 2;
        for (int m = 0; m < 4; m++) {
            if (m == 3 && !with_rg) continue;
            struct strv ranked = {0};
            double t0 = now_ms(), t;
            if (m < 3) {
                struct mg_search_req req = {.query = q, .limit = FETCH, .excludes = excl, .nexcludes = 2};
                req.mode = m == 0 ? MG_MODE_LEXICAL : m == 1 ? MG_MODE_SEMANTIC : MG_MODE_HYBRID;
                struct mg_results res;
                struct mg_err err = {0};
                if (mg_search(&cfg, rv, nr, &req, &res, &err) != 0) die(err.msg);
                t = now_ms() - t0;
                for (size_t i = 0; i < res.n; i++) add_file(&ranked, res.v[i].path);
                mg_results_release(&res);
            } else {
                rg_rank(tree, q, &ranked);
                t = now_ms() - t0;
            }
            double r, rr;
            score(&ranked, &rel, &r, &rr);
            for (int s = 0; s < 4; s++) {
                if (s != si && s != 3) continue;
                struct acc *a = &acc[s][m];
                a->recall += r;
                a->mrr += rr;
                a->n++;
                double *lv = realloc(a->lat, (a->nlat + 1) * sizeof(double));
                if (!lv) die("out of memory");
                a->lat = lv;
                a->lat[a->nlat++] = t;
            }
            sv_free(&ranked);
        }
        sv_free(&rel);
    }
    free(line);
    fclose(f);
    printf("| queries | method | recall@10 | MRR | p50 ms | p99 ms | max ms |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int s = 0; s < 4; s++)
        for (int m = 0; m < 4; m++) {
            struct acc *a = &acc[s][m];
            if (!a->n) continue;
            double p50 = pctl(a->lat, a->nlat, 0.5), p99 = pctl(a->lat, a->nlat, 0.99),
                   mx = pctl(a->lat, a->nlat, 1.0);
            printf("| %s (%zu) | %s | %.3f | %.3f | %.1f | %.1f | %.1f |\n", srcs[s], a->n, modes[m],
                   a->recall / (double)a->n, a->mrr / (double)a->n, p50, p99, mx);
            free(a->lat);
        }
    free(rv);
    return 0;
}

int main(int argc, char **argv)
{
    const char *repo = NULL;
    size_t max = 100;
    bool rg = true;
    const char *pos[4] = {NULL, NULL, NULL, NULL};
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repo") == 0 && i + 1 < argc) repo = argv[++i];
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) max = (size_t)atol(argv[++i]);
        else if (strcmp(argv[i], "--no-rg") == 0) rg = false;
        else if (argv[i][0] != '-' && np < 3) pos[np++] = argv[i];
        else np = 9;
    }
    if (np == 3 && strcmp(pos[0], "build") == 0) return cmd_build(pos[1], pos[2], repo, max ? max : 100);
    if (np == 3 && strcmp(pos[0], "run") == 0) return cmd_run(pos[1], pos[2], repo, rg);
    fprintf(stderr, "usage: memgate-quality build KERNEL_TREE OUT.tsv [--repo ID] [--max N]\n"
                    "       memgate-quality run QUERIES.tsv KERNEL_TREE [--repo ID] [--no-rg]\n");
    return 2;
}
