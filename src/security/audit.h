/* audit.h — the audit log: an append-only, hash-chained JSON Lines file.
 *
 * <data dir>/audit/audit.log (directory 0700, files 0600), one event per line:
 *
 *   {"seq":7,"time":"2025-01-31T12:00:00.123Z","tenant":"acme","instance":"..",
 *    "session":"..","repo":"api-3fa2c1","op":"search","query":"parse_config",
 *    "results":12,"redactions":0,"flags":[],"parts":{..},"code":"..","status":"..",
 *    "prev":"<64 hex>","hash":"<64 hex>"}
 *
 * (then "repeated", "injection" and "request_id" when set: the HTTP request's
 * X-Request-Id.) Keys come in that order; parts, code and status only when set (parts: a
 * composed request's operations and their result counts); tenant, instance,
 * session, repo and query are null when unknown. seq counts from 1 over the
 * whole history, rotations included. The hash chain:
 *
 *   hash = hex(BLAKE2b-256(unhex(prev) || E))
 *
 * where E is the line's bytes up to, not including, `,"hash":` (so verify
 * hashes exactly what was written, with no re-serialisation), and prev is the
 * previous event's hash; the very first event's prev is MG_AUDIT_GENESIS
 * (64 zeros). See docs/security.md, "Audit log".
 *
 * Writers: any number of threads and processes (a server and CLI commands)
 * may append at once. Each append takes flock(LOCK_EX) on audit/audit.lock,
 * re-reads the last line if audit.log changed since this handle last wrote
 * (inode or size), rotates if needed, writes the whole line with one
 * write(2), fdatasyncs (audit_fsync = writes: durable events only, the
 * default; event: every event), and unlocks. Every event is written before
 * the call returns, so all survive the process being killed; the sync is
 * what survives a power cut. A torn last line
 * (a crash mid-write) is closed with a newline and followed by an event with
 * op "audit_recovered" and flag "torn_line", which --verify reports.
 *
 * Rotation: when a line would take audit.log past audit_max_bytes, it becomes
 * audit.log.1 (.1 -> .2, ..., keeping audit_keep files) and the new file's
 * first event chains from the last hash of the old one.
 *
 * The anchor: audit/audit.anchor (0600) holds the chain's end outside the
 * log, one JSON line {"seq","hash","synced","boot","time"}: the last event's
 * seq and hash, the last seq known synced to disk, and the boot id of the
 * machine that wrote it, padded to 256 bytes. Each append updates it after
 * the line, under the same lock: in place with one pwrite(2) (fdatasynced
 * after the line's own sync when the policy syncs the line); the file is
 * created or replaced whole atomically (temporary file, fsync, rename, fsync
 * of the directory) when new, replaced by someone else, or after a rotation.
 * So it is never ahead of the log after kill -9, and never ahead of its
 * synced part after a power cut. Seq counts across rotations,
 * so one anchor covers the chain over all the files. --verify fails with
 * audit_truncated when the chain ends before the anchor's seq or the event
 * at that seq has another hash; a writer that finds the log shorter than
 * the anchor records audit_recovered with flag "truncated" (or
 * "unsynced_lost" when the machine restarted and only unsynced events are
 * missing). Each update can also be shipped: syslog(3) (audit_anchor_syslog)
 * and a POST of the same JSON to audit_anchor_url (a thread sends the newest
 * one; closing the handle waits for it, at most 5 s).
 *
 * PostgreSQL (storage = postgres://...): every daemon and command sharing
 * the database appends to one chain there instead, table audit_events, one
 * row per event holding the same line (same bytes, same hash; no newline),
 * and the anchor is the row of audit_anchor, moved in the same transaction
 * as each append (audit_pg.c says how appends are serialised). Nothing
 * rotates; no torn line can happen. Every function here works on it the
 * same way (emit, query, verify; the report names the table and the row's
 * seq).
 *
 * The files: audit_line.h is the chain's vocabulary (an event, a line, the
 * anchor, a filter) and audit_line.c its text; audit.c opens the chain and
 * appends through one of two backends, audit_file.c (the files) or
 * audit_pg.c (PostgreSQL), reached through audit_int.h; audit_query.c reads
 * the chain, audit_verify.c verifies it. README.md says more.
 */
#ifndef MG_AUDIT_H
#define MG_AUDIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "security/audit_line.h"
#include "util/config.h"
#include "util/err.h"

struct mg_audit;

/* Create <data dir>/audit and open the log for appending; repairs a torn last
 * line (see above). */
int mg_audit_open(const struct mg_config *c, struct mg_audit **out, struct mg_err *err);
/* Append one event; returns when it is written (and synced, with
 * audit_fsync = event). Thread-safe. */
