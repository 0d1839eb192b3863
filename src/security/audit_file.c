/* audit_file.c — the audit chain in the data directory's files (audit.h:
 * the file's format, locking, rotation and the anchor), as the backend
 * mg__audit_files (audit_int.h) that audit.c appends through: one append
 * under flock, the tail re-read when someone else wrote, rotated past
 * audit_max_bytes, a torn or lost tail, a missing or forged anchor and
 * missing files recorded, the keyed anchor updated after the line.
 *
 * Sections:
 *   1. the log file
 *   2. the anchor file
 *   3. the tail: someone else's appends, a torn line, a lost end
 *   4. rotation
 *   5. appending, the backend
 */
#include "security/audit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/common.h"

#define TAIL_WINDOW (64 * 1024)
#define RECOVERED_MAX 4 /* audit_recovered events one look at the tail may record */

struct files {
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
    int slot;         /* the slot of audit.anchor the next update goes to (the other holds the last one) */
    long long synced; /* the last seq synced to disk (as far as known) */
    char boot[40];    /* this machine's boot id */
    unsigned char key[MG__AUDIT_KEY_BYTES]; /* the audit key (audit_anchor.c) */
    char key_path[PATH_MAX];
    char chain[17];   /* the chain's id, kept in every anchor */
    long long firsts[MG_AUDIT_FILES_MAX]; /* the files the chain is in, oldest first, by their first seq */
    int nfirsts;
    bool prune;       /* rotated files past audit_keep to remove once the anchor no longer names them */
    mg__audit_publish_fn publish; /* each new anchor, to ship (NULL: none) */
    void *ud;
};

/* ---- 1. the log file -------------------------------------------------------------------- */

/* Read up to TAIL_WINDOW bytes ending at size; find the last line that
 * parses. *torn: bytes of an unterminated fragment at the end; *bad: complete
 * lines after the last good one that do not parse; *needs_nl: the last line
 * is good but lacks its newline. 1 found (seq, hash, and the chain id it
 * names: "" none), 0 none, -1 error. */
static int read_tail(int fd, off_t size, long long *seq, char hash[65], char chain[17], size_t *torn, int *bad,
                     bool *needs_nl)
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
            memcpy(chain, l.chain, 17);
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

