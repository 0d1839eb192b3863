/* audit_verify.c — the audit chain verified (audit.h: mg_audit_verify,
 * mg_audit_verify_anchored): every event parsed and its hash checked on its
 * own (audit_line.c), then against the chain so far (seq and prev), then
 * the chain's end against its anchors: audit.anchor (keyed: its MAC, the
 * chain it names, the files it names), the system journal's newest copy, a
 * copy given. The retained files are read in order under the shared lock, a
 * torn line told from an edit; the PostgreSQL table row by row in one
 * snapshot (audit_pg.c), its columns held against its line. Each thing found
 * is a finding with a sentence on what it means and what to do.
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
#include <sodium.h>
#include <stdarg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security/common.h"
#include "store/pg.h"

/* ---- 1. reporting a problem ------------------------------------------------------------- */

/* What each problem means and what to do: the explanation --verify prints. */
static const struct {
    const char *problem, *explain;
} explanations[] = {
    {"edited", "A line's hash does not match its bytes, or its fields were changed: someone edited the log. The "
               "events from there on cannot be trusted; compare with a backup or a shipped anchor."},
    {"invalid", "A line is not a JSON event: it was edited or cut in the middle. A crash leaves such a line only at "
                "the very end, and the next writer records it."},
    {"removed", "Events are missing: the seq numbers jump, or the first retained event does not follow from the "
                "ones before it. Lines, or a whole rotated file, were deleted."},
    {"reordered", "Events are out of order: lines or rows were moved."},
    {"replaced", "An event does not chain from the one before it: it was replaced, or the chain was rewritten from "
                 "there on."},
    {"torn", "A rotated file ends in a cut line: a file is rotated only after its last line was written whole, so "
             "it was cut afterwards."},
    {"truncated", "The log ends before an event its anchor vouches for: events were cut from its end (or the log "
                  "removed). Only an anchor kept where the attacker cannot write tells how much; find out who "
                  "cut it."},
    {"rewritten", "The event at the anchor's seq is not the one the anchor vouches for: the end of the log was "
                  "replaced with another chain."},
    {"anchor_missing", "The log holds events but its anchor (audit.anchor) is gone. memgate writes the anchor with "
                       "every event, so it was removed (or the log copied without it), and a cut at the end cannot "
                       "be ruled out. Check the log against a shipped copy (the journal, --anchor)."},
    {"anchor_invalid", "The anchor does not verify with the audit key: it was edited or forged (an unkeyed or "
                       "another data directory's anchor put in its place), or the key was replaced. Whoever did it "
                       "could also have cut the log; check it against a shipped copy (the journal, --anchor), and "
                       "restore the key if it was lost."},
    {"files_removed", "Audit files the anchor names (by the seq of their first event) are gone: rotated files were "
                      "deleted. Their events are lost unless a backup holds them."},
    {"key_missing", "The audit key that vouches for the anchor cannot be read, so a forged anchor could not be "
                    "told from a real one. Restore the key (audit_key; by default ~/.config/memgate/audit.key) from "
                    "a backup; memgate never keeps it in the data directory."},
    {"torn_recovered", "A write was cut off by a crash; the event was never acknowledged, and the next writer "
                       "closed the line and recorded it. Nothing to do."},
    {"torn_tail", "The last line is cut off: a write interrupted by a crash, never acknowledged. The next writer "
                  "closes it and records it. Nothing to do."},
    {"unsynced_lost", "Events that were never synced to disk were lost when the machine restarted (a power cut); "
                      "audit_fsync says which events are synced. Nothing to do unless the machine did not restart."},
    {"anchor_unkeyed", "The anchor was written by an older memgate, without the audit key: it vouches for the end of "
                       "the log only against a cut, not against someone who can also rewrite it. The next event "
                       "replaces it with a keyed one."},
    {"anchor_torn", "One of the anchor's two slots does not verify and the machine has restarted since the other "
                    "was written: a power cut tore the update of one slot; the other vouches for the log."},
    {"journal_unverified", "An entry in the system journal claims to be this chain's anchor but its MAC does not "
                           "verify with the audit key: someone logged a forged anchor; it was not used."},
};

