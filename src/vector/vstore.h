/* vstore.h — vector stores: int8 vectors by chunk id, searched exactly.
 *
 * A vector store is a vtable (struct mg_vstore_ops). The built-in store
 * keeps each file's vectors in one row of the repo database's `vectors`
 * table, sealed with XChaCha20-Poly1305 under the tenant's key (mg_vkey_load)
 * with the repo id and file id as associated data, so a blob that was
 * changed, or moved to another row or repo, fails to open (vector_tampered).
 *
 * Vectors are unit length, quantised to int8 with one float scale each,
 * and kept in memory in blocks of MG_VBLOCK vectors, dimension by
 * dimension. A search scores every candidate with an int8 dot product
 * that reads only the columns of the query's nonzero dimensions (AVX2 when
 * the CPU has it): a builtin query embeds a few words, about 20 of 256
 * dimensions, so it reads a tenth of the vectors' bytes. It keeps a
 * shortlist, rescores it with the float query against the dequantised
 * vectors, and checks the quantisation error bound: if a vector outside
 * the shortlist could still beat the k-th result, every candidate is
 * rescored in float. The result is exactly the top k by float dot product
 * over the stored (dequantised) vectors.
 *
 * Candidates are chunk-id ranges (a file's chunks: files.chunk_lo..chunk_hi)
 * chosen in SQL with the query's scope before any vector is scored.
 *
 * Reading decrypts a repo's vectors once per process and keeps them while
 * the repo's vec_gen (meta) is unchanged; the cache is shared by threads.
 * A caller that must not wait (a server's hybrid search) pins without
 * wait: when the current generation is not in memory, it is loaded on a
 * thread of its own (one load at a time per process, on a read-only
 * connection, in one read transaction) and the caller is told it is
 * loading, with the progress, so that it can answer without vectors.
 * Vectors of another generation (stale) are never used.
 */
#ifndef MG_VSTORE_H
#define MG_VSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/err.h"

struct mg_db;

#define MG_VKEY_BYTES 32
#define MG_VCACHE_REPOS 8 /* repos whose vectors a process keeps in memory */

/* The tenant's vector key: derived from MEMGATE_MASTER_KEY (64 hex digits)
 * when set, else read from (or created in) <home>/keys/<tenant>.key, 0600. */
int mg_vkey_load(const struct mg_config *c, const char *tenant, unsigned char key[MG_VKEY_BYTES],
                 struct mg_err *err);
/* A short public id of a key (16 hex digits), kept in the repo's meta. */
void mg_vkey_id(const unsigned char key[MG_VKEY_BYTES], char out[17]);

/* int8 quantisation of v: q[i] = round(v[i] / scale), |q[i]| <= 127. */
void mg_vec_quantize(const float *v, int dim, int8_t *q, float *scale);
/* Scans started by the calling thread use n CPUs fewer than there are (at
 * least one): hybrid search scans on a thread of its own while its other
 * searches need a CPU. */
void mg_vset_scan_spare(int n);

/* Seal one file's vectors (n rows of dim floats, chunk ids ascending). */
int mg_vblob_seal(const unsigned char key[MG_VKEY_BYTES], const char *repo_id, int64_t file_id, int dim, size_t n,
                  const int64_t *ids, const float *vecs, void **blob, size_t *len, struct mg_err *err);

#define MG_VBLOCK 4096

/* Every vector of a repo, in memory. */
struct mg_vset {
    int dim;
    size_t n, cap;     /* cap: whole blocks */
    int64_t *ids;      /* chunk ids */
    float *scale;
    /* cap * dim: value j of vector i at [(i / MG_VBLOCK * dim + j) * MG_VBLOCK + i % MG_VBLOCK] */
    int8_t *q;
    int8_t *stage;     /* while adding: the last block's rows, as they come */
    float maxnorm;     /* largest norm of a dequantised vector */
    uint8_t *have;     /* a partial set (from the column file): have[j] when column j was read; NULL: all */
    size_t qmap;       /* q is an anonymous mapping of this many bytes (a partial set's), not malloc'd */
    /* per blob: its first id, the range of its ids, its vectors; sorted by lo */
    struct mg_vfile { int64_t lo, min, max; uint32_t first, count; } *files;
    size_t nfiles, fcap;
    int refs;
};

/* A load's progress: vectors loaded of the repo's total (total is 0 until
 * it is known); stop set ends the load at its next file. */
struct mg_vload {
    uint64_t done, total;
    int stop;
};

/* Open every blob of the repo (vector_tampered names the first bad one).
 * progress (may be NULL) is updated as it goes, atomically. */
int mg_vset_load(struct mg_db *d, const char *repo_id, const unsigned char key[MG_VKEY_BYTES],
                 struct mg_vload *progress, struct mg_vset **out, struct mg_err *err);
/* Add one sealed blob (used by load, and by tests). */
int mg_vset_add_blob(struct mg_vset *s, const unsigned char key[MG_VKEY_BYTES], const char *repo_id,
                     int64_t file_id, const void *blob, size_t len, struct mg_err *err);
/* Put the last rows in their block and sort the file index; call after the
 * last add, before any search. */
void mg_vset_finish(struct mg_vset *s);
void mg_vset_unref(struct mg_vset **s);  /* drops a reference */

/* vector i (an index into the set) as dim int8 values (a partial set's
 * unread columns read as zeros) */
void mg_vset_get(const struct mg_vset *s, size_t i, int8_t *out);
/* int8 dot products of qq with vectors lo..hi-1: out[i - lo] (the scan's
 * kernel; -1 when out of memory) */
