/* content.c — see content.h. */
#include "store/content.h"

#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

#define LEVEL 1

/* Each thread's contexts, kept across calls (creating a decompression context
 * costs more than decompressing a snippet) and freed when the thread exits:
 * a thread-specific key's destructor runs then, whoever made the thread. */
struct zctx {
    ZSTD_CCtx *c;
    ZSTD_DCtx *d;
};
static pthread_key_t zkey;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;

static void zfree(void *p)
{
    struct zctx *z = p;
    ZSTD_freeCCtx(z->c);
    ZSTD_freeDCtx(z->d);
    free(z);
}

static void zkey_init(void) { pthread_key_create(&zkey, zfree); }

static struct zctx *zctx(void)
{
    pthread_once(&zonce, zkey_init);
    struct zctx *z = pthread_getspecific(zkey);
    if (!z && (z = calloc(1, sizeof(*z))) && pthread_setspecific(zkey, z) != 0) {
        free(z);
        z = NULL;
    }
    return z;
}

int mg_content_pack(const char *text, size_t len, void **out, size_t *outlen)
{
    struct zctx *z = zctx();
    if (!z || (!z->c && !(z->c = ZSTD_createCCtx()))) return -1;
    ZSTD_CCtx *cctx = z->c;
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
    struct zctx *z = zctx();
    if (!z || (!z->d && !(z->d = ZSTD_createDCtx()))) return -1;
    ZSTD_DCtx *dctx = z->d;
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
    pthread_once(&zonce, zkey_init);
    struct zctx *z = pthread_getspecific(zkey);
    if (!z) return;
    pthread_setspecific(zkey, NULL);
    zfree(z);
}
