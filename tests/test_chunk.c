/* test_chunk.c — chunks along definitions (index/chunk.h). */
#include "test.h"
#include "index/chunk.h"
#include "index/chunker.h"
#include "util/buf.h"

static struct mg_chunk_opts opts = {150, 12 * 1024, 0};

static void chunk(const char *lang, const char *text, size_t len, struct mg_parsed *p)
{
    TSParser *parser = ts_parser_new();
    const struct mg_lang *l = mg_lang_by_name(lang);
    if (!l) FAIL("no language %s", lang);
    if (mg_chunk_file(l, text, len, &opts, parser, p) != 0) FAIL("chunking failed");
    ts_parser_delete(parser);
    /* invariants: in order, within bounds, no overlap, nothing but blanks uncovered */
    size_t pos = 0;
    for (size_t i = 0; i < p->nchunks; i++) {
        const struct mg_chunk *c = &p->chunks[i];
        if (c->start_byte < pos || c->end_byte <= c->start_byte || c->end_byte > len)
            FAIL("chunk %zu [%u,%u) out of order or bounds (pos %zu, len %zu)", i, c->start_byte, c->end_byte, pos,
                 len);
        for (size_t k = pos; k < c->start_byte; k++)
            if (!strchr(" \t\r\n\f\v", text[k])) FAIL("byte %zu ('%c') is in no chunk", k, text[k]);
        if (c->start_line > c->end_line) FAIL("chunk %zu lines %u > %u", i, c->start_line, c->end_line);
        pos = c->end_byte;
    }
}

/* "name:kind:start-end" for each chunk, comma-separated. */
static char *describe(const struct mg_parsed *p)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < p->nchunks; i++) {
        const struct mg_chunk *c = &p->chunks[i];
        const struct mg_def *d = c->def >= 0 ? &p->defs.v[c->def] : NULL;
        mg_buf_addf(&b, "%s%s:%s:%u-%u", i ? "," : "", d ? d->name : "-", d ? d->kind : "-", c->start_line,
                    c->end_line);
    }
    return mg_buf_detach(&b, NULL);
}

TEST(chunk_c_functions_comments_macros)
{
    const char *src = "#include <stdio.h>\n"             /* 1 */
                      "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n" /* 2 */
                      "\n"                               /* 3 */
                      "/* Add two numbers. */\n"         /* 4 */
                      "static int add(int a, int b)\n"   /* 5 */
                      "{\n"                              /* 6 */
                      "    return a + b;\n"              /* 7 */
                      "}\n"                              /* 8 */
                      "\n"                               /* 9 */
                      "struct point { int x, y; };\n"    /* 10 */
                      "int main(void) { return add(1, 2); }\n"; /* 11 */
    struct mg_parsed p;
    chunk("c", src, strlen(src), &p);
    char *d = describe(&p);
    ASSERT_EQ_STR(d, "-:-:1-3,add:function:4-8,point:struct:10-10,main:function:11-11");
    free(d);
    /* symbols include the macro */
    int macro = 0;
    for (size_t i = 0; i < p.defs.n; i++)
        if (strcmp(p.defs.v[i].name, "MAX") == 0 && strcmp(p.defs.v[i].kind, "macro") == 0) macro = 1;
    ASSERT(macro);
    ASSERT_EQ_INT(p.nlines, 11);
    mg_parsed_release(&p);
}

/* Declarations are symbols but never chunks of their own: a header's
 * prototypes and variables lie in a window, a struct's fields and an enum's
 * enumerators in its chunk. The C outline parses struct and enum bodies, so
 * the fields and enumerators are there, with their containers. */
