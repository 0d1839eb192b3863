/* mem0.c — session memory in Mem0 (see mem0.h).
 *
 * Sections:
 *   1. the answer: parsing and checking rows
 *   2. one request to Mem0
 *   3. the place of a call, from memgate's own tables (sessions, projects)
 *   4. episodes: remember, recall
 *   5. projects (delegated to the built-in) and forgetting
 *   6. the provider
 */
#include "memory/mem0.h"

#include <jansson.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory/internal.h"
#include "util/clock.h"
#include "util/httpc.h"
#include "util/metrics.h"
#include "util/utf8.h"

#define PROVIDER "mem0"
#define ROUNDS_MAX 1000 /* list-and-delete rounds of one forget (1000 rows each) */

struct mem0 {
    const struct mg_config *cfg;
    void *builtin;              /* the built-in provider's self (projects, membership) */
    char base[512];             /* mem0_url without its trailing '/' */
    char key[512];
    long timeout;
    /* remember holds it shared, project_delete and forget alone: an episode
     * is never added to a session while its project's episodes are deleted */
    pthread_rwlock_t lock;
};


/* ---- 1. the answer ------------------------------------------------------------------------------ */

static bool id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_'))
            return false;
    return true;
}

static char *str_of(json_t *o, const char *k, bool *failed)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? mg_item_dupn(json_string_value(v), json_string_length(v), failed) : NULL;
}

void mg_mem0_rows_release(struct mg_mem0_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        struct mg_mem0_row *w = &r->v[i];
        char **f[] = {&w->id, &w->memory, &w->event, &w->user_id, &w->run_id, &w->tenant,
                      &w->repo, &w->fp, &w->session, &w->project, &w->tags};
        for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) free(*f[k]);
    }
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

int mg_mem0_parse(const char *body, size_t len, struct mg_mem0_rows *out, struct mg_err *err)
{
    out->v = NULL;
    out->n = 0;
    if (len > MG_MEM0_MAX_ANSWER)
        return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the answer is over %u bytes", MG_MEM0_MAX_ANSWER);
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the answer is not JSON (%s at byte %d)", je.text,
                                 je.position);
    json_t *res = json_object_get(root, "results");
    int rc = -1;
    if (!json_is_array(res)) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the answer has no \"results\" array");
        goto out;
    }
    size_t n = json_array_size(res);
    if (n > MG_MEM0_MAX_ROWS) {
        mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the answer has %zu rows; at most %d are accepted", n,
                   MG_MEM0_MAX_ROWS);
        goto out;
    }
    if (n && !(out->v = calloc(n, sizeof(*out->v)))) {
        mg_err_oom(err);
        goto out;
    }
    bool failed = false;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(res, i);
        json_t *id = json_object_get(r, "id"), *mem = json_object_get(r, "memory");
        if (!json_is_object(r) || !json_is_string(id) || !id_ok(json_string_value(id)) || !json_is_string(mem)) {
            mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "row %zu of the answer has no valid \"id\" and \"memory\"", i);
            goto out;
        }
        struct mg_mem0_row *w = &out->v[out->n++];
        w->id = str_of(r, "id", &failed);
        w->memory = str_of(r, "memory", &failed);
        w->event = str_of(r, "event", &failed);
        w->user_id = str_of(r, "user_id", &failed);
        w->run_id = str_of(r, "run_id", &failed);
        json_t *sc = json_object_get(r, "score");
        w->score = json_is_number(sc) ? json_number_value(sc) : 0;
        if (!(w->score >= -1e9 && w->score <= 1e9)) w->score = 0; /* NaN, huge */
        json_t *md = json_object_get(r, "metadata");
        if (json_is_object(md)) {
            w->tenant = str_of(md, "mg_tenant", &failed);
            w->repo = str_of(md, "mg_repo", &failed);
            w->fp = str_of(md, "mg_fp", &failed);
            w->session = str_of(md, "mg_session", &failed);
            w->project = str_of(md, "mg_project", &failed);
            w->tags = str_of(md, "mg_tags", &failed);
            json_t *t = json_object_get(md, "mg_created_at");
            w->created_at = json_is_integer(t) && json_integer_value(t) > 0 ? json_integer_value(t) : 0;
        }
        if (failed) {
            mg_err_oom(err);
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(root);
    if (rc != 0) mg_mem0_rows_release(out);
    return rc;
}

