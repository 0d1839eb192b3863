/* test_nav_ptr.c — C function pointers in navigation (search/nav.h,
 * nav_ptr.c): functions stored into a struct's field by designated,
 * positional and array initializers, by assignment and through an anonymous
 * struct's table are the callees ("pointer") of a call through that field of
 * that struct type, a macro's call through a field too, and callers the
 * other way; and memgate's own
 * `main` reaches `mg_index_run` through its tables of commands, tools,
 * operations and providers. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "search/nav.h"
#include "store/catalog.h"
#include "store/indexdb.h"
#include "util/config.h"

static const char *const FILES[][2] = {
    {"ops.h", "struct ops { int (*open)(int); int (*read)(int); };\n"   /* 1 */
              "struct other { int (*read)(int); };\n"                   /* 2 */
              "int read(int fd);\n"},                                   /* 3 */
    {"lib.c", "int read(int fd) { return fd; }\n"},                     /* 1 */
    {"impl.c", "#include \"ops.h\"\n"                                   /* 1 */
               "static int my_read(int x) { return x; }\n"              /* 2 */
               "static int my_open(int x) { return -x; }\n"             /* 3 */
               "static const struct ops fops = {\n"                     /* 4 */
               "\t.open = my_open,\n"                                   /* 5 */
               "\t.read = my_read,\n"                                   /* 6 */
               "};\n"},                                                 /* 7 */
    {"pos.c", "#include \"ops.h\"\n"                                    /* 1 */
              "static int pos_open(int x) { return x; }\n"              /* 2 */
              "static int pos_read(int x) { return x; }\n"              /* 3 */
              "static int tab_read(int x) { return x; }\n"              /* 4 */
              "struct ops pos_ops = { pos_open, pos_read };\n"          /* 5 */
              "struct ops tab[] = {\n"                                  /* 6 */
              "\t{ pos_open, /* read: */ tab_read },\n"                 /* 7 */
              "\t{ 0, 0 },\n"                                           /* 8 */
              "};\n"},                                                  /* 9 */
    {"assign.c", "#include \"ops.h\"\n"                                 /* 1 */
                 "int asg_read(int x) { return x; }\n"                  /* 2 */
                 "int asg_other(int x) { return x; }\n"                 /* 3 */
                 "void setup(struct ops *o, struct other *q)\n"         /* 4 */
                 "{\n"                                                  /* 5 */
                 "\to->read = asg_read;\n"                              /* 6 */
                 "\tq->read = &asg_other;\n"                            /* 7 */
                 "\to->open = my_open(1);\n"                            /* 8 */
                 "}\n"},                                                /* 9 */
    {"other.c", "#include \"ops.h\"\n"                                  /* 1 */
                "static int other_read(int x) { return x; }\n"          /* 2 */
                "const struct other oth = { .read = other_read };\n"},  /* 3 */
    {"late.c", "#include \"ops.h\"\n"                                  /* 1 */
               "static int late_read(int x);\n"                        /* 2: a declaration before the table */
               "static int late_read(int x) { return x; }\n"           /* 3 */
               "static const struct other late = { .read = late_read };\n"}, /* 4 */
    {"attr.c", "#include \"ops.h\"\n"                                  /* 1 */
               "static int attr_read(int x) { return x; }\n"           /* 2 */
               "static const struct ops attr_ops __initconst = { 0, attr_read };\n"}, /* 3: an attribute */
    {"main.c", "#include \"ops.h\"\n"                                   /* 1 */
               "extern struct ops *g_ops;\n"                            /* 2 */
               "#define OPS(f) (g_ops->f)\n"                            /* 3 */
               "int leaf(int x) { return x; }\n"                        /* 4 */
               "static int cmd_a(int x) { return leaf(x); }\n"          /* 5 */
               "static int cmd_b(int x) { return x; }\n"                /* 6 */
               "static const struct {\n"                                /* 7 */
               "\tconst char *name;\n"                                  /* 8 */
               "\tint (*fn)(int);\n"                                    /* 9 */
               "} cmds[] = {\n"                                         /* 10 */
               "\t{\"a, b\", cmd_a},\n"                                 /* 11 */
               "\t{\"b\", cmd_b},\n"                                    /* 12 */
               "};\n"                                                   /* 13 */
               "int use(struct ops *o) { return o->read(1); }\n"        /* 14 */
               "int use_other(const struct other *q)\n"                 /* 15 */
               "{\n"                                                    /* 16 */
               "\treturn q->read(2);\n"                                 /* 17 */
               "}\n"                                                    /* 18 */
               "int use_macro(void) { return OPS(open)(3); }\n"         /* 19 */
               "int dispatch(int i) { return cmds[i].fn(i); }\n"        /* 20 */
               "int entry(void) { return dispatch(0); }\n"},            /* 21 */
};

