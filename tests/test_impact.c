/* test_impact.c — unified diffs parsed (search/impact.h) and what a change
 * touches, through `memgate impact` on a small git repo: exact changed
 * definitions and ranked callers for a diff, revisions and paths; a rename's
 * broken callers; stale diffs; scope; bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "search/impact.h"

/* "old>new:h1,h2" per file, hunks as "os+ol/ns+nl", files joined by " | " */
static char *diff_str(const struct mg_diff *d)
{
    static char b[2048];
    size_t o = 0;
    b[0] = 0;
    for (size_t i = 0; i < d->n; i++) {
        const struct mg_diff_file *f = &d->v[i];
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%s>%s:", i ? " | " : "", f->old_path ? f->old_path : "-",
                              f->new_path ? f->new_path : "-");
        for (size_t k = 0; k < f->nh; k++)
            o += (size_t)snprintf(b + o, sizeof(b) - o, "%s%d+%d/%d+%d", k ? "," : "", f->h[k].old_start,
                                  f->h[k].old_len, f->h[k].new_start, f->h[k].new_len);
    }
    return b;
}

static const char *parse_code(const char *text)
{
    static char code[64];
    struct mg_diff d;
    struct mg_err err = {0};
    if (mg_diff_parse(text, strlen(text), &d, &err) == 0) {
        mg_diff_release(&d);
        return "ok";
    }
    snprintf(code, sizeof(code), "%s", err.code);
    return code;
}

TEST(impact_diff_parse_git_and_plain)
{
    static const char GIT[] = "diff --git a/old.c b/new.c\n"
                              "similarity index 90%\n"
                              "rename from old.c\n"
                              "rename to new.c\n"
                              "index 1111111..2222222 100644\n"
                              "--- a/old.c\n"
                              "+++ b/new.c\n"
                              "@@ -1,2 +1,2 @@\n"
                              " a\n"
                              "-b\n"
                              "+c\n"
                              "diff --git a/n.c b/n.c\n"
                              "new file mode 100644\n"
                              "--- /dev/null\n"
                              "+++ b/n.c\n"
                              "@@ -0,0 +1 @@\n"
                              "+x\n"
                              "\\ No newline at end of file\n"
                              "diff --git a/d.c b/d.c\n"
                              "deleted file mode 100644\n"
                              "--- a/d.c\n"
                              "+++ /dev/null\n"
                              "@@ -1 +0,0 @@\n"
                              "-y\n"
                              "diff --git \"a/sp ace\\t.c\" \"b/sp ace\\t.c\"\n"
                              "--- \"a/sp ace\\t.c\"\n"
                              "+++ \"b/sp ace\\t.c\"\n"
                              "@@ -1 +1 @@\n"
                              "--- a removed line, not a header\n"
                              "+++ an added one\n"
                              "diff --git a/m.sh b/m.sh\n"
                              "old mode 100644\n"
                              "new mode 100755\n";
    struct mg_diff d;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_diff_parse(GIT, strlen(GIT), &d, &err), 0);
    ASSERT_EQ_STR(diff_str(&d), "old.c>new.c:1+2/1+2 | ->n.c:0+0/1+1 | d.c>-:1+1/0+0 | sp ace\t.c>sp ace\t.c:1+1/1+1 | "
                                "m.sh>m.sh:");
    mg_diff_release(&d);

    /* a mail with prose before it; diff -u of two trees, times after a tab */
    static const char PLAIN[] = "From abc Mon Sep 17 00:00:00 2001\n"
                                "Subject: fix\n"
                                "\n"
                                "--- a dash line in prose\n"
                                "text\n"
                                "--- orig/src/x.c\t2024-01-01 00:00:00.000000000 +0000\n"
                                "+++ new/src/x.c\t2024-01-02 00:00:00.000000000 +0000\n"
                                "@@ -3,0 +4,2 @@\n"
                                "+p\n"
                                "+q\n"
                                "@@ -9,2 +11 @@ int f(void)\n"
                                " r\n"
                                "-s\n";
    ASSERT_EQ_INT(mg_diff_parse(PLAIN, strlen(PLAIN), &d, &err), 0);
    ASSERT_EQ_STR(diff_str(&d), "orig/src/x.c>new/src/x.c:3+0/4+2,9+2/11+1");
    mg_diff_within(&d, "new/");
    ASSERT_EQ_STR(diff_str(&d), "->src/x.c:3+0/4+2,9+2/11+1");
    mg_diff_release(&d);
}

