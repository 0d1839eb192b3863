/* notes.c — the built-in notes provider: durable key/value knowledge per
 * repo, with its source and trust, ranked search over keys and values. */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_COLS "key, value, source, trust, coalesce(session, ''), created_at, updated_at, repo, tenant, repo_fp"

static int oom(struct mg_err *err) { return mg_err_set(err, MG_E_NO_MEMORY, "out of memory"); }

/* One note item from a row of NOTE_COLS. */
static struct mg_note *note_item(struct mg_items *out, sqlite3_stmt *st, bool *failed)
{
    struct mg_note *n = mg_items_add(out, &mg_item_note);
    if (!n) {
        *failed = true;
        return NULL;
    }
    mg_row_owner(&n->base, mg_col(st, 8), mg_col(st, 7), mg_col(st, 9), 0);
    n->key = mg_item_dup(mg_col(st, 0), failed);
    n->value = mg_item_dup(mg_col(st, 1), failed);
    n->source = mg_item_dup(mg_col(st, 2), failed);
    n->trust = sqlite3_column_double(st, 3);
    n->session = mg_item_dup(mg_col(st, 4), failed);
    n->created_at = sqlite3_column_int64(st, 5);
    n->updated_at = sqlite3_column_int64(st, 6);
    n->repo = mg_item_dup(mg_col(st, 7), failed);
    return n;
}

/* Every row of a bound query as items (the gate checks their owners). */
static int collect(sqlite3_stmt *st, struct mg_items *out, struct mg_err *err)
{
    bool failed = false;
    while (!failed && sqlite3_step(st) == SQLITE_ROW) note_item(out, st, &failed);
    return failed ? oom(err) : 0;
}

