/* lex.c — identifiers outside comments and strings, per language family
 * (see lex.h). */
#include "index/lex.h"

#include <string.h>

enum fam {
    F_NONE,
    F_C,    /* C, C++, Java, Go, Rust, C#, Kotlin, Swift, Scala, Zig, protobuf, Dart, Groovy, Solidity,
             * Objective-C, F#: // and block comments */
    F_JS,   /* JavaScript, TypeScript, PHP: the same, and '...' strings and `...${code}...` templates */
    F_PY,   /* Python: #, '...', "...", triple quotes, string prefixes */
    F_HASH, /* Ruby, shell, Perl, R, make, CMake, awk, Elixir, Julia, PowerShell, HCL, Nim: # comments */
    F_LUA,  /* Lua: -- and --[[ ]]; Haskell, SQL: -- */
};

static enum fam family(const char *lang)
{
    static const char *const c[] = {"c", "cpp", "java", "go", "rust", "csharp", "kotlin", "swift", "scala", "zig",
                                    "protobuf", "dart", "groovy", "solidity", "objc", "fsharp", NULL};
    static const char *const js[] = {"javascript", "typescript", "php", NULL};
    static const char *const hash[] = {"ruby", "shell",  "perl",       "r",   "make", "cmake",
                                       "awk",  "elixir", "julia", "powershell", "hcl",  "nim",   NULL};
    if (!lang) return F_NONE;
    for (size_t i = 0; c[i]; i++)
        if (strcmp(lang, c[i]) == 0) return F_C;
    for (size_t i = 0; js[i]; i++)
        if (strcmp(lang, js[i]) == 0) return F_JS;
    for (size_t i = 0; hash[i]; i++)
        if (strcmp(lang, hash[i]) == 0) return F_HASH;
    if (strcmp(lang, "python") == 0) return F_PY;
    if (strcmp(lang, "lua") == 0 || strcmp(lang, "haskell") == 0 || strcmp(lang, "sql") == 0) return F_LUA;
    return F_NONE;
}

static inline bool id_start(unsigned char c, enum fam f)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 || (c == '$' && f == F_JS);
}
static inline bool id_char(unsigned char c, enum fam f)
{
    return id_start(c, f) || (c >= '0' && c <= '9') || (c == '$' && f == F_JS);
}

struct lexer {
    const char *t;
    size_t n, i;
    int line;
};

/* Skip to the end of the line (the newline itself is left). */
static void skip_eol(struct lexer *x)
{
    const char *nl = memchr(x->t + x->i, '\n', x->n - x->i);
    x->i = nl ? (size_t)(nl - x->t) : x->n;
}

/* Skip past the first occurrence of end (counting lines), or to the end. */
static void skip_past(struct lexer *x, const char *end)
{
    size_t el = strlen(end);
    while (x->i < x->n) {
        if (x->t[x->i] == '\n') x->line++;
        if (x->i + el <= x->n && memcmp(x->t + x->i, end, el) == 0) {
            x->i += el;
            return;
        }
        x->i++;
    }
}

/* A backslash and the byte after it (a line it continues counts): true when
 * the lexer stood on one. */
static inline bool skip_escape(struct lexer *x)
{
    if (x->t[x->i] != '\\') return false;
    if (x->i + 1 < x->n && x->t[x->i + 1] == '\n') x->line++;
    x->i += 2;
    return true;
}

/* A quoted string from its opening quote q; multi: may span lines. */
static void skip_string(struct lexer *x, char q, bool multi)
{
    x->i++;
    while (x->i < x->n) {
        if (skip_escape(x)) continue;
        char c = x->t[x->i];
        if (c == '\n') {
            if (!multi) return; /* unterminated: the line ends it */
            x->line++;
        }
        x->i++;
        if (c == q) return;
    }
}

/* C-family '...': a character literal ('a', '\n', '\x41'), else a lone quote
 * (a Rust lifetime, an apostrophe in a macro) that is skipped alone. */
static void skip_char(struct lexer *x)
{
    size_t i = x->i + 1;
    if (i < x->n && x->t[i] == '\\') {
        for (size_t k = i + 2; k < x->n && k < i + 12 && x->t[k] != '\n'; k++)
            if (x->t[k] == '\'') {
                x->i = k + 1;
                return;
            }
    } else if (i + 1 < x->n && x->t[i] != '\n' && x->t[i + 1] == '\'') {
        x->i = i + 2;
        return;
    } else if (i < x->n && (unsigned char)x->t[i] >= 0x80) { /* a UTF-8 character */
        for (size_t k = i + 1; k < x->n && k < i + 5; k++)
            if (x->t[k] == '\'') {
                x->i = k + 1;
                return;
            }
    }
    x->i++;
}

/* JavaScript and TypeScript templates: their text is no code, the ${...}
 * substitutions in it are (`${escapeRegex(s)}`), and may hold templates in
 * turn. n templates are open around the lexer's position, and braces[k] is
 * how many { are still open in the substitution of template k; past
 * TPL_DEPTH nested substitutions a ${ is read as text. */
#define TPL_DEPTH 16
struct tpl {
    int n;
    unsigned braces[TPL_DEPTH];
};

/* Template text from just past its ` or the } ending a substitution: to past
 * the closing `, or to past the ${ of a substitution (opened in tp). */
