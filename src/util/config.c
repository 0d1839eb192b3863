/* config.c — the settings: their table, parsing, checks (see config.h).
 *
 * Sections:
 *   1. the table of settings — name, kind, place in struct mg_config, bounds
 *   2. values — weights and sizes
 *   3. defaults
 *   4. setting a key, parsing a config text
 *   5. checks across settings — storage, vector store
 *   6. external MCP servers as code providers — mcp_provider.NAME.KEY (issue 21)
 *
 * Loading (the config file's place, then the file, then the MEMGATE_*
 * variables) is config_load.c's; the two share config_int.h.
 */
#include "util/config_int.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mcpmap.h"

enum ktype { K_SIZE, K_INT, K_STR, K_ENUM };

/* ---- 1. the table of settings -------------------------------------------- */

static const struct key {
    const char *name;
    enum ktype type;
    size_t off;
    long long min, max;
} keys[] = {
    {"max_file_size", K_SIZE, offsetof(struct mg_config, max_file_size), 1, 1LL << 30},
    {"max_query_bytes", K_SIZE, offsetof(struct mg_config, max_query_bytes), 16, 1 << 20},
    {"index_threads", K_INT, offsetof(struct mg_config, index_threads), 1, 256},
    {"search_concurrency", K_INT, offsetof(struct mg_config, search_concurrency), 0, 1024},
    {"chunk_max_lines", K_INT, offsetof(struct mg_config, chunk_max_lines), 10, 100000},
    {"chunk_max_bytes", K_SIZE, offsetof(struct mg_config, chunk_max_bytes), 512, 1 << 20},
    {"search_limit", K_INT, offsetof(struct mg_config, search_limit), 1, 10000},
    {"search_max_limit", K_INT, offsetof(struct mg_config, search_max_limit), 1, 100000},
    {"lexical_any_rows", K_INT, offsetof(struct mg_config, lexical_any_rows), 1, 100000000},
    {"hybrid_weights", K_STR, offsetof(struct mg_config, hybrid_weights), 7,
     sizeof(((struct mg_config *)0)->hybrid_weights) - 1},
    {"hybrid_rrf_k", K_INT, offsetof(struct mg_config, hybrid_rrf_k), 1, 1000},
    {"rank_off", K_STR, offsetof(struct mg_config, rank_off), 0, sizeof(((struct mg_config *)0)->rank_off) - 1},
    {"listen", K_STR, offsetof(struct mg_config, listen), 1, sizeof(((struct mg_config *)0)->listen) - 1},
    {"allowed_origins", K_STR, offsetof(struct mg_config, allowed_origins), 0,
     sizeof(((struct mg_config *)0)->allowed_origins) - 1},
    {"http_max_body", K_SIZE, offsetof(struct mg_config, http_max_body), 1024, 1 << 30},
    {"http_max_per_address", K_INT, offsetof(struct mg_config, http_max_per_address), 0, 1024},
    {"session_ttl", K_INT, offsetof(struct mg_config, session_ttl), 0, 365 * 86400},
    {"session_prune_interval", K_INT, offsetof(struct mg_config, session_prune_interval), 1, 86400},
    {"api_session_idle", K_INT, offsetof(struct mg_config, api_session_idle), 1, 86400},
    {"watch", K_ENUM, offsetof(struct mg_config, watch), 1, sizeof(((struct mg_config *)0)->watch) - 1},
    {"max_chunk_bytes", K_SIZE, offsetof(struct mg_config, max_chunk_bytes), 256, 1 << 24},
    {"max_context_bytes", K_SIZE, offsetof(struct mg_config, max_context_bytes), 1024, 1 << 26},
    {"max_response_bytes", K_SIZE, offsetof(struct mg_config, max_response_bytes), 4096, 1 << 28},
    {"cross_repo", K_INT, offsetof(struct mg_config, cross_repo), 0, 1},
    {"secret_action_high", K_ENUM, offsetof(struct mg_config, secret_action_high), 1, 15},
    {"secret_action_medium", K_ENUM, offsetof(struct mg_config, secret_action_medium), 1, 15},
    {"secret_action_low", K_ENUM, offsetof(struct mg_config, secret_action_low), 1, 15},
    {"token_rate_limit", K_INT, offsetof(struct mg_config, token_rate_limit), 0, 1000000},
    {"require_tokens", K_ENUM, offsetof(struct mg_config, require_tokens), 1,
     sizeof(((struct mg_config *)0)->require_tokens) - 1},
    {"audit_max_bytes", K_SIZE, offsetof(struct mg_config, audit_max_bytes), 4096, 1LL << 40},
    {"audit_keep", K_INT, offsetof(struct mg_config, audit_keep), 1, MG_AUDIT_KEEP_MAX},
    {"audit_fsync", K_ENUM, offsetof(struct mg_config, audit_fsync), 1,
     sizeof(((struct mg_config *)0)->audit_fsync) - 1},
    {"audit_anchor_syslog", K_ENUM, offsetof(struct mg_config, audit_anchor_syslog), 1,
     sizeof(((struct mg_config *)0)->audit_anchor_syslog) - 1},
    {"audit_key", K_STR, offsetof(struct mg_config, audit_key), 0, sizeof(((struct mg_config *)0)->audit_key) - 1},
    {"audit_anchor_url", K_STR, offsetof(struct mg_config, audit_anchor_url), 0,
     sizeof(((struct mg_config *)0)->audit_anchor_url) - 1},
    {"secret_rules", K_STR, offsetof(struct mg_config, secret_rules), 0,
     sizeof(((struct mg_config *)0)->secret_rules) - 1},
    {"cache_dir", K_STR, offsetof(struct mg_config, cache_dir), 0, sizeof(((struct mg_config *)0)->cache_dir) - 1},
    {"index_roots", K_STR, offsetof(struct mg_config, index_roots), 0,
     sizeof(((struct mg_config *)0)->index_roots) - 1},
#define STRKEY(k, min) {#k, K_STR, offsetof(struct mg_config, k), min, sizeof(((struct mg_config *)0)->k) - 1}
    STRKEY(embedder, 1),
    STRKEY(embed_url, 0),
    STRKEY(embed_model, 0),
    STRKEY(model_file, 0),
    STRKEY(embed_api_key, 0),
    STRKEY(webhook_secret, 0),
    STRKEY(webhook_secrets, 0),
    {"embed_batch", K_INT, offsetof(struct mg_config, embed_batch), 1, 2048},
    {"embed_timeout", K_INT, offsetof(struct mg_config, embed_timeout), 1, 3600},
    {"embed_retries", K_INT, offsetof(struct mg_config, embed_retries), 0, 10},
    /* embedders: Voyage and Ollama (issue 21 item 4; src/embed/voyage.c, ollama.c) */
    STRKEY(voyage_api_key, 0),
    STRKEY(voyage_url, 0),
    STRKEY(voyage_model, 0),
    {"voyage_dimensions", K_INT, offsetof(struct mg_config, voyage_dimensions), 0, 8192},
    STRKEY(ollama_url, 0),
    STRKEY(ollama_model, 0),
#undef STRKEY
    /* external vector stores (issue 21, part vstores; docs/providers.md) */
    {"vector_store", K_ENUM, offsetof(struct mg_config, vector_store), 1, 15},
    {"vector_url", K_STR, offsetof(struct mg_config, vector_url), 0, sizeof(((struct mg_config *)0)->vector_url) - 1},
    {"vector_api_key", K_STR, offsetof(struct mg_config, vector_api_key), 0,
     sizeof(((struct mg_config *)0)->vector_api_key) - 1},
    {"vector_collection_prefix", K_STR, offsetof(struct mg_config, vector_collection_prefix), 1,
     sizeof(((struct mg_config *)0)->vector_collection_prefix) - 1},
    {"allow_external_vectors", K_ENUM, offsetof(struct mg_config, allow_external_vectors), 1, 7},
    {"vector_timeout", K_INT, offsetof(struct mg_config, vector_timeout), 1, 600},
    /* the shared database (issue 22: store/pg.h, docs/deploy.md) */
    {"storage", K_STR, offsetof(struct mg_config, storage), 1, sizeof(((struct mg_config *)0)->storage) - 1},
    {"storage_pool_max", K_INT, offsetof(struct mg_config, storage_pool_max), 1, 1000},
    {"storage_timeout", K_INT, offsetof(struct mg_config, storage_timeout), 1, 600},
    {"storage_statement_timeout", K_INT, offsetof(struct mg_config, storage_statement_timeout), 1, 3600},
    {"storage_stale", K_ENUM, offsetof(struct mg_config, storage_stale), 1, 7},
    {"storage_stale_wait", K_INT, offsetof(struct mg_config, storage_stale_wait), 0, 3600},
    /* OAuth 2.1 (src/oauth/, docs/http.md) */
    {"oauth_issuer", K_STR, offsetof(struct mg_config, oauth_issuer), 0, sizeof(((struct mg_config *)0)->oauth_issuer) - 1},
    {"oauth_resource", K_STR, offsetof(struct mg_config, oauth_resource), 0,
     sizeof(((struct mg_config *)0)->oauth_resource) - 1},
    {"oauth_jwks_url", K_STR, offsetof(struct mg_config, oauth_jwks_url), 0,
     sizeof(((struct mg_config *)0)->oauth_jwks_url) - 1},
    {"oauth_tenant_claim", K_STR, offsetof(struct mg_config, oauth_tenant_claim), 1,
     sizeof(((struct mg_config *)0)->oauth_tenant_claim) - 1},
    {"oauth_tenant", K_STR, offsetof(struct mg_config, oauth_tenant), 0, sizeof(((struct mg_config *)0)->oauth_tenant) - 1},
    {"oauth_repos_claim", K_STR, offsetof(struct mg_config, oauth_repos_claim), 1,
     sizeof(((struct mg_config *)0)->oauth_repos_claim) - 1},
    {"oauth_clock_skew", K_INT, offsetof(struct mg_config, oauth_clock_skew), 0, 3600},
    {"oauth_jwks_ttl", K_INT, offsetof(struct mg_config, oauth_jwks_ttl), 10, 86400},
    {"oauth_server", K_ENUM, offsetof(struct mg_config, oauth_server), 1, 7},
    {"oauth_client_metadata_http", K_ENUM, offsetof(struct mg_config, oauth_client_metadata_http), 1, 7},
    {"oauth_code_ttl", K_INT, offsetof(struct mg_config, oauth_code_ttl), 1, 600},
    {"oauth_token_ttl", K_INT, offsetof(struct mg_config, oauth_token_ttl), 60, 86400},
    {"oauth_refresh_ttl", K_INT, offsetof(struct mg_config, oauth_refresh_ttl), 3600, 366 * 86400},
    {"oauth_rate_limit", K_INT, offsetof(struct mg_config, oauth_rate_limit), 0, 1000000},
    {"oauth_register_rate", K_INT, offsetof(struct mg_config, oauth_register_rate), 0, 1000000},
    {"oauth_clients_max", K_INT, offsetof(struct mg_config, oauth_clients_max), 1, 10000000},
    {"oauth_cors_origins", K_STR, offsetof(struct mg_config, oauth_cors_origins), 0,
     sizeof(((struct mg_config *)0)->oauth_cors_origins) - 1},
    {"oauth_fetch_private", K_ENUM, offsetof(struct mg_config, oauth_fetch_private), 1, 7},
    {"watch_poll_interval", K_INT, offsetof(struct mg_config, watch_poll_interval), 5, 86400},
    {"access_log", K_STR, offsetof(struct mg_config, access_log), 1, sizeof(((struct mg_config *)0)->access_log) - 1},
    {"access_log_max_bytes", K_SIZE, offsetof(struct mg_config, access_log_max_bytes), 4096, 1LL << 40},
    {"access_log_keep", K_INT, offsetof(struct mg_config, access_log_keep), 0, 100},
    {"shutdown_grace", K_INT, offsetof(struct mg_config, shutdown_grace), 0, 3600},
    /* issue 21, part mem0: session memory in Mem0 (src/memory/mem0.c, docs/providers.md) */
    {"sessions_provider", K_STR, offsetof(struct mg_config, sessions_provider), 1,
     sizeof(((struct mg_config *)0)->sessions_provider) - 1},
    {"mem0_url", K_STR, offsetof(struct mg_config, mem0_url), 0, sizeof(((struct mg_config *)0)->mem0_url) - 1},
    {"mem0_api_key", K_STR, offsetof(struct mg_config, mem0_api_key), 0,
     sizeof(((struct mg_config *)0)->mem0_api_key) - 1},
    {"mem0_timeout", K_INT, offsetof(struct mg_config, mem0_timeout), 1, 600},
    /* knowledge extraction (issue 21 part 5: extract_knowledge) */
    {"llm_url", K_STR, offsetof(struct mg_config, llm_url), 0, sizeof(((struct mg_config *)0)->llm_url) - 1},
    {"llm_model", K_STR, offsetof(struct mg_config, llm_model), 0, sizeof(((struct mg_config *)0)->llm_model) - 1},
    {"llm_api_key", K_STR, offsetof(struct mg_config, llm_api_key), 0,
     sizeof(((struct mg_config *)0)->llm_api_key) - 1},
    {"llm_timeout", K_INT, offsetof(struct mg_config, llm_timeout), 1, 3600},
    {"llm_retries", K_INT, offsetof(struct mg_config, llm_retries), 0, 10},
    {"extract_max_notes", K_INT, offsetof(struct mg_config, extract_max_notes), 1, 100},
};

