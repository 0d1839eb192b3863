/* watch.c — the file watcher (see watch.h).
 *
 * One thread: it polls the inotify descriptor and an eventfd that stops it,
 * turns events into root-relative paths per repo, and runs a repo's batch
 * once the repo has been quiet (quiet_s). Housekeeping on the same
 * thread: the catalog and the repos' settings every WATCH_RESCAN_S seconds,
 * leases, polling repos, the state in each repo's meta.
 *
 * Sections:
 *   1. the watcher's state
 *   2. state in the repo's meta
 *   3. watches — inotify watches on a repo's directories
 *   4. batches — changed paths queued until the repo is quiet, then indexed
 *   5. events
 *   6. the catalog, leases, the loop
 *   7. public API
 */
#include "index/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/indexer.h"
#include "index/walk.h"
#include "store/catalog.h"
#include "store/db.h"
#include "store/settings.h"
#include "util/clock.h"

#define MASK                                                                                                     \
    (IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ONLYDIR |             \
     IN_DONT_FOLLOW | IN_EXCL_UNLINK)

/* ---- 1. the watcher's state ---------------------------------------------- */

enum state { OFF, WATCHING, POLLING };
static const char *const state_name[] = {"off", "watching", "polling"};

struct repo {
    struct mg_repo info;
    int lease;   /* <db>.watch, flocked; -1: not ours */
    enum state state;
    struct mg_walk_rules *rules;
    size_t nwatch;
    char **batch; /* changed paths waiting */
    size_t nbatch, cap;
    bool full;                /* a full run is due (a .gitignore changed, events were lost) */
    bool rewatch;             /* after the next run, watch the tree again (ignore rules changed) */
    double first, last;       /* first and latest change of the batch; 0: none */
    double retry_at;          /* index_busy: try the batch again then */
    double tidy_at;           /* upkeep once quiet this long after a run (mg_index_tidy); 0: none due */
    double next_poll, next_refresh;
    bool listed;              /* in the latest catalog listing */
};

struct wdir {
    struct repo *r;
    char *rel; /* "" for the root */
};

struct mg_watcher {
    struct mg_config cfg;
    struct mg_watch_hook hook; /* (ran NULL: none) */
    pthread_t th;
    int ifd, stopfd;
    volatile int stopping;
    struct repo **repos;
    size_t nrepos;
    struct wdir **wd; /* by watch descriptor */
    size_t nwd;
    long fake_limit;  /* MEMGATE_TEST_WATCH_LIMIT: ENOSPC after this many watches (test seam) */
    long watches;
    double next_rescan;
};

/* ---- 2. state in the repo's meta ----------------------------------------- */

static void publish(struct repo *r)
{
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(r->info.dbpath, 0, &d, &err) != 0) return;
    if (mg_db_exec(d, "BEGIN IMMEDIATE", &err) == 0) {
        mg_db_meta_set(d, "watch.state", state_name[r->state], &err);
        mg_db_meta_set_int(d, "watch.count", (int64_t)r->nwatch, &err);
        mg_db_meta_set_int(d, "watch.pending", (int64_t)r->nbatch + (r->full ? 1 : 0), &err);
        mg_db_meta_set_int(d, "watch.pid", (int64_t)getpid(), &err);
        mg_db_meta_set_int(d, "watch.updated_at", (int64_t)time(NULL), &err);
        if (mg_db_exec(d, "COMMIT", &err) != 0) mg_db_exec(d, "ROLLBACK", &err);
    }
    mg_db_close(&d);
    r->next_refresh = mg_clock_s() + WATCH_REFRESH_S;
}

/* Whether the repo wants watching: its setting `watch`, else the config's. */
static bool wanted(const struct mg_watcher *w, const struct repo *r)
{
    struct mg_repo_settings s;
    mg_settings_defaults(&s);
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(r->info.dbpath, MG_DB_READONLY, &d, &err) == 0) {
        if (mg_settings_read(d, &s, &err) != 0) mg_settings_defaults(&s);
        mg_db_close(&d);
    }
    return mg_settings_watch_on(&s, &w->cfg);
}

/* ---- 3. watches ---------------------------------------------------------- */

