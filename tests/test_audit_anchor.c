/* test_audit_anchor.c — an audit log that someone with write access to the
 * data directory cannot cut quietly (issue 38, V3; docs/security.md, "The
 * anchor"): each way the red team cut the log, through the real files and
 * `memgate audit --verify`, and the anchor's copy in a real systemd journal.
 *
 * Every case here passed --verify before the anchor was keyed: the tail cut
 * and audit.anchor deleted or rewritten to match, the whole chain recomputed
 * with a new anchor, a rotated file deleted, an older anchor put back.
 */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sodium.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "security/audit.h"
#include "security/common.h"

static void cfg_for(struct mg_config *c, const char *home)
{
    mg_t_config_defaults(c);
    snprintf(c->home, sizeof(c->home), "%s", home);
    snprintf(c->audit_anchor_syslog, sizeof(c->audit_anchor_syslog), "0");
}

static void emit(const struct mg_config *c, int n)
{
    struct mg_audit *a;
    struct mg_err err = {0};
    if (mg_audit_open(c, &a, &err) != 0) FAIL("audit open: %s", err.msg);
    for (int i = 0; i < n; i++) {
        struct mg_audit_event ev = {.tenant = "acme", .op = "search", .query = "who read what", .durable = true};
        if (mg_audit_emit(a, &ev, &err) != 0) FAIL("emit: %s", err.msg);
    }
    mg_audit_close(a);
}

static char **lines_of(const char *path, size_t *n)
{
    char *t = mg_t_read(NULL, path);
    if (!t) FAIL("cannot read %s", path);
    size_t cap = 16;
    char **v = malloc(cap * sizeof(*v));
    *n = 0;
    for (char *save = NULL, *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (*n == cap) v = realloc(v, (cap *= 2) * sizeof(*v));
        v[(*n)++] = strdup(l);
    }
    free(t);
    return v;
}

static void put_lines(const char *path, char **v, size_t n)
{
    FILE *f = fopen(path, "w");
    ASSERT(f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s\n", v[i]);
    fclose(f);
}

static void free_lines(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* `memgate audit --verify`: its exit status, and its stderr kept for checks. */
static int verify_cli(const char *home, char **err_out)
{
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    if (err_out) *err_out = strdup(o.err ? o.err : "");
    int st = o.status;
    mg_t_out_free(&o);
    return st;
}

static void expect_fail(const char *home, const char *problem)
{
    char *e;
    int st = verify_cli(home, &e);
    if (st != 1) FAIL("--verify passed (status %d), expected it to find %s; stderr: %s", st, problem, e);
    char want[80];
    snprintf(want, sizeof(want), "(%s)", problem);
    if (!strstr(e, want)) { /* the first error is printed with its code, the rest as "also wrong (...)" */
        struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify", "--json");
        char pj[80];
        snprintf(pj, sizeof(pj), "\"problem\":\"%s\"", problem);
        if (!strstr(o.out, pj)) FAIL("--verify did not find %s: %s %s", problem, e, o.out);
        mg_t_out_free(&o);
    }
    ASSERT_CONTAINS(e, "what it means:");
    free(e);
}

/* The line hash of the chain (security/audit.h): BLAKE2b-256(unhex(prev) ||
 * the line's bytes before ,"hash":). */
static void line_hash(const char *prev, const char *body, size_t n, char out[65])
{
    unsigned char p[32], h[32];
    sodium_hex2bin(p, sizeof(p), prev, 64, NULL, NULL, NULL);
    crypto_generichash_state s;
    crypto_generichash_init(&s, NULL, 0, 32);
    crypto_generichash_update(&s, p, 32);
    crypto_generichash_update(&s, (const unsigned char *)body, n);
    crypto_generichash_final(&s, h, 32);
    sodium_bin2hex(out, 65, h, 32);
}

TEST(audit_v3_tail_cut_and_anchor_deleted_fails_and_stays_failed)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit(&c, 10);
    ASSERT_EQ_INT(verify_cli(home, NULL), 0);
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    size_t n;
    char **l = lines_of(path, &n);
    put_lines(path, l, 7);
    ASSERT_EQ_INT(unlink(ap), 0);
    expect_fail(home, "anchor_missing");
    /* the next write does not make the cut permanent: it records it */
    emit(&c, 1);
    expect_fail(home, "anchor_missing");
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--json", "--op", "audit_recovered");
    ASSERT_CONTAINS(o.out, "\"anchor_missing\"");
    mg_t_out_free(&o);
    free_lines(l, n);
}

TEST(audit_v3_anchor_rewritten_to_match_a_cut_fails)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit(&c, 10);
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    size_t n;
    char **l = lines_of(path, &n);
    put_lines(path, l, 6);
    json_t *l6 = mg_t_json(l[5]);
    const char *h6 = json_string_value(json_object_get(l6, "hash"));
    /* the old format, matching the cut log */
    FILE *f = fopen(ap, "w");
    fprintf(f, "{\"seq\":6,\"hash\":\"%s\",\"synced\":6,\"boot\":\"\"}\n", h6);
    fclose(f);
    expect_fail(home, "anchor_invalid");
    /* and the next write records it rather than taking the forged anchor's word */
    emit(&c, 1);
    expect_fail(home, "anchor_invalid");
    json_decref(l6);
    free_lines(l, n);
}

