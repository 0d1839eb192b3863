/* indexdb.h — the repo index's tables, and the one module that reads and
 * writes them.
 *
 * Each repo's index is one SQLite file (store/db.h opens it and migrates its
 * schema). Nothing outside store/ writes SQL on its tables: the indexer,
 * search, navigation, code reading, the vector index and the built-in
 * embedder call the typed reads and writes below. A new column or table is
 * added here (and in db.c's migrations), nowhere else.
 *
 * Sections:
 *   1. the schema
 *   2. rows and cursors
 *   3. files and their text          (indexdb_files.c)
 *   4. chunks and the word index     (indexdb_chunks.c)
 *   5. symbols and names             (indexdb_symbols.c, indexdb_ptrs.c)
 *   6. the writer                    (indexdb_write.c)
 *   7. vectors and the embedder's model (indexdb_vectors.c)
 */

/* ---- 1. the schema ---------------------------------------------------------------------------- */

/* The version is PRAGMA user_version; migrations are in db.c.
 *
 *   meta(key, value)   id, root, fingerprint, tenant, created_at, indexed_at,
 *                      index_gen (grows with every run that changes what the
 *                      index holds: names caches of it; index.changed_at is
 *                      that run's second), totals, refs_ready, the embedder's
 *                      signature and the vectors' store and key (db.h's
 *                      mg_db_meta_* read and write it).
 *   files(id, path, lang, size, hash, mtime, lines, flags, chunk_lo, chunk_hi,
 *         sym_lo, sym_hi, content)
 *                      content is the stored text, zstd-compressed (content.h);
 *                      ids only grow (AUTOINCREMENT), which the trigram
 *                      segments rely on; a file's chunks and symbols have ids in
 *                      one range [lo, hi] that no other file's rows enter, so no
 *                      index by file is needed (lo > hi: none). A file's id is
 *                      given by the indexer (the run's base id plus its place
 *                      in the walk). Indexed by path (unique), and, once vectors
 *                      exist, by (path, lang, chunk_lo, chunk_hi) (files_scope:
 *                      a scope's chunk ranges without reading the text's rows).
 *   chunks(id, file_id, start_line, end_line, start_byte, end_byte, symbol,
 *          kind, container)
 *                      a chunk's id carries its lengths in words (rank.h);
 *                      symbol, kind and container name the definition the chunk
 *                      is (NULL: a window of lines).
 *   symbols(id, file_id, name, kind, container, start_line, end_line)
 *                      every definition (index/defs.h's kinds), indexed by name
 *                      (NOCASE; dropped during a first run, made at its end).
 *   chunks_fts(path, symbol, body)
 *                      FTS5, contentless, tokenizer "mgcode" (tokenize.h),
 *                      detail=column; rowid = chunks.id. The indexer gives the
 *                      token streams, and gives them again to delete a row.
 *   refs(file_id, defs, uses)
 *                      the names a file defines and uses (index/refs.h blobs).
 *   ptr_stores(file_id, seq, fn, type, field, ordinal, line)
 *                      the functions a C or C++ file stores into struct fields
 *                      (index/refs_ptr.h), seq their order in the file; field
 *                      NULL: a positional store at ordinal of struct type.
 *                      Indexed by field, by (type, ordinal) and by fn.
 *   ptr_calls(file_id, seq, field, type, line)
 *                      the calls through struct fields of a C or C++ file
 *                      (`o->F(`), type the receiver's declared type (NULL:
 *                      unknown). Indexed by field.
 *   trigrams(tri, seg, ids), tri_recent(tri, seg, ids), tri_pending(file_id)
 *                      trigram postings (trigram.h, which owns them) and the
 *                      files stored but not yet in a segment.
 *   vectors(file_id, n, blob), embed_model(name, value)
 *                      a file's chunk vectors, sealed (vector/vstore.h), or an
 *                      empty blob when an external store holds them; the
 *                      built-in embedder's learned statistics. Indexed by n
 *                      (counts without the blobs' pages).
 *   vectors_dropped(file_id)
 *                      files dropped since the last embedding pass that had
 *                      vectors: that pass's orphans (written with the drop).
 *
 * SQL functions on every handle: mg_filter_ok(filter, path, lang) (db.h) and
 * mg_in_idset(set, rowid) (an mg_idx_idset bound as a pointer).
 *
 * Errors: every function returns 0 (or the count it names) or -1 with err set
 * (db_error: the SQLite message, the file and what was being done), unless it
 * says otherwise. Thread-safety: a handle is one thread's at a time (db.h);
 * so are its cursors.
 */
