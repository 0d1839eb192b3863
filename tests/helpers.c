/* helpers.c — fixtures and process helpers shared by the tests. */
#include "fakehttp.h"
#include "test.h"
#include "util/config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdirs[64];
static int ntmpdirs;

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)ftw;
    if (flag == FTW_DP || flag == FTW_D) chmod(p, 0700), rmdir(p);
    else unlink(p);
    return 0;
}

static void cleanup_tmpdirs(void)
{
    for (int i = 0; i < ntmpdirs; i++) {
        if (!getenv("MG_KEEP_TMP")) nftw(tmpdirs[i], rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        free(tmpdirs[i]);
    }
    ntmpdirs = 0;
}

char *mg_t_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof(tmpl), "%s/mgtest.XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    if (!d) FAIL("mkdtemp: %s", strerror(errno));
    if (ntmpdirs == 0) atexit(cleanup_tmpdirs);
    if (ntmpdirs == 64) FAIL("too many temporary directories in one test");
    return tmpdirs[ntmpdirs++] = strdup(d);
}

static void mkdirs_for(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
}

void mg_t_write(const char *dir, const char *rel, const char *data, size_t len)
{
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    mkdirs_for(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) FAIL("open %s: %s", path, strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w <= 0) FAIL("write %s: %s", path, strerror(errno));
        off += (size_t)w;
    }
    close(fd);
}

static char *drain(int fd)
{
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (len + 1 >= cap) b = realloc(b, cap *= 2);
        ssize_t r = read(fd, b + len, cap - len - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    b[len] = 0;
    return b;
}

char *mg_t_read(const char *dir, const char *rel)
{
    char path[8192];
    if (dir) snprintf(path, sizeof(path), "%s/%s", dir, rel);
    else snprintf(path, sizeof(path), "%s", rel);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *b = drain(fd);
    close(fd);
    return b;
}

void mg_t_sh(const char *dir, const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
    vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st != 0) FAIL("command failed (%d): %s", st, cmd);
}


struct mg_t_out mg_t_run(const char *cwd, const char *home, const char *const argv[])
{
    const char *bin = getenv("MEMGATE_BIN");
    if (!bin) bin = "build/memgate";
    char outp[] = "/tmp/mgrun.out.XXXXXX", errp[] = "/tmp/mgrun.err.XXXXXX";
    int ofd = mkstemp(outp), efd = mkstemp(errp);
    if (ofd < 0 || efd < 0) FAIL("mkstemp: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(ofd, 1);
        dup2(efd, 2);
        if (cwd && chdir(cwd) != 0) _exit(126);
        if (home) setenv("MEMGATE_HOME", home, 1);
        int n = 0;
        while (argv[n]) n++;
        char **av = calloc((size_t)n + 2, sizeof(char *));
        av[0] = (char *)bin;
        for (int i = 0; i < n; i++) av[i + 1] = (char *)argv[i];
        if (getenv("MG_T_RUN_AS_NOBODY") && getuid() == 0) {
            /* tests that need permissions to bite run memgate unprivileged;
             * open the binary first, as nobody may not reach it (a checkout
             * in a 0700 directory) */
            int bfd = open(bin, O_RDONLY | O_CLOEXEC);
            if (bfd < 0) _exit(127);
            if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(125);
            fexecve(bfd, av, environ);
            _exit(127);
        }
        execv(bin, av);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    struct mg_t_out o;
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    o.out = drain(ofd);
    o.err = drain(efd);
    close(ofd);
    close(efd);
    unlink(outp);
    unlink(errp);
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (o.status == 127) FAIL("cannot execute %s (set MEMGATE_BIN)", bin);
    return o;
}

void mg_t_out_free(struct mg_t_out *o)
{
    free(o->out);
    free(o->err);
    o->out = o->err = NULL;
}

json_t *mg_t_json(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j) FAIL("invalid JSON (%s at %d): %.2000s", e.text, e.position, text);
    return j;
}

/* ---- fakehttp.h ---- */

