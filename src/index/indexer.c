/* indexer.c — the index pipeline (see indexer.h).
 *
 * Sections:
 *   1. the known-files map (path -> id, hash) loaded from the database
 *   2. the result queue between workers and the writer
 *   3. workers: read, hash, repair, chunk, extract, compress
 *   4. the writer: delete old rows, insert new ones, commit in batches
 *   5. progress
 *   6. mg_index_run: lock, walk, run, finish, stats
 */
#include "index/indexer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/chunk.h"
#include "index/lang.h"
#include "index/lex.h"
#include "index/refs.h"
#include "index/walk.h"
#include "security/roots.h"
#include "security/secrets.h"
#include "store/content.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "store/rank.h"
#include "store/tokenize.h"
#include "store/trigram.h"
#include "util/clock.h"
#include "util/utf8.h"

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
#define QUEUE_ITEMS    256
#define QUEUE_BYTES    (96u << 20) /* text held between workers and writer */
#define TRI_FLUSH_BYTES (192u << 20) /* trigram postings held by all parser threads */

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- 1. the known-files map --------------------------------------------- */

struct known {
    char *path;
    int64_t id;
    uint64_t hash;
    int64_t size, mtime; /* as indexed */
    uint8_t seen; /* set by a worker: present now (unchanged or being replaced) */
};

struct known_map {
    struct known *v;
    size_t n;
    int32_t *slots; /* open addressing: index into v, -1 empty */
    size_t nslots;
};

static size_t path_slot(const char *p, size_t mask) { return (size_t)XXH3_64bits(p, strlen(p)) & mask; }

static int cmp_known(const void *a, const void *b)
{
    return strcmp(((const struct known *)a)->path, ((const struct known *)b)->path);
}

/* Append the rows c yields (id, path, hash, size, mtime). 0, or -1 out of memory. */
static int known_rows(struct mg_idx_cur *c, struct known_map *m, size_t *cap)
{
    struct mg_idx_row row;
    while (mg_idx_next(c, &row) > 0) {
        if (m->n == *cap) {
            *cap = *cap ? *cap * 2 : 1024;
            struct known *v = realloc(m->v, *cap * sizeof(*v));
            if (!v) return -1;
            m->v = v;
        }
        struct known *k = &m->v[m->n];
        k->id = row.id;
        k->path = strdup(row.path);
        k->hash = row.hash;
        k->size = row.size;
        k->mtime = row.mtime;
        k->seen = 0;
        if (!k->path) return -1;
        m->n++;
    }
    return 0;
}

/* The indexed files: all of them, or (paths != NULL: an incremental run)
 * those among the paths and under them, each once. */
static int known_load(struct mg_db *d, const char *const *paths, size_t npaths, struct known_map *m,
                      struct mg_err *err)
{
    memset(m, 0, sizeof(*m));
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < (paths ? npaths : 1); i++) {
        struct mg_idx_cur c;
        if (mg_idx_files_known(d, paths ? paths[i] : NULL, &c, err) != 0) return -1;
        rc = known_rows(&c, m, &cap);
        mg_idx_done(&c);
    }
    if (rc != 0) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the index");
    if (paths && m->n) { /* a file and its directory both in the batch: once */
        qsort(m->v, m->n, sizeof(*m->v), cmp_known);
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++) {
            if (k && strcmp(m->v[k - 1].path, m->v[i].path) == 0) free(m->v[i].path);
            else m->v[k++] = m->v[i];
        }
        m->n = k;
    }
    m->nslots = 16;
    while (m->nslots < m->n * 2) m->nslots *= 2;
    m->slots = malloc(m->nslots * sizeof(int32_t));
    if (!m->slots) return mg_err_oom(err);
    memset(m->slots, 0xff, m->nslots * sizeof(int32_t));
    for (size_t i = 0; i < m->n; i++) {
        size_t j = path_slot(m->v[i].path, m->nslots - 1);
        while (m->slots[j] >= 0) j = (j + 1) & (m->nslots - 1);
        m->slots[j] = (int32_t)i;
    }
    return 0;
}

static struct known *known_find(const struct known_map *m, const char *path)
{
    if (!m->nslots) return NULL;
    size_t j = path_slot(path, m->nslots - 1);
    while (m->slots[j] >= 0) {
        struct known *k = &m->v[m->slots[j]];
        if (strcmp(k->path, path) == 0) return k;
        j = (j + 1) & (m->nslots - 1);
    }
    return NULL;
}

