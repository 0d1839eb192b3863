/* sqlite.c — see sqlite.h. */
#include "store/sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* SQLite's own account of an I/O error or a corrupt page (which statement,
 * which line of SQLite) reaches the error a request returns only as a code;
 * stderr keeps the rest. Set before SQLite's first use (SQLite 3.40 takes the
 * log callback only then): mg_sqlite_open is memgate's only way in. */
static void log_error(void *ud, int code, const char *msg)
{
    (void)ud;
    int c = code & 0xff;
    if (c == SQLITE_IOERR || c == SQLITE_CORRUPT || c == SQLITE_NOTADB || c == SQLITE_FULL)
        fprintf(stderr, "memgate: sqlite: %s (sqlite %d)\n", msg, code);
}

/* Also set once before first use: no memory statistics. SQLite keeps them
 * under one process-wide mutex taken by every allocation of every
 * connection (memgate reads none of them), which the search threads of a
 * server under load waited on. */
static void set_log(void)
{
    sqlite3_config(SQLITE_CONFIG_LOG, log_error, NULL);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

int mg_sqlite_fail(sqlite3 *db, const char *path, const char *what, struct mg_err *err)
{
    int code = db ? sqlite3_extended_errcode(db) : 0;
    const char *msg = db ? sqlite3_errmsg(db) : "out of memory";
    if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
        return mg_err_set(err, MG_E_LOCKED, "%s: '%s' is busy (%s); try again when the other memgate process is "
                          "done", what, path, msg);
    if ((code & 0xff) == SQLITE_FULL)
        return mg_err_set(err, MG_E_IO, "%s: the disk is full writing '%s'; free space and retry", what, path);
    return mg_err_set(err, MG_E_DB, "%s: %s (sqlite %d) in '%s'", what, msg, code, path);
}

static int user_version(sqlite3 *db, int *v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) return -1;
    *v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

static int too_new(const char *path, const struct mg_sqlite_spec *s, int v, struct mg_err *err)
{
    return mg_err_set(err, MG_E_SCHEMA, "%s '%s' has schema version %d but this memgate knows up to %d; upgrade "
                      "memgate", s->what, path, v, s->version);
}

static int migrate(sqlite3 *db, const char *path, const struct mg_sqlite_spec *s, struct mg_err *err)
{
    int v;
    if (user_version(db, &v) != 0) return mg_sqlite_fail(db, path, "read the schema version", err);
    if (v > s->version) return too_new(path, s, v, err);
    if (v == s->version) return 0;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return mg_sqlite_fail(db, path, "migrate", err);
    /* re-read under the write lock: another process may have migrated meanwhile */
    if (user_version(db, &v) != 0) {
        mg_sqlite_fail(db, path, "read the schema version", err);
        goto fail;
    }
    if (v > s->version) {
        too_new(path, s, v, err);
        goto fail;
    }
    for (; v < s->version; v++)
        if (sqlite3_exec(db, s->migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
            mg_sqlite_fail(db, path, "migrate the schema", err);
            goto fail;
        }
    char sql[64];
    snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", s->version);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        mg_sqlite_fail(db, path, "migrate the schema", err);
        goto fail;
    }
    return 0;
fail:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int mg_sqlite_open(const char *path, const struct mg_sqlite_spec *s, sqlite3 **out, struct mg_err *err)
{
    *out = NULL;
    pthread_once(&log_once, set_log);
    if (s->create && !s->readonly) {
        /* made here only when missing (0600; SQLite would make it 0644): closing a
         * descriptor of a file drops every POSIX lock this process holds on it, and
         * other handles of it here hold theirs (another process's last connection
         * would take the file as unused: checkpoint and delete the WAL we write) */
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0)
            close(fd);
        else if (errno != EEXIST)
            return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot create %s '%s': %s",
                              s->what, path, strerror(errno));
    } else if (access(path, F_OK) != 0) {
        return mg_err_set(err, s->missing ? s->missing : MG_E_PATH_NOT_FOUND, "%s '%s' does not exist", s->what,
                          path);
    }
    sqlite3 *db = NULL;
    int flags = (s->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        mg_sqlite_fail(db, path, "open", err);
        goto fail;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, s->busy_ms > 0 ? s->busy_ms : 10000);
    if (s->pragmas && sqlite3_exec(db, s->pragmas, NULL, NULL, NULL) != SQLITE_OK) {
        mg_sqlite_fail(db, path, "set up", err);
        goto fail;
    }
    if (s->setup && s->setup(db) != 0) {
        mg_err_set(err, MG_E_DB, "cannot register memgate's SQL functions and tokenizer on %s '%s'", s->what, path);
        goto fail;
    }
    if (!s->readonly && migrate(db, path, s, err) != 0) goto fail;
    *out = db;
    return 0;
fail:
    sqlite3_close_v2(db);
    return -1;
}
