/* scan.h — the secret scanner: find API keys, tokens, private keys and
 * passwords in text, and redact them.
 *
 * Rules come from a line-oriented file (data/secrets.rules, embedded in the
 * binary at build time; docs/security.md documents the format). A first
 * pass, one Vectorscan database, finds where a rule may match: the rule's
 * keywords (one must occur in any match), or, for the rules whose keywords
 * are common words and the multi-line ones, the rule's pattern in prefilter
 * mode. Each hit is confirmed with the rule's PCRE2 pattern (JIT) on a
 * bounded window (the keyword's line, or the hit's line, at most
 * MG_SCAN_WINDOW_MAX bytes either side; for a multi-line rule, its `lines`
 * lines ending with the hit's line, at most MG_SCAN_BLOCK_MAX bytes),
 * which also extracts the secret group. A confirmed match is then kept only
 * if one of the rule's keywords occurs in the match (case-insensitive), the
 * secret's Shannon entropy reaches the rule's minimum, and no allowlist regex
 * of the rule (or of the allowlists it uses) matches the secret or its line.
 * Then runs of 2 to 8 adjacent string literals ("AKIA" "...", '...' + '...')
 * are joined (at most 512 bytes of contents a run) and scanned again; a
 * finding that spans a join is reported from its first piece to its last.
 * Then runs of 24 or more base64 characters that decode to mostly printable
 * text are decoded and the texts scanned again; a finding there is reported
 * as the whole base64 run, with `encoded` set (scan_b64.c).
 *
 * Redaction (security/secrets.h) is built on mg_scan.
 *
 * Thread safety: a scanner is immutable after mg_scanner_new; any number of
 * threads may call mg_scan on it at once. Vectorscan scratch space and PCRE2
 * match data come from a small pool inside the scanner, so callers manage
 * nothing. mg_scanner_free must not race with a scan.
 */
#ifndef MG_SCAN_H
#define MG_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define MG_SCAN_MAX_BYTES    (1u << 30)        /* largest buffer one mg_scan accepts (the max_file_size cap) */
#define MG_RULES_MAX_BYTES   (4u << 20)        /* largest rules file */
#define MG_RULES_MAX_LINE    8192              /* longest line of a rules file */
#define MG_RULES_MAX_RULES   4096
#define MG_SCAN_WINDOW_MAX   (16u << 10)       /* confirmation window cap, bytes either side of a one-line hit */
#define MG_SCAN_BLOCK_MAX    (1u << 20)        /* a multi-line rule's window cap, bytes before its hit */

enum mg_sev { MG_SEV_LOW, MG_SEV_MEDIUM, MG_SEV_HIGH };

struct mg_scanner;

/* Compile a rule set. rules_text NULL = the built-in rule set
 * (data/secrets.rules). Returns 0, or -1 with err: invalid_rules with
 * "rules line N: ..." for a syntax error, an unknown field, a bad value, a
 * pattern PCRE2 or Vectorscan cannot compile (naming the rule id), or a file
 * over the caps above. */
int mg_scanner_new(const char *rules_text, size_t len, struct mg_scanner **out, struct mg_err *err);
/* Compile a rules file from disk (the `secret_rules` setting, `--rules`). */
int mg_scanner_load(const char *path, struct mg_scanner **out, struct mg_err *err);
/* The built-in rule set, compiled once (pthread_once) and kept for the life
 * of the process. NULL if it failed to compile, which a test catches. */
const struct mg_scanner *mg_scanner_default(void);
void mg_scanner_free(struct mg_scanner *s);
size_t mg_scanner_rule_count(const struct mg_scanner *s);

/* Where compiled rule databases are cached (<data dir>/cache); NULL or ""
 * turns the cache off (the default). Call before the first scanner is made. */
void mg_scanner_cache_dir(const char *dir);

/* Compile for any CPU and cache under the keys of the images shipped in the
 * binary, in dir (memgate-rulesdb, at build time: src/rulesdb.c). */
void mg_scanner_ship(const char *dir);

/* Vectorscan's hs_compile_multi (block mode, ids 0..n-1) through the same
 * on-disk cache as the rules' database (mg_scanner_cache_dir), under kind:
 * a process that scans for prompt injection loads the compiled patterns in
 * a millisecond instead of compiling them for a tenth of a second. 0, or -1
 * with the compiler's message in why. */
struct hs_database;
int mg_hs_compile_cached(const char *kind, const char *const *pats, const unsigned *flags, unsigned n,
                         struct hs_database **db, char *why, size_t cap);
/* Free a database mg_hs_compile_cached gave (a cached one is a mapping). */
void mg_hs_free(struct hs_database *db);

/* The built-in rules text (data/secrets.rules as embedded at build time). */
const char *mg_scanner_builtin_rules(size_t *len);

struct mg_finding {
    const char *rule;        /* rule id; lives as long as the scanner */
    const char *description; /* rule description; same lifetime */
    enum mg_sev sev;
    size_t start, end;       /* byte range of the secret itself in buf */
    unsigned line;           /* 1-based line of start */
    bool encoded;            /* found in the base64-decoded text of [start, end), a whole base64 run */
};

/* Scan buf. Calls cb for each finding in buffer order; findings never
 * overlap (on overlap the longer one wins, then the higher severity, then the
 * earlier rule). cb returns nonzero to stop the scan. Returns the number of
 * findings reported, or -1 with err (input_too_large over MG_SCAN_MAX_BYTES,
 * out_of_memory, internal). Any bytes are accepted, NUL included; cb is never
 * called after an error. */
int mg_scan(const struct mg_scanner *s, const char *buf, size_t len, int (*cb)(const struct mg_finding *, void *),
            void *ud, struct mg_err *err);

/* A secret for display, never the whole of it: its first 4 bytes (fewer for
 * a short one: a quarter of its length), "…", and its length in bytes, e.g.
 * "ghp_…(40)". Bytes that are not printable ASCII show as '?'. Returns out. */
char *mg_secret_mask(const char *secret, size_t n, char *out, size_t cap);

/* Decode the n base64 characters at in ([A-Za-z0-9+/] only, no padding;
 * a lone last one is ignored) into out (room for n / 4 * 3 + 2 bytes), as
 * the scanner does for a run: the decoded length, or SIZE_MAX as soon as
 * more than a tenth of the bytes the run decodes to are neither printable
 * ASCII nor white space (then out holds part of it). */
size_t mg_b64_decode_text(const char *in, size_t n, char *out);

/* "high", "medium", "low"; and back (0, or -1 for another word). */
const char *mg_sev_name(enum mg_sev s);
int mg_sev_parse(const char *s, enum mg_sev *out);

/* Shannon entropy of the n bytes (n under 4 GiB), in bits per byte (0..8). */
double mg_shannon_entropy(const char *s, size_t n);

#endif
