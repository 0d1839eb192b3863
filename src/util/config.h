/* config.h — settings: defaults, then the config file, then MEMGATE_* variables.
 *
 * The data directory is $MEMGATE_HOME, else $XDG_DATA_HOME/memgate, else
 * ~/.local/share/memgate. The config file is $MEMGATE_CONFIG, else
 * $MEMGATE_HOME/config, else $XDG_CONFIG_HOME/memgate/config (~/.config),
 * else (read with a notice) <data dir>/config: lines of `key = value`, `#`
 * comments. The cache is cache_dir, else $MEMGATE_HOME/cache, else
 * $XDG_CACHE_HOME/memgate (~/.cache): MEMGATE_HOME keeps everything inside it. Every key can also
 * be set as an environment variable MEMGATE_<KEY IN CAPITALS>, which wins
 * over the file; command-line flags win over both. docs/config.md lists the
 * keys. An unknown key or a bad value is an error (invalid_config) that names
 * the file and line, so typos do not pass silently.
 */
#ifndef MG_CONFIG_H
#define MG_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define MG_CONFIG_MAX_BYTES (64 * 1024) /* the config file cap */
#define MG_DEFAULT_LISTEN "127.0.0.1:7077"
#define MG_AUDIT_KEEP_MAX 200    /* rotated audit files kept at most: each is named in the anchor (audit.h) */

/* "L,S,Y,P[,G[,F]]": four to six weights, each 0 to 10 (G 0, F 1 when left out); 0 or -1 */
int mg_parse_weights(const char *s, double w[6]);

/* Ranking signals (config rank_off, search/filerank.c) */
#define MG_RANK_ROLES 1u /* tests, docs and other non-source files below source */
#define MG_RANK_FILES 2u /* a file's chunks summed into its score */
#define MG_RANK_COUNTS 4u /* the files scored whole scored again by their words' counts in their text */
#define MG_RANK_WHOLE 8u /* files scored whole (BM25 over every file holding a query word), fused with the pool's */
#define MG_RANK_TIERS 16u /* a common word's rows with it in a symbol ranked first (the same answer, sooner) */
#define MG_RANK_ONE_CALL 32u /* a one-word expression ranked in one call, not a row at a time (the same, sooner) */
#define MG_RANK_TEXTS 64u /* files' unpacked texts shared by the searches of a process (the same, sooner) */
#define MG_RANK_LINES 128u /* a hit's lines split into words only where a query word occurs (the same, sooner) */
#define MG_RANK_WORDS 256u /* a long query's any-word pass ranked by all its words that fit, not its ten rarest */
/* "roles,files,whole,tiers,onecall,texts,lines,words": the signals named, or -1 for a name not one of them (4u was "wide",
 * a read of 1,000 chunks for files, removed: docs/benchmarks.md) */
int mg_rank_off_parse(const char *s);

