/* test_rules.c — the layering rules of docs/architecture.md, checked on the
 * sources, so that a change that breaks them fails here and not in a review.
 *
 *   - each directory under src/ is a layer that includes only the layers its
 *     row in `layers` lists (a file may have one named exception);
 *   - a tool never calls another tool: only tools/registry.c runs tools;
 *   - only the request layer reaches the providers (`providers` of struct
 *     mg_server), and only request/server.c opens the built-in ones;
 *   - only request/session.c defines struct mg_session: everyone else binds,
 *     scopes and reads a session through its verbs;
 *   - only store/ writes SQL on the repo index's tables (store/indexdb.h owns
 *     them): index, search, code, vector and embed call its typed reads and
 *     writes;
 *   - a file over 300 lines opens with a map of its sections ("Sections:" in
 *     its first 60 lines);
 *   - a directory not in the table fails until it is given a row.
 *
 * A second test plants one violation of each rule in a scratch tree and
 * checks that each is reported, so the checker cannot pass by seeing nothing.
 */
#include "test.h"

#include <dirent.h>
#include <stdbool.h>
#include <regex.h>
#include <sys/stat.h>

#include "util/buf.h"

static const struct {
    const char *dir;
    const char *may; /* the directories its files may include, space-separated */
} layers[] = {
    {"util", "util"},
    {"store", "store util"},
    {"security", "security store util"},
    {"embed", "embed store util"},
    {"vector", "vector embed store util"},
    {"index", "index security store util vector"},
    {"hook", "hook security store util"},
    {"oauth", "oauth security store util"},
    {"search", "search embed index security store util vector"},
    {"provider", "provider store util"},
    {"code", "code provider embed index search security store util vector"},
    {"memory", "memory provider embed security store util vector"},
    {"request", "request provider security store util"},
    {"tools", "tools request provider util"},
    {"mcp", "mcp request security tools util"},
    {"http", "http hook mcp oauth request security tools util"},
    {"cli", "cli http mcp request security tools util"},
    {".", "cli util"}, /* main.c */
};

/* Includes allowed across the table, each for a stated reason. file: a path
 * under src/, or "dir/" for every file of a directory. */
static const struct {
    const char *file, *header;
} exceptions[] = {
    {"request/server.c", "code/code.h"},     /* opens the built-in code provider */
    {"request/server.c", "memory/memory.h"}, /* ... and the memory providers */
    {"request/server.c", "code/mcpcode.h"},  /* ... and the external MCP code providers */
    {"request/server.c", "memory/mem0.h"},   /* ... and Mem0 for session memory */
    {"tools/", "index/lang.h"},              /* the languages a search may name */
    {"cli/cmd_scan.c", "index/walk.h"},      /* memgate scan walks a tree as the indexer does */
    {"cli/cmd_status.c", "embed/embed.h"},   /* memgate status names the embedder the settings choose */
    {"vector/vext.c", "security/audit.h"},   /* audits that a repo's vectors go to an external store */
    {"rulesdb.c", "security/scan.h"},        /* the build tool compiling the rules' databases ... */
    {"rulesdb.c", "security/sanitize.h"},    /* ... and the injection check's */
};

static const char *layer_of(const char *rel, char *dir, size_t cap)
{
    const char *slash = strchr(rel, '/');
    if (!slash) snprintf(dir, cap, ".");
    else snprintf(dir, cap, "%.*s", (int)(slash - rel), rel);
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++)
        if (strcmp(layers[i].dir, dir) == 0) return layers[i].may;
    return NULL;
}

static bool in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return true;
    return false;
}

static bool excepted(const char *rel, const char *header)
{
    for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++) {
        const char *f = exceptions[i].file;
        size_t n = strlen(f);
        bool match = f[n - 1] == '/' ? strncmp(rel, f, n) == 0 : strcmp(rel, f) == 0;
        if (match && strcmp(header, exceptions[i].header) == 0) return true;
    }
    return false;
}

/* The code of a file without comments and, unless keep_strings, without the
 * text of string and character literals (so a name in a comment or a
 * message is no call; SQL, which lives in strings, keeps them). */
static char *code_text(const char *s, bool keep_strings)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (size_t)(e - s) + 1 : n;
            o[k++] = ' ';
        } else if (s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') i++;
            o[k++] = '\n';
        } else if ((s[i] == '"' || s[i] == '\'') && !keep_strings) {
            char q = s[i];
            o[k++] = q;
            for (i++; i < n && s[i] != q && s[i] != '\n'; i++)
                if (s[i] == '\\') i++;
            o[k++] = q;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    return o;
}

static char *code_only(const char *s) { return code_text(s, false); }

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct mg_buf b;
    mg_buf_init(&b, 16u << 20);
    char chunk[8192];
    size_t r;
    while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) mg_buf_add(&b, chunk, r);
    fclose(f);
    char *t = mg_buf_detach(&b, NULL);
    return t ? t : strdup("");
}

