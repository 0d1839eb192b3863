/* diff.c — unified diffs (git diff, diff -u) parsed into the files and
 * hunks a change touches, or a list of paths standing for whole files
 * (impact.h's mg_diff_*).
 *
 * Sections:
 *   1. lines and headers
 *   2. mg_diff_parse
 *   3. paths and prefixes
 */
#include "search/impact_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* ---- 1. lines and headers ----------------------------------------------------------------------- */

bool mg__diff_line(const char *t, size_t len, size_t *pos, size_t *no, struct line *l)
{
    if (*pos >= len) return false;
    const char *s = t + *pos, *e = memchr(s, '\n', len - *pos);
    size_t n = e ? (size_t)(e - s) : len - *pos;
    *l = (struct line){s, n, ++*no};
    *pos += n + (e ? 1 : 0);
    return true;
}

static bool starts(const struct line *l, const char *p)
{
    size_t n = strlen(p);
    return l->n >= n && memcmp(l->s, p, n) == 0;
}

static int bad(struct mg_err *err, size_t no, const char *what)
{
    return mg_err_set(err, MG_E_BAD_DIFF, "the diff is malformed at line %zu: %s; pass the output of `git diff` or "
                                          "`diff -u` unchanged", no, what);
}

/* A path from a header (s, n): quoted ("a/x\ty", C escapes) or plain (cut at
 * a tab: diff -u puts the time there). NULL in *out for /dev/null. */
static int header_path(const char *s, size_t n, size_t no, char **out, struct mg_err *err)
{
    *out = NULL;
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ')) n--;
    char *p = malloc(n + 1);
    if (!p) return mg_err_oom(err);
    size_t k = 0;
    if (n && s[0] == '"') {
        size_t i = 1;
        for (; i < n && s[i] != '"'; i++) {
            char c = s[i];
            if (c == '\\' && i + 1 < n) {
                c = s[++i];
                if (c >= '0' && c <= '7') {
                    int v = 0, d = 0;
                    while (d < 3 && i < n && s[i] >= '0' && s[i] <= '7') v = v * 8 + (s[i++] - '0'), d++;
                    i--;
                    c = (char)v;
                } else if (c == 't') c = '\t';
                else if (c == 'n') c = '\n';
                else if (c == 'r') c = '\r';
                else if (c == 'a') c = '\a';
                else if (c == 'b') c = '\b';
                else if (c == 'f') c = '\f';
                else if (c == 'v') c = '\v';
            }
            p[k++] = c;
        }
        if (i >= n) {
            free(p);
            return bad(err, no, "a quoted path has no closing quote");
        }
    } else {
        const char *tab = memchr(s, '\t', n);
        k = tab ? (size_t)(tab - s) : n;
        memcpy(p, s, k);
    }
    p[k] = 0;
    if (strcmp(p, "/dev/null") == 0) {
        free(p);
        return 0;
    }
    if (k == 0 || memchr(p, 0, k)) {
        free(p);
        return bad(err, no, "a file header names no path");
    }
    *out = p;
    return 0;
}

/* A repo-relative path: "./" dropped; absolute, `..`, empty or too long refused. */
static int check_path(char *p, size_t no, struct mg_err *err)
{
    while (p[0] == '.' && p[1] == '/') memmove(p, p + 2, strlen(p + 2) + 1);
    size_t n = strlen(p);
    bool dotdot = false;
    for (const char *c = p; *c;) {
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if (l == 2 && c[0] == '.' && c[1] == '.') dotdot = true;
        c += l + (e ? 1 : 0);
    }
    if (p[0] == '/' || dotdot || n == 0 || n >= PATH_MAX) {
        if (no) return bad(err, no, "a path is absolute, has '..' or is too long");
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' is not a path inside the repo (absolute, '..' or too long)", p);
    }
    return 0;
}

static struct mg_diff_file *new_file(struct mg_diff *d, struct mg_err *err)
{
    if (d->n >= MG_DIFF_MAX_FILES) {
        mg_err_set(err, MG_E_BAD_DIFF, "the diff changes more than %d files; split it", MG_DIFF_MAX_FILES);
        return NULL;
    }
    struct mg_diff_file *v = mg_grow(d->v, d->n, &d->cap, sizeof(*v));
    if (!v) return mg_err_oom(err), NULL;
    d->v = v;
    memset(&v[d->n], 0, sizeof(v[0]));
    return &v[d->n++];
}

static void set_path(char **slot, char *p)
{
    free(*slot);
    *slot = p;
}

