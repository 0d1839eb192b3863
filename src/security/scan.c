/* scan.c — the secret scanner (see scan.h; the rules format is in
 * docs/security.md and at the top of data/secrets.rules).
 *
 * Sections:
 *   1. small helpers: severity names, entropy, masking
 *   2. the rule set in memory
 *   3. the rules-file parser
 *   4. compiling: PCRE2 per rule; the first pass, one Vectorscan database of
 *      the rules' keywords (literals) and of the patterns (prefilter) of the
 *      rules whose keywords are too common to go by
 *   5. the pool of per-scan state (Vectorscan scratch, PCRE2 match data)
 *   6. scanning: first-pass hit -> window -> PCRE2 -> keyword -> candidate
 *   7. overlaps (entropy and allowlists checked on the candidates that can
 *      be kept), reporting, redaction
 *   8. the built-in rule set
 */
#include "security/scan.h"
#include "util/lre.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hs/hs.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MG_HAVE_AVX2_PATH 1
#endif
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "security/common.h"
#include "util/file.h"

/* ---- 1. small helpers ------------------------------------------------------ */

const char *mg_sev_name(enum mg_sev s)
{
    return s == MG_SEV_HIGH ? "high" : s == MG_SEV_MEDIUM ? "medium" : "low";
}

int mg_sev_parse(const char *s, enum mg_sev *out)
{
    if (strcmp(s, "high") == 0) *out = MG_SEV_HIGH;
    else if (strcmp(s, "medium") == 0) *out = MG_SEV_MEDIUM;
    else if (strcmp(s, "low") == 0) *out = MG_SEV_LOW;
    else return -1;
    return 0;
}

/* c * log2(c) for the small counts a secret has, filled once */
#define CLOG_N 1024
static double clog_tab[CLOG_N];
static pthread_once_t clog_once = PTHREAD_ONCE_INIT;

static void clog_init(void)
{
    for (int c = 1; c < CLOG_N; c++) clog_tab[c] = (double)c * log2((double)c);
}

/* The byte counts of mg_shannon_entropy, all zero between calls: a call
 * sets back to zero the ones it used, instead of clearing 256 of them. */
static _Thread_local uint32_t ent_count[256];

static inline double c_log2_c(size_t c)
{
    return c < CLOG_N ? clog_tab[c] : (double)c * log2((double)c);
}

/* H = -sum p log2 p = log2 n - (sum c log2 c) / n, over the byte counts c */
double mg_shannon_entropy(const char *s, size_t n)
{
    if (n == 0) return 0;
    pthread_once(&clog_once, clog_init);
    uint32_t *count = ent_count;
    unsigned char seen[257];
    int nseen = 0;
    for (size_t i = 0; i < n; i++) { /* without a branch: a random secret would mispredict it */
        unsigned char c = (unsigned char)s[i];
        seen[nseen] = c;
        nseen += count[c]++ == 0; /* (n is under 4 GiB: scan.h) */
    }
    double sum = 0;
    for (int i = 0; i < nseen; i++) {
        sum += c_log2_c(count[seen[i]]);
        count[seen[i]] = 0;
    }
    double h = c_log2_c(n) / (double)n - sum / (double)n;
    return h > 0 ? h : 0;
}

char *mg_secret_mask(const char *secret, size_t n, char *out, size_t cap)
{
    if (cap == 0) return out;
    size_t show = n >= 16 ? 4 : n / 4;
    char head[5];
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)secret[i];
        head[i] = c >= 0x21 && c < 0x7f ? (char)c : '?';
    }
    head[show] = 0;
    snprintf(out, cap, "%s\u2026(%zu)", head, n);
    return out;
}

/* ---- 2. the rule set in memory ------------------------------------------- */

/* Allowlist regexes: `allow` tests the secret, `allow_line` its whole line. */
struct alist {
    char *name;          /* NULL for a rule's own list */
    struct mg_lre *sec;  /* on the secret */
    size_t nsec;
    struct mg_lre *line; /* on the line holding the secret's start */
    size_t nline;
};

/* The allowlist regexes one rule applies (its own and those of the lists it
 * uses) on the secret, or on its line. Those Vectorscan runs exactly are one
 * Vectorscan database (`db`; any match allows), scanned once: anchored ones
 * (^...) too, as one PCRE2 call costs about what one scan of the whole
 * database does. The rest (back-references, lookarounds, ...) stay PCRE2
 * programs in `extra` (borrowed from their lists). Rules with the same lists
 * share their asets. */
struct aset {
    hs_database_t *db;
    struct mg_lre **extra; /* borrowed from the lists */
    size_t nextra;
};

struct rule {
    char *id;
    char *desc;
    enum mg_sev sev;
    char **kw;           /* keywords, lower-case */
    size_t nkw;
    char *pattern;
    unsigned pattern_line; /* where `pattern` was, for errors */
    unsigned line;       /* where the rule began */
    int group[4];        /* the secret: the first of these capture groups that is set */
    int ngroup;          /* 0 = the whole match */
    double entropy;      /* minimum Shannon entropy of the secret, bits/byte */
    int lines;           /* how many lines a match may span (window size) */
    bool bykw;           /* first pass: its keywords (else its pattern, prefiltered) */
    struct mg_lre re;    /* pattern, compiled when first used (built-in rules) or at load */
    struct alist own;
    struct alist **uses; /* named allowlists this rule also applies */
    size_t nuses;
    bool uses_set;       /* an `allowlists` field was given */
    const struct aset *asec, *aline; /* all of the above, merged (compile_allow) */
};

/* One keyword of the first pass and the rules (found by their keywords)
 * that list it. */
struct kwent {
    const char *kw;      /* a rule's, lower-case */
    size_t len;
    uint32_t *rules;
    size_t nrules;
};

/* A first-pass hit, kept until FP_BATCH of them are confirmed together:
 * Vectorscan then runs with its state in the cache, not evicted by PCRE2
 * after every hit. */
struct fp_hit {
    uint32_t id;
    size_t to;
};
#define FP_BATCH 512

struct slot {
    struct slot *next;
    hs_scratch_t *scratch;
    hs_scratch_t *ascratch; /* for the allowlist databases */
    pcre2_match_data *md;
    size_t *resume;      /* per rule: where its next match may start (the end of its last one) */
    size_t *searched;    /* per rule: end of a window searched to its end from resume[] without a match */
    struct fp_hit *fh;   /* first-pass hits not yet confirmed (FP_BATCH) */
};

struct mg_scanner {
    struct rule *rules;
    size_t nrules;
    struct alist *lists; /* named allowlists */
    size_t nlists;
    struct aset *asets;  /* merged allowlists, two per distinct set of lists */
    size_t nasets;
    hs_database_t *db;   /* the first pass (compile_db) */
    struct kwent *kws;   /* its keywords: id nrules + i is kws[i] */
    size_t nkws;
    hs_scratch_t *proto; /* scratch prototype, cloned into the pool */
    hs_scratch_t *aproto; /* the same for the allowlist databases (NULL: none) */
    pcre2_match_context *mctx;
    pthread_mutex_t mu;
    struct slot *pool;   /* free per-scan states */
};

static void alist_release(struct alist *a)
{
    for (size_t i = 0; i < a->nsec; i++) mg_lre_release(&a->sec[i]);
    for (size_t i = 0; i < a->nline; i++) mg_lre_release(&a->line[i]);
    free(a->sec);
    free(a->line);
    free(a->name);
    memset(a, 0, sizeof(*a));
}

static void rule_release(struct rule *r)
{
    free(r->id);
    free(r->desc);
    for (size_t i = 0; i < r->nkw; i++) free(r->kw[i]);
    free(r->kw);
    free(r->pattern);
    mg_lre_release(&r->re);
    alist_release(&r->own);
    free(r->uses);
    memset(r, 0, sizeof(*r));
}

void mg_scanner_free(struct mg_scanner *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nrules; i++) rule_release(&s->rules[i]);
    free(s->rules);
    for (size_t i = 0; i < s->nlists; i++) alist_release(&s->lists[i]);
    free(s->lists);
    for (size_t i = 0; i < s->nasets; i++) {
        mg_hs_free(s->asets[i].db);
        free(s->asets[i].extra);
    }
    free(s->asets);
    while (s->pool) {
        struct slot *n = s->pool->next;
        hs_free_scratch(s->pool->scratch);
        if (s->pool->ascratch) hs_free_scratch(s->pool->ascratch);
        pcre2_match_data_free(s->pool->md);
        free(s->pool->resume);
        free(s->pool->fh);
        free(s->pool);
        s->pool = n;
    }
    if (s->proto) hs_free_scratch(s->proto);
    if (s->aproto) hs_free_scratch(s->aproto);
    mg_hs_free(s->db);
    for (size_t i = 0; i < s->nkws; i++) free(s->kws[i].rules);
    free(s->kws);
    pcre2_match_context_free(s->mctx);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

size_t mg_scanner_rule_count(const struct mg_scanner *s) { return s ? s->nrules : 0; }

/* ---- 3. the rules-file parser -------------------------------------------- */

struct parser {
    struct mg_scanner *s;
    unsigned lineno;
    enum { B_NONE, B_RULE, B_LIST } block;
    bool lazy; /* the built-in rules: regexes compiled when first used (the tests load them eagerly) */
    struct mg_err *err;
};

#define RULES_ERR(p, ...) mg_err_set((p)->err, MG_E_BAD_RULES, __VA_ARGS__)

static int grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 8;
    void *nv = realloc(*v, c * size);
    if (!nv) return -1;
    *v = nv;
    *cap = c;
    return 0;
}

static bool valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0]))) return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.'))
            return false;
    return true;
}

/* Take the regex pat into l: compiled now (a rules file's errors are found
 * when it is loaded), or when first used for the built-in rules. */
static int compile_re(struct parser *p, struct mg_lre *l, const char *pat, const char *what)
{
    char why[300];
    int rc = mg_lre_init(l, pat, PCRE2_MULTILINE | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP, PCRE2_JIT_COMPLETE, !p->lazy, why,
                         sizeof(why));
    if (rc == 0) return 0;
    if (rc == -2) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
    return RULES_ERR(p, "rules line %u: %s %s; fix the regex (PCRE2 syntax)", p->lineno, what, why);
}

static struct alist *cur_alist(struct parser *p)
{
    return p->block == B_RULE ? &p->s->rules[p->s->nrules - 1].own : &p->s->lists[p->s->nlists - 1];
}

static int add_allow(struct parser *p, bool line, const char *val)
{
    struct alist *a = cur_alist(p);
    struct mg_lre **v = line ? &a->line : &a->sec;
    size_t *n = line ? &a->nline : &a->nsec;
    struct mg_lre *nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (!nv) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
    *v = nv;
    if (compile_re(p, &nv[*n], val, line ? "allow_line regex" : "allow regex") != 0) return -1;
    (*n)++;
    return 0;
}