static void unwatch_all(struct mg_watcher *w, struct repo *r, const char *under)
{
    size_t ul = under ? strlen(under) : 0;
    for (size_t i = 0; i < w->nwd; i++) {
        struct wdir *x = w->wd[i];
        if (!x || x->r != r) continue;
        if (under && !(strncmp(x->rel, under, ul) == 0 && (x->rel[ul] == 0 || x->rel[ul] == '/'))) continue;
        inotify_rm_watch(w->ifd, (int)i);
        free(x->rel);
        free(x);
        w->wd[i] = NULL;
        r->nwatch--;
        w->watches--;
    }
}

/* Watch one directory. 0, or -1 with errno (ENOSPC: the kernel's limit). */
static int watch_dir(struct mg_watcher *w, struct repo *r, const char *rel)
{
    if (w->fake_limit && w->watches >= w->fake_limit) {
        errno = ENOSPC;
        return -1;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s%s%s", r->info.root, *rel ? "/" : "", rel);
    int wd = inotify_add_watch(w->ifd, path, MASK);
    if (wd < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
    if ((size_t)wd >= w->nwd) {
        size_t n = (size_t)wd * 2 + 64;
        struct wdir **v = realloc(w->wd, n * sizeof(*v));
        if (!v) return -1;
        memset(v + w->nwd, 0, (n - w->nwd) * sizeof(*v));
        w->wd = v;
        w->nwd = n;
    }
    if (w->wd[wd]) { /* the same directory again (a rename back and forth): keep the new name */
        free(w->wd[wd]->rel);
        w->wd[wd]->rel = strdup(rel);
        return w->wd[wd]->rel ? 0 : -1;
    }
    struct wdir *x = malloc(sizeof(*x));
    if (!x || !(x->rel = strdup(rel))) {
        free(x);
        return -1;
    }
    x->r = r;
    w->wd[wd] = x;
    r->nwatch++;
    w->watches++;
    return 0;
}

/* Watch rel and every directory under it the walk enters. 0, or the errno
 * of the failure (ENOSPC: the kernel's limit). */
static int watch_tree(struct mg_watcher *w, struct repo *r, const char *rel)
{
    size_t cap = 64, n = 0;
    char **stack = malloc(cap * sizeof(*stack));
    if (!stack || !(stack[n++] = strdup(rel))) {
        free(stack);
        return ENOMEM;
    }
    int rc = 0, rootfd = open(r->info.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (n > 0) {
        char *dir = stack[--n];
        if (rc == 0 && watch_dir(w, r, dir) != 0) rc = errno ? errno : ENOMEM;
        int dfd = rc == 0 && rootfd >= 0
                      ? (*dir ? openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : dup(rootfd))
                      : -1;
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d && dfd >= 0) close(dfd);
        struct dirent *de;
        while (d && rc == 0 && (de = readdir(d))) {
            if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) continue;
            const char *nm = de->d_name;
            if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2]))) continue;
            char sub[PATH_MAX];
            int len = snprintf(sub, sizeof(sub), "%s%s%s", dir, *dir ? "/" : "", nm);
            struct stat st;
            if (len < 0 || (size_t)len >= sizeof(sub) || fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                !S_ISDIR(st.st_mode) || mg_walk_rules_skip_dir(r->rules, sub))
                continue;
            if (n == cap) {
                char **s = realloc(stack, (cap *= 2) * sizeof(*s));
                if (!s) {
                    rc = ENOMEM;
                    break;
                }
                stack = s;
            }
            if (!(stack[n++] = strdup(sub))) rc = ENOMEM;
        }
        if (d) closedir(d);
        free(dir);
    }
    while (n > 0) free(stack[--n]);
    free(stack);
    if (rootfd >= 0) close(rootfd);
    return rc;
}

static void stop_watching(struct mg_watcher *w, struct repo *r)
{
    unwatch_all(w, r, NULL);
    mg_walk_rules_close(r->rules);
    r->rules = NULL;
}