TEST(impact_diff_parse_refuses_malformed)
{
    ASSERT_EQ_STR(parse_code(""), "invalid_diff");                                       /* no file */
    ASSERT_EQ_STR(parse_code("just some text\n--- a\nnot plus\n"), "invalid_diff");     /* prose only */
    ASSERT_EQ_STR(parse_code("@@ -1 +1 @@\n-a\n+b\n"), "invalid_diff");                  /* hunk before a file */
    ASSERT_EQ_STR(parse_code("--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n+b\n"), "invalid_diff"); /* header */
    ASSERT_EQ_STR(parse_code("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n+b\n"), "invalid_diff"); /* ends inside */
    ASSERT_EQ_STR(parse_code("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\nx b\n c\n"), "invalid_diff"); /* a stray line */
    ASSERT_EQ_STR(parse_code("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"), "invalid_diff");
    ASSERT_EQ_STR(parse_code("--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n"), "invalid_diff");
    ASSERT_EQ_STR(parse_code("--- \"a/unterminated\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"), "invalid_diff");
    ASSERT_EQ_STR(parse_code("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"), "ok");
    /* the size cap: refused before reading */
    size_t big = MG_DIFF_MAX_BYTES + 1;
    char *t = malloc(big);
    ASSERT(t != NULL);
    memset(t, ' ', big);
    struct mg_diff d;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_diff_parse(t, big, &d, &err), -1);
    ASSERT_EQ_STR(err.code, "invalid_diff");
    ASSERT(strstr(err.msg, "split it") != NULL);
    free(t);
    /* paths */
    const char *bad[] = {"/abs/x.c"};
    ASSERT_EQ_INT(mg_diff_of_paths(bad, 1, &d, &err), -1);
    ASSERT_EQ_STR(err.code, "invalid_argument");
    const char *good[] = {"./src/a.c", "b.c"};
    ASSERT_EQ_INT(mg_diff_of_paths(good, 2, &d, &err), 0);
    ASSERT_EQ_STR(diff_str(&d), "src/a.c>src/a.c: | b.c>b.c:");
    mg_diff_release(&d);
}

static const char A_C[] = "#include \"b.h\"\n"                              /* 1 */
                          "static int helper(int x)\n"                      /* 2 */
                          "{\n"                                             /* 3 */
                          "\treturn x + 1;\n"                               /* 4 */
                          "}\n"                                             /* 5 */
                          "\n"                                              /* 6 */
                          "int entry(void)\n"                               /* 7 */
                          "{\n"                                             /* 8 */
                          "\treturn helper(2) + middle(3);\n"               /* 9 */
                          "}\n"                                             /* 10 */
                          "\n"                                              /* 11 */
                          "int top(void)\n"                                 /* 12 */
                          "{\n"                                             /* 13 */
                          "\treturn entry();\n"                             /* 14 */
                          "}\n"                                             /* 15 */
                          "int uses_old(void) { return old_name(1); }\n";   /* 16 */

static const char B_C[] = "int leaf(int y) { return y * 2; }\n"             /* 1 */
                          "int middle(int z)\n"                             /* 2 */
                          "{\n"                                             /* 3 */
                          "\treturn leaf(z) + helper(z);\n"                 /* 4 */
                          "}\n"                                             /* 5 */
                          "static int helper(int q) { return q; }\n"        /* 6 */
                          "int old_name(int v) { return v; }\n";            /* 7 */

/* b.c's static helper changed, old_name renamed new_name */
static const char B_C2[] = "int leaf(int y) { return y * 2; }\n"
                           "int middle(int z)\n"
                           "{\n"
                           "\treturn leaf(z) + helper(z);\n"
                           "}\n"
                           "static int helper(int q) { return q + 0; }\n"
                           "int new_name(int v) { return v; }\n";

/* "change:path:line:name" for changed, "depth:path:line:name<-calls(confidence)=score" for impacted */
static char *impact_str(json_t *r)
{
    static char b[4096];
    size_t o = 0, i;
    json_t *c;
    b[0] = 0;
    json_array_foreach(json_object_get(r, "changed"), i, c)
        o += (size_t)snprintf(b + o, sizeof(b) - o, "%s:%s:%lld:%s ", json_string_value(json_object_get(c, "change")),
                              json_string_value(json_object_get(c, "path")),
                              (long long)json_integer_value(json_object_get(c, "line")),
                              json_string_value(json_object_get(c, "name")));
    o += (size_t)snprintf(b + o, sizeof(b) - o, "=>");
    json_array_foreach(json_object_get(r, "impacted"), i, c)
        o += (size_t)snprintf(b + o, sizeof(b) - o, " %lld:%s:%lld:%s<-%s(%s)=%.3f",
                              (long long)json_integer_value(json_object_get(c, "depth")),
                              json_string_value(json_object_get(c, "path")),
                              (long long)json_integer_value(json_object_get(c, "line")),
                              json_string_value(json_object_get(c, "name")),
                              json_string_value(json_object_get(c, "calls")),
                              json_string_value(json_object_get(c, "confidence")),
                              json_real_value(json_object_get(c, "score")));
    json_array_foreach(json_object_get(r, "skipped"), i, c)
        o += (size_t)snprintf(b + o, sizeof(b) - o, " skipped:%s:%s", json_string_value(json_object_get(c, "path")),
                              json_string_value(json_object_get(c, "reason")));
    return b;
}

