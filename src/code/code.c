/* code.c — the built-in code provider (code.h): search, symbols, list,
 * repos, index and remove; read and outline are in read.c.
 *
 * Sections:
 *   1. items and scope
 *   2. search, symbols
 *   3. list
 *   4. repos, index, remove
 *   5. the provider
 */
#include "code/code.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/indexer.h"
#include "index/watch.h"
#include "search/hybrid.h"
#include "search/repomap.h"
#include "search/search.h"
#include "search/texts.h"
#include "store/catalog.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/progress.h"
#include "vector/vstore.h"

/* ---- 1. items and scope ------------------------------------------------------------------------- */

void mg_code_owner(struct mg_item *it, const struct mg_repo *r)
{
    snprintf(it->own.tenant, sizeof(it->own.tenant), "%s", r->tenant);
    snprintf(it->own.repo, sizeof(it->own.repo), "%s", r->id);
    snprintf(it->own.fp, sizeof(it->own.fp), "%s", r->fingerprint);
}

int mg_code_filter(const struct mg_pcall *pc, struct mg_filter *f, struct mg_err *err)
{
    const struct mg_scope *sc = pc->scope;
    *f = (struct mg_filter){.langs = (const char *const *)sc->langs, .nlangs = (int)sc->nlangs};
    return mg_globset_new((const char *const *)sc->globs, sc->nglobs, (const char *const *)sc->excludes,
                          sc->nexcludes, &f->globs, err);
}

static const struct mg_repo *repo_of(const struct mg_pcall *pc, const char *id)
{
    for (size_t i = 0; i < pc->nrepos; i++)
        if (strcmp(pc->repos[i].id, id) == 0) return &pc->repos[i];
    return NULL;
}


/* ---- 2. search, symbols ------------------------------------------------------------------------- */

static int run_search(struct mg_code_self *self, const struct mg_pcall *pc, const struct mg_code_query *q,
                      enum mg_mode mode, struct mg_items *out, struct mg_err *err)
{
    const struct mg_scope *sc = pc->scope;
    struct mg_search_req req = {
        .query = q->query, .mode = mode, .limit = q->limit, .fixed = q->fixed, .ignore_case = q->ignore_case,
        .globs = (const char *const *)sc->globs, .nglobs = sc->nglobs,
        .excludes = (const char *const *)sc->excludes, .nexcludes = sc->nexcludes,
        .langs = (const char *const *)sc->langs, .nlangs = sc->nlangs,
        .pool = self->pool, .deadline_ms = pc->deadline_ms, .no_match_lines = q->no_match_lines,
        .vectors_nowait = self->serving, /* a server answers by words while vectors load */
    };
    struct mg_results res;
    if (mg_search(pc->cfg, pc->repos, pc->nrepos, &req, &res, err) != 0) return -1;
    out->took_ms = res.took_ms;
    out->mode = res.mode ? res.mode : "lexical";
    out->total_matches = res.total_matches;
    out->total_matches_capped = res.total_capped;
    out->semantic_loading = res.semantic_loading;
    out->vectors_loaded = res.vectors_loaded;
    out->vectors_total = res.vectors_total;
    out->semantic_unavailable = res.semantic_unavailable;
    out->semantic_source = res.semantic_source;
    out->semantic_error = res.semantic_error;
    bool failed = false;
    size_t first = out->n;
    for (size_t i = 0; i < res.n && !failed; i++) {
        const struct mg_hit *h = &res.v[i];
        struct mg_code_hit *it = mg_items_add(out, &mg_item_code_hit);
        if (!it) {
            failed = true;
            break;
        }
        const struct mg_repo *r = repo_of(pc, h->repo);
        if (r) mg_code_owner(&it->base, r);
        else snprintf(it->base.own.repo, sizeof(it->base.own.repo), "%s", h->repo); /* the guardrail drops it */
        it->repo = mg_item_dup(h->repo, &failed);
        it->path = mg_item_dup(h->path, &failed);
        it->language = mg_item_dup(h->language, &failed);
        it->symbol = mg_item_dup(h->symbol, &failed);
        it->kind = mg_item_dup(h->kind, &failed);
        it->snippet = mg_item_dup(h->snippet ? h->snippet : "", &failed);
        it->start_line = h->start_line;
        it->end_line = h->end_line;
        it->line = h->line;
        it->snippet_line = h->snippet_line;
        it->score = (double)(long long)(h->score * 1000 + 0.5) / 1000;
        it->stale = h->stale;
        it->match_count = h->match_count;
        it->rank_lexical = h->rank_lexical;
        it->rank_semantic = h->rank_semantic;
        it->rank_symbol = h->rank_symbol;
        if (h->nlines && !failed) {
            it->match_lines.v = calloc((size_t)h->nlines, sizeof(*it->match_lines.v));
            failed = !it->match_lines.v;
            for (int k = 0; k < h->nlines && !failed; k++) {
                it->match_lines.v[k].line = h->lines[k].line;
                it->match_lines.v[k].text = mg_item_dup(h->lines[k].text ? h->lines[k].text : "", &failed);
                it->match_lines.n = (size_t)k + 1;
            }
        }
        it->match_lines.omitted = h->lines_omitted;
    }
    mg_results_release(&res);
    if (failed) return mg_err_oom(err);
    return q->definition_lines > 0 ? mg_code_enclose(self, pc, out, first, q->definition_lines, err) : 0;
}

