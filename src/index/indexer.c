/* indexer.c — an index run (see indexer.h): the repo opened and locked,
 * the walk, the workers started (indexer_work.c), the writer's loop
 * committing in batches (indexer_write.c), the end of the run and its
 * stats. indexer_int.h says how the files share the work.
 *
 * Sections:
 *   1. progress
 *   2. the repo: its root, id, database and lock
 *   3. mg_index_run: lock, walk, run, finish, stats
 */
#include "index/indexer_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "security/roots.h"
#include "store/indexdb.h"
#include "util/clock.h"

/* Each commit makes FTS5 flush its pending terms into a new segment that
 * later has to be merged; fewer, larger commits are much cheaper. A kill
 * loses at most this much work. */
#define COMMIT_BYTES   (256u << 20) /* commit after this much new text ... */
#define COMMIT_SECONDS 30.0         /* ... or this long */

/* Test seam: MEMGATE_TEST_COMMIT_BYTES makes batches small, so the crash
 * tests can kill a run between commits. */
static uint64_t commit_bytes(void)
{
    const char *e = getenv("MEMGATE_TEST_COMMIT_BYTES");
    uint64_t v = e ? strtoull(e, NULL, 10) : 0;
    return v ? v : COMMIT_BYTES;
}


static void report(const struct mg_index_opts *o, struct run *R, double t0, bool final)
{
    struct mg_progress p = {
        .what = R->st->id,
        .phase = "index",
        .done = __atomic_load_n(&R->files_done, __ATOMIC_RELAXED),
        .total = R->walk.n,
        .bytes = __atomic_load_n(&R->bytes_done, __ATOMIC_RELAXED),
        .total_bytes = R->walk.total_bytes,
        .seconds = mg_clock_s() - t0,
        .final = final,
    };
    o->on_progress(o->progress_ud, &p);
}

/* ---- 2. the repo: its root, id, database and lock ----------------------------------------------- */

/* Test seam: MEMGATE_TEST_NO_MARKS makes and keeps an index as memgate made
 * them before symbol marks (meta fts.marks), for the test of their conversion. */
static bool no_marks(void) { return getenv("MEMGATE_TEST_NO_MARKS") != NULL; }

/* Resolve the canonical root and the repo id; open (creating) the database. */
static int open_repo(const struct mg_config *c, const struct mg_index_opts *o, struct mg_index_stats *st,
                     struct mg_db **d, struct mg_err *err)
{
    struct stat sb;
    if (stat(o->path, &sb) != 0)
        return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_PATH_NOT_FOUND,
                          "cannot index '%s': %s", o->path, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return mg_err_set(err, MG_E_NOT_A_DIR, "cannot index '%s': not a directory; give the repo's root directory",
                          o->path);
    if (!realpath(o->path, st->root))
        return mg_err_set(err, MG_E_IO, "cannot resolve '%s': %s", o->path, strerror(errno));
    const char *tenant = o->tenant ? o->tenant : "local";
    /* a token's tenant names its repos in its own namespace (store/catalog.h, issue 38 V9): the name it
     * chooses or the one derived, as TENANT~NAME, so whether a name is free never depends on another
     * tenant; the operator (the command line, no token) assigns ids as given */
    const char *ns = o->token ? tenant : NULL;
    char name[MG_ID_MAX + 1] = "";
    if (o->name) {
        size_t tl = ns ? strlen(ns) : 0;
        const char *nm = ns && strncmp(o->name, ns, tl) == 0 && o->name[tl] == MG_ID_SEP ? o->name + tl + 1 : o->name;
        if (mg_repo_check_name(nm, err) != 0) return -1;
        mg_repo_qualify(ns, nm, name, sizeof(name));
    }
    /* the one index-root policy: the tenant's roots, no other tenant's repo, not memgate's own directories */
    if (mg_root_check(c, tenant, o->token, st->root, o->stored_root, err) != 0) return -1;

