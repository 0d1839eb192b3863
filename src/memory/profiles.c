/* profiles.c — the built-in profiles provider: an agent's preferences, per
 * agent_id, global to the tenant by design (the same in every repo and
 * project; docs/memory.md). */
#include "memory/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int p_save(void *self, const struct mg_pcall *pc, const char *agent, const char *key, const char *value,
                  struct mg_items *out, struct mg_err *err)
{
    struct place pl;
    if (mg__place_tenant(pc->cfg, pc->tenant, &pl, err) != 0) return -1;
    int rc = -1;
    if (mg_sql_runf(pl.db, NULL, err, "INSERT INTO profiles(tenant, agent_id, key, value, updated_at) "
                    "VALUES(?,?,?,?,?) ON CONFLICT(tenant, agent_id, key) DO UPDATE SET value = excluded.value,"
                    " updated_at = excluded.updated_at", "ssssi", pc->tenant, agent, key, value, mg__now_s()) == 0) {
        struct mg_pref *p = mg_items_add(out, &mg_item_pref);
        bool failed = !p;
        if (p) {
            mg__row_owner(&p->base, pc->tenant, "", "", 0);
            p->agent_id = mg_item_dup(agent, &failed);
            p->key = mg_item_dup(key, &failed);
            p->value = mg_item_dup(value, &failed);
        }
        rc = failed ? mg_err_oom(err) : 0;
    }
    mg__place_end(&pl);
    return rc;
}

static int p_get(void *self, const struct mg_pcall *pc, const char *agent, struct mg_items *out, struct mg_err *err)
{
    bool failed = false;
    struct mg_profile *pr = mg_items_add(out, &mg_item_profile);
    if (!pr) return mg_err_oom(err);
    mg__row_owner(&pr->base, pc->tenant, "", "", 0);
    pr->agent_id = mg_item_dup(agent, &failed);
    struct place pl;
    if (mg__place_tenant(pc->cfg, pc->tenant, &pl, err) != 0) return -1;
    int rc = -1;
    struct mg_sql_st *st;
    if (mg_sql_prepare(pl.db, "SELECT key, value, tenant FROM profiles WHERE agent_id = ? ORDER BY key", &st, err) == 0) {
        mg_sql_bind_text(st, 1, agent);
        int r = 0;
        while (!failed && (r = mg_sql_step(st, err)) == 1) {
            struct mg_pref *p = mg_items_add(out, &mg_item_pref);
            if (!p) {
                failed = true;
                break;
            }
            mg__row_owner(&p->base, mg_sql_text(st, 2), "", "", 0);
            p->agent_id = mg_item_dup(agent, &failed);
            p->key = mg_item_dup(mg_sql_text(st, 0), &failed);
            p->value = mg_item_dup(mg_sql_text(st, 1), &failed);
        }
        mg_sql_finalize(&st);
        rc = failed ? mg_err_oom(err) : r < 0 ? -1 : 0;
    }
    mg__place_end(&pl);
    return rc;
}

const struct mg_profiles_ops mg_profiles_builtin_ops = {
    .save = p_save,
    .get = p_get,
    .close = mg__mem_close,
};
