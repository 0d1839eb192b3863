/* cmd_setup.c — `memgate setup`: add memgate to an MCP client's configuration.
 *
 * Each client keeps its MCP servers in a file of its own format:
 *
 *   client       scope     file                                   format
 *   claude-code  user      ~/.claude.json                         JSON, "mcpServers" at the top
 *   claude-code  project   ./.mcp.json                            JSON, "mcpServers"
 *   cursor       user      ~/.cursor/mcp.json                     JSON, "mcpServers"
 *   cursor       project   ./.cursor/mcp.json                     JSON, "mcpServers"
 *   codex        user      $CODEX_HOME/config.toml (~/.codex)     TOML, [mcp_servers.NAME]
 *   codex        project   ./.codex/config.toml                   TOML, [mcp_servers.NAME]
 *
 * setup changes only its own entry (NAME, default "memgate"): everything else
 * in the file is kept (JSON: every other key, in order; TOML: every other
 * line, byte for byte). The old file is copied to FILE.memgate-DATE.bak
 * before it is replaced (whole or not at all, util/file.h); a second run with
 * the same arguments finds the entry as wanted and writes nothing.
 *
 * A token (--token-file) is written into the file only in user scope (a
 * file of the user's, mode kept, 0600 when new); a project file may be
 * committed, so there the entry names the variable MEMGATE_TOKEN instead.
 *
 * Sections:
 *   1. help and what is wanted
 *   2. reading and writing the client's file
 *   3. JSON clients (Claude Code, Cursor)
 *   4. TOML (Codex)
 *   5. the command
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/file.h"

/* ---- 1. help and what is wanted ------------------------------------------ */

static const char *HELP =
    "usage: memgate setup --client claude-code|codex|cursor [--http URL [--token-file F]]\n"
    "                     [--scope user|project] [--name NAME] [--file PATH] [--dry-run] [--json]\n"
    "       memgate setup            (on a terminal: asks)\n"
    "\n"
    "Add memgate to an MCP client's configuration, merging it into the client's own\n"
    "file: stdio (the client starts `memgate mcp`) or Streamable HTTP (--http: the\n"
    "client connects to a running `memgate serve`). Only the entry NAME changes;\n"
    "the rest of the file is kept, and the old file is copied to\n"
    "FILE.memgate-DATE.bak first. Running it again with the same options changes\n"
    "nothing. The files (docs/cli.md):\n"
    "  claude-code  user: ~/.claude.json           project: ./.mcp.json\n"
    "  cursor       user: ~/.cursor/mcp.json       project: ./.cursor/mcp.json\n"
    "  codex        user: $CODEX_HOME/config.toml  project: ./.codex/config.toml\n"
    "                     (~/.codex by default)\n"
    "\n"
    "options:\n"
    "  --client C        claude-code, codex or cursor\n"
    "  --http URL        connect over Streamable HTTP to URL (e.g.\n"
    "                    http://127.0.0.1:7090/mcp); default: stdio\n"
    "  --token-file F    the access token (`memgate token create`) to send with\n"
    "                    --http: written into a user-scope file; a project file\n"
    "                    names $MEMGATE_TOKEN instead, never the token\n"
    "  --scope S         user (default) or project (the current directory)\n"
    "  --name NAME       the server's name in the client (default memgate)\n"
    "  --file PATH       write this file instead of the client's usual one\n"
    "  --dry-run         print what would be written; change nothing\n"
    "  --json            print the result as JSON\n"
    "  -h, --help        this help\n"
    "\n"
    "stdio entries run this memgate binary and pass on MEMGATE_HOME and\n"
    "MEMGATE_CONFIG when they are set, so the client sees the same data.\n";

#define CLIENT_FILE_MAX (64 << 20)
#define TOKEN_MAX 4096

enum client { CLAUDE, CURSOR, CODEX };
static const char *const client_names[] = {"claude-code", "cursor", "codex"};

struct want {
    enum client client;
    bool project;
    const char *name, *url;
    char *token;               /* user scope with --token-file: the token; NULL otherwise */
    bool token_env;            /* project scope with --token-file: name $MEMGATE_TOKEN */
    char exe[PATH_MAX];        /* stdio: this binary */
    const char *home, *config; /* stdio: MEMGATE_HOME, MEMGATE_CONFIG to pass on (NULL: unset) */
};

