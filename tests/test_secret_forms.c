/* test_secret_forms.c — the secret forms a red team found still stored and
 * served (issue 38, V7), each planted with fresh fake values in a repo:
 * an AWS secret key split over string literals (on one line, and in
 * parentheses over lines), an ODBC Pwd=, an unsigned JWT (alg none), short
 * passwords and tokens in INI, properties, TOML and docker-compose files, a
 * token split by a shell line continuation and by "".join([...]), a Twilio
 * API key's secret beside its SK id, and base64 data in a Kubernetes Secret.
 * First the scanner must cover every piece of each; then, indexed and
 * served through the gate, no piece may be in the data directory's bytes,
 * in the stored (decompressed) texts, in read_file or in search results.
 * The hard benign texts beside them (code reading the environment,
 * placeholders, hashes, continued C macros, joined word lists) must give
 * no finding.
 */
#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inproc.h"
#include "security/scan.h"
#include "store/content.h"
#include "store/db.h"
#include "test.h"

#define NPIECE 4

struct form {
    const char *name, *path;
    char text[1024];
    char piece[NPIECE][96]; /* what must never be stored or served (each piece of a split secret) */
};

static unsigned seed;

static void rnd(char *out, size_t n, const char *al)
{
    size_t k = strlen(al);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        out[i] = al[(seed >> 16) % k];
    }
    out[n] = 0;
}

static const char *AN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static const char *HEX = "0123456789abcdef";

/* a short password: 9 characters, letters and digits, at least one of each */
static void short_pw(char *out)
{
    do rnd(out, 9, AN);
    while (!strpbrk(out, "0123456789") || !strpbrk(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"));
}

static void b64(const char *in, char *o, bool url)
{
    const char *al = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                         : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), j = 0;
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) | (i + 2 < n ? u[i + 2] : 0);
        o[j++] = al[v >> 18 & 63];
        o[j++] = al[v >> 12 & 63];
        if (i + 1 < n || !url) o[j++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        if (i + 2 < n || !url) o[j++] = i + 2 < n ? al[v & 63] : '=';
    }
    o[j] = 0;
}

enum { F_AWS_LINE, F_AWS_PAREN, F_ODBC, F_JWT, F_INI, F_PROPS, F_TOML, F_COMPOSE, F_SHELL, F_JOIN, F_TWILIO, F_K8S, NFORMS };
static struct form forms[NFORMS];