    struct mg_repo existing;
    int found = mg_catalog_find_root(c, st->root, &existing, err);
    if (found < 0) return -1;
    if (found && strcmp(existing.tenant, tenant) != 0) /* mg_root_check refused it already */
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' is a repo of another tenant; index a directory of your "
                          "own", st->root);
    if (found && o->name && strcmp(name, existing.id) != 0 && strcmp(o->name, existing.id) != 0)
        return mg_err_set(err, MG_E_REPO_EXISTS, "'%s' is already indexed as '%s'; use that id, or run "
                          "`memgate repos rm %s` first", st->root, existing.id, existing.id);
    if (found) snprintf(st->id, sizeof(st->id), "%s", existing.id);
    else if (o->name) snprintf(st->id, sizeof(st->id), "%s", name);
    else {
        char derived[MG_NAME_MAX + 1];
        mg_repo_derive_id(st->root, derived, sizeof(derived));
        mg_repo_qualify(ns, derived, st->id, sizeof(st->id));
    }

    /* a name the operator gave one of this tenant's repos (no prefix) is the tenant's already; another
     * tenant's is no concern of this one's (the lookup is made either way) */
    struct mg_repo mine;
    if (!found && ns && o->name && mg_catalog_get(c, mg_repo_name_of(name), &mine, NULL) == 0 &&
        strcmp(mine.tenant, tenant) == 0)
        return mg_err_set(err, MG_E_REPO_EXISTS, "'%s' is already the name of your repo at '%s'; choose another name",
                          mg_repo_name_of(name), mine.root);

    char dir[PATH_MAX], path[PATH_MAX];
    if (mg_catalog_dir(c, 1, dir, sizeof(dir), err) != 0) return -1;
    mg_repo_dbpath(c, st->id, path, sizeof(path));
    /* (shared catalog: the id may be another root's on another machine, with no file here) */
    if (!found && (access(path, F_OK) == 0 || mg_catalog_shared(c))) {
        struct mg_repo other;
        if (mg_catalog_get(c, st->id, &other, NULL) == 0 && strcmp(other.root, st->root) != 0)
            return mg_err_set(err, MG_E_REPO_EXISTS, "repo id '%s' is taken by '%s'; choose another with --name",
                              st->id, strcmp(other.tenant, tenant) == 0 ? other.root : "another tenant");
        /* shared: a local index the catalog does not list (made before storage pointed at PostgreSQL) */
        if (mg_catalog_shared(c) && access(path, F_OK) == 0 && mg_catalog_read_local(path, &other, NULL) == 0 &&
            (strcmp(other.root, st->root) != 0 || strcmp(other.tenant, tenant) != 0))
            return mg_err_set(err, MG_E_REPO_EXISTS, "this data directory holds an index of %s under the id '%s' "
                              "(not in the shared catalog); choose another id with --name, or delete its files "
                              "(<data dir>/repos/%s.db*)", strcmp(other.tenant, tenant) == 0 ? other.root
                              : "another tenant's repo", st->id, st->id);
    }
    st->created = !found;
    if (mg_db_open(path, MG_DB_CREATE, d, err) != 0) return -1;
    char fp[33];
    mg_repo_fingerprint(st->root, fp);
    if (mg_db_begin(*d, err) != 0) goto fail;
    char have[PATH_MAX];
    if (mg_db_meta_get(*d, "id", have, sizeof(have)) != 0) {
        if (mg_db_meta_set(*d, "id", st->id, err) != 0 || mg_db_meta_set(*d, "root", st->root, err) != 0 ||
            mg_db_meta_set(*d, "fingerprint", fp, err) != 0 || mg_db_meta_set(*d, "tenant", tenant, err) != 0 ||
            mg_db_meta_set_int(*d, "created_at", (int64_t)time(NULL), err) != 0 ||
            (!no_marks() && mg_db_meta_set_int(*d, MG_META_MARKS, 1, err) != 0)) /* (new: marked from the start) */
            goto fail;
    }
    if (mg_db_commit(*d, err) != 0) goto fail;
    return 0;