struct env {
    struct mg_config cfg;
    struct mg_db *d;
    char dbpath[4096];
};

static void open_repo(struct env *e, const char *root, const char *name)
{
    memset(e, 0, sizeof(*e));
    char *home = mg_t_tmpdir();
    setenv("MEMGATE_HOME", home, 1);
    setenv("MEMGATE_EMBEDDER", "none", 1);
    json_decref(mg_fx_run_json(NULL, home, (const char *const[]){"index", root, "--name", name, "--json", NULL}));
    struct mg_err err = {0};
    if (mg_config_load(&e->cfg, &err) != 0) FAIL("config: %s", err.msg);
    struct mg_repo *rv;
    size_t nr;
    const char *ids[1] = {name};
    if (mg_catalog_resolve(&e->cfg, ids, 1, NULL, &rv, &nr, &err) != 0) FAIL("resolve: %s", err.msg);
    snprintf(e->dbpath, sizeof(e->dbpath), "%s", rv[0].dbpath);
    if (mg_db_open(rv[0].dbpath, MG_DB_READONLY, &e->d, &err) != 0) FAIL("open: %s", err.msg);
    free(rv);
}

/* "from@line->to_path:to_line:callee(confidence)" for each edge of callees (dir 1) or callers (0). */
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
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s@%d->%s:%s(%s)", i ? " " : "", x->from->name, x->line, to,
                              x->callee, x->confidence);
    }
    mg_nav_graph_release(&g);
    return b;
}
/* The path of file fid. */
static const char *path_of(struct env *e, int64_t fid, char *out, size_t cap)
{
    struct mg_err err = {0};
    struct mg_idx_cur fc = {0};
    struct mg_idx_row fr;
    snprintf(out, cap, "?");
    if (mg_idx_file_by_id(e->d, fid, 0, &fc, &err) == 0 && mg_idx_next(&fc, &fr) > 0) snprintf(out, cap, "%s", fr.path);
    mg_idx_done(&fc);
    return out;
}

/* "path:line:fn:type" for each store into field (store/indexdb.h's ptr_stores), or, calls set,
 * "path:line:type" for each call through field (ptr_calls). */
static const char *rows(struct env *e, const char *field, bool calls)
{
    static char b[4096];
    struct mg_err err = {0};
    struct mg_idx_cur c = {0};
    struct mg_idx_row r;
    if ((calls ? mg_idx_ptr_calls_of_field : mg_idx_ptr_stores_of_field)(e->d, field, &c, &err) != 0)
        FAIL("%s %s: %s", calls ? "calls" : "stores", field, err.msg);
    size_t o = 0;
    b[0] = 0;
    while (mg_idx_next(&c, &r) > 0) {
        char fn[256] = "", ty[256], path[256];
        int64_t fid = r.file_id;
        int line = r.start_line;
        if (!calls) snprintf(fn, sizeof(fn), "%s:", r.name);
        snprintf(ty, sizeof(ty), "%s", r.container ? r.container : "?");
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s:%d:%s%s", o ? " " : "", path_of(e, fid, path, sizeof(path)),
                              line, fn, ty);
    }
    mg_idx_done(&c);
    return b;
}
#define stores(e, f) rows((e), (f), false)
#define calls(e, f) rows((e), (f), true)
#define callees(e, n) walk((e), 1, (n), 1)
#define callers(e, n, d) walk((e), 0, (n), (d))

