/* test_audit.c — the hash-chained audit log (security/audit.h) and `memgate audit`. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "security/audit.h"
#include "security/audit_int.h"
#include "security/common.h"
#include "store/pg.h"
#include "util/utf8.h"

/* The chain in PostgreSQL (storage = postgres://...) instead of files: a
 * test named audit_pg_X runs the body of audit_X with storage set to a fresh
 * database of the runner's cluster, for the calls here and the memgate
 * commands the test runs (MEMGATE_STORAGE). A process that has used
 * PostgreSQL must not fork children that use it (its pool's connections
 * would be shared): the bodies fork first. */
static const char *pg_url;

static void use_pg(void)
{
    pg_url = mg_t_pg_url();
    setenv("MEMGATE_STORAGE", pg_url, 1);
}

static const char *last_home; /* the data directory cfg_for made a config for */

static void cfg_for(struct mg_config *c, const char *home)
{
    mg_t_config_defaults(c);
    snprintf(c->home, sizeof(c->home), "%s", home);
    if (pg_url) snprintf(c->storage, sizeof(c->storage), "%s", pg_url);
    last_home = home;
}

/* After a test on PostgreSQL: the data directory holds no audit files. */
static void no_audit_files(void)
{
    char p[8192];
    snprintf(p, sizeof(p), "%s/audit", last_home);
    if (access(p, F_OK) == 0) FAIL("%s exists: the chain went to files, not to PostgreSQL", p);
}

/* Run sql on the test's database as the superuser, the triggers that keep
 * the chain append-only off (session_replication_role = replica): what
 * someone who owns the database can do. */
static void pg_tamper(const char *sql)
{
    const char *db = strstr(pg_url, "///") + 3;
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' psql '%s' -d %.*s -At >/dev/null", getenv("MEMGATE_TEST_PG_SH"), mg_t_pg_dir(),
             (int)strcspn(db, "?"), db);
    FILE *f = popen(cmd, "w");
    if (!f) FAIL("popen %s", cmd);
    fprintf(f, "SET session_replication_role = replica;\n%s;\n", sql);
    if (pclose(f) != 0) FAIL("psql failed: %s", sql);
}

static void emit_n(const struct mg_config *c, int n, const char *tenant, const char *op)
{
    struct mg_audit *a;
    struct mg_err err = {0};
    if (mg_audit_open(c, &a, &err) != 0) FAIL("audit open: %s", err.msg);
    for (int i = 0; i < n; i++) {
        char q[64];
        snprintf(q, sizeof(q), "query number %d", i);
        const char *flags[] = {"prompt_injection"};
        struct mg_audit_event ev = {.tenant = tenant, .instance = "inst-1", .session = "sess-abcdef123",
                                    .repo = "api-1", .op = op, .query = q, .results = i, .redactions = i % 2,
                                    .flags = flags, .nflags = (size_t)(i % 2)};
        if (mg_audit_emit(a, &ev, &err) != 0) FAIL("emit: %s", err.msg);
    }
    mg_audit_close(a);
}

/* The lines of a file (without newlines), and a writer back. */
static char **read_lines(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) FAIL("open %s", path);
    char **v = NULL, *line = NULL;
    size_t cap = 0;
    ssize_t len;
    *n = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        v = realloc(v, (*n + 1) * sizeof(char *));
        if (line[len - 1] == '\n') line[len - 1] = 0;
        v[(*n)++] = strdup(line);
    }
    free(line);
    fclose(f);
    return v;
}

static void write_lines(const char *path, char **v, size_t n)
{
    FILE *f = fopen(path, "w");
    for (size_t i = 0; i < n; i++) fprintf(f, "%s\n", v[i]);
    fclose(f);
}

static void anchor_path(const struct mg_config *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s/audit/audit.anchor", c->home);
}

static json_t *anchor_json(const struct mg_config *c)
{
    if (pg_url) { /* the anchor row */
        struct mg_pg *pool;
        struct mg_sql *conn;
        struct mg_sql_st *st;
        struct mg_err err = {0};
        if (mg_pg_get(c, NULL, &pool, &conn, &err) != 0 ||
            mg_sql_prepare(conn, "SELECT seq, hash FROM audit_anchor WHERE id = 1", &st, &err) != 0)
            FAIL("anchor row: %s", err.msg);
        if (mg_sql_step(st, &err) != 1) FAIL("no anchor row: %s", err.msg);
        json_t *o = json_pack("{s:I, s:s}", "seq", (json_int_t)mg_sql_int(st, 0), "hash", mg_sql_text(st, 1));
        mg_sql_finalize(&st);
        mg_pg_put(pool, &conn);
        return o;
    }
    char p[8192], kp[8192];
    anchor_path(c, p, sizeof(p));
    unsigned char key[MG__AUDIT_KEY_BYTES];
    struct mg_err err = {0};
    if (mg__audit_key_load(c, false, key, kp, sizeof(kp), &err) != 0) FAIL("audit key: %s", err.msg);
    struct mg__audit_anchor_file *af = calloc(1, sizeof(*af));
    if (mg__audit_anchor_load(p, key, af) != 0 || !af->valid) FAIL("anchor %s: no slot verifies", p);
    json_t *files = json_array();
    for (int i = 0; i < af->an.nfiles; i++) json_array_append_new(files, json_integer(af->an.files[i]));
    json_t *o = json_pack("{s:I, s:s, s:s, s:o}", "seq", (json_int_t)af->an.seq, "hash", af->an.hash, "chain",
                          af->an.chain, "files", files);
    free(af);
    return o;
}

/* Put a keyed anchor for (seq, hash) in place, as a writer holding the audit
 * key would have left it (the chain and files of the anchor there). */
static void put_anchor(const struct mg_config *c, long long seq, const char *hash, long long synced)
{
    char p[8192], kp[8192];
    anchor_path(c, p, sizeof(p));
    unsigned char key[MG__AUDIT_KEY_BYTES];
    struct mg_err err = {0};
    if (mg__audit_key_load(c, false, key, kp, sizeof(kp), &err) != 0) FAIL("audit key: %s", err.msg);
    struct mg__audit_anchor_file *af = calloc(1, sizeof(*af));
    if (mg__audit_anchor_load(p, key, af) != 0 || !af->valid) FAIL("anchor %s: no slot verifies", p);
    af->an.seq = seq;
    snprintf(af->an.hash, sizeof(af->an.hash), "%s", hash);
    af->an.synced = synced;
    af->an.boot[0] = 0;
    char slot[MG__AUDIT_SLOT];
    int n = mg__audit_anchor_record(&af->an, true, "2025-01-01T00:00:00.000Z", key, slot, sizeof(slot));
    ASSERT(n > 0);
    memset(slot + n, ' ', sizeof(slot) - 1 - (size_t)n);
    slot[sizeof(slot) - 1] = '\n';
    FILE *f = fopen(p, "w");
    ASSERT(f && fwrite(slot, 1, sizeof(slot), f) == sizeof(slot) && fwrite(slot, 1, sizeof(slot), f) == sizeof(slot));
    fclose(f);
    free(af);
}

