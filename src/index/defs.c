/* defs.c — find the definitions in a tree-sitter tree (see defs.h).
 *
 * Sections:
 *   1. Visitors     is this node a definition, and does the walk descend into
 *                   it? The dispatch on the node's role, and the visitors of
 *                   Go, Rust, Java, JavaScript/TypeScript and Python (C and
 *                   C++: defs_c.c)
 *   2. The walk     TSTreeCursor + an explicit stack of frames
 *   3. Public API
 *
 * Beside it: defs_int.h (roles, kinds, the walk's state), defs_tab.c (what
 * each node type means, per language), defs_out.c (the name arena, emitting
 * a definition), defs_c.c (declarators and the C/C++ visitors).
 *
 * The walk never recurses: a TSTreeCursor moves over the tree and a growable
 * array of frames (one per cursor depth) holds the context of each level: the
 * enclosing definition, the range of a wrapper (template<>, export, decorators)
 * and the start of pending attributes. The walk descends only into nodes that
 * can hold definitions (the root, preprocessor blocks, namespace, class and impl
 * bodies, ...), so function bodies of C-family languages are never entered and
 * the cost stays a small fraction of the parse.
 *
 * Names live in one arena that grows with realloc(); while walking, definitions
 * refer to names by offset, and the pointers in struct mg_def are set at the end.
 */
#include "index/defs_int.h"

#include <stdlib.h>

static const struct pending no_pending = {NONE, NONE, NONE, {{0, 0, 0, 0}, NULL, NULL}};

/* ---- 1. Visitors --------------------------------------------------------- */

/* Count children of n whose table flags include `flag`. */
static int count_children(struct walker *w, TSNode n, uint8_t flag)
{
    int cnt = 0;
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return 0;
    do {
        if (role_of(w->t, ts_tree_cursor_current_node(&w->aux)).flags & flag)
            if (++cnt > 1) break;
    } while (ts_tree_cursor_goto_next_sibling(&w->aux));
    return cnt;
}

/* A frame that hands the node's range to the single definition inside. */
static struct frame wrap_child(const struct walker *w, const struct frame *ctx, TSNode n,
                               uint32_t attr)
{
    struct frame f = plain_child(ctx->parent);
    f.vars = ctx->vars;
    f.wrap_start = nstart(w, n);
    f.wrap_end = nend(w, n);
    if (attr != NONE && attr < f.wrap_start) f.wrap_start = attr;
    if (ctx->wrap_start != NONE) {
        if (ctx->wrap_start < f.wrap_start) f.wrap_start = ctx->wrap_start;
        if (ctx->wrap_end > f.wrap_end) f.wrap_end = ctx->wrap_end;
    }
    return f;
}

/* The name of a type without `*`, `&` and generic arguments: Go receivers
 * (`*List[T]` -> List), Go embedded fields (`*pkg.Base` -> Base), Rust impls
 * (`Wrapper<T>` -> Wrapper). */
static uint32_t type_name(struct walker *w, TSNode t)
{
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(t); i++) {
        switch (role_of(w->t, t).role) {
        case R_T_INNER:
            if (ts_node_named_child_count(t) == 0) return NONE;
            t = ts_node_named_child(t, 0);
            break;
        case R_T_TYPE: t = field(w, t, w->t->f_type); break;
        case R_T_NAME: t = field(w, t, w->t->f_name); break;
        default: return mg__defs_name_of(w, t);
        }
    }
    return NONE;
}

/* Go: the receiver's type name. */
static uint32_t go_receiver(struct walker *w, TSNode m)
{
    TSNode recv = field(w, m, w->t->f_receiver);
    if (ts_node_is_null(recv) || ts_node_named_child_count(recv) == 0) return NONE;
    return type_name(w, field(w, ts_node_named_child(recv, 0), w->t->f_type));
}

static bool js_toplike(const struct walker *w, const struct frame *ctx)
{
    return ctx->parent < 0 || w->side[ctx->parent].kind == K_MODULE;
}

/* `_`: Go's blank identifier and Rust's `const _` name nothing. */
static bool blank_name(const struct walker *w, TSNode n)
{
    return nend(w, n) == nstart(w, n) + 1 && w->src[nstart(w, n)] == '_';
}

/* One definition of `kind` per child of n in field f, each with n's range:
 * Go's `a, b int` (the names), Java's `int a, b = 2;` (the declarators, by
 * their `name`). Returns how many. */
