/* vcols.c — the column file: a repo's vectors as they sit in memory, sealed
 * column by column, so that one query reads only its own columns (vstore.h,
 * "The column file").
 *
 * DBPATH.vec is a header in the clear followed by sealed parts, each
 * nonce (24) || XChaCha20-Poly1305(plaintext) || tag (16):
 *
 *   part 0                 the file table: nfiles struct mg_vfile
 *   per block b (of MG_VBLOCK vectors, in the set's order):
 *     part 1 + b * (dim + 1)        ids (MG_VBLOCK i64) then scales (MG_VBLOCK f32)
 *     part 1 + b * (dim + 1) + 1 + j   column j (MG_VBLOCK int8)
 *
 * Every part's associated data is the header's bytes, the repo id and the
 * part's number, so a part cannot be moved to another place, file,
 * generation or repo, and a changed header fails every part. Sizes are
 * fixed, so a part's offset is computed, never read.
 *
 * Sections:
 *   1. layout and associated data
 *   2. writing
 *   3. reading
 */
#include "vector/vstore.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/file.h"

#define BLK MG_VBLOCK
#define NONCE crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define MAC crypto_aead_xchacha20poly1305_ietf_ABYTES
#define SEALED(x) ((uint64_t)NONCE + (x) + MAC)
#define META_BYTES ((uint64_t)BLK * 12)
#define MAGIC "MGVCOL1"
#define MAX_DIM 8192
#define MAX_VECTORS (1ull << 32)

/* ---- 1. layout and associated data -------------------------------------------------------------- */

struct head {
    char magic[8];
    uint32_t version, dim;
    uint64_t n, nfiles;
    float maxnorm;
    uint32_t block;
    char gen[64]; /* the generation written (vstore.c's gen_of), NUL-terminated */
};

void mg_vcols_path(const char *dbpath, char *out, size_t cap) { snprintf(out, cap, "%s.vec", dbpath); }

static uint64_t nblocks_of(uint64_t n) { return (n + BLK - 1) / BLK; }
static uint64_t block_bytes(uint32_t dim) { return SEALED(META_BYTES) + dim * SEALED((uint64_t)BLK); }
static uint64_t off_block(const struct head *h, uint64_t b)
{
    return sizeof(struct head) + SEALED(h->nfiles * sizeof(struct mg_vfile)) + b * block_bytes(h->dim);
}
/* where block b's columns start (after its ids and scales); column j is SEALED(BLK) * j further */
static uint64_t off_cols(const struct head *h, uint64_t b) { return off_block(h, b) + SEALED(META_BYTES); }
/* the part number of block b's ids and scales, and of its column j */
static uint64_t part_meta(const struct head *h, uint64_t b) { return 1 + b * (h->dim + 1); }
static uint64_t part_col(const struct head *h, uint64_t b, uint64_t j) { return part_meta(h, b) + 1 + j; }

/* associated data: the header, the repo id, then the part number (set per part) */
struct ad {
    unsigned char v[sizeof(struct head) + 160];
    size_t len;
};

static void ad_make(struct ad *a, const struct head *h, const char *repo_id)
{
    memcpy(a->v, h, sizeof(*h));
    size_t r = strlen(repo_id);
    if (r > 150) r = 150;
    memcpy(a->v + sizeof(*h), repo_id, r);
    a->v[sizeof(*h) + r] = 0;
    a->len = sizeof(*h) + r + 1 + 8;
}

static void ad_part(struct ad *a, uint64_t part)
{
    for (int i = 0; i < 8; i++) a->v[a->len - 8 + (size_t)i] = (unsigned char)(part >> (8 * i));
}

/* ---- 2. writing --------------------------------------------------------------------------------- */

struct writer {
    const struct mg_vset *s;
    const char *repo_id;
    const unsigned char *key;
    struct head h;
    unsigned char *plain, *sealed; /* META_BYTES and its sealed size */
};

static int put_part(FILE *f, struct writer *w, struct ad *a, uint64_t part, const void *p, uint64_t len)
{
    unsigned char *out = len <= META_BYTES ? w->sealed : malloc(SEALED(len));
    if (!out) return -1;
    ad_part(a, part);
    randombytes_buf(out, NONCE);
    unsigned long long clen;
    crypto_aead_xchacha20poly1305_ietf_encrypt(out + NONCE, &clen, p, len, a->v, a->len, NULL, out, w->key);
    int rc = fwrite(out, 1, NONCE + clen, f) == NONCE + clen ? 0 : -1;
    if (out != w->sealed) free(out);
    return rc;
}

