/* test_outline_tool.c — the outline tool (a file's definitions from the
 * index): exact results for C, Python and TypeScript, paging by cursor, the
 * refusals read_file makes (the same codes for the same paths), tenants and
 * repos out of reach, and `memgate outline`. */
#include <string.h>

#include "inproc.h"
#include "test.h"

/* acme may index under /tmp, where the test directories are (index_roots) */
#define ACME_ROOTS "acme:/tmp"

static const char *C_FILE =
    "#include <stdlib.h>\n"
    "\n"
    "#define SQUARE(x) \\\n"
    "    ((x) * (x))\n"
    "\n"
    "struct point {\n"
    "    int x, y;\n"
    "};\n"
    "\n"
    "static int\n"
    "point_norm2(const struct point *p)\n"
    "{\n"
    "    return SQUARE(p->x) + SQUARE(p->y);\n"
    "}\n"
    "\n"
    "int add(int a,\n"
    "        int b) {\n"
    "    return a + b;\n"
    "}\n"
    "\n"
    "typedef struct point point_t;\n";

static const char *PY_FILE =
    "import functools\n"
    "\n"
    "\n"
    "class Store(dict):\n"
    "    \"\"\"A store.\"\"\"\n"
    "\n"
    "    def put(self, key,\n"
    "            value):\n"
    "        self[key] = value\n"
    "\n"
    "    @staticmethod\n"
    "    def empty():\n"
    "        return Store()\n"
    "\n"
    "\n"
    "def lookup(store, key):\n"
    "    def inner(k):\n"
    "        return store.get(k)\n"
    "    return inner(key)\n";

static const char *TS_FILE =
    "export interface Shape {\n"
    "  area(): number;\n"
    "}\n"
    "\n"
    "export class Circle implements Shape {\n"
    "  constructor(private r: number) {}\n"
    "\n"
    "  area(): number {\n"
    "    return Math.PI * this.r * this.r;\n"
    "  }\n"
    "}\n";

#define D(name, kind, lo, hi, sig) \
    "{\"name\":\"" name "\",\"kind\":\"" kind "\",\"start_line\":" #lo ",\"end_line\":" #hi \
    ",\"signature\":\"" sig "\"}"
#define M(name, kind, in, lo, hi, sig)                                                                     \
    "{\"name\":\"" name "\",\"kind\":\"" kind "\",\"container\":\"" in "\",\"start_line\":" #lo ",\"end_line\":" #hi \
    ",\"signature\":\"" sig "\"}"

static const char *C_WANT = "[" D("SQUARE", "macro", 3, 4, "#define SQUARE(x)") "," D("point", "struct", 6, 8,
    "struct point") "," M("x", "field", "point", 7, 7, "int x, y;") "," M("y", "field", "point", 7, 7, "int x, y;") "," D("point_norm2", "function", 10, 14, "static int point_norm2(const struct point *p)") ","
    D("add", "function", 16, 19, "int add(int a, int b)") "," D("point_t", "type", 21, 21,
    "typedef struct point point_t;") "]";
static const char *PY_WANT = "[" D("Store", "class", 4, 13, "class Store(dict):") "," M("put", "method", "Store", 7,
    9, "def put(self, key, value):") "," M("empty", "method", "Store", 11, 13, "def empty():") "," D("lookup",
    "function", 16, 19, "def lookup(store, key):") "," M("inner", "function", "lookup", 17, 18, "def inner(k):") "]";
/* (an interface's method signature and a constructor's parameter property are members too) */
static const char *TS_WANT = "[" D("Shape", "interface", 1, 3, "export interface Shape") "," M("area", "method",
    "Shape", 2, 2, "area(): number;") "," D("Circle", "class", 5, 11, "export class Circle implements Shape") ","
    M("constructor", "constructor", "Circle", 6, 6, "constructor(private r: number)") "," M("r", "field", "Circle", 6,
    6, "constructor(private r: number)") "," M("area", "method", "Circle", 8, 10, "area(): number") "]";

/* a token in a default argument: the signature is served redacted */
#define TOKEN "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
static const char *SECRET_FILE = "def connect(host, token=\"" TOKEN "\"):\n    return host\n";

static char *home_dir;

/* A repo with the three files, a secret file and a symlink out of the root,
 * indexed as `name` for tenant (NULL: local). */
