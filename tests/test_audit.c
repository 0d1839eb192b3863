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
#include "security/common.h"
#include "util/utf8.h"

static void cfg_for(struct mg_config *c, const char *home)
{
    mg_config_defaults(c);
    snprintf(c->home, sizeof(c->home), "%s", home);
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
        char ap[8192];
        snprintf(ap, sizeof(ap), "%s/audit/audit.anchor", home);
        json_t *l9 = mg_t_json(orig[8]);
        FILE *af = fopen(ap, "w");
        fprintf(af, "{\"seq\":9,\"hash\":\"%s\",\"synced\":9,\"boot\":\"\"}\n",
                json_string_value(json_object_get(l9, "hash")));
        fclose(af);
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
    /* without the anchor the same log passes too (nothing can tell a cut at
     * the end then: the summary says so), but the anchor's check is gone */
    {
        char ap[8192], keep[8200];
        snprintf(ap, sizeof(ap), "%s/audit/audit.anchor", home);
        snprintf(keep, sizeof(keep), "%s.keep", ap);
        ASSERT_EQ_INT(rename(ap, keep), 0);
        ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
        ASSERT(r.torn_tail && !r.anchored);
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

TEST(audit_concurrent_processes)
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

TEST(audit_query_filters_and_fields)
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

TEST(audit_follow_prints_new_events)
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

/* ---- the anchor: the chain's end kept outside the log --------------------------------- */

static void anchor_path(const struct mg_config *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s/audit/audit.anchor", c->home);
}

static json_t *anchor_json(const struct mg_config *c)
{
    char p[8192];
    anchor_path(c, p, sizeof(p));
    json_error_t je;
    json_t *o = json_load_file(p, 0, &je);
    if (!o) FAIL("anchor %s: %s", p, je.text);
    return o;
}

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
    ASSERT(r.anchored);

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
    /* the log's end rewritten (same seq, another chain) */
    write_lines(path, orig, 10);
    char saved[4096];
    FILE *f = fopen(ap, "r");
    size_t sl = fread(saved, 1, sizeof(saved) - 1, f);
    saved[sl] = 0;
    fclose(f);
    char *h = strstr(saved, "\"hash\":\"") + 8;
    h[0] = h[0] == 'a' ? 'b' : 'a';
    f = fopen(ap, "w");
    fputs(saved, f);
    fclose(f);
    verify_truncated(&c, home, "rewritten");

    /* truncated and the anchor rewritten to match: the local check cannot see
     * it; only a copy shipped elsewhere (--anchor) does */
    write_lines(path, orig, 8);
    json_t *l8 = mg_t_json(orig[7]);
    f = fopen(ap, "w");
    fprintf(f, "{\"seq\":8,\"hash\":\"%s\",\"synced\":8,\"boot\":\"\"}\n", json_string_value(json_object_get(l8, "hash")));
    fclose(f);
    json_decref(l8);
    ASSERT_EQ_INT(mg_audit_verify(&c, &r, &err), 0);
    json_t *l10 = mg_t_json(orig[9]);
    char shipped[512];
    snprintf(shipped, sizeof(shipped), "{\"seq\":10,\"hash\":\"%s\"}", json_string_value(json_object_get(l10, "hash")));
    json_decref(l10);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", shipped);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    mg_t_out_free(&o);
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
    c.audit_keep = 1000;
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

TEST(audit_anchor_shipped_to_hook)
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
    size_t n;
    char **l = read_lines(path, &n);
    write_lines(path, l, 3);
    json_t *l3 = mg_t_json(l[2]);
    FILE *f = fopen(ap, "w");
    fprintf(f, "{\"seq\":3,\"hash\":\"%s\",\"synced\":3,\"boot\":\"\"}\n", json_string_value(json_object_get(l3, "hash")));
    fclose(f);
    json_decref(l3);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 0); /* the local check is fooled */
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify", "--anchor", got);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    mg_t_out_free(&o);
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
    shutdown(h.lfd, SHUT_RDWR);
    close(h.lfd);
    pthread_join(th, NULL);
}

/* The anchor logged to syslog(3) (audit_anchor_syslog). Needs a /dev/log to
 * listen on: the child takes a mount namespace of its own (private, so
 * nothing reaches the machine's mounts) with a tmpfs on /dev; skipped where
 * it may not (no CAP_SYS_ADMIN). */
TEST(audit_anchor_shipped_to_syslog)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_anchor_syslog = 1;
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
    ASSERT_CONTAINS(got, "audit anchor {\"seq\":1,");
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

/* An event of something flagged prompt_injection carries its score and
 * reasons, and the chain over it verifies. */
TEST(audit_event_carries_injection_score_and_reasons)
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