/* ---- 2. reading and writing the client's file ---------------------------- */

/* The file's bytes (NUL-terminated), or NULL with *len 0 and *exists false
 * when there is none; -1 with err on a read error or when it is too large. */
static int slurp(const char *path, char **out, size_t *len, bool *exists, mode_t *mode, struct mg_err *err)
{
    *out = NULL;
    *len = 0;
    *exists = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return 0;
        return mg_err_set(err, MG_E_IO, "cannot read '%s': %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s' is not a regular file", path);
    }
    if (st.st_size > CLIENT_FILE_MAX) {
        fclose(f);
        return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s' is over 64 MiB; is it the client's config file?", path);
    }
    *mode = st.st_mode & 07777;
    char *p = malloc((size_t)st.st_size + 1);
    size_t n = p ? fread(p, 1, (size_t)st.st_size, f) : 0;
    bool bad = !p || ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return mg_err_set(err, MG_E_IO, "cannot read '%s'", path);
    }
    p[n] = 0;
    if (strlen(p) != n) {
        free(p);
        return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s' holds a NUL byte; it is not a text config file", path);
    }
    *out = p;
    *len = n;
    *exists = true;
    return 0;
}

struct bytes {
    const char *p;
    size_t n;
};
static int put_bytes(FILE *f, void *arg)
{
    const struct bytes *b = arg;
    return fwrite(b->p, 1, b->n, f) == b->n ? 0 : -1;
}

static void mkparents(const char *path)
{
    char d[PATH_MAX];
    snprintf(d, sizeof(d), "%s", path);
    for (char *s = d + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(d, 0700);
        *s = '/';
    }
}

/* Replace path's contents (a symlink's target, so dotfile managers keep
 * their link), after copying the old ones to *backup. */
static int write_client_file(const char *path, const char *old, size_t oldlen, bool existed, mode_t mode,
                             const char *text, size_t len, char *backup, size_t bcap, struct mg_err *err)
{
    char real[PATH_MAX];
    const char *target = existed && realpath(path, real) ? real : path;
    backup[0] = 0;
    if (existed) {
        char stamp[32];
        time_t t = time(NULL);
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(backup, bcap, "%s.memgate-%s.bak", target, stamp);
        for (int i = 2; access(backup, F_OK) == 0 && i < 100; i++)
            snprintf(backup, bcap, "%s.memgate-%s-%d.bak", target, stamp, i);
        struct bytes b = {old, oldlen};
        if (mg_file_replace(backup, put_bytes, &b, err) != 0) return -1;
        chmod(backup, 0600); /* it may hold a token: the owner alone reads it */
    } else {
        mkparents(target);
    }
    struct bytes b = {text, len};
    if (mg_file_replace(target, put_bytes, &b, err) != 0) return -1;
    if (existed) chmod(target, mode);
    return 0;
}

/* ---- 3. JSON clients (Claude Code, Cursor) ------------------------------- */

static json_t *json_entry(const struct want *w)
{
    json_t *e = json_object();
    if (w->url) {
        if (w->client == CLAUDE) json_object_set_new(e, "type", json_string("http"));
        json_object_set_new(e, "url", json_string(w->url));
        if (w->token || w->token_env) {
            char h[TOKEN_MAX + 64];
            if (w->token) snprintf(h, sizeof(h), "Bearer %s", w->token);
            else snprintf(h, sizeof(h), "Bearer %s", w->client == CLAUDE ? "${MEMGATE_TOKEN}" : "${env:MEMGATE_TOKEN}");
            json_t *hd = json_object();
            json_object_set_new(hd, "Authorization", json_string(h));
            json_object_set_new(e, "headers", hd);
        }
        return e;
    }
    if (w->client == CLAUDE) json_object_set_new(e, "type", json_string("stdio"));
    json_object_set_new(e, "command", json_string(w->exe));
    json_object_set_new(e, "args", json_pack("[s]", "mcp"));
    json_t *env = json_object();
    if (w->home) json_object_set_new(env, "MEMGATE_HOME", json_string(w->home));
    if (w->config) json_object_set_new(env, "MEMGATE_CONFIG", json_string(w->config));
    json_object_set_new(e, "env", env);
    return e;
}

