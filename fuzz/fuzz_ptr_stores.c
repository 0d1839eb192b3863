/* fuzz_ptr_stores.c — the functions C text stores into struct fields and
 * its calls through fields, found at index time (index/refs_ptr.h), on
 * hostile input: every store names an identifier of the input, on one of
 * its lines, by field or by place (never both), every call a field that is
 * an identifier of the input; and the scanners navigation shares stay inside the text, the C
 * macro readers (search/nav_macro.c: a pasting `#define M(…)` made of the
 * input, an expansion's arguments at every offset) too. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "index/lex.h"
#include "index/refs.h"
#include "search/nav.h"

static bool ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!mg_lex_id_char((unsigned char)*s)) return false;
    return true;
}

MG_FUZZ_TARGET(ptr_stores)
{
    char *t = malloc(size ? size : 1); /* exact size */
    memcpy(t, data, size);
    int lines = 1;
    for (size_t i = 0; i < size; i++) lines += t[i] == '\n';
    static const char *const names[] = {"fuzz_fn"}, *const kinds[] = {"function"};
    for (int lang = 0; lang < 2; lang++) {
        struct mg_refs_blobs rb;
        if (mg_refs_build(lang ? "cpp" : "c", t, size, names, kinds, 1, &rb) != 0) continue;
        if (rb.nstores > MG_REFS_STORES_MAX) abort();
        for (size_t i = 0; i < rb.nstores; i++) {
            const struct mg_refs_store *s = &rb.stores[i];
            if (!ident(s->fn) || !memmem(t, size, s->fn, strlen(s->fn))) abort();
            if (s->line < 1 || s->line > lines) abort();
            if ((s->field != NULL) != (s->ordinal < 0) || (s->field && !ident(s->field))) abort();
            if (s->type && (!ident(s->type) || strlen(s->type) >= MG_REFS_TYPE_MAX)) abort();
        }
        if (rb.ncalls > MG_REFS_STORES_MAX) abort();
        for (size_t i = 0; i < rb.ncalls; i++) {
            const struct mg_refs_store *s = &rb.calls[i];
            if (s->fn || s->ordinal != -1 || !s->field || !ident(s->field) || !memmem(t, size, s->field, strlen(s->field)))
                abort();
            if (s->line < 1 || s->line > lines) abort();
            if (s->type && (!ident(s->type) || strlen(s->type) >= MG_REFS_TYPE_MAX)) abort();
        }
        mg_refs_blobs_release(&rb);
    }
    /* the shared scanners, from every offset of a small input */
    for (size_t off = 0; size <= 512 && off <= size; off++) {
        if (mg_cscan_skip_ws(t, size, off) > size || mg_cscan_back(t, 0, off, true) > off) abort();
        char name[MG_REFS_TYPE_MAX], ty[MG_REFS_TYPE_MAX];
        size_t at;
        if (mg_cscan_receiver(t, 0, off, name, sizeof(name), &at)) {
            if (at >= off || !ident(name)) abort();
            size_t d = mg_cscan_declared(t, 0, at, name, strlen(name), ty, sizeof(ty));
            if (d != SIZE_MAX && (d >= at || !*ty)) abort();
        }
        size_t budget = 1 << 16;
        if (off < size && mg_cscan_macro_field(t, size, off, mg_cscan_ident(t, size, off), name, sizeof(name), &budget) &&
            (!ident(name) || !memmem(t, size, name, strlen(name))))
            abort();
    }
    /* the input as a macro's parameters and body: what it pastes into RM_Call is a parameter's, the rest
     * what follows RM_ (or precedes _Call) */
    char *m = malloc(size + 10);
    memcpy(m, "#define M(", 10);
    memcpy(m + 10, data, size);
    int param = -1;
    char rest[64];
    if (mg_nav_macro_paste_of(m, size + 10, "M", "RM_Call", &param, rest, sizeof(rest)) &&
        (param < 0 || !*rest || strlen(rest) >= strlen("RM_Call") || !strstr("RM_Call", rest)))
        abort();
    free(m);
    for (size_t off = 0; size <= 512 && off <= size; off++)
        for (int k = 0; k < 3; k++) {
            size_t ao, al;
            if (mg_nav_macro_arg(t, size, off, k, &ao, &al) && (ao < off || ao + al > size)) abort();
        }
    free(t);
    return 0;
}
