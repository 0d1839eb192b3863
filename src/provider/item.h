/* item.h — what providers return: items whose fields are declared by their
 * type.
 *
 * A provider answers with a list of items (struct mg_items). Each item is a
 * C struct whose first member is a struct mg_item; its type (struct
 * mg_item_type) declares every field the item shows: the JSON name, the
 * kind, and where the field lives in the struct. Two promises follow:
 *
 *   - the gate cleans every text field of every item (request/gate.h):
 *     secrets redacted, control sequences and hidden characters stripped,
 *     prompt injection flagged, the length capped; it never guesses by name;
 *   - tools render items from the declaration only (tools/render.h), so a
 *     field that is not declared is never shown, and a text field is shown
 *     only after the gate has cleaned it.
 *
 * Kinds:
 *   MG_F_TEXT    char *: retrieved text (a snippet, a file's lines, a note's
 *                value); capped at max_chunk_bytes, and counted against the
 *                response's max_context_bytes.
 *   MG_F_LABEL   char *: a name, a key, a path, an id; capped at MG_LABEL_MAX.
 *   MG_F_TAGS    char ** with a size_t count: a list of labels.
 *   MG_F_LINES   struct mg_lines: numbered lines of retrieved text (a search
 *                hit's matching lines), each cleaned like MG_F_TEXT. They
 *                are secondary text: the gate cleans and counts them after
 *                every item's other fields, and when the response's
 *                max_context_bytes runs out it leaves the rest of them out
 *                (adding them to `omitted`) rather than whole items.
 *                Rendered as [{"line", "text"}] and, when lines were left
 *                out, "<name>_omitted": N.
 *   MG_F_INT     int64_t
 *   MG_F_REAL    double
 *   MG_F_BOOL    bool
 * Text, label and tags fields are owned by the item (malloc'd); mg_items
 * frees them (and the texts of lines). Flag MG_F_NULL renders a NULL text, or
 * an int of MG_INT_NULL (a number not known), as null (otherwise NULL is left
 * out); MG_F_OMIT0 leaves a zero number, false or a list of no lines out.
 *
 * Ownership (the guardrail): every item says whose it is in its header:
 * tenant, repo id, repo fingerprint, project. The gate drops and counts an
 * item whose owner is not the request's (type->owner says which of these
 * the type carries).
 *
 * Attribution: the gate sets item->source from the field flagged
 * MG_F_SOURCE and the one flagged MG_F_LINE ("path:line"), or
 * "<prefix>:<label>" ("note:deploy-steps"); a field flagged MG_F_ORIGIN
 * names an external provider that found the item ("<provider>:path:line").
 *
 * Declaring a type once: a list macro names every field the type shows, in
 * the order it is shown, each with its kind and flags,
 *
 *     #define MG_NOTE_FIELDS(F, FA)               \
 *         F(LABEL, key, MG_F_SOURCE)              \
 *         F(TEXT, value, 0)                       \
 *         FA(INT, total_files, "files", 0)        (shown as "files")
 *
 * and both the struct's members (MG_ITEM_MEMBERS(MG_NOTE_FIELDS)) and the
 * type's table (MG_ITEM_TYPE) come from it, so the two cannot drift. A
 * member declared beside the list, outside it, is never shown.
 */
#ifndef MG_ITEM_H
#define MG_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MG_LABEL_MAX 4096 /* the cap on one label (a path, a key, a name) */

enum mg_fkind { MG_F_TEXT, MG_F_LABEL, MG_F_TAGS, MG_F_INT, MG_F_REAL, MG_F_BOOL, MG_F_LINES };

/* MG_F_LINES: lines of a file, each with its number (v owned, texts owned). */
struct mg_line {
    int64_t line;
    char *text;
};
struct mg_lines {
    struct mg_line *v;
    size_t n;
    int64_t omitted;    /* lines left out: past the provider's cap, or the response's */
};

#define MG_F_NULL   0x1u  /* a NULL text or an MG_INT_NULL int renders as null (default: left out) */
#define MG_F_OMIT0  0x2u  /* a zero number or false is left out */
#define MG_F_SOURCE 0x4u  /* this label (or int) names the item's source (attribution) */
#define MG_F_LINE   0x8u  /* this int is the line of the source ("path:line") */
#define MG_F_ORIGIN 0x10u /* this label names an external provider that found the item */

#define MG_INT_NULL INT64_MIN /* an MG_F_INT with MG_F_NULL: not known */

