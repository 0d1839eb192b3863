/* audit_line.c — the audit chain's text (audit_line.h, audit_int.h): an
 * event's line and its hash, a line parsed and checked, the ops an event
 * may name, the anchor record written and parsed, the account of a chain
 * shorter than its anchor, and the filter the readers apply. Both homes of
 * the chain use it, the files (audit_file.c) and PostgreSQL (audit_pg.c):
 * one format, one hash.
 *
 * Sections:
 *   1. one line read
 *   2. the ops
 *   3. one line written
 *   4. the anchor
 *   5. the filter
 */
#include "security/audit_int.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "security/common.h"
#include "util/json.h"
#include "util/utf8.h"
#include "util/word.h"

#define HASH_MEMBER ",\"hash\":\""
#define HASH_MEMBER_LEN 9
#define SUFFIX_LEN (HASH_MEMBER_LEN + 64 + 2) /* ,"hash":"<64 hex>"} */

/* ---- 1. one line read ------------------------------------------------------------------ */

bool mg__audit_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return s[64] == 0;
}

static void chain_hash(const char *prev_hex, const char *bytes, size_t n, char out[65])
{
    unsigned char prev[32], h[32];
    size_t bin = 0;
    if (sodium_hex2bin(prev, sizeof(prev), prev_hex, 64, NULL, &bin, NULL) != 0 || bin != 32)
        memset(prev, 0, sizeof(prev));
    crypto_generichash_state s;
    crypto_generichash_init(&s, NULL, 0, sizeof(h));
    crypto_generichash_update(&s, prev, sizeof(prev));
    crypto_generichash_update(&s, (const unsigned char *)bytes, n);
    crypto_generichash_final(&s, h, sizeof(h));
    sodium_bin2hex(out, 65, h, sizeof(h));
}

void mg_audit_line_release(struct mg_audit_line *l)
{
    if (l->obj) json_decref(l->obj);
    memset(l, 0, sizeof(*l));
}

static bool str_or_null(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return v && (json_is_string(v) || json_is_null(v));
}

enum mg_audit_bad mg_audit_parse_line(const char *line, size_t len, struct mg_audit_line *out, char *why,
                                      size_t whycap)
{
    memset(out, 0, sizeof(*out));
    json_error_t je;
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!o || !json_is_object(o)) {
        if (o) json_decref(o);
        snprintf(why, whycap, "not a JSON object (%s)", o ? "another JSON value" : je.text);
        return MG_AUDIT_NOT_JSON;
    }
    json_t *seq = json_object_get(o, "seq"), *time = json_object_get(o, "time"), *op = json_object_get(o, "op"),
           *prev = json_object_get(o, "prev"), *hash = json_object_get(o, "hash"),
           *flags = json_object_get(o, "flags");
    const char *bad = NULL;
    if (!json_is_integer(seq) || json_integer_value(seq) < 1) bad = "seq";
    else if (!json_is_string(time) || mg_parse_time(json_string_value(time), 0, &out->time_ms) != 0) bad = "time";
    else if (!json_is_string(op) || json_string_length(op) == 0) bad = "op";
    else if (!json_is_string(prev) || !mg__audit_hex64(json_string_value(prev))) bad = "prev";
    else if (!json_is_string(hash) || !mg__audit_hex64(json_string_value(hash))) bad = "hash";
    else if (!json_is_integer(json_object_get(o, "results"))) bad = "results";
    else if (!json_is_integer(json_object_get(o, "redactions"))) bad = "redactions";
    else if (!json_is_array(flags)) bad = "flags";
    else if (!str_or_null(o, "tenant")) bad = "tenant";
    else if (!str_or_null(o, "instance")) bad = "instance";
    else if (!str_or_null(o, "session")) bad = "session";
    else if (!str_or_null(o, "repo")) bad = "repo";
    else if (!str_or_null(o, "query")) bad = "query";
    else if (json_object_get(o, "repeated") && !json_is_integer(json_object_get(o, "repeated"))) bad = "repeated";
    else if (json_object_get(o, "request_id") && !json_is_string(json_object_get(o, "request_id"))) bad = "request_id";
    for (size_t i = 0; !bad && json_is_array(flags) && i < json_array_size(flags); i++)
        if (!json_is_string(json_array_get(flags, i))) bad = "flags";
    if (bad) {
        json_decref(o);
        snprintf(why, whycap, "the field \"%s\" is missing or has the wrong type", bad);
        return MG_AUDIT_BAD_FIELDS;
    }
    /* the hash member must be the last bytes of the line, as written */
    if (len < SUFFIX_LEN + 2 || memcmp(line + len - SUFFIX_LEN, HASH_MEMBER, HASH_MEMBER_LEN) != 0 ||
        memcmp(line + len - 2 - 64, json_string_value(hash), 64) != 0 || memcmp(line + len - 2, "\"}", 2) != 0) {
        json_decref(o);
        snprintf(why, whycap, "the line does not end with its \"hash\" member");
        return MG_AUDIT_BAD_FIELDS;
    }
    char h[65];
    chain_hash(json_string_value(prev), line, len - SUFFIX_LEN, h);
    if (strcmp(h, json_string_value(hash)) != 0) {
        json_decref(o);
        snprintf(why, whycap, "the hash does not match the line's content");
        return MG_AUDIT_BAD_HASH;
    }
    json_t *chain = json_object_get(o, "chain");
    const char *cs = json_string_value(chain);
    if (chain && !(cs && strlen(cs) == 16 && strspn(cs, "0123456789abcdef") == 16)) {
        json_decref(o);
        snprintf(why, whycap, "the field \"chain\" is not 16 hex digits");
        return MG_AUDIT_BAD_FIELDS;
    }
    if (cs) memcpy(out->chain, cs, 17);
    out->obj = o;
    out->seq = (long long)json_integer_value(seq);
    out->op = json_string_value(op);
    memcpy(out->prev, json_string_value(prev), 65);
    memcpy(out->hash, json_string_value(hash), 65);
    return MG_AUDIT_OK;
}
/* ---- 2. the ops ------------------------------------------------------------------------ */

