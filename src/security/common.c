/* common.c — see common.h. */
#include "security/common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "util/word.h"

int64_t mg_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mg_rfc3339_ms(int64_t unix_ms, char out[32])
{
    time_t t = (time_t)(unix_ms / 1000);
    int ms = (int)(unix_ms % 1000);
    if (ms < 0) ms += 1000, t--;
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

int mg_parse_duration(const char *s, int64_t *secs)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || v <= 0) return -1;
    long long mul;
    switch (*end) {
    case 0:
    case 's': mul = 1; break;
    case 'm': mul = 60; break;
    case 'h': mul = 3600; break;
    case 'd': mul = 86400; break;
    case 'w': mul = 7 * 86400; break;
    default: return -1;
    }
    if (*end && end[1]) return -1;
    if (v > (100LL * 366 * 86400) / mul) return -1; /* a century is plenty */
    *secs = v * mul;
    return 0;
}

/* Exactly n digits at s into *v. */
static bool digits(const char *s, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
}

int mg_parse_time(const char *s, int64_t now_ms, int64_t *ms)
{
    int64_t d;
    if (mg_parse_duration(s, &d) == 0) {
        *ms = now_ms - d * 1000;
        return 0;
    }
    struct tm tm = {0};
    int y, mo, da, h = 0, mi = 0, se = 0, frac = 0;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &da))
        return -1;
    const char *p = s + 10;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        if (!digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &mi)) return -1;
        p += 6;
        if (*p == ':') {
            if (!digits(p + 1, 2, &se)) return -1;
            p += 3;
            if (*p == '.') {
                p++;
                int n = 0;
                while (isdigit((unsigned char)*p)) {
                    if (n < 3) frac = frac * 10 + (*p - '0');
                    n++, p++;
                }
                if (n == 0) return -1;
                for (; n < 3; n++) frac *= 10;
            }
        }
        if (*p == 'Z' || *p == 'z') p++;
    }
    if (*p) return -1;
    if (mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60) return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = da;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    time_t t = timegm(&tm);
    *ms = (int64_t)t * 1000 + frac;
    return 0;
}

bool mg_tenant_ok(const char *s) { return mg_word_ok(s, MG_TENANT_MAX); }

int mg_tenant_check(const char *s, struct mg_err *err)
{
    if (mg_tenant_ok(s)) return 0;
    return mg_err_set(err, MG_E_NAME_INVALID, "tenant '%.80s' is not valid: use 1-%d characters of a-z, 0-9, "
                      "'.', '_', '-'", s ? s : "", MG_TENANT_MAX);
}

size_t mg_read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

int mg_mkdirs_0700(const char *path, struct mg_err *err)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
        return mg_err_set(err, MG_E_IO, "path '%.200s...' is too long", path);
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q) continue;
        char saved = *q;
        *q = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return mg_err_set(err, errno == EACCES ? MG_E_PERMISSION : MG_E_IO, "cannot create directory '%s': %s",
                              p, strerror(errno));
        *q = saved;
        if (!saved) break;
    }
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
        return mg_err_set(err, MG_E_NOT_A_DIR, "'%s' is not a directory; remove it or choose another data directory",
                          p);
    return 0;
}

static void sodium_once(void)
{
    /* randombytes and the hashes work without it (it only picks the fastest
     * implementations), so a failure changes nothing; checked for the compiler */
    if (sodium_init() < 0) return;
}

void mg_sodium_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, sodium_once);
}
