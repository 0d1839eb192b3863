/* cmd_mcp.c — `memgate mcp`: MCP over stdio for one client. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cli/cli.h"
#include "mcp/conn.h"
#include "mcp/listen.h"
#include "mcp/rpc.h"
#include "mcp/stdio.h"
#include "mcp/tasks.h"
#include "request/resolve.h"
#include "request/server.h"

static const char *HELP =
    "usage: memgate mcp [--repo PATH|ID]\n"
    "\n"
    "Serve the Model Context Protocol over stdin/stdout to one client: the\n"
    "handshake versions 2025-03-26, 2025-06-18 and 2025-11-25 (initialize) and\n"
    "the stateless 2026-07-28 (each request states its version in _meta). Each\n"
    "process is its own instance and session; nothing is shared with other\n"
    "clients but the index.\n"
    "\n"
    "The session's repo: the `repo` argument of a call wins; else --repo; else the\n"
    "client's first root (asked with roots/list when the client has roots, or\n"
    "rootUri/rootPath in initialize), indexed on first use if it is not yet; else\n"
    "the indexed repo holding the directory memgate mcp runs in; else the only\n"
    "indexed repo; else calls fail with repo_required and the list of ids.\n"
    "\n"
    "While it runs, the indexes follow the files: a watcher re-indexes what changes\n"
    "(config watch, watch_poll_interval; docs/index.md). One process watches a repo.\n"
    "\n"
    "options:\n"
    "  --repo PATH|ID  bind this session to a repo: an indexed repo's id, or a\n"
    "                  directory (indexed on first use if needed)\n"
    "  -h, --help      this help\n"
    "\n"
    "environment:\n"
    "  MEMGATE_INSTANCE_ID  name this instance (default: a random id)\n"
    "  MEMGATE_VERBOSE=1    add _meta {instance, session, repo, time} to tool results\n"
    "\n"
    "Client set-up (Claude Code): claude mcp add memgate -- memgate mcp\n"
    "Logs go to stderr; stdout carries only protocol messages.\n";

int mg_cmd_mcp(int argc, char **argv)
{
    static const struct option opts[] = {{"repo", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *repo = NULL;
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': repo = optarg; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("mcp", argc, argv, opts);
        }
    }
    if (optind < argc) return mg_cli_usage("mcp", "unexpected argument '%s'", argv[optind]);

    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0};
    struct mg_server srv;
    if (mg_server_open(&srv, &cfg, MG_SERVER_NO_TTL | MG_SERVER_WATCH, &err) != 0) return mg_cli_fail(&err);
    /* subscriptions/listen streams hear of index runs (the watcher's thread reads it: atomic) */
    __atomic_store_n(&srv.on_indexed, mg_listen_index_changed, __ATOMIC_RELEASE);
    const char *v = getenv("MEMGATE_VERBOSE");
    srv.verbose = v && strcmp(v, "1") == 0;
    const char *inst = getenv("MEMGATE_INSTANCE_ID");
    struct mg_session *s = mg_sessions_create(srv.sessions, MG_SESSION_MCP, NULL, inst && *inst ? inst : NULL, NULL, &err);
    if (s && !mg_mcp_conn_attach(s, &err)) mg_session_unref(&s);
    if (!s) {
        mg_server_close(&srv);
        return mg_cli_fail(&err);
    }
    if (repo && mg_resolve_bind(&srv, s, repo, &err) != 0) {
        mg_session_unref(&s);
        mg_server_close(&srv);
        return mg_cli_fail(&err);
    }
    /* started inside a repo: that repo, when the client states no root (request/resolve.h) */
    char cwd[PATH_MAX];
    rc = mg_mcp_stdio(&srv, s, getcwd(cwd, sizeof(cwd)) ? cwd : NULL, 0, 1);
    mg_session_unref(&s);
    mg_mcp_tasks_shutdown(); /* MCP tasks still working stop too */
    mg_server_close(&srv);
    return rc;
}
