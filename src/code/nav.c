/* nav.c — the code provider's navigation operation (code.h): references,
 * callers, callees and call paths of search/nav.h over pcall's one repo and
 * scope, as items. */
#include "code/code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/walk.h"
#include "search/impact.h"
#include "search/nav.h"
#include "store/db.h"
#include "util/glob.h"


static int def_item(struct mg_items *out, const struct mg_repo *r, const struct mg_nav_def *d, const char *change)
{
    struct mg_nav_def_item *it = mg_items_add(out, &mg_item_nav_def);
    if (!it) return -1;
    bool failed = false;
    mg_code_owner(&it->base, r);
    it->repo = mg_item_dup(r->id, &failed);
    it->path = mg_item_dup(d->path, &failed);
    it->name = mg_item_dup(d->name, &failed);
    it->kind = mg_item_dup(d->kind, &failed);
    it->container = d->container ? mg_item_dup(d->container, &failed) : NULL;
    it->line = d->start_line;
    it->end_line = d->end_line;
    it->change = change ? mg_item_dup(change, &failed) : NULL;
    return failed ? -1 : 0;
}

static int ref_item(struct mg_items *out, const struct mg_repo *r, const struct mg_nav_site *s)
{
    struct mg_nav_ref_item *it = mg_items_add(out, &mg_item_nav_ref);
    if (!it) return -1;
    bool failed = false;
    mg_code_owner(&it->base, r);
    it->repo = mg_item_dup(r->id, &failed);
    it->path = mg_item_dup(s->path, &failed);
    it->line = s->line;
    it->text = mg_item_dup(s->text, &failed);
    it->call = s->call;
    if (s->in) {
        it->in_name = mg_item_dup(s->in->name, &failed);
        it->in_kind = mg_item_dup(s->in->kind, &failed);
        it->in_line = s->in->start_line;
    }
    return failed ? -1 : 0;
}

static int call_item(struct mg_items *out, const struct mg_repo *r, const struct mg_nav_edge *e, int64_t depth,
                     int64_t path_index)
{
    struct mg_nav_call_item *it = mg_items_add(out, &mg_item_nav_call);
    if (!it) return -1;
    bool failed = false;
    mg_code_owner(&it->base, r);
    it->repo = mg_item_dup(r->id, &failed);
    it->path = mg_item_dup(e->from->path, &failed);
    it->line = e->line;
    it->depth = depth;
    it->path_index = path_index;
    it->from_name = mg_item_dup(e->from->name, &failed);
    it->from_kind = mg_item_dup(e->from->kind, &failed);
    it->from_line = e->from->start_line;
    it->callee = mg_item_dup(e->callee, &failed);
    it->to_line = MG_INT_NULL;
    if (e->to) {
        it->to_path = mg_item_dup(e->to->path, &failed);
        it->to_kind = mg_item_dup(e->to->kind, &failed);
        it->to_line = e->to->start_line;
    }
    it->confidence = mg_item_dup(e->confidence, &failed);
    return failed ? -1 : 0;
}

static struct mg_nav_summary *summary(struct mg_items *out, const struct mg_repo *r, const char *symbol, bool *failed)
{
    struct mg_nav_summary *it = mg_items_add(out, &mg_item_nav_summary);
    if (!it) {
        *failed = true;
        return NULL;
    }
    mg_code_owner(&it->base, r);
    it->repo = mg_item_dup(r->id, failed);
    it->symbol = mg_item_dup(symbol, failed);
    return it;
}

static int impact_items(struct mg_items *out, const struct mg_repo *r, const struct mg_impact *im)
{
    bool failed = false;
    for (size_t i = 0; i < im->nchanged && !failed; i++)
        failed = def_item(out, r, &im->changed[i].d, im->changed[i].change) != 0;
    for (size_t i = 0; i < im->n && !failed; i++) {
        const struct mg_impact_hit *h = &im->v[i];
        struct mg_nav_impact_item *it = mg_items_add(out, &mg_item_nav_impact);
        if (!it) return -1;
        mg_code_owner(&it->base, r);
        it->repo = mg_item_dup(r->id, &failed);
        it->path = mg_item_dup(h->d.path, &failed);
        it->name = mg_item_dup(h->d.name, &failed);
        it->kind = mg_item_dup(h->d.kind, &failed);
        it->container = h->d.container ? mg_item_dup(h->d.container, &failed) : NULL;
        it->line = h->d.start_line;
        it->end_line = h->d.end_line;
        it->depth = h->depth;
        it->score = h->score;
        it->calls = mg_item_dup(h->calls, &failed);
        it->call_line = h->call_line;
        it->confidence = mg_item_dup(h->confidence, &failed);
    }
    for (size_t i = 0; i < im->nskipped && !failed; i++) {
        struct mg_nav_skip_item *it = mg_items_add(out, &mg_item_nav_skip);
        if (!it) return -1;
        mg_code_owner(&it->base, r);
        it->repo = mg_item_dup(r->id, &failed);
        it->path = mg_item_dup(im->skipped[i].path, &failed);
        it->reason = mg_item_dup(im->skipped[i].reason, &failed);
    }
    return failed ? -1 : 0;
}

