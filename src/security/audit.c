/* audit.c — see audit.h: the chain in the data directory's files, and what
 * both homes share above the line format (audit_line.c): opening the chain
 * where the config says (the files here, PostgreSQL in audit_pg.c), reading
 * it, verifying it, shipping its anchor. */
#include "security/audit.h"
#include "security/audit_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "security/common.h"
#include "store/pg.h"
#include "util/buf.h"
#include "util/httpc.h"

#define TAIL_WINDOW (64 * 1024)

struct ship; /* the anchor's HTTP hook (below) */

struct mg_audit {
    pthread_mutex_t mu;
    char dir[PATH_MAX], path[PATH_MAX + 16];
    int lockfd;
    int fd;      /* audit.log, O_APPEND; -1 until opened */
    dev_t dev;   /* audit.log as of this handle's last write */
    ino_t ino;
    off_t size;
    bool known;  /* seq and hash below are the log's tail */
    long long seq;
    char hash[65];
    size_t max_bytes;
    int keep;
    int sync;    /* 0 off, 1 durable events only (audit_fsync = writes), 2 every event */
    char anchor[PATH_MAX + 16], anchor_tmp[PATH_MAX + 32];
    int anchor_fd; /* audit.anchor, for updates in place; -1 until written */
    dev_t anchor_dev;
    ino_t anchor_ino;
    bool anchor_replace; /* replace the file whole at the next update (after a rotation) */
    long long synced; /* the last seq synced to disk (as far as known) */
    char boot[40];    /* this machine's boot id */
    bool syslog;      /* audit_anchor_syslog */
    struct ship *ship;
    struct mg__audit_pg *pg; /* not NULL: the chain is in PostgreSQL (audit_pg.c), none of the above is used */
};

bool mg_audit_in_pg(const struct mg_config *c) { return mg_pg_configured(c); }

void mg_audit_path(const struct mg_config *c, int n, char *out, size_t cap)
{
    if (n == 0) snprintf(out, cap, "%s/audit/audit.log", c->home);
    else snprintf(out, cap, "%s/audit/audit.log.%d", c->home, n);
}

void mg_audit_anchor_path(const struct mg_config *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s/audit/audit.anchor", c->home);
}

/* ---- writing ------------------------------------------------------------------------- */

static int lock_fd(int fd, int how)
{
    while (flock(fd, how) != 0)
        if (errno != EINTR) return -1;
    return 0;
}

/* Read up to TAIL_WINDOW bytes ending at size; find the last line that
 * parses. *torn: bytes of an unterminated fragment at the end; *bad: complete
 * lines after the last good one that do not parse; *needs_nl: the last line
 * is good but lacks its newline. 1 found (seq, hash), 0 none, -1 error. */
static int read_tail(int fd, off_t size, long long *seq, char hash[65], size_t *torn, int *bad, bool *needs_nl)
{
    *torn = 0;
    *bad = 0;
    *needs_nl = false;
    if (size <= 0) return 0;
    size_t want = size > TAIL_WINDOW ? TAIL_WINDOW : (size_t)size;
    char *buf = malloc(want + 1);
    if (!buf) return -1;
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, size - (off_t)want + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got != want) {
        free(buf);
        return -1;
    }
    size_t end = want;
    int found = 0;
    bool last = true;
    while (end > 0 && !found) {
        size_t stop = end; /* the line is buf[start..stop) */
        bool terminated = buf[end - 1] == '\n';
        if (terminated) stop = end - 1;
        size_t start = stop;
        while (start > 0 && buf[start - 1] != '\n') start--;
        if (start == 0 && want < (size_t)size) break; /* the window cut this line */
        struct mg_audit_line l;
        char why[128];
        if (mg_audit_parse_line(buf + start, stop - start, &l, why, sizeof(why)) == MG_AUDIT_OK) {
            *seq = l.seq;
            memcpy(hash, l.hash, 65);
            mg_audit_line_release(&l);
            if (last && !terminated) *needs_nl = true;
            found = 1;
        } else if (last && !terminated) {
            *torn = stop - start;
        } else if (stop > start || terminated) {
            (*bad)++;
        }
        last = false;
        end = start;
    }
    free(buf);
    return found;
}

