/* sessions.c — the built-in session-memory provider: episodes (what a
 * conversation did), and projects, the named groups of conversations that
 * share their episodes and entities (seed 001).
 *
 * A conversation in a project recalls every episode of every conversation
 * of that project (in the repo); one in no project recalls the repo's
 * shared pool: the episodes of conversations in no project. Membership is
 * read at every call, so joining or leaving takes effect at once.
 *
 * Sections:
 *   1. episodes — remember, recall
 *   2. projects — create, list, join or leave, delete
 *   3. forgetting a repo; the provider
 */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- 1. episodes --------------------------------------------------------- */

/* "a,b" -> the item's tags */
static void split_tags(struct mg_episode *e, const char *t, bool *failed)
{
    size_t n = *t ? 1 : 0;
    for (const char *c = t; *c; c++) n += *c == ',';
    if (!n) return;
    if (!(e->tags = calloc(n, sizeof(char *)))) {
        *failed = true;
        return;
    }
    while (*t) {
        const char *c = strchr(t, ',');
        size_t k = c ? (size_t)(c - t) : strlen(t);
        e->tags[e->ntags++] = mg_item_dupn(t, k, failed);
        t += k + (c ? 1 : 0);
    }
}

static int s_remember(void *self, const struct mg_pcall *pc, const char *session, const char *summary,
                      const char *const *tags, size_t ntags, struct mg_items *out, struct mg_err *err)
{
    struct mg_buf tb;
    mg_buf_init(&tb, 1 << 16);
    for (size_t i = 0; i < ntags; i++) mg_buf_addf(&tb, "%s%s", i ? "," : "", tags[i]);
    const char *tagstr = tb.p ? tb.p : "";
    struct place p;
    if (mg__place_begin(pc, session, &p, err) != 0) {
        mg_buf_release(&tb);
        return -1;
    }
    int rc = -1;
    char *stream = NULL;
    struct mg_sql_st *st;
    int64_t t = mg__now_s(), id = 0;
    if (mg_sql_begin(p.db, true, err) != 0) goto out;
    if (mg__place_hold_session(&p, err) != 0) goto fail;
    if (mg_sql_prepare(p.db, "INSERT INTO episodes(tenant, repo, repo_fp, session_id, summary, tags, created_at) "
                             "VALUES(?,?,?,?,?,?,?) RETURNING id", &st, err) != 0)
        goto fail;
    mg_sql_bind_text(st, 1, pc->tenant);
    mg_sql_bind_text(st, 2, p.repo->id);
    mg_sql_bind_text(st, 3, p.repo->fingerprint);
    mg_sql_bind_int(st, 4, p.sid);
    mg_sql_bind_text(st, 5, summary);
    mg_sql_bind_text(st, 6, tagstr);
    mg_sql_bind_int(st, 7, t);
    int r = mg_sql_step(st, err);
    if (r == 1) id = mg_sql_int(st, 0);
    mg_sql_finalize(&st);
    if (r < 0) goto fail;
    if (!id) {
        mg_err_set(err, MG_E_DB, "memory database: the episode was not stored; retry");
        goto fail;
    }
    stream = mg__fts_stream(summary, tagstr, NULL);
    if (mg__fts_put(&p, "episodes", id, stream, err) != 0) goto fail;
    {
        struct mg_buf vt;
        mg_buf_init(&vt, 1 << 20);
        mg_buf_addf(&vt, "%s %s", summary, tagstr);
        int vr = vt.p ? mg__mvec_put(&p, pc->cfg, "episodes", id, vt.p, err) : mg_err_oom(err);
        mg_buf_release(&vt);
        if (vr != 0) goto fail;
    }
    if (mg_sql_commit(p.db, err) != 0) goto out;
    struct mg_episode *e = mg_items_add(out, &mg_item_episode);
    bool failed = !e;
    if (e) {
        mg__row_owner(&e->base, pc->tenant, p.repo->id, p.repo->fingerprint, p.project);
        e->id = id;
        e->session = mg_item_dup(p.ext, &failed);
        e->summary = mg_item_dup(summary, &failed);
        split_tags(e, tagstr, &failed);
        e->created_at = t;
    }
    rc = failed || mg__place_report(&p, out, err) != 0 ? (failed ? mg_err_oom(err) : -1) : 0;
    goto out;
fail:
    mg_sql_rollback(p.db);
out:
    free(stream);
    mg_buf_release(&tb);
    mg__place_end(&p);
    return rc;
}

