/* fixtures.c — repos the CLI tests index, built fresh by each test.
 *
 * mg_fx_polyglot(): a git repo with one source file per grammar language,
 * a .gitignore'd file, an untracked file, secret files, a binary, a file with
 * NUL bytes, invalid UTF-8, a unicode path, a symlink out of the root, a
 * file over the size cap, and a Markdown file.
 */
#include "fixtures.h"

#include <sqlite3.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *C_SRC =
    "#include <stdio.h>\n"
    "#define MAX_HEADER 8192\n"
    "\n"
    "/* Parse one HTTP header line. */\n"
    "int parse_http_header(const char *line, size_t n)\n"
    "{\n"
    "    return n > 0 && line[0] != ':';\n"
    "}\n"
    "\n"
    "struct conn {\n"
    "    int fd;\n"
    "};\n";

static const char *CPP_SRC =
    "namespace net {\n"
    "class Server {\n"
    "public:\n"
    "    int listen(int port) { return port; }\n"
    "};\n"
    "}\n"
    "int net_shutdown(void) { return 0; }\n";

static const char *GO_SRC =
    "package web\n"
    "\n"
    "type Router struct{}\n"
    "\n"
    "func (r *Router) ServeHTTP(path string) string {\n"
    "\treturn path\n"
    "}\n";

static const char *JAVA_SRC =
    "package app;\n"
    "\n"
    "public class HttpClient {\n"
    "    public HttpClient() {}\n"
    "    public String fetchPage(String url) { return url; }\n"
    "}\n";

static const char *JS_SRC =
    "export function parseHttpHeader(line) {\n"
    "  return line.split(':');\n"
    "}\n"
    "const renderPage = (x) => x;\n";

static const char *TS_SRC =
    "export interface Session { id: string }\n"
    "export class SessionStore {\n"
    "  constructor() {}\n"
    "  get(id: string): Session { return { id }; }\n"
    "}\n";

static const char *TSX_SRC =
    "export function Banner(props: { text: string }) {\n"
    "  return <div>{props.text}</div>;\n"
    "}\n";

static const char *PY_SRC =
    "class TokenBucket:\n"
    "    def refill(self, amount):\n"
    "        self.tokens += amount\n"
    "\n"
    "def rate_limit(bucket):\n"
    "    return bucket.tokens > 0\n";

static const char *RUST_SRC =
    "pub struct Cache {\n"
    "    size: usize,\n"
    "}\n"
    "\n"
    "impl Cache {\n"
    "    pub fn evict_oldest(&mut self) -> usize {\n"
    "        self.size\n"
    "    }\n"
    "}\n";

