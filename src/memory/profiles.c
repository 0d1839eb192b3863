/* profiles.c — the built-in profiles provider: an agent's preferences, per
 * agent_id, global to the tenant by design (the same in every repo and
 * project; docs/memory.md). */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(struct mg_err *err) { return mg_err_set(err, MG_E_NO_MEMORY, "out of memory"); }

static int p_save(void *self, const struct mg_pcall *pc, const char *agent, const char *key, const char *value,
                  struct mg_items *out, struct mg_err *err)
{
    struct mem *m = mg_mem_get(pc->cfg, pc->tenant, err);
    if (!m) return -1;
    int rc = -1;
    pthread_mutex_lock(&m->mu);
    sqlite3_stmt *st;
    if (mg_mem_prep(m, "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) VALUES(?,?,?,?,?) "
                       "ON CONFLICT(agent_id, key) DO UPDATE SET tenant = excluded.tenant, value = excluded.value,"
                       " updated_at = excluded.updated_at", &st, err) == 0) {
        sqlite3_bind_text(st, 1, pc->tenant, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, agent, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, value, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, mg_now_s());
        if (sqlite3_step(st) == SQLITE_DONE) {
            struct mg_pref *p = mg_items_add(out, &mg_item_pref);
            bool failed = !p;
            if (p) {
                mg_row_owner(&p->base, pc->tenant, "", "", 0);
                p->agent_id = mg_item_dup(agent, &failed);
                p->key = mg_item_dup(key, &failed);
                p->value = mg_item_dup(value, &failed);
            }
            rc = failed ? oom(err) : 0;
        } else {
            mg_mem_fail(m, "store the preference", err);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static int p_get(void *self, const struct mg_pcall *pc, const char *agent, struct mg_items *out, struct mg_err *err)
{
    struct mem *m = mg_mem_get(pc->cfg, pc->tenant, err);
    if (!m) return -1;
    int rc = -1;
    bool failed = false;
    struct mg_profile *pr = mg_items_add(out, &mg_item_profile);
    if (!pr) return oom(err);
    mg_row_owner(&pr->base, pc->tenant, "", "", 0);
    pr->agent_id = mg_item_dup(agent, &failed);
    pthread_mutex_lock(&m->mu);
    sqlite3_stmt *st;
    if (mg_mem_prep(m, "SELECT key, value, tenant FROM profiles WHERE agent_id = ? ORDER BY key", &st, err) == 0) {
        sqlite3_bind_text(st, 1, agent, -1, SQLITE_STATIC);
        while (!failed && sqlite3_step(st) == SQLITE_ROW) {
            struct mg_pref *p = mg_items_add(out, &mg_item_pref);
            if (!p) {
                failed = true;
                break;
            }
            mg_row_owner(&p->base, mg_col(st, 2), "", "", 0);
            p->agent_id = mg_item_dup(agent, &failed);
            p->key = mg_item_dup(mg_col(st, 0), &failed);
            p->value = mg_item_dup(mg_col(st, 1), &failed);
        }
        sqlite3_finalize(st);
        rc = failed ? oom(err) : 0;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

const struct mg_profiles_ops mg_profiles_builtin_ops = {
    .save = p_save,
    .get = p_get,
    .close = mg_mem_close,
};
