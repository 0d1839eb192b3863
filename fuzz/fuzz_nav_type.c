/* fuzz_nav_type.c — the receiver-type and dispatch parsers of navigation
 * (search/nav_type.c, search/nav_dispatch.c) and the standard-library
 * import reader (search/nav_stdlib.c; the bare-name check, mg_nav_py_unbound_of,
 * at the text's first 64 lower-case words, in a function `f` spanning the
 * text whose parameters and locals are read; that function's decorators and
 * return annotation, mg_nav_py_def_of) on hostile input: the first
 * byte picks a language, the rest is the text (not NUL-terminated, so ASan
 * sees any read past it). The Python bindings of those names too
 * (mg_nav_py_binds_of: comprehensions, lambdas, loops, assignments), each
 * expression's range inside the text and each type text shorter than its
 * buffer, whose elements are read (mg_nav_py_elem_of). The receiver's type is asked at every member call
 * (a name after `.` or `->`), as `self`'s class too; the bases of a type
 * named by the text's first identifier, declared on each of its first lines.
 * Every type found is a non-empty identifier shorter than its buffer, and
 * every base one too. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "search/nav.h"

static bool ident(const char *s)
{
    if (!*s) return false;
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (!((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '$' ||
              u >= 0x80))
            return false;
    }
    return true;
}

static void check_bind(void *ud, int how, size_t lo, size_t hi, const char *ty)
{
    size_t n = *(const size_t *)ud;
    if (lo > hi || hi > n || strlen(ty) >= 128 || how < 0 || how > 3) abort();
    static const char *const ops[] = {"[]", "in", "[:]", "items", "keys", "values", "get", "pop", "copy", "split"};
    char out[128], small[8];
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && ty[0]; i++) {
        if (mg_nav_py_elem_of(ty, ops[i], (long)i - 2, out, sizeof(out)) && strlen(out) >= sizeof(out)) abort();
        if (mg_nav_py_elem_of(ty, ops[i], 1, small, sizeof(small)) && strlen(small) >= sizeof(small)) abort();
    }
}

static void check_base(void *ud, const char *b)
{
    (void)ud;
    if (!ident(b) || strlen(b) >= 128) abort();
}

MG_FUZZ_TARGET(nav_type)
{
    static const char *const langs[] = {"go",     "java", "csharp", "kotlin", "typescript",
                                        "python", "cpp",  "rust",   "ruby",   "c"};
    if (size < 1) return 0;
    const char *lang = langs[data[0] % (sizeof(langs) / sizeof(langs[0]))];
    size_t n = size - 1 > 65536 ? 65536 : size - 1;
    char *text = malloc(n ? n : 1); /* exact size */
    memcpy(text, data + 1, n);
    char out[128];
    size_t calls = 0;
    for (size_t i = 1; i < n && calls < 256; i++) {
        bool member = text[i - 1] == '.' || (i > 1 && text[i - 1] == '>' && text[i - 2] == '-');
        if (!member) continue;
        calls++;
        if (mg_nav_receiver_of(lang, text, n, NULL, i, out, sizeof(out)) && (!ident(out) || strlen(out) >= sizeof(out)))
            abort();
        if (mg_nav_receiver_of(lang, text, n, "Self", i, out, 8) && strlen(out) >= 8) abort();
        (void)mg_nav_receiver_stdlib_of(lang, text, n, i); /* the imports' reader: no read past the text */
    }
    /* bare Python names: the imports' reader in its any-module mode */
    for (size_t i = 0, names = 0; i < n && names < 64; i++) {
        bool start = (text[i] >= 'a' && text[i] <= 'z') || text[i] == '_';
        if (!start || (i > 0 && ((text[i - 1] >= 'a' && text[i - 1] <= 'z') || text[i - 1] == '_'))) continue;
        size_t k = i;
        while (k < n && ((text[k] >= 'a' && text[k] <= 'z') || text[k] == '_')) k++;
        names++;
        (void)mg_nav_py_unbound_of(text, n, i, k - i);
        if (mg_nav_py_binds_of(text, n, i, k - i, check_bind, &n) > 4) abort();
    }
    /* a Python function `f`: its decorators and its `-> T` */
    bool prop;
    if (mg_nav_py_def_of(text, n, &prop, out, sizeof(out)) && (!ident(out) || strlen(out) >= sizeof(out))) abort();
    char name[64] = "T";
    size_t s = 0;
    while (s < n && !((text[s] >= 'A' && text[s] <= 'Z') || (text[s] >= 'a' && text[s] <= 'z') || text[s] == '_')) s++;
    size_t e = s;
    while (e < n && e - s < sizeof(name) - 1 &&
           ((text[e] >= 'A' && text[e] <= 'Z') || (text[e] >= 'a' && text[e] <= 'z') || text[e] == '_' ||
            (text[e] >= '0' && text[e] <= '9')))
        e++;
    if (e > s) {
        memcpy(name, text + s, e - s);
        name[e - s] = 0;
    }
    for (int line = 1; line <= 4; line++)
        if (mg_nav_bases(lang, text, n, name, line, check_base, NULL) > 16) abort();
    free(text);
    return 0;
}