/* Watch the whole tree; at the watch limit, fall back to polling and say so. */
static void start_watching(struct mg_watcher *w, struct repo *r)
{
    struct mg_err err = {0};
    stop_watching(w, r);
    if (mg_walk_rules_open(r->info.root, &r->rules, &err) != 0) {
        fprintf(stderr, "memgate: watch: %s: %s; not watched\n", r->info.id, err.msg);
        r->state = OFF;
        return;
    }
    int e = watch_tree(w, r, "");
    if (e == 0) {
        r->state = WATCHING;
        return;
    }
    stop_watching(w, r);
    r->state = POLLING;
    r->next_poll = 0; /* a run now catches what happened meanwhile */
    if (e == ENOSPC)
        fprintf(stderr, "memgate: watch: %s: the kernel's inotify watch limit is reached (raise "
                "fs.inotify.max_user_watches); checking the repo every %d s instead\n", r->info.id,
                w->cfg.watch_poll_interval);
    else
        fprintf(stderr, "memgate: watch: %s: cannot watch (%s); checking the repo every %d s instead\n",
                r->info.id, strerror(e), w->cfg.watch_poll_interval);
}

/* ---- 4. batches ---------------------------------------------------------- */

static void batch_clear(struct repo *r)
{
    for (size_t i = 0; i < r->nbatch; i++) free(r->batch[i]);
    r->nbatch = 0;
    r->full = false;
    r->first = r->last = 0;
}

static void queue(struct repo *r, const char *rel, double t)
{
    if (!r->first) r->first = t;
    r->last = t;
    if (r->full) return;
    if (r->nbatch && strcmp(r->batch[r->nbatch - 1], rel) == 0) return; /* a write in several events */
    if (r->nbatch >= WATCH_MAX_BATCH) {
        batch_clear(r);
        r->full = true;
        r->first = r->last = t;
        return;
    }
    if (r->nbatch == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        char **v = realloc(r->batch, cap * sizeof(*v));
        if (!v) {
            r->full = true;
            return;
        }
        r->batch = v;
        r->cap = cap;
    }
    if (!(r->batch[r->nbatch] = strdup(rel))) r->full = true;
    else r->nbatch++;
}

/* Index the repo's batch (or all of it). */
static void run(struct mg_watcher *w, struct repo *r, bool full)
{
    /* a full run (catching up, polling) reads only files whose size or mtime moved */
    struct mg_index_opts o = {.path = r->info.root, .stored_root = r->info.root, .tenant = r->info.tenant,
                              .token = strcmp(r->info.tenant, "local") != 0, .stop = &w->stopping,
                              .trust_mtime = full, .lock_wait_ms = -1};
    if (!full) {
        o.paths = (const char *const *)r->batch;
        o.npaths = r->nbatch;
        o.rules = r->rules;
    }
    struct mg_index_stats st;
    struct mg_err err = {0};
    if (mg_index_run(&w->cfg, &o, &st, &err) != 0) {
        if (err.code && strcmp(err.code, MG_E_LOCKED) == 0) { /* `memgate index` or another run: after it */
            r->retry_at = mg_clock_s() + 0.5;
            return;
        }
        if (!w->stopping)
            fprintf(stderr, "memgate: watch: %s: re-indexing %s failed: %s\n", r->info.id,
                    full ? "the repo" : "changed files", err.msg);
    } else if (w->hook.ran) {
        w->hook.ran(w->hook.arg, r->info.tenant, r->info.id, (long long)st.files,
                    (long long)(st.added + st.changed + st.removed));
    }
    r->retry_at = 0;
    r->tidy_at = mg_clock_s() + WATCH_TIDY_IDLE_MS / 1000.0;
    batch_clear(r);
    malloc_trim(0); /* a run's buffers (the known files, the git index) go back to the system */
    if (r->rewatch && r->state == WATCHING) {
        r->rewatch = false;
        start_watching(w, r);
    }
    publish(r);
}

/* ---- 5. events ----------------------------------------------------------- */

static void on_event(struct mg_watcher *w, const struct inotify_event *ev, double t)
{
    if (ev->mask & IN_Q_OVERFLOW) { /* events were lost: every watched repo again, whole */
        for (size_t i = 0; i < w->nrepos; i++)
            if (w->repos[i]->state == WATCHING) queue(w->repos[i], "", t), w->repos[i]->full = true;
        return;
    }
    if (ev->wd < 0 || (size_t)ev->wd >= w->nwd || !w->wd[ev->wd]) return;
    struct wdir *x = w->wd[ev->wd];
    struct repo *r = x->r;
    if (ev->mask & IN_IGNORED) { /* the directory is gone (its parent says so too) */
        free(x->rel);
        free(x);
        w->wd[ev->wd] = NULL;
        r->nwatch--;
        w->watches--;
        return;
    }
    if (!ev->len || !ev->name[0]) return;
    char rel[PATH_MAX];
    int n = snprintf(rel, sizeof(rel), "%s%s%s", x->rel, *x->rel ? "/" : "", ev->name);
    if (n < 0 || (size_t)n >= sizeof(rel)) return;
    if (ev->mask & IN_ISDIR) {
        if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) unwatch_all(w, r, rel); /* its files: the sweep */
        if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && !mg_walk_rules_skip_dir(r->rules, rel) &&
            watch_tree(w, r, rel) == ENOSPC) {
            start_watching(w, r); /* -> polling, and says so */
            return;
        }
        queue(r, rel, t);
        return;
    }
    if (strcmp(mg_base_name(rel), ".gitignore") == 0) { /* the rules changed: all files, and the watches */
        r->full = r->rewatch = true;
        queue(r, rel, t);
        return;
    }
    queue(r, rel, t);
}

