/* notes.c — the built-in notes provider: durable key/value knowledge per
 * repo, with its source and trust, ranked search over keys and values. */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg.h"

#define NOTE_COLS "key, value, source, trust, coalesce(session, ''), created_at, updated_at, repo, tenant, repo_fp"


/* One note item from a row of NOTE_COLS. */
static struct mg_note *note_item(struct mg_items *out, struct mg_sql_st *st, bool *failed)
{
    struct mg_note *n = mg_items_add(out, &mg_item_note);
    if (!n) {
        *failed = true;
        return NULL;
    }
    mg__row_owner(&n->base, mg_sql_text(st, 8), mg_sql_text(st, 7), mg_sql_text(st, 9), 0);
    n->key = mg_item_dup(mg_sql_text(st, 0), failed);
    n->value = mg_item_dup(mg_sql_text(st, 1), failed);
    n->source = mg_item_dup(mg_sql_text(st, 2), failed);
    n->trust = mg_sql_double(st, 3);
    n->session = mg_item_dup(mg_sql_text(st, 4), failed);
    n->created_at = mg_sql_int(st, 5);
    n->updated_at = mg_sql_int(st, 6);
    n->repo = mg_item_dup(mg_sql_text(st, 7), failed);
    return n;
}

/* Every row of a bound query as items (the gate checks their owners); with
 * ids, the rows' ids too (column 10). */
static int collect_ids(struct mg_sql_st *st, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    bool failed = false;
    int r = 0;
    size_t cap = 0;
    while (!failed && (r = mg_sql_step(st, err)) == 1)
        if (note_item(out, st, &failed) && ids && mg__mvec_ids_add(out, ids, &cap, mg_sql_int(st, 10)) != 0)
            failed = true;
    if (failed) return mg_err_oom(err);
    return r < 0 ? -1 : 0;
}

static int collect(struct mg_sql_st *st, struct mg_items *out, struct mg_err *err)
{
    return collect_ids(st, out, NULL, err);
}