struct mg_t_body *mg_t_body_gather(void **con_cls, const char *data, size_t *size)
{
    struct mg_t_body *b = *con_cls;
    if (!b) {
        if (!(*con_cls = calloc(1, sizeof(struct mg_t_body)))) FAIL("out of memory");
        return NULL;
    }
    if (*size) {
        if (!(b->p = realloc(b->p, b->n + *size + 1))) FAIL("out of memory");
        memcpy(b->p + b->n, data, *size);
        b->n += *size;
        b->p[b->n] = 0;
        *size = 0;
        return NULL;
    }
    return b;
}

void mg_t_body_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode tc)
{
    (void)cls;
    (void)c;
    (void)tc;
    struct mg_t_body *b = *con_cls;
    if (b) free(b->p);
    free(b);
    *con_cls = NULL;
}

/* ---- PostgreSQL ---- */

const char *mg_t_pg_dir(void)
{
    const char *d = getenv("MEMGATE_TEST_PG_DIR");
    if (!d || !*d) FAIL("no test PostgreSQL: run through memgate-test with a test name holding \"pg\", or make test");
    return d;
}

const char *mg_t_pg_url(void)
{
    static char url[512];
    static int n;
    const char *dir = mg_t_pg_dir(), *sh = getenv("MEMGATE_TEST_PG_SH");
    if (!sh || !*sh) FAIL("MEMGATE_TEST_PG_SH is not set (the path of scripts/pg.sh)");
    char db[64];
    snprintf(db, sizeof(db), "t_%d_%d", (int)getpid(), n++);
    mg_t_sh("/", "'%s' psql '%s' -c 'CREATE DATABASE %s OWNER memgate' >/dev/null", sh, dir, db);
    snprintf(url, sizeof(url), "postgresql:///%s?host=%s&user=memgate", db, dir);
    return url;
}

char *mg_t_pg_su(const char *url, const char *sql)
{
    const char *sh = getenv("MEMGATE_TEST_PG_SH");
    if (!sh || !*sh) FAIL("MEMGATE_TEST_PG_SH is not set (the path of scripts/pg.sh)");
    char db[128];
    ASSERT(sscanf(url, "postgresql:///%127[^?]", db) == 1);
    char file[600];
    snprintf(file, sizeof(file), "%s/su.sql", mg_t_tmpdir());
    FILE *f = fopen(file, "w");
    ASSERT(f);
    fputs(sql, f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "'%s' psql '%s' -d %s -At < '%s'", sh, mg_t_pg_dir(), db, file);
    FILE *p = popen(cmd, "r");
    ASSERT(p);
    size_t len = 0, cap = 4096;
    char *r = malloc(cap);
    ASSERT(r);
    size_t got;
    while ((got = fread(r + len, 1, cap - len - 1, p)) > 0)
        if ((len += got) + 1 == cap) ASSERT((r = realloc(r, cap *= 2)));
    r[len] = 0;
    if (pclose(p) != 0) FAIL("psql failed: %s", sql);
    return r;
}

const char *mg_t_pg_own(char *dir, size_t cap)
{
    mg_t_pg_dir(); /* the runner's scripts/pg.sh, and PostgreSQL installed */
    snprintf(dir, cap, "%s/pg", mg_t_tmpdir());
    static char url[600];
    mg_t_sh("/", "'%s' start '%s' >/dev/null", getenv("MEMGATE_TEST_PG_SH"), dir);
    snprintf(url, sizeof(url), "postgresql:///memgate?host=%s&user=memgate", dir);
    return url;
}

void mg_t_pg_cluster(const char *dir, const char *what)
{
    mg_t_sh("/", "'%s' %s '%s' >/dev/null", getenv("MEMGATE_TEST_PG_SH"), what, dir);
}

void mg_t_config_defaults(struct mg_config *c)
{
    mg_config_defaults(c);
    const char *cache = getenv("MEMGATE_CACHE_DIR");
    if (cache && *cache) snprintf(c->cache_dir, sizeof(c->cache_dir), "%s", cache);
}