static int op_search(void *self, const struct mg_pcall *pc, const struct mg_code_query *q, struct mg_items *out,
                     struct mg_err *err)
{
    enum mg_mode mode = MG_MODE_AUTO;
    if (q->mode && mg_mode_parse(q->mode, &mode, err) != 0) return -1;
    return run_search(self, pc, q, mode, out, err);
}

static int op_symbols(void *self, const struct mg_pcall *pc, const struct mg_code_query *q, struct mg_items *out,
                      struct mg_err *err)
{
    return run_search(self, pc, q, MG_MODE_SYMBOL, out, err);
}

/* ---- 3. list ------------------------------------------------------------------------------------ */

static int op_list(void *self_, const struct mg_pcall *pc, const struct mg_list_query *q, struct mg_items *out,
                   struct mg_err *err)
{
    struct mg_code_self *self = self_;
    struct mg_filter f;
    if (mg_code_filter(pc, &f, err) != 0) return -1;
    int rc = 0;
    int64_t total = 0;
    bool failed = false;
    for (size_t i = 0; i < pc->nrepos && rc == 0; i++) {
        struct mg_db *d = NULL;
        struct mg_idx_cur cur = {0};
        struct mg_idx_row row;
        if (mg_db_get(self->pool, pc->repos[i].dbpath, pc->deadline_ms, &d, err) != 0 ||
            mg_idx_files_listed(d, &f, &cur, err) != 0) {
            mg_db_put(self->pool, &d);
            rc = -1;
            break;
        }
        while (mg_idx_next(&cur, &row) > 0) {
            total++;
            if (total <= q->offset || (int64_t)out->n >= q->limit || failed) continue;
            struct mg_file_entry *it = mg_items_add(out, &mg_item_file_entry);
            if (!it) {
                failed = true;
                continue;
            }
            mg_code_owner(&it->base, &pc->repos[i]);
            it->repo = mg_item_dup(pc->repos[i].id, &failed);
            it->path = mg_item_dup(row.path, &failed);
            it->language = mg_item_dup(row.lang, &failed);
            it->bytes = row.size;
            it->lines = row.lines;
        }
        mg_idx_done(&cur);
        mg_db_put(self->pool, &d);
    }
    mg_globset_free(&f.globs);
    if (rc == 0 && failed) rc = mg_err_oom(err);
    out->total = total;
    return rc;
}

/* ---- 4. repos, index, remove -------------------------------------------------------------------- */

int mg_code_repo_info(struct mg_repo_info *it, const struct mg_repo *r, struct mg_err *err)
{
    bool failed = false;
    mg_code_owner(&it->base, r);
    it->id = mg_item_dup(r->id, &failed);
    it->root = mg_item_dup(r->root, &failed);
    it->fingerprint = mg_item_dup(r->fingerprint, &failed);
    it->files = r->files;
    it->chunks = r->chunks;
    it->symbols = r->symbols;
    it->bytes = r->bytes;
    it->db_bytes = r->db_bytes;
    it->created_at = r->created_at;
    it->indexed_at = r->indexed_at;
    const char *state = mg_repo_copy_name(r->copy);
    if (state) it->index_state = mg_item_dup(state, &failed);
    it->generation = r->generation;
    it->catalog_generation = r->catalog_generation;
    return failed ? mg_err_oom(err) : 0;
}

static int op_repos(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    for (size_t i = 0; i < pc->nrepos; i++)
    {
        struct mg_repo_info *it = mg_items_add(out, &mg_item_repo_info);
        if (!it) return mg_err_oom(err);
        if (mg_code_repo_info(it, &pc->repos[i], err) != 0) return -1;
    }
    return 0;
}

static void fmt_eta(char *b, size_t n, double s)
{
    if (s < 0 || s > 1e6) snprintf(b, n, "--");
    else if (s < 60) snprintf(b, n, "%.0fs", s);
    else snprintf(b, n, "%.0fm%02.0fs", s / 60 - 0.5, (double)((int)s % 60));
}