TEST(audit_v3_keyed_anchor_edited_fails)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit(&c, 10);
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    size_t n;
    char **l = lines_of(path, &n);
    json_t *l7 = mg_t_json(l[6]);
    char *a = mg_t_read(NULL, ap);
    ASSERT(a);
    /* both slots say seq 7 with its hash, as someone without the key would write them */
    for (int s = 0; s < 2; s++) {
        char *slot = a + s * 4096;
        char *seq = strstr(slot, "\"seq\":"), *hash = strstr(slot, "\"hash\":\"");
        ASSERT(seq && hash);
        char rest[4096];
        snprintf(rest, sizeof(rest), "%s", strstr(slot, ",\"synced\""));
        rest[strcspn(rest, " \n")] = 0; /* the record, without the padding */
        int k = snprintf(slot, 4096, "{\"seq\":7,\"hash\":\"%s\"%s", json_string_value(json_object_get(l7, "hash")),
                         rest);
        memset(slot + k, ' ', 4095 - (size_t)k);
        slot[4095] = '\n';
    }
    put_lines(path, l, 7);
    FILE *f = fopen(ap, "w");
    fwrite(a, 1, 8192, f);
    fclose(f);
    expect_fail(home, "anchor_invalid");
    json_decref(l7);
    free(a);
    free_lines(l, n);
}

TEST(audit_v3_whole_chain_recomputed_with_a_new_anchor_fails)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    emit(&c, 8);
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    size_t n;
    char **l = lines_of(path, &n);
    ASSERT_EQ_INT(n, 8);
    /* event 3 removed, every later one renumbered and every hash recomputed */
    char prev[65] = "0000000000000000000000000000000000000000000000000000000000000000";
    size_t k = 0;
    char **out = calloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        if (i == 2) continue;
        json_t *o = mg_t_json(l[i]);
        json_object_set_new(o, "seq", json_integer((json_int_t)k + 1));
        json_object_set_new(o, "prev", json_string(prev));
        json_object_del(o, "hash");
        char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        size_t bl = strlen(body) - 1; /* without its closing brace */
        char h[65];
        line_hash(prev, body, bl, h);
        body[bl] = 0;
        size_t ln = bl + 80;
        out[k] = malloc(ln);
        snprintf(out[k], ln, "%s,\"hash\":\"%s\"}", body, h);
        memcpy(prev, h, 65);
        free(body);
        json_decref(o);
        k++;
    }
    put_lines(path, out, k);
    /* the chain alone now verifies; a new anchor for its end, without the key */
    FILE *f = fopen(ap, "w");
    fprintf(f, "{\"seq\":%zu,\"hash\":\"%s\",\"synced\":%zu,\"boot\":\"\"}\n", k, prev, k);
    fclose(f);
    expect_fail(home, "anchor_invalid");
    /* and with no anchor at all */
    unlink(ap);
    expect_fail(home, "anchor_missing");
    free_lines(out, k);
    free_lines(l, n);
}