static void read_events(struct mg_watcher *w)
{
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->ifd, buf, sizeof(buf));
        if (n <= 0) return;
        double t = mg_clock_s();
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            on_event(w, ev, t);
            p += sizeof(*ev) + ev->len;
        }
    }
}

/* ---- 6. the catalog, leases, the loop ------------------------------------ */

static void release(struct mg_watcher *w, struct repo *r)
{
    stop_watching(w, r);
    batch_clear(r);
    if (r->lease >= 0) {
        r->state = OFF;
        publish(r);
        close(r->lease);
        r->lease = -1;
    }
    r->state = OFF;
}

static bool take_lease(struct repo *r)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof(p), "%s.watch", r->info.dbpath);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return false;
    }
    r->lease = fd;
    return true;
}

static void rescan(struct mg_watcher *w)
{
    struct mg_repo *v = NULL;
    size_t n = 0;
    struct mg_err err = {0};
    w->next_rescan = mg_clock_s() + WATCH_RESCAN_S;
    if (mg_catalog_list(&w->cfg, &v, &n, &err) != 0) return;
    for (size_t i = 0; i < w->nrepos; i++) w->repos[i]->listed = false;
    for (size_t k = 0; k < n; k++) {
        struct repo *r = NULL;
        if (!mg_repo_has_index(&v[k])) continue; /* shared catalog: no index here (yet): nothing to keep current */
        for (size_t i = 0; i < w->nrepos && !r; i++)
            if (strcmp(w->repos[i]->info.id, v[k].id) == 0 && strcmp(w->repos[i]->info.root, v[k].root) == 0)
                r = w->repos[i];
        if (!r) {
            struct repo **rv = realloc(w->repos, (w->nrepos + 1) * sizeof(*rv));
            if (!rv || !(r = calloc(1, sizeof(*r)))) {
                if (rv) w->repos = rv;
                break;
            }
            w->repos = rv;
            w->repos[w->nrepos++] = r;
            r->lease = -1;
        }
        r->info = v[k];
        r->listed = true;
    }
    free(v);
    for (size_t i = 0; i < w->nrepos;) { /* removed repos */
        struct repo *r = w->repos[i];
        if (r->listed) {
            i++;
            continue;
        }
        release(w, r);
        free(r->batch);
        free(r);
        w->repos[i] = w->repos[--w->nrepos];
    }
    for (size_t i = 0; i < w->nrepos; i++) {
        struct repo *r = w->repos[i];
        bool want = wanted(w, r);
        if (!want && r->lease >= 0) release(w, r);
        if (want && r->lease < 0 && take_lease(r)) {
            start_watching(w, r);
            r->full = r->state == WATCHING; /* what changed while nobody watched */
            if (r->full) r->first = r->last = mg_clock_s() - WATCH_QUIET_MS / 1000.0;
            publish(r);
        }
    }
}

/* How long the repo must have been quiet before its batch runs (watch.h):
 * short for an edit, longer for a stream of changes or a full run. */
static double quiet_s(const struct repo *r)
{
    return (r->full || r->nbatch > WATCH_EDIT_PATHS ? WATCH_QUIET_MS : WATCH_QUIET_EDIT_MS) / 1000.0;
}

