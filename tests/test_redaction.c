/* test_redaction.c — no secret reaches the data directory: index a repo full
 * of planted secrets, then look for every one of them in every file under
 * the data directory (raw bytes), in the decompressed file contents, in the
 * FTS vocabulary and in the audit log; and serve it back through the gate. */
#include <dirent.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>

#include "inproc.h"
#include "store/content.h"
#include "store/db.h"
#include "test.h"

/* Fake but format-valid secrets; random-looking so entropy rules accept them. */
static char secrets[16][160];
static const char *const families[] = {"aws-id", "aws-secret", "github", "slack", "stripe", "postgres",
                                       "openai", "npm", "password", "gitlab", "private-key",
                                       "big-pgp-key-first-line", "big-pgp-key-last-line"};
#define NSECRETS (sizeof(families) / sizeof(families[0]))

static void rnd(char *out, size_t n, const char *al, unsigned *seed)
{
    size_t k = strlen(al);
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        out[i] = al[(*seed >> 16) % k];
    }
    out[n] = 0;
}

static const char *AN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static const char *B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void make_secrets(void)
{
    unsigned seed = 424242;
    char a[128], b[128], c[128];
    rnd(a, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", &seed);
    snprintf(secrets[0], sizeof(secrets[0]), "AKIA%s", a);
    rnd(secrets[1], 40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+", &seed);
    rnd(a, 36, AN, &seed);
    snprintf(secrets[2], sizeof(secrets[2]), "ghp_%s", a);
    rnd(a, 12, "0123456789", &seed);
    rnd(b, 13, "0123456789", &seed);
    rnd(c, 24, AN, &seed);
    snprintf(secrets[3], sizeof(secrets[3]), "xoxb-%s-%s-%s", a, b, c);
    rnd(a, 24, AN, &seed);
    snprintf(secrets[4], sizeof(secrets[4]), "sk_live_%s", a);
    rnd(secrets[5], 18, AN, &seed); /* the password inside a postgres URL */
    rnd(a, 48, AN, &seed);
    snprintf(secrets[6], sizeof(secrets[6]), "sk-proj-%s", a);
    rnd(a, 36, AN, &seed);
    snprintf(secrets[7], sizeof(secrets[7]), "npm_%s", a);
    rnd(secrets[8], 22, AN, &seed); /* a generic password (medium: its chunk is excluded here) */
    rnd(a, 20, AN, &seed);
    snprintf(secrets[9], sizeof(secrets[9]), "glpat-%s", a);
    rnd(secrets[10], 64, B64, &seed); /* a key line */
    rnd(secrets[11], 64, B64, &seed); /* the first and last lines of a key block over 16 KiB */
    rnd(secrets[12], 64, B64, &seed);
}

static void plant(const char *repo)
{
    char t[4096];
    snprintf(t, sizeof(t),
             "import os\n\n"
             "AWS_ACCESS_KEY_ID = \"%s\"\n"
             "aws_secret_access_key = \"%s\"\n"
             "GITHUB_TOKEN = \"%s\"\n\n"
             "def connect():\n"
             "    return \"postgres://admin:%s@db.internal:5432/app\"\n",
             secrets[0], secrets[1], secrets[2], secrets[5]);
    mg_t_write_str(repo, "app/settings.py", t);
    snprintf(t, sizeof(t),
             "export const slack = \"%s\";\nexport const stripe = \"%s\";\n"
             "export const openai = \"%s\";\n",
             secrets[3], secrets[4], secrets[6]);
    mg_t_write_str(repo, "web/keys.ts", t);
    snprintf(t, sizeof(t), "//registry.npmjs.org/:_authToken=%s\n", secrets[7]);
    mg_t_write_str(repo, "deploy/npmrc.txt", t);
    snprintf(t, sizeof(t),
             "# Service settings\n\nunrelated_marker_before: 1\n\n"
             "## Database\n\nexcluded_neighbour_word\npassword = \"%s\"\n\n"
             "## Git\n\ngitlab_token: %s\n",
             secrets[8], secrets[9]);
    mg_t_write_str(repo, "docs/setup.md", t);
    snprintf(t, sizeof(t),
             "-----BEGIN RSA PRIVATE KEY-----\n%s\n%s\n%s\n-----END RSA PRIVATE KEY-----\n",
             secrets[10], secrets[10] + 8, secrets[10] + 16);
    mg_t_write_str(repo, "certs/server.txt", t);
    /* a PGP key with subkeys and a photo, 400 lines, 26 KB (in a .txt: a .asc file is never read) */
    char *big = malloc(400 * 65 + 128), *e = big;
    unsigned seed = 777;
    e += sprintf(e, "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n", secrets[11]);
    for (int i = 0; i < 398; i++) {
        rnd(e, 64, B64, &seed);
        e += 64;
        *e++ = '\n';
    }
    sprintf(e, "%s\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n", secrets[12]);
    mg_t_write_str(repo, "docs/release-key.txt", big);
    free(big);
}

/* Fail when any secret occurs in the file's bytes. */
static void check_bytes(const char *path, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ASSERT(b);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    for (size_t i = 0; i < NSECRETS; i++)
        if (memmem(b, got, secrets[i], strlen(secrets[i])))
            FAIL("the %s secret is in %s (%s)", families[i], path, what);
    free(b);
}

static int walk(const char *dir)
{
    int files = 0;
    DIR *d = opendir(dir);
    ASSERT(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        struct stat sb;
        ASSERT(lstat(p, &sb) == 0);
        if (S_ISDIR(sb.st_mode)) files += walk(p);
        else if (S_ISREG(sb.st_mode)) check_bytes(p, "raw bytes"), files++;
    }
    closedir(d);
    return files;
}

TEST_T(redaction_no_secret_reaches_the_data_dir, 300)
{
    make_secrets();
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    plant(repo);
    mg_t_write_str(home, "config", "secret_action_medium = exclude\n");
    /* the scanner sees every planted secret */
    struct mg_t_out o = MG_RUN(repo, home, "scan", repo, "--json");
    ASSERT_EQ_INT(o.status, 1);
    for (size_t i = 0; i < NSECRETS; i++)
        if (strstr(o.out, secrets[i])) FAIL("memgate scan printed the %s secret unmasked", families[i]);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "index", repo, "--name", "planted", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_error_t je;
    json_t *st = json_loads(o.out, 0, &je);
    ASSERT(st);
    /* (the password's chunk is excluded; the big key's two lines are one finding) */
    ASSERT(json_integer_value(json_object_get(st, "secrets_redacted")) >= (json_int_t)NSECRETS - 2);
    ASSERT_EQ_INT(json_integer_value(json_object_get(st, "chunks_excluded")), 1);
    json_decref(st);
    mg_t_out_free(&o);

    /* serve it back through the gate: search, read_file (read from disk), a query quoting a secret */
    struct mg_t_srv srv;
    mg_t_srv_open(&srv, home, "local", MG_LEVEL_ADMIN);
    srv.srv.cfg.cross_repo = 0;
    snprintf(srv.srv.cfg.secret_action_medium, sizeof(srv.srv.cfg.secret_action_medium), "exclude");
    char code[64];
    struct mg_err err = {0};
    static const char *const calls[][2] = {
        {"search_code", "{\"query\":\"REDACTED\",\"limit\":50}"},
        {"search_code", "{\"query\":\"AKIA\",\"mode\":\"regex\"}"},
        {"read_file", "{\"path\":\"app/settings.py\"}"},
        {"read_file", "{\"path\":\"docs/setup.md\"}"},
        {"read_file", "{\"path\":\"certs/server.txt\"}"},
        {"read_file", "{\"path\":\"docs/release-key.txt\"}"},
        {"search_code", "{\"query\":\"excluded_neighbour_word\"}"},
        /* lines inside a key (no BEGIN line among them), and lines of the big key */
        {"read_file", "{\"path\":\"certs/server.txt\",\"start_line\":2,\"end_line\":3}"},
        {"read_file", "{\"path\":\"docs/release-key.txt\",\"start_line\":3,\"end_line\":4}"},
        {"read_file", "{\"path\":\"docs/release-key.txt\",\"start_line\":399}"},
    };
    int redacted_served = 0;
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        json_t *r = mg_t_call(&srv, calls[i][0], calls[i][1], code);
        if (!r) FAIL("%s %s: %s", calls[i][0], calls[i][1], code);
        char *text = json_dumps(r, 0);
        for (size_t k = 0; k < NSECRETS; k++)
            if (strstr(text, secrets[k])) FAIL("%s %s served the %s secret", calls[i][0], calls[i][1], families[k]);
        redacted_served += strstr(text, "[REDACTED:") != NULL;
        if (i == 6) /* the excluded chunk: its words are not searchable */
            ASSERT_EQ_INT(json_array_size(json_object_get(r, "results")), 0);
        if (i > 6) { /* redacted, counted, and the lines numbered as on disk */
            ASSERT_EQ_INT(json_integer_value(json_object_get(r, "redactions")), 1);
            ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total_lines")), i == 7 ? 5 : 404);
        }
        /* the agent's text (MCP content[0].text): no secret either, and the redaction said */
        char *agent = mg_tools_text(mg_tool_find(calls[i][0]), r);
        ASSERT(agent && agent[0] != '{');
        for (size_t k = 0; k < NSECRETS; k++)
            if (strstr(agent, secrets[k])) FAIL("%s %s: the text has the %s secret", calls[i][0], calls[i][1], families[k]);
        if (i > 6) ASSERT_CONTAINS(agent, "[redactions: 1]");
        free(agent);
        free(text);
        json_decref(r);
    }
    ASSERT(redacted_served >= 5);
    /* a start_line past the end of a file with a secret: the error, and nothing leaked (ASan) */
    ASSERT(!mg_t_call(&srv, "read_file", "{\"path\":\"certs/server.txt\",\"start_line\":99}", code));
    ASSERT_EQ_STR(code, MG_E_BAD_ARG);
    /* an agent quoting a secret in a query: the audit log keeps it redacted */
    char q[512];
    snprintf(q, sizeof(q), "{\"query\":\"%s\"}", secrets[2]);
    json_t *r = mg_t_call(&srv, "search_code", q, code);
    ASSERT(r);
    json_decref(r);
    mg_t_srv_close(&srv);

    /* 1. every byte of every file under the data directory */
    ASSERT(walk(home) >= 3);
    /* 2. the stored texts, decompressed */
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/planted.db", home);
    struct mg_db *d; /* opened as memgate opens it: with its FTS tokenizer */
    ASSERT_EQ_INT(mg_db_open(db, MG_DB_READONLY, &d, &err), 0);
    sqlite3 *h = d->db;
    sqlite3_stmt *q1;
    ASSERT_EQ_INT(sqlite3_prepare_v2(h, "SELECT path, size, content FROM files", -1, &q1, NULL), SQLITE_OK);
    int nfiles = 0, marked = 0;
    while (sqlite3_step(q1) == SQLITE_ROW) {
        char *text;
        size_t len;
        ASSERT_EQ_INT(mg_content_unpack(sqlite3_column_blob(q1, 2), (size_t)sqlite3_column_bytes(q1, 2),
                                        (size_t)sqlite3_column_int64(q1, 1), &text, &len), 0);
        for (size_t i = 0; i < NSECRETS; i++)
            if (memmem(text, len, secrets[i], strlen(secrets[i])))
                FAIL("the %s secret is stored in %s", families[i], (const char *)sqlite3_column_text(q1, 0));
        marked += memmem(text, len, "[REDACTED:", 10) || memmem(text, len, "[EXCLUDED:", 10);
        nfiles++;
        free(text);
    }
    sqlite3_finalize(q1);
    ASSERT_EQ_INT(nfiles, 6);
    ASSERT_EQ_INT(marked, 6);
    /* 3. the FTS vocabulary (terms are prefix-compressed on disk, so raw bytes are not enough) */
    ASSERT_EQ_INT(sqlite3_exec(h, "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, 'row')", NULL, NULL,
                               NULL), SQLITE_OK);
    sqlite3_stmt *q2;
    ASSERT_EQ_INT(sqlite3_prepare_v2(h, "SELECT term FROM temp.v", -1, &q2, NULL), SQLITE_OK);
    int terms = 0;
    while (sqlite3_step(q2) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(q2, 0);
        terms++;
        if (strlen(t) < 8) continue;
        for (size_t i = 0; i < NSECRETS; i++) {
            char low[160];
            size_t n = strlen(secrets[i]);
            for (size_t k = 0; k <= n; k++) low[k] = (char)((secrets[i][k] >= 'A' && secrets[i][k] <= 'Z') ? secrets[i][k] + 32 : secrets[i][k]);
            if (strstr(low, t)) FAIL("FTS term '%s' is part of the %s secret", t, families[i]);
        }
    }
    sqlite3_finalize(q2);
    mg_db_close(&d);
    ASSERT(terms > 20);
}

/* standard base64 with padding */
static void b64enc(const char *in, char *o)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), j = 0;
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) | (i + 2 < n ? u[i + 2] : 0);
        o[j++] = al[v >> 18 & 63];
        o[j++] = al[v >> 12 & 63];
        o[j++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        o[j++] = i + 2 < n ? al[v & 63] : '=';
    }
    o[j] = 0;
}