/* The episodes st yields (the columns of recall's queries) into out, their row ids into *ids. */
static int episode_rows(struct mg_sql_st *st, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    bool failed = false;
    int r = 0;
    size_t cap = 0;
    while (!failed && (r = mg_sql_step(st, err)) == 1) {
        struct mg_episode *e = mg_items_add(out, &mg_item_episode);
        if (!e) {
            failed = true;
            break;
        }
        mg__row_owner(&e->base, mg_sql_text(st, 5), mg_sql_text(st, 9), mg_sql_text(st, 6), mg_sql_int(st, 7));
        e->id = mg_sql_int(st, 0);
        e->summary = mg_item_dup(mg_sql_text(st, 1), &failed);
        split_tags(e, mg_sql_text(st, 2), &failed);
        e->created_at = mg_sql_int(st, 3);
        e->session = mg_item_dup(mg_sql_text(st, 4), &failed);
        e->score = mg_sql_double(st, 8);
        if (ids && mg__mvec_ids_add(out, ids, &cap, e->id) != 0) failed = true;
    }
    return failed ? mg_err_oom(err) : r < 0 ? -1 : 0;
}

static void episode_score(struct mg_item *it, double s) { ((struct mg_episode *)it)->score = s; }

/* One of recall's queries: match (NULL: the newest, or with ids those rows) in the place's pool. */
static int recall_query(struct place *p, const char *match, const char *idlist, int limit, struct mg_items *out,
                        int64_t **ids, struct mg_err *err)
{
    bool pg = mg__mem_pg(p);
    /* ?1 the match (NULL: none), ?2 the repo, ?3 the pool: the sessions of
     * the place's project, or of none (0; `IS NULL` so that both backends
     * look it up in sessions_project), ?4 the limit, ?5 the ids */
    const char *head_lite =
        "SELECT e.id, e.summary, e.tags, e.created_at, s.external_id, e.tenant, e.repo_fp, coalesce(s.project_id, 0),"
        " -bm25(episodes_fts), e.repo FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.rowid"
        " JOIN sessions s ON s.id = e.session_id WHERE episodes_fts MATCH ?1 AND e.repo = ?2 AND ";
    const char *tail_lite = " ORDER BY bm25(episodes_fts) LIMIT ?4";
    const char *head_pg =
        "SELECT e.id, e.summary, e.tags, e.created_at, s.external_id, e.tenant, e.repo_fp, coalesce(s.project_id, 0),"
        " ts_rank(e.body, x.q, 1) AS score, e.repo FROM episodes e CROSS JOIN (SELECT CAST(?1 AS tsquery) AS q) x"
        " JOIN sessions s ON s.id = e.session_id WHERE e.body @@ x.q AND e.repo = ?2 AND ";
    const char *tail_pg = " ORDER BY score DESC, e.id DESC LIMIT ?4";
    const char *head_all =
        "SELECT e.id, e.summary, e.tags, e.created_at, s.external_id, e.tenant, e.repo_fp, coalesce(s.project_id, 0),"
        " 0.0, e.repo FROM episodes e JOIN sessions s ON s.id = e.session_id"
        " WHERE CAST(?1 AS text) IS NULL AND e.repo = ?2 AND ";
    const char *tail_all = " ORDER BY e.created_at DESC, e.id DESC LIMIT ?4";
    char sql[1200];
    snprintf(sql, sizeof(sql), "%s%s%s%s%s", !match ? head_all : pg ? head_pg : head_lite,
             p->project ? "s.project_id = ?3" : "s.project_id IS NULL AND ?3 = 0", idlist ? " AND e.id" : "",
             idlist ? (pg ? " = ANY(CAST(?5 AS bigint[]))" : " IN (SELECT value FROM json_each(?5))") : "",
             !match ? tail_all : pg ? tail_pg : tail_lite);
    struct mg_sql_st *st;
    if (mg_sql_prepare(p->db, sql, &st, err) != 0) return -1;
    mg_sql_bind_text(st, 1, match);
    mg_sql_bind_text(st, 2, p->repo->id);
    mg_sql_bind_int(st, 3, p->project);
    mg_sql_bind_int(st, 4, limit);
    if (idlist) mg_sql_bind_text(st, 5, idlist);
    int rc = episode_rows(st, out, ids, err);
    mg_sql_finalize(&st);
    return rc;
}

/* recall by meaning too (memvec.c): ctx is the match */
static int hy_words(void *ctx, struct place *p, int limit, struct mg_items *out, int64_t **ids, struct mg_err *err)
{
    return recall_query(p, ctx, NULL, limit, out, ids, err);
}