struct mg_config {
    char home[PATH_MAX];     /* data directory                                  */
    size_t max_file_size;    /* files larger are skipped (default 1 MiB)        */
    size_t max_query_bytes;  /* longest query string accepted (default 4 KiB)   */
    int index_threads;       /* parser threads (default: online CPUs)           */
    int search_concurrency;  /* index reads run at once, the rest queued (default: twice the online CPUs; 0 no queue) */
    int chunk_max_lines;     /* a chunk longer than this is split (default 150) */
    size_t chunk_max_bytes;  /* ... or larger than this (default 12 KiB)        */
    int search_limit;        /* default result count (default 20)               */
    int search_max_limit;    /* the most results one search returns (default 1000) */
    int lexical_any_rows;    /* the most rows the any-word fallback ranks (default 2000; search/lexical.c) */
    /* hybrid search's rank fusion (search/hybrid.h): the weights of its lexical,
     * semantic, symbol, path and graph lists ("1,1,1,0.5,0"; 0 leaves a
     * list out), then of the file lists fused with the pool's files in
     * lexical and hybrid search (search/filerank.c; 1 when left out), and k */
    char hybrid_weights[64];
    double hybrid_weight[6];
    int hybrid_rrf_k;
    /* ranking signals switched off, comma-separated ("roles", "files"; the
     * benchmark's ablations, search/rank.c; default none) */
    char rank_off[32];
    char listen[128];        /* `memgate serve` address (default 127.0.0.1:7077) */
    char allowed_origins[1024]; /* extra Origin values allowed on HTTP, comma-separated */
    size_t http_max_body;    /* largest HTTP request body (default 1 MiB) */
    int http_max_per_address; /* connections at once from one address (default 256; 0: no cap, behind a proxy) */
    int session_ttl;         /* seconds a session may idle before it expires (default 3600; 0 never) */
    int session_prune_interval; /* seconds between prunes of expired sessions (default 600) */
    int api_session_idle;    /* seconds the implicit /v1 session of a client may idle (default 300) */
    char watch[4];           /* "on" (default) or "off": repos whose setting.watch is default follow it */
    /* SecurityGate (src/security/gate.h) */
    size_t max_chunk_bytes;  /* largest piece of text one result item returns (default 8 KiB) */
    size_t max_context_bytes;/* largest total of text one response returns (default 32 KiB) */
    size_t max_response_bytes;/* largest tool result, as JSON (default 64 KiB); a list past it is cut */
    int cross_repo;          /* 1: a request may span several repos (default 0) */
    char secret_action_high[16];   /* redact | exclude (default redact) */
    char secret_action_medium[16]; /* redact | exclude | keep (default redact) */
    char secret_action_low[16];    /* redact | exclude | keep (default keep) */
    /* security (src/security/, docs/security.md) */
    int token_rate_limit;    /* requests/min per token unless the token sets its own (default 600; 0 unlimited) */
    char require_tokens[8];  /* "auto" (default), "always" or "never" (loopback only) */
    size_t audit_max_bytes;  /* audit.log is rotated when it would grow past this (default 64 MiB) */
    int audit_keep;          /* rotated audit files kept: audit.log.1 .. .N (default 8, at most MG_AUDIT_KEEP_MAX) */
    char audit_fsync[8];     /* "writes" (default: fdatasync after durable events), "event" (every one) or "off" */
    char audit_anchor_syslog[8]; /* "auto" (default): ship the audit anchor to the system journal, else to
                                  * syslog, when this machine has one; "1": always try; "0": never */
    char audit_key[PATH_MAX];    /* the key that vouches for the audit anchor; never in the data directory;
                                  * empty: $XDG_CONFIG_HOME/memgate/audit.key (~/.config/memgate/audit.key) */
    char audit_anchor_url[512]; /* POST the audit anchor here when it changes (empty: not shipped) */
    char secret_rules[PATH_MAX]; /* secret-scanner rules file; empty = the built-in rules */
    char cache_dir[PATH_MAX];    /* compiled secret rules are cached here; mg_config_load fills it in
                                  * (empty after mg_config_defaults alone: <home>/cache) */
    /* index roots (src/security/roots.h): "TENANT:DIR, TENANT:DIR, ..."; a tenant may index only under its
     * own; empty: only the local tenant may index, anywhere (both minus the forbidden places) */
    char index_roots[4096];
    char config_path[PATH_MAX];  /* the config file read (or looked for); not a setting */
    /* semantic search (src/embed/embed.h, docs/semantic.md) */
    char embedder[16];       /* auto | builtin | model | openai | voyage | ollama | none (default auto) */
    char model_file[512];    /* the `model` embedder's file; empty: the model compiled in (src/embed/model.c) */
    char embed_url[512];     /* OpenAI-compatible base URL, e.g. http://localhost:11434/v1 */
    char embed_model[128];   /* model name sent to the endpoint */
    char embed_api_key[512]; /* bearer token for the endpoint; never printed */
    int embed_batch;         /* texts per embeddings request (default 64) */
    int embed_timeout;       /* seconds per embeddings request (default 60) */
    int embed_retries;       /* retries of a failed request, with backoff (default 3) */
    /* embedders: Voyage and Ollama (issue 21 item 4; src/embed/voyage.c, ollama.c, docs/providers.md) */
    char voyage_api_key[512]; /* Voyage AI key (bearer); never printed; set: auto picks voyage */
    char voyage_url[512];     /* empty: https://api.voyageai.com/v1 */
    char voyage_model[128];   /* empty: voyage-code-3 */
    int voyage_dimensions;    /* output_dimension sent to Voyage; 0 (default): the model's */
    char ollama_url[512];     /* Ollama's base URL; empty: http://localhost:11434 (and auto does not pick ollama) */
    char ollama_model[128];   /* empty: nomic-embed-text */
    /* external vector stores (issue 21, part vstores: src/vector/vext.c, docs/providers.md) */
    char vector_store[16];   /* builtin (default) | chroma | qdrant */
    char vector_url[512];    /* the store's base URL (default: chroma http://127.0.0.1:8000, qdrant http://127.0.0.1:6333) */
    char vector_api_key[512]; /* chroma: x-chroma-token; qdrant: api-key; never printed */
    char vector_collection_prefix[48]; /* collections are named PREFIX-<hash of tenant and repo> (default memgate) */
    char allow_external_vectors[8]; /* on | off (default): an external store holds vectors unencrypted */
    int vector_timeout;      /* seconds per request to the store (default 10) */
    /* the shared database (issue 22: store/pg.h, docs/deploy.md) */
    char storage[1024];      /* "sqlite" (default: the data directory's files) or a postgres:// URL
                              * (MEMGATE_DATABASE_URL sets it too); never printed with its password */
    int storage_pool_max;    /* connections per process, at most (default 8) */
    int storage_timeout;     /* seconds to connect, or to wait for a free connection (default 5) */
    int storage_statement_timeout; /* seconds a statement may run (default 30) */
    /* the shared catalog (store/catalog.h): a daemon whose copy of a repo's
     * index is behind the catalog answers from it with stale: true (serve),
     * or first waits up to storage_stale_wait seconds for its catch-up run */
    char storage_stale[8];   /* serve (default) | wait */
    int storage_stale_wait;  /* seconds (default 10) */
    /* the file watcher (src/index/watch.h); watch above */
    int watch_poll_interval; /* seconds between full runs of a repo the kernel cannot watch (default 60) */
    /* push webhooks (src/hook/hook.h, docs/webhooks.md) */
    char webhook_secret[256]; /* HMAC key of POST /v1/hooks/git; empty: webhooks off; never printed */
    char webhook_secrets[2048]; /* TENANT:SECRET, ...: a tenant's own webhook secret (its repos only); never printed */
    /* OAuth 2.1 (src/oauth/, docs/http.md): memgate as the resource server of an OpenID provider */
    char oauth_issuer[512];  /* the provider's issuer URL; empty (default): OAuth off, memgate tokens only */
    char oauth_resource[512]; /* this server's resource identifier (its MCP endpoint's URL), the audience
                               * every token must name (RFC 8707); required with oauth_issuer */
    char oauth_jwks_url[512]; /* the provider's keys; empty: the jwks_uri of its discovery document */
    char oauth_tenant_claim[64]; /* the claim naming the tenant (default memgate_tenant) */
    char oauth_tenant[65];   /* the tenant of a token without that claim; empty (default): such a token is refused */
    char oauth_repos_claim[64]; /* the claim listing the token's repos (default memgate_repos; absent: every repo) */
    int oauth_clock_skew;    /* seconds of clock difference allowed on exp, nbf and iat (default 60) */
    int oauth_jwks_ttl;      /* seconds the provider's keys are kept before they are fetched again (default 600) */
    /* the built-in authorization server (src/oauth/as.h) */
    char oauth_server[8];    /* on | off (default): memgate issues the tokens itself; oauth_issuer defaults to
                              * oauth_resource's origin */
    char oauth_client_metadata_http[8]; /* on | off (default): accept http:// loopback client_id URLs (tests) */
    int oauth_code_ttl;      /* seconds an authorization code lives (default 60) */
    int oauth_token_ttl;     /* seconds an access token lives (default 900) */
    int oauth_refresh_ttl;   /* seconds a refresh token lives (default 30 days) */
    int oauth_rate_limit;    /* requests per minute per client address to the public endpoints (authorize,
                              * token, revoke; default 60, burst 10; 0: unlimited) */
    int oauth_register_rate; /* registrations per minute per client address (default 2, burst 10; 0: unlimited) */
    int oauth_clients_max;   /* registered clients kept at most (default 1000) */
    char oauth_cors_origins[512]; /* browser origins the token, registration, revocation and metadata endpoints
                                   * answer (exact, comma-separated); "*" (default): any; empty: none */
    char oauth_fetch_private[8]; /* on | off (default): OAuth fetches (provider keys, client metadata documents)
                                  * may reach loopback, private and link-local addresses (a provider on this
                                  * host or the internal network; tests) */
    /* `memgate serve`'s operations (docs/http.md) */
    char access_log[PATH_MAX]; /* "off" (default), "stderr", or an absolute file path: one JSON line per request */
    size_t access_log_max_bytes; /* the access log file is rotated past this (default 64 MiB) */
    int access_log_keep;     /* rotated access logs kept: .1 .. .N (default 5) */
    int shutdown_grace;      /* seconds SIGTERM waits for requests in flight (default 10) */
    /* issue 21, part mem0: session memory in Mem0 (src/memory/mem0.c, docs/providers.md) */
    char sessions_provider[16]; /* builtin (default) | mem0: where episodes live */
    char mem0_url[512];      /* the Mem0 REST server's base URL, e.g. http://localhost:8888 */
    char mem0_api_key[512];  /* its X-API-Key; empty: none sent; never printed */
    int mem0_timeout;        /* seconds per Mem0 request (default 10) */
    /* knowledge extraction (issue 21 part 5: extract_knowledge, util/llm.h, docs/providers.md) */
    char llm_url[512];       /* OpenAI-compatible chat endpoint base URL (POST {llm_url}/chat/completions); empty:
                              * ask the client's model (MCP sampling) */
    char llm_model[128];     /* model name sent to the chat endpoint */
    char llm_api_key[512];   /* bearer token for the chat endpoint; never printed */
    int llm_timeout;         /* seconds per chat request, and for a client's sampling answer (default 120) */
    int llm_retries;         /* retries of a failed chat request, with backoff (default 2) */
    int extract_max_notes;   /* the most notes one extraction writes (default 20) */
    /* external MCP servers as code providers (issue 21, part mcpclient; provider/mcpc.h, docs/providers.md):
     * `mcp_provider.NAME.KEY = value` lines, NAME of 1-24 characters a-z 0-9 _ - */
    int n_mcp_providers;
    struct mg_mcp_provider_cfg {
        char name[25];
        char command[512];       /* stdio: the program to run (absolute, or found on PATH) */
        char args[1024];         /* stdio: its arguments, a JSON array of strings */
        char url[512];           /* Streamable HTTP: the endpoint (http:// or https://) */
        char token_file[512];    /* HTTP: a file holding the bearer token (never logged) */
        char tool[128];          /* the tool called */
        char arguments[1024];    /* the tool's arguments: a JSON object; {query} {limit} {root} {repo} substituted */
        char result[512];        /* how its result becomes code hits (provider/mcpmap.h) */
        char repos[512];         /* the repo ids it answers for, comma-separated (required) */
        int timeout_ms;          /* per call (default 5000) */
        int max_items;           /* hits kept from one answer (default 100) */
        size_t max_bytes;        /* largest answer (default 1 MiB) */
    } mcp_providers[8];
};
#define MG_MCP_PROVIDERS_MAX 8

