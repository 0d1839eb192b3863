/* test_nav_langs.c — navigation (search/nav.h) on a small repo in each
 * language with a grammar, with exact expected results: methods, function
 * pointers, macros, same-named functions told apart by file or by import,
 * recursion and cycles; incremental index runs; bad input and a call graph
 * too wide to search; callers paged by cursor past the response's cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "test.h"
#include "inproc.h"
#include "search/nav.h"
#include "search/navimport.h"
#include "store/catalog.h"
#include "util/config.h"

/* path, text: the fixture */
static const char *const FILES[][2] = {
    /* C: a function pointer in a struct, one in a variable, a macro, static helpers of one name in two files,
     * and `shared` defined in two .c files: main.c includes ops.h, which declares ops.c's */
    {"c/ops.h", "struct ops { int (*fn)(int); };\n"                  /* 1 */
                "int shared(int x);\n"                               /* 2 */
                "#define CALL_TWICE(x) (twice(x) + twice(x))\n"},    /* 3 */
    {"c/ops.c", "#include \"ops.h\"\n"                               /* 1 */
                "static int local(int x) { return x; }\n"            /* 2 */
                "int shared(int x) { return local(x) + 1; }\n"       /* 3 */
                "int twice(int x) { return 2 * x; }\n"},             /* 4 */
    {"c/other.c", "static int local(int x) { return -x; }\n"         /* 1 */
                  "int shared(int x) { return local(x) - 1; }\n"},   /* 2 */
    {"c/main.c", "#include \"ops.h\"\n"                              /* 1 */
                 "static int inc(int x) { return x + 1; }\n"         /* 2 */
                 "int run(struct ops *o, int v)\n"                   /* 3 */
                 "{\n"                                               /* 4 */
                 "\tint (*p)(int) = &inc;\n"                         /* 5 */
                 "\tint a = o->fn(v);\n"                             /* 6 */
                 "\tint b = p(v);\n"                                 /* 7 */
                 "\treturn a + b + shared(v) + CALL_TWICE(v);\n"     /* 8 */
                 "}\n"},                                             /* 9 */
    /* recursion and two cycles */
    {"c/cyc.c", "int fact(int n) { return n ? n * fact(n - 1) : 1; }\n"   /* 1 */
                "int ping(int n);\n"                                       /* 2 */
                "int pong(int n) { return n ? ping(n - 1) : 0; }\n"        /* 3 */
                "int ping(int n) { return n ? pong(n - 1) : 1; }\n"        /* 4 */
                "int x3(int n);\n"                                         /* 5 */
                "int x1(int n) { return x2(n); }\n"                        /* 6 */
                "int x2(int n) { return x3(n); }\n"                        /* 7 */
                "int x3(int n) { return n ? x1(n - 1) : 0; }\n"},          /* 8 */
    /* C++: methods declared in a class and defined outside it, overloads, this->, obj., Cls:: */
    {"cpp/shape.hpp", "class Shape {\n"                                    /* 1 */
                      "public:\n"                                          /* 2 */
                      "    int area() const;\n"                            /* 3 */
                      "    int scale(int k);\n"                            /* 4 */
                      "    int scale(double k);\n"                         /* 5 */
                      "    int twice() { return this->area() * 2; }\n"     /* 6 */
                      "};\n"},                                             /* 7 */
    {"cpp/shape.cpp", "#include \"shape.hpp\"\n"                                                     /* 1 */
                      "int Shape::area() const { return 1; }\n"                                      /* 2 */
                      "int Shape::scale(int k) { return area() * k; }\n"                             /* 3 */
                      "int Shape::scale(double k) { return (int)(area() * k); }\n"                   /* 4 */
                      "int use_shape(Shape &s) { return s.area() + Shape::scale(2) + s.twice(); }\n"}, /* 5 */
    /* Python: norm in two modules; each caller imports one */
    {"py/pa/util.py", "def norm(x):\n    return x\n"},
    {"py/pb/util.py", "def norm(x):\n    return -x\n"},
    {"py/app.py", "from pa.util import norm\n"            /* 1 */
                  "\n"                                     /* 2 */
                  "class Box:\n"                           /* 3 */
                  "    def size(self):\n"                  /* 4 */
                  "        return norm(1)\n"               /* 5 */
                  "\n"                                     /* 6 */
                  "    def grow(self):\n"                  /* 7 */
                  "        return self.size() + 1\n"},     /* 8 */
    {"py/app2.py", "import pb.util\n"                      /* 1 */
                   "\n"                                    /* 2 */
                   "def go2():\n"                          /* 3 */
                   "    return pb.util.norm(2)\n"},        /* 4 */
    /* TypeScript: fmt in two modules, an arrow function, methods */
    {"js/a.ts", "export function fmt(x: number): string { return String(x); }\n"  /* 1 */
                "export const twice = (x: number) => x * 2;\n"},                  /* 2 */
    {"js/b.ts", "export function fmt(x: number): string { return \"b\" + x; }\n"},
    {"js/main.ts", "import { fmt, twice } from './a';\n"                      /* 1 */
                   "class View {\n"                                           /* 2 */
                   "  render(): string { return fmt(twice(1)); }\n"           /* 3 */
                   "  show(): string { return this.render(); }\n"             /* 4 */
                   "}\n"},                                                    /* 5 */
    /* Go: methods on a type, norm in the package and in another */
    {"go/store/store.go", "package store\n"                                       /* 1 */
                          "\n"                                                    /* 2 */
                          "type Store struct{ n int }\n"                          /* 3 */
                          "\n"                                                    /* 4 */
                          "func (s *Store) Put(k int) { s.n = norm(k) }\n"        /* 5 */
                          "\n"                                                    /* 6 */
                          "func norm(k int) int { return k }\n"},                 /* 7 */
    {"go/store/get.go", "package store\n\nfunc (s *Store) Get() int { return norm(s.n) }\n"},
    {"go/other.go", "package main\n\nfunc norm(k int) int { return -k }\n"},
    /* Java: overloads, size in two packages, a caller importing one */
    {"java/com/x/Box.java", "package com.x;\n"                                      /* 1 */
                            "\n"                                                    /* 2 */
                            "public class Box {\n"                                  /* 3 */
                            "    int size() { return 1; }\n"                        /* 4 */
                            "    int size(int k) { return k; }\n"                   /* 5 */
                            "    int total() { return size() + size(2); }\n"        /* 6 */
                            "}\n"},                                                 /* 7 */
    {"java/com/y/Crate.java", "package com.y;\n\npublic class Crate {\n    int size() { return 9; }\n}\n"},
    {"java/com/z/App.java", "package com.z;\n"                                      /* 1 */
                            "\n"                                                    /* 2 */
                            "import com.x.Box;\n"                                   /* 3 */
                            "\n"                                                    /* 4 */
                            "public class App {\n"                                  /* 5 */
                            "    int use(Box b) { return b.size(); }\n"             /* 6 */
                            "}\n"},                                                 /* 7 */
    /* Rust: an impl method, mod and use, make in two crates */
    {"rs/src/lib.rs", "mod shapes;\n"                                    /* 1 */
                      "use crate::shapes::{Circle, make};\n"             /* 2 */
                      "\n"                                               /* 3 */
                      "pub fn run() -> u32 {\n"                          /* 4 */
                      "    let c: Circle = make();\n"                    /* 5 */
                      "    c.area() + helper()\n"                        /* 6 */
                      "}\n"                                              /* 7 */
                      "\n"                                               /* 8 */
                      "fn helper() -> u32 { 1 }\n"},                     /* 9 */
    {"rs/src/shapes.rs", "pub struct Circle { pub r: u32 }\n"                   /* 1 */
                         "\n"                                                    /* 2 */
                         "impl Circle {\n"                                       /* 3 */
                         "    pub fn area(&self) -> u32 { self.r * self.r }\n"   /* 4 */
                         "}\n"                                                   /* 5 */
                         "\n"                                                    /* 6 */
                         "pub fn make() -> Circle { Circle { r: 2 } }\n"},       /* 7 */
    {"rs2/src/lib.rs", "pub fn make() -> u32 { 3 }\n"},
    /* TypeScript: methods named like keywords; the words as keywords are no uses of them */
    {"js/words.ts", "export class Pending {\n"                                  /* 1 */
                    "    catch(f: number) { return f; }\n"                      /* 2 */
                    "    get volume() { return 1; }\n"                          /* 3 */
                    "    get(k: number) { return k; }\n"                        /* 4 */
                    "}\n"                                                       /* 5 */
                    "export function settle(p: Pending, m: Map<number, number>) {\n" /* 6 */
                    "    try { p.catch(1); }\n"                                 /* 7 */
                    "    catch (e) { return 0; }\n"                             /* 8 */
                    "    switch (p.get(2)) { default: return m.get(3); }\n"     /* 9 */
                    "}\n"},                                                     /* 10 */
};

