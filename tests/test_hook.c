/* test_hook.c — push webhooks below HTTP (hook/hook.h): URL normalisation,
 * signatures, delivery ids, the replay store, and the fast-forward pull on
 * real git repositories (a bare remote over a file path). The route itself
 * is tested with a real server in tests/node/webhook.test.mjs. */
#include "test.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook/hook.h"
#include "store/pg.h"

static const char *norm(const char *s)
{
    static char out[MG_HOOK_NORM_MAX];
    return mg_hook_url_norm(s, strlen(s), out, sizeof(out)) == 0 ? out : NULL;
}

#define ASSERT_NORM(in, want) ASSERT_EQ_STR(norm(in), want)
#define ASSERT_NOT_URL(in)                                                                                  \
    do {                                                                                                    \
        const char *got_ = norm(in);                                                                        \
        if (got_) FAIL("'%s' normalised to '%s', expected no URL", in, got_);                               \
    } while (0)

TEST(hook_url_forms_of_one_repository_are_equal)
{
    const char *forms[] = {
        "https://github.com/acme/alpha.git",   "https://github.com/acme/alpha",
        "https://GitHub.COM/acme/alpha/",      "http://github.com:80/acme/alpha.git",
        "https://github.com:443/acme/alpha",   "git@github.com:acme/alpha.git",
        "github.com:acme/alpha",               "ssh://git@github.com/acme/alpha.git",
        "ssh://git@github.com:22/acme/alpha",  "git+ssh://git@github.com/acme/alpha.git",
        "git://github.com/acme/alpha.git",     "https://user:p%40ss@github.com/acme//alpha.git",
        "https://github.com/acme/alpha?x=1#y", "git@github.com:/acme/alpha.git/",
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) ASSERT_NORM(forms[i], "github.com/acme/alpha");
}

TEST(hook_url_keeps_what_tells_repositories_apart)
{
    ASSERT_NORM("https://gitlab.example:8443/g/p.git", "gitlab.example:8443/g/p");
    ASSERT_NORM("ssh://git@gitlab.example:2222/g/p.git", "gitlab.example:2222/g/p");
    ASSERT_NORM("https://github.com/Acme/Alpha", "github.com/Acme/Alpha"); /* the path's case is the server's */
    ASSERT_NORM("git@[::1]:g/p.git", "[::1]/g/p");
    ASSERT_NORM("https://[::1]:8080/g/p", "[::1]:8080/g/p");
    ASSERT_NORM("https://github.com/acme/alpha.github.io.git", "github.com/acme/alpha.github.io");
    ASSERT_NORM("https://github.com/acme/.git", "github.com/acme/.git"); /* ".git" alone is a name */
    /* local clones: a path and a file:// URL */
    ASSERT_NORM("/srv/git/alpha.git", "/srv/git/alpha");
    ASSERT_NORM("file:///srv/git/alpha.git/", "/srv/git/alpha");
    ASSERT_NORM("file://localhost/srv/git/alpha", "/srv/git/alpha");
}

TEST(hook_url_refuses_what_is_no_repository_url)
{
    ASSERT_NOT_URL("");
    ASSERT_NOT_URL("alpha");              /* relative path */
    ASSERT_NOT_URL("../alpha.git");       /* relative path */
    ASSERT_NOT_URL("dir/a:b");            /* a colon after a slash: a relative path */
    ASSERT_NOT_URL("https://github.com"); /* no path */
    ASSERT_NOT_URL("https://github.com/");
    ASSERT_NOT_URL("https:///acme/alpha"); /* no host */
    ASSERT_NOT_URL("ftp://host/x");       /* unknown scheme */
    ASSERT_NOT_URL("https://ho st/x");    /* spaces and control bytes */
    ASSERT_NOT_URL("https://host/x\n");
    ASSERT_NOT_URL("https://host:99999999/x");
    ASSERT_NOT_URL("https://host:12a/x");
    ASSERT_NOT_URL("https://h%2fst/x");
    ASSERT_NOT_URL("file://otherhost/x");
    ASSERT_NOT_URL("git@[::1/x");
    ASSERT_NOT_URL("/");
    ASSERT_NOT_URL("?https://host/x");
    char long_url[MG_HOOK_URL_MAX + 32];
    memset(long_url, 'a', sizeof(long_url) - 1);
    long_url[sizeof(long_url) - 1] = 0;
    memcpy(long_url, "https://h/", 10);
    ASSERT_NOT_URL(long_url);
    /* out too small: refused, not cut */
    char small[8];
    ASSERT_EQ_INT(mg_hook_url_norm("https://github.com/a/b", 22, small, sizeof(small)), -1);
}

