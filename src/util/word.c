/* word.c — see word.h. */
#include "util/word.h"

#include <string.h>

bool mg_word_okn(const char *s, size_t n, size_t max, bool lead)
{
    if (!s || n < 1 || n > max) return false;
    if (lead && !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9'))) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) return false;
    }
    return true;
}

bool mg_word_ok(const char *s, size_t max) { return s && mg_word_okn(s, strnlen(s, max + 1), max, false); }