static void known_release(struct known_map *m)
{
    for (size_t i = 0; i < m->n; i++) free(m->v[i].path);
    free(m->v);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

/* ---- 2. the result queue -------------------------------------------------- */

/* One file ready to be written; or, with tri set, a parser thread's
 * trigram postings to flush (after the files they cover, by queue order). */
struct result {
    struct mg_tri_builder *tri_batch;
    int64_t fid;            /* the file's id: the run's base id + walk index */
    const char *path;       /* borrowed from the walk */
    const char *lang;
    int64_t old_id;         /* row to replace, or 0 */
    uint64_t hash;
    int64_t mtime;
    int flags;
    char *text;             /* stored text (UTF-8) */
    size_t len;
    void *blob;             /* compressed text */
    size_t bloblen;
    struct mg_parsed parsed;
    char *fts;              /* FTS5 token streams: the path, then per chunk */
    uint32_t *fts_off;      /* its symbol column and its body; segment k is
                             * fts[fts_off[k] .. fts_off[k + 1]) */
    struct mg_refs_blobs refs; /* names defined and used (index/refs.h) */
    bool has_refs;          /* the language has a lexer: a refs row */
    struct result *next;
};

struct queue {
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    struct result *head, *tail;
    size_t items, bytes;
    int producers;          /* workers still running */
};

static void queue_push(struct queue *q, struct result *r)
{
    pthread_mutex_lock(&q->mu);
    while ((q->items >= QUEUE_ITEMS || q->bytes >= QUEUE_BYTES) && q->items > 0)
        pthread_cond_wait(&q->not_full, &q->mu);
    r->next = NULL;
    if (q->tail) q->tail->next = r;
    else q->head = r;
    q->tail = r;
    q->items++;
    q->bytes += r->len;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

/* Next result, or NULL when every worker is done and the queue is empty.
 * Waits at most timeout_ms (returning NULL with *timed_out set). */
static struct result *queue_pop(struct queue *q, int timeout_ms, bool *timed_out)
{
    *timed_out = false;
    pthread_mutex_lock(&q->mu);
    while (!q->head && q->producers > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)timeout_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        if (pthread_cond_timedwait(&q->not_empty, &q->mu, &ts) == ETIMEDOUT && !q->head) {
            *timed_out = q->producers > 0;
            pthread_mutex_unlock(&q->mu);
            return NULL;
        }
    }
    struct result *r = q->head;
    if (r) {
        q->head = r->next;
        if (!q->head) q->tail = NULL;
        q->items--;
        q->bytes -= r->len;
        pthread_cond_broadcast(&q->not_full);
    }
    pthread_mutex_unlock(&q->mu);
    return r;
}

static void result_free(struct result *r)
{
    if (!r) return;
    free(r->text);
    free(r->blob);
    mg_tri_builder_free(&r->tri_batch);
    free(r->fts);
    free(r->fts_off);
    mg_refs_blobs_release(&r->refs);
    mg_parsed_release(&r->parsed);
    free(r);
}

/* ---- 3. workers ------------------------------------------------------------ */

/* Token streams of a file's FTS rows into out/off (see struct result): the
 * path, then each chunk's symbol column and body. The symbol column holds the
 * chunk's definition and container, and every definition that starts within
 * the chunk's lines (so a window of macros or prototypes carries their names)
 * except members (fields, enumerators: mg_kind_member()). The writer
 * rebuilds the same streams to delete rows, so this is the one place they
 * are made, from data both sides have: chunk byte and line ranges, and
 * definitions with their start lines. */
struct stream_chunk {
    uint32_t start, end;            /* bytes */
    uint32_t line0, line1;          /* lines */
    const char *sym, *container;    /* the chunk's own definition, or NULL */
};

struct stream_def {
    uint32_t line;                  /* start line */
    const char *name;
};

struct stream_src {
    const char *path, *text;
    const struct stream_chunk *c;
    size_t n;
    const struct stream_def *defs;  /* ascending by line */
    size_t ndefs;
};

static int build_streams(struct mg_token_set *ts, struct mg_buf *scratch, const struct stream_src *s,
                         struct mg_buf *out, uint32_t *off)
{
    mg_buf_reset(out);
    off[0] = 0;
    if (mg_token_stream(ts, s->path, strlen(s->path), out) != 0) return -1;
    off[1] = (uint32_t)out->len;
    size_t d0 = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct stream_chunk *c = &s->c[i];
        mg_buf_reset(scratch);
        if (c->sym) mg_buf_adds(scratch, c->sym);
        if (c->sym && c->container) mg_buf_addf(scratch, " %s", c->container);
        while (d0 < s->ndefs && s->defs[d0].line < c->line0) d0++;
        for (size_t k = d0; k < s->ndefs && s->defs[k].line <= c->line1; k++)
            mg_buf_addf(scratch, " %s", s->defs[k].name);
        if (scratch->len && mg_token_stream(ts, scratch->p, scratch->len, out) != 0) return -1;
        off[2 * i + 2] = (uint32_t)out->len;
        if (mg_token_stream(ts, s->text + c->start, c->end - c->start, out) != 0) return -1;
        off[2 * i + 3] = (uint32_t)out->len;
    }
    return 0;
}

