/* repomap.c — the code provider's repo map operation (code.h): search/
 * repomap.h over pcall's one repo and scope, as items. */
#include "code/code.h"

#include <stdlib.h>
#include <string.h>

#include "search/repomap.h"
#include "store/db.h"
#include "util/glob.h"


static int items(const struct mg_repo *r, const struct mg_repomap_query *q, const struct mg_repomap *m,
                 struct mg_items *out, struct mg_err *err)
{
    bool failed = false;
    for (size_t i = 0; i < m->n && !failed; i++) {
        const struct mg_repomap_file *f = &m->files[i];
        struct mg_repomap_file_item *fi = mg_items_add(out, &mg_item_repomap_file);
        if (!fi) return mg_err_oom(err);
        mg_code_owner(&fi->base, r);
        fi->repo = mg_item_dup(r->id, &failed);
        fi->path = mg_item_dup(f->path, &failed);
        fi->language = mg_item_dup(f->lang, &failed);
        fi->rank = f->rank;
        for (size_t k = 0; k < f->ndefs && !failed; k++) {
            const struct mg_repomap_def *d = &f->defs[k];
            struct mg_repomap_def_item *di = mg_items_add(out, &mg_item_repomap_def);
            if (!di) return mg_err_oom(err);
            mg_code_owner(&di->base, r);
            di->repo = mg_item_dup(r->id, &failed);
            di->path = mg_item_dup(f->path, &failed);
            di->name = mg_item_dup(d->name, &failed);
            di->kind = mg_item_dup(d->kind, &failed);
            di->line = d->line;
            di->end_line = d->end_line;
            di->score = d->score;
            di->text = d->text ? mg_item_dup(d->text, &failed) : NULL;
        }
    }
    struct mg_repomap_summary *s = failed ? NULL : mg_items_add(out, &mg_item_repomap_summary);
    if (!s) return mg_err_oom(err);
    mg_code_owner(&s->base, r);
    s->repo = mg_item_dup(r->id, &failed);
    s->budget_tokens = q->budget_tokens;
    s->tokens = m->tokens;
    s->files = (int64_t)m->n;
    s->considered = (int64_t)m->considered;
    s->cached = m->cached;
    s->stale = m->stale;
    s->truncated = m->truncated;
    return failed ? mg_err_oom(err) : 0;
}

int mg_code_repomap(void *self_, const struct mg_pcall *pc, const struct mg_repomap_query *q, struct mg_items *out,
                    struct mg_err *err)
{
    struct mg_code_self *self = self_;
    if (pc->nrepos != 1) return mg_err_set(err, MG_E_INTERNAL, "the repo map runs on one repo");
    const struct mg_repo *r = &pc->repos[0];
    struct mg_filter f;
    if (mg_code_filter(pc, &f, err) != 0) return -1;
    /* a server answers from the last graph while the index's new one is built; a command waits */
    struct mg_repomap_in in = {q->budget_tokens, q->focus_files, q->nfocus_files, q->focus_symbols,
                               q->nfocus_symbols, self->serving};
    struct mg_db *d = NULL;
    int rc = mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err);
    if (rc == 0) {
        struct mg_repomap m;
        rc = mg_repomap(d, &f, &in, &m, err);
        mg_db_put(self->pool, &d);
        if (rc == 0) {
            rc = items(r, q, &m, out, err);
            mg_repomap_release(&m);
        }
    }
    mg_globset_free(&f.globs);
    return rc;
}