/* The values a K_ENUM key takes (each shorter than its field). */
static const char *const *enum_choices(const char *key)
{
    static const char *const require_tokens[] = {"auto", "always", "never", NULL};
    static const char *const audit_fsync[] = {"writes", "event", "off", NULL};
    static const char *const action_high[] = {"redact", "exclude", NULL};
    static const char *const action[] = {"redact", "exclude", "keep", NULL};
    static const char *const on_off[] = {"on", "off", NULL};
    static const char *const vector_store[] = {"builtin", "chroma", "qdrant", NULL};
    static const char *const storage_stale[] = {"serve", "wait", NULL};
    static const char *const anchor_log[] = {"auto", "1", "0", NULL};
    if (strcmp(key, "audit_anchor_syslog") == 0) return anchor_log;
    if (strcmp(key, "storage_stale") == 0) return storage_stale;
    if (strcmp(key, "watch") == 0 || strcmp(key, "allow_external_vectors") == 0 || strcmp(key, "oauth_server") == 0 ||
        strcmp(key, "oauth_client_metadata_http") == 0 || strcmp(key, "oauth_fetch_private") == 0)
        return on_off;
    if (strcmp(key, "vector_store") == 0) return vector_store;
    if (strcmp(key, "require_tokens") == 0) return require_tokens;
    if (strcmp(key, "secret_action_high") == 0) return action_high;
    if (strncmp(key, "secret_action_", 14) == 0) return action;
    return audit_fsync;
}