static void skip_template(struct lexer *x, struct tpl *tp)
{
    while (x->i < x->n) {
        if (skip_escape(x)) continue;
        char c = x->t[x->i];
        if (c == '\n') x->line++;
        x->i++;
        if (c == '`') return;
        if (c == '$' && x->i < x->n && x->t[x->i] == '{' && tp->n < TPL_DEPTH) {
            x->i++;
            tp->braces[tp->n++] = 0;
            return;
        }
    }
}

bool mg_lex(const char *lang, const char *text, size_t len, mg_lex_cb cb, void *ud)
{
    enum fam f = family(lang);
    if (f == F_NONE) return false;
    struct lexer x = {text, len, 0, 1};
    struct tpl tp = {0};
    bool bol = true; /* only blanks since the line began */
    while (x.i < x.n) {
        unsigned char c = (unsigned char)x.t[x.i];
        if (c == '\n') {
            x.line++;
            x.i++;
            bol = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            x.i++;
            continue;
        }
        bool at_bol = bol;
        bol = false;
        char n1 = x.i + 1 < x.n ? x.t[x.i + 1] : 0;
        if ((f == F_C || f == F_JS) && c == '/' && n1 == '/') {
            skip_eol(&x);
        } else if ((f == F_C || f == F_JS) && c == '/' && n1 == '*') {
            x.i += 2;
            skip_past(&x, "*/");
        } else if ((f == F_PY || f == F_HASH) && c == '#') {
            skip_eol(&x);
        } else if (f == F_LUA && c == '-' && n1 == '-') {
            if (x.i + 3 < x.n && x.t[x.i + 2] == '[' && x.t[x.i + 3] == '[') {
                x.i += 4;
                skip_past(&x, "]]");
            } else {
                skip_eol(&x);
            }
        } else if (f == F_C && c == '#' && at_bol) {
            /* a preprocessor directive: its word is no identifier; an include's file name is no use */
            x.i++;
            while (x.i < x.n && (x.t[x.i] == ' ' || x.t[x.i] == '\t')) x.i++;
            size_t w = x.i;
            while (x.i < x.n && id_char((unsigned char)x.t[x.i], f)) x.i++;
            size_t wl = x.i - w;
            if ((wl == 7 && memcmp(x.t + w, "include", 7) == 0) || (wl == 6 && memcmp(x.t + w, "import", 6) == 0) ||
                (wl == 12 && memcmp(x.t + w, "include_next", 12) == 0) || (wl == 5 && memcmp(x.t + w, "error", 5) == 0) ||
                (wl == 7 && memcmp(x.t + w, "warning", 7) == 0) || (wl == 6 && memcmp(x.t + w, "pragma", 6) == 0))
                skip_eol(&x);
        } else if (c == '"') {
            if (f == F_PY && n1 == '"' && x.i + 2 < x.n && x.t[x.i + 2] == '"') {
                x.i += 3;
                skip_past(&x, "\"\"\"");
            } else {
                skip_string(&x, '"', f != F_C && f != F_JS && f != F_PY);
            }
        } else if (c == '\'') {
            if (f == F_PY && n1 == '\'' && x.i + 2 < x.n && x.t[x.i + 2] == '\'') {
                x.i += 3;
                skip_past(&x, "'''");
            } else if (f == F_C) {
                skip_char(&x);
            } else {
                skip_string(&x, '\'', f == F_HASH);
            }
        } else if (c == '`' && f == F_JS) {
            x.i++;
            skip_template(&x, &tp);
        } else if (c == '{' && tp.n > 0) {
            tp.braces[tp.n - 1]++;
            x.i++;
        } else if (c == '}' && tp.n > 0) {
            x.i++;
            if (tp.braces[tp.n - 1] > 0) {
                tp.braces[tp.n - 1]--;
            } else { /* the substitution ends: back in its template's text */
                tp.n--;
                skip_template(&x, &tp);
            }
        } else if (c == '`' && ((f == F_C && strcmp(lang, "go") == 0) || f == F_HASH)) {
            x.i++;
            skip_past(&x, "`");
        } else if (c >= '0' && c <= '9') {
            while (x.i < x.n && (id_char((unsigned char)x.t[x.i], f) || x.t[x.i] == '.')) x.i++;
        } else if (id_start(c, f)) {
            size_t s = x.i;
            while (x.i < x.n && id_char((unsigned char)x.t[x.i], f)) x.i++;
            size_t l = x.i - s;
            /* Python string prefixes: r"...", b'...', f"...", rb"..." */
            if (f == F_PY && l <= 2 && x.i < x.n && (x.t[x.i] == '"' || x.t[x.i] == '\'') &&
                strspn(x.t + s, "rRbBfFuU") >= l)
                continue;
            size_t j = x.i;
            while (j < x.n && (x.t[j] == ' ' || x.t[j] == '\t')) j++;
            bool call = j < x.n && (x.t[j] == '(' || (f == F_C && x.t[j] == '!' && j + 1 < x.n && x.t[j + 1] == '('));
            if (cb(ud, x.t, s, l, x.line, call)) return true;
        } else {
            x.i++;
        }
    }
    return true;
}

bool mg_lex_known(const char *lang) { return family(lang) != F_NONE; }

bool mg_lex_id_char(unsigned char c) { return id_char(c, F_JS); }