TEST(nav_ptr_stores_are_callees_of_calls_through_the_field)
{
    char *repo = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(repo, FILES[i][0], FILES[i][1]);
    struct env e;
    open_repo(&e, repo, "ptr");
    /* the index holds the stores (table ptr_stores): by field, with the struct type stored into */
    ASSERT_EQ_STR(stores(&e, "read"), "assign.c:6:asg_read:ops assign.c:7:asg_other:other impl.c:6:my_read:ops "
                                      "late.c:4:late_read:other other.c:3:other_read:other");
    /* and the calls through fields (table ptr_calls), with the receiver's declared type: `OPS(open)(3)` through
     * main.c's macro, `cmds[i].fn(i)` of the anonymous struct's table */
    ASSERT_EQ_STR(calls(&e, "read"), "main.c:14:ops main.c:17:other");
    ASSERT_EQ_STR(calls(&e, "open"), "main.c:19:?");
    ASSERT_EQ_STR(calls(&e, "fn"), "main.c:20:cmds");
    /* o->read of a struct ops: positional (pos_ops, the array tab, attr_ops past its attribute), assigned
     * (o->read = asg_read) and designated (fops); not other_read, late_read nor asg_other (struct other's
     * read), nor the function read */
    ASSERT_EQ_STR(callees(&e, "use"), "use@14->attr.c:2:attr_read(pointer) use@14->pos.c:3:pos_read(pointer) "
                                      "use@14->pos.c:4:tab_read(pointer) use@14->assign.c:2:asg_read(pointer) "
                                      "use@14->impl.c:2:my_read(pointer)");
    /* q->read of a struct other: what was stored into struct other's read only */
    ASSERT_EQ_STR(callees(&e, "use_other"),
                  "use_other@17->assign.c:3:asg_other(pointer) use_other@17->late.c:3:late_read(pointer) "
                  "use_other@17->other.c:2:other_read(pointer)");
    /* a macro that expands to a call through a field; a global of unknown struct: any struct with open */
    ASSERT_EQ_STR(callees(&e, "use_macro"),
                  "use_macro@19->pos.c:2:pos_open(pointer) use_macro@19->impl.c:3:my_open(pointer)");
    /* an anonymous struct's table, a string with a comma in it */
    ASSERT_EQ_STR(callees(&e, "dispatch"),
                  "dispatch@20->main.c:5:cmd_a(pointer) dispatch@20->main.c:6:cmd_b(pointer)");
    /* callers, the other way: the calls through the fields a function is stored into, of its struct */
    ASSERT_EQ_STR(callers(&e, "my_read", 1), "impl.c@6->impl.c:2:my_read(value) use@14->impl.c:2:my_read(pointer)");
    ASSERT_EQ_STR(callers(&e, "other_read", 1),
                  "other.c@3->other.c:2:other_read(value) use_other@17->other.c:2:other_read(pointer)");
    /* (and the stores themselves, as values) */
    ASSERT_EQ_STR(callers(&e, "asg_read", 1),
                  "setup@6->assign.c:2:asg_read(value) use@14->assign.c:2:asg_read(pointer)");
    ASSERT_EQ_STR(callers(&e, "my_open", 1),
                  "impl.c@5->impl.c:3:my_open(value) use_macro@19->impl.c:3:my_open(pointer)");
    ASSERT_EQ_STR(callers(&e, "cmd_a", 2), "main.c@11->main.c:5:cmd_a(value) dispatch@20->main.c:5:cmd_a(pointer) "
                                           "entry@21->main.c:20:dispatch(exact)");
    ASSERT_EQ_STR(callers(&e, "read", 1), "");
    /* a path through the table */
    struct mg_err err = {0};
    struct mg_nav_paths p;
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "entry", "leaf", 6, 3, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n, 1);
    ASSERT_EQ_INT(p.len[0], 3);
    ASSERT_EQ_STR(p.paths[0][1].callee, "cmd_a");
    ASSERT_EQ_STR(p.paths[0][1].confidence, "pointer");
    mg_nav_paths_release(&p);
    mg_db_close(&e.d);
}

/* Macros and function values: a function named in a macro's body is called
 * (or used) wherever the macro is expanded, through macros expanding macros;
 * a macro pasting its argument to a word (`RM_ ## n`) uses the function it
 * names so; a function passed, stored or compared is a caller's "value". */
