/* accesslog.c — see accesslog.h. */
#include "util/accesslog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
    pthread_mutex_t mu;       /* guards the fields below */
    bool on;
    int fd;                   /* -1: none; 2: stderr (never closed here) */
    char path[PATH_MAX];      /* "" for stderr */
    size_t size, max_bytes;   /* the file's size as far as we know, and its cap */
    int keep;
} al = {PTHREAD_MUTEX_INITIALIZER, false, -1, "", 0, 0, 0};

static int open_log(const char *path, size_t *size, struct mg_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0)
        return mg_err_set(err, MG_E_CONFIG, "cannot open the access log '%s': %s; fix access_log (or set it to "
                          "stderr or off)", path, strerror(errno));
    struct stat st;
    *size = fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
    return fd;
}

int mg_access_log_configure(const char *dest, size_t max_bytes, int keep, struct mg_err *err)
{
    int fd = -1;
    size_t size = 0;
    bool file = dest && dest[0] == '/';
    if (file && (fd = open_log(dest, &size, err)) < 0) return -1;
    pthread_mutex_lock(&al.mu);
    if (al.fd > 2) close(al.fd);
    al.on = file || (dest && strcmp(dest, "stderr") == 0);
    al.fd = file ? fd : al.on ? 2 : -1;
    snprintf(al.path, sizeof(al.path), "%s", file ? dest : "");
    al.size = size;
    al.max_bytes = max_bytes;
    al.keep = keep;
    pthread_mutex_unlock(&al.mu);
    return 0;
}

bool mg_access_log_on(void)
{
    pthread_mutex_lock(&al.mu);
    bool on = al.on;
    pthread_mutex_unlock(&al.mu);
    return on;
}

/* PATH -> PATH.1 -> ... -> PATH.keep, then a new PATH (al.mu held). */
static void rotate_locked(void)
{
    char from[PATH_MAX + 16], to[PATH_MAX + 16];
    if (al.keep > 0) {
        snprintf(to, sizeof(to), "%s.%d", al.path, al.keep);
        unlink(to);
        for (int i = al.keep - 1; i >= 1; i--) {
            snprintf(from, sizeof(from), "%s.%d", al.path, i);
            snprintf(to, sizeof(to), "%s.%d", al.path, i + 1);
            rename(from, to);
        }
        snprintf(to, sizeof(to), "%s.1", al.path);
        rename(al.path, to);
    } else {
        if (ftruncate(al.fd, 0) != 0) return;
        al.size = 0;
        return;
    }
    struct mg_err err = {0};
    size_t size = 0;
    int fd = open_log(al.path, &size, &err);
    if (fd < 0) {
        fprintf(stderr, "memgate: access log: error[%s]: %s\n", err.code, err.msg);
        return; /* keep writing to the renamed file */
    }
    close(al.fd);
    al.fd = fd;
    al.size = size;
}

void mg_access_log_write(const char *line, size_t len)
{
    char stack[2048], *buf = len + 1 <= sizeof(stack) ? stack : malloc(len + 1);
    if (!buf) return;
    memcpy(buf, line, len);
    buf[len] = '\n';
    pthread_mutex_lock(&al.mu);
    if (al.on && al.fd >= 0) {
        ssize_t w = write(al.fd, buf, len + 1);
        if (w > 0) al.size += (size_t)w;
        if (al.path[0] && al.size >= al.max_bytes) rotate_locked();
    }
    pthread_mutex_unlock(&al.mu);
    if (buf != stack) free(buf);
}

void mg_access_log_close(void)
{
    pthread_mutex_lock(&al.mu);
    if (al.fd > 2) close(al.fd);
    al.fd = -1;
    al.on = false;
    al.path[0] = 0;
    pthread_mutex_unlock(&al.mu);
}
