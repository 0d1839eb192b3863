/* test_nav.c — references, callers, callees and call paths (search/nav.h)
 * on a small repo indexed by the CLI, with exact expected results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "search/nav.h"
#include "store/catalog.h"
#include "util/config.h"

static const char A_C[] = "#include \"b.h\"\n"                                   /* 1 */
                          "/* helper(0) in a comment is no call */\n"            /* 2 */
                          "static int helper(int x)\n"                           /* 3 */
                          "{\n"                                                  /* 4 */
                          "\treturn x + 1;\n"                                    /* 5 */
                          "}\n"                                                  /* 6 */
                          "\n"                                                   /* 7 */
                          "int entry(void)\n"                                    /* 8 */
                          "{\n"                                                  /* 9 */
                          "\tconst char *s = \"helper(1) in a \\\"string\";\n"   /* 10 */
                          "\tchar q = '\\'';\n"                                  /* 11 */
                          "\treturn helper(2) + middle(3) + (s != 0) + q;\n"     /* 12 */
                          "}\n";                                                 /* 13 */

static const char B_C[] = "int leaf(int y) { return y * 2; }\n"                            /* 1 */
                          "int middle(int z)\n"                                          /* 2 */
                          "{\n"                                                          /* 3 */
                          "\treturn leaf(z) + helper(z); // helper: this file's own\n"   /* 4 */
                          "}\n"                                                          /* 5 */
                          "static int helper(int q) { return q; }\n"                     /* 6 */
                          "int recurse(int n) { return n ? recurse(n - 1) : leaf(n); }\n"; /* 7 */

static const char C_PY[] = "def leaf_py():\n"              /* 1 */
                           "    return 1\n"                /* 2 */
                           "class K:\n"                    /* 3 */
                           "    def m(self):\n"            /* 4 */
                           "        return leaf_py()\n"    /* 5 */
                           "# leaf_py() in a comment\n"    /* 6 */
                           "s = \"leaf_py()\"\n"           /* 7 */
                           "t = leaf_py\n";                /* 8 */

struct env {
    struct mg_config cfg;
    struct mg_db *d;
    char *repo, *home;
};

static void open_env(struct env *e)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    e->repo = repo;
    e->home = home;
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "src/a.c", A_C);
    mg_t_write_str(repo, "src/b.c", B_C);
    mg_t_write_str(repo, "py/c.py", C_PY);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "nav", "--json", NULL}));
    struct mg_err err = {0};
    if (mg_config_load(&e->cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"nav"};
    if (mg_catalog_resolve(&e->cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
    free(rv);
}

/* "path:line:call:in" for each reference, joined by spaces. */
static char *refs_str(const struct mg_nav_refs *r)
{
    static char b[4096];
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < r->n; i++)
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s:%d:%s:%s", i ? " " : "", r->v[i].path, r->v[i].line,
                              r->v[i].call ? "call" : "use", r->v[i].in ? r->v[i].in->name : "-");
    return b;
}

/* "depth:from@line->to(confidence)" for each edge. */
static char *edges_str(const struct mg_nav_graph *g)
{
    static char b[4096];
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct mg_nav_edge *e = &g->v[i];
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%d:%s@%d->%s:%s(%s)", i ? " " : "", e->depth, e->from->name,
                              e->line, e->to ? e->to->path : "?", e->callee, e->confidence);
    }
    return b;
}