static json_t *impact(const char *repo, const char *home, const char *const *args)
{
    const char *argv[16] = {"impact", "--json"};
    size_t n = 2;
    while (*args && n < 15) argv[n++] = *args++;
    argv[n] = NULL;
    struct mg_t_out out = mg_t_run(repo, home, argv);
    if (out.status != 0) FAIL("impact: %s", out.err);
    json_t *j = mg_t_json(out.out);
    mg_t_out_free(&out);
    return j;
}

#define IMPACT(repo, home, ...) impact((repo), (home), (const char *const[]){__VA_ARGS__, NULL})

static void reindex(const char *repo, const char *home)
{
    struct mg_t_out out = MG_RUN(repo, home, "index", repo, "--name", "imp", "--quiet");
    if (out.status != 0) FAIL("index: %s", out.err);
    mg_t_out_free(&out);
}

static const char EXPECT[] = "modified:src/b.c:6:helper added:src/b.c:7:new_name removed:src/b.c:7:old_name => "
                             "1:src/a.c:16:uses_old<-old_name(external)=1.000 1:src/b.c:2:middle<-helper(exact)=1.000 "
                             "2:src/a.c:7:entry<-middle(name)=0.225";

TEST(impact_of_revisions_diff_and_paths)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir(), *aux = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "src/a.c", A_C);
    mg_t_write_str(repo, "src/b.c", B_C);
    mg_t_sh(repo, "git init -q . && git add -A . && git -c user.email=t@t -c user.name=t commit -qm one");
    mg_t_write_str(repo, "src/b.c", B_C2);
    reindex(repo, home);

    /* uncommitted: HEAD to the work tree (the default) */
    json_t *r = IMPACT(repo, home, "--repo", "imp");
    ASSERT_EQ_STR(impact_str(r), EXPECT);
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 3);
    ASSERT(json_is_true(json_object_get(r, "complete")));
    json_decref(r);

    /* the same change as a diff file, and committed as a revision range */
    mg_t_sh(repo, "git diff > '%s/imp.diff'", aux);
    char diffpath[4096];
    snprintf(diffpath, sizeof(diffpath), "%s/imp.diff", aux);
    r = IMPACT(repo, home, "--diff", diffpath);
    ASSERT_EQ_STR(impact_str(r), EXPECT);
    json_decref(r);
    mg_t_sh(repo, "git -c user.email=t@t -c user.name=t commit -qam two");
    r = IMPACT(repo, home, "HEAD~1..HEAD");
    ASSERT_EQ_STR(impact_str(r), EXPECT);
    json_decref(r);
    r = IMPACT(repo, home, "HEAD~1...HEAD", "--depth", "1", "--limit", "1");
    ASSERT_EQ_STR(impact_str(r), "modified:src/b.c:6:helper added:src/b.c:7:new_name removed:src/b.c:7:old_name => "
                                 "1:src/a.c:16:uses_old<-old_name(external)=1.000");
    ASSERT_EQ_INT(json_integer_value(json_object_get(r, "total")), 2);
    ASSERT(json_is_false(json_object_get(r, "complete")));
    json_decref(r);
    r = IMPACT(repo, home, "HEAD"); /* nothing uncommitted */
    ASSERT_EQ_STR(impact_str(r), "=>");
    json_decref(r);

    /* paths: every definition of the file changed */
    r = IMPACT(repo, home, "--path", "src/b.c", "--depth", "1");
    ASSERT_EQ_STR(impact_str(r), "modified:src/b.c:1:leaf modified:src/b.c:2:middle modified:src/b.c:6:helper "
                                 "modified:src/b.c:7:new_name => 1:src/a.c:7:entry<-middle(name)=0.900");
    json_decref(r);

    /* scope: callers outside the globs are not looked at */
    r = IMPACT(repo, home, "HEAD~1..HEAD", "--glob", "src/b.c");
    ASSERT_EQ_STR(impact_str(r), "modified:src/b.c:6:helper added:src/b.c:7:new_name removed:src/b.c:7:old_name => "
                                 "1:src/b.c:2:middle<-helper(exact)=1.000");
    json_decref(r);

    /* a diff whose new side is not what the index holds: stale; an unknown file: not_indexed; a
     * secret file: not even named */
    mg_t_write_str(aux, "stale.diff", "--- a/src/b.c\n+++ b/src/b.c\n@@ -1 +1 @@\n-int leaf(int y) { return y; }\n"
                                          "+int leaf(int y) { return y * 9; }\n"
                                          "--- a/src/zz.c\n+++ b/src/zz.c\n@@ -1 +1 @@\n-a\n+b\n"
                                          "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-KEY=1\n+KEY=2\n");
    snprintf(diffpath, sizeof(diffpath), "%s/stale.diff", aux);
    r = IMPACT(repo, home, "--diff", diffpath, "--depth", "1");
    ASSERT_EQ_STR(impact_str(r), "modified:src/b.c:1:leaf => 1:src/b.c:2:middle<-leaf(exact)=1.000 "
                                 "skipped:src/b.c:stale skipped:src/zz.c:not_indexed");
    json_decref(r);
}