static int n_set(void *self, const struct mg_pcall *pc, const struct mg_note_in *in, struct mg_items *out,
                 struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    sqlite3_stmt *st = NULL;
    char *stream = NULL;
    if (mg_mem_begin(p.m, err) != 0) goto out;
    bool created = true;
    if (mg_mem_prep(p.m, "SELECT 1 FROM notes WHERE repo = ? AND key = ?", &st, err) != 0) goto fail;
    sqlite3_bind_text(st, 1, p.repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, in->key, -1, SQLITE_STATIC);
    created = sqlite3_step(st) != SQLITE_ROW;
    sqlite3_finalize(st);
    int64_t t = mg_now_s();
    if (mg_mem_prep(p.m, "INSERT INTO notes(tenant, repo, repo_fp, key, value, source, trust, session, created_at,"
                         " updated_at) VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(repo, key) DO UPDATE SET"
                         " tenant = excluded.tenant, repo_fp = excluded.repo_fp, value = excluded.value,"
                         " source = excluded.source, trust = excluded.trust, session = excluded.session,"
                         " updated_at = excluded.updated_at RETURNING id, created_at",
                    &st, err) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, pc->tenant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p.repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, p.repo->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, in->key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, in->value, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, in->source, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 7, in->trust);
    sqlite3_bind_text(st, 8, in->session, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, t);
    sqlite3_bind_int64(st, 10, t);
    int64_t id = 0, created_at = t;
    if (sqlite3_step(st) == SQLITE_ROW) {
        id = sqlite3_column_int64(st, 0);
        created_at = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (!id) {
        mg_mem_fail(p.m, "store the note", err);
        goto fail;
    }
    stream = mg_fts_stream(in->key, in->value, NULL);
    if (mg_fts_put(p.m, "notes_fts", id, stream, err) != 0 || mg_mem_commit(p.m, err) != 0) goto out;
    struct mg_note *n = mg_items_add(out, &mg_item_note);
    bool failed = !n;
    if (n) {
        mg_row_owner(&n->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
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
    rc = failed ? oom(err) : 0;
    goto out;
fail:
    mg_mem_rollback(p.m);
out:
    free(stream);
    mg_place_end(&p);
    return rc;
}

static int n_get(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (mg_mem_prep(p.m, "SELECT " NOTE_COLS " FROM notes WHERE repo = ? AND key = ?", &st, err) == 0) {
        sqlite3_bind_text(st, 1, p.repo->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        rc = collect(st, out, err);
        sqlite3_finalize(st);
    }
    mg_place_end(&p);
    return rc;
}

static int n_list(void *self, const struct mg_pcall *pc, const char *prefix, int limit, struct mg_items *out,
                  struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    sqlite3_stmt *st;
    int rc = -1;
    if (mg_mem_prep(p.m, "SELECT " NOTE_COLS " FROM notes WHERE repo = ?1 AND substr(key, 1, length(?2)) = ?2 "
                         "ORDER BY updated_at DESC, id DESC LIMIT ?3", &st, err) == 0) {
        sqlite3_bind_text(st, 1, p.repo->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, prefix ? prefix : "", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, limit);
        rc = collect(st, out, err);
        sqlite3_finalize(st);
    }
    mg_place_end(&p);
    return rc;
}

static int n_search(void *self, const struct mg_pcall *pc, const char *query, int limit, struct mg_items *out,
                    struct mg_err *err)
{
    char *match = mg_fts_match(query);
    if (!match) return 0; /* no words: nothing matches */
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) {
        free(match);
        return -1;
    }
    sqlite3_stmt *st;
    int rc = -1;
    if (mg_mem_prep(p.m, "SELECT n.key, n.value, n.source, n.trust, coalesce(n.session, ''), n.created_at,"
                         " n.updated_at, n.repo, n.tenant, n.repo_fp FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid"
                         " WHERE notes_fts MATCH ?1 AND n.repo = ?2 ORDER BY bm25(notes_fts) LIMIT ?3", &st, err) == 0) {
        sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, p.repo->id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, limit);
        rc = collect(st, out, err);
        sqlite3_finalize(st);
    }
    mg_place_end(&p);
    free(match);
    return rc;
}

static int n_remove(void *self, const struct mg_pcall *pc, const char *key, struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    sqlite3_stmt *st;
    if (mg_mem_begin(p.m, err) == 0) {
        if (mg_mem_prep(p.m, "DELETE FROM notes WHERE repo = ? AND key = ? AND tenant = ? AND repo_fp = ? "
                             "RETURNING id", &st, err) == 0) {
            sqlite3_bind_text(st, 1, p.repo->id, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, pc->tenant, -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 4, p.repo->fingerprint, -1, SQLITE_STATIC);
            int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
            sqlite3_finalize(st);
            sqlite3_stmt *d;
            if (id && mg_mem_prep(p.m, "DELETE FROM notes_fts WHERE rowid = ?", &d, err) == 0) {
                sqlite3_bind_int64(d, 1, id);
                sqlite3_step(d);
                sqlite3_finalize(d);
            }
            if (mg_mem_commit(p.m, err) == 0) {
                struct mg_note_gone *g = mg_items_add(out, &mg_item_note_gone);
                bool failed = !g;
                if (g) {
                    mg_row_owner(&g->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
                    g->key = mg_item_dup(key, &failed);
                    g->deleted = id != 0;
                }
                rc = failed ? oom(err) : 0;
            }
        } else {
            mg_mem_rollback(p.m);
        }
    }
    mg_place_end(&p);
    return rc;
}

static int n_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    static const char *const sql[] = {
        "DELETE FROM notes_fts WHERE rowid IN (SELECT id FROM notes WHERE repo = ?1)",
        "DELETE FROM notes WHERE repo = ?1",
        NULL,
    };
    return mg_mem_forget(pc, sql, out, err);
}

const struct mg_notes_ops mg_notes_builtin_ops = {
    .set = n_set,
    .get = n_get,
    .list = n_list,
    .search = n_search,
    .remove = n_remove,
    .forget = n_forget,
    .close = mg_mem_close,
};
