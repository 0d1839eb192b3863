/* scan_compile.c — a secret scanner made and freed (scan.h: mg_scanner_new,
 * mg_scanner_load, mg_scanner_default, mg_scanner_free): the rules parsed
 * (scan_rules.c), then compiled into Vectorscan databases, through the
 * on-disk cache (scan_cache.c): each rule's allowlists, merged, and the
 * first pass, one database of the rules' keywords and of the patterns
 * (scan_prefilter.c) of the rules whose keywords are too common to go by.
 *
 * Sections:
 *   1. the allowlist databases
 *   2. the first pass
 *   3. a scanner made and freed
 */
#include "security/scan_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/common.h"

/* ---- 1. the allowlist databases --------------------------------------------------------- */

/* One aset from the regexes (source texts and programs) of several lists.
 * Vectorscan compiles its share in block mode, exactly (no prefilter), each
 * with HS_FLAG_MULTILINE like PCRE2's; a regex it rejects is left to PCRE2
 * and the rest compiled again. */
static int build_aset(struct mg_scanner *s, struct mg__scan_aset *as, struct mg_lre *const *res, size_t n, struct mg_err *err)
{
    memset(as, 0, sizeof(*as));
    if (!n) return 0;
    const char **hp = calloc(n, sizeof(*hp));
    unsigned *flags = calloc(n, sizeof(*flags)), *ids = calloc(n, sizeof(*ids));
    bool *pc = calloc(n, sizeof(*pc)); /* left to PCRE2: those Vectorscan rejects */
    if (!(as->extra = calloc(n, sizeof(*as->extra))) || !hp || !flags || !ids || !pc) {
        free(hp);
        free(flags);
        free(ids);
        free(pc);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
    }
    /* the whole set's key: the rejects found by an earlier process are left to PCRE2 at once */
    for (size_t i = 0; i < n; i++) {
        hp[i] = res[i]->src;
        flags[i] = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
    }
    struct mg__hs_set whole;
    mg__hs_set_of("allow", hp, flags, n, NULL, 0, &whole);
    mg__hs_rejects_load(&whole, pc, n);
    bool rejected = false;
    for (;;) {
        unsigned k = 0;
        for (size_t i = 0; i < n; i++)
            if (!pc[i]) {
                hp[k] = res[i]->src;
                /* (not HS_FLAG_SINGLEMATCH: the first match stops the scan anyway, and it
                 * makes every scan of these short texts ~1.5x slower) */
                flags[k] = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
                ids[k++] = (unsigned)i;
            }
        if (!k) break;
        struct mg__hs_set set; /* shipped or cached like the rules' database (on_allow_match ignores ids) */
        mg__hs_set_of("allow", hp, flags, k, NULL, 0, &set);
        if (mg__hs_load(&set, &as->db)) break;
        hs_compile_error_t *ce = NULL;
        if (hs_compile_multi(hp, flags, ids, k, HS_MODE_BLOCK, mg__hs_platform(), &as->db, &ce) == HS_SUCCESS) {
            mg__hs_store(&set, as->db);
            break;
        }
        as->db = NULL;
        if (ce && ce->expression >= 0 && (unsigned)ce->expression < k) {
            pc[ids[ce->expression]] = true;
        } else {
            for (size_t i = 0; i < n; i++) pc[i] = true;
        }
        rejected = true;
        hs_free_compile_error(ce);
    }
    if (rejected) mg__hs_rejects_store(&whole, pc, n);
    for (size_t i = 0; i < n; i++)
        if (pc[i]) as->extra[as->nextra++] = res[i];
    free(hp);
    free(flags);
    free(ids);
    free(pc);
    if (as->db && hs_alloc_scratch(as->db, &s->aproto) != HS_SUCCESS)
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory allocating Vectorscan scratch space");
    return 0;
}