TEST(nav_references_skip_comments_strings_and_definitions)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_nav_refs r;
    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "helper", NULL, 100, 0, &r, &err), 0);
    ASSERT_EQ_INT(r.ndefs, 2); /* a.c and b.c each define a static helper */
    ASSERT_EQ_STR(r.defs[0].path, "src/a.c");
    ASSERT_EQ_INT(r.defs[0].start_line, 3);
    ASSERT_EQ_STR(refs_str(&r), "src/a.c:12:call:entry src/b.c:4:call:middle");
    ASSERT_EQ_INT(r.total, 2);
    ASSERT_EQ_INT(r.files, 2);
    ASSERT_EQ_STR(r.v[0].text, "return helper(2) + middle(3) + (s != 0) + q;");
    mg_nav_refs_release(&r);

    /* Python: a method's call, a use that is no call (in the module variable t); not the comment or the string */
    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "leaf_py", NULL, 100, 0, &r, &err), 0);
    ASSERT_EQ_STR(refs_str(&r), "py/c.py:5:call:m py/c.py:8:use:t");
    ASSERT_EQ_STR(r.v[0].in->container, "K");
    ASSERT(r.complete);
    ASSERT(!r.next_cursor);
    mg_nav_refs_release(&r);

    /* a qualified name looks for its last part; pages of one, by cursor */
    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "Mod::leaf", NULL, 1, 0, &r, &err), 0);
    ASSERT_EQ_STR(refs_str(&r), "src/b.c:4:call:middle");
    ASSERT(!r.complete);
    ASSERT_EQ_STR(r.next_cursor, "src/b.c:4");
    ASSERT_EQ_INT(r.candidate_files, 2); /* b.c, and c.py for the part "leaf" of leaf_py */
    struct mg_nav_refs r2;
    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "leaf", r.next_cursor, 1, 0, &r2, &err), 0);
    ASSERT_EQ_STR(refs_str(&r2), "src/b.c:7:call:recurse");
    ASSERT(!r2.next_cursor);
    mg_nav_refs_release(&r2);
    mg_nav_refs_release(&r);
    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "leaf", "no-line", 1, 0, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);

    /* a scope that leaves b.c out */
    struct mg_globset *gs;
    const char *glob[] = {"src/a.c", "py/**"};
    ASSERT_EQ_INT(mg_globset_new(glob, 2, NULL, 0, &gs, &err), 0);
    struct mg_filter f = {.globs = gs};
    ASSERT_EQ_INT(mg_nav_references(e.d, &f, "helper", NULL, 100, 0, &r, &err), 0);
    ASSERT_EQ_STR(refs_str(&r), "src/a.c:12:call:entry");
    ASSERT_EQ_INT(r.ndefs, 1);
    mg_nav_refs_release(&r);
    mg_globset_free(&gs);

    ASSERT_EQ_INT(mg_nav_references(e.d, NULL, "not an identifier", NULL, 10, 0, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    mg_db_close(&e.d);
}

TEST(nav_callers_callees_and_paths)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "leaf", 2, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.ndefs, 1);
    ASSERT_EQ_STR(edges_str(&g), "1:middle@4->src/b.c:leaf(exact) 1:recurse@7->src/b.c:leaf(exact) "
                                 "2:entry@12->src/b.c:middle(name) 2:recurse@7->src/b.c:recurse(exact)");
    mg_nav_graph_release(&g);

    /* each helper call resolves to the helper of its own file */
    ASSERT_EQ_INT(mg_nav_callees(e.d, NULL, "entry", 2, 100, 0, &g, &err), 0);
    ASSERT_EQ_STR(edges_str(&g), "1:entry@12->src/a.c:helper(exact) 1:entry@12->src/b.c:middle(name) "
                                 "2:middle@4->src/b.c:leaf(exact) 2:middle@4->src/b.c:helper(exact)");
    mg_nav_graph_release(&g);

    ASSERT_EQ_INT(mg_nav_callees(e.d, NULL, "recurse", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_STR(edges_str(&g), "1:recurse@7->src/b.c:recurse(exact) 1:recurse@7->src/b.c:leaf(exact)");
    mg_nav_graph_release(&g);

    struct mg_nav_paths p;
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "entry", "leaf", 5, 3, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n, 1);
    ASSERT_EQ_INT(p.len[0], 2);
    ASSERT_EQ_STR(p.paths[0][0].callee, "middle");
    ASSERT_EQ_STR(p.paths[0][1].callee, "leaf");
    mg_nav_paths_release(&p);
    /* recursion is a path of one call; no path is no error */
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "recurse", "recurse", 3, 3, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n, 1);
    ASSERT_EQ_INT(p.len[0], 1);
    mg_nav_paths_release(&p);
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "leaf", "entry", 5, 3, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n, 0);
    mg_nav_paths_release(&p);

    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "leaf", 0, 100, 0, &g, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    mg_db_close(&e.d);
}

