/* server.c — see server.h. */
#include "request/server.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code/code.h"
#include "memory/mem0.h"
#include "memory/memory.h"
#include "code/mcpcode.h"
#include "util/mcpc.h"
#include "request/gate.h"
#include "request/storage.h"
#include "security/audit.h"
#include "security/token.h"
#include "store/pg.h"
#include "util/admit.h"

static void close_providers(struct mg_providers *p)
{
    if (p->code.ops) p->code.ops->close(p->code.self);
    if (p->notes.ops) p->notes.ops->close(p->notes.self);
    if (p->sessions.ops) p->sessions.ops->close(p->sessions.self);
    if (p->entities.ops) p->entities.ops->close(p->entities.self);
    if (p->profiles.ops) p->profiles.ops->close(p->profiles.self);
    for (int i = 0; i < p->next_code; i++)
        if (p->ext_code[i].ops) p->ext_code[i].ops->close(p->ext_code[i].self);
    memset(p, 0, sizeof(*p));
}

/* the watcher's runs reach on_indexed as the tools' do (gate.c); it is set after the watcher starts. A run
 * that found nothing new (an edit another run indexed first) tells a listener nothing. */
static void watch_ran(void *arg, const char *tenant, const char *repo, long long files, long long changed)
{
    struct mg_server *srv = arg;
    if (changed == 0) return;
    void (*f)(const char *, const char *, long long, long long) = __atomic_load_n(&srv->on_indexed, __ATOMIC_ACQUIRE);
    if (f) f(tenant, repo, files, changed);
}

int mg_server_open(struct mg_server *srv, const struct mg_config *cfg, unsigned flags, struct mg_err *err)
{
    memset(srv, 0, sizeof(*srv));
    srv->cfg = *cfg;
    /* A daemon's large blocks (a file's text, a search's lists) are mapped and unmapped: glibc would
     * otherwise raise its threshold as they are freed and keep them in the arena of whichever of the
     * many request threads freed them (a served kernel: 530 -> 411 MB anonymous under load). Fixing it
     * also fixes the trim threshold, at 128 KiB: the arenas gave the top of their heap back after
     * nearly every search (its lists are up to 640 KB) and faulted it in again in the next, two page
     * faults a call and their TLB shootdowns, ~20% of a call's system time; 4 MiB keeps that much */
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 4 * 1024 * 1024);
    int64_t ttl = flags & MG_SERVER_NO_TTL ? 0 : (int64_t)cfg->session_ttl * 1000;
    if (!(srv->sessions = mg_sessions_new(ttl))) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the session registry");
        goto fail;
    }
    /* several daemons on one PostgreSQL: the sessions clients name by id live there (session.h) */
    if (mg_pg_configured(&srv->cfg)) {
        mg_sessions_share(srv->sessions, &srv->cfg);
        if (!(srv->storage = mg_storage_probe_new(&srv->cfg))) {
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the storage probe");
            goto fail;
        }
    }
    const struct mg_watch_hook hook = {.ran = watch_ran, .arg = srv};
    if (mg_code_builtin_open(&srv->cfg, flags & MG_SERVER_WATCH ? &hook : NULL, &srv->providers.code, err) != 0 ||
        mg_memory_builtin_open(&srv->cfg, &srv->providers, err) != 0 || mg_audit_open(&srv->cfg, &srv->audit, err) != 0)
        goto fail;
    /* session memory: the built-in, or Mem0 in front of it (issue 21, part mem0) */
    if (strcmp(srv->cfg.sessions_provider, "mem0") == 0) {
        if (mg_mem0_open(&srv->cfg, &srv->providers, err) != 0) goto fail;
    } else if (strcmp(srv->cfg.sessions_provider, "builtin") != 0) {
        mg_err_set(err, MG_E_CONFIG, "sessions_provider must be builtin or mem0, not '%.32s'",
                   srv->cfg.sessions_provider);
        goto fail;
    }
    if (srv->cfg.n_mcp_providers > 0 && mg_mcpc_depth() > 0) { /* started as a provider itself: no loops */
        fprintf(stderr, "memgate: note: started as another memgate's MCP provider (MEMGATE_PROVIDER_DEPTH): its "
                        "own mcp_provider entries are not used\n");
        srv->cfg.n_mcp_providers = 0;
    }
    for (int i = 0; i < srv->cfg.n_mcp_providers; i++) { /* started on first use */
        if (mg_mcp_code_open(&srv->cfg, i, &srv->providers.ext_code[i], err) != 0) goto fail;
        srv->providers.next_code = i + 1;
        snprintf(srv->ext_op_names[i], sizeof(srv->ext_op_names[i]), "mcp.%s", srv->cfg.mcp_providers[i].name);
    }
    if (srv->cfg.search_concurrency > 0 &&
        !(srv->reads = mg_admit_new((unsigned)srv->cfg.search_concurrency, MG_READ_LONG_MS))) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the read queue");
        goto fail;
    }
    if (!(srv->refusals = mg_refusals_new())) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory creating the refusal table");
        goto fail;
    }
    if (flags & MG_SERVER_TOKENS) {
        if (mg_tokens_open(&srv->cfg, &srv->tokens, err) != 0) goto fail;
        if (mg_ratelimit_open(&srv->cfg, &srv->ratelimit, err) != 0) goto fail;
    }
    return 0;
fail:
    mg_server_close(srv);
    return -1;
}

void mg_server_close(struct mg_server *srv)
{
    mg_ratelimit_free(srv->ratelimit);
    mg_tokens_close(srv->tokens);
    mg_refusals_free(srv); /* writes the counts it holds */
    mg_audit_close(srv->audit);
    close_providers(&srv->providers);
    mg_sessions_free(&srv->sessions);
    mg_storage_probe_free(srv->storage);
    mg_admit_free(srv->reads);
    srv->reads = NULL;
    srv->storage = NULL;
    srv->ratelimit = NULL;
    srv->tokens = NULL;
    srv->audit = NULL;
    srv->sessions = NULL;
}
