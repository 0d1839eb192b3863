/* repometrics.c — the per-repo gauges of /metrics (internal.h): the stats
 * index_status gives (store/repostate.h: meta rows and a lock probe, nothing
 * counted), for every repo the caller can see, as Prometheus text.
 *
 * They go through the gate like any read (code.status over the visible
 * repos), so a token's tenant and repo list decide which repos appear:
 * /metrics is admin-only, and an admin token of tenant A sees A's repos
 * only (loopback without tokens: tenant local). A scrape is not a tool call
 * and is not audited, as /metrics never was; it runs in one session the
 * server keeps for it, so scrapes do not count as sessions created.
 */
#include "http/internal.h"

#include <stdio.h>
#include <string.h>

#include "request/gate.h"
#include "request/ops.h"

/* The session scrapes run in: made once, outside the registry (never
 * listed, never expired); mg_http_stop gives it back. */
static struct mg_session *scrape_session(struct mg_http *h, struct mg_err *err)
{
    pthread_mutex_lock(&h->mu);
    if (!h->metrics_session) {
        h->metrics_session = mg_sessions_private(h->srv->sessions, MG_SESSION_CLI, "metrics", NULL, err);
    }
    struct mg_session *s = h->metrics_session;
    pthread_mutex_unlock(&h->mu);
    return s;
}

struct gauge {
    const char *name, *type, *help;
};

static const struct gauge G[] = {
    {"memgate_repo_files", "gauge", "Files in the repo's index."},
    {"memgate_repo_chunks", "gauge", "Chunks in the repo's index."},
    {"memgate_repo_symbols", "gauge", "Definitions in the repo's index."},
    {"memgate_repo_vectors", "gauge", "Vectors stored for semantic search (absent: not counted yet)."},
    {"memgate_repo_bytes", "gauge", "Bytes of text the repo's index holds."},
    {"memgate_repo_db_bytes", "gauge", "Bytes of the repo's index database on disk."},
    {"memgate_repo_last_index_timestamp_seconds", "gauge",
     "When the last index run of each kind (full, incremental) ended, Unix seconds."},
    {"memgate_repo_last_index_duration_seconds", "gauge", "How long the last index run of each kind took."},
    {"memgate_repo_pending_changes", "gauge", "Changes the file watcher has seen and not indexed yet."},
    {"memgate_repo_watch_state", "gauge", "The file watcher's state: 1 for the state it is in (watching, polling, off)."},
    {"memgate_repo_watch_count", "gauge", "Directories the file watcher watches."},
    {"memgate_repo_redactions_total", "counter", "Secrets redacted by the repo's index runs."},
    {"memgate_repo_index_errors", "gauge", "1 when the repo's last index run failed."},
    {"memgate_repo_index_busy", "gauge", "1 while an index run holds the repo."},
};
enum { FILES, CHUNKS, SYMBOLS, VECTORS, BYTES, DB_BYTES, LAST_AT, LAST_DUR, PENDING, WATCH_STATE, WATCH_COUNT,
       REDACTIONS, ERRORS, BUSY, NGAUGES };

/* One sample per line, grouped by metric as the text format wants: each
 * gauge's lines are collected in its own buffer, then joined. */
struct out {
    struct mg_buf g[NGAUGES];
};

/* v, or v milliseconds as seconds (ms set). */
static void sample(struct out *o, int g, const char *repo, const char *label, int64_t v, bool ms)
{
    if (v == MG_INT_NULL) return; /* not known: no sample rather than a made-up one */
    if (ms) mg_buf_addf(&o->g[g], "%s{repo=\"%s\"%s} %lld.%03lld\n", G[g].name, repo, label ? label : "",
                        (long long)(v / 1000), (long long)(v % 1000));
    else mg_buf_addf(&o->g[g], "%s{repo=\"%s\"%s} %lld\n", G[g].name, repo, label ? label : "", (long long)v);
}

/* A label value as the text format wants it: \\, \" and \n escaped. Ids
 * are [a-z0-9._-] when memgate wrote them; a database edited by hand may say
 * otherwise. */
