/* entities.c — the built-in entities provider: named things (a service, a
 * person, a component) with notes, tagged with the conversation's project
 * when they are added. Tags change only by retag; a conversation in no
 * project gets no entities. */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int e_add(void *self, const struct mg_pcall *pc, const char *session, const struct mg_entity_in *v, size_t n,
                 struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, session, &p, err) != 0) return -1;
    int rc = -1;
    size_t added = 0;
    struct mg_sql_st *st = NULL;
    if (mg_sql_begin(p.db, true, err) != 0) goto done;
    /* the project at the time, held until commit (a project deleted meanwhile: none) */
    if (mg__place_hold_session(&p, err) != 0) goto fail;
    int64_t t = mg__now_s();
    if (mg_sql_prepare(p.db, "INSERT INTO entities(tenant, repo, repo_fp, project_id, session_id, name, type, notes,"
                             " created_at) VALUES(?,?,?,?,?,?,?,?,?) RETURNING id", &st, err) != 0)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const char *type = v[i].type ? v[i].type : "", *notes = v[i].notes ? v[i].notes : "";
        mg_sql_reset(st);
        mg_sql_bind_text(st, 1, pc->tenant);
        mg_sql_bind_text(st, 2, p.repo->id);
        mg_sql_bind_text(st, 3, p.repo->fingerprint);
        if (p.project) mg_sql_bind_int(st, 4, p.project);
        else mg_sql_bind_null(st, 4);
        mg_sql_bind_int(st, 5, p.sid);
        mg_sql_bind_text(st, 6, v[i].name);
        mg_sql_bind_text(st, 7, type);
        mg_sql_bind_text(st, 8, notes);
        mg_sql_bind_int(st, 9, t);
        int r = mg_sql_step(st, err);
        int64_t id = r == 1 ? mg_sql_int(st, 0) : 0;
        if (r < 0) break;
        if (!id) {
            mg_err_set(err, MG_E_DB, "memory database: the entity '%.64s' was not stored; retry", v[i].name);
            break;
        }
        char *stream = mg__fts_stream(v[i].name, type, notes);
        bool ok = mg__fts_put(&p, "entities", id, stream, err) == 0;
        free(stream);
        if (ok) {
            struct mg_buf vt;
            mg_buf_init(&vt, 1 << 20);
            mg_buf_addf(&vt, "%s %s %s", v[i].name, type, notes);
            ok = (vt.p ? mg__mvec_put(&p, pc->cfg, "entities", id, vt.p, err) : mg_err_oom(err)) == 0;
            mg_buf_release(&vt);
        }
        if (!ok) break;
        struct mg_entity *e = mg_items_add(out, &mg_item_entity);
        bool failed = !e;
        if (e) {
            mg__row_owner(&e->base, pc->tenant, p.repo->id, p.repo->fingerprint, p.project);
            e->id = id;
            e->name = mg_item_dup(v[i].name, &failed);
            e->type = mg_item_dup(type, &failed);
            e->notes = mg_item_dup(notes, &failed);
            e->project = p.project ? mg_item_dup(p.project_name, &failed) : NULL;
        }
        if (failed) {
            mg_err_oom(err);
            break;
        }
        added++;
    }
    mg_sql_finalize(&st);
    if (added != n) goto fail;
    if (mg_sql_commit(p.db, err) == 0) rc = mg__place_report(&p, out, err);
    goto done;
fail:
    mg_sql_finalize(&st);
    mg_sql_rollback(p.db);
done:
    mg__place_end(&p);
    return rc;
}

/* The entities st yields (the columns of search_entities' queries) into out, their row ids into *ids. */
static int entity_rows(struct mg_sql_st *st, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    bool failed = false;
    int r = 0;
    size_t cap = 0;
    while (!failed && (r = mg_sql_step(st, err)) == 1) {
        struct mg_entity *e = mg_items_add(out, &mg_item_entity);
        if (!e) {
            failed = true;
            break;
        }
        mg__row_owner(&e->base, mg_sql_text(st, 5), mg_sql_text(st, 9), mg_sql_text(st, 6), mg_sql_int(st, 7));
        e->id = mg_sql_int(st, 0);
        e->name = mg_item_dup(mg_sql_text(st, 1), &failed);
        e->type = mg_item_dup(mg_sql_text(st, 2), &failed);
        e->notes = mg_item_dup(mg_sql_text(st, 3), &failed);
        e->created_at = mg_sql_int(st, 4);
        e->score = mg_sql_double(st, 8);
        e->project = mg_item_dup(mg_sql_text(st, 10), &failed);
        if (ids && mg__mvec_ids_add(out, ids, &cap, e->id) != 0) failed = true;
    }
    return failed ? mg_err_oom(err) : r < 0 ? -1 : 0;
}

