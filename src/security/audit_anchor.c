/* audit_anchor.c — what vouches for the audit chain's files from outside
 * them (audit.h, "The anchor"): the audit key, kept away from the data
 * directory; audit.anchor's two keyed slots, read and checked; and the
 * files the chain is kept in, each known by the seq of its first event, set
 * against the ones the anchor names.
 *
 * Sections:
 *   1. the key
 *   2. the anchor file
 *   3. the files the chain is in
 */
#include "security/audit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/common.h"
#include "util/keyfile.h"

/* ---- 1. the key ------------------------------------------------------------------------ */

void mg__audit_key_path(const struct mg_config *c, char *out, size_t cap)
{
    if (c->audit_key[0]) {
        snprintf(out, cap, "%s", c->audit_key);
        return;
    }
    const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (x && *x) snprintf(out, cap, "%s/memgate/audit.key", x);
    else snprintf(out, cap, "%s/.config/memgate/audit.key", home && *home ? home : "/tmp");
}

/* The canonical form of the directory that holds path (it may not exist
 * yet: then its nearest existing ancestor's, with the rest appended). */
static void real_dir_of(const char *path, char out[PATH_MAX])
{
    char d[PATH_MAX], rest[PATH_MAX] = "";
    snprintf(d, sizeof(d), "%s", path);
    char *slash = strrchr(d, '/');
    if (slash && slash != d) *slash = 0;
    else snprintf(d, sizeof(d), "%s", slash ? "/" : ".");
    while (!realpath(d, out)) {
        char *s = strrchr(d, '/');
        if (!s || s == d) {
            snprintf(out, PATH_MAX, "%s", d);
            return;
        }
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof(tmp), "%s%s", s, rest);
        snprintf(rest, sizeof(rest), "%s", tmp);
        *s = 0;
    }
    size_t n = strlen(out);
    snprintf(out + n, PATH_MAX - n, "%s", rest);
}

static bool is_inside(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(p, dir, n) == 0 && (p[n] == 0 || p[n] == '/' || (n == 1 && dir[0] == '/'));
}

int mg__audit_key_load(const struct mg_config *c, bool may_create, unsigned char key[MG__AUDIT_KEY_BYTES],
                       char *path, size_t pathcap, struct mg_err *err)
{
    mg__audit_key_path(c, path, pathcap);
    char kd[PATH_MAX], home[PATH_MAX];
    real_dir_of(path, kd);
    if (!realpath(c->home, home)) snprintf(home, sizeof(home), "%s", c->home);
    if (is_inside(kd, home))
        return mg_err_set(err, MG_E_CONFIG, "the audit key '%s' lies in the data directory '%s': the key that "
                          "vouches for the audit log must not live beside it; set audit_key to a file elsewhere "
                          "(by default ~/.config/memgate/audit.key)", path, c->home);
    return mg_keyfile_load(path, "the audit key", key, MG__AUDIT_KEY_BYTES, may_create, err);
}

void mg__audit_new_chain(char out[17])
{
    unsigned char r[8];
    randombytes_buf(r, sizeof(r));
    sodium_bin2hex(out, 17, r, sizeof(r));
}

/* ---- 2. the anchor file ---------------------------------------------------------------- */

/* One slot's record (up to its newline) parsed, and checked with key. */
static void read_slot(const char *p, size_t n, const unsigned char *key, struct mg_audit_anchor *an, int *state)
{
    const char *nl = memchr(p, '\n', n);
    size_t len = nl ? (size_t)(nl - p) : n;
    while (len && p[len - 1] == ' ') len--;
    *state = 0; /* 0 empty or not a record, 1 a record that does not verify, 2 verified */
    if (!len) return;
    *state = 1;
    if (p[0] != '{' || mg_audit_anchor_parse(p, len, an) != 0 || !an->mac[0]) return;
    if (key && mg__audit_anchor_mac_ok(an, key)) *state = 2;
}

