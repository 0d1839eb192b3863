/* secrets.c — the secret policy (secrets.h). */
#include "security/secrets.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/scan.h"

static enum mg_secret_action parse_action(const char *s)
{
    return strcmp(s, "exclude") == 0 ? MG_SECRET_EXCLUDE : strcmp(s, "keep") == 0 ? MG_SECRET_KEEP : MG_SECRET_REDACT;
}

void mg_secret_policy(const struct mg_config *c, struct mg_secret_policy *p)
{
    p->action[MG_SEV_HIGH] = parse_action(c->secret_action_high);
    if (p->action[MG_SEV_HIGH] == MG_SECRET_KEEP) p->action[MG_SEV_HIGH] = MG_SECRET_REDACT; /* never kept */
    p->action[MG_SEV_MEDIUM] = parse_action(c->secret_action_medium);
    p->action[MG_SEV_LOW] = parse_action(c->secret_action_low);
}

struct apply {
    const struct mg_secret_policy *p;
    const char *buf;
    struct mg_buf *out;
    size_t done; /* bytes of buf copied so far */
    int nred;
    struct mg_secret_excl *excl;
    size_t nexcl, cap;
    bool listing; /* excl wanted */
    int failed;
};

static int on_finding(const struct mg_finding *f, void *ud)
{
    struct apply *A = ud;
    enum mg_secret_action a = A->p->action[f->sev];
    if (a == MG_SECRET_KEEP) return 0;
    if (a == MG_SECRET_EXCLUDE && A->listing) {
        if (A->nexcl == A->cap) {
            size_t nc = A->cap ? A->cap * 2 : 8;
            struct mg_secret_excl *v = realloc(A->excl, nc * sizeof(*v));
            if (!v) return A->failed = 1;
            A->excl = v;
            A->cap = nc;
        }
        /* its offset in out once everything before it is copied */
        A->excl[A->nexcl].off = A->out->len + (f->start - A->done);
        A->excl[A->nexcl++].rule = f->rule;
        return 0;
    }
    if (mg_buf_add(A->out, A->buf + A->done, f->start - A->done) != 0 ||
        mg_buf_addf(A->out, "[REDACTED:%s]", f->rule) != 0)
        return A->failed = 1;
    /* the newlines of a secret spanning lines (a key block) stay, so every
     * line after it keeps its number */
    for (const char *q = A->buf + f->start, *e = A->buf + f->end; (q = memchr(q, '\n', (size_t)(e - q))); q++)
        if (mg_buf_addc(A->out, '\n') != 0) return A->failed = 1;
    A->done = f->end;
    A->nred++;
    return 0;
}

int mg_secrets_apply(const struct mg_scanner *s, const struct mg_secret_policy *p, const char *buf, size_t len,
                     struct mg_buf *out, int *nred, struct mg_secret_excl **excl, size_t *nexcl, struct mg_err *err)
{
    struct apply A = {.p = p, .buf = buf, .out = out, .listing = excl != NULL};
    *nred = 0;
    if (excl) {
        *excl = NULL;
        *nexcl = 0;
    }
    if (mg_scan(s, buf, len, on_finding, &A, err) < 0) {
        free(A.excl);
        return -1;
    }
    if (A.failed || mg_buf_add(out, buf + A.done, len - A.done) != 0) {
        free(A.excl);
        /* what was left to copy, with the longest marker ("[REDACTED:" + a 64-byte rule id + "]"),
         * passes out's maximum: the cap, not memory */
        if (out->len + (len - A.done) + 75 > out->max)
            return mg_err_set(err, MG_E_TOO_LARGE, "the redacted text does not fit its buffer (%zu bytes at most)",
                              out->max);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory redacting secrets");
    }
    *nred = A.nred;
    if (excl) {
        *excl = A.excl;
        *nexcl = A.nexcl;
    }
    return 0;
}

void mg_secrets_blank(char *text, size_t start, size_t end, const char *rule)
{
    char mark[96];
    int n = snprintf(mark, sizeof(mark), "[EXCLUDED:%s]", rule);
    bool placed = n <= 0;
    size_t run = 0; /* length of the current line so far */
    for (size_t i = start; i < end; i++) {
        if (text[i] == '\n') {
            run = 0;
            continue;
        }
        text[i] = ' ';
        if (++run == (size_t)n && !placed) { /* the first line long enough carries the marker */
            memcpy(text + i + 1 - (size_t)n, mark, (size_t)n);
            placed = true;
        }
    }
}

static pthread_mutex_t custom_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mg_scanner *custom;
static char custom_path[PATH_MAX];

void mg_secrets_cache_dir(const struct mg_config *c)
{
    char dir[PATH_MAX + 8];
    if (c->cache_dir[0]) snprintf(dir, sizeof(dir), "%s", c->cache_dir);
    else snprintf(dir, sizeof(dir), "%s/cache", c->home);
    mg_scanner_cache_dir(dir);
}

const struct mg_scanner *mg_secrets_scanner(const struct mg_config *c, struct mg_err *err)
{
    mg_secrets_cache_dir(c);
    if (!c->secret_rules[0]) {
        const struct mg_scanner *d = mg_scanner_default();
        if (!d) mg_err_set(err, MG_E_INTERNAL, "the built-in secret rules did not compile; this build is broken");
        return d;
    }
    pthread_mutex_lock(&custom_mu);
    if (!custom || strcmp(custom_path, c->secret_rules) != 0) {
        struct mg_scanner *s;
        if (mg_scanner_load(c->secret_rules, &s, err) != 0) {
            pthread_mutex_unlock(&custom_mu);
            return NULL;
        }
        /* the old one may be in use by another thread: keep it (one per distinct path, in practice one) */
        custom = s;
        snprintf(custom_path, sizeof(custom_path), "%s", c->secret_rules);
    }
    const struct mg_scanner *r = custom;
    pthread_mutex_unlock(&custom_mu);
    return r;
}
