/* context.c — get_context, the composition root (seed 003's EnrichPrompt):
 * one attributed block for a prompt, within a token budget.
 *
 * It resolves the request once, then asks four providers through the gate
 * at the same time (code search with each hit's enclosing definition,
 * notes, the conversation's episodes, its project's entities). Then:
 *
 *   1. pieces: a code hit stands for its definition's text (whole, or a
 *      window of a long one around the hit; provider.h definition_lines);
 *      hits whose lines overlap in one file become one piece, at the place
 *      of the best of them. A note, an episode, an entity is a piece each.
 *   2. order: every piece scores 1 / (RRF_K + its rank in its own list),
 *      times (0.5 + the share of the prompt's words it holds): a note that
 *      says what the prompt asks goes before code that matched a little,
 *      and one that matched one word after good code. Each piece carries a
 *      one-line reason: the lists that found it and at which places, and
 *      whether a definition's name matches a word of the prompt.
 *   3. budget: first a glimpse of each file (its best piece cut to the
 *      lines of its best hit's best line) within half the budget, the
 *      files of a wide search (100 hits, snippets) among them; then pieces
 *      best first, whole while they fit (a glimpse grows into its piece),
 *      else as their glimpse (at most 4 x limit + 100 code pieces, limit of
 *      each kind of memory), listed by relevance, while the whole result stays
 *      within budget_tokens both as compact JSON (the block, the parts and
 *      every other member: 4 bytes a token) and as the text content the
 *      agent reads (the block once, util/tokens.h's count from above, which
 *      `tokens` reports); a piece that fits in neither form is left out and
 *      counted in `omitted`.
 *
 * Every piece is gated text (redacted, sanitised, flagged, attributed);
 * the request is audited once, with each part's count. Without code (say,
 * the repo has no index of that kind) the memory still comes.
 *
 * Sections: the parts in parallel; prompt words; code pieces; memory
 * pieces; the budget; the tool.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "request/ops.h"
#include "tools/args.h"
#include "tools/ext.h"
#include "tools/family.h"
#include "tools/render.h"
#include "util/buf.h"
#include "util/tokens.h"

#define RRF_K 60.0
#define NPARTS 4
#define PROBES 3            /* symbol probes: the prompt's longest words of at least PROBE_MIN letters ... */
#define PROBE_MIN 5
#define PROBE_LIMIT 5       /* ... each the first definitions whose names start with its stem */
#define DEFINITION_LINES 80 /* a definition longer than this comes as a window of as many lines */
#define BUDGET_MIN 256
#define BUDGET_MAX 65536
#define BUDGET_DEFAULT 8000
#define CODE_HITS_PER_LIMIT 4 /* code hits asked for, and code pieces at most, per unit of limit: the budget cuts */
#define WIDE_HITS 100         /* the wide search's hits: the files the coverage pass can show */
#define CUT_BEFORE 2          /* a glimpse: lines before its hit's best line ... */
#define CUT_AFTER 3           /* ... and after it */
#define COVER_SHARE 2         /* the coverage pass spends at most 1/COVER_SHARE of the budget */

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
    const char *kind;     /* code, note, episode, entity */
    char *source;         /* the attribution line, without the reason */
    char *why;            /* the reason */
    char *text;           /* gated text (owned copy) */
    double score;
    int order;            /* tie-break: code, note, episode, entity */
    size_t rank;          /* its place in its own list (0-based) */
    unsigned flags;
    struct mg_injinfo inj;
    /* code */
    const struct mg_code_hit *h; /* the best hit of the piece */
    const char *path;
    int64_t start, end;   /* the lines text holds */
    char *names;          /* the definitions it holds, ", "-separated (owned), or NULL */
    /* its glimpse: the lines of its first hit's best line, CUT_BEFORE before to CUT_AFTER after, with their
     * own heading (NULL: the piece is no longer than that) */
    const struct mg_code_hit *first;
    char *cut_source, *cut_text, *cut_names;
    int64_t cut_start, cut_end;
};

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->order != y->order) return x->order - y->order;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
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

/* ---- prompt words ------------------------------------------------------------------------ */

#define WORDS_MAX 16
#define WORD_MAX 32

struct words {
    char w[WORDS_MAX][WORD_MAX]; /* lower case */
    size_t stem[WORDS_MAX];      /* the prefix that matches: "rotat" of rotation matches rotate, rotated */
    size_t n;
};

