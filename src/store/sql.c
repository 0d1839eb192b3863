/* sql.c — see sql.h.
 *
 * Sections:
 *   1. connections
 *   2. placeholders for PostgreSQL
 *   3. statements (SQLite, then PostgreSQL)
 *   4. exec, transactions, runf
 */
#include "store/sql.h"

#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite.h"
#include "util/metrics.h"

/* ---- 1. connections ------------------------------------------------------------------------------ */

struct mg_sql {
    enum mg_sql_dialect dialect;
    sqlite3 *db;          /* SQLite */
    PGconn *pg;           /* PostgreSQL */
    bool broken;          /* PostgreSQL: lost; the pool drops it */
    char sqlstate[6];     /* PostgreSQL: the last error's */
    char path[512];       /* how errors name it */
    char what[64];
};

struct mg_sql *mg_sql_sqlite(sqlite3 *db, const char *path, const char *what)
{
    struct mg_sql *c = calloc(1, sizeof(*c));
    if (!c) {
        sqlite3_close_v2(db);
        return NULL;
    }
    c->dialect = MG_SQL_SQLITE;
    c->db = db;
    snprintf(c->path, sizeof(c->path), "%s", path ? path : "");
    snprintf(c->what, sizeof(c->what), "%s", what ? what : "database");
    return c;
}

struct mg_sql *mg_sql_pg_wrap(void *pgconn, const char *what)
{
    struct mg_sql *c = calloc(1, sizeof(*c));
    if (!c) {
        PQfinish(pgconn);
        return NULL;
    }
    c->dialect = MG_SQL_PG;
    c->pg = pgconn;
    snprintf(c->what, sizeof(c->what), "%s", what ? what : "the PostgreSQL database");
    return c;
}

void mg_sql_close(struct mg_sql **pc)
{
    struct mg_sql *c = *pc;
    if (!c) return;
    if (c->db) sqlite3_close_v2(c->db);
    if (c->pg) PQfinish(c->pg);
    free(c);
    *pc = NULL;
}

enum mg_sql_dialect mg_sql_dialect(const struct mg_sql *c) { return c->dialect; }
sqlite3 *mg_sql_sqlite_db(struct mg_sql *c) { return c->db; }
void *mg_sql_pg_conn(struct mg_sql *c) { return c->pg; }
bool mg_sql_broken(const struct mg_sql *c) { return c->broken; }
const char *mg_sql_sqlstate(const struct mg_sql *c) { return c->sqlstate; }

static int lite_fail(struct mg_sql *c, const char *what, struct mg_err *err)
{
    char w[128];
    snprintf(w, sizeof(w), "%s: %s", c->what, what);
    return mg_sqlite_fail(c->db, c->path, w, err);
}

/* The server's message, one line, without libpq's "ERROR:  " prefix. */
static void one_line(const char *m, char *out, size_t cap)
{
    if (!m) m = "";
    if (strncmp(m, "ERROR:  ", 8) == 0) m += 8;
    if (strncmp(m, "FATAL:  ", 8) == 0) m += 8;
    size_t n = strcspn(m, "\n");
    while (n > 0 && (m[n - 1] == ' ' || m[n - 1] == '\r')) n--;
    if (n >= cap) n = cap - 1;
    memcpy(out, m, n);
    out[n] = 0;
}

static int pg_fail(struct mg_sql *c, void *pgresult, const char *what, struct mg_err *err)
{
    PGresult *res = pgresult;
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(c->sqlstate, sizeof(c->sqlstate), "%s", state ? state : "");
    char msg[300];
    one_line(res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg), msg, sizeof(msg));
    if (!msg[0]) one_line(PQerrorMessage(c->pg), msg, sizeof(msg));
    bool lost = PQstatus(c->pg) != CONNECTION_OK || !state || strncmp(state, "08", 2) == 0 ||
                strcmp(state, "57P01") == 0 || strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0 ||
                strcmp(state, "53300") == 0;
    if (lost) {
        c->broken = true;
        return mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "%s: %s: the connection to PostgreSQL failed (%s); retry "
                          "shortly", c->what, what, msg[0] ? msg : "no answer");
    }
    if (strcmp(state, "23505") == 0)
        return mg_err_set(err, MG_E_STORAGE_CONFLICT, "%s: %s: %s; retry", c->what, what, msg);
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
        return mg_err_set(err, MG_E_STORAGE_RETRY, "%s: %s: %s; retry", c->what, what, msg);
    if (strcmp(state, "57014") == 0)
        return mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "%s: %s: PostgreSQL cancelled the statement (%s); retry "
                          "shortly", c->what, what, msg);
    return mg_err_set(err, MG_E_DB, "%s: %s: %s (sqlstate %s)", c->what, what, msg, state);
}

