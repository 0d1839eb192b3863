/* scan_rules.c — the secret scanner's rules (scan.h, scan_int.h): the rules
 * file (data/secrets.rules, embedded; a `secret_rules` file; the format is
 * in docs/security.md and at the top of data/secrets.rules) parsed into the
 * rule table, each field checked as it is read and each rule when it ends.
 * A rule's regexes are compiled here (PCRE2), or when first used for the
 * built-in rules; the first pass over them is scan_compile.c's.
 *
 * Sections:
 *   1. severities
 *   2. the rule table in memory
 *   3. a rule's fields
 *   4. lines and blocks
 *   5. the built-in rules
 */
#include "security/scan_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- 1. severities ------------------------------------------------------------------ */

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

/* ---- 2. the rule table in memory ---------------------------------------------------- */

static void alist_release(struct mg__scan_alist *a)
{
    for (size_t i = 0; i < a->nsec; i++) mg_lre_release(&a->sec[i]);
    for (size_t i = 0; i < a->nline; i++) mg_lre_release(&a->line[i]);
    free(a->sec);
    free(a->line);
    free(a->name);
    memset(a, 0, sizeof(*a));
}

static void rule_release(struct mg__scan_rule *r)
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

void mg__scan_rules_release(struct mg_scanner *s)
{
    for (size_t i = 0; i < s->nrules; i++) rule_release(&s->rules[i]);
    free(s->rules);
    for (size_t i = 0; i < s->nlists; i++) alist_release(&s->lists[i]);
    free(s->lists);
}

size_t mg_scanner_rule_count(const struct mg_scanner *s) { return s ? s->nrules : 0; }

/* ---- 3. a rule's fields ------------------------------------------------------------- */

struct parser {
    struct mg_scanner *s;
    unsigned lineno;
    enum { B_NONE, B_RULE, B_LIST } block;
    bool lazy; /* the built-in rules: regexes compiled when first used (the tests load them eagerly) */
    struct mg_err *err;
};

#define RULES_ERR(p, ...) mg_err_set((p)->err, MG_E_BAD_RULES, __VA_ARGS__)

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

static struct mg__scan_alist *cur_alist(struct parser *p)
{
    return p->block == B_RULE ? &p->s->rules[p->s->nrules - 1].own : &p->s->lists[p->s->nlists - 1];
}

static int add_allow(struct parser *p, bool line, const char *val)
{
    struct mg__scan_alist *a = cur_alist(p);
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
    struct mg__scan_rule *r = &p->s->rules[p->s->nrules - 1];
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

static int parse_keywords(struct parser *p, struct mg__scan_rule *r, char *val)
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

static int parse_uses(struct parser *p, struct mg__scan_rule *r, char *val)
{
    free(r->uses);
    r->uses = NULL;
    r->nuses = 0;
    r->uses_set = true;
    for (char *save = NULL, *w = strtok_r(val, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (strcmp(w, "none") == 0) continue;
        struct mg__scan_alist *found = NULL;
        for (size_t i = 0; i < p->s->nlists; i++)
            if (strcmp(p->s->lists[i].name, w) == 0) found = &p->s->lists[i];
        if (!found) return RULES_ERR(p, "rules line %u: no allowlist named '%s' above this rule; define it first", p->lineno, w);
        struct mg__scan_alist **nv = realloc(r->uses, (r->nuses + 1) * sizeof(*nv));
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
    struct mg__scan_rule *r = &p->s->rules[p->s->nrules - 1];
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

/* ---- 4. lines and blocks ------------------------------------------------------------ */

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
        if (mg__scan_grow((void **)&s->rules, s->nrules, rcap, sizeof(struct mg__scan_rule)) != 0)
            return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        struct mg__scan_rule *r = &s->rules[s->nrules++];
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
        if (!s->lists && !(s->lists = calloc(64, sizeof(struct mg__scan_alist))))
            return mg_err_set(p->err, MG_E_NO_MEMORY, "out of memory loading the rules");
        struct mg__scan_alist *a = &s->lists[s->nlists++];
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

int mg__scan_rules_parse(struct mg_scanner *s, const char *text, size_t len, bool lazy, struct mg_err *err)
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

/* ---- 5. the built-in rules ---------------------------------------------------------- */

/* Generated from data/secrets.rules by the Makefile ($(OUT)/gen/secrets_rules.c). */
extern const char mg_secrets_rules_data[];
extern const size_t mg_secrets_rules_len;

const char *mg_scanner_builtin_rules(size_t *len)
{
    if (len) *len = mg_secrets_rules_len;
    return mg_secrets_rules_data;
}