/* The rule that just ended must have its required fields. */
static int finish_rule(struct parser *p)
{
    if (p->block != B_RULE) return 0;
    struct rule *r = &p->s->rules[p->s->nrules - 1];
    const char *missing = !r->desc ? "description" : !r->kw ? "keywords" : !r->pattern ? "pattern" : NULL;
    if (missing) return RULES_ERR(p, "rules line %u: rule '%s' has no %s; add a '%s = ...' line", r->line, r->id, missing, missing);
    if (!r->uses_set) { /* default: the allowlist named "common", if there is one */
        for (size_t i = 0; i < p->s->nlists; i++)
            if (strcmp(p->s->lists[i].name, "common") == 0) {
                if (!(r->uses = malloc(sizeof(*r->uses)))) return mg_err_oom(p->err);
                r->uses[0] = &p->s->lists[i];
                r->nuses = 1;
            }
    }
    /* a multi-line rule's failed searches are repeated with hard partial
     * matching (skip_dead_starts): JIT code for that mode too */
    if (r->lines > 1) {
        r->re.jit_opts |= PCRE2_JIT_PARTIAL_HARD;
        pcre2_code *re = atomic_load(&r->re.re);
        if (re) pcre2_jit_compile(re, PCRE2_JIT_PARTIAL_HARD);
    }
    uint32_t cap = 99; /* built-in rules: checked when the tests load them eagerly */
    const pcre2_code *re = atomic_load(&r->re.re);
    if (re && pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &cap) != 0) cap = 0;
    for (int i = 0; i < r->ngroup; i++)
        if ((uint32_t)r->group[i] > cap)
            return RULES_ERR(p, "rules line %u: rule '%s' has group %d but its pattern has %u capture group%s", r->line,
                             r->id, r->group[i], cap, cap == 1 ? "" : "s");
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

static int parse_keywords(struct parser *p, struct rule *r, char *val)
{
    for (char *save = NULL, *w = strtok_r(val, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        w = trim(w);
        if (!*w) continue;
        if (strlen(w) > 64) return RULES_ERR(p, "rules line %u: keyword '%.64s...' is longer than 64 bytes", p->lineno, w);
        char **nv = realloc(r->kw, (r->nkw + 1) * sizeof(char *));
        if (!nv) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        r->kw = nv;
        if (!(r->kw[r->nkw] = strdup(w))) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        for (char *c = r->kw[r->nkw]; *c; c++) *c = (char)tolower((unsigned char)*c);
        r->nkw++;
    }
    if (!r->nkw) return RULES_ERR(p, "rules line %u: keywords is empty; give at least one word the match contains", p->lineno);
    return 0;
}

static int parse_uses(struct parser *p, struct rule *r, char *val)
{
    free(r->uses);
    r->uses = NULL;
    r->nuses = 0;
    r->uses_set = true;
    for (char *save = NULL, *w = strtok_r(val, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (strcmp(w, "none") == 0) continue;
        struct alist *found = NULL;
        for (size_t i = 0; i < p->s->nlists; i++)
            if (strcmp(p->s->lists[i].name, w) == 0) found = &p->s->lists[i];
        if (!found) return RULES_ERR(p, "rules line %u: no allowlist named '%s' above this rule; define it first", p->lineno, w);
        struct alist **nv = realloc(r->uses, (r->nuses + 1) * sizeof(*nv));
        if (!nv) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        r->uses = nv;
        r->uses[r->nuses++] = found;
    }
    return 0;
}

static int parse_number(const char *val, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

static int rule_field(struct parser *p, const char *key, char *val)
{
    struct rule *r = &p->s->rules[p->s->nrules - 1];
    double d;
#define ONCE(f)                                                                                                       \
    if (f) return RULES_ERR(p, "rules line %u: rule '%s' has a second '%s'; keep one", p->lineno, r->id, key)
    if (strcmp(key, "description") == 0) {
        ONCE(r->desc);
        if (!(r->desc = strdup(val))) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
    } else if (strcmp(key, "severity") == 0) {
        if (mg_sev_parse(val, &r->sev) != 0)
            return RULES_ERR(p, "rules line %u: severity '%s' is not high, medium or low", p->lineno, val);
    } else if (strcmp(key, "keywords") == 0) {
        ONCE(r->kw);
        return parse_keywords(p, r, val);
    } else if (strcmp(key, "pattern") == 0) {
        ONCE(r->pattern);
        char what[128];
        snprintf(what, sizeof(what), "the pattern of rule '%s'", r->id);
        if (compile_re(p, &r->re, val, what) != 0) return -1;
        if (!(r->pattern = strdup(val))) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        r->pattern_line = p->lineno;
    } else if (strcmp(key, "group") == 0) {
        r->ngroup = 0;
        for (char *save = NULL, *w = strtok_r(val, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
            if (r->ngroup == 4 || parse_number(w, 0, 99, &d) != 0 || d != (int)d)
                return RULES_ERR(p, "rules line %u: group wants 1 to 4 whole numbers from 0 to 99, got '%s'", p->lineno, w);
            r->group[r->ngroup++] = (int)d;
        }
    } else if (strcmp(key, "entropy") == 0) {
        if (parse_number(val, 0, 8, &d) != 0)
            return RULES_ERR(p, "rules line %u: entropy '%s' is not a number from 0 to 8 (bits per byte)", p->lineno, val);
        r->entropy = d;
    } else if (strcmp(key, "lines") == 0) {
        if (parse_number(val, 1, 100000, &d) != 0 || d != (int)d)
            return RULES_ERR(p, "rules line %u: lines '%s' is not a whole number from 1 to 100000", p->lineno, val);
        r->lines = (int)d;
    } else if (strcmp(key, "allowlists") == 0) {
        return parse_uses(p, r, val);
    } else if (strcmp(key, "allow") == 0 || strcmp(key, "allow_line") == 0) {
        return add_allow(p, key[5] == '_', val);
    } else {
        return RULES_ERR(p, "rules line %u: unknown field '%s'; rules have description, severity, keywords, pattern, "
                            "group, entropy, lines, allowlists, allow, allow_line", p->lineno, key);
    }
#undef ONCE
    return 0;
}

static int parse_line(struct parser *p, char *line, size_t *rcap)
{
    char *t = trim(line);
    if (!*t || *t == '#') return 0;
    struct mg_scanner *s = p->s;
    if (strncmp(t, "rule", 4) == 0 && (t[4] == ' ' || t[4] == '\t')) {
        if (finish_rule(p) != 0) return -1;
        char *id = trim(t + 5);
        if (!valid_id(id)) return RULES_ERR(p, "rules line %u: rule id '%.80s' is not 1-64 of a-z 0-9 . _ -", p->lineno, id);
        for (size_t i = 0; i < s->nrules; i++)
            if (strcmp(s->rules[i].id, id) == 0)
                return RULES_ERR(p, "rules line %u: rule id '%s' is already used at line %u", p->lineno, id, s->rules[i].line);
        if (s->nrules == MG_RULES_MAX_RULES)
            return RULES_ERR(p, "rules line %u: more than %d rules", p->lineno, MG_RULES_MAX_RULES);
        if (grow((void **)&s->rules, s->nrules, rcap, sizeof(struct rule)) != 0)
            return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        struct rule *r = &s->rules[s->nrules++];
        memset(r, 0, sizeof(*r));
        r->line = p->lineno;
        r->sev = MG_SEV_HIGH;
        r->lines = 1;
        if (!(r->id = strdup(id))) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        p->block = B_RULE;
        return 0;
    }
    if (strncmp(t, "allowlist", 9) == 0 && (t[9] == ' ' || t[9] == '\t')) {
        if (finish_rule(p) != 0) return -1;
        char *name = trim(t + 10);
        if (!valid_id(name))
            return RULES_ERR(p, "rules line %u: allowlist name '%.80s' is not 1-64 of a-z 0-9 . _ -", p->lineno, name);
        if (s->nrules)
            return RULES_ERR(p, "rules line %u: allowlist '%s' comes after a rule; define allowlists before the first rule",
                             p->lineno, name);
        for (size_t i = 0; i < s->nlists; i++)
            if (strcmp(s->lists[i].name, name) == 0)
                return RULES_ERR(p, "rules line %u: allowlist '%s' is defined twice", p->lineno, name);
        if (s->nlists == 64) return RULES_ERR(p, "rules line %u: more than 64 allowlists", p->lineno);
        /* rules point into lists: it must never move, so it is allocated whole */
        if (!s->lists && !(s->lists = calloc(64, sizeof(struct alist))))
            return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        struct alist *a = &s->lists[s->nlists++];
        if (!(a->name = strdup(name))) return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        p->block = B_LIST;
        return 0;
    }
    char *eq = strchr(t, '=');
    if (!eq) return RULES_ERR(p, "rules line %u: expected 'rule ID', 'allowlist NAME' or 'field = value'", p->lineno);
    *eq = 0;
    char *key = trim(t), *val = trim(eq + 1);
    if (p->block == B_NONE)
        return RULES_ERR(p, "rules line %u: field '%s' outside a rule or allowlist; start one with 'rule ID'", p->lineno, key);
    if (!*val) return RULES_ERR(p, "rules line %u: field '%s' has no value", p->lineno, key);
    if (p->block == B_LIST) {
        if (strcmp(key, "allow") == 0 || strcmp(key, "allow_line") == 0) return add_allow(p, key[5] == '_', val);
        return RULES_ERR(p, "rules line %u: unknown allowlist field '%s'; allowlists have allow and allow_line", p->lineno, key);
    }
    return rule_field(p, key, val);
}

static int parse_rules(struct mg_scanner *s, const char *text, size_t len, bool lazy, struct mg_err *err)
{
    struct parser p = {.s = s, .lazy = lazy, .err = err};
    size_t rcap = 0;
    char *line = malloc(MG_RULES_MAX_LINE + 1);
    if (!line) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory loading the rules");
    int rc = 0;
    size_t i = 0;
    while (i < len && rc == 0) {
        p.lineno++;
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = (nl ? (size_t)(nl - text) : len) - i;
        if (n > MG_RULES_MAX_LINE) {
            rc = RULES_ERR(&p, "rules line %u: longer than %d bytes", p.lineno, MG_RULES_MAX_LINE);
            break;
        }
        if (memchr(text + i, 0, n)) {
            rc = RULES_ERR(&p, "rules line %u: contains a NUL byte; a rules file is text", p.lineno);
            break;
        }
        memcpy(line, text + i, n);
        line[n] = 0;
        rc = parse_line(&p, line, &rcap);
        i += n + 1;
    }
    if (rc == 0) rc = finish_rule(&p);
    if (rc == 0 && s->nrules == 0) rc = RULES_ERR(&p, "rules line %u: no rules; a rules file needs at least one 'rule ID' block", p.lineno);
    free(line);
    return rc;
}

/* ---- 4. compiling ---------------------------------------------------------- */

static bool cache_path(const char *kind, const char *const *pats, const unsigned *flags, size_t n, const char *const *extra,
                       size_t nextra, char *out, size_t cap);
static bool cache_load(const char *path, hs_database_t **db);
static void cache_store(const char *path, const hs_database_t *db);

/* The regexes of a set Vectorscan rejected, remembered beside the cached
 * databases under the key of the whole set (`<key>.hsimg.rej`: their
 * indexes, u32 each): without it every process compiled the whole set
 * again, found the same rejects, then loaded the rest from the cache (19%
 * of a CLI search). */
static void rejects_load(const char *path, bool *pc, size_t n)
{
    char rp[PATH_MAX + 80];
    snprintf(rp, sizeof(rp), "%s.rej", path);
    FILE *f = fopen(rp, "rb");
    if (!f) return;
    uint32_t i;
    while (fread(&i, sizeof(i), 1, f) == 1)
        if (i < n) pc[i] = true;
    fclose(f);
}

struct rejects {
    const bool *pc;
    size_t n;
};

static int rejects_write(FILE *f, void *arg)
{
    const struct rejects *r = arg;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->pc[i] && fwrite(&i, sizeof(i), 1, f) != 1) return -1;
    return 0;
}

/* One aset from the regexes (source texts and programs) of several lists.
 * Vectorscan compiles its share in block mode, exactly (no prefilter), each
 * with HS_FLAG_MULTILINE like PCRE2's; a regex it rejects is left to PCRE2
 * and the rest compiled again. */
static int build_aset(struct mg_scanner *s, struct aset *as, struct mg_lre *const *res, size_t n, struct mg_err *err)
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
    char wpath[PATH_MAX + 64];
    bool wcache = cache_path("allow", hp, flags, n, NULL, 0, wpath, sizeof(wpath));
    if (wcache) rejects_load(wpath, pc, n);
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
        char cpath[PATH_MAX + 64]; /* cached like the rules' database (on_allow_match ignores ids) */
        bool cache = cache_path("allow", hp, flags, k, NULL, 0, cpath, sizeof(cpath));
        if (cache && cache_load(cpath, &as->db)) break;
        hs_compile_error_t *ce = NULL;
        if (hs_compile_multi(hp, flags, ids, k, HS_MODE_BLOCK, NULL, &as->db, &ce) == HS_SUCCESS) {
            if (cache) cache_store(cpath, as->db);
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
    if (rejected && wcache) {
        struct mg_err ignored = {0};
        char rp[PATH_MAX + 80];
        snprintf(rp, sizeof(rp), "%s.rej", wpath);
        mg_file_replace(rp, rejects_write, &(struct rejects){pc, n}, &ignored);
    }
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
        struct rule *r = &s->rules[i];
        bool own = r->own.nsec || r->own.nline;
        for (size_t j = 0; j < i && !own && !r->asec; j++) { /* the same lists as an earlier rule: share */
            const struct rule *q = &s->rules[j];
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
                const struct alist *a = u == 0 ? &r->own : r->uses[u - 1];
                size_t m = line ? a->nline : a->nsec;
                for (size_t x = 0; x < m; x++, k++) {
                    res[k] = line ? &a->line[x] : &a->sec[x];
                }
            }
            struct aset *as = &s->asets[s->nasets++];
            int rc = build_aset(s, as, res, n, err);
            free(res);
            if (rc != 0) return -1;
            if (line) r->aline = as;
            else r->asec = as;
        }
    }
    return 0;
}

/* The compiled Vectorscan database is cached on disk (mg_scanner_cache_dir):
 * compiling 250 rules takes most of a second, loading the cached database a
 * millisecond. The file name is a hash of the patterns, their flags and the
 * Vectorscan version; a file that does not load (another CPU, a torn write)
 * is recompiled and replaced. Written to a temporary name and renamed. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static char cache_dir[PATH_MAX];

void mg_scanner_cache_dir(const char *dir)
{
    pthread_mutex_lock(&cache_mu);
    snprintf(cache_dir, sizeof(cache_dir), "%s", dir ? dir : "");
    pthread_mutex_unlock(&cache_mu);
}

static bool cache_path(const char *kind, const char *const *pats, const unsigned *flags, size_t n, const char *const *extra,
                       size_t nextra, char *out, size_t cap)
{
    pthread_mutex_lock(&cache_mu);
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", cache_dir);
    pthread_mutex_unlock(&cache_mu);
    if (!dir[0]) return false;
    crypto_generichash_state h;
    unsigned char key[16];
    crypto_generichash_init(&h, NULL, 0, sizeof(key));
    const char *v = hs_version();
    crypto_generichash_update(&h, (const unsigned char *)v, strlen(v) + 1);
    /* the image is Vectorscan's in-memory database, built for this CPU's
     * instruction sets: another CPU gets its own file */
    unsigned cpu = (unsigned)__builtin_cpu_supports("sse4.2") | (unsigned)__builtin_cpu_supports("popcnt") << 1 |
                   (unsigned)__builtin_cpu_supports("avx2") << 2 | (unsigned)__builtin_cpu_supports("bmi2") << 3 |
                   (unsigned)__builtin_cpu_supports("avx512f") << 4 | (unsigned)__builtin_cpu_supports("avx512bw") << 5 |
                   (unsigned)__builtin_cpu_supports("avx512vbmi") << 6;
    crypto_generichash_update(&h, (const unsigned char *)&cpu, sizeof(cpu));
    crypto_generichash_update(&h, (const unsigned char *)kind, strlen(kind) + 1);
    for (size_t i = 0; i < n; i++) {
        crypto_generichash_update(&h, (const unsigned char *)pats[i], strlen(pats[i]) + 1);
        crypto_generichash_update(&h, (const unsigned char *)&flags[i], sizeof(flags[i]));
    }
    for (size_t i = 0; i < nextra; i++) crypto_generichash_update(&h, (const unsigned char *)extra[i], strlen(extra[i]) + 1);
    crypto_generichash_final(&h, key, sizeof(key));
    char hex[2 * sizeof(key) + 1];
    sodium_bin2hex(hex, sizeof(hex), key, sizeof(key));
    return snprintf(out, cap, "%s/secrets-%s.hsimg", dir, hex) < (int)cap;
}