static char *make_repo(const char *name, const char *tenant)
{
    char *dir = mg_t_tmpdir(), *outside = mg_t_tmpdir();
    mg_t_write_str(dir, "src/shapes.c", C_FILE);
    mg_t_write_str(dir, "src/store.py", PY_FILE);
    mg_t_write_str(dir, "web/shape.ts", TS_FILE);
    mg_t_write_str(dir, "README.md", "# fixture\n");
    mg_t_write_str(dir, "src/conn.py", SECRET_FILE);
    mg_t_write_str(dir, ".env", "TOKEN=outline_env_canary\n");
    mg_t_write_str(outside, "secret.txt", "outside the root\n");
    mg_t_sh(dir, "ln -s %s/secret.txt src/link.txt", outside);
    mg_t_write_str(home_dir, "config", "index_roots = " ACME_ROOTS "\n");
    struct mg_t_out o = tenant ? MG_RUN(dir, home_dir, "index", dir, "--name", name, "--tenant", tenant, "--quiet")
                               : MG_RUN(dir, home_dir, "index", dir, "--name", name, "--quiet");
    if (o.status != 0) FAIL("index %s: %s", name, o.err);
    mg_t_out_free(&o);
    return dir;
}

static char *dump(json_t *j)
{
    static char buf[8192];
    char *s = json_dumps(j, JSON_COMPACT);
    snprintf(buf, sizeof(buf), "%s", s ? s : "(null)");
    free(s);
    return buf;
}

static json_t *outline(struct mg_t_srv *t, const char *args)
{
    char code[64], msg[1024];
    json_t *r = mg_t_call_msg(t, "outline", args, code, msg);
    if (!r) FAIL("outline %s: error[%s]: %s", args, code, msg);
    return r;
}

TEST(outline_tool_lists_definitions)
{
    home_dir = mg_t_tmpdir();
    make_repo("alpha", NULL);
    struct mg_t_srv t;
    mg_t_srv_open(&t, home_dir, "local", MG_LEVEL_READ);
    static const struct {
        const char *path, *lang;
        int lines, total;
    } files[] = {
        {"src/shapes.c", "c", 21, 7},
        {"./src/store.py", "python", 19, 5},
        {"web/shape.ts", "typescript", 11, 6},
    };
    json_t *r;
    const char *want[] = {C_WANT, PY_WANT, TS_WANT};
    for (size_t i = 0; i < 3; i++) {
        char args[256];
        snprintf(args, sizeof(args), "{\"path\":\"%s\"}", files[i].path);
        r = outline(&t, args);
        ASSERT_EQ_STR(dump(json_object_get(r, "symbols")), want[i]);
        ASSERT_EQ_STR(json_string_value(json_object_get(r, "repo")), "alpha");
        ASSERT_EQ_STR(json_string_value(json_object_get(r, "path")), files[i].path + (files[i].path[0] == '.' ? 2 : 0));
        ASSERT_EQ_STR(json_string_value(json_object_get(r, "language")), files[i].lang);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "lines")), files[i].lines);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), files[i].total);
        ASSERT(json_is_null(json_object_get(r, "next_cursor")));
        ASSERT_EQ_INT(json_integer_value(json_object_get(json_object_get(r, "gate"), "omitted")), 0);
        json_decref(r);
    }
    /* a secret in a signature: redacted (the index did, the gate would) */
    r = outline(&t, "{\"path\":\"src/conn.py\"}");
    char *text = json_dumps(r, JSON_COMPACT);
    ASSERT_NOT_CONTAINS(text, TOKEN);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_array_get(json_object_get(r, "symbols"), 0), "signature")),
                    "def connect(host, token=\"[REDACTED:");
    free(text);
    json_decref(r);
    /* a file without definitions */
    r = outline(&t, "{\"path\":\"README.md\",\"repo\":\"alpha\"}");
    ASSERT_EQ_STR(dump(json_object_get(r, "symbols")), "[]");
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 0);
    json_decref(r);
    mg_t_srv_close(&t);
}

