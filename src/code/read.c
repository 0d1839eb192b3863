/* read.c — the built-in code provider's reads of one file: read, its lines
 * from disk; outline, its definitions from the index.
 *
 * Only files the index holds are served (ignored, binary and secret files
 * never are), only inside the repo root (no '..', no absolute path, no
 * symlink out), never a secret file by name. The whole file passes the
 * index's secret policy before its lines are cut: a key block cut in two is
 * found in neither half, and lines 2-9 of a key hold no BEGIN line.
 * Redaction keeps line numbers. At most max_lines lines or max_bytes bytes
 * are served, cut at a line end so end_line says where to continue.
 *
 * outline takes the same paths with the same checks, and answers from the
 * index alone: the file's symbols rows by start line, each with a signature
 * cut from the stored text (which the index redacted; the gate cleans it
 * again on its way out).
 *
 * Sections:
 *   1. paths and the index
 *   2. read
 *   3. outline
 */
#include "code/code.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/walk.h"
#include "security/secrets.h"
#include "store/db.h"
#include "store/indexdb.h"
#include "util/buf.h"
#include "util/utf8.h"

/* ---- 1. paths and the index --------------------------------------------------------------------- */

static int check_rel_path(const char *p, struct mg_err *err)
{
    if (!*p) return mg_err_set(err, MG_E_BAD_ARG, "'path' must not be empty");
    if (strlen(p) > 4096) return mg_err_set(err, MG_E_BAD_ARG, "'path' is longer than 4096 bytes");
    if (*p == '/' || *p == '~')
        return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' is absolute; give a path relative to the repo root", p);
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' leaves the repo root ('..' is not allowed)", p);
        char comp[256];
        if (n < sizeof(comp)) {
            memcpy(comp, s, n);
            comp[n] = 0;
            if (mg_is_secret_name(comp))
                return mg_err_set(err, MG_E_SECRET_FILE, "'%s' is a secret file; memgate never reads or serves "
                                  "secret files", p);
        }
        s = e ? e + 1 : s + n;
    }
    return 0;
}

/* Past the next k lines of [p, e): the start of the line after them, or e. */
static const char *skip_lines(const char *p, const char *e, long long k)
{
    for (; k > 0 && p < e; k--) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        p = nl ? nl + 1 : e;
    }
    return p;
}

static long long count_markers(const char *p, size_t n)
{
    long long c = 0;
    for (const char *q = p, *e = p + n; (q = memmem(q, (size_t)(e - q), "[REDACTED:", 10)); q += 10) c++;
    return c;
}

static int not_indexed(const char *path, const struct mg_repo *r, struct mg_err *err)
{
    return mg_err_set(err, MG_E_FILE_NOT_FOUND,
                      "'%s' is not a file of repo '%s' (ignored, binary and secret files are not served); "
                      "list_files shows the files", path, r->id);
}

/* The file's language and content hash, when the index holds it: 1, 0 not
 * indexed, -1 error. */
static int indexed(struct mg_code_self *self, const struct mg_pcall *pc, const struct mg_repo *r, const char *path,
                   char *lang, size_t cap, uint64_t *hash, struct mg_err *err)
{
    struct mg_db *d = NULL;
    struct mg_idx_cur cur;
    struct mg_idx_row row;
    if (mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err) != 0) return -1;
    if (mg_idx_file_by_path(d, path, 0, &cur, err) != 0) {
        mg_db_put(self->pool, &d);
        return -1;
    }
    int found = mg_idx_next(&cur, &row) > 0;
    if (found) {
        snprintf(lang, cap, "%s", row.lang);
        *hash = row.hash;
    }
    mg_idx_done(&cur);
    mg_db_put(self->pool, &d);
    return found;
}

/* The whole file at path under r's root, as text: *buf (malloc'd, NUL-terminated), *len. */
static int load(const struct mg_pcall *pc, const struct mg_repo *r, const char *path, char **buf, size_t *len,
                struct mg_err *err)
{
    char full[PATH_MAX * 2], canon[PATH_MAX];
    snprintf(full, sizeof(full), "%s/%s", r->root, path);
    if (!realpath(full, canon))
        return mg_err_set(err, MG_E_FILE_NOT_FOUND, "'%s' was indexed but is gone from disk (%s); re-index repo '%s'",
                          path, strerror(errno), r->id);
    size_t rl = strlen(r->root);
    if (strncmp(canon, r->root, rl) != 0 || (canon[rl] != '/' && rl > 1))
        return mg_err_set(err, MG_E_PATH_OUTSIDE, "'%s' resolves outside the repo root (a symlink); not served", path);
    int fd = open(canon, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_FILE_NOT_FOUND, "cannot read '%s': %s", path,
                          fd < 0 ? strerror(e) : "not a regular file");
    }
    if (!mg_walk_one_name(&sb)) { /* a hard link: its other names may be anywhere (index/walk.h) */
        close(fd);
        return mg_err_set(err, MG_E_FILE_NOT_FOUND, "'%s' now has other names (hard links) and is not served; "
                          "replace the link with a copy of the file", path);
    }
    if ((size_t)sb.st_size > pc->cfg->max_file_size) {
        close(fd);
        return mg_err_set(err, MG_E_NOT_TEXT, "'%s' is %lld bytes, over max_file_size", path, (long long)sb.st_size);
    }
    char *b = malloc((size_t)sb.st_size + 1);
    ssize_t got = b ? read(fd, b, (size_t)sb.st_size) : -1;
    int e = errno;
    close(fd);
    if (got < 0) {
        free(b);
        return b ? mg_err_set(err, MG_E_IO, "cannot read '%s': %s", path, strerror(e))
                 : mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
    }
    if (memchr(b, 0, (size_t)got)) {
        free(b);
        return mg_err_set(err, MG_E_NOT_TEXT, "'%s' now holds binary data; not served", path);
    }
    b[got] = 0;
    *buf = b;
    *len = (size_t)got;
    return 0;
}

