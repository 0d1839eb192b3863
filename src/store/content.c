/* content.c — see content.h. */
#include "store/content.h"

#include <stdlib.h>
#include <zstd.h>

#define LEVEL 1

static __thread ZSTD_CCtx *cctx;
static __thread ZSTD_DCtx *dctx;

int mg_content_pack(const char *text, size_t len, void **out, size_t *outlen)
{
    if (!cctx && !(cctx = ZSTD_createCCtx())) return -1;
    size_t cap = ZSTD_compressBound(len);
    void *buf = malloc(cap ? cap : 1);
    if (!buf) return -1;
    size_t n = ZSTD_compressCCtx(cctx, buf, cap, text, len, LEVEL);
    if (ZSTD_isError(n)) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outlen = n;
    return 0;
}

int mg_content_unpack(const void *blob, size_t n, size_t max, char **out, size_t *len)
{
    if (!dctx && !(dctx = ZSTD_createDCtx())) return -1;
    unsigned long long size = ZSTD_getFrameContentSize(blob, n);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > max) return -1;
    char *buf = malloc((size_t)size + 1);
    if (!buf) return -1;
    size_t got = ZSTD_decompressDCtx(dctx, buf, (size_t)size, blob, n);
    if (ZSTD_isError(got) || got != size) {
        free(buf);
        return -1;
    }
    buf[got] = 0;
    *out = buf;
    *len = got;
    return 0;
}

void mg_content_thread_done(void)
{
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
    cctx = NULL;
    dctx = NULL;
}