static int n_set(void *self, const struct mg_pcall *pc, const struct mg_note_in *in, struct mg_items *out,
                 struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    struct mg_sql_st *st = NULL;
    char *stream = NULL;
    if (mg_sql_begin(p.db, true, err) != 0) goto out;
    if (mg_sql_prepare(p.db, "SELECT 1 FROM notes WHERE repo = ? AND key = ?", &st, err) != 0) goto fail;
    mg_sql_bind_text(st, 1, p.repo->id);
    mg_sql_bind_text(st, 2, in->key);
    int r = mg_sql_step(st, err);
    mg_sql_finalize(&st);
    if (r < 0) goto fail;
    bool created = r == 0;
    int64_t t = mg__now_s();
    if (mg_sql_prepare(p.db, "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, session, created_at,"
                             " updated_at) VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(tenant, repo, key) DO UPDATE SET"
                             " repo_fp = excluded.repo_fp, value = excluded.value, source = excluded.source,"
                             " trust = excluded.trust, session = excluded.session, updated_at = excluded.updated_at"
                             " RETURNING id, created_at",
                       &st, err) != 0)
        goto fail;
    mg_sql_bind_text(st, 1, pc->tenant);
    mg_sql_bind_text(st, 2, p.repo->id);
    mg_sql_bind_text(st, 3, p.repo->fingerprint);
    mg_sql_bind_text(st, 4, in->key);
    mg_sql_bind_text(st, 5, in->value);
    mg_sql_bind_text(st, 6, in->source);
    mg_sql_bind_double(st, 7, in->trust);
    mg_sql_bind_text(st, 8, in->session);
    mg_sql_bind_int(st, 9, t);
    mg_sql_bind_int(st, 10, t);
    int64_t id = 0, created_at = t;
    if ((r = mg_sql_step(st, err)) == 1) {
        id = mg_sql_int(st, 0);
        created_at = mg_sql_int(st, 1);
    }
    mg_sql_finalize(&st);
    if (r < 0) goto fail;
    if (!id) {
        mg_err_set(err, MG_E_DB, "memory database: the note '%.64s' was not stored; retry", in->key);
        goto fail;
    }
    stream = mg__fts_stream(in->key, in->value, NULL);
    if (mg__fts_put(&p, "notes", id, stream, err) != 0) goto fail;
    {
        struct mg_buf vt;
        mg_buf_init(&vt, 1 << 20);
        mg_buf_addf(&vt, "%s %s", in->key, in->value);
        int vr = vt.p ? mg__mvec_put(&p, pc->cfg, "notes", id, vt.p, err) : mg_err_oom(err);
        mg_buf_release(&vt);
        if (vr != 0) goto fail;
    }
    if (mg_sql_commit(p.db, err) != 0) goto out;
    struct mg_note *n = mg_items_add(out, &mg_item_note);
    bool failed = !n;
    if (n) {
        mg__row_owner(&n->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
        n->key = mg_item_dup(in->key, &failed);
        n->value = mg_item_dup(in->value, &failed);
        n->source = mg_item_dup(in->source, &failed);
        n->trust = in->trust;
        n->session = mg_item_dup(in->session, &failed);
        n->repo = mg_item_dup(p.repo->id, &failed);
        n->created_at = created_at;
        n->updated_at = t;
        n->created = created;
    }
    rc = failed ? mg_err_oom(err) : 0;
    goto out;
fail:
    mg_sql_rollback(p.db);
out:
    free(stream);
    mg__place_end(&p);
    return rc;
}

static int n_get(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = -1;
    if (mg_sql_prepare(p.db, "SELECT " NOTE_COLS " FROM notes WHERE repo = ? AND key = ?", &st, err) == 0) {
        mg_sql_bind_text(st, 1, p.repo->id);
        mg_sql_bind_text(st, 2, key);
        rc = collect(st, out, err);
        mg_sql_finalize(&st);
    }
    mg__place_end(&p);
    return rc;
}

static int n_list(void *self, const struct mg_pcall *pc, const char *prefix, int limit, struct mg_items *out,
                  struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = -1;
    if (mg_sql_prepare(p.db, "SELECT " NOTE_COLS " FROM notes WHERE repo = ?1 AND substr(key, 1, length(?2)) = ?2 "
                             "ORDER BY updated_at DESC, id DESC LIMIT ?3", &st, err) == 0) {
        mg_sql_bind_text(st, 1, p.repo->id);
        mg_sql_bind_text(st, 2, prefix ? prefix : "");
        mg_sql_bind_int(st, 3, limit);
        rc = collect(st, out, err);
        mg_sql_finalize(&st);
    }
    mg__place_end(&p);
    return rc;
}

/* One of search_notes' queries: by words (match) or the rows of ids (idlist), with their ids. */
static int search_query(struct place *p, const char *match, const char *idlist, int limit, struct mg_items *out,
                        int64_t **ids, struct mg_err *err)
{
    bool pg = mg__mem_pg(p);
    /* SQLite: FTS5's bm25 (lower is better); PostgreSQL: ts_rank, normalised by the row's length */
    const char *sql = idlist ? (pg ? "SELECT " NOTE_COLS ", id FROM notes WHERE id = ANY(CAST(?1 AS bigint[]))"
                                     " AND repo = ?2 LIMIT ?3"
                                   : "SELECT " NOTE_COLS ", id FROM notes WHERE id IN (SELECT value FROM json_each(?1))"
                                     " AND repo = ?2 LIMIT ?3")
                      : pg ? "SELECT " NOTE_COLS ", id FROM notes CROSS JOIN (SELECT CAST(?1 AS tsquery) AS q) x"
                             " WHERE body @@ x.q AND repo = ?2 ORDER BY ts_rank(body, x.q, 1) DESC, id DESC LIMIT ?3"
                           : "SELECT n.key, n.value, n.source, n.trust, coalesce(n.session, ''), n.created_at,"
                             " n.updated_at, n.repo, n.tenant, n.repo_fp, n.id FROM notes_fts JOIN notes n"
                             " ON n.id = notes_fts.rowid WHERE notes_fts MATCH ?1 AND n.repo = ?2"
                             " ORDER BY bm25(notes_fts) LIMIT ?3";
    struct mg_sql_st *st;
    if (mg_sql_prepare(p->db, sql, &st, err) != 0) return -1;
    mg_sql_bind_text(st, 1, idlist ? idlist : match);
    mg_sql_bind_text(st, 2, p->repo->id);
    mg_sql_bind_int(st, 3, limit);
    int rc = collect_ids(st, out, ids, err);
    mg_sql_finalize(&st);
    return rc;
}

/* search_notes by meaning too (memvec.c): ctx is the match */
static int hy_words(void *ctx, struct place *p, int limit, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    return search_query(p, ctx, NULL, limit, out, ids, err);
}

static int hy_scan(void *ctx, struct place *p, struct mg_sql_st **st, struct mg_err *err)
{
    if (mg_sql_prepare(p->db, "SELECT id, vec FROM notes WHERE repo = ?1 AND tenant = ?2"
                              " AND repo_fp = ?3 ORDER BY id DESC", st, err) != 0)
        return -1;
    mg_sql_bind_text(*st, 1, p->repo->id);
    mg_sql_bind_text(*st, 2, p->tenant);
    mg_sql_bind_text(*st, 3, p->repo->fingerprint);
    return 0;
}

static int hy_rows(void *ctx, struct place *p, const char *idlist, int n, struct mg_items *out, int64_t **ids,
                   struct mg_err *err)
{
    return search_query(p, NULL, idlist, n, out, ids, err);
}

static const struct mg__mvec_kind note_kind = {"notes", hy_words, hy_scan, "SELECT key || ' ' || value FROM notes WHERE id = ?1",
                                             hy_rows, NULL};

static int n_search(void *self, const struct mg_pcall *pc, const char *query, int limit, struct mg_items *out,
                    struct mg_err *err)
{
    char *match = mg__fts_match(mg_pg_configured(pc->cfg), query);
    if (!match) return 0; /* no words: nothing matches (and a query without words has no meaning either) */
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) {
        free(match);
        return -1;
    }
    struct mg__mvq *v = mg__mvec_query(&p, pc->cfg, query);
    int rc = v ? mg__mvec_search(&p, v, &note_kind, match, limit, out, err)
               : search_query(&p, match, NULL, limit, out, NULL, err);
    mg__mvec_end(&v);
    mg__place_end(&p);
    free(match);
    return rc;
}