int mg_sql_pg_fail(struct mg_sql *c, void *pgresult, const char *what, struct mg_err *err)
{
    int rc = pg_fail(c, pgresult, what, err);
    mg_metrics_storage_error(err->code); /* memgate_storage_errors_total{code} */
    return rc;
}

/* ---- 2. placeholders for PostgreSQL ------------------------------------------------------------- */

char *mg_sql_pg_placeholders(const char *sql, int *nparams)
{
    size_t n = strlen(sql);
    char *out = malloc(n * 4 + 1); /* "?" -> "$999" at most */
    if (!out) return NULL;
    size_t k = 0;
    int seq = 0, max = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = sql[i];
        if (ch == '\'' || ch == '"') { /* a literal or quoted name: '' and "" escape themselves */
            out[k++] = sql[i];
            for (i++; i < n; i++) {
                out[k++] = sql[i];
                if (sql[i] == ch) {
                    if (i + 1 < n && sql[i + 1] == ch) out[k++] = sql[++i];
                    else break;
                }
            }
            continue;
        }
        if (ch == '-' && sql[i + 1] == '-') { /* a comment to the end of the line */
            while (i < n && sql[i] != '\n') out[k++] = sql[i++];
            if (i < n) out[k++] = sql[i];
            continue;
        }
        if (ch == '/' && sql[i + 1] == '*') {
            const char *e = strstr(sql + i + 2, "*/");
            size_t end = e ? (size_t)(e - sql) + 2 : n;
            while (i < end) out[k++] = sql[i++];
            i--;
            continue;
        }
        if (ch != '?') {
            out[k++] = ch;
            continue;
        }
        int num;
        if (sql[i + 1] >= '0' && sql[i + 1] <= '9') {
            num = 0;
            while (sql[i + 1] >= '0' && sql[i + 1] <= '9') {
                num = num * 10 + (sql[++i] - '0');
                if (num > 999) {
                    free(out);
                    return NULL;
                }
            }
            if (num == 0) {
                free(out);
                return NULL;
            }
        } else {
            num = ++seq;
            if (num > 999) {
                free(out);
                return NULL;
            }
        }
        if (num > max) max = num;
        k += (size_t)sprintf(out + k, "$%d", num);
    }
    out[k] = 0;
    *nparams = max;
    return out;
}

/* ---- 3. statements ---------------------------------------------------------------------------------- */

#define PG_MAX_PARAMS 999

struct mg_sql_st {
    struct mg_sql *c;
    sqlite3_stmt *lite;
    /* PostgreSQL */
    char *sql;              /* with $N */
    int nparams;
    char **vals;            /* text of each parameter (NULL: SQL NULL) */
    int *lens, *formats;    /* binary for blobs */
    bool bind_failed;
    PGresult *res;
    int row;                /* the current row: -1 before the first */
    bool ran;
    void *blob;             /* the decoded bytea of the last mg_sql_blob */
};

int mg_sql_prepare(struct mg_sql *c, const char *sql, struct mg_sql_st **out, struct mg_err *err)
{
    *out = NULL;
    struct mg_sql_st *st = calloc(1, sizeof(*st));
    if (!st) return mg_err_oom(err);
    st->c = c;
    if (c->dialect == MG_SQL_SQLITE) {
        if (sqlite3_prepare_v2(c->db, sql, -1, &st->lite, NULL) != SQLITE_OK) {
            free(st);
            return lite_fail(c, "prepare", err);
        }
        *out = st;
        return 0;
    }
    if (!(st->sql = mg_sql_pg_placeholders(sql, &st->nparams))) {
        free(st);
        return mg_err_set(err, MG_E_DB, "%s: a statement's placeholders are malformed (or out of memory)", c->what);
    }
    if (st->nparams > 0) {
        st->vals = calloc((size_t)st->nparams, sizeof(*st->vals));
        st->lens = calloc((size_t)st->nparams, sizeof(*st->lens));
        st->formats = calloc((size_t)st->nparams, sizeof(*st->formats));
        if (!st->vals || !st->lens || !st->formats) {
            mg_sql_finalize(&st);
            return mg_err_oom(err);
        }
    }
    st->row = -1;
    *out = st;
    return 0;
}

static void pg_set(struct mg_sql_st *st, int i, char *v, int len, int format)
{
    if (i < 1 || i > st->nparams) {
        free(v);
        st->bind_failed = true;
        return;
    }
    free(st->vals[i - 1]);
    st->vals[i - 1] = v;
    st->lens[i - 1] = len;
    st->formats[i - 1] = format;
}