/* An index run's progress as one line for the client (the CLI draws it on
 * the terminal, MCP sends it as notifications/progress), on one scale that
 * only grows: the files indexed, then those embedded after them. */
struct index_progress {
    const struct mg_pcall *pc;
    uint64_t files;    /* the walk's files, once known */
    char what[256];    /* the repo id the reports name, for mg_progress_live_end */
};

/* Every report goes to the process's table of runs under way (the
 * dashboard's live progress); to the client too when it asked. */
static void on_index_progress(void *ud, const struct mg_progress *p)
{
    struct index_progress *ip = ud;
    const struct mg_pcall *pc = ip->pc;
    mg_progress_live_update(pc->tenant, p);
    if (p->what && !ip->what[0]) snprintf(ip->what, sizeof(ip->what), "%s", p->what);
    if (!pc->progress) return;
    double done = (double)p->done, total = (double)p->total;
    if (strcmp(p->phase, "index") == 0) ip->files = p->total;
    else if (strcmp(p->phase, "merge") == 0 || strcmp(p->phase, "marks") == 0) done = total = (double)ip->files;
    else done += (double)ip->files, total += (double)ip->files;
    char m[300];
    if (strcmp(p->phase, "index") == 0) {
        double rate = p->seconds > 0 ? p->bytes / p->seconds : 0;
        char eta[32];
        fmt_eta(eta, sizeof(eta), p->final ? 0 : rate > 0 ? (double)(p->total_bytes - p->bytes) / rate : -1);
        snprintf(m, sizeof(m), "indexing %s  %llu/%llu files  %.1f/%.1f MB  %.1f MB/s  ETA %s", p->what,
                 (unsigned long long)p->done, (unsigned long long)p->total, p->bytes / 1e6, p->total_bytes / 1e6,
                 rate / 1e6, eta);
    } else if (strcmp(p->phase, "merge") == 0) {
        snprintf(m, sizeof(m), "merging the word index of %s", p->what);
    } else if (strcmp(p->phase, "marks") == 0) {
        snprintf(m, sizeof(m), "marking the symbols in the word index of %s (once, for an index made before them)",
                 p->what);
    } else {
        snprintf(m, sizeof(m), "embedding %s  %llu/%llu files", p->what, (unsigned long long)p->done,
                 (unsigned long long)p->total);
    }
    pc->progress(pc->progress_ud, done, total, m);
}

/* The shared catalog (store/catalog.h): an explicit run registers the repo
 * or bumps its generation, so that every daemon catches up; a follower's
 * catch-up run records the generation it caught up to, the one the gate
 * resolved (a newer one, bumped meanwhile, brings one more run). */
static int catalog_record(const struct mg_pcall *pc, const struct mg_index_stats *st, int64_t *generation,
                          struct mg_err *err)
{
    const char *why = pc->index_reason ? pc->index_reason : "index";
    if (strcmp(why, "catchup") == 0) {
        *generation = pc->nrepos == 1 ? pc->repos[0].catalog_generation : 0;
        return *generation ? mg_catalog_caught_up(pc->cfg, st->id, *generation, err) : 0;
    }
    if (mg_catalog_indexed(pc->cfg, st->id, pc->tenant, st->root, why, pc->index_delivery, generation, err) == 0)
        return 0;
    /* the id is another repo's in the catalog: the index this run made is not kept */
    if (st->created && err->code && strcmp(err->code, MG_E_REPO_EXISTS) == 0)
        mg_catalog_drop_local(pc->cfg, st->id, NULL);
    return -1;
}

/* The repo map's graph of a run's generation, saved for the first map (search/repomap.h): built on a thread
 * of its own beside the run's closing merge (mg_index_opts.after_commit), which keeps one core only. A run that
 * touched under 1% of the files leaves it to the first map when an older one is saved (a server answers from
 * that one at once, marked stale, and builds the new one beside; a command builds it): the build reads every
 * reference of the repo (3 s of a 6 s Linux run after one edit). */
struct map_after {
    const struct mg_config *cfg;
    double seconds;
    int rc;
    struct mg_err err;
};

static void map_after_commit(void *ud, const struct mg_index_stats *st)
{
    struct map_after *m = ud;
    char dbpath[PATH_MAX];
    mg_repo_dbpath(m->cfg, st->id, dbpath, sizeof(dbpath));
    /* the parser threads' freed arenas go back to the system before the map's graph is built on top of
     * them: linux-6.1's peak was the two together (534 + 210 MB) */
    malloc_trim(0);
    if ((st->added + st->changed + st->removed) * 100 < st->total_files && mg_repomap_saved_any(dbpath)) return;
    double m0 = mg_clock_s();
    m->rc = mg_repomap_save(dbpath, &m->err);
    m->seconds = mg_clock_s() - m0;
}

