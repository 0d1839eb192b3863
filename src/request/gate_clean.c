/* gate_clean.c — what the gate does to the items a provider returns
 * (gate.h, steps 4 and 5): the guardrail drops and counts every item whose
 * owner is not the request's; cleaning redacts, sanitises, flags, caps and
 * attributes every declared text field of every item.
 *
 * Sections:
 *   1. the guardrail
 *   2. cleaning the items: redaction, sanitisation, flags, caps, attribution
 */
#include "request/gate_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/audit.h"
#include "security/sanitize.h"
#include "security/secrets.h"
#include "util/metrics.h"
#include "util/utf8.h"

/* ---- 1. the guardrail ---------------------------------------------------------------------------------- */

static const struct mg_repo *find_repo(const struct mg_repo *v, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0) return &v[i];
    return NULL;
}

/* Is the item the request's? */
static bool owned(const struct mg_ctx *x, const struct mg_item *it, const struct mg_repo *repos, size_t nrepos,
                  bool check_repo, const struct mg_place *place)
{
    unsigned own = it->type->owner;
    if ((own & MG_OWN_TENANT) && strcmp(it->own.tenant, x->who.tenant) != 0) return false;
    if ((own & MG_OWN_REPO) && check_repo) {
        const struct mg_repo *r = find_repo(repos, nrepos, it->own.repo);
        if (!r) return false;
        if (it->own.fp[0] && strcmp(it->own.fp, r->fingerprint) != 0) return false;
    }
    if ((own & MG_OWN_PROJECT) && place && it->own.project != place->base.own.project) return false;
    return true;
}

static void drop(struct mg_ctx *x, const char *kind, size_t n)
{
    if (!n) return;
    mg_metrics_isolation_drop(kind, n);
    fprintf(stderr, "memgate: warning: dropped %zu %s rows from outside the request's scope (session %s)\n", n, kind,
            mg_session_id(x->session));
    /* its own durable security event, besides the request's */
    const char *flags[1] = {kind};
    struct mg_audit_event ev = {.tenant = x->who.tenant, .instance = x->instance, .session = mg_session_id(x->session),
                                .op = "isolation_drop", .results = (long long)n, .flags = flags, .nflags = 1,
                                .status = "ok", .durable = true,
                                .request_id = x->request_id[0] ? x->request_id : NULL};
    struct mg_err err = {0};
    if (x->srv->audit && mg_audit_emit(x->srv->audit, &ev, &err) != 0)
        fprintf(stderr, "memgate: warning: audit event 'isolation_drop' not written: %s\n", err.msg);
}

void mg__gate_guardrail(struct mg_ctx *x, const struct mg_repo *repos, size_t nrepos, bool check_repo,
                        struct mg_items *out)
{
    if (out->place && !owned(x, &out->place->base, repos, nrepos, check_repo, NULL)) {
        /* the place is the provider's own account of the request: if it is not the request's, nothing is */
        drop(x, "place", 1);
        out->dropped += out->n;
        while (out->n) mg_items_remove(out, out->n - 1);
        return;
    }
    for (size_t i = 0; i < out->n;) {
        const struct mg_item *it = out->v[i];
        if (owned(x, it, repos, nrepos, check_repo, out->place)) {
            i++;
            continue;
        }
        drop(x, it->type->name, 1);
        out->dropped++;
        mg_items_remove(out, i);
    }
    if (out->foreign) {
        drop(x, out->foreign_kind ? out->foreign_kind : "other", out->foreign);
        out->dropped += out->foreign;
    }
}

/* ---- 2. cleaning ---------------------------------------------------------------------------------------- */

int mg_gate_redact(const struct mg_config *cfg, const char *s, size_t n, struct mg_buf *out, int *nred)
{
    struct mg_err err = {0};
    struct mg_secret_policy p;
    mg_secret_policy(cfg, &p);
    const struct mg_scanner *sc = mg_secrets_scanner(cfg, &err);
    *nred = 0;
    if (!sc || mg_secrets_apply(sc, &p, s, n, out, nred, NULL, NULL, &err) != 0) {
        fprintf(stderr, "memgate: warning: secret scan failed (error[%s]: %s); the text is withheld\n",
                err.code ? err.code : MG_E_INTERNAL, err.msg);
        return -1;
    }
    return 0;
}

