/* context.c — get_context, the composition root (seed 003's EnrichPrompt):
 * one capped, attributed block for a prompt.
 *
 * It resolves the request once, then asks four providers through the gate
 * at the same time (code search, notes, the conversation's episodes, its
 * project's entities), fuses their ranked items by reciprocal rank, and
 * writes whole pieces into the block until max_context_bytes. Every piece
 * is gated text (redacted, sanitised, flagged, attributed); the request is
 * audited once, with each part's count. Without code (say, the repo has no
 * index of that kind) the memory still comes.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/family.h"
#include "tools/render.h"
#include "util/buf.h"

#define RRF_K 60.0
#define NPARTS 4

struct part {
    struct mg_ctx *x;
    const struct mg_op *op;
    const struct mg_target *t;
    void *args;
    struct mg_items items;
    struct mg_err err;
    int rc;
};

static void *part_main(void *arg)
{
    struct part *p = arg;
    p->rc = mg_gate_run(p->x, p->op, p->t, p->args, &p->items, &p->err);
    return NULL;
}

struct piece {
    const char *kind;
    char *source;      /* the attribution line */
    const char *text;  /* gated text (borrowed from the items) */
    double rrf;
    int order;         /* tie-break: code, note, episode, entity */
    unsigned flags;
    struct mg_injinfo inj;
};

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    if (x->rrf != y->rrf) return x->rrf > y->rrf ? -1 : 1;
    return x->order - y->order;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

static void add(struct piece *v, size_t *n, const char *kind, int order, size_t rank, char *source, const char *text,
                const struct mg_item *it)
{
    if (!source) return; /* out of memory: the piece is left out */
    v[(*n)++] = (struct piece){kind, source, text ? text : "", 1.0 / (RRF_K + (double)rank + 1.0), order, it->flags,
                               it->inj};
}