static int write_cols(FILE *f, void *arg)
{
    struct writer *w = arg;
    const struct mg_vset *s = w->s;
    struct ad a;
    ad_make(&a, &w->h, w->repo_id);
    if (fwrite(&w->h, 1, sizeof(w->h), f) != sizeof(w->h) ||
        put_part(f, w, &a, 0, s->files, w->h.nfiles * sizeof(struct mg_vfile)) != 0)
        return -1;
    uint64_t nb = nblocks_of(w->h.n), part = 1;
    for (uint64_t b = 0; b < nb; b++) {
        size_t lo = (size_t)(b * BLK), m = w->h.n - lo < BLK ? (size_t)(w->h.n - lo) : BLK;
        memset(w->plain, 0, META_BYTES);
        memcpy(w->plain, s->ids + lo, m * 8);
        memcpy(w->plain + (size_t)BLK * 8, s->scale + lo, m * 4);
        if (put_part(f, w, &a, part++, w->plain, META_BYTES) != 0) return -1;
        for (uint32_t j = 0; j < w->h.dim; j++)
            if (put_part(f, w, &a, part++, s->q + (b * w->h.dim + j) * BLK, BLK) != 0) return -1;
    }
    return 0;
}

int mg_vcols_write(const char *dbpath, const char *repo_id, const char *gen, const unsigned char key[MG_VKEY_BYTES],
                   const struct mg_vset *s, struct mg_err *err)
{
    if (sodium_init() < 0) return mg_err_set(err, MG_E_INTERNAL, "libsodium failed to start");
    if (s->have) return mg_err_set(err, MG_E_INTERNAL, "a partial vector set cannot be written");
    struct writer w = {.s = s, .repo_id = repo_id, .key = key};
    memcpy(w.h.magic, MAGIC, 8);
    w.h.version = 1;
    w.h.dim = (uint32_t)s->dim;
    w.h.n = s->n;
    w.h.nfiles = s->nfiles;
    w.h.maxnorm = s->maxnorm;
    w.h.block = BLK;
    snprintf(w.h.gen, sizeof(w.h.gen), "%s", gen);
    w.plain = malloc(META_BYTES);
    w.sealed = malloc(SEALED(META_BYTES));
    char path[4200];
    mg_vcols_path(dbpath, path, sizeof(path));
    int rc = w.plain && w.sealed ? mg_file_replace(path, write_cols, &w, err)
                                 : mg_err_oom(err);
    free(w.plain);
    free(w.sealed);
    return rc;
}

/* ---- 3. reading --------------------------------------------------------------------------------- */

static int tampered(const char *repo_id, const char *what, struct mg_err *err)
{
    return mg_err_set(err, MG_E_VECTOR_TAMPERED, "the vector column file of repo '%s' fails authentication (%s): "
                      "it was changed on disk or sealed with another key; delete it (the .vec file beside the "
                      "repo's index) or index the repo again", repo_id, what);
}

/* Where the sealed bytes come from: a buffer (data) or a file (fd, read
 * part by part: a query reads a few columns of each block, and mapping the
 * file would map most of it). */
struct src {
    const unsigned char *data;
    int fd;
    unsigned char *buf; /* SEALED(META_BYTES), for fd */
};

/* Open part `part` at off (plaintext len bytes, at most META_BYTES unless
 * from a buffer) into dst. */
static int open_part(const struct src *in, uint64_t off, uint64_t len, struct ad *a, uint64_t part,
                     const unsigned char *key, void *dst)
{
    const unsigned char *c = in->data ? in->data + off : in->buf;
    if (!in->data) {
        unsigned char *big = len > META_BYTES ? malloc(SEALED(len)) : NULL;
        if (len > META_BYTES && !big) return -2;
        if (big) c = big;
        if (pread(in->fd, (void *)c, SEALED(len), (off_t)off) != (ssize_t)SEALED(len)) {
            free(big);
            return -1;
        }
        int rc = open_part(&(struct src){.data = c}, 0, len, a, part, key, dst);
        free(big);
        return rc;
    }
    ad_part(a, part);
    unsigned long long got;
    return crypto_aead_xchacha20poly1305_ietf_decrypt(dst, &got, NULL, c + NONCE, len + MAC, a->v, a->len, c, key) ==
                       0 &&
                   got == len
               ? 0
               : -1;
}

/* A new partial set from the header, the file table and every block's ids
 * and scales; no column yet. */
