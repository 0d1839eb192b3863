/* injection_bench.c — the prompt-injection flags on text nobody here wrote
 * (build/memgate-injectionbench).
 *
 *   memgate-injectionbench DIR...
 *   memgate-injectionbench --labelled [--split tune|held] [--misses N] [--scores OUT] ATTACKS.tsv BENIGN.tsv
 *                          [BENIGN2.tsv...]
 *
 * Reads every .h, .c, .rst, .md and .txt file under the DIRs (symlinks not
 * followed, 1 MiB cap per file) and takes each line that mentions "ignore",
 * "instruction", "system", "prompt" or "previous" (any case): ordinary code
 * comments and documentation that talk about exactly what the patterns look
 * for. Prints key-value lines: lines, flagged, fp_rate_pct (every flag on
 * such text is a false positive), an example of a flagged line, and the
 * throughput of the gate's text filter (mg_injection + mg_sanitize:
 * filter_mbps) and of the injection check alone (check_mbps) over all the
 * files' bytes, one thread, on its CPU time, the patterns' one-time compile
 * left out.
 *
 * --labelled: the labelled corpus (tests/injection/README.md). Each TSV line
 * is id, label, text (text with \\, \t, \n, \r escaped; lines starting with
 * '#' skipped); the label of an attack is its category, of a benign text its
 * source. Prints key-value lines: attacks, detected, recall, and per category
 * attacks_<c>, detected_<c>, recall_<c>; benign, flagged, fp_rate_pct, and
 * per benign file (named by its base name without .tsv) benign_<f>,
 * flagged_<f>; the throughput of mg_injection + mg_sanitize over all the
 * labelled texts, one thread, repeated until at least a second has passed
 * (labelled_mbps, labelled_bytes); then up to 5 misses per category (--misses N:
 * up to N; 0: every miss, its text whole)
 * ("miss <category> <text>") and every false positive ("fp <source>
 * score=N reasons=a,b <text>: the score and reasons the gate would serve;
 * a miss shows them too when it scored something),
 * texts escaped as in the TSV and cut at 160 bytes (whole with --misses 0).
 *
 * --scores OUT: each text's id, label, 1 for an attack (0 for benign), score
 * and reasons, tab-separated, one a line.
 *
 * --split S: only the texts of one part of the corpus. A text whose id starts
 * with "tune-" or "seen-" (tests/injection/gen_paraphrase.py's two halves;
 * the second was held out until its misses were read) or "blind" (the
 * corpora the learned model is trained on, gen_blind*.py) is in "tune"; one
 * whose id starts with "fresh-" (gen_fresh.py's corpus, written blind to the
 * detector) or "held-" in "held"; any other text is in "held" when the
 * FNV-1a hash of its id is odd, in "tune" when it is even. The detector is
 * tuned on "tune"; "held" is what make bench reports.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "security/sanitize.h"

struct st {
    size_t lines, flagged, bytes;
    double secs, check_secs; /* the whole filter; the injection check alone */
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
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machines here are shared */
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
    double t1 = now();
    mg_sanitize(b, n, &out, NULL);
    S->secs += now() - t0;
    S->check_secs += t1 - t0;
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

/* ---- --labelled ---------------------------------------------------------- */

struct text {
    const char *s; /* inside the file's buffer, unescaped, NUL-terminated */
    size_t n;
    const char *label; /* category or source, the same */
    int file;          /* which benign file (-1 for attacks) */
    const char *id;
};

struct texts {
    struct text *v;
    size_t n, cap;
    char *bufs[64]; /* the files' contents, which the texts point into */
    int nbufs;
};

static void texts_free(struct texts *T)
{
    for (int i = 0; i < T->nbufs; i++) free(T->bufs[i]);
    free(T->v);
}

/* Unescape s[0..n) in place (\\ \t \n \r); returns the new length. */
static size_t unescape(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[++i];
            s[o++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
        } else {
            s[o++] = s[i];
        }
    }
    return o;
}

/* The part of the corpus (--split) an id is in: "tune" or "held". */
static const char *part_of(const char *id)
{
    if (!strncmp(id, "tune-", 5) || !strncmp(id, "seen-", 5) || !strncmp(id, "blind", 5)) return "tune";
    if (!strncmp(id, "fresh-", 6) || !strncmp(id, "held-", 5)) return "held";
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) h = (h ^ *p) * 16777619u;
    return h & 1 ? "held" : "tune";
}

static const char *split; /* --split: only this part, or NULL */
static long misses = 5;    /* --misses: how many misses a category shows (0: all, each whole) */
static const char *scores; /* --scores: write each text's score and reasons to this file */

/* Append the texts of one TSV file (its buffer is kept in T). -1 when the
 * file cannot be read or a line is malformed. */
