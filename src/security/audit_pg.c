/* audit_pg.c — the audit chain in PostgreSQL (storage = postgres://...):
 * one chain for every daemon and command that shares the database.
 *
 * The tables (pgschema.c, step 0005_audit): audit_events(seq, time_ms,
 * tenant, op, repo, line, hash), one row per event, `line` the event's JSON
 * line exactly as audit_line.c builds it for the file (audit.h: the same members,
 * the same hash over the same bytes, without the newline), the other columns
 * copies of what it says, for filtering; audit_anchor, one row (id 1): the
 * chain's end (seq, hash, time_ms). Triggers refuse UPDATE, DELETE and
 * TRUNCATE of the events and DELETE of the anchor: changing them takes
 * disabling the triggers first, and the chain and the anchor tell.
 *
 * An append is one transaction: take the chain's advisory lock (held to the
 * end of the transaction, so appends of all processes follow one another);
 * read the last row and the anchor row; when they disagree (rows deleted at
 * the end, the end rewritten, a last row that does not verify) write an
 * audit_recovered event first, as the file's writer does; build the line
 * from (seq + 1, the last hash); insert it and update the anchor row in one
 * statement; commit. The call returns after the commit: the event and the
 * anchor are in the database together, or neither is. The threads of a
 * process that append at once share one transaction (at most BATCH_MAX
 * events: one lock, one commit, one WAL flush for all). audit_fsync says
 * which commits wait for the WAL to reach the disk, as it says which lines
 * the file's writer syncs: `event`, every one; `writes` (the default), a
 * transaction holding a durable event (a write, a refusal: the event's
 * `durable`), and the others not (synchronous_commit = off for the
 * transaction; PostgreSQL flushes them within a fraction of a second, and
 * the next durable commit flushes them with it, since the WAL is one
 * sequence); `off`, none. A crash of the PostgreSQL server (not of memgate)
 * may lose the last events that did not wait, together with their anchor,
 * never a durable one.
 *
 * audit.c reaches the appends through the backend mg__audit_pg
 * (audit_int.h); audit_query.c and audit_verify.c read the table through
 * the functions of sections 4 and 5.
 *
 * Sections:
 *   1. the chain's state in this process
 *   2. one transaction: the chain's end, the batch written
 *   3. appends of many threads batched, the backend
 *   4. reading: a query
 *   5. reading: every row, for verify
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/audit_int.h"
#include "security/common.h"
#include "store/pg.h"
#include "store/sql.h"
#include "util/buf.h"

/* ---- 1. the chain's state in this process ---------------------------------------------- */

/* pg_advisory_xact_lock key of the chain (pg.c's migrations use ...201) */
#define CHAIN_LOCK "7160231953117205"
#define PAGE_ROWS 2000 /* rows verify reads per statement */

#define BATCH_MAX 64 /* events one transaction appends at most */

/* An append waiting for its transaction (on its caller's stack). */
struct req {
    const struct mg_audit_event *ev;
    struct req *next;
    bool done;
    int rc;
    struct mg_err err;
    long long seq; /* written as */
    char hash[65];
    int64_t time_ms;
};

struct chain {
    struct mg_config cfg;
    int sync; /* which commits wait for the WAL: 0 none (off), 1 those with a durable event (writes), 2 all (event) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct req *head, *tail; /* appends waiting */
    bool writing;            /* a thread is writing a batch */
    bool known; /* seq and hash: the chain's end as this process last wrote it (its line need not be parsed again) */
    long long seq;
    char hash[65];
    mg__audit_publish_fn publish; /* each new anchor, to ship (NULL: none) */
    void *ud;
};

static void pg_close(void *self);

/* The chain in c's database; the connection is made when first needed, so
 * PostgreSQL being down now is no error (the appends say so); a bad URL, a
 * superuser role or a newer schema is. */
static int pg_open(const struct mg_config *c, mg__audit_publish_fn publish, void *ud, void **self,
                   struct mg_err *err)
{
    *self = NULL;
    struct chain *p = calloc(1, sizeof(*p));
    if (!p) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the audit chain");
    p->cfg = *c;
    p->publish = publish;
    p->ud = ud;
    p->sync = strcmp(c->audit_fsync, "off") == 0 ? 0 : strcmp(c->audit_fsync, "event") == 0 ? 2 : 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    /* the pool and the schema now, for what no retry mends (a superuser
     * role, a newer schema); PostgreSQL down is each append's to report */
    struct mg_pg *pool;
    if (mg_pg_pool(c, &pool, err) != 0 && (!err->code || strcmp(err->code, MG_E_STORAGE_UNAVAILABLE) != 0)) {
        pg_close(p);
        return -1;
    }
    mg_err_clear(err);
    *self = p;
    return 0;
}