static bool stop_word(const char *w)
{
    static const char *const stop[] = {"the", "and", "for", "how", "does", "what", "why", "when", "where", "which",
                                       "who", "this", "that", "these", "those", "with", "from", "into", "are", "was",
                                       "were", "not", "can", "could", "should", "would", "will", "there", "their",
                                       "about", "have", "has", "had", "but", "its", "our", "you", "your", "work",
                                       "works", "use", "used", "using", "get", "make", "fix", "some", "any", "all",
                                       "out", "than", "then", "them", "they", "been", "being", "also", "only",
                                       NULL};
    for (size_t i = 0; stop[i]; i++)
        if (strcmp(w, stop[i]) == 0) return true;
    return false;
}

static bool is_alnum(unsigned char c) { return isalnum(c) || c >= 0x80; }

static void prompt_words(const char *p, struct words *w)
{
    w->n = 0;
    while (*p && w->n < WORDS_MAX) {
        while (*p && !is_alnum((unsigned char)*p)) p++;
        const char *s = p;
        while (*p && is_alnum((unsigned char)*p)) p++;
        size_t n = (size_t)(p - s);
        if (n < 3 || n >= WORD_MAX) continue;
        char lw[WORD_MAX];
        for (size_t i = 0; i < n; i++) lw[i] = (char)tolower((unsigned char)s[i]);
        lw[n] = 0;
        if (stop_word(lw)) continue;
        bool dup = false;
        for (size_t i = 0; i < w->n && !dup; i++) dup = strcmp(w->w[i], lw) == 0;
        if (dup) continue;
        memcpy(w->w[w->n], lw, n + 1);
        w->stem[w->n] = n <= 4 ? n : n - 3 > 4 ? n - 3 : 4;
        w->n++;
    }
}

/* Which of the prompt's words s holds (a bit each): a word of s (split at
 * what is not a letter or digit, and at an inner capital) that starts with
 * the word's stem. */
static unsigned words_in(const struct words *w, const char *s)
{
    unsigned found = 0, all = w->n ? (1u << w->n) - 1 : 0;
    while (s && *s && found != all) {
        while (*s && !is_alnum((unsigned char)*s)) s++;
        if (!*s) break; /* (not one past the end) */
        const char *t = s++;
        while (*s && is_alnum((unsigned char)*s) && !(isupper((unsigned char)*s) && islower((unsigned char)s[-1])))
            s++;
        size_t n = (size_t)(s - t);
        for (size_t i = 0; i < w->n; i++) {
            if (found & (1u << i) || n < w->stem[i]) continue;
            size_t k = 0;
            while (k < w->stem[i] && tolower((unsigned char)t[k]) == w->w[i][k]) k++;
            if (k == w->stem[i]) found |= 1u << i;
        }
    }
    return found;
}

/* The words of mask, quoted and comma-separated, into b. */
static void words_list(const struct words *w, unsigned mask, struct mg_buf *b)
{
    bool first = true;
    for (size_t i = 0; i < w->n; i++)
        if (mask & (1u << i)) {
            mg_buf_addf(b, "%s'%s'", first ? "" : ", ", w->w[i]);
            first = false;
        }
}

/* ---- code pieces -------------------------------------------------------------------------- */

/* Lines [k, k + n) of text (0-based, n < 0: to the end): a pointer and length. */
static const char *text_lines(const char *t, int64_t k, int64_t n, size_t *len)
{
    const char *p = t;
    for (; k > 0 && *p; k--) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    const char *e = p;
    for (; n != 0 && *e; n--) {
        const char *nl = strchr(e, '\n');
        e = nl ? nl + 1 : e + strlen(e);
    }
    if (n < 0) e = p + strlen(p);
    *len = (size_t)(e - p);
    return p;
}

static char *with_newline(const char *t)
{
    size_t n = strlen(t);
    return fmt("%s%s", t, n && t[n - 1] != '\n' ? "\n" : "");
}

/* A definition's name as the attribution shows it: Container.name() for a
 * method, name() for a callable, else the name. */
static char *def_label(const struct mg_code_hit *h)
{
    bool fn = h->def_kind && (strcmp(h->def_kind, "function") == 0 || strcmp(h->def_kind, "method") == 0 ||
                              strcmp(h->def_kind, "constructor") == 0);
    return fmt("%s%s%s%s", h->def_container ? h->def_container : "", h->def_container ? "." : "", h->def_name,
               fn ? "()" : "");
}

/* Merge hit h (its lines [s, e] and text) into piece p, whose lines overlap
 * them: p's text grows by h's lines before and after its own. 0, or -1 out
 * of memory. */