static int cmp_stream_def(const void *a, const void *b)
{
    const struct stream_def *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The streams of a freshly chunked file. */
static int result_streams(struct result *r, struct mg_token_set *ts, struct mg_buf *scratch)
{
    const struct mg_parsed *p = &r->parsed;
    size_t n = p->nchunks;
    struct stream_chunk *c = malloc((n + 1) * sizeof(*c));
    struct stream_def *defs = malloc((p->defs.n + 1) * sizeof(*defs));
    r->fts_off = malloc((2 * n + 2) * sizeof(uint32_t));
    int rc = -1;
    if (!c || !defs || !r->fts_off) goto out;
    for (size_t i = 0; i < n; i++) {
        const struct mg_chunk *k = &p->chunks[i];
        const struct mg_def *d = k->def >= 0 ? &p->defs.v[k->def] : NULL;
        c[i] = (struct stream_chunk){k->start_byte, k->end_byte, k->start_line, k->end_line,
                                     d ? d->name : NULL, d ? d->container : NULL};
    }
    size_t nd = 0;
    for (size_t i = 0; i < p->defs.n; i++)
        if (!mg_kind_member(p->defs.v[i].kind))
            defs[nd++] = (struct stream_def){p->def_lines[2 * i], p->defs.v[i].name};
    /* stable order for equal lines: the writer reads them back by id, which is this order */
    for (size_t i = 1; i < nd; i++)
        if (defs[i].line < defs[i - 1].line) {
            qsort(defs, nd, sizeof(*defs), cmp_stream_def);
            break;
        }
    struct stream_src src = {r->path, r->text, c, n, defs, nd};
    struct mg_buf out;
    mg_buf_init(&out, UINT32_MAX - 1);
    rc = build_streams(ts, scratch, &src, &out, r->fts_off);
    r->fts = mg_buf_detach(&out, NULL);
out:
    free(c);
    free(defs);
    return rc;
}

struct run {
    const struct mg_config *cfg;
    const char *root;
    int rootfd;
    bool trust_mtime;             /* files with their indexed size and mtime are not read (opts) */
    bool incremental;             /* a run of given paths (the watcher's) */
    struct mg_walk walk;
    struct known_map known;
    struct queue q;
    size_t next;                  /* next walk entry to take (atomic) */
    int64_t base_id;              /* walk entry i becomes file id base_id + i */
    size_t tri_batch_bytes;       /* a parser thread hands its postings over past this */
    struct mg_index_stats *st;    /* counters updated atomically */
    uint64_t bytes_done;          /* bytes read by workers (atomic) */
    uint64_t files_done;
    int failed;                   /* a worker hit a fatal error */
    struct mg_err worker_err;
    pthread_mutex_t err_mu;
    const struct mg_scanner *scanner; /* secrets: redacted or excluded before anything is stored */
    const volatile int *stop;     /* the caller's stop flag (mg_index_opts.stop), or NULL */
    struct mg_secret_policy policy;
};

#define ADD(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)

static bool stopped(const volatile int *stop) { return stop && *stop; }

static void worker_fail(struct run *R, const struct mg_err *e)
{
    pthread_mutex_lock(&R->err_mu);
    if (!R->failed) R->worker_err = *e;
    R->failed = 1;
    pthread_mutex_unlock(&R->err_mu);
}

/* The names r's file defines and uses (index/refs.h). */
static int file_refs(struct result *r)
{
    const struct mg_defs *d = &r->parsed.defs;
    const char **names = malloc((d->n + 1) * sizeof(char *)), **kinds = malloc((d->n + 1) * sizeof(char *));
    int rc = -1;
    if (names && kinds) {
        for (size_t i = 0; i < d->n; i++) {
            names[i] = d->v[i].name;
            kinds[i] = d->v[i].kind;
        }
        rc = mg_refs_build(r->lang, r->text, r->len, names, kinds, d->n, &r->refs);
        r->has_refs = rc == 0;
        if (rc == 1) rc = 0;
    }
    free(names);
    free(kinds);
    return rc;
}

/* Process one entry; returns a result to write, or NULL (skipped/unchanged). */
static struct result *process(struct run *R, size_t idx, TSParser *parser, struct mg_tri_scratch *scratch,
                              struct mg_tri_builder *tb, struct mg_token_set *ts, struct mg_buf *tmp)
{
    const struct mg_walk_entry *e = &R->walk.v[idx];
    struct mg_err err = {0};
    char *buf;
    size_t len;
    int64_t mtime = e->mtime_ns;
    if (R->trust_mtime) { /* the same size and time as indexed: taken as unchanged, not read */
        struct known *k = known_find(&R->known, e->path);
        if (k && k->size == (int64_t)e->size && k->mtime == e->mtime_ns) {
            __atomic_store_n(&k->seen, 1, __ATOMIC_RELAXED);
            ADD(R->st->unchanged, 1);
            return NULL;
        }
    }
    int rc = mg_read_beneath(R->rootfd, R->root, e->path, R->cfg->max_file_size, &buf, &len, &mtime, &err);
    if (rc == 1) { ADD(R->st->skipped_special, 1); return NULL; }
    if (rc < 0) {
        if (err.code && strcmp(err.code, MG_E_NO_MEMORY) == 0) worker_fail(R, &err);
        ADD(R->st->skipped_unreadable, 1);
        return NULL;
    }
    ADD(R->bytes_done, len);
    if (memchr(buf, 0, len)) {
        free(buf);
        ADD(R->st->skipped_binary, 1);
        return NULL;
    }
    uint64_t hash = XXH3_64bits(buf, len);
    struct known *k = known_find(&R->known, e->path);
    if (k) __atomic_store_n(&k->seen, 1, __ATOMIC_RELAXED);
    if (k && k->hash == hash) {
        free(buf);
        ADD(R->st->unchanged, 1);
        return NULL;
    }
    struct result *r = calloc(1, sizeof(*r));
    if (!r) goto nomem;
    r->fid = R->base_id + (int64_t)idx;
    r->path = e->path;
    r->old_id = k ? k->id : 0;
    r->hash = hash;
    r->mtime = mtime;
    if (mg_utf8_valid_prefix(buf, len) != len) {
        char *fixed;
        size_t flen;
        if (mg_utf8_repair(buf, len, &fixed, &flen) == (size_t)-1) goto nomem;
        free(buf);
        buf = fixed;
        len = flen;
        r->flags |= MG_FILE_REPAIRED;
        ADD(R->st->repaired_utf8, 1);
    }
    /* secrets, before the text reaches chunks, FTS, trigrams or the content
     * store (security/secrets.h) */
    struct mg_buf red;
    mg_buf_init(&red, SIZE_MAX / 2);
    int nred = 0;
    struct mg_secret_excl *excl = NULL;
    size_t nexcl = 0;
    struct mg_err serr = {0};
    if (mg_secrets_apply(R->scanner, &R->policy, buf, len, &red, &nred, &excl, &nexcl, &serr) != 0) {
        mg_buf_release(&red);
        free(buf);
        result_free(r);
        worker_fail(R, &serr);
        return NULL;
    }
    if (nred || nexcl) {
        free(buf);
        buf = mg_buf_detach(&red, &len);
        if (!buf) {
            free(excl);
            goto nomem;
        }
        ADD(R->st->secrets_redacted, (uint64_t)nred);
    } else {
        mg_buf_release(&red);
    }
    r->text = buf;
    r->len = len;
    buf = NULL;
    const struct mg_lang *lang = mg_lang_for_path(e->path);
    r->lang = lang->name;
    /* real code parses at over 1 MB/s; text that takes far longer is
     * pathological and gets line windows instead */
    struct mg_chunk_opts co = {R->cfg->chunk_max_lines, R->cfg->chunk_max_bytes,
                               1000000 + (uint64_t)r->len * 4};
    if (mg_chunk_file(lang, r->text, r->len, &co, parser, &r->parsed) != 0) {
        free(excl);
        goto nomem;
    }
    if (r->parsed.parse_failed) ADD(R->st->parse_failed, 1);
    for (size_t i = 0, ci = 0; i < nexcl; i++) { /* blank each chunk holding a secret to exclude */
        while (ci < r->parsed.nchunks && r->parsed.chunks[ci].end_byte <= excl[i].off) ci++;
        if (ci == r->parsed.nchunks) break;
        const struct mg_chunk *c = &r->parsed.chunks[ci];
        if (excl[i].off < c->start_byte) continue;
        if (i == 0 || excl[i - 1].off < c->start_byte) ADD(R->st->chunks_excluded, 1);
        mg_secrets_blank(r->text, c->start_byte, c->end_byte, excl[i].rule);
    }
    free(excl);
    size_t nt = mg_tri_extract(scratch, r->text, r->len);
    if (nt == (size_t)-1 || mg_tri_builder_add(tb, r->fid, scratch->keys, nt) != 0) goto nomem;
    if (mg_content_pack(r->text, r->len, &r->blob, &r->bloblen) != 0) goto nomem;
    if (result_streams(r, ts, tmp) != 0) goto nomem;
    if (file_refs(r) != 0) goto nomem;
    if (k) ADD(R->st->changed, 1);
    else ADD(R->st->added, 1);
    ADD(R->st->bytes_indexed, r->len);
    return r;
nomem:
    free(buf);
    result_free(r);
    mg_err_set(&err, MG_E_NO_MEMORY, "out of memory indexing '%s'", e->path);
    worker_fail(R, &err);
    return NULL;
}

/* Queue a thread's trigram postings for the writer to flush; a fresh
 * builder takes its place (NULL when memory runs out: the run fails). */
static void hand_over(struct run *R, struct mg_tri_builder **tb)
{
    if (!*tb || mg_tri_builder_files(*tb) == 0) return;
    struct result *r = calloc(1, sizeof(*r));
    struct mg_tri_builder *fresh = mg_tri_builder_new();
    if (!r || !fresh) {
        struct mg_err e;
        mg_err_set(&e, MG_E_NO_MEMORY, "out of memory building trigrams");
        worker_fail(R, &e);
        free(r);
        mg_tri_builder_free(&fresh);
        return;
    }
    r->tri_batch = *tb;
    *tb = fresh;
    queue_push(&R->q, r);
}

static void *worker_main(void *arg)
{
    struct run *R = arg;
    /* the writer is the stage everything waits for: let it win the CPU
     * whenever it has work, and the parsers take what is left. Not in a
     * watcher's run of a few files: its parse is on the way from a save to
     * search, and at nice 5 it waited behind every busy search thread */
    if (!R->incremental) setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5);
    TSParser *parser = ts_parser_new();
    struct mg_tri_scratch scratch;
    struct mg_token_set *ts = mg_token_set_new();
    struct mg_tri_builder *tb = mg_tri_builder_new();
    struct mg_buf tmp;
    mg_buf_init(&tmp, 1 << 20);
    if (!parser || !ts || !tb || mg_tri_scratch_init(&scratch) != 0) {
        struct mg_err e;
        mg_err_set(&e, MG_E_NO_MEMORY, "out of memory starting an index worker");
        worker_fail(R, &e);
        if (parser) ts_parser_delete(parser);
        mg_token_set_free(&ts);
        mg_tri_builder_free(&tb);
        goto done;
    }
    for (;;) {
        if (stopped(R->stop) || __atomic_load_n(&R->failed, __ATOMIC_RELAXED)) break;
        size_t i = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED);
        if (i >= R->walk.n) break;
        struct result *r = process(R, i, parser, &scratch, tb, ts, &tmp);
        ADD(R->files_done, 1);
        if (r) queue_push(&R->q, r);
        if (mg_tri_builder_bytes(tb) > R->tri_batch_bytes) hand_over(R, &tb);
    }
    hand_over(R, &tb); /* what is left, also after an interruption */
    ts_parser_delete(parser);
    mg_tri_scratch_release(&scratch);
    mg_token_set_free(&ts);
    mg_tri_builder_free(&tb);
    mg_buf_release(&tmp);
    double cpu = thread_cpu_s();
    pthread_mutex_lock(&R->err_mu);
    R->st->cpu_workers += cpu;
    pthread_mutex_unlock(&R->err_mu);