/* The change an impact names, parsed: paths, a diff, or revisions (git). */
static int change_of(const struct mg_repo *r, const struct mg_nav_query *q, struct mg_diff *diff, char **text,
                     struct mg_err *err)
{
    *text = NULL;
    int given = (q->npaths > 0) + (q->diff != NULL) + (q->revisions != NULL);
    if (given != 1)
        return mg_err_set(err, MG_E_BAD_ARG, "name the change with exactly one of paths, diff or revisions");
    if (q->npaths) return mg_diff_of_paths(q->paths, q->npaths, diff, err);
    if (q->diff) return mg_diff_parse(q->diff, strlen(q->diff), diff, err);
    size_t len;
    char prefix[PATH_MAX];
    if (mg_walk_diff(r->root, q->revisions, MG_DIFF_MAX_BYTES, text, &len, prefix, err) != 0) return -1;
    if (len == 0) { /* no change: nothing to parse */
        memset(diff, 0, sizeof(*diff));
        return 0;
    }
    if (mg_diff_parse(*text, len, diff, err) != 0) return -1;
    mg_diff_within(diff, prefix);
    return 0;
}

static int run(struct mg_db *d, const struct mg_filter *f, const struct mg_repo *r, const struct mg_nav_query *q,
               double deadline, struct mg_items *out, struct mg_err *err)
{
    bool failed = false;
    size_t limit = q->limit > 0 ? (size_t)q->limit : 50;
    if (strcmp(q->op, "references") == 0) {
        struct mg_nav_refs res;
        if (mg_nav_references(d, f, q->symbol, q->cursor, limit, deadline, &res, err) != 0) return -1;
        for (size_t i = 0; i < res.ndefs && !failed; i++) failed = def_item(out, r, &res.defs[i], NULL) != 0;
        for (size_t i = 0; i < res.n && !failed; i++) failed = ref_item(out, r, &res.v[i]) != 0;
        struct mg_nav_summary *s = failed ? NULL : summary(out, r, q->symbol, &failed);
        if (s) {
            s->total = (int64_t)res.total;
            s->candidate_files = (int64_t)res.candidate_files;
            s->next_cursor = res.next_cursor ? mg_item_dup(res.next_cursor, &failed) : NULL;
            s->complete = res.complete;
            s->truncated = res.truncated;
        }
        mg_nav_refs_release(&res);
        return failed ? mg_err_oom(err) : 0;
    }
    if (strcmp(q->op, "impact") == 0) {
        struct mg_diff diff;
        char *text = NULL;
        if (change_of(r, q, &diff, &text, err) != 0) {
            free(text);
            return -1;
        }
        struct mg_impact im;
        int rc = mg_nav_impact(d, f, &diff, q->depth, limit, deadline, &im, err);
        mg_diff_release(&diff);
        free(text);
        if (rc != 0) return -1;
        failed = impact_items(out, r, &im) != 0;
        struct mg_nav_summary *s = failed ? NULL : summary(out, r, "", &failed);
        if (s) {
            s->total = (int64_t)im.total;
            s->complete = !im.truncated && im.n == im.total;
            s->truncated = im.truncated;
        }
        mg_impact_release(&im);
        return failed ? mg_err_oom(err) : 0;
    }
    if (strcmp(q->op, "trace") == 0) {
        struct mg_nav_paths p;
        if (mg_nav_trace(d, f, q->symbol, q->to, q->depth, limit, deadline, &p, err) != 0) return -1;
        for (size_t i = 0; i < p.g.ndefs && !failed; i++) failed = def_item(out, r, p.g.defs[i], NULL) != 0;
        for (size_t i = 0; i < p.n && !failed; i++)
            for (size_t k = 0; k < p.len[i] && !failed; k++)
                failed = call_item(out, r, &p.paths[i][k], (int64_t)k + 1, (int64_t)i) != 0;
        struct mg_nav_summary *s = failed ? NULL : summary(out, r, q->symbol, &failed);
        if (s) {
            s->total = (int64_t)p.n;
            s->visited = (int64_t)p.visited;
            s->complete = !p.truncated;
            s->truncated = p.truncated;
        }
        mg_nav_paths_release(&p);
        return failed ? mg_err_oom(err) : 0;
    }
    bool callers = strcmp(q->op, "callers") == 0;
    if (!callers && strcmp(q->op, "callees") != 0)
        return mg_err_set(err, MG_E_BAD_ARG, "unknown navigation '%s'", q->op);
    /* a page: the walk finds the first offset + limit calls (in a stable order), the page is the last limit */
    size_t offset = q->cursor ? (size_t)strtoull(q->cursor, NULL, 10) : 0;
    struct mg_nav_graph g;
    if ((callers ? mg_nav_callers : mg_nav_callees)(d, f, q->symbol, q->depth, offset + limit, deadline, &g, err) != 0)
        return -1;
    for (size_t i = 0; i < g.ndefs && !failed; i++) failed = def_item(out, r, g.defs[i], NULL) != 0;
    for (size_t i = offset; i < g.n && !failed; i++) failed = call_item(out, r, &g.v[i], g.v[i].depth, 0) != 0;
    struct mg_nav_summary *s = failed ? NULL : summary(out, r, q->symbol, &failed);
    if (s) {
        s->total = (int64_t)g.total;
        s->complete = !g.truncated;
        s->truncated = g.truncated;
    }
    mg_nav_graph_release(&g);
    return failed ? mg_err_oom(err) : 0;
}

int mg_code_nav(void *self_, const struct mg_pcall *pc, const struct mg_nav_query *q, struct mg_items *out,
                struct mg_err *err)
{
    struct mg_code_self *self = self_;
    if (pc->nrepos != 1) return mg_err_set(err, MG_E_INTERNAL, "navigation runs on one repo");
    const struct mg_repo *r = &pc->repos[0];
    struct mg_filter f;
    if (mg_code_filter(pc, &f, err) != 0) return -1;
    struct mg_db *d = NULL;
    int rc = mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err);
    if (rc == 0) {
        rc = run(d, &f, r, q, (double)pc->deadline_ms, out, err); /* no deadline: node caps and pages bound it */
        mg_db_put(self->pool, &d);
    }
    mg_globset_free(&f.globs);
    return rc;
}
