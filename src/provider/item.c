/* item.c — see item.h. */
#include "provider/item.h"

#include <stdlib.h>
#include <string.h>

#define MG_ITEM_T struct mg_place
MG_ITEM_TYPE(, mg_item_place, "place", MG_PLACE_FIELDS, MG_OWN_TENANT | MG_OWN_REPO, NULL);
#undef MG_ITEM_T

void mg_items_init(struct mg_items *l)
{
    memset(l, 0, sizeof(*l));
    l->total = -1;
    l->total_matches = -1;
}

static void *item_new(const struct mg_item_type *t)
{
    struct mg_item *it = calloc(1, t->size);
    if (it) it->type = t;
    return it;
}

int mg_items_push(struct mg_items *l, struct mg_item *it)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct mg_item **v = realloc(l->v, cap * sizeof(*v));
        if (!v) {
            mg_item_free(it);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = it;
    return 0;
}

void *mg_items_add(struct mg_items *l, const struct mg_item_type *t)
{
    struct mg_item *it = item_new(t);
    return it && mg_items_push(l, it) == 0 ? it : NULL;
}

struct mg_place *mg_items_place(struct mg_items *l)
{
    if (!l->place) l->place = item_new(&mg_item_place);
    return l->place;
}

char **mg_item_text(struct mg_item *it, const struct mg_field *f)
{
    return (char **)((char *)it + f->off);
}

char ***mg_item_tags(struct mg_item *it, const struct mg_field *f, size_t **n)
{
    *n = (size_t *)((char *)it + f->count_off);
    return (char ***)((char *)it + f->off);
}

struct mg_lines *mg_item_lines(struct mg_item *it, const struct mg_field *f)
{
    return (struct mg_lines *)((char *)it + f->off);
}

void mg_lines_cut(struct mg_lines *l, size_t first)
{
    for (size_t k = first; k < l->n; k++) free(l->v[k].text);
    if (first < l->n) l->n = first;
}

int64_t mg_item_int(const struct mg_item *it, const struct mg_field *f)
{
    int64_t v;
    memcpy(&v, (const char *)it + f->off, sizeof(v));
    return v;
}

double mg_item_real(const struct mg_item *it, const struct mg_field *f)
{
    double v;
    memcpy(&v, (const char *)it + f->off, sizeof(v));
    return v;
}

bool mg_item_bool(const struct mg_item *it, const struct mg_field *f)
{
    bool v;
    memcpy(&v, (const char *)it + f->off, sizeof(v));
    return v;
}

void mg_item_free(struct mg_item *it)
{
    if (!it) return;
    const struct mg_item_type *t = it->type;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct mg_field *f = &t->fields[i];
        if (f->kind == MG_F_TEXT || f->kind == MG_F_LABEL) {
            free(*mg_item_text(it, f));
        } else if (f->kind == MG_F_TAGS) {
            size_t *n;
            char ***v = mg_item_tags(it, f, &n);
            for (size_t k = 0; k < *n; k++) free((*v)[k]);
            free(*v);
        } else if (f->kind == MG_F_LINES) {
            struct mg_lines *l = mg_item_lines(it, f);
            mg_lines_cut(l, 0);
            free(l->v);
        }
    }
    free(it->source);
    free(it);
}

void mg_items_remove(struct mg_items *l, size_t i)
{
    mg_item_free(l->v[i]);
    memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
    l->n--;
}

void mg_items_release(struct mg_items *l)
{
    for (size_t i = 0; i < l->n; i++) mg_item_free(l->v[i]);
    free(l->v);
    if (l->place) mg_item_free(&l->place->base);
    mg_items_init(l);
}

char *mg_item_dupn(const char *s, size_t n, bool *failed)
{
    if (!s) return NULL;
    char *d = malloc(n + 1);
    if (!d) {
        *failed = true;
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *mg_item_dup(const char *s, bool *failed) { return s ? mg_item_dupn(s, strlen(s), failed) : NULL; }