static int merge_hit(struct piece *p, const struct mg_code_hit *h, int64_t s, int64_t e, const char *text)
{
    if (s < p->start || e > p->end) {
        size_t bl = 0, al = 0;
        const char *before = s < p->start ? text_lines(text, 0, p->start - s, &bl) : "";
        const char *after = e > p->end ? text_lines(text, p->end - s + 1, -1, &al) : "";
        char *t = fmt("%.*s%s%.*s", (int)bl, before, p->text, (int)al, after);
        if (!t) return -1;
        free(p->text);
        p->text = t;
        if (s < p->start) p->start = s;
        if (e > p->end) p->end = e;
    }
    if (h->def_name && !p->h->def_name) p->h = h; /* the attribution names the definition */
    if (h->def_name) {
        char *label = def_label(h);
        if (!label) return -1;
        bool have = false;
        for (const char *q = p->names; q && !have; q = strstr(q, ", "), q = q ? q + 2 : NULL)
            have = strncmp(q, label, strlen(label)) == 0 && (q[strlen(label)] == ',' || !q[strlen(label)]);
        if (!have) {
            char *n = p->names ? fmt("%s, %s", p->names, label) : strdup(label);
            if (!n) {
                free(label);
                return -1;
            }
            free(p->names);
            p->names = n;
        }
        free(label);
    }
    p->flags |= h->base.flags;
    mg_injinfo_add(&p->inj, &h->base.inj);
    return 0;
}

/* The lists that found code hit i of a search that ran in mode. */
static void code_why(const struct mg_code_hit *h, size_t i, const char *mode, struct mg_buf *b)
{
    if (mode && strcmp(mode, "hybrid") == 0 && (h->rank_lexical || h->rank_semantic || h->rank_symbol)) {
        const char *sep = "";
        if (h->rank_lexical) mg_buf_addf(b, "lexical #%lld", (long long)h->rank_lexical), sep = ", ";
        if (h->rank_semantic) mg_buf_addf(b, "%ssemantic #%lld", sep, (long long)h->rank_semantic), sep = ", ";
        if (h->rank_symbol) mg_buf_addf(b, "%ssymbol #%lld", sep, (long long)h->rank_symbol);
    } else {
        mg_buf_addf(b, "%s #%zu", mode ? mode : "search", i + 1);
    }
}

/* The heading of lines [s, e] of path that the definitions names hold (NULL: none; h: the hit that names
 * them), or NULL out of memory. */
static char *code_source(const struct mg_code_hit *h, const char *path, int64_t s, int64_t e, const char *names)
{
    struct mg_buf src;
    mg_buf_init(&src, 8192);
    /* a piece an external provider found (and memgate did not) names it */
    mg_buf_addf(&src, "[source: %s%s%s:%lld-%lld", h->provider ? h->provider : "", h->provider ? ":" : "", path,
                (long long)s, (long long)e);
    if (names) {
        mg_buf_addf(&src, " %s — %s", names, h->def_kind ? h->def_kind : "definition");
        if (h->def_start_line < s || h->def_end_line > e)
            mg_buf_addf(&src, " %lld-%lld, a window", (long long)h->def_start_line, (long long)h->def_end_line);
        if (h->def_signature && *h->def_signature && h->def_kind &&
            (strcmp(h->def_kind, "function") == 0 || strcmp(h->def_kind, "method") == 0 ||
             strcmp(h->def_kind, "constructor") == 0))
            mg_buf_addf(&src, ": %s", h->def_signature);
    }
    mg_buf_adds(&src, "]");
    return mg_buf_detach(&src, NULL);
}

/* Piece p's glimpse (cut_*): the lines of its first hit's best line, CUT_BEFORE before and CUT_AFTER after,
 * within its own lines, headed by the definition that holds them. None when the piece is no longer. 0, or -1
 * out of memory. */
static int cut_piece(struct piece *p)
{
    const struct mg_code_hit *h = p->first;
    int64_t line = h->line >= p->start && h->line <= p->end ? h->line : p->start;
    int64_t s = line - CUT_BEFORE > p->start ? line - CUT_BEFORE : p->start;
    int64_t e = line + CUT_AFTER < p->end ? line + CUT_AFTER : p->end;
    if (s == p->start && e == p->end) return 0;
    size_t len;
    const char *t = text_lines(p->text, s - p->start, e - s + 1, &len);
    p->cut_start = s;
    p->cut_end = e;
    if (!(p->cut_text = fmt("%.*s", (int)len, t))) return -1;
    if (h->def_name && !(p->cut_names = def_label(h))) return -1;
    return (p->cut_source = code_source(h, p->path, s, e, p->cut_names)) ? 0 : -1;
}

/* Code hits of nlists lists (the search, then the symbol probes, then at
 * index wide the wide search, each best first) into pieces (v, *n): one per
 * group of hits with overlapping lines in one file, at its best hit's rank;
 * of the wide search only each file no other hit stands for, by its best
 * hit's snippet. 0, or -1 out of memory. */