static int emit_each(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                     TSFieldId f, bool by_name, int kind)
{
    int cnt = 0;
    if (!f) return 0;
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return 0;
    do {
        if (ts_tree_cursor_current_field_id(&w->aux) != f) continue;
        TSNode c = ts_tree_cursor_current_node(&w->aux);
        if (!ts_node_is_named(c)) continue; /* Go gives the `,` between names the field too */
        if (by_name) c = field(w, c, w->t->f_name);
        if (ts_node_is_null(c) || blank_name(w, c)) continue;
        if (mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, c), NONE, kind, false) >= 0) cnt++;
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
    return cnt;
}

/* TS: a constructor's parameter properties (`constructor(private r: number,
 * readonly q?: string)`) are fields of its class, each with the parameter's
 * range: a parameter with a modifier (accessibility, readonly, override)
 * before its pattern. Decorators are no modifier. */
static void js_param_fields(struct walker *w, const struct frame *ctx, TSNode ctor)
{
    const struct tab *t = w->t;
    TSNode params = field(w, ctor, t->f_parameters);
    if (ts_node_is_null(params) || !t->f_pattern) return;
    ts_tree_cursor_reset(&w->aux, params);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return;
    do {
        TSNode p = ts_tree_cursor_current_node(&w->aux), pat = field(w, p, t->f_pattern);
        if (ts_node_is_null(pat) || ts_node_symbol(pat) != t->s_identifier) continue;
        bool modified = false;
        uint32_t cnt = ts_node_child_count(p);
        for (uint32_t k = 0; k < cnt && k < 8 && !modified; k++) {
            TSNode c = ts_node_child(p, k);
            if (nstart(w, c) >= nstart(w, pat)) break;
            modified = role_of(t, c).role != R_ATTR;
        }
        if (modified) mg__defs_emit(w, ctx, p, NONE, mg__defs_name_of(w, pat), NONE, K_FIELD, false);
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
}

/* Python: an assignment at module level (variable) or in a class body
 * (field): `x = 1`, `x: int`, `a, b = ...`, `a = b = ...`; a lambda value
 * makes a function (method). Not: attributes, subscripts, `x += 1`, anything
 * in a function. */
static void visit_py_assign(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr)
{
    const struct tab *t = w->t;
    int pk = parent_kind(w, ctx);
    if ((pk != K_NONE && pk != K_CLASS) || ts_node_named_child_count(n) != 1) return;
    TSNode a = ts_node_named_child(n, 0), v = a;
    if (!(role_of(t, a).flags & F_ASSIGN)) return;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(v) && (role_of(t, v).flags & F_ASSIGN); i++)
        v = field(w, v, t->f_right);
    bool fn = !ts_node_is_null(v) && (role_of(t, v).flags & F_FUNCVAL);
    int kind = pk == K_CLASS ? (fn ? K_METHOD : K_FIELD) : (fn ? K_FUNCTION : K_VARIABLE);
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(a) && (role_of(t, a).flags & F_ASSIGN);
         i++, a = field(w, a, t->f_right)) {
        TSNode l = field(w, a, t->f_left);
        if (ts_node_is_null(l)) continue;
        if (ts_node_symbol(l) == t->s_identifier) {
            mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, l), NONE, kind, false);
        } else if (role_of(t, l).flags & F_TARGETS) {
            ts_tree_cursor_reset(&w->aux, l);
            if (!ts_tree_cursor_goto_first_child(&w->aux)) continue;
            do {
                TSNode c = ts_tree_cursor_current_node(&w->aux);
                if (ts_node_symbol(c) == t->s_identifier)
                    mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, c), NONE, kind, false);
            } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
        }
        if (w->oom || w->full) return;
    }
}

/* Decide about one node. `attr` is the start of attributes/decorators right
 * before it (or NONE). */
