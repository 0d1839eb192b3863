/* inproc.h — an in-process memgate for tests: a server on a data directory
 * and tool calls through the same pipeline as the transports (a request
 * context per call, mg_tools_call), as one caller and one session. */
#ifndef MG_T_INPROC_H
#define MG_T_INPROC_H

#include <jansson.h>

#include "request/ctx.h"
#include "tools/tools.h"

struct mg_t_srv {
    struct mg_server srv;       /* its cfg may be changed between calls */
    struct mg_session *s;       /* the session of every call */
    struct mg_principal who;    /* the caller; change tenant, level, repos freely */
    const char *repo_header;    /* X-Memgate-Repo of every call, or NULL */
    const char *cwd;            /* the client's directory, or NULL */
};

/* Open a server on home (config defaults, audit on) with a session of kind
 * MG_SESSION_API, the caller `tenant` at `level`. FAILs on error. Do not
 * copy the struct (providers point into it). */
void mg_t_srv_open(struct mg_t_srv *t, const char *home, const char *tenant, int level);
/* The same as a long-lived server (`memgate serve`, `memgate mcp`): with
 * MG_SERVER_WATCH (the watch setting off: tests re-index themselves). */
void mg_t_srv_open_serving(struct mg_t_srv *t, const char *home, const char *tenant, int level);
void mg_t_srv_close(struct mg_t_srv *t);
/* The servers opened from now on in this test process keep what is shared
 * (storage) in `storage`, e.g. mg_t_pg_url()'s database; so do the memgate
 * processes MG_RUN starts (MEMGATE_STORAGE). NULL: back to the default. For
 * the "pg" variants of tests. */
void mg_t_srv_storage(const char *storage);
/* Servers opened after this use `embedder` and `model_file` (NULL: the
 * defaults), and so do the memgate processes started (MEMGATE_EMBEDDER,
 * MEMGATE_MODEL_FILE). */
void mg_t_srv_embedder(const char *embedder, const char *model_file);
/* Run tool with args (JSON text): the result (new reference), or NULL with
 * code (64 bytes) set to the error code and msg (1024 bytes, may be NULL)
 * to its sentence. */
json_t *mg_t_call(struct mg_t_srv *t, const char *tool, const char *args, char *code);
json_t *mg_t_call_msg(struct mg_t_srv *t, const char *tool, const char *args, char *code, char *msg);

#endif
