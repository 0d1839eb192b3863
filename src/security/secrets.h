/* secrets.h — what memgate does with the secrets the scanner (scan.h) finds.
 *
 * The policy is per severity (config secret_action_high / _medium / _low):
 *   redact   the secret is replaced by "[REDACTED:<rule>]" and the newlines
 *            it spanned (a key block), so line numbers hold;
 *   exclude  (indexing) the whole chunk holding it is blanked: its bytes become
 *            spaces (newlines kept, so line numbers hold) behind an
 *            "[EXCLUDED:<rule>]" marker, so nothing of it reaches the FTS
 *            index, the trigram index, snippets or embeddings; when text is
 *            served (the gate) an excluded secret is redacted;
 *   keep     nothing is done.
 * Defaults: high redact, medium redact, low keep.
 *
 * mg_secrets_apply is the one place this happens: the indexer calls it on
 * every file before chunking, the SecurityGate on every piece of text it
 * returns (read_file serves the file from disk, so it needs it too).
 */
#ifndef MG_SECRETS_H
#define MG_SECRETS_H

#include <stddef.h>

#include "util/buf.h"
#include "util/config.h"
#include "util/err.h"

struct mg_scanner;

enum mg_secret_action { MG_SECRET_KEEP, MG_SECRET_REDACT, MG_SECRET_EXCLUDE };

struct mg_secret_policy {
    enum mg_secret_action action[3]; /* by enum mg_sev */
};

void mg_secret_policy(const struct mg_config *c, struct mg_secret_policy *p);

/* Where compiled Vectorscan databases (secret rules, injection patterns)
 * are cached: the config's cache_dir, else <home>/cache. Set it before
 * anything compiles; mg_secrets_scanner does too. */
void mg_secrets_cache_dir(const struct mg_config *c);

/* The scanner for this config: the built-in rules, or the secret_rules file
 * (compiled once per process). NULL with err when the file does not load. */
const struct mg_scanner *mg_secrets_scanner(const struct mg_config *c, struct mg_err *err);

/* Where an excluded secret ended up in the redacted text, and its rule. */
struct mg_secret_excl {
    size_t off;
    const char *rule;
};

/* Copy buf into out with every secret whose action is redact replaced by
 * "[REDACTED:<rule>]" and its newlines. Secrets to exclude are left in place
 * and listed in *excl (malloc'd; *nexcl entries; offsets in out) when excl
 * is not NULL, else redacted too. *nred counts the redactions. 0, or -1
 * with err (input_too_large when out's maximum is too small). */
int mg_secrets_apply(const struct mg_scanner *s, const struct mg_secret_policy *p, const char *buf, size_t len,
                     struct mg_buf *out, int *nred, struct mg_secret_excl **excl, size_t *nexcl, struct mg_err *err);

/* Blank text[start, end) in place: newlines kept, everything else a space,
 * "[EXCLUDED:<rule>]" written at the start when it fits. */
void mg_secrets_blank(char *text, size_t start, size_t end, const char *rule);

#endif