static bool visit(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                  struct symrole r, struct frame *child)
{
    const struct tab *t = w->t;
    int i;
    *child = plain_child(ctx->parent);
    switch (r.role) {
    case R_DESCEND: child->vars = ctx->vars; return true;
    case R_WRAP: *child = wrap_child(w, ctx, n, attr); return true;
    case R_NAMED: {
        TSNode nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm)) return r.flags & F_ANON_IN;
        if ((r.flags & F_NEED_BODY) && ts_node_is_null(field(w, n, t->f_body))) return false;
        i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, r.kind, r.flags & F_CONTAINER);
        if (i >= 0 && (r.flags & F_DESCEND)) {
            child->parent = i;
            child->vars = r.kind == K_MODULE;
            return true;
        }
        break;
    }
    case R_FUNC:
        i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, field(w, n, t->f_name)), NONE,
                          class_like(parent_kind(w, ctx)) ? K_METHOD : K_FUNCTION, false);
        if (i >= 0 && (r.flags & F_DESCEND)) return child->parent = i, true;
        break;
    case R_SIGNATURE:
        if (parent_kind(w, ctx) == K_TRAIT)
            mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, field(w, n, t->f_name)), NONE, K_METHOD, false);
        break;
    case R_C_FUNC:
        mg__defs_visit_c_func(w, ctx, n, attr, field(w, n, t->f_declarator),
                              !ts_node_is_null(field(w, n, t->f_type)));
        break;
    case R_C_RECORD: return mg__defs_visit_c_record(w, ctx, n, attr, r, child);
    case R_C_TYPEDEF:
        child->anon = mg__defs_visit_c_typedef(w, ctx, n, attr);
        return true; /* a struct defined in the typedef is a def too */
    case R_C_DECL:
        if (ctx->friend) return false;
        /* and a struct defined in it, whose members belong to what is
         * declared when it has no name (`struct { int x; } v;`: v.x) */
        child->anon = mg__defs_visit_c_decl(w, ctx, n, attr, r);
        return true;
    case R_C_FRIEND: child->friend = true; return true;
    case R_GO_METHOD:
        mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, field(w, n, t->f_name)), go_receiver(w, n), K_METHOD,
                      false);
        break;
    case R_GO_TYPEDECL:
        if (count_children(w, n, F_SPEC) == 1) *child = wrap_child(w, ctx, n, attr);
        return true;
    case R_GO_TYPESPEC: {
        int kind = K_TYPE;
        if (r.flags & F_BY_TYPE) {
            TSNode ty = field(w, n, t->f_type);
            if (!ts_node_is_null(ty) && role_of(t, ty).kind) kind = role_of(t, ty).kind;
        }
        i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, field(w, n, t->f_name)), NONE, kind, false);
        /* a struct's fields, an interface's methods */
        if (i >= 0 && (kind == K_STRUCT || kind == K_INTERFACE)) return child->parent = i, true;
        break;
    }
    case R_GO_FIELD:
        /* `a, b int`, else an embedded type named by its type: `*pkg.Base` */
        if (ts_node_is_null(field(w, n, t->f_name)))
            mg__defs_emit(w, ctx, n, attr, type_name(w, field(w, n, t->f_type)), NONE, K_FIELD, false);
        else
            emit_each(w, ctx, n, attr, t->f_name, false, K_FIELD);
        break;
    case R_MEMBERS:
        if (!ts_node_is_null(field(w, n, t->f_declarator)))
            emit_each(w, ctx, n, attr, t->f_declarator, true, r.kind);
        else
            emit_each(w, ctx, n, attr, t->f_name, false, r.kind);
        break;
    case R_PY_EXPR: visit_py_assign(w, ctx, n, attr); break;
    case R_RUST_CONST: {
        int pk = parent_kind(w, ctx);
        int kind = pk == K_TRAIT || pk == K_IMPL ? K_FIELD
                   : pk == K_NONE || pk == K_MODULE ? K_VARIABLE : K_NONE;
        TSNode nm = field(w, n, t->f_name);
        if (kind != K_NONE && !ts_node_is_null(nm) && !blank_name(w, nm))
            mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, kind, false);
        break;
    }
    case R_RUST_IMPL:
        i = mg__defs_emit(w, ctx, n, attr, type_name(w, field(w, n, t->f_type)), NONE, K_IMPL, true);
        if (i >= 0) return child->parent = i, true;
        break;
    case R_JS_METHOD: {
        uint32_t name = mg__defs_name_of(w, field(w, n, t->f_name));
        int kind = name != NONE && strcmp(arena_str(w, name), "constructor") == 0
                       ? K_CONSTRUCTOR : K_METHOD;
        i = mg__defs_emit(w, ctx, n, attr, name, NONE, kind, false);
        if (i >= 0 && kind == K_CONSTRUCTOR && class_like(parent_kind(w, ctx)))
            js_param_fields(w, ctx, n);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_FIELD: {
        TSNode v = field(w, n, t->f_value), nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm)) nm = field(w, n, t->f_property);
        if (ts_node_is_null(v) || !(role_of(t, v).flags & F_FUNCVAL)) {
            /* a data member: `count = 0;`, `#id;`, `name: string;` */
            if (!ts_node_is_null(nm) && !(role_of(t, nm).flags & F_COMPUTED))
                mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, K_FIELD, false);
            break;
        }
        i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, K_METHOD, false);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_MEMBER: {
        /* in a class body a method signature is an overload of the method
         * that follows (one definition, one chunk) */
        if (parent_kind(w, ctx) != K_INTERFACE) break;
        TSNode nm = field(w, n, t->f_name);
        if (!ts_node_is_null(nm) && !(role_of(t, nm).flags & F_COMPUTED))
            mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, r.kind, false);
        break;
    }
    case R_JS_ENUM_MEMBER: {
        if (parent_kind(w, ctx) != K_ENUM) break;
        TSNode nm = field(w, n, t->f_name);
        mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, ts_node_is_null(nm) ? n : nm), NONE, K_ENUMERATOR,
                      false);
        break;
    }
    case R_JS_VARDECL:
        if (!js_toplike(w, ctx)) return false;
        if (count_children(w, n, F_DECLARATOR) == 1) *child = wrap_child(w, ctx, n, attr);
        child->vars = ctx->vars;
        return true;
    case R_JS_VAR: {
        TSNode v = field(w, n, t->f_value), nm = field(w, n, t->f_name);
        if (ts_node_is_null(nm) || ts_node_symbol(nm) != t->s_identifier) break;
        if (ts_node_is_null(v) || !(role_of(t, v).flags & F_FUNCVAL)) {
            /* any other value, or none: a variable where it is one of the
             * program or a namespace */
            if (ctx->vars) mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, K_VARIABLE, false);
            break;
        }
        i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, K_FUNCTION, false);
        if (i >= 0) return child->parent = i, true;
        break;
    }
    case R_JS_EXPR: return js_toplike(w, ctx);
    case R_GEN:
    case R_KWCALL:
    case R_ASSIGN:
    case R_CSS_RULE: return mg__defs_visit_gen(w, ctx, n, attr, r, child);
    default: break;
    }
    return false;
}