/* A cached database is Vectorscan's in-memory database itself (what
 * hs_deserialize_database_at builds, at a page-aligned address), followed by
 * the XXH3 hash of those bytes: it is mapped read-only and used where it
 * lies, as Vectorscan allows for shared memory. A one-shot command then
 * neither copies nor zeroes 2.7 MB of databases (a quarter of a CLI
 * search's CPU); the pages it scans come from the page cache, shared by
 * every process. A file that is short, does not hash to its trailer or is
 * not a database of this Vectorscan is recompiled and replaced. The mapped
 * ones are listed, so that mg_hs_free unmaps rather than frees them. */
#define MAX_MAPPED 64
static struct {
    const void *p;
    size_t len;
} mapped[MAX_MAPPED];

static bool cache_load(const char *path, hs_database_t **db)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 64 && st.st_size < (64 << 20)) {
        size_t len = (size_t)st.st_size, n = len - sizeof(uint64_t), dbsz = 0;
        void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            uint64_t want;
            memcpy(&want, (const char *)m + n, sizeof(want));
            ok = XXH3_64bits(m, n) == want && hs_database_size(m, &dbsz) == HS_SUCCESS && dbsz <= n;
            pthread_mutex_lock(&cache_mu);
            size_t k = 0;
            while (k < MAX_MAPPED && mapped[k].p) k++;
            if (ok && k < MAX_MAPPED) mapped[k].p = m, mapped[k].len = len;
            else ok = false;
            pthread_mutex_unlock(&cache_mu);
            if (ok) *db = m;
            else munmap(m, len);
        }
    }
    close(fd);
    return ok;
}

void mg_hs_free(hs_database_t *db)
{
    if (!db) return;
    pthread_mutex_lock(&cache_mu);
    for (size_t k = 0; k < MAX_MAPPED; k++)
        if (mapped[k].p == db) {
            munmap((void *)mapped[k].p, mapped[k].len);
            mapped[k].p = NULL;
            pthread_mutex_unlock(&cache_mu);
            return;
        }
    pthread_mutex_unlock(&cache_mu);
    hs_free_database(db);
}

static void cache_store(const char *path, const hs_database_t *db)
{
    char *b = NULL, *img = NULL;
    size_t n = 0, len = 0;
    if (hs_serialize_database(db, &b, &n) != HS_SUCCESS) return;
    if (hs_serialized_database_size(b, n, &len) != HS_SUCCESS || posix_memalign((void **)&img, 4096, len + 8) != 0) {
        free(b);
        return;
    }
    memset(img, 0, len);
    if (hs_deserialize_database_at(b, n, (hs_database_t *)img) != HS_SUCCESS) {
        free(b);
        free(img);
        return;
    }
    free(b);
    uint64_t h = XXH3_64bits(img, len);
    memcpy(img + len, &h, sizeof(h));
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    struct mg_err ignored = {0};
    mg_mkdirs_0700(dir, &ignored); /* ~/.cache may not exist yet; failing, the open below fails and nothing is cached */
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        bool ok = write(fd, img, len + 8) == (ssize_t)(len + 8) && fsync(fd) == 0;
        close(fd);
        if (!ok || rename(tmp, path) != 0) unlink(tmp);
    }
    free(img);
}

int mg_hs_compile_cached(const char *kind, const char *const *pats, const unsigned *flags, unsigned n,
                         struct hs_database **db, char *why, size_t cap)
{
    char cpath[PATH_MAX + 64];
    bool cache = cache_path(kind, pats, flags, n, NULL, 0, cpath, sizeof(cpath));
    if (cache && cache_load(cpath, db)) return 0;
    unsigned *ids = malloc((n ? n : 1) * sizeof(*ids));
    if (!ids) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < n; i++) ids[i] = i;
    hs_compile_error_t *ce = NULL;
    int rc = 0;
    if (hs_compile_multi(pats, flags, ids, n, HS_MODE_BLOCK, NULL, db, &ce) != HS_SUCCESS) {
        snprintf(why, cap, "pattern %d: %s", ce ? ce->expression : -1, ce ? ce->message : "?");
        hs_free_compile_error(ce);
        *db = NULL;
        rc = -1;
    } else if (cache) {
        cache_store(cpath, *db);
    }
    free(ids);
    return rc;
}

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

static int bad_pattern(const struct rule *r, const char *msg, struct mg_err *err)
{
    return mg_err_set(err, MG_E_BAD_RULES, "rules line %u: rule '%s': Vectorscan cannot compile the pattern: %s; simplify it",
                      r->pattern_line, r->id, msg);
}

/* Can the one-character atom p[0..n) (a class, an escape, '.' or a literal)
 * match "\n"? Asked of PCRE2, which knows every class syntax; an atom it
 * does not compile is taken to match. */
static bool atom_matches_newline(const char *p, size_t n)
{
    int ec;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, n, PCRE2_NEVER_UTF | PCRE2_NEVER_UCP, &ec, &off, NULL);
    if (!re) return true;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    bool m = !md || pcre2_match(re, (PCRE2_SPTR) "\n", 1, 0, PCRE2_ANCHORED, md, NULL) >= 0;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return m;
}

/* The length of the quantifier {m}, {m,} or {m,n} at p (0: p is not one,
 * and PCRE2 takes the '{' as a literal). *cut: m when it is {m,} or {m,n}
 * with m >= 1, what the quantifier can be cut to; else 0. */
static size_t brace_quant(const char *p, unsigned long *cut)
{
    size_t i = 1;
    unsigned long m = 0;
    *cut = 0;
    if (!isdigit((unsigned char)p[i])) return 0;
    for (; isdigit((unsigned char)p[i]); i++)
        if (m < 100000) m = m * 10 + (unsigned long)(p[i] - '0'); /* (PCRE2 allows at most 65535) */
    bool open = p[i] == ',';
    if (open) {
        i++;
        while (isdigit((unsigned char)p[i])) i++;
    }
    if (p[i] != '}') return 0;
    if (open && m >= 1) *cut = m;
    return i + 1;
}

/* The tokens of a pattern, as far as the first pass's rewriting needs them:
 * for each byte that starts a token its kind and its end (end[]), and for
 * each token's last byte where the token starts (start[]). Escapes, classes,
 * \Q...\E and (?#...) comments are single tokens. In a `simple` pattern, '('
 * and ')' point at each other (match[]) and a '|' at its group's ')' (n at
 * the top); a quantifier holds what it can be cut to (rep[]: 1 for '+', m
 * for {m,} and {m,n}). Not simple: lookarounds, conditionals, named groups,
 * inline flags other than (?i), back-references, escapes longer than two
 * bytes (\x41, \p{L}, ...); those are tokenised only far enough to find
 * their bounded repeats. -1: no memory. */
