/* defs_c.c — definitions in C and C++ (see defs_int.h and defs.h).
 *
 * Sections:
 *   1. Declarators   from a declarator chain to a name and a qualifier
 *   2. Visitors      functions, records, typedefs, declarations, and the
 *                    pieces of functions the parser split up (macros, ERROR)
 *
 * Kernel-style sources put attribute macros where the parser wants a name and
 * define functions through macros; the visitors recover the real name where
 * the tree shows it, and skip what is an attribute.
 */
#include "index/defs_int.h"

/* ---- 1. Declarators ------------------------------------------------------ */

/* The next link of a declarator chain, or null. */
static TSNode chain_next(const struct walker *w, TSNode n)
{
    TSNode next;
    memset(&next, 0, sizeof(next));
    switch (role_of(w->t, n).role) {
    case R_D_FIELD: return field(w, n, w->t->f_declarator);
    case R_D_INNER: {
        /* first named child that continues the chain (skips attributes,
         * calling-convention modifiers) */
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t k = 0; k < cnt && k < 8; k++) {
            TSNode c = ts_node_named_child(n, k);
            uint8_t cr = role_of(w->t, c).role;
            if (cr >= R_D_ID && cr <= R_D_TEXT) return c;
        }
        return next;
    }
    default: return next;
    }
}

/* Follow a declarator chain (pointer_declarator -> function_declarator ->
 * ...) to the node that names the thing: an identifier, a qualified name, an
 * operator. Null when the chain ends in something else. *func (if not NULL)
 * tells whether the declarator nearest the name is a function's. */
static TSNode declarator_leaf(const struct walker *w, TSNode n, bool *func)
{
    bool f = false;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(n); i++) {
        struct symrole r = role_of(w->t, n);
        if (r.flags & (F_D_FUNC | F_D_OBJ)) f = r.flags & F_D_FUNC;
        if (func) *func = f || r.role == R_D_OPCAST;
        if (r.role >= R_D_ID && r.role <= R_D_TEXT && r.role != R_D_FIELD && r.role != R_D_INNER)
            return n;
        n = chain_next(w, n);
    }
    TSNode null;
    memset(&null, 0, sizeof(null));
    return null;
}

/* The name of a leaf (not qualified): operator_cast loses its declarator,
 * template_function its arguments. */
static uint32_t leaf_name(struct walker *w, TSNode n)
{
    uint8_t r = role_of(w->t, n).role;
    if (r == R_D_TFUNC) return mg__defs_name_of(w, field(w, n, w->t->f_name));
    if (r == R_D_OPCAST) {
        TSNode d = field(w, n, w->t->f_declarator);
        uint32_t s = nstart(w, n), e = ts_node_is_null(d) ? nend(w, n) : nstart(w, d);
        while (e > s && (w->src[e - 1] == ' ' || w->src[e - 1] == '\t' || w->src[e - 1] == '\n'))
            e--;
        uint32_t mark = mg__defs_str_begin(w);
        if (e > s) mg__defs_str_put(w, mark, w->src + s, e - s);
        return mg__defs_str_end(w, mark);
    }
    return mg__defs_name_of(w, n);
}

/* The text of a scope component without template arguments (Foo<T> -> Foo). */
static void put_scope(struct walker *w, uint32_t mark, TSNode scope)
{
    TSNode nm = field(w, scope, w->t->f_name);
    /* template_type has a `name`; namespace/type identifiers do not */
    mg__defs_str_put_node(w, mark, ts_node_is_null(nm) ? scope : nm);
}

/* Split a (possibly qualified) leaf into name and qualifier. *cont gets the
 * qualifier ("a::b::Foo") or NONE; *last_scope the offset in the arena string
 * where its last component starts (for constructor detection). */