/* End to end: a PEM private key written as string literals in test code (C,
 * Go, Python, JS: one quoted base64 line a source line), and a secret
 * wrapped in base64 in a Kubernetes Secret (under names no plain rule
 * knows), indexed; searching for a distinctive piece of the key body or the
 * base64 run finds nothing, and the chunks served hold [REDACTED:...]
 * instead. */
TEST_T(scan_e2e_literal_keys_and_base64_secrets_not_served, 300)
{
    unsigned seed = 99173;
    static const struct {
        const char *path, *open, *close, *lead, *head, *tail, *marker;
    } forms[] = {
        {"src/tls_testkeys.c", "\"", "\\n\"", "    ", "const char *const c_marker_key =\n", ";\n", "c_marker_key"},
        {"internal/tlsfix/keys.go", "\"", "\\n\" +", "\t", "const goMarkerKey = \"\" +\n", "\"\"\n", "goMarkerKey"},
        {"tests/fixtures_keys.py", "'", "\\n'", "    ", "PY_MARKER_KEY = (\n", ")\n", "PY_MARKER_KEY"},
        {"web/test/jwtKeys.js", "'", "\\n' +", "  ", "export const jsMarkerKey =\n", "'';\n", "jsMarkerKey"},
    };
    enum { NF = sizeof(forms) / sizeof(forms[0]) };
    char body[NF][6][65], piece[NF][24];
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    for (int f = 0; f < NF; f++) {
        char t[4096], *p = t;
        p += sprintf(p, "// fixtures for the handshake tests\n%s%s%s-----BEGIN RSA PRIVATE KEY-----%s\n", forms[f].head,
                     forms[f].lead, forms[f].open, forms[f].close);
        for (int i = 0; i < 6; i++) {
            rnd(body[f][i], 64, B64, &seed);
            p += sprintf(p, "%s%s%s%s\n", forms[f].lead, forms[f].open, body[f][i], forms[f].close);
        }
        p += sprintf(p, "%s%s-----END RSA PRIVATE KEY-----\\n%s", forms[f].lead, forms[f].open, forms[f].open);
        p += sprintf(p, "%s", f == 2 ? ")\n" : f == 0 ? ";\n" : f == 1 ? "\n" : ";\n");
        p += sprintf(p, "\n// %s_after\n", forms[f].marker);
        mg_t_write_str(repo, forms[f].path, t);
        /* a distinctive piece of the key body: letters and digits only, so it is one search term */
        size_t k = 0;
        for (int i = 0; i < 6 && k < 16; i++)
            for (int j = 0; j < 64 && k < 16; j++) {
                char ch = body[f][i][j];
                if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) piece[f][k++] = ch;
                else k = 0;
            }
        piece[f][k] = 0;
        ASSERT_EQ_INT(k, 16);
    }
    /* a Kubernetes Secret: a connection URL and a token, base64, under names without password/token/secret/key */
    char pw[32], tok[64], url[160], enc_url[256], enc_tok[128], t[2048];
    rnd(pw, 18, AN, &seed);
    rnd(tok, 36, AN, &seed);
    snprintf(url, sizeof(url), "postgres://billing:%s@db.prod.internal:5432/billing", pw);
    char ghp[64];
    snprintf(ghp, sizeof(ghp), "ghp_%s", tok);
    b64enc(url, enc_url);
    b64enc(ghp, enc_tok);
    snprintf(t, sizeof(t),
             "apiVersion: v1\nkind: Secret\nmetadata:\n  name: billing\ntype: Opaque\ndata:\n"
             "  # billing_marker_secret\n  DATABASE_URL: %s\n  GH_RELEASES: %s\n  LOG_LEVEL: aW5mbw==\n",
             enc_url, enc_tok);
    mg_t_write_str(repo, "deploy/k8s/billing-secret.yaml", t);

    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", "e2e", "--json");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);

    struct mg_t_srv srv;
    mg_t_srv_open(&srv, home, "local", MG_LEVEL_ADMIN);
    srv.srv.cfg.cross_repo = 0;
    char code[64], q[256];
    /* the secret pieces: the key bodies, the base64 runs, and what they decode to */
    const char *leak[NF + 4];
    for (int f = 0; f < NF; f++) leak[f] = piece[f];
    leak[NF] = enc_url;
    leak[NF + 1] = enc_tok;
    leak[NF + 2] = pw;
    leak[NF + 3] = tok;
    for (int f = 0; f < NF + 2; f++) { /* searching for the secret itself finds nothing that holds it */
        char term[40];
        snprintf(term, sizeof(term), "%.24s", leak[f]);
        for (char *c = term; *c; c++)
            if (*c == '+' || *c == '/' || *c == '=') *c = 0;
        snprintf(q, sizeof(q), "{\"query\":\"%s\",\"limit\":20}", term);
        json_t *r = mg_t_call(&srv, "search_code", q, code);
        if (!r) FAIL("search_code %s: %s", q, code);
        char *text = json_dumps(r, 0);
        for (int k = 0; k < NF + 4; k++)
            if (strstr(text, leak[k])) FAIL("search for %s served secret piece %d: %s", term, k, text);
        free(text);
        json_decref(r);
    }
    const char *markers[NF + 1];
    for (int f = 0; f < NF; f++) markers[f] = forms[f].marker;
    markers[NF] = "billing_marker_secret";
    for (int f = 0; f <= NF; f++) { /* the chunk beside it is served, redacted */
        snprintf(q, sizeof(q), "{\"query\":\"%s\",\"limit\":20}", markers[f]);
        json_t *r = mg_t_call(&srv, "search_code", q, code);
        if (!r) FAIL("search_code %s: %s", q, code);
        char *text = json_dumps(r, 0);
        if (!strstr(text, markers[f])) FAIL("search for %s found nothing: %s", markers[f], text);
        if (!strstr(text, "[REDACTED:")) FAIL("search for %s: no redaction marker: %s", markers[f], text);
        for (int k = 0; k < NF + 4; k++)
            if (strstr(text, leak[k])) FAIL("search for %s served secret piece %d: %s", markers[f], k, text);
        free(text);
        json_decref(r);
    }
    json_t *r = mg_t_call(&srv, "read_file", "{\"path\":\"deploy/k8s/billing-secret.yaml\"}", code);
    if (!r) FAIL("read_file: %s", code);
    char *text = json_dumps(r, 0);
    ASSERT_CONTAINS(text, "DATABASE_URL: [REDACTED:postgres-url-password]");
    ASSERT_CONTAINS(text, "GH_RELEASES: [REDACTED:github-pat]");
    ASSERT_CONTAINS(text, "LOG_LEVEL: aW5mbw==");
    free(text);
    json_decref(r);
    mg_t_srv_close(&srv);
}