/* the pool's rows, newest first */
static int hy_scan(void *ctx, struct place *p, struct mg_sql_st **st, struct mg_err *err)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT e.id, e.vec FROM episodes e JOIN sessions s"
             " ON s.id = e.session_id WHERE e.repo = ?1 AND e.tenant = ?2 AND e.repo_fp = ?3 AND %s"
             " ORDER BY e.id DESC", p->project ? "s.project_id = ?4" : "s.project_id IS NULL AND ?4 = 0");
    if (mg_sql_prepare(p->db, sql, st, err) != 0) return -1;
    mg_sql_bind_text(*st, 1, p->repo->id);
    mg_sql_bind_text(*st, 2, p->tenant);
    mg_sql_bind_text(*st, 3, p->repo->fingerprint);
    mg_sql_bind_int(*st, 4, p->project);
    return 0;
}

static int hy_rows(void *ctx, struct place *p, const char *idlist, int n, struct mg_items *out, int64_t **ids,
                   struct mg_err *err)
{
    return recall_query(p, NULL, idlist, n, out, ids, err);
}

static const struct mg__mvec_kind episode_kind = {"episodes", hy_words, hy_scan,
    "SELECT summary || ' ' || tags FROM episodes WHERE id = ?1", hy_rows, episode_score};

static int s_recall(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, session, &p, err) != 0) return -1;
    char *match = query ? mg__fts_match(mg__mem_pg(&p), query) : NULL; /* NULL (no query, or no words in it): the newest */
    struct mg__mvq *v = match ? mg__mvec_query(&p, pc->cfg, query) : NULL;
    int rc = v ? mg__mvec_search(&p, v, &episode_kind, match, limit, out, err)
               : recall_query(&p, match, NULL, limit, out, NULL, err);
    if (rc == 0) rc = mg__place_report(&p, out, err);
    mg__mvec_end(&v);
    free(match);
    mg__place_end(&p);
    return rc;
}

/* ---- 2. projects --------------------------------------------------------- */

static int s_project_create(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                            struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = -1;
    if (mg_sql_prepare(p.db, "INSERT INTO projects(tenant, repo, repo_fp, name, isolated, created_at) "
                             "VALUES(?,?,?,?,1,?) ON CONFLICT(tenant, repo, name) DO NOTHING RETURNING id, created_at",
                       &st, err) == 0) {
        mg_sql_bind_text(st, 1, pc->tenant);
        mg_sql_bind_text(st, 2, p.repo->id);
        mg_sql_bind_text(st, 3, p.repo->fingerprint);
        mg_sql_bind_text(st, 4, name);
        mg_sql_bind_int(st, 5, mg__now_s());
        int r = mg_sql_step(st, err);
        if (r == 1) {
            struct mg_project *pr = mg_items_add(out, &mg_item_project);
            bool failed = !pr;
            if (pr) {
                mg__row_owner(&pr->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
                pr->name = mg_item_dup(name, &failed);
                pr->repo = mg_item_dup(p.repo->id, &failed);
                pr->id = mg_sql_int(st, 0);
                pr->created_at = mg_sql_int(st, 1);
                pr->isolated = true;
            }
            rc = failed ? mg_err_oom(err) : 0;
        } else if (r == 0) {
            mg_err_set(err, MG_E_PROJECT_EXISTS, "project '%s' already exists in repo '%s'", name, p.repo->id);
        }
        mg_sql_finalize(&st);
    }
    mg__place_end(&p);
    return rc;
}

static int s_project_list(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    struct mg_sql_st *st;
    int rc = -1;
    if (mg_sql_prepare(p.db, "SELECT p.name, p.id, p.created_at, p.tenant, p.repo_fp,"
                             " (SELECT count(*) FROM sessions WHERE project_id = p.id), p.repo FROM projects p"
                             " WHERE p.repo = ? ORDER BY p.name", &st, err) == 0) {
        mg_sql_bind_text(st, 1, p.repo->id);
        bool failed = false;
        int r = 0;
        while (!failed && (r = mg_sql_step(st, err)) == 1) {
            struct mg_project *pr = mg_items_add(out, &mg_item_project);
            if (!pr) {
                failed = true;
                break;
            }
            mg__row_owner(&pr->base, mg_sql_text(st, 3), mg_sql_text(st, 6), mg_sql_text(st, 4), 0);
            pr->name = mg_item_dup(mg_sql_text(st, 0), &failed);
            pr->id = mg_sql_int(st, 1);
            pr->created_at = mg_sql_int(st, 2);
            pr->sessions = mg_sql_int(st, 5);
            pr->repo = mg_item_dup(mg_sql_text(st, 6), &failed);
            pr->isolated = true;
        }
        mg_sql_finalize(&st);
        rc = failed ? mg_err_oom(err) : r < 0 ? -1 : 0;
    }
    mg__place_end(&p);
    return rc;
}

static int s_project_join(void *self, const struct mg_pcall *pc, const char *session, const char *name,
                          struct mg_items *out, struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, session, &p, err) != 0) return -1;
    int rc = -1;
    int64_t pid = name ? mg__project_id(&p, name, err) : 0;
    struct mg_sql_st *st;
    if ((!name || pid) && mg_sql_prepare(p.db, "UPDATE sessions SET project_id = ? WHERE id = ?", &st, err) == 0) {
        if (pid) mg_sql_bind_int(st, 1, pid);
        else mg_sql_bind_null(st, 1);
        mg_sql_bind_int(st, 2, p.sid);
        if (mg_sql_step(st, err) == 0) {
            struct mg_membership *m = mg_items_add(out, &mg_item_membership);
            bool failed = !m;
            if (m) {
                mg__row_owner(&m->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
                m->session = mg_item_dup(p.ext, &failed);
                m->project = mg_item_dup(name, &failed);
                m->repo = mg_item_dup(p.repo->id, &failed);
            }
            rc = failed ? mg_err_oom(err) : 0;
        }
        mg_sql_finalize(&st);
    }
    mg__place_end(&p);
    return rc;
}