size_t mg__config_nkeys(void)
{
    return sizeof(keys) / sizeof(keys[0]);
}

const char *mg__config_key(size_t i)
{
    return keys[i].name;
}

/* ---- 2. values ----------------------------------------------------------- */

int mg_parse_weights(const char *s, double w[6])
{
    double v[6] = {0, 0, 0, 0, 0, 1};
    for (int i = 0; i < 6; i++) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*s) && *s != '.') return -1;
        v[i] = strtod(s, &end);
        if (errno || end == s || !(v[i] >= 0 && v[i] <= 10)) return -1;
        if (i >= 3 && *end == 0) break;
        if (*end != ',' || i == 5) return -1;
        s = end + 1;
    }
    memcpy(w, v, sizeof(v));
    return 0;
}

int mg_rank_off_parse(const char *s)
{
    int m = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 5 && strncmp(s, "roles", 5) == 0) m |= MG_RANK_ROLES;
        else if (n == 5 && strncmp(s, "files", 5) == 0) m |= MG_RANK_FILES;
        else if (n == 5 && strncmp(s, "whole", 5) == 0) m |= MG_RANK_WHOLE;
        else if (n == 6 && strncmp(s, "counts", 6) == 0) m |= MG_RANK_COUNTS;
        else if (n == 5 && strncmp(s, "tiers", 5) == 0) m |= MG_RANK_TIERS;
        else if (n == 7 && strncmp(s, "onecall", 7) == 0) m |= MG_RANK_ONE_CALL;
        else if (n == 5 && strncmp(s, "texts", 5) == 0) m |= MG_RANK_TEXTS;
        else if (n == 5 && strncmp(s, "lines", 5) == 0) m |= MG_RANK_LINES;
        else if (n == 5 && strncmp(s, "words", 5) == 0) m |= MG_RANK_WORDS;
        else if (n) return -1;
        s += n + (s[n] == ',');
    }
    return m;
}

