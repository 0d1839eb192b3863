/* hook.c — POST /v1/hooks/git: push webhooks from GitHub and GitLab
 * (internal.h, docs/webhooks.md).
 *
 * The route takes no bearer token (server.c does not ask for one here): a
 * delivery is authenticated by its signature, checked before anything of
 * the body is parsed; then the content type, the JSON, the event. A
 * delivery is remembered (by its body's digest, hook.h) only when it is
 * accepted or ignored, so a refused one (a repo not indexed yet) may be
 * delivered again.
 * Accepted pushes become background runs (hook_run.c).
 *
 * Every answer is audited under op `webhook`: refusals by mg__refused
 * (respond.c, floods folded), accepted and ignored deliveries here.
 *
 * Sections:
 *   1. opening and closing
 *   2. a delivery's signature: which secret, whose repos
 *   3. a delivery: body, replays, repos, runs
 *   4. the route
 */
#include "http/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/hook.h"
#include "request/follow.h"
#include "request/gate.h"
#include "security/audit.h"
#include "security/common.h"
#include "util/json.h"

/* ---- 1. opening and closing ------------------------------------------------------------------------------- */

struct mg_hooks {
    struct mg_server *srv;
    struct mg_hook_replay *replay;   /* NULL: webhooks off (the route answers 404) */
    struct mg_hook_runner *runner;
    struct mg_follower *follower;    /* the shared catalog's (request/follow.h), or NULL */
};

/* The follower asks for a catch-up: the runner's queue takes it. */
static void catchup(void *ud, const struct mg_repo *r, bool pull, const char *delivery)
{
    struct mg_hooks *hk = ud;
    mg__hook_runner_catchup(hk->runner, r, pull, delivery);
}

static void hooks_free(struct mg_hooks *hk)
{
    mg_follower_stop(&hk->follower); /* no catch-up is asked for after this */
    mg__hook_runner_free(hk->runner);
    mg_hook_replay_close(hk->replay);
    free(hk);
}

int mg__hooks_open(struct mg_http *h, struct mg_err *err)
{
    h->hooks = NULL;
    bool webhooks = h->srv->cfg.webhook_secret[0] || h->srv->cfg.webhook_secrets[0], follow = mg_follow_wanted(h->srv);
    if (!webhooks && !follow) return 0; /* the route answers 404 */
    struct mg_hooks *hk = calloc(1, sizeof(*hk));
    if (!hk) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory starting webhooks");
    hk->srv = h->srv;
    if ((webhooks && mg_hook_replay_open(&h->srv->cfg, &hk->replay, err) != 0) ||
        mg__hook_runner_new(h->srv, &hk->runner, err) != 0 ||
        (follow && mg_follower_start(h->srv, catchup, hk, &hk->follower, err) != 0)) {
        hooks_free(hk);
        return -1;
    }
    mg_hook_git_ready();
    h->hooks = hk;
    return 0;
}

void mg__hooks_close(struct mg_http *h)
{
    struct mg_hooks *hk = h->hooks;
    if (!hk) return;
    hooks_free(hk);
    h->hooks = NULL;
}

/* ---- 2. a delivery's signature: which secret, whose repos ------------------------------------------------- */

/* One delivery: the headers that matter (NULL when absent) and the body. */
struct delivery {
    const char *github_event, *github_signature, *github_delivery;
    const char *gitlab_event, *gitlab_token, *gitlab_event_uuid, *idempotency_key;
    const char *content_type;
    const void *body;
    size_t len;
    const char *from; /* the client's address */
    /* what the verified delivery is */
    enum mg_hook_source src;
    const char *source; /* "github", "gitlab" */
    const char *event;  /* its event header */
    const char *id;     /* its delivery id, or NULL */
    char signer[65];    /* the tenant whose webhook_secrets entry signed it; "": the server-wide webhook_secret */
    char replay_key[80]; /* what its body is remembered under: source, and the signer when a tenant */
};

/* The answer: a status and a body, or a refusal (status >= 400, err). */
struct answer {
    int status;
    json_t *body;
    struct mg_err err;
};

