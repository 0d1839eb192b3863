/* render.c — see render.h. */
#include "tools/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/gate.h"
#include "util/json.h"

static json_t *text_json(const char *s) { return mg_json_text(s); }

json_t *mg_render_item(const struct mg_item *it)
{
    const struct mg_item_type *t = it->type;
    json_t *o = json_object();
    bool truncated = it->flags & MG_ITEM_TRUNCATED;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        struct mg_item *m = (struct mg_item *)it; /* the accessors do not write */
        switch (f->kind) {
        case MG_F_TEXT:
        case MG_F_LABEL: {
            const char *s = *mg_item_text(m, f);
            if (s) json_object_set_new(o, f->name, text_json(s));
            else if (f->flags & MG_F_NULL) json_object_set_new(o, f->name, json_null());
            break;
        }
        case MG_F_TAGS: {
            size_t *n;
            char ***v = mg_item_tags(m, f, &n);
            json_t *a = json_array();
            for (size_t k = 0; k < *n; k++) json_array_append_new(a, text_json((*v)[k] ? (*v)[k] : ""));
            json_object_set_new(o, f->name, a);
            break;
        }
        case MG_F_LINES: {
            const struct mg_lines *l = mg_item_lines(m, f);
            if (l->n == 0 && l->omitted == 0 && (f->flags & MG_F_OMIT0)) break;
            json_t *a = json_array();
            for (size_t k = 0; k < l->n; k++)
                json_array_append_new(a, json_pack("{s:I, s:o}", "line", (json_int_t)l->v[k].line, "text",
                                                   text_json(l->v[k].text ? l->v[k].text : "")));
            json_object_set_new(o, f->name, a);
            if (l->omitted > 0) {
                char key[96];
                snprintf(key, sizeof(key), "%s_omitted", f->name);
                json_object_set_new(o, key, json_integer((json_int_t)l->omitted));
            }
            break;
        }
        case MG_F_INT: {
            int64_t v = mg_item_int(it, f);
            if (v == MG_INT_NULL) {
                if (f->flags & MG_F_NULL) json_object_set_new(o, f->name, json_null());
            } else if (v || !(f->flags & MG_F_OMIT0)) {
                json_object_set_new(o, f->name, json_integer(v));
            }
            break;
        }
        case MG_F_REAL: {
            double v = mg_item_real(it, f);
            if (!isfinite(v)) v = 0;
            if (v != 0 || !(f->flags & MG_F_OMIT0)) json_object_set_new(o, f->name, json_real(v));
            break;
        }
        case MG_F_BOOL: {
            bool v = mg_item_bool(it, f);
            if (strcmp(f->name, "truncated") == 0) {
                truncated |= v; /* the item's own "more to read" and the gate's cut are one flag */
                break;
            }
            if (v || !(f->flags & MG_F_OMIT0)) json_object_set_new(o, f->name, json_boolean(v));
            break;
        }
        }
    }
    bool has_truncated_field = false;
    for (size_t i = 0; i < t->nfields; i++)
        if (strcmp(t->fields[i].name, "truncated") == 0) has_truncated_field = true;
    if (truncated || has_truncated_field) json_object_set_new(o, "truncated", json_boolean(truncated));
    if (it->source)
        json_object_set_new(o, json_object_get(o, "source") ? "attribution" : "source", text_json(it->source));
    if (it->flags & (MG_ITEM_INJECTION | MG_ITEM_HIDDEN | MG_ITEM_ESCAPES))
        mg_render_flags(o, it->flags & ~MG_ITEM_TRUNCATED, &it->inj);
    if (it->redactions > 0) json_object_set_new(o, "redactions", json_integer(it->redactions));
    return o;
}

json_t *mg_render_items(const struct mg_items *l)
{
    json_t *a = json_array();
    for (size_t i = 0; i < l->n; i++) json_array_append_new(a, mg_render_item(l->v[i]));
    return a;
}

void mg_render_flags(json_t *o, unsigned flags, const struct mg_injinfo *inj)
{
    json_t *fl = json_array();
    if (flags & MG_ITEM_INJECTION) json_array_append_new(fl, json_string("prompt_injection"));
    if (flags & MG_ITEM_HIDDEN) json_array_append_new(fl, json_string("hidden_text"));
    if (flags & MG_ITEM_ESCAPES) json_array_append_new(fl, json_string("control_sequences"));
    if (flags & MG_ITEM_TRUNCATED) json_array_append_new(fl, json_string("truncated"));
    json_object_set_new(o, "flags", fl);
    if (!(flags & MG_ITEM_INJECTION)) return;
    const char *names[16];
    size_t n = mg_gate_injection_reasons(inj->reasons, names, 16);
    json_t *why = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(why, json_string(names[i]));
    json_object_set_new(o, "injection", json_pack("{s:i, s:o}", "score", inj->score, "reasons", why));
}