int mg_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned long long mul = 1;
    switch (tolower((unsigned char)*end)) {
    case 0: break;
    case 'k': mul = 1ULL << 10; end++; break;
    case 'm': mul = 1ULL << 20; end++; break;
    case 'g': mul = 1ULL << 30; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return -1;
    if (v > (1ULL << 40) / mul) return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* ---- 3. defaults --------------------------------------------------------- */

/* One parser thread per CPU; they run at a lower priority than the database
 * writer (indexer.c), so it keeps a core whenever it has work. */
static long default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

void mg_config_defaults(struct mg_config *c)
{
    memset(c, 0, sizeof(*c));
    c->max_file_size = 1 << 20;
    c->max_query_bytes = 4096;
    c->index_threads = (int)default_threads();
    c->search_concurrency = 2 * (int)default_threads(); /* request/gate.h: why twice */
    c->chunk_max_lines = 150;
    c->chunk_max_bytes = 12 * 1024;
    c->search_limit = 20;
    c->lexical_any_rows = 2000;
    snprintf(c->hybrid_weights, sizeof(c->hybrid_weights), "1,1,1,0.5,0");
    mg_parse_weights(c->hybrid_weights, c->hybrid_weight);
    c->hybrid_rrf_k = 60;
    c->search_max_limit = 1000;
    snprintf(c->listen, sizeof(c->listen), "%s", MG_DEFAULT_LISTEN);
    c->http_max_body = 1 << 20;
    c->http_max_per_address = 256;
    c->session_ttl = 3600;
    c->session_prune_interval = 600;
    c->api_session_idle = 300;
    snprintf(c->watch, sizeof(c->watch), "on");
    c->max_chunk_bytes = 8 << 10;
    c->max_context_bytes = 32 << 10;
    c->max_response_bytes = 64 << 10;
    c->cross_repo = 0;
    snprintf(c->secret_action_high, sizeof(c->secret_action_high), "redact");
    snprintf(c->secret_action_medium, sizeof(c->secret_action_medium), "redact");
    snprintf(c->secret_action_low, sizeof(c->secret_action_low), "keep");
    c->token_rate_limit = 600;
    snprintf(c->require_tokens, sizeof(c->require_tokens), "auto");
    c->audit_max_bytes = 64 << 20;
    c->audit_keep = 8;
    snprintf(c->audit_fsync, sizeof(c->audit_fsync), "writes");
    snprintf(c->audit_anchor_syslog, sizeof(c->audit_anchor_syslog), "auto");
    snprintf(c->embedder, sizeof(c->embedder), "auto");
    c->embed_batch = 64;
    c->embed_timeout = 60;
    snprintf(c->sessions_provider, sizeof(c->sessions_provider), "builtin"); /* part mem0 */
    c->mem0_timeout = 10;
    c->embed_retries = 3;
    snprintf(c->vector_store, sizeof(c->vector_store), "builtin");
    snprintf(c->vector_collection_prefix, sizeof(c->vector_collection_prefix), "memgate");
    snprintf(c->allow_external_vectors, sizeof(c->allow_external_vectors), "off");
    c->vector_timeout = 10;
    snprintf(c->storage, sizeof(c->storage), "sqlite");
    c->storage_pool_max = 8;
    c->storage_timeout = 5;
    c->storage_statement_timeout = 30;
    snprintf(c->storage_stale, sizeof(c->storage_stale), "serve");
    c->storage_stale_wait = 10;
    snprintf(c->oauth_tenant_claim, sizeof(c->oauth_tenant_claim), "memgate_tenant");
    snprintf(c->oauth_repos_claim, sizeof(c->oauth_repos_claim), "memgate_repos");
    c->oauth_clock_skew = 60;
    c->oauth_jwks_ttl = 600;
    snprintf(c->oauth_server, sizeof(c->oauth_server), "off");
    snprintf(c->oauth_client_metadata_http, sizeof(c->oauth_client_metadata_http), "off");
    c->oauth_code_ttl = 60;
    c->oauth_token_ttl = 900;
    c->oauth_refresh_ttl = 30 * 86400;
    c->oauth_rate_limit = 60;
    c->oauth_register_rate = 2;
    c->oauth_clients_max = 1000;
    snprintf(c->oauth_cors_origins, sizeof(c->oauth_cors_origins), "*");
    snprintf(c->oauth_fetch_private, sizeof(c->oauth_fetch_private), "off");
    c->watch_poll_interval = 60;
    snprintf(c->access_log, sizeof(c->access_log), "off");
    c->access_log_max_bytes = 64 << 20;
    c->access_log_keep = 5;
    c->shutdown_grace = 10;
    c->llm_timeout = 120; /* knowledge extraction (issue 21 part 5) */
    c->llm_retries = 2;
    c->extract_max_notes = 20;
    const char *h = getenv("MEMGATE_HOME"), *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (!home || !*home) home = "/tmp";
    if (h && *h) snprintf(c->home, sizeof(c->home), "%s", h);
    else if (x && *x) snprintf(c->home, sizeof(c->home), "%s/memgate", x);
    else snprintf(c->home, sizeof(c->home), "%s/.local/share/memgate", home);
}

/* ---- 4. setting a key, parsing a config text ----------------------------- */

int mg_config_set(struct mg_config *c, const char *key, const char *value, const char *origin, struct mg_err *err)
{
    if (strncmp(key, "mcp_provider.", 13) == 0) return mg_mcp_provider_set(c, key, value, origin, err);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct key *k = &keys[i];
        if (strcmp(k->name, key) != 0) continue;
        long long v;
        if (k->type == K_ENUM) {
            char list[128] = "";
            const char *const *choices = enum_choices(k->name);
            for (size_t j = 0; choices[j]; j++) {
                if (strcmp(choices[j], value) == 0) {
                    memcpy((char *)c + k->off, value, strlen(value) + 1);
                    return 0;
                }
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", j ? ", " : "", choices[j]);
            }
            return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for %s is not one of: %s", origin, value, key, list);
        }
        if (k->type == K_STR) {
            size_t n = strlen(value);
            if ((long long)n < k->min || (long long)n > k->max)
                return mg_err_set(err, MG_E_CONFIG, "%s: %s must be %lld to %lld characters long", origin, key,
                                  k->min, k->max);
            if (strcmp(key, "index_roots") == 0 && mg_index_roots_each(value, origin, NULL, NULL, err) < 0) return -1;
            if (strcmp(key, "webhook_secrets") == 0 && mg_webhook_secrets_each(value, origin, NULL, NULL, err) < 0)
                return -1;
            if (strcmp(key, "hybrid_weights") == 0 && mg_parse_weights(value, c->hybrid_weight) != 0)
                return mg_err_set(err, MG_E_CONFIG,
                                  "%s: '%s' for hybrid_weights is not four to six weights from 0 to 10 "
                                  "(lexical,semantic,symbol,path[,graph[,files]]; example: 1,1,1,0.5,0,1)",
                                  origin, value);
            if (strcmp(key, "rank_off") == 0 && mg_rank_off_parse(value) < 0)
                return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for rank_off is not a comma-separated list of "
                                  "roles, files, whole, counts, tiers, onecall, texts, lines, words (or empty)", origin, value);
            if (strcmp(key, "access_log") == 0 && strcmp(value, "off") != 0 && strcmp(value, "stderr") != 0 &&
                value[0] != '/')
                return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for access_log is not off, stderr or an absolute file "
                                  "path", origin, value);
            if (strcmp(key, "llm_url") == 0 && n > 0 && strncmp(value, "http://", 7) != 0 &&
                strncmp(value, "https://", 8) != 0)
                return mg_err_set(err, MG_E_CONFIG, "%s: llm_url '%s' is not an http:// or https:// URL (example: "
                                  "http://localhost:11434/v1)", origin, value);
            if (strcmp(key, "webhook_secret") == 0 && n > 0 && n < MG_WEBHOOK_SECRET_MIN)
                return mg_err_set(err, MG_E_CONFIG, "%s: webhook_secret must be at least %d characters (or empty to "
                                  "turn webhooks off); make one with `openssl rand -hex 32`",
                                  origin, MG_WEBHOOK_SECRET_MIN);
            memcpy((char *)c + k->off, value, n + 1);
            return 0;
        }
        if (k->type == K_SIZE) {
            size_t sz;
            if (mg_parse_size(value, &sz) != 0)
                return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for %s is not a size (examples: 4096, 512k, 1M)",
                                  origin, value, key);
            v = (long long)sz;
        } else {
            char *end;
            errno = 0;
            v = strtoll(value, &end, 10);
            if (errno || end == value || *end)
                return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for %s is not a whole number", origin, value, key);
        }
        if (v < k->min || v > k->max)
            return mg_err_set(err, MG_E_CONFIG, "%s: %s = %lld is out of range [%lld, %lld]", origin, key, v,
                              k->min, k->max);
        if (k->type == K_SIZE) *(size_t *)((char *)c + k->off) = (size_t)v;
        else *(int *)((char *)c + k->off) = (int)v;
        return 0;
    }
    return mg_err_set(err, MG_E_CONFIG, "%s: unknown key '%s'; see docs/config.md for the keys", origin, key);
}