TEST(hook_github_signature_is_hmac_sha256_of_the_body)
{
    /* GitHub's documented test vector (docs: validating webhook deliveries) */
    const char *secret = "It's a Secret to Everybody", *body = "Hello, World!";
    const char *good = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    ASSERT(mg_hook_github_ok(secret, good, body, strlen(body)));
    ASSERT(mg_hook_github_ok(secret, "sha256=757107EA0EB2509FC211221CCE984B8A37570B6D7586C22C46F4379C8B043E17", body,
                             strlen(body)));
    ASSERT(!mg_hook_github_ok(secret, good, "Hello, World?", 13));                /* another body */
    ASSERT(!mg_hook_github_ok("It's a Secret to Everybodz", good, body, strlen(body))); /* another secret */
    ASSERT(!mg_hook_github_ok(secret, good + 7, body, strlen(body)));             /* no "sha256=" */
    ASSERT(!mg_hook_github_ok(secret, "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", body,
                              strlen(body)));
    ASSERT(!mg_hook_github_ok(secret, "sha256=757107ea", body, strlen(body))); /* short */
    ASSERT(!mg_hook_github_ok(secret, "sha256=zz7107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", body,
                              strlen(body)));
    ASSERT(!mg_hook_github_ok(secret, NULL, body, strlen(body)));
    ASSERT(!mg_hook_github_ok("", good, body, strlen(body)));
}

TEST(hook_gitlab_token_and_delivery_ids)
{
    ASSERT(mg_hook_gitlab_ok("0123456789abcdef", "0123456789abcdef"));
    ASSERT(!mg_hook_gitlab_ok("0123456789abcdef", "0123456789abcdeF"));
    ASSERT(!mg_hook_gitlab_ok("0123456789abcdef", "0123456789abcde"));
    ASSERT(!mg_hook_gitlab_ok("0123456789abcdef", "0123456789abcdef0"));
    ASSERT(!mg_hook_gitlab_ok("0123456789abcdef", ""));
    ASSERT(!mg_hook_gitlab_ok("0123456789abcdef", NULL));
    ASSERT(!mg_hook_gitlab_ok("", ""));
    ASSERT(mg_hook_delivery_id_ok("72d3162e-cc78-11e3-81ab-4c9367dc0958"));
    ASSERT(mg_hook_delivery_id_ok("a.b_c:d"));
    ASSERT(!mg_hook_delivery_id_ok(""));
    ASSERT(!mg_hook_delivery_id_ok("a b"));
    ASSERT(!mg_hook_delivery_id_ok("a/b"));
    char id[MG_HOOK_ID_MAX + 2];
    memset(id, 'a', sizeof(id) - 1);
    id[sizeof(id) - 1] = 0;
    ASSERT(!mg_hook_delivery_id_ok(id));
    id[MG_HOOK_ID_MAX] = 0;
    ASSERT(mg_hook_delivery_id_ok(id));
}

TEST(hook_replay_store_refuses_a_repeat_until_it_expires)
{
    struct mg_config c;
    mg_t_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", mg_t_tmpdir());
    struct mg_hook_replay *rp;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_hook_replay_open(&c, &rp, &err), 0);
    int64_t t0 = 1700000000000LL, day = 86400000LL;
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", 2, t0, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", 2, t0 + 1, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "gitlab", "d1", 2, t0 + 2, &err), 1); /* ids are per forge */
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", 2, t0 + 3, &err), 1);
    mg_hook_replay_close(rp);
    /* durable: a restart still knows them */
    ASSERT_EQ_INT(mg_hook_replay_open(&c, &rp, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", 2, t0 + 6 * day, &err), 0);
    /* after 7 days an id is forgotten */
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", 2, t0 + 8 * day, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", 2, t0 + 8 * day + 1, &err), 0);
    mg_hook_replay_close(rp);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/hooks.db", c.home);
    struct stat sb;
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT_EQ_INT(sb.st_mode & 0777, 0600);
}

