/* scan_int.h — what the files of the secret scanner (scan.h) share; not for
 * other modules.
 *
 * The scanner is cut along its phases, each a file, calls going one way
 * (down this list):
 *
 *   scan.c           mg_scan: the passes in order, findings reported with their lines
 *   scan_join.c      secrets split across adjacent string literals, joined and scanned again
 *   scan_b64.c       secrets wrapped in base64, decoded and scanned again
 *   scan_match.c     one pass over a buffer: first-pass hits, confirmation, entropy and
 *                    allowlists, overlaps; the pool of per-scan state
 *   scan_compile.c   a scanner made and freed: the rules compiled into the first pass
 *                    and the allowlist databases
 *   scan_prefilter.c a rule's pattern as the first pass compiles it
 *   scan_rules.c     the rules file parsed into the rule table, and its checks
 *   scan_cache.c     compiled Vectorscan databases cached on disk
 *
 * A scanner is immutable once mg_scanner_new returns (but for its pool of
 * per-scan state, behind mu): everything here that takes a const scanner may
 * run on many threads at once.
 */
#ifndef MG_SCAN_INT_H
#define MG_SCAN_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <hs/hs.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "security/scan.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/lre.h"

/* ---- the rule set in memory (scan_rules.c fills it, scan_compile.c compiles it) ---- */

/* Allowlist regexes: `allow` tests the secret, `allow_line` its whole line. */
struct mg__scan_alist {
    char *name;          /* NULL for a rule's own list */
    struct mg_lre *sec;  /* on the secret */
    size_t nsec;
    struct mg_lre *line; /* on the line holding the secret's start */
    size_t nline;
};

/* The allowlist regexes one rule applies (its own and those of the lists it
 * uses) on the secret, or on its line. Those Vectorscan runs exactly are one
 * Vectorscan database (`db`; any match allows), scanned once: anchored ones
 * (^...) too, as one PCRE2 call costs about what one scan of the whole
 * database does. The rest (back-references, lookarounds, ...) stay PCRE2
 * programs in `extra` (borrowed from their lists). Rules with the same lists
 * share their asets. */
struct mg__scan_aset {
    hs_database_t *db;
    struct mg_lre **extra; /* borrowed from the lists */
    size_t nextra;
};

struct mg__scan_rule {
    char *id;
    char *desc;
    enum mg_sev sev;
    char **kw;           /* keywords, lower-case */
    size_t nkw;
    char *pattern;
    unsigned pattern_line; /* where `pattern` was, for errors */
    unsigned line;       /* where the rule began */
    int group[4];        /* the secret: the first of these capture groups that is set */
    int ngroup;          /* 0 = the whole match */
    double entropy;      /* minimum Shannon entropy of the secret, bits/byte */
    int lines;           /* how many lines a match may span (window size) */
    bool bykw;           /* first pass: its keywords (else its pattern, prefiltered) */
    struct mg_lre re;    /* pattern, compiled when first used (built-in rules) or at load */
    struct mg__scan_alist own;
    struct mg__scan_alist **uses; /* named allowlists this rule also applies */
    size_t nuses;
    bool uses_set;       /* an `allowlists` field was given */
    const struct mg__scan_aset *asec, *aline; /* all of the above, merged (scan_compile.c) */
};

/* One keyword of the first pass and the rules (found by their keywords)
 * that list it. */
struct mg__scan_kw {
    const char *kw;      /* a rule's, lower-case */
    size_t len;
    uint32_t *rules;
    size_t nrules;
};

struct mg__scan_slot; /* one scan's scratch space (scan_match.c) */

struct mg_scanner {
    struct mg__scan_rule *rules;
    size_t nrules;
    struct mg__scan_alist *lists; /* named allowlists */
    size_t nlists;
    struct mg__scan_aset *asets;  /* merged allowlists, two per distinct set of lists */
    size_t nasets;
    hs_database_t *db;   /* the first pass (scan_compile.c) */
    struct mg__scan_kw *kws; /* its keywords: id nrules + i is kws[i] */
    size_t nkws;
    hs_scratch_t *proto; /* scratch prototype, cloned into the pool */
    hs_scratch_t *aproto; /* the same for the allowlist databases (NULL: none) */
    pcre2_match_context *mctx;
    pthread_mutex_t mu;
    struct mg__scan_slot *pool; /* free per-scan states */
};

/* ---- scan_rules.c ---- */

/* Parse a rules file into s's rules and lists (regexes compiled now, or when
 * first used when lazy: the built-in rules). 0, or -1 with invalid_rules
 * "rules line N: ..." or out_of_memory. */
int mg__scan_rules_parse(struct mg_scanner *s, const char *text, size_t len, bool lazy, struct mg_err *err);
/* Free s's rules and lists (the rest of s is scan_compile.c's). */
void mg__scan_rules_release(struct mg_scanner *s);

/* ---- scan_cache.c ---- */

/* A set of n patterns with their flags under kind (and the texts of extra,
 * which its contents depend on too): the key of its image shipped in the
 * binary, and its file in the cache when the cache is on
 * (mg_scanner_cache_dir) and the path fits. */
struct mg__hs_set {
    unsigned char key[16];
    bool cache;
    char path[PATH_MAX + 64];
};
void mg__hs_set_of(const char *kind, const char *const *pats, const unsigned *flags, size_t n,
                   const char *const *extra, size_t nextra, struct mg__hs_set *set);