static void make_forms(unsigned s)
{
    seed = s;
    char a[64], b[64], c[64], t[256], u[512];
    struct form *f;

    f = &forms[F_AWS_LINE]; /* 40 characters in two literals on one line */
    rnd(a, 20, AN), rnd(b, 20, AN);
    f->name = "aws secret split on one line", f->path = "app/aws_creds.py";
    snprintf(f->text, sizeof(f->text), "# nightly export\nAWS_SECRET = \"%s\" + \"%s\"\nREGION = 'eu-west-1'\n", a, b);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b);

    f = &forms[F_AWS_PAREN];
    rnd(a, 14, AN), rnd(b, 13, AN), rnd(c, 13, AN);
    f->name = "aws secret split in parentheses", f->path = "app/aws_paren.py";
    snprintf(f->text, sizeof(f->text), "aws_secret_access_key = (\n    \"%s\"\n    \"%s\"\n    \"%s\"\n)\n", a, b, c);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b), strcpy(f->piece[2], c);

    f = &forms[F_ODBC];
    short_pw(a);
    f->name = "odbc Pwd=", f->path = "src/Db.cs";
    snprintf(f->text, sizeof(f->text),
             "var cs = \"Driver={ODBC Driver 18 for SQL Server};Server=sql1;Database=app;Uid=svc;Pwd=%s;\";\n", a);
    strcpy(f->piece[0], a);

    f = &forms[F_JWT];
    rnd(a, 12, AN);
    snprintf(t, sizeof(t), "{\"sub\":\"%s\",\"role\":\"admin\"}", a);
    b64("{\"alg\":\"none\",\"typ\":\"JWT\"}", b, true);
    b64(t, u, true);
    f->name = "unsigned jwt", f->path = "tests/admin_test.py";
    snprintf(f->text, sizeof(f->text), "def test_admin(client):\n    TOKEN = \"%s.%s.\"\n    assert client.get(\"/\")\n", b, u);
    snprintf(f->piece[0], sizeof(f->piece[0]), "%.90s", u);

    f = &forms[F_INI];
    short_pw(a), short_pw(b);
    f->name = "short password in ini", f->path = "etc/app.ini";
    snprintf(f->text, sizeof(f->text), "[database]\nhost = db\npassword = %s\n\n[api]\ntoken=%s\n", a, b);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b);

    f = &forms[F_PROPS];
    short_pw(a);
    f->name = "short password in properties", f->path = "src/main/resources/application.properties";
    snprintf(f->text, sizeof(f->text), "spring.datasource.username=app\nspring.datasource.password=%s\n", a);
    strcpy(f->piece[0], a);

    f = &forms[F_TOML];
    short_pw(a);
    f->name = "short password in toml", f->path = "config/app.toml";
    snprintf(f->text, sizeof(f->text), "[redis]\nhost = \"cache\"\npass = '%s'\n", a);
    strcpy(f->piece[0], a);

    f = &forms[F_COMPOSE];
    short_pw(a), short_pw(b);
    f->name = "short password in docker-compose", f->path = "docker-compose.yml";
    snprintf(f->text, sizeof(f->text),
             "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: %s\n"
             "  mysql:\n    environment:\n      - MYSQL_ROOT_PASSWORD=%s\n", a, b);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b);

    f = &forms[F_SHELL]; /* ghp_ + 36, cut by a backslash-newline */
    rnd(a, 12, AN), rnd(b, 24, AN);
    f->name = "token split by a shell line continuation", f->path = "scripts/release.sh";
    snprintf(f->text, sizeof(f->text), "#!/bin/sh\nexport GH_TOKEN=ghp_%s\\\n%s\ngh release list\n", a, b);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b);

    f = &forms[F_JOIN];
    rnd(a, 12, AN), rnd(b, 12, AN), rnd(c, 12, AN);
    f->name = "token in \"\".join([...])", f->path = "app/tokens.py";
    snprintf(f->text, sizeof(f->text), "TOKEN = \"\".join([\n    \"ghp_%s\",\n    \"%s\",\n    \"%s\",\n])\n", a, b, c);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b), strcpy(f->piece[2], c);

    f = &forms[F_TWILIO];
    rnd(a, 32, HEX), rnd(b, 32, AN);
    f->name = "twilio api key secret", f->path = "web/sms.js";
    snprintf(f->text, sizeof(f->text), "const twilio = require('twilio');\nconst client = twilio('SK%s', '%s', { accountSid });\n",
             a, b);
    strcpy(f->piece[0], a), strcpy(f->piece[1], b);

    f = &forms[F_K8S]; /* a short token, base64, under a name */
    short_pw(a);
    rnd(c, 16, AN);
    snprintf(t, sizeof(t), "redis://:%s@cache:6379/0", c);
    b64(a, b, false);
    b64(t, u, false);
    f->name = "kubernetes secret data", f->path = "deploy/secret.yaml";
    snprintf(f->text, sizeof(f->text),
             "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n  api-token: %s\n  CACHE: %s\n", b, u);
    strcpy(f->piece[0], b), strcpy(f->piece[1], u), strcpy(f->piece[2], a), strcpy(f->piece[3], c);
}

/* Texts that look like the forms and are not secrets. */
static const char *const benign[][2] = {
    {"app/settings.py", "import os\npassword = os.getenv(\"DB_PASSWORD\")\ntoken = os.environ[\"API_TOKEN\"]\n"
                        "secret = settings.SECRET_KEY\nheader = \", \".join([\"alpha\", \"beta\"])\n"},
    {"etc/defaults.ini", "[database]\npassword = changeme\ntoken = ${API_TOKEN}\nsecret = <secret>\napi_key =\n"
                         "password_min_length = 12\ntoken_type = Bearer\ntoken_ttl = 3600\n"
                         "token = 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f\nsecret = 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12\n"},
    {"deploy/compose.yaml", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"
                            "      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n"},
    {"src/macros.h", "#define COPY_TOKEN(dst, src) \\\n\tdo { memcpy((dst), (src), TOKEN_LEN); \\\n\t} while (0)\n"},
    {"src/Fmt.cs", "var fmt = \"DSN=sales;UID={0};PWD={1}\";\nvar q = $\"Server=db;Uid={user};Pwd={password};\";\n"},
    {"docs/jwt.md", "An unsigned JWT has `\"alg\": \"none\"` and an empty signature.\n"
                    "Set `TWILIO_API_SECRET=your_api_secret`.\n"},
};

struct spans {
    size_t s[16], e[16];
    int n;
};

static int on_finding(const struct mg_finding *x, void *ud)
{
    struct spans *sp = ud;
    if (sp->n < 16) sp->s[sp->n] = x->start, sp->e[sp->n++] = x->end;
    return 0;
}

