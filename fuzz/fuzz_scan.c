/* fuzz_scan.c — the built-in secret rules over arbitrary bytes: scan, then
 * redact, and check the findings are in order and inside the buffer, and
 * that redaction keeps the number of lines. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "security/scan.h"
#include "security/secrets.h"

struct st {
    size_t len, last_end;
};

static int check(const struct mg_finding *f, void *ud)
{
    struct st *s = ud;
    if (f->start >= f->end || f->end > s->len || f->start < s->last_end || f->line == 0) abort();
    s->last_end = f->end;
    return 0;
}

MG_FUZZ_TARGET(scan)
{
    const struct mg_scanner *sc = mg_scanner_default();
    if (!sc) abort();
    struct st s = {size, 0};
    struct mg_err err;
    if (mg_scan(sc, (const char *)data, size, check, &s, &err) < 0) abort();
    struct mg_secret_policy all = {{MG_SECRET_REDACT, MG_SECRET_REDACT, MG_SECRET_REDACT}};
    struct mg_buf out;
    mg_buf_init(&out, size * 4 + 4096);
    int n;
    if (mg_secrets_apply(sc, &all, (const char *)data, size, &out, &n, NULL, NULL, &err) != 0) abort();
    size_t lines_in = 0, lines_out = 0;
    for (size_t i = 0; i < size; i++) lines_in += data[i] == '\n';
    for (size_t i = 0; i < out.len; i++) lines_out += out.p[i] == '\n';
    if (lines_in != lines_out) abort();
    mg_buf_release(&out);
    return 0;
}