struct env {
    struct mg_config cfg;
    struct mg_db *d;
    char *repo, *home;
};

static void reopen(struct env *e)
{
    struct mg_err err = {0};
    if (e->d) mg_db_close(&e->d);
    json_decref(
        mg_fx_run_json(NULL, e->home, (const char *const[]){"index", e->repo, "--name", "langs", "--json", NULL}));
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"langs"};
    if (mg_catalog_resolve(&e->cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
    free(rv);
}

static void open_env(struct env *e)
{
    memset(e, 0, sizeof(*e));
    e->repo = mg_t_tmpdir();
    e->home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", e->home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(e->repo, FILES[i][0], FILES[i][1]);
    struct mg_err err = {0};
    if (mg_config_load(&e->cfg, &err) != 0) FAIL("config: %s", err.msg);
    reopen(e);
}

/* "path:line:call:in" for each reference. */
static const char *refs(struct env *e, const char *name)
{
    static char b[4096];
    struct mg_err err = {0};
    struct mg_nav_refs r;
    if (mg_nav_references(e->d, NULL, name, NULL, 100, 0, &r, &err) != 0) FAIL("references %s: %s", name, err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < r.n; i++)
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s:%d:%s:%s", i ? " " : "", r.v[i].path, r.v[i].line,
                              r.v[i].call ? "call" : "use", r.v[i].in ? r.v[i].in->name : "-");
    mg_nav_refs_release(&r);
    return b;
}

/* "depth:from@path:line->to_path:to_line:callee(confidence)" for each edge of
 * callers (dir 0) or callees (1). */
static const char *walk(struct env *e, int dir, const char *name, int depth)
{
    static char b[4096];
    struct mg_err err = {0};
    struct mg_nav_graph g;
    if ((dir ? mg_nav_callees : mg_nav_callers)(e->d, NULL, name, depth, 100, 0, &g, &err) != 0)
        FAIL("walk %s: %s", name, err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct mg_nav_edge *x = &g.v[i];
        char to[256] = "?";
        if (x->to) snprintf(to, sizeof(to), "%s:%d", x->to->path, x->to->start_line);
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%d:%s@%s:%d->%s:%s(%s)", i ? " " : "", x->depth,
                              x->from->name, x->from->path, x->line, to, x->callee, x->confidence);
    }
    if (g.truncated) FAIL("walk %s truncated", name);
    mg_nav_graph_release(&g);
    return b;
}
#define CALLERS(e, n, d) walk((e), 0, (n), (d))
#define CALLEES(e, n, d) walk((e), 1, (n), (d))