/* ---- 2. one request ------------------------------------------------------------------------------- */

/* A failure of Mem0: counted, logged, and err set (what: "storing the episode"). */
static int fail(struct mem0 *z, const char *what, const char *why, struct mg_err *err)
{
    mg_metrics_provider_error(PROVIDER);
    fprintf(stderr, "memgate: warning: mem0 at '%s': %s failed: %s\n", z->base, what, why);
    return mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE,
                      "the session memory provider mem0 at '%s' failed %s: %s; retry when it is back (or set "
                      "sessions_provider = builtin)",
                      z->base, what, why);
}

/* The server's own words on an error: {"detail": "..."} (FastAPI), short, UTF-8, without the key. */
static void server_detail(struct mem0 *z, const struct mg_buf *b, char *out, size_t cap)
{
    out[0] = 0;
    json_t *root = b->p ? json_loadb(b->p, b->len, 0, NULL) : NULL;
    const char *d = json_string_value(json_object_get(root, "detail"));
    if (d) snprintf(out, cap, ": %s", d);
    json_decref(root);
    size_t kl = strlen(z->key);
    char *p;
    while (kl >= 4 && (p = strstr(out, z->key))) memset(p, '*', kl);
    size_t n = mg_utf8_valid_prefix(out, strlen(out));
    out[n] = 0;
    if (n > 160) memcpy(out + mg_utf8_cut(out, n, 157), "...", 4);
}

/* method base+path [body]: 0 with the answer in resp when Mem0 answered 2xx
 * (or 404 when ok404), else -1 with why. The deadline of the request
 * shortens the timeout. */
static int request(struct mem0 *z, const struct mg_pcall *pc, const char *method, const char *path, json_t *body,
                   bool ok404, long *status, struct mg_buf *resp, char *why, size_t cap)
{
    char url[1024 + 512];
    snprintf(url, sizeof(url), "%s%s", z->base, path);
    char *payload = body ? json_dumps(body, JSON_COMPACT) : NULL;
    if (body && !payload) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    char auth[600];
    const char *hdr[1];
    size_t nh = 0;
    if (z->key[0]) {
        snprintf(auth, sizeof(auth), "X-API-Key: %s", z->key);
        hdr[nh++] = auth;
    }
    long timeout = z->timeout;
    if (pc->deadline_ms > 0) {
        double left = ((double)pc->deadline_ms - mg_clock_ms()) / 1000.0;
        if (left < 1) left = 1;
        if (left < (double)timeout) timeout = (long)left;
    }
    struct mg_httpc_req q = {.method = method, .url = url, .headers = hdr, .nheaders = nh, .body = payload,
                             .timeout_s = timeout, .max_body = MG_MEM0_MAX_ANSWER};
    int rc = mg_httpc_call(&q, status, resp, why, cap);
    sodium_memzero(auth, sizeof(auth));
    free(payload);
    if (rc != 0) return -1;
    if ((*status >= 200 && *status < 300) || (ok404 && *status == 404)) return 0;
    char detail[200];
    server_detail(z, resp, detail, sizeof(detail));
    snprintf(why, cap, "HTTP %ld%s", *status, detail);
    return -1;
}

/* user_id of a tenant's repo: "mg-" + 32 hex of BLAKE2b(tenant, repo, fingerprint). */
static void user_id(const char *tenant, const struct mg_repo *r, char out[36])
{
    crypto_generichash_state s;
    unsigned char h[16];
    crypto_generichash_init(&s, NULL, 0, sizeof(h));
    const char *parts[] = {"memgate-mem0-user\n", tenant, "\n", r->id, "\n", r->fingerprint};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        crypto_generichash_update(&s, (const unsigned char *)parts[i], strlen(parts[i]));
    crypto_generichash_final(&s, h, sizeof(h));
    memcpy(out, "mg-", 3);
    sodium_bin2hex(out + 3, 33, h, sizeof(h));
}