static void escape_label(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; s && *s && n + 3 < cap; s++) {
        if (*s == '\\' || *s == '"') out[n++] = '\\', out[n++] = *s;
        else if (*s == '\n') out[n++] = '\\', out[n++] = 'n';
        else out[n++] = *s;
    }
    out[n] = 0;
}

static void repo_samples(struct out *o, const struct mg_repo_stats *s)
{
    char id[2 * MG_ID_MAX + 8];
    escape_label(s->info.id, id, sizeof(id));
    sample(o, FILES, id, NULL, s->info.files, false);
    sample(o, CHUNKS, id, NULL, s->info.chunks, false);
    sample(o, SYMBOLS, id, NULL, s->info.symbols, false);
    sample(o, VECTORS, id, NULL, s->vectors, false);
    sample(o, BYTES, id, NULL, s->info.bytes, false);
    sample(o, DB_BYTES, id, NULL, s->info.db_bytes, false);
    sample(o, LAST_AT, id, ",kind=\"full\"", s->full_index_at, false);
    sample(o, LAST_DUR, id, ",kind=\"full\"", s->full_index_ms, true);
    sample(o, LAST_AT, id, ",kind=\"incremental\"", s->incr_index_at, false);
    sample(o, LAST_DUR, id, ",kind=\"incremental\"", s->incr_index_ms, true);
    sample(o, PENDING, id, NULL, s->pending_changes, false);
    static const char *const states[] = {"watching", "polling", "off"};
    for (size_t i = 0; i < 3; i++) {
        char label[32];
        snprintf(label, sizeof(label), ",state=\"%s\"", states[i]);
        sample(o, WATCH_STATE, id, label, s->watch_state && strcmp(s->watch_state, states[i]) == 0, false);
    }
    sample(o, WATCH_COUNT, id, NULL, s->watch_count, false);
    sample(o, REDACTIONS, id, NULL, s->secrets_redacted, false);
    sample(o, ERRORS, id, NULL, s->last_error != NULL, false);
    sample(o, BUSY, id, NULL, s->index_busy, false);
}

int mg__visible_repo_stats(struct mg_http *h, const struct mg_principal *who, struct mg_items *items,
                         struct mg_err *err)
{
    struct mg_session *s = scrape_session(h, err);
    if (!s) return -1;
    struct mg_request_spec spec = {.srv = h->srv, .who = who, .session = s, .op = "metrics", .timeout_ms = 10000};
    struct mg_ctx x;
    if (mg_request_init(&x, &spec, err) != 0) return -1;
    int rc = mg_gate_run(&x, &mg_op_code_status_all, NULL, NULL, items, err);
    mg_request_release(&x); /* no mg_gate_finish: a scrape writes no audit event */
    return rc;
}

int mg__repo_metrics(struct mg_http *h, struct req *r, struct mg_buf *b)
{
    struct mg_items items;
    struct mg_err err = {0};
    if (mg__visible_repo_stats(h, &r->who, &items, &err) != 0) {
        /* the process's metrics still serve; say why these are missing */
        mg_buf_addf(b, "# memgate_repo_*: not available (%s)\n", err.code ? err.code : MG_E_INTERNAL);
        return 0;
    }
    struct out o;
    for (int g = 0; g < NGAUGES; g++) mg_buf_init(&o.g[g], 64u << 20);
    for (size_t i = 0; i < items.n; i++)
        if (items.v[i]->type == &mg_item_repo_stats) repo_samples(&o, (const struct mg_repo_stats *)items.v[i]);
    int rc = 0;
    for (int g = 0; g < NGAUGES; g++) {
        rc |= mg_buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", G[g].name, G[g].help, G[g].name, G[g].type);
        if (o.g[g].len) rc |= mg_buf_add(b, o.g[g].p, o.g[g].len);
        mg_buf_release(&o.g[g]);
    }
    mg_items_release(&items);
    return rc ? -1 : 0;
}
