/* test_nav_dispatch.c — interface and virtual dispatch as "may call" edges
 * (search/nav_dispatch.c): a call through a receiver declared of an
 * interface, base or abstract type reaches the type's own method ("type")
 * and each implementation's ("dispatch"), in Go (method sets), Java, C#,
 * Kotlin, TypeScript, C++ and Python (class headers); callers find the call
 * from an implementation, and a type that does not derive is never reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "search/nav.h"
#include "store/catalog.h"
#include "util/config.h"

static const char *const FILES[][2] = {
    {"go/shape/shape.go", "package shape\n"                                   /* 1 */
                          "\n"                                                /* 2 */
                          "type Shape interface {\n"                          /* 3 */
                          "\tArea() int\n"                                    /* 4 */
                          "\tName() string\n"                                 /* 5 */
                          "}\n"                                               /* 6 */
                          "type Sq struct{ s int }\n"                         /* 7 */
                          "func (q *Sq) Area() int    { return q.s * q.s }\n" /* 8 */
                          "func (q *Sq) Name() string { return \"sq\" }\n"    /* 9 */
                          "type Half struct{}\n"                              /* 10 */
                          "func (h Half) Area() int { return 0 }\n"           /* 11 */
                          "func Total(s Shape) int { return s.Area() }\n"},   /* 12 */
    {"java/Shapes.java", "interface Shape { int area(); }\n"                                   /* 1 */
                         "abstract class Base implements Shape { public abstract int area(); }\n" /* 2 */
                         "class Sq extends Base { public int area() { return 4; } }\n"          /* 3 */
                         "class Ci implements Comparable<Shape> { public int area() { return 3; } }\n" /* 4 */
                         "class Use { int total(Shape s) { return s.area(); } }\n"},           /* 5 */
    {"cs/Shapes.cs", "interface IShape { int Perimeter(); }\n"                               /* 1 */
                     "class Box : IShape { public int Perimeter() { return 4; } }\n"         /* 2 */
                     "class Cube : Box { public new int Perimeter() { return 12; } }\n"      /* 3 */
                     "class Loose { public int Perimeter() { return 0; } }\n"                /* 4 */
                     "class UseCs { int Sum(IShape s) { return s.Perimeter(); } }\n"},      /* 5 */
    {"kt/Shapes.kt", "interface Drawable {\n"                 /* 1 */
                     "    fun draw(): Int\n"                  /* 2 */
                     "}\n"                                    /* 3 */
                     "class Pen(val w: Int) : Drawable {\n"   /* 4 */
                     "    override fun draw(): Int = w\n"     /* 5 */
                     "}\n"                                    /* 6 */
                     "class Brush(val d: Drawable) {\n"       /* 7 */
                     "    fun draw(): Int = 0\n"              /* 8 */
                     "}\n"                                    /* 9 */
                     "fun paint(x: Drawable): Int {\n"        /* 10 */
                     "    return x.draw()\n"                  /* 11 */
                     "}\n"},                                  /* 12 */
    {"ts/shape.ts", "interface Widget { render(): number; }\n"                         /* 1 */
                    "class Btn implements Widget { render(): number { return 4; } }\n" /* 2 */
                    "class Plain { render(): number { return 0; } }\n"                 /* 3 */
                    "export function show(w: Widget): number { return w.render(); }\n"}, /* 4 */
    {"cpp/shape.cpp", "struct Solid { virtual int volume() const = 0; };\n"                 /* 1 */
                      "struct Ball : public Solid { int volume() const override { return 4; } };\n" /* 2 */
                      "struct Other { int volume() const { return 0; } };\n"                /* 3 */
                      "int measure(const Solid &s) { return s.volume(); }\n"},             /* 4 */
    {"py/shape.py", "class Animal:\n"            /* 1 */
                    "    def speak(self):\n"     /* 2 */
                    "        return 0\n"         /* 3 */
                    "class Dog(Animal):\n"       /* 4 */
                    "    def speak(self):\n"     /* 5 */
                    "        return 4\n"         /* 6 */
                    "class Rock:\n"              /* 7 */
                    "    def speak(self):\n"     /* 8 */
                    "        return 1\n"         /* 9 */
                    "def chorus(a: Animal):\n"   /* 10 */
                    "    return a.speak()\n"},   /* 11 */
};