/* The new text of a JSON client file (old: its text, NULL when none), or
 * NULL when the entry is already as wanted. -1 on error. */
static int json_merge(const char *path, const char *old, const struct want *w, char **out, struct mg_err *err)
{
    *out = NULL;
    json_t *root;
    if (old && old[strspn(old, " \t\r\n")]) {
        json_error_t je;
        root = json_loads(old, JSON_REJECT_DUPLICATES, &je);
        if (!root)
            return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s' is not valid JSON (%s); fix or move it, then run setup again",
                        path, je.text);
        if (!json_is_object(root)) {
            json_decref(root);
            return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s' is not a JSON object; fix or move it, then run setup again",
                        path);
        }
    } else {
        root = json_object();
    }
    json_t *servers = json_object_get(root, "mcpServers");
    if (servers && !json_is_object(servers)) {
        json_decref(root);
        return mg_err_set(err, MG_E_CLIENT_CONFIG, "'%s': \"mcpServers\" is not an object; fix it, then run setup again",
                    path);
    }
    if (!servers) json_object_set_new(root, "mcpServers", servers = json_object());
    json_t *e = json_entry(w);
    int rc = 0;
    if (!json_equal(json_object_get(servers, w->name), e)) {
        json_object_set_new(servers, w->name, e);
        char *s = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        if (!s) rc = mg_err_oom(err);
        else {
            size_t n = strlen(s);
            *out = realloc(s, n + 2);
            if (!*out) *out = s;
            else strcpy(*out + n, "\n");
        }
    } else {
        json_decref(e);
    }
    json_decref(root);
    return rc;
}

/* ---- 4. TOML (Codex) ----------------------------------------------------- */

static int toml_str(struct mg_buf *b, const char *s)
{
    int rc = mg_buf_adds(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') rc |= mg_buf_addf(b, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) rc |= mg_buf_addf(b, "\\u%04x", c);
        else rc |= mg_buf_addf(b, "%c", c);
    }
    return rc | mg_buf_adds(b, "\"");
}

static int toml_entry(struct mg_buf *b, const struct want *w)
{
    int rc = mg_buf_addf(b, "[mcp_servers.%s]\n", w->name);
    if (w->url) {
        rc |= mg_buf_adds(b, "url = ") | toml_str(b, w->url) | mg_buf_adds(b, "\n");
        if (w->token) {
            char h[TOKEN_MAX + 16];
            snprintf(h, sizeof(h), "Bearer %s", w->token);
            rc |= mg_buf_adds(b, "http_headers = { Authorization = ") | toml_str(b, h) | mg_buf_adds(b, " }\n");
        } else if (w->token_env) {
            rc |= mg_buf_adds(b, "bearer_token_env_var = \"MEMGATE_TOKEN\"\n");
        }
        return rc;
    }
    rc |= mg_buf_adds(b, "command = ") | toml_str(b, w->exe) | mg_buf_adds(b, "\nargs = [\"mcp\"]\n");
    if (w->home || w->config) {
        rc |= mg_buf_adds(b, "env = { ");
        if (w->home) rc |= mg_buf_adds(b, "MEMGATE_HOME = ") | toml_str(b, w->home);
        if (w->config) rc |= mg_buf_adds(b, w->home ? ", MEMGATE_CONFIG = " : "MEMGATE_CONFIG = ") | toml_str(b, w->config);
        rc |= mg_buf_adds(b, " }\n");
    }
    return rc;
}

/* A table header's name with its spaces and quotes taken out
 * ("[ mcp_servers . \"x\" ]" -> "mcp_servers.x"); false when the line is
 * not a header. */
static bool toml_header(const char *line, size_t n, char *name, size_t cap)
{
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i >= n || line[i] != '[') return false;
    size_t k = 0;
    for (i++; i < n && line[i] != ']' && line[i] != '#'; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '"' && line[i] != '\'' && line[i] != '[' && k + 1 < cap)
            name[k++] = line[i];
    name[k] = 0;
    return i < n && line[i] == ']';
}

