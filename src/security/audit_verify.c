/* audit_verify.c — the audit chain verified (audit.h: mg_audit_verify,
 * mg_audit_verify_anchored): every event parsed and its hash checked on its
 * own (audit_line.c), then against the chain so far (seq and prev), then
 * the chain's end against its anchors. The retained files are read in
 * order under the shared lock, a torn line told from an edit; the
 * PostgreSQL table row by row in one snapshot (audit_pg.c), its columns
 * held against its line.
 *
 * Sections:
 *   1. reporting a problem
 *   2. one event against the chain so far
 *   3. the files
 *   4. the chain's end against its anchors
 *   5. the PostgreSQL table
 *   6. verify
 */
#include "security/audit.h"
#include "security/audit_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security/common.h"
#include "store/pg.h"

/* ---- 1. reporting a problem ------------------------------------------------------------- */

static int fail_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                   struct mg_err *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                   struct mg_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof(r->what), fmt, ap);
    va_end(ap);
    r->ok = false;
    snprintf(r->file, sizeof(r->file), "%s", path);
    r->line = line;
    r->problem = problem;
    return mg_err_set(err, MG_E_AUDIT_INVALID, "%s %s %lld: %s", path, r->pg ? "seq" : "line", line, r->what);
}

static bool has_flag(json_t *o, const char *flag)
{
    json_t *fl = json_object_get(o, "flags");
    for (size_t i = 0; i < json_array_size(fl); i++)
        if (strcmp(json_string_value(json_array_get(fl, i)), flag) == 0) return true;
    return false;
}

/* ---- 2. one event against the chain so far --------------------------------------------- */

struct vstate {
    /* anchors to check the chain against: the hash seen at their seq */
    const struct mg_audit_anchor *anch[2];
    int nanch;
    int anch_seen[2]; /* 0 not reached, 1 same hash, 2 another hash */
    bool started;
    long long seq;
    char hash[65];
    /* a bad line waiting for the next one to tell whether it is a recorded torn line */
    bool pending;
    long long pending_line;
    enum mg_audit_bad pending_kind;
    char pending_why[160];
    /* audit.log ends in a line without its newline: where, and its length */
    long long torn_line;
    ssize_t torn_len;
};

/* Where a later line (or row) holding event `want` is, 0 when none. */
typedef long long (*later_fn)(void *ud, long long want);

/* One event that parsed and verified on its own, at lineno of path: does it
 * follow on from the chain so far (v)? The same for files and rows. */
static int chain_step(struct vstate *v, const struct mg_audit_line *l, const char *path, long long lineno,
                      later_fn later, void *ud, struct mg_audit_report *r, struct mg_err *err)
{
    int rc = 0;
    if (!v->started) {
        v->started = true;
        r->complete = strcmp(l->prev, MG_AUDIT_GENESIS) == 0;
        snprintf(r->first_prev, sizeof(r->first_prev), "%s", l->prev);
        r->first_seq = l->seq;
        snprintf(r->first_time, sizeof(r->first_time), "%s",
                 json_string_value(json_object_get(l->obj, "time")));
        if (r->complete && l->seq != 1) {
            rc = fail_at(r, path, lineno, "removed", err, "the first event chains from the genesis but has seq "
                         "%lld, not 1: events before it were removed", l->seq);
        }
    } else if (l->seq != v->seq + 1) {
        if (l->seq > v->seq + 1) {
            long long at = later(ud, v->seq + 1);
            if (at)
                rc = fail_at(r, path, lineno, "reordered", err, "seq %lld follows seq %lld, and seq %lld comes "
                             "later (%s %lld): %s were reordered", l->seq, v->seq, v->seq + 1,
                             r->pg ? "row" : "line", at, r->pg ? "rows" : "lines");
            else
                rc = fail_at(r, path, lineno, "removed", err, "seq %lld follows seq %lld: %lld event(s) before "
                             "this %s were removed", l->seq, v->seq, l->seq - v->seq - 1,
                             r->pg ? "row" : "line");
        } else {
            rc = fail_at(r, path, lineno, "reordered", err, "seq %lld follows seq %lld: %s were reordered "
                         "or repeated", l->seq, v->seq, r->pg ? "rows" : "lines");
        }
    } else if (strcmp(l->prev, v->hash) != 0) {
        rc = fail_at(r, path, lineno, "replaced", err, "its prev does not match the hash of seq %lld before "
                     "it: an event was replaced or the chain was rewritten", v->seq);
    }
    if (rc == 0 && strcmp(l->op, "audit_recovered") == 0) {
        if (has_flag(l->obj, "truncated") || has_flag(l->obj, "rewritten")) {
            const char *st = json_string_value(json_object_get(l->obj, "status"));
            rc = fail_at(r, path, lineno, has_flag(l->obj, "truncated") ? "truncated" : "rewritten", err,
                         "a writer found the log shorter than its anchor or its end rewritten, and recorded "
                         "it: %s", st ? st : "(no status)");
            err->code = MG_E_AUDIT_TRUNCATED;
        } else if (has_flag(l->obj, "unsynced_lost")) {
            r->unsynced_lost++;
            const char *st = json_string_value(json_object_get(l->obj, "status"));
            fprintf(stderr, "warning: %s %s %lld: events that were never synced to disk were lost when the "
                    "machine restarted (%s)\n", path, r->pg ? "seq" : "line", lineno, st ? st : "no status");
        }
    }
    for (int k = 0; rc == 0 && k < v->nanch; k++)
        if (v->anch[k]->seq == l->seq) v->anch_seen[k] = strcmp(v->anch[k]->hash, l->hash) == 0 ? 1 : 2;
    if (rc == 0) {
        v->seq = l->seq;
        memcpy(v->hash, l->hash, 65);
        r->events++;
        r->last_seq = l->seq;
        snprintf(r->last_time, sizeof(r->last_time), "%s", json_string_value(json_object_get(l->obj, "time")));
    }
    return rc;
}

