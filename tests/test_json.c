/* test_json.c — mg_json_dumps and mg_json_size (util/json.h): jansson's bytes for the same flags. */
#include "test.h"
#include "util/json.h"

#include <math.h>
#include <stdint.h>

/* Both dumps of v with flags agree: text, size, and failure. */
static int same_as_jansson(const json_t *v, size_t flags)
{
    char *a = mg_json_dumps(v, flags), *b = json_dumps(v, flags);
    size_t na = mg_json_size(v, flags), nb = json_dumpb(v, NULL, 0, flags);
    int ok = (!a && !b) || (a && b && strcmp(a, b) == 0);
    if (!ok) fprintf(stderr, "mg:      %s\njansson: %s\n", a ? a : "(null)", b ? b : "(null)");
    if (na != nb) fprintf(stderr, "size %zu, jansson %zu\n", na, nb), ok = 0;
    free(a);
    free(b);
    return ok;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* a string of n bytes: ASCII with every escape, multi-byte UTF-8, NUL */
static json_t *random_string(size_t n)
{
    static const char *const pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f", "\x01",
                                         "\x1f", "\x7f", "é", "€", "😀", "\xef\xbf\xbd", "{", "}", "<"};
    char buf[512];
    size_t len = 0;
    while (len < n && len + 4 < sizeof(buf)) {
        if (next() % 17 == 0) {
            buf[len++] = 0;
            continue;
        }
        const char *p = pieces[next() % (sizeof(pieces) / sizeof(pieces[0]))];
        memcpy(buf + len, p, strlen(p));
        len += strlen(p);
    }
    return json_stringn(buf, len);
}

static json_t *random_value(int depth)
{
    switch (next() % (depth > 3 ? 5 : 7)) {
    case 0: return json_integer((json_int_t)(next() % 3 == 0 ? (int64_t)next() : (int64_t)(next() % 2001) - 1000));
    case 1: {
        static const double special[] = {0.0, -0.0, 1.0, 0.5, 48.007, 1e21, 1e-7, 123456789012345678.0, 1e300,
                                         -2.5e-300, 3.141592653589793, 1.0 / 3};
        double d = next() % 2 ? special[next() % (sizeof(special) / sizeof(special[0]))]
                              : ldexp((double)(int64_t)next(), (int)(next() % 200) - 100);
        return json_real(d);
    }
    case 2: return random_string(next() % 40);
    case 3: return next() % 2 ? json_true() : json_false();
    case 4: return json_null();
    case 5: {
        json_t *a = json_array();
        for (size_t i = next() % 5; i > 0; i--) json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (size_t i = next() % 5; i > 0; i--) {
            json_t *k = random_string(next() % 8);
            json_object_setn_new(o, json_string_value(k), json_string_length(k), random_value(depth + 1));
            json_decref(k);
        }
        return o;
    }
    }
}

TEST(json_dumps_gives_janssons_bytes)
{
    static const size_t flags[] = {JSON_COMPACT, JSON_COMPACT | JSON_REAL_PRECISION(6),
                                   JSON_COMPACT | JSON_REAL_PRECISION(12) | JSON_PRESERVE_ORDER,
                                   JSON_COMPACT | JSON_ENCODE_ANY, JSON_COMPACT | JSON_SORT_KEYS, 0, JSON_INDENT(2)};
    for (int i = 0; i < 3000; i++) {
        json_t *v = random_value(0);
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) ASSERT(same_as_jansson(v, flags[f]));
        json_decref(v);
    }
    /* a result as a search gives it: every string escape, in an object in insertion order */
    json_t *r = json_pack("{s:s, s:f, s:I, s:[{s:s, s:b, s:n}]}", "zeta", "line \"one\"\n\ttab \\ é 😀 \x01",
                          "score", 48.006999999999998, "n", (json_int_t)INT64_MIN, "results", "snippet",
                          "int main(void)\r\n{\f}", "stale", 0, "null");
    ASSERT(same_as_jansson(r, MG_JSON_DUMP));
    char *text = mg_json_dumps(r, MG_JSON_DUMP);
    ASSERT_EQ_STR(text, "{\"zeta\":\"line \\\"one\\\"\\n\\ttab \\\\ é 😀 \\u0001\",\"score\":48.007,"
                        "\"n\":-9223372036854775808,\"results\":[{\"snippet\":\"int main(void)\\r\\n{\\f}\","
                        "\"stale\":false,\"null\":null}]}");
    free(text);
    json_decref(r);
}

TEST(json_dumps_refuses_what_jansson_refuses)
{
    /* a string that is not UTF-8 (made without jansson's check), a scalar without JSON_ENCODE_ANY */
    json_t *bad = json_pack("{s:o}", "s", json_stringn_nocheck("ok \xff\xfe", 5));
    ASSERT(same_as_jansson(bad, JSON_COMPACT));
    ASSERT(mg_json_dumps(bad, JSON_COMPACT) == NULL);
    ASSERT_EQ_INT(mg_json_size(bad, JSON_COMPACT), 0);
    json_decref(bad);
    json_t *s = json_string("alone");
    ASSERT(same_as_jansson(s, JSON_COMPACT));
    ASSERT(mg_json_dumps(s, JSON_COMPACT) == NULL);
    char *t = mg_json_dumps(s, JSON_COMPACT | JSON_ENCODE_ANY);
    ASSERT_EQ_STR(t, "\"alone\"");
    free(t);
    json_decref(s);
    ASSERT(mg_json_dumps(NULL, JSON_COMPACT) == NULL);
}

TEST(json_text_keeps_utf8_and_repairs_the_rest)
{
    json_t *a = mg_json_text("snippet é 😀 \"q\"\n");
    ASSERT_EQ_STR(json_string_value(a), "snippet é 😀 \"q\"\n");
    json_decref(a);
    /* a byte that is no character, a sequence cut short, a surrogate: U+FFFD each */
    json_t *b = mg_json_text("ab\xff" "cd\xc3" "(\xed\xa0\x80z");
    ASSERT_EQ_STR(json_string_value(b), "ab\xef\xbf\xbd" "cd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
    char *t = mg_json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
    ASSERT(t != NULL); /* (a string jansson would not dump never gets in) */
    free(t);
    json_decref(b);
}