#define MG_WEBHOOK_SECRET_MIN 16 /* shorter secrets are refused: a signed delivery must not be brute-forced */

/* Fill c: defaults, the config file, the environment. */
int mg_config_load(struct mg_config *c, struct mg_err *err);
/* Every MEMGATE_* variable in the environment is a known one: MEMGATE_<KEY>
 * for a setting, or one of the others (MEMGATE_HOME, MEMGATE_CONFIG,
 * MEMGATE_MASTER_KEY, ..., the test seams and the test harnesses' own). 0,
 * or -1 with invalid_config naming the first unknown one and the closest
 * known name. */
int mg_config_check_env(struct mg_err *err);
/* Defaults only (home included). */
void mg_config_defaults(struct mg_config *c);
/* Apply config-file text; origin names it in errors. Exposed for tests and fuzzing. */
int mg_config_parse(struct mg_config *c, const char *text, size_t len, const char *origin, struct mg_err *err);
/* Set one key from its text value. */
int mg_config_set(struct mg_config *c, const char *key, const char *value, const char *origin, struct mg_err *err);
/* Walk an index_roots value: visit(ud, tenant, dir) for each `TENANT:DIR`
 * entry (separated by commas, spaces around them ignored) until visit returns
 * nonzero (that value is returned). A malformed entry is -1 with err
 * (invalid_config, naming origin): a tenant of 1-64 characters of
 * a-z 0-9 . _ -, a colon, an absolute directory. visit may be NULL (check only). */
