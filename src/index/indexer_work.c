/* indexer_work.c — the index run's workers: take a walk entry, read it,
 * hash it, repair its UTF-8, redact its secrets, chunk it, extract its
 * trigrams and names, compress it, and queue it for the writer
 * (indexer_int.h).
 *
 * Sections:
 *   1. the result queue
 *   2. one file
 *   3. the worker thread
 */
#include "index/indexer_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/lang.h"
#include "index/role.h"
#include "security/roots.h"
#include "store/content.h"
#include "util/utf8.h"

double mg__thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- 1. the result queue ------------------------------------------------------------------------ */

/* r can be taken now (the lock held) */
static bool takes(const struct queue *q, const struct result *r)
{
    return r->tri_batch ? r->idx < q->next : r->idx == q->next;
}

/* past the files with no result (the lock held) */
static void skip_none(struct queue *q)
{
    while (q->next < q->n && q->none[q->next]) q->next++;
}

void mg__queue_push(struct queue *q, struct result *r)
{
    pthread_mutex_lock(&q->mu);
    while ((q->items >= QUEUE_ITEMS || q->bytes >= QUEUE_BYTES) && q->items > 0 && !takes(q, r))
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

void mg__queue_none(struct queue *q, size_t idx)
{
    pthread_mutex_lock(&q->mu);
    if (idx < q->n) q->none[idx] = 1;
    size_t was = q->next;
    skip_none(q);
    if (q->next != was) {
        pthread_cond_signal(&q->not_empty);
        pthread_cond_broadcast(&q->not_full);
    }
    pthread_mutex_unlock(&q->mu);
}

struct result *mg__queue_pop(struct queue *q, int timeout_ms, bool *timed_out)
{
    *timed_out = false;
    pthread_mutex_lock(&q->mu);
    struct result *r, *prev;
    bool waited_out = false;
    for (;;) {
        prev = NULL;
        for (r = q->head; r && !takes(q, r); r = r->next) prev = r;
        if (r || q->producers == 0 || waited_out) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)timeout_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        waited_out = pthread_cond_timedwait(&q->not_empty, &q->mu, &ts) == ETIMEDOUT; /* (one look more) */
    }
    if (!r && q->producers > 0) { /* timed out */
        *timed_out = true;
        pthread_mutex_unlock(&q->mu);
        return NULL;
    }
    if (!r && (r = q->head)) prev = NULL; /* every worker done: the rest as it is */
    if (r) {
        if (prev) prev->next = r->next;
        else q->head = r->next;
        if (q->tail == r) q->tail = prev;
        q->items--;
        q->bytes -= r->len;
        if (!r->tri_batch && r->idx == q->next) {
            q->next++;
            skip_none(q);
        }
        pthread_cond_broadcast(&q->not_full);
    }
    pthread_mutex_unlock(&q->mu);
    return r;
}

void mg__result_free(struct result *r)
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

/* ---- 2. one file --------------------------------------------------------------------------------- */

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
        struct known *k = mg__known_find(&R->known, e->path);
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
    struct known *k = mg__known_find(&R->known, e->path);
    if (k) __atomic_store_n(&k->seen, 1, __ATOMIC_RELAXED);
    if (k && k->hash == hash) {
        free(buf);
        ADD(R->st->unchanged, 1);
        return NULL;
    }
    struct result *r = calloc(1, sizeof(*r));
    if (!r) goto nomem;
    r->idx = idx;
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
    r->flags |= (int)mg_file_role(e->path, buf, len) << MG_FILE_ROLE_SHIFT;
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
        mg__result_free(r);
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
    if (mg__result_streams(r, ts, tmp, R->marks) != 0) goto nomem;
    if (file_refs(r) != 0) goto nomem;
    if (k) ADD(R->st->changed, 1);
    else ADD(R->st->added, 1);
    ADD(R->st->bytes_indexed, r->len);
    return r;
nomem:
    free(buf);
    mg__result_free(r);
    mg_err_set(&err, MG_E_NO_MEMORY, "out of memory indexing '%s'", e->path);
    worker_fail(R, &err);
    return NULL;
}

/* ---- 3. the worker thread -------------------------------------------------------------------------- */

/* Queue a thread's trigram postings for the writer to flush; a fresh
 * builder takes its place (NULL when memory runs out: the run fails). */
static void hand_over(struct run *R, struct mg_tri_builder **tb, size_t last)
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
    r->idx = last;
    *tb = fresh;
    mg__queue_push(&R->q, r);
}

void *mg__worker_main(void *arg)
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
    size_t last = 0; /* the last file taken: a trigram batch covers none after it */
    for (;;) {
        if (stopped(R->stop) || __atomic_load_n(&R->failed, __ATOMIC_RELAXED)) break;
        size_t i = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED);
        if (i >= R->walk.n) break;
        struct result *r = process(R, i, parser, &scratch, tb, ts, &tmp);
        ADD(R->files_done, 1);
        if (r) mg__queue_push(&R->q, r);
        else mg__queue_none(&R->q, i);
        last = i;
        if (mg_tri_builder_bytes(tb) > R->tri_batch_bytes) hand_over(R, &tb, last);
    }
    hand_over(R, &tb, last); /* what is left, also after an interruption */
    ts_parser_delete(parser);
    mg_tri_scratch_release(&scratch);
    mg_token_set_free(&ts);
    mg_tri_builder_free(&tb);
    mg_buf_release(&tmp);
    double cpu = mg__thread_cpu_s();
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