/* The paths of a trace: "a>b>c" each (callee names after from), joined by " | ". */
static const char *trace(struct env *e, const char *from, const char *to)
{
    static char b[1024];
    struct mg_err err = {0};
    struct mg_nav_paths p;
    if (mg_nav_trace(e->d, NULL, from, to, 6, 5, 0, &p, &err) != 0) FAIL("trace: %s", err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < p.n; i++) {
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s", i ? " | " : "", from);
        for (size_t k = 0; k < p.len[i]; k++) o += (size_t)snprintf(b + o, sizeof(b) - o, ">%s", p.paths[i][k].callee);
    }
    if (p.truncated) FAIL("trace truncated");
    mg_nav_paths_release(&p);
    return b;
}

TEST(nav_langs_c)
{
    struct env e;
    open_env(&e);
    /* o->fn(v) calls the field fn and p(v) the variable p: names no function defines, so both are
     * external; the call through the macro is the macro's, and the macro's own call resolves through
     * ops.h to ops.c (twice is also a C++ method name); shared, defined in ops.c and other.c, resolves
     * to ops.c, whose declaration main.c includes */
    ASSERT_EQ_STR(CALLEES(&e, "run", 1),
                  "1:run@c/main.c:6->?:fn(external) 1:run@c/main.c:7->?:p(external) "
                  "1:run@c/main.c:8->c/ops.c:3:shared(import) 1:run@c/main.c:8->c/ops.h:3:CALL_TWICE(import) "
                  "1:run@rs/src/lib.rs:5->rs/src/shapes.rs:7:make(import) "
                  "1:run@rs/src/lib.rs:6->rs/src/shapes.rs:4:area(type) "
                  "1:run@rs/src/lib.rs:6->rs/src/lib.rs:9:helper(exact)");
    ASSERT_EQ_STR(CALLEES(&e, "CALL_TWICE", 1), "1:CALL_TWICE@c/ops.h:3->c/ops.c:4:twice(import)");
    /* inc is only taken by address: a use, and run a caller by value (it may call it through p) */
    ASSERT_EQ_STR(refs(&e, "inc"), "c/main.c:5:use:run");
    ASSERT_EQ_STR(CALLERS(&e, "inc", 1), "1:run@c/main.c:5->c/main.c:2:inc(value)");
    /* each static local is its own file's */
    ASSERT_EQ_STR(CALLEES(&e, "shared", 1),
                  "1:shared@c/ops.c:3->c/ops.c:2:local(exact) 1:shared@c/other.c:2->c/other.c:1:local(exact)");
    ASSERT_EQ_STR(CALLERS(&e, "local", 1),
                  "1:shared@c/ops.c:3->c/ops.c:2:local(exact) 1:shared@c/other.c:2->c/other.c:1:local(exact)");
    /* the prototype's line is a use; the call site a call */
    ASSERT_EQ_STR(refs(&e, "shared"), "c/main.c:8:call:run c/ops.h:2:use:shared");
    /* a scope without ops.c: main.c's shared is other.c's, the one left */
    struct mg_globset *gs;
    struct mg_err err = {0};
    const char *glob[] = {"c/main.c", "c/other.c", "c/ops.h"};
    ASSERT_EQ_INT(mg_globset_new(glob, 3, NULL, 0, &gs, &err), 0);
    struct mg_filter f = {.globs = gs};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callees(e.d, &f, "run", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.n, 4);
    ASSERT_EQ_STR(g.v[2].callee, "shared");
    ASSERT_EQ_STR(g.v[2].to->path, "c/other.c");
    ASSERT_EQ_STR(g.v[2].confidence, "name");
    ASSERT_EQ_STR(g.v[3].callee, "CALL_TWICE");
    mg_nav_graph_release(&g);
    mg_globset_free(&gs);
    /* a callers walk through the macro (which calls twice twice on its line: two call sites); where the
     * macro is expanded calls twice too ("macro", at depth 1) */
    ASSERT_EQ_STR(CALLERS(&e, "twice", 2),
                  "1:CALL_TWICE@c/ops.h:3->c/ops.c:4:twice(import) 1:CALL_TWICE@c/ops.h:3->c/ops.c:4:twice(import) "
                  "1:use_shape@cpp/shape.cpp:5->cpp/shape.hpp:6:twice(type) "
                  "1:render@js/main.ts:3->js/a.ts:2:twice(import) 1:run@c/main.c:8->c/ops.c:4:twice(macro) "
                  "2:run@c/main.c:8->c/ops.h:3:CALL_TWICE(import) 2:show@js/main.ts:4->js/main.ts:3:render(type)");
    mg_db_close(&e.d);
}

