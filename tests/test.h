/* test.h — the test harness contract.
 *
 * A test is `TEST(name) { ... }` in any C file under tests/; it registers itself at
 * start-up. The runner (tests/runner.c) runs each test in its own process with a
 * timeout, so a crash or hang fails that test only. Asserts print both values
 * and end the test process with status 1.
 *
 * Helpers for CLI tests (mg_t_run, mg_t_tmpdir, ...) live in tests/helpers.c.
 */
#ifndef MG_TEST_H
#define MG_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <jansson.h>

typedef void (*mg_test_fn)(void);

void mg_test_register(const char *name, mg_test_fn fn, const char *file, int timeout_s);

/* TEST(name): default timeout 120 s. TEST_T(name, seconds) for longer ones. */
#define TEST_T(name, secs)                                                   \
    static void test_##name(void);                                          \
    __attribute__((constructor)) static void test_reg_##name(void)          \
    {                                                                       \
        mg_test_register(#name, test_##name, __FILE__, (secs));             \
    }                                                                       \
    static void test_##name(void)
#define TEST(name) TEST_T(name, 120)

void mg_t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

#define FAIL(...) mg_t_fail(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) FAIL("assertion failed: %s", #cond);                   \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                 \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ != b_)                                                       \
            FAIL("%s == %s: got %lld, expected %lld", #a, #b, a_, b_);      \
    } while (0)

#define ASSERT_NE_INT(a, b)                                                 \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ == b_) FAIL("%s != %s: both are %lld", #a, #b, a_);          \
    } while (0)

#define ASSERT_GE_INT(a, b)                                                 \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ < b_) FAIL("%s >= %s: got %lld < %lld", #a, #b, a_, b_);     \
    } while (0)

#define ASSERT_EQ_STR(a, b)                                                 \
    do {                                                                    \
        const char *a_ = (a), *b_ = (b);                                    \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                              \
            FAIL("%s == %s: got \"%s\", expected \"%s\"", #a, #b,           \
                 a_ ? a_ : "(null)", b_ ? b_ : "(null)");                   \
    } while (0)

#define ASSERT_CONTAINS(hay, needle)                                        \
    do {                                                                    \
        const char *h_ = (hay), *n_ = (needle);                             \
        if (!h_ || !strstr(h_, n_))                                         \
            FAIL("%s contains \"%s\": got \"%.2000s\"", #hay, n_,           \
                 h_ ? h_ : "(null)");                                       \
    } while (0)

#define ASSERT_NOT_CONTAINS(hay, needle)                                    \
    do {                                                                    \
        const char *h_ = (hay), *n_ = (needle);                             \
        if (h_ && strstr(h_, n_))                                           \
            FAIL("%s must not contain \"%s\": got \"%.2000s\"", #hay, n_,   \
                 h_);                                                       \
    } while (0)

/* ---- helpers (tests/helpers.c) ---- */

struct mg_config;
/* mg_config_defaults, and the runner's one cache of compiled rule sets
 * (MEMGATE_CACHE_DIR) as a loaded config would take it: a test that builds
 * its config by hand would otherwise compile them again (seconds each,
 * much more under the sanitizers). */
void mg_t_config_defaults(struct mg_config *c);

/* A fresh directory under $TMPDIR, removed at test-process exit; the string
 * is the helpers' (do not free it). */
char *mg_t_tmpdir(void);
/* Write a file (creating parent directories); mode 0644. */
void mg_t_write(const char *dir, const char *rel, const char *data, size_t len);
#define mg_t_write_str(dir, rel, s) mg_t_write((dir), (rel), (s), strlen(s))
/* The file dir/rel (rel alone when dir is NULL), whole and NUL-terminated
 * (caller frees); NULL when it cannot be opened. */
char *mg_t_read(const char *dir, const char *rel);
/* Run a shell command in dir; FAIL unless it exits 0. */
void mg_t_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run build/memgate (MEMGATE_BIN) with argv (NULL-terminated), in cwd, with
 * MEMGATE_HOME=home and stdin from /dev/null. Captures stdout and stderr
 * (caller frees). Returns the exit status (128+signal if killed). */
struct mg_t_out {
    int status;
    char *out;
    char *err;
};
struct mg_t_out mg_t_run(const char *cwd, const char *home, const char *const argv[]);
#define MG_RUN(cwd, home, ...)                                              \
    mg_t_run((cwd), (home), (const char *const[]){__VA_ARGS__, NULL})
void mg_t_out_free(struct mg_t_out *o);

/* A new, empty PostgreSQL database for this test (owned by the plain role
 * memgate), on the cluster the runner started for tests whose name holds
 * "pg" (or `make test`'s: MEMGATE_TEST_PG_DIR); its URL (the helpers'
 * string). FAILs when there is no cluster. */
const char *mg_t_pg_url(void);
/* Run sql on the database of url (one of mg_t_pg_url's) as the superuser
 * (row-level security does not bind it: rows of any tenant); its output
 * (psql -At), malloc'd. */
char *mg_t_pg_su(const char *url, const char *sql);
/* The cluster's directory (scripts/pg.sh DIR), for stopping and starting it. */
const char *mg_t_pg_dir(void);
/* A cluster of the test's own, to stop and start: made in a new directory
 * (its path in dir), with the database memgate; its URL (the helpers'
 * string). mg_t_pg_cluster(dir, "stop" | "kill" | "restart" | "rm") runs
 * scripts/pg.sh on it. */
const char *mg_t_pg_own(char *dir, size_t cap);
void mg_t_pg_cluster(const char *dir, const char *what);

/* Parse JSON or FAIL with the text. */
json_t *mg_t_json(const char *text);

#endif