/* The new text of a Codex config (old: its text, NULL when none), or NULL
 * when the entry is already as wanted. The tables [mcp_servers.NAME] and
 * [mcp_servers.NAME.*] are replaced where the first of them stood (or the
 * entry is appended); every other line is kept as it is. */
static int toml_merge(const char *path, const char *old, const struct want *w, char **out, struct mg_err *err)
{
    *out = NULL;
    char mine[128], sub[130], bare[140];
    snprintf(mine, sizeof(mine), "mcp_servers.%s", w->name);
    snprintf(sub, sizeof(sub), "%s.", mine);
    snprintf(bare, sizeof(bare), "%s", w->name);
    struct mg_buf entry, res;
    mg_buf_init(&entry, 1 << 20);
    mg_buf_init(&res, CLIENT_FILE_MAX + (1 << 20));
    int rc = toml_entry(&entry, w);
    bool placed = false, in_mine = false, in_servers = false, multiline = false;
    const char *p = old ? old : "";
    while (*p && !rc) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        char name[512];
        bool header = !multiline && toml_header(p, n, name, sizeof(name));
        /* a multi-line string's lines are never headers or keys */
        for (const char *q = p; q + 2 < p + n; q++)
            if ((q[0] == '"' || q[0] == '\'') && q[1] == q[0] && q[2] == q[0]) multiline = !multiline, q += 2;
        if (header) {
            in_mine = strcmp(name, mine) == 0 || strncmp(name, sub, strlen(sub)) == 0;
            in_servers = strcmp(name, "mcp_servers") == 0;
            if (in_mine && !placed) {
                rc |= mg_buf_add(&res, entry.p, entry.len);
                placed = true;
            }
        } else if (!multiline && !in_mine) {
            /* the same server in a form this cannot merge: `NAME = {...}` under
             * [mcp_servers], or a dotted `mcp_servers.NAME.x = ` at the top */
            char key[256];
            size_t i = strspn(p, " \t"), k = 0;
            while (i < n && p[i] != '=' && p[i] != '\n' && p[i] != '#' && k + 1 < sizeof(key)) {
                if (p[i] != ' ' && p[i] != '\t' && p[i] != '"' && p[i] != '\'') key[k++] = p[i];
                i++;
            }
            key[k] = 0;
            size_t bl = strlen(bare);
            bool same = strcmp(key, mine) == 0 || strncmp(key, sub, strlen(sub)) == 0;
            if (in_servers) same = same || strcmp(key, bare) == 0 || (strncmp(key, bare, bl) == 0 && key[bl] == '.');
            if (i < n && p[i] == '=' && same) {
                mg_buf_release(&entry);
                mg_buf_release(&res);
                return mg_err_set(err, MG_E_CLIENT_CONFIG,
                            "'%s' defines the server '%s' with dotted or inline keys; move it to its own "
                            "[mcp_servers.NAME] table or remove it, then run setup again",
                            path, w->name);
            }
        }
        /* the old entry's lines go, but not the blank lines that end it */
        bool blank = !header && p[strspn(p, " \t\r")] == '\n';
        if (!in_mine || (blank && !(res.len >= 2 && res.p[res.len - 1] == '\n' && res.p[res.len - 2] == '\n')))
            rc |= mg_buf_add(&res, p, n);
        p += n;
    }
    if (!rc && !placed) {
        if (res.len && res.p[res.len - 1] != '\n') rc |= mg_buf_adds(&res, "\n");
        if (res.len) rc |= mg_buf_adds(&res, "\n");
        rc |= mg_buf_add(&res, entry.p, entry.len);
    }
    mg_buf_release(&entry);
    if (rc) {
        mg_buf_release(&res);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing '%s'", path);
    }
    if (old && res.len == strlen(old) && memcmp(res.p, old, res.len) == 0) {
        mg_buf_release(&res);
        return 0;
    }
    *out = mg_buf_detach(&res, NULL);
    return 0;
}

/* ---- 5. the command ------------------------------------------------------ */