/* The set's database into *db, shipped or cached: false when there is none,
 * or the cached one is not whole (then it is to be compiled and stored). */
bool mg__hs_load(const struct mg__hs_set *set, hs_database_t **db);
/* Cache db as the set's (best effort: a failure caches nothing). */
void mg__hs_store(const struct mg__hs_set *set, const hs_database_t *db);
/* The indexes Vectorscan rejected of the set (pc[i] set), as shipped or
 * remembered beside its cache file; and remember them. */
void mg__hs_rejects_load(const struct mg__hs_set *set, bool *pc, size_t n);
void mg__hs_rejects_store(const struct mg__hs_set *set, const bool *pc, size_t n);
/* The platform to compile for: NULL (this CPU), or any CPU when shipping. */
const hs_platform_info_t *mg__hs_platform(void);

/* An image shipped in the binary (gen/rules_images.c, written by
 * memgate-rulesdb): a set's database (MG__HS_DB: Vectorscan's in-memory
 * database at a page-aligned address, as the cache maps it) or the indexes
 * Vectorscan rejected of it (MG__HS_REJECTS: uint32 each). */
enum { MG__HS_DB = 0, MG__HS_REJECTS = 1 };
struct mg__hs_image {
    unsigned char key[16];
    unsigned what;
    const unsigned char *p;
    size_t len;
};
/* (defined by gen/rules_images.c as mg__hs_shipped[mg__hs_nshipped]; weak in scan_cache.c) */

/* ---- scan_prefilter.c ---- */

/* A rule's pattern as the first pass compiles it (malloc'd), and its flags;
 * NULL when out of memory. */
char *mg__scan_prefilter_form(const struct mg__scan_rule *r, unsigned *flags);

/* ---- scan_match.c: one pass over a buffer ---- */

/* A candidate, then a finding: rule's secret at [start, end). */
struct mg__scan_hit {
    uint32_t rule;
    bool enc;            /* found in the base64-decoded text of [start, end) (scan_b64.c) */
    size_t start, end;
};

/* One scan's state; after mg__scan_run, v holds its n findings. */
struct mg__scan {
    const struct mg_scanner *s;
    const char *buf;
    size_t len;
    struct mg__scan_slot *sl;
    struct mg__scan_hit *v;
    size_t n, cap;
    bool oom;
    size_t nfh;          /* first-pass hits in sl->fh */
    bool line_ok;        /* line_s, line_e: the whole line of the last keyword hit */
    size_t line_s, line_e;
};

/* Scan buf with s's rules: 0 with sc->v (sc->n findings, free it) in buffer
 * order, without overlaps, entropy and allowlists checked; -1 with err. */
int mg__scan_run(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err);
/* The passes over texts made from the buffer (joined literals, decoded
 * base64): scan t[0..n) with s's rules and hand each finding, in order, to
 * map, which takes it back to the buffer's offsets (and keeps it, or not):
 * 0, or -1 with err set, which stops. 0, or -1 with err. */
int mg__scan_text(const struct mg_scanner *s, const char *t, size_t n,
                  int (*map)(void *ud, const struct mg__scan_hit *h, struct mg_err *err), void *ud, struct mg_err *err);
/* Merge v (nv findings, without overlaps among them) into sc->v (the same):
 * of two that overlap the better is kept (both sides were checked already). */
int mg__scan_merge(const struct mg_scanner *s, struct mg__scan *sc, const struct mg__scan_hit *v, size_t nv,
                   struct mg_err *err);
/* Is a a better finding than b (they overlap)? Longer, then more severe,
 * then the earlier rule. */
bool mg__scan_better(const struct mg_scanner *s, const struct mg__scan_hit *a, const struct mg__scan_hit *b);
/* Free s's pool of per-scan state (mg_scanner_free). */
void mg__scan_pool_free(struct mg_scanner *s);

/* ---- the passes after the first (scan_join.c, scan_b64.c) ---- */

/* Find the runs of adjacent string literals in buf, scan them joined, and
 * merge the findings that span a join into sc->v. */
int mg__scan_join(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err);
/* Scan the logical lines whose words a backslash-newline splits, joined,
 * and merge the findings that span a continuation into sc->v (scan_join.c). */
int mg__scan_splice(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err);
/* Decode the base64 runs of buf, scan the texts, and merge their findings
 * (each the whole of its run, `enc`) into sc->v. */
int mg__scan_b64(const struct mg_scanner *s, const char *buf, size_t len, struct mg__scan *sc, struct mg_err *err);

/* ---- small helpers ---- */

/* Room for element n of *v (*cap elements of size bytes): 0, or -1 when out
 * of memory (*v still valid). */
static inline int mg__scan_grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return 0;
    void *nv = mg_grow(*v, n, cap, size);
    if (!nv) return -1;
    *v = nv;
    return 0;
}

/* ASCII lower case (tolower() is a call per byte, and locale-dependent) */
static inline unsigned char mg__scan_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Case-insensitive: does [p, p+n) contain the lower-case word kw? */
static inline bool mg__scan_has_word(const char *p, size_t n, const char *kw)
{
    size_t k = strlen(kw);
    if (k > n) return false;
    for (size_t i = 0; i + k <= n; i++) {
        if (mg__scan_lower((unsigned char)p[i]) != (unsigned char)kw[0]) continue;
        size_t j = 1;
        while (j < k && mg__scan_lower((unsigned char)p[i + j]) == (unsigned char)kw[j]) j++;
        if (j == k) return true;
    }
    return false;
}

#endif