static int io_err(struct mg_err *err, const char *what, const char *path)
{
    int e = errno;
    if (e == ENOSPC) return mg_err_set(err, MG_E_IO, "the disk is full %s '%s'; free space", what, path);
    return mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot %s '%s': %s", what, path, strerror(e));
}

static int open_log(struct mg_audit *a, struct mg_err *err)
{
    if (a->fd >= 0) close(a->fd);
    a->fd = open(a->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (a->fd < 0) return io_err(err, "open the audit log", a->path);
    return 0;
}

static void sync_dir(const char *dir)
{
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
        fsync(d);
        close(d);
    }
}

static int write_all_once(struct mg_audit *a, const char *s, size_t n, bool sync, struct mg_err *err)
{
    struct stat st;
    if (fstat(a->fd, &st) != 0) return io_err(err, "stat", a->path);
    ssize_t w;
    do w = write(a->fd, s, n);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        int e = w < 0 ? errno : ENOSPC;
        if (w > 0) (void)!ftruncate(a->fd, st.st_size); /* leave no torn line behind, if we can */
        errno = e;
        return io_err(err, "append to", a->path);
    }
    if (sync && fdatasync(a->fd) != 0) return io_err(err, "sync", a->path);
    a->size = st.st_size + (off_t)n;
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    return 0;
}

/* ---- the anchor ---------------------------------------------------------------------- */

static void read_boot_id(char out[40])
{
    out[0] = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f) return;
    if (!fgets(out, 40, f)) out[0] = 0;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    for (char *p = out; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == '-')) {
            out[0] = 0;
            break;
        }
}

int mg_audit_anchor_parse(const char *text, size_t len, struct mg_audit_anchor *out)
{
    memset(out, 0, sizeof(*out));
    /* the last {"seq": in the text that parses as an anchor */
    for (size_t i = len; i-- > 0;) {
        if (text[i] != '{' || len - i < 7 || memcmp(text + i, "{\"seq\":", 7) != 0) continue;
        json_t *o = json_loadb(text + i, len - i, JSON_DISABLE_EOF_CHECK, NULL);
        json_t *seq = json_object_get(o, "seq"), *hash = json_object_get(o, "hash");
        bool ok = json_is_integer(seq) && json_integer_value(seq) >= 0 && json_is_string(hash) &&
                  mg__audit_hex64(json_string_value(hash));
        if (ok) {
            out->seq = (long long)json_integer_value(seq);
            memcpy(out->hash, json_string_value(hash), 65);
            json_t *sy = json_object_get(o, "synced");
            out->synced = json_is_integer(sy) ? (long long)json_integer_value(sy) : out->seq;
            const char *b = json_string_value(json_object_get(o, "boot"));
            snprintf(out->boot, sizeof(out->boot), "%s", b ? b : "");
        }
        if (o) json_decref(o);
        if (ok) return 0;
    }
    return -1;
}

/* 1 read, 0 no anchor file, -1 unreadable or not an anchor (errno set when I/O). */
static int anchor_read(const char *path, struct mg_audit_anchor *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    char buf[1024];
    ssize_t n;
    do n = read(fd, buf, sizeof(buf) - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0) return -1;
    buf[n] = 0;
    errno = 0;
    return mg_audit_anchor_parse(buf, (size_t)n, out) == 0 ? 1 : -1;
}

/* The HTTP hook: a thread POSTs the newest anchor; older ones not yet sent
 * are skipped (each anchor covers all before it). */
struct ship {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char url[512];
    char pending[512], sending[512];
    long long pending_seq; /* the newest anchor's seq handed in: an older one is skipped */
    bool have, busy, stop, failing;
};

static void *ship_main(void *p)
{
    struct ship *s = p;
    struct mg_buf answer;
    mg_buf_init(&answer, 1 << 20);
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->have && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (!s->have) break;
        memcpy(s->sending, s->pending, sizeof(s->sending));
        s->have = false;
        s->busy = true;
        pthread_mutex_unlock(&s->mu);
        long status = 0;
        char why[256] = "";
        struct mg_httpc_req q = {.method = "POST", .url = s->url, .body = s->sending, .timeout_s = 5,
                                 .max_body = 1 << 20};
        bool ok = mg_httpc_call(&q, &status, &answer, why, sizeof(why)) == 0 && status >= 200 && status < 300;
        pthread_mutex_lock(&s->mu);
        if (!ok && !s->failing)
            fprintf(stderr, "memgate: warning: cannot ship the audit anchor to audit_anchor_url: %s\n",
                    why[0] ? why : "the hook did not answer 2xx");
        s->failing = !ok;
        s->busy = false;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    mg_buf_release(&answer);
    return NULL;
}