struct idents {
    char b[1024];
    size_t o;
};

static int collect(void *ud, const char *t, size_t off, size_t len, int line, bool call)
{
    struct idents *x = ud;
    x->o += (size_t)snprintf(x->b + x->o, sizeof(x->b) - x->o, "%s%.*s:%d%s", x->o ? " " : "", (int)len, t + off, line,
                             call ? "()" : "");
    return 0;
}

static const char *lex(const char *lang, const char *text)
{
    static struct idents x;
    memset(&x, 0, sizeof(x));
    ASSERT(mg_nav_lex(lang, text, strlen(text), collect, &x));
    return x.b;
}

TEST(nav_lexer_comments_strings_per_family)
{
    ASSERT_EQ_STR(lex("c", "#include <linux/slab.h>\n#define F(x) g(x)\nint a = '\"'; /* b */ c(\"d\\\"\" ) // e\n"),
                  "F:2() x:2 g:2() x:2 int:3 a:3 c:3()");
    ASSERT_EQ_STR(lex("rust", "fn f<'a>(x: &'a str) -> u8 { m!(x); b'c' }"), "fn:1 f:1 a:1 x:1 a:1 str:1 u8:1 m:1() x:1 b:1");
    ASSERT_EQ_STR(lex("go", "s := `raw\nf()` + g()\n"), "s:1 g:2()");
    ASSERT_EQ_STR(lex("javascript", "const $a = 'x()' + `y()` + z(1); // w()"), "const:1 $a:1 z:1()");
    ASSERT_EQ_STR(lex("python", "x = r'''a()\nb()''' + f\"c()\" # d()\ne()"), "x:1 e:3()");
    ASSERT(!mg_nav_lex("markdown", "f()", 3, collect, NULL));
}

/* A template's text is skipped and the code of its ${...} is read, nested
 * templates, braces, strings and comments in it too; the lines still count. */
TEST(nav_lexer_template_substitutions)
{
    ASSERT_EQ_STR(lex("typescript", "const s = `a ${f(x)} b ${ {k: g()}.k } c()`; h()"),
                  "const:1 s:1 f:1() x:1 k:1 g:1() k:1 h:1()");
    ASSERT_EQ_STR(lex("javascript", "`x ${`y ${inner()} z()`} w()` + after()"), "inner:1() after:1()");
    ASSERT_EQ_STR(lex("typescript", "`a\n${b}\nc()`\nd"), "b:2 d:4");
    ASSERT_EQ_STR(lex("javascript", "`\\${no()}` + e"), "e:1");
    ASSERT_EQ_STR(lex("javascript", "`${ '}' + m() /* } */ }n()` + o"), "m:1() o:1");
    ASSERT_EQ_STR(lex("javascript", "`${ q"), "q:1");
    /* Go raw strings have no substitutions */
    ASSERT_EQ_STR(lex("go", "s := `${f()}` + g"), "s:1 g:1");
}

/* Navigation reads the index: an edited caller and a deleted callee show
 * after the next index run (the watcher's, or this one). */
