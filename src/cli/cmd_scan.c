/* cmd_scan.c — `memgate scan PATH`: find secrets in files, like a pre-commit
 * hook. Reuses the index walker (so .gitignore is honoured) but also reads
 * the secret files (.env, *.pem, ...) the index never opens: they are exactly
 * where secrets are. Prints masked matches only, never a whole secret. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "index/walk.h"
#include "security/scan.h"
#include "util/clock.h"
#include "util/json.h"

static const char *HELP =
    "usage: memgate scan PATH [--json] [--rules FILE] [--min-severity high|medium|low]\n"
    "                    [--max-file-size SIZE]\n"
    "\n"
    "Find secrets (API keys, tokens, private keys, passwords) in a file or a\n"
    "directory. In a git work tree, files ignored by .gitignore are skipped;\n"
    "secret files such as .env and *.pem are scanned. Binary files (a NUL byte\n"
    "in the first 8000 bytes) and files over the size cap are skipped and counted.\n"
    "Matches are shown masked (first characters and length), never whole.\n"
    "\n"
    "exit status: 0 nothing found; 1 a finding at or above --min-severity (or an\n"
    "error, after an error[CODE] line); 2 usage. Use it as a pre-commit hook:\n"
    "  memgate scan . --min-severity medium\n"
    "\n"
    "options:\n"
    "  --json               {\"findings\":[{path,line,rule,severity,description,match,\n"
    "                       start,end}],\"files\":N,\"bytes\":N,\"skipped\":{...},\n"
    "                       \"rules\":N,\"took_ms\":N}\n"
    "  --rules FILE         use this rules file instead of the built-in rules\n"
    "                       (config secret_rules); format in docs/security.md\n"
    "  --min-severity S     report findings of severity S or higher (default low)\n"
    "  --max-file-size SIZE skip larger files (default: config max_file_size, 1M)\n"
    "  -h, --help           this help\n";

struct scan_run {
    const struct mg_scanner *sc;
    enum mg_sev min_sev;
    bool json;
    json_t *arr;           /* --json findings */
    const char *path;      /* display path of the file being scanned */
    const char *buf;
    size_t nfound;
    size_t files, bytes;
    size_t binary, too_large, unreadable;
};

static int on_finding(const struct mg_finding *f, void *ud)
{
    struct scan_run *r = ud;
    if (f->sev < r->min_sev) return 0;
    char mask[64];
    mg_secret_mask(r->buf + f->start, f->end - f->start, mask, sizeof(mask));
    r->nfound++;
    if (r->json) {
        json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:I, s:I}", "path", r->path, "line", (json_int_t)f->line,
                              "rule", f->rule, "severity", mg_sev_name(f->sev), "description", f->description, "match",
                              mask, "start", (json_int_t)f->start, "end", (json_int_t)f->end);
        if (o && f->encoded) json_object_set_new(o, "encoded", json_string("base64"));
        if (o) json_array_append_new(r->arr, o);
    } else {
        printf("%s:%u: %s%s [%s] %s  %s\n", r->path, f->line, f->rule, f->encoded ? " (base64)" : "", mg_sev_name(f->sev),
               mask, f->description);
    }
    return 0;
}

/* Scan one buffer; binary content is counted and skipped. */
static int scan_buf(struct scan_run *r, const char *path, const char *buf, size_t len, struct mg_err *err)
{
    if (memchr(buf, 0, len < 8000 ? len : 8000)) {
        r->binary++;
        return 0;
    }
    r->path = path;
    r->buf = buf;
    r->files++;
    r->bytes += len;
    return mg_scan(r->sc, buf, len, on_finding, r, err) < 0 ? -1 : 0;
}

static int scan_file(struct scan_run *r, const char *path, size_t max, struct mg_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_PATH_NOT_FOUND, "cannot open '%s': %s", path,
                          strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mg_err_set(err, MG_E_BAD_ARG, "'%s' is not a regular file or directory", path);
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        r->too_large++;
        return 0;
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
    }
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    int rc = scan_buf(r, path, buf, got, err);
    free(buf);
    return rc;
}

