/* buf.h — a growable byte buffer with a hard maximum (curl's dynbuf idea).
 *
 * Every buffer is created with the most it may ever hold; an append that would
 * pass it fails with -1 and leaves the buffer as it was. The contents are always
 * NUL-terminated (the terminator is not counted in len), so text can be used
 * as a C string.
 */
#ifndef MG_BUF_H
#define MG_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct mg_buf {
    char *p;    /* contents, NUL-terminated; NULL until the first append */
    size_t len; /* bytes used, without the terminator */
    size_t cap; /* bytes allocated */
    size_t max; /* most len may reach */
};

void mg_buf_init(struct mg_buf *b, size_t max);
/* 0, or -1 when the result would exceed max or memory runs out. */
int mg_buf_add(struct mg_buf *b, const void *data, size_t n);
int mg_buf_addc(struct mg_buf *b, char c);
int mg_buf_adds(struct mg_buf *b, const char *s);
int mg_buf_addf(struct mg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mg_buf_vaddf(struct mg_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void mg_buf_reset(struct mg_buf *b); /* len = 0, keeps memory */
/* Hand the contents to the caller (who frees them); the buffer is emptied. */
char *mg_buf_detach(struct mg_buf *b, size_t *len);
void mg_buf_release(struct mg_buf *b);

/* Room for element n of an array v of *cap elements of elem bytes, doubling
 * from 16: the array (moved, maybe), or NULL when memory runs out or the size
 * would overflow (v is still valid then, *cap unchanged). */
void *mg_grow(void *v, size_t n, size_t *cap, size_t elem);

#endif