done:
    mg_content_thread_done();
    pthread_mutex_lock(&R->q.mu);
    R->q.producers--;
    pthread_cond_broadcast(&R->q.not_empty);
    pthread_mutex_unlock(&R->q.mu);
    return NULL;
}

/* ---- 4. the writer ---------------------------------------------------------- */

struct writer {
    struct mg_db *d;
    int64_t next_chunk, next_sym; /* chunk sequence and symbol id to give next: a
                                   * file's rows get one id range */
    uint64_t dead_bytes;          /* text of removed or replaced files (trigram garbage) */
    int64_t d_files, d_bytes, d_chunks, d_symbols; /* rows written minus rows deleted (incremental totals) */
    struct mg_token_set *ts;      /* to rebuild the streams of rows being deleted */
    struct mg_buf tmp, streams;
};

static void writer_release(struct writer *w)
{
    mg_token_set_free(&w->ts);
    mg_buf_release(&w->tmp);
    mg_buf_release(&w->streams);
}

/* Remove one file and everything derived from it. */
static int delete_file(struct writer *w, int64_t id, struct mg_err *err)
{
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (mg_idx_file_by_id(w->d, id, MG_IDX_TEXT, &cur, err) != 0) return -1;
    if (mg_idx_next(&cur, &row) <= 0) {
        mg_idx_done(&cur);
        return 0; /* already gone */
    }
    char *text = NULL, *path = NULL;
    size_t len = 0;
    int rc = 0;
    int64_t size = row.size;
    int64_t clo = row.chunk_lo, chi = row.chunk_hi;
    int64_t slo = row.sym_lo, shi = row.sym_hi;
    if (mg_idx_text(&row, (size_t)size, &text, &len) != 0) {
        mg_idx_done(&cur);
        return mg_err_set(err, MG_E_DB, "stored text of file %lld is corrupt; remove the repo and index it again",
                          (long long)id);
    }
    path = strdup(row.path);
    mg_idx_done(&cur);
    if (!path) {
        free(text);
        return mg_err_oom(err);
    }
    w->dead_bytes += len;
    w->d_files--;
    w->d_bytes -= size;

    /* contentless FTS5 forgets a row only when given exactly what it
     * indexed: rebuild the file's token streams from its stored text */
    size_t n = clo <= chi ? (size_t)(mg_chunk_seq(chi) - mg_chunk_seq(clo) + 1) : 0, got = 0, nd = 0;
    size_t ns = slo <= shi ? (size_t)(shi - slo + 1) : 0;
    w->d_chunks -= (int64_t)n;
    w->d_symbols -= (int64_t)ns;
    int64_t *ids = malloc((n + 1) * sizeof(int64_t));
    uint32_t *off = malloc((2 * n + 2) * sizeof(uint32_t));
    struct stream_chunk *sc = calloc(n + 1, sizeof(*sc));
    struct stream_def *sd = calloc(ns + 1, sizeof(*sd));
    if (!ids || !off || !sc || !sd) rc = mg_err_oom(err);
    if (rc == 0 && mg_idx_chunks(w->d, clo, chi, &cur, err) != 0) rc = -1;
    while (rc == 0 && got < n && mg_idx_next(&cur, &row) > 0) {
        int64_t s = row.start_byte, e = row.end_byte;
        if (s < 0 || e < s || (size_t)e > len) {
            rc = mg_err_set(err, MG_E_DB, "chunk %lld is out of range; remove the repo and index it again",
                            (long long)row.id);
            break;
        }
        ids[got] = row.id;
        sc[got] = (struct stream_chunk){(uint32_t)s, (uint32_t)e, (uint32_t)row.start_line, (uint32_t)row.end_line,
                                        row.symbol ? strdup(row.symbol) : NULL,
                                        row.container ? strdup(row.container) : NULL};
        got++;
    }
    mg_idx_done(&cur);
    if (rc == 0 && ns && mg_idx_symbols(w->d, slo, shi, true, &cur, err) != 0) rc = -1;
    while (rc == 0 && ns && nd < ns && mg_idx_next(&cur, &row) > 0) {
        sd[nd].line = (uint32_t)row.start_line;
        sd[nd].name = strdup(row.name);
        nd++;
    }
    mg_idx_done(&cur);
    if (rc == 0) {
        for (size_t i = 1; i < nd; i++)
            if (sd[i].line < sd[i - 1].line) {
                qsort(sd, nd, sizeof(*sd), cmp_stream_def);
                break;
            }
        struct stream_src src = {path, text, sc, got, sd, nd};
        if (build_streams(w->ts, &w->tmp, &src, &w->streams, off) != 0)
            rc = mg_err_oom(err);
    }
    for (size_t i = 0; rc == 0 && i < got; i++) {
        const char *f = w->streams.p;
        rc = mg_idx_drop_words(w->d, ids[i], f + off[0], off[1] - off[0], f + off[2 * i + 1],
                               off[2 * i + 2] - off[2 * i + 1], f + off[2 * i + 2], off[2 * i + 3] - off[2 * i + 2],
                               err);
    }
    for (size_t i = 0; sc && i < got; i++) {
        free((char *)sc[i].sym);
        free((char *)sc[i].container);
    }
    for (size_t i = 0; sd && i < nd; i++) free((char *)sd[i].name);
    free(sc);
    free(sd);
    free(ids);
    free(off);
    if (rc == 0) rc = mg_idx_drop_file(w->d, id, clo, chi, slo, shi, err);
    free(text);
    free(path);
    return rc;
}