int mg_vset_dot_i8(const struct mg_vset *s, const int8_t *qq, size_t lo, size_t hi, int32_t *out);

struct mg_vrange { int64_t lo, hi; };   /* chunk ids lo..hi (one file's range) */
struct mg_vmatch { int64_t id; float score; };

/* Top k (at most) of the candidates (NULL ranges: all vectors) by dot
 * product with the unit query; best first. Returns the count or -1. */
long mg_vset_search(const struct mg_vset *s, const float *query, const struct mg_vrange *r, size_t nr, int k,
                    struct mg_vmatch *out);
/* Float scores of given chunk ids (NAN where a chunk has no vector); -1
 * when out of memory. */
int mg_vset_score(const struct mg_vset *s, const float *query, const int64_t *ids, size_t n, float *scores);

/* What this process holds of the vectors of the database at dbpath (its
 * latest generation asked for): 0 nothing, 1 loading, 2 in memory, -1 the
 * load failed; progress (may be NULL) as of now. */
int mg_vcache_state(const char *dbpath, struct mg_vload *progress);

/* ---- the store interface ---- */

struct mg_vstore;
struct mg_vstore_ops {
    /* replace a file's vectors */
    int (*put)(struct mg_vstore *s, int64_t file_id, const int64_t *ids, const float *vecs, size_t n, int dim,
               struct mg_err *err);
    /* drop vectors of files no longer in the index; all = drop every vector */
    int (*prune)(struct mg_vstore *s, int all, struct mg_err *err);
    /* top k among candidate ranges (NULL: all) */
    long (*search)(struct mg_vstore *s, const float *q, int dim, const struct mg_vrange *r, size_t nr, int k,
                   struct mg_vmatch *out, struct mg_err *err);
    /* scores of given chunk ids (NAN: none) */
    int (*score)(struct mg_vstore *s, const float *q, int dim, const int64_t *ids, size_t n, float *scores,
                 struct mg_err *err);
    void (*close)(struct mg_vstore *s);
    /* read now what search needs from the database, so that search uses the
     * handle no more and may run on another thread (hybrid search does).
     * q (may be NULL: every vector whole): the one query the handle will be
     * asked about, so that a store may read only what it needs (the
     * built-in store: the query's columns from the column file).
     * wait: the caller waits for the vectors (loads them, or waits for a
     * load under way). !wait: if they are not in memory, 1 is returned at
     * once and they load in the background (loading: the progress).
     * 0 (pinned), 1 (loading), or -1 with err set. */
    int (*pin)(struct mg_vstore *s, bool wait, const float *q, int dim, struct mg_vload *loading,
               struct mg_err *err);
};
struct mg_vstore {
    const struct mg_vstore_ops *ops;
    void *self;
};

/* The vector store of repo_id for cfg, on the repo's database (the handle
 * stays the caller's) with the repo tenant's key: the only way to a store.
 * The built-in one (vectors in the repo database, sealed), or with
 * vector_store = chroma | qdrant an external one (vector/vext.h: key is
 * not used there; the vectors leave memgate's encryption at rest). */
int mg_vstore_open(const struct mg_config *cfg, struct mg_db *d, const char *repo_id,
                   const unsigned char key[MG_VKEY_BYTES], struct mg_vstore **out, struct mg_err *err);
void mg_vstore_close(struct mg_vstore **s);

/* ---- the column file (vcols.c) ----
 *
 * Loading a repo's vectors means reading and decrypting every blob (Linux:
 * 78,489 blobs, 325 MB, seconds), though a builtin query has about 20
 * nonzero dimensions of 256 and the exact scan reads only those columns.
 * The column file (DBPATH.vec) holds the vectors as they sit in memory,
 * sealed per block and column (XChaCha20-Poly1305 under the same key; the
 * associated data names the header, repo and part), so a process that has
 * not the vectors in memory reads only the ids, scales and the query's
 * columns: the same values, so the same exact result. It belongs to one
 * generation (its header names it) and is ignored for any other. */
void mg_vcols_path(const char *dbpath, char *out, size_t cap);
/* Write the whole set s of generation gen (the store's name for vec_gen
 * and the key) beside the database at dbpath, whole or not at all. */
int mg_vcols_write(const char *dbpath, const char *repo_id, const char *gen, const unsigned char key[MG_VKEY_BYTES],
                   const struct mg_vset *s, struct mg_err *err);
/* Read what the query q (dim floats) needs into *io: a new partial set
 * (ids, scales, file table, q's nonzero columns) when *io is NULL, else
 * the columns *io lacks. 0; 1 when there is no usable file (absent, another
 * generation or dimension: the caller loads the blobs); -1 with err set
 * (vector_tampered: a part fails authentication or the sizes disagree). */
int mg_vcols_read(const char *dbpath, const char *repo_id, const char *gen, const unsigned char key[MG_VKEY_BYTES],
                  const float *q, int dim, struct mg_vset **io, struct mg_err *err);
/* The same on the file's bytes (the fuzz target's entry). */
int mg_vcols_parse(const void *data, size_t len, const char *repo_id, const char *gen,
                   const unsigned char key[MG_VKEY_BYTES], const float *q, int dim, struct mg_vset **io,
                   struct mg_err *err);
/* The generation the column file of dbpath holds, and its age in seconds
 * (age_s may be NULL); -1 when there is none. */
int mg_vcols_gen(const char *dbpath, char gen[64], double *age_s);
/* Bring the column file of the repo database at dbpath up to its current
 * vectors (written when its generation differs; removed when the repo has
 * no vectors). Used at the end of full index runs. */
int mg_vcols_update(const struct mg_config *c, const char *dbpath, const char *repo_id, struct mg_err *err);

#endif
