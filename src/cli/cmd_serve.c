/* cmd_serve.c — `memgate serve`: the HTTP daemon (src/http/server.c). */
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "http/http.h"
#include "mcp/listen.h"
#include "mcp/rpc.h"
#include "request/scheduler.h"
#include "request/server.h"
#include "util/json.h"

static const char *HELP =
    "usage: memgate serve [--listen ADDR] [--conformance-fixtures] [--json]\n"
    "\n"
    "Serve MCP over Streamable HTTP at /mcp, the HTTP API under /v1/, /healthz,\n"
    "/readyz and /metrics (Prometheus text), until SIGINT or SIGTERM. docs/http.md has\n"
    "the routes.\n"
    "\n"
    "Access: on loopback with no token created, every request acts as tenant\n"
    "local with admin level, and requests whose Host or Origin is not loopback\n"
    "are refused (403) against DNS rebinding (allowed_origins adds origins).\n"
    "Once a token exists (memgate token create), or off loopback (refused until\n"
    "one does), every request needs `Authorization: Bearer <token>`; the token\n"
    "names its tenant, level and repos (docs/http.md, docs/security.md).\n"
    "\n"
    "options:\n"
    "  --listen ADDR           HOST:PORT to listen on (default 127.0.0.1:7077;\n"
    "                          config listen). [::1]:PORT for IPv6; port 0 picks a\n"
    "                          free one\n"
    "  --conformance-fixtures  add the test tools, resources and prompts the MCP\n"
    "                          conformance suite calls (testing only)\n"
    "  --json                  print {\"listen\":\"HOST:PORT\",\"port\":N} on stdout once\n"
    "                          listening\n"
    "  -h, --help              this help\n"
    "\n"
    "While it runs, the indexes follow the files: a watcher re-indexes what changes\n"
    "(docs/index.md); search hits of a file changed since it was indexed say stale.\n"
    "Repos whose setting reindex_interval is set (memgate repos set ID\n"
    "reindex_interval=SECONDS) are re-indexed that often, ±10%, by a thread of\n"
    "the server; a repo another run holds is skipped until the next try.\n"
    "\n"
    "Settings: watch, watch_poll_interval, http_max_body, allowed_origins,\n"
    "require_tokens, session_ttl, session_prune_interval\n"
    "(docs/config.md). MEMGATE_VERBOSE=1 adds _meta (instance, session, repo, time)\n"
    "to tool results and logs libmicrohttpd's errors.\n";

/* The host part of a listen address, for printing ("127.0.0.1", "[::1]"). */
static void host_of(const char *addr, char *out, size_t cap)
{
    const char *colon = strrchr(addr, ':');
    size_t n = colon ? (size_t)(colon - addr) : strlen(addr);
    if (n >= cap) n = cap - 1;
    memcpy(out, addr, n);
    out[n] = 0;
}

int mg_cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"conformance-fixtures", no_argument, NULL, 'F'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *listen_at = NULL;
    bool json = false, fixtures = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'l': listen_at = optarg; break;
        case 'F': fixtures = true; break;
        case 'j': json = true; break;
        case 'h': fputs(HELP, stdout); return 0;
        default: return mg_cli_badopt("serve", argc, argv, opts);
        }
    }
    if (optind != argc) return mg_cli_usage("serve", "unexpected argument '%s'", argv[optind]);

    struct mg_config cfg;
    int rc = mg_cli_config(&cfg);
    if (rc) return rc;
    struct mg_err err = {0};
    if (listen_at && mg_config_set(&cfg, "listen", listen_at, "--listen", &err) != 0) {
        err.code = MG_E_USAGE;
        return mg_cli_fail(&err);
    }

    /* SIGINT and SIGTERM are taken by sigwait below: block them before any
     * thread starts so that every thread inherits the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct mg_server srv;
    if (mg_server_open(&srv, &cfg, MG_SERVER_TOKENS | MG_SERVER_WATCH, &err) != 0) return mg_cli_fail(&err);
    srv.on_indexed = mg_listen_index_changed; /* subscriptions/listen streams hear of index runs */
    srv.fixtures = fixtures;
    const char *verbose = getenv("MEMGATE_VERBOSE");
    srv.verbose = verbose && strcmp(verbose, "1") == 0;
    if (mg_sessions_start_pruner(srv.sessions, (int64_t)srv.cfg.session_prune_interval * 1000, &err) != 0) {
        mg_server_close(&srv);
        return mg_cli_fail(&err);
    }
    struct mg_scheduler *sched = NULL; /* re-indexes repos with a reindex_interval */
    struct mg_http *h = mg_http_start(&srv, srv.cfg.listen, &err);
    if (!h || mg_scheduler_start(&srv, &sched, &err) != 0) {
        mg_http_stop(h);
        mg_server_close(&srv);
        return mg_cli_fail(&err);
    }
    int port = mg_http_port(h);
    char host[sizeof(srv.cfg.listen)];
    host_of(srv.cfg.listen, host, sizeof(host));
    if (!strcasecmp(host, "localhost")) snprintf(host, sizeof(host), "127.0.0.1");
    fprintf(stderr, "memgate serving on http://%s:%d (mcp: /mcp, api: /v1/)\n", host, port);
    if (json) {
        char where[sizeof(host) + 16];
        snprintf(where, sizeof(where), "%s:%d", host, port);
        json_t *j = json_pack("{s:s, s:i}", "listen", where, "port", port);
        char *s = json_dumps(j, MG_JSON_DUMP);
        if (s) puts(s);
        free(s);
        json_decref(j);
    }
    fflush(stdout);
    fflush(stderr);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {}
    srv.stopping = 1; /* a running index_repo, or scheduled re-index, stops at its next file */
    fprintf(stderr, "memgate: %s received, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    mg_scheduler_stop(&sched);
    mg_http_stop(h);
    mg_server_close(&srv);
    return 0;
}