/* The anchor file's bytes, to put back later (free them). */
static char *anchor_bytes(const struct mg_config *c, size_t *n)
{
    char p[8192];
    anchor_path(c, p, sizeof(p));
    char *b = mg_t_read(NULL, p);
    ASSERT(b);
    *n = MG__AUDIT_ANCHOR_FILE;
    return b;
}

static void anchor_restore(const struct mg_config *c, const char *b, size_t n)
{
    char p[8192];
    anchor_path(c, p, sizeof(p));
    FILE *f = fopen(p, "w");
    ASSERT(f && fwrite(b, 1, n, f) == n);
    fclose(f);
}

static struct mg_audit_report verify_fails(const struct mg_config *c, const char *problem, long long line)
{
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(c, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_AUDIT_INVALID);
    ASSERT(!r.ok);
    ASSERT_EQ_STR(r.problem, problem);
    ASSERT_EQ_INT(r.line, line);
    return r;
}

TEST(audit_chain_verify_and_tamper)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit_n(&c, 10, "acme", "search");
    char path[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    struct stat st;
    ASSERT_EQ_INT(stat(path, &st), 0);
    ASSERT_EQ_INT(st.st_mode & 0777, 0600);

    size_t n;
    char **orig = read_lines(path, &n);
    ASSERT_EQ_INT(n, 10);
    json_t *first = mg_t_json(orig[0]);
    ASSERT_EQ_STR(json_string_value(json_object_get(first, "prev")), MG_AUDIT_GENESIS);
    ASSERT_EQ_INT(json_integer_value(json_object_get(first, "seq")), 1);
    json_decref(first);
    ASSERT_CONTAINS(orig[0], "{\"seq\":1,\"time\":\"");
    ASSERT_CONTAINS(orig[1], "\"flags\":[\"prompt_injection\"]");

    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.ok && r.complete);
    ASSERT_EQ_INT(r.events, 10);
    ASSERT_EQ_INT(r.last_seq, 10);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "intact: 10 events");

    /* one byte edited in line 5 */
    char **v = read_lines(path, &n);
    char *q = strstr(v[4], "query number");
    q[0] = 'Q';
    write_lines(path, v, n);
    verify_fails(&c, "edited", 5);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_invalid]");
    ASSERT_CONTAINS(o.err, "line 5");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify", "--json");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, "\"problem\":\"edited\"");
    /* the hash itself edited */
    write_lines(path, orig, n);
    free(v[4]);
    v[4] = strdup(orig[4]);
    char *h = strstr(v[4], "\"hash\":\"") + 8;
    h[0] = h[0] == 'a' ? 'b' : 'a';
    write_lines(path, v, n);
    verify_fails(&c, "edited", 5);

    /* line 5 removed */
    char *removed[9];
    for (size_t i = 0, k = 0; i < 10; i++)
        if (i != 4) removed[k++] = orig[i];
    write_lines(path, removed, 9);
    struct mg_audit_report rr = verify_fails(&c, "removed", 5);
    ASSERT_CONTAINS(rr.what, "removed");

    /* lines 5 and 6 swapped */
    char *swapped[10];
    memcpy(swapped, orig, sizeof(swapped));
    swapped[4] = orig[5];
    swapped[5] = orig[4];
    write_lines(path, swapped, 10);
    verify_fails(&c, "reordered", 5);

    /* the last line cut mid-way (a crash during a write: the anchor, written
     * after the line, still names seq 9; cutting an acknowledged line is a
     * truncation, audit_anchor_detects_truncation) */
    write_lines(path, orig, 10);
    ASSERT_EQ_INT(stat(path, &st), 0);
    ASSERT_EQ_INT(truncate(path, st.st_size - 40), 0);
    {
        json_t *l9 = mg_t_json(orig[8]);
        put_anchor(&c, 9, json_string_value(json_object_get(l9, "hash")), 9);
        json_decref(l9);
    }
    /* the anchor vouches for seq 9 only: the torn line was never
     * acknowledged, so a warning (kill -9 can cut a write at a page boundary) */
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.torn_tail && r.anchored);
    ASSERT_EQ_INT(r.last_seq, 9);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.err, "cut off");
    ASSERT_CONTAINS(o.out, "torn line");
    /* without the anchor the same log fails: a log that holds events and
     * has no anchor may have been cut at its end (issue 38, V3) */
    {
        char ap[8192], keep[8200];
        snprintf(ap, sizeof(ap), "%s/audit/audit.anchor", home);
        snprintf(keep, sizeof(keep), "%s.keep", ap);
        ASSERT_EQ_INT(rename(ap, keep), 0);
        ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), -1);
        ASSERT_EQ_STR(r.problem, "anchor_missing");
        ASSERT_EQ_STR(err.code, MG_E_AUDIT_TRUNCATED);
        ASSERT_EQ_INT(rename(keep, ap), 0);
    }

    /* the next writer closes the torn line and records it; verify then
     * passes with a warning, and the chain runs on from seq 9 */
    emit_n(&c, 1, "acme", "search");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.torn_recovered, 1);
    ASSERT_EQ_INT(r.last_seq, 11); /* 9 kept, audit_recovered = 10, the new event = 11 */
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.err, "torn line");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--json", "--op", "audit_recovered");
    ASSERT_CONTAINS(o.out, "\"torn_line\"");

    mg_t_out_free(&o);
    for (size_t i = 0; i < n; i++) free(orig[i]), free(v[i]);
    free(orig);
    free(v);
}

TEST(audit_rotation_keeps_the_chain)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    c.audit_keep = 100;
    emit_n(&c, 60, "acme", "search");
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.complete);
    ASSERT_EQ_INT(r.events, 60);
    ASSERT(r.files >= 4);
    char path[8192];
    struct stat st;
    for (int i = 0; i <= 3; i++) {
        mg_audit_path(&c, i, path, sizeof(path));
        ASSERT_EQ_INT(stat(path, &st), 0);
        ASSERT((size_t)st.st_size <= 4096);
        ASSERT_EQ_INT(st.st_mode & 0777, 0600);
    }
    /* the first line of audit.log chains from the last of audit.log.1 */
    size_t n0, n1;
    mg_audit_path(&c, 0, path, sizeof(path));
    char **l0 = read_lines(path, &n0);
    mg_audit_path(&c, 1, path, sizeof(path));
    char **l1 = read_lines(path, &n1);
    json_t *a = mg_t_json(l0[0]), *b = mg_t_json(l1[n1 - 1]);
    ASSERT_EQ_STR(json_string_value(json_object_get(a, "prev")), json_string_value(json_object_get(b, "hash")));
    json_decref(a);
    json_decref(b);

    /* only 3 retained files: verify starts from the first retained prev */
    c.audit_keep = 3;
    emit_n(&c, 40, "acme", "search");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(!r.complete);
    ASSERT(r.first_seq > 1);
    ASSERT_EQ_INT(r.last_seq, 100);
    ASSERT_EQ_INT(r.files, 4);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "rotated away");
    mg_t_out_free(&o);
    /* query spans the files, newest last */
    struct mg_audit_filter f = {.limit = 30};
    json_t *arr;
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 30);
    ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(arr, 0), "seq")), 71);
    ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(arr, 29), "seq")), 100);
    json_decref(arr);
    /* a rotated file removed from the middle is reported */
    mg_audit_path(&c, 2, path, sizeof(path));
    ASSERT_EQ_INT(unlink(path), 0);
    struct mg_audit_report rr;
    ASSERT_EQ_INT(mg_audit_verify(&c, &rr, &err), -1);
    ASSERT_EQ_STR(rr.problem, "removed");
    for (size_t i = 0; i < n0; i++) free(l0[i]);
    for (size_t i = 0; i < n1; i++) free(l1[i]);
    free(l0);
    free(l1);
}

