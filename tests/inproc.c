/* inproc.c — see inproc.h. */
#include "inproc.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"

static char storage[512];

void mg_t_srv_storage(const char *s)
{
    snprintf(storage, sizeof(storage), "%s", s ? s : "");
    if (s) setenv("MEMGATE_STORAGE", s, 1);
    else unsetenv("MEMGATE_STORAGE");
}

static char embedder[16], model_file[512];

void mg_t_srv_embedder(const char *e, const char *file)
{
    snprintf(embedder, sizeof(embedder), "%s", e ? e : "");
    snprintf(model_file, sizeof(model_file), "%s", file ? file : "");
    if (e) setenv("MEMGATE_EMBEDDER", e, 1);
    else unsetenv("MEMGATE_EMBEDDER");
    if (file) setenv("MEMGATE_MODEL_FILE", file, 1);
    else unsetenv("MEMGATE_MODEL_FILE");
}

static void srv_open(struct mg_t_srv *t, const char *home, const char *tenant, int level, unsigned flags)
{
    memset(t, 0, sizeof(*t));
    struct mg_config cfg;
    mg_t_config_defaults(&cfg);
    snprintf(cfg.home, sizeof(cfg.home), "%s", home);
    if (flags & MG_SERVER_WATCH) snprintf(cfg.watch, sizeof(cfg.watch), "off"); /* the test re-indexes */
    if (storage[0]) snprintf(cfg.storage, sizeof(cfg.storage), "%s", storage);
    if (embedder[0]) snprintf(cfg.embedder, sizeof(cfg.embedder), "%s", embedder);
    if (model_file[0]) snprintf(cfg.model_file, sizeof(cfg.model_file), "%s", model_file);
    struct mg_err err = {0};
    if (mg_server_open(&t->srv, &cfg, flags, &err) != 0) FAIL("server: %s", err.msg);
    t->s = mg_sessions_create(t->srv.sessions, MG_SESSION_API, NULL, NULL, tenant, &err);
    if (!t->s) FAIL("session: %s", err.msg);
    snprintf(t->who.tenant, sizeof(t->who.tenant), "%s", tenant);
    t->who.level = level;
}

void mg_t_srv_open(struct mg_t_srv *t, const char *home, const char *tenant, int level)
{
    srv_open(t, home, tenant, level, MG_SERVER_NO_TTL);
}

void mg_t_srv_open_serving(struct mg_t_srv *t, const char *home, const char *tenant, int level)
{
    srv_open(t, home, tenant, level, MG_SERVER_NO_TTL | MG_SERVER_WATCH);
}

void mg_t_srv_close(struct mg_t_srv *t)
{
    mg_session_unref(&t->s);
    mg_server_close(&t->srv);
}

json_t *mg_t_call_msg(struct mg_t_srv *t, const char *tool, const char *args, char *code, char *msg)
{
    const struct mg_tool *tl = mg_tool_find(tool);
    if (!tl) FAIL("no tool %s", tool);
    json_error_t je;
    json_t *a = json_loads(args, 0, &je);
    if (!a) FAIL("bad test JSON %s: %s", args, je.text);
    struct mg_request_spec spec = {.srv = &t->srv, .who = &t->who, .session = t->s, .repo_header = t->repo_header,
                                   .cwd = t->cwd, .op = tool};
    struct mg_ctx x;
    struct mg_err err = {0};
    if (mg_request_init(&x, &spec, &err) != 0) FAIL("request: %s", err.msg);
    json_t *r = NULL;
    int rc = mg_tools_call(&x, tl, a, &r, &err);
    json_decref(a);
    mg_request_release(&x);
    code[0] = 0;
    if (msg) msg[0] = 0;
    if (rc != 0) {
        if (r) FAIL("%s failed and still gave a result", tool);
        snprintf(code, 64, "%s", err.code ? err.code : "?");
        if (msg) snprintf(msg, 1024, "%s", err.msg);
        return NULL;
    }
    if (!r) FAIL("%s succeeded without a result", tool);
    return r;
}

json_t *mg_t_call(struct mg_t_srv *t, const char *tool, const char *args, char *code)
{
    return mg_t_call_msg(t, tool, args, code, NULL);
}