/* SQL naming a table of the repo index (store/indexdb.h): only store/ may. */
#define INDEX_SQL                                                                                                    \
    "\\b(FROM|INTO|UPDATE|JOIN|TABLE)[ \t]+(files|chunks|symbols|refs|chunks_fts|trigrams|tri_[a-z]+|meta|vectors|"    \
    "embed_model)\\b"
#define MAP_LINES 300 /* a file longer than this opens with its section map */

/* A pattern of code that only some files may contain. */
static const struct {
    const char *pattern; /* POSIX extended regex over code_only text */
    const char *where;   /* the path prefixes (under src/) allowed, space-separated */
    const char *what;    /* what it means, for the report */
} calls[] = {
    {"\\bmg_tools_call[ \t]*\\(|\\bmg_tool_find[ \t]*\\(|->call[ \t]*\\(",
     "tools/registry.c tools/tools.h mcp/ http/ cli/", "runs a tool: only the registry and the transports do"},
    {"(->|\\.)[ \t]*providers\\b", "request/", "reaches the providers: only the request layer does"},
    {"\\bmg_[a-z_]*_builtin_open[ \t]*\\(", "request/server.c code/ memory/",
     "opens a built-in provider: only request/server.c does"},
    {"\\bstruct[ \t]+mg_session[ \t]*\\{", "request/session.c",
     "defines struct mg_session: only request/session.c does (callers use its verbs)"},
};

static bool allowed_at(const char *where, const char *rel)
{
    char w[256];
    snprintf(w, sizeof(w), "%s", where);
    for (char *save = NULL, *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(t);
        if (t[n - 1] == '/' ? strncmp(rel, t, n) == 0 : strcmp(rel, t) == 0) return true;
    }
    return false;
}

static int line_of(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) line += text[i] == '\n';
    return line;
}

static void check_file(const char *root, const char *rel, struct mg_buf *out, int *count)
{
    char path[4096], dir[64];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    char *text = slurp(path);
    if (!text) FAIL("cannot read %s", path);
    const char *may = layer_of(rel, dir, sizeof(dir));
    if (!may) {
        mg_buf_addf(out, "%s: directory '%s' is in no layer: give it a row in tests/test_rules.c and a place in "
                         "docs/architecture.md\n", rel, dir);
        ++*count;
        free(text);
        return;
    }
    /* includes */
    for (const char *p = text; (p = strstr(p, "#include \"")) != NULL; p++) {
        if (p != text && p[-1] != '\n') continue;
        const char *h = p + 10, *e = strchr(h, '"');
        if (!e) break;
        char header[256], hdir[64];
        snprintf(header, sizeof(header), "%.*s", (int)(e - h), h);
        const char *slash = strchr(header, '/');
        if (!slash || strncmp(header, "../", 3) == 0) continue; /* same-directory or outside src/ */
        snprintf(hdir, sizeof(hdir), "%.*s", (int)(slash - header), header);
        if (in_list(may, hdir) || excepted(rel, header)) continue;
        mg_buf_addf(out, "%s:%d: includes %s, but layer '%s' may include only: %s\n", rel, line_of(text, p - text),
                    header, dir, may);
        ++*count;
    }
    /* its section map */
    int lines = line_of(text, strlen(text)) - 1; /* its newlines */
    const char *map = strstr(text, "Sections:");
    if (lines > MAP_LINES && (!map || line_of(text, (size_t)(map - text)) > 60)) {
        mg_buf_addf(out, "%s: %d lines and no section map (\"Sections:\" in its first 60 lines, STYLE.md)\n", rel,
                    lines);
        ++*count;
    }
    /* SQL on the index's tables */
    if (strncmp(rel, "store/", 6) != 0) {
        char *with_strings = code_text(text, true);
        regex_t re;
        if (regcomp(&re, INDEX_SQL, REG_EXTENDED) != 0) FAIL("bad pattern %s", INDEX_SQL);
        regmatch_t m;
        if (regexec(&re, with_strings, 1, &m, 0) == 0) {
            mg_buf_addf(out, "%s:%d: SQL on the index's tables (\"%.*s\"): only store/ (store/indexdb.h) may\n", rel,
                        line_of(with_strings, (size_t)m.rm_so), (int)(m.rm_eo - m.rm_so), with_strings + m.rm_so);
            ++*count;
        }
        regfree(&re);
        free(with_strings);
    }
    /* calls */
    char *code = code_only(text);
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        if (allowed_at(calls[i].where, rel)) continue;
        regex_t re;
        if (regcomp(&re, calls[i].pattern, REG_EXTENDED) != 0) FAIL("bad pattern %s", calls[i].pattern);
        regmatch_t m;
        if (regexec(&re, code, 1, &m, 0) == 0) {
            mg_buf_addf(out, "%s:%d: %s (\"%.*s\")\n", rel, line_of(code, (size_t)m.rm_so), calls[i].what,
                        (int)(m.rm_eo - m.rm_so), code + m.rm_so);
            ++*count;
        }
        regfree(&re);
    }
    free(code);
    free(text);
}