/* A writer killed while rotating (it renames .k to .k+1 from the oldest
 * down, then audit.log to .1) leaves a gap in the numbers but loses nothing:
 * the log verifies, and the next rotation closes the gap. */
TEST(audit_interrupted_rotation_is_no_loss)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    c.audit_keep = 100;
    emit_n(&c, 40, "acme", "search");
    char from[8192], to[8192];
    struct stat st;
    int n = 0; /* rotated files: audit.log.1 .. .n */
    for (;; n++) {
        mg_audit_path(&c, n + 1, from, sizeof(from));
        if (stat(from, &st) != 0) break;
    }
    ASSERT(n >= 2);
    /* killed after the first rename: .n+1, .n-1 ... .1 and audit.log */
    mg_audit_path(&c, n, from, sizeof(from));
    mg_audit_path(&c, n + 1, to, sizeof(to));
    ASSERT_EQ_INT(rename(from, to), 0);
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.events, 40);
    /* killed before audit.log became .1: .n+1 ... .2 and audit.log */
    for (int k = n - 1; k >= 1; k--) {
        mg_audit_path(&c, k, from, sizeof(from));
        mg_audit_path(&c, k + 1, to, sizeof(to));
        ASSERT_EQ_INT(rename(from, to), 0);
    }
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.events, 40);
    /* the next writer rotates on: the numbers are whole again, the chain one */
    emit_n(&c, 40, "acme", "search");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.events, 80);
    ASSERT(r.complete);
    for (int i = 1; i < r.files; i++) {
        mg_audit_path(&c, i, from, sizeof(from));
        ASSERT_EQ_INT(stat(from, &st), 0);
    }
    /* a rotated file removed is still reported: its events are missing */
    mg_audit_path(&c, 2, from, sizeof(from));
    ASSERT_EQ_INT(unlink(from), 0);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), -1);
    ASSERT_EQ_STR(r.problem, "removed");
}

static void concurrent_processes(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 64 * 1024; /* rotate under contention too */
    c.audit_keep = 100;
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            emit_n(&c, 200, k ? "b" : "a", "search");
            _exit(0);
        }
    }
    /* and a third writer in this process, on two threads' worth of handles */
    emit_n(&c, 50, "c", "recall");
    for (int k = 0; k < 2; k++) {
        int st;
        ASSERT_EQ_INT(waitpid(kids[k], &st, 0), kids[k]);
        ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    struct mg_audit_report r;
    struct mg_err err = {0};
    if (mg_audit_verify(&c, &r, &err) != 0) FAIL("verify: %s", err.msg);
    ASSERT(r.complete);
    ASSERT_EQ_INT(r.events, 450);
    ASSERT_EQ_INT(r.last_seq, 450);
    struct mg_audit_filter f = {.tenant = "b"};
    json_t *arr;
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 200);
    json_decref(arr);
}

TEST(audit_concurrent_processes) { concurrent_processes(); }
TEST(audit_pg_concurrent_processes)
{
    use_pg();
    concurrent_processes();
    no_audit_files();
}

static void query_filters_and_fields(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    struct mg_err err = {0};
    json_t *arr;
    struct mg_audit_filter none = {0};
    ASSERT_EQ_INT(mg_audit_query(&c, &none, &arr, &err), 0); /* no log yet: empty */
    ASSERT_EQ_INT(json_array_size(arr), 0);
    json_decref(arr);
    emit_n(&c, 3, "a", "search");
    emit_n(&c, 2, "b", "read_file");
    emit_n(&c, 1, "a", "auth_fail");

    struct mg_audit_filter f = {.tenant = "a"};
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 4);
    json_decref(arr);
    f = (struct mg_audit_filter){.op = "read_file"};
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 2);
    json_decref(arr);
    f = (struct mg_audit_filter){.tenant = "a", .limit = 2};
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 2);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(arr, 1), "op")), "auth_fail");
    json_decref(arr);
    f = (struct mg_audit_filter){.since_ms = mg_wall_ms() + 60000};
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 0);
    json_decref(arr);

    /* the CLI: table, filters, since */
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--tenant", "b");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "read_file");
    ASSERT_NOT_CONTAINS(o.out, "search");
    ASSERT_CONTAINS(o.out, "sess-abc");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--json", "--since", "1h", "--limit", "1");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "\"op\":\"auth_fail\"");
    ASSERT_NOT_CONTAINS(o.out, "\"op\":\"search\"");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--since", "yesterday-ish");
    ASSERT_EQ_INT(o.status, 2);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify", "--tenant", "a");
    ASSERT_EQ_INT(o.status, 2);

    /* query capped at 256 bytes on a character boundary; invalid UTF-8 repaired; bad op refused */
    char big[601];
    for (int i = 0; i < 300; i++) memcpy(big + 2 * i, "\xc3\xa9", 2);
    big[600] = 0;
    struct mg_audit *a;
    ASSERT_EQ_INT(mg_audit_open(&c, &a, &err), 0);
    struct mg_audit_event ev = {.op = "search", .query = big, .code = "repo_forbidden", .status = "403"};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), 0);
    ev = (struct mg_audit_event){.op = "search", .tenant = "x\xff" "y"};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), 0);
    ev = (struct mg_audit_event){.op = "Bad Op"};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_BAD_ARG);
    mg_audit_close(a);
    f = (struct mg_audit_filter){.limit = 2};
    ASSERT_EQ_INT(mg_audit_query(&c, &f, &arr, &err), 0);
    const char *stored = json_string_value(json_object_get(json_array_get(arr, 0), "query"));
    ASSERT_EQ_INT(strlen(stored), 256);
    ASSERT_EQ_INT(mg_utf8_valid_prefix(stored, 256), 256);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(arr, 0), "code")), "repo_forbidden");
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(arr, 1), "tenant")), "x\xef\xbf\xbdy");
    ASSERT(json_is_null(json_object_get(json_array_get(arr, 1), "query")));
    json_decref(arr);
    struct mg_audit_report r;
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.events, 8);
    mg_t_out_free(&o);
}

TEST(audit_query_filters_and_fields) { query_filters_and_fields(); }
TEST(audit_pg_query_filters_and_fields)
{
    use_pg();
    query_filters_and_fields();
    no_audit_files();
}

/* Read from fd until buf holds needle or the deadline passes. */
static bool read_until(int fd, char *buf, size_t cap, size_t *len, const char *needle, int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        buf[*len] = 0;
        if (strstr(buf, needle)) return true;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long el = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= ms) return false;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)(ms - el)) <= 0) continue;
        ssize_t r = read(fd, buf + *len, cap - *len - 1);
        if (r <= 0) return false;
        *len += (size_t)r;
    }
}

