/* fuzz_nav_lex.c — the navigation lexer (search/nav.c) on hostile input: the
 * first byte picks a language family, the rest is the text (not
 * NUL-terminated, so ASan sees any read past it). Every identifier reported
 * lies inside the text, starts with a letter, `_`, `$` or a UTF-8 byte, and
 * lines never go backwards. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "search/nav.h"

struct seen {
    size_t n;
    int line;
};

static int check(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct seen *s = ud;
    unsigned char c = (unsigned char)t[off];
    if (len == 0 || off + len > s->n || line < s->line || line < 1) abort();
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80)) abort();
    s->line = line;
    (void)call;
    return 0;
}

MG_FUZZ_TARGET(nav_lex)
{
    static const char *const langs[] = {"c", "go", "rust", "javascript", "php", "python", "shell", "lua", "text"};
    if (size < 1) return 0;
    const char *lang = langs[data[0] % (sizeof(langs) / sizeof(langs[0]))];
    char *text = malloc(size - 1 ? size - 1 : 1); /* exact size */
    memcpy(text, data + 1, size - 1);
    struct seen s = {size - 1, 1};
    mg_nav_lex(lang, text, size - 1, check, &s);
    free(text);
    return 0;
}