const char *const mg_audit_other_ops[] = {
    "auth_fail",      /* http/auth.c: no, a bad, revoked or expired token; a forbidden scope */
    "rate_limited",   /* http/auth.c: over the token's rate */
    "request_refused",/* http/auth.c: header fields too large */
    "audit_read",     /* request/gate_audit.c: GET /v1/audit */
    "isolation_drop", /* request/gate_clean.c: rows from outside the request's scope dropped */
    "token_create",   /* cli/cmd_token.c */
    "token_revoke",   /* cli/cmd_token.c */
    "repo_remove",    /* cli/cmd_repos.c: memgate repos rm */
    "webhook",        /* http/hook.c: a push webhook accepted, ignored or refused */
    "webhook_run",    /* http/hook_run.c: the pull and re-index a push started, and how it ended */
    "audit_recovered",/* here: a torn line, lines that do not verify, a log shorter than its anchor */
    "config_reload",  /* cli/cmd_serve.c: SIGHUP read the config again (status: what applied), or refused it */
    "external_vectors", /* vector/vext.c: a repo's vectors go to an external store (once per process and repo) */
    "oauth_register", /* http/oauth_as.c: a client registered (RFC 7591), or the registration refused */
    "oauth_authorize",/* http/oauth_as.c: a consent approved (a code issued), denied, or an authorize request refused */
    "oauth_token",    /* http/oauth_as.c: tokens issued or refreshed, or the token request refused */
    "oauth_revoke",   /* http/oauth_as.c: a grant revoked (RFC 7009), or the request refused */
    NULL,
};

bool mg_audit_op_ok(const char *op) { return mg_word_ok(op, MG_AUDIT_OP_MAX); }

/* ---- 3. one line written --------------------------------------------------------------- */

/* A JSON string of at most max bytes of s (cut on a character boundary,
 * invalid UTF-8 replaced), or null. */