static int refuse(struct answer *a, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(struct answer *a, int status, const char *code, const char *fmt, ...)
{
    a->status = status;
    a->err.code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err.msg, sizeof(a->err.msg), fmt, ap);
    va_end(ap);
    return -1;
}

/* Does secret sign d (GitHub's HMAC of the body, GitLab's token)? */
static bool signs(const struct delivery *d, const char *secret)
{
    if (!secret[0]) return false;
    if (d->github_signature) return mg_hook_github_ok(secret, d->github_signature, d->body, d->len);
    return mg_hook_gitlab_ok(secret, d->gitlab_token);
}

static int tenant_signs(void *ud, const char *tenant, const char *secret)
{
    struct delivery *d = ud;
    if (!signs(d, secret)) return 0;
    snprintf(d->signer, sizeof(d->signer), "%s", tenant);
    return 1;
}

/* Which secret signs d: a tenant's own (webhook_secrets; d->signer), else
 * the server-wide webhook_secret (signer ""). Every tenant's is tried, each
 * compared in constant time. */
static bool signed_by(const struct mg_config *cfg, struct delivery *d)
{
    d->signer[0] = 0;
    struct mg_err err = {0};
    if (mg_webhook_secrets_each(cfg->webhook_secrets, "webhook_secrets", tenant_signs, d, &err) == 1) return true;
    return signs(d, cfg->webhook_secret);
}

static int named(void *ud, const char *tenant, const char *secret)
{
    (void)secret;
    return strcmp(ud, tenant) == 0;
}

/* May a delivery d signed re-index a repo of tenant? A tenant's secret its
 * own repos only; the server-wide secret those of tenants without one. */
static bool may_reindex(const struct mg_config *cfg, const struct delivery *d, const char *tenant)
{
    if (d->signer[0]) return strcmp(d->signer, tenant) == 0;
    struct mg_err err = {0};
    return mg_webhook_secrets_each(cfg->webhook_secrets, "webhook_secrets", named, (void *)tenant, &err) != 1;
}

/* The signature first: nothing of the body is looked at before it holds. */
static int verify(const struct mg_hooks *hk, struct delivery *d, struct answer *a)
{
    const struct mg_config *cfg = &hk->srv->cfg;
    if (d->github_signature) {
        if (!signed_by(cfg, d))
            return refuse(a, 401, MG_E_BAD_SIGNATURE, "X-Hub-Signature-256 does not match the body: the webhook's "
                          "secret on GitHub must be your tenant's webhook_secrets entry or this server's "
                          "webhook_secret");
        d->src = MG_HOOK_GITHUB, d->source = "github", d->event = d->github_event, d->id = d->github_delivery;
    } else if (d->gitlab_token) {
        if (!signed_by(cfg, d))
            return refuse(a, 401, MG_E_BAD_SIGNATURE, "X-Gitlab-Token is wrong: the webhook's secret token on GitLab "
                          "must be your tenant's webhook_secrets entry or this server's webhook_secret");
        d->src = MG_HOOK_GITLAB, d->source = "gitlab", d->event = d->gitlab_event;
        d->id = d->gitlab_event_uuid ? d->gitlab_event_uuid : d->idempotency_key;
    } else {
        return refuse(a, 401, MG_E_BAD_SIGNATURE, "the delivery is not signed: GitHub sends X-Hub-Signature-256 and "
                      "GitLab X-Gitlab-Token once the webhook has a secret; set it to your tenant's webhook_secrets "
                      "entry or this server's webhook_secret");
    }
    /* a body is remembered per signer: two tenants' webhooks on one remote may deliver the same body */
    snprintf(d->replay_key, sizeof(d->replay_key), "%s%s%s", d->source, d->signer[0] ? ":" : "", d->signer);
    if (!d->event)
        return refuse(a, 400, MG_E_BAD_ARG, "the delivery has no %s header",
                      d->src == MG_HOOK_GITHUB ? "X-GitHub-Event" : "X-Gitlab-Event");
    if (d->id && !mg_hook_delivery_id_ok(d->id))
        return refuse(a, 400, MG_E_BAD_ARG, "the delivery id is not 1 to %d characters of A-Z a-z 0-9 . _ : -",
                      MG_HOOK_ID_MAX);
    return 0;
}