enum { K_NONE, K_OPEN, K_CLOSE, K_ALT, K_QUANT, K_ATOM };
struct syn {
    size_t n;
    unsigned char *kind;
    size_t *end, *start, *match;
    unsigned long *rep;
    bool simple;
    bool caseless;       /* (?i) first, and no other (?i */
    bool mixed;          /* a (?i) or (?i: elsewhere */
};

static void syn_free(struct syn *y)
{
    free(y->kind);
    free(y->end);
    free(y->start);
    free(y->match);
    free(y->rep);
}

static int syn_parse(const char *p, struct syn *y)
{
    size_t n = strlen(p), nflags = 0;
    memset(y, 0, sizeof(*y));
    y->n = n;
    y->simple = true;
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == '\\') {
            if (strchr("0123456789gkxopPcNu", p[i + 1])) y->simple = false;
            i++;
        } else if (p[i] == '(' && p[i + 1] == '?') {
            if (p[i + 2] == 'i' && (p[i + 3] == ')' || p[i + 3] == ':')) nflags++;
            else if (p[i + 2] != ':' && p[i + 2] != '#') y->simple = false;
        }
    }
    y->caseless = nflags == 1 && strncmp(p, "(?i)", 4) == 0;
    y->mixed = nflags && !y->caseless;
    y->kind = calloc(n + 1, 1);
    y->end = calloc(n + 1, sizeof(size_t));
    y->start = calloc(n + 1, sizeof(size_t));
    y->match = calloc(n + 1, sizeof(size_t));
    y->rep = calloc(n + 1, sizeof(unsigned long));
    size_t *stack = calloc(n + 1, sizeof(size_t)), depth = 0;
    if (!y->kind || !y->end || !y->start || !y->match || !y->rep || !stack) {
        free(stack);
        syn_free(y);
        return -1;
    }
    for (size_t i = 0; i < n;) {
        size_t skip = 1;
        unsigned char k = K_NONE;
        if (p[i] == '\\' && p[i + 1] == 'Q') {
            const char *e = strstr(p + i + 2, "\\E");
            skip = e ? (size_t)(e - p) + 2 - i : n - i;
        } else if (p[i] == '\\') {
            skip = i + 1 < n ? 2 : 1;
            y->simple = y->simple && skip == 2; /* (a '\' last: PCRE2 rejected it already) */
            if (skip == 2 && (!isalnum((unsigned char)p[i + 1]) || strchr("dDsSwWtnr", p[i + 1]))) k = K_ATOM; /* else \b, \A, ... */
        } else if (p[i] == '[') {
            size_t j = i + 1;
            j += p[j] == '^';
            j += p[j] == ']'; /* a ']' first is a member */
            while (j < n && p[j] != ']') {
                if (p[j] == '[' && p[j + 1] == ':') { /* [:alpha:] */
                    const char *e = strstr(p + j + 2, ":]");
                    y->simple = y->simple && e; /* (without ":]" PCRE2 decides what it is) */
                    j = e ? (size_t)(e - p) + 2 : j + 1;
                } else {
                    j += p[j] == '\\' ? 2 : 1;
                }
            }
            k = j < n ? K_ATOM : K_NONE; /* (unterminated: PCRE2 rejected it already) */
            y->simple = y->simple && j < n;
            skip = (j < n ? j + 1 : n) - i;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == '#') {
            const char *e = strchr(p + i, ')');
            skip = e ? (size_t)(e - p) + 1 - i : n - i;
        } else if (p[i] == '(' && p[i + 1] == '?' && p[i + 2] == 'i' && p[i + 3] == ')') {
            skip = 4; /* a flag, not a group */
        } else if (p[i] == '(') {
            k = K_OPEN;
            stack[depth++] = i;
            if (y->simple && p[i + 1] == '?') skip = p[i + 2] == ':' ? 3 : 4; /* (?: (?i: */
        } else if (p[i] == ')') {
            k = K_CLOSE;
            if (depth) {
                y->match[i] = stack[--depth];
                y->match[y->match[i]] = i;
            } else {
                y->simple = false;
            }
        } else if (p[i] == '|') {
            k = K_ALT;
        } else if (p[i] == '+' || p[i] == '*' || p[i] == '?') {
            k = K_QUANT;
            y->rep[i] = p[i] == '+';
        } else if (p[i] == '{' && (skip = brace_quant(p + i, &y->rep[i]))) {
            k = K_QUANT;
        } else {
            skip = 1;
            if (p[i] != '^' && p[i] != '$') k = K_ATOM; /* '.' or a literal */
        }
        if (skip > n - i) skip = n - i;
        y->kind[i] = k;
        y->end[i] = i + skip;
        y->start[i + skip - 1] = i;
        i += skip;
    }
    if (depth) y->simple = false;
    for (size_t k = 0; k < n && y->simple; k++)
        if (y->kind[k] == K_ALT) {
            size_t d = 0, j = k + 1;
            for (; j < n; j++) {
                if (y->kind[j] == K_OPEN) d++;
                else if (y->kind[j] == K_CLOSE && d-- == 0) break;
            }
            y->match[k] = j;
        }
    free(stack);
    return 0;
}

/* Does the repeat ending at qe end the pattern, or an alternative that
 * does? (Past ')' and '|' only; a repeated group's quantifier ends the walk.) */
static bool at_tail(const struct syn *y, size_t qe)
{
    for (size_t k = qe; k < y->n;) {
        if (y->kind[k] == K_ALT) k = y->match[k];
        else if (y->kind[k] == K_CLOSE) k++;
        else return false;
    }
    return true;
}

/* The pattern as the prefilter compiles it. NULL: out of memory.
 * - A bounded repeat {m,n} with n more than m + 16 becomes {m,}. The
 *   language only grows (prefilter mode matches a superset anyway), so every
 *   end of a real match is still a hit; Vectorscan runs a long bounded
 *   repeat much slower than an open one (the generic rules' {16,200}: 2x on
 *   secret-dense text).
 * - In a simple pattern (syn_parse), a repeat that ends the pattern, or an
 *   alternative that does, of one character that is never '\n', is cut to
 *   its minimum: X+ becomes X, X{m,} and X{m,n} become X{m} (m >= 1).
 *   Vectorscan reports every end of every match, so a pattern ending in
 *   [A-Za-z0-9/+=]{100,} gave a hit for each byte of a long base64 value (a
 *   third of the first pass's hits on secret-dense text, each skipped after
 *   Vectorscan had made it). The cut pattern's shortest match is the
 *   original's, on the same line (the bytes cut are X's, not '\n'), so each
 *   match's first hit, and its window, is where it was; what goes is the
 *   later ends of matches already found. */
static char *prefilter_pattern(const char *p)
{
    struct syn y;
    if (syn_parse(p, &y) != 0) return NULL;
    char *out = malloc(y.n + 1), *o = out; /* (every rewrite is shorter than what it replaces) */
    for (size_t i = 0; out && i < y.n;) {
        size_t e = y.end[i];
        if (y.kind[i] == K_QUANT && y.rep[i] && y.simple && i > 0 && y.kind[y.start[i - 1]] == K_ATOM) {
            size_t a = y.start[i - 1], qe = e + (e < y.n && p[e] == '?'); /* (a lazy one too) */
            if (at_tail(&y, qe) && !atom_matches_newline(p + a, i - a)) {
                if (p[i] == '{') o += sprintf(o, "{%lu}", y.rep[i]);
                i = qe;
                continue;
            }
        }
        char *e1;
        unsigned long m;
        if (y.kind[i] == K_QUANT && p[i] == '{' && (m = strtoul(p + i + 1, &e1, 10), *e1 == ',') &&
            isdigit((unsigned char)e1[1]) && strtoul(e1 + 1, NULL, 10) > m + 16) {
            o += sprintf(o, "{%lu,}", m);
        } else {
            memcpy(o, p + i, e - i);
            o += e - i;
        }
        i = e;
    }
    if (out) *o = 0;
    syn_free(&y);
    return out;
}

/* The literal every match of the pattern ends with (the END line of a PEM
 * key): its plain characters and escaped punctuation after the last token
 * that is neither, under closing parentheses of groups without
 * alternatives; into out (at most cap bytes, NUL-terminated). Returns its
 * length; 0: none, the pattern is not simple, or a (?i: group or a late
 * (?i) makes its case unsure. */
static size_t literal_suffix(const char *p, char *out, size_t cap, bool *caseless)
{
    struct syn y;
    if (syn_parse(p, &y) != 0) return 0;
    size_t j = y.n, len = 0;
    bool ok = y.simple && !y.mixed;
    while (ok && j > 0 && y.kind[y.start[j - 1]] == K_CLOSE) { /* a group closed at the end: no '|' of its own */
        for (size_t k = y.match[j - 1] + 1; k < j - 1 && ok; k++) ok = !(y.kind[k] == K_ALT && y.match[k] == j - 1);
        j--;
    }
    size_t end = j = ok ? j : 0;
    while (j > 0 && len + 1 < cap) {
        size_t i = y.start[j - 1];
        if (y.kind[i] != K_ATOM || !(i + 1 == j ? p[i] != '.' : i + 2 == j && p[i] == '\\' && !isalnum((unsigned char)p[i + 1])))
            break;
        j = i;
        len++;
    }
    size_t o = 0;
    for (size_t i = j; i < end; i = y.end[i]) out[o++] = p[i + (p[i] == '\\')];
    out[o] = 0;
    *caseless = y.caseless;
    syn_free(&y);
    return o;
}

static bool has_word(const char *p, size_t n, const char *kw);

/* A prefilter rule's pattern as the first pass compiles it, and its flags:
 * the literal all its matches end with, when it has one that holds one of
 * the rule's keywords (so it occurs no more often than the keyword): a hit
 * where it occurs, at the end of the match as the pattern's would be, and no
 * automaton kept running over a key block from its BEGIN line. Else the
 * pattern rewritten by prefilter_pattern, in prefilter mode. NULL: no
 * memory. */
static char *prefilter_form(const struct rule *r, unsigned *flags)
{
    char lit[256];
    bool caseless = false;
    size_t n = literal_suffix(r->pattern, lit, sizeof(lit), &caseless);
    bool kw = false;
    for (size_t k = 0; k < r->nkw && !kw; k++) kw = has_word(lit, n, r->kw[k]);
    char *p;
    if (kw) {
        if ((p = malloc(4 * n + 1)))
            for (size_t b = 0; b < n; b++) sprintf(p + 4 * b, "\\x%02x", (unsigned char)lit[b]);
        *flags = caseless ? HS_FLAG_CASELESS : 0;
        return p;
    }
    *flags = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE;
    return prefilter_pattern(r->pattern);
}