static const char *const MACROS[][2] = {
    {"api.h", "int reg(const char *n, void *f);\n"                               /* 1 */
              "#define HOOK(x) reg(#x, (void *)hook_ ## x)\n"},                  /* 2: pasted, named elsewhere */
    {"conf.c", "#include \"api.h\"\n"                                            /* 1 */
               "static int get_bool(int x) { return x + 1; }\n"                  /* 2 */
               "static int get_num(int x) { return x * 2; }\n"                   /* 3 */
               "int RM_Call(int x) { return x - 1; }\n"                          /* 4 */
               "int RM_Reply(int x) { return x - 2; }\n"                         /* 5 */
               "#define iface(getfn) .get = (getfn),\n"                          /* 6 */
               "#define mk_bool(nm) { .name = nm, \\\n"                          /* 7 */
               "    iface(get_bool) }\n"                                         /* 8: a continued line */
               "#define mk_num(nm) { .name = nm, iface(get_num) }\n"             /* 9 */
               "#define mk_int(nm) mk_num(nm)\n"                                 /* 10: a level deeper */
               "#define REG(name) reg(\"RM_\" #name, (void *)RM_ ## name)\n"     /* 11 */
               "struct conf { const char *name; int (*get)(int); };\n"           /* 12 */
               "static struct conf confs[] = {\n"                                /* 13 */
               "    mk_bool(\"a\"),\n"                                           /* 14 */
               "    mk_bool(\"b\"),\n"                                           /* 15 */
               "    mk_int(\"c\"),\n"                                            /* 16 */
               "};\n"                                                            /* 17 */
               "int apply(int (*f)(int), int v) { return f(v); }\n"              /* 18 */
               "int use(void)\n"                                                 /* 19 */
               "{\n"                                                             /* 20 */
               "    REG(Call);\n"                                                /* 21 */
               "    REG(Reply);\n"                                               /* 22 */
               "    if (confs[0].get == get_bool) return 0;\n"                   /* 23: compared, a member */
               "    return apply(get_num, 3) + confs[0].get(2);\n"               /* 24 */
               "}\n"},                                                           /* 25 */
    {"other.c", "#define mk_bool(nm) nm\n"                                      /* 1: another file's macro */
                "int get_bool(int x);\n"                                         /* 2: a declaration */
                "int other(void) { return mk_bool(1) + REG(Call); }\n"          /* 3 */
                "#define LIMIT 3\n"                                             /* 4 */
                "int lim(void) { return LIMIT; }\n"},                           /* 5: a macro's use, no value */
};

TEST(nav_macro_expansions_and_values_are_callers)
{
    char *repo = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(MACROS) / sizeof(MACROS[0]); i++) mg_t_write_str(repo, MACROS[i][0], MACROS[i][1]);
    struct env e;
    open_repo(&e, repo, "mac");
    /* named in mk_bool's body (on its continued line): each expansion in conf.c; other.c's mk_bool is
     * another macro; the comparison in use is a value; the declaration in other.c nothing */
    ASSERT_EQ_STR(callers(&e, "get_bool", 1), "use@23->conf.c:2:get_bool(value) conf.c@14->conf.c:2:get_bool(macro) "
                                              "conf.c@15->conf.c:2:get_bool(macro)");
    /* mk_num's body, expanded by mk_int's; passed to apply */
    ASSERT_EQ_STR(callers(&e, "get_num", 1), "use@24->conf.c:3:get_num(value) conf.c@16->conf.c:3:get_num(macro)");
    /* pasted: REG(Call) uses RM_Call, not RM_Reply; REG is conf.c's, so other.c's REG(Call) is not it */
    ASSERT_EQ_STR(callers(&e, "RM_Call", 1), "use@21->conf.c:4:RM_Call(macro)");
    ASSERT_EQ_STR(callers(&e, "RM_Reply", 1), "use@22->conf.c:5:RM_Reply(macro)");
    /* an object-like macro's uses are no callers (only a function is a value that may be called) */
    ASSERT_EQ_STR(callers(&e, "LIMIT", 1), "");
    /* a caller by macro is walked further: use's callers (none) */
    ASSERT_EQ_STR(callers(&e, "RM_Call", 2), "use@21->conf.c:4:RM_Call(macro)");
    mg_db_close(&e.d);
}