TEST(nav_langs_recursion_and_cycles)
{
    struct env e;
    open_env(&e);
    ASSERT_EQ_STR(CALLEES(&e, "fact", 3), "1:fact@c/cyc.c:1->c/cyc.c:1:fact(exact)");
    ASSERT_EQ_STR(CALLERS(&e, "fact", 3), "1:fact@c/cyc.c:1->c/cyc.c:1:fact(exact)");
    ASSERT_EQ_STR(trace(&e, "fact", "fact"), "fact>fact");
    /* a -> b -> a: each function is expanded once */
    ASSERT_EQ_STR(CALLEES(&e, "ping", 4),
                  "1:ping@c/cyc.c:4->c/cyc.c:3:pong(exact) 2:pong@c/cyc.c:3->c/cyc.c:4:ping(exact)");
    ASSERT_EQ_STR(trace(&e, "ping", "ping"), "ping>pong>ping");
    ASSERT_EQ_STR(trace(&e, "ping", "pong"), "ping>pong");
    /* a -> b -> c -> a */
    ASSERT_EQ_STR(trace(&e, "x1", "x3"), "x1>x2>x3");
    ASSERT_EQ_STR(trace(&e, "x3", "x2"), "x3>x1>x2");
    ASSERT_EQ_STR(CALLERS(&e, "x1", 5), "1:x3@c/cyc.c:8->c/cyc.c:6:x1(exact) 2:x2@c/cyc.c:7->c/cyc.c:8:x3(exact) "
                                        "3:x1@c/cyc.c:6->c/cyc.c:7:x2(exact)");
    ASSERT_EQ_STR(trace(&e, "fact", "ping"), "");
    mg_db_close(&e.d);
}

TEST(nav_langs_cpp_python_ts)
{
    struct env e;
    open_env(&e);
    /* C++: obj.m(), Cls::m() and the inline method's this->m(); overloads are one name (the first) */
    ASSERT_EQ_STR(CALLEES(&e, "use_shape", 1),
                  "1:use_shape@cpp/shape.cpp:5->cpp/shape.cpp:2:area(type) "
                  "1:use_shape@cpp/shape.cpp:5->cpp/shape.cpp:3:scale(exact) "
                  "1:use_shape@cpp/shape.cpp:5->cpp/shape.hpp:6:twice(type)");
    ASSERT_EQ_STR(CALLEES(&e, "twice", 1), "1:twice@cpp/shape.hpp:6->cpp/shape.cpp:2:area(type)");
    ASSERT_EQ_STR(CALLERS(&e, "area", 1),
                  "1:scale@cpp/shape.cpp:3->cpp/shape.cpp:2:area(exact) 1:scale@cpp/shape.cpp:4->cpp/shape.cpp:2:"
                  "area(exact) 1:use_shape@cpp/shape.cpp:5->cpp/shape.cpp:2:area(type) "
                  "1:twice@cpp/shape.hpp:6->cpp/shape.cpp:2:area(type) "
                  "1:run@rs/src/lib.rs:6->rs/src/shapes.rs:4:area(type)");
    /* Python: each module's norm by what the caller imports; self.m() */
    ASSERT_EQ_STR(CALLEES(&e, "size", 1),
                  "1:size@py/app.py:5->py/pa/util.py:1:norm(import)");
    ASSERT_EQ_STR(CALLEES(&e, "go2", 1), "1:go2@py/app2.py:4->py/pb/util.py:1:norm(import)");
    ASSERT_EQ_STR(CALLEES(&e, "grow", 1), "1:grow@py/app.py:8->py/app.py:4:size(type)");
    /* TypeScript: fmt from './a', the arrow function, this.m() */
    ASSERT_EQ_STR(CALLEES(&e, "render", 1), "1:render@js/main.ts:3->js/a.ts:1:fmt(import) "
                                            "1:render@js/main.ts:3->js/a.ts:2:twice(import)");
    ASSERT_EQ_STR(CALLERS(&e, "render", 1), "1:show@js/main.ts:4->js/main.ts:3:render(type)");
    /* a method may be named like a keyword; the keyword is no use of it (`catch (e)`, `get volume()`, `default:`) */
    ASSERT_EQ_STR(refs(&e, "catch"), "js/words.ts:7:call:settle");
    ASSERT_EQ_STR(refs(&e, "get"), "js/words.ts:9:call:settle js/words.ts:9:call:settle");
    ASSERT_EQ_STR(refs(&e, "default"), "");
    mg_db_close(&e.d);
}

TEST(nav_langs_go_java_rust)
{
    struct env e;
    open_env(&e);
    /* Go: the package's norm, not main's */
    ASSERT_EQ_STR(CALLERS(&e, "norm", 1),
                  "1:Get@go/store/get.go:3->go/store/store.go:7:norm(import) "
                  "1:Put@go/store/store.go:5->go/store/store.go:7:norm(exact) "
                  "1:size@py/app.py:5->py/pa/util.py:1:norm(import) "
                  "1:go2@py/app2.py:4->py/pb/util.py:1:norm(import)");
    /* Java: overloads are one name; the imported class's method */
    ASSERT_EQ_STR(CALLEES(&e, "total", 1), "1:total@java/com/x/Box.java:6->java/com/x/Box.java:4:size(exact)");
    ASSERT_EQ_STR(CALLEES(&e, "use", 1), "1:use@java/com/z/App.java:6->java/com/x/Box.java:4:size(type)");
    /* Rust: the impl method, and make through mod and use */
    ASSERT_EQ_STR(CALLERS(&e, "make", 1), "1:run@rs/src/lib.rs:5->rs/src/shapes.rs:7:make(import)");
    ASSERT_EQ_STR(trace(&e, "run", "area"), "run>area");
    mg_db_close(&e.d);
}

/* Imports are read when a question is asked: an include removed is gone at
 * the next index run; a callee deleted makes its calls external, an edited
 * caller loses its edge. */
