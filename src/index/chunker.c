/* chunker.c — the chunker registry and the built-in tree-sitter chunkers
 * (chunker.h). */
#include "index/chunker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index/outline.h"

/* ---- the tree-sitter chunker ---- */

/* How a comment line starts. */
enum comments {
    C_SLASH,     /* // or a block comment's line: C, C++ */
    C_SLASH_AT,  /* the same, and @annotations or @decorators: Go, Java, JavaScript, TypeScript */
    C_HASH,      /* #: Python */
    C_RUST,      /* // or a block comment's line, and #[attributes] */
    C_DASH,      /* --: Lua, Haskell, SQL */
    C_SEMI,      /* ;: Emacs Lisp */
    C_ML,        /* (* ... *): OCaml, and // for F# */
    C_PERCENT,   /* %: Erlang */
};

static bool parse_safe(const char *s, size_t n);

struct ts_settings {
    bool outline;            /* parse with bodies elided (outline.h) */
    unsigned outline_flags;  /* MG_OUTLINE_* */
    enum comments comments;
};

/* tree-sitter 0.20.7 corrupts its heap when error recovery lumps 65,535 or
 * more nodes under one ERROR node, which long runs of unclosed brackets
 * cause (1 MB of '{' does it in every grammar). Such text is no code worth
 * a syntax tree: refuse it before parsing. */
#define BRACKET_LIMIT 8192

static bool parse_safe(const char *s, size_t n)
{
    long open[3] = {0}, depth = 0, maxdepth = 0;
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '(': open[0]++; depth++; break;
        case '[': open[1]++; depth++; break;
        case '{': open[2]++; depth++; break;
        case ')': open[0]--; depth--; break;
        case ']': open[1]--; depth--; break;
        case '}': open[2]--; depth--; break;
        default: continue;
        }
        if (depth > maxdepth) maxdepth = depth;
    }
    for (int k = 0; k < 3; k++)
        if (open[k] > BRACKET_LIMIT || open[k] < -BRACKET_LIMIT) return false;
    return maxdepth <= BRACKET_LIMIT;
}

/* Parse (the outline, for the C family) and extract definitions with
 * source offsets. */
static int ts_definitions(const struct mg_chunker *c, const struct mg_lang *lang, const char *text, size_t len,
                          const struct mg_chunk_opts *o, TSParser *parser, struct mg_defs *defs)
{
    const struct ts_settings *t = c->self;
    if (!lang->grammar || !parser) return 0; /* nothing to parse with: windows, not a failure */
    struct mg_outline ol = {0};
    const char *src = text;
    size_t slen = len;
    if (t->outline) {
        if (mg_outline_build(text, len, t->outline_flags, &ol) != 0) return -1;
        src = ol.text;
        slen = ol.len;
    }
    int rc = 0;
    if (!parse_safe(src, slen) || !ts_parser_set_language(parser, lang->grammar())) {
        rc = 1;
        goto out;
    }
    ts_parser_set_timeout_micros(parser, o->parse_timeout_us);
    TSTree *tree = ts_parser_parse_string(parser, NULL, src, (uint32_t)slen);
    if (!tree) {
        ts_parser_reset(parser);
        rc = 1;
        goto out;
    }
    rc = mg_defs_extract(lang, ts_tree_root_node(tree), src, slen, defs);
    bool errors = ts_node_has_error(ts_tree_root_node(tree));
    ts_tree_delete(tree);
    /* a tree with errors that found fewer definitions than the language's line rules (defs_lines.c): those */
    struct mg_defs ld;
    if (rc == 0 && errors && !t->outline && mg_defs_lines_known(lang) && mg_defs_lines(lang, text, len, &ld) == 0) {
        if (ld.n > defs->n) {
            mg_defs_release(defs);
            *defs = ld;
        } else mg_defs_release(&ld);
    }
    if (rc == 0 && t->outline) {
        for (size_t i = 0; i < defs->n; i++) {
            struct mg_def *d = &defs->v[i];
            d->start = mg_outline_to_src(&ol, d->start);
            d->end = mg_outline_end_to_src(&ol, d->end);
            if (d->end > len) d->end = (uint32_t)len;
            if (d->start > d->end) d->start = d->end;
        }
        /* the #defines the outline listed instead of parsing */
        if (ol.nmacros) {
            struct mg_def_macro *m = malloc(ol.nmacros * sizeof(*m));
            if (!m) {
                rc = -1;
                goto out;
            }
            for (size_t i = 0; i < ol.nmacros; i++)
                m[i] = (struct mg_def_macro){ol.macros[i].start, ol.macros[i].end, ol.macros[i].name, ol.macros[i].nlen};
            rc = mg_defs_add_macros(defs, m, ol.nmacros, text);
            free(m);
        }
    }
out:
    mg_outline_release(&ol);
    return rc;
}