static void pg_close(void *self)
{
    struct chain *p = self;
    if (!p) return;
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* ---- 2. one transaction ---------------------------------------------------------------- */

/* The chain's end under the lock: (seq, hash) of its last row, and the
 * audit_recovered events to write first when the last row does not verify
 * (bad: its status) or disagrees with the anchor row (lost_flag, lost). */
static int read_end(struct chain *p, struct mg_sql *c, long long *seq, char hash[65], char bad[256],
                    const char **lost_flag, char lost[256], struct mg_err *err)
{
    struct mg_sql_st *st;
    if (mg_sql_prepare(c,
                       "SELECT e.seq, e.hash, e.line, a.seq, a.hash FROM (SELECT 1) AS one "
                       "LEFT JOIN (SELECT seq, hash, line FROM audit_events ORDER BY seq DESC LIMIT 1) AS e ON true "
                       "LEFT JOIN audit_anchor AS a ON a.id = 1",
                       &st, err) != 0)
        return -1;
    if (mg_sql_step(st, err) != 1) {
        if (!err->code) mg_err_set(err, MG_E_DB, "the end of the audit chain could not be read");
        mg_sql_finalize(&st);
        return -1;
    }
    *seq = 0;
    memcpy(hash, MG_AUDIT_GENESIS, 65);
    bad[0] = 0;
    *lost_flag = NULL;
    if (!mg_sql_is_null(st, 0)) {
        *seq = (long long)mg_sql_int(st, 0);
        const char *h = mg_sql_text(st, 1);
        if (mg__audit_hex64(h)) memcpy(hash, h, 65);
        pthread_mutex_lock(&p->mu);
        bool mine = p->known && p->seq == *seq && strcmp(p->hash, h) == 0;
        pthread_mutex_unlock(&p->mu);
        if (!mine) { /* another process's: does it verify, so that the chain goes on from a sound event? */
            struct mg_audit_line l;
            char why[160];
            const char *line = mg_sql_text(st, 2);
            enum mg_audit_bad b = mg_audit_parse_line(line, strlen(line), &l, why, sizeof(why));
            bool ok = b == MG_AUDIT_OK && l.seq == *seq && strcmp(l.hash, h) == 0;
            if (b == MG_AUDIT_OK && !ok) snprintf(why, sizeof(why), "its seq or hash column does not match its line");
            if (!ok) snprintf(bad, 256, "the last row, seq %lld, does not verify (%s); chained on from it", *seq, why);
            if (b == MG_AUDIT_OK) mg_audit_line_release(&l);
        }
    }
    if (!mg_sql_is_null(st, 3)) {
        struct mg_audit_anchor a = {.seq = (long long)mg_sql_int(st, 3)};
        snprintf(a.hash, sizeof(a.hash), "%s", mg_sql_text(st, 4));
        a.synced = a.seq;
        *lost_flag = mg__audit_lost(&a, *seq, hash, false, lost, 256);
    }
    mg_sql_finalize(&st);
    return 0;
}

/* One transaction under the chain's lock: the events of reqs (n), after
 * any audit_recovered ones, in one INSERT that moves the anchor row to the
 * last; each req's seq, hash and time filled. */
static int write_batch(struct chain *p, struct mg_sql *c, struct req **reqs, size_t n, struct mg_err *err)
{
    bool sync = p->sync == 2;
    for (size_t i = 0; i < n && p->sync == 1 && !sync; i++) sync = reqs[i]->ev->durable;
    if (mg_sql_exec(c, sync ? "BEGIN; SELECT pg_advisory_xact_lock(" CHAIN_LOCK ")"
                            : "BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_advisory_xact_lock(" CHAIN_LOCK ")",
                    err) != 0)
        return -1;
    long long seq;
    char hash[65], bad[256], lost[256];
    const char *lost_flag, *bad_flag = "bad_tail";
    if (read_end(p, c, &seq, hash, bad, &lost_flag, lost, err) != 0) return -1;
    struct mg_audit_event rec[2];
    const struct mg_audit_event *evs[BATCH_MAX + 2];
    size_t m = 0;
    if (bad[0]) {
        rec[0] = (struct mg_audit_event){.op = "audit_recovered", .flags = &bad_flag, .nflags = 1, .status = bad,
                                         .durable = true};
        evs[m++] = &rec[0];
    }
    if (lost_flag) {
        rec[1] = (struct mg_audit_event){.op = "audit_recovered", .flags = &lost_flag, .nflags = 1, .status = lost,
                                         .durable = true};
        evs[m++] = &rec[1];
    }
    size_t first = m;
    for (size_t i = 0; i < n; i++) evs[m++] = reqs[i]->ev;
    /* the lines, chained one from the other, and the statement that inserts them all */
    struct {
        char *line;
        size_t len;
        char hash[65];
        struct mg__audit_cols cols;
    } row[BATCH_MAX + 2];
    struct mg_buf sql;
    mg_buf_init(&sql, 1 << 20);
    int full = mg_buf_adds(&sql, "WITH e AS (INSERT INTO audit_events(seq, time_ms, tenant, op, repo, line, hash) VALUES ");
    int rc = 0;
    size_t built = 0;
    for (size_t i = 0; i < m; i++, built++) {
        row[i].line = mg__audit_line(evs[i], seq + 1 + (long long)i, NULL, i ? row[i - 1].hash : hash, &row[i].len,
                                     row[i].hash, &row[i].cols);
        if (!row[i].line) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing an audit event");
            break;
        }
        full |= mg_buf_adds(&sql, i ? ", (?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, ?)");
    }
    full |= mg_buf_adds(&sql, " RETURNING seq, hash, time_ms) INSERT INTO audit_anchor(id, seq, hash, time_ms) "
                      "SELECT 1, seq, hash, time_ms FROM e ORDER BY seq DESC LIMIT 1 "
                      "ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
                      "time_ms = excluded.time_ms");
    struct mg_sql_st *st = NULL;
    if (rc == 0 && full) rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing an audit event");
    if (rc == 0) rc = mg_sql_prepare(c, sql.p, &st, err);
    for (size_t i = 0; rc == 0 && i < m; i++) {
        int b = (int)i * 7;
        mg_sql_bind_int(st, b + 1, seq + 1 + (long long)i);
        mg_sql_bind_int(st, b + 2, row[i].cols.time_ms);
        mg_sql_bind_text(st, b + 3, row[i].cols.has_tenant ? row[i].cols.tenant : NULL);
        mg_sql_bind_text(st, b + 4, evs[i]->op);
        mg_sql_bind_text(st, b + 5, row[i].cols.has_repo ? row[i].cols.repo : NULL);
        mg_sql_bind_textn(st, b + 6, row[i].line, row[i].len - 1); /* without the newline */
        mg_sql_bind_text(st, b + 7, row[i].hash);
    }
    if (rc == 0 && mg_sql_step(st, err) < 0) rc = -1;
    mg_sql_finalize(&st);
    mg_buf_release(&sql);
    if (rc == 0) rc = mg_sql_commit(c, err);
    for (size_t i = 0; i < built; i++) free(row[i].line);
    if (rc != 0) return -1;
    for (size_t i = first; i < m; i++) {
        struct req *q = reqs[i - first];
        q->seq = seq + 1 + (long long)i;
        memcpy(q->hash, row[i].hash, 65);
        q->time_ms = row[i].cols.time_ms;
    }
    pthread_mutex_lock(&p->mu);
    p->known = true;
    p->seq = seq + (long long)m;
    memcpy(p->hash, row[m - 1].hash, 65);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* ---- 3. appends of many threads batched, the backend ----------------------------------- */

/* Appends of several threads of the process at once go in one transaction:
 * the first to come writes what is waiting (at most BATCH_MAX) while the
 * others wait for it, and each returns once its own event is committed (or
 * with the error that kept the transaction from committing: then none of
 * the batch is written). Processes take turns on the advisory lock. */
static int pg_emit(void *self, const struct mg_audit_event *ev, struct mg_err *err)
{
    struct chain *p = self;
    struct req me = {.ev = ev};
    pthread_mutex_lock(&p->mu);
    if (p->tail) p->tail->next = &me;
    else p->head = &me;
    p->tail = &me;
    while (!me.done) {
        if (p->writing) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        p->writing = true;
        struct req *batch[BATCH_MAX];
        size_t n = 0;
        while (p->head && n < BATCH_MAX) {
            batch[n++] = p->head;
            p->head = p->head->next;
        }
        if (!p->head) p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        struct mg_err e = {0};
        struct mg_pg *pool;
        struct mg_sql *c;
        int rc = mg_pg_get(&p->cfg, NULL, &pool, &c, &e);
        if (rc == 0) {
            rc = write_batch(p, c, batch, n, &e);
            mg_pg_put(pool, &c); /* rolls back what failed */
        }
        pthread_mutex_lock(&p->mu);
        if (rc != 0) p->known = false;
        for (size_t i = 0; i < n; i++) {
            batch[i]->rc = rc;
            if (rc != 0) batch[i]->err = e;
            batch[i]->done = true;
        }
        p->writing = false;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    if (me.rc != 0) {
        if (err) *err = me.err;
        return -1;
    }
    if (p->publish) { /* the anchor row is the chain's end, shipped like the file's */
        struct mg_audit_anchor an = {.seq = me.seq, .synced = me.seq};
        memcpy(an.hash, me.hash, 65);
        char when[32], rec[512];
        mg_rfc3339_ms(me.time_ms, when);
        if (mg__audit_anchor_record(&an, false, when, NULL, rec, sizeof(rec)) > 0) p->publish(p->ud, rec, an.seq);
    }
    return 0;
}

const struct mg__audit_backend mg__audit_pg = {pg_open, pg_emit, pg_close};

/* ---- 4. reading: a query --------------------------------------------------------------- */

int mg__audit_pg_query(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                       struct mg_err *err)
{
    *lines = NULL;
    *n = 0;
    /* the columns narrow the search (their indexes); the parameters are
     * numbered in the order they appear, as PostgreSQL types each one */
    char sql[512];
    size_t k = (size_t)snprintf(sql, sizeof(sql), "SELECT line FROM audit_events WHERE seq > ? AND time_ms >= ?");
    if (f->tenant) k += (size_t)snprintf(sql + k, sizeof(sql) - k, " AND tenant = ?");
    if (f->op) k += (size_t)snprintf(sql + k, sizeof(sql) - k, " AND op = ?");
    k += (size_t)snprintf(sql + k, sizeof(sql) - k, " ORDER BY seq DESC");
    if (f->limit) snprintf(sql + k, sizeof(sql) - k, " LIMIT ?");
    struct mg_pg *pool;
    struct mg_sql *conn;
    if (mg_pg_get(c, NULL, &pool, &conn, err) != 0) return -1;
    struct mg_sql_st *st;
    if (mg_sql_prepare(conn, sql, &st, err) != 0) {
        mg_pg_put(pool, &conn);
        return -1;
    }
    int at = 1;
    mg_sql_bind_int(st, at++, f->after_seq);
    mg_sql_bind_int(st, at++, f->since_ms);
    if (f->tenant) mg_sql_bind_text(st, at++, f->tenant);
    if (f->op) mg_sql_bind_text(st, at++, f->op);
    if (f->limit) mg_sql_bind_int(st, at, (int64_t)f->limit);
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    int r, rc = 0;
    while ((r = mg_sql_step(st, err)) == 1) {
        const char *line = mg_sql_text(st, 0);
        /* the line is what counts (the columns only narrow the search): as
         * for the files, a line that does not parse is --verify's to report */
        json_t *o = json_loads(line, 0, NULL);
        bool m = o && json_is_object(o) && mg_audit_match(f, o);
        if (o) json_decref(o);
        if (!m) continue;
        char **nv = mg_grow(v, cnt, &cap, sizeof(char *));
        if (!nv) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit chain");
            break;
        }
        v = nv;
        if (!(v[cnt] = strdup(line))) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit chain");
            break;
        }
        cnt++;
    }
    if (r < 0) rc = -1;
    mg_sql_finalize(&st);
    mg_pg_put(pool, &conn);
    if (rc != 0) {
        for (size_t i = 0; i < cnt; i++) free(v[i]);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < cnt / 2; i++) { /* newest first from the database: oldest first here */
        char *t = v[i];
        v[i] = v[cnt - 1 - i];
        v[cnt - 1 - i] = t;
    }
    *lines = v;
    *n = cnt;
    return 0;
}

