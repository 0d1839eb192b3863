/* repostate.c — see repostate.h. */
#include "store/repostate.h"

#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

bool mg_repo_busy(const char *dbpath)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof(p), "%s.lock", dbpath);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false; /* no run ever took it */
    /* Held for two system calls only: a run starting in that instant would
     * see index_busy, which is what it would see against a real run. */
    bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* releases the shared lock when taken */
    return busy;
}

/* A whole non-negative number, or -1. */
static int64_t num(const char *v)
{
    if (!v || !*v) return -1;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return *end || errno || n < 0 ? -1 : n;
}

struct watch_rows {
    char state[12];
    int64_t count, pending, pid, updated_at;
};

static void take(struct mg_repo_state *st, struct watch_rows *w, const char *k, const char *v)
{
    if (!v) return;
    if (strcmp(k, "vectors") == 0) st->vectors = num(v);
    else if (strcmp(k, "embed_sig") == 0 && strcmp(v, "none") == 0 && st->vectors < 0) st->vectors = 0;
    else if (strcmp(k, "index.full_at") == 0) st->full_at = num(v);
    else if (strcmp(k, "index.full_ms") == 0) st->full_ms = num(v);
    else if (strcmp(k, "index.incr_at") == 0) st->incr_at = num(v);
    else if (strcmp(k, "index.incr_ms") == 0) st->incr_ms = num(v);
    else if (strcmp(k, "index.redactions") == 0) st->redactions = num(v) < 0 ? 0 : num(v);
    else if (strcmp(k, "index.last_error") == 0) snprintf(st->last_error, sizeof(st->last_error), "%s", v);
    else if (strcmp(k, "index.last_error_at") == 0) st->last_error_at = num(v);
    else if (strcmp(k, "vec_warning") == 0) snprintf(st->vectors_warning, sizeof(st->vectors_warning), "%s", v);
    else if (strcmp(k, "watch.state") == 0) snprintf(w->state, sizeof(w->state), "%s", v);
    else if (strcmp(k, "watch.count") == 0) w->count = num(v);
    else if (strcmp(k, "watch.pending") == 0) w->pending = num(v);
    else if (strcmp(k, "watch.pid") == 0) w->pid = num(v);
    else if (strcmp(k, "watch.updated_at") == 0) w->updated_at = num(v);
    else mg_settings_take(&st->settings, k, v);
}

/* Is the process that wrote the watcher's rows gone? Unknown (no pid) counts
 * as gone. EPERM: it exists under another user. */
static bool owner_gone(int64_t pid)
{
    if (pid <= 0 || pid > INT_MAX) return true;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void settle_watch(struct mg_repo_state *st, const struct watch_rows *w, int64_t now)
{
    bool known = !strcmp(w->state, "watching") || !strcmp(w->state, "polling");
    bool stale = w->updated_at < 0 || now - w->updated_at > MG_WATCH_STALE_S;
    if (known && stale && owner_gone(w->pid)) {
        /* a watcher that died without cleaning up: nothing watches, and
         * what it had queued is not counted by anyone */
        snprintf(st->watch_state, sizeof(st->watch_state), "off");
        st->watch_count = 0;
        st->pending = w->pending > 0 ? -1 : 0;
        return;
    }
    snprintf(st->watch_state, sizeof(st->watch_state), "%s", known ? w->state : "off");
    st->watch_count = known && w->count > 0 ? w->count : 0;
    st->pending = w->pending > 0 ? w->pending : 0;
}

void mg_repo_state_unknown(struct mg_repo_state *st)
{
    memset(st, 0, sizeof(*st));
    st->vectors = st->full_at = st->full_ms = st->incr_at = st->incr_ms = st->last_error_at = st->pending = -1;
    snprintf(st->watch_state, sizeof(st->watch_state), "off");
    mg_settings_defaults(&st->settings);
}

int mg_repo_state_read(struct mg_db *d, const char *dbpath, int64_t now, struct mg_repo_state *st,
                       struct mg_err *err)
{
    memset(st, 0, sizeof(*st));
    st->vectors = st->full_at = st->full_ms = st->incr_at = st->incr_ms = st->last_error_at = -1;
    mg_settings_defaults(&st->settings);
    struct watch_rows w = {.count = -1, .pending = -1, .pid = -1, .updated_at = -1};
    int64_t indexed_at = -1;
    sqlite3_stmt *q;
    /* the meta table is a few dozen short rows: read them all at once */
    if (mg_db_prepare(d, "SELECT key, value FROM meta", &q, err) != 0) return -1;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(q, 0), *v = (const char *)sqlite3_column_text(q, 1);
        if (!k) continue;
        if (strcmp(k, "indexed_at") == 0) indexed_at = num(v);
        take(st, &w, k, v);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return mg_db_error(d, "read meta", err);
    /* indexes made before index.full_at was recorded: indexed_at is the same moment */
    if (st->full_at < 0 && indexed_at > 0) st->full_at = indexed_at;
    if (!st->last_error[0]) st->last_error_at = -1;
    settle_watch(st, &w, now);
    st->busy = mg_repo_busy(dbpath);
    return 0;
}