static bool ts_comment_line(const struct mg_chunker *c, const char *s, size_t n)
{
    const struct ts_settings *t = c->self;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= n) return false;
    const char *p = s + i;
    size_t r = n - i;
    bool slash = (r >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*')) || p[0] == '*';
    switch (t->comments) {
    case C_HASH: return p[0] == '#';
    case C_DASH: return r >= 2 && p[0] == '-' && p[1] == '-';
    case C_SEMI: return p[0] == ';';
    case C_ML: return (r >= 2 && p[0] == '(' && p[1] == '*') || (r >= 2 && p[0] == '/' && p[1] == '/');
    case C_PERCENT: return p[0] == '%';
    case C_RUST: return slash || (r >= 2 && p[0] == '#' && p[1] == '[');
    case C_SLASH_AT: return slash || p[0] == '@';
    case C_SLASH: break;
    }
    return slash;
}

static const struct mg_chunker_ops ts_ops = {ts_definitions, ts_comment_line};

/* ---- the line chunker and the single-file components ---- */

/* Erlang, Nim, protobuf: no usable grammar, definitions line by line. */
static int lines_definitions(const struct mg_chunker *c, const struct mg_lang *lang, const char *text, size_t len,
                             const struct mg_chunk_opts *o, TSParser *parser, struct mg_defs *defs)
{
    return mg_defs_lines(lang, text, len, defs);
}

/* The first <script> element's body of a Vue or Svelte component, and
 * whether it says lang="ts". False if there is none. */
static bool sfc_script(const char *s, size_t n, size_t *from, size_t *to, bool *ts)
{
    const char *open = memmem(s, n, "<script", 7);
    if (!open) return false;
    const char *gt = memchr(open, '>', n - (size_t)(open - s));
    if (!gt) return false;
    const char *close = memmem(gt, n - (size_t)(gt - s), "</script>", 9);
    if (!close) return false;
    *ts = memmem(open, (size_t)(gt - open), "lang=\"ts\"", 9) || memmem(open, (size_t)(gt - open), "lang='ts'", 9);
    *from = (size_t)(gt + 1 - s);
    *to = (size_t)(close - s);
    return true;
}

/* Vue and Svelte: the definitions of the script, parsed as TypeScript or
 * JavaScript, at their offsets in the component. */
static int sfc_definitions(const struct mg_chunker *c, const struct mg_lang *lang, const char *text, size_t len,
                           const struct mg_chunk_opts *o, TSParser *parser, struct mg_defs *defs)
{
    size_t from, to;
    bool ts;
    if (!parser || !sfc_script(text, len, &from, &to, &ts)) return 0;
    const struct mg_lang *sl = mg_lang_by_id(ts ? MG_LANG_TYPESCRIPT : MG_LANG_JAVASCRIPT);
    if (!parse_safe(text + from, to - from) || !ts_parser_set_language(parser, sl->grammar())) return 1;
    ts_parser_set_timeout_micros(parser, o->parse_timeout_us);
    TSTree *tree = ts_parser_parse_string(parser, NULL, text + from, (uint32_t)(to - from));
    if (!tree) {
        ts_parser_reset(parser);
        return 1;
    }
    int rc = mg_defs_extract(sl, ts_tree_root_node(tree), text + from, to - from, defs);
    ts_tree_delete(tree);
    for (size_t i = 0; rc == 0 && i < defs->n; i++) {
        defs->v[i].start += (uint32_t)from;
        defs->v[i].end += (uint32_t)from;
    }
    return rc;
}

static const struct mg_chunker_ops lines_ops = {lines_definitions, ts_comment_line};
static const struct mg_chunker_ops sfc_ops = {sfc_definitions, ts_comment_line};

/* (C parses struct, union and enum bodies too, without MG_OUTLINE_C: their
 * fields and enumerators are definitions) */
