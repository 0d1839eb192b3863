/* test_tokens.c — util/tokens.h counts a text's tokens from above: never
 * under what cl100k and o200k spend on the samples below (their counts
 * taken with js-tiktoken), and not wildly over (at most 2.5 times). */
#include "test.h"
#include "util/tokens.h"

struct sample {
    const char *text;
    int cl100k, o200k; /* js-tiktoken's counts */
};

TEST(tokens_count_from_above)
{
    static const struct sample s[] = {
        {"int main(void) { return 0; }\n", 10, 10},
        {"static size_t word(const unsigned char *w, size_t n)\n", 14, 14},
        {"def beta_words():\n    return 2\n", 9, 9},
        {"The quick brown fox jumps over the lazy dog.", 10, 10},
        {"MG_TOKENS_H MEMGATE_HOME", 8, 9},
        {"aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=", 19, 17},
        {"12345678901234567890", 7, 7},
        {"", 0, 0},
    };
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        size_t t = mg_tokens_str(s[i].text);
        int most = s[i].cl100k > s[i].o200k ? s[i].cl100k : s[i].o200k;
        if ((int)t < most) FAIL("'%s': %zu tokens, under the tokenizers' %d", s[i].text, t, most);
        if ((int)t * 2 > most * 5 + 2) FAIL("'%s': %zu tokens, over 2.5 times the tokenizers' %d", s[i].text, t, most);
    }
    ASSERT_EQ_INT((int)mg_tokens_str(NULL), 0);
}