static int code_pieces(const struct mg_items *const *lists, const char *const *probe, size_t nlists, size_t wide,
                       const struct words *w, struct piece *v, size_t *n)
{
    size_t first = *n;
    struct mg_buf why[320]; /* the most hits: 4 x 50, the probes', the wide search's */
    size_t nwhy = 0;
    int rc = 0;
    for (size_t l = 0; l < nlists; l++)
    for (size_t i = 0; lists[l] && i < lists[l]->n && rc == 0; i++) {
        const struct mg_items *code = lists[l];
        const struct mg_code_hit *h = (const struct mg_code_hit *)code->v[i];
        /* a probe's name that is a field or a member: its struct is not what the word asked for */
        if (l && l < wide && (!h->def_name || !h->symbol || strcmp(h->def_name, h->symbol) != 0)) continue;
        /* the wide search: a file no other hit stands for, by its snippet */
        bool known = false;
        for (size_t j = first; l == wide && j < *n && !known; j++)
            known = strcmp(v[j].path, h->path) == 0 && strcmp(v[j].h->repo, h->repo) == 0;
        if (known) continue;
        const char *text = h->body ? h->body : h->snippet ? h->snippet : "";
        int64_t s = h->body ? h->body_start_line : h->snippet_line;
        size_t tl = 0;
        text_lines(text, 0, -1, &tl);
        int64_t nl = 0;
        for (const char *q = text; *q; q++) nl += *q == '\n';
        if (tl && text[tl - 1] != '\n') nl++;
        int64_t e = s + (nl ? nl : 1) - 1;
        size_t j = first;
        while (j < *n && !(strcmp(v[j].path, h->path) == 0 && strcmp(v[j].h->repo, h->repo) == 0 &&
                           s <= v[j].end && e >= v[j].start))
            j++;
        struct mg_buf *b;
        if (j < *n) { /* another hit of a piece */
            b = &why[j - first];
            mg_buf_adds(b, "; ");
            if (merge_hit(&v[j], h, s, e, text) != 0) rc = -1;
            if (i < v[j].rank) v[j].rank = i;
        } else {
            if (nwhy == sizeof(why) / sizeof(why[0])) continue;
            char *t = with_newline(text);
            if (!t) {
                rc = -1;
                break;
            }
            v[*n] = (struct piece){.kind = "code", .order = 0, .rank = i, .text = t, .h = h, .first = h,
                                   .path = h->path, .start = s, .end = e, .flags = h->base.flags, .inj = h->base.inj};
            if (h->def_name && !(v[*n].names = def_label(h))) rc = -1;
            b = &why[nwhy++];
            mg_buf_init(b, 4096);
            (*n)++;
        }
        if (l && l < wide) mg_buf_addf(b, "symbol #%zu of '%s*'", i + 1, probe[l]);
        else code_why(h, i, code->mode, b);
    }
    /* the source line and the reason of each, and its glimpse */
    for (size_t j = first; j < *n; j++) {
        struct piece *p = &v[j];
        if (!(p->source = code_source(p->h, p->path, p->start, p->end, p->names))) rc = -1;
        if (rc == 0 && cut_piece(p) != 0) rc = -1;
        struct mg_buf *b = &why[j - first];
        unsigned in_name = p->names ? words_in(w, p->names) : 0;
        if (in_name) {
            mg_buf_adds(b, "; name matches ");
            words_list(w, in_name, b);
        }
        p->why = mg_buf_detach(b, NULL);
        if (!p->source || !p->why) rc = -1;
    }
    for (size_t k = *n - first; k < nwhy; k++) mg_buf_release(&why[k]);
    return rc;
}

/* ---- memory pieces ------------------------------------------------------------------------- */

static int mem_piece(struct piece *v, size_t *n, const char *kind, const char *list, int order, size_t rank,
                     char *source,
                     const char *label, const char *text, const struct mg_item *it, const struct words *w)
{
    if (!source) return -1;
    struct mg_buf b;
    mg_buf_init(&b, 4096);
    mg_buf_addf(&b, "%s #%zu", list, rank + 1);
    unsigned in_label = words_in(w, label), in_text = words_in(w, text) & ~in_label;
    if (in_label) {
        mg_buf_addf(&b, "; %s matches ", order == 1 ? "key" : "name");
        words_list(w, in_label, &b);
    }
    if (in_text) {
        mg_buf_adds(&b, "; text matches ");
        words_list(w, in_text, &b);
    }
    char *t = with_newline(text ? text : "");
    v[*n] = (struct piece){.kind = kind, .source = source, .why = mg_buf_detach(&b, NULL), .text = t, .order = order,
                           .rank = rank, .flags = it->flags, .inj = it->inj};
    (*n)++;
    return v[*n - 1].why && t ? 0 : -1;
}