int mg_index_roots_each(const char *value, const char *origin,
                        int (*visit)(void *ud, const char *tenant, const char *dir), void *ud, struct mg_err *err);
/* Walk a webhook_secrets value: visit(ud, tenant, secret) for each
 * `TENANT:SECRET` entry (separated by commas, spaces around them ignored)
 * until visit returns nonzero (that value is returned). A malformed entry is
 * -1 with err (invalid_config, naming origin and the tenant, never the
 * secret): a tenant as in index_roots, a colon, a secret of
 * MG_WEBHOOK_SECRET_MIN to 255 characters without commas; a tenant named
 * twice. visit may be NULL (check only). */
int mg_webhook_secrets_each(const char *value, const char *origin,
                            int (*visit)(void *ud, const char *tenant, const char *secret), void *ud,
                            struct mg_err *err);
/* The settings whose values differ between a and b: visit(ud, key) for
 * each, in the order of docs/config.md's table; returns how many. The
 * secret ones (embed_api_key, voyage_api_key, webhook_secret(s), mem0_api_key,
 * llm_api_key, vector_api_key) are named, never their values. */
size_t mg_config_diff(const struct mg_config *a, const struct mg_config *b, void (*visit)(void *ud, const char *key),
                      void *ud);
/* mcp_provider.NAME.KEY: set one key of provider NAME (made on first use);
 * 0, or -1 with invalid_config. mg_mcp_providers_check: every provider is
 * complete (a command or a url, not both; a tool; repos; a result mapping and
 * arguments that parse); called when a config file has been read. */
