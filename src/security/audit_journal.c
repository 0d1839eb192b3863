/* audit_journal.c — the anchor's copy out of the data directory's reach,
 * in the machine's log (audit.h, "The anchor"): sent to the systemd journal
 * (its native socket, with the chain's id as a field of its own) or, where
 * there is no journal, to syslog(3); and read back from the journal for
 * `memgate audit --verify` (journalctl).
 *
 * Sections:
 *   1. is there a journal, a syslog
 *   2. sending
 *   3. reading back
 */
#include "security/audit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define SYSLOG_SOCKET "/dev/log"
#define JOURNALCTL_TIMEOUT_MS 10000

extern char **environ;

/* ---- 1. is there a journal, a syslog ---------------------------------------------------- */

static bool is_socket(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISSOCK(st.st_mode);
}

enum mg__audit_log mg__audit_log_for(const char *setting)
{
    if (strcmp(setting, "0") == 0) return MG__AUDIT_LOG_NONE;
    if (is_socket(JOURNAL_SOCKET)) return MG__AUDIT_LOG_JOURNAL;
    if (strcmp(setting, "1") == 0 || is_socket(SYSLOG_SOCKET)) return MG__AUDIT_LOG_SYSLOG;
    return MG__AUDIT_LOG_NONE;
}

/* ---- 2. sending ------------------------------------------------------------------------ */

/* The chain's id a record names ("" none). */
static void chain_of(const char *rec, char out[17])
{
    out[0] = 0;
    const char *c = strstr(rec, "\"chain\":\"");
    if (c && strspn(c + 9, "0123456789abcdef") == 16) {
        memcpy(out, c + 9, 16);
        out[16] = 0;
    }
}

void mg__audit_log_send(enum mg__audit_log how, const char *rec)
{
    if (how == MG__AUDIT_LOG_SYSLOG) {
        syslog(LOG_AUTHPRIV | LOG_INFO, "audit anchor %s", rec);
        return;
    }
    if (how != MG__AUDIT_LOG_JOURNAL) return;
    char chain[17], msg[MG_AUDIT_ANCHOR_REC_MAX + 256];
    chain_of(rec, chain);
    int n = snprintf(msg, sizeof(msg), "SYSLOG_IDENTIFIER=memgate\nPRIORITY=6\nSYSLOG_FACILITY=10\n%s%s%s"
                     "MESSAGE=audit anchor %s\n", chain[0] ? "MEMGATE_AUDIT_CHAIN=" : "", chain,
                     chain[0] ? "\n" : "", rec);
    if (n <= 0 || (size_t)n >= sizeof(msg)) return;
    int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", JOURNAL_SOCKET);
    if (sendto(s, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        syslog(LOG_AUTHPRIV | LOG_INFO, "audit anchor %s", rec); /* the journal takes /dev/log too */
    close(s);
}

/* ---- 3. reading back ------------------------------------------------------------------- */

int mg__audit_journal_newest(const char *chain, char *out, size_t cap, char *why, size_t whycap)
{
    out[0] = why[0] = 0;
    if (!is_socket(JOURNAL_SOCKET)) {
        snprintf(why, whycap, "no systemd journal runs on this machine");
        return -1;
    }
    char match[64];
    snprintf(match, sizeof(match), "MEMGATE_AUDIT_CHAIN=%s", chain);
    char *argv[] = {"journalctl", "--no-pager", "--quiet", "--output=cat", "--lines=1", match, NULL};
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(why, whycap, "cannot run journalctl: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "journalctl", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        snprintf(why, whycap, "cannot run journalctl: %s", strerror(rc));
        return -1;
    }
    size_t n = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool timed_out = false;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = JOURNALCTL_TIMEOUT_MS - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) == 0) {
            timed_out = true;
            break;
        }
        char buf[4096];
        ssize_t r = read(pfd[0], buf, sizeof(buf));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        size_t take = (size_t)r < cap - 1 - n ? (size_t)r : cap - 1 - n;
        memcpy(out + n, buf, take);
        n += take;
    }
    close(pfd[0]);
    if (timed_out) kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    out[n] = 0;
    if (timed_out) {
        snprintf(why, whycap, "journalctl did not answer within %d s", JOURNALCTL_TIMEOUT_MS / 1000);
        return -1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(why, whycap, "journalctl failed (status %d): this user may not read the journal; add it to the "
                 "systemd-journal group, or pass the shipped anchor with --anchor", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return -1;
    }
    return n > 0 ? 1 : 0;
}