static void score_pieces(struct piece *v, size_t n, const struct words *w)
{
    for (size_t i = 0; i < n; i++) {
        double share = 1.0;
        if (w->n) share = (double)__builtin_popcount(words_in(w, v[i].source) | words_in(w, v[i].text)) / (double)w->n;
        v[i].score = (0.5 + share) / (RRF_K + (double)v[i].rank + 1.0);
        v[i].score = (double)(long long)(v[i].score * 1e6 + 0.5) / 1e6;
    }
}

/* ---- the budget ------------------------------------------------------------------------------ */

/* Bytes s takes inside a compact JSON string. */
static size_t json_str_len(const char *s)
{
    json_t *j = json_string(s);
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    size_t n = d ? strlen(d) - 2 : strlen(s) * 6;
    free(d);
    json_decref(j);
    return n;
}

static size_t json_len(const json_t *j)
{
    char *d = json_dumps(j, JSON_COMPACT);
    size_t n = d ? strlen(d) : (size_t)-1 / 4;
    free(d);
    return n;
}

static json_t *part_json(const struct piece *p)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:f}", "kind", p->kind, "source", p->source, "reason", p->why, "score",
                          p->score);
    if (!o) return NULL;
    if (p->h) {
        json_object_set_new(o, "path", json_string(p->path));
        json_object_set_new(o, "start_line", json_integer(p->start));
        json_object_set_new(o, "end_line", json_integer(p->end));
        if (p->names) {
            json_object_set_new(o, "name", json_string(p->h->def_name));
            json_object_set_new(o, "symbol_kind", json_string(p->h->def_kind ? p->h->def_kind : ""));
            json_object_set_new(o, "signature", json_string(p->h->def_signature ? p->h->def_signature : ""));
        }
    }
    if (p->flags & (MG_ITEM_INJECTION | MG_ITEM_HIDDEN | MG_ITEM_ESCAPES))
        mg_render_flags(o, p->flags & ~MG_ITEM_TRUNCATED, &p->inj);
    return o;
}

/* What piece p adds to the result's JSON (its text in the block and its part; (size_t)-1 out of memory) and,
 * in *tokens, to the text content (the block once, each line indented). */
static size_t piece_cost(const struct piece *p, size_t *tokens)
{
    char *piece = fmt("%s (%s)\n%s", p->source, p->why, p->text);
    json_t *pj = piece ? part_json(p) : NULL;
    size_t cost = pj ? json_str_len(piece) + json_len(pj) : (size_t)-1;
    *tokens = 0;
    if (piece) {
        *tokens = mg_tokens_str(piece);
        for (const char *c = piece; *c; c++) *tokens += *c == '\n';
    }
    json_decref(pj);
    free(piece);
    return cost;
}

/* Piece p as shown: whole, or (cut) its glimpse when it has one. */
static struct piece shown(const struct piece *p, bool cut)
{
    struct piece v = *p;
    if (!cut || !p->cut_text) return v;
    v.h = p->first, v.source = p->cut_source, v.text = p->cut_text, v.names = p->cut_names;
    v.start = p->cut_start, v.end = p->cut_end;
    return v;
}

