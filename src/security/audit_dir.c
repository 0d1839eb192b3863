/* audit_dir.c — the audit directory of the data directory
 * (<home>/audit: audit.log, its rotated files, audit.anchor, audit.lock),
 * as the files' writer (audit_file.c) and the readers (audit_query.c,
 * audit_verify.c) share it: errors, locks, the rotated files, the boot id
 * anchors are stamped with (audit_int.h).
 */
#include "security/audit_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"

int mg__audit_io_err(struct mg_err *err, const char *what, const char *path)
{
    int e = errno;
    if (e == ENOSPC) return mg_err_set(err, MG_E_IO, "the disk is full %s '%s'; free space", what, path);
    return mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot %s '%s': %s", what, path, strerror(e));
}

int mg__audit_lock(int fd, int how)
{
    while (flock(fd, how) != 0)
        if (errno != EINTR) return -1;
    return 0;
}

int mg__audit_open_lock(const char *dir, struct mg_err *err)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/audit.lock", dir);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) mg__audit_io_err(err, "open", p);
    return fd;
}

int mg__audit_shared_lock(const struct mg_config *c, struct mg_err *err)
{
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof(dir), "%s/audit", c->home);
    struct stat st;
    if (stat(dir, &st) != 0) return -2; /* no audit log yet */
    int fd = mg__audit_open_lock(dir, err);
    if (fd < 0) return -1;
    if (mg__audit_lock(fd, LOCK_SH) != 0) {
        mg__audit_io_err(err, "lock", dir);
        close(fd);
        return -1;
    }
    return fd;
}

int mg__audit_rotated(const char *dir, int **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : -1;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "audit.log.", 10) != 0) continue;
        char *end;
        long v = strtol(de->d_name + 10, &end, 10);
        if (*end || v < 1 || v > 1000000 || de->d_name[10] == '0') continue;
        int *nv = mg_grow(*out, *n, &cap, sizeof(int));
        if (!nv) {
            closedir(d);
            return -1;
        }
        *out = nv;
        (*out)[(*n)++] = (int)v;
    }
    closedir(d);
    for (size_t i = 1; i < *n; i++) /* insertion sort, descending */
        for (size_t j = i; j > 0 && (*out)[j - 1] < (*out)[j]; j--) {
            int t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return 0;
}

void mg__audit_boot_id(char out[40])
{
    out[0] = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f) return;
    if (!fgets(out, 40, f)) out[0] = 0;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    for (char *p = out; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == '-')) {
            out[0] = 0;
            break;
        }
}
