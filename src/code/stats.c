/* stats.c — the code provider's stats and settings operations (code.h):
 * a repo's meta rows, read through the provider's pool of read handles, and
 * its settings, written through a handle of their own. */
#include "code/code.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store/db.h"
#include "store/repostate.h"


/* -1 (repostate.h's unknown) as the renderer's null. */
static int64_t known(int64_t v) { return v < 0 ? MG_INT_NULL : v; }

static int settings_item(struct mg_items *out, const struct mg_repo *r, const struct mg_repo_settings *s,
                         const struct mg_config *cfg, struct mg_err *err)
{
    struct mg_repo_setting_item *it = mg_items_add(out, &mg_item_repo_settings);
    if (!it) return mg_err_oom(err);
    bool failed = false;
    mg_code_owner(&it->base, r);
    it->watch = mg_item_dup(s->watch, &failed);
    it->watch_effective = mg_item_dup(mg_settings_watch_on(s, cfg) ? "on" : "off", &failed);
    it->reindex_interval = s->reindex_interval;
    it->pull_on_push = mg_item_dup(s->pull_on_push ? "on" : "off", &failed);
    return failed ? mg_err_oom(err) : 0;
}

static int stats_item(struct mg_items *out, const struct mg_repo *r, const struct mg_repo_state *st,
                      struct mg_err *err)
{
    struct mg_repo_stats *it = mg_items_add(out, &mg_item_repo_stats);
    if (!it) return mg_err_oom(err);
    if (mg_code_repo_info(&it->info, r, err) != 0) return -1;
    bool failed = false;
    it->vectors = known(st->vectors);
    it->full_index_at = known(st->full_at);
    it->full_index_ms = known(st->full_ms);
    it->incr_index_at = known(st->incr_at);
    it->incr_index_ms = known(st->incr_ms);
    it->pending_changes = known(st->pending);
    it->watch_state = mg_item_dup(st->watch_state, &failed);
    it->watch_count = st->watch_count;
    it->secrets_redacted = st->redactions;
    it->last_error = st->last_error[0] ? mg_item_dup(st->last_error, &failed) : NULL;
    it->last_error_at = known(st->last_error_at);
    it->index_busy = st->busy;
    it->vectors_warning = st->vectors_warning[0] ? mg_item_dup(st->vectors_warning, &failed) : NULL;
    return failed ? mg_err_oom(err) : 0;
}

int mg_code_stats(void *self_, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err)
{
    struct mg_code_self *self = self_;
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < pc->nrepos; i++) {
        const struct mg_repo *r = &pc->repos[i];
        struct mg_db *d = NULL;
        struct mg_repo_state st;
        int rc = 0;
        if (mg_repo_has_index(r)) {
            if (mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err) != 0) return -1;
            rc = mg_repo_state_read(d, r->dbpath, now, &st, err);
            mg_db_put(self->pool, &d);
        } else { /* in the shared catalog, no index here (yet): what the catalog says, the rest unknown */
            mg_repo_state_unknown(&st);
            st.settings = r->settings;
        }
        if (rc != 0 || stats_item(out, r, &st, err) != 0 || settings_item(out, r, &st.settings, pc->cfg, err) != 0)
            return -1;
    }
    return 0;
}

int mg_code_settings(void *self_, const struct mg_pcall *pc, const struct mg_settings_query *q, struct mg_items *out,
                     struct mg_err *err)
{
    struct mg_code_self *self = self_;
    if (pc->nrepos != 1) return mg_err_set(err, MG_E_REPO_REQUIRED, "settings belong to one repo; name it");
    const struct mg_repo *r = &pc->repos[0];
    struct mg_db *d = NULL;
    /* (shared catalog: written there, and into the local index when there is one) */
    if (q && q->n > 0 && mg_catalog_settings_write(pc->cfg, r, q->v, q->n, err) != 0) return -1;
    if (mg_catalog_shared(pc->cfg)) { /* the catalog's settings are the repo's */
        struct mg_repo now;
        if (mg_catalog_get(pc->cfg, r->id, &now, err) != 0) return -1;
        return settings_item(out, r, &now.settings, pc->cfg, err);
    }
    struct mg_repo_settings s;
    if (mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err) != 0) return -1;
    int rc = mg_settings_read(d, &s, err);
    mg_db_put(self->pool, &d);
    if (rc != 0) return -1;
    return settings_item(out, r, &s, pc->cfg, err);
}