TEST_T(nav_ptr_memgate_main_reaches_the_indexer, 300)
{
    char cwd[4096];
    ASSERT(getcwd(cwd, sizeof(cwd)) != NULL);
    char src[4200];
    snprintf(src, sizeof(src), "%s/src", cwd);
    struct env e;
    open_repo(&e, src, "self");
    struct mg_err err = {0};
    struct mg_nav_paths p;
    ASSERT_EQ_INT(mg_nav_trace(e.d, NULL, "main", "mg_index_run", 8, 1, 0, &p, &err), 0);
    ASSERT_EQ_INT(p.n, 1);
    bool pointer = false;
    for (size_t k = 0; k < p.len[0]; k++) pointer |= strcmp(p.paths[0][k].confidence, "pointer") == 0;
    ASSERT(pointer);
    ASSERT_EQ_STR(p.paths[0][p.len[0] - 1].callee, "mg_index_run");
    mg_nav_paths_release(&p);
    /* trace's default depth reaches it too (the path is 7 calls) */
    json_t *tr = mg_fx_run_json(NULL, getenv("MEMGATE_HOME"),
                                (const char *const[]){"trace", "main", "mg_index_run", "--repo", "self", "--json", NULL});
    ASSERT(tr != NULL);
    ASSERT_EQ_INT(json_array_size(json_object_get(tr, "paths")), 1);
    json_decref(tr);
    /* the code provider's index operation is called through its table of operations */
    struct mg_nav_graph g;
    ASSERT_EQ_INT(mg_nav_callers(e.d, NULL, "op_index", 1, 100, 0, &g, &err), 0);
    bool r_index = false;
    for (size_t i = 0; i < g.n; i++)
        r_index |= strcmp(g.v[i].from->name, "r_index") == 0 && strcmp(g.v[i].confidence, "pointer") == 0;
    ASSERT(r_index);
    mg_nav_graph_release(&g);
    mg_db_close(&e.d);
}

TEST(nav_ptr_an_index_of_schema_3_gets_its_stores_from_the_next_run)
{
    char *repo = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(repo, FILES[i][0], FILES[i][1]);
    struct env e;
    open_repo(&e, repo, "old");
    char *want = strdup(callees(&e, "use"));
    ASSERT_CONTAINS(want, "impl.c:2:my_read(pointer)");
    mg_db_close(&e.d);
    /* an index of schema 3: no table of stores */
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open(e.dbpath, &db), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_exec(db, "DROP TABLE ptr_stores; PRAGMA user_version = 3;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct mg_err err = {0};
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    /* read as it is: no stores, the call resolved by name, no error */
    ASSERT_EQ_STR(callees(&e, "use"), "use@14->lib.c:1:read(name)");
    mg_db_close(&e.d);
    /* the next run migrates and fills the stores from the stored text: no file changed */
    json_decref(mg_fx_run_json(NULL, NULL, (const char *const[]){"index", repo, "--name", "old", "--json", NULL}));
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    ASSERT_EQ_STR(callees(&e, "use"), want);
    ASSERT_EQ_STR(stores(&e, "open"), "impl.c:5:my_open:ops"); /* `o->open = my_open(1)` stores no function */
    free(want);
    mg_db_close(&e.d);
}

TEST(nav_ptr_an_index_of_schema_4_gets_its_calls_from_the_next_run)
{
    char *repo = mg_t_tmpdir();
    for (size_t i = 0; i < sizeof(FILES) / sizeof(FILES[0]); i++) mg_t_write_str(repo, FILES[i][0], FILES[i][1]);
    struct env e;
    open_repo(&e, repo, "old4");
    char *want = strdup(callers(&e, "my_read", 1));
    ASSERT_CONTAINS(want, "use@14->impl.c:2:my_read(pointer)");
    mg_db_close(&e.d);
    /* an index of schema 4: no table of calls through fields */
    sqlite3 *db;
    ASSERT_EQ_INT(sqlite3_open(e.dbpath, &db), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_exec(db, "DROP TABLE ptr_calls; PRAGMA user_version = 4;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct mg_err err = {0};
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    /* read as it is: the callers through the field wait for the next run, no error */
    ASSERT_EQ_STR(callers(&e, "my_read", 1), "impl.c@6->impl.c:2:my_read(value)");
    ASSERT_EQ_STR(calls(&e, "read"), "");
    mg_db_close(&e.d);
    /* the next run migrates and fills the calls from the stored text: no file changed */
    json_decref(mg_fx_run_json(NULL, NULL, (const char *const[]){"index", repo, "--name", "old4", "--json", NULL}));
    if (mg_db_open(e.dbpath, MG_DB_READONLY, &e.d, &err) != 0) FAIL("open: %s", err.msg);
    ASSERT_EQ_STR(callers(&e, "my_read", 1), want);
    ASSERT_EQ_STR(calls(&e, "read"), "main.c:14:ops main.c:17:other");
    ASSERT_EQ_STR(stores(&e, "read"), "assign.c:6:asg_read:ops assign.c:7:asg_other:other impl.c:6:my_read:ops "
                                      "late.c:4:late_read:other other.c:3:other_read:other");
    free(want);
    mg_db_close(&e.d);
}