TEST(outline_tool_pages_by_cursor)
{
    home_dir = mg_t_tmpdir();
    make_repo("alpha", NULL);
    struct mg_t_srv t;
    mg_t_srv_open(&t, home_dir, "local", MG_LEVEL_READ);
    /* pages of 2: the same definitions, in the same order, as one call */
    json_t *all = json_array();
    const char *cursor = NULL;
    char next[160] = "";
    static const char *const nexts[] = {"2", "4", NULL};
    for (int page = 0; page < 3; page++) {
        char args[256];
        snprintf(args, sizeof(args), "{\"path\":\"src/store.py\",\"limit\":2%s%s%s}", cursor ? ",\"cursor\":\"" : "",
                 cursor ? cursor : "", cursor ? "\"" : "");
        json_t *r = outline(&t, args);
        json_t *defs = json_object_get(r, "symbols");
        ASSERT_EQ_INT(json_array_size(defs), page < 2 ? 2 : 1);
        ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 5);
        json_array_extend(all, defs);
        json_t *nc = json_object_get(r, "next_cursor");
        if (nexts[page]) {
            /* outline's own cursor (the definitions served), sealed with its MAC (tools/cursor.c) */
            const char *sc = json_string_value(nc);
            ASSERT(sc && strncmp(sc, nexts[page], strlen(nexts[page])) == 0 && sc[strlen(nexts[page])] == '.');
            snprintf(next, sizeof(next), "%s", json_string_value(nc));
            cursor = next;
        } else {
            ASSERT(json_is_null(nc));
        }
        json_decref(r);
    }
    ASSERT_EQ_STR(dump(all), PY_WANT);
    json_decref(all);
    json_t *r;
    /* the response's cap on text leaves the last definitions out: the next page starts at the first of them */
    t.srv.cfg.max_context_bytes = 40; /* "class Store(dict):" and 22 bytes of the next signature */
    r = outline(&t, "{\"path\":\"src/store.py\"}");
    ASSERT_EQ_INT(json_array_size(json_object_get(r, "symbols")), 2);
    ASSERT_EQ_INT(json_integer_value(json_object_get(json_object_get(r, "gate"), "omitted")), 3);
    ASSERT(strncmp(json_string_value(json_object_get(r, "next_cursor")), "2.", 2) == 0);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 5);
    json_decref(r);
    t.srv.cfg.max_context_bytes = 32 << 10;
    /* cursors this server never gave, limits out of range */
    static const char *const bad[] = {
        "{\"path\":\"src/store.py\",\"cursor\":\"99\"}", /* made up, though it reads as a count (V11) */
        "{\"path\":\"src/store.py\",\"cursor\":\"x\"}",    "{\"path\":\"src/store.py\",\"cursor\":\"-1\"}",
        "{\"path\":\"src/store.py\",\"cursor\":\"\"}",     "{\"path\":\"src/store.py\",\"cursor\":\"2x\"}",
        "{\"path\":\"src/store.py\",\"cursor\":\" 2\"}",   "{\"path\":\"src/store.py\",\"cursor\":2}",
        "{\"path\":\"src/store.py\",\"limit\":0}",         "{\"path\":\"src/store.py\",\"limit\":2001}",
        "{\"path\":\"src/store.py\",\"offset\":2}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char code[64];
        json_t *e = mg_t_call(&t, "outline", bad[i], code);
        if (e) FAIL("outline %s succeeded: %s", bad[i], dump(e));
        ASSERT_EQ_STR(code, "invalid_argument");
    }
    mg_t_srv_close(&t);
}

/* outline and read_file of args: the same error code, and it is want. */
static void refused_like_read_file(struct mg_t_srv *t, const char *args, const char *want)
{
    char oc[64], rc[64];
    json_t *o = mg_t_call(t, "outline", args, oc), *r = mg_t_call(t, "read_file", args, rc);
    if (o || r)
        FAIL("%s: outline %s, read_file %s; expected %s", args, o ? "succeeded" : oc, r ? "succeeded" : rc, want);
    ASSERT_EQ_STR(rc, want);
    if (strcmp(oc, rc) != 0) FAIL("%s: outline says %s, read_file %s", args, oc, rc);
}