TEST(hook_remote_urls_of_a_working_copy)
{
    const char *d = mg_t_tmpdir();
    mg_t_sh(d, "git init -q wc && cd wc && git remote add origin https://GitHub.com/acme/alpha.git && "
               "git remote add my.fork git@gitlab.example:me/alpha.git && "
               "git remote set-url --push my.fork ssh://git@push.example:2222/me/alpha && "
               "git remote add dup git@github.com:acme/alpha && git config remote.bad.url 'not a url' && "
               "mkdir sub && mkdir ../plain");
    char urls[MG_HOOK_REMOTES_MAX][MG_HOOK_NORM_MAX];
    char root[PATH_MAX];
    snprintf(root, sizeof(root), "%s/wc/sub", d); /* a subdirectory: the working copy around it */
    size_t n = mg_hook_remote_urls(root, urls, MG_HOOK_REMOTES_MAX);
    ASSERT_EQ_INT(n, 3); /* dup is origin again; bad is no URL */
    ASSERT_EQ_STR(urls[0], "github.com/acme/alpha");
    ASSERT_EQ_STR(urls[1], "gitlab.example/me/alpha");
    ASSERT_EQ_STR(urls[2], "push.example:2222/me/alpha");
    ASSERT_EQ_INT(mg_hook_remote_urls(root, urls, 1), 1); /* capped */
    snprintf(root, sizeof(root), "%s/plain", d);
    ASSERT_EQ_INT(mg_hook_remote_urls(root, urls, MG_HOOK_REMOTES_MAX), 0);
}

/* ---- the fast-forward pull, on real repositories ---- */

#define GIT "git -c user.name=t -c user.email=t@t -c init.defaultBranch=main -c advice.detachedHead=false "

/* A bare remote, a working copy cloned from it (one commit), and a second
 * clone to push from. */
static const char *pull_world(void)
{
    const char *d = mg_t_tmpdir();
    mg_t_sh(d, GIT "init -q --bare remote.git && " GIT "clone -q remote.git wc 2>/dev/null && cd wc && "
               "echo one > a.txt && " GIT "add . && " GIT "commit -qm one && " GIT "push -q origin main && cd .. && "
               GIT "clone -q remote.git other");
    return d;
}

static void push_from_other(const char *d, const char *file, const char *text)
{
    mg_t_sh(d, "cd other && " GIT "pull -q --ff-only && echo '%s' > %s && " GIT "add . && " GIT "commit -qm '%s' && "
               GIT "push -q origin main", text, file, file);
}

static int pull(const char *d, char *what, size_t cap, struct mg_err *err)
{
    char wc[PATH_MAX];
    snprintf(wc, sizeof(wc), "%s/wc", d);
    mg_err_clear(err);
    return mg_hook_pull_ff(wc, NULL, what, cap, err);
}

static bool exists(const char *d, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", d, rel);
    struct stat sb;
    return stat(p, &sb) == 0;
}

TEST(hook_pull_fast_forwards_the_working_copy)
{
    const char *d = pull_world();
    char what[160];
    struct mg_err err = {0};
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), 0);
    ASSERT_EQ_STR(what, "already up to date");
    push_from_other(d, "b.txt", "two");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), 0);
    ASSERT_CONTAINS(what, "fast-forwarded main ");
    ASSERT(exists(d, "wc/b.txt"));
    /* the branch, the index and the tree moved together: git sees a clean copy at the remote's commit */
    mg_t_sh(d, "cd wc && test -z \"$(git status --porcelain)\" && test \"$(git rev-parse HEAD)\" = "
               "\"$(git -C ../remote.git rev-parse main)\"");
    /* untracked files are no local change to tracked files */
    mg_t_write_str(d, "wc/notes.tmp", "mine\n");
    push_from_other(d, "c.txt", "three");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), 0);
    ASSERT(exists(d, "wc/c.txt") && exists(d, "wc/notes.tmp"));
}

TEST(hook_pull_refuses_a_diverged_branch_and_leaves_it)
{
    const char *d = pull_world();
    mg_t_sh(d, "cd wc && echo mine > local.txt && " GIT "add . && " GIT "commit -qm local");
    push_from_other(d, "b.txt", "two");
    char what[160];
    struct mg_err err = {0};
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    ASSERT_CONTAINS(err.msg, "not a fast-forward");
    ASSERT(!exists(d, "wc/b.txt"));
    mg_t_sh(d, "cd wc && test \"$(git log -1 --format=%%s)\" = local && test -z \"$(git status --porcelain)\"");
}

TEST(hook_pull_refuses_local_changes)
{
    const char *d = pull_world();
    push_from_other(d, "b.txt", "two");
    char what[160];
    struct mg_err err = {0};
    /* a modified tracked file, not staged */
    mg_t_write_str(d, "wc/a.txt", "edited\n");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    ASSERT_CONTAINS(err.msg, "local changes to 1 tracked file (first: a.txt)");
    ASSERT(!exists(d, "wc/b.txt"));
    /* staged */
    mg_t_sh(d, "cd wc && git add a.txt");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    mg_t_sh(d, "cd wc && git reset -q --hard");
    /* an untracked file where the upstream adds one: never overwritten */
    mg_t_write_str(d, "wc/b.txt", "my own b\n");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    ASSERT_CONTAINS(err.msg, "overwrite");
    mg_t_sh(d, "cd wc && test \"$(cat b.txt)\" = 'my own b' && test \"$(git log -1 --format=%%s)\" = one");
}

