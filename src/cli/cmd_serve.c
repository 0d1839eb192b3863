/* cmd_serve.c — `memgate serve`: the HTTP daemon (src/http/server.c). */
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "http/http.h"
#include "mcp/listen.h"
#include "mcp/rpc.h"
#include "mcp/tasks.h"
#include "request/scheduler.h"
#include "request/gate.h"
#include "security/audit.h"
#include "security/token.h"
#include "request/server.h"
#include "util/admit.h"
#include "util/accesslog.h"
#include "util/json.h"

static const char *HELP =
    "usage: memgate serve [--listen ADDR] [--json]\n"
    "\n"
    "Serve MCP over Streamable HTTP at /mcp, the HTTP API under /v1/, /healthz,\n"
    "/readyz and /metrics (Prometheus text), until SIGINT or SIGTERM. docs/http.md has\n"
    "the routes.\n"
    "\n"
    "Signals: SIGTERM or SIGINT drains: /readyz answers 503, no new connection is\n"
    "accepted, requests under way get shutdown_grace seconds (default 10) to\n"
    "finish, then the process exits 0 saying how many it drained; a second one\n"
    "exits at once (status 1). SIGHUP reloads the config file: access_log,\n"
    "access_log_max_bytes, access_log_keep, shutdown_grace and token_rate_limit\n"
    "apply at once (the access log is reopened, for logrotate); other changed\n"
    "keys are named as needing a restart; a config with an error is refused and\n"
    "the old one kept.\n"
    "\n"
    "Access log: access_log = stderr or /path/file writes one JSON line per HTTP\n"
    "request (time, request_id, tenant, method, route, tool, repo, status, error,\n"
    "duration_ms, bytes; never a token, header, body or query string); a file is\n"
    "rotated past access_log_max_bytes, keeping access_log_keep old ones. Default\n"
    "off.\n"
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
    "require_tokens, session_ttl, session_prune_interval, access_log,\n"
    "access_log_max_bytes, access_log_keep, shutdown_grace, search_concurrency\n"
    "(index reads at once, the rest queued; default twice the CPUs)\n"
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

/* The keys SIGHUP applies while serving; every other changed key waits for a restart. */
static bool reloadable(const char *key)
{
    return strcmp(key, "access_log") == 0 || strcmp(key, "access_log_max_bytes") == 0 ||
           strcmp(key, "access_log_keep") == 0 || strcmp(key, "shutdown_grace") == 0 ||
           strcmp(key, "token_rate_limit") == 0;
}

struct keylist {
    char applied[512], restart[512];
};

static void add_key(char *list, size_t cap, const char *key)
{
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", key);
}

static void note_changed(void *ud, const char *key)
{
    struct keylist *k = ud;
    if (reloadable(key)) add_key(k->applied, sizeof(k->applied), key);
    else add_key(k->restart, sizeof(k->restart), key);
}

/* SIGHUP: read the config again (file and environment), apply what can
 * change while serving, reopen the access log; one line on stderr and an
 * audit event (op config_reload) say what happened. */
static void reload(struct mg_server *srv, const char *listen_at)
{
    struct mg_config next;
    struct mg_err err = {0};
    char status[1200];
    int rc = mg_config_load(&next, &err);
    if (rc == 0 && listen_at) rc = mg_config_set(&next, "listen", listen_at, "--listen", &err);
    if (rc == 0 && strcmp(next.home, srv->cfg.home) != 0)
        rc = mg_err_set(&err, MG_E_CONFIG, "the data directory changed (%s); restart memgate serve to use it",
                        next.home);
    struct keylist k = {"", ""};
    if (rc == 0) {
        mg_config_diff(&srv->cfg, &next, note_changed, &k);
        if (mg_access_log_configure(next.access_log, next.access_log_max_bytes, next.access_log_keep, &err) != 0) {
            rc = -1;
        } else {
            /* only the main thread reads these four ... */
            memcpy(srv->cfg.access_log, next.access_log, sizeof(next.access_log));
            srv->cfg.access_log_max_bytes = next.access_log_max_bytes;
            srv->cfg.access_log_keep = next.access_log_keep;
            srv->cfg.shutdown_grace = next.shutdown_grace;
            /* ... and the tokens keep their own copy of this one, under their lock */
            if (srv->tokens && next.token_rate_limit != srv->cfg.token_rate_limit) {
                mg_tokens_set_default_rate(srv->tokens, next.token_rate_limit);
                __atomic_store_n(&srv->cfg.token_rate_limit, next.token_rate_limit, __ATOMIC_RELAXED); /* (http/auth.c reads it) */
            }
        }
    }
    if (rc != 0) {
        snprintf(status, sizeof(status), "config not reloaded, the running one kept: %s", err.msg);
        fprintf(stderr, "memgate: SIGHUP: error[%s]: %s\n", err.code, status);
    } else {
        snprintf(status, sizeof(status), "config reloaded; applied: %s; changed but need a restart: %s",
                 k.applied[0] ? k.applied : "nothing", k.restart[0] ? k.restart : "nothing");
        fprintf(stderr, "memgate: SIGHUP: %s (access log reopened)\n", status);
    }
    struct mg_audit_event ev = {.op = "config_reload", .code = rc ? err.code : NULL, .status = status,
                                .durable = true};
    mg_gate_audit(srv, &ev);
}