/* Fill each rule's asec and aline: its own allowlist and the lists it uses. */
static int compile_allow(struct mg_scanner *s, struct mg_err *err)
{
    if (!(s->asets = calloc(2 * s->nrules, sizeof(*s->asets))))
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
    for (size_t i = 0; i < s->nrules; i++) {
        struct mg__scan_rule *r = &s->rules[i];
        bool own = r->own.nsec || r->own.nline;
        for (size_t j = 0; j < i && !own && !r->asec; j++) { /* the same lists as an earlier rule: share */
            const struct mg__scan_rule *q = &s->rules[j];
            if (q->own.nsec || q->own.nline || q->nuses != r->nuses) continue;
            if (r->nuses && memcmp(q->uses, r->uses, r->nuses * sizeof(*r->uses)) != 0) continue;
            r->asec = q->asec;
            r->aline = q->aline;
        }
        if (r->asec) continue;
        for (int line = 0; line < 2; line++) {
            size_t n = line ? r->own.nline : r->own.nsec;
            for (size_t u = 0; u < r->nuses; u++) n += line ? r->uses[u]->nline : r->uses[u]->nsec;
            struct mg_lre **res = calloc(n + 1, sizeof(*res));
            if (!res) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
            size_t k = 0;
            for (size_t u = 0; u <= r->nuses; u++) {
                const struct mg__scan_alist *a = u == 0 ? &r->own : r->uses[u - 1];
                size_t m = line ? a->nline : a->nsec;
                for (size_t x = 0; x < m; x++, k++) {
                    res[k] = line ? &a->line[x] : &a->sec[x];
                }
            }
            struct mg__scan_aset *as = &s->asets[s->nasets++];
            int rc = build_aset(s, as, res, n, err);
            free(res);
            if (rc != 0) return -1;
            if (line) r->aline = as;
            else r->asec = as;
        }
    }
    return 0;
}

/* ---- 2. the first pass ------------------------------------------------------------------ */

/* A keyword too common to trigger on: listed by 3 or more rules ("token",
 * "secret", "key"), or of 2 bytes, or of 3 that are all letters or hold none
 * ("pat", "hex", "://"). Such words are all over ordinary code and config;
 * confirming every rule that lists one wherever it occurs costs more than
 * Vectorscan running the rule's pattern. */
/* Every keyword of the rules with how many rules list it, sorted by keyword
 * (one pass instead of a scan of all rules per keyword: that was quadratic,
 * a millisecond per process). */
struct kwuse {
    const char *kw;
    uint32_t rule, users;
};

static int kwuse_cmp(const void *a, const void *b)
{
    const struct kwuse *x = a, *y = b;
    int c = strcmp(x->kw, y->kw);
    return c ? c : (x->rule > y->rule) - (x->rule < y->rule);
}

static struct kwuse *kw_users(const struct mg_scanner *s, size_t *n)
{
    size_t cap = 0, m = 0;
    for (size_t i = 0; i < s->nrules; i++) cap += s->rules[i].nkw;
    struct kwuse *v = malloc((cap ? cap : 1) * sizeof(*v));
    if (!v) return NULL;
    for (size_t i = 0; i < s->nrules; i++)
        for (size_t k = 0; k < s->rules[i].nkw; k++) v[m++] = (struct kwuse){s->rules[i].kw[k], (uint32_t)i, 0};
    qsort(v, m, sizeof(*v), kwuse_cmp);
    for (size_t a = 0, b; a < m; a = b) { /* a run of one keyword: its distinct rules */
        uint32_t users = 0;
        for (b = a; b < m && strcmp(v[b].kw, v[a].kw) == 0; b++) users += b == a || v[b].rule != v[b - 1].rule;
        for (size_t i = a; i < b; i++) v[i].users = users;
    }
    *n = m;
    return v;
}

static int kwuse_find(const void *key, const void *elem)
{
    return strcmp(key, ((const struct kwuse *)elem)->kw);
}

static bool common_kw(const struct kwuse *uses, size_t nuses, const char *kw)
{
    size_t n = strlen(kw);
    if (n <= 2) return true;
    if (n == 3) {
        size_t alpha = 0, alnum = 0;
        for (size_t i = 0; i < n; i++) {
            alpha += isalpha((unsigned char)kw[i]) != 0;
            alnum += isalnum((unsigned char)kw[i]) != 0;
        }
        if (alpha == n || alnum == 0) return true;
    }
    const struct kwuse *u = bsearch(kw, uses, nuses, sizeof(*uses), kwuse_find);
    return u && u->users >= 3;
}

static int bad_pattern(const struct mg__scan_rule *r, const char *msg, struct mg_err *err)
{
    return mg_err_set(err, MG_E_BAD_RULES, "rules line %u: rule '%s': Vectorscan cannot compile the pattern: %s; simplify it",
                      r->pattern_line, r->id, msg);
}

/* The first pass, one Vectorscan database. Every rule needs one of its
 * keywords inside a match, so the keywords are an exact filter: a rule of one
 * line (`lines` 1) none of whose keywords is common (common_kw) is confirmed
 * only on the lines where one of its keywords occurs; the keywords are
 * caseless literals in the database (ids from nrules: kws[id - nrules]). The
 * other rules' patterns are in it in prefilter mode, relaxed and cut, or as
 * the literal they end with (scan_prefilter.c): common keywords occur far
 * more often than these patterns
 * match, and a multi-line rule's window (its `lines` lines ending with the
 * hit's line) is anchored at the end of a match, which a keyword does not
 * give. One database, not two: on ordinary code Vectorscan's literal matcher
 * then runs over the text once. Every rule's pattern must be one
 * Vectorscan accepts (the rules format says so, and which rules are found by
 * keywords depends on the whole set): those not in the database are checked
 * with hs_expression_info when it is compiled (not when it is cached: the
 * cache key holds them). */