static int default_path(const struct want *w, char *out, size_t cap, struct mg_err *err)
{
    const char *home = getenv("HOME");
    if (!w->project && (!home || !*home))
        return mg_err_set(err, MG_E_USAGE, "HOME is not set; name the file with --file");
    switch (w->client) {
    case CLAUDE:
        if (w->project) snprintf(out, cap, ".mcp.json");
        else snprintf(out, cap, "%s/.claude.json", home);
        break;
    case CURSOR:
        if (w->project) snprintf(out, cap, ".cursor/mcp.json");
        else snprintf(out, cap, "%s/.cursor/mcp.json", home);
        break;
    case CODEX: {
        const char *ch = getenv("CODEX_HOME");
        if (w->project) snprintf(out, cap, ".codex/config.toml");
        else if (ch && *ch) snprintf(out, cap, "%s/config.toml", ch);
        else snprintf(out, cap, "%s/.codex/config.toml", home);
        break;
    }
    }
    return 0;
}

static int read_token(const char *path, char **out, struct mg_err *err)
{
    char *t = NULL;
    size_t n = 0;
    bool exists;
    mode_t mode;
    if (slurp(path, &t, &n, &exists, &mode, err) != 0) return -1;
    if (!exists) return mg_err_set(err, MG_E_PATH_NOT_FOUND, "no token file '%s'; create a token with `memgate token create`", path);
    while (n && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' ' || t[n - 1] == '\t')) t[--n] = 0;
    bool ok = n > 0 && n <= TOKEN_MAX;
    for (size_t i = 0; i < n && ok; i++) ok = t[i] > 0x20 && t[i] < 0x7f;
    if (!ok) {
        free(t);
        return mg_err_set(err, MG_E_BAD_ARG, "the token file '%s' must hold one token (printable, no spaces, at most 4096 bytes)",
                    path);
    }
    *out = t;
    return 0;
}

/* Ask on the terminal for what was not given. */
static char *ask(const char *prompt, const char *dflt, char *buf, size_t cap)
{
    bool d = dflt && *dflt;
    fprintf(stderr, "%s%s%s%s: ", prompt, d ? " [" : "", d ? dflt : "", d ? "]" : "");
    fflush(stderr);
    if (!fgets(buf, (int)cap, stdin)) return NULL;
    buf[strcspn(buf, "\r\n")] = 0;
    if (!buf[0] && dflt) snprintf(buf, cap, "%s", dflt);
    return buf;
}

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 64) return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') && !(s[i] >= '0' && s[i] <= '9') &&
            s[i] != '-' && s[i] != '_')
            return false;
    return true;
}

