/* cmd_audit.c — `memgate audit`: show, follow and verify the audit log.
 *
 * Sections:
 *   1. help and printing — one row as text or JSON, the table header
 *   2. following — the files (follow) and PostgreSQL (follow_pg)
 *   3. checking --op, --anchor; verifying
 *   4. the command
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "security/audit.h"
#include "security/common.h"
#include "tools/tools.h"
#include "util/json.h"

/* ---- 1. help and printing ------------------------------------------------ */

static const char *HELP =
    "usage: memgate audit [--tenant T] [--op OP] [--since TIME] [--limit N] [--json] [--follow]\n"
    "       memgate audit --verify [--anchor JSON|FILE] [--json]\n"
    "\n"
    "Show the audit log (<data dir>/audit/audit.log and its rotated files; with\n"
    "storage = postgres://..., the chain all daemons share in PostgreSQL, table\n"
    "audit_events): time (UTC), tenant, op, repo, session, results, query and\n"
    "flags of each event, oldest first. --verify checks the hash chain instead.\n"
    "\n"
    "options:\n"
    "  --tenant T     only this tenant's events\n"
    "  --op OP        only this op: a tool's name (search_code, read_file, set_note,\n"
    "                 index_repo, ...) or auth_fail, rate_limited, request_refused,\n"
    "                 audit_read, isolation_drop, token_create, token_revoke,\n"
    "                 repo_remove, audit_recovered (docs/security.md, \"Ops\")\n"
    "  --since TIME   only events at or after TIME: a duration back from now (90m,\n"
    "                 12h, 7d), a date (2025-01-31, UTC) or 2025-01-31T12:00:00Z\n"
    "  --limit N      the newest N matching events (default 100; 0 = all)\n"
    "  --json         print the events' JSON lines as they are in the file\n"
    "  -f, --follow   after the newest events, keep printing new ones as they are\n"
    "                 written (across rotations) until interrupted\n"
    "  --verify       check every line: it parses, seq is contiguous, each prev is\n"
    "                 the hash of the event before it, each hash recomputes. Exit 0\n"
    "                 with a summary when intact; else exit 1 naming the file, the\n"
    "                 first bad line and what is wrong (edited, removed, reordered,\n"
    "                 replaced, torn); in PostgreSQL, the table and the seq of the\n"
    "                 first bad row. The chain's end is checked against its anchor\n"
    "                 (audit/audit.anchor; in PostgreSQL the row of audit_anchor):\n"
    "                 exit 1 with audit_truncated when the log ends before the\n"
    "                 anchor's seq or has another hash there.\n"
    "                 With --json: {\"ok\",\"storage\",\"events\",\"files\",\n"
    "                 \"first_seq\",\"last_seq\",\"first_time\",\"last_time\",\"complete\",\n"
    "                 \"torn_recovered\",\"torn_tail\",\"anchored\",\"anchor_seq\",\"error\":{\"file\",\"line\",\n"
    "                 \"problem\",\"message\"}} (in PostgreSQL \"seq\" for \"line\")\n"
    "  --anchor A     with --verify: also check against an anchor shipped elsewhere\n"
    "                 (audit_anchor_url, audit_anchor_syslog): its JSON, or a file\n"
    "                 whose last {\"seq\":..,\"hash\":..} counts (a syslog file, a\n"
    "                 hook's log). Catches a truncation whose local anchor was\n"
    "                 rewritten too\n"
    "  -h, --help     this help\n";

