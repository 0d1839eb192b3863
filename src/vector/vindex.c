/* vindex.c — the embedding pass (see vindex.h).
 *
 * The calling thread reads batches of files without vectors (their stored
 * text and chunk ranges) and writes the sealed vectors; index_threads
 * threads decompress and embed each batch in between.
 *
 * Sections:
 *   1. a batch and its threads
 *   2. reading files to embed
 *   3. mg_vec_index
 */
#include "vector/vindex.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embed/embed.h"
#include "store/content.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "vector/vext.h"
#include "vector/vstore.h"
#include "util/clock.h"

#define BATCH_FILES 512
#define BATCH_BYTES (32u << 20)       /* compressed text per batch */
#define COMMIT_EVERY 64                /* batches */
#define MAX_FILE_TEXT (64u << 20)
/* meta: every file with an id at or below it has vectors (0 after they were all dropped) */
#define META_THROUGH "vec_through"

/* ---- 1. a batch and its threads ----------------------------------------------------------------- */

struct vfile {
    int64_t id;
    char *path;
    void *blob;              /* compressed text */
    size_t bloblen, size;
    size_t n;                /* chunks */
    int64_t *ids;
    int64_t (*range)[2];     /* byte ranges */
    float *vecs;             /* n * dim, filled by a thread */
    int failed;
};

struct batch {
    struct vfile *f;
    size_t n;
    struct mg_embedder *e;
    int dim;
    int nthreads;
    int failed;              /* a thread hit an error (err holds the first) */
    const volatile int *stop; /* the caller's stop flag, or NULL */
    struct mg_err err;
    pthread_mutex_t mu;
};

struct slice {
    struct batch *b;
    int t;
};

static void vfile_release(struct vfile *f)
{
    free(f->path);
    free(f->blob);
    free(f->ids);
    free(f->range);
    free(f->vecs);
    memset(f, 0, sizeof(*f));
}

/* Embed one file: "path\ntext" per chunk. */
static int embed_file(struct batch *b, struct vfile *f, struct mg_err *err)
{
    char *text;
    size_t len;
    if (mg_content_unpack(f->blob, f->bloblen, MAX_FILE_TEXT, &text, &len) != 0)
        return mg_err_set(err, MG_E_DB, "stored text of '%s' is corrupt; index the repo again", f->path);
    size_t pl = strlen(f->path);
    const char **texts = calloc(f->n + 1, sizeof(char *));
    size_t *lens = calloc(f->n + 1, sizeof(size_t));
    char **own = calloc(f->n + 1, sizeof(char *));
    f->vecs = malloc((f->n + 1) * (size_t)b->dim * sizeof(float));
    int rc = -1;
    if (!texts || !lens || !own || !f->vecs) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory embedding '%s'", f->path);
        goto out;
    }
    for (size_t i = 0; i < f->n; i++) {
        size_t s = (size_t)f->range[i][0], e = (size_t)f->range[i][1];
        if (e > len) e = len;
        if (s > e) s = e;
        own[i] = malloc(pl + 1 + (e - s) + 1);
        if (!own[i]) {
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory embedding '%s'", f->path);
            goto out;
        }
        memcpy(own[i], f->path, pl);
        own[i][pl] = '\n';
        memcpy(own[i] + pl + 1, text + s, e - s);
        own[i][pl + 1 + e - s] = 0;
        texts[i] = own[i];
        lens[i] = pl + 1 + e - s;
    }
    rc = mg_embed(b->e, MG_EMBED_DOCUMENT, texts, lens, f->n, f->vecs, err);
out:
    for (size_t i = 0; own && i < f->n; i++) free(own[i]);
    free(own);
    free(texts);
    free(lens);
    free(text);
    return rc;
}