static uint32_t qualified_name(struct walker *w, TSNode leaf, uint32_t *cont, uint32_t *last)
{
    *cont = NONE;
    *last = NONE;
    if (role_of(w->t, leaf).role != R_D_QUAL) return leaf_name(w, leaf);
    uint32_t mark = mg__defs_str_begin(w), lastpos = 0;
    bool any = false;
    TSNode n = leaf;
    for (int i = 0; i < CHAIN_LIMIT && role_of(w->t, n).role == R_D_QUAL; i++) {
        TSNode scope = field(w, n, w->t->f_scope);
        if (!ts_node_is_null(scope)) {
            if (any) mg__defs_str_put(w, mark, "::", 2);
            lastpos = (uint32_t)(w->out->arena_len - mark);
            put_scope(w, mark, scope);
            any = true;
        }
        n = field(w, n, w->t->f_name);
        if (ts_node_is_null(n)) break;
    }
    if (any) {
        *cont = mg__defs_str_end(w, mark);
        if (*cont != NONE && lastpos < strlen(arena_str(w, *cont))) *last = *cont + lastpos;
    }
    if (ts_node_is_null(n)) return NONE;
    return leaf_name(w, n);
}

/* "Foo" equals "Foo" and "Foo<int>" (a class template specialisation). */
static bool same_class_name(const char *fn, const char *cls)
{
    size_t n = strlen(fn);
    return strncmp(fn, cls, n) == 0 && (cls[n] == '\0' || cls[n] == '<');
}

/* ---- 2. Visitors --------------------------------------------------------- */

/* A C/C++ function: `n` gives the range (from `start` if earlier), `decl` the
 * name; `typed` says it has a return type (so it is no constructor). A pure
 * virtual one (`= 0`, no body) is a prototype. */
void mg__defs_visit_c_func(struct walker *w, const struct frame *ctx, TSNode n, uint32_t start,
                           TSNode decl, bool typed)
{
    uint32_t nc = ts_node_named_child_count(n);
    bool proto = w->t->s_pure_virtual && nc > 0 &&
                 ts_node_symbol(ts_node_named_child(n, nc - 1)) == w->t->s_pure_virtual;
    TSNode leaf = declarator_leaf(w, decl, NULL);
    if (ts_node_is_null(leaf)) return;
    uint32_t cont, last;
    uint32_t name = qualified_name(w, leaf, &cont, &last);
    if (name == NONE) return;
    const char *nm = arena_str(w, name);
    int kind = K_FUNCTION;
    if (cont != NONE) {
        kind = K_METHOD;
        if (last != NONE && nm[0] != '~' && same_class_name(nm, arena_str(w, last)))
            kind = K_CONSTRUCTOR;
    } else if (class_like(parent_kind(w, ctx))) {
        kind = K_METHOD;
        if (w->t->cpp && nm[0] != '~' && role_of(w->t, leaf).role == R_D_ID && !typed &&
            same_class_name(nm, arena_str(w, w->side[ctx->parent].name)))
            kind = K_CONSTRUCTOR;
    }
    mg__defs_emit(w, ctx, n, start, name, cont, proto ? K_PROTOTYPE : kind, false);
}

bool mg__defs_visit_c_record(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                             struct symrole r, struct frame *child)
{
    if (ts_node_is_null(field(w, n, w->t->f_body))) return false;
    TSNode nm = field(w, n, w->t->f_name);
    /* an anonymous one's members belong to what it declares (typedef,
     * variable, field), else to what holds it (a C11 anonymous member) */
    *child = plain_child(ctx->anon >= 0 ? ctx->anon : ctx->parent);
    if (!ts_node_is_null(nm)) {
        int i = mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, nm), NONE, r.kind, r.flags & F_CONTAINER);
        if (i < 0) return false;
        child->parent = i;
    }
    return r.flags & F_DESCEND;
}

int mg__defs_visit_c_typedef(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr)
{
    TSNode leaf = declarator_leaf(w, field(w, n, w->t->f_declarator), NULL);
    if (ts_node_is_null(leaf)) return -1;
    return mg__defs_emit(w, ctx, n, attr, mg__defs_name_of(w, leaf), NONE, K_TYPE, false);
}