struct mg_field {
    const char *name;   /* the JSON member */
    uint8_t kind;       /* enum mg_fkind */
    uint8_t flags;      /* MG_F_* */
    uint16_t off;       /* offsetof the field in the item struct */
    uint16_t count_off; /* MG_F_TAGS: offsetof its size_t count */
};

/* A type's members, from its list: F(KIND, member, flags) and FA(KIND, member, "json name", flags) rows. */
#define MG_ITEM_M_TEXT(m)  char *m;
#define MG_ITEM_M_LABEL(m) char *m;
#define MG_ITEM_M_TAGS(m)  char **m; size_t n##m;
#define MG_ITEM_M_INT(m)   int64_t m;
#define MG_ITEM_M_REAL(m)  double m;
#define MG_ITEM_M_BOOL(m)  bool m;
#define MG_ITEM_M_LINES(m) struct mg_lines m;
#define MG_ITEM_MEMBER(kind, m, flags) MG_ITEM_M_##kind(m)
#define MG_ITEM_MEMBER_AS(kind, m, json, flags) MG_ITEM_M_##kind(m)
#define MG_ITEM_MEMBERS(LIST) LIST(MG_ITEM_MEMBER, MG_ITEM_MEMBER_AS)

/* A type's table, from its list, for the struct MG_ITEM_T names (#define it
 * before MG_ITEM_TYPE, #undef it after). linkage: static, or empty. */