static int compile_db(struct mg_scanner *s, struct mg_err *err)
{
    size_t nkw = 0;
    for (size_t i = 0; i < s->nrules; i++) nkw += s->rules[i].nkw;
    size_t cap = s->nrules + nkw;
    const char **pats = calloc(cap, sizeof(char *)), **extra = calloc(s->nrules, sizeof(char *));
    char **owned = calloc(cap, sizeof(char *)); /* the relaxed patterns and escaped keywords */
    unsigned *flags = calloc(cap, sizeof(unsigned)), *ids = calloc(cap, sizeof(unsigned));
    uint32_t *rule_of = calloc(cap, sizeof(uint32_t)); /* expression -> the rule an error names */
    size_t n = 0, nx = 0;
    int rc = -1;
    size_t nuses = 0;
    struct kwuse *uses = kw_users(s, &nuses);
    if (!pats || !extra || !owned || !flags || !ids || !rule_of || !uses || !(s->kws = calloc(nkw ? nkw : 1, sizeof(*s->kws))))
        goto oom;
    for (size_t i = 0; i < s->nrules; i++) {
        struct mg__scan_rule *r = &s->rules[i];
        r->bykw = r->lines == 1;
        for (size_t k = 0; k < r->nkw && r->bykw; k++) r->bykw = !common_kw(uses, nuses, r->kw[k]);
        if (!r->bykw) {
            if (!(owned[n] = mg__scan_prefilter_form(r, &flags[n]))) goto oom;
            pats[n] = owned[n];
            ids[n] = (unsigned)i;
            rule_of[n++] = (uint32_t)i;
            continue;
        }
        extra[nx++] = r->pattern;
        for (size_t k = 0; k < r->nkw; k++) {
            size_t j = 0;
            while (j < s->nkws && strcmp(s->kws[j].kw, r->kw[k]) != 0) j++;
            struct mg__scan_kw *e = &s->kws[j];
            if (j == s->nkws) {
                e->kw = r->kw[k];
                e->len = strlen(e->kw);
                s->nkws++;
            }
            if (e->nrules && e->rules[e->nrules - 1] == (uint32_t)i) continue; /* listed twice */
            uint32_t *nv = realloc(e->rules, (e->nrules + 1) * sizeof(*nv));
            if (!nv) goto oom;
            e->rules = nv;
            e->rules[e->nrules++] = (uint32_t)i;
        }
    }
    for (size_t j = 0; j < s->nkws; j++) { /* a keyword as a pattern: every byte \xHH */
        const struct mg__scan_kw *e = &s->kws[j];
        if (!(owned[n] = malloc(4 * e->len + 1))) goto oom;
        for (size_t b = 0; b < e->len; b++) sprintf(owned[n] + 4 * b, "\\x%02x", (unsigned char)e->kw[b]);
        pats[n] = owned[n];
        flags[n] = HS_FLAG_CASELESS;
        ids[n] = (unsigned)(s->nrules + j);
        rule_of[n++] = e->rules[0];
    }
    struct mg__hs_set set;
    mg__hs_set_of("first-pass", pats, flags, n, extra, nx, &set);
    if (!mg__hs_load(&set, &s->db)) {
        for (size_t i = 0; i < s->nrules; i++) {
            const struct mg__scan_rule *r = &s->rules[i];
            hs_expr_info_t *info = NULL;
            hs_compile_error_t *ce = NULL;
            if (!r->bykw) continue;
            if (hs_expression_info(r->pattern, HS_FLAG_PREFILTER | HS_FLAG_MULTILINE, &info, &ce) != HS_SUCCESS) {
                bad_pattern(r, ce ? ce->message : "unknown error", err);
                hs_free_compile_error(ce);
                goto out_free;
            }
            bool empty = info->min_width == 0;
            free(info);
            if (empty) {
                bad_pattern(r, "it can match the empty string", err);
                goto out_free;
            }
        }
        hs_compile_error_t *ce = NULL;
        if (hs_compile_multi(pats, flags, ids, (unsigned)n, HS_MODE_BLOCK, mg__hs_platform(), &s->db, &ce) != HS_SUCCESS) {
            s->db = NULL;
            if (ce && ce->expression >= 0 && (size_t)ce->expression < n) {
                bad_pattern(&s->rules[rule_of[ce->expression]], ce->message, err);
            } else {
                mg_err_set(err, MG_E_BAD_RULES, "rules line 0: Vectorscan cannot compile the rule set: %s",
                           ce ? ce->message : "unknown error");
            }
            hs_free_compile_error(ce);
            goto out_free;
        }
        mg__hs_store(&set, s->db);
    }
    if (hs_alloc_scratch(s->db, &s->proto) != HS_SUCCESS) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory allocating Vectorscan scratch space");
        goto out_free;
    }
    rc = 0;
    goto out_free;
