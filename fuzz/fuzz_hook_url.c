/* fuzz_hook_url.c — webhook repository URLs (hook/url.c) on hostile input:
 * no read or write out of bounds at any output size, and what comes out has
 * the documented shape (NUL-terminated within the buffer, a lower-case host,
 * no empty path segment, no trailing slash). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hook/hook.h"

static void check_shape(const char *out, size_t cap)
{
    size_t n = strnlen(out, cap);
    if (n == cap || n == 0) abort();
    if (strstr(out, "//") || out[n - 1] == '/') abort();
    for (const char *p = out; *p && *p != '/'; p++) /* the host, up to the path */
        if (isupper((unsigned char)*p)) abort();
}

MG_FUZZ_TARGET(hook_url)
{
    static const size_t caps[] = {2, 8, 64, MG_HOOK_NORM_MAX};
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        char *out = malloc(caps[i]); /* exact size, so ASan sees an overrun */
        if (mg_hook_url_norm((const char *)data, size, out, caps[i]) == 0) check_shape(out, caps[i]);
        free(out);
    }
    return 0;
}