TEST(impact_bad_input)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir(), *plain = mg_t_tmpdir(), *aux = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "src/b.c", B_C);
    mg_t_sh(repo, "git init -q . && git add -A . && git -c user.email=t@t -c user.name=t commit -qm one");
    reindex(repo, home);
    struct mg_t_out o = MG_RUN(repo, home, "impact", "no-such-rev..HEAD");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT(strstr(o.err, "error[invalid_revision]") != NULL);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "impact", "--upload-pack=x");
    ASSERT_EQ_INT(o.status, 2); /* an option, not a revision */
    mg_t_out_free(&o);
    mg_t_write_str(aux, "bad.diff", "--- a/src/b.c\n+++ b/src/b.c\n@@ -1,3 +1,3 @@\n a\n");
    char p[4096];
    snprintf(p, sizeof(p), "%s/bad.diff", aux);
    o = MG_RUN(repo, home, "impact", "--diff", p);
    ASSERT_EQ_INT(o.status, 1);
    ASSERT(strstr(o.err, "error[invalid_diff]") != NULL);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "impact", "HEAD", "--path", "src/b.c");
    ASSERT_EQ_INT(o.status, 2);
    ASSERT(strstr(o.err, "name the change once") != NULL);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "impact", "--depth", "9");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT(strstr(o.err, "error[invalid_argument]") != NULL);
    mg_t_out_free(&o);
    /* a repo outside git: revisions mean nothing there */
    mg_t_write_str(plain, "x.c", "int f(void) { return 0; }\n");
    o = MG_RUN(plain, home, "index", plain, "--name", "plain", "--quiet");
    ASSERT_EQ_INT(o.status, 0);
    mg_t_out_free(&o);
    o = MG_RUN(plain, home, "impact", "--repo", "plain");
    ASSERT_EQ_INT(o.status, 1);
    ASSERT(strstr(o.err, "error[invalid_revision]") != NULL && strstr(o.err, "not in a git work tree") != NULL);
    mg_t_out_free(&o);
}

/* A C function declared static outside a header can only be called from its
 * own file: callers (and impact) look nowhere else; a header's static inline
 * is every includer's. */
TEST(callers_of_a_static_function_stay_in_its_file)
{
    char *repo = mg_t_tmpdir(), *home = mg_t_tmpdir();
    setenv("MEMGATE_EMBEDDER", "none", 1);
    mg_t_write_str(repo, "s.c", "static int\nsecret_step(int x) { return x; }\nint run(void) { return secret_step(1); }\n");
    mg_t_write_str(repo, "other.c", "int elsewhere(void) { return secret_step(2); } /* another library's */\n");
    mg_t_write_str(repo, "h.h", "static inline int shared_step(int x) { return x; }\n");
    mg_t_write_str(repo, "u.c", "#include \"h.h\"\nint use(void) { return shared_step(3); }\n");
    reindex(repo, home);
    struct mg_t_out o = MG_RUN(repo, home, "callers", "secret_step", "--json");
    ASSERT_EQ_INT(o.status, 0);
    json_t *r = mg_t_json(o.out);
    json_t *calls = json_object_get(r, "calls");
    ASSERT_EQ_INT(json_array_size(calls), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(calls, 0), "from_name")), "run");
    json_decref(r);
    mg_t_out_free(&o);
    o = MG_RUN(repo, home, "callers", "shared_step", "--json");
    ASSERT_EQ_INT(o.status, 0);
    r = mg_t_json(o.out);
    calls = json_object_get(r, "calls");
    ASSERT_EQ_INT(json_array_size(calls), 1);
    ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(calls, 0), "from_name")), "use");
    json_decref(r);
    mg_t_out_free(&o);
}
