/* file.c — files written whole or not at all (file.h). */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

int mg_file_replace(const char *path, mg_file_writer write, void *arg, struct mg_err *err)
{
    char tmp[4300], dir[4200];
    snprintf(tmp, sizeof(tmp), "%s.%ld.%lx.tmp", path, (long)getpid(), (unsigned long)pthread_self());
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof(dir), ".");
    bool nameless = true;
    int fd = open(slash && !*dir ? "/" : dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        nameless = false;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    }
    if (fd < 0) return mg_err_set(err, MG_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) close(fd);
    int bad = !f || write(f, arg) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0, e = errno;
    if (!bad && nameless) {
        char self[64];
        snprintf(self, sizeof(self), "/proc/self/fd/%d", fileno(f));
        bad = linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0;
        e = errno;
    }
    if (f && fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return mg_err_set(err, MG_E_IO, "cannot write '%s': %s", path, strerror(e ? e : EIO));
    }
    return 0;
}