/* ---- 3. a delivery: body, replays, repos, runs ------------------------------------------------------------ */

static json_t *parse_body(const struct delivery *d, struct answer *a)
{
    if (!mg__is_json_type(d->content_type)) {
        refuse(a, 415, MG_E_UNSUPPORTED_MEDIA, "the webhook must send JSON: set its content type to "
               "application/json");
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(d->body, d->len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(j)) {
        refuse(a, 400, MG_E_BAD_ARG, "the webhook's body must be a JSON object (%s at line %d column %d)",
               j ? "not an object" : je.text, je.line, je.column);
        json_decref(j);
        return NULL;
    }
    return j;
}

static bool is_push(const struct delivery *d)
{
    return strcmp(d->event, d->src == MG_HOOK_GITHUB ? "push" : "Push Hook") == 0;
}

/* Remember the delivery by its signed body; the same body again is refused,
 * with any delivery id or none. */
static int not_replayed(struct mg_hooks *hk, const struct delivery *d, struct answer *a)
{
    struct mg_err err = {0};
    int rc = mg_hook_replay_record(hk->replay, d->replay_key, d->body, d->len, mg_wall_ms(), &err);
    if (rc == 1) return 0;
    if (rc == 0)
        return refuse(a, 409, MG_E_WEBHOOK_REPLAYED, "this delivery's body was accepted before and is acted on "
                      "once, whatever its delivery id (a redelivery sends the same body); push again, or run "
                      "`memgate index`, to re-index");
    /* the store failed: PostgreSQL down or busy is 503 (the forge delivers again later) */
    bool later = err.code && (strcmp(err.code, MG_E_STORAGE_UNAVAILABLE) == 0 || strcmp(err.code, MG_E_STORAGE_RETRY) == 0);
    return refuse(a, later ? 503 : 500, later ? err.code : MG_E_DB, "%s", err.msg);
}

/* The event of an accepted (one per repo) or ignored delivery. */
static void audit(struct mg_hooks *hk, const struct delivery *d, const struct mg_repo *r, const char *status)
{
    char query[MG_AUDIT_QUERY_MAX];
    snprintf(query, sizeof(query), "%s %.64s %s from %s", d->source, d->event, d->id ? d->id : "(no id)",
             d->from && d->from[0] ? d->from : "?");
    struct mg_audit_event ev = {.tenant = r ? r->tenant : NULL, .repo = r ? r->id : NULL, .op = "webhook",
                                .query = query, .status = status, .durable = true,
                                .request_id = mg_request_id_current()};
    mg_gate_audit(hk->srv, &ev);
}

static void ignore(struct mg_hooks *hk, const struct delivery *d, struct answer *a)
{
    if (not_replayed(hk, d, a) != 0) return;
    char event[65];
    snprintf(event, sizeof(event), "%.64s", d->event);
    audit(hk, d, NULL, "ignored");
    a->status = 202;
    a->body = json_pack("{s:b, s:o}", "ignored", 1, "event", mg_json_text(event));
}

/* The repos whose remote is the pushed repository; 0, or -1 refused. */
static int match(struct mg_hooks *hk, json_t *payload, const struct delivery *d, struct mg_repo **v, size_t *n,
                 struct answer *a)
{
    char urls[MG_HOOK_URLS_MAX][MG_HOOK_NORM_MAX];
    size_t nurls = mg_hook_payload_urls(payload, d->src, urls, MG_HOOK_URLS_MAX);
    if (!nurls)
        return refuse(a, 400, MG_E_BAD_ARG, "the push names no repository URL (%s)",
                      d->src == MG_HOOK_GITHUB ? "repository.clone_url, ssh_url, ..." : "project.git_http_url, ...");
    struct mg_err err = {0};
    if (mg_hook_match(&hk->srv->cfg, urls, nurls, v, n, &err) != 0)
        return refuse(a, 500, err.code ? err.code : MG_E_INTERNAL, "%s", err.msg);
    size_t keep = 0; /* the repos the signer may re-index; the others are not named, nor counted */
    for (size_t i = 0; i < *n; i++)
        if (may_reindex(&hk->srv->cfg, d, (*v)[i].tenant)) (*v)[keep++] = (*v)[i];
    *n = keep;
    if (*n == 0)
        return refuse(a, 404, MG_E_REPO_NOT_FOUND, "no indexed repo has %s as a git remote; index a clone of it "
                      "first (memgate index PATH), or check the clone's `git remote -v`", urls[0]);
    return 0;
}

/* The reply names no repo: the route has no principal, and the repos a
 * remote matches may be several tenants' (issue 38 V6); it counts the runs.
 * Which repos they are is in the audit log, one event per repo. */
static void accept_push(struct mg_hooks *hk, const struct delivery *d, const struct mg_repo *v, size_t n,
                        struct answer *a)
{
    size_t merged = 0;
    for (size_t i = 0; i < n; i++) {
        bool coalesced = false;
        struct mg_err err = {0};
        if (mg__hook_runner_push(hk->runner, &v[i], d->id, &coalesced, &err) != 0) {
            refuse(a, 503, err.code, "%s", err.msg);
            return;
        }
        audit(hk, d, &v[i], coalesced ? "accepted: one more run after the one under way" : "accepted");
        merged += coalesced;
    }
    a->status = 202;
    a->body = json_pack("{s:b, s:I, s:I}", "accepted", 1, "runs", (json_int_t)n, "coalesced", (json_int_t)merged);
}

static void deliver(struct mg_hooks *hk, struct delivery *d, struct answer *a)
{
    if (verify(hk, d, a) != 0) return;
    json_t *payload = parse_body(d, a);
    if (!payload) return;
    struct mg_repo *v = NULL;
    size_t n = 0;
    if (!is_push(d)) ignore(hk, d, a);
    else if (match(hk, payload, d, &v, &n, a) == 0 && not_replayed(hk, d, a) == 0) accept_push(hk, d, v, n, a);
    free(v);
    json_decref(payload);
}

/* ---- 4. the route ----------------------------------------------------------------------------------------- */

enum MHD_Result mg__hook(struct mg_http *h, struct MHD_Connection *c, struct req *r, const char *method)
{
    if (!h->hooks || !h->hooks->replay)
        return mg__respond_error(c, r, 404, MG_E_WEBHOOKS_DISABLED,
                                 "webhooks are off: set webhook_secret or webhook_secrets (secrets of at least %d "
                                 "characters, e.g. from `openssl rand -hex 32`) in the config and restart memgate "
                                 "serve (docs/webhooks.md)",
                                 MG_WEBHOOK_SECRET_MIN);
    if (strcmp(method, "POST") != 0) {
        json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", MG_E_METHOD_NOT_ALLOWED, "message",
                              "only POST is allowed on /v1/hooks/git");
        return mg__respond_json_h(c, r, 405, j, "Allow", "POST", NULL, NULL);
    }
    struct delivery d = {
        .github_event = mg__header(c, "X-GitHub-Event"),
        .github_signature = mg__header(c, "X-Hub-Signature-256"),
        .github_delivery = mg__header(c, "X-GitHub-Delivery"),
        .gitlab_event = mg__header(c, "X-Gitlab-Event"),
        .gitlab_token = mg__header(c, "X-Gitlab-Token"),
        .gitlab_event_uuid = mg__header(c, "X-Gitlab-Event-UUID"),
        .idempotency_key = mg__header(c, "Idempotency-Key"),
        .content_type = mg__header(c, MHD_HTTP_HEADER_CONTENT_TYPE),
        .body = r->body.p ? r->body.p : "",
        .len = r->body.len,
        .from = r->from,
    };
    struct answer a = {0};
    deliver(h->hooks, &d, &a);
    if (a.status == 503) /* the shared database: say when to try again */
        return mg__respond_json_h(c, r, 503, json_pack("{s:{s:s, s:s}}", "error", "code", a.err.code, "message",
                                                       a.err.msg), "Retry-After", "1", NULL, NULL);
    if (a.status >= 400) return mg__respond_error(c, r, a.status, a.err.code, "%s", a.err.msg);
    return mg__respond_json(c, r, a.status, a.body);
}