/* Every piece of each form lies inside a finding; the benign texts give none. */
TEST(secret_forms_found_by_the_scanner)
{
    make_forms(20381);
    const struct mg_scanner *s = mg_scanner_default();
    ASSERT(s);
    struct mg_err err = {0};
    for (int i = 0; i < NFORMS; i++) {
        const struct form *f = &forms[i];
        struct spans sp = {0};
        if (mg_scan(s, f->text, strlen(f->text), on_finding, &sp, &err) < 0) FAIL("%s: %s", f->name, err.msg);
        for (int k = 0; k < NPIECE && f->piece[k][0]; k++) {
            const char *at = strstr(f->text, f->piece[k]);
            if (!at) continue; /* a decoded piece (Kubernetes): its base64 run is a piece too */
            size_t o = (size_t)(at - f->text), e = o + strlen(f->piece[k]);
            bool covered = false;
            for (int j = 0; j < sp.n; j++) covered |= sp.s[j] <= o && e <= sp.e[j];
            if (!covered) FAIL("%s (%s): piece %d (%s) is in no finding (%d findings) of:\n%s", f->name, f->path, k, f->piece[k], sp.n, f->text);
        }
    }
    for (size_t i = 0; i < sizeof(benign) / sizeof(benign[0]); i++) {
        int n = mg_scan(s, benign[i][1], strlen(benign[i][1]), NULL, NULL, &err);
        if (n != 0) FAIL("benign %s: %d findings", benign[i][0], n);
    }
}

/* Fail when a piece of a secret is in b[0, n). */
static void check_leak(const char *b, size_t n, const char *where)
{
    for (int i = 0; i < NFORMS; i++)
        for (int k = 0; k < NPIECE && forms[i].piece[k][0]; k++)
            if (memmem(b, n, forms[i].piece[k], strlen(forms[i].piece[k])))
                FAIL("%s: piece %d of the %s secret (%s) is in %s", forms[i].path, k, forms[i].name, forms[i].piece[k], where);
}

/* the whole file (NUL bytes too); NULL if unreadable */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(sz > 0 ? (size_t)sz : 1);
    *n = b && sz > 0 ? fread(b, 1, (size_t)sz, f) : 0;
    fclose(f);
    return b;
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
        if (S_ISDIR(sb.st_mode)) {
            files += walk(p);
        } else if (S_ISREG(sb.st_mode)) {
            size_t n;
            char *b = slurp(p, &n);
            if (b) check_leak(b, n, p);
            free(b);
            files++;
        }
    }
    closedir(d);
    return files;
}

/* Indexed and served: no piece in the data directory, the stored texts,
 * read_file or search results; each file served with its redaction. */
TEST_T(secret_forms_not_stored_or_served, 300)
{
    make_forms(77123);
    char *home = mg_t_tmpdir(), *repo = mg_t_tmpdir();
    for (int i = 0; i < NFORMS; i++) {
        char t[1200];
        bool slashes = strstr(forms[i].path, ".cs") || strstr(forms[i].path, ".js");
        snprintf(t, sizeof(t), "%s form_marker_%d\n%s", slashes ? "//" : "#", i, forms[i].text);
        mg_t_write_str(repo, forms[i].path, t);
    }
    struct mg_t_out o = MG_RUN(repo, home, "index", repo, "--name", "forms", "--json");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);

    struct mg_t_srv srv;
    mg_t_srv_open(&srv, home, "local", MG_LEVEL_ADMIN);
    srv.srv.cfg.cross_repo = 0;
    char code[64], q[256];
    for (int i = 0; i < NFORMS; i++) {
        snprintf(q, sizeof(q), "{\"path\":\"%s\"}", forms[i].path);
        json_t *r = mg_t_call(&srv, "read_file", q, code);
        if (!r) FAIL("read_file %s: %s", forms[i].path, code);
        char *text = json_dumps(r, 0);
        check_leak(text, strlen(text), "read_file");
        if (!strstr(text, "[REDACTED:")) FAIL("read_file %s: no redaction: %s", forms[i].path, text);
        free(text);
        json_decref(r);
        snprintf(q, sizeof(q), "{\"query\":\"form_marker_%d\",\"limit\":10}", i);
        r = mg_t_call(&srv, "search_code", q, code);
        if (!r) FAIL("search_code %s: %s", q, code);
        text = json_dumps(r, 0);
        if (!strstr(text, "form_marker_")) FAIL("search for form_marker_%d found nothing: %s", i, text);
        check_leak(text, strlen(text), "search_code");
        free(text);
        json_decref(r);
    }
    mg_t_srv_close(&srv);

    ASSERT(walk(home) >= 3); /* every byte under the data directory */
    char db[4200];
    snprintf(db, sizeof(db), "%s/repos/forms.db", home);
    struct mg_db *d;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_open(db, MG_DB_READONLY, &d, &err), 0);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT path, size, content FROM files", -1, &st, NULL), SQLITE_OK);
    int nfiles = 0;
    while (sqlite3_step(st) == SQLITE_ROW) { /* the stored texts, decompressed */
        char *text;
        size_t len;
        ASSERT_EQ_INT(mg_content_unpack(sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2),
                                        (size_t)sqlite3_column_int64(st, 1), &text, &len), 0);
        check_leak(text, len, (const char *)sqlite3_column_text(st, 0));
        free(text);
        nfiles++;
    }
    sqlite3_finalize(st);
    mg_db_close(&d);
    ASSERT_EQ_INT(nfiles, NFORMS);
}