/* An episode's number from its Mem0 id (FNV-1a, 53 bits: exact in JSON). */
static int64_t id_number(const char *id)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *id; id++) h = (h ^ (unsigned char)*id) * 1099511628211ULL;
    h &= (1ULL << 53) - 1;
    return h ? (int64_t)h : 1;
}

/* ---- 3. the place of a call ------------------------------------------------------------------------ */

/* The sessions of a pool: the repo's sessions in project pid (0: in none),
 * newest first, at most MG_MEM0_POOL_MAX; within the place. */
static int pool_sessions(struct place *p, int64_t pid, json_t **out, struct mg_err *err)
{
    struct mg_sql_st *st;
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT external_id FROM sessions WHERE repo = ?1 AND tenant = ?2 AND repo_fp = ?3"
             " AND %s ORDER BY created_at DESC, id DESC LIMIT ?5",
             pid ? "project_id = ?4" : "project_id IS NULL AND ?4 = 0");
    if (mg_sql_prepare(p->db, sql, &st, err) != 0) return -1;
    mg_sql_bind_text(st, 1, p->repo->id);
    mg_sql_bind_text(st, 2, p->tenant);
    mg_sql_bind_text(st, 3, p->repo->fingerprint);
    mg_sql_bind_int(st, 4, pid);
    mg_sql_bind_int(st, 5, MG_MEM0_POOL_MAX);
    json_t *a = json_array();
    int r = 0;
    bool failed = !a;
    while (!failed && (r = mg_sql_step(st, err)) == 1)
        failed = json_array_append_new(a, json_string(mg_sql_text(st, 0))) != 0;
    mg_sql_finalize(&st);
    if (failed || r < 0) {
        json_decref(a);
        return failed ? mg_err_oom(err) : -1;
    }
    *out = a;
    return 0;
}

static bool in_pool(json_t *pool, const char *session)
{
    size_t i;
    json_t *v;
    json_array_foreach(pool, i, v) if (strcmp(json_string_value(v), session) == 0) return true;
    return false;
}

/* A row is this request's: its user, tenant, repo and fingerprint, and a
 * session (the same in run_id when given). */
static bool row_ours(const struct mg_mem0_row *w, const char *uid, const struct place *p)
{
    return w->user_id && strcmp(w->user_id, uid) == 0 && w->tenant && strcmp(w->tenant, p->tenant) == 0 &&
           w->repo && strcmp(w->repo, p->repo->id) == 0 && w->fp && strcmp(w->fp, p->repo->fingerprint) == 0 &&
           w->session && mg_memory_id_ok(w->session) && (!w->run_id || strcmp(w->run_id, w->session) == 0);
}

/* A row dropped: counted (the gate adds it to memgate_isolation_drops_total
 * and the audit); the first of a call is logged, the rest counted in
 * log_drops's one line. */
static void drop_foreign(struct mg_items *out, const struct mg_mem0_row *w, const char *why, char *first, size_t cap)
{
    if (!out->foreign) snprintf(first, cap, "'%s' (%s)", w->id, why);
    out->foreign++;
    out->foreign_kind = "episode";
}

static void log_drops(const struct mg_items *out, const char *first)
{
    if (out->foreign)
        fprintf(stderr, "memgate: warning: mem0: dropped %zu memories from outside the request's scope; the first: %s\n",
                out->foreign, first);
}

/* ---- 4. episodes --------------------------------------------------------------------------------- */

/* "a,b" (metadata mg_tags) -> the item's tags, at most MG_TAGS_MAX */
static void split_tags(struct mg_episode *e, const char *t, bool *failed)
{
    if (!t || !*t) return;
    size_t n = 1;
    for (const char *c = t; *c; c++) n += *c == ',';
    if (n > MG_TAGS_MAX) n = MG_TAGS_MAX;
    if (!(e->tags = calloc(n, sizeof(char *)))) {
        *failed = true;
        return;
    }
    while (*t && e->ntags < n) {
        const char *c = strchr(t, ',');
        size_t k = c ? (size_t)(c - t) : strlen(t);
        e->tags[e->ntags++] = mg_item_dupn(t, k, failed);
        t += k + (c ? 1 : 0);
    }
}