static uint32_t count_tokens(const char *s, uint32_t n)
{
    uint32_t k = n > 0;
    for (uint32_t i = 0; i < n; i++) k += s[i] == ' ';
    return k;
}

static int insert_refs(struct writer *w, int64_t fid, const struct mg_refs_blobs *b, struct mg_err *err)
{
    struct mg_idx_row row = {.defs = b->defs, .ndefs = b->ndefs, .uses = b->uses, .nuses = b->nuses};
    return mg_idx_add_refs(w->d, fid, &row, err);
}

static int write_result(struct writer *w, struct result *r, struct mg_index_stats *st, struct mg_err *err)
{
    if (r->old_id && delete_file(w, r->old_id, err) != 0) return -1;
    const struct mg_parsed *p = &r->parsed;
    /* chunk ids: a sequence number with the chunk's lengths (rank.h) */
    int64_t *cids = malloc((p->nchunks + 1) * sizeof(int64_t));
    if (!cids) return mg_err_oom(err);
    for (size_t i = 0; i < p->nchunks; i++) {
        const uint32_t *o = r->fts_off;
        cids[i] = mg_chunk_id(w->next_chunk++, count_tokens(r->fts + o[2 * i + 2], o[2 * i + 3] - o[2 * i + 2]),
                              count_tokens(r->fts + o[2 * i + 1], o[2 * i + 2] - o[2 * i + 1]));
    }
    int64_t clo = p->nchunks ? cids[0] : 1, chi = p->nchunks ? cids[p->nchunks - 1] : 0, slo = w->next_sym;
    struct mg_idx_row f = {.id = r->fid, .path = r->path, .lang = r->lang, .size = (int64_t)r->len,
                           .hash = r->hash, .mtime = r->mtime, .lines = p->nlines, .flags = r->flags,
                           .chunk_lo = clo, .chunk_hi = chi, .sym_lo = slo, .sym_hi = slo + (int64_t)p->defs.n - 1,
                           .blob = r->blob, .bloblen = r->bloblen};
    if (mg_idx_add_file(w->d, &f, err) != 0) {
        free(cids);
        return -1;
    }
    int64_t fid = r->fid;
    int rc = -1;
    w->d_files++;
    w->d_bytes += (int64_t)r->len;
    w->d_chunks += (int64_t)p->nchunks;
    w->d_symbols += (int64_t)p->defs.n;

    for (size_t i = 0; i < p->nchunks; i++) {
        const struct mg_chunk *c = &p->chunks[i];
        const struct mg_def *d = c->def >= 0 ? &p->defs.v[c->def] : NULL;
        struct mg_idx_row ch = {.id = cids[i], .file_id = fid, .start_line = (int)c->start_line,
                                .end_line = (int)c->end_line, .start_byte = c->start_byte, .end_byte = c->end_byte,
                                .symbol = d ? d->name : NULL, .kind = d ? d->kind : NULL,
                                .container = d ? d->container : NULL};
        if (mg_idx_add_chunk(w->d, &ch, err) != 0) goto out;
        const uint32_t *o = r->fts_off;
        if (mg_idx_add_words(w->d, cids[i], r->fts + o[0], o[1] - o[0], r->fts + o[2 * i + 1],
                             o[2 * i + 2] - o[2 * i + 1], r->fts + o[2 * i + 2], o[2 * i + 3] - o[2 * i + 2], err) != 0)
            goto out;
    }
    for (size_t i = 0; i < p->defs.n; i++) {
        const struct mg_def *d = &p->defs.v[i];
        struct mg_idx_row sy = {.id = w->next_sym++, .file_id = fid, .name = d->name, .kind = d->kind,
                                .container = d->container, .start_line = (int)p->def_lines[2 * i],
                                .end_line = (int)p->def_lines[2 * i + 1]};
        if (mg_idx_add_symbol(w->d, &sy, err) != 0) goto out;
    }
    if (r->has_refs && insert_refs(w, fid, &r->refs, err) != 0) goto out;
    st->chunks_written += p->nchunks;
    st->symbols_written += p->defs.n;
    rc = 0;
out:
    free(cids);
    return rc;
}