/* `MACRO(x);` where a macro call stands alone: the parser takes it for a
 * declaration of x of type MACRO (EXPORT_SYMBOL(f); module_init(f);).
 * `static DEFINE_MUTEX(lock);`, with a specifier before the macro, stays a
 * variable: it defines one. */
static bool c_macro_decl(const struct walker *w, TSNode n, TSNode decl)
{
    TSNode ty = field(w, n, w->t->f_type);
    return ts_node_symbol(decl) == w->t->s_paren_decl && !ts_node_is_null(ty) &&
           ts_node_symbol(ty) == w->t->s_type_identifier && nstart(w, ty) == nstart(w, n);
}

/* The text of a name: kernel-style attribute macros start with `__`
 * (__packed, __read_mostly, ____cacheline_aligned); macros are in capitals
 * (BPMP_ABI_PACKED); a keyword (or NULL) is never a name (error recovery
 * makes some). */
enum name_look { NAME_PLAIN, NAME_ATTR, NAME_CAPS, NAME_KEYWORD };

static enum name_look name_look(const struct walker *w, TSNode n)
{
    static const char *const kw[] = {
        "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "NULL",
    };
    uint32_t s = nstart(w, n), e = nend(w, n), len = e - s;
    const char *p = w->src + s;
    if (len >= 2 && p[0] == '_' && p[1] == '_') return NAME_ATTR;
    if (len <= 8 && len >= 2)
        for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
            if (strlen(kw[i]) == len && memcmp(kw[i], p, len) == 0) return NAME_KEYWORD;
    bool upper = false;
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] >= 'a' && p[i] <= 'z') return NAME_PLAIN;
        upper |= p[i] >= 'A' && p[i] <= 'Z';
    }
    return upper ? NAME_CAPS : NAME_PLAIN;
}

/* `unsigned long x __initdata;`: x taken for part of the type (as in
 * `unsigned long int`), the macro for the name. That x, or null. */
static TSNode c_sized_name(const struct walker *w, TSNode ty)
{
    TSNode id;
    memset(&id, 0, sizeof(id));
    if (!ts_node_is_null(ty) && ts_node_symbol(ty) == w->t->s_sized_type) {
        id = field(w, ty, w->t->f_type);
        if (ts_node_is_null(id) || ts_node_symbol(id) != w->t->s_type_identifier ||
            name_look(w, id) != NAME_PLAIN)
            memset(&id, 0, sizeof(id));
    }
    return id;
}

/* Kernel sources put attribute macros where the parser wants the name:
 * `int x __read_mostly;`, `spinlock_t lock ____cacheline_aligned_in_smp;`
 * and `static int __read_mostly n = 1;` leave the macro as the name and x (n)
 * in an ERROR next to it; `unsigned long x __initdata;` makes x part of the
 * type. The name is then that x: the type's identifier, or the one in the
 * last ERROR before the macro, or else the first after it, inside the
 * declaration (not in a function's parameters or an initializer); null if
 * none. */
static TSNode c_recover_name(const struct walker *w, TSNode n, TSNode d, TSNode leaf, bool *func)
{
    TSNode id = c_sized_name(w, field(w, n, w->t->f_type));
    if (!ts_node_is_null(id)) return *func = false, id;
    uint32_t at = nstart(w, leaf), after = nend(w, leaf);
    TSNode before, next, node = n;
    memset(&before, 0, sizeof(before));
    next = before;
    for (int i = 0; i < CHAIN_LIMIT && !ts_node_is_null(node) && !ts_node_eq(node, leaf); i++) {
        uint32_t cnt = ts_node_child_count(node);
        for (uint32_t k = 0; k < cnt; k++) {
            TSNode c = ts_node_child(node, k);
            if (!ts_node_is_error(c)) continue;
            if (nend(w, c) <= at) before = c;
            else if (nstart(w, c) >= after && ts_node_is_null(next)) next = c;
        }
        node = i == 0 ? d : chain_next(w, node);
    }
    TSNode e = ts_node_is_null(before) ? next : before, null;
    memset(&null, 0, sizeof(null));
    if (ts_node_is_null(e) || ts_node_named_child_count(e) == 0) return null;
    TSNode l = declarator_leaf(w, ts_node_named_child(e, 0), func);
    return ts_node_is_null(l) || name_look(w, l) != NAME_PLAIN ? null : l;
}