static void *slice_main(void *arg)
{
    struct slice *s = arg;
    struct batch *b = s->b;
    for (size_t i = (size_t)s->t; i < b->n; i += (size_t)b->nthreads) {
        if (__atomic_load_n(&b->failed, __ATOMIC_RELAXED) || (b->stop && *b->stop)) break;
        struct mg_err e = {0};
        if (embed_file(b, &b->f[i], &e) != 0) {
            b->f[i].failed = 1;
            pthread_mutex_lock(&b->mu);
            if (!b->failed) b->err = e;
            b->failed = 1;
            pthread_mutex_unlock(&b->mu);
        }
    }
    mg_content_thread_done();
    return NULL;
}

static void run_batch(struct batch *b)
{
    pthread_t th[64];
    struct slice sl[64];
    int started = 0;
    for (int t = 1; t < b->nthreads; t++) {
        sl[t] = (struct slice){b, t};
        if (pthread_create(&th[t], NULL, slice_main, &sl[t]) != 0) break;
        started = t;
    }
    if (started < b->nthreads - 1) {
        /* fewer threads than planned: this thread takes the slices left */
        for (int t = started + 1; t < b->nthreads; t++) {
            sl[t] = (struct slice){b, t};
            slice_main(&sl[t]);
        }
    }
    sl[0] = (struct slice){b, 0};
    slice_main(&sl[0]);
    for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
}

/* ---- 2. reading files to embed ------------------------------------------------------------------ */

/* The meta row `vectors`: how many vectors the repo holds, for stats
 * (store/repostate.h), which must not count them on every read. Counted when
 * they changed or the row is missing (an index from before it was kept). */
static int note_vector_count(struct mg_db *d, bool changed, struct mg_err *err)
{
    char have[32];
    if (!changed && mg_db_meta_get(d, "vectors", have, sizeof(have)) == 0) return 0;
    return mg_db_meta_set_int(d, "vectors", mg_idx_vector_count(d), err);
}

/* Read the next batch of files without vectors, ids above *after. */
static int read_batch(struct mg_db *d, int64_t *after, struct vfile *v, size_t *n, struct mg_err *err)
{
    *n = 0;
    size_t bytes = 0;
    struct mg_idx_cur files, chunks = {0};
    struct mg_idx_row fr, cr;
    if (mg_idx_files_to_embed(d, *after, &files, err) != 0) return -1;
    int rc = 0;
    while (rc == 0 && *n < BATCH_FILES && bytes < BATCH_BYTES && mg_idx_next(&files, &fr) > 0) {
        struct vfile *f = &v[*n];
        memset(f, 0, sizeof(*f));
        f->id = fr.id;
        *after = f->id;
        f->path = strdup(fr.path);
        f->bloblen = fr.bloblen;
        f->blob = malloc(f->bloblen + 1);
        f->size = (size_t)fr.size;
        if (!f->path || !f->blob) {
            vfile_release(f);
            rc = mg_err_oom(err);
            break;
        }
        memcpy(f->blob, fr.blob, f->bloblen);
        (*n)++;
        bytes += f->bloblen;
        size_t cap = 0;
        if (mg_idx_chunks(d, fr.chunk_lo, fr.chunk_hi, &chunks, err) != 0) {
            rc = -1;
            break;
        }
        while (mg_idx_next(&chunks, &cr) > 0) {
            if (f->n == cap) {
                cap = cap ? cap * 2 : 16;
                int64_t *ids = realloc(f->ids, cap * sizeof(int64_t));
                if (ids) f->ids = ids;
                int64_t(*r)[2] = realloc(f->range, cap * sizeof(*r));
                if (r) f->range = r;
                if (!ids || !r) {
                    rc = mg_err_oom(err);
                    break;
                }
            }
            f->ids[f->n] = cr.id;
            f->range[f->n][0] = cr.start_byte;
            f->range[f->n][1] = cr.end_byte;
            f->n++;
        }
        mg_idx_done(&chunks);
    }
    /* no statement stays active across the commits between batches */
    mg_idx_done(&files);
    return rc;
}

/* ---- 3. mg_vec_index ---------------------------------------------------------------------------- */