#define MG_ITEM_COUNT_TEXT(m)  0
#define MG_ITEM_COUNT_LABEL(m) 0
#define MG_ITEM_COUNT_TAGS(m)  (uint16_t)offsetof(MG_ITEM_T, n##m)
#define MG_ITEM_COUNT_INT(m)   0
#define MG_ITEM_COUNT_REAL(m)  0
#define MG_ITEM_COUNT_BOOL(m)  0
#define MG_ITEM_COUNT_LINES(m) 0
#define MG_ITEM_ROW_AS(kind, m, json, flags) \
    {(json), MG_F_##kind, (flags), (uint16_t)offsetof(MG_ITEM_T, m), MG_ITEM_COUNT_##kind(m)},
#define MG_ITEM_ROW(kind, m, flags) MG_ITEM_ROW_AS(kind, m, #m, flags)
#define MG_ITEM_TYPE(linkage, var, name, LIST, owner, prefix)                                                     \
    static const struct mg_field var##_fields_[] = {LIST(MG_ITEM_ROW, MG_ITEM_ROW_AS)};                            \
    linkage const struct mg_item_type var = {(name), sizeof(MG_ITEM_T), var##_fields_,                              \
                                             sizeof(var##_fields_) / sizeof(var##_fields_[0]), (owner), (prefix)}

/* What the guardrail checks for items of a type (type->owner). */
#define MG_OWN_TENANT  0x1u /* own.tenant is the request's tenant */
#define MG_OWN_REPO    0x2u /* own.repo is one of the request's repos, own.fp its fingerprint when set */
#define MG_OWN_PROJECT 0x4u /* own.project is the request's memory project (mg_items.place) */

struct mg_item_type {
    const char *name;              /* "code", "note", ...: the guardrail's and the audit's kind */
    size_t size;                   /* sizeof the item struct */
    const struct mg_field *fields;
    size_t nfields;
    unsigned owner;                /* MG_OWN_* */
    const char *source_prefix;     /* NULL: "path:line"; else "<prefix>:<label>" (attribution) */
};

struct mg_owner {
    char tenant[65];
    char repo[65];                 /* "" when the type has no repo */
    char fp[33];                   /* the repo's fingerprint, "" when not recorded */
    int64_t project;               /* 0: none */
};

/* Set by the gate on every item it lets through. */
#define MG_ITEM_INJECTION 0x1u /* text reads like an instruction to the model */
#define MG_ITEM_HIDDEN    0x2u /* hidden characters were removed */
#define MG_ITEM_ESCAPES   0x4u /* control sequences or model markers were removed */
#define MG_ITEM_TRUNCATED 0x8u /* a field was cut at its cap */

/* What the prompt-injection check found in the texts a record covers
 * (security/sanitize.h): the highest score and every reason (MG_INJ_*). */
struct mg_injinfo {
    int score;
    unsigned reasons;
};
static inline void mg_injinfo_add(struct mg_injinfo *to, const struct mg_injinfo *from)
{
    if (from->score > to->score) to->score = from->score;
    to->reasons |= from->reasons;
}

struct mg_item {
    const struct mg_item_type *type;
    struct mg_owner own;
    /* the gate's */
    char *source;                  /* attribution, or NULL */
    unsigned flags;                /* MG_ITEM_* */
    struct mg_injinfo inj;         /* with MG_ITEM_INJECTION: its score and reasons */
    int redactions;                /* secrets replaced in this item's fields (providers may add theirs) */
    bool gated;                    /* cleaned by the gate */
};

/* Where a memory request ran: the repo, the conversation and its project
 * (set by memory providers; the gate checks items against it and cleans
 * its labels like any item's). */
#define MG_PLACE_FIELDS(F, FA) \
    F(LABEL, repo, 0)           \
    F(LABEL, session, 0)        \
    F(LABEL, project, MG_F_NULL) /* NULL: none */
struct mg_place {
    struct mg_item base;
    MG_ITEM_MEMBERS(MG_PLACE_FIELDS)
};
extern const struct mg_item_type mg_item_place;

/* A list of items, owned: mg_items_release frees every item and its fields. */
struct mg_items {
    struct mg_item **v;
    size_t n, cap;
    struct mg_place *place;        /* memory requests: where they ran (NULL otherwise) */
    /* the gate's account of the list */
    size_t omitted;                /* items left out for the response's cap */
    size_t dropped;                /* items dropped by the guardrail */
    /* rows a provider met while working that belong to another request and
     * that it did not return (a planted session row, say): the gate counts
     * them with the items it drops */
    size_t foreign;
    const char *foreign_kind;      /* a static string: "session", "project", ... */
    int redactions;
    unsigned flags;                /* MG_ITEM_* of any item */
    struct mg_injinfo inj;         /* the items' and the inputs' */
    /* what the provider says beyond the items (not text: numbers and fixed words) */
    double took_ms;
    const char *mode;              /* a static string: the search mode that ran, or NULL */
    /* an external provider failed and the answer is without it (docs/providers.md): its name
     * and the error code, static strings; NULL when nothing was left out */
    const char *degraded, *degraded_code;
    int64_t total;                 /* list operations: matches before the limit (-1: not counted) */
    int64_t total_matches;         /* regex search: the matches in scope, past the limit too (-1: not counted) */
    bool total_matches_capped;     /* ... at least that many: counting stopped at its cap */
    /* hybrid search in a server: repos searched by words only because their
     * vectors were still loading, and the loads' progress (vectors) */
    int semantic_loading;
    uint64_t vectors_loaded, vectors_total;
    /* hybrid search: repos searched by words only because the embedder or the
     * external vector store failed; what failed ("embedder", "chroma",
     * "qdrant") and the error code (static strings) */
    int semantic_unavailable;
    const char *semantic_source, *semantic_error;
    /* an external provider's hits it did not serve: paths outside the repo
     * root, not a file of it, or outside the request's scope (dropped by the
     * provider, never served; not an isolation drop) */
    int64_t ext_dropped;
};

void mg_items_init(struct mg_items *l);
/* A new zeroed item of type t appended to l (its type set), or NULL when
 * memory runs out. */
void *mg_items_add(struct mg_items *l, const struct mg_item_type *t);
/* Append an item made elsewhere; l owns it from now on (freed here when
 * memory runs out). 0, or -1 out of memory. */
int mg_items_push(struct mg_items *l, struct mg_item *it);
/* The place of a memory request (made on first call; NULL out of memory). */
struct mg_place *mg_items_place(struct mg_items *l);
/* Remove item i (freeing it), keeping the order. */
void mg_items_remove(struct mg_items *l, size_t i);
void mg_items_release(struct mg_items *l);
/* Free one item and its declared fields. */
void mg_item_free(struct mg_item *it);
/* Free lines[first..n) and keep the first ones (n = first). */
void mg_lines_cut(struct mg_lines *l, size_t first);

/* Field access by declaration (for the gate and the renderer). */
char **mg_item_text(struct mg_item *it, const struct mg_field *f);           /* TEXT, LABEL */
char ***mg_item_tags(struct mg_item *it, const struct mg_field *f, size_t **n); /* TAGS */
struct mg_lines *mg_item_lines(struct mg_item *it, const struct mg_field *f);   /* LINES */
int64_t mg_item_int(const struct mg_item *it, const struct mg_field *f);
double mg_item_real(const struct mg_item *it, const struct mg_field *f);
bool mg_item_bool(const struct mg_item *it, const struct mg_field *f);

/* strdup for providers filling items: NULL in, NULL out; when memory runs
 * out, NULL and *failed set (so one check after many copies will do). */
char *mg_item_dup(const char *s, bool *failed);
char *mg_item_dupn(const char *s, size_t n, bool *failed);

#endif