static int op_index(void *self, const struct mg_pcall *pc, const struct mg_index_query *q, struct mg_items *out,
                    struct mg_err *err)
{
    const char *path = q->path;
    if (!path) {
        if (pc->nrepos != 1)
            return mg_err_set(err, MG_E_REPO_REQUIRED, "re-indexing works on one repo; name it with `repo`");
        path = pc->repos[0].root;
    }
    struct index_progress ip = {.pc = pc};
    struct map_after map = {.cfg = pc->cfg};
    struct mg_index_opts o = {.path = path, .stored_root = q->path ? NULL : path, .name = q->name,
                              .tenant = pc->tenant, .token = pc->token, .stop = pc->stop,
                              .on_progress = on_index_progress, .progress_ud = &ip,
                              .after_commit = map_after_commit, .after_commit_ud = &map};
    struct mg_index_stats st;
    if (pc->progress) pc->progress(pc->progress_ud, 0, 0, "walking the repository");
    if (mg_index_run(pc->cfg, &o, &st, err) != 0) {
        mg_progress_live_end(pc->tenant, ip.what);
        return -1;
    }
    char dbpath[PATH_MAX];
    mg_repo_dbpath(pc->cfg, st.id, dbpath, sizeof(dbpath));
    malloc_trim(0); /* and the writer's, for a server that goes on */
    struct mg_err merr = {0};
    if (map.rc != 0 && !st.vec.warning[0])
        snprintf(st.vec.warning, sizeof(st.vec.warning), "the repo map's graph was not saved (%s): the first "
                 "repo_map builds it", map.err.msg);
    double map_s = map.seconds;
    /* the vectors' column file of this generation, for one-query readers (vector/vstore.h) */
    double c0 = mg_clock_s();
    if (mg_vcols_update(pc->cfg, dbpath, st.id, &merr) != 0 && !st.vec.warning[0])
        snprintf(st.vec.warning, sizeof(st.vec.warning), "the vectors' column file was not written (%s): a CLI "
                 "semantic search loads every vector", merr.msg);
    double cols_s = mg_clock_s() - c0;
    mg_progress_live_end(pc->tenant, ip.what);
    int64_t generation = 0;
    if (mg_catalog_shared(pc->cfg) && catalog_record(pc, &st, &generation, err) != 0) return -1;
    struct mg_index_run *it = mg_items_add(out, &mg_item_index_run);
    if (!it) return mg_err_oom(err);
    bool failed = false;
    snprintf(it->base.own.tenant, sizeof(it->base.own.tenant), "%s", pc->tenant);
    snprintf(it->base.own.repo, sizeof(it->base.own.repo), "%s", st.id);
    mg_repo_fingerprint(st.root, it->base.own.fp);
    it->repo = mg_item_dup(st.id, &failed);
    it->root = mg_item_dup(st.root, &failed);
    it->created = st.created;
    it->git = st.git;
    it->files = (int64_t)st.files;
    it->added = (int64_t)st.added;
    it->changed = (int64_t)st.changed;
    it->unchanged = (int64_t)st.unchanged;
    it->removed = (int64_t)st.removed;
    it->skipped_binary = (int64_t)st.skipped_binary;
    it->skipped_too_large = (int64_t)st.skipped_too_large;
    it->skipped_secret = (int64_t)st.skipped_secret;
    it->skipped_symlink = (int64_t)st.skipped_symlink;
    it->skipped_unreadable = (int64_t)st.skipped_unreadable;
    it->skipped_other = (int64_t)(st.skipped_special + st.skipped_bad_name);
    it->repaired_utf8 = (int64_t)st.repaired_utf8;
    it->parse_failed = (int64_t)st.parse_failed;
    it->secrets_redacted = (int64_t)st.secrets_redacted;
    it->chunks_excluded = (int64_t)st.chunks_excluded;
    it->bytes_read = (int64_t)st.bytes_read;
    it->bytes_indexed = (int64_t)st.bytes_indexed;
    it->total_files = (int64_t)st.total_files;
    it->total_bytes = (int64_t)st.total_bytes;
    it->chunks = (int64_t)st.chunks;
    it->symbols = (int64_t)st.symbols;
    it->seconds = st.seconds; /* the map was built inside the run, beside its merge */
    it->merge_seconds = st.merge_seconds;
    it->map_seconds = map_s;
    it->cpu_workers = st.cpu_workers;
    it->cpu_writer = st.cpu_writer;
    it->embedder = mg_item_dup(st.vec.embedder, &failed);
    it->vec_files = (int64_t)st.vec.files;
    it->vec_chunks = (int64_t)st.vec.chunks;
    it->vec_pending = (int64_t)st.vec.pending;
    it->vec_reembedded = st.vec.reembedded;
    it->vec_seconds = st.vec.seconds;
    it->vec_columns_seconds = cols_s;
    it->warning = st.vec.warning[0] ? mg_item_dup(st.vec.warning, &failed) : NULL;
    it->base.redactions = (int)st.secrets_redacted; /* secrets the run kept out of the index */
    it->generation = generation;
    return failed ? mg_err_oom(err) : 0;
}