#ifndef MG_INDEXDB_H
#define MG_INDEXDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "util/err.h"

/* ---- 2. rows and cursors ---------------------------------------------------------- */

/* One row a cursor read. Each reader below says which fields it fills; the
 * others are zero. Strings and blobs are borrowed from the database: valid
 * until the cursor moves (mg_idx_next) or is done (mg_idx_done), never
 * copied by store. */
struct mg_idx_row {
    int64_t id;                   /* the row's own id: the file's, chunk's or symbol's */
    int64_t file_id;              /* the file a chunk, symbol or vector row belongs to */
    const char *path, *lang;      /* files */
    int64_t size, mtime, lines;   /* bytes of the stored text, ns, lines */
    uint64_t hash;                /* xxh3-64 of the bytes on disk */
    int flags;                    /* MG_FILE_* (db.h) */
    int64_t chunk_lo, chunk_hi;   /* the file's chunk ids */
    int64_t sym_lo, sym_hi;       /* the file's symbol ids */
    const void *blob;             /* files.content (zstd), vectors.blob or embed_model.value */
    size_t bloblen;
    int start_line, end_line;     /* a chunk's or symbol's lines */
    int64_t start_byte, end_byte; /* a chunk's bytes */
    const char *name;             /* a symbol's name */
    const char *symbol;           /* the definition a chunk is (NULL: a window) */
    const char *kind, *container; /* a chunk's or a symbol's */
    double score;                 /* a rank (lower is better: FTS5's) */
    int64_t n;                    /* a count (vectors of a file) */
    int64_t index;                /* a symbol's place among its file's (id - sym_lo) */
    int tier, order;              /* a symbol search's match tier and kind order */
    const void *defs, *uses;      /* a refs row's blobs (index/refs.h) */
    size_t ndefs, nuses;
    const char *field;            /* a ptr_stores row's field (NULL: positional) */
    int64_t ordinal;              /* and its place among its struct's fields (-1: by field) */
};

/* Rows of one read, in the order the reader names. Open it with a reader,
 * step it with mg_idx_next, end it with mg_idx_done (always, also after an
 * error: a handle with a statement left running is not pooled, db.h).
 * The statements behind cursors are prepared once per handle and kept. */
struct mg_idx_cur {
    struct mg_db *d;
    struct sqlite3_stmt *st; /* private */
    const unsigned char *cols;
    bool own;                /* a statement of its own (the kept one was running) */
    /* or rows read already (mg_idx_rank's tiers): scores and ids, the next one at mi */
    double *mscore;
    int64_t *mid;
    size_t mn, mi;
};

/* The next row into r: 1, 0 at the end, -1 on error (err unset: the caller
 * says what failed, with mg_db_error). */
int mg_idx_next(struct mg_idx_cur *c, struct mg_idx_row *r);
/* End the read (the cursor may be reopened by a reader). Safe on a cursor
 * never opened or already done when zeroed ({0}). */
void mg_idx_done(struct mg_idx_cur *c);

/* A set of ids a query keeps (lexical search's scope, search/chunkset.h):
 * has(self, id) says whether id is in it. Bound for mg_in_idset(). */
struct mg_idx_idset {
    bool (*has)(const void *self, int64_t id);
    const void *self;
};

/* ---- 3. files and their text (indexdb_files.c) ---------------------------------------------- */

#define MG_IDX_TEXT 1 /* the reader also gives files.content (blob, bloblen) */

/* A file by id or by path; fills the files fields (all of them), blob with
 * MG_IDX_TEXT. One row or none. */