static int z_remember(void *self, const struct mg_pcall *pc, const char *session, const char *summary,
                      const char *const *tags, size_t ntags, struct mg_items *out, struct mg_err *err)
{
    struct mem0 *z = self;
    struct mg_buf tb;
    mg_buf_init(&tb, 1 << 16);
    for (size_t i = 0; i < ntags; i++) mg_buf_addf(&tb, "%s%s", i ? "," : "", tags[i]);
    pthread_rwlock_rdlock(&z->lock);
    struct place p;
    int rc = -1;
    json_t *body = NULL;
    struct mg_buf resp;
    mg_buf_init(&resp, MG_MEM0_MAX_ANSWER);
    struct mg_mem0_rows rows = {0};
    if (mg__place_begin(pc, session, &p, err) != 0) goto out;
    mg__place_end(&p); /* the session's row and project are read; Mem0 is called without holding the database */
    char uid[36];
    user_id(pc->tenant, p.repo, uid);
    int64_t t = mg__now_s();
    body = json_pack("{s:[{s:s, s:s}], s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:I}, s:b}", "messages", "role",
                     "user", "content", summary, "user_id", uid, "run_id", p.ext, "metadata", "mg_tenant", pc->tenant,
                     "mg_repo", p.repo->id, "mg_fp", p.repo->fingerprint, "mg_session", p.ext, "mg_project",
                     p.project ? p.project_name : "", "mg_tags", tb.p ? tb.p : "", "mg_created_at", (json_int_t)t,
                     "infer", 0);
    if (!body) {
        mg_err_oom(err);
        goto out;
    }
    long status;
    char why[512];
    struct mg_err pe = {0};
    if (request(z, pc, "POST", "/memories", body, false, &status, &resp, why, sizeof(why)) != 0) {
        fail(z, "storing the episode (it was not stored)", why, err);
        goto out;
    }
    if (mg_mem0_parse(resp.p ? resp.p : "", resp.len, &rows, &pe) != 0) {
        fail(z, "storing the episode (it may not be stored)", pe.msg, err);
        goto out;
    }
    const struct mg_mem0_row *added = NULL;
    for (size_t i = 0; i < rows.n && !added; i++)
        if (rows.v[i].event && strcmp(rows.v[i].event, "ADD") == 0) added = &rows.v[i];
    if (!added) {
        fail(z, "storing the episode (it may not be stored)", "the answer has no ADD event", err);
        goto out;
    }
    struct mg_episode *e = mg_items_add(out, &mg_item_episode);
    bool failed = !e;
    if (e) {
        mg__row_owner(&e->base, pc->tenant, p.repo->id, p.repo->fingerprint, p.project);
        e->id = id_number(added->id);
        e->session = mg_item_dup(p.ext, &failed);
        e->summary = mg_item_dup(summary, &failed);
        split_tags(e, tb.p, &failed);
        e->created_at = t;
    }
    rc = failed ? mg_err_oom(err) : mg__place_report(&p, out, err);
out:
    pthread_rwlock_unlock(&z->lock);
    mg_mem0_rows_release(&rows);
    mg_buf_release(&resp);
    mg_buf_release(&tb);
    json_decref(body);
    return rc;
}

static int by_newest(const void *a, const void *b)
{
    const struct mg_mem0_row *x = a, *y = b;
    if (x->created_at != y->created_at) return x->created_at > y->created_at ? -1 : 1;
    return strcmp(x->id, y->id);
}

static bool has_words(const char *q)
{
    for (; q && *q; q++)
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') return true;
    return false;
}