static void follow_prints_new_events(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    emit_n(&c, 1, "acme", "search");
    int pfd[2];
    ASSERT_EQ_INT(pipe(pfd), 0);
    const char *bin = getenv("MEMGATE_BIN");
    if (!bin) bin = "build/memgate";
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        setenv("MEMGATE_HOME", home, 1);
        execl(bin, bin, "audit", "--follow", "--json", "--tenant", "acme", (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    static char buf[1 << 20];
    size_t len = 0;
    bool first = read_until(pfd[0], buf, sizeof(buf), &len, "\"seq\":1,", 10000);
    if (first) {
        emit_n(&c, 1, "other", "search"); /* filtered out */
        emit_n(&c, 1, "acme", "set_note");
    }
    bool second = first && read_until(pfd[0], buf, sizeof(buf), &len, "\"op\":\"set_note\"", 10000);
    /* across a rotation: enough events to roll audit.log over */
    if (second) emit_n(&c, 20, "acme", "recall");
    bool third = second && read_until(pfd[0], buf, sizeof(buf), &len, "\"seq\":23,", 10000);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    close(pfd[0]);
    ASSERT(first);
    ASSERT(second);
    ASSERT(third);
    ASSERT_NOT_CONTAINS(buf, "\"tenant\":\"other\"");
    int ones = 0;
    for (const char *p = buf; (p = strstr(p, "{\"seq\":1,")); p++) ones++;
    ASSERT_EQ_INT(ones, 1); /* the first event printed once, not again when following */
}

TEST(audit_follow_prints_new_events) { follow_prints_new_events(); }
TEST(audit_pg_follow_prints_new_events)
{
    use_pg();
    follow_prints_new_events();
    no_audit_files();
}

/* ---- the anchor: the chain's end kept outside the log --------------------------------- */


static void verify_truncated(const struct mg_config *c, const char *home, const char *problem)
{
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(c, &r, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_AUDIT_TRUNCATED);
    ASSERT(!r.ok);
    ASSERT_EQ_STR(r.problem, problem);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    mg_t_out_free(&o);
}

TEST(audit_anchor_detects_truncation)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit_n(&c, 10, "acme", "search");
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    anchor_path(&c, ap, sizeof(ap));
    struct stat st;
    ASSERT_EQ_INT(stat(ap, &st), 0);
    ASSERT_EQ_INT(st.st_mode & 0777, 0600);
    size_t n;
    char **orig = read_lines(path, &n);
    ASSERT_EQ_INT(n, 10);
    json_t *an = anchor_json(&c), *last = mg_t_json(orig[9]);
    ASSERT_EQ_INT(json_integer_value(json_object_get(an, "seq")), 10);
    ASSERT_EQ_STR(json_string_value(json_object_get(an, "hash")), json_string_value(json_object_get(last, "hash")));
    json_decref(an);
    json_decref(last);
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.anchored && r.keyed);
    size_t alen;
    char *real = anchor_bytes(&c, &alen);

    /* the last line, then the last two, cut off (head -n -1, head -n -2) */
    write_lines(path, orig, 9);
    verify_truncated(&c, home, "truncated");
    write_lines(path, orig, 8);
    verify_truncated(&c, home, "truncated");
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_CONTAINS(o.err, "seq 8");
    ASSERT_CONTAINS(o.err, "seq 10");
    mg_t_out_free(&o);
    /* intact again */
    write_lines(path, orig, 10);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    /* the whole log removed */
    ASSERT_EQ_INT(unlink(path), 0);
    verify_truncated(&c, home, "truncated");
    /* the log's end rewritten (same seq, another chain): an anchor the key
     * vouches for names another hash at seq 10 */
    write_lines(path, orig, 10);
    {
        char other[65];
        json_t *l10 = mg_t_json(orig[9]);
        snprintf(other, sizeof(other), "%s", json_string_value(json_object_get(l10, "hash")));
        json_decref(l10);
        other[0] = other[0] == 'a' ? 'b' : 'a';
        put_anchor(&c, 10, other, 10);
        verify_truncated(&c, home, "rewritten");
    }
    /* the anchor edited by hand: its MAC no longer verifies (issue 38, V3) */
    anchor_restore(&c, real, alen);
    FILE *f;
    {
        char *edited = malloc(alen);
        memcpy(edited, real, alen);
        char *h = strstr(edited, "\"hash\":\"") + 8;
        h[0] = h[0] == 'a' ? 'b' : 'a';
        anchor_restore(&c, edited, alen);
        free(edited);
        ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), -1);
        ASSERT_EQ_STR(r.problem, "anchor_invalid");
    }

    /* truncated and the anchor rewritten to match by someone without the
     * key: an unkeyed anchor in place of a keyed one fails locally now (it
     * passed before issue 38), and a copy shipped elsewhere (--anchor) says
     * how much is missing */
    write_lines(path, orig, 8);
    json_t *l8 = mg_t_json(orig[7]);
    f = fopen(ap, "w");
    fprintf(f, "{\"seq\":8,\"hash\":\"%s\",\"synced\":8,\"boot\":\"\"}\n", json_string_value(json_object_get(l8, "hash")));
    fclose(f);
    json_decref(l8);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), -1);
    ASSERT_EQ_STR(r.problem, "anchor_invalid");
    json_t *l10 = mg_t_json(orig[9]);
    char shipped[512];
    snprintf(shipped, sizeof(shipped), "{\"seq\":10,\"hash\":\"%s\"}", json_string_value(json_object_get(l10, "hash")));
    json_decref(l10);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", shipped);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_invalid]");
    ASSERT_CONTAINS(o.err, "(truncated)");
    ASSERT_CONTAINS(o.err, "what it means:");
    mg_t_out_free(&o);
    anchor_restore(&c, real, alen);
    /* the shipped copy from a file (a syslog or hook log: its last anchor counts) */
    char sf[8200];
    snprintf(sf, sizeof(sf), "%s/shipped.log", home);
    f = fopen(sf, "w");
    fprintf(f, "Nov 24 12:00:00 host memgate[1]: audit anchor {\"seq\":1,\"hash\":\"x\"}\nNov 24 12:00:01 host "
            "memgate[1]: audit anchor %s\n", shipped);
    fclose(f);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", sf);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    mg_t_out_free(&o);
    write_lines(path, orig, 10);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", sf);
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    free(real);

    /* a writer that finds the log shorter than its anchor records it, and the
     * record keeps verify failing after the anchor moves on */
    emit_n(&c, 1, "acme", "search"); /* restores a matching anchor (seq 11) */
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    char **now = read_lines(path, &n);
    ASSERT_EQ_INT(n, 11);
    write_lines(path, now, 9);
    emit_n(&c, 1, "acme", "search");
    verify_truncated(&c, home, "truncated");
    o = MG_RUN(NULL, home, "audit", "--json", "--op", "audit_recovered");
    ASSERT_CONTAINS(o.out, "\"truncated\"");
    mg_t_out_free(&o);
    for (size_t i = 0; i < n; i++) free(now[i]);
    free(now);
    for (size_t i = 0; i < 10; i++) free(orig[i]);
    free(orig);
}