void mg_fx_polyglot(const char *dir)
{
    mg_t_write_str(dir, "src/http.c", C_SRC);
    mg_t_write_str(dir, "src/server.cpp", CPP_SRC);
    mg_t_write_str(dir, "web/router.go", GO_SRC);
    mg_t_write_str(dir, "app/HttpClient.java", JAVA_SRC);
    mg_t_write_str(dir, "ui/header.js", JS_SRC);
    mg_t_write_str(dir, "ui/session.ts", TS_SRC);
    mg_t_write_str(dir, "ui/Banner.tsx", TSX_SRC);
    mg_t_write_str(dir, "py/bucket.py", PY_SRC);
    mg_t_write_str(dir, "rs/cache.rs", RUST_SRC);
    mg_t_write_str(dir, "README.md", "# Demo\n\nThe gateway parses an HTTP header and routes the request.\n");
    mg_t_write_str(dir, ".gitignore", "build/\n*.log\n");
    mg_t_write_str(dir, "build/generated.c", "int ignored_generated_symbol(void) { return 1; }\n");
    mg_t_write_str(dir, "debug.log", "ignored_log_line\n");
    /* secret files: their contents must never be read */
    mg_t_write_str(dir, ".env", "API_TOKEN=canary_env_7f3a\n");
    mg_t_write_str(dir, "config/credentials.json", "{\"password\": \"canary_cred_91bc\"}\n");
    mg_t_write_str(dir, "keys/id_rsa", "canary_key_22de\n");
    mg_t_write_str(dir, "keys/server.pem", "canary_pem_0a0a\n");
    /* binary and NUL bytes */
    mg_t_write(dir, "assets/logo.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    mg_t_write(dir, "data/nul.txt", "before_nul\0after_nul\n", 21);
    /* invalid UTF-8 in an otherwise fine file */
    mg_t_write_str(dir, "data/latin1.txt", "caf\xe9 latin1_marker_word\n");
    /* a unicode path */
    mg_t_write_str(dir, "docs/ünïcødé/файл.md", "unicode_path_marker here\n");
    /* a file over the default 1 MiB cap: one long line */
    size_t big = (1 << 20) + 100;
    char *b = malloc(big);
    memset(b, 'x', big);
    memcpy(b, "huge_file_marker ", 17);
    mg_t_write(dir, "data/huge.txt", b, big);
    free(b);
    /* a symlink out of the root */
    char *outside = mg_t_tmpdir();
    mg_t_write_str(outside, "secret_outside.c", "int outside_root_symbol(void) { return 0; }\n");
    char target[4200], link[4200];
    snprintf(target, sizeof(target), "%s/secret_outside.c", outside);
    snprintf(link, sizeof(link), "%s/src/escape.c", dir);
    if (symlink(target, link) != 0) FAIL("symlink: %s", strerror(errno));
    snprintf(link, sizeof(link), "%s/linked_dir", dir);
    if (symlink(outside, link) != 0) FAIL("symlink: %s", strerror(errno));
    /* git: most files committed, one left untracked (still indexed) */
    mg_t_sh(dir, "git init -q . && git add -A . && git reset -q -- py/bucket.py && "
                 "git -c user.email=t@t -c user.name=t commit -qm init");
}

json_t *mg_fx_run_json(const char *cwd, const char *home, const char *const argv[])
{
    struct mg_t_out o = mg_t_run(cwd, home, argv);
    if (o.status != 0) FAIL("memgate %s failed (%d): %s", argv[0], o.status, o.err);
    json_t *j = mg_t_json(o.out);
    mg_t_out_free(&o);
    return j;
}

json_t *mg_fx_search(const char *cwd, const char *home, const char *query, const char *mode, int limit)
{
    char lim[16];
    snprintf(lim, sizeof(lim), "%d", limit);
    return mg_fx_run_json(cwd, home, (const char *const[]){"search", query, "--mode", mode, "--limit", lim, "--json", NULL});
}

int mg_fx_has_hit(json_t *res, const char *path, const char *symbol)
{
    json_t *arr = json_object_get(res, "results"), *h;
    size_t i;
    json_array_foreach(arr, i, h)
    {
        const char *p = json_string_value(json_object_get(h, "path"));
        const char *s = json_string_value(json_object_get(h, "symbol"));
        if (p && strcmp(p, path) == 0 && (!symbol || (s && strcmp(s, symbol) == 0))) return 1;
    }
    return 0;
}

long long mg_fx_int(json_t *j, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", dotted);
    json_t *cur = j;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, ".")) cur = json_object_get(cur, tok);
    if (!cur || !json_is_integer(cur)) FAIL("no integer at '%s'", dotted);
    return json_integer_value(cur);
}

void mg_fx_tamper_vectors(const char *home, const char *id)
{
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/%s.db", home, id);
    sqlite3 *h;
    ASSERT_EQ_INT(sqlite3_open(db, &h), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_exec(h, "UPDATE vectors SET blob = substr(blob, 1, 40) || "
                                  "CASE WHEN substr(blob, 41, 1) = x'00' THEN x'01' ELSE x'00' END || "
                                  "substr(blob, 42) WHERE file_id = (SELECT min(file_id) FROM vectors)",
                               NULL, NULL, NULL),
                  SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_changes(h), 1);
    sqlite3_close(h);
}