/* TENANT:VALUE entries of a setting (index_roots: VALUE an absolute dir;
 * webhook_secrets: a secret, which no error quotes). */
static int tenant_pairs_each(const char *value, const char *origin, bool secrets,
                             int (*visit)(void *ud, const char *tenant, const char *v), void *ud, struct mg_err *err)
{
    char seen[1024] = ","; /* webhook_secrets: the tenants named so far */
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        const char *end = e;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
        if (end > p) {
            char entry[PATH_MAX + 80];
            size_t n = (size_t)(end - p);
            if (n >= sizeof(entry))
                return mg_err_set(err, MG_E_CONFIG, "%s: an %s entry is longer than %zu bytes", origin,
                                  secrets ? "webhook_secrets" : "index_roots", sizeof(entry) - 1);
            memcpy(entry, p, n);
            entry[n] = 0;
            char *colon = strchr(entry, ':');
            size_t tl = colon ? (size_t)(colon - entry) : 0, vl = colon ? strlen(colon + 1) : 0;
            bool ok = colon && tl >= 1 && tl <= 64 && isalnum((unsigned char)entry[0]) &&
                      (secrets ? vl >= MG_WEBHOOK_SECRET_MIN && vl <= 255 : colon[1] == '/');
            for (size_t i = 0; ok && i < tl; i++) {
                unsigned char ch = (unsigned char)entry[i];
                ok = (islower(ch) || isdigit(ch) || ch == '.' || ch == '_' || ch == '-');
            }
            if (!ok && secrets)
                return mg_err_set(err, MG_E_CONFIG, "%s: a webhook_secrets entry%s%.*s is not TENANT:SECRET (a "
                                  "tenant of a-z 0-9 . _ -, a colon, a secret of %d to 255 characters without "
                                  "commas, e.g. from `openssl rand -hex 32`; entries separated by commas)",
                                  origin, colon ? " of tenant " : "", colon ? (int)(tl > 64 ? 64 : tl) : 0, entry,
                                  MG_WEBHOOK_SECRET_MIN);
            if (!ok)
                return mg_err_set(err, MG_E_CONFIG, "%s: index_roots entry '%s' is not TENANT:/absolute/dir (a "
                                  "tenant of a-z 0-9 . _ -, a colon, an absolute path; entries separated by commas)",
                                  origin, entry);
            *colon = 0;
            if (secrets) {
                char key[72];
                snprintf(key, sizeof(key), ",%s,", entry);
                if (strstr(seen, key))
                    return mg_err_set(err, MG_E_CONFIG, "%s: webhook_secrets names tenant '%s' twice", origin, entry);
                if (strlen(seen) + tl + 1 < sizeof(seen)) snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s,", entry);
            }
            if (visit) {
                int rc = visit(ud, entry, colon + 1);
                if (rc) return rc;
            }
        }
        p = *e ? e + 1 : e;
    }
    return 0;
}

