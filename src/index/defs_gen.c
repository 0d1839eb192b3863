/* defs_gen.c — the table-driven visitors of the definition walk (see
 * defs_int.h): the languages added beside the first eight (C#, Ruby, PHP,
 * Kotlin, Swift, Scala, shell, Lua, Haskell, OCaml, Elixir, Dart, Zig, Julia,
 * Objective-C, PowerShell, Perl, R, Emacs Lisp, Groovy, F#, Solidity,
 * HCL, Makefiles, CSS) need no code of their own: their table (defs_langs.c)
 * says which node types are definitions, which name them and which lead to
 * the name, and these four visitors do the rest.
 *
 * Sections:
 *   1. Names     the name of a definition: its `name` field, or the first
 *                name token through the name paths
 *   2. Kinds     what a keyword, a parameter or a value makes of it
 *   3. Visitors  R_GEN, R_KWCALL, R_ASSIGN, R_CSS_RULE
 *
 * Every search here is bounded (NAME_DEPTH levels, NAME_CHILDREN children a
 * level): hostile input costs no more than a few nodes per definition.
 */
#include "index/defs_int.h"

#define NAME_DEPTH    4
#define NAME_CHILDREN 8

/* ---- 1. Names ------------------------------------------------------------ */

static bool flag(const struct walker *w, TSNode n, uint32_t f)
{
    return !ts_node_is_null(n) && (role_of(w->t, n).flags & f);
}

/* A qualified name (`M.put`, `Foo::Bar`, `this.Put`) stands for its last
 * name token. */
static TSNode last_token(const struct walker *w, TSNode n)
{
    if (flag(w, n, F_NAMETOK)) return n;
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t k = cnt; k > 0 && cnt - k < NAME_CHILDREN; k--) {
        TSNode c = ts_node_named_child(n, k - 1);
        if (flag(w, c, F_NAMETOK)) return c;
    }
    return n;
}

/* The name of n: its `name` field, else the first name token among its
 * first children, looking inside name paths depth-first. Null if none. */
static TSNode find_name(const struct walker *w, TSNode n, int depth, uint32_t from)
{
    TSNode nm = field(w, n, w->t->f_name);
    if (!ts_node_is_null(nm)) return last_token(w, nm);
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t k = from; k < cnt && k < from + NAME_CHILDREN; k++) {
        TSNode c = ts_node_named_child(n, k);
        if (flag(w, c, F_NAMETOK)) return c;
        if (depth < NAME_DEPTH && flag(w, c, F_NAMEPATH)) {
            TSNode r = find_name(w, c, depth + 1, 0);
            if (!ts_node_is_null(r)) return r;
        }
    }
    memset(&nm, 0, sizeof(nm));
    return nm;
}

/* The index of n's first named child that starts at or after `off`. */
static uint32_t named_after(TSNode n, uint32_t off)
{
    uint32_t cnt = ts_node_named_child_count(n), k = 0;
    while (k < cnt && k < NAME_CHILDREN && ts_node_start_byte(ts_node_named_child(n, k)) < off) k++;
    return k;
}

/* ---- 2. Kinds ------------------------------------------------------------ */

static bool is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Whether the word w occurs whole in src[a, b). */
static bool has_word(const char *src, uint32_t a, uint32_t b, const char *word)
{
    size_t n = strlen(word);
    for (uint32_t i = a; i + n <= b; i++)
        if (memcmp(src + i, word, n) == 0 && (i == a || !is_word(src[i - 1])) && (i + n == b || !is_word(src[i + n])))
            return true;
    return false;
}

/* F_KW: `enum class Color`, `struct Point`, `extension Cart`: the keyword
 * between the node's start and its name decides. */
static int kind_by_keyword(const struct walker *w, TSNode n, TSNode name, int kind)
{
    static const struct { const char *word; int kind; } words[] = {
        {"enum", K_ENUM},      {"interface", K_INTERFACE}, {"protocol", K_INTERFACE}, {"struct", K_STRUCT},
        {"trait", K_TRAIT},    {"extension", K_IMPL},      {"union", K_UNION},
    };
    uint32_t a = nstart(w, n), b = nstart(w, name);
    if (b > a + 256) a = b - 256;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (has_word(w->src, a, b, words[i].word)) return words[i].kind;
    return kind;
}

/* The kind of a child with one (F_BYVAL), or K_NONE. */
static int kind_by_value(const struct walker *w, TSNode n)
{
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t k = 0; k < cnt && k < NAME_CHILDREN; k++) {
        struct symrole r = role_of(w->t, ts_node_named_child(n, k));
        if (r.role == R_DESCEND && r.kind) return r.kind;
    }
    return K_NONE;
}

static bool has_param(const struct walker *w, TSNode n)
{
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t k = 0; k < cnt && k < NAME_CHILDREN; k++)
        if (flag(w, ts_node_named_child(n, k), F_PARAMTOK)) return true;
    return false;
}

/* What the place makes of a kind: a function in a class is a method, a
 * field outside one a variable, and a variable is one only at top level or
 * in a module (K_NONE: no definition). */
static int kind_in_place(const struct walker *w, const struct frame *ctx, int kind)
{
    int pk = parent_kind(w, ctx);
    if (kind == K_FUNCTION && class_like(pk)) return K_METHOD;
    if (kind == K_FIELD && !class_like(pk)) kind = K_VARIABLE;
    if (kind == K_VARIABLE && pk != K_NONE && pk != K_MODULE) return K_NONE;
    return kind;
}

