/* runner.c — runs every registered test, each in its own process.
 *
 *   memgate-test [-j N] [-l] [PATTERN...]
 *
 * Tests whose name contains any PATTERN run (all when none is given), N at a
 * time (default: online CPUs). A test passes when its process exits 0 within
 * its timeout. Output is one line per test ("ok"/"not ok", TAP-like) with the
 * failing test's captured output, and a last line "N passed, N failed".
 */
#include "test.h"
#include "security/scan.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct test {
    const char *name;
    const char *file;
    mg_test_fn fn;
    int timeout_s;
};

static struct test *tests;
static size_t ntests, captests;


void mg_test_register(const char *name, mg_test_fn fn, const char *file, int timeout_s)
{
    if (ntests == captests) {
        captests = captests ? captests * 2 : 64;
        tests = realloc(tests, captests * sizeof(*tests));
        if (!tests) abort();
    }
    tests[ntests++] = (struct test){name, file, fn, timeout_s};
}

void mg_t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

static int cmp_test(const void *a, const void *b)
{
    const struct test *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

struct slot {
    pid_t pid;
    size_t idx;
    double start;
    int killed;
    char logpath[64];
};

/* the runner's own tables, global so a test process exiting with them
 * alive is not a leak to LeakSanitizer */
static size_t *run;
static struct slot *slots;
static char **failed_names;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    if (!f) return;
    while (fgets(line, sizeof(line), f)) printf("#   %s", line);
    fclose(f);
}

static int selected(const char *name, int npat, char **pat)
{
    if (npat == 0) return 1;
    for (int i = 0; i < npat; i++)
        if (strstr(name, pat[i])) return 1;
    return 0;
}

/* A PostgreSQL for the tests that need one (names holding "pg"): the one
 * `make test` started (MEMGATE_TEST_PG_DIR), else one started here with
 * scripts/pg.sh for this run and removed at its end. */
static char pg_dir[256];
static pid_t runner_pid;

static void pg_stop(void)
{
    if (!pg_dir[0] || getpid() != runner_pid) return;
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' rm '%s' >/dev/null 2>&1", getenv("MEMGATE_TEST_PG_SH"), pg_dir);
    if (system(cmd) != 0) fprintf(stderr, "runner: could not remove the test PostgreSQL in %s\n", pg_dir);
}

static int pg_start(const char *argv0)
{
    if (getenv("MEMGATE_TEST_PG_DIR")) return 0;
    char sh[1024] = "", exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = 0;
    (void)argv0;
    /* build/memgate-test or build/san/memgate-test: scripts/ is one or two levels up */
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    for (int up = 1; up <= 2 && !sh[0]; up++) {
        char cand[1200];
        snprintf(cand, sizeof(cand), "%s/%s/scripts/pg.sh", exe, up == 1 ? ".." : "../..");
        if (access(cand, X_OK) == 0 && realpath(cand, sh) == NULL) sh[0] = 0;
    }
    if (!sh[0]) {
        fprintf(stderr, "runner: error: no scripts/pg.sh beside the test binary; run from a checkout\n");
        return -1;
    }
    snprintf(pg_dir, sizeof(pg_dir), "/tmp/memgate-test-pg.%d", (int)getpid());
    setenv("MEMGATE_TEST_PG_SH", sh, 1);
    runner_pid = getpid();
    atexit(pg_stop);
    char cmd[1600];
    snprintf(cmd, sizeof(cmd), "'%s' start '%s' >/dev/null", sh, pg_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "runner: error: could not start a PostgreSQL for the tests (%s)\n", cmd);
        pg_dir[0] = 0;
        return -1;
    }
    setenv("MEMGATE_TEST_PG_DIR", pg_dir, 1);
    return 0;
}

