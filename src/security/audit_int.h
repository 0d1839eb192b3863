/* audit_int.h — what the files of the audit chain (audit.h) share; not for
 * other modules. It does not include audit.h: the backends below it know the
 * chain's vocabulary (audit_line.h), not its front.
 *
 *   audit.c         the front: opens the chain where the config says, appends
 *                   through a backend, ships each new anchor (syslog, HTTP)
 *   audit_query.c   reading the chain (files, or the table)
 *   audit_verify.c  verifying it
 *   audit_file.c    backend: the chain in the data directory's files
 *   audit_pg.c      backend: the chain in PostgreSQL (storage = postgres://)
 *   audit_journal.c the system journal (or syslog): anchors shipped there, read back
 *   audit_anchor.c  the audit key, the keyed anchor file, the files the chain is in
 *   audit_dir.c     the audit directory: locks, rotated files, the boot id
 *   audit_line.c    the chain's text: lines, hashes, anchor records
 *
 * Calls go one way, down that list (audit.c reaches a backend through its
 * struct mg__audit_backend only). One line format, one hash, one account
 * of a chain shorter than its anchor, one verification: the backends differ
 * only in where the bytes go and how the chain's end is found.
 */
#ifndef MG_AUDIT_INT_H
#define MG_AUDIT_INT_H

#include <stdio.h>

#include "security/audit_line.h"
#include "util/config.h"
#include "util/err.h"

/* ---- the chain's text (audit_line.c) ---- */

/* What the PostgreSQL table keeps beside the line, for filtering: the
 * values as written in the line. */
struct mg__audit_cols {
    int64_t time_ms; /* the line's "time" */
    bool has_tenant, has_repo;
    char tenant[MG_AUDIT_FIELD_MAX + 1], repo[MG_AUDIT_FIELD_MAX + 1];
};

/* The whole line for ev as event seq of the chain chain (its id; NULL: no
 * "chain" member, as in PostgreSQL) chained from prev:
 * `{"seq":..,...,"chain":"..","prev":"..","hash":".."}\n` (malloc'd; *n
 * counts the newline), its hash in h, and (cols not NULL) the columns above.
 * NULL when out of memory. */
char *mg__audit_line(const struct mg_audit_event *ev, long long seq, const char *chain, const char *prev, size_t *n,
                     char h[65], struct mg__audit_cols *cols);

/* Is s 64 lower-case hex digits? */
bool mg__audit_hex64(const char *s);

/* The chain ends at (seq, hash) and its anchor says an: is that a loss? NULL
 * when not; else the flag of the audit_recovered event to record
 * ("truncated", "rewritten", or "unsynced_lost" when restart: the machine
 * restarted and only events after the anchor's synced seq are missing), with
 * its status sentence in status. */
const char *mg__audit_lost(const struct mg_audit_anchor *an, long long seq, const char *hash, bool restart,
                           char *status, size_t cap);

#define MG__AUDIT_KEY_BYTES 32 /* the audit key (audit_anchor.c) */
/* an as an anchor record, the JSON object mg_audit_anchor_parse reads:
 * {"seq","hash","synced"[,"boot"],"time"} (boot with with_boot), time the
 * RFC 3339 time it was written; with a key also "chain", "files" (an's
 * nfiles first seqs) and last "mac": the keyed BLAKE2b-256 (key) of a
 * context string and every byte of the record before `,"mac"`. Its length,
 * or -1 when it does not fit cap. */
int mg__audit_anchor_record(const struct mg_audit_anchor *an, bool with_boot, const char *time,
                            const unsigned char *key, char *out, size_t cap);
/* The MAC of n bytes of a record, in hex. */
void mg__audit_anchor_mac(const unsigned char key[MG__AUDIT_KEY_BYTES], const char *rec, size_t n, char out[65]);
/* Does the parsed anchor carry a mac, and is it the right one for key? */
bool mg__audit_anchor_mac_ok(const struct mg_audit_anchor *an, const unsigned char key[MG__AUDIT_KEY_BYTES]);

/* ---- the backends: where the chain is appended to ---- */

/* Each new end of the chain, as its anchor record (rec, without a newline),
 * handed to the front to ship; called by the appending thread, in the order
 * of the chain for the files (under their lock), in the order of commits for
 * PostgreSQL. */
typedef void (*mg__audit_publish_fn)(void *ud, const char *rec, long long seq);

struct mg__audit_backend {
    /* Open the chain where c says (*self); publish (NULL: nothing ships)
     * gets each new anchor. 0, or -1 with err. */
    int (*open)(const struct mg_config *c, mg__audit_publish_fn publish, void *ud, void **self, struct mg_err *err);
    /* Append ev (its op checked already); returns once it is written
     * (synced as audit_fsync says). Thread-safe. 0, or -1 with err. */
    int (*emit)(void *self, const struct mg_audit_event *ev, struct mg_err *err);
    void (*close)(void *self);
};
extern const struct mg__audit_backend mg__audit_files; /* audit_file.c */
extern const struct mg__audit_backend mg__audit_pg;    /* audit_pg.c */

/* ---- the audit directory (audit_dir.c) ---- */

/* err from errno for what failed on path ("the disk is full" for ENOSPC);
 * -1. */
int mg__audit_io_err(struct mg_err *err, const char *what, const char *path);
/* flock(2), again after EINTR: 0 or -1. */
int mg__audit_lock(int fd, int how);
/* dir/audit.lock opened (created 0600): the fd, or -1 with err. */
int mg__audit_open_lock(const char *dir, struct mg_err *err);
/* The data directory's audit lock, shared: the fd (close it to unlock), -2
 * when there is no audit directory yet, -1 with err. */