int mg_index_roots_each(const char *value, const char *origin,
                        int (*visit)(void *ud, const char *tenant, const char *dir), void *ud, struct mg_err *err)
{
    return tenant_pairs_each(value, origin, false, visit, ud, err);
}

int mg_webhook_secrets_each(const char *value, const char *origin,
                            int (*visit)(void *ud, const char *tenant, const char *secret), void *ud,
                            struct mg_err *err)
{
    return tenant_pairs_each(value, origin, true, visit, ud, err);
}

static char *trim(char *s, char *e)
{
    while (s < e && isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) e--;
    *e = 0;
    return s;
}

int mg_config_parse(struct mg_config *c, const char *text, size_t len, const char *origin, struct mg_err *err)
{
    if (len > MG_CONFIG_MAX_BYTES)
        return mg_err_set(err, MG_E_CONFIG, "%s is %zu bytes; the limit is %d", origin, len, MG_CONFIG_MAX_BYTES);
    char line[1024], where[PATH_MAX + 32];
    size_t i = 0;
    int lineno = 0;
    while (i < len) {
        size_t s = i;
        while (i < len && text[i] != '\n') i++;
        size_t n = i - s;
        i++; /* past '\n' */
        lineno++;
        snprintf(where, sizeof(where), "%s:%d", origin, lineno);
        if (n >= sizeof(line))
            return mg_err_set(err, MG_E_CONFIG, "%s: line is longer than %zu bytes", where, sizeof(line) - 1);
        memcpy(line, text + s, n);
        line[n] = 0;
        if (memchr(line, 0, n))
            return mg_err_set(err, MG_E_CONFIG, "%s: line contains a NUL byte", where);
        char *hash = strchr(line, '#');
        char *end = hash ? hash : line + n;
        char *eq = memchr(line, '=', (size_t)(end - line));
        char *k = trim(line, eq ? eq : end);
        if (!eq) {
            if (*k) return mg_err_set(err, MG_E_CONFIG, "%s: expected 'key = value', got '%s'", where, k);
            continue;
        }
        char *v = trim(eq + 1, end);
        if (!*k) return mg_err_set(err, MG_E_CONFIG, "%s: a value has no key", where);
        if (!*v) return mg_err_set(err, MG_E_CONFIG, "%s: key '%s' has no value", where, k);
        if (mg_config_set(c, k, v, where, err) != 0) return -1;
    }
    return mg_mcp_providers_check(c, origin, err);
}