static int n_remove(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    struct mg_sql_st *st;
    if (mg_sql_begin(p.db, true, err) != 0) goto out;
    if (mg_sql_prepare(p.db, "DELETE FROM notes WHERE repo = ? AND key = ? AND tenant = ? AND repo_fp = ? "
                             "RETURNING id", &st, err) != 0)
        goto fail;
    mg_sql_bind_text(st, 1, p.repo->id);
    mg_sql_bind_text(st, 2, key);
    mg_sql_bind_text(st, 3, pc->tenant);
    mg_sql_bind_text(st, 4, p.repo->fingerprint);
    int r = mg_sql_step(st, err);
    int64_t id = r == 1 ? mg_sql_int(st, 0) : 0;
    mg_sql_finalize(&st);
    if (r < 0) goto fail;
    if (id && !mg__mem_pg(&p) && mg__mem_run1(&p, "DELETE FROM notes_fts WHERE rowid = ?", id, NULL, err) != 0)
        goto fail;
    if (mg_sql_commit(p.db, err) != 0) goto out;
    struct mg_note_gone *g = mg_items_add(out, &mg_item_note_gone);
    bool failed = !g;
    if (g) {
        mg__row_owner(&g->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
        g->key = mg_item_dup(key, &failed);
        g->deleted = id != 0;
    }
    rc = failed ? mg_err_oom(err) : 0;
    goto out;
fail:
    mg_sql_rollback(p.db);
out:
    mg__place_end(&p);
    return rc;
}

static int n_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    static const struct mg_forget_sql sql[] = {
        {"DELETE FROM notes_fts WHERE rowid IN (SELECT id FROM notes WHERE repo = ?1)", true},
        {"DELETE FROM notes WHERE repo = ?1", false},
        {NULL, false},
    };
    return mg__mem_forget(pc, sql, out, err);
}

const struct mg_notes_ops mg_notes_builtin_ops = {
    .set = n_set,
    .get = n_get,
    .list = n_list,
    .search = n_search,
    .remove = n_remove,
    .forget = n_forget,
    .close = mg__mem_close,
};