/* C/C++ declaration or field_declaration: a definition per declarator, each
 * with the whole declaration's range. A function declarator makes a
 * prototype, any other a field (in a struct, union or class) or a variable.
 * A friend's declaration declares nothing of the class; in C, a function
 * declarator in a struct is a macro call (C structs hold no functions).
 * Right after a struct/union/enum body, a function declarator or a name
 * that looks like a macro is an attribute (`} __packed;`, `} __aligned(8);`,
 * `} BPMP_ABI_PACKED;`). Returns the first definition made, or -1. */
int mg__defs_visit_c_decl(struct walker *w, const struct frame *ctx, TSNode n, uint32_t attr,
                          struct symrole r)
{
    int first = -1;
    const struct tab *t = w->t;
    int pk = parent_kind(w, ctx);
    bool member = r.kind == K_FIELD || pk == K_CLASS || pk == K_STRUCT || pk == K_UNION ||
                  pk == K_TYPE;
    TSNode ty = field(w, n, t->f_type);
    bool after_body = !ts_node_is_null(ty) && role_of(t, ty).role == R_C_RECORD &&
                      !ts_node_is_null(field(w, ty, t->f_body));
    bool errors = ts_node_has_error(n);
    uint32_t nc = ts_node_child_count(n);
    /* cut short by the parser: `int __must_check f(void);` is `int
     * __must_check` and a MISSING `;`, `notrace u64 __weak f(void) {` is
     * `notrace u64;`; a bare word before it is no name (an array, a pointer
     * may be: `static long a[] __initdata __maybe_unused = {`) */
    bool cut = errors && nc > 0 && ts_node_is_missing(ts_node_child(n, nc - 1));
    /* `__read_mostly u64 x;`: the macro took the type's place, x is the name;
     * in an ERROR, a keyword may pass for a type: `typedef int T;` is then a
     * declaration of T of type `typedef`, other keywords make nonsense */
    enum name_look ty_look = !ts_node_is_null(ty) && ts_node_symbol(ty) == t->s_type_identifier
                                 ? name_look(w, ty) : NAME_PLAIN;
    bool type_attr = ty_look == NAME_ATTR, is_typedef = false;
    if (ty_look == NAME_KEYWORD) {
        if (nend(w, ty) - nstart(w, ty) != 7 || memcmp(w->src + nstart(w, ty), "typedef", 7) != 0)
            return -1;
        is_typedef = true;
    }
    /* A declaration with errors may begin with what it is not (a MISSING
     * type placed at the previous token, an #ifndef's name taken for the
     * type in an ERROR): its definitions start at the line of their name
     * (below). */
    ts_tree_cursor_reset(&w->aux, n);
    if (!ts_tree_cursor_goto_first_child(&w->aux)) return -1;
    do {
        if (ts_tree_cursor_current_field_id(&w->aux) != t->f_declarator) continue;
        TSNode d = ts_tree_cursor_current_node(&w->aux);
        bool func = false;
        TSNode leaf = declarator_leaf(w, d, &func);
        if (ts_node_is_null(leaf)) continue;
        if (role_of(t, leaf).role == R_D_ID) {
            enum name_look look = name_look(w, leaf);
            if (look == NAME_KEYWORD || (cut && ts_node_eq(d, leaf))) continue;
            /* `__initdata __maybe_unused = {`: two macros, what was before
             * them is the declaration the parser cut short */
            if (type_attr && look == NAME_ATTR && !errors) continue;
            /* a macro taken for the name: for a function, one whose
             * arguments do not parse (`int a[4] __aligned(8);`) */
            if (look == NAME_ATTR && !type_attr &&
                (func ? ts_node_has_error(d) : errors || !ts_node_is_null(c_sized_name(w, ty)))) {
                leaf = c_recover_name(w, n, d, leaf, &func);
                if (ts_node_is_null(leaf)) continue;
            } else if (after_body && (func || look == NAME_ATTR || look == NAME_CAPS)) {
                continue;
            }
        }
        if (func ? !t->cpp && r.kind == K_FIELD : c_macro_decl(w, n, d)) continue;
        uint32_t cont, last;
        uint32_t name = qualified_name(w, leaf, &cont, &last);
        int kind = is_typedef ? K_TYPE : func ? K_PROTOTYPE : member ? K_FIELD : K_VARIABLE;
        int i = mg__defs_emit(w, ctx, n, attr, name, cont, kind, false);
        if (i >= 0 && errors && !after_body) { /* (a struct in it comes next) */
            uint32_t ls = nstart(w, leaf);
            while (ls > 0 && w->src[ls - 1] != '\n') ls--;
            struct mg_def *v = &w->out->v[i];
            if (v->start < ls && ls <= v->end) v->start = ls;
        }
        if (first < 0) first = i;
    } while (!w->oom && !w->full && ts_tree_cursor_goto_next_sibling(&w->aux));
    return first;
}