static json_t *jstr(const char *s, size_t max)
{
    if (!s) return json_null();
    size_t n = strlen(s);
    char *fixed = NULL;
    size_t flen = n;
    if (mg_utf8_valid_prefix(s, n) != n) {
        if (mg_utf8_repair(s, n, &fixed, &flen) == (size_t)-1) return NULL;
        s = fixed;
    }
    json_t *j = json_stringn(s, mg_utf8_cut(s, flen, max));
    free(fixed);
    return j;
}

/* Copy a string member of o (NULL when null) into out. */
static bool col_of(json_t *o, const char *k, char *out, size_t cap)
{
    const char *v = json_string_value(json_object_get(o, k));
    snprintf(out, cap, "%s", v ? v : "");
    return v != NULL;
}

/* The line for ev without its hash member: `{"seq":..,...,"prev":".."`
 * (malloc'd, *len set), or NULL when out of memory; cols (not NULL) filled. */
static char *event_body(const struct mg_audit_event *ev, long long seq, const char *chain, const char *prev,
                        size_t *len, struct mg__audit_cols *cols)
{
    char when[32];
    int64_t now = mg_wall_ms();
    mg_rfc3339_ms(now, when);
    json_t *o = json_object(), *flags = json_array();
    if (!o || !flags) goto oom;
    json_object_set_new(o, "seq", json_integer(seq));
    json_object_set_new(o, "time", json_string(when));
    json_object_set_new(o, "tenant", jstr(ev->tenant, MG_AUDIT_FIELD_MAX));
    json_object_set_new(o, "instance", jstr(ev->instance, MG_AUDIT_FIELD_MAX));
    json_object_set_new(o, "session", jstr(ev->session, MG_AUDIT_FIELD_MAX));
    json_object_set_new(o, "repo", jstr(ev->repo, MG_AUDIT_FIELD_MAX));
    json_object_set_new(o, "op", json_string(ev->op));
    json_object_set_new(o, "query", jstr(ev->query, MG_AUDIT_QUERY_MAX));
    json_object_set_new(o, "results", json_integer(ev->results));
    json_object_set_new(o, "redactions", json_integer(ev->redactions));
    for (size_t i = 0; i < ev->nflags && i < MG_AUDIT_FLAGS_MAX; i++)
        if (ev->flags[i]) json_array_append_new(flags, jstr(ev->flags[i], 64));
    json_object_set_new(o, "flags", flags);
    flags = NULL;
    if (ev->nparts) {
        json_t *parts = json_object();
        for (size_t i = 0; parts && i < ev->nparts && i < MG_AUDIT_FLAGS_MAX; i++)
            if (mg_audit_op_ok(ev->parts[i].op)) json_object_set_new(parts, ev->parts[i].op, json_integer(ev->parts[i].results));
        if (!parts) goto oom;
        json_object_set_new(o, "parts", parts);
    }
    if (ev->code) json_object_set_new(o, "code", jstr(ev->code, MG_AUDIT_FIELD_MAX));
    if (ev->status) json_object_set_new(o, "status", jstr(ev->status, MG_AUDIT_FIELD_MAX));
    if (ev->repeated > 0) json_object_set_new(o, "repeated", json_integer(ev->repeated));
    if (ev->injection_score > 0) {
        json_t *why = json_array();
        for (size_t i = 0; why && i < ev->ninjection_reasons && i < MG_AUDIT_FLAGS_MAX; i++)
            json_array_append_new(why, jstr(ev->injection_reasons[i], 64));
        if (!why) goto oom;
        json_object_set_new(o, "injection", json_pack("{s:i, s:o}", "score", ev->injection_score, "reasons", why));
    }
    if (ev->request_id) json_object_set_new(o, "request_id", jstr(ev->request_id, MG_AUDIT_FIELD_MAX));
    if (chain) json_object_set_new(o, "chain", json_string(chain));
    json_object_set_new(o, "prev", json_string(prev));
    if (json_object_size(o) != 12u + (chain != NULL) + (ev->nparts != 0) + (ev->code != NULL) + (ev->status != NULL) +
                                (ev->repeated > 0) + (ev->injection_score > 0) + (ev->request_id != NULL))
        goto oom; /* a set failed */
    if (cols) {
        cols->time_ms = now;
        cols->has_tenant = col_of(o, "tenant", cols->tenant, sizeof(cols->tenant));
        cols->has_repo = col_of(o, "repo", cols->repo, sizeof(cols->repo));
    }
    char *s = mg_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s) return NULL;
    *len = strlen(s) - 1; /* drop the closing brace */
    s[*len] = 0;
    return s;