struct clean {
    struct mg_ctx *x;
    size_t left;        /* bytes of text the response may still carry */
    bool scan;          /* run the secret scan field by field (the whole response had a finding) */
    bool inject;        /* check each field for injection (the whole response had a hit) */
};

/* Clean one string in place (*ps); cap is the most bytes it may keep. */
static void clean_string(struct clean *C, struct mg_item *it, char **ps, size_t cap, bool text)
{
    char *s = *ps;
    size_t n = strlen(s);
    struct mg_inj r;
    if (C->inject && mg_injection_check(s, n, &r) >= MG_INJ_FLAG) {
        it->flags |= MG_ITEM_INJECTION;
        mg_injinfo_add(&it->inj, &(struct mg_injinfo){r.score, r.reasons});
    }
    struct mg_buf red, out;
    mg_buf_init(&red, (size_t)1 << 30);
    mg_buf_init(&out, (size_t)1 << 30);
    const char *src = s;
    size_t srcn = n;
    if (C->scan) {
        int here = 0;
        if (mg_gate_redact(&C->x->srv->cfg, s, n, &red, &here) != 0) { /* never serve text that was not scanned */
            srcn = 0;
            it->flags |= MG_ITEM_TRUNCATED;
        } else if (here) {
            src = red.p;
            srcn = red.len;
            it->redactions += here;
        }
    }
    unsigned found = 0;
    if (mg_sanitize(src, srcn, &out, &found) != 0) { /* out of memory: serve nothing rather than unfiltered text */
        mg_buf_reset(&out);
        found = 0;
    }
    if (found & MG_SAN_HIDDEN) it->flags |= MG_ITEM_HIDDEN;
    if (found & (MG_SAN_ESCAPES | MG_SAN_MARKERS)) it->flags |= MG_ITEM_ESCAPES;
    if (text && cap > C->left) cap = C->left;
    size_t keep = out.len > cap ? mg_utf8_cut(out.p, out.len, cap) : out.len;
    if (keep < out.len) it->flags |= MG_ITEM_TRUNCATED;
    if (text) C->left -= keep;
    char *clean = malloc(keep + 1);
    if (clean) {
        memcpy(clean, out.p ? out.p : "", keep);
        clean[keep] = 0;
        free(s);
        *ps = clean;
    } else { /* no memory for the copy: cut the original in place (it is not clean: serve nothing) */
        s[0] = 0;
        it->flags |= MG_ITEM_TRUNCATED;
    }
    mg_buf_release(&red);
    mg_buf_release(&out);
}

static bool has_text(const struct mg_item_type *t)
{
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].kind == MG_F_TEXT || t->fields[i].kind == MG_F_LINES) return true;
    return false;
}

/* The field of t flagged flag, or NULL. */
static const struct mg_field *flagged(const struct mg_item_type *t, unsigned flag)
{
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].flags & flag) return &t->fields[i];
    return NULL;
}

/* "path:line", "note:KEY", "episode:42", "<provider>:path:line" */
static void attribute(struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    const struct mg_field *f = flagged(t, MG_F_SOURCE);
    if (!f || !has_text(t)) return;
    char buf[MG_LABEL_MAX + 96];
    char what[MG_LABEL_MAX + 32] = "";
    if (f->kind == MG_F_INT) snprintf(what, sizeof(what), "%lld", (long long)mg_item_int(it, f));
    else if (f->kind == MG_F_LABEL && *mg_item_text(it, f)) snprintf(what, sizeof(what), "%s", *mg_item_text(it, f));
    if (t->source_prefix) {
        snprintf(buf, sizeof(buf), "%s:%s", t->source_prefix, what);
    } else {
        const struct mg_field *lf = flagged(t, MG_F_LINE), *of = flagged(t, MG_F_ORIGIN);
        const char *origin = of ? *mg_item_text(it, of) : NULL;
        long long line = lf ? (long long)mg_item_int(it, lf) : 1;
        if (origin && *origin) snprintf(buf, sizeof(buf), "%.64s:%s:%lld", origin, what, line > 0 ? line : 1);
        else snprintf(buf, sizeof(buf), "%s:%lld", what, line > 0 ? line : 1);
    }
    free(it->source);
    it->source = strdup(buf);
}