oom:
    mg_err_set(err, MG_E_NO_MEMORY, "out of memory compiling the rules");
out_free:
    for (size_t i = 0; i < cap && owned; i++) free(owned[i]);
    free(uses);
    free(owned);
    free(pats);
    free(extra);
    free(flags);
    free(ids);
    free(rule_of);
    return rc;
}

/* ---- 3. a scanner made and freed -------------------------------------------------------- */

int mg_scanner_new(const char *text, size_t len, struct mg_scanner **out, struct mg_err *err)
{
    *out = NULL;
    bool lazy = !text;
    if (!text) text = mg_scanner_builtin_rules(&len);
    if (len > MG_RULES_MAX_BYTES)
        return mg_err_set(err, MG_E_BAD_RULES, "rules line 0: the rules are %zu bytes, over the %u-byte cap", len,
                          MG_RULES_MAX_BYTES);
    struct mg_scanner *s = calloc(1, sizeof(*s));
    if (!s) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
    pthread_mutex_init(&s->mu, NULL);
    if (mg__scan_rules_parse(s, text, len, lazy, err) != 0 || compile_allow(s, err) != 0 || compile_db(s, err) != 0) {
        mg_scanner_free(s);
        return -1;
    }
    /* bound the work of one confirmation: a pathological regex gives up, it does not hang */
    if (!(s->mctx = pcre2_match_context_create(NULL))) {
        mg_scanner_free(s);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
    }
    pcre2_set_match_limit(s->mctx, 200000);
    pcre2_set_depth_limit(s->mctx, 10000);
    *out = s;
    return 0;
}

int mg_scanner_load(const char *path, struct mg_scanner **out, struct mg_err *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mg_err_set(err, errno == ENOENT ? MG_E_PATH_NOT_FOUND : errno == EACCES ? MG_E_PERMISSION : MG_E_IO,
                          "cannot open rules file '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mg_err_set(err, MG_E_BAD_RULES, "rules file '%s' is not a regular file", path);
    }
    if ((uint64_t)st.st_size > MG_RULES_MAX_BYTES) {
        close(fd);
        return mg_err_set(err, MG_E_BAD_RULES, "rules file '%s' is over the %u-byte cap", path, MG_RULES_MAX_BYTES);
    }
    size_t n = (size_t)st.st_size;
    char *text = malloc(n + 1);
    if (!text) {
        close(fd);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
    }
    size_t got = mg_read_full(fd, text, n);
    close(fd);
    int rc = mg_scanner_new(text, got, out, err);
    free(text);
    if (rc != 0 && err && err->code && strcmp(err->code, MG_E_BAD_RULES) == 0) {
        char m[sizeof(err->msg)];
        snprintf(m, sizeof(m), "%s", err->msg);
        mg_err_set(err, MG_E_BAD_RULES, "%s: %s", path, m);
    }
    return rc;
}

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static struct mg_scanner *default_scanner;

static void default_init(void)
{
    struct mg_err err = {0};
    if (mg_scanner_new(NULL, 0, &default_scanner, &err) != 0) {
        default_scanner = NULL;
        mg_err_print(&err);
    }
}

const struct mg_scanner *mg_scanner_default(void)
{
    pthread_once(&default_once, default_init);
    return default_scanner;
}

void mg_scanner_free(struct mg_scanner *s)
{
    if (!s) return;
    mg__scan_rules_release(s);
    for (size_t i = 0; i < s->nasets; i++) {
        mg_hs_free(s->asets[i].db);
        free(s->asets[i].extra);
    }
    free(s->asets);
    mg__scan_pool_free(s);
    if (s->proto) hs_free_scratch(s->proto);
    if (s->aproto) hs_free_scratch(s->aproto);
    mg_hs_free(s->db);
    for (size_t i = 0; i < s->nkws; i++) free(s->kws[i].rules);
    free(s->kws);
    pcre2_match_context_free(s->mctx);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