void mg_sql_bind_textn(struct mg_sql_st *st, int i, const char *s, size_t n)
{
    if (st->lite) {
        if (s) sqlite3_bind_text(st->lite, i, s, (int)n, SQLITE_TRANSIENT);
        else sqlite3_bind_null(st->lite, i);
        return;
    }
    if (!s) return pg_set(st, i, NULL, 0, 0);
    char *v = malloc(n + 1);
    if (!v) {
        st->bind_failed = true;
        return;
    }
    memcpy(v, s, n);
    v[n] = 0;
    pg_set(st, i, v, 0, 0);
}

void mg_sql_bind_text(struct mg_sql_st *st, int i, const char *s)
{
    mg_sql_bind_textn(st, i, s, s ? strlen(s) : 0);
}

void mg_sql_bind_int(struct mg_sql_st *st, int i, int64_t v)
{
    if (st->lite) {
        sqlite3_bind_int64(st->lite, i, v);
        return;
    }
    char b[24];
    snprintf(b, sizeof(b), "%lld", (long long)v);
    mg_sql_bind_text(st, i, b);
}

void mg_sql_bind_double(struct mg_sql_st *st, int i, double v)
{
    if (st->lite) {
        sqlite3_bind_double(st->lite, i, v);
        return;
    }
    char b[40];
    snprintf(b, sizeof(b), "%.17g", v);
    mg_sql_bind_text(st, i, b);
}

void mg_sql_bind_null(struct mg_sql_st *st, int i)
{
    if (st->lite) sqlite3_bind_null(st->lite, i);
    else pg_set(st, i, NULL, 0, 0);
}

void mg_sql_bind_blob(struct mg_sql_st *st, int i, const void *p, size_t n)
{
    if (st->lite) {
        sqlite3_bind_blob(st->lite, i, n ? p : "", (int)n, SQLITE_TRANSIENT);
        return;
    }
    char *v = malloc(n ? n : 1);
    if (!v) {
        st->bind_failed = true;
        return;
    }
    if (n) memcpy(v, p, n);
    pg_set(st, i, v, (int)n, 1);
}

char *mg_sql_expanded(struct mg_sql_st *st)
{
    char *e = st->lite ? sqlite3_expanded_sql(st->lite) : NULL, *r = e ? strdup(e) : NULL;
    sqlite3_free(e);
    return r;
}

bool mg_sql_data_version(struct mg_sql *c, uint32_t *v)
{
    return c->db && sqlite3_file_control(c->db, "main", SQLITE_FCNTL_DATA_VERSION, v) == SQLITE_OK;
}

int mg_sql_step(struct mg_sql_st *st, struct mg_err *err)
{
    struct mg_sql *c = st->c;
    if (st->lite) {
        int rc = sqlite3_step(st->lite);
        if (rc == SQLITE_ROW) return 1;
        if (rc == SQLITE_DONE) return 0;
        return lite_fail(c, "run a statement", err);
    }
    if (!st->ran) {
        if (st->bind_failed)
            return mg_err_set(err, MG_E_DB, "%s: a parameter could not be bound (out of memory, or past the "
                              "statement's %d)", c->what, st->nparams);
        if (c->broken)
            return mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "%s: the connection to PostgreSQL was lost; retry "
                              "shortly", c->what);
        st->res = PQexecParams(c->pg, st->sql, st->nparams, NULL, (const char *const *)st->vals, st->lens,
                               st->formats, 0);
        st->ran = true;
        ExecStatusType s = st->res ? PQresultStatus(st->res) : PGRES_FATAL_ERROR;
        if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
            mg_sql_pg_fail(c, st->res, "run a statement", err);
            PQclear(st->res);
            st->res = NULL;
            return -1;
        }
        c->sqlstate[0] = 0;
        st->row = -1;
    }
    if (!st->res) return 0;
    if (st->row + 1 < PQntuples(st->res)) {
        st->row++;
        return 1;
    }
    st->row = PQntuples(st->res);
    return 0;
}

const char *mg_sql_text(struct mg_sql_st *st, int col)
{
    if (st->lite) {
        const char *s = (const char *)sqlite3_column_text(st->lite, col);
        return s ? s : "";
    }
    if (!st->res || st->row < 0 || st->row >= PQntuples(st->res) || col >= PQnfields(st->res)) return "";
    return PQgetvalue(st->res, st->row, col);
}

int64_t mg_sql_int(struct mg_sql_st *st, int col)
{
    if (st->lite) return sqlite3_column_int64(st->lite, col);
    const char *s = mg_sql_text(st, col);
    if (s[0] == 't' && !s[1]) return 1; /* a boolean column */
    return strtoll(s, NULL, 10);
}