/* Rows of table refs for the files an index of schema 2 holds (store/db.c):
 * from their stored text and symbols, once; meta refs_ready says it is done. */
static int fill_refs(struct writer *w, struct mg_err *err)
{
    if (mg_db_meta_int(w->d, "refs_ready", 0)) return 0;
    struct mg_idx_cur sel = {0}, syms = {0};
    struct mg_idx_row row, sr;
    int rc = -1;
    if (mg_idx_files_without_refs(w->d, &sel, err) != 0) goto out;
    for (;;) {
        int s = mg_idx_next(&sel, &row);
        if (s == 0) break;
        if (s < 0) {
            mg_db_error(w->d, "read files", err);
            goto out;
        }
        const char *lang = row.lang;
        if (!mg_lex_known(lang)) continue;
        int64_t id = row.id, lo = row.sym_lo, hi = row.sym_hi;
        char *text = NULL;
        size_t len = 0;
        if (mg_idx_text(&row, (size_t)row.size, &text, &len) != 0) {
            mg_err_set(err, MG_E_DB, "stored text of file %lld is corrupt; remove the repo and index it again",
                       (long long)id);
            goto out;
        }
        size_t n = 0, cap = lo <= hi ? (size_t)(hi - lo + 1) : 0;
        char **names = calloc(cap + 1, sizeof(char *)), **kinds = calloc(cap + 1, sizeof(char *));
        bool failed = !names || !kinds;
        if (!failed && mg_idx_symbols(w->d, lo, hi, false, &syms, err) != 0) {
            free(text);
            free(names);
            free(kinds);
            goto out;
        }
        while (!failed && n < cap && mg_idx_next(&syms, &sr) > 0) {
            names[n] = strdup(sr.name);
            kinds[n] = strdup(sr.kind);
            failed = !names[n] || !kinds[n];
            n++;
        }
        mg_idx_done(&syms);
        struct mg_refs_blobs b;
        int brc = failed ? -1 : mg_refs_build(lang, text, len, (const char *const *)names,
                                               (const char *const *)kinds, n, &b);
        for (size_t i = 0; i < n; i++) {
            free(names ? names[i] : NULL);
            free(kinds ? kinds[i] : NULL);
        }
        free(names);
        free(kinds);
        free(text);
        if (brc < 0) {
            mg_err_oom(err);
            goto out;
        }
        int irc = brc == 0 ? insert_refs(w, id, &b, err) : 0;
        mg_refs_blobs_release(&b);
        if (irc != 0) goto out;
    }
    rc = 0;
out:
    mg_idx_done(&sel);
    mg_idx_done(&syms);
    return rc;
}

