/* mcpcode.c — see mcpcode.h. */
#include "code/mcpcode.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index/walk.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/mcpc.h"
#include "util/mcpmap.h"

struct mcpcode {
    const struct mg_mcp_provider_cfg *cfg; /* in the server's config */
    int idx;                               /* its index there */
    struct mg_mcpc *client;
    struct mg_mcpmap map;
};

/* What one call collects. */
struct collect {
    const struct mcpcode *m;
    const struct mg_pcall *pc;
    const struct mg_repo *repo;
    const char *root;          /* the root, resolved */
    size_t root_len;
    struct mg_globset *scope;  /* NULL: every path */
    bool langs;                /* the scope filters languages: no external hit passes */
    struct mg_items *out;
    bool failed;
};

/* The path relative to the root when it names a regular file inside it
 * (out, cap bytes); false otherwise. */
static bool relative_path(const struct collect *c, const char *path, size_t len, char *out, size_t cap)
{
    if (len == 0 || len >= PATH_MAX || memchr(path, 0, len)) return false;
    if (len > 7 && strncmp(path, "file://", 7) == 0) path += 7, len -= 7;
    char joined[PATH_MAX * 2 + 2], real[PATH_MAX];
    if (path[0] == '/') snprintf(joined, sizeof(joined), "%.*s", (int)len, path);
    else snprintf(joined, sizeof(joined), "%s/%.*s", c->root, (int)len, path);
    if (!realpath(joined, real)) return false;
    size_t rl = strlen(real);
    if (rl <= c->root_len + 1 || strncmp(real, c->root, c->root_len) != 0 || real[c->root_len] != '/') return false;
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    const char *rel = real + c->root_len + 1;
    /* what the index never opens is never served from elsewhere: secret files, git's own */
    if (mg_is_secret_name(mg_base_name(rel)) || strncmp(rel, ".git/", 5) == 0 || strstr(rel, "/.git/")) return false;
    snprintf(out, cap, "%s", rel);
    return true;
}

static void on_hit(void *ud, const struct mg_mcpmap_hit *h)
{
    struct collect *c = ud;
    char rel[PATH_MAX];
    if (!relative_path(c, h->path, h->path_len, rel, sizeof(rel)) || c->langs ||
        (c->scope && !mg_globset_allows(c->scope, rel, strlen(rel)))) {
        c->out->ext_dropped++;
        return;
    }
    struct mg_code_hit *it = mg_items_add(c->out, &mg_item_code_hit);
    if (!it) {
        c->failed = true;
        return;
    }
    snprintf(it->base.own.tenant, sizeof(it->base.own.tenant), "%s", c->repo->tenant);
    snprintf(it->base.own.repo, sizeof(it->base.own.repo), "%s", c->repo->id);
    snprintf(it->base.own.fp, sizeof(it->base.own.fp), "%s", c->repo->fingerprint);
    bool f = false;
    it->repo = mg_item_dup(c->repo->id, &f);
    it->path = mg_item_dup(rel, &f);
    it->provider = mg_item_dup(c->m->cfg->name, &f);
    if (h->text) it->snippet = mg_item_dupn(h->text, h->text_len, &f);
    int64_t s = h->start_line > 0 ? h->start_line : h->line > 0 ? h->line : 1;
    int64_t e = h->end_line >= s ? h->end_line : s;
    it->start_line = s;
    it->end_line = e;
    it->line = h->line >= s && h->line <= e ? h->line : s;
    it->snippet_line = s;
    it->score = h->has_score ? (double)(long long)(h->score * 1000 + (h->score < 0 ? -0.5 : 0.5)) / 1000 : 0;
    if (f) c->failed = true;
}

static int mc_search(void *self, const struct mg_pcall *pc, const struct mg_code_query *q, struct mg_items *out,
                     struct mg_err *err)
{
    struct mcpcode *m = self;
    double t0 = mg_clock_ms();
    struct mg_globset *scope = NULL;
    if (mg_globset_new((const char *const *)pc->scope->globs, pc->scope->nglobs,
                       (const char *const *)pc->scope->excludes, pc->scope->nexcludes, &scope, err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < pc->nrepos && rc == 0; i++) {
        const struct mg_repo *r = &pc->repos[i];
        if (!mg_mcp_provider_serves(pc->cfg, m->idx, r->id)) continue; /* never asked about another repo */
        char root[PATH_MAX];
        if (!realpath(r->root, root)) {
            rc = mg_err_set(err, MG_E_PROVIDER_UNAVAILABLE, "the root of repo %s cannot be resolved", r->id);
            break;
        }
        json_t *args = mg_mcpmap_arguments(m->cfg->arguments[0] ? m->cfg->arguments : "{\"query\":\"{query}\"}",
                                           q->query, q->limit > 0 ? q->limit : 20, r->root, r->id);
        if (!args) {
            rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory making the tool's arguments");
            break;
        }
        json_t *res = NULL;
        rc = mg_mcpc_call(m->client, m->cfg->tool, args, pc->deadline_ms, &res, err);
        json_decref(args);
        if (rc != 0) break;
        struct collect c = {m, pc, r, root, strlen(root), scope, pc->scope->nlangs > 0, out, false};
        size_t over = 0, max = (size_t)m->cfg->max_items;
        if (q->limit > 0 && (size_t)q->limit < max) max = (size_t)q->limit;
        size_t before = out->n + (size_t)out->ext_dropped;
        rc = mg_mcpmap_hits(&m->map, res, max, &over, on_hit, &c, err);
        json_decref(res);
        /* the hits it answered, past max too (out->total: -1 until the first repo's call) */
        out->total = (out->total > 0 ? out->total : 0) + (int64_t)(out->n + (size_t)out->ext_dropped - before + over);
        if (rc == 0 && c.failed) rc = mg_err_oom(err);
    }
    mg_globset_free(&scope);
    out->took_ms = mg_clock_ms() - t0;
    return rc;
}

static void mc_close(void *self)
{
    struct mcpcode *m = self;
    if (!m) return;
    mg_mcpc_free(m->client);
    free(m);
}

static const struct mg_code_ops mcp_code_ops = {.search = mc_search, .close = mc_close};

int mg_mcp_code_open(const struct mg_config *cfg, int i, struct mg_code_provider *out, struct mg_err *err)
{
    memset(out, 0, sizeof(*out));
    const struct mg_mcp_provider_cfg *p = &cfg->mcp_providers[i];
    struct mcpcode *m = calloc(1, sizeof(*m));
    if (!m) return mg_err_oom(err);
    m->cfg = p;
    m->idx = i;
    char what[96];
    snprintf(what, sizeof(what), "mcp_provider.%s.result", p->name);
    if (mg_mcpmap_parse(p->result, &m->map, what, err) != 0) {
        free(m);
        return -1;
    }
    char logs[PATH_MAX + 8];
    snprintf(logs, sizeof(logs), "%s/logs", cfg->home);
    mkdir(cfg->home, 0700);
    bool have_logs = mkdir(logs, 0700) == 0 || errno == EEXIST;
    if (!(m->client = mg_mcpc_new(p, have_logs ? logs : NULL))) {
        free(m);
        return mg_err_oom(err);
    }
    out->ops = &mcp_code_ops;
    out->self = m;
    snprintf(out->name, sizeof(out->name), "%s", p->name);
    return 0;
}