/* "@@ -a[,b] +c[,d] @@": the four numbers (b and d default to 1). */
static bool hunk_header(const struct line *l, struct mg_diff_hunk *h)
{
    const char *s = l->s + 3, *e = l->s + l->n;
    long v[4] = {0, 1, 0, 1};
    for (int side = 0; side < 2; side++) {
        if (s >= e || *s != (side ? '+' : '-')) return false;
        s++;
        for (int k = 0; k < 2; k++) {
            if (s >= e || *s < '0' || *s > '9') return false;
            long x = 0;
            while (s < e && *s >= '0' && *s <= '9') {
                x = x * 10 + (*s++ - '0');
                if (x > INT_MAX / 2) return false;
            }
            v[side * 2 + k] = x;
            if (k == 0 && s < e && *s == ',') s++;
            else break;
        }
        if (s < e && *s == ' ') s++;
    }
    if (e - s < 2 || s[0] != '@' || s[1] != '@') return false;
    *h = (struct mg_diff_hunk){(int)v[0], (int)v[1], (int)v[2], (int)v[3], 0, 0};
    return true;
}

/* "diff --git a/x b/x": the two paths when they are plain and alike; else
 * the ---/+++ lines or rename lines that follow say them. */
static int git_header(struct mg_diff_file *f, const struct line *l, struct mg_err *err)
{
    const char *s = l->s + 11;
    size_t n = l->n - 11;
    while (n && (s[n - 1] == '\r')) n--;
    if (n < 5 || s[0] == '"' || (n - 1) % 2) return 0;
    size_t half = (n - 1) / 2;
    if (s[half] != ' ' || memcmp(s, "a/", 2) != 0 || memcmp(s + half + 1, "b/", 2) != 0 ||
        memcmp(s + 2, s + half + 3, half - 2) != 0)
        return 0;
    char *a = strndup(s + 2, half - 2), *b = strndup(s + 2, half - 2);
    if (!a || !b) {
        free(a);
        free(b);
        return mg_err_oom(err);
    }
    set_path(&f->old_path, a);
    set_path(&f->new_path, b);
    return 0;
}

static void drop_prefix(char *p, char c)
{
    if (p && p[0] == c && p[1] == '/') memmove(p, p + 2, strlen(p + 2) + 1);
}

/* ---- 2. mg_diff_parse --------------------------------------------------------------------------- */