static json_t *assemble(struct piece *pv, size_t np, long long budget_tokens, long long max_code, json_t *scope,
                        bool in_project, json_t *gate, const struct mg_items *code)
{
    long long ncode = 0;
    size_t budget = (size_t)budget_tokens * 4;
    json_t *r = json_pack("{s:s, s:[], s:o, s:b, s:o, s:I, s:I, s:I}", "block", "", "parts", "scope", scope,
                          "in_project", in_project, "gate", gate, "budget_tokens", budget_tokens, "tokens",
                          budget_tokens, "omitted", (json_int_t)np);
    if (!r) return NULL;
    mg_render_semantic(r, code); /* the code part was searched by words only: vectors are loading */
    size_t used = json_len(r); /* tokens and omitted at their largest */
    size_t used_t = mg_tools_text_tokens(&mg_tools_context[0], r);
    json_t *parts = json_object_get(r, "parts");
    struct mg_buf block;
    mg_buf_init(&block, (size_t)1 << 26);
    /* which pieces, by relevance: first a glimpse (code_pieces' cut_*) of each file's best code piece, while
     * the glimpses take at most 1/COVER_SHARE of the budget (more files, the likelier the one the task is
     * about is among them); then, best first, each piece whole while it fits (a glimpse taken grows into
     * its piece: the best files get their definitions), else as its glimpse; then the pieces taken, in the
     * order of relevance */
    uint8_t *state = calloc(np + 1, 1); /* 0: not yet, 1: whole, 2: left out, 3: its glimpse */
    size_t *paid = calloc(2 * (np + 1), sizeof(*paid)); /* what a piece taken costs: JSON bytes, tokens */
    size_t taken = 0;
    for (int pass = 0; pass < 2 && state && paid; pass++) {
        size_t cap = pass ? budget : budget / COVER_SHARE, cap_t = (size_t)budget_tokens / (pass ? 1 : COVER_SHARE);
        for (size_t i = 0; i < np; i++) {
            if (state[i] == 1 || state[i] == 2) continue;
            if (pass == 0) {
                if (!pv[i].h || ncode >= max_code) continue;
                bool seen = false;
                for (size_t k = 0; k < i && !seen; k++)
                    seen = state[k] && pv[k].h && strcmp(pv[k].path, pv[i].path) == 0 &&
                           strcmp(pv[k].h->repo, pv[i].h->repo) == 0;
                if (seen) continue;
            } else if (pv[i].h && !state[i] && ncode >= max_code) {
                state[i] = 2;
                continue;
            }
            /* the forms to try, in turn: pass 0 the glimpse; pass 1 the whole piece, then a glimpse not taken */
            int forms = pass == 0 || state[i] == 3 || !pv[i].cut_text ? 1 : 2;
            for (int f = 0; f < forms; f++) {
                bool cut = pass == 0 || f == 1;
                struct piece view = shown(&pv[i], cut);
                size_t cost_t, cost = piece_cost(&view, &cost_t);
                size_t sep = state[i] == 0 && taken ? 1 : 0;
                if (cost == (size_t)-1) break;
                if (used - paid[2 * i] + cost + sep > cap || used_t - paid[2 * i + 1] + cost_t > cap_t) continue;
                used = used - paid[2 * i] + cost + sep; /* (a glimpse grown: its place is paid) */
                used_t = used_t - paid[2 * i + 1] + cost_t;
                paid[2 * i] = cost;
                paid[2 * i + 1] = cost_t;
                taken += !state[i];
                ncode += !state[i] && pv[i].h;
                state[i] = cut && pv[i].cut_text ? 3 : 1;
                break;
            }
            if (pass == 1 && !state[i]) state[i] = 2;
        }
    }
    /* the pieces taken, best first, as the block's text and the parts */
    char **txt = calloc(taken + 1, sizeof(*txt));
    json_t **pjs = calloc(taken + 1, sizeof(*pjs));
    size_t k = 0;
    for (size_t i = 0; i < np && state && txt && pjs; i++) {
        if (state[i] != 1 && state[i] != 3) continue;
        struct piece view = shown(&pv[i], state[i] == 3);
        txt[k] = fmt("%s (%s)\n%s", view.source, view.why, view.text);
        pjs[k] = txt[k] ? part_json(&view) : NULL;
        if (pjs[k]) {
            k++;
        } else { /* out of memory: left out */
            free(txt[k]);
            txt[k] = NULL;
        }
    }
    free(state);
    free(paid);
    /* within the budget both as JSON (budget x 4 bytes) and as the text content the agent reads (its tokens
     * counted from above): the last pieces out while either is over */
    for (;;) {
        mg_buf_reset(&block);
        json_array_clear(parts);
        for (size_t i = 0; i < k; i++) {
            mg_buf_adds(&block, txt[i]);
            json_array_append(parts, pjs[i]);
        }
        json_object_set_new(r, "block", json_string(block.p ? block.p : ""));
        json_object_set_new(r, "omitted", json_integer((json_int_t)(np - k)));
        size_t n = 0;
        for (int round = 0; round < 4; round++) { /* tokens' digits count too */
            n = mg_tools_text_tokens(&mg_tools_context[0], r);
            if (json_integer_value(json_object_get(r, "tokens")) == (json_int_t)n) break;
            json_object_set_new(r, "tokens", json_integer((json_int_t)n));
        }
        if (k == 0 || (json_len(r) <= budget && n <= (size_t)budget_tokens)) break;
        k--;
    }
    for (size_t i = 0; txt && pjs && txt[i]; i++) {
        free(txt[i]);
        json_decref(pjs[i]);
    }
    free(txt);
    free(pjs);
    mg_buf_release(&block);
    return r;
}

/* ---- the tool ---------------------------------------------------------------------------------- */