/* One of search_entities' queries in the place's project: by words (match), the rows of ids (idlist), or
 * (neither) the newest. */
static int entity_query(struct place *p, const char *match, const char *idlist, int limit, struct mg_items *out,
                        int64_t **ids, struct mg_err *err)
{
    bool pg = mg__mem_pg(p);
    const char *sql_match_lite = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                                 " coalesce(n.project_id, 0), -bm25(entities_fts), n.repo, coalesce(p.name, '')"
                                 " FROM entities_fts JOIN entities n ON n.id = entities_fts.rowid"
                                 " LEFT JOIN projects p ON p.id = n.project_id"
                                 " WHERE entities_fts MATCH ?1 AND n.repo = ?2 AND n.project_id = ?3"
                                 " ORDER BY bm25(entities_fts) LIMIT ?4";
    const char *sql_match_pg = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                               " coalesce(n.project_id, 0), ts_rank(n.body, x.q, 1) AS score, n.repo,"
                               " coalesce(p.name, '') FROM entities n CROSS JOIN (SELECT CAST(?1 AS tsquery) AS q) x"
                               " LEFT JOIN projects p ON p.id = n.project_id"
                               " WHERE n.body @@ x.q AND n.repo = ?2 AND n.project_id = ?3"
                               " ORDER BY score DESC, n.id DESC LIMIT ?4";
    const char *sql_ids_lite = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                               " coalesce(n.project_id, 0), 0.0, n.repo, coalesce(p.name, '') FROM entities n"
                               " LEFT JOIN projects p ON p.id = n.project_id"
                               " WHERE n.id IN (SELECT value FROM json_each(?1)) AND n.repo = ?2 AND n.project_id = ?3"
                               " LIMIT ?4";
    const char *sql_ids_pg = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                             " coalesce(n.project_id, 0), 0.0, n.repo, coalesce(p.name, '') FROM entities n"
                             " LEFT JOIN projects p ON p.id = n.project_id"
                             " WHERE n.id = ANY(CAST(?1 AS bigint[])) AND n.repo = ?2 AND n.project_id = ?3 LIMIT ?4";
    const char *sql_all = "SELECT n.id, n.name, n.type, n.notes, n.created_at, n.tenant, n.repo_fp,"
                          " coalesce(n.project_id, 0), 0.0, n.repo, coalesce(p.name, '') FROM entities n"
                          " LEFT JOIN projects p ON p.id = n.project_id"
                          " WHERE n.repo = ?1 AND n.project_id = ?2 ORDER BY n.id DESC LIMIT ?3";
    const char *first = idlist ? idlist : match;
    struct mg_sql_st *st;
    if (mg_sql_prepare(p->db, idlist ? (pg ? sql_ids_pg : sql_ids_lite) : !match ? sql_all
                                  : pg ? sql_match_pg : sql_match_lite, &st, err) != 0)
        return -1;
    int o = 0; /* the parameters after the match or ids */
    if (first) mg_sql_bind_text(st, ++o, first);
    mg_sql_bind_text(st, o + 1, p->repo->id);
    mg_sql_bind_int(st, o + 2, p->project);
    mg_sql_bind_int(st, o + 3, limit);
    int rc = entity_rows(st, out, ids, err);
    mg_sql_finalize(&st);
    return rc;
}

/* search_entities by meaning too (memvec.c): ctx is the match */
static int hy_words(void *ctx, struct place *p, int limit, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    return entity_query(p, ctx, NULL, limit, out, ids, err);
}