static struct ship *ship_start(const char *url)
{
    struct ship *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    snprintf(s->url, sizeof(s->url), "%s", url);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, ship_main, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Hand over an anchor (of seq) to send. Threads that append to PostgreSQL
 * at once may hand theirs over out of order: an older one than the newest
 * handed over is dropped, as it covers less. */
static void ship_post(struct ship *s, const char *json, long long seq)
{
    pthread_mutex_lock(&s->mu);
    if (seq >= s->pending_seq) {
        snprintf(s->pending, sizeof(s->pending), "%s", json);
        s->pending_seq = seq;
        s->have = true;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

/* Send what is pending (the POST has its own 5 s timeout), then stop. */
static void ship_stop(struct ship *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* Ship an anchor record (its JSON) where the settings say. */
static void publish(struct mg_audit *a, const char *rec, long long seq)
{
    if (a->syslog) syslog(LOG_AUTHPRIV | LOG_INFO, "audit anchor %s", rec);
    if (a->ship) ship_post(a->ship, rec, seq);
}

#define ANCHOR_LEN 256 /* the record, padded with spaces: one sector, rewritten in place */

/* Replace audit.anchor whole (write a temporary file, fsync, rename, fsync
 * the directory) and keep it open for the updates in place. */
static int anchor_replace(struct mg_audit *a, const char *rec, struct mg_err *err)
{
    int fd = open(a->anchor_tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return io_err(err, "write the audit anchor", a->anchor_tmp);
    ssize_t w;
    do w = write(fd, rec, ANCHOR_LEN);
    while (w < 0 && errno == EINTR);
    struct stat st;
    if (w != ANCHOR_LEN || fsync(fd) != 0 || fstat(fd, &st) != 0) {
        if (w >= 0 && w != ANCHOR_LEN) errno = ENOSPC;
        int e = errno;
        close(fd);
        unlink(a->anchor_tmp);
        errno = e;
        return io_err(err, "write the audit anchor", a->anchor_tmp);
    }
    if (rename(a->anchor_tmp, a->anchor) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return io_err(err, "replace the audit anchor", a->anchor);
    }
    sync_dir(a->dir);
    if (a->anchor_fd >= 0) close(a->anchor_fd);
    a->anchor_fd = fd;
    a->anchor_dev = st.st_dev;
    a->anchor_ino = st.st_ino;
    a->anchor_replace = false;
    return 0;
}

/* Update audit.anchor after an append (the lock is held, the line written;
 * synced: the line was fdatasynced, and the anchor is synced after it). The
 * record has a fixed size and is rewritten in place with one pwrite(2) of
 * one sector: readers hold the lock, kill -9 cannot cut a write(2), and a
 * power cut cannot tear one sector; the file is replaced atomically (temp,
 * fsync, rename, fsync dir) when it is new, was replaced by someone else,
 * has another size, or the log rotated. A temp-and-rename on every event
 * cost 1.3 ms on ext4 (auto_da_alloc flushes on rename) against 2 us. */
static int anchor_write(struct mg_audit *a, bool synced, struct mg_err *err)
{
    char when[32], rec[ANCHOR_LEN + 1];
    mg_rfc3339_ms(mg_wall_ms(), when);
    int n = snprintf(rec, sizeof(rec), "{\"seq\":%lld,\"hash\":\"%s\",\"synced\":%lld,\"boot\":\"%s\",\"time\":\"%s\"}",
                     a->seq, a->hash, a->synced, a->boot, when);
    if (n < 0 || n >= ANCHOR_LEN) return mg_err_set(err, MG_E_INTERNAL, "the audit anchor does not fit its record");
    memset(rec + n, ' ', (size_t)(ANCHOR_LEN - 1 - n));
    rec[ANCHOR_LEN - 1] = '\n';
    rec[ANCHOR_LEN] = 0;
    struct stat st;
    if (a->anchor_fd < 0 && !a->anchor_replace) {
        /* a process's first event: take the file there is, if it is one of
         * ours (one record), rather than replace it (each one-shot command
         * paid two fsyncs and a rename for that) */
        int fd = open(a->anchor, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == ANCHOR_LEN) {
            a->anchor_fd = fd;
            a->anchor_dev = st.st_dev;
            a->anchor_ino = st.st_ino;
        } else if (fd >= 0) {
            close(fd);
        }
    }
    bool same = !a->anchor_replace && a->anchor_fd >= 0 && stat(a->anchor, &st) == 0 &&
                st.st_dev == a->anchor_dev && st.st_ino == a->anchor_ino && st.st_size == ANCHOR_LEN;
    if (!same) {
        if (anchor_replace(a, rec, err) != 0) return -1;
    } else {
        ssize_t w;
        do w = pwrite(a->anchor_fd, rec, ANCHOR_LEN, 0);
        while (w < 0 && errno == EINTR);
        if (w != ANCHOR_LEN || (synced && fdatasync(a->anchor_fd) != 0)) {
            if (w >= 0 && w != ANCHOR_LEN) errno = EIO;
            a->anchor_replace = true; /* start over with a whole new file next time */
            return io_err(err, "update the audit anchor", a->anchor);
        }
    }
    rec[n] = 0;
    publish(a, rec, a->seq);
    return 0;
}

/* Append one event line (the lock is held, the tail known). */
static int append(struct mg_audit *a, const struct mg_audit_event *ev, struct mg_err *err);

/* Bring the tail state up to date with the file (the lock is held): reopen
 * after a rotation by someone else, re-read the last line after someone
 * else's append, repair a torn tail. */
static int resync(struct mg_audit *a, struct mg_err *err)
{
    struct stat st;
    bool exists = stat(a->path, &st) == 0;
    if (a->fd >= 0 && a->known && exists && st.st_dev == a->dev && st.st_ino == a->ino && st.st_size == a->size)
        return 0;
    if (a->fd < 0 || !exists || st.st_dev != a->dev || st.st_ino != a->ino)
        if (open_log(a, err) != 0) return -1;
    if (fstat(a->fd, &st) != 0) return io_err(err, "stat", a->path);
    size_t torn;
    int bad;
    bool needs_nl;
    int found = read_tail(a->fd, st.st_size, &a->seq, a->hash, &torn, &bad, &needs_nl);
    if (found < 0) return io_err(err, "read the end of", a->path);
    if (!found) {
        /* nothing (valid) here: chain from the newest rotated file, if any */
        char p1[PATH_MAX + 16];
        snprintf(p1, sizeof(p1), "%s.1", a->path);
        int fd1 = open(p1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st1;
        size_t t1;
        int b1;
        bool n1;
        if (fd1 >= 0 && fstat(fd1, &st1) == 0 && read_tail(fd1, st1.st_size, &a->seq, a->hash, &t1, &b1, &n1) == 1)
            found = 1;
        if (fd1 >= 0) close(fd1);
        if (!found) {
            a->seq = 0;
            memcpy(a->hash, MG_AUDIT_GENESIS, 65);
        }
    }
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    a->size = st.st_size;
    a->known = true;
    /* the anchor, before anything here rewrites it: is the log shorter than it,
     * or its end another chain? */
    struct mg_audit_anchor an;
    char lost[256] = "";
    const char *lost_flag = NULL;
    if (anchor_read(a->anchor, &an) == 1) {
        a->synced = an.synced < a->seq ? an.synced : a->seq;
        bool restart = a->seq >= an.synced && an.boot[0] && a->boot[0] && strcmp(an.boot, a->boot) != 0;
        lost_flag = mg__audit_lost(&an, a->seq, a->hash, restart, lost, sizeof(lost));
    } else {
        a->synced = 0;
    }
    if (needs_nl || torn) {
        if (write_all_once(a, "\n", 1, a->sync != 0, err) != 0) return -1;
    }
    if (torn || bad) {
        char status[160];
        if (torn) snprintf(status, sizeof(status), "closed a torn line of %zu bytes (a write cut off by a crash)", torn);
        else snprintf(status, sizeof(status), "%d line(s) after seq %lld do not verify; chained on from seq %lld", bad,
                      a->seq, a->seq);
        const char *flag = torn ? "torn_line" : "bad_tail";
        struct mg_audit_event rec = {.op = "audit_recovered", .flags = &flag, .nflags = 1, .status = status,
                                     .durable = true};
        if (append(a, &rec, err) != 0) return -1;
    }
    if (lost_flag) {
        struct mg_audit_event rec = {.op = "audit_recovered", .flags = &lost_flag, .nflags = 1, .status = lost,
                                     .durable = true};
        if (append(a, &rec, err) != 0) return -1;
    }
    return 0;
}

static int rotated_files(const char *dir, int **out, size_t *n);

/* Rotate: audit.log becomes .1, the rotated files .2, .3, ... in their order
 * (a gap an interrupted rotation left is closed), and those past audit_keep
 * (it may have been lowered) are removed. Each rename moves a file to a free
 * number, so a rotation killed at any point loses nothing; the next one
 * finishes it. */
static int rotate(struct mg_audit *a, struct mg_err *err)
{
    char from[PATH_MAX + 32], to[PATH_MAX + 32];
    int *rot; /* oldest first */
    size_t nrot;
    if (rotated_files(a->dir, &rot, &nrot) != 0) return io_err(err, "list", a->dir);
    int rc = 0;
    /* newest first, j: each goes to j + 2; down first (newest first), then up (oldest first) */
    for (size_t j = 0; rc == 0 && j < nrot; j++) {
        int r = rot[nrot - 1 - j], t = (int)j + 2;
        snprintf(from, sizeof(from), "%s.%d", a->path, r);
        if (t > a->keep) {
            if (unlink(from) != 0 && errno != ENOENT) rc = io_err(err, "remove", from);
        } else if (t < r) {
            snprintf(to, sizeof(to), "%s.%d", a->path, t);
            if (rename(from, to) != 0) rc = io_err(err, "rotate", from);
        }
    }
    for (size_t j = nrot; rc == 0 && j-- > 0;) {
        int r = rot[nrot - 1 - j], t = (int)j + 2;
        if (t > a->keep || t <= r) continue;
        snprintf(from, sizeof(from), "%s.%d", a->path, r);
        snprintf(to, sizeof(to), "%s.%d", a->path, t);
        if (rename(from, to) != 0) rc = io_err(err, "rotate", from);
    }
    free(rot);
    if (rc != 0) return -1;
    snprintf(to, sizeof(to), "%s.1", a->path);
    if (rename(a->path, to) != 0) return io_err(err, "rotate", a->path);
    sync_dir(a->dir);
    a->anchor_replace = true; /* the anchor is replaced whole with the chain's new file */
    if (open_log(a, err) != 0) return -1;
    struct stat st;
    if (fstat(a->fd, &st) != 0) return io_err(err, "stat", a->path);
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    a->size = st.st_size;
    return 0;
}

static int append(struct mg_audit *a, const struct mg_audit_event *ev, struct mg_err *err)
{
    size_t n;
    char h[65];
    char *line = mg__audit_line(ev, a->seq + 1, a->hash, &n, h, NULL);
    if (!line) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing an audit event");
    int rc = 0;
    if (a->size > 0 && (size_t)a->size + n > a->max_bytes) rc = rotate(a, err);
    bool synced = a->sync == 2 || (a->sync == 1 && ev->durable);
    if (rc == 0) rc = write_all_once(a, line, n, synced, err);
    free(line);
    if (rc == 0) {
        a->seq++;
        memcpy(a->hash, h, 65);
        if (synced) a->synced = a->seq;
        /* after the line (and its sync): the anchor is never ahead of the log */
        rc = anchor_write(a, synced, err);
    }
    return rc;
}

int mg_audit_emit(struct mg_audit *a, const struct mg_audit_event *ev, struct mg_err *err)
{
    if (!mg_audit_op_ok(ev->op))
        return mg_err_set(err, MG_E_BAD_ARG, "audit op '%.80s' is not valid: use 1-%d characters of a-z, 0-9, "
                          "'_', '.', '-'", ev->op ? ev->op : "", MG_AUDIT_OP_MAX);
    if (a->pg) {
        /* PostgreSQL serialises the appends of every thread and process; the
         * anchor row is the chain's end, shipped like the file's */
        struct mg_audit_anchor an;
        char when[32];
        if (mg__audit_pg_emit(a->pg, ev, &an, when, err) != 0) return -1;
        if (a->syslog || a->ship) {
            char rec[ANCHOR_LEN];
            snprintf(rec, sizeof(rec), "{\"seq\":%lld,\"hash\":\"%s\",\"synced\":%lld,\"time\":\"%s\"}", an.seq,
                     an.hash, an.synced, when);
            publish(a, rec, an.seq);
        }
        return 0;
    }
    pthread_mutex_lock(&a->mu);
    int rc = -1;
    if (lock_fd(a->lockfd, LOCK_EX) != 0) {
        io_err(err, "lock", a->dir);
    } else {
        rc = resync(a, err);
        if (rc == 0) rc = append(a, ev, err);
        if (rc != 0) a->known = false; /* re-read the file next time */
        lock_fd(a->lockfd, LOCK_UN);
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void mg_audit_close(struct mg_audit *a)
{
    if (!a) return;
    if (a->fd >= 0) close(a->fd);
    if (a->lockfd >= 0) close(a->lockfd);
    if (a->anchor_fd >= 0) close(a->anchor_fd);
    ship_stop(a->ship);
    mg__audit_pg_close(a->pg);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static int open_lock(const char *dir, struct mg_err *err)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/audit.lock", dir);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) io_err(err, "open", p);
    return fd;
}

int mg_audit_open(const struct mg_config *c, struct mg_audit **out, struct mg_err *err)
{
    *out = NULL;
    mg_sodium_ready();
    struct mg_audit *a = calloc(1, sizeof(*a));
    if (!a) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the audit log");
    pthread_mutex_init(&a->mu, NULL);
    a->fd = a->lockfd = a->anchor_fd = -1;
    a->max_bytes = c->audit_max_bytes;
    a->keep = c->audit_keep > 0 ? c->audit_keep : 1;
    a->sync = strcmp(c->audit_fsync, "off") == 0 ? 0 : strcmp(c->audit_fsync, "writes") == 0 ? 1 : 2;
    snprintf(a->dir, sizeof(a->dir), "%s/audit", c->home);
    snprintf(a->path, sizeof(a->path), "%s/audit.log", a->dir);
    snprintf(a->anchor, sizeof(a->anchor), "%s/audit.anchor", a->dir);
    snprintf(a->anchor_tmp, sizeof(a->anchor_tmp), "%s/audit.anchor.tmp", a->dir);
    read_boot_id(a->boot);
    a->syslog = c->audit_anchor_syslog != 0;
    if (c->audit_anchor_url[0] && !(a->ship = ship_start(c->audit_anchor_url))) {
        mg_err_set(err, MG_E_NO_MEMORY, "cannot start the thread shipping the audit anchor");
        goto fail;
    }
    if (mg_pg_configured(c)) {
        if (mg__audit_pg_open(c, &a->pg, err) != 0) goto fail;
        *out = a;
        return 0;
    }
    if (mg_mkdirs_0700(a->dir, err) != 0 || (a->lockfd = open_lock(a->dir, err)) < 0) goto fail;
    if (lock_fd(a->lockfd, LOCK_EX) != 0) {
        io_err(err, "lock", a->dir);
        goto fail;
    }
    int rc = resync(a, err);
    lock_fd(a->lockfd, LOCK_UN);
    if (rc != 0) goto fail;
    *out = a;
    return 0;
fail:
    mg_audit_close(a);
    return -1;
}

/* ---- files --------------------------------------------------------------------------- */

/* The rotated numbers present (audit.log.<n>), sorted descending (oldest first). */
static int rotated_files(const char *dir, int **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : -1;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "audit.log.", 10) != 0) continue;
        char *end;
        long v = strtol(de->d_name + 10, &end, 10);
        if (*end || v < 1 || v > 1000000 || de->d_name[10] == '0') continue;
        int *nv = mg_grow(*out, *n, &cap, sizeof(int));
        if (!nv) {
            closedir(d);
            return -1;
        }
        *out = nv;
        (*out)[(*n)++] = (int)v;
    }
    closedir(d);
    for (size_t i = 1; i < *n; i++) /* insertion sort, descending */
        for (size_t j = i; j > 0 && (*out)[j - 1] < (*out)[j]; j--) {
            int t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return 0;
}

static int shared_lock(const struct mg_config *c, struct mg_err *err)
{
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    struct stat st;
    if (stat(dir, &st) != 0) return -2; /* no audit log yet */
    int fd = open_lock(dir, err);
    if (fd < 0) return -1;
    if (lock_fd(fd, LOCK_SH) != 0) {
        io_err(err, "lock", dir);
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- query --------------------------------------------------------------------------- */

/* The newest `limit` (0: all) matching lines of one file, in order. */
struct hits {
    char **v;
    size_t n, cap, start; /* a ring when limit > 0 */
    size_t limit;
    bool older_than_since; /* the file has an event before since */
};

static int hits_push(struct hits *h, char *line)
{
    if (h->limit && h->n == h->limit) {
        free(h->v[h->start]);
        h->v[h->start] = line;
        h->start = (h->start + 1) % h->limit;
        return 0;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        if (h->limit && cap > h->limit) cap = h->limit;
        char **v = realloc(h->v, cap * sizeof(char *));
        if (!v) return -1;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = line;
    return 0;
}

static char *hits_at(const struct hits *h, size_t i)
{
    return h->v[(h->start + i) % (h->limit && h->n == h->limit ? h->limit : h->cap ? h->cap : 1)];
}

static void hits_free(struct hits *h)
{
    for (size_t i = 0; i < h->n; i++) free(h->v[i]);
    free(h->v);
}

static int scan_file(const char *path, const struct mg_audit_filter *f, struct hits *h)
{
    FILE *fp = fopen(path, "re");
    if (!fp) return errno == ENOENT ? 0 : -1;
    char *line = NULL, pat_t[MG_TENANT_MAX + 16] = "", pat_o[MG_AUDIT_OP_MAX + 16] = "";
    /* tenants and ops need no JSON escaping, so a substring test skips most
     * lines without parsing them */
    if (f->tenant && mg_tenant_ok(f->tenant)) snprintf(pat_t, sizeof(pat_t), "\"tenant\":\"%s\"", f->tenant);
    if (f->op && mg_audit_op_ok(f->op)) snprintf(pat_o, sizeof(pat_o), "\"op\":\"%s\"", f->op);
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) > 0) {
        if (line[len - 1] != '\n') break; /* a line being written, or torn */
        line[--len] = 0;
        if (f->since_ms && !h->older_than_since) {
            /* "time" is the second member: {"seq":N,"time":"..." */
            const char *t = strstr(line, "\"time\":\"");
            int64_t ms;
            char buf[32];
            if (t && sscanf(t + 8, "%31[^\"]", buf) == 1 && mg_parse_time(buf, 0, &ms) == 0 && ms < f->since_ms)
                h->older_than_since = true;
        }
        if ((*pat_t && !strstr(line, pat_t)) || (*pat_o && !strstr(line, pat_o))) continue;
        json_t *o = json_loadb(line, (size_t)len, 0, NULL);
        bool m = o && json_is_object(o) && mg_audit_match(f, o);
        if (o) json_decref(o);
        if (!m) continue;
        char *copy = strdup(line);
        if (!copy || hits_push(h, copy) != 0) {
            free(copy);
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(fp);
    return rc;
}

int mg_audit_query_lines(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                         struct mg_err *err)
{
    static const struct mg_audit_filter all = {0};
    if (!f) f = &all;
    *lines = NULL;
    *n = 0;
    if (mg_pg_configured(c)) return mg__audit_pg_query(c, f, lines, n, err);
    int lk = shared_lock(c, err);
    if (lk == -2) return 0;
    if (lk < 0) return -1;
    char dir[PATH_MAX + 8], path[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    int *rot;
    size_t nrot;
    int rc = 0;
    if (rotated_files(dir, &rot, &nrot) != 0) {
        close(lk);
        return io_err(err, "list", dir);
    }
    /* newest file first, until limit matches or events before since */
    struct hits *per = calloc(nrot + 1, sizeof(struct hits));
    size_t nfiles = 0, total = 0;
    if (!per) rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    for (size_t i = 0; rc == 0 && i <= nrot; i++) {
        if (i == 0) mg_audit_path(c, 0, path, sizeof(path));
        else mg_audit_path(c, rot[nrot - i], path, sizeof(path));
        struct hits *h = &per[nfiles++];
        h->limit = f->limit ? f->limit - total : 0;
        if (scan_file(path, f, h) != 0) {
            rc = io_err(err, "read", path);
            break;
        }
        total += h->n;
        if ((f->limit && total >= f->limit) || h->older_than_since) break;
    }
    char **v = NULL;
    if (rc == 0 && total && !(v = malloc(total * sizeof(char *))))
        rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    size_t k = 0;
    for (size_t i = nfiles; rc == 0 && i-- > 0;) {
        for (size_t j = 0; j < per[i].n; j++) v[k++] = hits_at(&per[i], j);
        free(per[i].v);
        per[i].v = NULL;
        per[i].n = 0;
    }
    for (size_t i = 0; i < nfiles; i++) hits_free(&per[i]);
    free(per);
    free(rot);
    close(lk);
    if (rc != 0) {
        free(v);
        return -1;
    }
    *lines = v;
    *n = total;
    return 0;
}

void mg_audit_lines_free(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

int mg_audit_query(const struct mg_config *c, const struct mg_audit_filter *f, json_t **out_array,
                   struct mg_err *err)
{
    *out_array = NULL;
    char **lines;
    size_t n;
    if (mg_audit_query_lines(c, f, &lines, &n, err) != 0) return -1;
    json_t *arr = json_array();
    int rc = arr ? 0 : mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        json_t *o = json_loads(lines[i], 0, NULL);
        if (o && json_array_append_new(arr, o) != 0) rc = mg_err_oom(err);
    }
    mg_audit_lines_free(lines, n);
    if (rc != 0) {
        json_decref(arr);
        return -1;
    }
    *out_array = arr;
    return 0;
}

/* ---- verify -------------------------------------------------------------------------- */

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

static int pending_fail(struct mg_audit_report *r, struct vstate *v, const char *path, struct mg_err *err)
{
    const char *problem = v->pending_kind == MG_AUDIT_NOT_JSON ? "invalid" : "edited";
    return fail_at(r, path, v->pending_line, problem, err, "%s: the line was %s", v->pending_why,
                   v->pending_kind == MG_AUDIT_NOT_JSON ? "edited or cut" : "edited");
}

/* Where a later line (or row) holding event `want` is, 0 when none. */
typedef long long (*later_fn)(void *ud, long long want);

struct later_in_file {
    FILE *fp;
    long long lineno;
};

static long long later_in_file(void *ud, long long want)
{
    struct later_in_file *lf = ud;
    return find_seq_later(lf->fp, want, lf->lineno);
}

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

static int verify_file(const char *path, bool last_file, struct vstate *v, struct mg_audit_report *r,
                       struct mg_err *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp) return io_err(err, "open", path);
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

/* The chain verified: does its end agree with the anchor? */
static int check_anchor(const struct vstate *v, int k, const char *name, const char *path,
                        struct mg_audit_report *r, struct mg_err *err)
{
    const struct mg_audit_anchor *an = v->anch[k];
    long long end = v->started ? v->seq : 0;
    if (an->seq > end) {
        char boot[40];
        read_boot_id(boot);
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
    int lk = shared_lock(c, err);
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
    if (rotated_files(dir, &rot, &nrot) != 0) {
        close(lk);
        return io_err(err, "list", dir);
    }
    struct vstate v = {0};
    int rc = 0;
    char apath[PATH_MAX + 32];
    mg_audit_anchor_path(c, apath, sizeof(apath));
    struct mg_audit_anchor local;
    int ar = anchor_read(apath, &local);
    if (ar < 0 && errno) rc = io_err(err, "read", apath);
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