/* ---- 5. progress ------------------------------------------------------------------ */

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

/* ---- 6. mg_index_run ----------------------------------------------------------- */

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
    if (o->name && mg_repo_check_name(o->name, err) != 0) return -1;
    const char *tenant = o->tenant ? o->tenant : "local";
    /* the one index-root policy: the tenant's roots, no other tenant's repo, not memgate's own directories */
    if (mg_root_check(c, tenant, o->token, st->root, o->stored_root, err) != 0) return -1;

    struct mg_repo existing;
    int found = mg_catalog_find_root(c, st->root, &existing, err);
    if (found < 0) return -1;
    if (found && strcmp(existing.tenant, tenant) != 0) /* mg_root_check refused it already */
        return mg_err_set(err, MG_E_ROOT_FORBIDDEN, "'%s' is a repo of another tenant; index a directory of your "
                          "own", st->root);
    if (found && o->name && strcmp(o->name, existing.id) != 0)
        return mg_err_set(err, MG_E_REPO_EXISTS, "'%s' is already indexed as '%s'; use that id, or run "
                          "`memgate repos rm %s` first", st->root, existing.id, existing.id);
    if (found) snprintf(st->id, sizeof(st->id), "%s", existing.id);
    else if (o->name) snprintf(st->id, sizeof(st->id), "%s", o->name);
    else mg_repo_derive_id(st->root, st->id, sizeof(st->id));

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
            mg_db_meta_set_int(*d, "created_at", (int64_t)time(NULL), err) != 0)
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