/* The first pass, one Vectorscan database. Every rule needs one of its
 * keywords inside a match, so the keywords are an exact filter: a rule of one
 * line (`lines` 1) none of whose keywords is common (common_kw) is confirmed
 * only on the lines where one of its keywords occurs; the keywords are
 * caseless literals in the database (ids from nrules: kws[id - nrules]). The
 * other rules' patterns are in it in prefilter mode, relaxed and cut, or as
 * the literal they end with (prefilter_form): common keywords occur far
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
        struct rule *r = &s->rules[i];
        r->bykw = r->lines == 1;
        for (size_t k = 0; k < r->nkw && r->bykw; k++) r->bykw = !common_kw(uses, nuses, r->kw[k]);
        if (!r->bykw) {
            if (!(owned[n] = prefilter_form(r, &flags[n]))) goto oom;
            pats[n] = owned[n];
            ids[n] = (unsigned)i;
            rule_of[n++] = (uint32_t)i;
            continue;
        }
        extra[nx++] = r->pattern;
        for (size_t k = 0; k < r->nkw; k++) {
            size_t j = 0;
            while (j < s->nkws && strcmp(s->kws[j].kw, r->kw[k]) != 0) j++;
            struct kwent *e = &s->kws[j];
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
        const struct kwent *e = &s->kws[j];
        if (!(owned[n] = malloc(4 * e->len + 1))) goto oom;
        for (size_t b = 0; b < e->len; b++) sprintf(owned[n] + 4 * b, "\\x%02x", (unsigned char)e->kw[b]);
        pats[n] = owned[n];
        flags[n] = HS_FLAG_CASELESS;
        ids[n] = (unsigned)(s->nrules + j);
        rule_of[n++] = e->rules[0];
    }
    char cpath[PATH_MAX + 64];
    bool cache = cache_path("first-pass", pats, flags, n, extra, nx, cpath, sizeof(cpath));
    if (!(cache && cache_load(cpath, &s->db))) {
        for (size_t i = 0; i < s->nrules; i++) {
            const struct rule *r = &s->rules[i];
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
        if (hs_compile_multi(pats, flags, ids, (unsigned)n, HS_MODE_BLOCK, NULL, &s->db, &ce) != HS_SUCCESS) {
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
        if (cache) cache_store(cpath, s->db);
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
    if (parse_rules(s, text, len, lazy, err) != 0 || compile_allow(s, err) != 0 || compile_db(s, err) != 0) {
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
    size_t n = (size_t)st.st_size, got = 0;
    char *text = malloc(n + 1);
    if (!text) {
        close(fd);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
    }
    while (got < n) {
        ssize_t r = read(fd, text + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
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

/* ---- 5. the pool of per-scan state ----------------------------------------- */

static struct slot *slot_get(const struct mg_scanner *cs)
{
    struct mg_scanner *s = (struct mg_scanner *)cs; /* the pool is the only mutable part */
    pthread_mutex_lock(&s->mu);
    struct slot *sl = s->pool;
    if (sl) s->pool = sl->next;
    pthread_mutex_unlock(&s->mu);
    if (sl) return sl;
    if (!(sl = calloc(1, sizeof(*sl)))) return NULL;
    if (hs_clone_scratch(s->proto, &sl->scratch) != HS_SUCCESS) sl->scratch = NULL;
    bool aok = !s->aproto || hs_clone_scratch(s->aproto, &sl->ascratch) == HS_SUCCESS;
    sl->md = pcre2_match_data_create(100, NULL);
    if ((sl->resume = calloc(2 * s->nrules, sizeof(size_t)))) sl->searched = sl->resume + s->nrules;
    sl->fh = malloc(FP_BATCH * sizeof(*sl->fh));
    if (!sl->scratch || !aok || !sl->md || !sl->resume || !sl->fh) {
        if (sl->scratch) hs_free_scratch(sl->scratch);
        if (sl->ascratch) hs_free_scratch(sl->ascratch);
        pcre2_match_data_free(sl->md);
        free(sl->resume);
        free(sl->fh);
        free(sl);
        return NULL;
    }
    return sl;
}

static void slot_put(const struct mg_scanner *cs, struct slot *sl)
{
    struct mg_scanner *s = (struct mg_scanner *)cs;
    pthread_mutex_lock(&s->mu);
    sl->next = s->pool;
    s->pool = sl;
    pthread_mutex_unlock(&s->mu);
}

/* ---- 6. scanning ------------------------------------------------------------- */

struct hit {
    uint32_t rule;
    bool enc;            /* found in the base64-decoded text of [start, end) (7c) */
    size_t start, end;
};

struct scan {
    const struct mg_scanner *s;
    const char *buf;
    size_t len;
    struct slot *sl;
    struct hit *v;
    size_t n, cap;
    bool oom;
    size_t nfh;          /* first-pass hits in sl->fh */
    bool line_ok;        /* line_s, line_e: the whole line of the last keyword hit */
    size_t line_s, line_e;
};

/* ASCII lower case (tolower() is a call per byte, and locale-dependent) */
static inline unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Case-insensitive: does [p, p+n) contain the lower-case word kw? */
static bool has_word(const char *p, size_t n, const char *kw)
{
    size_t k = strlen(kw);
    if (k > n) return false;
    for (size_t i = 0; i + k <= n; i++) {
        if (lower((unsigned char)p[i]) != (unsigned char)kw[0]) continue;
        size_t j = 1;
        while (j < k && lower((unsigned char)p[i + j]) == (unsigned char)kw[j]) j++;
        if (j == k) return true;
    }
    return false;
}

static int on_allow_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id;
    (void)from;
    (void)to;
    (void)flags;
    (void)ctx;
    return 1; /* one match allows: stop */
}

/* JIT code runs by pcre2_jit_match, which skips pcre2_match's per-call checks. */
static int rx_match(struct mg_lre *l, const char *p, size_t len, size_t off, struct scan *sc)
{
    bool jit;
    const pcre2_code *re = mg_lre_get(l, &jit);
    if (!re) return PCRE2_ERROR_NOMATCH; /* (a built-in regex that does not compile: the tests say none) */
    if (jit) return pcre2_jit_match(re, (PCRE2_SPTR)p, len, off, 0, sc->sl->md, sc->s->mctx);
    return pcre2_match(re, (PCRE2_SPTR)p, len, off, 0, sc->sl->md, sc->s->mctx);
}

static bool any_match(const struct aset *as, const char *p, size_t len, struct scan *sc)
{
    if (as->db && hs_scan(as->db, p, (unsigned int)len, 0, sc->sl->ascratch, on_allow_match, NULL) == HS_SCAN_TERMINATED)
        return true;
    for (size_t i = 0; i < as->nextra; i++)
        if (rx_match(as->extra[i], p, len, 0, sc) >= 0) return true;
    return false;
}

/* The start of the line holding pos: after the last '\n' in [lo, pos), or lo. */
static size_t line_start(const char *buf, size_t lo, size_t pos)
{
    const char *q = pos > lo ? memrchr(buf + lo, '\n', pos - lo) : NULL;
    return q ? (size_t)(q - buf) + 1 : lo;
}

/* The end of the line holding pos: the first '\n' in [pos, hi), or hi. */
static size_t line_end(const char *buf, size_t pos, size_t hi)
{
    const char *q = hi > pos ? memchr(buf + pos, '\n', hi - pos) : NULL;
    return q ? (size_t)(q - buf) : hi;
}

static bool allowed(struct scan *sc, const struct rule *r, size_t a, size_t b)
{
    if (any_match(r->asec, sc->buf + a, b - a, sc)) return true;
    if (!r->aline->db && !r->aline->nextra) return false;
    size_t ls = line_start(sc->buf, a > MG_SCAN_WINDOW_MAX ? a - MG_SCAN_WINDOW_MAX : 0, a);
    size_t le = line_end(sc->buf, b, sc->len - b > MG_SCAN_WINDOW_MAX ? b + MG_SCAN_WINDOW_MAX : sc->len);
    return any_match(r->aline, sc->buf + ls, le - ls, sc);
}

/* Is a candidate a finding: its secret reaches the rule's entropy floor and
 * no allowlist of the rule matches it or its line? */
static bool finding(struct scan *sc, const struct hit *h)
{
    const struct rule *r = &sc->s->rules[h->rule];
    /* (1e-9: an entropy of exactly the floor passes whatever the rounding) */
    if (r->entropy > 0 && mg_shannon_entropy(sc->buf + h->start, h->end - h->start) + 1e-9 < r->entropy) return false;
    return !allowed(sc, r, h->start, h->end);
}

static int add_hit(struct scan *sc, uint32_t rule, size_t a, size_t b)
{
    if (grow((void **)&sc->v, sc->n, &sc->cap, sizeof(struct hit)) != 0) {
        sc->oom = true;
        return -1;
    }
    sc->v[sc->n++] = (struct hit){rule, false, a, b};
    return 0;
}

/* A multi-line rule's window [ws, ws+wlen) searched from off without a
 * match: where can a match still start? PCRE2's hard partial matching says:
 * where its first partial match starts (one that would go on past the
 * window), or nowhere in the window. The rule's next search begins there, so
 * a run of END lines without their BEGIN is not searched back a whole window
 * for each one. */
static void skip_dead_starts(struct scan *sc, const struct rule *r, size_t *resume, size_t ws, size_t wlen, size_t off)
{
    const pcre2_code *re = mg_lre_get((struct mg_lre *)&r->re, NULL);
    int rc = !re ? PCRE2_ERROR_NOMATCH : pcre2_match(re, (PCRE2_SPTR)sc->buf + ws, wlen, off, PCRE2_PARTIAL_HARD, sc->sl->md, sc->s->mctx);
    if (rc == PCRE2_ERROR_NOMATCH) *resume = ws + wlen;
    else if (rc == PCRE2_ERROR_PARTIAL) *resume = ws + pcre2_get_ovector_pointer(sc->sl->md)[0];
}

/* Search rule id's pattern in the window [ws, we) from where its last match
 * ended (matches of one rule never overlap); a match with the secret's group
 * and one of the rule's keywords is a candidate (finding() checks the rest
 * later, for the candidates that can be kept). The search stops after the
 * first match that ends at or after `stop`, the end of the first-pass hit: a
 * later match ends after that one, so the first pass has a hit for it still
 * to come (its keyword, or its end under the prefilter) that resumes the
 * search. A window searched to its end is remembered, and the hits that
 * follow inside it are skipped. For a keyword hit, kw_start is where the
 * keyword starts (stop is its end), else SIZE_MAX. */