static int z_recall(void *self, const struct mg_pcall *pc, const char *session, const char *query, int limit,
                    struct mg_items *out, struct mg_err *err)
{
    struct mem0 *z = self;
    struct place p;
    json_t *pool = NULL, *body = NULL;
    if (mg__place_begin(pc, session, &p, err) != 0) return -1;
    int rc = pool_sessions(&p, p.project, &pool, err);
    mg__place_end(&p);
    if (rc != 0) return -1;
    rc = -1;
    char uid[36];
    user_id(pc->tenant, p.repo, uid);
    struct mg_buf resp;
    mg_buf_init(&resp, MG_MEM0_MAX_ANSWER);
    struct mg_mem0_rows rows = {0};
    bool search = has_words(query);
    long status;
    char why[512], path[256];
    struct mg_err pe = {0};
    int r;
    if (limit < 1) limit = 1;
    if (limit > MG_MEM0_MAX_ROWS) limit = MG_MEM0_MAX_ROWS;
    if (search) {
        /* the pool pushed down: the user (tenant + repo) and the pool's sessions */
        body = json_pack("{s:s, s:{s:s, s:{s:O}}, s:i}", "query", query, "filters", "user_id", uid, "mg_session", "in",
                         pool, "top_k", limit);
        if (!body) {
            mg_err_oom(err);
            goto out;
        }
        r = request(z, pc, "POST", "/search", body, false, &status, &resp, why, sizeof(why));
    } else {
        /* newest: Mem0 lists in no order and filters only by ids, so the
         * repo's memories (up to its cap) are listed and the pool kept here */
        snprintf(path, sizeof(path), "/memories?user_id=%s&top_k=%d", uid, MG_MEM0_MAX_ROWS);
        r = request(z, pc, "GET", path, NULL, false, &status, &resp, why, sizeof(why));
    }
    if (r == 0 && mg_mem0_parse(resp.p ? resp.p : "", resp.len, &rows, &pe) != 0) {
        snprintf(why, sizeof(why), "%s", pe.msg);
        r = -1;
    }
    if (r != 0) {
        /* recall degrades: no episodes, and the answer says so */
        struct mg_err fe = {0};
        fail(z, "recalling episodes", why, &fe);
        out->degraded = PROVIDER;
        out->degraded_code = MG_E_PROVIDER_UNAVAILABLE;
        rc = mg__place_report(&p, out, err);
        goto out;
    }
    if (!search) qsort(rows.v, rows.n, sizeof(*rows.v), by_newest);
    bool failed = false;
    char first[160] = "";
    for (size_t i = 0; i < rows.n && !failed && out->n < (size_t)limit; i++) {
        const struct mg_mem0_row *w = &rows.v[i];
        if (!row_ours(w, uid, &p)) {
            drop_foreign(out, w, "another user, tenant, repo or fingerprint", first, sizeof(first));
            continue;
        }
        if (!in_pool(pool, w->session)) {
            if (search) /* Mem0 ignored the filter */
                drop_foreign(out, w, "a session outside the pool", first, sizeof(first));
            continue; /* listing: another pool's */
        }
        struct mg_episode *e = mg_items_add(out, &mg_item_episode);
        if (!e) {
            failed = true;
            break;
        }
        mg__row_owner(&e->base, w->tenant, w->repo, w->fp, p.project);
        e->id = id_number(w->id);
        e->session = mg_item_dup(w->session, &failed);
        e->summary = mg_item_dup(w->memory, &failed);
        split_tags(e, w->tags, &failed);
        e->created_at = w->created_at;
        e->score = search ? (double)(int64_t)(w->score * 1000 + (w->score >= 0 ? 0.5 : -0.5)) / 1000 : 0;
    }
    log_drops(out, first);
    rc = failed ? mg_err_oom(err) : mg__place_report(&p, out, err);
out:
    mg_mem0_rows_release(&rows);
    mg_buf_release(&resp);
    json_decref(body);
    json_decref(pool);
    return rc;
}

/* ---- 5. projects and forgetting --------------------------------------------------------------------- */

/* Delete the memories of user uid (and of session run_id when given) that
 * are this place's; *n counts them. Rows of another owner are left alone
 * and counted as foreign. 0, or -1 with err. */