int mg_index_run(const struct mg_config *c, const struct mg_index_opts *o, struct mg_index_stats *st,
                 struct mg_err *err)
{
    memset(st, 0, sizeof(*st));
    double t0 = mg_clock_s(), cpu0 = thread_cpu_s();
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
    st->git = R.walk.git;
    st->files = R.walk.n;
    st->skipped_too_large = R.walk.st.too_large;
    st->skipped_secret = R.walk.st.secret;
    st->skipped_symlink = R.walk.st.symlink;
    st->skipped_special = R.walk.st.special;
    st->skipped_bad_name = R.walk.st.bad_name;
    if (known_load(d, o->paths, o->npaths, &R.known, err) != 0) goto out;

    w.d = d;
    w.ts = mg_token_set_new();
    if (!w.ts) {
        mg_err_oom(err);
        goto out;
    }
    mg_idx_next_ids(d, NULL, &w.next_chunk, &w.next_sym);
    /* no checkpoint (and fsync) at every commit of a run: one at the end */
    mg_idx_bulk(d);
    if (mg_db_begin(d, err) != 0) goto out;
    /* a first index loads millions of symbols: building the name index once
     * at the end beats keeping it sorted row by row (it is recreated below,
     * and by the next run if this one dies) */
    if (st->created && mg_idx_name_index(d, false, err) != 0) goto rollback;
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
    for (int i = 0; i < nth; i++) {
        if (pthread_create(&th[i], NULL, worker_main, &R) != 0) {
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
        struct result *r = queue_pop(&R.q, 100, &timed_out);
        if (!r && !timed_out) break;
        if (r && !werr) {
            if ((r->tri_batch ? mg_tri_builder_flush(r->tri_batch, d, err) : write_result(&w, r, st, err)) != 0) {
                werr = 1;
                __atomic_store_n(&R.failed, 1, __ATOMIC_RELAXED);
            }
            since_commit += r->len;
        }
        result_free(r);
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
        /* keep what is done; the vanished-file sweep needs a complete walk */
        if (mg_idx_name_index(d, true, err) != 0 || mg_db_commit(d, err) != 0) goto rollback;
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
        if (delete_file(&w, R.known.v[i].id, err) != 0) {
            free(asked);
            goto rollback;
        }
        st->removed++;
    }
    free(asked);
    if (!o->paths && fill_refs(&w, err) != 0) goto rollback;
    /* SQLite may sort with helper threads: the index of a first run is
     * millions of names */
    mg_idx_sort_threads(d, 4);
    if (mg_idx_name_index(d, true, err) != 0) goto rollback;
    if (o->paths) { /* what the run changed, on the last totals: counting a big index takes a second */
        st->total_files = (uint64_t)(mg_db_meta_int(d, "files", 0) + w.d_files);
        st->total_bytes = (uint64_t)(mg_db_meta_int(d, "bytes", 0) + w.d_bytes);
        st->chunks = (uint64_t)(mg_db_meta_int(d, "chunks", 0) + w.d_chunks);
        st->symbols = (uint64_t)(mg_db_meta_int(d, "symbols", 0) + w.d_symbols);
    } else {
        mg_idx_totals(d, &st->total_files, &st->total_bytes, &st->chunks, &st->symbols);
    }
    if (mg_tri_tidy(d, w.dead_bytes, st->total_bytes, o->paths != NULL, err) != 0) goto rollback;
    /* index_gen grows with every run: it names caches of what the index holds (search/chunkset.h);
     * one clock reading, so indexed_at and index.full_at/incr_at name the same second */
    int64_t now = (int64_t)time(NULL);
    if (mg_db_meta_set_int(d, "index_gen", mg_db_meta_int(d, "index_gen", 0) + 1, err) != 0 ||
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
    /* A run that wrote much of the index leaves FTS5 many segments, and each
     * query term then reads a doclist from every one: merge them into one
     * (merge_seconds: 10.5-14.7 s after Linux's first run; lexical p50 9-11
     * -> 7-9 ms on bench/quality.c, docs/benchmarks.md). Small runs leave it
     * to FTS5's automerge. Its own transaction: a failure leaves the index as
     * it was. */
    if (st->chunks_written > 0 && st->chunks_written * 4 >= st->chunks) {
        double m0 = mg_clock_s();
        if (o->on_progress) {
            struct mg_progress p = {.what = st->id, .phase = "merge"};
            o->on_progress(o->progress_ud, &p);
        }
        const char *why;
        if (mg_idx_words_optimize(d, &why) != 0)
            fprintf(stderr, "memgate: warning: index %s: merging the word index failed (%s); searches work, a "
                            "little slower\n", st->id, why);
        st->merge_seconds = mg_clock_s() - m0;
    }
    /* vectors for what has none, from the stored text; never fails the run */
    mg_vec_index(c, d, st->id, o->on_progress, o->progress_ud, o->stop, &st->vec);
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
    writer_release(&w);
    {
        /* drain anything left in the queue after a failure */
        struct result *r = R.q.head;
        while (r) {
            struct result *n = r->next;
            result_free(r);
            r = n;
        }
    }
    known_release(&R.known);
    mg_walk_release(&R.walk);
    if (R.rootfd >= 0) close(R.rootfd);
    mg_db_close(&d);
    if (lockfd >= 0) close(lockfd);
    st->seconds = mg_clock_s() - t0;
    st->cpu_writer = thread_cpu_s() - cpu0;
    return rc;
}