static void print_row(const char *line, bool json)
{
    if (json) {
        puts(line);
        return;
    }
    json_t *o = json_loads(line, 0, NULL);
    if (!o) return;
    char t[32] = "", flags[256] = "", q[64] = "";
    const char *time = json_string_value(json_object_get(o, "time"));
    if (time) {
        snprintf(t, sizeof(t), "%.19s", time);
        if (t[10] == 'T') t[10] = ' ';
    }
    json_t *fl = json_object_get(o, "flags");
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(fl) && k < sizeof(flags); i++)
        k += (size_t)snprintf(flags + k, sizeof(flags) - k, "%s%s", i ? "," : "",
                              json_string_value(json_array_get(fl, i)));
    const char *query = json_string_value(json_object_get(o, "query"));
    if (query) {
        size_t n = strlen(query);
        snprintf(q, sizeof(q), "%.*s%s", n > 40 ? 40 : (int)n, query, n > 40 ? "..." : "");
        for (char *p = q; *p; p++)
            if ((unsigned char)*p < 0x20) *p = ' ';
    }
    const char *tenant = json_string_value(json_object_get(o, "tenant"));
    const char *op = json_string_value(json_object_get(o, "op"));
    const char *repo = json_string_value(json_object_get(o, "repo"));
    const char *session = json_string_value(json_object_get(o, "session"));
    const char *code = json_string_value(json_object_get(o, "code"));
    printf("%-19s  %-12s  %-14s  %-20s  %-8.8s  %7lld  %-40s  %s%s%s\n", t, tenant ? tenant : "-", op ? op : "-",
           repo ? repo : "-", session ? session : "-", (long long)json_integer_value(json_object_get(o, "results")),
           q, flags, code && *flags ? " " : "", code ? code : "");
    json_decref(o);
}

static void header(void)
{
    printf("%-19s  %-12s  %-14s  %-20s  %-8s  %7s  %-40s  %s\n", "TIME (UTC)", "TENANT", "OP", "REPO", "SESSION",
           "RESULTS", "QUERY", "FLAGS");
}

/* ---- 2. following -------------------------------------------------------- */

static long long line_seq(const char *line)
{
    long long seq = 0;
    if (sscanf(line, "{\"seq\":%lld,", &seq) != 1) return 0;
    return seq;
}

/* Print new matching lines of audit.log as they come: lines with a seq above
 * `after` (what was printed already). Re-opens the file after a rotation. */