/* While draining: a second SIGINT or SIGTERM ends the process at once. */
static bool second_signal(void *ud)
{
    const sigset_t *stop = ud;
    struct timespec zero = {0, 0};
    int sig = sigtimedwait(stop, NULL, &zero);
    if (sig == SIGINT || sig == SIGTERM) {
        fprintf(stderr, "memgate: second %s: exiting at once, without waiting for the requests under way\n",
                sig == SIGINT ? "SIGINT" : "SIGTERM");
        _exit(1);
    }
    return false;
}

int mg_cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *listen_at = NULL;
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hj", opts, NULL)) != -1) {
        switch (c) {
        case 'l': listen_at = optarg; break;
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

    /* SIGINT, SIGTERM and SIGHUP are taken by sigwait below: block them
     * before any thread starts so that every thread inherits the mask. */
    sigset_t stop, waited;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    waited = stop;
    sigaddset(&waited, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &waited, NULL);
    if (mg_access_log_configure(cfg.access_log, cfg.access_log_max_bytes, cfg.access_log_keep, &err) != 0)
        return mg_cli_fail(&err);
    signal(SIGPIPE, SIG_IGN);

    struct mg_server srv;
    if (mg_server_open(&srv, &cfg, MG_SERVER_TOKENS | MG_SERVER_WATCH, &err) != 0) {
        mg_access_log_close();
        return mg_cli_fail(&err);
    }
    /* subscriptions/listen streams hear of index runs (the watcher's thread reads it: atomic) */
    __atomic_store_n(&srv.on_indexed, mg_listen_index_changed, __ATOMIC_RELEASE);
    const char *verbose = getenv("MEMGATE_VERBOSE");
    srv.verbose = verbose && strcmp(verbose, "1") == 0;
    if (mg_sessions_start_pruner(srv.sessions, (int64_t)srv.cfg.session_prune_interval * 1000, &err) != 0) {
        mg_server_close(&srv);
        mg_access_log_close();
        return mg_cli_fail(&err);
    }
    struct mg_scheduler *sched = NULL; /* re-indexes repos with a reindex_interval */
    struct mg_http *h = mg_http_start(&srv, srv.cfg.listen, &err);
    if (!h || mg_scheduler_start(&srv, &sched, &err) != 0) {
        mg_http_stop(h);
        mg_server_close(&srv);
        mg_access_log_close();
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
    for (;;) {
        if (sigwait(&waited, &sig) != 0) continue;
        if (sig != SIGHUP) break;
        reload(&srv, listen_at);
    }
    int under_way = mg_http_quiesce(h); /* (before the line: who reads it may then expect /readyz's 503) */
    fprintf(stderr, "memgate: %s received, draining %d request%s (up to %d s; another %s exits at once)\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", under_way, under_way == 1 ? "" : "s", srv.cfg.shutdown_grace,
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    int drained = 0, left = 0;
    mg_http_drain(h, srv.cfg.shutdown_grace * 1000, second_signal, &stop, &drained, &left);
    srv.stopping = 1; /* a running index_repo, or scheduled re-index, stops at its next file */
    mg_admit_wake(srv.reads); /* reads still waiting their turn give up now */
    fprintf(stderr, "memgate: stopping: %d request%s drained, %d cut off after the grace period\n", drained,
            drained == 1 ? "" : "s", left);
    mg_scheduler_stop(&sched);
    mg_http_stop(h);
    mg_mcp_tasks_shutdown(); /* MCP tasks still working stop too */
    mg_server_close(&srv);
    mg_access_log_close();
    return 0;
}