static int delete_rows(struct mem0 *z, const struct mg_pcall *pc, const struct place *p, const char *uid,
                       const char *run_id, int64_t *n, size_t *foreign, struct mg_err *err)
{
    struct mg_buf resp;
    mg_buf_init(&resp, MG_MEM0_MAX_ANSWER);
    char path[512], why[512];
    long status;
    int rc = -1;
    for (int round = 0; round < ROUNDS_MAX; round++) {
        struct mg_mem0_rows rows = {0};
        struct mg_err pe = {0};
        if (run_id) snprintf(path, sizeof(path), "/memories?user_id=%s&run_id=%s&top_k=%d", uid, run_id, MG_MEM0_MAX_ROWS);
        else snprintf(path, sizeof(path), "/memories?user_id=%s&top_k=%d", uid, MG_MEM0_MAX_ROWS);
        if (request(z, pc, "GET", path, NULL, false, &status, &resp, why, sizeof(why)) != 0) {
            fail(z, "listing the memories to delete", why, err);
            goto out;
        }
        if (mg_mem0_parse(resp.p ? resp.p : "", resp.len, &rows, &pe) != 0) {
            fail(z, "listing the memories to delete", pe.msg, err);
            goto out;
        }
        size_t deleted = 0;
        for (size_t i = 0; i < rows.n; i++) {
            const struct mg_mem0_row *w = &rows.v[i];
            if (!row_ours(w, uid, p) || (run_id && strcmp(w->session, run_id) != 0)) {
                (*foreign)++;
                continue;
            }
            snprintf(path, sizeof(path), "/memories/%s", w->id); /* id_ok: no '/', '?', '%' */
            if (request(z, pc, "DELETE", path, NULL, true, &status, &resp, why, sizeof(why)) != 0) {
                mg_mem0_rows_release(&rows);
                fail(z, "deleting a memory", why, err);
                goto out;
            }
            if (status != 404) deleted++; /* 404: gone already (a listing that keeps it ends the loop) */
        }
        mg_mem0_rows_release(&rows);
        *n += (int64_t)deleted;
        if (deleted == 0) {
            rc = 0;
            break;
        }
    }
    if (rc != 0) fail(z, "deleting the memories", "more rounds than allowed; run it again", err);
out:
    mg_buf_release(&resp);
    return rc;
}

static int z_project_create(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                            struct mg_err *err)
{
    struct mem0 *z = self;
    return mg_sessions_builtin_ops.project_create(z->builtin, pc, name, out, err);
}

static int z_project_list(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    struct mem0 *z = self;
    return mg_sessions_builtin_ops.project_list(z->builtin, pc, out, err);
}

static int z_project_join(void *self, const struct mg_pcall *pc, const char *session, const char *name,
                          struct mg_items *out, struct mg_err *err)
{
    struct mem0 *z = self;
    return mg_sessions_builtin_ops.project_join(z->builtin, pc, session, name, out, err);
}

/* The project's sessions' episodes go first (in Mem0), then the project:
 * its sessions, back in no project, must not bring them into the shared
 * pool. If Mem0 fails, the project stays. */
static int z_project_delete(void *self, const struct mg_pcall *pc, const char *name, struct mg_items *out,
                            struct mg_err *err)
{
    struct mem0 *z = self;
    pthread_rwlock_wrlock(&z->lock);
    struct place p;
    json_t *sess = NULL;
    int rc = -1;
    int64_t n = 0;
    size_t foreign = 0;
    if (mg__place_begin(pc, NULL, &p, err) != 0) goto out;
    int64_t pid = mg__project_id(&p, name, err);
    int r = pid ? pool_sessions(&p, pid, &sess, err) : -1;
    mg__place_end(&p);
    if (r != 0) goto out;
    char uid[36];
    user_id(pc->tenant, p.repo, uid);
    size_t i;
    json_t *v;
    json_array_foreach(sess, i, v) if (delete_rows(z, pc, &p, uid, json_string_value(v), &n, &foreign, err) != 0) goto out;
    if (mg_sessions_builtin_ops.project_delete(z->builtin, pc, name, out, err) != 0) goto out;
    for (i = 0; i < out->n; i++)
        if (out->v[i]->type == &mg_item_project_deleted) ((struct mg_project_deleted *)out->v[i])->episodes += n;
    out->foreign += foreign;
    if (foreign) out->foreign_kind = "episode";
    rc = 0;
out:
    pthread_rwlock_unlock(&z->lock);
    json_decref(sess);
    return rc;
}