int mg_audit_emit(struct mg_audit *a, const struct mg_audit_event *ev, struct mg_err *err);
void mg_audit_close(struct mg_audit *a);

/* Is the chain in PostgreSQL (storage = postgres://...), not in files? */
bool mg_audit_in_pg(const struct mg_config *c);

/* <data dir>/audit/audit.log (n = 0) or audit.log.<n>. */
void mg_audit_path(const struct mg_config *c, int n, char *out, size_t cap);
/* <data dir>/audit/audit.anchor. */
void mg_audit_anchor_path(const struct mg_config *c, char *out, size_t cap);

/* Matching events of the retained files, oldest first (newest last), as a
 * JSON array of event objects (*out_array, new reference). Lines that do not
 * parse are skipped (--verify reports them). */
int mg_audit_query(const struct mg_config *c, const struct mg_audit_filter *f, json_t **out_array,
                   struct mg_err *err);
/* The same as the raw lines (without newline), oldest first; free with
 * mg_audit_lines_free. */
int mg_audit_query_lines(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                         struct mg_err *err);
void mg_audit_lines_free(char **lines, size_t n);

#define MG_AUDIT_FINDINGS_MAX 16
/* One thing --verify found: an error (the log cannot be vouched for) or a
 * warning (it can, and something is worth knowing). */
struct mg_audit_finding {
    bool warning;
    const char *problem;    /* errors: "edited", "removed", "reordered", "replaced", "torn", "invalid" (the chain);
                               "truncated", "rewritten", "anchor_missing", "anchor_invalid", "files_removed",
                               "key_missing" (its end and its files); warnings: "torn_recovered", "torn_tail",
                               "unsynced_lost", "anchor_unkeyed", "anchor_torn", "journal_unverified" */
    char where[512];        /* the file (or table), or "" */
    long long line;         /* its line (the row's seq in PostgreSQL); 0 none */
    char what[512];         /* what was found */
    const char *explain;    /* what it means and what to do */
};

struct mg_audit_report {
    bool ok;
    bool pg;                /* the chain is PostgreSQL's (storage = postgres://): file is "audit_events", the
                               table, and line the seq of its row */
    long long events;       /* valid events read */
    int files;              /* files read (0 with pg) */
    long long first_seq, last_seq;
    char first_time[32], last_time[32];
    bool complete;          /* the chain starts at the genesis (nothing rotated away) */
    bool anchored;          /* the chain's end was checked against audit.anchor */
    bool keyed;             /* ... a keyed anchor, its MAC checked with the audit key */
    long long anchor_seq;   /* the anchor's seq (when anchored) */
    char chain[17];         /* the chain's id ("" none) */
    bool shipped_checked;   /* ... and against the shipped anchor given */
    bool journal_checked;   /* ... and against the newest anchor the system journal holds for the chain */
    long long journal_seq;  /* that anchor's seq */
    char journal_note[256]; /* why the journal was not checked ("" when it was) */
    int unsynced_lost;      /* recorded losses of unsynced events in a machine restart */
    char first_prev[65];    /* the first retained event's prev */
    int torn_recovered;     /* torn lines the writer closed and recorded */
    bool torn_tail;         /* audit.log ends in a torn line after the anchored events (a warning) */
    /* the first problem, when !ok */
    char file[PATH_MAX];
    long long line;         /* 1-based line number in file */
    const char *problem;    /* as a finding's */
    char what[512];
    /* everything found, errors and warnings, in the order found */
    int nfindings;
    struct mg_audit_finding findings[MG_AUDIT_FINDINGS_MAX];
};
/* Verify every retained file: 0 and r->ok when intact; -1 with audit_invalid
 * (r says where and what) or an I/O error. Takes a shared lock, so it sees no
 * half-written line. */
int mg_audit_verify(const struct mg_config *c, struct mg_audit_report *r, struct mg_err *err);
/* The same, and the chain's end checked against audit.anchor (keyed: its
 * MAC with the audit key, the chain it names, the files it names), the
 * system journal's newest anchor for the chain and, when not NULL, an anchor
 * shipped elsewhere: -1 with audit_truncated when the chain ends before an
 * anchor's seq ("truncated"), its event at that seq has another hash
 * ("rewritten") or audit.anchor is gone while the log holds events
 * ("anchor_missing"); with audit_invalid when the anchor does not verify
 * ("anchor_invalid", "key_missing") or files it names are gone
 * ("files_removed"). */
int mg_audit_verify_anchored(const struct mg_config *c, const struct mg_audit_anchor *shipped,
                             struct mg_audit_report *r, struct mg_err *err);

#endif

