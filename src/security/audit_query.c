/* audit_query.c — the audit chain read (audit.h: mg_audit_query,
 * mg_audit_query_lines): the newest matching events of the retained files,
 * newest file first, under the shared lock; or of the PostgreSQL table
 * (audit_pg.c). Lines are matched as written (audit_line.c's filter), and
 * one that does not parse is skipped: --verify is what reports it.
 */
#include "security/audit.h"
#include "security/audit_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "security/common.h"
#include "store/pg.h"

/* The newest `limit` (0: all) matching lines of one file, in order. */
struct hits {
    char **v;
    size_t n, cap, start; /* a ring when limit > 0 */
    size_t limit;
    bool older_than_since; /* the file has an event before since */
};

static int hits_push(struct hits *h, char *line)
{
    if (h->limit && h->n == h->limit) {
        free(h->v[h->start]);
        h->v[h->start] = line;
        h->start = (h->start + 1) % h->limit;
        return 0;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        if (h->limit && cap > h->limit) cap = h->limit;
        char **v = realloc(h->v, cap * sizeof(char *));
        if (!v) return -1;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = line;
    return 0;
}

static char *hits_at(const struct hits *h, size_t i)
{
    return h->v[(h->start + i) % (h->limit && h->n == h->limit ? h->limit : h->cap ? h->cap : 1)];
}

static void hits_free(struct hits *h)
{
    for (size_t i = 0; i < h->n; i++) free(h->v[i]);
    free(h->v);
}

static int scan_file(const char *path, const struct mg_audit_filter *f, struct hits *h)
{
    FILE *fp = fopen(path, "re");
    if (!fp) return errno == ENOENT ? 0 : -1;
    char *line = NULL, pat_t[MG_TENANT_MAX + 16] = "", pat_o[MG_AUDIT_OP_MAX + 16] = "";
    /* tenants and ops need no JSON escaping, so a substring test skips most
     * lines without parsing them */
    if (f->tenant && mg_tenant_ok(f->tenant)) snprintf(pat_t, sizeof(pat_t), "\"tenant\":\"%s\"", f->tenant);
    if (f->op && mg_audit_op_ok(f->op)) snprintf(pat_o, sizeof(pat_o), "\"op\":\"%s\"", f->op);
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) > 0) {
        if (line[len - 1] != '\n') break; /* a line being written, or torn */
        line[--len] = 0;
        if (f->since_ms && !h->older_than_since) {
            /* "time" is the second member: {"seq":N,"time":"..." */
            const char *t = strstr(line, "\"time\":\"");
            int64_t ms;
            char buf[32];
            if (t && sscanf(t + 8, "%31[^\"]", buf) == 1 && mg_parse_time(buf, 0, &ms) == 0 && ms < f->since_ms)
                h->older_than_since = true;
        }
        if ((*pat_t && !strstr(line, pat_t)) || (*pat_o && !strstr(line, pat_o))) continue;
        json_t *o = json_loadb(line, (size_t)len, 0, NULL);
        bool m = o && json_is_object(o) && mg_audit_match(f, o);
        if (o) json_decref(o);
        if (!m) continue;
        char *copy = strdup(line);
        if (!copy || hits_push(h, copy) != 0) {
            free(copy);
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(fp);
    return rc;
}

int mg_audit_query_lines(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                         struct mg_err *err)
{
    static const struct mg_audit_filter all = {0};
    if (!f) f = &all;
    *lines = NULL;
    *n = 0;
    if (mg_pg_configured(c)) return mg__audit_pg_query(c, f, lines, n, err);
    int lk = mg__audit_shared_lock(c, err);
    if (lk == -2) return 0;
    if (lk < 0) return -1;
    char dir[PATH_MAX + 8], path[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    int *rot;
    size_t nrot;
    int rc = 0;
    if (mg__audit_rotated(dir, &rot, &nrot) != 0) {
        close(lk);
        return mg__audit_io_err(err, "list", dir);
    }
    /* newest file first, until limit matches or events before since */
    struct hits *per = calloc(nrot + 1, sizeof(struct hits));
    size_t nfiles = 0, total = 0;
    if (!per) rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    for (size_t i = 0; rc == 0 && i <= nrot; i++) {
        if (i == 0) mg_audit_path(c, 0, path, sizeof(path));
        else mg_audit_path(c, rot[nrot - i], path, sizeof(path));
        struct hits *h = &per[nfiles++];
        h->limit = f->limit ? f->limit - total : 0;
        if (scan_file(path, f, h) != 0) {
            rc = mg__audit_io_err(err, "read", path);
            break;
        }
        total += h->n;
        if ((f->limit && total >= f->limit) || h->older_than_since) break;
    }
    char **v = NULL;
    if (rc == 0 && total && !(v = malloc(total * sizeof(char *))))
        rc = mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    size_t k = 0;
    for (size_t i = nfiles; rc == 0 && i-- > 0;) {
        for (size_t j = 0; j < per[i].n; j++) v[k++] = hits_at(&per[i], j);
        free(per[i].v);
        per[i].v = NULL;
        per[i].n = 0;
    }
    for (size_t i = 0; i < nfiles; i++) hits_free(&per[i]);
    free(per);
    free(rot);
    close(lk);
    if (rc != 0) {
        free(v);
        return -1;
    }
    *lines = v;
    *n = total;
    return 0;
}

void mg_audit_lines_free(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

int mg_audit_query(const struct mg_config *c, const struct mg_audit_filter *f, json_t **out_array,
                   struct mg_err *err)
{
    *out_array = NULL;
    char **lines;
    size_t n;
    if (mg_audit_query_lines(c, f, &lines, &n, err) != 0) return -1;
    json_t *arr = json_array();
    int rc = arr ? 0 : mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading the audit log");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        json_t *o = json_loads(lines[i], 0, NULL);
        if (o && json_array_append_new(arr, o) != 0) rc = mg_err_oom(err);
    }
    mg_audit_lines_free(lines, n);
    if (rc != 0) {
        json_decref(arr);
        return -1;
    }
    *out_array = arr;
    return 0;
}