TEST(audit_anchor_across_rotation)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    c.audit_keep = 100;
    emit_n(&c, 60, "acme", "search");
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.anchored && r.files >= 4);
    json_t *an = anchor_json(&c);
    ASSERT_EQ_INT(json_integer_value(json_object_get(an, "seq")), 60);
    json_decref(an);
    /* audit.log removed whole: the chain ends in audit.log.1, before the anchor */
    char path[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    size_t n0, n;
    char **l0 = read_lines(path, &n0);
    ASSERT_EQ_INT(unlink(path), 0);
    verify_truncated(&c, home, "truncated");
    /* back, and rotating on: still verifies */
    write_lines(path, l0, n0);
    for (size_t i = 0; i < n0; i++) free(l0[i]);
    free(l0);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    emit_n(&c, 40, "acme", "search");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.last_seq, 100);
    /* the last line of the current file cut off after a rotation */
    char **l = read_lines(path, &n);
    write_lines(path, l, n - 1);
    verify_truncated(&c, home, "truncated");
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
}

/* Kill a writer at random moments: the anchor is never ahead of the log, so
 * verify never raises a false alarm. */
TEST_T(audit_anchor_kill9_no_false_alarm, 240)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 16384;
    c.audit_keep = 200;
    for (int round = 0; round < 30; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            struct mg_audit *a;
            struct mg_err err = {0};
            if (mg_audit_open(&c, &a, &err) != 0) _exit(3);
            for (long i = 0;; i++) {
                struct mg_audit_event ev = {.tenant = "acme", .op = i % 3 ? "search" : "set_note",
                                            .query = "kill me", .durable = i % 3 == 0};
                if (mg_audit_emit(a, &ev, &err) != 0) _exit(4);
            }
        }
        struct timespec ts = {0, (long)(1 + (round * 7919) % 20) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int stt;
        waitpid(pid, &stt, 0);
        ASSERT(WIFSIGNALED(stt));
        struct mg_audit_report r;
        struct mg_err err = {0};
        if (mg_audit_verify(&c, &r, &err) != 0) FAIL("round %d: verify: %s", round, err.msg);
        /* (the anchor follows its line: rounds killed before the first anchor was made leave none yet) */
    }
    /* one writer that finishes: the log verifies against its anchor */
    emit_n(&c, 1, "acme", "search");
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT(r.anchored && r.anchor_seq == r.last_seq);
}

/* The anchor shipped to an HTTP hook (audit_anchor_url). */
struct hook {
    int lfd;
    int port;
    pthread_mutex_t mu;
    char last[2048];
    int posts;
    bool stop;
};

static void *hook_main(void *p)
{
    struct hook *h = p;
    for (;;) {
        int fd = accept(h->lfd, NULL, NULL);
        if (fd < 0) return NULL;
        char buf[8192];
        size_t len = 0;
        long clen = -1;
        char *body = NULL;
        while (len < sizeof(buf) - 1) {
            ssize_t r = read(fd, buf + len, sizeof(buf) - 1 - len);
            if (r <= 0) break;
            len += (size_t)r;
            buf[len] = 0;
            char *e = strstr(buf, "\r\n\r\n");
            if (e && clen < 0) {
                char *cl = strcasestr(buf, "content-length:");
                clen = cl ? strtol(cl + 15, NULL, 10) : 0;
                body = e + 4;
            }
            if (body && (long)(buf + len - body) >= clen) break;
        }
        if (body && strncmp(buf, "POST ", 5) == 0) { /* counted before the answer: the sender returns on it */
            pthread_mutex_lock(&h->mu);
            snprintf(h->last, sizeof(h->last), "%s", body);
            h->posts++;
            pthread_mutex_unlock(&h->mu);
        }
        const char *resp = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        (void)!write(fd, resp, strlen(resp));
        close(fd);
    }
}

static void anchor_shipped_to_hook(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    struct hook h = {0};
    pthread_mutex_init(&h.mu, NULL);
    h.lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ASSERT_EQ_INT(bind(h.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ASSERT_EQ_INT(listen(h.lfd, 16), 0);
    socklen_t sl = sizeof(sa);
    getsockname(h.lfd, (struct sockaddr *)&sa, &sl);
    pthread_t th;
    pthread_create(&th, NULL, hook_main, &h);
    snprintf(c.audit_anchor_url, sizeof(c.audit_anchor_url), "http://127.0.0.1:%d/anchor", ntohs(sa.sin_port));
    emit_n(&c, 5, "acme", "search"); /* closing the handle waits for the hook */
    pthread_mutex_lock(&h.mu);
    char got[2048];
    snprintf(got, sizeof(got), "%s", h.last);
    int posts = h.posts;
    pthread_mutex_unlock(&h.mu);
    ASSERT(posts >= 1);
    json_t *j = mg_t_json(got), *an = anchor_json(&c);
    ASSERT_EQ_INT(json_integer_value(json_object_get(j, "seq")), 5);
    ASSERT_EQ_STR(json_string_value(json_object_get(j, "hash")), json_string_value(json_object_get(an, "hash")));
    json_decref(j);
    json_decref(an);
    /* the shipped copy catches a truncation whose local anchor was rewritten */
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    anchor_path(&c, ap, sizeof(ap));
    size_t n = 0;
    char **l = NULL;
    if (pg_url) {
        pg_tamper("DELETE FROM audit_events WHERE seq > 3; "
                  "UPDATE audit_anchor SET seq = 3, hash = (SELECT hash FROM audit_events WHERE seq = 3)");
    } else {
        l = read_lines(path, &n);
        write_lines(path, l, 3);
        json_t *l3 = mg_t_json(l[2]);
        FILE *f = fopen(ap, "w");
        fprintf(f, "{\"seq\":3,\"hash\":\"%s\",\"synced\":3,\"boot\":\"\"}\n",
                json_string_value(json_object_get(l3, "hash")));
        fclose(f);
        json_decref(l3);
    }
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    /* PostgreSQL's anchor row is not keyed: whoever can rewrite the table fools the local check; the files'
     * keyed anchor cannot be rewritten without the key (issue 38, V3) */
    ASSERT_EQ_INT(o.status, pg_url ? 0 : 1);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", got);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, pg_url ? "error[audit_truncated]" : "(truncated)");
    mg_t_out_free(&o);
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
    shutdown(h.lfd, SHUT_RDWR);
    close(h.lfd);
    pthread_join(th, NULL);
}

TEST(audit_anchor_shipped_to_hook) { anchor_shipped_to_hook(); }
TEST(audit_pg_anchor_shipped_to_hook)
{
    use_pg();
    anchor_shipped_to_hook();
    no_audit_files();
}

/* The anchor logged to syslog(3) (audit_anchor_syslog). Needs a /dev/log to
 * listen on: the child takes a mount namespace of its own (private, so
 * nothing reaches the machine's mounts) with a tmpfs on /dev; skipped where
 * it may not (no CAP_SYS_ADMIN). */
static void anchor_shipped_to_syslog(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    snprintf(c.audit_anchor_syslog, sizeof(c.audit_anchor_syslog), "1");
    int pfd[2];
    ASSERT_EQ_INT(pipe(pfd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("none", "/dev", "tmpfs", 0, NULL) != 0)
            _exit(77);
        int s = socket(AF_UNIX, SOCK_DGRAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "/dev/log");
        if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) _exit(77);
        emit_n(&c, 3, "acme", "search");
        char msg[2048], all[8192] = "";
        ssize_t n;
        while ((n = recv(s, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0) {
            msg[n] = 0;
            strncat(all, msg, sizeof(all) - strlen(all) - 2);
            strcat(all, "\n");
        }
        (void)!write(pfd[1], all, strlen(all));
        _exit(0);
    }
    close(pfd[1]);
    char got[8192];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof(got) - 1 && (r = read(pfd[0], got + len, sizeof(got) - 1 - len)) > 0) len += (size_t)r;
    got[len] = 0;
    close(pfd[0]);
    int st;
    ASSERT_EQ_INT(waitpid(pid, &st, 0), pid);
    ASSERT(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        printf("# skipped: no mount namespace here for a /dev/log of the test's own\n");
        return;
    }
    ASSERT_EQ_INT(WEXITSTATUS(st), 0);
    /* authpriv.info = <86>; one line per update, the last the anchor's */
    ASSERT_CONTAINS(got, "<86>");
    /* at most one a second, the newest (each covers those before it): the last one goes out when the handle
     * closes */
    ASSERT_CONTAINS(got, "audit anchor {\"seq\":3,");
    json_t *an = anchor_json(&c);
    ASSERT_CONTAINS(got, json_string_value(json_object_get(an, "hash")));
    json_decref(an);
    /* the syslog text itself serves as --anchor */
    char sf[8200];
    snprintf(sf, sizeof(sf), "%s/syslog.txt", home);
    FILE *f = fopen(sf, "w");
    fputs(got, f);
    fclose(f);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", sf);
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "and with the shipped anchor");
    mg_t_out_free(&o);
}

TEST(audit_anchor_shipped_to_syslog) { anchor_shipped_to_syslog(); }
TEST(audit_pg_anchor_shipped_to_syslog)
{
    use_pg();
    anchor_shipped_to_syslog();
    no_audit_files();
}

/* An event of something flagged prompt_injection carries its score and
 * reasons, and the chain over it verifies. */
static void event_carries_injection_score_and_reasons(void)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    struct mg_audit *a;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_open(&c, &a, &err), 0);
    const char *flags[] = {"prompt_injection"}, *why[] = {"instruction_override", "leetspeak"};
    struct mg_audit_event ev = {.tenant = "a", .op = "search_code", .query = "q", .flags = flags, .nflags = 1,
                                .injection_score = 100, .injection_reasons = why, .ninjection_reasons = 2};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), 0);
    ev = (struct mg_audit_event){.tenant = "a", .op = "search_code", .query = "plain"};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), 0);
    mg_audit_close(a);
    struct mg_audit_filter none = {0};
    json_t *arr;
    ASSERT_EQ_INT(mg_audit_query(&c, &none, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), 2);
    json_t *inj = json_object_get(json_array_get(arr, 0), "injection");
    ASSERT_EQ_INT(json_integer_value(json_object_get(inj, "score")), 100);
    ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(inj, "reasons"), 1)), "leetspeak");
    ASSERT(!json_object_get(json_array_get(arr, 1), "injection")); /* left out when nothing was flagged */
    json_decref(arr);
    struct mg_audit_report r;
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
}