/* ---- 2. read ------------------------------------------------------------------------------------ */

int mg_code_read(void *self, const struct mg_pcall *pc, const struct mg_read_query *q, struct mg_items *out,
                 struct mg_err *err)
{
    const char *path = q->path;
    long long from = q->start_line > 0 ? q->start_line : 1, to = q->end_line;
    while (path[0] == '.' && path[1] == '/') path += 2;
    if (check_rel_path(path, err) != 0) return -1;
    if (pc->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "the session scope names %zu repos; pass `repo` to read a file",
                          pc->nrepos);
    const struct mg_repo *r = &pc->repos[0];
    char lang[32] = "text";
    uint64_t hash = 0;
    int in = indexed(self, pc, r, path, lang, sizeof(lang), &hash, err);
    if (in < 0) return -1;
    if (!in) return not_indexed(path, r, err);
    char *buf;
    size_t got;
    if (load(pc, r, path, &buf, &got, err) != 0) return -1;
    /* the indexer hashes the bytes as read (indexer.c): another hash, other lines than search saw */
    bool changed = XXH3_64bits(buf, got) != hash;

    /* secrets: the whole file, before its lines are cut */
    struct mg_err serr = {0};
    struct mg_secret_policy pol;
    mg_secret_policy(pc->cfg, &pol);
    const struct mg_scanner *sc = mg_secrets_scanner(pc->cfg, &serr);
    struct mg_buf red;
    mg_buf_init(&red, SIZE_MAX / 2);
    int nred = 0;
    if (!sc || mg_secrets_apply(sc, &pol, buf, got, &red, &nred, NULL, NULL, &serr) != 0) {
        free(buf);
        mg_buf_release(&red);
        return mg_err_set(err, MG_E_INTERNAL, "the secret scan of '%s' failed (%s), so it is not served", path,
                          serr.msg);
    }
    char *orig = buf; /* to tell the markers redaction put in the served lines from any the file holds */
    size_t olen = got;
    if (nred) {
        if (!(buf = mg_buf_detach(&red, &got))) {
            free(orig);
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path);
        }
    } else {
        mg_buf_release(&red);
        orig = NULL;
    }

    /* lines [from, to], at most max_lines lines or max_bytes */
    const ptrdiff_t max_bytes = (ptrdiff_t)q->max_bytes;
    const char *e = buf + got, *p = buf;
    long long total = 0;
    for (const char *c = buf; c < e; c++) total += *c == '\n';
    if (got > 0 && e[-1] != '\n') total++;
    if (from > total && !(from == 1 && total == 0)) {
        free(buf);
        free(orig);
        return mg_err_set(err, MG_E_BAD_ARG, "'start_line' %lld is past the end of '%s' (%lld lines)", from, path,
                          total);
    }
    p = skip_lines(p, e, from - 1);
    const char *start = p, *end = p;
    long long want = to ? (to < total ? to : total) : total;
    if (want - from + 1 > q->max_lines) want = from + q->max_lines - 1;
    long long last = from - 1;
    bool truncated = false;
    while (last < want && end < e) {
        const char *nl = memchr(end, '\n', (size_t)(e - end));
        const char *ne = nl ? nl + 1 : e;
        if (ne - start > max_bytes) {
            if (last < from) { /* one huge line: cut it on a character boundary */
                end = start + max_bytes;
                while (end > start && ((unsigned char)*end & 0xC0) == 0x80) end--;
                last = from;
            }
            truncated = true;
            break;
        }
        end = ne;
        last++;
    }
    if (last < (to ? (to < total ? to : total) : total)) truncated = true;
    long long served_red = 0; /* the redactions in the lines served (the gate adds what it finds) */
    if (orig) { /* markers in the served lines, less those the same lines of the file hold, and one more
                 * when the first line is inside a key block redacted from a line before */
        const char *os = skip_lines(orig, orig + olen, from - 1);
        const char *oe = skip_lines(os, orig + olen, (last < from ? from : last) - from + 1);
        served_red = count_markers(start, (size_t)(end - start)) - count_markers(os, (size_t)(oe - os));
        const char *rn = memchr(start, '\n', (size_t)(end - start)), *on = memchr(os, '\n', (size_t)(oe - os));
        size_t r1 = rn ? (size_t)(rn - start) : (size_t)(end - start), o1 = on ? (size_t)(on - os) : (size_t)(oe - os);
        if ((r1 != o1 || memcmp(start, os, r1) != 0) && !count_markers(start, r1)) served_red++;
        free(orig);
    }
    struct mg_file_text *it = mg_items_add(out, &mg_item_file_text);
    bool failed = !it;
    if (it) {
        mg_code_owner(&it->base, r);
        it->base.redactions = served_red > 0 ? (int)served_red : 0;
        it->repo = mg_item_dup(r->id, &failed);
        it->path = mg_item_dup(path, &failed);
        it->language = mg_item_dup(lang, &failed);
        it->text = mg_item_dupn(start, (size_t)(end - start), &failed);
        it->start_line = from;
        it->end_line = last < from ? from : last;
        it->total_lines = total;
        it->truncated = truncated;
        it->changed_since_index = changed;
    }
    free(buf);
    return failed ? mg_err_set(err, MG_E_NO_MEMORY, "out of memory reading '%s'", path) : 0;
}