fail:
    mg_db_close(d);
    return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The paths, sorted (the strings are shared, not copied). */
static char **sorted_copy(const char *const *paths, size_t n)
{
    char **v = malloc((n ? n : 1) * sizeof(*v));
    if (!v) return NULL;
    memcpy(v, paths, n * sizeof(*v));
    qsort(v, n, sizeof(*v), cmp_str);
    return v;
}

/* Whether path is one of the sorted batch paths or lies under one. */
static bool covered(char **batch, size_t n, const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *cut = buf + strlen(buf);;) {
        const char *key = buf;
        if (bsearch(&key, batch, n, sizeof(*batch), cmp_str)) return true;
        while (cut > buf && *cut != '/') cut--;
        if (cut == buf) return false;
        *cut = 0; /* the directory above */
    }
}

/* The repo's lock; another run holding it is waited for up to wait_ms (a
 * watcher's batch takes milliseconds), then index_busy. */
static int lock_repo(const char *dbpath, int wait_ms, int *fd, struct mg_err *err)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof(p), "%s.lock", dbpath);
    *fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (*fd < 0) return mg_err_set(err, MG_E_IO, "cannot create '%s': %s", p, strerror(errno));
    int got;
    for (int waited = 0; (got = flock(*fd, LOCK_EX | LOCK_NB)) != 0 && waited < wait_ms; waited += 20)
        usleep(20000);
    if (got != 0) {
        close(*fd);
        *fd = -1;
        return mg_err_set(err, MG_E_LOCKED, "another `memgate index` is running on this repo; wait for it to "
                          "finish");
    }
    return 0;
}

/* Merge the word index's segments (mg_idx_words_merge) a step at a time, each
 * its own transaction, until a step finds nothing (*more false) or about
 * MG_TIDY_BUDGET_MS have passed (*more true). 500 pages a step: the 42
 * segments 1,600 watched edits of Linux left folded to 3 in 3.3 s (38 steps,
 * the longest 0.8 s). */
static int fold_words(struct mg_db *d, bool *more, struct mg_err *err)
{
    double t0 = mg_clock_s();
    *more = false;
    for (;;) {
        const char *why;
        bool merged;
        if (mg_db_begin(d, err) != 0) return -1;
        if (mg_idx_words_merge(d, 500, &merged, &why) != 0) {
            mg_err_set(err, MG_E_DB, "merging the word index: %s", why);
            mg_db_rollback(d);
            return -1;
        }
        if (mg_db_commit(d, err) != 0) {
            mg_db_rollback(d);
            return -1;
        }
        if (!merged) return 0;
        if ((mg_clock_s() - t0) * 1000 >= MG_TIDY_BUDGET_MS) {
            *more = true;
            return 0;
        }
    }
}

/* The database file written while the writer merges: a run that wrote much
 * of the index has it all in the WAL (Linux's first run: 1.9 GB of frames
 * for a 1.46 GB file), and copying it was 8 s of one core after the merge.
 * Copied beside the merge instead, on a thread and handle of its own, the
 * closing checkpoint has only the merge's pages left. */
static void *checkpoint_main(void *path)
{
    mg_idx_checkpoint_passive(path);
    return NULL;
}

/* o->after_commit on its thread, with the stats as committed */
struct beside {
    const struct mg_index_opts *o;
    struct mg_index_stats st;
};

static void *beside_main(void *arg)
{
    struct beside *b = arg;
    b->o->after_commit(b->o->after_commit_ud, &b->st);
    return NULL;
}

/* ---- 3. mg_index_run: lock, walk, run, finish, stats --------------------------------------------- */

