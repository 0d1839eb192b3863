/* fuzz_nav_lex.c — the navigation lexer (search/nav.c) on hostile input: the
 * first byte picks a language family, the rest is the text (not
 * NUL-terminated, so ASan sees any read past it). Every identifier reported
 * lies inside the text, starts with a letter, `_`, `$` or a UTF-8 byte, and
 * lines never go backwards. The same text read for its imports
 * (search/navimport.h): every pattern is short, has no "." or ".." part,
 * and matching it against a path stays inside both strings. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "search/nav.h"
#include "search/navimport.h"

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

static int check_import(void *ud, enum mg_nav_imp how, const char *p)
{
    size_t n = strlen(p);
    if (n == 0 && how != MG_NAV_IMP_DIR) abort();
    if (n >= MG_NAV_IMPORT_PATH_MAX) abort();
    for (const char *c = p; *c;) { /* each part */
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.')) abort();
        c += l + (e ? 1 : 0);
    }
    (void)mg_nav_import_matches(how, p, (const char *)ud);
    (void)mg_nav_import_matches(how, p, "");
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
    static const char *const ilangs[] = {"c", "cpp", "python", "javascript", "typescript", "go", "java", "rust"};
    static const char *const paths[] = {"a.c", "src/pkg/mod.rs", "src/lib.rs", "x/y/z/file.py", "noext"};
    const char *path = paths[(data[0] / 16) % (sizeof(paths) / sizeof(paths[0]))];
    mg_nav_imports(ilangs[data[0] % (sizeof(ilangs) / sizeof(ilangs[0]))], path, text, size - 1, check_import,
                   (void *)path);
    free(text);
    return 0;
}