static int confirm(struct scan *sc, uint32_t id, size_t ws, size_t we, size_t stop, size_t kw_start)
{
    const struct rule *r = &sc->s->rules[id];
    size_t *resume = &sc->sl->resume[id];
    const char *w = sc->buf + ws;
    size_t wlen = we - ws, off = *resume > ws ? *resume - ws : 0;
    pcre2_match_data *md = sc->sl->md;
    while (off <= wlen) {
        int rc = rx_match((struct mg_lre *)&r->re, w, wlen, off, sc);
        if (rc < 0) { /* no (more) matches, or a limit hit: give up on this window */
            if (rc == PCRE2_ERROR_NOMATCH && r->lines > 1) skip_dead_starts(sc, r, resume, ws, wlen, off);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t m0 = ov[0], m1 = ov[1];
        off = m1 > m0 ? m1 : m1 + 1;
        *resume = ws + off;
        int g = 0;
        for (int i = 0; i < r->ngroup && !g; i++)
            if (r->group[i] < rc && ov[2 * r->group[i]] != PCRE2_UNSET) g = r->group[i];
        size_t a = ws + ov[2 * g], b = ws + ov[2 * g + 1];
        bool keep = !(r->ngroup && !g && r->group[0] != 0) && b > a; /* else none of the groups took part */
        bool holds_hit = kw_start != SIZE_MAX && ws + m0 <= kw_start && stop <= ws + m1; /* the hit's keyword */
        if (keep && !holds_hit) {
            keep = false;
            for (size_t k = 0; k < r->nkw && !keep; k++) keep = has_word(w + m0, m1 - m0, r->kw[k]);
        }
        if (keep && add_hit(sc, id, a, b) != 0) return 1; /* stops the scan */
        if (ws + m1 >= stop) return 0;
    }
    sc->sl->searched[id] = we;
    return 0;
}

/* A prefilter hit of rule `id` (one with a common keyword, or multi-line)
 * ending at `end`. The window: the rule's `lines` lines ending with the
 * hit's line (back to where its next match may start at most), and on to
 * the end of that line; at most MG_SCAN_WINDOW_MAX bytes either side, or
 * for a multi-line rule MG_SCAN_BLOCK_MAX bytes before (a PGP key block
 * with subkeys and a photo runs past 16 KiB). */
static int prefilter_hit(struct scan *sc, uint32_t id, size_t end)
{
    const struct rule *r = &sc->s->rules[id];
    /* a match ending here would overlap the last one, or lie in a window searched to its end */
    size_t resume = sc->sl->resume[id];
    if (end <= resume || end <= sc->sl->searched[id]) return 0;
    size_t cap = r->lines > 1 ? MG_SCAN_BLOCK_MAX : MG_SCAN_WINDOW_MAX;
    size_t lo = end > cap ? end - cap : 0;
    size_t ws = end ? end - 1 : 0; /* the hit's last byte is in the window, even a '\n' */
    for (int nl = 0; nl < r->lines && ws > lo; nl++) {
        ws = line_start(sc->buf, lo, ws);
        if (ws <= resume) break; /* no match starts before resume: the lines before are not needed */
        if (ws > lo && nl + 1 < r->lines) ws--; /* onto the '\n' ending the line before */
    }
    /* ... and on to the end of the line (capped), so the hits that follow on a long line are skipped */
    size_t we = line_end(sc->buf, end, sc->len - end > MG_SCAN_WINDOW_MAX ? end + MG_SCAN_WINDOW_MAX : sc->len);
    return confirm(sc, id, ws, we, end, SIZE_MAX);
}

/* An occurrence of keyword e ending at ke: confirm each rule (found by
 * keywords) that lists it. A match holds the keyword and lies on one line
 * (those rules have `lines` 1): the window is the keyword's line, at most
 * MG_SCAN_WINDOW_MAX bytes either side of the keyword. */
static int keyword_hit(struct scan *sc, const struct kwent *e, size_t ke)
{
    size_t ks = ke - e->len;
    size_t lo = ks > MG_SCAN_WINDOW_MAX ? ks - MG_SCAN_WINDOW_MAX : 0;
    size_t hi = sc->len - ke > MG_SCAN_WINDOW_MAX ? ke + MG_SCAN_WINDOW_MAX : sc->len;
    bool line = false;
    for (size_t i = 0; i < e->nrules; i++) {
        uint32_t rid = e->rules[i];
        if (ke <= sc->sl->resume[rid]) continue; /* inside the rule's last match */
        if (!line) { /* the keyword's whole line; hits come in order, so a long line's ends are looked for once */
            if (!sc->line_ok || ks < sc->line_s || ke > sc->line_e) {
                sc->line_s = line_start(sc->buf, sc->line_ok && sc->line_e <= ks ? sc->line_e : 0, ks);
                sc->line_e = line_end(sc->buf, ke, sc->len);
                sc->line_ok = true;
            }
            line = true;
        }
        size_t ws = sc->line_s > lo ? sc->line_s : lo, we = sc->line_e < hi ? sc->line_e : hi;
        /* searched to its end already: this window; or, when the window is cut
         * at MG_SCAN_WINDOW_MAX inside a long line, the keyword itself (as for
         * a prefilter hit), else each keyword on a long line would search the
         * next 16 KiB again */
        if (we <= sc->sl->searched[rid] || (we < sc->line_e && ke <= sc->sl->searched[rid])) continue;
        if (confirm(sc, rid, ws, we, ke, ks)) return 1;
    }
    return 0;
}

/* Confirm the first-pass hits kept so far, in the order they came (that of
 * their ends). Nonzero: out of memory, stop. */
static int flush_hits(struct scan *sc)
{
    for (size_t i = 0; i < sc->nfh; i++) {
        const struct fp_hit *h = &sc->sl->fh[i];
        int rc = h->id < sc->s->nrules ? prefilter_hit(sc, h->id, h->to)
                                       : keyword_hit(sc, &sc->s->kws[h->id - sc->s->nrules], h->to);
        if (rc) return rc;
    }
    sc->nfh = 0;
    return 0;
}

static int on_first_pass(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)from;
    (void)flags;
    struct scan *sc = ctx;
    sc->sl->fh[sc->nfh++] = (struct fp_hit){id, (size_t)to};
    return sc->nfh == FP_BATCH ? flush_hits(sc) : 0;
}

/* ---- 7. overlaps, reporting, redaction ------------------------------------- */

static int cmp_hit(const void *x, const void *y)
{
    const struct hit *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return a->rule < b->rule ? -1 : a->rule > b->rule;
}

/* The candidates come almost in order (that of the first pass's hits):
 * insertion sort, unless it has to move more than 4 per candidate. */
static void sort_hits(struct hit *v, size_t n)
{
    size_t moves = 0;
    for (size_t i = 1; i < n; i++) {
        struct hit x = v[i];
        size_t j = i;
        for (; j > 0 && cmp_hit(&v[j - 1], &x) > 0 && moves <= 4 * n; j--, moves++) v[j] = v[j - 1];
        v[j] = x;
        if (moves > 4 * n) {
            qsort(v, n, sizeof(*v), cmp_hit);
            return;
        }
    }
}

/* Is a a better finding than b (they overlap)? */
static bool better(const struct mg_scanner *s, const struct hit *a, const struct hit *b)
{
    size_t la = a->end - a->start, lb = b->end - b->start;
    if (la != lb) return la > lb;
    if (s->rules[a->rule].sev != s->rules[b->rule].sev) return s->rules[a->rule].sev > s->rules[b->rule].sev;
    return a->rule < b->rule;
}

/* Run the scan; leaves sc->v sorted, without overlaps. */
static int scan_run(const struct mg_scanner *s, const char *buf, size_t len, struct scan *sc, struct mg_err *err)
{
    memset(sc, 0, sizeof(*sc));
    if (!s) return mg_err_set(err, MG_E_INTERNAL, "no secret scanner (the rules did not load); see the error above");
    if (len > MG_SCAN_MAX_BYTES)
        return mg_err_set(err, MG_E_TOO_LARGE, "input of %zu bytes is over the scanner's %u-byte cap; scan it in parts", len,
                          MG_SCAN_MAX_BYTES);
    sc->s = s;
    sc->buf = buf;
    sc->len = len;
    if (len == 0) return 0;
    if (!(sc->sl = slot_get(s))) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory for scanner scratch space");
    memset(sc->sl->resume, 0, 2 * s->nrules * sizeof(size_t)); /* and searched */
    hs_error_t he = hs_scan(s->db, buf, (unsigned int)len, 0, sc->sl->scratch, on_first_pass, sc);
    if (he == HS_SUCCESS) flush_hits(sc);
    if (sc->oom || (he != HS_SUCCESS && he != HS_SCAN_TERMINATED)) {
        slot_put(s, sc->sl);
        free(sc->v);
        if (sc->oom) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory collecting scanner findings");
        return mg_err_set(err, MG_E_INTERNAL, "Vectorscan scan failed (error %d)", (int)he);
    }
    if (sc->n == 0) {
        slot_put(s, sc->sl);
        return 0;
    }
    /* The candidates in order; of overlapping ones the better is kept. A
     * candidate is checked (entropy, allowlists: finding()) only when it
     * would be kept: one that loses to the finding it overlaps is dropped
     * either way, so the result is that of checking them all first. */
    sort_hits(sc->v, sc->n);
    size_t k = 0;
    for (size_t i = 0; i < sc->n; i++) {
        struct hit *h = &sc->v[i];
        if (k > 0 && h->start < sc->v[k - 1].end) {
            if (better(s, h, &sc->v[k - 1]) && finding(sc, h)) sc->v[k - 1] = *h;
            continue;
        }
        if (finding(sc, h)) sc->v[k++] = *h;
    }
    sc->n = k;
    slot_put(s, sc->sl);
    sc->sl = NULL;
    return 0;
}

/* ---- 7b. secrets split across adjacent string literals ---------------------------- */

/* "AKIA" "Q3ZL...", 'sk_live_' + '...': after the scan, runs of 2 to
 * JOIN_MAX_PIECES string literals ("...", '...' or `...`, each on one line)
 * with only white space and at most one '+' between two of them are joined
 * (their contents, without the quotes, at most JOIN_MAX_BYTES in all), after
 * the text before the first one on its line (at most JOIN_MAX_PREFIX
 * bytes: a name such as `password =` for the rules that need one). The
 * joined runs, one a line, are scanned with the same rules; a finding there
 * that spans a join is mapped back to the original bytes, from its first
 * piece to its last, quotes and '+' between included, so redaction covers
 * every piece. Findings inside one piece were found by the scan itself. */
#define JOIN_MAX_PIECES 8
#define JOIN_MAX_BYTES 512
#define JOIN_MAX_LIT 512          /* one literal, quotes excluded */
#define JOIN_MAX_GAP 64           /* bytes between two literals */
#define JOIN_MAX_PREFIX 128
#define JOIN_MAX_SYNTH (1u << 20) /* the joined text scanned at once */

struct join {
    char *t;        /* the joined runs */
    size_t *map;    /* t[i] is buf[map[i]] */
    size_t n, tcap;
    struct hit *v;  /* findings that span a join, in buf's offsets */
    size_t nv, cap;
};

static inline bool is_quote(unsigned char c)
{
    return c == '"' || c == '\'' || c == '`';
}

/* The first of the bytes a, b, c in buf[i, lim), or lim; sixteen bytes at a time with SSE2. */
static size_t find3(const char *buf, size_t i, size_t lim, char a, char b, char c)
{
#ifdef __SSE2__
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
    for (; i + 16 <= lim; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits) return i + (size_t)__builtin_ctz(bits);
    }
#endif
    for (; i < lim; i++)
        if (buf[i] == a || buf[i] == b || buf[i] == c) return i;
    return lim;
}

/* The closing quote of the literal opening at buf[i], on its line; SIZE_MAX if none. */
static size_t lit_close(const char *buf, size_t len, size_t i)
{
    char q = buf[i];
    size_t lim = len - i > JOIN_MAX_LIT + 2 ? i + JOIN_MAX_LIT + 2 : len;
    for (size_t j = i + 1; (j = find3(buf, j, lim, q, '\n', '\\')) < lim; j += 2) {
        if (buf[j] == q) return j;
        if (buf[j] == '\n') return SIZE_MAX;
        /* an escape: \" does not close (j += 2) */
    }
    return SIZE_MAX;
}

/* The opening quote of the literal after the one closing at buf[c], when
 * only white space and at most one '+' (or a '\' ending the line) lie
 * between; SIZE_MAX if none. */
static size_t lit_next(const char *buf, size_t len, size_t c)
{
    size_t lim = len - c - 1 > JOIN_MAX_GAP ? c + 1 + JOIN_MAX_GAP : len;
    bool plus = false;
    for (size_t j = c + 1; j < lim; j++) {
        unsigned char ch = (unsigned char)buf[j];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') continue;
        if (ch == '+' && !plus) {
            plus = true;
            continue;
        }
        if (ch == '\\' && j + 1 < lim && (buf[j + 1] == '\n' || buf[j + 1] == '\r')) continue;
        return is_quote(ch) ? j : SIZE_MAX;
    }
    return SIZE_MAX;
}

static int join_put(struct join *J, const char *p, size_t n, size_t at, bool contiguous)
{
    for (size_t i = 0; i < n; i++) {
        J->t[J->n] = p[i];
        J->map[J->n++] = contiguous ? at + i : at;
    }
    return 0;
}

