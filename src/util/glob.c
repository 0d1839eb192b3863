/* glob.c — globs to PCRE2 (see glob.h). */
#include "util/glob.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

struct rx {
    pcre2_code *code;
    pcre2_match_data *md;
};

struct mg_globset {
    struct rx inc, exc; /* code == NULL: list empty */
};

static int add_escaped(struct mg_buf *b, char c)
{
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (unsigned char)c >= 0x80;
    if (!alnum && mg_buf_addc(b, '\\') != 0) return -1;
    return mg_buf_addc(b, c);
}

/* [...] starting at g[*i] == '['. */
static int class_to_regex(const char *g, size_t len, size_t *i, struct mg_buf *b, struct mg_err *err)
{
    size_t j = *i + 1;
    int rc = mg_buf_adds(b, "(?![/])[");
    if (j < len && (g[j] == '!' || g[j] == '^')) {
        rc |= mg_buf_addc(b, '^');
        j++;
    }
    size_t first = j;
    for (; j < len; j++) {
        char c = g[j];
        if (c == ']' && j > first) break;
        if (c == '\\' && j + 1 < len) c = g[++j];
        if (c == '-' && j > first && j + 1 < len && g[j + 1] != ']') rc |= mg_buf_addc(b, '-');
        else if (c == '\\' || c == ']' || c == '[' || c == '^' || c == '-') rc |= mg_buf_addc(b, '\\'), rc |= mg_buf_addc(b, c);
        else rc |= mg_buf_addc(b, c);
    }
    if (j >= len)
        return mg_err_set(err, MG_E_BAD_GLOB, "glob '%.*s' has an unclosed '['; close it or escape it as \\[",
                          (int)len, g);
    *i = j;
    return rc | mg_buf_addc(b, ']');
}

int mg_glob_to_regex(const char *g, size_t len, struct mg_buf *b, struct mg_err *err)
{
    if (len == 0) return mg_err_set(err, MG_E_BAD_GLOB, "a glob is empty; give a pattern such as '*.c'");
    if (len > MG_GLOB_MAX_LEN)
        return mg_err_set(err, MG_E_BAD_GLOB, "a glob is %zu bytes long; the limit is %d", len, MG_GLOB_MAX_LEN);
    for (size_t k = 0; k < len; k++) {
        if (g[k] == 0) return mg_err_set(err, MG_E_BAD_GLOB, "a glob contains a NUL byte");
        /* a '..' segment: globs match paths inside the repo, never above it */
        if (g[k] == '.' && k + 1 < len && g[k + 1] == '.' && (k == 0 || g[k - 1] == '/') &&
            (k + 2 == len || g[k + 2] == '/'))
            return mg_err_set(err, MG_E_BAD_GLOB, "glob '%.*s' has a '..' segment; globs match paths inside the repo "
                              "(relative to its root), never outside it", (int)(len > 200 ? 200 : len), g);
    }

    bool dir_only = len > 1 && g[len - 1] == '/';
    if (dir_only) len--;
    bool anchored = g[0] == '/' || memchr(g, '/', len) != NULL;
    size_t i = 0;
    if (g[0] == '/') i = 1;
    int rc = mg_buf_adds(b, anchored ? "^" : "^(?:.*/)?");
    int brace = 0;
    for (; i < len && rc == 0; i++) {
        char c = g[i];
        bool at_seg_start = i == 0 || g[i - 1] == '/';
        if (c == '*' && i + 1 < len && g[i + 1] == '*' && at_seg_start && (i + 2 == len || g[i + 2] == '/')) {
            if (i + 2 == len) { /* a trailing "**": everything below */
                rc |= mg_buf_adds(b, ".*");
                i++;
            } else {            /* "**" then "/": zero or more directories */
                rc |= mg_buf_adds(b, "(?:.*/)?");
                i += 2;
            }
            continue;
        }
        switch (c) {
        case '*':
            while (i + 1 < len && g[i + 1] == '*') i++;
            rc |= mg_buf_adds(b, "[^/]*");
            break;
        case '?': rc |= mg_buf_adds(b, "[^/]"); break;
        case '[':
            if (class_to_regex(g, len, &i, b, err) != 0) return -1;
            break;
        case '{':
            if (++brace > 8)
                return mg_err_set(err, MG_E_BAD_GLOB, "glob '%.*s' nests {} more than 8 deep", (int)len, g);
            rc |= mg_buf_adds(b, "(?:");
            break;
        case '}':
            if (brace == 0) rc |= add_escaped(b, c);
            else brace--, rc |= mg_buf_addc(b, ')');
            break;
        case ',': rc |= brace ? mg_buf_addc(b, '|') : add_escaped(b, c); break;
        case '\\':
            if (i + 1 < len) c = g[++i];
            rc |= add_escaped(b, c);
            break;
        default: rc |= add_escaped(b, c); break;
        }
    }
    if (brace)
        return mg_err_set(err, MG_E_BAD_GLOB, "glob '%.*s' has an unclosed '{'; close it or escape it as \\{",
                          (int)len, g);
    rc |= mg_buf_adds(b, dir_only ? "/.*$" : "(?:/.*)?$");
    if (rc) return mg_err_set(err, MG_E_BAD_GLOB, "glob is too complex");
    return 0;
}