static const char *explain(const char *problem)
{
    for (size_t i = 0; i < sizeof(explanations) / sizeof(explanations[0]); i++)
        if (strcmp(explanations[i].problem, problem) == 0) return explanations[i].explain;
    return "";
}

__attribute__((format(printf, 6, 0))) static void vfinding(struct mg_audit_report *r, bool warning, const char *path,
                                                           long long line, const char *problem, const char *fmt,
                                                           va_list ap)
{
    if (r->nfindings >= MG_AUDIT_FINDINGS_MAX) return;
    struct mg_audit_finding *f = &r->findings[r->nfindings++];
    f->warning = warning;
    f->problem = problem;
    snprintf(f->where, sizeof(f->where), "%s", path ? path : "");
    f->line = line;
    vsnprintf(f->what, sizeof(f->what), fmt, ap);
    f->explain = explain(problem);
}

static void warn_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void warn_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(r, true, path, line, problem, fmt, ap);
    va_end(ap);
}

/* An error: the first one is the report's problem and err's message (code:
 * audit_invalid; the caller sets audit_truncated where it applies). */
static int fail_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                   struct mg_err *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail_at(struct mg_audit_report *r, const char *path, long long line, const char *problem,
                   struct mg_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(r, false, path, line, problem, fmt, ap);
    va_end(ap);
    if (!r->ok) return -1; /* the first error stays the report's */
    r->ok = false;
    snprintf(r->file, sizeof(r->file), "%s", path);
    r->line = line;
    r->problem = problem;
    snprintf(r->what, sizeof(r->what), "%s", r->findings[r->nfindings - 1].what);
    if (line) return mg_err_set(err, MG_E_AUDIT_INVALID, "%s %s %lld: %s", path, r->pg ? "seq" : "line", line, r->what);
    return mg_err_set(err, MG_E_AUDIT_INVALID, "%s: %s", path, r->what);
}