TEST(chunk_c_declarations_are_symbols_not_chunks)
{
    const char *src = "#ifndef SSL_H\n"                                   /* 1 */
                      "#define SSL_H\n"                                   /* 2 */
                      "SSL_CTX *SSL_CTX_new(const SSL_METHOD *meth);\n"   /* 3 */
                      "extern int ssl_debug;\n"                           /* 4 */
                      "\n"                                                /* 5 */
                      "struct ssl_st {\n"                                 /* 6 */
                      "    int version;\n"                                /* 7 */
                      "    union { long l; } u;\n"                        /* 8 */
                      "};\n"                                              /* 9 */
                      "enum ssl_state { SSL_ST_INIT, SSL_ST_OK };\n"      /* 10 */
                      "static const struct ops o = { .f = 1, .g = 2 };\n" /* 11 */
                      "#endif\n";                                         /* 12 */
    struct mg_parsed p;
    chunk("c", src, strlen(src), &p);
    char *d = describe(&p);
    ASSERT_EQ_STR(d, "-:-:1-5,ssl_st:struct:6-9,ssl_state:enum:10-10,-:-:11-12");
    free(d);
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < p.defs.n; i++) {
        const struct mg_def *v = &p.defs.v[i];
        mg_buf_addf(&b, "%s%s:%s:%s:%u-%u", i ? "," : "", v->name, v->kind, v->container ? v->container : "-",
                    p.def_lines[2 * i], p.def_lines[2 * i + 1]);
    }
    ASSERT_EQ_STR(b.p, "SSL_H:macro:-:2-2,SSL_CTX_new:prototype:-:3-3,ssl_debug:variable:-:4-4,"
                       "ssl_st:struct:-:6-9,version:field:ssl_st:7-7,u:field:ssl_st:8-8,l:field:u:8-8,"
                       "ssl_state:enum:-:10-10,SSL_ST_INIT:enumerator:ssl_state:10-10,"
                       "SSL_ST_OK:enumerator:ssl_state:10-10,o:variable:-:11-11");
    mg_buf_release(&b);
    mg_parsed_release(&p);
}

TEST(chunk_long_function_is_windowed)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    mg_buf_adds(&b, "int big(void)\n{\n");
    for (int i = 0; i < 400; i++) mg_buf_addf(&b, "    x += %d;\n", i);
    mg_buf_adds(&b, "}\n");
    struct mg_parsed p;
    chunk("c", b.p, b.len, &p);
    char *d = describe(&p);
    ASSERT_EQ_STR(d, "big:function:1-150,big:function:151-300,big:function:301-403");
    free(d);
    mg_parsed_release(&p);
    mg_buf_release(&b);
}

TEST(chunk_long_class_split_into_members)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    mg_buf_adds(&b, "class Big:\n    limit = 3\n\n");
    for (int m = 0; m < 4; m++) {
        mg_buf_addf(&b, "    def m%d(self):\n", m);
        for (int i = 0; i < 50; i++) mg_buf_addf(&b, "        self.v += %d\n", i);
        mg_buf_adds(&b, "\n");
    }
    struct mg_parsed p;
    chunk("python", b.p, b.len, &p);
    char *d = describe(&p);
    /* the class header window, then one chunk per method */
    ASSERT_EQ_STR(d, "Big:class:1-3,m0:method:4-54,m1:method:56-106,m2:method:108-158,m3:method:160-210");
    free(d);
    ASSERT_EQ_STR(p.defs.v[p.chunks[1].def].container, "Big");
    mg_parsed_release(&p);
    mg_buf_release(&b);
}

TEST(chunk_text_windows_and_long_lines)
{
    struct mg_buf b;
    mg_buf_init(&b, 1 << 22);
    for (int i = 0; i < 130; i++) mg_buf_addf(&b, "line %d\n", i);
    struct mg_parsed p;
    chunk("markdown", b.p, b.len, &p);
    char *d = describe(&p);
    ASSERT_EQ_STR(d, "-:-:1-60,-:-:61-120,-:-:121-130");
    free(d);
    mg_parsed_release(&p);

    /* one 100 KB line of 3-byte characters: cut under max_bytes, on boundaries */
    mg_buf_reset(&b);
    for (int i = 0; i < 34000; i++) mg_buf_adds(&b, "€");
    chunk("text", b.p, b.len, &p);
    ASSERT_GE_INT(p.nchunks, 9);
    for (size_t i = 0; i < p.nchunks; i++) {
        ASSERT(p.chunks[i].end_byte - p.chunks[i].start_byte <= opts.max_bytes);
        ASSERT_EQ_INT(p.chunks[i].start_byte % 3, 0);
        ASSERT_EQ_INT(p.chunks[i].start_line, 1);
    }
    mg_parsed_release(&p);
    mg_buf_release(&b);
}

/* Floods of one character once corrupted tree-sitter 0.20.7's heap (a node
 * with 65,535+ children); some still make any version crawl, which the parse
 * timeout ends. Every grammar must come back with chunks. */