static int follow(const struct mg_config *cfg, const struct mg_audit_filter *f, bool json, long long after)
{
    char path[PATH_MAX + 32];
    mg_audit_path(cfg, 0, path, sizeof(path));
    int fd = -1;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    const struct timespec nap = {0, 200 * 1000000};
    for (;;) {
        if (fd < 0) {
            fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                nanosleep(&nap, NULL);
                continue;
            }
            len = 0;
        }
        if (cap - len < 65536) {
            char *nb = realloc(buf, cap = cap ? cap * 2 : 131072);
            if (!nb) {
                struct mg_err e = {0};
                mg_err_set(&e, MG_E_NO_MEMORY, "out of memory following the audit log");
                free(buf);
                close(fd);
                return mg_cli_fail(&e);
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r > 0) {
            len += (size_t)r;
            size_t start = 0;
            for (size_t i = 0; i < len; i++) {
                if (buf[i] != '\n') continue;
                buf[i] = 0;
                const char *line = buf + start;
                long long seq = line_seq(line);
                if (seq > after) {
                    json_t *o = json_loads(line, 0, NULL);
                    if (o && mg_audit_match(f, o)) print_row(line, json);
                    if (o) json_decref(o);
                    after = seq;
                }
                start = i + 1;
            }
            memmove(buf, buf + start, len - start);
            len -= start;
            fflush(stdout);
            continue;
        }
        /* at the end: rotated away? then the new file, from its start */
        struct stat a, b;
        if (stat(path, &a) == 0 && fstat(fd, &b) == 0 && (a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
            close(fd);
            fd = -1;
            continue;
        }
        nanosleep(&nap, NULL);
    }
}

/* The same from the PostgreSQL chain (storage = postgres://...): ask for
 * the events after the last one printed, every 200 ms. PostgreSQL away is a
 * warning (once per outage); the following goes on when it is back. */
static int follow_pg(const struct mg_config *cfg, const struct mg_audit_filter *f, bool json, long long after)
{
    const struct timespec nap = {0, 200 * 1000000};
    bool failing = false;
    for (;;) {
        struct mg_audit_filter g = *f;
        g.after_seq = after;
        g.limit = 0;
        g.since_ms = 0; /* the first page applied it */
        char **lines;
        size_t n;
        struct mg_err err = {0};
        if (mg_audit_query_lines(cfg, &g, &lines, &n, &err) != 0) {
            if (!failing) fprintf(stderr, "memgate: warning: following the audit chain: error[%s]: %s; trying again\n",
                                  err.code ? err.code : MG_E_INTERNAL, err.msg);
            failing = true;
            nanosleep(&nap, NULL);
            continue;
        }
        failing = false;
        for (size_t i = 0; i < n; i++) {
            print_row(lines[i], json);
            long long s = line_seq(lines[i]);
            if (s > after) after = s;
        }
        mg_audit_lines_free(lines, n);
        fflush(stdout);
        nanosleep(&nap, NULL);
    }
    return 0; /* (until interrupted) */
}

/* ---- 3. checking --op, --anchor; verifying ------------------------------- */

/* Is op one memgate writes? Else a hint on stderr (the filter still runs:
 * older logs may hold other names). */
static void check_op(const char *op)
{
    if (mg_tool_find(op)) return;
    for (const char *const *o = mg_audit_other_ops; *o; o++)
        if (strcmp(*o, op) == 0) return;
    static const char *const renamed[][2] = {{"note_write", "set_note"},  {"scope_set", "set_scope"},
                                             {"scope_clear", "clear_scope"}, {"index", "index_repo"},
                                             {"search", "search_code"}};
    const char *hint = NULL;
    for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
        if (strcmp(renamed[i][0], op) == 0) hint = renamed[i][1];
    fprintf(stderr, "memgate: note: memgate writes no op '%s'; ops are named after the tool that ran%s%s%s (see "
            "docs/security.md, \"Ops\")\n", op, hint ? ": did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
}

/* --anchor: JSON text, or a file whose last anchor counts. */
static int load_anchor(const char *arg, struct mg_audit_anchor *out)
{
    if (arg[0] == '{') {
        if (mg_audit_anchor_parse(arg, strlen(arg), out) == 0) return 0;
        return mg_cli_usage("audit", "--anchor takes {\"seq\":N,\"hash\":\"<64 hex>\"} or a file holding one");
    }
    FILE *f = fopen(arg, "re");
    if (!f) return mg_cli_usage("audit", "--anchor: cannot open '%s': %s", arg, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(buf, cap);
            if (!nb) break;
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (got == 0) break;
        len += got;
    }
    fclose(f);
    int rc = buf && mg_audit_anchor_parse(buf, len, out) == 0 ? 0 : -1;
    free(buf);
    if (rc != 0) return mg_cli_usage("audit", "--anchor: '%s' holds no {\"seq\":N,\"hash\":\"<64 hex>\"}", arg);
    return 0;
}

/* Each finding on stderr: what, where, and what it means (errors after the
 * first, which mg_cli_fail prints with its code). */
static void print_findings(const struct mg_audit_report *r)
{
    bool first_error = true;
    for (int i = 0; i < r->nfindings; i++) {
        const struct mg_audit_finding *f = &r->findings[i];
        if (!f->warning && first_error) { /* printed by mg_cli_fail; its explanation here */
            first_error = false;
            continue;
        }
        char where[600] = "";
        if (f->where[0] && f->line) snprintf(where, sizeof(where), "%s %s %lld: ", f->where, r->pg ? "seq" : "line",
                                             f->line);
        else if (f->where[0]) snprintf(where, sizeof(where), "%s: ", f->where);
        fprintf(stderr, "%s (%s): %s%s\n", f->warning ? "warning" : "also wrong", f->problem, where, f->what);
        if (f->explain && f->explain[0]) fprintf(stderr, "  what it means: %s\n", f->explain);
    }
}

static const char *first_explanation(const struct mg_audit_report *r)
{
    for (int i = 0; i < r->nfindings; i++)
        if (!r->findings[i].warning) return r->findings[i].explain;
    return NULL;
}

static int verify(const struct mg_config *cfg, bool json, const struct mg_audit_anchor *shipped)
{
    struct mg_audit_report *rp = calloc(1, sizeof(*rp));
    if (!rp) {
        struct mg_err e = {0};
        mg_err_oom(&e);
        return mg_cli_fail(&e);
    }
    struct mg_audit_report *r = rp;
    struct mg_err err = {0};
    int rc = mg_audit_verify_anchored(cfg, shipped, r, &err);
    if (rc != 0 && !r->problem) {
        free(rp);
        return mg_cli_fail(&err); /* could not read */
    }
    if (json) {
        json_t *o = json_pack("{s:b, s:I, s:i, s:I, s:I, s:s, s:s, s:b, s:i}", "ok", r->ok, "events",
                              (json_int_t)r->events, "files", r->files, "first_seq", (json_int_t)r->first_seq,
                              "last_seq", (json_int_t)r->last_seq, "first_time", r->first_time, "last_time",
                              r->last_time, "complete", r->complete, "torn_recovered", r->torn_recovered);
        json_object_set_new(o, "storage", json_string(r->pg ? "postgresql" : "files"));
        json_object_set_new(o, "torn_tail", json_boolean(r->torn_tail));
        json_object_set_new(o, "anchored", json_boolean(r->anchored));
        json_object_set_new(o, "anchor_seq", r->anchored ? json_integer(r->anchor_seq) : json_null());
        json_object_set_new(o, "keyed", json_boolean(r->keyed));
        json_object_set_new(o, "chain", r->chain[0] ? json_string(r->chain) : json_null());
        json_object_set_new(o, "journal", json_pack("{s:b, s:o, s:o}", "checked", r->journal_checked, "seq",
                                                    r->journal_checked ? json_integer(r->journal_seq) : json_null(),
                                                    "note", r->journal_note[0] ? json_string(r->journal_note)
                                                                               : json_null()));
        json_t *fa = json_array();
        for (int i = 0; i < r->nfindings; i++) {
            const struct mg_audit_finding *f = &r->findings[i];
            json_array_append_new(fa, json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}", "severity",
                                                f->warning ? "warning" : "error", "problem", f->problem, "file",
                                                f->where, r->pg ? "seq" : "line", (json_int_t)f->line, "message",
                                                f->what, "explain", f->explain ? f->explain : ""));
        }
        json_object_set_new(o, "findings", fa);
        if (!r->ok)
            json_object_set_new(o, "error", json_pack("{s:s, s:I, s:s, s:s}", "file", r->file, r->pg ? "seq" : "line",
                                                      (json_int_t)r->line, "problem", r->problem, "message", r->what));
        char *s = json_dumps(o, MG_JSON_DUMP);
        puts(s);
        free(s);
        json_decref(o);
    }
    if (!json) print_findings(r);
    if (!r->ok) {
        const char *why = first_explanation(r);
        int st = mg_cli_fail(&err);
        if (!json && why && why[0]) fprintf(stderr, "  what it means: %s\n", why);
        free(rp);
        return st;
    }
    if (!json && r->pg) {
        if (r->events == 0) printf("audit chain intact: no events yet (PostgreSQL, audit_events)\n");
        else
            printf("audit chain intact: %lld events (seq %lld-%lld) in PostgreSQL (audit_events), %s to %s\n"
                   "the end agrees with the anchor row (audit_anchor, seq %lld)%s\n", r->events, r->first_seq,
                   r->last_seq, r->first_time, r->last_time, r->anchor_seq,
                   r->shipped_checked ? " and with the shipped anchor" : "");
    } else if (!json) {
        if (r->events == 0) {
            printf("audit log intact: no events yet\n");
        } else {
            printf("audit log intact: %lld events (seq %lld-%lld) in %d file%s, %s to %s\n", r->events, r->first_seq,
                   r->last_seq, r->files, r->files == 1 ? "" : "s", r->first_time, r->last_time);
            if (!r->complete)
                printf("older files were rotated away: the retained chain starts at seq %lld, whose prev is %.16s...\n",
                       r->first_seq, r->first_prev);
            if (r->anchored)
                printf("the end agrees with the %sanchor (audit.anchor, seq %lld)%s\n", r->keyed ? "keyed " : "",
                       r->anchor_seq, r->shipped_checked ? " and with the shipped anchor" : "");
            if (r->journal_checked)
                printf("and with the system journal's copy (seq %lld)\n", r->journal_seq);
            else if (r->journal_note[0])
                printf("no copy out of the data directory's reach was checked: %s%s\n", r->journal_note,
                       r->shipped_checked ? "" : " (pass one with --anchor)");
            if (r->torn_recovered)
                printf("%d torn line(s) from interrupted writes were closed and recorded (warnings above)\n",
                       r->torn_recovered);
            if (r->torn_tail)
                printf("the log ends in a torn line from an interrupted write, never acknowledged (warning above)\n");
        }
    }
    free(rp);
    return 0;
}