TEST(nav_langs_incremental)
{
    struct env e;
    open_env(&e);
    mg_t_write_str(e.repo, "c/main.c",
                   "static int inc(int x) { return x + 1; }\nint run(int v)\n{\n\treturn shared(v);\n}\n");
    reopen(&e);
    ASSERT_EQ_STR(CALLEES(&e, "run", 1), "1:run@c/main.c:4->c/ops.c:3:shared(name) "
                                         "1:run@rs/src/lib.rs:5->rs/src/shapes.rs:7:make(import) "
                                         "1:run@rs/src/lib.rs:6->rs/src/shapes.rs:4:area(type) "
                                         "1:run@rs/src/lib.rs:6->rs/src/lib.rs:9:helper(exact)");
    /* pa/util.py deleted: app.py's norm is pb's, the one Python definition left */
    char gone[4096];
    snprintf(gone, sizeof(gone), "%s/py/pa/util.py", e.repo);
    ASSERT_EQ_INT(unlink(gone), 0);
    /* ping no longer calls pong */
    mg_t_write_str(e.repo, "c/cyc.c",
                   "int pong(int n) { return n ? ping(n - 1) : 0; }\nint ping(int n) { return n; }\n");
    reopen(&e);
    ASSERT_EQ_STR(CALLEES(&e, "size", 1), "1:size@py/app.py:5->py/pb/util.py:1:norm(name)");
    ASSERT_EQ_STR(CALLEES(&e, "ping", 1), "");
    ASSERT_EQ_STR(CALLERS(&e, "pong", 1), "");
    ASSERT_EQ_STR(CALLERS(&e, "ping", 1), "1:pong@c/cyc.c:1->c/cyc.c:2:ping(exact)");
    mg_db_close(&e.d);
}

/* A name nobody defines or uses is an empty answer, not an error; a name
 * that is no identifier, a bad depth, a bad cursor are bad_argument. The
 * tools say the same. */
TEST(nav_langs_unknown_and_bad_input)
{
    struct env e;
    open_env(&e);
    struct mg_err err = {0};
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "no_such_fn", 3, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.ndefs, 0);
    ASSERT_EQ_INT(g.n, 0);
    ASSERT(!g.truncated);
    mg_nav_graph_release(&g);
    ASSERT_EQ_INT(mg_nav_callees(e.d, NULL, "no_such_fn", 1, 100, 0, &g, &err), 0);
    ASSERT_EQ_INT(g.ndefs + g.n, 0);
    mg_nav_graph_release(&g);
    struct mg_nav_paths p;
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "no_such_fn", "run", 4, 3, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n + p.g.ndefs, 0);
    mg_nav_paths_release(&p);
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "run", "a b", 4, 3, 0, &p, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    ASSERT_EQ_INT(mg_nav_callees(e.d, NULL, "run", MG_NAV_DEPTH_MAX + 1, 100, 0, &g, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "", 1, 100, 0, &g, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    mg_db_close(&e.d);

    struct mg_t_srv t;
    mg_t_srv_open(&t, e.home, "local", MG_LEVEL_READ);
    char code[64];
    json_t *r = mg_t_call(&t, "callers", "{\"symbol\":\"no_such_fn\",\"repo\":\"langs\"}", code);
    if (!r) FAIL("callers: %s", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "definitions")), 0);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "calls")), 0);
    json_decref(r);
    r = mg_t_call(&t, "trace_path", "{\"symbol\":\"no_such_fn\",\"to\":\"run\",\"repo\":\"langs\"}", code);
    if (!r) FAIL("trace_path: %s", code);
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "paths")), 0);
    json_decref(r);
    ASSERT(!mg_t_call(&t, "callees", "{\"symbol\":\"1bad\",\"repo\":\"langs\"}", code));
    ASSERT_EQ_STR(code, MG_E_BAD_ARG);
    mg_t_srv_close(&t);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* 200 files of 60 functions, each calling five others: a path search
 * between two functions that are not connected stops at the node cap, or
 * sooner at its deadline, and says so. */