static int read_base(const struct src *data, const struct head *h, struct ad *a, const char *repo_id,
                     const unsigned char *key, struct mg_vset **out, struct mg_err *err)
{
    uint64_t nb = nblocks_of(h->n);
    struct mg_vset *s = calloc(1, sizeof(*s));
    unsigned char *meta = malloc(META_BYTES);
    if (!s || !meta) goto oom;
    s->refs = 1;
    s->dim = (int)h->dim;
    s->n = (size_t)h->n;
    s->cap = (size_t)(nb * BLK);
    s->maxnorm = h->maxnorm;
    s->nfiles = s->fcap = (size_t)h->nfiles;
    s->ids = malloc((s->cap ? s->cap : 1) * sizeof(int64_t));
    s->scale = malloc((s->cap ? s->cap : 1) * sizeof(float));
    /* page-aligned zero pages, so that a column read faults in one page, not
     * two; the columns not read stay untouched */
    s->qmap = s->cap ? s->cap * h->dim : 4096;
    s->q = mmap(NULL, s->qmap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->q == MAP_FAILED) {
        s->q = NULL;
        s->qmap = 0;
    }
    s->have = calloc(h->dim, 1);
    s->files = malloc((s->nfiles ? s->nfiles : 1) * sizeof(struct mg_vfile));
    if (!s->ids || !s->scale || !s->q || !s->have || !s->files) goto oom;
    int rc = open_part(data, sizeof(*h), h->nfiles * sizeof(struct mg_vfile), a, 0, key, s->files);
    if (rc == -2) goto oom;
    if (rc != 0) {
        tampered(repo_id, "its file table", err);
        goto fail;
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct mg_vfile *f = &s->files[i];
        if (f->count == 0 || (uint64_t)f->first + f->count > h->n || f->min > f->max ||
            (i && f->lo < s->files[i - 1].lo)) {
            tampered(repo_id, "a file table that does not fit its vectors", err);
            goto fail;
        }
    }
    for (uint64_t b = 0; b < nb; b++) {
        if (open_part(data, off_block(h, b), META_BYTES, a, part_meta(h, b), key, meta) != 0) {
            tampered(repo_id, "the ids of a block", err);
            goto fail;
        }
        size_t lo = (size_t)(b * BLK);
        memcpy(s->ids + lo, meta, (size_t)BLK * 8);
        memcpy(s->scale + lo, meta + (size_t)BLK * 8, (size_t)BLK * 4);
    }
    free(meta);
    *out = s;
    return 0;
oom:
    mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading vectors");
fail:
    free(meta);
    mg_vset_unref(&s);
    return -1;
}

/* A dense read's share of the blocks: first, first + step, ... (parse) */
struct dense {
    int fd;
    const struct head *h;
    struct ad a; /* its own: each part's number is written into it */
    const unsigned char *key;
    const float *q;
    struct mg_vset *s;
    uint64_t first, step;
    int rc; /* 0, -1 a part that fails, -2 out of memory */
};

/* Each of d's blocks' needed columns, read in one pread a block. */
static void *dense_blocks(void *arg)
{
    struct dense *d = arg;
    const struct head *h = d->h;
    uint64_t span = (uint64_t)h->dim * SEALED((uint64_t)BLK), nb = nblocks_of(h->n);
    unsigned char *buf = malloc(span);
    if (!buf) {
        d->rc = -2;
        return NULL;
    }
    for (uint64_t b = d->first; b < nb && d->rc == 0; b += d->step) {
        if (pread(d->fd, buf, span, (off_t)off_cols(h, b)) != (ssize_t)span) {
            d->rc = -1;
            break;
        }
        for (uint32_t j = 0; j < h->dim && d->rc == 0; j++)
            if (d->q[j] != 0 && !d->s->have[j] &&
                open_part(&(struct src){.data = buf}, j * SEALED((uint64_t)BLK), BLK, &d->a, part_col(h, b, j),
                          d->key, d->s->q + (b * h->dim + j) * BLK) != 0)
                d->rc = -1;
    }
    free(buf);
    return NULL;
}

