/* test_hook.c — push webhooks below HTTP (hook/hook.h): URL normalisation,
 * signatures, delivery ids and the replay store. */
#include "test.h"

#include <sys/stat.h>

#include "hook/hook.h"

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
    mg_config_defaults(&c);
    snprintf(c.home, sizeof(c.home), "%s", mg_t_tmpdir());
    struct mg_hook_replay *rp;
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_hook_replay_open(&c, &rp, &err), 0);
    int64_t t0 = 1700000000000LL, day = 86400000LL;
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", t0, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", t0 + 1, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "gitlab", "d1", t0 + 2, &err), 1); /* ids are per forge */
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", t0 + 3, &err), 1);
    mg_hook_replay_close(rp);
    /* durable: a restart still knows them */
    ASSERT_EQ_INT(mg_hook_replay_open(&c, &rp, &err), 0);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d1", t0 + 6 * day, &err), 0);
    /* after 7 days an id is forgotten */
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", t0 + 8 * day, &err), 1);
    ASSERT_EQ_INT(mg_hook_replay_record(rp, "github", "d2", t0 + 8 * day + 1, &err), 0);
    mg_hook_replay_close(rp);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/hooks.db", c.home);
    struct stat sb;
    ASSERT_EQ_INT(stat(path, &sb), 0);
    ASSERT_EQ_INT(sb.st_mode & 0777, 0600);
}