/* C: the call in `IDENT(...)` standing alone: an expression statement without
 * `;` (the parser inserted a MISSING one) or a call loose in an ERROR. A
 * `{ ... }` right after it makes a function defined through a macro. */
static TSNode c_macro_call(const struct walker *w, TSNode n)
{
    TSNode call = n, null;
    memset(&null, 0, sizeof(null));
    if (role_of(w->t, n).role == R_C_CALL) {
        if (ts_node_named_child_count(n) != 1) return null;
        call = ts_node_named_child(n, 0);
        if (nend(w, call) != nend(w, n) || role_of(w->t, call).role != R_C_CALLEXPR) return null;
    }
    TSNode fn = field(w, call, w->t->f_function);
    if (ts_node_is_null(fn) || role_of(w->t, fn).role != R_D_ID) return null;
    if (ts_node_is_null(field(w, call, w->t->f_arguments))) return null;
    return call;
}

/* The function `MACRO(name, ...) { ... }`: named by the first argument when it
 * is an identifier (SYSCALL_DEFINE1(unshare, ...) -> unshare), else by the
 * macro; ranges from the macro to the closing brace. */
static void visit_c_macro_func(struct walker *w, const struct frame *ctx, TSNode call,
                               uint32_t start, TSNode body)
{
    TSNode args = field(w, call, w->t->f_arguments);
    TSNode nm = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : args;
    if (ts_node_is_null(nm) || role_of(w->t, nm).role != R_D_ID)
        nm = field(w, call, w->t->f_function);
    mg__defs_emit(w, ctx, body, start, mg__defs_name_of(w, nm), NONE, K_FUNCTION, false);
}

/* C/C++: a sibling that may be part of a function the parser split up.
 * `prev` is what the previous siblings left (ctx->p is already cleared). */
void mg__defs_visit_c_piece(struct walker *w, struct frame *ctx, const struct pending *prev,
                            TSNode n, struct symrole r)
{
    uint32_t s = nstart(w, n);
    switch (r.role) {
    case R_C_CALL:
    case R_C_CALLEXPR: {
        TSNode call = c_macro_call(w, n);
        if (!ts_node_is_null(call)) ctx->p.head = call, ctx->p.head_start = s;
        break;
    }
    case R_D_FIELD:
    case R_D_INNER:
        ctx->p.head = n;
        ctx->p.head_start = prev->spec != NONE ? prev->spec : s;
        break;
    case R_D_ID:
    case R_C_SPEC:
    case R_C_RECORD: ctx->p.spec = prev->spec != NONE ? prev->spec : s; break;
    case R_C_BLOCK:
        if (ts_node_is_null(prev->head)) break;
        if (role_of(w->t, prev->head).role == R_C_CALLEXPR)
            visit_c_macro_func(w, ctx, prev->head, prev->head_start, n);
        else
            mg__defs_visit_c_func(w, ctx, n, prev->head_start, prev->head, true);
        break;
    default: break;
    }
}