TEST(nav_langs_wide_graph_is_bounded)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    enum { FILES_N = 200, FNS = 60, CALLS = 5 };
    static char text[FNS * 160];
    uint32_t seed = 12345;
    for (int f = 0; f < FILES_N; f++) {
        size_t o = 0;
        for (int k = 0; k < FNS; k++) {
            o += (size_t)snprintf(text + o, sizeof(text) - o, "int f%d_%d(int n)\n{\n\treturn n", f, k);
            for (int c = 0; c < CALLS; c++) {
                seed = seed * 1103515245u + 12345u;
                int t = (int)((seed >> 8) % (FILES_N * FNS));
                o += (size_t)snprintf(text + o, sizeof(text) - o, " + f%d_%d(n)", t / FNS, t % FNS);
            }
            o += (size_t)snprintf(text + o, sizeof(text) - o, ";\n}\n");
        }
        if (f == 0) o += (size_t)snprintf(text + o, sizeof(text) - o, "int island(int n) { return n; }\n");
        char path[64];
        snprintf(path, sizeof(path), "src/f%d.c", f);
        mg_t_write(repo, path, text, o);
    }
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "wide", "--json", NULL}));
    struct mg_config cfg;
    struct mg_err err = {0};
    if (mg_config_load(&cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"wide"};
    if (mg_catalog_resolve(&cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    struct mg_db *d;
    ASSERT_EQ_INT(mg_db_open(rv[0].dbpath, MG_DB_READONLY, &d, &err), 0);
    free(rv);

    struct mg_nav_paths p;
    double c0 = cpu_s();
    ASSERT_EQ_INT(mg_nav_trace(d, NULL, "f0_0", "island", MG_NAV_DEPTH_MAX, 3, 0, &p, &err), 0);
    double spent = cpu_s() - c0;
    ASSERT(p.truncated);
    ASSERT_EQ_INT(p.n, 0);
    ASSERT_EQ_INT(p.visited, MG_NAV_NODES_MAX);
    ASSERT(spent < 10.0);
    mg_nav_paths_release(&p);

    /* a deadline 20 ms away stops it well before the cap */
    double t0 = mono_ms();
    ASSERT_EQ_INT(mg_nav_trace(d, NULL, "f0_0", "island", MG_NAV_DEPTH_MAX, 3, t0 + 20, &p, &err), 0);
    ASSERT(p.truncated);
    ASSERT_EQ_INT(p.n, 0);
    ASSERT(p.visited < MG_NAV_NODES_MAX);
    mg_nav_paths_release(&p);

    /* callers and callees with depth stop at their bounds too */
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callees(d, NULL, "f0_0", MG_NAV_DEPTH_MAX, 1000, 0, &g, &err), 0);
    ASSERT(g.truncated);
    ASSERT_EQ_INT(g.n, 1000);
    mg_nav_graph_release(&g);
    mg_db_close(&d);
}

struct pats {
    char b[2048];
    size_t o;
};

static int collect_import(void *ud, enum mg_nav_imp how, const char *p)
{
    static const char *const hows[] = {"path", "exact", "stem", "dir", "dir_end", "dir_in"};
    struct pats *x = ud;
    x->o += (size_t)snprintf(x->b + x->o, sizeof(x->b) - x->o, "%s%s:%s", x->o ? " " : "", hows[how], p);
    return 0;
}

static const char *imports_of(const char *lang, const char *path, const char *text)
{
    static struct pats x;
    memset(&x, 0, sizeof(x));
    ASSERT(mg_nav_imports(lang, path, text, strlen(text), collect_import, &x));
    return x.b;
}

TEST(nav_langs_import_patterns)
{
    ASSERT_EQ_STR(imports_of("c", "src/a.c", "#include \"b.h\"\n# include <linux/slab.h>\n#include \"../up.h\"\n"
                                             "#include \"../../../out.h\"\nint x; // #include \"no.h\"\n"),
                  "stem:src/a path:b.h path:linux/slab.h exact:up.h");
    ASSERT_EQ_STR(imports_of("python", "pkg/sub/m.py", "import a.b as c, d\nfrom .x import y\nfrom .. import z\n"
                                                       "from e.f import (g,\n  h as i,\n  # j\n)\nk, l = 1, 2\n"
                                                       "from .m import (n)\no = p\n"),
                  "path:a/b.py path:a/b/__init__.py path:d.py path:d/__init__.py exact:pkg/sub/x.py "
                  "exact:pkg/sub/x/__init__.py exact:pkg/sub/x/y.py exact:pkg/z.py path:e/f.py path:e/f/__init__.py "
                  "path:e/f/g.py path:e/f/h.py exact:pkg/sub/m.py exact:pkg/sub/m/__init__.py exact:pkg/sub/m/n.py");
    ASSERT_EQ_STR(imports_of("typescript", "web/app.ts", "import { a } from './a';\nimport b from \"../lib/b.js\";\n"
                                                         "import React from 'react';\nconst c = require('./c');\n"),
                  "stem:web/a stem:web/a/index stem:lib/b stem:web/c stem:web/c/index");
    ASSERT_EQ_STR(imports_of("go", "cmd/x/main.go",
                             "package main\n\nimport (\n\t\"fmt\"\n\ts \"example.com/m/store\"\n)\n"
                                                    "import \"example.com/m/util\"\n"),
                  "dir:cmd/x dir_in:fmt dir_in:example.com/m/store dir_in:example.com/m/util");
    ASSERT_EQ_STR(imports_of("java", "src/com/z/App.java", "package com.z;\nimport com.x.Box;\nimport com.y.*;\n"
                                                           "import static com.q.Util.max;\n"),
                  "dir:src/com/z path:com/x/Box.java dir_end:com/y path:com/q/Util.java");
    ASSERT_EQ_STR(imports_of("rust", "src/net.rs", "pub mod tcp;\nmod inline { }\nuse crate::a::b::{C, d};\n"),
                  "exact:src/net/tcp.rs exact:src/net/tcp/mod.rs path:a.rs path:a/mod.rs path:a/b.rs path:a/b/mod.rs");
    ASSERT_EQ_STR(imports_of("rust", "src/lib.rs", "mod tcp;\n"), "exact:src/tcp.rs exact:src/tcp/mod.rs");
    /* the other languages with imports: each names the files it may mean */
    ASSERT_EQ_STR(imports_of("kotlin", "src/app/Main.kt", "package app\nimport com.x.Box\nimport com.y.*\n"),
                  "dir:src/app path:com/x/Box.kt dir_end:com/y");
    ASSERT_EQ_STR(imports_of("scala", "src/App.scala", "import a.b.C\nimport a.c._\nimport a.d.{E, F}\n"),
                  "dir:src path:a/b/C.scala dir_end:a/c dir_end:a/d");
    ASSERT_EQ_STR(imports_of("csharp", "Shop/Cart.cs", "using System.Text;\nusing Shop.Models;\nusing var x = y;\nusing (var f = g) {}\n"),
                  "dir_end:System/Text dir_end:Shop/Models");
    ASSERT_EQ_STR(imports_of("ruby", "lib/shop/cart.rb", "require 'json'\nrequire_relative 'item'\nrequire_relative '../base'\n"),
                  "path:json.rb exact:lib/shop/item.rb exact:lib/base.rb");
    ASSERT_EQ_STR(imports_of("php", "src/Cart.php", "<?php\nuse App\\Models\\Item;\nrequire_once 'helpers.php';\ninclude __DIR__ . '/x.php';\n"),
                  "path:App/Models/Item.php exact:src/helpers.php");
    ASSERT_EQ_STR(imports_of("lua", "game/main.lua", "local util = require(\"game.util\")\nlocal m = require 'mod'\n"),
                  "path:game/util.lua path:game/util/init.lua path:mod.lua path:mod/init.lua");
    ASSERT_EQ_STR(imports_of("perl", "lib/Shop/Cart.pm", "use strict;\nuse Shop::Item;\nrequire Shop::Base;\n"),
                  "path:Shop/Item.pm path:Shop/Base.pm");
    ASSERT_EQ_STR(imports_of("haskell", "src/Main.hs", "import Data.List\nimport qualified Shop.Cart as C\n"),
                  "path:Data/List.hs path:Shop/Cart.hs");
    ASSERT_EQ_STR(imports_of("elixir", "lib/shop/cart.ex", "  alias Shop.LineItem\n  import Ecto.Query\n"),
                  "path:shop/line_item.ex path:ecto/query.ex");
    ASSERT_EQ_STR(imports_of("ocaml", "bin/main.ml", "open Cart\nlet x = 1\n"),
                  "path:cart.ml");
    ASSERT_EQ_STR(imports_of("dart", "lib/src/cart.dart", "import 'item.dart';\nimport 'package:shop/models/base.dart';\nimport 'dart:async';\n"),
                  "exact:lib/src/item.dart path:models/base.dart");
    ASSERT_EQ_STR(imports_of("elisp", "lisp/shop.el", "(require 'shop-util)\n"),
                  "path:shop-util.el");
    ASSERT_EQ_STR(imports_of("shell", "scripts/run.sh", "source ./lib.sh\n. \"$DIR/x.sh\"\n. common.sh\n"),
                  "exact:scripts/lib.sh exact:scripts/common.sh");
    ASSERT_EQ_STR(imports_of("r", "R/main.R", "source(\"utils.R\")\n"),
                  "exact:R/utils.R");
    ASSERT_EQ_STR(imports_of("julia", "src/Shop.jl", "include(\"cart.jl\")\n"),
                  "exact:src/cart.jl");
    ASSERT_EQ_STR(imports_of("zig", "src/main.zig", "const std = @import(\"std\");\nconst cart = @import(\"cart.zig\");\n"),
                  "exact:src/cart.zig");
    ASSERT_EQ_STR(imports_of("solidity", "contracts/Cart.sol", "import \"./IStore.sol\";\nimport {A} from \"../lib/A.sol\";\nimport \"@oz/x.sol\";\n"),
                  "exact:contracts/IStore.sol exact:lib/A.sol");
    ASSERT_EQ_STR(imports_of("make", "Makefile", "include config.mk rules/$(ARCH).mk\n-include deps.mk\n"),
                  "exact:config.mk exact:deps.mk");
    ASSERT_EQ_STR(imports_of("powershell", "scripts/run.ps1", ". ./lib.ps1\nImport-Module $PSScriptRoot\\Shop.psm1\n"),
                  "exact:scripts/lib.ps1 exact:scripts/Shop.psm1");
    ASSERT_EQ_STR(imports_of("groovy", "src/app/A.groovy", "import app.util.B\n"),
                  "dir:src/app path:app/util/B.groovy");
    ASSERT(!mg_nav_imports("markdown", "a.md", "import x", 8, collect_import, NULL));
    /* matching */
    ASSERT(mg_nav_import_matches(MG_NAV_IMP_PATH, "linux/slab.h", "include/linux/slab.h"));
    ASSERT(!mg_nav_import_matches(MG_NAV_IMP_PATH, "slab.h", "include/linux/myslab.h"));
    ASSERT(mg_nav_import_matches(MG_NAV_IMP_STEM, "web/a", "web/a.tsx"));
    ASSERT(!mg_nav_import_matches(MG_NAV_IMP_STEM, "web/a", "web/a/b.ts"));
    ASSERT(mg_nav_import_matches(MG_NAV_IMP_DIR_IN, "example.com/m/store", "store/s.go"));
    ASSERT(!mg_nav_import_matches(MG_NAV_IMP_DIR_IN, "example.com/m/store", "s.go"));
    ASSERT(mg_nav_import_matches(MG_NAV_IMP_DIR_END, "com/y", "src/com/y/C.java"));
    ASSERT(!mg_nav_import_matches(MG_NAV_IMP_DIR_END, "com/y", "src/com/y/z/C.java"));
    ASSERT(mg_nav_import_matches(MG_NAV_IMP_DIR, "", "main.go"));
    /* a long file: only its first MG_NAV_IMPORT_SCAN bytes are read */
    size_t n = MG_NAV_IMPORT_SCAN + 64;
    char *big = malloc(n + 1);
    memset(big, '\n', n);
    memcpy(big + MG_NAV_IMPORT_SCAN + 8, "import late\n", 12);
    big[n] = 0;
    ASSERT_EQ_STR(imports_of("python", "m.py", big), "");
    free(big);
}

/* 600 callers of one function: `callers` with limit 1000 serves what the
 * response's cap lets through and a next_cursor; following the cursors gives
 * every call once, in order, and the last page has none. The CLI does the
 * paging itself: `memgate callers leaf --limit 1000` prints all 600. */
TEST_T(nav_langs_callers_paged, 600)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "src/leaf.c", "int leaf(int x) { return x; }\n");
    static char text[20 * 120];
    for (int f = 0; f < 30; f++) {
        size_t o = 0;
        for (int k = 0; k < 20; k++)
            o += (size_t)snprintf(text + o, sizeof(text) - o,
                                  "int caller_with_a_rather_long_name_%02d_%02d(int a)\n{\n\treturn leaf(a) + 1;\n}\n", f,
                                  k);
        char path[64];
        snprintf(path, sizeof(path), "src/c%02d.c", f);
        mg_t_write(repo, path, text, o);
    }
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "wide", "--json", NULL}));
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    char code[64], args[256], seen[30][20] = {{0}};
    const char *cursor = NULL;
    json_t *r = NULL;
    int pages = 0, calls = 0;
    bool cut = false;
    do {
        if (cursor)
            snprintf(args, sizeof(args), "{\"symbol\":\"leaf\",\"repo\":\"wide\",\"limit\":1000,\"cursor\":\"%s\"}", cursor);
        else
            snprintf(args, sizeof(args), "{\"symbol\":\"leaf\",\"repo\":\"wide\",\"limit\":1000}");
        json_t *next = mg_t_call(&t, "callers", args, code);
        if (!next) FAIL("callers page %d: %s", pages, code);
        json_decref(r);
        r = next;
        cut |= json_is_true(json_object_get(r, "truncated"));
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(r, "calls"), i, c) {
            int f, k;
            if (sscanf(json_string_value(json_object_get(c, "from_name")), "caller_with_a_rather_long_name_%d_%d", &f,
                       &k) != 2 || f < 0 || f >= 30 || k < 0 || k >= 20)
                FAIL("odd caller %s", json_string_value(json_object_get(c, "from_name")));
            if (seen[f][k]++) FAIL("caller %d_%d served twice", f, k);
            calls++;
        }
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 600);
        cursor = json_string_value(json_object_get(r, "next_cursor"));
        pages++;
    } while (cursor && pages < 20);
    ASSERT(cut);      /* the cap did cut the first page */
    ASSERT(pages > 1);
    ASSERT_EQ_INT(calls, 600);
    json_decref(r);
    /* a cursor of another call is refused */
    ASSERT(!mg_t_call(&t, "callers", "{\"symbol\":\"x\",\"repo\":\"wide\",\"cursor\":\"5.0123456789abcdef\"}", code));
    ASSERT_EQ_STR(code, MG_E_BAD_ARG);
    mg_t_srv_close(&t);
    struct mg_t_out o = MG_RUN(NULL, home, "callers", "leaf", "--repo", "wide", "--limit", "1000");
    ASSERT_EQ_INT(o.status, 0);
    int lines = 0;
    for (const char *p = o.out; *p; p++) lines += *p == '\n';
    ASSERT_EQ_INT(lines, 601); /* the definition and 600 calls */
    ASSERT_CONTAINS(o.err, "600 of 600 calls");
    mg_t_out_free(&o);
}