static const struct ts_settings s_c = {true, MG_OUTLINE_MACROS, C_SLASH};
static const struct ts_settings s_cpp = {true, MG_OUTLINE_MACROS, C_SLASH};
static const struct ts_settings s_java = {true, 0, C_SLASH_AT};
static const struct ts_settings s_at = {false, 0, C_SLASH_AT};
static const struct ts_settings s_python = {false, 0, C_HASH};
static const struct ts_settings s_rust = {false, 0, C_RUST};
static const struct ts_settings s_slash = {false, 0, C_SLASH};
static const struct ts_settings s_hash = {false, 0, C_HASH};
static const struct ts_settings s_dash = {false, 0, C_DASH};
static const struct ts_settings s_semi = {false, 0, C_SEMI};
static const struct ts_settings s_ml = {false, 0, C_ML};

static const struct mg_chunker ts_c = {"tree-sitter", &ts_ops, &s_c}, ts_cpp = {"tree-sitter", &ts_ops, &s_cpp},
                                ts_java = {"tree-sitter", &ts_ops, &s_java}, ts_at = {"tree-sitter", &ts_ops, &s_at},
                                ts_python = {"tree-sitter", &ts_ops, &s_python},
                                ts_rust = {"tree-sitter", &ts_ops, &s_rust},
                                ts_slash = {"tree-sitter", &ts_ops, &s_slash},
                                ts_hash = {"tree-sitter", &ts_ops, &s_hash},
                                ts_dash = {"tree-sitter", &ts_ops, &s_dash},
                                ts_semi = {"tree-sitter", &ts_ops, &s_semi}, ts_ml = {"tree-sitter", &ts_ops, &s_ml};
static const struct ts_settings s_percent = {false, 0, C_PERCENT};
static const struct mg_chunker lines_slash = {"lines", &lines_ops, &s_slash},
                                lines_hash = {"lines", &lines_ops, &s_hash},
                                lines_percent = {"lines", &lines_ops, &s_percent},
                                lines_dash = {"lines", &lines_ops, &s_dash},
                                sfc = {"sfc", &sfc_ops, &s_slash};

/* ---- the registry ---- */

#define REGISTRY_MAX 64

static struct {
    const char *lang;
    const struct mg_chunker *c;
} registry[REGISTRY_MAX] = {
    {"c", &ts_c},       {"cpp", &ts_cpp},       {"java", &ts_java},   {"go", &ts_at},
    {"javascript", &ts_at}, {"typescript", &ts_at}, {"python", &ts_python}, {"rust", &ts_rust},
    {"csharp", &ts_slash}, {"kotlin", &ts_at},     {"swift", &ts_at},    {"scala", &ts_at},
    {"dart", &ts_at},      {"groovy", &ts_at},     {"solidity", &ts_slash}, {"zig", &ts_slash},
    {"php", &ts_slash},    {"objc", &ts_at},       {"css", &ts_slash},   {"fsharp", &ts_ml},
    {"ocaml", &ts_ml},     {"ruby", &ts_hash},     {"shell", &ts_hash},  {"perl", &ts_hash},
    {"r", &ts_hash},       {"elixir", &ts_hash},   {"julia", &ts_hash},  {"powershell", &ts_hash},
    {"make", &ts_hash},    {"hcl", &ts_hash},      {"lua", &ts_dash},    {"haskell", &ts_dash},
    {"elisp", &ts_semi},   {"sql", &lines_dash},
    {"protobuf", &lines_slash}, {"nim", &lines_hash}, {"erlang", &lines_percent},
    {"vue", &sfc},         {"svelte", &sfc},
};
static size_t nregistry = 39;
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;

const struct mg_chunker *mg_chunker_for(const struct mg_lang *lang)
{
    const struct mg_chunker *c = NULL;
    pthread_rwlock_rdlock(&registry_lock);
    for (size_t i = 0; i < nregistry && !c; i++)
        if (strcmp(registry[i].lang, lang->name) == 0) c = registry[i].c;
    pthread_rwlock_unlock(&registry_lock);
    return c;
}

int mg_chunker_register(const char *lang, const struct mg_chunker *c, struct mg_err *err)
{
    const struct mg_lang *l = mg_lang_by_name(lang);
    if (!l) return mg_err_set(err, MG_E_BAD_LANG, "unknown language '%s'; no chunker registered", lang);
    int rc = 0;
    pthread_rwlock_wrlock(&registry_lock);
    size_t i = 0;
    while (i < nregistry && strcmp(registry[i].lang, l->name) != 0) i++;
    if (i == nregistry && nregistry == REGISTRY_MAX) rc = mg_err_set(err, MG_E_BAD_LANG, "too many chunkers");
    else {
        registry[i].lang = l->name;
        registry[i].c = c;
        if (i == nregistry) nregistry++;
    }
    pthread_rwlock_unlock(&registry_lock);
    return rc;
}
