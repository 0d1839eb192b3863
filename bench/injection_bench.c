/* injection_bench.c — the prompt-injection flags on text nobody here wrote
 * (build/memgate-injectionbench).
 *
 *   memgate-injectionbench DIR...
 *
 * Reads every .h, .c, .rst, .md and .txt file under the DIRs (symlinks not
 * followed, 1 MiB cap per file) and takes each line that mentions "ignore",
 * "instruction", "system", "prompt" or "previous" (any case): ordinary code
 * comments and documentation that talk about exactly what the patterns look
 * for. Prints key-value lines: lines, flagged, fp_rate_pct (every flag on
 * such text is a false positive), an example of a flagged line, and the
 * throughput of the gate's text filter (mg_injection + mg_sanitize) over all
 * the files' bytes, one thread.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "security/sanitize.h"

struct st {
    size_t lines, flagged, bytes;
    double secs;
    char example[300];
};

static bool mentions(const char *s, size_t n)
{
    static const char *const words[] = {"ignore", "instruction", "system", "prompt", "previous", NULL};
    char low[2048];
    if (n >= sizeof(low)) n = sizeof(low) - 1;
    for (size_t i = 0; i < n; i++) low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
    low[n] = 0;
    for (const char *const *w = words; *w; w++)
        if (strstr(low, *w)) return true;
    return false;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void file(struct st *S, const char *path, off_t size)
{
    if (size <= 0 || size > (1 << 20)) return;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char *b = malloc((size_t)size);
    size_t n = b ? fread(b, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!b) return;
    /* the whole file through the gate's filter, timed */
    struct mg_buf out;
    mg_buf_init(&out, (size_t)1 << 30);
    double t0 = now();
    (void)mg_injection(b, n);
    mg_sanitize(b, n, &out, NULL);
    S->secs += now() - t0;
    S->bytes += n;
    mg_buf_release(&out);
    for (size_t i = 0; i < n;) {
        char *nl = memchr(b + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - b) : n;
        if (e - i >= 12 && mentions(b + i, e - i)) {
            S->lines++;
            if (mg_injection(b + i, e - i)) {
                if (!S->flagged)
                    snprintf(S->example, sizeof(S->example), "%s: %.*s", path, (int)(e - i > 200 ? 200 : e - i),
                             b + i);
                S->flagged++;
            }
        }
        i = e + 1;
    }
    free(b);
}

static void walk(struct st *S, const char *dir, int depth)
{
    DIR *d = depth < 24 ? opendir(dir) : NULL;
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            walk(S, p, depth + 1);
            continue;
        }
        const char *dot = strrchr(e->d_name, '.');
        if (S_ISREG(sb.st_mode) && dot &&
            (!strcmp(dot, ".h") || !strcmp(dot, ".c") || !strcasecmp(dot, ".rst") || !strcasecmp(dot, ".md") ||
             !strcasecmp(dot, ".txt")))
            file(S, p, sb.st_size);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: memgate-injectionbench DIR...\n");
        return 2;
    }
    struct st S = {0};
    for (int i = 1; i < argc; i++) walk(&S, argv[i], 0);
    printf("lines %zu\nflagged %zu\nfp_rate_pct %.3f\nfilter_mbps %.0f\nbytes %zu\n", S.lines, S.flagged,
           S.lines ? 100.0 * (double)S.flagged / (double)S.lines : 0.0, S.secs > 0 ? (double)S.bytes / S.secs / 1e6 : 0.0,
           S.bytes);
    if (S.flagged) printf("example %s\n", S.example);
    return 0;
}