size_t mg_config_diff(const struct mg_config *a, const struct mg_config *b, void (*visit)(void *ud, const char *key),
                      void *ud)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct key *k = &keys[i];
        const char *pa = (const char *)a + k->off, *pb = (const char *)b + k->off;
        bool same;
        if (k->type == K_SIZE) same = *(const size_t *)(const void *)pa == *(const size_t *)(const void *)pb;
        else if (k->type == K_INT) same = *(const int *)(const void *)pa == *(const int *)(const void *)pb;
        else same = strcmp(pa, pb) == 0;
        if (same) continue;
        n++;
        if (visit) visit(ud, k->name);
    }
    if (a->n_mcp_providers != b->n_mcp_providers ||
        memcmp(a->mcp_providers, b->mcp_providers, sizeof(a->mcp_providers)) != 0) {
        n++;
        if (visit) visit(ud, "mcp_provider");
    }
    return n;
}

/* ---- 5. checks across settings ------------------------------------------- */

int mg_config_check_storage(const struct mg_config *c, const char *origin, struct mg_err *err)
{
    const char *s = c->storage;
    if (strcmp(s, "sqlite") == 0 || strncmp(s, "postgres://", 11) == 0 || strncmp(s, "postgresql://", 13) == 0)
        return 0;
    return mg_err_set(err, MG_E_CONFIG, "%s: storage must be sqlite or a postgres:// URL (e.g. "
                      "postgres://memgate@db.example/memgate), not '%.16s...'", origin, s);
}

const char *mg_config_vector_url(const struct mg_config *c)
{
    if (c->vector_url[0]) return c->vector_url;
    if (strcmp(c->vector_store, "chroma") == 0) return "http://127.0.0.1:8000";
    if (strcmp(c->vector_store, "qdrant") == 0) return "http://127.0.0.1:6333";
    return "";
}