TEST(audit_event_carries_injection_score_and_reasons) { event_carries_injection_score_and_reasons(); }
TEST(audit_pg_event_carries_injection_score_and_reasons)
{
    use_pg();
    event_carries_injection_score_and_reasons();
    no_audit_files();
}

/* ---- PostgreSQL: one chain for every daemon ------------------------------------------- */

struct pg_writer {
    const struct mg_config *c;
    struct mg_audit *a;
    int proc, thread, n;
    int failed;
};

static void *pg_write_main(void *p)
{
    struct pg_writer *w = p;
    for (int i = 0; i < w->n; i++) {
        char q[64];
        snprintf(q, sizeof(q), "p%d t%d i%d", w->proc, w->thread, i);
        struct mg_audit_event ev = {.tenant = "acme", .instance = "writer", .op = i % 5 ? "search_code" : "set_note",
                                    .query = q, .results = i, .durable = i % 5 == 0};
        struct mg_err err = {0};
        if (mg_audit_emit(w->a, &ev, &err) != 0) {
            fprintf(stderr, "emit %s: %s\n", q, err.msg);
            w->failed++;
        }
    }
    return NULL;
}

/* 3 processes of 4 threads each (a daemon's handle per process, its threads
 * appending at once; one with audit_fsync = off) on one chain: seq runs 1..N
 * without a gap, every event is there once, and the chain verifies. */
TEST_T(audit_pg_threads_and_processes_one_chain, 240)
{
    use_pg();
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    enum { PROCS = 3, THREADS = 4, EACH = 60 };
    pid_t kids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        kids[p] = fork();
        if (kids[p] != 0) continue;
        if (p == 2) snprintf(c.audit_fsync, sizeof(c.audit_fsync), "off"); /* its commits do not wait for the WAL */
        struct mg_audit *a;
        struct mg_err err = {0};
        if (mg_audit_open(&c, &a, &err) != 0) _exit(3);
        struct pg_writer w[THREADS];
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++) {
            w[t] = (struct pg_writer){.c = &c, .a = a, .proc = p, .thread = t, .n = EACH};
            pthread_create(&th[t], NULL, pg_write_main, &w[t]);
        }
        int failed = 0;
        for (int t = 0; t < THREADS; t++) {
            pthread_join(th[t], NULL);
            failed += w[t].failed;
        }
        mg_audit_close(a);
        _exit(failed ? 4 : 0);
    }
    for (int p = 0; p < PROCS; p++) {
        int st;
        ASSERT_EQ_INT(waitpid(kids[p], &st, 0), kids[p]);
        ASSERT(WIFEXITED(st));
        ASSERT_EQ_INT(WEXITSTATUS(st), 0);
    }
    struct mg_audit_report r;
    struct mg_err err = {0};
    if (mg_audit_verify(&c, &r, &err) != 0) FAIL("verify: %s", err.msg);
    ASSERT(r.pg && r.complete && r.anchored);
    ASSERT_EQ_INT(r.events, PROCS * THREADS * EACH);
    ASSERT_EQ_INT(r.first_seq, 1);
    ASSERT_EQ_INT(r.last_seq, PROCS * THREADS * EACH);
    ASSERT_EQ_INT(r.anchor_seq, r.last_seq);
    /* every event once; each thread's in its order */
    json_t *arr;
    struct mg_audit_filter all = {0};
    ASSERT_EQ_INT(mg_audit_query(&c, &all, &arr, &err), 0);
    ASSERT_EQ_INT(json_array_size(arr), PROCS * THREADS * EACH);
    static int seen[PROCS][THREADS];
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        ASSERT_EQ_INT(json_integer_value(json_object_get(e, "seq")), (long long)i + 1);
        int p, t, k;
        ASSERT_EQ_INT(sscanf(json_string_value(json_object_get(e, "query")), "p%d t%d i%d", &p, &t, &k), 3);
        ASSERT(p >= 0 && p < PROCS && t >= 0 && t < THREADS);
        ASSERT_EQ_INT(k, seen[p][t]);
        seen[p][t]++;
    }
    json_decref(arr);
    /* the command agrees */
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0);
    ASSERT_CONTAINS(o.out, "in PostgreSQL (audit_events)");
    ASSERT_CONTAINS(o.out, "anchor row (audit_anchor, seq 720)");
    mg_t_out_free(&o);
    /* nothing of it in the data directory */
    char path[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    ASSERT(access(path, F_OK) != 0);
}