static int s_project_delete(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                            struct mg_err *err)
{
    struct place p;
    if (mg__place_begin(pc, NULL, &p, err) != 0) return -1;
    int rc = -1;
    int64_t pid = mg__project_id(&p, name, err), ne = 0, nn = 0, ns = 0;
    bool lite = !mg__mem_pg(&p);
    /* the project's memory goes with it: never released into the shared
     * pool. Its sessions' rows are locked first (PostgreSQL: a remember or
     * add_entities of one of them in flight holds the row, mg__place_hold_session;
     * this waits for it, and the deletes below see its rows) */
    if (pid && mg_sql_begin(p.db, true, err) == 0) {
        if (mg__mem_run1(&p, "UPDATE sessions SET project_id = project_id WHERE project_id = ?", pid, NULL, err) == 0 &&
            (!lite || mg__mem_run1(&p, "DELETE FROM episodes_fts WHERE rowid IN (SELECT e.id FROM episodes e JOIN"
                                      " sessions s ON s.id = e.session_id WHERE s.project_id = ?)", pid, NULL, err) == 0) &&
            mg__mem_run1(&p, "DELETE FROM episodes WHERE session_id IN (SELECT id FROM sessions WHERE project_id = ?)",
                        pid, &ne, err) == 0 &&
            (!lite || mg__mem_run1(&p, "DELETE FROM entities_fts WHERE rowid IN (SELECT id FROM entities WHERE "
                                      "project_id = ?)", pid, NULL, err) == 0) &&
            mg__mem_run1(&p, "DELETE FROM entities WHERE project_id = ?", pid, &nn, err) == 0 &&
            mg__mem_run1(&p, "UPDATE sessions SET project_id = NULL WHERE project_id = ?", pid, &ns, err) == 0 &&
            mg__mem_run1(&p, "DELETE FROM projects WHERE id = ?", pid, NULL, err) == 0 && mg_sql_commit(p.db, err) == 0) {
            struct mg_project_deleted *m = mg_items_add(out, &mg_item_project_deleted);
            bool failed = !m;
            if (m) {
                mg__row_owner(&m->base, pc->tenant, p.repo->id, p.repo->fingerprint, 0);
                m->project = mg_item_dup(name, &failed);
                m->deleted = true;
                m->sessions = ns;
                m->episodes = ne;
                m->entities = nn;
            }
            rc = failed ? mg_err_oom(err) : 0;
        } else {
            mg_sql_rollback(p.db);
        }
    }
    mg__place_end(&p);
    return rc;
}

/* ---- 3. forgetting a repo; the provider ---------------------------------- */

static int s_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    static const struct mg_forget_sql sql[] = {
        {"DELETE FROM episodes_fts WHERE rowid IN (SELECT id FROM episodes WHERE repo = ?1)", true},
        {"DELETE FROM episodes WHERE repo = ?1", false},
        {"DELETE FROM sessions WHERE repo = ?1", false},
        {"DELETE FROM projects WHERE repo = ?1", false},
        {NULL, false},
    };
    return mg__mem_forget(pc, sql, out, err);
}

const struct mg_sessions_ops mg_sessions_builtin_ops = {
    .remember = s_remember,
    .recall = s_recall,
    .project_create = s_project_create,
    .project_list = s_project_list,
    .project_join = s_project_join,
    .project_delete = s_project_delete,
    .forget = s_forget,
    .close = mg__mem_close,
};