int mg_cmd_setup(int argc, char **argv)
{
    static const struct option opts[] = {
        {"client", required_argument, NULL, 'c'}, {"http", required_argument, NULL, 'u'},
        {"token-file", required_argument, NULL, 't'}, {"scope", required_argument, NULL, 's'},
        {"name", required_argument, NULL, 'n'},   {"file", required_argument, NULL, 'f'},
        {"dry-run", no_argument, NULL, 'd'},      {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    const char *client = NULL, *url = NULL, *token_file = NULL, *scope = "user", *name = "memgate", *file = NULL;
    bool dry = false, json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': client = optarg; break;
        case 'u': url = optarg; break;
        case 't': token_file = optarg; break;
        case 's': scope = optarg; break;
        case 'n': name = optarg; break;
        case 'f': file = optarg; break;
        case 'd': dry = true; break;
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("setup", argc, argv, opts);
        }
    }
    if (optind < argc) return mg_cli_usage("setup", "unexpected argument '%s'", argv[optind]);
    char b1[64], b2[1024], b3[PATH_MAX];
    if (!client) {
        if (json || !isatty(0) || !isatty(2))
            return mg_cli_usage("setup", "name the client with --client claude-code, codex or cursor");
        fprintf(stderr, "Add memgate to an MCP client's configuration.\n");
        if (!ask("client (claude-code, codex, cursor)", "claude-code", b1, sizeof(b1))) return 2;
        client = b1;
        if (!ask("transport: stdio (the client starts memgate) or an http URL", "stdio", b2, sizeof(b2))) return 2;
        if (strcmp(b2, "stdio") != 0) {
            url = b2;
            if (!ask("token file (empty: none)", "", b3, sizeof(b3))) return 2;
            if (b3[0]) token_file = b3;
        }
    }
    struct want w = {.name = name, .url = url};
    size_t k = 0;
    while (k < 3 && strcmp(client, client_names[k]) != 0) k++;
    if (k == 3) return mg_cli_usage("setup", "unknown client '%s'; use claude-code, codex or cursor", client);
    w.client = (enum client)k;
    if (strcmp(scope, "user") != 0 && strcmp(scope, "project") != 0)
        return mg_cli_usage("setup", "--scope is user or project, not '%s'", scope);
    w.project = strcmp(scope, "project") == 0;
    if (!name_ok(name)) return mg_cli_usage("setup", "--name takes 1-64 of A-Z a-z 0-9 - _, not '%s'", name);
    if (token_file && !url) return mg_cli_usage("setup", "--token-file goes with --http (stdio needs no token)");
    if (url && strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return mg_cli_usage("setup", "--http takes an http:// or https:// URL, not '%s'", url);
    struct mg_err err = {0};
    if (token_file) {
        if (w.project) w.token_env = true;
        else if (read_token(token_file, &w.token, &err) != 0) return mg_cli_fail(&err);
    }
    if (!url) {
        ssize_t n = readlink("/proc/self/exe", w.exe, sizeof(w.exe) - 1);
        if (n <= 0) snprintf(w.exe, sizeof(w.exe), "memgate");
        else w.exe[n] = 0;
        const char *h = getenv("MEMGATE_HOME"), *cf = getenv("MEMGATE_CONFIG");
        static char rh[PATH_MAX], rc[PATH_MAX];
        if (h && *h) w.home = realpath(h, rh) ? rh : h;
        if (cf && *cf) w.config = realpath(cf, rc) ? rc : cf;
    }
    char path[PATH_MAX];
    if (file) snprintf(path, sizeof(path), "%s", file);
    else if (default_path(&w, path, sizeof(path), &err) != 0) goto failed;

    char *old = NULL, *text = NULL;
    size_t oldlen = 0;
    bool exists = false;
    mode_t mode = 0600;
    if (slurp(path, &old, &oldlen, &exists, &mode, &err) != 0) goto failed;
    int rc = w.client == CODEX ? toml_merge(path, old, &w, &text, &err) : json_merge(path, old, &w, &text, &err);
    char backup[PATH_MAX + 64] = "";
    const char *action = !text ? "unchanged" : exists ? "updated" : "created";
    if (rc == 0 && text && !dry)
        rc = write_client_file(path, old, oldlen, exists, mode, text, strlen(text), backup, sizeof(backup), &err);
    if (rc != 0) {
        free(old);
        free(text);
        goto failed;
    }
    const char *token = w.token ? "written" : w.token_env ? "env:MEMGATE_TOKEN" : "none";
    if (json) {
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b}", "client", client_names[w.client], "scope", scope,
                              "file", path, "name", name, "transport", url ? "http" : "stdio", "action", action,
                              "token", token, "dry_run", dry);
        json_object_set_new(o, "backup", backup[0] ? json_string(backup) : json_null());
        mg_cli_print_json(o);
        json_decref(o);
    } else if (dry) {
        printf("%s: would %s '%s' in %s\n", client_names[w.client],
               !text ? "leave unchanged" : exists ? "update" : "create", name, path);
        if (text) {
            /* the text to write, with the token hidden */
            for (const char *q = text; *q;) {
                const char *t = w.token ? strstr(q, w.token) : NULL;
                size_t n = t ? (size_t)(t - q) : strlen(q);
                fwrite(q, 1, n, stdout);
                q += n;
                if (t) {
                    fputs("<token>", stdout);
                    q += strlen(w.token);
                }
            }
        }
    } else {
        printf("%s: %s '%s' (%s) in %s\n", client_names[w.client], action, name, url ? url : "stdio", path);
        if (backup[0]) printf("  the old file is at %s\n", backup);
        if (w.token_env)
            printf("  the entry sends $MEMGATE_TOKEN; export it before starting %s: export MEMGATE_TOKEN=\"$(cat %s)\"\n",
                   client_names[w.client], token_file);
        if (!strcmp(action, "unchanged")) printf("  (already as asked; nothing written)\n");
        else printf("  restart %s (or reload its MCP servers) to connect\n", client_names[w.client]);
    }
    free(old);
    free(text);
    free(w.token);
    return 0;
failed:
    free(w.token);
    return mg_cli_fail(&err);
}