/* Milliseconds until the next thing to do. */
static int housekeeping(struct mg_watcher *w)
{
    double t = mg_clock_s(), next = w->next_rescan;
    if (t >= w->next_rescan) rescan(w), next = w->next_rescan;
    for (size_t i = 0; i < w->nrepos && !w->stopping; i++) {
        struct repo *r = w->repos[i];
        if (r->lease < 0) continue;
        t = mg_clock_s();
        if (r->state == POLLING && t >= r->next_poll) {
            r->next_poll = t + w->cfg.watch_poll_interval;
            run(w, r, true);
        }
        if (r->state == POLLING && r->next_poll < next) next = r->next_poll;
        if (r->first) {
            double due = r->last + quiet_s(r), cap = r->first + WATCH_MAX_WAIT_MS / 1000.0;
            if (cap < due) due = cap;
            if (r->retry_at > due) due = r->retry_at;
            if (mg_clock_s() >= due) run(w, r, r->full);
            else if (due < next) next = due;
        }
        /* quiet since its last run: the upkeep nobody should wait for (another run holding the repo: it tidies) */
        if (r->tidy_at && !r->first) {
            if (mg_clock_s() >= r->tidy_at) {
                struct mg_err err = {0};
                bool more = false;
                if (mg_index_tidy(r->info.dbpath, &more, &err) != 0 && err.code &&
                    strcmp(err.code, MG_E_LOCKED) != 0 && strcmp(err.code, MG_E_REPO_NOT_FOUND) != 0)
                    fprintf(stderr, "memgate: watch: %s: merging the index's segments failed: %s\n", r->info.id,
                            err.msg);
                malloc_trim(0); /* its handle's page cache and the merge's buffers, as after a run */
                /* more to merge: the next step once events had their turn */
                r->tidy_at = more ? mg_clock_s() + WATCH_TIDY_STEP_MS / 1000.0 : 0;
                if (r->tidy_at && r->tidy_at < next) next = r->tidy_at;
            } else if (r->tidy_at < next) {
                next = r->tidy_at;
            }
        }
        if (mg_clock_s() >= r->next_refresh) publish(r);
        if (r->next_refresh < next) next = r->next_refresh;
    }
    double ms = (next - mg_clock_s()) * 1000;
    return ms < 1 ? 1 : ms > 60000 ? 60000 : (int)ms;
}

static void *watch_main(void *p)
{
    struct mg_watcher *w = p;
    while (!w->stopping) {
        int timeout = housekeeping(w);
        struct pollfd pf[2] = {{.fd = w->ifd, .events = POLLIN}, {.fd = w->stopfd, .events = POLLIN}};
        if (poll(pf, 2, timeout) < 0 && errno != EINTR) break;
        if (pf[1].revents) break;
        if (pf[0].revents & POLLIN) read_events(w);
    }
    for (size_t i = 0; i < w->nrepos; i++) {
        release(w, w->repos[i]);
        free(w->repos[i]->batch);
        free(w->repos[i]);
    }
    free(w->repos);
    w->repos = NULL;
    w->nrepos = 0;
    return NULL;
}

/* ---- 7. public API ------------------------------------------------------- */

int mg_watcher_start(const struct mg_config *c, const struct mg_watch_hook *hook, struct mg_watcher **out,
                     struct mg_err *err)
{
    *out = NULL;
    struct mg_watcher *w = calloc(1, sizeof(*w));
    if (!w) return mg_err_oom(err);
    w->cfg = *c;
    if (hook) w->hook = *hook;
    const char *lim = getenv("MEMGATE_TEST_WATCH_LIMIT");
    w->fake_limit = lim ? strtol(lim, NULL, 10) : 0;
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->ifd < 0 || w->stopfd < 0) {
        mg_err_set(err, MG_E_IO, "cannot start the file watcher: %s", strerror(errno));
        goto fail;
    }
    if (pthread_create(&w->th, NULL, watch_main, w) != 0) {
        mg_err_set(err, MG_E_IO, "cannot start the file watcher thread");
        goto fail;
    }
    *out = w;
    return 0;
fail:
    if (w->ifd >= 0) close(w->ifd);
    if (w->stopfd >= 0) close(w->stopfd);
    free(w);
    return -1;
}

void mg_watcher_stop(struct mg_watcher *w)
{
    if (!w) return;
    w->stopping = 1;
    uint64_t one = 1;
    (void)!write(w->stopfd, &one, sizeof(one));
    pthread_join(w->th, NULL);
    free(w->wd); /* every wdir was freed with its repo */
    close(w->ifd);
    close(w->stopfd);
    free(w);
}