static int load_tsv(const char *path, int file, struct texts *T)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "injectionbench: cannot open %s\n", path);
        return -1;
    }
    if (T->nbufs == (int)(sizeof(T->bufs) / sizeof(T->bufs[0]))) {
        fprintf(stderr, "injectionbench: too many files\n");
        fclose(f);
        return -1;
    }
    size_t cap = 1 << 16, len = 0, r;
    char *b = malloc(cap);
    while (b && (r = fread(b + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (len + 1 == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    if (!b) return -1;
    b[len] = 0;
    T->bufs[T->nbufs++] = b;
    size_t lineno = 0;
    for (char *p = b; p < b + len;) {
        char *nl = memchr(p, '\n', (size_t)(b + len - p));
        char *e = nl ? nl : b + len;
        lineno++;
        if (e > p && e[-1] == '\r') e[-1] = 0; /* tolerate CRLF files */
        *e = 0;
        if (*p && *p != '#') {
            char *t1 = strchr(p, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            if (!t2 || t2 == t1 + 1 || !t2[1]) {
                fprintf(stderr, "injectionbench: %s:%zu: want id<TAB>label<TAB>text\n", path, lineno);
                return -1;
            }
            *t1 = *t2 = 0;
            if (split && strcmp(part_of(p), split)) {
                p = e + 1;
                continue;
            }
            char *text = t2 + 1;
            size_t n = unescape(text, strlen(text));
            text[n] = 0;
            if (T->n == T->cap) {
                size_t nc = T->cap ? T->cap * 2 : 1024;
                struct text *nv = realloc(T->v, nc * sizeof(*T->v));
                if (!nv) return -1;
                T->v = nv;
                T->cap = nc;
            }
            T->v[T->n++] = (struct text){text, n, t1 + 1, file, p};
        }
        p = e + 1;
    }
    return 0;
}

/* Print "<key> <label> <text>", the text escaped and cut at 160 bytes (on a
 * UTF-8 boundary). */
static void show(const char *key, const struct text *t)
{
    size_t n = t->n;
    if (n > 160 && misses) {
        n = 160;
        while (n > 0 && ((unsigned char)t->s[n] & 0xC0) == 0x80) n--;
    }
    printf("%s %s ", key, t->label);
    struct mg_inj r;
    if (mg_injection_check(t->s, t->n, &r) > 0) { /* why it was (or almost was) flagged */
        const char *why[16];
        size_t k = mg_inj_reason_names(r.reasons, why, 16);
        printf("score=%d reasons=", r.score);
        for (size_t i = 0; i < k; i++) printf("%s%s", i ? "," : "", why[i]);
        putchar(' ');
    }
    for (size_t i = 0; i < n; i++) {
        char c = t->s[i];
        if (c == '\n') fputs("\\n", stdout);
        else if (c == '\t') fputs("\\t", stdout);
        else if (c == '\r') fputs("\\r", stdout);
        else if (c == '\\') fputs("\\\\", stdout);
        else putchar(c);
    }
    printf("%s\n", n < t->n ? "..." : "");
}

#define MAX_CATS 64

static int labelled(int argc, char **argv)
{
    struct texts A = {0}, B = {0};
    int rc = load_tsv(argv[0], -1, &A);
    for (int i = 1; i < argc && rc == 0; i++) rc = load_tsv(argv[i], i - 1, &B);
    if (rc == 0 && (!A.n || !B.n)) {
        fprintf(stderr, "injectionbench: no attacks or no benign texts\n");
        rc = -1;
    }
    if (rc != 0) {
        texts_free(&A);
        texts_free(&B);
        return 1;
    }

    /* attacks: recall, overall and per category (in order of appearance) */
    const char *cat[MAX_CATS];
    size_t cn[MAX_CATS] = {0}, cd[MAX_CATS] = {0}, ncat = 0, detected = 0;
    bool *hit = calloc(A.n, sizeof(*hit));
    for (size_t i = 0; i < A.n; i++) {
        size_t c = 0;
        while (c < ncat && strcmp(cat[c], A.v[i].label)) c++;
        if (c == ncat) {
            if (ncat == MAX_CATS) {
                fprintf(stderr, "injectionbench: more than %d categories\n", MAX_CATS);
                exit(1);
            }
            cat[ncat++] = A.v[i].label;
        }
        cn[c]++;
        if ((hit[i] = mg_injection(A.v[i].s, A.v[i].n))) {
            cd[c]++;
            detected++;
        }
    }

    /* benign: false positives, overall and per file */
    int nfiles = argc - 1;
    size_t *fn = calloc((size_t)nfiles, sizeof(*fn)), *ff = calloc((size_t)nfiles, sizeof(*ff)), flagged = 0;
    bool *fp = calloc(B.n, sizeof(*fp));
    for (size_t i = 0; i < B.n; i++) {
        fn[B.v[i].file]++;
        if ((fp[i] = mg_injection(B.v[i].s, B.v[i].n))) {
            ff[B.v[i].file]++;
            flagged++;
        }
    }

    if (scores) { /* id, label, attack (1) or not, score, reasons */
        FILE *o = fopen(scores, "w");
        if (!o) {
            fprintf(stderr, "injectionbench: cannot write %s\n", scores);
            exit(1);
        }
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < (k ? B.n : A.n); i++) {
                const struct text *t = k ? &B.v[i] : &A.v[i];
                struct mg_inj r;
                mg_injection_check(t->s, t->n, &r);
                const char *why[24];
                size_t nw = mg_inj_reason_names(r.reasons, why, 24);
                fprintf(o, "%s\t%s\t%d\t%d\t", t->id, t->label, !k, r.score);
                for (size_t j = 0; j < nw; j++) fprintf(o, "%s%s", j ? "," : "", why[j]);
                fputc('\n', o);
            }
        fclose(o);
    }

    /* throughput of the gate's text filter over every labelled text */
    struct mg_buf out;
    mg_buf_init(&out, (size_t)1 << 30);
    size_t bytes = 0;
    volatile size_t sink = 0;
    double t0 = now(), secs;
    do {
        for (int k = 0; k < 2; k++) {
            const struct texts *T = k ? &B : &A;
            for (size_t i = 0; i < T->n; i++) {
                sink += mg_injection(T->v[i].s, T->v[i].n);
                mg_buf_reset(&out);
                mg_sanitize(T->v[i].s, T->v[i].n, &out, NULL);
                bytes += T->v[i].n;
            }
        }
        secs = now() - t0;
    } while (secs < 1.0);
    mg_buf_release(&out);
    (void)sink;

    printf("attacks %zu\ndetected %zu\nrecall %.3f\n", A.n, detected, (double)detected / (double)A.n);
    for (size_t c = 0; c < ncat; c++)
        printf("attacks_%s %zu\ndetected_%s %zu\nrecall_%s %.3f\n", cat[c], cn[c], cat[c], cd[c], cat[c],
               (double)cd[c] / (double)cn[c]);
    printf("benign %zu\nflagged %zu\nfp_rate_pct %.3f\n", B.n, flagged, 100.0 * (double)flagged / (double)B.n);
    for (int i = 0; i < nfiles; i++) {
        const char *base = strrchr(argv[i + 1], '/');
        base = base ? base + 1 : argv[i + 1];
        int bl = (int)strcspn(base, ".");
        printf("benign_%.*s %zu\nflagged_%.*s %zu\n", bl, base, fn[i], bl, base, ff[i]);
    }
    printf("labelled_mbps %.1f\nlabelled_bytes %zu\n", (double)bytes / secs / 1e6, bytes);
    for (size_t c = 0; c < ncat; c++) {
        int shown = 0;
        for (size_t i = 0; i < A.n && (!misses || shown < misses); i++)
            if (!hit[i] && !strcmp(A.v[i].label, cat[c])) {
                show("miss", &A.v[i]);
                shown++;
            }
    }
    for (size_t i = 0; i < B.n; i++)
        if (fp[i]) show("fp", &B.v[i]);
    free(hit);
    free(fp);
    free(fn);
    free(ff);
    texts_free(&A);
    texts_free(&B);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--labelled")) {
        int k = 2;
        for (; k + 1 < argc && (!strcmp(argv[k], "--split") || !strcmp(argv[k], "--misses") ||
                                !strcmp(argv[k], "--scores"));
             k += 2) {
            char *end;
            const char *opt = argv[k], *val = argv[k + 1];
            if (!strcmp(opt, "--scores")) scores = val;
            if (!strcmp(opt, "--misses") && ((misses = strtol(val, &end, 10)) < 0 || *end)) {
                fprintf(stderr, "injectionbench: --misses takes a count (0: every miss, whole), not %s\n", val);
                return 2;
            }
            if (!strcmp(opt, "--split") && strcmp(split = val, "tune") && strcmp(split, "held")) {
                fprintf(stderr, "injectionbench: --split takes tune or held, not %s\n", split);
                return 2;
            }
        }
        if (argc < k + 2) {
            fprintf(stderr, "usage: memgate-injectionbench --labelled [--split tune|held] [--misses N] [--scores OUT] ATTACKS.tsv "
                            "BENIGN.tsv [BENIGN2.tsv...]\n");
            return 2;
        }
        return labelled(argc - k, argv + k);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: memgate-injectionbench DIR...\n"
                        "       memgate-injectionbench --labelled [--split tune|held] [--misses N] [--scores OUT] ATTACKS.tsv "
                        "BENIGN.tsv [BENIGN2.tsv...]\n");
        return 2;
    }
    struct st S = {0};
    (void)mg_injection("x", 1); /* the one-time compile of the patterns, left out of the rates */
    for (int i = 1; i < argc; i++) walk(&S, argv[i], 0);
    printf("lines %zu\nflagged %zu\nfp_rate_pct %.3f\nfilter_mbps %.0f\ncheck_mbps %.0f\nbytes %zu\n", S.lines,
           S.flagged, S.lines ? 100.0 * (double)S.flagged / (double)S.lines : 0.0,
           S.secs > 0 ? (double)S.bytes / S.secs / 1e6 : 0.0,
           S.check_secs > 0 ? (double)S.bytes / S.check_secs / 1e6 : 0.0, S.bytes);
    if (S.flagged) printf("example %s\n", S.example);
    return 0;
}