/* Scan the joined runs kept so far and keep the findings that span a join. */
static int join_flush(const struct mg_scanner *s, struct join *J, struct mg_err *err)
{
    if (J->n == 0) return 0;
    struct scan in;
    if (scan_run(s, J->t, J->n, &in, err) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < in.n; i++) {
        size_t a = in.v[i].start, b = in.v[i].end - 1;
        if (J->map[b] - J->map[a] == b - a) continue; /* inside one piece (or its line's prefix) */
        if (grow((void **)&J->v, J->nv, &J->cap, sizeof(struct hit)) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory joining string literals");
            break;
        }
        J->v[J->nv++] = (struct hit){in.v[i].rule, false, J->map[a], J->map[b] + 1};
    }
    free(in.v);
    J->n = 0;
    return rc;
}

/* Merge v (nv findings, without overlaps among them) into sc->v (the same):
 * of two that overlap the better is kept, as in scan_run (both sides were
 * checked already). */
static int merge_hits(const struct mg_scanner *s, struct scan *sc, const struct hit *v, size_t nv, struct mg_err *err)
{
    if (nv == 0) return 0;
    for (size_t k = 0; k < nv; k++) {
        if (grow((void **)&sc->v, sc->n, &sc->cap, sizeof(struct hit)) != 0)
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory merging scanner findings");
        sc->v[sc->n++] = v[k];
    }
    sort_hits(sc->v, sc->n);
    size_t m = 0;
    for (size_t k = 0; k < sc->n; k++) {
        struct hit *h = &sc->v[k];
        if (m > 0 && h->start < sc->v[m - 1].end) {
            if (better(s, h, &sc->v[m - 1])) sc->v[m - 1] = *h;
            continue;
        }
        sc->v[m++] = *h;
    }
    sc->n = m;
    return 0;
}

/* Is the quote at buf[c] followed, after only white space, '+' and '\\'
 * (at most JOIN_MAX_GAP bytes), by another quote? (What lit_next wants,
 * loosened: any number of '+' and '\\'.) */
static bool quote_gap_quote(const char *buf, size_t len, size_t c)
{
    size_t lim = len - c - 1 > JOIN_MAX_GAP ? c + 1 + JOIN_MAX_GAP : len;
    for (size_t j = c + 1; j < lim; j++) {
        unsigned char ch = (unsigned char)buf[j];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '+' || ch == '\\') continue;
        return is_quote(ch);
    }
    return false;
}

/* Can buf hold a run at all? A run needs a literal's closing quote followed,
 * after white space and '+' only, by the next opening quote; when no quote is
 * (most config files: "key": "value", key = "value" at the end of a line,
 * the next line starting with a name), join_literals is skipped. The quotes
 * followed by such a byte or a quote are found sixteen bytes at a time with
 * SSE2, and looked at further one by one; the first that passes ends the
 * look (code has one early). */
static bool join_possible(const char *buf, size_t len)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\''), bq = _mm_set1_epi8('`'), sp = _mm_set1_epi8(' '),
                  tb = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), pl = _mm_set1_epi8('+'),
                  bs = _mm_set1_epi8('\\');
    for (; len - i >= 17; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i qx = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, dq), _mm_cmpeq_epi8(x, sq)), _mm_cmpeq_epi8(x, bq));
        if (!_mm_movemask_epi8(qx)) continue;
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + 1));
        __m128i qy = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, dq), _mm_cmpeq_epi8(y, sq)), _mm_cmpeq_epi8(y, bq));
        __m128i gy = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, sp), _mm_cmpeq_epi8(y, tb)),
                                               _mm_or_si128(_mm_cmpeq_epi8(y, nl), _mm_cmpeq_epi8(y, cr))),
                                  _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, pl), _mm_cmpeq_epi8(y, bs)), qy));
        for (unsigned bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(qx, gy)); bits; bits &= bits - 1)
            if (quote_gap_quote(buf, len, i + (size_t)__builtin_ctz(bits))) return true;
    }
#endif
    for (; i < len; i++)
        if (is_quote((unsigned char)buf[i]) && quote_gap_quote(buf, len, i)) return true;
    return false;
}

/* Find the runs of adjacent literals in buf, scan them joined, and merge
 * the findings that span a join into sc->v (overlaps resolved as in
 * scan_run; both sides were checked already). */
static int join_literals(const struct mg_scanner *s, const char *buf, size_t len, struct scan *sc, struct mg_err *err)
{
    if (!join_possible(buf, len)) return 0;
    struct join J = {0};
    const size_t run_max = JOIN_MAX_PREFIX + 1 + JOIN_MAX_BYTES + JOIN_MAX_LIT + 2;
    int rc = 0;
    size_t i = 0;
    while (i < len) {
        size_t o = find3(buf, i, len, '"', '\'', '`');
        if (o == len) break;
        size_t c = lit_close(buf, len, o);
        if (c == SIZE_MAX) {
            i = o + 1;
            continue;
        }
        size_t o2 = lit_next(buf, len, c);
        if (o2 == SIZE_MAX || lit_close(buf, len, o2) == SIZE_MAX) {
            i = c + 1;
            continue;
        }
        /* a run: o..c is its first piece */
        if (J.n > JOIN_MAX_SYNTH && (rc = join_flush(s, &J, err)) != 0) break;
        if (J.n + run_max > J.tcap) { /* room for one more run (grown as needed: most files have few runs) */
            size_t nc = J.tcap ? 2 * J.tcap : 4096;
            while (nc < J.n + run_max) nc *= 2;
            char *nt = realloc(J.t, nc);
            if (nt) J.t = nt;
            size_t *nm = nt ? realloc(J.map, nc * sizeof(size_t)) : NULL;
            if (!nm) {
                rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory joining string literals");
                break;
            }
            J.map = nm;
            J.tcap = nc;
        }
        size_t ls = o, stop = o > JOIN_MAX_PREFIX ? o - JOIN_MAX_PREFIX : 0;
        while (ls > stop && buf[ls - 1] != '\n') ls--;
        join_put(&J, buf + ls, o + 1 - ls, ls, true); /* the line's text and the opening quote */
        size_t total = 0, last = c;
        for (int k = 0; k < JOIN_MAX_PIECES; k++) {
            size_t n = c - o - 1;
            if (total + n > JOIN_MAX_BYTES) break;
            join_put(&J, buf + o + 1, n, o + 1, true);
            total += n;
            last = c;
            if ((o = lit_next(buf, len, c)) == SIZE_MAX || (c = lit_close(buf, len, o)) == SIZE_MAX) break;
        }
        join_put(&J, buf + last, 1, last, true); /* the closing quote, and a line end */
        join_put(&J, "\n", 1, last, false);
        i = last + 1;
    }
    if (rc == 0) rc = join_flush(s, &J, err);
    free(J.t);
    free(J.map);
    if (rc != 0 || J.nv == 0) {
        free(J.v);
        return rc;
    }
    rc = merge_hits(s, sc, J.v, J.nv, err);
    free(J.v);
    return rc;
}

/* ---- 7c. secrets wrapped in base64 ------------------------------------------- */

/* A Kubernetes Secret's data (base64 of a connection URL, of a key, of a
 * .dockerconfigjson), `echo ... | base64 -d` in a script: after the scan,
 * every run of at least B64_MIN_RUN base64 characters ([A-Za-z0-9+/], on
 * one line; '=' padding after it) is decoded (its first B64_MAX_RUN bytes
 * of decoded text at most), and the decoded text is kept when it is
 * mostly printable ASCII (at most one byte in ten otherwise: images,
 * compressed data, digests and random bytes are not). The texts kept, one
 * a line, are scanned with the same rules (B64_MAX_SYNTH bytes at once);
 * a finding there is reported as the whole run it came from (`encoded`),
 * so redaction replaces every byte of the encoded secret. At most
 * B64_BUDGET bytes are decoded per scan, so the work stays linear in the
 * input whatever it holds. Not decoded: base64url (- and _), runs wrapped
 * over several lines, base64 inside the decoded text (one level). */
#define B64_MIN_RUN 24            /* 18 bytes decoded: a bare 20-byte AWS key id encodes to 28 */
#define B64_MAX_RUN (64u << 10)   /* decoded bytes of one run */
#define B64_BUDGET (16u << 20)    /* decoded bytes of one scan */
#define B64_MAX_SYNTH (1u << 20)  /* decoded text scanned at once */

static signed char b64_val[256]; /* 0-63, or -1 */
#ifdef MG_HAVE_AVX2_PATH
static bool b64_avx2; /* the CPU has AVX2 */
#endif
static pthread_once_t b64_once = PTHREAD_ONCE_INIT;

static void b64_init(void)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(b64_val, -1, sizeof(b64_val));
    for (int i = 0; i < 64; i++) b64_val[(unsigned char)al[i]] = (signed char)i;
#ifdef MG_HAVE_AVX2_PATH
    __builtin_cpu_init();
    b64_avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* The next run of at least B64_MIN_RUN base64 characters at or after i
 * (buf[i - 1] is not one, or i is 0), one byte at a time: the byte
 * B64_MIN_RUN - 1 ahead is looked at first; when it is not base64, no run
 * reaching that far starts before it, and the search jumps past it. */
static bool b64_next_run_bytes(const unsigned char *u, size_t len, size_t i, size_t *rs, size_t *re)
{
    while (len - i >= B64_MIN_RUN) {
        size_t p = i + B64_MIN_RUN - 1;
        if (b64_val[u[p]] < 0) {
            i = p + 1;
            continue;
        }
        size_t q = p;
        while (q > i && b64_val[u[q - 1]] >= 0) q--;
        size_t e = p + 1;
        while (e < len && b64_val[u[e]] >= 0) e++;
        if (e - q >= B64_MIN_RUN) {
            *rs = q;
            *re = e;
            return true;
        }
        if (e >= len) return false;
        i = e + 1;
    }
    return false;
}

#ifdef __SSE2__
/* Bit j: is p[j] a base64 character ([A-Za-z0-9+/]), for 64 bytes. */
static inline uint64_t b64_mask64(const unsigned char *p)
{
    const __m128i a1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1), d0 = _mm_set1_epi8('0' - 1),
                  d9 = _mm_set1_epi8('9' + 1), pl = _mm_set1_epi8('+'), sl = _mm_set1_epi8('/'), c20 = _mm_set1_epi8(0x20);
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i lo = _mm_or_si128(x, c20); /* letters folded to lower case (bytes >= 0x80 stay negative) */
        __m128i let = _mm_and_si128(_mm_cmpgt_epi8(lo, a1), _mm_cmplt_epi8(lo, z1));
        __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, d0), _mm_cmplt_epi8(x, d9));
        __m128i ok = _mm_or_si128(_mm_or_si128(let, dig), _mm_or_si128(_mm_cmpeq_epi8(x, pl), _mm_cmpeq_epi8(x, sl)));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(ok) << (16 * k);
    }
    return m;
}
#endif

/* The search of b64_next_run, 64 bytes at a time with MASK: a mask of the
 * base64 bytes, and of the bytes that start B64_MIN_RUN of them inside the
 * block (shifts and ands); `carry` is the run the last block ended with. */