/* ---- 5. reading: every row, for verify ------------------------------------------------- */

struct mg__audit_rows {
    struct mg_pg *pool;
    struct mg_sql *c;
    struct mg_sql_st *page; /* the current page of rows */
    long long last;         /* the seq column of the row handed out last */
    int rows;               /* rows of the page handed out */
    bool done;
};

int mg__audit_pg_rows_open(const struct mg_config *c, struct mg__audit_rows **out, struct mg_audit_anchor *an,
                           bool *has_anchor, struct mg_err *err)
{
    *out = NULL;
    *has_anchor = false;
    memset(an, 0, sizeof(*an));
    struct mg__audit_rows *r = calloc(1, sizeof(*r));
    if (!r) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit chain");
    if (mg_pg_get(c, NULL, &r->pool, &r->c, err) != 0) {
        free(r);
        return -1;
    }
    /* one snapshot for the pages and the anchor: appends commit the row and
     * the anchor together, so they agree in it */
    struct mg_sql_st *st = NULL;
    int rc = mg_sql_exec(r->c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err);
    if (rc == 0) rc = mg_sql_prepare(r->c, "SELECT seq, hash FROM audit_anchor WHERE id = 1", &st, err);
    int got = rc == 0 ? mg_sql_step(st, err) : -1;
    if (got == 1) {
        *has_anchor = true;
        an->seq = an->synced = (long long)mg_sql_int(st, 0);
        snprintf(an->hash, sizeof(an->hash), "%s", mg_sql_text(st, 1));
    }
    mg_sql_finalize(&st);
    if (got < 0) {
        mg__audit_pg_rows_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

int mg__audit_pg_rows_next(struct mg__audit_rows *r, struct mg__audit_row *row, struct mg_err *err)
{
    for (;;) {
        if (r->done) return 0;
        if (!r->page) {
            if (mg_sql_prepare(r->c, "SELECT seq, hash, line, time_ms, tenant, op, repo FROM audit_events "
                                     "WHERE seq > ? ORDER BY seq LIMIT ?", &r->page, err) != 0)
                return -1;
            mg_sql_bind_int(r->page, 1, r->last);
            mg_sql_bind_int(r->page, 2, PAGE_ROWS);
            r->rows = 0;
        }
        int got = mg_sql_step(r->page, err);
        if (got < 0) return -1;
        if (got == 1) {
            r->rows++;
            row->seq = r->last = (long long)mg_sql_int(r->page, 0);
            row->hash = mg_sql_text(r->page, 1);
            row->line = mg_sql_text(r->page, 2);
            row->len = strlen(row->line);
            row->time_ms = mg_sql_int(r->page, 3);
            row->tenant = mg_sql_is_null(r->page, 4) ? NULL : mg_sql_text(r->page, 4);
            row->op = mg_sql_text(r->page, 5);
            row->repo = mg_sql_is_null(r->page, 6) ? NULL : mg_sql_text(r->page, 6);
            return 1;
        }
        /* the page is over: another one unless it was short */
        r->done = r->rows < PAGE_ROWS;
        mg_sql_finalize(&r->page);
    }
}

long long mg__audit_pg_rows_find(struct mg__audit_rows *r, long long want)
{
    char prefix[40];
    snprintf(prefix, sizeof(prefix), "{\"seq\":%lld,", want);
    struct mg_sql_st *st;
    struct mg_err err = {0};
    long long at = 0;
    if (mg_sql_prepare(r->c, "SELECT seq FROM audit_events WHERE seq > ? AND starts_with(line, ?) ORDER BY seq LIMIT 1",
                       &st, &err) != 0)
        return 0;
    mg_sql_bind_int(st, 1, r->last);
    mg_sql_bind_text(st, 2, prefix);
    if (mg_sql_step(st, &err) == 1) at = (long long)mg_sql_int(st, 0);
    mg_sql_finalize(&st);
    return at;
}

void mg__audit_pg_rows_close(struct mg__audit_rows *r)
{
    if (!r) return;
    mg_sql_finalize(&r->page);
    mg_pg_put(r->pool, &r->c); /* ends the read-only transaction */
    free(r);
}