/* fail_at for the problems of the chain's end: code audit_truncated. */
static int fail_end(struct mg_audit_report *r, const char *path, const char *problem, struct mg_err *err,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_end(struct mg_audit_report *r, const char *path, const char *problem, struct mg_err *err,
                    const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    bool first = r->ok;
    fail_at(r, path, 0, problem, err, "%s", what);
    if (first) err->code = MG_E_AUDIT_TRUNCATED;
    return -1;
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
    const struct mg_audit_anchor *anch[3];
    const char *anch_name[3];
    int nanch;
    int anch_seen[3]; /* 0 not reached, 1 same hash, 2 another hash */
    bool started;
    long long seq;
    char hash[65];
    char chain[17]; /* the chain id the last event names ("" none) */
    /* the files read, each by its first event's seq */
    long long firsts[MG_AUDIT_FILES_MAX + 8];
    int nfirsts;
    bool file_started;
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
        static const char *const alarms[] = {"truncated", "rewritten", "anchor_missing", "anchor_invalid",
                                             "files_removed"};
        const char *st = json_string_value(json_object_get(l->obj, "status"));
        for (size_t i = 0; rc == 0 && i < sizeof(alarms) / sizeof(alarms[0]); i++) {
            if (!has_flag(l->obj, alarms[i])) continue;
            rc = fail_at(r, path, lineno, alarms[i], err, "a writer found the log or its anchor wrong, and recorded "
                         "it: %s", st ? st : "(no status)");
            if (i < 3) err->code = MG_E_AUDIT_TRUNCATED;
        }
        if (rc == 0 && has_flag(l->obj, "unsynced_lost")) {
            r->unsynced_lost++;
            warn_at(r, path, lineno, "unsynced_lost", "events that were never synced to disk were lost when the "
                    "machine restarted (%s)", st ? st : "no status");
        }
    }
    for (int k = 0; rc == 0 && k < v->nanch; k++)
        if (v->anch[k]->seq == l->seq) v->anch_seen[k] = strcmp(v->anch[k]->hash, l->hash) == 0 ? 1 : 2;
    if (rc == 0) {
        v->seq = l->seq;
        memcpy(v->hash, l->hash, 65);
        memcpy(v->chain, l->chain, 17);
        if (!v->file_started && v->nfirsts < (int)(sizeof(v->firsts) / sizeof(v->firsts[0])))
            v->firsts[v->nfirsts++] = l->seq;
        v->file_started = true;
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
    v->file_started = false;
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
            warn_at(r, path, v->pending_line, "torn_recovered", "a torn line (a write cut off by a crash, never "
                    "acknowledged); the writer closed it and recorded it at line %lld", lineno);
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

/* The chain verified: does its end agree with anchor k? */
static int check_anchor(const struct vstate *v, int k, const char *path, struct mg_audit_report *r,
                        struct mg_err *err)
{
    const struct mg_audit_anchor *an = v->anch[k];
    const char *name = v->anch_name[k];
    long long end = v->started ? v->seq : 0;
    if (an->seq > end) {
        char boot[40];
        mg__audit_boot_id(boot);
        if (end >= an->synced && an->boot[0] && boot[0] && strcmp(an->boot, boot) != 0) {
            warn_at(r, path, 0, "unsynced_lost", "the log ends at seq %lld and %s says seq %lld: the events after seq "
                    "%lld were not synced to disk and the machine has restarted since, so they may have been lost in "
                    "a power cut", end, name, an->seq, an->synced);
            return 0;
        }
        return fail_end(r, path, "truncated", err, "the log ends at seq %lld but %s says seq %lld was written: %lld "
                        "event(s) at the end were removed", end, name, an->seq, an->seq - end);
    }
    if (v->anch_seen[k] == 2)
        return fail_end(r, path, "rewritten", err, "the event at seq %lld does not have the hash %s gives it: the "
                        "log was rewritten from there on", an->seq, name);
    return 0;
}

/* audit.anchor, read with the key: is it there when the log holds events,
 * does it verify, is it this chain's? *trusted: the chain's end may be
 * checked against it. */
static int check_anchor_file(const struct mg_config *c, const unsigned char *key, struct mg__audit_anchor_file *af,
                             struct vstate *v, bool *trusted, struct mg_audit_report *r, struct mg_err *err)
{
    *trusted = false;
    char apath[PATH_MAX + 32];
    mg_audit_anchor_path(c, apath, sizeof(apath));
    const struct mg_audit_anchor *an = &af->an;
    bool keyed_log = v->chain[0] != 0;
    if (af->state == 0) {
        if (r->events > 0)
            return fail_end(r, apath, "anchor_missing", err, "the log holds %lld event(s), up to seq %lld, but its "
                            "anchor is gone: a cut at its end cannot be ruled out", r->events, v->seq);
        return 0;
    }
    if (af->state == 1 && !keyed_log) { /* an older memgate's, on its own log */
        warn_at(r, apath, 0, "anchor_unkeyed", "the anchor (seq %lld) was written by an older memgate, without the "
                "audit key", an->seq);
        *trusted = true;
        return 0;
    }
    if (!key) return 0; /* key_missing said so */
    if (af->state != 2 || !af->valid)
        return fail_at(r, apath, 0, "anchor_invalid", err, "%s", af->state == 1
                       ? "the anchor has no MAC, though the log's events were written with a keyed one: an unkeyed "
                         "anchor was put in its place"
                       : "neither slot of the anchor verifies with the audit key: it was edited or forged, or the "
                         "key was replaced");
    if (keyed_log && strcmp(an->chain, v->chain) != 0)
        return fail_at(r, apath, 0, "anchor_invalid", err, "the anchor is chain %s's, the log's events name chain "
                       "%s: it was copied here from another data directory", an->chain, v->chain);
    if (af->bad) {
        char boot[40];
        mg__audit_boot_id(boot);
        if (an->boot[0] && boot[0] && strcmp(an->boot, boot) != 0)
            warn_at(r, apath, 0, "anchor_torn", "one slot of the anchor does not verify; the other (seq %lld) does",
                    an->seq);
        else
            return fail_at(r, apath, 0, "anchor_invalid", err, "one slot of the anchor does not verify with the audit "
                           "key though the machine has not restarted since the other was written: it was edited");
    }
    r->keyed = true;
    snprintf(r->chain, sizeof(r->chain), "%s", an->chain);
    *trusted = true;
    return 0;
}

/* The files a keyed anchor names (each by its first event's seq): are they
 * all there? */
static int check_files(const struct mg_config *c, const struct mg_audit_anchor *an, const struct vstate *v,
                       struct mg_audit_report *r, struct mg_err *err)
{
    char dir[PATH_MAX + 8], what[200];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    if (!mg__audit_files_missing(an, v->firsts, v->nfirsts, what, sizeof(what))) return 0;
    return fail_at(r, dir, 0, "files_removed", err, "audit files the anchor names are gone: the events of %s are in "
                   "no file", what);
}

/* The newest anchor the system journal holds for the chain: checked with
 * the key and added to the anchors to check the end against. */
static void journal_anchor(const unsigned char *key, const char *chain, struct mg_audit_anchor *out, struct vstate *v,
                           struct mg_audit_report *r)
{
    if (!chain[0]) {
        snprintf(r->journal_note, sizeof(r->journal_note), "the chain has no id yet (no keyed anchor)");
        return;
    }
    char *text = malloc(2 * MG_AUDIT_ANCHOR_REC_MAX);
    if (!text) return;
    int got = mg__audit_journal_newest(chain, text, 2 * MG_AUDIT_ANCHOR_REC_MAX, r->journal_note,
                                       sizeof(r->journal_note));
    if (got == 0) snprintf(r->journal_note, sizeof(r->journal_note), "the journal holds no anchor of chain %s", chain);
    if (got == 1 && mg_audit_anchor_parse(text, strlen(text), out) == 0) {
        if (!key || !mg__audit_anchor_mac_ok(out, key) || strcmp(out->chain, chain) != 0) {
            warn_at(r, "journal", 0, "journal_unverified", "the journal's newest entry for chain %s (seq %lld) does "
                    "not verify with the audit key", chain, out->seq);
        } else {
            v->anch[v->nanch] = out;
            v->anch_name[v->nanch++] = "the journal's anchor";
            r->journal_checked = true;
            r->journal_seq = out->seq;
        }
    }
    free(text);
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
    struct vstate *vp = calloc(1, sizeof(*vp));
    if (!vp) {
        mg__audit_pg_rows_close(rows);
        return mg_err_oom(err);
    }
    struct vstate v = *vp;
    free(vp);
    if (has_anchor) v.anch[v.nanch] = &local, v.anch_name[v.nanch++] = "the anchor row (audit_anchor)";
    if (shipped) v.anch[v.nanch] = shipped, v.anch_name[v.nanch++] = "the shipped anchor";
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
    for (int k = 0; rc == 0 && k < v.nanch; k++) rc = check_anchor(&v, k, where, r, err);
    if (rc == 0 && !has_anchor && v.started)
        rc = fail_end(r, where, "anchor_missing", err, "the anchor row (audit_anchor) is gone while the chain holds "
                      "%lld event(s): every append writes it, so it was deleted, and a cut at the end cannot be seen",
                      r->events);
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
    char path[PATH_MAX + 32];
    mg_audit_path(c, 0, path, sizeof(path));
    int lk = mg__audit_shared_lock(c, err);
    if (lk == -2) {
        r->complete = true;
        if (shipped && shipped->seq > 0) {
            struct vstate v = {.anch = {shipped}, .anch_name = {"the shipped anchor"}, .nanch = 1};
            if (check_anchor(&v, 0, path, r, err) != 0) return -1;
        }
        return 0;
    }
    if (lk < 0) return -1;
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    int *rot = NULL;
    size_t nrot = 0;
    struct vstate *v = calloc(1, sizeof(*v));
    struct mg__audit_anchor_file *af = malloc(sizeof(*af));
    struct mg_audit_anchor *journal = malloc(sizeof(*journal));
    int rc = 0;
    if (!v || !af || !journal) {
        rc = mg_err_oom(err);
        goto out;
    }
    if (mg__audit_rotated(dir, &rot, &nrot) != 0) {
        rc = mg__audit_io_err(err, "list", dir);
        goto out;
    }
    /* the key: never created here */
    unsigned char keybuf[MG__AUDIT_KEY_BYTES];
    const unsigned char *key = keybuf;
    char kpath[PATH_MAX];
    struct mg_err kerr = {0};
    int kr = mg__audit_key_load(c, false, keybuf, kpath, sizeof(kpath), &kerr);
    if (kr != 0) key = NULL;
    char apath[PATH_MAX + 32];
    mg_audit_anchor_path(c, apath, sizeof(apath));
    if (mg__audit_anchor_load(apath, key, af) != 0) {
        rc = mg__audit_io_err(err, "read", apath);
        goto out;
    }
    /* the anchors whose hash at their seq the chain is checked against as it
     * is read: audit.anchor (trusted or not: check_anchor_file says after),
     * the journal's copy (when the anchor names the chain), a shipped one */
    int local_k = -1;
    if (af->state == 1 || (af->state == 2 && af->valid)) {
        local_k = v->nanch;
        v->anch[v->nanch] = &af->an;
        v->anch_name[v->nanch++] = "the anchor (audit.anchor)";
    }
    bool journal_asked = false;
    if (af->state == 2 && af->valid) {
        journal_anchor(key, af->an.chain, journal, v, r);
        journal_asked = true;
    }
    if (shipped) v->anch[v->nanch] = shipped, v->anch_name[v->nanch++] = "the shipped anchor";
    /* A gap in the numbers alone is no loss: a writer killed while rotating
     * (renaming .k to .k+1 from the oldest down) leaves one, and the next
     * rotation closes it. A rotated file removed shows as its events
     * missing: the seq of the next file's first line does not follow, or the
     * anchor names it. */
    char fpath[PATH_MAX + 32];
    for (size_t i = 0; rc == 0 && i < nrot; i++) {
        mg_audit_path(c, rot[i], fpath, sizeof(fpath));
        rc = verify_file(fpath, false, v, r, err);
    }
    if (rc == 0 && access(path, F_OK) == 0) rc = verify_file(path, true, v, r, err);
    bool chain_ok = rc == 0;
    rc = 0;
    /* the key and the anchor are checked whatever the chain said */
    if (kr != 0 && (af->state >= 2 || v->chain[0])) /* a keyed anchor, or events written with one */
        rc = fail_at(r, kpath, 0, "key_missing", err, "%s", kr == 1 ? "the audit key is missing" : kerr.msg);
    bool trusted;
    int arc = check_anchor_file(c, key, af, v, &trusted, r, err);
    if (rc == 0) rc = arc;
    /* no anchor to name the chain: the journal's copy by the id its events
     * name (then only how far the chain must reach is checked) */
    if (!journal_asked && v->chain[0] && chain_ok) journal_anchor(key, v->chain, journal, v, r);
    else if (!journal_asked && !r->journal_note[0])
        snprintf(r->journal_note, sizeof(r->journal_note), "the chain has no keyed anchor");
    /* the end against every anchor that may be trusted; the anchors say nothing
     * of a chain already found broken */
    for (int k = 0; chain_ok && k < v->nanch; k++) {
        if (k == local_k && !trusted) continue;
        int e = check_anchor(v, k, path, r, err);
        if (rc == 0) rc = e;
    }
    if (r->keyed && check_files(c, &af->an, v, r, err) != 0) rc = -1;
    /* A torn last line after everything the anchor vouches for is a write
     * that kill -9 or a crash cut (the kernel may stop a write(2) at a page
     * boundary): never acknowledged, so a warning. Cutting an acknowledged
     * line leaves the log shorter than the anchor, which check_anchor
     * refuses above. */
    if (chain_ok && v->torn_line) {
        r->torn_tail = true;
        warn_at(r, path, v->torn_line, "torn_tail", "the last line is cut off (%zd bytes, no newline): a write "
                "interrupted by a crash, never acknowledged; the next writer closes it and records it", v->torn_len);
    }
    if (af->state != 0 && (af->state == 1 || af->valid)) {
        r->anchored = true;
        r->anchor_seq = af->an.seq;
    }
    if (!chain_ok || rc != 0) rc = -1;
    if (rc == 0 && shipped) r->shipped_checked = true;
    if (!v->started) r->complete = true;
    sodium_memzero(keybuf, sizeof(keybuf));
out:
    free(rot);
    free(v);
    free(af);
    free(journal);
    close(lk);
    if (rc != 0) r->ok = false;
    return rc;
}