int mg__audit_anchor_load(const char *path, const unsigned char *key, struct mg__audit_anchor_file *out)
{
    memset(out, 0, sizeof(*out));
    out->slot = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    char *buf = malloc(MG__AUDIT_ANCHOR_FILE + 1);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    size_t n = mg_read_full(fd, buf, MG__AUDIT_ANCHOR_FILE + 1);
    int e = errno;
    close(fd);
    out->state = 1;
    if (n == MG__AUDIT_ANCHOR_FILE) {
        out->state = 2;
        struct mg_audit_anchor *s1 = malloc(sizeof(*s1));
        int st0, st1;
        if (!s1) {
            free(buf);
            errno = ENOMEM;
            return -1;
        }
        read_slot(buf, MG__AUDIT_SLOT, key, &out->an, &st0);
        read_slot(buf + MG__AUDIT_SLOT, MG__AUDIT_SLOT, key, s1, &st1);
        out->bad = (st0 == 1) + (st1 == 1);
        if (st1 == 2 && (st0 != 2 || s1->seq > out->an.seq)) {
            out->an = *s1;
            out->slot = 1;
        } else if (st0 == 2) {
            out->slot = 0;
        }
        out->valid = out->slot >= 0;
        if (!out->valid && st1 == 1 && st0 != 1) out->an = *s1; /* what the one record there claims */
        free(s1);
    } else if (n > MG__AUDIT_ANCHOR_FILE || mg_audit_anchor_parse(buf, n, &out->an) != 0 || out->an.mac[0]) {
        out->state = 3; /* neither an older memgate's record nor two slots: damaged or made by hand */
        errno = 0;
    }
    free(buf);
    if (n == 0 && e) {
        errno = e;
        return -1;
    }
    return 0;
}

/* ---- 3. the files the chain is in ------------------------------------------------------ */

/* The seq of the first event of the file at path: > 0, 0 when it holds no
 * complete first line that names one. */
static long long first_seq(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    char buf[4096];
    size_t n = mg_read_full(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n] = 0;
    if (strncmp(buf, "{\"seq\":", 7) != 0) return 0;
    char *end;
    long long s = strtoll(buf + 7, &end, 10);
    return end != buf + 7 && *end == ',' && s > 0 ? s : 0;
}

int mg__audit_file_firsts(const char *dir, long long *firsts, int *nums, int cap)
{
    int *rot;
    size_t nrot;
    if (mg__audit_rotated(dir, &rot, &nrot) != 0) return -1;
    int n = 0;
    char p[PATH_MAX + 32];
    for (size_t i = 0; i <= nrot && n < cap; i++) {
        int num = i < nrot ? rot[i] : 0;
        if (num) snprintf(p, sizeof(p), "%s/audit.log.%d", dir, num);
        else snprintf(p, sizeof(p), "%s/audit.log", dir);
        long long s = first_seq(p);
        if (!s) continue; /* empty (a new audit.log), or its first line is not an event */
        firsts[n] = s;
        if (nums) nums[n] = num;
        n++;
    }
    free(rot);
    return n;
}

bool mg__audit_files_missing(const struct mg_audit_anchor *an, const long long *firsts, int n, char *what,
                             size_t cap)
{
    size_t w = 0;
    what[0] = 0;
    int missing = 0;
    for (int i = 0; i < an->nfiles; i++) {
        bool there = false;
        for (int j = 0; j < n && !there; j++) there = firsts[j] == an->files[i];
        if (there) continue;
        long long to = i + 1 < an->nfiles ? an->files[i + 1] - 1 : an->seq;
        if (missing++ < 4 && w < cap)
            w += (size_t)snprintf(what + w, cap - w, "%sseq %lld-%lld", missing > 1 ? ", " : "", an->files[i], to);
    }
    if (missing > 4 && w < cap) snprintf(what + w, cap - w, " and %d more", missing - 4);
    return missing > 0;
}