int mg_diff_parse(const char *text, size_t len, struct mg_diff *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    out->text = text;
    if (len > MG_DIFF_MAX_BYTES)
        return mg_err_set(err, MG_E_BAD_DIFF, "the diff is %zu bytes, over the %u MiB a diff may have; split it", len,
                          MG_DIFF_MAX_BYTES >> 20);
    size_t pos = 0, no = 0, hunks = 0;
    struct mg_diff_file *cur = NULL;
    bool cur_git = false, cur_headers = false; /* this file's header: diff --git; its ---/+++ seen */
    struct line l;
    int rc = 0;
    while (rc == 0 && mg__diff_line(text, len, &pos, &no, &l)) {
        if (starts(&l, "diff --git ")) {
            if (!(cur = new_file(out, err))) rc = -1;
            else rc = git_header(cur, &l, err);
            cur_git = true;
            cur_headers = false;
        } else if (starts(&l, "--- ")) {
            size_t p2 = pos, n2 = no;
            struct line l2;
            if (!mg__diff_line(text, len, &p2, &n2, &l2) || !starts(&l2, "+++ ")) continue; /* prose */
            char *a = NULL, *b = NULL;
            if (header_path(l.s + 4, l.n - 4, l.no, &a, err) != 0 ||
                header_path(l2.s + 4, l2.n - 4, l2.no, &b, err) != 0) {
                free(a);
                rc = -1;
                break;
            }
            if (!cur || !cur_git || cur_headers || cur->nh) {
                if (!(cur = new_file(out, err))) {
                    free(a);
                    free(b);
                    rc = -1;
                    break;
                }
                cur_git = false;
            }
            bool prefixed = cur_git || ((!a || strncmp(a, "a/", 2) == 0) && (!b || strncmp(b, "b/", 2) == 0));
            if (prefixed) {
                drop_prefix(a, 'a');
                drop_prefix(b, 'b');
            }
            set_path(&cur->old_path, a);
            set_path(&cur->new_path, b);
            cur_headers = true;
            pos = p2;
            no = n2;
        } else if (cur && cur_git && !cur->nh && (starts(&l, "rename from ") || starts(&l, "rename to "))) {
            bool from = starts(&l, "rename from ");
            size_t skip = from ? 12 : 10;
            char *p = NULL;
            if (header_path(l.s + skip, l.n - skip, l.no, &p, err) != 0) rc = -1;
            else set_path(from ? &cur->old_path : &cur->new_path, p);
        } else if (starts(&l, "@@ ")) {
            struct mg_diff_hunk h;
            if (!cur || (!cur->old_path && !cur->new_path)) {
                rc = bad(err, l.no, "a hunk comes before any file header (--- and +++ lines)");
                break;
            }
            if (!hunk_header(&l, &h)) {
                rc = bad(err, l.no, "a hunk header is not '@@ -start,count +start,count @@'");
                break;
            }
            if (++hunks > MG_DIFF_MAX_HUNKS) {
                rc = mg_err_set(err, MG_E_BAD_DIFF, "the diff has more than %d hunks; split it", MG_DIFF_MAX_HUNKS);
                break;
            }
            int old_left = h.old_len, new_left = h.new_len;
            h.body = pos;
            size_t end = pos;
            while (old_left > 0 || new_left > 0) {
                struct line b;
                if (!mg__diff_line(text, len, &pos, &no, &b)) {
                    rc = bad(err, no, "the diff ends inside a hunk");
                    break;
                }
                char c = b.n ? b.s[0] : ' ';
                if (c == ' ') old_left--, new_left--;
                else if (c == '-') old_left--;
                else if (c == '+') new_left--;
                else if (c != '\\') {
                    rc = bad(err, b.no, "a hunk has fewer lines than its header counts");
                    break;
                }
                if (old_left < 0 || new_left < 0) {
                    rc = bad(err, b.no, "a hunk has more lines than its header counts");
                    break;
                }
                end = pos;
            }
            if (rc != 0) break;
            size_t p2 = pos, n2 = no;
            struct line b;
            if (mg__diff_line(text, len, &p2, &n2, &b) && starts(&b, "\\")) { /* "\ No newline at end of file" */
                pos = end = p2;
                no = n2;
            }
            h.body_len = end - h.body;
            struct mg_diff_hunk *nh = mg_grow(cur->h, cur->nh, &cur->caph, sizeof(*nh));
            if (!nh) {
                rc = mg_err_oom(err);
                break;
            }
            cur->h = nh;
            cur->h[cur->nh++] = h;
        }
    }
    for (size_t i = 0; rc == 0 && i < out->n; i++) {
        struct mg_diff_file *f = &out->v[i];
        if (!f->old_path && !f->new_path) rc = bad(err, 1, "a file has no path");
        if (rc == 0 && f->old_path) rc = check_path(f->old_path, 1, err);
        if (rc == 0 && f->new_path) rc = check_path(f->new_path, 1, err);
    }
    if (rc == 0 && out->n == 0)
        rc = mg_err_set(err, MG_E_BAD_DIFF, "the diff changes no file (no 'diff --git' or '---'/'+++' header); pass "
                                            "the output of `git diff` or `diff -u`");
    if (rc != 0) mg_diff_release(out);
    return rc;
}

/* ---- 3. paths and prefixes ---------------------------------------------------------------------- */

int mg_diff_of_paths(const char *const *paths, size_t n, struct mg_diff *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    int rc = n ? 0 : mg_err_set(err, MG_E_BAD_ARG, "name at least one path");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct mg_diff_file *f = new_file(out, err);
        if (!f) {
            rc = -1;
            break;
        }
        f->whole = true;
        if (!(f->old_path = strdup(paths[i])) || !(f->new_path = strdup(paths[i]))) rc = mg_err_oom(err);
        else rc = check_path(f->new_path, 0, err);
        if (rc == 0) memcpy(f->old_path, f->new_path, strlen(f->new_path) + 1);
    }
    if (rc != 0) mg_diff_release(out);
    return rc;
}

/* Cut prefix from the start of each path; a side outside it becomes
 * /dev/null, a file with neither side inside is dropped. */
static void rebase(char **p, const char *prefix, size_t pl)
{
    if (!*p) return;
    if (strncmp(*p, prefix, pl) != 0) {
        free(*p);
        *p = NULL;
        return;
    }
    memmove(*p, *p + pl, strlen(*p + pl) + 1);
}

void mg_diff_within(struct mg_diff *d, const char *prefix)
{
    size_t pl = strlen(prefix), k = 0;
    if (pl == 0) return;
    for (size_t i = 0; i < d->n; i++) {
        struct mg_diff_file *f = &d->v[i];
        rebase(&f->old_path, prefix, pl);
        rebase(&f->new_path, prefix, pl);
        if (!f->old_path && !f->new_path) {
            free(f->h);
            continue;
        }
        d->v[k++] = *f;
    }
    d->n = k;
}

void mg_diff_release(struct mg_diff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].old_path);
        free(d->v[i].new_path);
        free(d->v[i].h);
    }
    free(d->v);
    memset(d, 0, sizeof(*d));
}