/* ---- 3. Visitors --------------------------------------------------------- */

static bool emit_into(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, uint32_t name, int kind,
                      uint32_t flags, struct frame *child)
{
    kind = kind_in_place(w, ctx, kind);
    if (kind == K_NONE || name == NONE) return false;
    int i = mg__defs_emit(w, ctx, n, attr, name, NONE, kind, flags & F_CONTAINER);
    if (i < 0 || !(flags & F_DESCEND)) return false;
    child->parent = i;
    child->vars = kind == K_MODULE;
    return true;
}

static bool visit_gen(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct symrole r,
                      struct frame *child)
{
    TSNode name = find_name(w, n, 0, 0);
    if (ts_node_is_null(name)) return (r.flags & F_ANON_IN) != 0;
    int kind = r.kind;
    uint32_t flags = r.flags;
    if (flags & F_KW) kind = kind_by_keyword(w, n, name, kind);
    if ((flags & F_PARAMS) && has_param(w, n)) kind = K_FUNCTION;
    if (flags & F_BYVAL) {
        int vk = kind_by_value(w, n);
        if (vk != K_NONE) kind = vk, flags |= F_DESCEND | F_CONTAINER;
        else flags &= ~(uint32_t)(F_DESCEND | F_CONTAINER);
    }
    return emit_into(w, ctx, n, attr, mg__defs_name_of(w, name), kind, flags, child);
}

/* `resource "aws_instance" "web"` -> aws_instance.web */
static uint32_t labels(struct walker *w, TSNode n, uint32_t from)
{
    uint32_t mark = mg__defs_str_begin(w), cnt = ts_node_named_child_count(n), got = 0;
    for (uint32_t k = from; k < cnt && k < from + NAME_CHILDREN; k++) {
        TSNode c = ts_node_named_child(n, k);
        if (!flag(w, c, F_NAMETOK)) break;
        uint32_t s = nstart(w, c), e = nend(w, c);
        if (e - s >= 2 && (w->src[s] == '"' || w->src[s] == '\'')) s++, e--;
        if (got++) mg__defs_str_put(w, mark, ".", 1);
        mg__defs_str_put(w, mark, w->src + s, e - s);
    }
    return mg__defs_str_end(w, mark);
}

static bool visit_kwcall(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct frame *child)
{
    if (!w->t->kw) return false;
    /* the head: the first child that is a word, named or not */
    uint32_t cnt = ts_node_child_count(n);
    TSNode head;
    memset(&head, 0, sizeof(head));
    for (uint32_t k = 0; k < cnt && k < 4; k++) {
        TSNode c = ts_node_child(n, k);
        if (nend(w, c) > nstart(w, c) && is_word(w->src[nstart(w, c)])) {
            head = c;
            break;
        }
    }
    if (ts_node_is_null(head)) return false;
    uint32_t hs = nstart(w, head), hl = nend(w, head) - hs;
    for (const struct kw *k = w->t->kw; k->word; k++) {
        if (strlen(k->word) != hl || memcmp(w->src + hs, k->word, hl) != 0) continue;
        uint32_t from = named_after(n, nend(w, head)), name = NONE;
        if (k->flags & F_LABELS) {
            name = labels(w, n, from);
        } else {
            TSNode nm = find_name(w, n, 0, from);
            if (!ts_node_is_null(nm)) name = mg__defs_name_of(w, nm);
        }
        return emit_into(w, ctx, n, attr, name, k->kind, k->flags, child);
    }
    return false;
}

static bool assign_op(const char *p, uint32_t n)
{
    static const char *const ops[] = {"=", "<-", "<<-", ":=", "?=", "::=", NULL};
    for (int i = 0; ops[i]; i++)
        if (strlen(ops[i]) == n && memcmp(p, ops[i], n) == 0) return true;
    return false;
}

static bool visit_assign(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct frame *child)
{
    uint32_t cnt = ts_node_child_count(n);
    if (cnt < 2 || cnt > 64) return false;
    TSNode name = ts_node_child(n, 0), op = ts_node_child(n, 1), val = ts_node_child(n, cnt - 1);
    if (!flag(w, name, F_NAMETOK) || ts_node_is_named(op) || !assign_op(w->src + nstart(w, op), nend(w, op) - nstart(w, op)))
        return false;
    int kind = flag(w, val, F_FUNCVAL) && cnt > 2 ? K_FUNCTION : K_VARIABLE;
    return emit_into(w, ctx, n, attr, mg__defs_name_of(w, name), kind, 0, child);
}

/* `.card, #main > .title { ... }`: one type per selector. */
static void visit_css(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr)
{
    if (ts_node_named_child_count(n) == 0) return;
    TSNode sel = ts_node_named_child(n, 0);
    if (!flag(w, sel, F_NAMEPATH)) return;
    uint32_t cnt = ts_node_named_child_count(sel);
    for (uint32_t k = 0; k < cnt && !w->oom && !w->full; k++)
        mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, ts_node_named_child(sel, k)), NONE, K_TYPE, false);
}

bool mg__defs_visit_gen(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr, struct symrole r,
                        struct frame *child)
{
    switch (r.role) {
    case R_GEN: return visit_gen(w, ctx, n, attr, r, child);
    case R_KWCALL: return visit_kwcall(w, ctx, n, attr, child);
    case R_ASSIGN: return visit_assign(w, ctx, n, attr, child);
    case R_CSS_RULE: visit_css(w, ctx, n, attr); return false;
    default: return false;
    }
}
