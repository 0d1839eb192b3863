/* gate_int.h — what the gate's files share: gate.c (binding, resolution,
 * inputs, running an operation), gate_clean.c (the guardrail, cleaning) and
 * gate_audit.c (the audit record and event). Not a contract for anyone else. */
#ifndef MG_GATE_INT_H
#define MG_GATE_INT_H

#include "request/gate.h"

/* Drop, log and count every item of out whose owner is not the request's
 * (repos: the ones the operation ran on; check_repo: it ran on repos). */
void mg__gate_guardrail(struct mg_ctx *x, const struct mg_repo *repos, size_t nrepos, bool check_repo,
                        struct mg_items *out);

/* Record an operation's part (its counts, flags, results) in the request's audit record. */
void mg__gate_record_part(struct mg_ctx *x, const struct mg_op *op, const struct mg_items *out);

#endif