/* ---- 2. The walk --------------------------------------------------------- */

static void walk(struct walker *w, TSNode root)
{
    TSTreeCursor c = ts_tree_cursor_new(root);
    struct frame *stack = malloc(64 * sizeof(*stack));
    size_t n = 1, cap = 64;
    if (!stack) {
        w->oom = true;
        goto out;
    }
    stack[0] = plain_child(-1);
    stack[0].vars = true;
    if (!ts_tree_cursor_goto_first_child(&c)) goto out;
    for (;;) {
        struct frame *ctx = &stack[n - 1];
        TSNode node = ts_tree_cursor_current_node(&c);
        struct symrole r = role_of(w->t, node);
        struct frame child;
        bool descend = false;
        if (r.role == R_ATTR) {
            if (ctx->p.attr == NONE) ctx->p.attr = nstart(w, node);
        } else if (r.role != R_COMMENT) {
            /* What earlier siblings left holds for this node only. Only named
             * node types have roles; anonymous tokens clear it too. */
            const struct pending *prev = &no_pending;
            struct pending saved;
            if (ctx->p.attr != NONE || ctx->p.spec != NONE || !ts_node_is_null(ctx->p.head)) {
                saved = ctx->p;
                prev = &saved;
                ctx->p = no_pending;
            }
            if (r.role >= R_C_CALL && r.role <= R_D_TEXT) {
                mg__defs_visit_c_piece(w, ctx, prev, node, r);
            } else if (r.role != R_NONE) {
                descend = visit(w, ctx, node, prev->attr, r, &child);
                if (r.role == R_C_RECORD) mg__defs_visit_c_piece(w, ctx, prev, node, r);
            }
        }
        if (w->oom || w->full) break;
        if (descend && ts_tree_cursor_goto_first_child(&c)) {
            if (n == cap) {
                struct frame *s = realloc(stack, cap * 2 * sizeof(*s));
                if (!s) {
                    w->oom = true;
                    break;
                }
                stack = s;
                cap *= 2;
            }
            stack[n++] = child;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&c)) {
            if (n == 1 || !ts_tree_cursor_goto_parent(&c)) goto out;
            n--;
        }
    }