/* the project's entities, newest first */
static int hy_scan(void *ctx, struct place *p, struct mg_sql_st **st, struct mg_err *err)
{
    if (mg_sql_prepare(p->db, "SELECT id, vec FROM entities WHERE repo = ?1"
                              " AND tenant = ?2 AND repo_fp = ?3 AND project_id = ?4 ORDER BY id DESC", st, err) != 0)
        return -1;
    mg_sql_bind_text(*st, 1, p->repo->id);
    mg_sql_bind_text(*st, 2, p->tenant);
    mg_sql_bind_text(*st, 3, p->repo->fingerprint);
    mg_sql_bind_int(*st, 4, p->project);
    return 0;
}

static int hy_rows(void *ctx, struct place *p, const char *idlist, int n, struct mg_items *out, int64_t **ids,
                   struct mg_err *err)
{
    return entity_query(p, NULL, idlist, n, out, ids, err);
}

static void entity_score(struct mg_item *it, double s) { ((struct mg_entity *)it)->score = s; }

static const struct mg__mvec_kind entity_kind = {"entities", hy_words, hy_scan,
    "SELECT name || ' ' || type || ' ' || notes FROM entities WHERE id = ?1", hy_rows, entity_score};

static int e_search(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, session, &p, err) != 0) return -1;
    int rc = 0;
    char *match = NULL;
    struct mg__mvq *v = NULL;
    if (p.project) { /* sessions in no project get no entity context */
        match = query ? mg__fts_match(mg__mem_pg(&p), query) : NULL;
        v = match ? mg__mvec_query(&p, pc->cfg, query) : NULL;
        rc = v ? mg__mvec_search(&p, v, &entity_kind, match, limit, out, err)
               : entity_query(&p, match, NULL, limit, out, NULL, err);
    }
    if (rc == 0) rc = mg__place_report(&p, out, err);
    mg__mvec_end(&v);
    free(match);
    mg__place_end(&p);
    return rc;
}

static int e_retag(void *self, const struct mg_pcall *pc, const int64_t *ids, size_t n, const char *name,
                   struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    int64_t pid = name ? mg__project_id(&p, name, err) : 0;
    struct mg_sql_st *st = NULL;
    if ((name && !pid) || mg_sql_begin(p.db, true, err) != 0) goto out;
    if (mg_sql_prepare(p.db, "UPDATE entities SET project_id = ? WHERE id = ? AND repo = ? AND tenant = ? AND "
                             "repo_fp = ?", &st, err) != 0)
        goto fail;
    int64_t changed = 0;
    for (size_t i = 0; i < n; i++) {
        mg_sql_reset(st);
        if (pid) mg_sql_bind_int(st, 1, pid);
        else mg_sql_bind_null(st, 1);
        mg_sql_bind_int(st, 2, ids[i]);
        mg_sql_bind_text(st, 3, p.repo->id);
        mg_sql_bind_text(st, 4, pc->tenant);
        mg_sql_bind_text(st, 5, p.repo->fingerprint);
        if (mg_sql_step(st, err) != 0) goto fail;
        changed += mg_sql_changes(st);
    }
    mg_sql_finalize(&st);
    if (mg_sql_commit(p.db, err) != 0) goto out;
    struct mg_retagged *r = mg_items_add(out, &mg_item_retagged);
    bool failed = !r;
    if (r) {
        mg__row_owner(&r->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
        r->retagged = changed;
        r->project = mg_item_dup(name, &failed);
    }
    rc = failed ? mg_err_oom(err) : 0;
    goto out;
fail:
    mg_sql_finalize(&st);
    mg_sql_rollback(p.db);
out:
    mg__place_end(&p);
    return rc;
}

static int e_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    static const struct mg_forget_sql sql[] = {
        {"DELETE FROM entities_fts WHERE rowid IN (SELECT id FROM entities WHERE repo = ?1)", true},
        {"DELETE FROM entities WHERE repo = ?1", false},
        {NULL, false},
    };
    return mg__mem_forget(pc, sql, out, err);
}

const struct mg_entities_ops mg_entities_builtin_ops = {
    .add = e_add,
    .search = e_search,
    .retag = e_retag,
    .forget = e_forget,
    .close = mg__mem_close,
};