TEST(audit_v3_rotated_file_deleted_fails)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    c.audit_keep = 20;
    emit(&c, 60);
    ASSERT_EQ_INT(verify_cli(home, NULL), 0);
    char p[8192];
    int oldest = 0;
    for (int i = 1; i < 50; i++) {
        mg_audit_path(&c, i, p, sizeof(p));
        if (access(p, F_OK) == 0) oldest = i;
    }
    ASSERT(oldest >= 3);
    /* the oldest rotated file: before, --verify said only that older files were rotated away */
    mg_audit_path(&c, oldest, p, sizeof(p));
    char *keep = mg_t_read(NULL, p);
    ASSERT_EQ_INT(unlink(p), 0);
    expect_fail(home, "files_removed");
    /* the next writer records it, and a rotation does not make it forgotten */
    emit(&c, 40);
    expect_fail(home, "files_removed");
    /* a file in the middle */
    char *home2 = mg_t_tmpdir();
    struct mg_config c2;
    cfg_for(&c2, home2);
    c2.audit_max_bytes = 4096;
    c2.audit_keep = 20;
    emit(&c2, 60);
    mg_audit_path(&c2, 2, p, sizeof(p));
    ASSERT_EQ_INT(unlink(p), 0);
    char *e;
    ASSERT_EQ_INT(verify_cli(home2, &e), 1);
    ASSERT_CONTAINS(e, "removed");
    free(e);
    free(keep);
}

TEST(audit_v3_verify_explains_each_finding)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    c.audit_max_bytes = 4096;
    c.audit_keep = 20;
    emit(&c, 40);
    char path[8192], p[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    /* the current file removed whole and an old rotated one too: two findings */
    int oldest = 0;
    for (int i = 1; i < 50; i++) {
        mg_audit_path(&c, i, p, sizeof(p));
        if (access(p, F_OK) == 0) oldest = i;
    }
    mg_audit_path(&c, oldest, p, sizeof(p));
    ASSERT_EQ_INT(unlink(p), 0);
    ASSERT_EQ_INT(unlink(path), 0);
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify", "--json");
    ASSERT_EQ_INT(o.status, 1);
    o.out[strcspn(o.out, "\n")] = 0; /* the report (the error's own JSON line follows) */
    json_t *j = mg_t_json(o.out);
    json_t *fs = json_object_get(j, "findings");
    ASSERT(json_array_size(fs) >= 2);
    bool trunc = false, files = false;
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        const char *pr = json_string_value(json_object_get(f, "problem"));
        trunc |= strcmp(pr, "truncated") == 0;
        files |= strcmp(pr, "files_removed") == 0;
        ASSERT(strlen(json_string_value(json_object_get(f, "explain"))) > 40);
        ASSERT_EQ_STR(json_string_value(json_object_get(f, "severity")), "error");
    }
    ASSERT(trunc && files);
    json_decref(j);
    mg_t_out_free(&o);
    o = MG_RUN(NULL, home, "audit", "--verify");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT_CONTAINS(o.err, "error[audit_truncated]");
    ASSERT_CONTAINS(o.err, "also wrong (files_removed)");
    /* one explanation per finding */
    int whys = 0;
    for (const char *q = o.err; (q = strstr(q, "what it means:")); q++) whys++;
    ASSERT_GE_INT(whys, 2);
    mg_t_out_free(&o);
}

TEST(audit_v3_key_never_in_the_data_directory)
{
    char *home = mg_t_tmpdir();
    struct mg_config c;
    cfg_for(&c, home);
    snprintf(c.audit_key, sizeof(c.audit_key), "%s/keys/audit.key", home);
    struct mg_audit *a;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_audit_open(&c, &a, &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_CONFIG);
    ASSERT_CONTAINS(err.msg, "must not live beside it");
    /* elsewhere it is made 0600 on first use */
    char *kd = mg_t_tmpdir();
    snprintf(c.audit_key, sizeof(c.audit_key), "%s/cfg/audit.key", kd);
    emit(&c, 1);
    struct stat st;
    ASSERT_EQ_INT(stat(c.audit_key, &st), 0);
    ASSERT_EQ_INT(st.st_mode & 0777, 0600);
    ASSERT_EQ_INT(st.st_size, 32);
    /* verify never makes one: without it the keyed anchor cannot be checked */
    char keep[8300];
    snprintf(keep, sizeof(keep), "%s.keep", c.audit_key);
    ASSERT_EQ_INT(rename(c.audit_key, keep), 0);
    struct mg_audit_report *r = calloc(1, sizeof(*r));
    ASSERT_EQ_INT(mg_audit_verify(&c, r, &err), -1);
    ASSERT_EQ_STR(r->problem, "key_missing");
    ASSERT_EQ_INT(access(c.audit_key, F_OK), -1);
    ASSERT_EQ_INT(rename(keep, c.audit_key), 0);
    ASSERT_EQ_INT(mg_audit_verify(&c, r, &err), 0);
    ASSERT(r->keyed);
    free(r);
}