TEST(outline_tool_refuses_what_read_file_refuses)
{
    home_dir = mg_t_tmpdir();
    make_repo("alpha", NULL);
    make_repo("beta", NULL);
    make_repo("gamma", "acme");
    struct mg_t_srv t;
    mg_t_srv_open(&t, home_dir, "local", MG_LEVEL_READ);
    /* two repos, none chosen */
    refused_like_read_file(&t, "{\"path\":\"src/shapes.c\"}", "repo_required");
    static const char *const paths[][2] = {
        {"../outside", "path_outside_repo"}, {"src/../../x", "path_outside_repo"}, {"/etc/passwd", "path_outside_repo"},
        {"~/.ssh/id_rsa", "path_outside_repo"}, {"src/../.env", "path_outside_repo"}, {".env", "secret_file"},
        {"src/link.txt", "file_not_found"}, /* never indexed: a symlink out of the root */
        {"nope.c", "file_not_found"},        {"src", "file_not_found"},
    };
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        char args[256];
        snprintf(args, sizeof(args), "{\"path\":\"%s\",\"repo\":\"alpha\"}", paths[i][0]);
        refused_like_read_file(&t, args, paths[i][1]);
    }
    refused_like_read_file(&t, "{\"repo\":\"alpha\"}", "invalid_argument");
    refused_like_read_file(&t, "{\"path\":7,\"repo\":\"alpha\"}", "invalid_argument");
    refused_like_read_file(&t, "{\"path\":\"src/shapes.c\",\"repo\":\"alpha\",\"bogus\":1}", "invalid_argument");
    /* another tenant's repo does not exist for this caller */
    refused_like_read_file(&t, "{\"path\":\"src/shapes.c\",\"repo\":\"gamma\"}", "repo_not_found");
    t.repo_header = "gamma";
    refused_like_read_file(&t, "{\"path\":\"src/shapes.c\"}", "repo_not_found");
    t.repo_header = NULL;
    /* the session scope picks the repo; an explicit repo replaces it for the call */
    char code[64];
    json_t *s = mg_t_call(&t, "set_scope", "{\"repos\":[\"beta\"]}", code);
    ASSERT(s);
    json_decref(s);
    json_t *r = outline(&t, "{\"path\":\"src/shapes.c\"}");
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "repo")), "beta");
    json_decref(r);
    r = outline(&t, "{\"path\":\"src/shapes.c\",\"repo\":\"alpha\"}");
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "repo")), "alpha");
    json_decref(r);
    s = mg_t_call(&t, "clear_scope", "{}", code);
    json_decref(s);
    /* a token limited to some repos: the others are forbidden */
    char *only[] = {"beta"};
    t.who.repos = only;
    t.who.nrepos = 1;
    refused_like_read_file(&t, "{\"path\":\"src/shapes.c\",\"repo\":\"alpha\"}", "repo_forbidden");
    r = outline(&t, "{\"path\":\"src/shapes.c\"}"); /* the one repo it may see */
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "repo")), "beta");
    json_decref(r);
    t.who.repos = NULL;
    t.who.nrepos = 0;
    mg_t_srv_close(&t);

    /* acme sees gamma only: local's repos are not found, its own is served */
    struct mg_t_srv a;
    mg_t_srv_open(&a, home_dir, "acme", MG_LEVEL_READ);
    refused_like_read_file(&a, "{\"path\":\"src/shapes.c\",\"repo\":\"alpha\"}", "repo_not_found");
    r = outline(&a, "{\"path\":\"src/shapes.c\"}");
    ASSERT_EQ_STR(json_string_value(json_object_get(r, "repo")), "gamma");
    ASSERT_EQ_STR(dump(json_object_get(r, "symbols")), C_WANT);
    json_decref(r);
    mg_t_srv_close(&a);
}

TEST(outline_tool_command)
{
    home_dir = mg_t_tmpdir();
    char *dir = make_repo("alpha", NULL);
    struct mg_t_out o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *j = mg_t_json(o.out);
    ASSERT_EQ_STR(dump(json_object_get(j, "symbols")), PY_WANT);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "repo")), "alpha");
    json_decref(j);
    mg_t_out_free(&o);
    /* the human form: lines, kind, signature (a member indented); the count on stderr */
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--repo", "alpha", "--limit", "2");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_EQ_STR(o.out, "        4-13  class        class Store(dict):\n"
                         "         7-9  method         def put(self, key, value):\n");
    ASSERT(strncmp(o.err, "src/store.py [python]: 5 definitions; 2 shown, --cursor 2.", 58) == 0);
    ASSERT_CONTAINS(o.err, " for the next\n");
    char c2[160];
    snprintf(c2, sizeof(c2), "%.*s", (int)strcspn(o.err + 56, " "), o.err + 56);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--repo", "alpha", "--limit", "2", "--cursor", c2);
    ASSERT_EQ_INT(o.status, 0);
    char c4[160];
    const char *at = strstr(o.err, "--cursor ");
    ASSERT(at);
    snprintf(c4, sizeof(c4), "%.*s", (int)strcspn(at + 9, " "), at + 9);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--repo", "alpha", "--limit", "2", "--cursor", c4);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_EQ_STR(o.out, "       17-18  function       def inner(k):\n");
    mg_t_out_free(&o);
    /* a cursor made by hand: refused (issue 38, V11) */
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--cursor", "4");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "invalid_argument");
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "--help");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "usage: memgate outline PATH");
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--limit", "0");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "../etc/passwd");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[path_outside_repo]");
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", ".env");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[secret_file]");
    ASSERT_NOT_CONTAINS(o.err, "outline_env_canary");
    mg_t_out_free(&o);
    o = MG_RUN(dir, home_dir, "outline", "src/store.py", "--cursor", "next");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[invalid_argument]");
    mg_t_out_free(&o);
    /* it is audited under the tool's name */
    o = MG_RUN(dir, home_dir, "audit", "--op", "outline", "--json");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "\"op\":\"outline\"");
    ASSERT_NOT_CONTAINS(o.err, "writes no op");
    mg_t_out_free(&o);
}
