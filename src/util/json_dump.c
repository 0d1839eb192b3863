/* json_dump.c — see json.h (mg_json_dumps, mg_json_size): compact JSON text
 * of a jansson value, the bytes json_dumps gives for the same flags.
 *
 * jansson walks every string a code point at a time (its UTF-8 decoder, then
 * a test for each escape); a search's answer is mostly snippet text, and that
 * walk was 12% of an MCP call's CPU on a small repo. Here a string is checked
 * for UTF-8 once (mg_utf8_valid_prefix, eight bytes at a time) and copied in
 * runs between the bytes that need an escape, found 16 bytes at a time.
 *
 * Output rules, as jansson 2.14's dump.c: `"`, `\` and the control characters
 * escaped (\b \f \n \r \t, else \u00XX in upper-case hex), nothing else;
 * integers as %lld; reals as %.<precision>g (17 when JSON_REAL_PRECISION is
 * 0), with ".0" appended when neither '.' nor 'e' shows, the locale's
 * decimal point as '.', and the exponent without '+' or leading zeros;
 * objects in insertion order. A string that is not UTF-8 fails the dump, as
 * in jansson. Flags other than JSON_COMPACT, JSON_REAL_PRECISION,
 * JSON_ENCODE_ANY and JSON_PRESERVE_ORDER go to jansson.
 */
#include "util/json.h"

#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/simd.h"
#include "util/utf8.h"

#define OWN_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(31) | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)
#define DEPTH_MAX 2048

/* Where the text goes: a buffer (util/buf.h), or, counting, nowhere. */
struct out {
    struct mg_buf b;
    size_t counted;
    bool counting, failed;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->failed) return;
    if (o->counting) o->counted += n;
    else if (mg_buf_add(&o->b, s, n) != 0) o->failed = true;
}

/* 1: the byte needs an escape ('"', '\\' or a control character) */
static const unsigned char ESCAPED[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

static void put_string(struct out *o, const char *s, size_t n)
{
    if (mg_utf8_valid_prefix(s, n) != n) {
        o->failed = true;
        return;
    }
    put(o, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 16 <= n) { /* 16 bytes none of which needs an escape go by at once */
            mg_v16 v;
            memcpy(&v, s + i, 16);
            unsigned bits = mg_v16_bits((mg_v16)(v < 0x20) | (mg_v16)(v == '"') | (mg_v16)(v == '\\'));
            if (!bits) {
                i += 15;
                continue;
            }
            i += (size_t)__builtin_ctz(bits);
        }
        unsigned char c = (unsigned char)s[i];
        if (!ESCAPED[c]) continue;
        put(o, s + run, i - run);
        run = i + 1;
        char seq[8];
        const char *e = seq;
        size_t len = 2;
        switch (c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            snprintf(seq, sizeof(seq), "\\u%04X", (unsigned)c);
            len = 6;
        }
        put(o, e, len);
    }
    put(o, s + run, n - run);
    put(o, "\"", 1);
}

static void put_real(struct out *o, double v, int precision)
{
    char b[128];
    int n = snprintf(b, sizeof(b), "%.*g", precision ? precision : 17, v);
    if (n < 0 || (size_t)n + 3 >= sizeof(b)) {
        o->failed = true;
        return;
    }
    size_t len = (size_t)n;
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && dp[0] != '.') {
        char *at = strchr(b, dp[0]);
        if (at) *at = '.';
    }
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        memcpy(b + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(b, 'e');
    if (start) { /* no '+' and no leading zeros in the exponent */
        start++;
        char *end = start + 1;
        if (*start == '-') start++;
        while (*end == '0') end++;
        if (end != start) {
            memmove(start, end, len + 1 - (size_t)(end - b));
            len -= (size_t)(end - start);
        }
    }
    put(o, b, len);
}

static void put_value(struct out *o, const json_t *v, int precision, int depth)
{
    if (o->failed) return;
    if (!v || depth > DEPTH_MAX) {
        o->failed = true;
        return;
    }
    switch (json_typeof(v)) {
    case JSON_NULL: put(o, "null", 4); break;
    case JSON_TRUE: put(o, "true", 4); break;
    case JSON_FALSE: put(o, "false", 5); break;
    case JSON_INTEGER: { /* %lld's digits, without snprintf's ~700 instructions (an answer has hundreds) */
        json_int_t x = json_integer_value(v);
        unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
        char b[24], *e = b + sizeof(b), *p = e;
        do *--p = (char)('0' + u % 10);
        while (u /= 10);
        if (x < 0) *--p = '-';
        put(o, p, (size_t)(e - p));
        break;
    }
    case JSON_REAL: put_real(o, json_real_value(v), precision); break;
    case JSON_STRING: put_string(o, json_string_value(v), json_string_length(v)); break;
    case JSON_ARRAY: {
        put(o, "[", 1);
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n && !o->failed; i++) {
            if (i) put(o, ",", 1);
            put_value(o, json_array_get(v, i), precision, depth + 1);
        }
        put(o, "]", 1);
        break;
    }
    case JSON_OBJECT: {
        put(o, "{", 1);
        bool first = true;
        for (void *it = json_object_iter((json_t *)v); it && !o->failed;
             it = json_object_iter_next((json_t *)v, it)) {
            if (!first) put(o, ",", 1);
            first = false;
            put_string(o, json_object_iter_key(it), json_object_iter_key_len(it));
            put(o, ":", 1);
            put_value(o, json_object_iter_value(it), precision, depth + 1);
        }
        put(o, "}", 1);
        break;
    }
    }
}

/* Whether this file writes v with these flags (else jansson does). */
static bool own(const json_t *v, size_t flags)
{
    return (flags & ~(size_t)OWN_FLAGS) == 0 && (flags & JSON_COMPACT) &&
           (flags & JSON_ENCODE_ANY || json_is_object(v) || json_is_array(v));
}

char *mg_json_dumps(const json_t *v, size_t flags)
{
    if (!v) return NULL;
    if (!own(v, flags)) return json_dumps(v, flags);
    struct out o = {0};
    mg_buf_init(&o.b, (size_t)-1 / 2);
    put_value(&o, v, (int)((flags >> 11) & 0x1F), 0);
    put(&o, "", 0); /* (an empty text is still a string) */
    if (o.failed) {
        mg_buf_release(&o.b);
        return NULL;
    }
    return mg_buf_detach(&o.b, NULL);
}

size_t mg_json_size(const json_t *v, size_t flags)
{
    if (!v) return 0;
    if (!own(v, flags)) return json_dumpb(v, NULL, 0, flags);
    struct out o = {.counting = true};
    put_value(&o, v, (int)((flags >> 11) & 0x1F), 0);
    return o.failed ? 0 : o.counted;
}
