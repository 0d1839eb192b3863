/* buf.c — see buf.h. */
#include "util/buf.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void mg_buf_init(struct mg_buf *b, size_t max)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->max = max;
}

static int grow(struct mg_buf *b, size_t need)
{
    if (need > b->max) return -1;
    if (need + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need + 1) cap = cap > (size_t)-1 / 2 ? need + 1 : cap * 2;
    if (cap > b->max + 1) cap = b->max + 1;
    char *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

int mg_buf_add(struct mg_buf *b, const void *data, size_t n)
{
    if (n > b->max - b->len || grow(b, b->len + n) != 0) return -1;
    if (n) memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}

int mg_buf_addc(struct mg_buf *b, char c) { return mg_buf_add(b, &c, 1); }
int mg_buf_adds(struct mg_buf *b, const char *s) { return mg_buf_add(b, s, strlen(s)); }

int mg_buf_vaddf(struct mg_buf *b, const char *fmt, va_list ap)
{
    /* formatted once into the room there is; again only when it did not fit */
    size_t room = b->p && b->cap > b->len ? b->cap - b->len : 0;
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, cp);
    va_end(cp);
    if (n >= 0 && (size_t)n < room && (size_t)n <= b->max - b->len) {
        b->len += (size_t)n;
        return 0;
    }
    if (room) b->p[b->len] = 0; /* what the try wrote is not kept */
    if (n < 0 || (size_t)n > b->max - b->len || grow(b, b->len + (size_t)n) != 0) return -1;
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int mg_buf_addf(struct mg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mg_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void mg_buf_reset(struct mg_buf *b)
{
    b->len = 0;
    if (b->p) b->p[0] = 0;
}

char *mg_buf_detach(struct mg_buf *b, size_t *len)
{
    char *p = b->p;
    if (!p) p = calloc(1, 1);
    if (len) *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void mg_buf_release(struct mg_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void *mg_grow(void *v, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap) return v;
    size_t c = *cap ? *cap : 16;
    while (c <= n) {
        if (c > SIZE_MAX / 2) return NULL;
        c *= 2;
    }
    if (elem && c > SIZE_MAX / elem) return NULL;
    void *p = realloc(v, c * elem);
    if (p) *cap = c;
    return p;
}