static int scan_dir(struct scan_run *r, const char *arg, size_t max, struct mg_err *err)
{
    char root[PATH_MAX];
    if (!realpath(arg, root)) return mg_err_set(err, MG_E_PATH_NOT_FOUND, "cannot resolve '%s': %s", arg, strerror(errno));
    struct mg_walk w;
    if (mg_walk_ex(root, max, MG_WALK_SECRET_FILES, &w, err) != 0) return -1;
    r->too_large += w.st.too_large;
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        mg_walk_release(&w);
        return mg_err_set(err, MG_E_PERMISSION, "cannot open directory '%s': %s", root, strerror(errno));
    }
    bool tty = !r->json && isatty(2);
    double last = mg_clock_s();
    bool dot = strcmp(arg, ".") == 0 || strcmp(arg, "./") == 0;
    size_t alen = strlen(arg);
    while (alen > 1 && arg[alen - 1] == '/') alen--;
    int rc = 0;
    for (size_t i = 0; i < w.n && rc == 0; i++) {
        char *buf = NULL;
        size_t len = 0;
        int64_t mt;
        struct mg_err rerr = {0};
        int st = mg_read_beneath(rootfd, root, w.v[i].path, max, &buf, &len, &mt, &rerr);
        if (st != 0) {
            if (st < 0) r->unreadable++;
            else r->too_large++;
            free(buf);
            continue;
        }
        char disp[PATH_MAX + 256];
        if (dot) snprintf(disp, sizeof(disp), "%s", w.v[i].path);
        else snprintf(disp, sizeof(disp), "%.*s/%s", (int)alen, arg, w.v[i].path);
        rc = scan_buf(r, disp, buf, len, err);
        free(buf);
        if (tty && mg_clock_s() - last > 0.25) {
            last = mg_clock_s();
            char hb[32];
            fprintf(stderr, "\rscan: %zu/%zu files, %s, %zu finding%s ", i + 1, w.n, mg_human_bytes((double)r->bytes, hb, sizeof(hb)),
                    r->nfound, r->nfound == 1 ? "" : "s");
        }
    }
    if (tty) fprintf(stderr, "\r\033[K");
    close(rootfd);
    mg_walk_release(&w);
    return rc;
}

int mg_cmd_scan(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},          {"rules", required_argument, NULL, 'r'},
        {"min-severity", required_argument, NULL, 's'}, {"max-file-size", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    struct scan_run r = {0};
    const char *rules = NULL;
    size_t max = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'j': r.json = true; break;
        case 'r': rules = optarg; break;
        case 's':
            if (mg_sev_parse(optarg, &r.min_sev) != 0)
                return mg_cli_usage("scan", "--min-severity wants high, medium or low, got '%s'", optarg);
            break;
        case 'm':
            if (mg_parse_size(optarg, &max) != 0 || max == 0 || max > MG_SCAN_MAX_BYTES)
                return mg_cli_usage("scan", "--max-file-size wants a size from 1 to 1G (512k, 2M), got '%s'", optarg);
            break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("scan", argc, argv, opts);
        }
    }
    if (optind != argc - 1) return mg_cli_usage("scan", "give exactly one PATH (a file or a directory)");
    const char *path = argv[optind];

    struct mg_config cfg;
    int rc;
    if ((rc = mg_cli_config(&cfg)) != 0) return rc;
    if (!max) max = cfg.max_file_size;
    if (!rules && cfg.secret_rules[0]) rules = cfg.secret_rules;

    struct mg_err err = {0};
    double t0 = mg_clock_s();
    char cache[PATH_MAX + 8];
    if (cfg.cache_dir[0]) snprintf(cache, sizeof(cache), "%s", cfg.cache_dir);
    else snprintf(cache, sizeof(cache), "%s/cache", cfg.home);
    mg_scanner_cache_dir(cache); /* the compiled rules, reused by the next run */
    struct mg_scanner *own = NULL;
    if (rules) {
        if (mg_scanner_load(rules, &own, &err) != 0) return mg_cli_fail(&err);
        r.sc = own;
    } else if (!(r.sc = mg_scanner_default())) {
        mg_err_set(&err, MG_E_INTERNAL, "the built-in secret rules did not compile; report this bug");
        return mg_cli_fail(&err);
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        mg_scanner_free(own);
        mg_err_set(&err, errno == EACCES ? MG_E_PERMISSION : MG_E_PATH_NOT_FOUND, "cannot scan '%s': %s", path,
                   strerror(errno));
        return mg_cli_fail(&err);
    }
    if (r.json && !(r.arr = json_array())) {
        mg_scanner_free(own);
        mg_err_set(&err, MG_E_NO_MEMORY, "out of memory");
        return mg_cli_fail(&err);
    }
    int src = S_ISDIR(st.st_mode) ? scan_dir(&r, path, max, &err) : scan_file(&r, path, max, &err);
    double took = (mg_clock_s() - t0) * 1000;
    if (src != 0) {
        json_decref(r.arr);
        mg_scanner_free(own);
        return mg_cli_fail(&err);
    }
    if (r.json) {
        json_t *top = json_pack("{s:o, s:I, s:I, s:{s:I, s:I, s:I}, s:I, s:I}", "findings", r.arr, "files",
                                (json_int_t)r.files, "bytes", (json_int_t)r.bytes, "skipped", "binary",
                                (json_int_t)r.binary, "too_large", (json_int_t)r.too_large, "unreadable",
                                (json_int_t)r.unreadable, "rules", (json_int_t)mg_scanner_rule_count(r.sc), "took_ms",
                                (json_int_t)(took + 0.5));
        char *s = top ? json_dumps(top, MG_JSON_DUMP) : NULL;
        if (s) puts(s);
        free(s);
        json_decref(top);
    } else {
        char hb[32];
        fprintf(stderr, "%zu finding%s in %zu file%s (%s; skipped: %zu binary, %zu too large, %zu unreadable) in %.0f ms\n",
                r.nfound, r.nfound == 1 ? "" : "s", r.files, r.files == 1 ? "" : "s",
                mg_human_bytes((double)r.bytes, hb, sizeof(hb)), r.binary, r.too_large, r.unreadable, took);
    }
    mg_scanner_free(own);
    return r.nfound ? 1 : 0;
}