TEST(hook_pull_refuses_without_a_branch_or_upstream)
{
    const char *d = pull_world();
    char what[160];
    struct mg_err err = {0};
    mg_t_sh(d, "cd wc && git checkout -q --detach");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_CONTAINS(err.msg, "detached");
    mg_t_sh(d, "cd wc && git checkout -q -b topic");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    ASSERT_CONTAINS(err.msg, "no upstream");
    mg_t_sh(d, "mkdir plain");
    char plain[PATH_MAX];
    snprintf(plain, sizeof(plain), "%s/plain", d);
    ASSERT_EQ_INT(mg_hook_pull_ff(plain, NULL, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_REFUSED);
    /* a remote that is gone: the fetch fails, nothing moves */
    mg_t_sh(d, "cd wc && git checkout -q main && mv ../remote.git ../moved.git");
    ASSERT_EQ_INT(pull(d, what, sizeof(what), &err), -1);
    ASSERT_EQ_STR(err.code, MG_E_PULL_FAILED);
}

/* ---- PostgreSQL: delivery ids shared by every daemon (the runner starts a cluster for *pg* tests) ---- */

struct racer {
    struct mg_hook_replay *rp;
    const char *id;
    int rc;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    struct mg_err err = {0};
    r->rc = mg_hook_replay_record(r->rp, "github", r->id, strlen(r->id), 1700000000000LL, &err);
    return NULL;
}

TEST(hook_pg_replay_store_is_shared_by_daemons)
{
    const char *url = mg_t_pg_url();
    struct mg_config ca, cb;
    mg_t_config_defaults(&ca);
    snprintf(ca.home, sizeof(ca.home), "%s", mg_t_tmpdir());
    snprintf(ca.storage, sizeof(ca.storage), "%s", url);
    mg_t_config_defaults(&cb);
    snprintf(cb.home, sizeof(cb.home), "%s", mg_t_tmpdir());
    snprintf(cb.storage, sizeof(cb.storage), "%s&connect_timeout=4", url); /* another pool: another daemon */
    struct mg_hook_replay *a, *b;
    struct mg_err err = {0};
    if (mg_hook_replay_open(&ca, &a, &err) != 0 || mg_hook_replay_open(&cb, &b, &err) != 0) FAIL("%s", err.msg);
    int64_t t0 = 1700000000000LL, day = 86400000LL;
    ASSERT_EQ_INT(mg_hook_replay_record(a, "github", "d1", 2, t0, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(b, "github", "d1", 2, t0 + 1, &err), 0); /* replayed to the other daemon */
    ASSERT_EQ_INT(mg_hook_replay_record(a, "github", "d1", 2, t0 + 2, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(b, "gitlab", "d1", 2, t0 + 3, &err), 1); /* ids are per forge */
    ASSERT_EQ_INT(mg_hook_replay_record(b, "github", "d2", 2, t0 + 4, &err), 1);
    /* no hooks.db: the database holds them */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/hooks.db", ca.home);
    ASSERT(access(path, F_OK) != 0);
    /* after 7 days an id is forgotten, on every daemon */
    ASSERT_EQ_INT(mg_hook_replay_record(a, "github", "d1", 2, t0 + 6 * day, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(b, "github", "d2", 2, t0 + 8 * day, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(a, "github", "d2", 2, t0 + 8 * day + 1, &err), 0);
    /* one id delivered to both daemons at once: exactly one takes it */
    for (int round = 0; round < 5; round++) {
        char id[32];
        snprintf(id, sizeof(id), "race-%d", round);
        struct racer r[6];
        pthread_t th[6];
        for (int i = 0; i < 6; i++) {
            r[i] = (struct racer){.rp = i % 2 ? b : a, .id = id};
            pthread_create(&th[i], NULL, race, &r[i]);
        }
        int firsts = 0;
        for (int i = 0; i < 6; i++) {
            pthread_join(th[i], NULL);
            ASSERT(r[i].rc == 0 || r[i].rc == 1);
            firsts += r[i].rc;
        }
        ASSERT_EQ_INT(firsts, 1);
    }
    mg_hook_replay_close(a);
    mg_hook_replay_close(b);
    mg_pg_close_all();
}