/* A writer killed (kill -9) in the middle of a stream of appends: every
 * event it was told was written is in the chain, and the chain verifies;
 * the next writer goes on from it. The writer appends on two threads, so
 * that batches of both are in flight too. */
struct kill_writer {
    struct mg_audit *a;
    int round, thread, fd;
};

static void *kill_writer_main(void *p)
{
    struct kill_writer *w = p;
    for (int i = 0;; i++) {
        char q[64];
        snprintf(q, sizeof(q), "r%d t%d i%d", w->round, w->thread, i);
        struct mg_audit_event ev = {.tenant = "acme", .op = "set_note", .query = q, .durable = true};
        struct mg_err err = {0};
        if (mg_audit_emit(w->a, &ev, &err) != 0) _exit(4);
        int ack[2] = {w->thread, i};
        if (write(w->fd, ack, sizeof(ack)) != sizeof(ack)) _exit(5); /* acknowledged (one write: atomic) */
    }
    return NULL;
}

TEST_T(audit_pg_kill9_mid_stream_loses_nothing_acknowledged, 240)
{
    use_pg();
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    enum { ROUNDS = 6, MAXI = 50000 };
    static unsigned char acked[ROUNDS][2][MAXI], present[ROUNDS][2][MAXI];
    long long total = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int pfd[2];
        ASSERT_EQ_INT(pipe(pfd), 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(pfd[0]);
            struct mg_audit *a;
            struct mg_err err = {0};
            if (mg_audit_open(&c, &a, &err) != 0) _exit(3);
            struct kill_writer w[2] = {{a, round, 0, pfd[1]}, {a, round, 1, pfd[1]}};
            pthread_t th;
            pthread_create(&th, NULL, kill_writer_main, &w[1]);
            kill_writer_main(&w[0]);
        }
        close(pfd[1]);
        int ack[2];
        bool started = false;
        for (;;) {
            ssize_t got = read(pfd[0], ack, sizeof(ack));
            if (got != sizeof(ack)) break;
            ASSERT(ack[0] >= 0 && ack[0] < 2 && ack[1] >= 0 && ack[1] < MAXI);
            acked[round][ack[0]][ack[1]] = 1;
            total++;
            if (!started) { /* it writes: kill it a moment later */
                started = true;
                struct timespec ts = {0, (long)(20 + (round * 7919) % 300) * 1000000L};
                nanosleep(&ts, NULL);
                kill(pid, SIGKILL);
            }
        }
        close(pfd[0]);
        int st;
        waitpid(pid, &st, 0);
        ASSERT(WIFSIGNALED(st));
        ASSERT(started);
    }
    /* PostgreSQL rolled back what the killed writers left open; the chain is whole */
    struct mg_audit_report r;
    struct mg_err err = {0};
    if (mg_audit_verify(&c, &r, &err) != 0) FAIL("verify: %s", err.msg);
    json_t *arr;
    struct mg_audit_filter all = {0};
    ASSERT_EQ_INT(mg_audit_query(&c, &all, &arr, &err), 0);
    ASSERT_EQ_INT((long long)json_array_size(arr), r.events);
    for (size_t k = 0; k < json_array_size(arr); k++) {
        int rd, t, i;
        ASSERT_EQ_INT(sscanf(json_string_value(json_object_get(json_array_get(arr, k), "query")), "r%d t%d i%d", &rd,
                             &t, &i),
                      3);
        ASSERT(rd >= 0 && rd < ROUNDS && t >= 0 && t < 2 && i >= 0 && i < MAXI);
        ASSERT(!present[rd][t][i]);
        present[rd][t][i] = 1;
    }
    json_decref(arr);
    for (int rd = 0; rd < ROUNDS; rd++)
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < MAXI; i++)
                if (acked[rd][t][i] && !present[rd][t][i])
                    FAIL("round %d thread %d: event %d was acknowledged and is missing", rd, t, i);
    /* beyond those acknowledged, at most what was in flight: one batch per round */
    ASSERT(r.events >= total && r.events <= total + 2 * ROUNDS);
    emit_n(&c, 1, "acme", "search");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.last_seq, r.events);
}

static void pg_verify_fails(const struct mg_config *c, const char *code, const char *problem, long long seq)
{
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(c, &r, &err), -1);
    ASSERT_EQ_STR(err.code, code);
    ASSERT(!r.ok && r.pg);
    ASSERT_EQ_STR(r.problem, problem);
    ASSERT_EQ_INT(r.line, seq);
}

/* Rows changed behind memgate's back (the triggers turned off, as the
 * database's owner can): each change fails --verify with the code and the
 * seq of the row. */