/* ---- 3. the files ----------------------------------------------------------------------- */

/* Is seq found further on in fp (from its current position)? Restores nothing:
 * the caller stops reading after this. */
static long long find_seq_later(FILE *fp, long long seq, long long lineno)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long long found = 0;
    while (!found && (len = getline(&line, &cap, fp)) > 0) {
        lineno++;
        json_t *o = json_loadb(line, (size_t)len, 0, NULL);
        if (o && json_integer_value(json_object_get(o, "seq")) == seq) found = lineno;
        if (o) json_decref(o);
    }
    free(line);
    return found;
}

struct later_in_file {
    FILE *fp;
    long long lineno;
};

static long long later_in_file(void *ud, long long want)
{
    struct later_in_file *lf = ud;
    return find_seq_later(lf->fp, want, lf->lineno);
}

static int pending_fail(struct mg_audit_report *r, struct vstate *v, const char *path, struct mg_err *err)
{
    const char *problem = v->pending_kind == MG_AUDIT_NOT_JSON ? "invalid" : "edited";
    return fail_at(r, path, v->pending_line, problem, err, "%s: the line was %s", v->pending_why,
                   v->pending_kind == MG_AUDIT_NOT_JSON ? "edited or cut" : "edited");
}

static int verify_file(const char *path, bool last_file, struct vstate *v, struct mg_audit_report *r,
                       struct mg_err *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp) return mg__audit_io_err(err, "open", path);
    r->files++;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long long lineno = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, fp)) > 0) {
        lineno++;
        bool nl = line[len - 1] == '\n';
        if (!nl && v->pending) {
            rc = pending_fail(r, v, path, err);
            break;
        }
        if (!nl && last_file) {
            /* judged once the anchor is read: see mg_audit_verify_anchored */
            v->torn_line = lineno;
            v->torn_len = len;
            break;
        }
        if (!nl) {
            rc = fail_at(r, path, lineno, "torn", err, "the file's last line is cut off (%zd bytes, no newline): a "
                         "rotated file is only closed after its last line was written whole", len);
            break;
        }
        struct mg_audit_line l;
        char why[160];
        enum mg_audit_bad b = mg_audit_parse_line(line, (size_t)len - 1, &l, why, sizeof(why));
        if (b != MG_AUDIT_OK) {
            if (v->pending) {
                rc = pending_fail(r, v, path, err);
                break;
            }
            v->pending = true;
            v->pending_line = lineno;
            v->pending_kind = b;
            snprintf(v->pending_why, sizeof(v->pending_why), "%s", why);
            continue;
        }
        if (v->pending) {
            bool recorded = strcmp(l.op, "audit_recovered") == 0 && has_flag(l.obj, "torn_line") &&
                            v->pending_kind == MG_AUDIT_NOT_JSON && v->started && l.seq == v->seq + 1 &&
                            strcmp(l.prev, v->hash) == 0;
            if (!recorded) {
                mg_audit_line_release(&l);
                rc = pending_fail(r, v, path, err);
                break;
            }
            r->torn_recovered++;
            fprintf(stderr, "warning: %s line %lld: a torn line (a write cut off by a crash, never acknowledged); "
                    "the writer closed it and recorded it at line %lld\n", path, v->pending_line, lineno);
            v->pending = false;
        }
        struct later_in_file lf = {fp, lineno};
        rc = chain_step(v, &l, path, lineno, later_in_file, &lf, r, err);
        mg_audit_line_release(&l);
    }
    if (rc == 0 && v->pending) rc = pending_fail(r, v, path, err);
    free(line);
    fclose(fp);
    return rc;
}