/* ---- 4. the command ------------------------------------------------------ */

int mg_cmd_audit(int argc, char **argv)
{
    static const struct option opts[] = {{"tenant", required_argument, NULL, 't'},
                                         {"op", required_argument, NULL, 'o'},
                                         {"since", required_argument, NULL, 's'},
                                         {"limit", required_argument, NULL, 'l'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"follow", no_argument, NULL, 'f'},
                                         {"verify", no_argument, NULL, 'v'},
                                         {"anchor", required_argument, NULL, 'a'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    bool json = false, fol = false, ver = false;
    const char *anchor_arg = NULL;
    struct mg_audit_filter f = {.limit = 100};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hjf", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!mg_tenant_ok(optarg)) return mg_cli_usage("audit", "--tenant '%s' is not a tenant name", optarg);
            f.tenant = optarg;
            break;
        case 'o':
            if (!mg_audit_op_ok(optarg))
                return mg_cli_usage("audit", "--op '%s' is not an op name: ops are 1-64 characters of a-z, 0-9, "
                                    "'_', '.', '-'", optarg);
            f.op = optarg;
            break;
        case 's':
            if (mg_parse_time(optarg, mg_wall_ms(), &f.since_ms) != 0)
                return mg_cli_usage("audit", "--since takes 90m, 12h, 7d, 2025-01-31 or 2025-01-31T12:00:00Z, not "
                                    "'%s'", optarg);
            break;
        case 'l': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 0) return mg_cli_usage("audit", "--limit takes a count, not '%s'", optarg);
            f.limit = (size_t)v;
            break;
        }
        case 'j': json = true; break;
        case 'f': fol = true; break;
        case 'v': ver = true; break;
        case 'a': anchor_arg = optarg; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("audit", argc, argv, opts);
        }
    }
    if (optind < argc) return mg_cli_usage("audit", "unexpected argument '%s'", argv[optind]);
    if (ver && (fol || f.tenant || f.op || f.since_ms))
        return mg_cli_usage("audit", "--verify checks the whole log; it takes no filters nor --follow");
    if (f.op) check_op(f.op);
    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    if (anchor_arg && !ver) return mg_cli_usage("audit", "--anchor goes with --verify");
    struct mg_audit_anchor shipped;
    if (anchor_arg && (rc = load_anchor(anchor_arg, &shipped)) != 0) return rc;
    if (ver) return verify(&cfg, json, anchor_arg ? &shipped : NULL);
    struct mg_err err = {0};
    char **lines;
    size_t n;
    if (mg_audit_query_lines(&cfg, &f, &lines, &n, &err) != 0) return mg_cli_fail(&err);
    if (!json && (n || fol)) header();
    long long last = 0;
    for (size_t i = 0; i < n; i++) {
        print_row(lines[i], json);
        long long s = line_seq(lines[i]);
        if (s > last) last = s;
    }
    mg_audit_lines_free(lines, n);
    if (!fol && n == 0 && !json) fprintf(stderr, "no audit events match\n");
    fflush(stdout);
    if (fol && mg_audit_in_pg(&cfg)) return follow_pg(&cfg, &f, json, last);
    if (fol) return follow(&cfg, &f, json, last);
    return 0;
}