double mg_sql_double(struct mg_sql_st *st, int col)
{
    if (st->lite) return sqlite3_column_double(st->lite, col);
    return strtod(mg_sql_text(st, col), NULL);
}

bool mg_sql_is_null(struct mg_sql_st *st, int col)
{
    if (st->lite) return sqlite3_column_type(st->lite, col) == SQLITE_NULL;
    if (!st->res || st->row < 0 || st->row >= PQntuples(st->res) || col >= PQnfields(st->res)) return true;
    return PQgetisnull(st->res, st->row, col);
}

const void *mg_sql_blob(struct mg_sql_st *st, int col, size_t *n)
{
    *n = 0;
    if (st->lite) {
        const void *p = sqlite3_column_blob(st->lite, col);
        *n = (size_t)sqlite3_column_bytes(st->lite, col);
        return p;
    }
    if (mg_sql_is_null(st, col)) return NULL;
    if (st->blob) PQfreemem(st->blob);
    st->blob = PQunescapeBytea((const unsigned char *)mg_sql_text(st, col), n);
    return st->blob;
}

int64_t mg_sql_changes(struct mg_sql_st *st)
{
    if (st->lite) return sqlite3_changes(st->c->db);
    return st->res ? strtoll(PQcmdTuples(st->res), NULL, 10) : 0;
}

void mg_sql_reset(struct mg_sql_st *st)
{
    if (st->lite) {
        sqlite3_reset(st->lite);
        return;
    }
    if (st->res) PQclear(st->res);
    st->res = NULL;
    st->ran = false;
    st->row = -1;
}

void mg_sql_finalize(struct mg_sql_st **pst)
{
    struct mg_sql_st *st = *pst;
    if (!st) return;
    if (st->lite) sqlite3_finalize(st->lite);
    if (st->res) PQclear(st->res);
    if (st->blob) PQfreemem(st->blob);
    for (int i = 0; st->vals && i < st->nparams; i++) free(st->vals[i]);
    free(st->vals);
    free(st->lens);
    free(st->formats);
    free(st->sql);
    free(st);
    *pst = NULL;
}

/* ---- 4. exec, transactions, runf ------------------------------------------------------------------ */

int mg_sql_exec(struct mg_sql *c, const char *sql, struct mg_err *err)
{
    if (c->dialect == MG_SQL_SQLITE)
        return sqlite3_exec(c->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : lite_fail(c, "run statements", err);
    if (c->broken)
        return mg_err_set(err, MG_E_STORAGE_UNAVAILABLE, "%s: the connection to PostgreSQL was lost; retry shortly",
                          c->what);
    PGresult *res = PQexec(c->pg, sql);
    ExecStatusType s = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) rc = mg_sql_pg_fail(c, res, "run statements", err);
    PQclear(res);
    return rc;
}

int mg_sql_begin(struct mg_sql *c, bool write, struct mg_err *err)
{
    if (c->dialect == MG_SQL_SQLITE) return mg_sql_exec(c, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
    return mg_sql_exec(c, "BEGIN", err);
}

int mg_sql_commit(struct mg_sql *c, struct mg_err *err)
{
    if (mg_sql_exec(c, "COMMIT", err) == 0) return 0;
    mg_sql_rollback(c);
    return -1;
}

void mg_sql_rollback(struct mg_sql *c)
{
    if (c->dialect == MG_SQL_SQLITE) {
        if (!sqlite3_get_autocommit(c->db)) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return;
    }
    if (c->broken) return;
    if (PQtransactionStatus(c->pg) == PQTRANS_IDLE) return;
    PGresult *res = PQexec(c->pg, "ROLLBACK");
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        struct mg_err e = {0};
        mg_sql_pg_fail(c, res, "roll back", &e);
    }
    PQclear(res);
}

int mg_sql_runf(struct mg_sql *c, int64_t *changes, struct mg_err *err, const char *sql, const char *fmt, ...)
{
    struct mg_sql_st *st;
    if (changes) *changes = 0;
    if (mg_sql_prepare(c, sql, &st, err) != 0) return -1;
    va_list ap;
    va_start(ap, fmt);
    for (int i = 0; fmt[i]; i++) {
        switch (fmt[i]) {
        case 's': mg_sql_bind_text(st, i + 1, va_arg(ap, const char *)); break;
        case 'i': mg_sql_bind_int(st, i + 1, va_arg(ap, int64_t)); break;
        case 'd': mg_sql_bind_double(st, i + 1, va_arg(ap, double)); break;
        default: break;
        }
    }
    va_end(ap);
    int rc;
    while ((rc = mg_sql_step(st, err)) == 1) {
    }
    if (rc == 0 && changes) *changes = mg_sql_changes(st);
    mg_sql_finalize(&st);
    return rc;
}
