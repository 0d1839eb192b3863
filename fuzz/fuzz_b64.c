/* fuzz_b64.c — the scanner's base64 pass: the decoder against a plain
 * reference (on the input's base64 characters), then the whole scan of the
 * input, and of the input base64-encoded under a Kubernetes Secret key:
 * findings in order and inside the buffer, and every encoded finding a whole
 * run of base64 characters (its padding included). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "security/scan.h"

static int val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

struct st {
    const char *buf;
    size_t len, last_end;
};

static int check(const struct mg_finding *f, void *ud)
{
    struct st *s = ud;
    if (f->start >= f->end || f->end > s->len || f->start < s->last_end || f->line == 0) abort();
    s->last_end = f->end;
    if (f->encoded) {
        size_t i = f->start;
        if (i > 0 && val((unsigned char)s->buf[i - 1]) >= 0) abort(); /* the run starts here */
        while (i < f->end && val((unsigned char)s->buf[i]) >= 0) i++;
        if (i - f->start < 24) abort();
        while (i < f->end && s->buf[i] == '=') i++;
        if (i != f->end) abort(); /* base64 then padding, nothing else */
    }
    return 0;
}

static void scan(const char *buf, size_t len)
{
    struct st s = {buf, len, 0};
    struct mg_err err;
    if (mg_scan(mg_scanner_default(), buf, len, check, &s, &err) < 0) abort();
}

MG_FUZZ_TARGET(b64)
{
    if (!mg_scanner_default()) abort();
    /* 1. the decoder, on the input's base64 characters */
    char *in = malloc(size + 1), *out = malloc(size / 4 * 3 + 3), *ref = malloc(size / 4 * 3 + 3);
    if (!in || !out || !ref) abort();
    size_t n = 0;
    for (size_t i = 0; i < size; i++)
        if (val(data[i]) >= 0) in[n++] = (char)data[i];
    size_t got = mg_b64_decode_text(in, n, out);
    size_t m = 0, bad = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n - n % 4 + (n % 4 >= 2 ? n % 4 : 0); i++) {
        acc = acc << 6 | (unsigned)val((unsigned char)in[i]);
        bits += 6;
        if (bits >= 8) {
            unsigned char c = (unsigned char)(acc >> (bits - 8));
            bits -= 8;
            ref[m++] = (char)c;
            bad += !((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t');
        }
    }
    if (m != n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0)) abort();
    if (bad > m / 10) {
        if (got != (size_t)-1) abort();
    } else if (got != m || memcmp(out, ref, m) != 0) {
        abort();
    }
    free(in);
    free(out);
    free(ref);
    /* 2. the scan of the input as it is */
    scan((const char *)data, size);
    /* 3. the input base64-encoded, as a Secret's value */
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t cap = 64 + (size + 2) / 3 * 4;
    char *t = malloc(cap), *o = t;
    if (!t) abort();
    o += sprintf(o, "data:\n  DATABASE_URL: ");
    for (size_t i = 0; i < size; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (i + 1 < size ? (unsigned)data[i + 1] << 8 : 0) | (i + 2 < size ? data[i + 2] : 0);
        *o++ = al[v >> 18 & 63];
        *o++ = al[v >> 12 & 63];
        *o++ = i + 1 < size ? al[v >> 6 & 63] : '=';
        *o++ = i + 2 < size ? al[v & 63] : '=';
    }
    *o++ = '\n';
    scan(t, (size_t)(o - t));
    free(t);
    return 0;
}