/* Imports resolve calls in the languages added with issue 37 too: `norm`
 * is defined twice, and each caller's require/import/use says which. */
TEST_T(nav_langs_imports_resolve_more_languages, 300)
{
    static const char *const files[][2] = {
        {"rb/lib/a/util.rb", "def norm(x)\n  x\nend\n"},
        {"rb/lib/b/util.rb", "def norm(x)\n  -x\nend\n"},
        {"rb/app.rb", "require_relative 'lib/b/util'\n\ndef go_rb\n  norm(2)\nend\n"},
        {"lua/a/util.lua", "function scale(x) return x end\n"},
        {"lua/b/util.lua", "function scale(x) return -x end\n"},
        {"lua/main.lua", "local u = require(\"a.util\")\nfunction go_lua() return scale(2) end\n"},
        {"ex/lib/shop/price.ex", "defmodule Shop.Price do\n  def total(x), do: x\nend\n"},
        {"ex/lib/other/price.ex", "defmodule Other.Price do\n  def total(x), do: -x\nend\n"},
        {"ex/lib/shop/cart.ex", "defmodule Shop.Cart do\n  import Shop.Price\n  def go_ex(x), do: total(x)\nend\n"},
    };
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) mg_t_write_str(repo, files[i][0], files[i][1]);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "imp", "--json", NULL}));
    struct mg_t_srv t;
    mg_t_srv_open(&t, home, "local", MG_LEVEL_READ);
    static const char *const want[][3] = {
        {"go_rb", "norm", "rb/lib/b/util.rb"},
        {"go_lua", "scale", "lua/a/util.lua"},
        {"go_ex", "total", "ex/lib/shop/price.ex"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char code[64], args[128];
        snprintf(args, sizeof(args), "{\"symbol\":\"%s\",\"repo\":\"imp\"}", want[i][0]);
        json_t *r = mg_t_call(&t, "callees", args, code);
        if (!r) FAIL("callees %s: %s", want[i][0], code);
        json_t *c = json_array_get(json_object_get(r, "calls"), 0);
        ASSERT_EQ_STR(json_string_value(json_object_get(c, "callee")), want[i][1]);
        ASSERT_EQ_STR(json_string_value(json_object_get(c, "to_path")), want[i][2]);
        ASSERT_EQ_STR(json_string_value(json_object_get(c, "confidence")), "import");
        json_decref(r);
    }
    mg_t_srv_close(&t);
}