oom:
    if (o) json_decref(o);
    if (flags) json_decref(flags);
    return NULL;
}

char *mg__audit_line(const struct mg_audit_event *ev, long long seq, const char *chain, const char *prev, size_t *n,
                     char h[65], struct mg__audit_cols *cols)
{
    size_t blen;
    char *body = event_body(ev, seq, chain, prev, &blen, cols);
    if (!body) return NULL;
    chain_hash(prev, body, blen, h);
    *n = blen + SUFFIX_LEN + 1;
    char *line = realloc(body, *n + 1);
    if (!line) {
        free(body);
        return NULL;
    }
    snprintf(line + blen, *n + 1 - blen, HASH_MEMBER "%s\"}\n", h);
    return line;
}

/* ---- 4. the anchor --------------------------------------------------------------------- */

/* The keyed anchor's members (chain, files, mac) of o, the object that
 * starts at text: the bytes its mac covers are those before `,"mac":"`. */
static void anchor_keyed(json_t *o, const char *text, size_t len, struct mg_audit_anchor *out)
{
    const char *chain = json_string_value(json_object_get(o, "chain"));
    if (chain && strlen(chain) == 16 && strspn(chain, "0123456789abcdef") == 16) memcpy(out->chain, chain, 17);
    json_t *files = json_object_get(o, "files"), *f;
    size_t i;
    json_array_foreach(files, i, f)
    {
        if (i >= MG_AUDIT_FILES_MAX || !json_is_integer(f)) break;
        out->files[out->nfiles++] = (long long)json_integer_value(f);
    }
    const char *mac = json_string_value(json_object_get(o, "mac"));
    if (!mac || !mg__audit_hex64(mac)) return;
    char tail[80];
    snprintf(tail, sizeof(tail), ",\"mac\":\"%s\"}", mac);
    const char *at = memmem(text, len < MG_AUDIT_ANCHOR_REC_MAX + 80 ? len : MG_AUDIT_ANCHOR_REC_MAX + 80, tail,
                            strlen(tail));
    if (!at || (size_t)(at - text) > MG_AUDIT_ANCHOR_REC_MAX) return;
    memcpy(out->mac, mac, 65);
    out->maclen = (size_t)(at - text);
    memcpy(out->rec, text, out->maclen);
    out->rec[out->maclen] = 0;
}

int mg_audit_anchor_parse(const char *text, size_t len, struct mg_audit_anchor *out)
{
    memset(out, 0, sizeof(*out));
    /* the last {"seq": in the text that parses as an anchor */
    for (size_t i = len; i-- > 0;) {
        if (text[i] != '{' || len - i < 7 || memcmp(text + i, "{\"seq\":", 7) != 0) continue;
        json_t *o = json_loadb(text + i, len - i, JSON_DISABLE_EOF_CHECK, NULL);
        json_t *seq = json_object_get(o, "seq"), *hash = json_object_get(o, "hash");
        bool ok = json_is_integer(seq) && json_integer_value(seq) >= 0 && json_is_string(hash) &&
                  mg__audit_hex64(json_string_value(hash));
        if (ok) {
            out->seq = (long long)json_integer_value(seq);
            memcpy(out->hash, json_string_value(hash), 65);
            json_t *sy = json_object_get(o, "synced");
            out->synced = json_is_integer(sy) ? (long long)json_integer_value(sy) : out->seq;
            const char *b = json_string_value(json_object_get(o, "boot"));
            snprintf(out->boot, sizeof(out->boot), "%s", b ? b : "");
            anchor_keyed(o, text + i, len - i, out);
        }
        if (o) json_decref(o);
        if (ok) return 0;
    }
    return -1;
}

#define ANCHOR_MAC_CONTEXT "memgate audit anchor v2" /* what the MAC's input starts with (its NUL too) */