static int t_get_context(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"prompt", "limit", "repo", "repo_id", "session_id", NULL};
    const char *prompt, *sess;
    long long limit;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "prompt", true, &prompt, err) != 0 ||
        mg_arg_int(args, "limit", 1, 50, 8, &limit, err) != 0 || mg_arg_str(args, "session_id", false, &sess, err) != 0)
        return -1;
    if (!*prompt || strlen(prompt) > x->srv->cfg.max_query_bytes)
        return mg_err_set(err, MG_E_BAD_ARG, "'prompt' must be 1 byte to max_query_bytes");
    if (sess && !mg_memory_id_ok(sess))
        return mg_err_set(err, MG_E_BAD_ARG, "'session_id' must be 1-%d characters of A-Z a-z 0-9 . _ : -",
                          MG_SESSION_ID_MAX);
    struct mg_target_args ta;
    if (mg_arg_target(args, false, &ta, err) != 0) return -1;
    mg_gate_subject(x, prompt);
    /* one resolution for every part */
    if (mg_gate_resolve(x, &ta.t, MG_REPOS_ONE, err) != 0) {
        mg_target_release(&ta);
        return -1;
    }
    struct mg_code_query cq = {.query = prompt, .limit = (int)limit, .no_match_lines = true};
    struct mg_mem_args ma = {.session = mg_request_memory_session(x, sess), .query = prompt, .limit = (int)limit};
    struct part parts[NPARTS] = {
        {x, &mg_op_code_search, &ta.t, &cq, {0}, {0}, 0},
        {x, &mg_op_notes_search, &ta.t, &ma, {0}, {0}, 0},
        {x, &mg_op_sessions_recall, &ta.t, &ma, {0}, {0}, 0},
        {x, &mg_op_entities_search, &ta.t, &ma, {0}, {0}, 0},
    };
    pthread_t th[NPARTS];
    bool started[NPARTS] = {0};
    for (int i = 1; i < NPARTS; i++) started[i] = pthread_create(&th[i], NULL, part_main, &parts[i]) == 0;
    part_main(&parts[0]);
    for (int i = 1; i < NPARTS; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else part_main(&parts[i]); /* no thread to spare: in turn */
    }
    mg_target_release(&ta);
    int rc = -1;
    for (int i = 1; i < NPARTS; i++) /* memory is required; code context is best effort */
        if (parts[i].rc != 0) {
            *err = parts[i].err;
            goto out;
        }

    const struct mg_items *code = parts[0].rc == 0 ? &parts[0].items : NULL, *notes = &parts[1].items,
                          *eps = &parts[2].items, *ents = &parts[3].items;
    size_t cap = (code ? code->n : 0) + notes->n + eps->n + ents->n;
    struct piece *pv = calloc(cap + 1, sizeof(*pv));
    if (!pv) {
        mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        goto out;
    }
    size_t np = 0;
    for (size_t i = 0; code && i < code->n; i++) {
        const struct mg_code_hit *h = (const struct mg_code_hit *)code->v[i];
        add(pv, &np, "code", 0, i, fmt("[source: %s:%lld]", h->path, (long long)h->line), h->snippet, &h->base);
    }
    for (size_t i = 0; i < notes->n; i++) {
        const struct mg_note *n = (const struct mg_note *)notes->v[i];
        add(pv, &np, "note", 1, i, fmt("[note: %s]", n->key), n->value, &n->base);
    }
    for (size_t i = 0; i < eps->n; i++) {
        const struct mg_episode *e = (const struct mg_episode *)eps->v[i];
        time_t t = (time_t)e->created_at;
        struct tm tm;
        char day[16];
        gmtime_r(&t, &tm);
        strftime(day, sizeof(day), "%Y-%m-%d", &tm);
        add(pv, &np, "episode", 2, i, fmt("[episode: %s, %s]", e->session, day), e->summary, &e->base);
    }
    for (size_t i = 0; i < ents->n; i++) {
        const struct mg_entity *e = (const struct mg_entity *)ents->v[i];
        add(pv, &np, "entity", 3, i, fmt("[entity: %s (%s)]", e->name, e->type), e->notes, &e->base);
    }
    qsort(pv, np, sizeof(*pv), cmp_piece);
    struct mg_buf block;
    mg_buf_init(&block, (size_t)1 << 26);
    json_t *pj = json_array();
    size_t budget = x->srv->cfg.max_context_bytes;
    for (size_t i = 0; i < np; i++) {
        size_t tl = strlen(pv[i].text);
        size_t need = strlen(pv[i].source) + 1 + tl + 2;
        if (block.len + need > budget) break; /* whole pieces only */
        mg_buf_addf(&block, "%s\n%s%s\n", pv[i].source, pv[i].text, tl && pv[i].text[tl - 1] == '\n' ? "" : "\n");
        json_t *part = json_pack("{s:s, s:s, s:f}", "kind", pv[i].kind, "source", pv[i].source, "score", pv[i].rrf);
        if (pv[i].flags & (MG_ITEM_INJECTION | MG_ITEM_HIDDEN | MG_ITEM_ESCAPES))
            mg_render_flags(part, pv[i].flags & ~MG_ITEM_TRUNCATED, &pv[i].inj);
        json_array_append_new(pj, part);
    }
    bool in_project = eps->place && eps->place->project;
    struct mg_items all; /* the gate's account of every part */
    mg_items_init(&all);
    for (int i = 0; i < NPARTS; i++) {
        all.redactions += parts[i].items.redactions;
        all.flags |= parts[i].items.flags;
        mg_injinfo_add(&all.inj, &parts[i].items.inj);
        all.omitted += parts[i].items.omitted;
    }
    *result = json_pack("{s:s, s:o, s:o, s:b, s:o}", "block", block.p ? block.p : "", "parts", pj, "scope",
                        mg_render_place(eps), "in_project", in_project, "gate", mg_render_gate(&all));
    mg_render_semantic(*result, &parts[0].items); /* the code part was searched by words only */
    mg_buf_release(&block);
    for (size_t i = 0; i < np; i++) free(pv[i].source);
    free(pv);
    rc = 0;
out:
    for (int i = 0; i < NPARTS; i++) mg_items_release(&parts[i].items);
    return rc;
}

const struct mg_tool mg_tools_context[] = {
    {"get_context", "Get context for a prompt",
     "One capped, attributed block for a prompt: the relevant code, the repo's notes, earlier episodes of this "
     "session's scope and its project's entities, fused by rank, secrets redacted, injection flagged.",
     "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\","
     "\"minimum\":1},\"repo\":{\"type\":\"string\",\"description\":\"repo id; default: the session's repo\"},"
     "\"session_id\":{\"type\":\"string\",\"description\":\"the conversation's durable id (default: this MCP "
     "session)\"}},\"required\":[\"prompt\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"block\":{\"type\":\"string\"},\"parts\":{\"type\":\"array\"}}}",
     t_get_context},
};
const size_t mg_tools_context_n = sizeof(mg_tools_context) / sizeof(mg_tools_context[0]);