json_t *mg_render_semantic(json_t *result, const struct mg_items *l)
{
    if (result && l->semantic_loading)
        json_object_set_new(result, "semantic",
                            json_pack("{s:s, s:I, s:I}", "state", "loading", "vectors_loaded",
                                      (json_int_t)l->vectors_loaded, "vectors_total", (json_int_t)l->vectors_total));
    else if (result && l->semantic_unavailable) /* the embedder or the vector store failed: answered by words */
        json_object_set_new(result, "semantic",
                            json_pack("{s:s, s:s, s:s, s:i}", "state", "unavailable", "source",
                                      l->semantic_source ? l->semantic_source : "embedder", "error",
                                      l->semantic_error ? l->semantic_error : MG_E_EMBED_UNAVAILABLE, "repos",
                                      l->semantic_unavailable));
    return result;
}

json_t *mg_render_gate(const struct mg_items *l)
{
    json_t *o = json_pack("{s:i}", "redactions", l->redactions);
    mg_render_flags(o, l->flags, &l->inj);
    json_object_set_new(o, "omitted", json_integer((json_int_t)l->omitted));
    return o;
}

json_t *mg_render_degraded(const struct mg_items *l)
{
    const char *code = l->degraded_code ? l->degraded_code : MG_E_PROVIDER_UNAVAILABLE;
    char msg[160];
    snprintf(msg, sizeof(msg), "%s failed (%s): this answer is without what it holds", l->degraded, code);
    return json_pack("{s:s, s:s, s:s}", "name", l->degraded, "status",
                     strncmp(code, "provider_", 9) == 0 ? code + 9 : "error", "message", msg);
}

json_t *mg_render_gated(json_t *result, const struct mg_items *l)
{
    if (result && l->degraded) json_object_set_new(result, "providers", json_pack("[o]", mg_render_degraded(l)));
    bool text = l->omitted > 0;
    for (size_t i = 0; i < l->n && !text; i++)
        for (size_t k = 0; k < l->v[i]->type->nfields && !text; k++)
            text = l->v[i]->type->fields[k].kind == MG_F_TEXT || l->v[i]->type->fields[k].kind == MG_F_LINES;
    if (text && result) json_object_set_new(result, "gate", mg_render_gate(l));
    return result;
}

json_t *mg_render_place(const struct mg_items *l)
{
    if (!l->place) return json_null();
    return mg_render_item(&l->place->base);
}

/* ---- the scope, echoed ---- */

#define SCOPE_FIELDS(F, FA)              \
    FA(TAGS, globs, "globs", 0)          \
    FA(TAGS, excludes, "exclude_globs", 0) \
    FA(TAGS, langs, "languages", 0)      \
    FA(TAGS, repos, "repos", 0)
struct scope_item {
    struct mg_item base;
    MG_ITEM_MEMBERS(SCOPE_FIELDS)
};
#define MG_ITEM_T struct scope_item
MG_ITEM_TYPE(static, scope_type, "scope", SCOPE_FIELDS, 0, NULL);
#undef MG_ITEM_T

json_t *mg_render_scope(struct mg_ctx *x, const struct mg_scope *s)
{
    struct mg_items l;
    mg_items_init(&l);
    struct scope_item *it = mg_items_add(&l, &scope_type);
    struct mg_scope copy;
    if (!it || mg_scope_copy(&copy, s) != 0) {
        mg_items_release(&l);
        return json_pack("{s:[], s:[], s:[], s:[]}", "globs", "exclude_globs", "languages", "repos");
    }
    it->globs = copy.globs, it->nglobs = copy.nglobs;
    it->excludes = copy.excludes, it->nexcludes = copy.nexcludes;
    it->langs = copy.langs, it->nlangs = copy.nlangs;
    it->repos = copy.repos, it->nrepos = copy.nrepos;
    mg_gate_clean(x, &l);
    json_t *j = mg_render_item(&it->base);
    json_object_del(j, "truncated");
    mg_items_release(&l);
    return j;
}