int mg_index_run(const struct mg_config *c, const struct mg_index_opts *o, struct mg_index_stats *st,
                 struct mg_err *err)
{
    memset(st, 0, sizeof(*st));
    double t0 = mg_clock_s(), cpu0 = mg__thread_cpu_s();
    struct mg_db *d = NULL;
    int lockfd = -1, rc = -1;
    struct run R;
    memset(&R, 0, sizeof(R));
    R.rootfd = -1;
    struct writer w;
    memset(&w, 0, sizeof(w));
    mg_buf_init(&w.tmp, 1 << 20);
    mg_buf_init(&w.streams, UINT32_MAX - 1);
    pthread_t *th = NULL;
    int nth = 0;

    if (open_repo(c, o, st, &d, err) != 0) goto out;
    if (lock_repo(d->path, o->lock_wait_ms ? o->lock_wait_ms : 5000, &lockfd, err) != 0) goto out;

    R.cfg = c;
    R.root = st->root;
    R.stop = o->stop;
    R.trust_mtime = o->trust_mtime;
    R.incremental = o->paths != NULL;
    mg_secret_policy(c, &R.policy);
    if (!(R.scanner = mg_secrets_scanner(c, err))) goto out;
    R.st = st;
    pthread_mutex_init(&R.err_mu, NULL);
    pthread_mutex_init(&R.q.mu, NULL);
    pthread_cond_init(&R.q.not_empty, NULL);
    pthread_cond_init(&R.q.not_full, NULL);
    R.rootfd = open(st->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (R.rootfd < 0) {
        mg_err_set(err, MG_E_IO, "cannot open '%s': %s", st->root, strerror(errno));
        goto out;
    }
    if (o->paths) { /* the watcher's handle: opening Linux's git index costs more than the batch */
        struct mg_walk_rules *rules = o->rules;
        if (!rules && mg_walk_rules_open(st->root, &rules, err) != 0) goto out;
        int wrc = mg_walk_paths(rules, c->max_file_size, o->paths, o->npaths, &R.walk, err);
        if (rules != o->rules) mg_walk_rules_close(rules);
        if (wrc != 0) goto out;
    } else if (mg_walk(st->root, c->max_file_size, &R.walk, err) != 0) {
        goto out;
    }
    if (mg_walk_drop_secret_paths(&R.walk, R.scanner, &R.policy, err) != 0) goto out; /* names are stored */
    st->git = R.walk.git;
    st->files = R.walk.n;
    st->skipped_too_large = R.walk.st.too_large;
    st->skipped_secret = R.walk.st.secret;
    st->skipped_symlink = R.walk.st.symlink;
    st->skipped_special = R.walk.st.special;
    st->skipped_bad_name = R.walk.st.bad_name;
    if (mg__known_load(d, o->paths, o->npaths, &R.known, err) != 0) goto out;

    w.d = d;
    R.marks = w.marks = mg_db_meta_int(d, MG_META_MARKS, 0) != 0;
    w.ts = mg_token_set_new();
    if (!w.ts) {
        mg_err_oom(err);
        goto out;
    }
    mg_idx_next_ids(d, NULL, &w.next_chunk, &w.next_sym);
    /* no checkpoint (and fsync) at every commit of a run: one at the end */
    mg_idx_bulk(d);
    if (mg_db_begin(d, err) != 0) goto out;
    /* a first index loads millions of symbols and function-pointer stores:
     * building their indexes once at the end beats keeping them sorted row
     * by row (they are made again below, and by the next run if this one dies) */
    if (st->created && mg_idx_bulk_indexes(d, false, err) != 0) goto rollback;
    /* and it ends with one merge of the whole word index: FTS5 merging as it
     * goes would be work that merge does again (set back below, and by the
     * next run if this one dies) */
    if (mg_idx_words_bulk(d, st->created, err) != 0) goto rollback;
    if (mg_tri_add_pending(d, TRI_FLUSH_BYTES, err) != 0) goto rollback;

    nth = c->index_threads;
    if ((size_t)nth > R.walk.n) nth = R.walk.n ? (int)R.walk.n : 1; /* a watcher's run of one file: one thread */
    mg_idx_next_ids(d, &R.base_id, NULL, NULL);
    R.tri_batch_bytes = TRI_FLUSH_BYTES / (size_t)nth;
    th = calloc((size_t)nth, sizeof(*th));
    if (!th) {
        mg_err_oom(err);
        goto rollback;
    }
    R.q.producers = nth;
    R.q.n = R.walk.n;
    if (!(R.q.none = calloc(R.walk.n ? R.walk.n : 1, 1))) {
        mg_err_oom(err);
        goto rollback;
    }
    for (int i = 0; i < nth; i++) {
        if (pthread_create(&th[i], NULL, mg__worker_main, &R) != 0) {
            /* run with the threads we have */
            pthread_mutex_lock(&R.q.mu);
            R.q.producers -= nth - i;
            pthread_mutex_unlock(&R.q.mu);
            nth = i;
            break;
        }
    }
    if (nth == 0) {
        mg_err_set(err, MG_E_INTERNAL, "cannot start index threads");
        goto rollback;
    }

    /* the writer loop */
    double last_commit = mg_clock_s(), last_report = 0;
    uint64_t batch = commit_bytes();
    uint64_t since_commit = 0;
    int werr = 0;
    for (;;) {
        bool timed_out;
        struct result *r = mg__queue_pop(&R.q, 100, &timed_out);
        if (!r && !timed_out) break;
        if (r && !werr) {
            if ((r->tri_batch ? mg_tri_builder_flush(r->tri_batch, d, err) : mg__write_result(&w, r, st, err)) != 0) {
                werr = 1;
                __atomic_store_n(&R.failed, 1, __ATOMIC_RELAXED);
            }
            since_commit += r->len;
        }
        mg__result_free(r);
        double t = mg_clock_s();
        if (!werr && (since_commit >= batch || (since_commit && t - last_commit >= COMMIT_SECONDS))) {
            if (mg_db_commit(d, err) != 0 || mg_db_begin(d, err) != 0) werr = 1;
            if (werr) __atomic_store_n(&R.failed, 1, __ATOMIC_RELAXED);
            since_commit = 0;
            last_commit = t;
        }
        if (o->on_progress && t - last_report >= 0.2) {
            report(o, &R, t0, false);
            last_report = t;
        }
    }
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
    if (werr) goto rollback;
    if (R.failed) {
        *err = R.worker_err;
        goto rollback;
    }
    if (o->on_progress) report(o, &R, t0, true);
    st->bytes_read = R.bytes_done;

    if (stopped(R.stop)) {
        /* keep what is done (under a new stamp: the next run may find nothing left to change);
         * the vanished-file sweep needs a complete walk */
        if ((w.changed && mg_idx_stamp_run(d, true, (int64_t)time(NULL), err) != 0) ||
            mg_idx_bulk_indexes(d, true, err) != 0 || mg_idx_words_bulk(d, false, err) != 0 ||
            mg_db_commit(d, err) != 0)
            goto rollback;
        mg_err_set(err, MG_E_INTERRUPTED, "interrupted after %llu of %zu files; what was indexed is kept, run "
                   "`memgate index` again to finish", (unsigned long long)R.files_done, R.walk.n);
        goto out;
    }

    /* files gone from the tree (or now skipped); of an incremental run, those among its paths */
    char **asked = o->paths ? sorted_copy(o->paths, o->npaths) : NULL;
    if (o->paths && !asked) {
        mg_err_oom(err);
        goto rollback;
    }
    for (size_t i = 0; i < R.known.n; i++) {
        if (R.known.v[i].seen || (asked && !covered(asked, o->npaths, R.known.v[i].path))) continue;
        if (mg__delete_file(&w, R.known.v[i].id, err) != 0) {
            free(asked);
            goto rollback;
        }
        st->removed++;
    }
    free(asked);
    if (!o->paths && mg__fill_refs(&w, err) != 0) goto rollback;
    bool marked = !o->paths && !w.marks && !no_marks();
    if (marked && o->on_progress) { /* (a minute and a half for Linux, once) */
        struct mg_progress p = {.what = st->id, .phase = "marks"};
        o->on_progress(o->progress_ud, &p);
    }
    if (marked && mg__mark_words(&w, err) != 0) goto rollback;
    /* SQLite may sort with helper threads: the index of a first run is
     * millions of names */
    mg_idx_sort_threads(d, 4);
    if (mg_idx_bulk_indexes(d, true, err) != 0 || mg_idx_words_bulk(d, false, err) != 0) goto rollback;
    if (o->paths) { /* what the run changed, on the last totals: counting a big index takes a second */
        st->total_files = (uint64_t)(mg_db_meta_int(d, "files", 0) + w.d_files);
        st->total_bytes = (uint64_t)(mg_db_meta_int(d, "bytes", 0) + w.d_bytes);
        st->chunks = (uint64_t)(mg_db_meta_int(d, "chunks", 0) + w.d_chunks);
        st->symbols = (uint64_t)(mg_db_meta_int(d, "symbols", 0) + w.d_symbols);
    } else {
        mg_idx_totals(d, &st->total_files, &st->total_bytes, &st->chunks, &st->symbols);
    }
    if (mg_tri_tidy(d, w.dead_bytes, st->total_bytes, o->paths != NULL, err) != 0) goto rollback;
    /* index_gen grows with every run that changes the index: it names caches of what the index
     * holds (search/chunkset.h, the repo map's graph: a re-index that changed nothing rebuilt it,
     * 1.0-2.5 s of Linux's 3.6-4.2 s); one clock reading, so indexed_at and index.full_at/incr_at
     * name the same second */
    int64_t now = (int64_t)time(NULL);
    if (mg_idx_stamp_run(d, w.changed, now, err) != 0 ||
        mg_db_meta_set_int(d, "indexed_at", now, err) != 0 ||
        mg_db_meta_set_int(d, "files", (int64_t)st->total_files, err) != 0 ||
        mg_db_meta_set_int(d, "bytes", (int64_t)st->total_bytes, err) != 0 ||
        mg_db_meta_set_int(d, "chunks", (int64_t)st->chunks, err) != 0 ||
        mg_db_meta_set_int(d, "symbols", (int64_t)st->symbols, err) != 0 ||
        mg_db_meta_set(d, "walk", st->git ? "git" : "plain", err) != 0 ||
        (!o->paths && mg_db_meta_set_int(d, "refs_ready", 1, err) != 0) ||
        mg_db_meta_set_int(d, o->paths ? "index.incr_at" : "index.full_at", now, err) != 0 ||
        mg_db_meta_set_int(d, o->paths ? "index.incr_ms" : "index.full_ms", (int64_t)((mg_clock_s() - t0) * 1000), err) != 0 ||
        mg_db_meta_set_int(d, "index.redactions",
                           mg_db_meta_int(d, "index.redactions", 0) + (int64_t)st->secrets_redacted, err) != 0 ||
        mg_db_meta_set(d, "index.last_error", "", err) != 0)
        goto rollback;
    if (mg_db_commit(d, err) != 0) goto rollback;
    struct beside b = {.o = o, .st = *st};
    pthread_t bt;
    bool bt_on = o->after_commit && pthread_create(&bt, NULL, beside_main, &b) == 0;
    if (o->after_commit && !bt_on) beside_main(&b); /* no thread: here, before the merge */
    /* A run that wrote much of the index leaves FTS5 many segments, and each
     * query term then reads a doclist from every one: merge them into one
     * (merge_seconds: 10.5-14.7 s after Linux's first run; lexical p50 9-11
     * -> 7-9 ms on bench/quality.c, docs/benchmarks.md). Small runs leave it
     * to FTS5's automerge, which falls behind many of them (a hook's run per
     * push): a run not a watcher's folds them for up to MG_TIDY_BUDGET_MS
     * (a watcher does it when quiet, mg_index_tidy). Its own transactions: a
     * failure leaves the index as it was. */
    const char *why;
    bool more;
    struct mg_err merr = {0};
    pthread_t ckpt;
    bool ckpt_on = false;
    if ((st->chunks_written > 0 && st->chunks_written * 4 >= st->chunks) || marked) {
        ckpt_on = pthread_create(&ckpt, NULL, checkpoint_main, d->path) == 0;
        double m0 = mg_clock_s();
        if (o->on_progress) {
            struct mg_progress p = {.what = st->id, .phase = "merge"};
            o->on_progress(o->progress_ud, &p);
        }
        if (mg_idx_words_optimize(d, &why) != 0) mg_err_set(&merr, MG_E_DB, "%s", why);
        st->merge_seconds = mg_clock_s() - m0;
    } else if (!o->paths) {
        fold_words(d, &more, &merr);
    }
    if (merr.code)
        fprintf(stderr, "memgate: warning: index %s: merging the word index failed (%s); searches work, a "
                        "little slower\n", st->id, merr.msg);
    /* vectors for what has none, from the stored text; never fails the run */
    mg_vec_index(c, d, st->id, o->on_progress, o->progress_ud, o->stop, &st->vec);
    if (ckpt_on) pthread_join(ckpt, NULL);
    if (bt_on) pthread_join(bt, NULL);
    mg_idx_checkpoint(d);
    rc = 0;
    goto out;

rollback:
    if (d) mg_db_rollback(d);
out:
    /* for status: what went wrong last (best effort; another run holding the lock is no failure) */
    if (rc != 0 && d && (!err->code || strcmp(err->code, MG_E_LOCKED) != 0)) {
        char msg[600];
        snprintf(msg, sizeof(msg), "%s: %s", err->code ? err->code : "error", err->msg);
        struct mg_err ignored = {0};
        if (mg_db_meta_set(d, "index.last_error", msg, &ignored) == 0)
            mg_db_meta_set_int(d, "index.last_error_at", (int64_t)time(NULL), &ignored);
    }
    free(th); /* every started thread was joined above */
    mg__writer_release(&w);
    {
        /* drain anything left in the queue after a failure */
        struct result *r = R.q.head;
        while (r) {
            struct result *n = r->next;
            mg__result_free(r);
            r = n;
        }
        free(R.q.none);
    }
    mg__known_release(&R.known);
    mg_walk_release(&R.walk);
    if (R.rootfd >= 0) close(R.rootfd);
    mg_db_close(&d);
    if (lockfd >= 0) close(lockfd);
    st->seconds = mg_clock_s() - t0;
    st->cpu_writer = mg__thread_cpu_s() - cpu0;
    return rc;
}

int mg_index_tidy(const char *dbpath, bool *more, struct mg_err *err)
{
    struct mg_db *d = NULL;
    int lockfd = -1, rc = -1;
    bool merged;
    *more = false;
    if (mg_db_open(dbpath, 0, &d, err) != 0) return -1;
    if (lock_repo(d->path, -1, &lockfd, err) != 0) goto out;
    if (mg_db_meta_int(d, "tri_recent_segs", MG_TRI_RECENT_SEGS_IDLE + 1) > MG_TRI_RECENT_SEGS_IDLE) {
        if (mg_db_begin(d, err) != 0) goto out;
        if (mg_tri_merge_recent(d, MG_TRI_RECENT_SEGS_IDLE, &merged, err) != 0 || mg_db_commit(d, err) != 0) {
            mg_db_rollback(d);
            goto out;
        }
    }
    if (fold_words(d, more, err) != 0) goto out;
    rc = 0;
out:
    mg_db_close(&d);
    if (lockfd >= 0) close(lockfd);
    return rc;
}