/* external vector stores (issue 21, part vstores) */
int mg_config_check_vectors(const struct mg_config *c, const char *origin, struct mg_err *err)
{
    if (strcmp(c->vector_store, "builtin") == 0) return 0;
    if (strcmp(c->allow_external_vectors, "on") != 0)
        return mg_err_set(err, MG_E_CONFIG, "%s: vector_store = %s keeps the code's embeddings in an outside "
                          "store, unencrypted and outside memgate's encryption at rest (and a vector can give away "
                          "the text it was made from); set allow_external_vectors = on to accept that, or "
                          "vector_store = builtin", origin, c->vector_store);
    const char *u = c->vector_url;
    if (u[0] && strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
        return mg_err_set(err, MG_E_CONFIG, "%s: vector_url '%s' is not an http:// or https:// URL", origin, u);
    for (const char *p = c->vector_collection_prefix; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return mg_err_set(err, MG_E_CONFIG, "%s: vector_collection_prefix '%s' may hold only a-z 0-9 - _",
                              origin, c->vector_collection_prefix);
    if (!((c->vector_collection_prefix[0] >= 'a' && c->vector_collection_prefix[0] <= 'z') ||
          (c->vector_collection_prefix[0] >= '0' && c->vector_collection_prefix[0] <= '9')))
        return mg_err_set(err, MG_E_CONFIG, "%s: vector_collection_prefix must begin with a-z or 0-9", origin);
    return 0;
}

/* ---- 6. external MCP servers as code providers --------------------------- */

int mg_mcp_provider_set(struct mg_config *c, const char *key, const char *value, const char *origin,
                        struct mg_err *err)
{
    const char *name = key + 13, *dot = strchr(name, '.');
    size_t nl = dot ? (size_t)(dot - name) : 0;
    bool ok = dot && nl >= 1 && nl < sizeof(c->mcp_providers[0].name);
    for (size_t i = 0; ok && i < nl; i++)
        ok = islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '_' || name[i] == '-';
    if (!ok)
        return mg_err_set(err, MG_E_CONFIG, "%s: '%s' is not mcp_provider.NAME.KEY (NAME: 1 to %zu characters of "
                          "a-z 0-9 _ -)", origin, key, sizeof(c->mcp_providers[0].name) - 1);
    struct mg_mcp_provider_cfg *p = NULL;
    for (int i = 0; i < c->n_mcp_providers; i++)
        if (strlen(c->mcp_providers[i].name) == nl && strncmp(c->mcp_providers[i].name, name, nl) == 0)
            p = &c->mcp_providers[i];
    if (!p) {
        if (c->n_mcp_providers >= MG_MCP_PROVIDERS_MAX)
            return mg_err_set(err, MG_E_CONFIG, "%s: more than %d mcp_provider names", origin, MG_MCP_PROVIDERS_MAX);
        p = &c->mcp_providers[c->n_mcp_providers++];
        memset(p, 0, sizeof(*p));
        memcpy(p->name, name, nl);
        p->timeout_ms = 5000;
        p->max_items = 100;
        p->max_bytes = 1 << 20;
    }
    const char *field = dot + 1;
    size_t vl = strlen(value);
    struct {
        const char *name;
        char *dst;
        size_t cap;
    } strs[] = {
        {"command", p->command, sizeof(p->command)},       {"args", p->args, sizeof(p->args)},
        {"url", p->url, sizeof(p->url)},                   {"token_file", p->token_file, sizeof(p->token_file)},
        {"tool", p->tool, sizeof(p->tool)},                {"arguments", p->arguments, sizeof(p->arguments)},
        {"result", p->result, sizeof(p->result)},          {"repos", p->repos, sizeof(p->repos)},
    };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        if (strcmp(field, strs[i].name) != 0) continue;
        if (vl >= strs[i].cap)
            return mg_err_set(err, MG_E_CONFIG, "%s: %s is longer than %zu characters", origin, key, strs[i].cap - 1);
        memcpy(strs[i].dst, value, vl + 1);
        return 0;
    }
    if (strcmp(field, "timeout_ms") == 0 || strcmp(field, "max_items") == 0 || strcmp(field, "max_bytes") == 0) {
        size_t v;
        bool is_ms = field[0] == 't', is_items = field[4] == 'i';
        if (mg_parse_size(value, &v) != 0 || (is_ms && (v < 10 || v > 600000)) ||
            (is_items && (v < 1 || v > 1000)) || (!is_ms && !is_items && (v < 1024 || v > (64u << 20))))
            return mg_err_set(err, MG_E_CONFIG, "%s: '%s' for %s is out of range (timeout_ms 10 to 600000, "
                              "max_items 1 to 1000, max_bytes 1k to 64M)", origin, value, key);
        if (is_ms) p->timeout_ms = (int)v;
        else if (is_items) p->max_items = (int)v;
        else p->max_bytes = v;
        return 0;
    }
    return mg_err_set(err, MG_E_CONFIG, "%s: unknown key '%s' (an mcp_provider takes command, args, url, token_file, "
                      "tool, arguments, result, repos, timeout_ms, max_items, max_bytes)", origin, key);
}

int mg_mcp_providers_check(const struct mg_config *c, const char *origin, struct mg_err *err)
{
    for (int i = 0; i < c->n_mcp_providers; i++) {
        const struct mg_mcp_provider_cfg *p = &c->mcp_providers[i];
        char what[PATH_MAX + 64];
        snprintf(what, sizeof(what), "%s: mcp_provider.%s", origin, p->name);
        if (!p->command[0] == !p->url[0])
            return mg_err_set(err, MG_E_CONFIG, "%s needs either a command (stdio) or a url (Streamable HTTP)", what);
        if (p->url[0] && strncmp(p->url, "http://", 7) != 0 && strncmp(p->url, "https://", 8) != 0)
            return mg_err_set(err, MG_E_CONFIG, "%s.url '%s' is not an http:// or https:// URL", what, p->url);
        if (p->token_file[0] && (!p->url[0] || p->token_file[0] != '/'))
            return mg_err_set(err, MG_E_CONFIG, "%s.token_file must be an absolute path, with a url", what);
        if (p->args[0]) {
            if (!p->command[0]) return mg_err_set(err, MG_E_CONFIG, "%s.args needs a command", what);
            json_t *a = json_loads(p->args, JSON_REJECT_DUPLICATES, NULL);
            bool ok = json_is_array(a) && json_array_size(a) <= 64;
            size_t k;
            json_t *e;
            json_array_foreach(a, k, e) ok = ok && json_is_string(e) && !memchr(json_string_value(e), 0,
                                                                           json_string_length(e));
            json_decref(a);
            if (!ok)
                return mg_err_set(err, MG_E_CONFIG, "%s.args must be a JSON array of at most 64 strings, such as "
                                  "[\"/srv/mcp.js\", \"stdio\"]", what);
        }
        if (!p->tool[0]) return mg_err_set(err, MG_E_CONFIG, "%s needs a tool (the tool it calls)", what);
        if (!p->repos[0])
            return mg_err_set(err, MG_E_CONFIG, "%s needs repos (the repo ids it answers for, comma-separated): an "
                              "external provider is never asked about another repo", what);
        if (!p->result[0])
            return mg_err_set(err, MG_E_CONFIG, "%s needs a result mapping (json:/POINTER, text:lines or text:grep)",
                              what);
        struct mg_mcpmap m;
        char w2[PATH_MAX + 80];
        snprintf(w2, sizeof(w2), "%s.result", what);
        if (mg_mcpmap_parse(p->result, &m, w2, err) != 0) return -1;
        snprintf(w2, sizeof(w2), "%s.arguments", what);
        if (mg_mcpmap_template_check(p->arguments[0] ? p->arguments : "{\"query\":\"{query}\"}", w2, err) != 0)
            return -1;
    }
    return 0;
}

bool mg_list_has(const char *list, const char *item, size_t n, bool nocase)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *t = e;
        while (t > p && t[-1] == ' ') t--;
        if (t > p && (size_t)(t - p) == n && (nocase ? strncasecmp(p, item, n) : strncmp(p, item, n)) == 0)
            return true;
        p = e;
    }
    return false;
}

bool mg_mcp_provider_serves(const struct mg_config *cfg, int i, const char *repo_id)
{
    return mg_list_has(cfg->mcp_providers[i].repos, repo_id, strlen(repo_id), false);
}
