/* render.h — gated items as JSON, from their declarations only.
 *
 * An item renders as an object of its declared fields (provider/item.h), in
 * declaration order, plus what the gate added: "source" (attribution;
 * "attribution" for a type that declares a field "source" of its own, the
 * note's origin),
 * "flags" (prompt_injection, hidden_text, control_sequences), "truncated"
 * (a field was cut at its cap) and "redactions" (secrets replaced in it).
 * Nothing else of the item is ever shown.
 */
#ifndef MG_RENDER_H
#define MG_RENDER_H

#include <jansson.h>

#include "provider/item.h"
#include "request/ctx.h"

json_t *mg_render_item(const struct mg_item *it);
/* The items as an array (new reference). */
json_t *mg_render_items(const struct mg_items *l);
/* {"redactions","flags","omitted"}: the gate's account of the list. */
json_t *mg_render_gate(const struct mg_items *l);
/* result["semantic"] = {"state":"loading","vectors_loaded","vectors_total"}
 * when l's hybrid search was answered by words because vectors were still
 * loading (mg_items.semantic_loading); returns result. */
json_t *mg_render_semantic(json_t *result, const struct mg_items *l);
/* o["flags"]: the names of flags' MG_ITEM_* bits; with MG_ITEM_INJECTION
 * also o["injection"]: {"score", "reasons"} from inj. */
void mg_render_flags(json_t *o, unsigned flags, const struct mg_injinfo *inj);
/* result with "gate" (above) added when l served text (an item with a text
 * field, or items left out for the cap); returns result. */
json_t *mg_render_gated(json_t *result, const struct mg_items *l);
/* An external memory provider that failed (l->degraded: its name) as an
 * entry of the answer's "providers": {"name","status","message"}, the
 * status being its error code without "provider_" (the shape the external
 * code providers' entries have, tools/ext.h). */
json_t *mg_render_degraded(const struct mg_items *l);
/* The place of a memory request as {"repo","session","project"}, null when
 * there is none. */
json_t *mg_render_place(const struct mg_items *l);
/* A scope as {"globs","exclude_globs","languages","repos"}, cleaned by the
 * gate first: it echoes the caller's own text. */
json_t *mg_render_scope(struct mg_ctx *x, const struct mg_scope *s);

#endif
