/* keyfile.c — a secret key in a file of its own (keyfile.h). */
#include "util/keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_err(struct mg_err *err, const char *what, const char *path)
{
    int e = errno;
    return mg_err_set(err, e == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot %s '%s': %s", what, path, strerror(e));
}

static int read_key(const char *path, const char *what, unsigned char *key, size_t n, struct mg_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT ? 1 : io_err(err, "open", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != (off_t)n) {
        close(fd);
        return mg_err_set(err, MG_E_IO, "%s '%s' is not a %zu-byte file; restore it from a backup", what, path, n);
    }
    if (st.st_mode & 077) {
        close(fd);
        return mg_err_set(err, MG_E_PERMISSION, "%s '%s' can be read by other users; run `chmod 600 %s`", what, path,
                          path);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, key + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (got != n) {
        errno = e;
        return io_err(err, "read", path);
    }
    return 0;
}

/* mkdir -p the directory of path, 0700; its path into dir ("" none). */
static int make_dir(const char *path, char dir[PATH_MAX], struct mg_err *err)
{
    snprintf(dir, PATH_MAX, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        dir[0] = 0;
        return 0;
    }
    *slash = 0;
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) return io_err(err, "create", dir);
        *p = c;
        if (!c) break;
    }
    return 0;
}

int mg_keyfile_load(const char *path, const char *what, unsigned char *key, size_t n, bool create,
                    struct mg_err *err)
{
    int rc = read_key(path, what, key, n, err);
    if (rc != 1 || !create) return rc;
    if (sodium_init() < 0) return mg_err_set(err, MG_E_INTERNAL, "libsodium cannot be initialised");
    char dir[PATH_MAX], tmp[PATH_MAX + 48];
    if (make_dir(path, dir, err) != 0) return -1;
    unsigned char r[8];
    char hex[17];
    randombytes_buf(r, sizeof(r));
    sodium_bin2hex(hex, sizeof(hex), r, sizeof(r));
    snprintf(tmp, sizeof(tmp), "%s.%s.tmp", path, hex);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return io_err(err, "create", tmp);
    unsigned char k[64];
    bool ok = true;
    for (size_t done = 0; ok && done < n; done += sizeof(k)) {
        size_t m = n - done < sizeof(k) ? n - done : sizeof(k);
        randombytes_buf(k, m);
        ok = write(fd, k, m) == (ssize_t)m;
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    close(fd);
    sodium_memzero(k, sizeof(k));
    if (!ok || (link(tmp, path) != 0 && errno != EEXIST)) {
        if (ok) e = errno;
        unlink(tmp);
        errno = e;
        return io_err(err, "create", path);
    }
    unlink(tmp);
    if (dir[0]) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    rc = read_key(path, what, key, n, err);
    return rc == 1 ? mg_err_set(err, MG_E_IO, "%s '%s' vanished after it was made", what, path) : rc;
}