void mg_vec_index(const struct mg_config *c, struct mg_db *d, const char *repo_id, mg_progress_fn on_progress,
                  void *progress_ud, const volatile int *stop, struct mg_vec_stats *st)
{
    memset(st, 0, sizeof(*st));
    double t0 = mg_clock_s();
    struct mg_err err = {0};
    struct mg_embedder *e = NULL;
    struct mg_vstore *vs = NULL;
    struct vfile *v = NULL;
    size_t nv = 0;
    bool in_tx = false, changed = false;
    unsigned char key[MG_VKEY_BYTES];
    char kid[17] = "", sig[sizeof(st->embedder)], have[sizeof(st->embedder)] = "", have_kid[32] = "";

    if (mg_embedder_open(c, &e, &err) != 0) goto fail;
    mg_embedder_sig(e, sig, sizeof(sig));
    snprintf(st->embedder, sizeof(st->embedder), "%s", sig);
    mg_db_meta_get(d, "embed_sig", have, sizeof(have));
    if (!e) {
        /* keyword-only: drop vectors made by another embedder */
        if (strcmp(have, "none") == 0) goto done;
        if (mg_db_begin(d, &err) != 0) goto fail;
        in_tx = true;
        if (mg_idx_model_clear(d, true, &err) != 0 || mg_db_meta_set_int(d, META_THROUGH, 0, &err) != 0 ||
            mg_db_meta_set(d, "embed_sig", "none", &err) != 0)
            goto fail;
        changed = true;
        st->reembedded = have[0] != 0;
        goto finish;
    }
    char tenant[65]; /* the repo's owner: its vectors are sealed under that tenant's key */
    if (mg_db_meta_get(d, "tenant", tenant, sizeof(tenant)) != 0) snprintf(tenant, sizeof(tenant), "local");
    if (mg_vkey_load(c, tenant, key, &err) != 0) goto fail;
    mg_vkey_id(key, kid);
    if (mg_vstore_open(c, d, repo_id, key, &vs, &err) != 0) goto fail;
    mg_db_meta_get(d, "vec_key_id", have_kid, sizeof(have_kid));
    /* where the vectors are (vext.h): another store than the one they are in embeds again */
    char vstore[700], have_vstore[700] = "builtin";
    mg_vext_sig(c, tenant, repo_id, vstore, sizeof(vstore));
    mg_db_meta_get(d, "vec_store", have_vstore, sizeof(have_vstore));
    if (mg_db_begin(d, &err) != 0) goto fail;
    in_tx = true;
    uint64_t nfiles_u = 0;
    mg_idx_totals(d, &nfiles_u, NULL, NULL, NULL);
    int64_t nfiles = (int64_t)nfiles_u;
    int64_t learned = mg_db_meta_int(d, "embed_learn_files", 0);
    bool stale = strcmp(have, sig) != 0 || strcmp(have_kid, kid) != 0 || strcmp(have_vstore, vstore) != 0 ||
                 (strcmp(e->name, "builtin") == 0 && nfiles > 2 * learned + 100);
    if (stale) {
        if (vs->ops->prune(vs, 1, &err) != 0 || mg_idx_model_clear(d, false, &err) != 0 ||
            mg_db_meta_set_int(d, META_THROUGH, 0, &err) != 0 ||
            mg_db_meta_set(d, "embed_sig", sig, &err) != 0 || mg_db_meta_set(d, "vec_key_id", kid, &err) != 0 ||
            mg_db_meta_set(d, "vec_store", vstore, &err) != 0 ||
            mg_db_meta_set_int(d, "embed_learn_files", nfiles, &err) != 0)
            goto fail;
        st->reembedded = have[0] && strcmp(have, "none") != 0;
        changed = true;
    }
    int64_t before = mg_idx_vector_rows(d);
    if (vs->ops->prune(vs, 0, &err) != 0) goto fail;
    if (mg_idx_vector_rows(d) != before) changed = true;
    if (mg_embedder_prepare(e, d, 1, &err) != 0) goto fail;
    int dim = mg_embedder_dim(e, &err);
    if (dim < 0) goto fail;
    v = calloc(BATCH_FILES, sizeof(*v));
    if (!v) {
        mg_err_set(&err, MG_E_NO_MEMORY, "out of memory");
        goto fail;
    }
    /* the files to embed: those above the last pass's mark (new files get new ids: AUTOINCREMENT) */
    int64_t through = mg_db_meta_int(d, META_THROUGH, 0);
    int64_t todo = mg_idx_files_unembedded(d, through);
    int64_t after = through;
    int batches = 0;
    struct batch b = {.e = e, .dim = dim, .stop = stop};
    b.nthreads = c->index_threads < 1 ? 1 : c->index_threads > 64 ? 64 : c->index_threads;
    pthread_mutex_init(&b.mu, NULL);
    for (;;) {
        if (read_batch(d, &after, v, &nv, &err) != 0) {
            pthread_mutex_destroy(&b.mu);
            goto fail;
        }
        if (nv == 0 || (stop && *stop)) break;
        b.f = v;
        b.n = nv;
        run_batch(&b);
        for (size_t i = 0; i < nv; i++) {
            if (v[i].failed || !v[i].vecs) continue;
            if (vs->ops->put(vs, v[i].id, v[i].ids, v[i].vecs, v[i].n, dim, &err) != 0) {
                pthread_mutex_destroy(&b.mu);
                goto fail;
            }
            st->files++;
            st->chunks += v[i].n;
            changed = true;
        }
        for (size_t i = 0; i < nv; i++) vfile_release(&v[i]);
        nv = 0;
        if (on_progress) {
            struct mg_progress p = {.what = repo_id, .phase = "embed", .done = st->files,
                                          .total = (uint64_t)todo, .seconds = mg_clock_s() - t0};
            on_progress(progress_ud, &p);
        }
        if (b.failed) break;
        if (++batches % COMMIT_EVERY == 0 &&
            (mg_db_commit(d, &err) != 0 || mg_db_begin(d, &err) != 0)) {
            pthread_mutex_destroy(&b.mu);
            goto fail;
        }
    }
    pthread_mutex_destroy(&b.mu);
    if (on_progress && st->files) {
        struct mg_progress p = {.what = repo_id, .phase = "embed", .done = st->files, .total = (uint64_t)todo,
                                      .seconds = mg_clock_s() - t0, .final = true};
        on_progress(progress_ud, &p);
    }
    if (b.failed) {
        err = b.err;
        goto fail;
    }
    through = mg_idx_vectors_through(d, through);
    if (through < 0 ? mg_db_error(d, "vectors", &err) : mg_db_meta_set_int(d, META_THROUGH, through, &err)) goto fail;
finish:
    if (changed && mg_db_meta_set_int(d, "vec_gen", mg_db_meta_int(d, "vec_gen", 0) + 1, &err) != 0) goto fail;
    if (note_vector_count(d, changed, &err) != 0) goto fail;
    if (mg_db_commit(d, &err) != 0) goto fail;
    in_tx = false;
    goto done;
fail:
    snprintf(st->warning, sizeof(st->warning), "%s: %s; search stays keyword-only where vectors are missing",
             err.code ? err.code : MG_E_INTERNAL, err.msg);
    if (in_tx) {
        /* keep the vectors made so far */
        if (changed) mg_db_meta_set_int(d, "vec_gen", mg_db_meta_int(d, "vec_gen", 0) + 1, NULL);
        note_vector_count(d, changed, NULL);
        if (mg_db_commit(d, NULL) != 0) mg_db_rollback(d);
    }
done:
    /* index_status says what the pass could not do (a model_invalid, an endpoint down) until one succeeds */
    {
        char was[sizeof(st->warning)] = "";
        mg_db_meta_get(d, "vec_warning", was, sizeof(was));
        if (strcmp(was, st->warning) != 0) mg_db_meta_set(d, "vec_warning", st->warning, NULL);
    }
    for (size_t i = 0; v && i < nv; i++) vfile_release(&v[i]);
    free(v);
    mg_vstore_close(&vs);
    if (e) st->pending = (uint64_t)mg_idx_files_unembedded(d, mg_db_meta_int(d, META_THROUGH, 0));
    mg_embedder_free(&e);
    st->seconds = mg_clock_s() - t0;
}