/* ---- the anchor's copy in the system journal, on by default ------------------------------- */

/* In a mount namespace of the child's own (private: nothing reaches the
 * machine's mounts), with a tmpfs on /run: a real systemd-journald, then
 * memgate's default settings ship anchors to it, and --verify reads them
 * back. Exit 77 where the namespace or journald cannot be had. */
static int journal_child(const char *home, const char *bin)
{
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("none", "/run", "tmpfs", 0, NULL) != 0 || mkdir("/run/systemd", 0755) != 0 ||
        mkdir("/run/systemd/journal", 0755) != 0)
        return 77;
    if (access("/lib/systemd/systemd-journald", X_OK) != 0) return 77;
    pid_t jd = fork();
    if (jd == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0), dup2(dn, 1), dup2(dn, 2);
        execl("/lib/systemd/systemd-journald", "systemd-journald", (char *)NULL);
        _exit(127);
    }
    int ok = 0;
    for (int i = 0; i < 100 && !ok; i++) {
        struct stat st;
        ok = stat("/run/systemd/journal/socket", &st) == 0;
        if (!ok) usleep(50000);
    }
    int rc = 0;
    if (!ok) {
        rc = 77;
        goto out;
    }
    unsetenv("MEMGATE_AUDIT_ANCHOR_SYSLOG"); /* the default: auto */
    setenv("MEMGATE_BIN", bin, 1);
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", home);
    ASSERT_EQ_STR(c.audit_anchor_syslog, "auto");
    for (int i = 0; i < 5; i++) {
        struct mg_t_out o = MG_RUN(NULL, home, "repos");
        mg_t_out_free(&o);
    }
    char path[8192], ap[8192];
    mg_audit_path(&c, 0, path, sizeof(path));
    mg_audit_anchor_path(&c, ap, sizeof(ap));
    char *old = mg_t_read(NULL, ap);
    size_t n5;
    char **l5 = lines_of(path, &n5);
    sleep(1);
    for (int i = 0; i < 5; i++) {
        struct mg_t_out o = MG_RUN(NULL, home, "repos");
        mg_t_out_free(&o);
    }
    struct mg_t_out o = MG_RUN(NULL, home, "audit", "--verify");
    if (o.status != 0 || !strstr(o.out, "system journal's copy (seq 10)")) {
        fprintf(stderr, "verify before the cut: %d %s %s\n", o.status, o.out, o.err);
        rc = 1;
    }
    mg_t_out_free(&o);
    /* the attacker: the log cut back to seq 5, the anchor of then put back (it verifies: it is the real one) */
    put_lines(path, l5, n5);
    FILE *f = fopen(ap, "w");
    fwrite(old, 1, 8192, f);
    fclose(f);
    o = MG_RUN(NULL, home, "audit", "--verify");
    if (rc == 0 && (o.status != 1 || !strstr(o.err, "the journal's anchor says seq 10"))) {
        fprintf(stderr, "verify after the rollback: %d %s %s\n", o.status, o.out, o.err);
        rc = 2;
    }
    mg_t_out_free(&o);
    free_lines(l5, n5);
    free(old);
out:
    kill(jd, SIGTERM);
    waitpid(jd, NULL, 0);
    return rc;
}

TEST(audit_v3_anchor_in_the_journal_by_default_catches_a_rollback)
{
    char *home = mg_t_tmpdir();
    const char *bin = getenv("MEMGATE_BIN");
    pid_t pid = fork();
    if (pid == 0) _exit(journal_child(home, bin ? bin : "build/memgate"));
    int st;
    ASSERT_EQ_INT(waitpid(pid, &st, 0), pid);
    ASSERT(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        printf("# skipped: no mount namespace or systemd-journald here for a journal of the test's own\n");
        return;
    }
    ASSERT_EQ_INT(WEXITSTATUS(st), 0);
}