static struct mg_db *open_repo(void)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(repo, FILES[i][0], FILES[i][1]);
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", repo, "--name", "disp", "--json", NULL}));
    struct mg_err err = {0};
    struct mg_config cfg;
    if (mg_config_load(&cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {"disp"};
    if (mg_catalog_resolve(&cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    struct mg_db *d;
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &d, &err) != 0) FAIL("open: %s", err.msg);
    free(rv);
    return d;
}

/* "from@line->to_path:to_line(confidence)" for each edge of callees (dir 1)
 * or callers (0) of name, external ones left out. */
static const char *edges(struct mg_db *d, int dir, const char *name)
{
    static char b[4096];
    struct mg_err err = {0};
    struct mg_nav_graph g;
    int rc = dir ? mg_nav_callees(d, NULL, name, 1, 100, 0, &g, &err) : mg_nav_callers(d, NULL, name, 1, 100, 0, &g, &err);
    if (rc != 0) FAIL("%s %s: %s", dir ? "callees" : "callers", name, err.msg);
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct mg_nav_edge *x = &g.v[i];
        if (strcmp(x->confidence, "external") == 0) continue;
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s@%d->%s:%d(%s)", o ? " " : "", x->from->name, x->line,
                              x->to->path, x->to->start_line, x->confidence);
    }
    mg_nav_graph_release(&g);
    return b;
}

TEST(nav_dispatch_reaches_the_implementations)
{
    struct mg_db *d = open_repo();
    /* Go: Sq has Area and Name (Shape's method set), Half only Area */
    ASSERT_EQ_STR(edges(d, 1, "Total"), "Total@12->go/shape/shape.go:4(type) Total@12->go/shape/shape.go:8(dispatch)");
    /* Java: Base implements Shape, Sq extends Base; Ci's Shape is a generic argument, not a base */
    ASSERT_EQ_STR(edges(d, 1, "total"), "total@5->java/Shapes.java:1(type) total@5->java/Shapes.java:2(dispatch) "
                                        "total@5->java/Shapes.java:3(dispatch)");
    /* C#: Box : IShape, Cube : Box (two levels); Loose is no IShape */
    ASSERT_EQ_STR(edges(d, 1, "Sum"), "Sum@5->cs/Shapes.cs:1(type) Sum@5->cs/Shapes.cs:2(dispatch) "
                                      "Sum@5->cs/Shapes.cs:3(dispatch)");
    /* Kotlin: Pen's constructor parameter list is skipped, Brush only holds a Drawable */
    ASSERT_EQ_STR(edges(d, 1, "paint"), "paint@11->kt/Shapes.kt:2(type) paint@11->kt/Shapes.kt:5(dispatch)");
    /* TypeScript */
    ASSERT_EQ_STR(edges(d, 1, "show"), "show@4->ts/shape.ts:1(type) show@4->ts/shape.ts:2(dispatch)");
    /* C++: a pure virtual's overrider, not the first volume of the file nor Other's */
    ASSERT_EQ_STR(edges(d, 1, "measure"), "measure@4->cpp/shape.cpp:2(dispatch)");
    /* Python: the base's method and the subclass's override */
    ASSERT_EQ_STR(edges(d, 1, "chorus"), "chorus@11->py/shape.py:2(type) chorus@11->py/shape.py:5(dispatch)");
    /* callers of the implementations: the call through the interface, as "dispatch" */
    ASSERT_EQ_STR(edges(d, 0, "volume"), "measure@4->cpp/shape.cpp:2(dispatch)");
    ASSERT_EQ_STR(edges(d, 0, "speak"), "chorus@11->py/shape.py:2(type) chorus@11->py/shape.py:5(dispatch)");
    ASSERT_EQ_STR(edges(d, 0, "draw"), "paint@11->kt/Shapes.kt:2(type) paint@11->kt/Shapes.kt:5(dispatch)");
    mg_db_close(&d);
}

TEST(nav_dispatch_paths_go_through_the_implementation)
{
    struct mg_db *d = open_repo();
    struct mg_err err = {0};
    struct mg_nav_paths p;
    ASSERT_EQ_INT(mg_nav_trace(d, NULL, "Sum", "Perimeter", 3, 10, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n >= 1, 1);
    bool disp = false;
    for (size_t i = 0; i < p.n; i++)
        for (size_t k = 0; k < p.len[i]; k++) disp |= strcmp(p.paths[i][k].confidence, "dispatch") == 0;
    ASSERT_EQ_INT(disp, 1);
    mg_nav_paths_release(&p);
    mg_db_close(&d);
}