out:
    free(stack);
    ts_tree_cursor_delete(&c);
}

/* ---- 3. Public API ------------------------------------------------------- */

int mg_defs_extract(const struct mg_lang *lang, TSNode root, const char *src, size_t len,
                    struct mg_defs *out)
{
    out->n = 0;
    out->arena_len = 0;
    if (!lang || lang->id <= MG_LANG_TEXT || lang->id >= MG_LANG_FIRST_PLAIN) return 0;
    if (ts_node_is_null(root) || !src) return 0;
    const struct tab *t = mg__defs_tab(lang->id);
    /* A tree of another grammar would make every symbol mean something else. */
    if (!t->ok || !root.tree || ts_tree_language(root.tree) != t->ts) return 0;

    struct walker w = {
        .t = t, .src = src, .len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .out = out,
    };
    w.aux = ts_tree_cursor_new(root);
    walk(&w, root);
    ts_tree_cursor_delete(&w.aux);
    if (w.oom) {
        free(w.side);
        mg_defs_release(out);
        return -1;
    }
    for (size_t i = 0; i < out->n; i++) {
        out->v[i].name = out->arena + w.side[i].name;
        out->v[i].container = w.side[i].cont == NONE ? NULL : out->arena + w.side[i].cont;
    }
    free(w.side);
    return 0;
}

int mg_defs_add_macros(struct mg_defs *d, const struct mg_def_macro *m, size_t n, const char *src)
{
    if (n == 0) return 0;
    size_t total = d->n + n;
    if (total > MAX_DEFS) n = total > MAX_DEFS ? (d->n < MAX_DEFS ? MAX_DEFS - d->n : 0) : n, total = d->n + n;
    /* one new arena: the old names, then the macro names */
    size_t alen = d->arena_len;
    for (size_t i = 0; i < n; i++) alen += (m[i].nlen < MAX_NAME ? m[i].nlen : MAX_NAME) + 1;
    char *arena = malloc(alen ? alen : 1);
    struct mg_def *v = malloc((total ? total : 1) * sizeof(*v));
    int *remap = malloc((d->n + 1) * sizeof(int));
    int *stack = malloc((total + 1) * sizeof(int));
    if (!arena || !v || !remap || !stack) {
        free(arena);
        free(v);
        free(remap);
        free(stack);
        return -1;
    }
    if (d->arena_len) memcpy(arena, d->arena, d->arena_len);
    size_t apos = d->arena_len, i = 0, j = 0, o = 0;
    int sp = 0;
    while (i < d->n || j < n) {
        bool take_def = j >= n || (i < d->n && d->v[i].start <= m[j].start);
        uint32_t start = take_def ? d->v[i].start : m[j].start;
        while (sp > 0 && v[stack[sp - 1]].end <= start) sp--;
        if (take_def) {
            struct mg_def x = d->v[i];
            x.name = arena + (x.name - d->arena);
            if (x.container) x.container = arena + (x.container - d->arena);
            x.parent = x.parent >= 0 ? remap[x.parent] : -1;
            remap[i++] = (int)o;
            v[o] = x;
        } else {
            size_t nl = m[j].nlen < MAX_NAME ? m[j].nlen : MAX_NAME;
            memcpy(arena + apos, src + m[j].name, nl);
            arena[apos + nl] = 0;
            int parent = sp > 0 ? stack[sp - 1] : -1;
            v[o] = (struct mg_def){m[j].start, m[j].end, arena + apos, MG_KIND_MACRO,
                                   parent >= 0 ? v[parent].name : NULL, parent, false};
            apos += nl + 1;
            j++;
        }
        stack[sp++] = (int)o;
        o++;
    }
    free(remap);
    free(stack);
    free(d->v);
    free(d->arena);
    d->v = v;
    d->n = d->cap = total;
    d->arena = arena;
    d->arena_len = d->arena_cap = alen;
    return 0;
}

void mg_defs_release(struct mg_defs *d)
{
    if (!d) return;
    free(d->v);
    free(d->arena);
    memset(d, 0, sizeof(*d));
}

