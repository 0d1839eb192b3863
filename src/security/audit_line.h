/* audit_line.h — the audit chain's vocabulary (audit.h describes the chain):
 * an event and the line it is written as, the anchor, a filter; and the
 * verbs on their text, which need neither a file nor a database
 * (audit_line.c). audit.h includes it; the backends (audit_file.c,
 * audit_pg.c) use it without the rest of audit.h.
 */
#ifndef MG_AUDIT_LINE_H
#define MG_AUDIT_LINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MG_AUDIT_GENESIS "0000000000000000000000000000000000000000000000000000000000000000"
#define MG_AUDIT_QUERY_MAX 256 /* bytes of query kept (cut on a UTF-8 character boundary) */
#define MG_AUDIT_FIELD_MAX 128 /* bytes kept of tenant, instance, session, repo, code, status */
#define MG_AUDIT_FLAGS_MAX 16  /* flags kept, each cut to 64 bytes */
#define MG_AUDIT_OP_MAX 64

/* One part of a composed request (get_context): the operation and how many
 * items it gave. */
struct mg_audit_part {
    const char *op;
    long long results;
};

struct mg_audit_event {
    const char *tenant, *instance, *session, *repo; /* NULL: null */
    const char *op;                                 /* required: [a-z0-9_.-]{1,64} */
    const char *query;                              /* NULL: null */
    long long results, redactions;
    const char *const *flags;
    size_t nflags;
    const struct mg_audit_part *parts; /* NULL: left out; else "parts":{"op":results,...} */
    size_t nparts;
    const char *code, *status; /* NULL: left out */
    long long repeated;        /* > 0: "repeated": this many more refusals like it (gate.c folds floods); 0: left out */
    int injection_score;       /* > 0: "injection": {"score", "reasons"} of what it served (sanitize.h); 0: left out */
    const char *const *injection_reasons;
    size_t ninjection_reasons;
    bool durable;              /* a write or a security event: synced under audit_fsync = writes too */
    const char *request_id;    /* the HTTP request's X-Request-Id; NULL: left out */
};

/* The ops of the events no tool writes (NULL-terminated); a tool's event
 * carries the tool's name (set_note, search_code, ...) whether it came over
 * MCP, HTTP or the command line. docs/security.md lists both. */
extern const char *const mg_audit_other_ops[];
/* Is op a valid op name ([a-z0-9_.-]{1,64})? */
bool mg_audit_op_ok(const char *op);

#define MG_AUDIT_ANCHOR_REC_MAX 4095 /* bytes of an anchor record (a slot of the file holds one and a newline) */
#define MG_AUDIT_FILES_MAX 201       /* files named in an anchor: audit_keep's maximum and audit.log */

struct mg_audit_anchor {
    long long seq;     /* the last event's seq (0: none) */
    char hash[65];     /* its hash */
    long long synced;  /* the last seq synced to disk when the anchor was written */
    char boot[40];     /* the machine's boot id then ("" unknown) */
    /* the keyed anchor (audit.h): absent from an older memgate's and from PostgreSQL's */
    char chain[17];    /* the chain's id: 16 hex digits, "" none */
    int nfiles;        /* the files the chain is kept in, oldest first ... */
    long long files[MG_AUDIT_FILES_MAX]; /* ... each by the seq of its first event (the last: audit.log) */
    char mac[65];      /* the record's MAC, "" none */
    size_t maclen;     /* the bytes of rec the MAC covers (the record up to ,"mac") */
    char rec[MG_AUDIT_ANCHOR_REC_MAX + 1]; /* the record as read */
};
/* The anchor in text: a JSON object with "seq" and "hash" (synced, boot,
 * chain, files and mac optional), or the last such object in the text (a
 * syslog file, the journal, a hook's log). 0 and *out filled, or -1 when none
 * is there. Whether its mac is right needs the key (audit_int.h). */
int mg_audit_anchor_parse(const char *text, size_t len, struct mg_audit_anchor *out);

/* One line parsed and checked on its own: JSON object, the fields and types
 * audit.h lists, the hash member last, and the hash recomputed from prev and the
 * bytes. len excludes the newline. */
struct mg_audit_line {
    json_t *obj; /* the event (owned; NULL unless parsed) */
    long long seq;
    int64_t time_ms;
    char prev[65], hash[65];
    char chain[17]; /* the chain's id ("" in an older memgate's lines and in PostgreSQL's) */
    const char *op; /* inside obj */
};
enum mg_audit_bad {
    MG_AUDIT_OK = 0,
    MG_AUDIT_NOT_JSON,   /* not a JSON object (edited or torn) */
    MG_AUDIT_BAD_FIELDS, /* a field is missing or has the wrong type */
    MG_AUDIT_BAD_HASH,   /* the hash does not match the bytes (edited) */
};
/* MG_AUDIT_OK with *out filled (release it), or what is wrong, with a
 * sentence in why. */
enum mg_audit_bad mg_audit_parse_line(const char *line, size_t len, struct mg_audit_line *out, char *why,
                                      size_t whycap);
void mg_audit_line_release(struct mg_audit_line *l);

struct mg_audit_filter {
    const char *tenant; /* NULL: every tenant */
    const char *op;     /* NULL: every op */
    int64_t since_ms;   /* unix ms; 0: from the start */
    size_t limit;       /* the newest this many; 0: all (callers serving HTTP should cap it) */
    long long after_seq; /* only events with a greater seq (following new ones); 0: all */
};
/* Does the parsed event pass the filter? */
bool mg_audit_match(const struct mg_audit_filter *f, json_t *ev);

#endif
