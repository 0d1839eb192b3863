/* defs_out.c — the output of the definition walk (see defs_int.h): names
 * built in one arena that grows with realloc() and referred to by offset
 * while walking, and the list of definitions with what the walk needs to
 * know about each (its name, container and kind).
 */
#include "index/defs_int.h"

#include <stdlib.h>

static const char *const kind_str[] = {
    [K_NONE] = "", [K_FUNCTION] = MG_KIND_FUNCTION, [K_METHOD] = MG_KIND_METHOD,
    [K_CONSTRUCTOR] = MG_KIND_CONSTRUCTOR, [K_CLASS] = MG_KIND_CLASS,
    [K_STRUCT] = MG_KIND_STRUCT, [K_UNION] = MG_KIND_UNION, [K_ENUM] = MG_KIND_ENUM,
    [K_INTERFACE] = MG_KIND_INTERFACE, [K_TRAIT] = MG_KIND_TRAIT, [K_IMPL] = MG_KIND_IMPL,
    [K_TYPE] = MG_KIND_TYPE, [K_MODULE] = MG_KIND_MODULE, [K_MACRO] = MG_KIND_MACRO,
    [K_PROTOTYPE] = MG_KIND_PROTOTYPE, [K_VARIABLE] = MG_KIND_VARIABLE, [K_FIELD] = MG_KIND_FIELD,
    [K_ENUMERATOR] = MG_KIND_ENUMERATOR,
};

static bool arena_reserve(struct walker *w, size_t more)
{
    struct mg_defs *d = w->out;
    if (d->arena_len + more <= d->arena_cap) return true;
    size_t cap = d->arena_cap ? d->arena_cap : 4096;
    while (cap < d->arena_len + more) cap *= 2;
    char *p = realloc(d->arena, cap);
    if (!p) {
        w->oom = true;
        return false;
    }
    d->arena = p;
    d->arena_cap = cap;
    return true;
}

/* Append bytes to the string being built; at most a little over MAX_NAME of it
 * is kept (the rest is cut by str_end). */
void mg__defs_str_put(struct walker *w, uint32_t mark, const char *p, size_t n)
{
    size_t have = w->out->arena_len - mark;
    if (have >= MAX_NAME + 4) return;
    if (n > MAX_NAME + 4 - have) n = MAX_NAME + 4 - have;
    if (!n || !arena_reserve(w, n + 1)) return;
    memcpy(w->out->arena + w->out->arena_len, p, n);
    w->out->arena_len += n;
}

void mg__defs_str_put_node(struct walker *w, uint32_t mark, TSNode n)
{
    uint32_t s = nstart(w, n), e = nend(w, n);
    if (e > s) mg__defs_str_put(w, mark, w->src + s, e - s);
}

uint32_t mg__defs_str_begin(const struct walker *w)
{
    return (uint32_t)w->out->arena_len;
}

/* Finish the string begun at mark: cut to MAX_NAME at a UTF-8 boundary and
 * NUL-terminate. Returns mark, or NONE (and forgets it) when it is empty. */
uint32_t mg__defs_str_end(struct walker *w, uint32_t mark)
{
    struct mg_defs *d = w->out;
    size_t n = d->arena_len - mark;
    if (n > MAX_NAME) {
        n = MAX_NAME;
        while (n > 0 && ((unsigned char)d->arena[mark + n] & 0xC0) == 0x80) n--;
    }
    if (n == 0 || w->oom || !arena_reserve(w, 1)) {
        d->arena_len = mark;
        return NONE;
    }
    d->arena[mark + n] = '\0';
    d->arena_len = mark + n + 1;
    return mark;
}

/* The text of a node as a new name; a quoted string ('x', "x") loses its quotes. */
uint32_t mg__defs_name_of(struct walker *w, TSNode n)
{
    if (ts_node_is_null(n)) return NONE;
    uint32_t s = nstart(w, n), e = nend(w, n);
    if (e - s >= 2 && (w->src[s] == '"' || w->src[s] == '\'') && w->src[e - 1] == w->src[s])
        s++, e--;
    uint32_t mark = mg__defs_str_begin(w);
    if (e > s) mg__defs_str_put(w, mark, w->src + s, e - s);
    return mg__defs_str_end(w, mark);
}

/* Room for element n of v (*cap elements of size sz, doubling from 64): v or
 * the array moved, or NULL (w->oom, v kept) when memory ran out. */
static void *grow(struct walker *w, void *v, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap) return v;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(v, c * sz);
    if (!p) {
        w->oom = true;
        return NULL;
    }
    *cap = c;
    return p;
}

/* Record a definition; returns its index or -1 (cap reached, no memory). The
 * container is the parent's name unless `cont` names one. */
int mg__defs_emit(struct walker *w, const struct frame *ctx, TSNode node, uint32_t attr,
                  uint32_t name, uint32_t cont, int kind, bool container)
{
    struct mg_defs *d = w->out;
    if (name == NONE) return -1;
    if (d->n >= MAX_DEFS) {
        w->full = true;
        return -1;
    }
    struct mg_def *v = grow(w, d->v, &d->cap, d->n, sizeof(*v));
    if (!v) return -1;
    d->v = v;
    struct side *s = grow(w, w->side, &w->side_cap, d->n, sizeof(*s));
    if (!s) return -1;
    w->side = s;
    uint32_t start = nstart(w, node), end = nend(w, node);
    if (ctx->wrap_start != NONE) {
        if (ctx->wrap_start < start) start = ctx->wrap_start;
        if (ctx->wrap_end > end) end = ctx->wrap_end;
    }
    if (attr != NONE && attr < start) start = attr;
    /* A #define ends with its newline; the definition ends before it. */
    while (end > start && (w->src[end - 1] == '\n' || w->src[end - 1] == '\r')) end--;
    /* Keep the promised order (by start) even when pieces an ERROR holds
     * would make a function start before a struct already emitted. */
    if (d->n > 0 && start < d->v[d->n - 1].start) {
        start = d->v[d->n - 1].start;
        if (end < start) end = start;
    }
    if (cont == NONE && ctx->parent >= 0) cont = w->side[ctx->parent].name;
    size_t i = d->n++;
    d->v[i] = (struct mg_def){
        .start = start, .end = end, .kind = kind_str[kind], .parent = ctx->parent,
        .is_container = container,
    };
    w->side[i] = (struct side){name, cont, (uint8_t)kind};
    return (int)i;
}