TEST(audit_pg_tamper_detected)
{
    use_pg();
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit_n(&c, 10, "acme", "search");
    struct mg_audit_report r;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    ASSERT_EQ_INT(r.events, 10);
    /* memgate's own role cannot change a row: the triggers refuse */
    struct mg_pg *pool;
    struct mg_sql *conn;
    if (mg_pg_get(&c, NULL, &pool, &conn, &err) != 0) FAIL("%s", err.msg);
    ASSERT_EQ_INT(mg_sql_runf(conn, NULL, &err, "UPDATE audit_events SET line = line WHERE seq = 5", ""), -1);
    ASSERT_CONTAINS(err.msg, "append-only");
    ASSERT_EQ_INT(mg_sql_runf(conn, NULL, &err, "DELETE FROM audit_events WHERE seq = 10", ""), -1);
    ASSERT_EQ_INT(mg_sql_runf(conn, NULL, &err, "TRUNCATE audit_events", ""), -1);
    ASSERT_EQ_INT(mg_sql_runf(conn, NULL, &err, "DELETE FROM audit_anchor", ""), -1);
    mg_pg_put(pool, &conn);
    mg_pg_close_all();
    pg_tamper("CREATE TABLE keep AS SELECT * FROM audit_events");
    const char *restore = "DELETE FROM audit_events; INSERT INTO audit_events SELECT * FROM keep; "
                          "UPDATE audit_anchor SET seq = 10, hash = (SELECT hash FROM keep WHERE seq = 10)";

    /* a line edited (the hash no longer recomputes) */
    pg_tamper("UPDATE audit_events SET line = replace(line, 'query number 4', 'query number X') WHERE seq = 5");
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "edited", 5);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_invalid]: audit_events seq 5:");
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify", "--json");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.out, "\"error\":{\"file\":\"audit_events\",\"seq\":5,\"problem\":\"edited\"");
    ASSERT_CONTAINS(o.out, "\"storage\":\"postgresql\"");
    mg_t_out_free(&o);
    pg_tamper(restore);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    /* a row replaced by one of another chain (its own hash recomputes; its prev is not seq 4's hash) */
    {
        struct mg_config fc;
        mg_t_config_defaults(&fc);
        snprintf(fc.home, sizeof(fc.home), "%s", mg_t_tmpdir());
        emit_n(&fc, 10, "acme", "search");
        char path[8192], sql[4096];
        mg_audit_path(&fc, 0, path, sizeof(path));
        size_t n;
        char **other = read_lines(path, &n);
        json_t *o5 = mg_t_json(other[4]);
        snprintf(sql, sizeof(sql), "UPDATE audit_events SET line = '%s', hash = '%s' WHERE seq = 5", other[4],
                 json_string_value(json_object_get(o5, "hash")));
        json_decref(o5);
        for (size_t i = 0; i < n; i++) free(other[i]);
        free(other);
        pg_tamper(sql);
        pg_verify_fails(&c, MG_E_AUDIT_INVALID, "replaced", 5);
        pg_tamper(restore);
    }
    /* a row deleted */
    pg_tamper("DELETE FROM audit_events WHERE seq = 5");
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "removed", 6);
    pg_tamper(restore);
    /* the first row deleted: nothing is rotated away in PostgreSQL */
    pg_tamper("DELETE FROM audit_events WHERE seq = 1");
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "removed", 2);
    pg_tamper(restore);
    /* two rows swapped */
    pg_tamper("UPDATE audit_events a SET line = k.line, hash = k.hash, time_ms = k.time_ms, op = k.op "
              "FROM keep k WHERE a.seq IN (5, 6) AND k.seq = 11 - a.seq");
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "reordered", 5);
    pg_tamper(restore);
    /* a column beside the line changed (what --tenant filters on) */
    pg_tamper("UPDATE audit_events SET tenant = 'other' WHERE seq = 3");
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "edited", 3);
    pg_tamper(restore);
    /* the last rows deleted: the chain ends before its anchor row */
    pg_tamper("DELETE FROM audit_events WHERE seq >= 9");
    pg_verify_fails(&c, MG_E_AUDIT_TRUNCATED, "truncated", 0);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    ASSERT_CONTAINS(o.err, "seq 8");
    ASSERT_CONTAINS(o.err, "seq 10");
    mg_t_out_free(&o);
    pg_tamper(restore);
    /* the anchor row deleted */
    pg_tamper("DELETE FROM audit_anchor");
    pg_verify_fails(&c, MG_E_AUDIT_TRUNCATED, "anchor_missing", 0);
    pg_tamper("INSERT INTO audit_anchor SELECT 1, seq, hash, time_ms FROM keep WHERE seq = 10");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    /* the last row rewritten (another chain's end): the anchor row's hash tells */
    pg_tamper("UPDATE audit_anchor SET hash = (SELECT hash FROM keep WHERE seq = 9)");
    pg_verify_fails(&c, MG_E_AUDIT_TRUNCATED, "rewritten", 0);
    pg_tamper(restore);

    /* the next writer finds the chain shorter than its anchor and records
     * it, so --verify keeps failing once the anchor has moved on */
    pg_tamper("DELETE FROM audit_events WHERE seq >= 9");
    emit_n(&c, 1, "acme", "search");
    pg_verify_fails(&c, MG_E_AUDIT_TRUNCATED, "truncated", 9);
    o = MG_RUN(NULL, home, "audit", "--json", "--op", "audit_recovered");
    ASSERT_CONTAINS(o.out, "\"truncated\"");
    ASSERT_CONTAINS(o.out, "\"seq\":9,");
    mg_t_out_free(&o);
    pg_tamper(restore);
    /* a last row that does not verify: the writer chains on from it and says so */
    pg_tamper("UPDATE audit_events SET line = line || ' ' WHERE seq = 10");
    emit_n(&c, 1, "acme", "search");
    o = MG_RUN(NULL, home, "audit", "--json", "--op", "audit_recovered");
    ASSERT_CONTAINS(o.out, "\"bad_tail\"");
    ASSERT_CONTAINS(o.out, "the last row, seq 10, does not verify");
    mg_t_out_free(&o);
    pg_verify_fails(&c, MG_E_AUDIT_INVALID, "edited", 10);
    pg_tamper("UPDATE audit_events SET line = rtrim(line) WHERE seq = 10");
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0); /* the record stays, a warning of what was seen */
    ASSERT_EQ_INT(r.last_seq, 12);
}

/* PostgreSQL down: an append fails with storage_unavailable, and a call
 * whose event cannot be written is not answered; when it is back, appends
 * go on by themselves and the chain is whole. */
TEST_T(audit_pg_down_is_storage_unavailable_and_recovers, 180)
{
    mg_t_pg_dir(); /* needs the runner's scripts/pg.sh */
    const char *sh = getenv("MEMGATE_TEST_PG_SH");
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/pg", mg_t_tmpdir());
    mg_t_sh("/", "'%s' start '%s' >/dev/null", sh, dir);
    static char url[700];
    snprintf(url, sizeof(url), "postgresql:///memgate?host=%s&user=memgate", dir);
    pg_url = url;
    setenv("MEMGATE_STORAGE", url, 1);
    setenv("MEMGATE_STORAGE_TIMEOUT", "2", 1);
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.storage_timeout = 2;
    struct mg_audit *a;
    struct mg_err err = {0};
    if (mg_audit_open(&c, &a, &err) != 0) FAIL("%s", err.msg);
    struct mg_audit_event ev = {.tenant = "acme", .op = "search_code", .query = "before"};
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), 0);

    mg_t_sh("/", "'%s' stop '%s' >/dev/null", sh, dir);
    ev.query = "while down";
    ASSERT_EQ_INT(mg_audit_emit(a, &ev, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    ASSERT_NOT_CONTAINS(err.msg, "password");
    /* a tool call whose event cannot be written answers the error, never its result (here the shared
     * catalog, read before the call runs, fails first; tests/node/audit_unwritten.test.mjs has the
     * answer withheld after the call ran) */
    struct mg_t_out o = MG_RUN(NULL, home, "repos", "--json");
    ASSERT(o.status != 0);
    ASSERT_CONTAINS(o.out, "storage_unavailable");
    ASSERT_NOT_CONTAINS(o.out, "\"repos\"");
    mg_t_out_free(&o);
    /* a handle opened while it is down is no error: its appends are */
    struct mg_audit *b;
    if (mg_audit_open(&c, &b, &err) != 0) FAIL("open while down: %s", err.msg);
    ASSERT_EQ_INT(mg_audit_emit(b, &ev, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_STORAGE_UNAVAILABLE);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT(o.status != 0);
    ASSERT_CONTAINS(o.err, "error[storage_unavailable]");
    mg_t_out_free(&o);

    mg_t_sh("/", "'%s' restart '%s' >/dev/null", sh, dir);
    int rc = -1;
    for (int i = 0; i < 50 && rc != 0; i++) {
        ev.query = "after";
        rc = mg_audit_emit(a, &ev, &err);
        if (rc != 0) usleep(100000);
    }
    if (rc != 0) FAIL("no recovery: %s", err.msg);
    ASSERT_EQ_INT(mg_audit_emit(b, &ev, &err), 0);
    mg_audit_close(a);
    mg_audit_close(b);
    struct mg_audit_report r;
    if (mg_audit_verify(&c, &r, &err) != 0) FAIL("verify: %s", err.msg);
    ASSERT_EQ_INT(r.events, 3); /* before, after (a), after (b): nothing of what failed */
    o = MG_RUN(NULL, home, "repos", "--json");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    mg_pg_close_all();
    mg_t_sh("/", "'%s' rm '%s' >/dev/null", sh, dir);
}