static int op_remove(void *self_, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    struct mg_code_self *self = self_;
    if (pc->nrepos != 1) return mg_err_set(err, MG_E_REPO_REQUIRED, "removing works on one repo; name it");
    mg_db_pool_drop(self->pool, pc->repos[0].dbpath); /* no reader keeps the file open */
    mg_texts_forget(pc->repos[0].dbpath);              /* nor its files' texts kept in memory */
    if (mg_catalog_remove(self->cfg, pc->repos[0].id, err) != 0) return -1;
    struct mg_removed *it = mg_items_add(out, &mg_item_removed);
    if (!it) return mg_err_oom(err);
    bool failed = false;
    mg_code_owner(&it->base, &pc->repos[0]);
    it->repo = mg_item_dup(pc->repos[0].id, &failed);
    it->removed = true;
    return failed ? mg_err_oom(err) : 0;
}

/* ---- 5. the provider ---------------------------------------------------------------------------- */

static void op_close(void *self_)
{
    struct mg_code_self *self = self_;
    mg_watcher_stop(self->watcher);
    mg_db_pool_free(&self->pool);
    free(self);
}

static const struct mg_code_ops builtin_ops = {
    .search = op_search,
    .symbols = op_symbols,
    .read = mg_code_read,
    .outline = mg_code_outline,
    .list = op_list,
    .repos = op_repos,
    .index = op_index,
    .remove = op_remove,
    .stats = mg_code_stats,
    .settings = mg_code_settings,
    .nav = mg_code_nav,
    .repomap = mg_code_repomap,
    .close = op_close,
};

/* Read handles per repo: enough to keep the CPUs busy while some wait for
 * the disk, few enough that requests queue for one instead of thrashing
 * (hundreds of sessions on two cores). */
static int readers_per_repo(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 2 ? (int)(2 * n) : 4;
}

static int cmp_recent(const void *a, const void *b)
{
    const struct mg_repo *x = a, *y = b;
    return x->indexed_at > y->indexed_at ? -1 : x->indexed_at < y->indexed_at;
}

/* A server loads the vectors of its repos (the most recently indexed first,
 * as many as the cache holds) in the background from the start, so that
 * the first hybrid search need not wait for them. Repos without current
 * vectors are skipped; a failure shows again at the first search. */
static void preload_vectors(const struct mg_config *cfg)
{
    struct mg_repo *v = NULL;
    size_t n = 0;
    struct mg_err err = {0};
    if (mg_catalog_list(cfg, &v, &n, &err) != 0) return;
    if (n > 1) qsort(v, n, sizeof(*v), cmp_recent);
    for (size_t i = 0; i < n && i < MG_VCACHE_REPOS; i++) {
        struct mg_db *d = NULL;
        if (mg_db_open(v[i].dbpath, MG_DB_READONLY, &d, &err) != 0) continue;
        mg_semantic_preload(cfg, d, v[i].id, &err);
        mg_db_close(&d);
    }
    free(v);
}

int mg_code_builtin_open(const struct mg_config *cfg, const struct mg_watch_hook *watch, struct mg_code_provider *out,
                         struct mg_err *err)
{
    struct mg_code_self *self = calloc(1, sizeof(*self));
    if (!self) return mg_err_oom(err);
    self->cfg = cfg;
    self->serving = watch != NULL;
    if (mg_db_pool_new(readers_per_repo(), &self->pool, err) != 0) {
        free(self);
        return -1;
    }
    struct mg_err werr = {0};
    if (watch && mg_watcher_start(cfg, watch, &self->watcher, &werr) != 0)
        fprintf(stderr, "memgate: warning: %s; indexes change only when re-indexed\n", werr.msg);
    if (watch) preload_vectors(cfg);
    out->ops = &builtin_ops;
    out->self = self;
    snprintf(out->name, sizeof(out->name), "builtin");
    return 0;
}