static void walk(const char *root, const char *rel, struct mg_buf *out, int *count, int *files)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) FAIL("cannot open %s", path);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof(full), "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(root, sub, out, count, files);
        } else {
            size_t n = strlen(sub);
            if (n > 2 && sub[n - 2] == '.' && (sub[n - 1] == 'c' || sub[n - 1] == 'h')) {
                check_file(root, sub, out, count);
                ++*files;
            }
        }
    }
    closedir(d);
}

static int check_tree(const char *root, char **report, int *files)
{
    struct mg_buf out;
    mg_buf_init(&out, 1u << 20);
    int count = 0;
    *files = 0;
    walk(root, "", &out, &count, files);
    *report = mg_buf_detach(&out, NULL);
    if (!*report) *report = strdup("");
    return count;
}

TEST(rules_layers_hold_in_src)
{
    char *report;
    int files;
    int n = check_tree("src", &report, &files);
    ASSERT_GE_INT(files, 100);
    if (n) FAIL("%d layering rule(s) broken (docs/architecture.md):\n%s", n, report);
    free(report);
}

TEST(rules_checker_reports_each_kind_of_violation)
{
    char *root = mg_t_tmpdir();
    static const struct {
        const char *rel, *text, *expect;
    } planted[] = {
        {"tools/bad_include.c", "#include \"search/search.h\"\n", "tools/bad_include.c:1: includes search/search.h"},
        {"tools/bad_call.c", "static void f(void) {\n  mg_tools_call(x, t, a, &r, &e);\n}\n",
         "tools/bad_call.c:2: runs a tool"},
        {"http/bad.c", "#include \"memory/memory.h\"\n", "http/bad.c:1: includes memory/memory.h"},
        {"cli/bad.c", "void g(void) { use(x->srv->providers.code); }\n", "cli/bad.c:1: reaches the providers"},
        {"mcp/bad.c", "void h(void) { mg_memory_builtin_open(c, &p, &e); }\n", "mcp/bad.c:1: opens a built-in"},
        {"request/bad.h", "struct mg_session {\n  char repo[65];\n};\n", "request/bad.h:1: defines struct mg_session"},
        {"search/bad_sql.c", "static const char *q =\n  \"SELECT id FROM chunks WHERE file_id = ?\";\n",
         "search/bad_sql.c:2: SQL on the index's tables"},
        {"index/long.c", NULL, "index/long.c: 320 lines and no section map"},
        {"memory/bad.c", "#include \"util/buf.h\"\n#include \"request/gate.h\"\n",
         "memory/bad.c:2: includes request/gate.h"},
        {"newlayer/x.c", "int x;\n", "newlayer/x.c: directory 'newlayer' is in no layer"},
        /* not violations: a name in a comment or a string, an allowed exception, a same-directory header */
        {"tools/ok.c",
         "#include \"tools/tools.h\"\n#include \"index/lang.h\"\n#include \"ok.h\"\n"
         "/* mg_tools_call(x) */ static const char *m = \"->call(\"; // srv->providers\n",
         NULL},
        {"cli/cmd_scan.c", "#include \"index/walk.h\"\n", NULL},
        {"store/ok_sql.c", "static const char *q = \"SELECT id FROM chunks\"; /* the owner's */\n", NULL},
        {"index/ok_sql.c", "/* a comment that says FROM files is no SQL */\nstatic const char *m = \"read the files\";\n",
         NULL},
        {"index/mapped.c", NULL, NULL},
    };
    /* the long files: 320 lines, with and without a map */
    struct mg_buf longer;
    mg_buf_init(&longer, 1u << 20);
    mg_buf_addf(&longer, "/* mapped.c — a long file.\n *\n * Sections:\n *   1. all\n */\n");
    for (int i = 0; i < 320; i++) mg_buf_addf(&longer, "int v%d;\n", i);
    char *mapped = mg_buf_detach(&longer, NULL);
    char *unmapped = strstr(mapped, "int v0;");
    size_t np = sizeof(planted) / sizeof(planted[0]);
    int expected = 0;
    for (size_t i = 0; i < np; i++) {
        const char *text = planted[i].text ? planted[i].text : strcmp(planted[i].rel, "index/long.c") == 0 ? unmapped : mapped;
        mg_t_write(root, planted[i].rel, text, strlen(text));
        expected += planted[i].expect != NULL;
    }
    free(mapped);
    char *report;
    int files;
    int n = check_tree(root, &report, &files);
    ASSERT_EQ_INT(files, (int)np);
    for (size_t i = 0; i < np; i++)
        if (planted[i].expect) ASSERT_CONTAINS(report, planted[i].expect);
    if (n != expected) FAIL("expected %d violations, got %d:\n%s", expected, n, report);
    ASSERT_NOT_CONTAINS(report, "tools/ok.c");
    ASSERT_NOT_CONTAINS(report, "cmd_scan.c");
    ASSERT_NOT_CONTAINS(report, "ok_sql.c");
    ASSERT_NOT_CONTAINS(report, "mapped.c");
    free(report);
}