static int open_log(struct files *a, struct mg_err *err)
{
    if (a->fd >= 0) close(a->fd);
    a->fd = open(a->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (a->fd < 0) return mg__audit_io_err(err, "open the audit log", a->path);
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

static int write_all_once(struct files *a, const char *s, size_t n, bool sync, struct mg_err *err)
{
    struct stat st;
    if (fstat(a->fd, &st) != 0) return mg__audit_io_err(err, "stat", a->path);
    ssize_t w;
    do w = write(a->fd, s, n);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        int e = w < 0 ? errno : ENOSPC;
        if (w > 0) (void)!ftruncate(a->fd, st.st_size); /* leave no torn line behind, if we can */
        errno = e;
        return mg__audit_io_err(err, "append to", a->path);
    }
    if (sync && fdatasync(a->fd) != 0) return mg__audit_io_err(err, "sync", a->path);
    a->size = st.st_size + (off_t)n;
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    return 0;
}

/* ---- 2. the anchor file ---------------------------------------------------------------- */

/* Replace audit.anchor whole (write a temporary file, fsync, rename, fsync
 * the directory), the record in both slots, and keep it open for the
 * updates in place. */
static int anchor_replace(struct files *a, const char *slot, struct mg_err *err)
{
    int fd = open(a->anchor_tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return mg__audit_io_err(err, "write the audit anchor", a->anchor_tmp);
    ssize_t w0, w1;
    do w0 = pwrite(fd, slot, MG__AUDIT_SLOT, 0);
    while (w0 < 0 && errno == EINTR);
    do w1 = pwrite(fd, slot, MG__AUDIT_SLOT, MG__AUDIT_SLOT);
    while (w1 < 0 && errno == EINTR);
    struct stat st;
    if (w0 != MG__AUDIT_SLOT || w1 != MG__AUDIT_SLOT || fsync(fd) != 0 || fstat(fd, &st) != 0) {
        if (w0 >= 0 && w1 >= 0) errno = ENOSPC;
        int e = errno;
        close(fd);
        unlink(a->anchor_tmp);
        errno = e;
        return mg__audit_io_err(err, "write the audit anchor", a->anchor_tmp);
    }
    if (rename(a->anchor_tmp, a->anchor) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return mg__audit_io_err(err, "replace the audit anchor", a->anchor);
    }
    sync_dir(a->dir);
    if (a->anchor_fd >= 0) close(a->anchor_fd);
    a->anchor_fd = fd;
    a->anchor_dev = st.st_dev;
    a->anchor_ino = st.st_ino;
    a->anchor_replace = false;
    a->slot = 1;
    return 0;
}

/* Update audit.anchor after an append (the lock is held, the line written;
 * synced: the line was fdatasynced, and the anchor is synced after it). The
 * record, keyed with the audit key, goes to the slot not holding the last
 * one, with one pwrite(2) of one page: readers hold the lock, kill -9 cannot
 * cut the write of one page, and should a power cut tear it, the other slot
 * still holds the anchor before. The file is replaced atomically (temp,
 * fsync, rename, fsync dir) when it is new, was replaced by someone else,
 * has another size, or the log rotated. A temp-and-rename on every event
 * cost 1.3 ms on ext4 (auto_da_alloc flushes on rename) against 2 us. */
static int anchor_write(struct files *a, bool synced, struct mg_err *err)
{
    char when[32], slot[MG__AUDIT_SLOT + 1];
    mg_rfc3339_ms(mg_wall_ms(), when);
    struct mg_audit_anchor *an = calloc(1, sizeof(*an));
    if (!an) return mg_err_oom(err);
    an->seq = a->seq;
    an->synced = a->synced;
    memcpy(an->hash, a->hash, sizeof(an->hash));
    memcpy(an->boot, a->boot, sizeof(an->boot));
    memcpy(an->chain, a->chain, sizeof(an->chain));
    an->nfiles = a->nfirsts;
    memcpy(an->files, a->firsts, sizeof(an->files[0]) * (size_t)a->nfirsts);
    int n = mg__audit_anchor_record(an, true, when, a->key, slot, MG__AUDIT_SLOT);
    free(an);
    if (n < 0) return mg_err_set(err, MG_E_INTERNAL, "the audit anchor does not fit its record");
    memset(slot + n, ' ', (size_t)(MG__AUDIT_SLOT - 1 - n));
    slot[MG__AUDIT_SLOT - 1] = '\n';
    slot[MG__AUDIT_SLOT] = 0;
    struct stat st;
    if (a->anchor_fd < 0 && !a->anchor_replace) {
        /* a process's first event: take the file there is, if it is one of
         * ours (two slots; resync read it and chose the slot), rather than
         * replace it (each one-shot command paid two fsyncs and a rename) */
        int fd = open(a->anchor, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == MG__AUDIT_ANCHOR_FILE) {
            a->anchor_fd = fd;
            a->anchor_dev = st.st_dev;
            a->anchor_ino = st.st_ino;
        } else if (fd >= 0) {
            close(fd);
        }
    }
    bool same = !a->anchor_replace && a->anchor_fd >= 0 && stat(a->anchor, &st) == 0 &&
                st.st_dev == a->anchor_dev && st.st_ino == a->anchor_ino && st.st_size == MG__AUDIT_ANCHOR_FILE;
    if (!same) {
        if (anchor_replace(a, slot, err) != 0) return -1;
    } else {
        ssize_t w;
        do w = pwrite(a->anchor_fd, slot, MG__AUDIT_SLOT, (off_t)a->slot * MG__AUDIT_SLOT);
        while (w < 0 && errno == EINTR);
        if (w != MG__AUDIT_SLOT || (synced && fdatasync(a->anchor_fd) != 0)) {
            if (w >= 0 && w != MG__AUDIT_SLOT) errno = EIO;
            a->anchor_replace = true; /* start over with a whole new file next time */
            return mg__audit_io_err(err, "update the audit anchor", a->anchor);
        }
        a->slot ^= 1;
    }
    slot[n] = 0;
    if (a->publish && a->seq > 0) a->publish(a->ud, slot, a->seq);
    return 0;
}

/* ---- 3. the tail ----------------------------------------------------------------------- */

/* Append one event line (the lock is held, the tail known). */
static int append(struct files *a, const struct mg_audit_event *ev, struct mg_err *err);

/* What a look at the tail found to record: audit_recovered events. */
struct recovered {
    int n;
    const char *flag[RECOVERED_MAX];
    char status[RECOVERED_MAX][320];
};

static void recover(struct recovered *rv, const char *flag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void recover(struct recovered *rv, const char *flag, const char *fmt, ...)
{
    if (rv->n >= RECOVERED_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rv->status[rv->n], sizeof(rv->status[0]), fmt, ap);
    va_end(ap);
    rv->flag[rv->n++] = flag;
}

/* The files the chain is in, as the directory has them now. */
static void firsts_from_dir(struct files *a)
{
    int n = mg__audit_file_firsts(a->dir, a->firsts, NULL, MG_AUDIT_FILES_MAX);
    a->nfirsts = n > 0 ? n : 0;
}

/* Set the tail state against audit.anchor, before anything here rewrites
 * it (the lock is held; log_chain: the chain id the log's last event names,
 * "" none; moved: audit.log is not the file this handle last saw, so check
 * the files the anchor names are there). What is wrong goes into rv: a log
 * shorter than its anchor or its end rewritten, an anchor gone while the
 * log holds events, an anchor that does not verify with the key (forged,
 * edited, or an older memgate's put in place of a keyed one), files the
 * anchor names gone. */
static int anchor_check(struct files *a, const char *log_chain, bool moved, struct recovered *rv, struct mg_err *err)
{
    struct mg__audit_anchor_file *af = malloc(sizeof(*af));
    if (!af) return mg_err_oom(err);
    if (mg__audit_anchor_load(a->anchor, a->key, af) != 0) {
        free(af);
        return mg__audit_io_err(err, "read the audit anchor", a->anchor);
    }
    const struct mg_audit_anchor *an = &af->an;
    bool keyed_log = log_chain[0] != 0; /* the log's events were written with a keyed anchor */
    char lost[256];
    const char *flag;
    a->synced = 0;
    a->slot = 0;
    bool other_chain = af->state == 2 && af->valid && keyed_log && strcmp(an->chain, log_chain) != 0;
    if (af->state == 2 && af->valid && !other_chain) {
        a->synced = an->synced < a->seq ? an->synced : a->seq;
        bool restart = a->seq >= an->synced && an->boot[0] && a->boot[0] && strcmp(an->boot, a->boot) != 0;
        if ((flag = mg__audit_lost(an, a->seq, a->hash, restart, lost, sizeof(lost)))) recover(rv, flag, "%s", lost);
        if (af->bad && !restart && an->boot[0] && strcmp(an->boot, a->boot) == 0)
            recover(rv, "anchor_invalid", "a slot of the audit anchor does not verify with the audit key (%s) though "
                    "this machine has not restarted since the other was written: the anchor was edited", a->key_path);
        memcpy(a->chain, an->chain, sizeof(a->chain));
        a->slot = af->slot ^ 1;
        a->nfirsts = an->nfiles;
        memcpy(a->firsts, an->files, sizeof(a->firsts[0]) * (size_t)an->nfiles);
        if (moved) {
            long long present[MG_AUDIT_FILES_MAX];
            int np = mg__audit_file_firsts(a->dir, present, NULL, MG_AUDIT_FILES_MAX);
            char what[200];
            if (np >= 0 && mg__audit_files_missing(an, present, np, what, sizeof(what))) {
                recover(rv, "files_removed", "audit files the anchor names are gone: the events of %s are in no file",
                        what);
                firsts_from_dir(a);
            }
        }
    } else if (af->state == 1 && !keyed_log) {
        /* an older memgate's anchor on its own log: checked as it was, then replaced by a keyed one */
        a->synced = an->synced < a->seq ? an->synced : a->seq;
        bool restart = a->seq >= an->synced && an->boot[0] && a->boot[0] && strcmp(an->boot, a->boot) != 0;
        if ((flag = mg__audit_lost(an, a->seq, a->hash, restart, lost, sizeof(lost)))) recover(rv, flag, "%s", lost);
        a->chain[0] = 0;
        firsts_from_dir(a);
    } else if (af->state == 0) {
        if (a->seq > 0)
            recover(rv, "anchor_missing", "the log holds events up to seq %lld but its anchor (audit.anchor) is gone: "
                    "removed, or the log put here without it; a cut at its end cannot be ruled out", a->seq);
        a->chain[0] = 0;
        firsts_from_dir(a);
    } else if (other_chain) {
        recover(rv, "anchor_invalid", "the audit anchor is another chain's (%s; the log's events name %s): it was "
                "copied here from another data directory; the end of the log before this event is vouched for by "
                "nothing", an->chain, log_chain);
        a->chain[0] = 0;
        firsts_from_dir(a);
    } else {
        recover(rv, "anchor_invalid", "the audit anchor does not verify with the audit key (%s)%s: it was edited or "
                "forged, or the key was replaced; the end of the log before this event is vouched for by nothing",
                a->key_path, af->state == 1 ? " (an unkeyed anchor in place of a keyed one)" : "");
        a->chain[0] = 0;
        firsts_from_dir(a);
    }
    /* the chain keeps its id: the anchor's, else the one its events name, else a new one */
    if (!a->chain[0]) {
        if (keyed_log) memcpy(a->chain, log_chain, 17);
        else mg__audit_new_chain(a->chain);
    }
    if (af->state != 2) a->anchor_replace = true; /* a keyed two-slot file from the next update on */
    int rc = 0;
    /* a new log gets its anchor before its first event: so a log that holds
     * events and has no anchor was never left so by a crash */
    if (af->state == 0 && a->seq == 0) rc = anchor_write(a, false, err);
    free(af);
    return rc;
}

/* Bring the tail state up to date with the file (the lock is held): reopen
 * after a rotation by someone else, re-read the last line after someone
 * else's append, repair a torn tail, check the anchor. */
static int resync(struct files *a, struct mg_err *err)
{
    struct stat st;
    bool exists = stat(a->path, &st) == 0;
    if (a->fd >= 0 && a->known && exists && st.st_dev == a->dev && st.st_ino == a->ino && st.st_size == a->size)
        return 0;
    bool moved = !a->known || !exists || st.st_dev != a->dev || st.st_ino != a->ino;
    if (a->fd < 0 || !exists || st.st_dev != a->dev || st.st_ino != a->ino)
        if (open_log(a, err) != 0) return -1;
    if (fstat(a->fd, &st) != 0) return mg__audit_io_err(err, "stat", a->path);
    size_t torn;
    int bad;
    bool needs_nl;
    char log_chain[17] = "";
    int found = read_tail(a->fd, st.st_size, &a->seq, a->hash, log_chain, &torn, &bad, &needs_nl);
    if (found < 0) return mg__audit_io_err(err, "read the end of", a->path);
    if (!found) {
        /* nothing (valid) here: chain from the newest rotated file, if any */
        char p1[PATH_MAX + 16];
        snprintf(p1, sizeof(p1), "%s.1", a->path);
        int fd1 = open(p1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st1;
        size_t t1;
        int b1;
        bool n1;
        if (fd1 >= 0 && fstat(fd1, &st1) == 0 &&
            read_tail(fd1, st1.st_size, &a->seq, a->hash, log_chain, &t1, &b1, &n1) == 1)
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
    struct recovered rv = {0};
    if (anchor_check(a, log_chain, moved, &rv, err) != 0) return -1;
    if (needs_nl || torn) {
        if (write_all_once(a, "\n", 1, a->sync != 0, err) != 0) return -1;
    }
    if (torn || bad) {
        if (torn) recover(&rv, "torn_line", "closed a torn line of %zu bytes (a write cut off by a crash)", torn);
        else recover(&rv, "bad_tail", "%d line(s) after seq %lld do not verify; chained on from seq %lld", bad, a->seq,
                     a->seq);
    }
    for (int i = 0; i < rv.n; i++) {
        struct mg_audit_event rec = {.op = "audit_recovered", .flags = &rv.flag[i], .nflags = 1,
                                     .status = rv.status[i], .durable = true};
        if (append(a, &rec, err) != 0) return -1;
    }
    return 0;
}

/* ---- 4. rotation ----------------------------------------------------------------------- */

/* Rotate: audit.log becomes .1, the rotated files .2, .3, ... in their order
 * (a gap an interrupted rotation left is closed). Each rename moves a file
 * to a free number, so a rotation killed at any point loses nothing; the
 * next one finishes it. The files past audit_keep (it may have been
 * lowered) are removed only once an anchor that no longer names them is
 * written (prune), so no anchor names a file that is gone. */
static int rotate(struct files *a, struct mg_err *err)
{
    char from[PATH_MAX + 32], to[PATH_MAX + 32];
    int *rot; /* oldest first */
    size_t nrot;
    if (mg__audit_rotated(a->dir, &rot, &nrot) != 0) return mg__audit_io_err(err, "list", a->dir);
    int rc = 0;
    /* newest first, j: each goes to j + 2; down first (newest first), then up (oldest first) */
    for (size_t j = 0; rc == 0 && j < nrot; j++) {
        int r = rot[nrot - 1 - j], t = (int)j + 2;
        if (t >= r) continue;
        snprintf(from, sizeof(from), "%s.%d", a->path, r);
        snprintf(to, sizeof(to), "%s.%d", a->path, t);
        if (rename(from, to) != 0) rc = mg__audit_io_err(err, "rotate", from);
    }
    for (size_t j = nrot; rc == 0 && j-- > 0;) {
        int r = rot[nrot - 1 - j], t = (int)j + 2;
        if (t <= r) continue;
        snprintf(from, sizeof(from), "%s.%d", a->path, r);
        snprintf(to, sizeof(to), "%s.%d", a->path, t);
        if (rename(from, to) != 0) rc = mg__audit_io_err(err, "rotate", from);
    }
    free(rot);
    if (rc != 0) return -1;
    snprintf(to, sizeof(to), "%s.1", a->path);
    if (rename(a->path, to) != 0) return mg__audit_io_err(err, "rotate", a->path);
    sync_dir(a->dir);
    a->anchor_replace = true; /* the anchor is replaced whole with the chain's new file */
    a->prune = true;
    if (open_log(a, err) != 0) return -1;
    struct stat st;
    if (fstat(a->fd, &st) != 0) return mg__audit_io_err(err, "stat", a->path);
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    a->size = st.st_size;
    return 0;
}

/* After the anchor that names only the files audit_keep keeps: remove the
 * older ones. A failure leaves them for the next rotation. */
static void prune(struct files *a)
{
    a->prune = false;
    int *rot;
    size_t nrot;
    if (mg__audit_rotated(a->dir, &rot, &nrot) != 0) return;
    char p[PATH_MAX + 32];
    for (size_t i = 0; i < nrot; i++) {
        if (rot[i] <= a->keep) continue;
        snprintf(p, sizeof(p), "%s.%d", a->path, rot[i]);
        unlink(p);
    }
    free(rot);
}

/* ---- 5. appending, the backend --------------------------------------------------------- */

/* Append one event line (the lock is held, the tail known): after a
 * rotation if it would take audit.log past audit_max_bytes; the anchor
 * after it, naming the files the chain is in. */
static int append(struct files *a, const struct mg_audit_event *ev, struct mg_err *err)
{
    size_t n;
    char h[65];
    char *line = mg__audit_line(ev, a->seq + 1, a->chain, a->hash, &n, h, NULL);
    if (!line) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory writing an audit event");
    int rc = 0;
    if (a->size > 0 && (size_t)a->size + n > a->max_bytes) rc = rotate(a, err);
    bool synced = a->sync == 2 || (a->sync == 1 && ev->durable);
    bool new_file = a->size == 0;
    if (rc == 0) rc = write_all_once(a, line, n, synced, err);
    free(line);
    if (rc == 0) {
        a->seq++;
        memcpy(a->hash, h, 65);
        if (synced) a->synced = a->seq;
        if (new_file) { /* audit.log starts here: the files kept are audit_keep rotated ones and it */
            if (a->nfirsts == MG_AUDIT_FILES_MAX || a->nfirsts > a->keep) {
                int drop = a->nfirsts - (a->keep < MG_AUDIT_FILES_MAX - 1 ? a->keep : MG_AUDIT_FILES_MAX - 1);
                memmove(a->firsts, a->firsts + drop, sizeof(a->firsts[0]) * (size_t)(a->nfirsts - drop));
                a->nfirsts -= drop;
            }
            a->firsts[a->nfirsts++] = a->seq;
        }
        /* after the line (and its sync): the anchor is never ahead of the log */
        rc = anchor_write(a, synced, err);
        if (rc == 0 && a->prune) prune(a);
    }
    return rc;
}

static int files_emit(void *self, const struct mg_audit_event *ev, struct mg_err *err)
{
    struct files *a = self;
    pthread_mutex_lock(&a->mu);
    int rc = -1;
    if (mg__audit_lock(a->lockfd, LOCK_EX) != 0) {
        mg__audit_io_err(err, "lock", a->dir);
    } else {
        rc = resync(a, err);
        if (rc == 0) rc = append(a, ev, err);
        if (rc != 0) a->known = false; /* re-read the file next time */
        mg__audit_lock(a->lockfd, LOCK_UN);
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

static void files_close(void *self)
{
    struct files *a = self;
    if (!a) return;
    if (a->fd >= 0) close(a->fd);
    if (a->lockfd >= 0) close(a->lockfd);
    if (a->anchor_fd >= 0) close(a->anchor_fd);
    sodium_memzero(a->key, sizeof(a->key));
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* Create <data dir>/audit, load (or make) the audit key, open the log and
 * bring its tail up to date (a torn last line repaired, the anchor checked:
 * audit.h). */
static int files_open(const struct mg_config *c, mg__audit_publish_fn publish, void *ud, void **self,
                      struct mg_err *err)
{
    *self = NULL;
    struct files *a = calloc(1, sizeof(*a));
    if (!a) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory opening the audit log");
    pthread_mutex_init(&a->mu, NULL);
    a->fd = a->lockfd = a->anchor_fd = -1;
    a->max_bytes = c->audit_max_bytes;
    a->keep = c->audit_keep > 0 ? c->audit_keep : 1;
    if (a->keep > MG_AUDIT_KEEP_MAX) a->keep = MG_AUDIT_KEEP_MAX;
    a->sync = strcmp(c->audit_fsync, "off") == 0 ? 0 : strcmp(c->audit_fsync, "writes") == 0 ? 1 : 2;
    snprintf(a->dir, sizeof(a->dir), "%s/audit", c->home);
    snprintf(a->path, sizeof(a->path), "%s/audit.log", a->dir);
    snprintf(a->anchor, sizeof(a->anchor), "%s/audit.anchor", a->dir);
    snprintf(a->anchor_tmp, sizeof(a->anchor_tmp), "%s/audit.anchor.tmp", a->dir);
    mg__audit_boot_id(a->boot);
    a->publish = publish;
    a->ud = ud;
    if (mg__audit_key_load(c, true, a->key, a->key_path, sizeof(a->key_path), err) != 0) goto fail;
    if (mg_mkdirs_0700(a->dir, err) != 0 || (a->lockfd = mg__audit_open_lock(a->dir, err)) < 0) goto fail;
    if (mg__audit_lock(a->lockfd, LOCK_EX) != 0) {
        mg__audit_io_err(err, "lock", a->dir);
        goto fail;
    }
    int rc = resync(a, err);
    mg__audit_lock(a->lockfd, LOCK_UN);
    if (rc != 0) goto fail;
    *self = a;
    return 0;
fail:
    files_close(a);
    return -1;
}

const struct mg__audit_backend mg__audit_files = {files_open, files_emit, files_close};