int mg_mcp_provider_set(struct mg_config *c, const char *key, const char *value, const char *origin,
                        struct mg_err *err);
int mg_mcp_providers_check(const struct mg_config *c, const char *origin, struct mg_err *err);
/* Whether the comma-separated list holds item[0..n) (spaces around entries
 * ignored; nocase: ASCII case-insensitively). */
bool mg_list_has(const char *list, const char *item, size_t n, bool nocase);
/* Does provider i of c answer for repo id (its repos name it)? */
bool mg_mcp_provider_serves(const struct mg_config *c, int i, const char *repo_id);
/* An external vector store (vector_store = chroma | qdrant) needs
 * allow_external_vectors = on, a http(s) vector_url and a prefix of a-z 0-9
 * - _; 0, or -1 with invalid_config saying what the switch means. Called by
 * mg_config_load and again where a store is opened. */
int mg_config_check_vectors(const struct mg_config *c, const char *origin, struct mg_err *err);
/* storage is sqlite or a postgres:// / postgresql:// URL: 0, or -1 with
 * invalid_config (the URL is never quoted whole: it may hold a password). */
int mg_config_check_storage(const struct mg_config *c, const char *origin, struct mg_err *err);
/* The external vector store's base URL: vector_url, else the store's
 * default (chroma http://127.0.0.1:8000, qdrant http://127.0.0.1:6333);
 * "" for builtin. */
const char *mg_config_vector_url(const struct mg_config *c);
/* Parse "1048576", "512k", "1M", "2G" into bytes; -1 on a bad value. */
int mg_parse_size(const char *s, size_t *out);

#endif