/* ---- 4. the chain's end against its anchors -------------------------------------------- */

/* The chain verified: does its end agree with the anchor? */
static int check_anchor(const struct vstate *v, int k, const char *name, const char *path,
                        struct mg_audit_report *r, struct mg_err *err)
{
    const struct mg_audit_anchor *an = v->anch[k];
    long long end = v->started ? v->seq : 0;
    if (an->seq > end) {
        char boot[40];
        mg__audit_boot_id(boot);
        if (end >= an->synced && an->boot[0] && boot[0] && strcmp(an->boot, boot) != 0) {
            fprintf(stderr, "warning: the log ends at seq %lld and %s says seq %lld: the events after seq %lld were "
                    "not synced to disk and the machine has restarted since, so they may have been lost in a power "
                    "cut\n", end, name, an->seq, an->synced);
            return 0;
        }
        fail_at(r, path, 0, "truncated", err, "the log ends at seq %lld but %s says seq %lld was written: %lld "
                "event(s) at the end were removed", end, name, an->seq, an->seq - end);
        return mg_err_set(err, MG_E_AUDIT_TRUNCATED, "%s: %s", path, r->what);
    }
    if (v->anch_seen[k] == 2) {
        fail_at(r, path, 0, "rewritten", err, "the event at seq %lld does not have the hash %s gives it: the log "
                "was rewritten from there on", an->seq, name);
        return mg_err_set(err, MG_E_AUDIT_TRUNCATED, "%s: %s", path, r->what);
    }
    return 0;
}

/* ---- 5. the PostgreSQL table ------------------------------------------------------------ */

/* A JSON string or null, and a column (NULL for null): the same? */
static bool same_str(json_t *j, const char *col)
{
    if (!col) return json_is_null(j);
    return json_is_string(j) && strcmp(json_string_value(j), col) == 0;
}

static long long later_in_rows(void *ud, long long want)
{
    return mg__audit_pg_rows_find(ud, want);
}

/* The chain in PostgreSQL: every row in the order of its seq column, in one
 * snapshot, from seq 1 (nothing is rotated away there); then its end against
 * the anchor row, written in the same transaction as each event. A row is
 * named by its seq column. */
static int verify_pg(const struct mg_config *c, const struct mg_audit_anchor *shipped, struct mg_audit_report *r,
                     struct mg_err *err)
{
    static const char where[] = "audit_events";
    r->pg = true;
    struct mg__audit_rows *rows;
    struct mg_audit_anchor local;
    bool has_anchor;
    if (mg__audit_pg_rows_open(c, &rows, &local, &has_anchor, err) != 0) return -1;
    struct vstate v = {0};
    if (has_anchor) v.anch[v.nanch++] = &local;
    if (shipped) v.anch[v.nanch++] = shipped;
    int rc = 0, got = 0;
    struct mg__audit_row row;
    while (rc == 0 && (got = mg__audit_pg_rows_next(rows, &row, err)) == 1) {
        struct mg_audit_line l;
        char why[160];
        enum mg_audit_bad b = mg_audit_parse_line(row.line, row.len, &l, why, sizeof(why));
        if (b != MG_AUDIT_OK) {
            rc = fail_at(r, where, row.seq, b == MG_AUDIT_NOT_JSON ? "invalid" : "edited", err, "%s: the row's line "
                         "was edited", why);
            break;
        }
        bool first = !v.started;
        rc = chain_step(&v, &l, where, row.seq, later_in_rows, rows, r, err);
        if (rc == 0 && first && !r->complete)
            rc = fail_at(r, where, row.seq, "removed", err, "the first row holds seq %lld, chained from %.16s..., "
                         "not seq 1 from the genesis: the rows before it were deleted", l.seq, l.prev);
        /* the columns beside the line (what reads filter on) say what it says */
        const char *col = NULL;
        if (l.seq != row.seq) col = "seq";
        else if (strcmp(l.hash, row.hash) != 0) col = "hash";
        else if (l.time_ms != row.time_ms) col = "time_ms";
        else if (strcmp(l.op, row.op) != 0) col = "op";
        else if (!same_str(json_object_get(l.obj, "tenant"), row.tenant)) col = "tenant";
        else if (!same_str(json_object_get(l.obj, "repo"), row.repo)) col = "repo";
        if (rc == 0 && col)
            rc = fail_at(r, where, row.seq, "edited", err, "the row's %s column does not match its line (event "
                         "seq %lld): the row was edited", col, l.seq);
        mg_audit_line_release(&l);
    }
    if (got < 0) rc = -1;
    for (int k = 0; rc == 0 && k < v.nanch; k++)
        rc = check_anchor(&v, k, k == 0 && has_anchor ? "the anchor row (audit_anchor)" : "the shipped anchor", where,
                          r, err);
    if (rc == 0 && !has_anchor && v.started) {
        fail_at(r, where, 0, "truncated", err, "the anchor row (audit_anchor) is gone while the chain holds %lld "
                "event(s): every append writes it, so it was deleted, and a cut at the end cannot be seen", r->events);
        rc = mg_err_set(err, MG_E_AUDIT_TRUNCATED, "%s: %s", where, r->what);
    }
    if (rc == 0 && has_anchor) {
        r->anchored = true;
        r->anchor_seq = local.seq;
    }
    if (rc == 0 && shipped) r->shipped_checked = true;
    if (rc == 0 && !v.started) r->complete = true;
    mg__audit_pg_rows_close(rows);
    if (rc != 0) r->ok = false;
    return rc;
}