int mg__audit_shared_lock(const struct mg_config *c, struct mg_err *err);
/* The rotated numbers present in dir (audit.log.<n>), oldest (highest)
 * first, into *out (free it): 0, or -1 (errno). */
int mg__audit_rotated(const char *dir, int **out, size_t *n);
/* This machine's boot id ("" when unknown). */
void mg__audit_boot_id(char out[40]);

/* ---- the machine's log: the journal or syslog (audit_journal.c) ---- */

enum mg__audit_log { MG__AUDIT_LOG_NONE, MG__AUDIT_LOG_JOURNAL, MG__AUDIT_LOG_SYSLOG };
/* Where audit_anchor_syslog (setting: "auto", "1", "0") ships anchors on
 * this machine: the systemd journal when /run/systemd/journal/socket is
 * there; else syslog(3) when /dev/log is a socket or the setting is "1";
 * else (or "0") nowhere. */
enum mg__audit_log mg__audit_log_for(const char *setting);
/* Log the anchor record rec ("audit anchor {...}", authpriv.info; in the
 * journal with the field MEMGATE_AUDIT_CHAIN = the chain id it names). */
void mg__audit_log_send(enum mg__audit_log how, const char *rec);
/* The newest anchor the journal holds for the chain (journalctl's output,
 * the text holding "audit anchor {...}"): 1 found, 0 none, -1 with why (no
 * journal here, journalctl missing, failing or too slow). */
int mg__audit_journal_newest(const char *chain, char *out, size_t cap, char *why, size_t whycap);

/* ---- the key, the anchor file, the files the chain is in (audit_anchor.c) ---- */

/* Where the audit key is: audit_key, else $XDG_CONFIG_HOME/memgate/audit.key
 * (~/.config/memgate/audit.key). */
void mg__audit_key_path(const struct mg_config *c, char *out, size_t cap);
/* The key, into key; path gets where it is. Read (a 32-byte file of mode
 * 0600), or, when absent and may_create, made (random; the directory 0700).
 * 0; 1 absent (and not made); -1 with err: unreadable, not 32 bytes,
 * readable by others, or (config_invalid) in the data directory. */
int mg__audit_key_load(const struct mg_config *c, bool may_create, unsigned char key[MG__AUDIT_KEY_BYTES],
                       char *path, size_t pathcap, struct mg_err *err);
/* A new chain id: 16 random hex digits. */
void mg__audit_new_chain(char out[17]);

#define MG__AUDIT_SLOT 4096                      /* a slot of audit.anchor: one page, one record and a newline */
#define MG__AUDIT_ANCHOR_FILE (2 * MG__AUDIT_SLOT) /* audit.anchor: two slots, written in turn */
/* What audit.anchor holds. */
struct mg__audit_anchor_file {
    int state;                 /* 0 no file; 1 an older memgate's record (no key); 2 two slots; 3 none of
                                  these (damaged, or made by hand) */
    struct mg_audit_anchor an; /* the newest record whose MAC verifies (valid), or as read */
    bool valid;                /* state 2: a slot verifies with the key given */
    int slot;                  /* the slot an is in (-1 none) */
    int bad;                   /* slots holding a record that does not verify */
};
/* Read the anchor file at path, each slot's record checked with key (NULL:
 * none verifies). 0, or -1 with errno (I/O). */
int mg__audit_anchor_load(const char *path, const unsigned char *key, struct mg__audit_anchor_file *out);
/* The audit files present in dir that hold an event, oldest first (the
 * rotated ones from the highest number down, then audit.log): firsts[i] the
 * seq of the first event, nums[i] its number (0 audit.log; nums may be
 * NULL). How many (at most cap), or -1 with errno. */
int mg__audit_file_firsts(const char *dir, long long *firsts, int *nums, int cap);
/* Does the anchor name a file (by its first seq) that none of the n present
 * ones is? what gets the seq ranges missing. */
bool mg__audit_files_missing(const struct mg_audit_anchor *an, const long long *firsts, int n, char *what,
                             size_t cap);

/* ---- PostgreSQL (audit_pg.c) ---- */

/* mg_audit_query_lines on the table. */
int mg__audit_pg_query(const struct mg_config *c, const struct mg_audit_filter *f, char ***lines, size_t *n,
                       struct mg_err *err);

/* Reading the whole chain for verify, in seq order (the column), in one
 * snapshot. A row: its columns (text valid until the next call). */
struct mg__audit_rows;
struct mg__audit_row {
    long long seq;
    int64_t time_ms;
    const char *hash, *line, *op;
    size_t len;
    const char *tenant, *repo; /* NULL for null */
};
/* *has_anchor and *an: the anchor row (synced = seq, boot ""). */
int mg__audit_pg_rows_open(const struct mg_config *c, struct mg__audit_rows **out, struct mg_audit_anchor *an,
                           bool *has_anchor, struct mg_err *err);
/* 1 with the next row (valid until the next call), 0 at the end, -1 with err. */
int mg__audit_pg_rows_next(struct mg__audit_rows *r, struct mg__audit_row *row, struct mg_err *err);
/* The seq column of a row after the current one whose line is event want
 * (its "seq"); 0 when none. */
long long mg__audit_pg_rows_find(struct mg__audit_rows *r, long long want);
void mg__audit_pg_rows_close(struct mg__audit_rows *r);

#endif