static void clean_item(struct clean *C, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        if (f->kind == MG_F_TEXT || f->kind == MG_F_LABEL) {
            char **ps = mg_item_text(it, f);
            if (*ps) clean_string(C, it, ps, f->kind == MG_F_TEXT ? C->x->srv->cfg.max_chunk_bytes : MG_LABEL_MAX,
                                  f->kind == MG_F_TEXT);
        } else if (f->kind == MG_F_TAGS) {
            size_t *n;
            char ***v = mg_item_tags(it, f, &n);
            for (size_t k = 0; k < *n; k++)
                if ((*v)[k]) clean_string(C, it, &(*v)[k], MG_LABEL_MAX, false);
        }
    }
    attribute(it);
    it->gated = true;
}

/* An item's lines (MG_F_LINES): cleaned as text, after every item's other
 * fields, so that they never crowd whole items out of the response; when
 * the response's cap is reached the rest of them are left out and counted. */
static void clean_lines(struct clean *C, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        if (t->fields[i].kind != MG_F_LINES) continue;
        struct mg_lines *l = mg_item_lines(it, &t->fields[i]);
        for (size_t k = 0; k < l->n; k++) {
            if (C->left == 0) {
                l->omitted += (int64_t)(l->n - k);
                mg_lines_cut(l, k);
                it->flags |= MG_ITEM_TRUNCATED;
                break;
            }
            if (!l->v[k].text && !(l->v[k].text = strdup(""))) {
                l->omitted += (int64_t)(l->n - k);
                mg_lines_cut(l, k);
                break;
            }
            clean_string(C, it, &l->v[k].text, C->x->srv->cfg.max_chunk_bytes, true);
        }
    }
}

/* Append every string of the items to b, one per line (for the pre-scans). */
static void gather(struct mg_buf *b, struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        if ((f->kind == MG_F_TEXT || f->kind == MG_F_LABEL) && *mg_item_text(it, f)) {
            mg_buf_adds(b, *mg_item_text(it, f));
            mg_buf_adds(b, "\n\n");
        } else if (f->kind == MG_F_TAGS) {
            size_t *n;
            char ***v = mg_item_tags(it, f, &n);
            for (size_t k = 0; k < *n; k++) {
                if ((*v)[k]) mg_buf_adds(b, (*v)[k]);
                mg_buf_adds(b, "\n\n");
            }
        } else if (f->kind == MG_F_LINES) {
            struct mg_lines *l = mg_item_lines(it, f);
            for (size_t k = 0; k < l->n; k++) {
                if (l->v[k].text) mg_buf_adds(b, l->v[k].text);
                mg_buf_adds(b, "\n\n");
            }
        }
    }
}

/* Redaction and the injection check cost a scan each; one scan of all the
 * response's strings, one per line, says whether any field needs its own. */
static void prescan(struct clean *C, struct mg_items *l)
{
    struct mg_buf all;
    mg_buf_init(&all, (size_t)1 << 30);
    if (l->place) gather(&all, &l->place->base);
    for (size_t i = 0; i < l->n; i++) gather(&all, l->v[i]);
    C->scan = C->inject = true; /* when in doubt (out of memory), field by field */
    if (all.p) {
        struct mg_buf red;
        mg_buf_init(&red, (size_t)1 << 30);
        int n = 0;
        if (mg_gate_redact(&C->x->srv->cfg, all.p, all.len, &red, &n) == 0) C->scan = n > 0;
        mg_buf_release(&red);
        C->inject = mg_injection(all.p, all.len);
    }
    mg_buf_release(&all);
}

void mg_gate_clean(struct mg_ctx *x, struct mg_items *l)
{
    struct clean C = {.x = x, .left = x->srv->cfg.max_context_bytes};
    prescan(&C, l);
    if (l->place) clean_item(&C, &l->place->base);
    for (size_t i = 0; i < l->n;) {
        struct mg_item *it = l->v[i];
        if (C.left == 0 && has_text(it->type)) { /* over the response's cap: the rest of the list goes */
            mg_items_remove(l, i);
            l->omitted++;
            l->flags |= MG_ITEM_TRUNCATED;
            continue;
        }
        clean_item(&C, it);
        i++;
    }
    for (size_t i = 0; i < l->n; i++) { /* the items' lines, with what budget is left */
        struct mg_item *it = l->v[i];
        clean_lines(&C, it);
        l->redactions += it->redactions;
        l->flags |= it->flags;
        mg_injinfo_add(&l->inj, &it->inj);
    }
}