void mg__audit_anchor_mac(const unsigned char key[MG__AUDIT_KEY_BYTES], const char *rec, size_t n, char out[65])
{
    unsigned char h[32];
    crypto_generichash_state s;
    crypto_generichash_init(&s, key, MG__AUDIT_KEY_BYTES, sizeof(h));
    crypto_generichash_update(&s, (const unsigned char *)ANCHOR_MAC_CONTEXT, sizeof(ANCHOR_MAC_CONTEXT));
    crypto_generichash_update(&s, (const unsigned char *)rec, n);
    crypto_generichash_final(&s, h, sizeof(h));
    sodium_bin2hex(out, 65, h, sizeof(h));
}

bool mg__audit_anchor_mac_ok(const struct mg_audit_anchor *an, const unsigned char key[MG__AUDIT_KEY_BYTES])
{
    if (!an->mac[0] || !an->maclen) return false;
    char want[65];
    mg__audit_anchor_mac(key, an->rec, an->maclen, want);
    return sodium_memcmp(want, an->mac, 64) == 0;
}

int mg__audit_anchor_record(const struct mg_audit_anchor *an, bool with_boot, const char *time,
                            const unsigned char *key, char *out, size_t cap)
{
    int n = with_boot ? snprintf(out, cap, "{\"seq\":%lld,\"hash\":\"%s\",\"synced\":%lld,\"boot\":\"%s\",\"time\":\"%s\"",
                                 an->seq, an->hash, an->synced, an->boot, time)
                      : snprintf(out, cap, "{\"seq\":%lld,\"hash\":\"%s\",\"synced\":%lld,\"time\":\"%s\"", an->seq,
                                 an->hash, an->synced, time);
    if (n < 0 || (size_t)n >= cap) return -1;
    if (key) {
        n += snprintf(out + n, cap - (size_t)n, ",\"chain\":\"%s\",\"files\":[", an->chain);
        for (int i = 0; i < an->nfiles && (size_t)n < cap; i++)
            n += snprintf(out + n, cap - (size_t)n, "%s%lld", i ? "," : "", an->files[i]);
        if ((size_t)n + 1 >= cap) return -1;
        out[n++] = ']';
        out[n] = 0;
        char mac[65];
        mg__audit_anchor_mac(key, out, (size_t)n, mac);
        n += snprintf(out + n, cap - (size_t)n, ",\"mac\":\"%s\"", mac);
        if ((size_t)n >= cap) return -1;
    }
    n += snprintf(out + n, cap - (size_t)n, "}");
    return (size_t)n >= cap ? -1 : n;
}

const char *mg__audit_lost(const struct mg_audit_anchor *an, long long seq, const char *hash, bool restart,
                           char *status, size_t cap)
{
    if (an->seq > seq) {
        snprintf(status, cap, "the log ends at seq %lld but its anchor says seq %lld was written: %lld event(s) "
                 "missing%s", seq, an->seq, an->seq - seq,
                 restart ? ", not synced before the machine restarted" : "; the log was truncated");
        return restart ? "unsynced_lost" : "truncated";
    }
    if (an->seq == seq && strcmp(an->hash, hash) != 0) {
        snprintf(status, cap, "the event at seq %lld does not have its anchor's hash: the log's end was rewritten",
                 seq);
        return "rewritten";
    }
    return NULL;
}

/* ---- 5. the filter --------------------------------------------------------------------- */

bool mg_audit_match(const struct mg_audit_filter *f, json_t *ev)
{
    if (!f) return true;
    if (f->tenant) {
        const char *t = json_string_value(json_object_get(ev, "tenant"));
        if (!t || strcmp(t, f->tenant) != 0) return false;
    }
    if (f->op) {
        const char *o = json_string_value(json_object_get(ev, "op"));
        if (!o || strcmp(o, f->op) != 0) return false;
    }
    if (f->since_ms) {
        int64_t ms;
        const char *t = json_string_value(json_object_get(ev, "time"));
        if (!t || mg_parse_time(t, 0, &ms) != 0 || ms < f->since_ms) return false;
    }
    if (f->after_seq && json_integer_value(json_object_get(ev, "seq")) <= f->after_seq) return false;
    return true;
}