TEST(nav_follows_incremental_index_runs)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_nav_graph g;
    mg_db_close(&e.d);
    /* middle no longer calls leaf; a new caller appears in a new file */
    mg_t_write_str(e.repo, "src/b.c", "int leaf(int y) { return y * 2; }\nint middle(int z)\n{\n\treturn z;\n}\n");
    mg_t_write_str(e.repo, "src/c.c", "int fresh(void) { return leaf(1); }\n");
    json_decref(mg_fx_run_json(NULL, e.home, (const char *const[]){"index", e.repo, "--name", "nav", "--json", NULL}));
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"nav"};
    if (mg_catalog_resolve(&e.cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    ASSERT_EQ_INT(mg_db_open(rv[0].dbpath, MG_DB_READONLY, &e.d, &err), 0);
    free(rv);
    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "leaf", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_STR(edges_str(&g), "1:fresh@1->src/b.c:leaf(name)");
    mg_nav_graph_release(&g);
    /* leaf deleted: its callers' calls are external now */
    mg_db_close(&e.d);
    mg_t_write_str(e.repo, "src/b.c", "int middle(int z)\n{\n\treturn z;\n}\n");
    json_decref(mg_fx_run_json(NULL, e.home, (const char *const[]){"index", e.repo, "--name", "nav", "--json", NULL}));
    if (mg_catalog_resolve(&e.cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    ASSERT_EQ_INT(mg_db_open(rv[0].dbpath, MG_DB_READONLY, &e.d, &err), 0);
    free(rv);
    ASSERT_EQ_INT(mg_nav_callees(e.d, NULL, "fresh", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_STR(edges_str(&g), "1:fresh@1->?:leaf(external)");
    mg_nav_graph_release(&g);
    mg_db_close(&e.d);
}

#include "inproc.h"

/* The tool: references grouped by file; when the response's cap on text
 * leaves references out, next_cursor starts after the last one served, so
 * pages put back together hold every reference. */
TEST(nav_find_references_tool_pages_past_the_cap)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    char text[4096];
    size_t o = 0;
    o += (size_t)snprintf(text + o, sizeof(text) - o, "int target(int x) { return x; }\n");
    for (int i = 0; i < 30; i++)
        o += (size_t)snprintf(text + o, sizeof(text) - o, "int user%d(void) { return target(%d); }\n", i, i);
    mg_t_write_str(repo, "src/t.c", text);
    struct mg_t_out out = MG_RUN(repo, home, "index", repo, "--name", "navtool", "--quiet");
    if (out.status != 0) FAIL("index: %s", out.err);
    mg_t_out_free(&out);
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    char code[64];
    t.srv.cfg.max_context_bytes = 200; /* about six lines of text */
    json_t *seen = json_object();
    const char *cursor = NULL;
    char next[256];
    int pages = 0;
    for (;;) {
        char args[512];
        snprintf(args, sizeof(args), "{\"symbol\":\"target\",\"repo\":\"navtool\"%s%s%s}", cursor ? ",\"cursor\":\"" : "",
                 cursor ? cursor : "", cursor ? "\"" : "");
        json_t *r = mg_t_call(&t, "find_references", args, code);
        if (!r) FAIL("find_references: %s", code);
        json_t *files = json_object_get(r, "files");
        ASSERT_EQ_INT(json_array_size(files), 1);
        json_t *refs = json_object_get(json_array_get(files, 0), "references"), *ref;
        size_t i;
        json_array_foreach(refs, i, ref)
        {
            char k[16];
            snprintf(k, sizeof(k), "%lld", (long long)json_integer_value(json_object_get(ref, "line")));
            ASSERT(!json_object_get(seen, k)); /* no line twice */
            json_object_set_new(seen, k, json_true());
            ASSERT(json_is_true(json_object_get(ref, "call")));
        }
        pages++;
        json_t *nc = json_object_get(r, "next_cursor");
        if (json_is_null(nc)) {
            json_decref(r);
            break;
        }
        ASSERT(!json_is_true(json_object_get(r, "complete")));
        snprintf(next, sizeof(next), "%s", json_string_value(nc));
        cursor = next;
        json_decref(r);
        ASSERT(pages < 40);
    }
    ASSERT_EQ_INT(json_object_size(seen), 30);
    ASSERT(pages > 1);
    json_decref(seen);
    /* an unknown name: no definitions, no references, complete */
    t.srv.cfg.max_context_bytes = 32 << 10;
    json_t *r = mg_t_call(&t, "find_references", "{\"symbol\":\"no_such_name\",\"repo\":\"navtool\"}", code);
    ASSERT(r);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "definitions")), 0);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "files")), 0);
    ASSERT(json_is_true(json_object_get(r, "complete")));
    json_decref(r);
    mg_t_srv_close(&t);
}
