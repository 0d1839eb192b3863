/* fuzz_sanitize.c — the gate's text filter (sanitize.h) on hostile bytes:
 * escape sequences cut anywhere, invalid UTF-8, hidden characters. The
 * output must be valid UTF-8 with no ESC, C0 (but tab/newline/CRLF) or DEL,
 * and mg_injection must not crash or hang; the injection prefilter reports
 * every pattern PCRE2 finds in the bytes (injection.c's mg__inj_bytewise). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "security/injection_int.h"
#include "security/sanitize.h"

MG_FUZZ_TARGET(sanitize)
{
    (void)mg_injection((const char *)data, size);
    if (size <= 4096 && mg__inj_prefilter_miss((const char *)data, size) >= 0) abort();
    struct mg_buf b;
    mg_buf_init(&b, (size_t)1 << 26);
    unsigned found = 0;
    if (mg_sanitize((const char *)data, size, &b, &found) != 0) abort();
    for (size_t i = 0; i < b.len; i++) {
        unsigned char c = (unsigned char)b.p[i];
        if (c == 0x1b || c == 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) abort();
        if (c == '\r' && (i + 1 == b.len || b.p[i + 1] != '\n')) abort();
    }
    json_t *j = json_stringn(b.p ? b.p : "", b.len); /* jansson checks UTF-8 */
    if (!j) abort();
    json_decref(j);
    mg_buf_release(&b);
    return 0;
}
