/* audit_int.h — what the two homes of the audit chain share (audit.h): the
 * files of audit.c and the PostgreSQL table of audit_pg.c (storage =
 * postgres://...). One line format, one hash, one account of a chain shorter
 * than its anchor, one verification: the backends differ only in where the
 * bytes go and how the chain's end is found. Not for other modules.
 */
#ifndef MG_AUDIT_INT_H
#define MG_AUDIT_INT_H

#include "security/audit.h"

/* What the PostgreSQL table keeps beside the line, for filtering: the
 * values as written in the line. */
struct mg__audit_cols {
    int64_t time_ms; /* the line's "time" */
    bool has_tenant, has_repo;
    char tenant[MG_AUDIT_FIELD_MAX + 1], repo[MG_AUDIT_FIELD_MAX + 1];
};

/* The whole line for ev as event seq chained from prev:
 * `{"seq":..,...,"prev":"..","hash":".."}\n` (malloc'd; *n counts the
 * newline), its hash in h, and (cols not NULL) the columns above. NULL when
 * out of memory. */
char *mg__audit_line(const struct mg_audit_event *ev, long long seq, const char *prev, size_t *n, char h[65],
                     struct mg__audit_cols *cols);

/* Is s 64 lower-case hex digits? */
bool mg__audit_hex64(const char *s);

/* The chain ends at (seq, hash) and its anchor says an: is that a loss? NULL
 * when not; else the flag of the audit_recovered event to record
 * ("truncated", "rewritten", or "unsynced_lost" when restart: the machine
 * restarted and only events after the anchor's synced seq are missing), with
 * its status sentence in status. */
const char *mg__audit_lost(const struct mg_audit_anchor *an, long long seq, const char *hash, bool restart,
                           char *status, size_t cap);

/* ---- PostgreSQL (audit_pg.c) ---- */

struct mg__audit_pg;
/* The chain in c's database; the connection is made when first needed, so
 * PostgreSQL being down now is no error (the appends say so); a bad URL, a
 * superuser role or a newer schema is. */
int mg__audit_pg_open(const struct mg_config *c, struct mg__audit_pg **out, struct mg_err *err);
void mg__audit_pg_close(struct mg__audit_pg *p);
/* Append ev in one transaction under the chain's lock (audit_recovered
 * events first when the chain's end disagrees with its anchor row): 0 once
 * committed, with the new end in *an (synced = seq) and its time in when;
 * -1 with err (storage_unavailable when PostgreSQL cannot be reached). */
int mg__audit_pg_emit(struct mg__audit_pg *p, const struct mg_audit_event *ev, struct mg_audit_anchor *an,
                      char when[32], struct mg_err *err);
/* mg_audit_query_lines on the table. */
int mg__audit_pg_query(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                       struct mg_err *err);

/* Reading the whole chain for verify, in seq order (the column), in one
 * snapshot. A row: its columns (text valid until the next call). */
struct mg__audit_rows;
struct mg__audit_row {
    long long seq;
    int64_t time_ms;
    const char *hash, *line, *op;
    size_t len;
    const char *tenant, *repo; /* NULL for null */
};
/* *has_anchor and *an: the anchor row (synced = seq, boot ""). */
int mg__audit_pg_rows_open(const struct mg_config *c, struct mg__audit_rows **out, struct mg_audit_anchor *an,
                           bool *has_anchor, struct mg_err *err);
/* 1 with the next row (valid until the next call), 0 at the end, -1 with err. */
int mg__audit_pg_rows_next(struct mg__audit_rows *r, struct mg__audit_row *row, struct mg_err *err);
/* The seq column of a row after the current one whose line is event want
 * (its "seq"); 0 when none. */
long long mg__audit_pg_rows_find(struct mg__audit_rows *r, long long want);
void mg__audit_pg_rows_close(struct mg__audit_rows *r);

#endif