/* ---- 6. verify -------------------------------------------------------------------------- */

int mg_audit_verify(const struct mg_config *c, struct mg_audit_report *r, struct mg_err *err)
{
    return mg_audit_verify_anchored(c, NULL, r, err);
}

int mg_audit_verify_anchored(const struct mg_config *c, const struct mg_audit_anchor *shipped,
                             struct mg_audit_report *r, struct mg_err *err)
{
    memset(r, 0, sizeof(*r));
    mg_sodium_ready();
    r->ok = true;
    if (mg_pg_configured(c)) return verify_pg(c, shipped, r, err);
    int lk = mg__audit_shared_lock(c, err);
    if (lk == -2) {
        r->complete = true;
        if (shipped && shipped->seq > 0) {
            char path[PATH_MAX + 32];
            mg_audit_path(c, 0, path, sizeof(path));
            struct vstate v = {.anch = {shipped}, .nanch = 1};
            if (check_anchor(&v, 0, "the shipped anchor", path, r, err) != 0) return -1;
        }
        return 0;
    }
    if (lk < 0) return -1;
    char dir[PATH_MAX + 8], path[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    int *rot;
    size_t nrot;
    if (mg__audit_rotated(dir, &rot, &nrot) != 0) {
        close(lk);
        return mg__audit_io_err(err, "list", dir);
    }
    struct vstate v = {0};
    int rc = 0;
    char apath[PATH_MAX + 32];
    mg_audit_anchor_path(c, apath, sizeof(apath));
    struct mg_audit_anchor local;
    int ar = mg__audit_anchor_read(apath, &local);
    if (ar < 0 && errno) rc = mg__audit_io_err(err, "read", apath);
    else if (ar < 0) fprintf(stderr, "warning: %s is not an anchor: the end of the log cannot be checked\n", apath);
    if (ar == 1) v.anch[v.nanch++] = &local;
    if (shipped) v.anch[v.nanch++] = shipped;
    /* A gap in the numbers alone is no loss: a writer killed while rotating
     * (renaming .k to .k+1 from the oldest down) leaves one, and the next
     * rotation closes it. A rotated file removed shows as its events
     * missing: the seq of the next file's first line does not follow. */
    for (size_t i = 0; rc == 0 && i < nrot; i++) {
        mg_audit_path(c, rot[i], path, sizeof(path));
        rc = verify_file(path, false, &v, r, err);
    }
    mg_audit_path(c, 0, path, sizeof(path));
    if (rc == 0 && access(path, F_OK) == 0) rc = verify_file(path, true, &v, r, err);
    for (int k = 0; rc == 0 && k < v.nanch; k++)
        rc = check_anchor(&v, k, k == 0 && ar == 1 ? "the anchor (audit.anchor)" : "the shipped anchor", path, r, err);
    /* A torn last line after everything the anchor vouches for is a write
     * that kill -9 or a crash cut (the kernel may stop a write(2) at a page
     * boundary): never acknowledged, so a warning. Cutting an acknowledged
     * line leaves the log shorter than the anchor, which check_anchor
     * refuses above. With no anchor yet (a crash in the first write) a cut at
     * the end cannot be seen at all, as the summary says. */
    if (rc == 0 && v.torn_line) {
        r->torn_tail = true;
        fprintf(stderr, "warning: %s line %lld: the last line is cut off (%zd bytes, no newline): a write "
                "interrupted by a crash, never acknowledged; the next writer closes it and records it\n", path,
                v.torn_line, v.torn_len);
    }
    if (rc == 0 && ar == 1) {
        r->anchored = true;
        r->anchor_seq = local.seq;
    }
    if (rc == 0 && shipped) r->shipped_checked = true;
    free(rot);
    close(lk);
    if (rc != 0) {
        r->ok = false;
        return -1;
    }
    if (!v.started) r->complete = true;
    return 0;
}