/* The column file's header is h, its size len, its parts in data. */
static int parse(const struct src *data, const struct head *hp, uint64_t len, const char *repo_id, const char *gen,
                 const unsigned char key[MG_VKEY_BYTES], const float *q, int dim, struct mg_vset **io,
                 struct mg_err *err)
{
    struct head h = *hp;
    if (memcmp(h.magic, MAGIC, 8) != 0 || h.version != 1 || h.block != BLK || h.dim == 0 || h.dim > MAX_DIM ||
        (int)h.dim != dim || h.n > MAX_VECTORS || h.nfiles > h.n || memchr(h.gen, 0, sizeof(h.gen)) == NULL ||
        strcmp(h.gen, gen) != 0 || !isfinite(h.maxnorm) || h.maxnorm < 0)
        return 1; /* not this generation's, or not a column file: the blobs answer */
    if (off_block(&h, nblocks_of(h.n)) != len)
        return tampered(repo_id, "its size does not match its header", err);
    if (sodium_init() < 0) return mg_err_set(err, MG_E_INTERNAL, "libsodium failed to start");
    struct ad a;
    ad_make(&a, &h, repo_id);
    struct mg_vset *s = *io;
    if (s && (s->dim != dim || s->n != h.n || !s->have)) return mg_err_set(err, MG_E_INTERNAL, "vector set mismatch");
    if (!s && read_base(data, &h, &a, repo_id, key, &s, err) != 0) return -1;
    uint64_t nb = nblocks_of(h.n);
    int need = 0;
    for (int j = 0; j < dim; j++) need += q[j] != 0 && !s->have[j];
    if (!data->data && need * 4 > dim) {
        /* most columns (a dense query: the code model's): each block's columns in one read, not a read
         * per column (64 x 294 reads of 4 KiB for Linux's vectors were a CLI hybrid search's 0.1 s of
         * system time), every page of the set in huge pages where the kernel has them (a fault per 4 KiB
         * page was a third of it), and the blocks opened on two threads (decryption is what is left) */
        if (need == dim) madvise(s->q, s->qmap, MADV_HUGEPAGE);
        struct dense d[2];
        for (int t = 0; t < 2; t++)
            d[t] = (struct dense){.fd = data->fd, .h = &h, .a = a, .key = key, .q = q, .s = s, .first = (uint64_t)t,
                                  .step = 2, .rc = 0};
        pthread_t th;
        bool two = nb > 1 && pthread_create(&th, NULL, dense_blocks, &d[1]) == 0;
        if (!two) d[0].step = 1;
        dense_blocks(&d[0]);
        if (two) pthread_join(th, NULL);
        int rc = d[0].rc ? d[0].rc : two ? d[1].rc : 0;
        if (rc != 0) {
            if (!*io) mg_vset_unref(&s);
            return rc == -2 ? mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading vectors")
                            : tampered(repo_id, "a column", err);
        }
        for (int j = 0; j < dim; j++) s->have[j] |= q[j] != 0;
        *io = s;
        return 0;
    }
    for (int j = 0; j < dim; j++) {
        if (q[j] == 0 || s->have[j]) continue;
        for (uint64_t b = 0; b < nb; b++) {
            uint64_t off = off_cols(&h, b) + (uint64_t)j * SEALED((uint64_t)BLK);
            if (open_part(data, off, BLK, &a, part_col(&h, b, (uint64_t)j), key,
                          s->q + (b * h.dim + (uint64_t)j) * BLK) != 0) {
                if (!*io) mg_vset_unref(&s);
                return tampered(repo_id, "a column", err);
            }
        }
        s->have[j] = 1;
    }
    *io = s;
    return 0;
}

int mg_vcols_parse(const void *data, size_t len, const char *repo_id, const char *gen,
                   const unsigned char key[MG_VKEY_BYTES], const float *q, int dim, struct mg_vset **io,
                   struct mg_err *err)
{
    struct head h;
    if (len < sizeof(h)) return 1;
    memcpy(&h, data, sizeof(h));
    return parse(&(struct src){.data = data}, &h, len, repo_id, gen, key, q, dim, io, err);
}

int mg_vcols_read(const char *dbpath, const char *repo_id, const char *gen, const unsigned char key[MG_VKEY_BYTES],
                  const float *q, int dim, struct mg_vset **io, struct mg_err *err)
{
    char path[4200];
    mg_vcols_path(dbpath, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    struct stat st;
    struct head h;
    struct src in = {.fd = fd, .buf = malloc(SEALED(META_BYTES))};
    int rc = 1;
    if (!in.buf) rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading vectors");
    else if (fstat(fd, &st) == 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h))
        rc = parse(&in, &h, (uint64_t)st.st_size, repo_id, gen, key, q, dim, io, err);
    free(in.buf);
    close(fd);
    return rc;
}

int mg_vcols_gen(const char *dbpath, char gen[64], double *age_s)
{
    char path[4200];
    mg_vcols_path(dbpath, path, sizeof(path));
    gen[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct head h;
    struct stat st;
    int rc = read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) && memcmp(h.magic, MAGIC, 8) == 0 &&
                     memchr(h.gen, 0, sizeof(h.gen)) && fstat(fd, &st) == 0
                 ? 0
                 : -1;
    close(fd);
    if (rc == 0) {
        snprintf(gen, 64, "%s", h.gen);
        if (age_s) *age_s = difftime(time(NULL), st.st_mtime);
    }
    return rc;
}
