/* test_buf.c — util/buf.h: appends, formatted appends, the max. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"

/* Formatted appends of many lengths, across the buffer's growth, give what
 * snprintf gives; the capacity never passes max + 1; one past max fails and
 * leaves the buffer as it was, terminated; exactly to max is taken. */
TEST(buf_formatted_appends_fit_grow_and_stop_at_max)
{
    char want[4096];
    size_t wlen = 0;
    struct mg_buf b;
    mg_buf_init(&b, 3000);
    for (int i = 0; i < 200; i++) {
        char piece[64];
        int n = snprintf(piece, sizeof(piece), "%d:%.*s;", i, i % 23, "abcdefghijklmnopqrstuvwxyz");
        if (wlen + (size_t)n > 3000) break;
        ASSERT_EQ_INT(mg_buf_addf(&b, "%d:%.*s;", i, i % 23, "abcdefghijklmnopqrstuvwxyz"), 0);
        memcpy(want + wlen, piece, (size_t)n);
        wlen += (size_t)n;
        want[wlen] = 0;
        ASSERT_EQ_INT(b.len, wlen);
        ASSERT(b.cap <= b.max + 1);
        ASSERT_EQ_STR(b.p, want);
    }
    /* past max: refused, nothing of it kept, still terminated */
    size_t left = b.max - b.len;
    ASSERT_EQ_INT(mg_buf_addf(&b, "%*s", (int)left + 1, "x"), -1);
    ASSERT_EQ_INT(b.len, wlen);
    ASSERT_EQ_INT(strlen(b.p), wlen);
    ASSERT_EQ_STR(b.p, want);
    /* exactly to max: taken */
    ASSERT_EQ_INT(mg_buf_addf(&b, "%*s", (int)left, "y"), 0);
    ASSERT_EQ_INT(b.len, b.max);
    ASSERT_EQ_INT(strlen(b.p), b.max);
    ASSERT_EQ_INT(mg_buf_addf(&b, "%s", ""), 0);
    ASSERT_EQ_INT(mg_buf_addf(&b, "z"), -1);
    ASSERT_EQ_INT(strlen(b.p), b.max);
    mg_buf_release(&b);
}