/* skip_neg: leave out globs starting with '!' (they were moved to the excludes) */
static int compile_list(const char *const *globs, size_t n, bool skip_neg, struct rx *rx, struct mg_err *err)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    size_t used = 0;
    for (size_t k = 0; k < n; k++) {
        const char *g = globs[k];
        if (skip_neg && g[0] == '!') continue;
        if (used++ && mg_buf_addc(&b, '|') != 0) goto toolong;
        if (mg_buf_adds(&b, "(?:") != 0) goto toolong;
        if (mg_glob_to_regex(g, strlen(g), &b, err) != 0) goto fail;
        if (mg_buf_addc(&b, ')') != 0) goto toolong;
    }
    if (!used) {
        mg_buf_release(&b);
        return 0;
    }
    int ec;
    PCRE2_SIZE eo;
    rx->code = pcre2_compile((PCRE2_SPTR)b.p, b.len, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOTALL |
                             PCRE2_DOLLAR_ENDONLY | PCRE2_NO_AUTO_CAPTURE, &ec, &eo, NULL);
    if (!rx->code) {
        mg_err_set(err, MG_E_BAD_GLOB, "a glob could not be compiled (PCRE2 error %d)", ec);
        goto fail;
    }
    pcre2_jit_compile(rx->code, PCRE2_JIT_COMPLETE); /* optional: falls back to the interpreter */
    rx->md = pcre2_match_data_create_from_pattern(rx->code, NULL);
    if (!rx->md) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory compiling globs");
        goto fail;
    }
    mg_buf_release(&b);
    return 0;
toolong:
    mg_err_set(err, MG_E_BAD_GLOB, "the globs are too long together");
fail:
    mg_buf_release(&b);
    return -1;
}

int mg_globset_new(const char *const *inc, size_t ninc, const char *const *exc, size_t nexc,
                   struct mg_globset **out, struct mg_err *err)
{
    *out = NULL;
    if (ninc + nexc == 0) return 0;
    if (ninc > MG_GLOB_MAX_COUNT || nexc > MG_GLOB_MAX_COUNT)
        return mg_err_set(err, MG_E_BAD_GLOB, "too many globs (%zu); the limit is %d per list",
                          ninc > nexc ? ninc : nexc, MG_GLOB_MAX_COUNT);
    struct mg_globset *g = calloc(1, sizeof(*g));
    if (!g) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory compiling globs");
    /* '!glob' in the include list is an exclude */
    const char **all_exc = calloc(ninc + nexc + 1, sizeof(char *));
    if (!all_exc) {
        free(g);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory compiling globs");
    }
    size_t ne = 0;
    for (size_t k = 0; k < nexc; k++) all_exc[ne++] = exc[k];
    for (size_t k = 0; k < ninc; k++)
        if (inc[k][0] == '!') all_exc[ne++] = inc[k] + 1;
    int rc = compile_list(inc, ninc, true, &g->inc, err);
    if (rc == 0) rc = compile_list(all_exc, ne, false, &g->exc, err);
    free(all_exc);
    if (rc != 0) {
        mg_globset_free(&g);
        return -1;
    }
    *out = g;
    return 0;
}

static bool rx_match(struct rx *rx, const char *s, size_t n)
{
    return pcre2_match(rx->code, (PCRE2_SPTR)s, n, 0, 0, rx->md, NULL) >= 0;
}

bool mg_globset_allows(struct mg_globset *g, const char *path, size_t len)
{
    if (!g) return true;
    if (g->inc.code && !rx_match(&g->inc, path, len)) return false;
    if (g->exc.code && rx_match(&g->exc, path, len)) return false;
    return true;
}

static void rx_free(struct rx *rx)
{
    pcre2_match_data_free(rx->md);
    pcre2_code_free(rx->code);
}

void mg_globset_free(struct mg_globset **pg)
{
    struct mg_globset *g = *pg;
    if (!g) return;
    rx_free(&g->inc);
    rx_free(&g->exc);
    free(g);
    *pg = NULL;
}
