/* fuzz_diff.c — the unified diff parser (search/impact.c) on hostile input
 * (not NUL-terminated, so ASan sees any read past it). On success every file
 * has a path on one side at least, no path is absolute or has `..`, and each
 * hunk's lines lie inside the text and add up to its counts. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "search/impact.h"

static void check_path(const char *p)
{
    if (!p) return;
    if (p[0] == '/' || strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 || strstr(p, "/../") ||
        (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0))
        abort();
}

MG_FUZZ_TARGET(diff)
{
    char *text = malloc(size ? size : 1); /* exact size */
    memcpy(text, data, size);
    struct mg_diff d;
    struct mg_err err = {0};
    if (mg_diff_parse(text, size, &d, &err) == 0) {
        if (d.n == 0) abort();
        for (size_t i = 0; i < d.n; i++) {
            const struct mg_diff_file *f = &d.v[i];
            if (!f->old_path && !f->new_path) abort();
            check_path(f->old_path);
            check_path(f->new_path);
            for (size_t k = 0; k < f->nh; k++) {
                const struct mg_diff_hunk *h = &f->h[k];
                if (h->body + h->body_len > size) abort();
                int o = 0, n = 0;
                const char *s = text + h->body, *e = s + h->body_len;
                while (s < e) {
                    const char *nl = memchr(s, '\n', (size_t)(e - s));
                    char c = nl == s || s == e ? ' ' : *s;
                    if (c == ' ') o++, n++;
                    else if (c == '-') o++;
                    else if (c == '+') n++;
                    else if (c != '\\') abort();
                    s = nl ? nl + 1 : e;
                }
                if (o != h->old_len || n != h->new_len) abort();
            }
        }
        mg_diff_within(&d, "a/");
        mg_diff_release(&d);
    } else if (!err.code) {
        abort();
    }
    free(text);
    return 0;
}
