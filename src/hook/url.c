/* url.c — repository URLs to one comparable form (hook.h). The input comes
 * from webhook payloads (signed, but still parsed with care) and from
 * working copies' git config: every length is checked before it is copied. */
#include "hook/hook.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* One parsed URL: the host (with its port, when not the default) and the
 * path, both pointing into the input. host_len 0: a local path. */
struct url_parts {
    const char *host;
    size_t host_len;
    const char *port; /* digits, or NULL */
    size_t port_len;
    const char *path;
    size_t path_len;
};

static const struct scheme {
    const char *name;
    const char *default_port;
} schemes[] = {
    {"https", "443"}, {"http", "80"},  {"ssh", "22"},     {"git+ssh", "22"},
    {"ssh+git", "22"}, {"git", "9418"}, {"file", NULL},
};

static const struct scheme *scheme_of(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
        if (strlen(schemes[i].name) == n && strncasecmp(schemes[i].name, s, n) == 0) return &schemes[i];
    return NULL;
}

static bool host_char_ok(unsigned char c) { return isalnum(c) || c == '.' || c == '-' || c == '_'; }

/* A host name, or an IPv6 literal in brackets. */
static bool host_ok(const char *h, size_t n)
{
    if (n == 0) return false;
    if (h[0] == '[') {
        if (n < 3 || h[n - 1] != ']') return false;
        for (size_t i = 1; i + 1 < n; i++)
            if (!isxdigit((unsigned char)h[i]) && h[i] != ':' && h[i] != '.') return false;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (!host_char_ok((unsigned char)h[i])) return false;
    return true;
}

/* "[user@]host[:port]" of a scheme URL into p; the port must be digits. */
static int split_authority(const char *a, size_t n, const struct scheme *sc, struct url_parts *p)
{
    const char *at = NULL;
    for (size_t i = 0; i < n; i++)
        if (a[i] == '@') at = a + i; /* the last '@': a password may hold one */
    if (at) {
        n -= (size_t)(at + 1 - a);
        a = at + 1;
    }
    size_t hl = n;
    if (n && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (!close) return -1;
        hl = (size_t)(close + 1 - a);
    } else {
        const char *colon = memchr(a, ':', n);
        if (colon) hl = (size_t)(colon - a);
    }
    if (!host_ok(a, hl)) return -1;
    p->host = a;
    p->host_len = hl;
    if (hl < n) {
        if (a[hl] != ':' || n - hl - 1 == 0 || n - hl - 1 > 5) return -1;
        for (size_t i = hl + 1; i < n; i++)
            if (!isdigit((unsigned char)a[i])) return -1;
        p->port = a + hl + 1;
        p->port_len = n - hl - 1;
        if (sc->default_port && strlen(sc->default_port) == p->port_len &&
            memcmp(sc->default_port, p->port, p->port_len) == 0)
            p->port = NULL, p->port_len = 0;
    }
    return 0;
}

/* "scheme://..." */
static int parse_scheme_url(const char *s, size_t n, const char *sep, struct url_parts *p)
{
    const struct scheme *sc = scheme_of(s, (size_t)(sep - s));
    if (!sc) return -1;
    const char *a = sep + 3, *end = s + n;
    const char *slash = memchr(a, '/', (size_t)(end - a));
    if (!slash) return -1; /* no path */
    if (!sc->default_port && strcmp(sc->name, "file") == 0) {
        /* file:///path or file://localhost/path */
        size_t an = (size_t)(slash - a);
        if (an && !(an == 9 && strncasecmp(a, "localhost", 9) == 0)) return -1;
    } else if (split_authority(a, (size_t)(slash - a), sc, p) != 0) {
        return -1;
    }
    p->path = slash;
    p->path_len = (size_t)(end - slash);
    return 0;
}

/* "[user@]host:path", as git's scp-like syntax: a colon before any slash. */
static int parse_scp(const char *s, size_t n, struct url_parts *p)
{
    const char *colon = memchr(s, ':', n), *slash = memchr(s, '/', n);
    const char *at = NULL;
    if (!colon) return -1;
    for (const char *q = s; q < colon; q++)
        if (*q == '@') at = q;
    const char *h = at ? at + 1 : s;
    if (h < s + n && *h == '[') { /* user@[::1]:path */
        const char *close = memchr(h, ']', (size_t)(s + n - h));
        if (!close || close + 1 >= s + n || close[1] != ':') return -1;
        colon = close + 1;
    }
    if (slash && slash < colon) return -1; /* a relative path holding a colon */
    if (!host_ok(h, (size_t)(colon - h))) return -1;
    p->host = h;
    p->host_len = (size_t)(colon - h);
    p->path = colon + 1;
    p->path_len = (size_t)(s + n - colon - 1);
    return 0;
}

/* Append the path's segments, '/'-joined, dropping empty ones and a last
 * ".git". 0, or -1 when there is none or out is full. */
static int put_path(const char *path, size_t n, char *out, size_t *o, size_t cap)
{
    while (n && path[n - 1] == '/') n--; /* so the last segment ends at n */
    size_t segs = 0, i = 0;
    while (i < n) {
        while (i < n && path[i] == '/') i++;
        size_t b = i;
        while (i < n && path[i] != '/') i++;
        size_t len = i - b;
        if (!len) continue;
        if (i == n && len > 4 && strncasecmp(path + i - 4, ".git", 4) == 0) len -= 4;
        if (*o + 1 + len >= cap) return -1;
        out[(*o)++] = '/';
        memcpy(out + *o, path + b, len);
        *o += len;
        segs++;
    }
    if (!segs) return -1;
    out[*o] = 0;
    return 0;
}

/* Where "scheme://" ends its scheme: the first ':' when "//" follows it and
 * no '/' comes before it; else NULL. */
static const char *scheme_sep(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '/') return NULL;
        if (s[i] == ':') return i + 2 < len && s[i + 1] == '/' && s[i + 2] == '/' ? s + i : NULL;
    }
    return NULL;
}

int mg_hook_url_norm(const char *s, size_t len, char *out, size_t cap)
{
    if (!s || !out || cap < 2 || len == 0 || len > MG_HOOK_URL_MAX) return -1;
    out[0] = 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f) return -1;
    for (size_t i = 0; i < len; i++) /* a query or fragment says nothing about the repository */
        if (s[i] == '?' || s[i] == '#') {
            len = i;
            break;
        }
    struct url_parts p = {0};
    const char *sep = scheme_sep(s, len);
    if (sep) {
        if (parse_scheme_url(s, len, sep, &p) != 0) return -1;
    } else if (len && s[0] == '/') { /* a local path: the remote of a clone of a directory */
        p.path = s;
        p.path_len = len;
    } else if (parse_scp(s, len, &p) != 0) {
        return -1;
    }
    size_t o = 0;
    if (p.host_len) {
        if (p.host_len + 1 + p.port_len + 1 >= cap) return -1;
        for (size_t i = 0; i < p.host_len; i++) out[o++] = (char)tolower((unsigned char)p.host[i]);
        if (p.port) {
            out[o++] = ':';
            memcpy(out + o, p.port, p.port_len);
            o += p.port_len;
        }
    }
    if (put_path(p.path, p.path_len, out, &o, cap) != 0) {
        out[0] = 0;
        return -1;
    }
    return 0;
}