int mg_idx_file_by_id(struct mg_db *d, int64_t id, int flags, struct mg_idx_cur *c, struct mg_err *err);
int mg_idx_file_by_path(struct mg_db *d, const char *path, int flags, struct mg_idx_cur *c, struct mg_err *err);
/* A file by id, if f allows it (NULL: any). Fills path, lang, chunk_lo..sym_hi. */
int mg_idx_file_in(struct mg_db *d, const struct mg_filter *f, int64_t id, struct mg_idx_cur *c, struct mg_err *err);
/* The files f allows, by id. Fills id, path, lang, chunk_lo..sym_hi. */
int mg_idx_files_in(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err);
/* The files f allows, by path. Fills path, lang, size, lines. */
int mg_idx_files_listed(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err);
/* The chunk ranges of the files f allows that have chunks, by chunk_lo.
 * Fills chunk_lo, chunk_hi (read from files_scope when it exists). */
int mg_idx_scope_ranges(struct mg_db *d, const struct mg_filter *f, struct mg_idx_cur *c, struct mg_err *err);
/* Every file with chunks, by chunk id: fills id, flags, chunk_lo, chunk_hi
 * (from the index files_chunks, not the rows; schema 6). */
int mg_idx_file_map(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* The file whose chunk range starts last at or before chunk id (the one
 * holding it, if its range reaches id): fills id, flags, chunk_lo, chunk_hi. */
int mg_idx_file_of_chunk(struct mg_db *d, int64_t id, struct mg_idx_cur *c, struct mg_err *err);
/* Every file (under == NULL), or the file at path `under` and every file
 * beneath it ("" : all), in no order. Fills id, path, hash, size, mtime. */
int mg_idx_files_known(struct mg_db *d, const char *under, struct mg_idx_cur *c, struct mg_err *err);
/* Every file whose id is a multiple of stride, with its text. Fills path,
 * size, chunk_lo, chunk_hi, blob. */
int mg_idx_files_sampled(struct mg_db *d, int64_t stride, struct mg_idx_cur *c, struct mg_err *err);
/* The decompressed text of the file r holds (r->blob from a reader asked
 * for MG_IDX_TEXT): *text (malloc'd, NUL-terminated, the caller frees it)
 * and *len; frames that claim more than max bytes are refused. 0, or -1 when
 * the text is corrupt or memory runs out (err unset: the caller says which
 * file). */
int mg_idx_text(const struct mg_idx_row *r, size_t max, char **text, size_t *len);

/* Totals of the index, counted. Any pointer may be NULL. */
int mg_idx_totals(struct mg_db *d, uint64_t *files, uint64_t *bytes, uint64_t *chunks, uint64_t *symbols);

/* The stamp of what the index holds: index_gen and index.changed_at
 * (indexed_at for an index made before that was kept). A run that changed
 * nothing keeps it, so caches named by it (the repo map's graph, chunk sets)
 * stay current. */
void mg_idx_stamp(struct mg_db *d, int64_t *gen, int64_t *at);
/* At the end of a run, before indexed_at is overwritten: a new stamp (index_gen
 * + 1, changed_at = now) when the run changed the index, else the old one
 * kept (and recorded for an index made before it was kept). */
int mg_idx_stamp_run(struct mg_db *d, bool changed, int64_t now, struct mg_err *err);

/* ---- 4. chunks and the word index (indexdb_chunks.c) ---------------------------------------- */

/* A file's chunks, ids lo..hi, in file order. Fills id, file_id, start_line,
 * end_line, start_byte, end_byte, symbol, kind, container. */
int mg_idx_chunks(struct mg_db *d, int64_t lo, int64_t hi, struct mg_idx_cur *c, struct mg_err *err);
/* One chunk with its file: the chunks fields and path, lang, flags. */
int mg_idx_chunk_hit(struct mg_db *d, int64_t id, struct mg_idx_cur *c, struct mg_err *err);
/* The largest chunk id (0: none). */
int64_t mg_idx_chunk_max(struct mg_db *d);

/* The word index. match is an FTS5 expression, which search builds
 * (tokenize.h's mg_fts_query); the statements that run it are here. */

/* The best `limit` chunks for match, ranked by mgrank (rank.h: path, symbol
 * and body weights 2, 8, 1; only the first nscored phrases count, 0: all),
 * ties by id; with scope, only chunks it has. Fills score (FTS5's: lower is
 * better), id. ways: MG_IDX_TIERS, a common expression's rows with a word in a
 * symbol ranked first, and alone when none of the others can enter the list;
 * MG_IDX_ONE_CALL, a one-word expression ranked in one call (rank.h's mgtop);
 * both the same rows, sooner (indexdb_chunks.c). */
#define MG_IDX_TIERS 1u
#define MG_IDX_ONE_CALL 2u
int mg_idx_rank(struct mg_db *d, const char *match, int nscored, int limit, const struct mg_idx_idset *scope,
                unsigned ways, struct mg_idx_cur *c, struct mg_err *err);
/* The rows of match counted up to max: their count, and (each may be NULL)
 * the last one's id and the largest chunk id. -1 on error (err set, "lexical
 * search"). */
long mg_idx_match_count(struct mg_db *d, const char *match, long max, int64_t *last, int64_t *maxid,
                        struct mg_err *err);
/* The same over the chunk ids lo..hi; *last: the last one's id. */
long mg_idx_match_count_in(struct mg_db *d, const char *match, int64_t lo, int64_t hi, long max, int64_t *last,
                           struct mg_err *err);
/* The chunks that match, by id, at most limit of them (no ranking: a
 * read of the postings, for file-level scores, search/filerank.c); with
 * scope, only chunks it has. Fills id. */
int mg_idx_match_ids(struct mg_db *d, const char *match, long limit, const struct mg_idx_idset *scope,
                     struct mg_idx_cur *c, struct mg_err *err);
/* The best `limit` chunks whose symbol column matches match (an expression
 * of mg_fts_query's, without a column), ranked by it alone.
 * Fills symbol, start_line, end_line, sym_lo, sym_hi (of the chunk's file),
 * score. */
int mg_idx_rank_symbols(struct mg_db *d, const char *match, int limit, struct mg_idx_cur *c, struct mg_err *err);
/* The files holding chunks that match, each once, by id. Fills file_id. */
int mg_idx_files_matching(struct mg_db *d, const char *match, struct mg_idx_cur *c, struct mg_err *err);

/* ---- 5. symbols and names (indexdb_symbols.c) ------------------------------------------------ */

/* A file's symbols, ids lo..hi, by id (no_members: not fields or
 * enumerators). Fills id, name, kind, container, start_line, end_line. */
int mg_idx_symbols(struct mg_db *d, int64_t lo, int64_t hi, bool no_members, struct mg_idx_cur *c,
                   struct mg_err *err);
/* A file's symbols (ids lo..hi of file fid) by start line, longest first at
 * one line, then id: an outline. Fills as mg_idx_symbols. */
int mg_idx_outline(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, struct mg_idx_cur *c, struct mg_err *err);
/* The names of a file's definitions (ids lo..hi) that start in lines
 * from..to, not members, by id. Fills name. */
int mg_idx_symbols_starting(struct mg_db *d, int64_t lo, int64_t hi, int from, int to, struct mg_idx_cur *c,
                            struct mg_err *err);
/* The innermost definition of a file (ids lo..hi) around line: not a macro,
 * not a member (regex hits name the function a line is in). At most one
 * row; fills name, kind. */
int mg_idx_innermost(struct mg_db *d, int64_t lo, int64_t hi, int line, struct mg_idx_cur *c, struct mg_err *err);
/* The innermost definition of file fid (ids lo..hi) around line, not a
 * member; ties: the later start, then id. At most one row; fills name, kind,
 * container, start_line, end_line. */
int mg_idx_enclosing(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, int line, struct mg_idx_cur *c,
                     struct mg_err *err);
/* The outermost definition of file fid (ids lo..hi) named name that starts
 * in lines from..to. At most one row; fills as mg_idx_enclosing. */
int mg_idx_named_def(struct mg_db *d, int64_t lo, int64_t hi, int64_t fid, int from, int to, const char *name,
                     struct mg_idx_cur *c, struct mg_err *err);
/* A file's symbols (by id) with the file's text: fills name, kind,
 * start_line, end_line, size and blob (the same text on every row). */
int mg_idx_file_defs(struct mg_db *d, int64_t fid, struct mg_idx_cur *c, struct mg_err *err);

/* Symbol search. Definitions come in kind order: definitions (functions,
 * types) first, then constructors, enums, unions and aliases, then
 * declarations and macros, members last (order 0..3). Each fills id, name,
 * kind, container, start_line, end_line, path, lang, file_id, order. */

/* Names like q: exact (tier 0), any case (1), prefix (2); by tier, length,
 * order, path, line; at most limit; in f. Fills tier too. */
int mg_idx_symbols_like(struct mg_db *d, const char *q, const struct mg_filter *f, int limit, struct mg_idx_cur *c,
                        struct mg_err *err);
/* Names exactly name (len bytes), in f, by order, path, line;
 * defs_only: no members, at most limit (else limit is ignored). */
int mg_idx_symbols_named(struct mg_db *d, const char *name, size_t len, const struct mg_filter *f, bool defs_only,
                         int limit, struct mg_idx_cur *c, struct mg_err *err);
/* Every definition named name (exact case), by path and line. Fills
 * file_id, index (its place among the file's symbols), kind. */
int mg_idx_symbols_by_name(struct mg_db *d, const char *name, struct mg_idx_cur *c, struct mg_err *err);

/* The refs rows. */
/* Every file's, with the file, by file id. Fills file_id, path, lang,
 * defs, uses. */
int mg_idx_refs_all(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* The file's at path (one row or none). Fills defs, uses. */
int mg_idx_refs_of_path(struct mg_db *d, const char *path, struct mg_idx_cur *c, struct mg_err *err);
/* How many rows, and the bytes of their defs and uses blobs. */
int mg_idx_refs_size(struct mg_db *d, uint64_t *rows, uint64_t *defs_bytes, uint64_t *uses_bytes, struct mg_err *err);

/* The ptr_stores rows (indexdb_ptrs.c), of files in f (NULL: all). */
/* Stores into field by name, by path and line. Fills file_id, name (the
 * function), container (the type), start_line. */
int mg_idx_ptr_stores_of_field(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err);
/* How many stores into field by name, counted up to cap + 1; -1 on error. */
int64_t mg_idx_ptr_stores_count(struct mg_db *d, const char *field, int64_t cap);
/* The struct fields named field (symbols of kind field), by path and line:
 * file_id, container (the struct), ordinal (the field's place among its
 * struct's fields: those of the same container in its file before it, from
 * the start of the innermost other definition around it), and that
 * definition's kind and name (NULL: none). A read of the field's rows, not
 * of their files' every symbol. */
int mg_idx_field_places(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err);
/* Each store into a field by name, by file id: file_id, field (the repo
 * map's pointer edges; a field a file stores into twice comes twice). */
int mg_idx_ptr_fields_all(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* A file's stores into fields by name: name (the function), field. */
int mg_idx_ptr_stores_in_file(struct mg_db *d, int64_t file_id, struct mg_idx_cur *c, struct mg_err *err);
/* The same fields' file_id only, first limit of them: a cheap count. */
int mg_idx_field_files(struct mg_db *d, const char *field, int limit, struct mg_idx_cur *c, struct mg_err *err);
/* Positional stores at ordinal of type, by path and line; fills as above. */
int mg_idx_ptr_stores_at(struct mg_db *d, const char *type, int64_t ordinal, struct mg_idx_cur *c,
                         struct mg_err *err);
/* Where function fn is stored. Fills file_id, container, field, ordinal. */
int mg_idx_ptr_stores_of_fn(struct mg_db *d, const char *fn, struct mg_idx_cur *c, struct mg_err *err);
/* The calls through field (table ptr_calls), by file id and line: file_id,
 * start_line, container (the receiver's type, NULL: unknown). None in an
 * index of schema 4 opened read-only. */
int mg_idx_ptr_calls_of_field(struct mg_db *d, const char *field, struct mg_idx_cur *c, struct mg_err *err);

/* ---- 6. the writer (indexdb_write.c) --------------------------------------------------------- */

/* One index run writes in transactions of its own (mg_db_begin ...
 * mg_db_commit), files whole: a file's row, its chunks with their word rows,
 * its symbols and refs row; a file replaced or gone is dropped first. */

/* Ids the next file, chunk and symbol take: the next file id (above every
 * id a file ever had), the next chunk sequence number (rank.h) and the next
 * symbol id. */
void mg_idx_next_ids(struct mg_db *d, int64_t *file, int64_t *chunk_seq, int64_t *symbol);
/* A file's row (id, path, lang, size, hash, mtime, lines, flags, chunk_lo ..
 * sym_hi of r; the compressed text in blob), pending for the trigram index. */
int mg_idx_add_file(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* A chunk's row (id, file_id, start_line .. end_byte, symbol, kind,
 * container of r). */
int mg_idx_add_chunk(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* A chunk's word row: its token streams (tokenize.h) of path, symbol column
 * and body, each of n bytes. */
int mg_idx_add_words(struct mg_db *d, int64_t chunk_id, const char *path, size_t npath, const char *sym, size_t nsym,
                     const char *body, size_t nbody, struct mg_err *err);
/* Forget a chunk's word row: the streams it was added with, exactly. */
int mg_idx_drop_words(struct mg_db *d, int64_t chunk_id, const char *path, size_t npath, const char *sym,
                      size_t nsym, const char *body, size_t nbody, struct mg_err *err);
/* A symbol's row (id, file_id, name, kind, container, start_line, end_line of r). */
int mg_idx_add_symbol(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* A file's refs row (file_id, defs, ndefs, uses, nuses of r; empty: NULL). */
int mg_idx_add_refs(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* A ptr_stores row (file_id, index: seq, name: fn, container: type, field,
 * ordinal, start_line: line of r). */
int mg_idx_add_ptr_store(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* A ptr_calls row (file_id, index: seq, field, container: type, start_line). */
int mg_idx_add_ptr_call(struct mg_db *d, const struct mg_idx_row *r, struct mg_err *err);
/* Drop a file's rows: its chunks (clo..chi), symbols (slo..shi), pending
 * mark, refs, pointer stores and the file. Its word rows go first, one by one
 * (mg_idx_drop_words: only the indexer can rebuild their streams). */
int mg_idx_drop_file(struct mg_db *d, int64_t id, int64_t clo, int64_t chi, int64_t slo, int64_t shi,
                     struct mg_err *err);
/* Every file with its text, by id. Fills id, path, size, chunk_lo, chunk_hi,
 * sym_lo, sym_hi, blob. */
int mg_idx_files_text(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* Every word row gone (FTS5's delete-all), for a rewrite of them all. */
int mg_idx_words_clear(struct mg_db *d, struct mg_err *err);
/* Files without a refs row, with their text. Fills id, lang, size, sym_lo,
 * sym_hi, blob. */
int mg_idx_files_without_refs(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* The indexes of the tables a first run loads by the million (symbols'
 * names, ptr_stores', ptr_calls'): dropped (on false) for the bulk load,
 * made (on true) when it ends, sorted in small lists (their memory bounded
 * whatever the page cache). */
int mg_idx_bulk_indexes(struct mg_db *d, bool on, struct mg_err *err);
/* A run's settings on its handle: no checkpoint at commits (the run makes
 * one at its end, mg_idx_checkpoint); sorts may use helper threads. (No
 * handle has a memory map: mg_db_open.) */
void mg_idx_bulk(struct mg_db *d);
void mg_idx_sort_threads(struct mg_db *d, int n);
void mg_idx_checkpoint(struct mg_db *d);
/* Copy what is committed in the index at path's WAL into the database file,
 * on a handle of its own, without waiting for or blocking anyone (SQLite's
 * PASSIVE checkpoint): a run's writer calls it on another thread while it
 * merges, so that its closing mg_idx_checkpoint has only the merge's pages
 * left to copy. Best effort: a failure leaves that work to the closing one. */
void mg_idx_checkpoint_passive(const char *path);
/* FTS5's own merging off (on true) for a first run, which ends with one
 * merge of everything (mg_idx_words_optimize): the level merges it would do
 * as the run writes are redone by that one; and its pending terms flushed
 * at 16 MiB, not 64. On false: its defaults again,
 * when a run turned it off (meta fts.bulk: the run, or a first run that
 * died). 0, or -1. */
int mg_idx_words_bulk(struct mg_db *d, bool on, struct mg_err *err);
/* Merge the word index into one segment (after a run that wrote much of
 * it). 0, or -1 with *msg naming SQLite's error (the index is as it was). */
int mg_idx_words_optimize(struct mg_db *d, const char **msg);
/* One step of merging the word index's segments, inside the caller's
 * transaction: about `pages` pages of merged data written, in levels that
 * hold FTS5's `usermerge` (4) segments or more. Many small runs (a watcher's
 * edits) leave segments faster than FTS5's own merging folds them (42
 * segments after 1,600 edits of Linux, every query word read from each:
 * lexical search twice as slow). *worked: whether there was anything to
 * merge. 0, or -1 with *msg naming SQLite's error. */
int mg_idx_words_merge(struct mg_db *d, int pages, bool *worked, const char **msg);

/* ---- 7. vectors and the embedder's model (indexdb_vectors.c) ------------------------------------ */

/* Whether any file has vectors (false also when the table is missing). */
bool mg_idx_vectors_any(struct mg_db *d);
/* Counts (0 when the table is missing): rows, vectors (sum of n), and files
 * above id `after` that have no vectors row. */
int64_t mg_idx_vector_rows(struct mg_db *d);
int64_t mg_idx_vector_count(struct mg_db *d);
int64_t mg_idx_files_unembedded(struct mg_db *d, int64_t after);
/* The largest id that every file at or below has vectors, given that every
 * file at or below `after` has: the first file above it without vectors,
 * less one, or the largest file id. -1 on error. */
int64_t mg_idx_vectors_through(struct mg_db *d, int64_t after);
/* A file's vectors row: n vectors in blob (len bytes; len 0: an empty
 * blob, the vectors being in an external store). Replaces its old row. */
int mg_idx_vectors_put(struct mg_db *d, int64_t file_id, size_t n, const void *blob, size_t len, struct mg_err *err);
/* Drop every vectors row (all), or those of files dropped since (vectors_dropped). */
int mg_idx_vectors_prune(struct mg_db *d, bool all, struct mg_err *err);
/* Vectors rows of files dropped since the last prune. Fills file_id. */
int mg_idx_vectors_orphans(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* Files that have vectors, in chunk order. Fills file_id, n. */
int mg_idx_vectors_by_chunk(struct mg_db *d, struct mg_idx_cur *c, struct mg_err *err);
/* One file's vectors. Fills blob. */
int mg_idx_vectors_of(struct mg_db *d, int64_t file_id, struct mg_idx_cur *c, struct mg_err *err);
/* Files without vectors above id `after`, by id, with their text. Fills id,
 * path, size, chunk_lo, chunk_hi, blob. */
int mg_idx_files_to_embed(struct mg_db *d, int64_t after, struct mg_idx_cur *c, struct mg_err *err);
/* The embedder's model rows: one named value, stored or read (1 found, 0
 * not, -1 error; the blob is borrowed until mg_idx_done(c)). */
int mg_idx_model_put(struct mg_db *d, const char *name, const void *blob, size_t len, struct mg_err *err);
int mg_idx_model_get(struct mg_db *d, const char *name, struct mg_idx_cur *c, struct mg_idx_row *r);
/* Drop the model rows (and, with vectors, every vectors row too). */
int mg_idx_model_clear(struct mg_db *d, bool vectors, struct mg_err *err);

#endif