/* ---- 3. outline --------------------------------------------------------------------------------- */

int mg_code_outline(void *self_, const struct mg_pcall *pc, const struct mg_outline_query *q, struct mg_items *out,
                    struct mg_err *err)
{
    struct mg_code_self *self = self_;
    const char *path = q->path;
    while (path[0] == '.' && path[1] == '/') path += 2;
    if (check_rel_path(path, err) != 0) return -1;
    if (pc->nrepos != 1)
        return mg_err_set(err, MG_E_REPO_REQUIRED, "the session scope names %zu repos; pass `repo` to outline a file",
                          pc->nrepos);
    const struct mg_repo *r = &pc->repos[0];
    struct mg_db *d = NULL;
    struct mg_idx_cur fc = {0}, sc = {0};
    struct mg_idx_row fr, sr;
    char *text = NULL;
    size_t tlen = 0;
    int rc = -1;
    bool failed = false;
    if (mg_db_get(self->pool, r->dbpath, pc->deadline_ms, &d, err) != 0) return -1;
    if (mg_idx_file_by_path(d, path, MG_IDX_TEXT, &fc, err) != 0) goto done;
    int step = mg_idx_next(&fc, &fr);
    if (step <= 0) {
        if (step == 0) not_indexed(path, r, err);
        else mg_db_error(d, "read the files table", err);
        goto done;
    }
    int64_t fid = fr.id, size = fr.size;
    int64_t lo = fr.sym_lo, hi = fr.sym_hi;
    struct mg_file_entry *f = mg_items_add(out, &mg_item_file_entry);
    if (!f) goto oom;
    mg_code_owner(&f->base, r);
    f->repo = mg_item_dup(r->id, &failed);
    f->path = mg_item_dup(path, &failed);
    f->language = mg_item_dup(fr.lang, &failed);
    f->bytes = size;
    f->lines = fr.lines;
    if (failed) goto oom;
    int64_t total = 0;
    if (lo <= hi) {
        if (mg_idx_outline(d, lo, hi, fid, &sc, err) != 0) goto done;
        const char *at = NULL; /* the start of line at_line of text */
        int64_t at_line = 1;
        while ((step = mg_idx_next(&sc, &sr)) > 0) {
            total++;
            if (total <= q->offset || (int64_t)out->n - 1 >= q->limit) continue;
            if (!text) {
                if (mg_idx_text(&fr, (size_t)size, &text, &tlen) != 0) {
                    mg_err_set(err, MG_E_DB, "the stored text of '%s' in repo '%s' is corrupt; index the repo again",
                               path, r->id);
                    goto done;
                }
                at = text;
            }
            const char *kind = sr.kind;
            int64_t sl = sr.start_line, el = sr.end_line;
            char sig[MG_CODE_SIG_MAX + 1] = "";
            if (sl >= at_line) { /* rows come by start line: the text is walked once */
                at = skip_lines(at, text + tlen, sl - at_line);
                at_line = sl;
                mg_code_signature(at, text + tlen, el >= sl ? el - sl + 1 : 1, kind && mg_code_callable(kind), sig);
            }
            struct mg_outline_def *it = mg_items_add(out, &mg_item_outline_def);
            if (!it) goto oom;
            mg_code_owner(&it->base, r);
            it->name = mg_item_dup(sr.name, &failed);
            it->kind = mg_item_dup(kind ? kind : "", &failed);
            it->container = mg_item_dup(sr.container, &failed);
            it->start_line = sl;
            it->end_line = el;
            it->signature = mg_item_dup(sig, &failed);
            if (failed) goto oom;
        }
        if (step != 0) {
            mg_db_error(d, "read the symbols table", err);
            goto done;
        }
    }
    out->total = total;
    rc = 0;
    goto done;
oom:
    mg_err_set(err, MG_E_NO_MEMORY, "out of memory outlining '%s'", path);
done:
    free(text);
    mg_idx_done(&sc);
    mg_idx_done(&fc);
    mg_db_put(self->pool, &d);
    return rc;
}