int main(int argc, char **argv)
{
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int list = 0, opt;
    /* every test's memgate shares one cache of the compiled secret rules
     * (config cache_dir), instead of compiling them once per data directory */
    if (!getenv("MEMGATE_CACHE_DIR")) setenv("MEMGATE_CACHE_DIR", "/tmp/memgate-test-cache", 1);
    mg_scanner_cache_dir(getenv("MEMGATE_CACHE_DIR")); /* and so do the tests that scan in this process */
    /* the anchors of thousands of test logs stay out of the machine's journal (audit_anchor_syslog = auto
     * would ship them there); test_audit_anchor.c runs a journal of its own */
    if (!getenv("MEMGATE_AUDIT_ANCHOR_SYSLOG")) setenv("MEMGATE_AUDIT_ANCHOR_SYSLOG", "0", 1);
    while ((opt = getopt(argc, argv, "j:lh")) != -1) {
        switch (opt) {
        case 'j': jobs = atol(optarg); break;
        case 'l': list = 1; break;
        default:
            printf("usage: %s [-j N] [-l] [PATTERN...]\n", argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    if (jobs < 1) jobs = 1;
    qsort(tests, ntests, sizeof(*tests), cmp_test);

    run = calloc(ntests + 1, sizeof(*run));
    size_t nrun = 0;
    for (size_t i = 0; i < ntests; i++)
        if (selected(tests[i].name, argc - optind, argv + optind)) run[nrun++] = i;
    if (list) {
        for (size_t i = 0; i < nrun; i++) printf("%s\n", tests[run[i]].name);
        free(run);
        free(tests);
        return 0;
    }

    bool want_pg = false;
    for (size_t i = 0; i < nrun; i++) want_pg |= strstr(tests[run[i]].name, "pg") != NULL;
    if (want_pg && pg_start(argv[0]) != 0) return 2;

    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("1..%zu\n", nrun);
    slots = calloc((size_t)jobs, sizeof(*slots));
    size_t next = 0, done = 0, passed = 0, failed = 0;
    failed_names = calloc(nrun + 1, sizeof(char *));

    while (done < nrun) {
        for (long s = 0; s < jobs && next < nrun; s++) {
            if (slots[s].pid) continue;
            struct slot *sl = &slots[s];
            sl->idx = run[next++];
            snprintf(sl->logpath, sizeof(sl->logpath), "/tmp/mgtest.%d.%ld.log", (int)getpid(), s);
            sl->start = now_s();
            sl->killed = 0;
            fflush(stdout);
            pid_t pid = fork();
            if (pid < 0) { perror("fork"); return 2; }
            if (pid == 0) {
                setpgid(0, 0);
                int fd = open(sl->logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
                if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
                int nul = open("/dev/null", O_RDONLY);
                if (nul >= 0) { dup2(nul, 0); close(nul); }
                tests[sl->idx].fn();
                fflush(NULL);
                exit(0);
            }
            setpgid(pid, pid);
            sl->pid = pid;
        }
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) {
            /* enforce timeouts */
            double t = now_s();
            for (long s = 0; s < jobs; s++) {
                if (slots[s].pid && !slots[s].killed && t - slots[s].start > tests[slots[s].idx].timeout_s) {
                    slots[s].killed = 1;
                    kill(-slots[s].pid, SIGKILL);
                    kill(slots[s].pid, SIGKILL);
                    FILE *f = fopen(slots[s].logpath, "a");
                    if (f) { fprintf(f, "timed out after %d s\n", tests[slots[s].idx].timeout_s); fclose(f); }
                }
            }
            usleep(2000);
            continue;
        }
        for (long s = 0; s < jobs; s++) {
            if (slots[s].pid != pid) continue;
            struct slot *sl = &slots[s];
            const struct test *t = &tests[sl->idx];
            kill(-pid, SIGKILL); /* leftovers of the test's process group */
            int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            double ms = (now_s() - sl->start) * 1000;
            done++;
            if (ok) {
                passed++;
                printf("ok %zu - %s (%.0f ms)\n", done, t->name, ms);
            } else {
                failed++;
                failed_names[failed - 1] = (char *)t->name;
                if (WIFSIGNALED(status))
                    printf("not ok %zu - %s (signal %d, %.0f ms)\n", done, t->name, WTERMSIG(status), ms);
                else
                    printf("not ok %zu - %s (exit %d, %.0f ms)\n", done, t->name, WEXITSTATUS(status), ms);
                print_log(sl->logpath);
            }
            unlink(sl->logpath);
            sl->pid = 0;
        }
    }
    for (size_t i = 0; i < failed; i++) printf("# failed: %s\n", failed_names[i]);
    printf("%zu passed, %zu failed\n", passed, failed);
    free(failed_names);
    free(slots);
    free(run);
    free(tests);
    return failed ? 1 : 0;
}