static int z_forget(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    struct mem0 *z = self;
    if (pc->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "memory belongs to one repo and this request names %zu; pass "
                          "`repo`", pc->nrepos);
    pthread_rwlock_wrlock(&z->lock);
    struct place p = {.repo = &pc->repos[0], .tenant = pc->tenant};
    char uid[36];
    user_id(pc->tenant, p.repo, uid);
    int64_t n = 0;
    size_t foreign = 0;
    int rc = delete_rows(z, pc, &p, uid, NULL, &n, &foreign, err);
    if (rc == 0) rc = mg_sessions_builtin_ops.forget(z->builtin, pc, out, err);
    if (rc == 0) {
        out->total += n;
        out->foreign += foreign;
        if (foreign) out->foreign_kind = "episode";
    }
    pthread_rwlock_unlock(&z->lock);
    return rc;
}

/* ---- 6. the provider ---------------------------------------------------------------------------------- */

static void z_close(void *self)
{
    struct mem0 *z = self;
    if (!z) return;
    void *builtin = z->builtin;
    sodium_memzero(z->key, sizeof(z->key));
    pthread_rwlock_destroy(&z->lock);
    free(z);
    mg_sessions_builtin_ops.close(builtin);
}

static const struct mg_sessions_ops mem0_ops = {
    .remember = z_remember,
    .recall = z_recall,
    .project_create = z_project_create,
    .project_list = z_project_list,
    .project_join = z_project_join,
    .project_delete = z_project_delete,
    .forget = z_forget,
    .close = z_close,
};

int mg_mem0_open(const struct mg_config *cfg, struct mg_providers *p, struct mg_err *err)
{
    const char *u = cfg->mem0_url;
    size_t scheme = strncmp(u, "http://", 7) == 0 ? 7 : strncmp(u, "https://", 8) == 0 ? 8 : 0;
    if (!scheme)
        return mg_err_set(err, MG_E_CONFIG, "sessions_provider = mem0 needs mem0_url, the Mem0 REST server's "
                          "http:// or https:// base URL (e.g. http://localhost:8888)");
    size_t auth_end = strcspn(u + scheme, "/?#");
    if (memchr(u + scheme, '@', auth_end))
        return mg_err_set(err, MG_E_CONFIG, "mem0_url must not hold credentials; put the key in mem0_api_key");
    if (strpbrk(u, "?#") || strlen(u) >= sizeof(((struct mem0 *)0)->base))
        return mg_err_set(err, MG_E_CONFIG, "mem0_url must be a base URL without a query or fragment");
    for (const char *k = cfg->mem0_api_key; *k; k++)
        if (*k < 0x21 || *k > 0x7e) /* it goes in a header line: no spaces, controls or line breaks */
            return mg_err_set(err, MG_E_CONFIG, "mem0_api_key must be printable ASCII without spaces");
    struct mem0 *z = calloc(1, sizeof(*z));
    if (!z) return mg_err_oom(err);
    z->cfg = cfg;
    z->builtin = p->sessions.self;
    snprintf(z->base, sizeof(z->base), "%s", u);
    size_t bl = strlen(z->base);
    while (bl > scheme && z->base[bl - 1] == '/') z->base[--bl] = 0;
    snprintf(z->key, sizeof(z->key), "%s", cfg->mem0_api_key);
    z->timeout = cfg->mem0_timeout > 0 ? cfg->mem0_timeout : 10;
    pthread_rwlock_init(&z->lock, NULL);
    p->sessions = (struct mg_sessions_provider){&mem0_ops, z, PROVIDER};
    return 0;
}
