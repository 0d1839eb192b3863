/* entities.c — the built-in entities provider: named things (a service, a
 * person, a component) with notes, tagged with the conversation's project
 * when they are added. Tags change only by retag; a conversation in no
 * project gets no entities. */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(struct mg_err *err) { return mg_err_set(err, MG_E_NO_MEMORY, "out of memory"); }

static int e_add(void *self, const struct mg_pcall *pc, const char *session, const struct mg_entity_in *v, size_t n,
                 struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, session, &p, err) != 0) return -1;
    int rc = -1;
    size_t added = 0;
    if (mg_mem_begin(p.m, err) != 0) goto done;
    int64_t t = mg_now_s();
    sqlite3_stmt *st;
    if (mg_mem_prep(p.m, "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes,"
                         " created_at) VALUES(?,?,?,?,?,?,?,?,?) RETURNING id", &st, err) != 0) {
        mg_mem_rollback(p.m);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const char *type = v[i].type ? v[i].type : "", *notes = v[i].notes ? v[i].notes : "";
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, pc->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, p.repo->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, p.repo->fingerprint, -1, SQLITE_STATIC);
        if (p.project) sqlite3_bind_int64(st, 4, p.project);
        else sqlite3_bind_null(st, 4);
        sqlite3_bind_int64(st, 5, p.sid);
        sqlite3_bind_text(st, 6, v[i].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 7, type, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 8, notes, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 9, t);
        int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        char *stream = id ? mg_fts_stream(v[i].name, type, notes) : NULL;
        bool ok = id && mg_fts_put(p.m, "entities_fts", id, stream, err) == 0;
        free(stream);
        struct mg_entity *e = ok ? mg_items_add(out, &mg_item_entity) : NULL;
        bool failed = ok && !e;
        if (e) {
            mg_row_owner(&e->base, pc->tenant, p.repo->id, p.repo->fingerprint, p.project);
            e->id = id;
            e->name = mg_item_dup(v[i].name, &failed);
            e->type = mg_item_dup(type, &failed);
            e->notes = mg_item_dup(notes, &failed);
            e->project = p.project ? mg_item_dup(p.project_name, &failed) : NULL;
        }
        if (failed) {
            oom(err);
            break;
        }
        if (!ok) {
            if (!id) mg_mem_fail(p.m, "store the entity", err);
            break;
        }
        added++;
    }
    sqlite3_finalize(st);
    if (added == n && mg_mem_commit(p.m, err) == 0) rc = mg_place_report(&p, out, err);
    else if (added != n) mg_mem_rollback(p.m);
done:
    mg_place_end(&p);
    return rc;
}

static int e_search(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, session, &p, err) != 0) return -1;
    int rc = -1;
    char *match = NULL;
    if (!p.project) { /* sessions in no project get no entity context */
        rc = mg_place_report(&p, out, err);
        goto out;
    }
    match = query ? mg_fts_match(query) : NULL;
    const char *sql_match = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                            " coalesce(n.project_id, 0), -bm25(entities_fts), n.repo, coalesce(p.name, '')"
                            " FROM entities_fts JOIN entities n ON n.id = entities_fts.rowid"
                            " LEFT JOIN projects p ON p.id = n.project_id"
                            " WHERE entities_fts MATCH ?1 AND n.repo = ?2 AND n.project_id = ?3"
                            " ORDER BY bm25(entities_fts) LIMIT ?4";
    const char *sql_all = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                          " coalesce(n.project_id, 0), 0.0, n.repo, coalesce(p.name, '') FROM entities n"
                          " LEFT JOIN projects p ON p.id = n.project_id"
                          " WHERE ?1 IS NULL AND n.repo = ?2 AND n.project_id = ?3 ORDER BY n.id DESC LIMIT ?4";
    sqlite3_stmt *st;
    if (mg_mem_prep(p.m, match ? sql_match : sql_all, &st, err) != 0) goto out;
    if (match) sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p.repo->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, p.project);
    sqlite3_bind_int64(st, 4, limit);
    bool failed = false;
    while (!failed && sqlite3_step(st) == SQLITE_ROW) {
        struct mg_entity *e = mg_items_add(out, &mg_item_entity);
        if (!e) {
            failed = true;
            break;
        }
        mg_row_owner(&e->base, mg_col(st, 5), mg_col(st, 9), mg_col(st, 6), sqlite3_column_int64(st, 7));
        e->id = sqlite3_column_int64(st, 0);
        e->name = mg_item_dup(mg_col(st, 1), &failed);
        e->type = mg_item_dup(mg_col(st, 2), &failed);
        e->notes = mg_item_dup(mg_col(st, 3), &failed);
        e->created_at = sqlite3_column_int64(st, 4);
        e->score = sqlite3_column_double(st, 8);
        e->project = mg_item_dup(mg_col(st, 10), &failed);
    }
    sqlite3_finalize(st);
    rc = failed ? oom(err) : mg_place_report(&p, out, err);
out:
    free(match);
    mg_place_end(&p);
    return rc;
}

static int e_retag(void *self, const struct mg_pcall *pc, const int64_t *ids, size_t n, const char *name,
                   struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg_place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    int64_t pid = name ? mg_project_id(&p, name, err) : 0;
    sqlite3_stmt *st;
    if ((!name || pid) && mg_mem_begin(p.m, err) == 0) {
        if (mg_mem_prep(p.m, "UPDATE entities SET project_id = ? WHERE id = ? AND repo = ? AND tenant = ? AND "
                             "repo_fp = ?", &st, err) == 0) {
            int64_t changed = 0;
            for (size_t i = 0; i < n; i++) {
                sqlite3_reset(st);
                if (pid) sqlite3_bind_int64(st, 1, pid);
                else sqlite3_bind_null(st, 1);
                sqlite3_bind_int64(st, 2, ids[i]);
                sqlite3_bind_text(st, 3, p.repo->id, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 4, pc->tenant, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 5, p.repo->fingerprint, -1, SQLITE_STATIC);
                if (sqlite3_step(st) == SQLITE_DONE) changed += sqlite3_changes(p.m->db);
            }
            sqlite3_finalize(st);
            if (mg_mem_commit(p.m, err) == 0) {
                struct mg_retagged *r = mg_items_add(out, &mg_item_retagged);
                bool failed = !r;
                if (r) {
                    mg_row_owner(&r->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
                    r->retagged = changed;
                    r->project = mg_item_dup(name, &failed);
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

static int e_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    static const char *const sql[] = {
        "DELETE FROM entities_fts WHERE rowid IN (SELECT id FROM entities WHERE repo = ?1)",
        "DELETE FROM entities WHERE repo = ?1",
        NULL,
    };
    return mg_mem_forget(pc, sql, out, err);
}

const struct mg_entities_ops mg_entities_builtin_ops = {
    .add = e_add,
    .search = e_search,
    .retag = e_retag,
    .forget = e_forget,
    .close = mg_mem_close,
};
