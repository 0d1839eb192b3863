/* test_utf8.c — UTF-8 validation and repair (util/utf8.h). */
#include "test.h"
#include "util/utf8.h"

TEST(utf8_valid_and_repair)
{
    const char *ok = "héllo wörld ✓ 😀";
    ASSERT_EQ_INT(mg_utf8_valid_prefix(ok, strlen(ok)), strlen(ok));
    const char bad[] = "ab\xff" "cd\xc3" "(\xed\xa0\x80" "z"; /* bad byte, truncated seq, surrogate */
    size_t n = sizeof(bad) - 1;
    ASSERT_EQ_INT(mg_utf8_valid_prefix(bad, n), 2);
    char *out;
    size_t len;
    size_t fixed = mg_utf8_repair(bad, n, &out, &len);
    ASSERT_EQ_INT(fixed, 5); /* 0xff, 0xc3, and the three surrogate bytes */
    ASSERT_EQ_INT(mg_utf8_valid_prefix(out, len), len);
    ASSERT_EQ_STR(out, "ab\xef\xbf\xbd" "cd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
    free(out);
    /* overlong encodings are invalid */
    ASSERT_EQ_INT(mg_utf8_valid_prefix("\xc0\xaf", 2), 0);
    ASSERT_EQ_INT(mg_utf8_valid_prefix("\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
}

TEST(utf8_cut_on_boundary)
{
    const char *s = "aé€😀";
    ASSERT_EQ_INT(mg_utf8_cut(s, strlen(s), 2), 1);  /* é would be split */
    ASSERT_EQ_INT(mg_utf8_cut(s, strlen(s), 3), 3);
    ASSERT_EQ_INT(mg_utf8_cut(s, strlen(s), 5), 3);  /* € is 3 bytes */
    ASSERT_EQ_INT(mg_utf8_cut(s, strlen(s), 100), strlen(s));
}