TEST_T(chunk_hostile_input_every_grammar, 600)
{
    static const char *langs[] = {"c", "cpp", "go", "java", "javascript", "python", "rust", "typescript"};
    static const char fills[] = "{([)}]\"'";
    size_t n = 256 << 10;
    char *buf = malloc(n);
    struct mg_chunk_opts saved = opts;
    opts.parse_timeout_us = 500 * 1000;
    for (size_t l = 0; l < sizeof(langs) / sizeof(langs[0]); l++) {
        for (size_t f = 0; f < sizeof(fills) - 1; f++) {
            memset(buf, fills[f], n);
            struct mg_parsed p;
            chunk(langs[l], buf, n, &p);
            ASSERT_GE_INT(p.nchunks, 1);
            mg_parsed_release(&p);
        }
    }
    opts = saved;
    /* the tsx grammar too, through the path of a .tsx file */
    memset(buf, '(', n);
    struct mg_parsed p;
    TSParser *parser = ts_parser_new();
    ASSERT_EQ_INT(mg_chunk_file(mg_lang_for_path("a.tsx"), buf, n, &opts, parser, &p), 0);
    ASSERT_EQ_INT(p.parse_failed, 1);
    mg_parsed_release(&p);
    ts_parser_delete(parser);
    free(buf);
}

TEST(chunk_empty_and_tiny)
{
    struct mg_parsed p;
    chunk("c", "", 0, &p);
    ASSERT_EQ_INT(p.nchunks, 0);
    mg_parsed_release(&p);
    chunk("c", "\n\n\n", 3, &p);
    ASSERT_EQ_INT(p.nchunks, 0);
    mg_parsed_release(&p);
    chunk("go", "package x", 9, &p);
    ASSERT_EQ_INT(p.nchunks, 1);
    mg_parsed_release(&p);
}

/* ---- the chunker registry (index/chunker.h) ---- */

/* A chunker for markdown made by the test: every "# heading" line starts a
 * definition that runs to the next heading; "<!--" lines are comments. */
static int md_definitions(const struct mg_chunker *c, const struct mg_lang *lang, const char *text, size_t len,
                          const struct mg_chunk_opts *o, TSParser *parser, struct mg_defs *defs)
{
    struct mg_def_macro m[16];
    size_t n = 0;
    for (size_t i = 0; i < len && n < 16; i++) {
        if ((i == 0 || text[i - 1] == '\n') && text[i] == '#') {
            size_t s = i;
            while (s < len && (text[s] == '#' || text[s] == ' ')) s++;
            size_t e = s;
            while (e < len && text[e] != '\n') e++;
            if (n) m[n - 1].end = (uint32_t)i;
            m[n++] = (struct mg_def_macro){(uint32_t)i, (uint32_t)len, (uint32_t)s, (uint32_t)(e - s)};
        }
    }
    if (mg_defs_add_macros(defs, m, n, text) != 0) return -1;
    for (size_t i = 0; i < defs->n; i++) defs->v[i].kind = "section"; /* macros are never chunks of their own */
    return 0;
}

static bool md_comment(const struct mg_chunker *c, const char *s, size_t n) { return n >= 4 && !memcmp(s, "<!--", 4); }

TEST(chunker_registry_by_language)
{
    const struct mg_lang *md = mg_lang_by_name("markdown"), *c = mg_lang_by_name("c");
    ASSERT(mg_chunker_for(md) == NULL);          /* no chunker: line windows */
    ASSERT(mg_chunker_for(c) != NULL);           /* the built-in tree-sitter one */
    ASSERT_EQ_STR(mg_chunker_for(c)->name, "tree-sitter");
    static const struct mg_chunker_ops ops = {md_definitions, md_comment};
    static const struct mg_chunker mdc = {"test-markdown", &ops, NULL};
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_chunker_register("klingon", &mdc, &err), -1);
    ASSERT_EQ_STR(err.code, "invalid_language");
    ASSERT_EQ_INT(mg_chunker_register("md", &mdc, &err), 0); /* by any of the language's names */
    ASSERT(mg_chunker_for(md) == &mdc);
    const char *text = "intro line\n<!-- about setup -->\n# Setup\nrun make\n\n# Usage\nrun memgate\n";
    struct mg_parsed p;
    chunk("markdown", text, strlen(text), &p);
    char *d = describe(&p);
    /* the heading chunks, the comment above "Setup" joined to it */
    ASSERT_EQ_STR(d, "-:-:1-1,Setup:section:2-5,Usage:section:6-7");
    free(d);
    mg_parsed_release(&p);
    ASSERT_EQ_INT(mg_chunker_register("markdown", NULL, &err), 0); /* back to windows */
    ASSERT(mg_chunker_for(md) == NULL);
}