#define B64_RUN_SEARCH(MASK)                                                                                          \
    size_t carry = 0, start;                                                                                          \
    for (; len - i >= 64; i += 64) {                                                                                  \
        uint64_t m = MASK(u + i);                                                                                     \
        size_t lead = m == ~0ULL ? 64 : (size_t)__builtin_ctzll(~m);                                                  \
        if (carry + lead >= B64_MIN_RUN) {                                                                            \
            start = i - carry;                                                                                        \
            goto found;                                                                                               \
        }                                                                                                             \
        uint64_t y = m; /* bit j: bytes j..j+23 are all base64 */                                                     \
        y &= y >> 1;                                                                                                  \
        y &= y >> 2;                                                                                                  \
        y &= y >> 4;                                                                                                  \
        y &= y >> 8;                                                                                                  \
        y &= y >> 8;                                                                                                  \
        if (y) {                                                                                                      \
            start = i + (size_t)__builtin_ctzll(y);                                                                   \
            goto found;                                                                                               \
        }                                                                                                             \
        carry = (size_t)__builtin_clzll(~m); /* (m is not all ones here) */                                           \
    }                                                                                                                 \
    return b64_next_run_bytes(u, len, i - carry, rs, re);                                                             \
    found:;                                                                                                           \
    size_t e = start + B64_MIN_RUN;                                                                                   \
    while (e < len && b64_val[u[e]] >= 0) e++;                                                                        \
    *rs = start;                                                                                                      \
    *re = e;                                                                                                          \
    return true

_Static_assert(B64_MIN_RUN == 24, "B64_RUN_SEARCH's shifts find runs of 24");

#ifdef MG_HAVE_AVX2_PATH
__attribute__((target("avx2"))) static inline uint64_t b64_mask64_avx2(const unsigned char *p)
{
    const __m256i a1 = _mm256_set1_epi8('a' - 1), z1 = _mm256_set1_epi8('z' + 1), d0 = _mm256_set1_epi8('0' - 1),
                  d9 = _mm256_set1_epi8('9' + 1), pl = _mm256_set1_epi8('+'), sl = _mm256_set1_epi8('/'),
                  c20 = _mm256_set1_epi8(0x20);
    uint64_t m = 0;
    for (int k = 0; k < 2; k++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k));
        __m256i lo = _mm256_or_si256(x, c20);
        __m256i let = _mm256_and_si256(_mm256_cmpgt_epi8(lo, a1), _mm256_cmpgt_epi8(z1, lo));
        __m256i dig = _mm256_and_si256(_mm256_cmpgt_epi8(x, d0), _mm256_cmpgt_epi8(d9, x));
        __m256i ok = _mm256_or_si256(_mm256_or_si256(let, dig),
                                     _mm256_or_si256(_mm256_cmpeq_epi8(x, pl), _mm256_cmpeq_epi8(x, sl)));
        m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ok) << (32 * k);
    }
    return m;
}

__attribute__((target("avx2"))) static bool b64_next_run_avx2(const unsigned char *u, size_t len, size_t i, size_t *rs,
                                                              size_t *re)
{
    B64_RUN_SEARCH(b64_mask64_avx2);
}
#endif

#ifdef __SSE2__
static bool b64_next_run_sse2(const unsigned char *u, size_t len, size_t i, size_t *rs, size_t *re)
{
    B64_RUN_SEARCH(b64_mask64);
}
#endif

/* The next run of at least B64_MIN_RUN base64 characters at or after i
 * (buf[i - 1] is not one, or i is 0): [*rs, *re). False: none. 64 bytes at
 * a time with AVX2 when the CPU has it, else SSE2, else a byte at a time. */
static bool b64_next_run(const char *buf, size_t len, size_t i, size_t *rs, size_t *re)
{
    const unsigned char *u = (const unsigned char *)buf;
#ifdef MG_HAVE_AVX2_PATH
    if (b64_avx2) return b64_next_run_avx2(u, len, i, rs, re);
#endif
#ifdef __SSE2__
    return b64_next_run_sse2(u, len, i, rs, re);
#else
    return b64_next_run_bytes(u, len, i, rs, re);
#endif
}

/* Decode the n base64 characters at in (all valid) into out, which has room
 * for n / 4 * 3 + 2 bytes; a lone last character is dropped. Stops early,
 * returning SIZE_MAX, once more than a tenth of the bytes the whole run
 * decodes to are neither printable ASCII nor white space. Else the decoded
 * length. */
size_t mg_b64_decode_text(const char *in, size_t n, char *out)
{
    pthread_once(&b64_once, b64_init);
    const unsigned char *u = (const unsigned char *)in;
    size_t total = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
    size_t bad_max = total / 10, bad = 0, o = 0;
#define B64_PUT(x)                                                                                                    \
    do {                                                                                                              \
        unsigned char c_ = (unsigned char)(x);                                                                        \
        out[o++] = (char)c_;                                                                                          \
        bad += !((c_ >= 0x20 && c_ < 0x7f) || c_ == '\n' || c_ == '\r' || c_ == '\t');                                \
    } while (0)
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)b64_val[u[i]] << 18 | (uint32_t)b64_val[u[i + 1]] << 12 | (uint32_t)b64_val[u[i + 2]] << 6 |
                     (uint32_t)b64_val[u[i + 3]];
        B64_PUT(v >> 16);
        B64_PUT(v >> 8);
        B64_PUT(v);
        if (bad > bad_max) return SIZE_MAX;
    }
    if (n - i >= 2) {
        uint32_t v = (uint32_t)b64_val[u[i]] << 18 | (uint32_t)b64_val[u[i + 1]] << 12 |
                     (n - i == 3 ? (uint32_t)b64_val[u[i + 2]] << 6 : 0);
        B64_PUT(v >> 16);
        if (n - i == 3) B64_PUT(v >> 8);
    }
#undef B64_PUT
    return bad > bad_max ? SIZE_MAX : o;
}

struct b64seg {
    size_t t0, t1; /* its decoded text in the synthetic buffer */
    size_t r0, r1; /* the run in the input */
};

struct b64 {
    char *t;
    size_t n, tcap;
    struct b64seg *seg;
    size_t nseg, scap;
    struct hit *v;  /* findings, mapped to their runs */
    size_t nv, cap;
};

/* The segment holding synthetic offset x (segments are in order). */
static size_t b64_seg_of(const struct b64 *B, size_t x)
{
    size_t lo = 0, hi = B->nseg;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (B->seg[mid].t0 <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int b64_flush(const struct mg_scanner *s, struct b64 *B, struct mg_err *err)
{
    if (B->n == 0) return 0;
    struct scan in;
    if (scan_run(s, B->t, B->n, &in, err) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < in.n; i++) {
        const struct b64seg *a = &B->seg[b64_seg_of(B, in.v[i].start)], *b = &B->seg[b64_seg_of(B, in.v[i].end - 1)];
        if (B->nv && B->v[B->nv - 1].end > a->r0) { /* a second finding in the same run: the run is reported once */
            if (better(s, &(struct hit){in.v[i].rule, true, a->r0, b->r1}, &B->v[B->nv - 1]))
                B->v[B->nv - 1] = (struct hit){in.v[i].rule, true, B->v[B->nv - 1].start, b->r1};
            continue;
        }
        if (grow((void **)&B->v, B->nv, &B->cap, sizeof(struct hit)) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
            break;
        }
        B->v[B->nv++] = (struct hit){in.v[i].rule, true, a->r0, b->r1};
    }
    free(in.v);
    B->n = 0;
    B->nseg = 0;
    return rc;
}

/* Decode the base64 runs of buf, scan the texts, and merge their findings
 * (each the whole of its run) into sc->v. */
static int b64_pass(const struct mg_scanner *s, const char *buf, size_t len, struct scan *sc, struct mg_err *err)
{
    pthread_once(&b64_once, b64_init);
    struct b64 B = {0};
    size_t budget = B64_BUDGET, i = 0, rs, re;
    int rc = 0;
    while (budget && b64_next_run(buf, len, i, &rs, &re)) {
        i = re;
        size_t n = re - rs;
        if (n / 4 * 3 > B64_MAX_RUN) n = B64_MAX_RUN / 3 * 4;
        if (n / 4 * 3 > budget) n = budget / 3 * 4;
        if (n < B64_MIN_RUN) break;
        size_t need = n / 4 * 3 + 3;
        if (B.n + need > B.tcap) {
            size_t nc = B.tcap ? 2 * B.tcap : 4096;
            while (nc < B.n + need) nc *= 2;
            char *nt = realloc(B.t, nc);
            if (!nt) {
                rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
                break;
            }
            B.t = nt;
            B.tcap = nc;
        }
        size_t got = mg_b64_decode_text(buf + rs, n, B.t + B.n);
        budget -= n / 4 * 3 < budget ? n / 4 * 3 : budget;
        if (got == SIZE_MAX) continue;
        if (grow((void **)&B.seg, B.nseg, &B.scap, sizeof(*B.seg)) != 0) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory decoding base64");
            break;
        }
        /* the run with its padding: redaction covers it all */
        while (re < len && re - rs < ((re - rs + 3) & ~(size_t)3) && buf[re] == '=') re++;
        B.seg[B.nseg++] = (struct b64seg){B.n, B.n + got, rs, re};
        B.n += got;
        B.t[B.n++] = '\n';
        if (B.n > B64_MAX_SYNTH && (rc = b64_flush(s, &B, err)) != 0) break;
    }
    if (rc == 0) rc = b64_flush(s, &B, err);
    free(B.t);
    free(B.seg);
    if (rc == 0) rc = merge_hits(s, sc, B.v, B.nv, err);
    free(B.v);
    return rc;
}

/* The '\n' bytes in [p, p+n). With SSE2, sixteen at a time: each compare
 * gives -1 in the bytes that match, subtracted into sixteen byte counters,
 * which _mm_sad_epu8 adds up every 255 blocks (before a counter wraps); no
 * popcount, which without -mpopcnt is a call per word. */
static size_t count_nl(const char *p, size_t n)
{
    size_t c = 0, i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (n - i >= 16) {
        __m128i acc = zero;
        size_t stop = n - i >= 255 * 16 ? i + 255 * 16 : i + (n - i) / 16 * 16;
        for (; i < stop; i += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), nl));
        __m128i sum = _mm_sad_epu8(acc, zero);
        c += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
    }
#endif
    for (; i < n; i++) c += p[i] == '\n';
    return c;
}

int mg_scan(const struct mg_scanner *s, const char *buf, size_t len, int (*cb)(const struct mg_finding *, void *), void *ud,
            struct mg_err *err)
{
    struct scan sc;
    if (scan_run(s, buf, len, &sc, err) != 0) return -1;
    if (join_literals(s, buf, len, &sc, err) != 0 || b64_pass(s, buf, len, &sc, err) != 0) {
        free(sc.v);
        return -1;
    }
    unsigned line = 1;
    size_t pos = 0;
    int n = 0;
    for (size_t i = 0; i < sc.n; i++) {
        const struct hit *h = &sc.v[i];
        line += count_nl(buf + pos, h->start - pos);
        pos = h->start;
        const struct rule *r = &s->rules[h->rule];
        struct mg_finding f = {r->id, r->desc, r->sev, h->start, h->end, line, h->enc};
        n++;
        if (cb && cb(&f, ud)) break;
    }
    free(sc.v);
    return n;
}

/* ---- 8. the built-in rule set ------------------------------------------------- */

/* Generated from data/secrets.rules by the Makefile ($(OUT)/gen/secrets_rules.c). */
extern const char mg_secrets_rules_data[];
extern const size_t mg_secrets_rules_len;

const char *mg_scanner_builtin_rules(size_t *len)
{
    if (len) *len = mg_secrets_rules_len;
    return mg_secrets_rules_data;
}