static int t_get_context(struct mg_ctx *x, json_t *args, json_t **result, struct mg_err *err)
{
    static const char *const keys[] = {"prompt", "limit", "budget_tokens", "repo", "repo_id", "session_id", NULL};
    const char *prompt, *sess;
    long long limit, budget;
    if (mg_known_keys(args, keys, err) != 0 || mg_arg_str(args, "prompt", true, &prompt, err) != 0 ||
        mg_arg_int(args, "limit", 1, 50, 8, &limit, err) != 0 ||
        mg_arg_int(args, "budget_tokens", BUDGET_MIN, BUDGET_MAX, BUDGET_DEFAULT, &budget, err) != 0 ||
        mg_arg_str(args, "session_id", false, &sess, err) != 0)
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
    /* more hits than pieces: several hits of one definition become one piece */
    int code_hits = (int)limit * CODE_HITS_PER_LIMIT;
    struct mg_code_query cq = {.query = prompt, .limit = code_hits, .no_match_lines = true,
                               .definition_lines = DEFINITION_LINES};
    struct mg_mem_args ma = {.session = mg_request_memory_session(x, sess), .query = prompt, .limit = (int)limit};
    struct words w;
    prompt_words(prompt, &w);
    /* symbol probes: definitions named like the prompt's longest words ("rotation" finds rotate) */
    char stems[PROBES][WORD_MAX];
    const char *probe[1 + PROBES] = {NULL};
    struct mg_code_query pq[PROBES];
    size_t nprobe = 0;
    bool used[WORDS_MAX] = {0};
    for (; nprobe < PROBES; nprobe++) {
        size_t best = w.n;
        for (size_t i = 0; i < w.n; i++)
            if (!used[i] && strlen(w.w[i]) >= PROBE_MIN && (best == w.n || strlen(w.w[i]) > strlen(w.w[best])))
                best = i;
        if (best == w.n) break;
        used[best] = true;
        snprintf(stems[nprobe], sizeof(stems[nprobe]), "%.*s", (int)w.stem[best], w.w[best]);
        probe[1 + nprobe] = w.w[best];
        pq[nprobe] = (struct mg_code_query){.query = stems[nprobe], .limit = PROBE_LIMIT, .no_match_lines = true,
                                            .definition_lines = DEFINITION_LINES};
    }
    struct part parts[NPARTS + PROBES + 1] = {
        {x, &mg_op_code_search, &ta.t, &cq, {0}, {0}, 0},
        {x, &mg_op_notes_search, &ta.t, &ma, {0}, {0}, 0},
        {x, &mg_op_sessions_recall, &ta.t, &ma, {0}, {0}, 0},
        {x, &mg_op_entities_search, &ta.t, &ma, {0}, {0}, 0},
    };
    for (size_t i = 0; i < nprobe; i++) parts[NPARTS + i] = (struct part){x, &mg_op_code_symbols, &ta.t, &pq[i], {0}, {0}, 0};
    /* the wide search: the files of the first WIDE_HITS hits, each by its snippet (no definitions: the gate's
     * max_context_bytes per part would hold a third of them) */
    struct mg_code_query wq = {.query = prompt, .limit = WIDE_HITS, .no_match_lines = true};
    parts[NPARTS + nprobe] = (struct part){x, &mg_op_code_search, &ta.t, &wq, {0}, {0}, 0};
    int nparts = NPARTS + (int)nprobe + 1;
    /* external code providers (tools/ext.h), beside the parts; their hits fuse into the code search's */
    struct mg_ext_run ext;
    struct mg_code_query eq = {.query = prompt, .limit = (int)limit * CODE_HITS_PER_LIMIT};
    mg_ext_start(x, &eq, &ext);
    pthread_t th[NPARTS + PROBES + 1];
    bool started[NPARTS + PROBES + 1] = {0};
    for (int i = 1; i < nparts; i++) started[i] = pthread_create(&th[i], NULL, part_main, &parts[i]) == 0;
    part_main(&parts[0]);
    for (int i = 1; i < nparts; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else part_main(&parts[i]); /* no thread to spare: in turn */
    }
    mg_ext_join(&ext);
    if (parts[0].rc != 0) mg_items_init(&parts[0].items); /* memgate's own search failed: the providers' hits alone */
    mg_ext_fuse(&ext, &parts[0].items, (size_t)cq.limit);
    if (parts[0].items.n > 0) parts[0].rc = 0;
    mg_target_release(&ta);
    int rc = -1;
    struct piece *pv = NULL;
    size_t np = 0;
    for (int i = 1; i < NPARTS; i++) /* memory is required; code context is best effort */
        if (parts[i].rc != 0) {
            *err = parts[i].err;
            goto out;
        }

    const struct mg_items *code = parts[0].rc == 0 ? &parts[0].items : NULL, *notes = &parts[1].items,
                          *eps = &parts[2].items, *ents = &parts[3].items;
    const struct mg_items *lists[1 + PROBES + 1] = {code};
    size_t cap = (code ? code->n : 0) + notes->n + eps->n + ents->n;
    for (size_t i = 0; i <= nprobe; i++) { /* the probes and the wide search (best effort, as the code) */
        lists[1 + i] = parts[NPARTS + i].rc == 0 ? &parts[NPARTS + i].items : NULL;
        cap += lists[1 + i] ? lists[1 + i]->n : 0;
    }
    if (!(pv = calloc(cap + 1, sizeof(*pv)))) goto oom;
    if (code_pieces(lists, probe, 2 + nprobe, 1 + nprobe, &w, pv, &np) != 0) goto oom;
    for (size_t i = 0; i < notes->n; i++) {
        const struct mg_note *n = (const struct mg_note *)notes->v[i];
        if (mem_piece(pv, &np, "note", "notes", 1, i, fmt("[note: %s]", n->key), n->key, n->value, &n->base, &w) != 0)
            goto oom;
    }
    for (size_t i = 0; i < eps->n; i++) {
        const struct mg_episode *e = (const struct mg_episode *)eps->v[i];
        time_t t = (time_t)e->created_at;
        struct tm tm;
        char day[16];
        gmtime_r(&t, &tm);
        strftime(day, sizeof(day), "%Y-%m-%d", &tm);
        if (mem_piece(pv, &np, "episode", "episodes", 2, i, fmt("[episode: %s, %s]", e->session, day), "", e->summary, &e->base,
                      &w) != 0)
            goto oom;
    }
    for (size_t i = 0; i < ents->n; i++) {
        const struct mg_entity *e = (const struct mg_entity *)ents->v[i];
        if (mem_piece(pv, &np, "entity", "entities", 3, i, fmt("[entity: %s (%s)]", e->name, e->type), e->name, e->notes,
                      &e->base, &w) != 0)
            goto oom;
    }
    score_pieces(pv, np, &w);
    qsort(pv, np, sizeof(*pv), cmp_piece);
    bool in_project = eps->place && eps->place->project;
    struct mg_items all; /* the gate's account of every part */
    mg_items_init(&all);
    for (int i = 0; i < nparts; i++) {
        all.redactions += parts[i].items.redactions;
        all.flags |= parts[i].items.flags;
        mg_injinfo_add(&all.inj, &parts[i].items.inj);
        all.omitted += parts[i].items.omitted;
        if (!all.degraded && parts[i].items.degraded) {
            all.degraded = parts[i].items.degraded;
            all.degraded_code = parts[i].items.degraded_code;
        }
    }
    if (!(*result = assemble(pv, np, budget, code_hits + WIDE_HITS, mg_render_place(eps), in_project, mg_render_gate(&all),
                             &parts[0].items)))
        goto oom;
    /* the external providers: code providers' statuses, and a memory provider that failed */
    json_t *providers = mg_ext_status(&ext);
    if (all.degraded && (providers || (providers = json_array())))
        json_array_append_new(providers, mg_render_degraded(&all));
    if (providers) json_object_set_new(*result, "providers", providers);
    rc = 0;
    goto out;
oom:
    mg_err_oom(err);
out:
    for (size_t i = 0; i < np; i++) {
        free(pv[i].source);
        free(pv[i].why);
        free(pv[i].text);
        free(pv[i].names);
        free(pv[i].cut_source);
        free(pv[i].cut_text);
        free(pv[i].cut_names);
    }
    free(pv);
    for (int i = 0; i < nparts; i++) mg_items_release(&parts[i].items);
    mg_ext_release(&ext);
    return rc;
}

const struct mg_tool mg_tools_context[] = {
    {"get_context", "Get context for a prompt",
     "One attributed block for a prompt, within budget_tokens: the relevant code (whole definitions, more files "
     "by their best lines), the repo's notes, earlier episodes and project entities, ranked, each "
     "with why it was picked; secrets redacted, injection flagged.",
     MG_S_IN("\"prompt\":" MG_S_STR ",\"budget_tokens\":{\"type\":\"integer\",\"minimum\":256,\"maximum\":65536,"
             "\"default\":8000},\"limit\":{\"type\":\"integer\",\"minimum\":1}," MG_S_REPO "," MG_S_SESSION,
             MG_S_REQ("\"prompt\"")),
     MG_S_OUT("\"block\":" MG_S_STR ",\"parts\":" MG_S_ARR, ""), t_get_context,
     MG_TOOL_READ_ONLY | MG_TOOL_TEXT_BLOCK},
};
const size_t mg_tools_context_n = sizeof(mg_tools_context) / sizeof(mg_tools_context[0]);
