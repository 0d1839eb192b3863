/* err.h — user-facing errors: a stable code and a sentence.
 *
 * Functions that can fail take a `struct mg_err *` and return 0 on success or
 * -1 after filling it. The code is a stable, documented identifier (see
 * docs/errors.md) that scripts and agents can match on; the message is a
 * lower-case sentence that says what failed, quotes the subject, and tells the
 * user what to do. Example: repo_required / "several repos are indexed (a, b);
 * pass --repo ID".
 */
#ifndef MG_ERR_H
#define MG_ERR_H

#include <stddef.h>

/* Stable error codes. Keep docs/errors.md in step with this list. */
#define MG_E_USAGE          "usage"           /* bad command line */
#define MG_E_PATH_NOT_FOUND "path_not_found"  /* a path does not exist */
#define MG_E_NOT_A_DIR      "not_a_directory" /* index root is not a directory */
#define MG_E_PERMISSION     "permission_denied"
#define MG_E_IO             "io_error"        /* a read or write failed */
#define MG_E_DEPENDENCY_MISSING "dependency_missing" /* a library loaded on first use is not installed (util/dynlib.c) */
#define MG_E_NO_MEMORY      "out_of_memory"
#define MG_E_DB             "db_error"        /* SQLite or PostgreSQL reported an error */
#define MG_E_SCHEMA         "schema_too_new"  /* database written by a newer memgate */
/* the shared database (store/sql.h, store/pg.h: storage = postgres://...) */
#define MG_E_STORAGE_UNAVAILABLE "storage_unavailable" /* PostgreSQL cannot be reached, or the pool had no connection in time */
#define MG_E_STORAGE_CONFLICT "storage_conflict" /* a write collided with another's (unique key) */
#define MG_E_STORAGE_RETRY  "storage_retry"   /* a transaction lost to a concurrent one (serialization, deadlock) */
#define MG_E_INDEX_NOT_LOCAL "index_not_local" /* the shared catalog has the repo, this daemon has no index of it (yet) (503) */
#define MG_E_REPO_NOT_FOUND "repo_not_found"  /* no indexed repo has that id */
#define MG_E_REPO_REQUIRED  "repo_required"   /* several repos and none chosen */
#define MG_E_REPO_EXISTS    "repo_exists"     /* id or root already taken */
#define MG_E_NAME_INVALID   "name_invalid"    /* --name not [a-z0-9._-]{1,64} */
#define MG_E_QUERY_EMPTY    "query_empty"
#define MG_E_QUERY_TOO_LONG "query_too_long"  /* over max_query_bytes */
#define MG_E_QUERY_INVALID  "query_invalid"   /* not valid UTF-8 */
#define MG_E_BAD_REGEX      "invalid_regex"
#define MG_E_BAD_GLOB       "invalid_glob"
#define MG_E_BAD_LANG       "invalid_language"
#define MG_E_BAD_MODE       "invalid_mode"
#define MG_E_CONFIG         "invalid_config"  /* config file or MEMGATE_* value */
#define MG_E_LOCKED         "index_busy"      /* another index run holds the repo */
#define MG_E_INTERRUPTED    "interrupted"
#define MG_E_BAD_DIFF       "invalid_diff"    /* impact: a diff that does not parse, or over its caps */
#define MG_E_BAD_REVISION   "invalid_revision" /* impact: a revision git does not know, or a repo without git */
#define MG_E_BAD_ARG        "invalid_argument" /* a tool or API argument has the wrong type or value */
#define MG_E_SESSION_EXISTS "session_exists"  /* a chosen session id is taken */
#define MG_E_SESSION_NOT_FOUND "session_not_found" /* unknown session id */
#define MG_E_SESSION_EXPIRED "session_expired" /* the session idled past session_ttl */
#define MG_E_FILE_NOT_FOUND "file_not_found"  /* read_file, outline: no such file in the repo */
#define MG_E_PATH_OUTSIDE   "path_outside_repo" /* read_file, outline: '..', absolute, or a symlink out of the root */
#define MG_E_SECRET_FILE    "secret_file"     /* read_file, outline: a secret file (.env, keys, ...) is never served */
#define MG_E_NOT_TEXT       "not_text"        /* read_file: binary or too large */
#define MG_E_CLIENT_CONFIG  "client_config_invalid" /* setup: the MCP client's config file cannot be merged (not JSON, wrong shape) */
#define MG_E_UNSUPPORTED    "unsupported"     /* the client or channel cannot do what was asked */
#define MG_E_TIMEOUT        "timeout"         /* the client did not answer in time */
#define MG_E_CLIENT_ERROR   "client_error"    /* the client answered a server request with an error */
#define MG_E_INPUT_REQUIRED "input_required"  /* MCP 2026-07-28: the call needs the client's answer first (an InputRequiredResult) */
#define MG_E_HANDLE_INVALID "handle_invalid"  /* a `handle` argument that is unknown, expired or another tenant's */
/* memgate serve (src/http/server.c) */
#define MG_E_LISTEN_REFUSED "listen_refused"  /* serve: a non-loopback address while no token exists, or with require_tokens = never */
#define MG_E_LISTEN_FAILED  "listen_failed"   /* serve: cannot bind or start (port in use, ...) */
#define MG_E_HOST_FORBIDDEN "host_forbidden"  /* HTTP: Host is not a loopback name (DNS rebinding) */
#define MG_E_ORIGIN_FORBIDDEN "origin_forbidden" /* HTTP: Origin is not loopback nor in allowed_origins */
#define MG_E_BODY_TOO_LARGE "body_too_large"  /* HTTP: request body over http_max_body */
#define MG_E_ROUTE_NOT_FOUND "route_not_found" /* HTTP: no such path */
#define MG_E_METHOD_NOT_ALLOWED "method_not_allowed" /* HTTP: the path does not take that method */
#define MG_E_UNSUPPORTED_MEDIA "unsupported_media_type" /* HTTP: a body that is not Content-Type: application/json */
#define MG_E_NOT_ACCEPTABLE "not_acceptable"  /* HTTP: Accept allows neither JSON nor SSE */
#define MG_E_SESSION_REQUIRED "session_required" /* /mcp: no Mcp-Session-Id after initialize */
#define MG_E_PROTOCOL_VERSION "unsupported_protocol_version" /* /mcp: MCP-Protocol-Version not supported */
#define MG_E_SHUTTING_DOWN  "shutting_down"   /* HTTP: the server is stopping */
/* SecurityGate and authentication (src/security) */
#define MG_E_UNAUTHORIZED   "unauthorized"    /* HTTP: no bearer token where one is required (401) */
#define MG_E_SCOPE_FORBIDDEN "scope_forbidden" /* the token's scope (read/write/admin) is below the operation's (403) */
#define MG_E_REPO_FORBIDDEN "repo_forbidden"  /* the token's repo list does not include the repo (403) */
#define MG_E_ROOT_FORBIDDEN "root_forbidden"  /* a directory the index-root policy refuses (security/roots.h) (403) */
#define MG_E_CROSS_REPO     "cross_repo_denied" /* a request spans several repos while cross_repo is off (403) */
#define MG_E_REQUEST_MALFORMED "request_malformed" /* libmicrohttpd could not read the request's header (400/431) */
#define MG_E_SECRET_IN_IDENTIFIER "secret_in_identifier"  /* an identifier to store (key, id, project) holds a secret (400) */
#define MG_E_RATE_LIMITED   "rate_limited"    /* the token's request rate is over its limit (429) */
#define MG_E_TOO_MANY_CONNECTIONS "too_many_connections" /* a connection past http_max_per_address: closed unanswered, audited */
#define MG_E_HEADER_TOO_LARGE "header_too_large" /* HTTP: a header over 8 KiB, or all over 64 KiB (431) */
#define MG_E_TOKEN_IN_QUERY "token_in_query"  /* a token in the URL query string: never accepted (400) */
/* push webhooks (src/hook/, POST /v1/hooks/git) */
#define MG_E_WEBHOOKS_DISABLED "webhooks_disabled" /* POST /v1/hooks/git while webhook_secret is empty (404) */
#define MG_E_BAD_SIGNATURE  "bad_signature"   /* a webhook without a valid X-Hub-Signature-256 or X-Gitlab-Token (401) */
#define MG_E_WEBHOOK_REPLAYED "webhook_replayed" /* a webhook delivery id seen before (409) */
#define MG_E_PULL_REFUSED   "pull_refused"    /* pull_on_push: not a fast-forward, local changes, no upstream (409) */
#define MG_E_PULL_FAILED    "pull_failed"     /* pull_on_push: the fetch or the checkout failed (502) */
/* tokens and audit log (src/security/) */
#define MG_E_TOKEN_INVALID  "token_invalid"   /* malformed, unknown or wrong bearer token */
#define MG_E_TOKEN_REVOKED  "token_revoked"   /* the token was revoked */
#define MG_E_TOKEN_EXPIRED  "token_expired"   /* the token is past its expiry */
/* OAuth 2.1 access tokens from an OpenID provider (src/oauth/, docs/http.md); all 401 but oauth_unavailable */
#define MG_E_TOKEN_AUDIENCE "token_wrong_audience" /* a JWT whose aud does not name this server (oauth_resource) */
#define MG_E_TOKEN_ISSUER   "token_wrong_issuer"   /* a JWT whose iss is not oauth_issuer */
#define MG_E_TOKEN_ALG      "token_alg_refused"    /* a JWT with alg none, an HMAC (HS*) or an alg its key is not for */
#define MG_E_TOKEN_KEY      "token_key_unknown"    /* a JWT signed by a key the provider does not publish (after one refetch) */
#define MG_E_TOKEN_SIGNATURE "token_bad_signature" /* a JWT whose signature does not verify */
#define MG_E_TOKEN_CLAIMS   "token_claims_invalid" /* a JWT without exp or a tenant, not valid yet (nbf), or with a malformed claim */
#define MG_E_OAUTH_UNAVAILABLE "oauth_unavailable" /* the OpenID provider's discovery or keys cannot be fetched or read (503) */
/* the built-in authorization server (oauth_server = on: src/oauth/as.h); the OAuth error each maps to in () */
#define MG_E_OAUTH_REQUEST  "oauth_invalid_request"  /* a malformed or incomplete request (invalid_request, 400) */
#define MG_E_OAUTH_CLIENT   "oauth_invalid_client"   /* an unknown client_id, or its metadata document cannot be had (invalid_client, 401) */
#define MG_E_OAUTH_CLIENT_METADATA "oauth_client_metadata_invalid" /* a registration or metadata document refused (invalid_client_metadata, 400) */
#define MG_E_OAUTH_REDIRECT "oauth_redirect_mismatch" /* a redirect_uri the client did not register, or not the code's (400) */
#define MG_E_OAUTH_PKCE     "oauth_pkce_failed"      /* no S256 code_challenge, or a code_verifier that does not match it (invalid_grant, 400) */
#define MG_E_OAUTH_CODE_REUSED "oauth_code_reused"   /* an authorization code used before: its grant is revoked (invalid_grant, 400) */
#define MG_E_OAUTH_CODE_EXPIRED "oauth_code_expired" /* an authorization code older than oauth_code_ttl (invalid_grant, 400) */
#define MG_E_OAUTH_GRANT    "oauth_invalid_grant"    /* an unknown code or refresh token, or another client's (invalid_grant, 400) */
#define MG_E_OAUTH_REFRESH_REVOKED "oauth_refresh_revoked" /* a refresh token revoked, expired or used before (its grant is then revoked) (invalid_grant, 400) */
#define MG_E_OAUTH_SCOPE    "oauth_invalid_scope"    /* a scope with none of memgate's (invalid_scope, 400) */
#define MG_E_OAUTH_TARGET   "oauth_invalid_target"   /* a resource other than oauth_resource (RFC 8707 invalid_target, 400) */
#define MG_E_OAUTH_GRANT_TYPE "oauth_unsupported_grant_type" /* a grant_type other than authorization_code and refresh_token (400) */
#define MG_E_OAUTH_CONSENT  "oauth_consent_invalid"  /* a consent answer whose request is unknown, used or stale, or whose approver token is refused (400) */
#define MG_E_OAUTH_DENIED   "oauth_access_denied"    /* the operator denied the consent (access_denied, in the redirect) */
#define MG_E_TOKEN_NOT_FOUND "token_not_found" /* token revoke: no token has that id */
#define MG_E_AUDIT_INVALID  "audit_invalid"   /* audit --verify: a line is edited, removed, reordered or torn */
#define MG_E_AUDIT_TRUNCATED "audit_truncated" /* audit --verify: the log ends before its anchor, or differs from it */
/* secret scanner (src/security/scan.c) */
#define MG_E_BAD_RULES      "invalid_rules"   /* a secret rules file has an error; the sentence gives the line */
#define MG_E_TOO_LARGE      "input_too_large" /* the scanner was given more than it accepts in one call */
/* agent memory (src/memory) */
#define MG_E_NOTE_NOT_FOUND "note_not_found"  /* get_note: no note with that key in the repo */
#define MG_E_PROJECT_NOT_FOUND "project_not_found" /* no project of that name in the repo */
#define MG_E_PROJECT_EXISTS "project_exists"  /* create_project: the name is taken in the repo */
#define MG_E_PROVIDER_UNAVAILABLE "provider_unavailable" /* an external provider cannot be started or reached, times out (Mem0), died mid-call or answers badly (Mem0); a Mem0 write: nothing was stored */
/* semantic search (src/embed, src/vector) */
#define MG_E_EMBED_UNAVAILABLE "embed_unavailable" /* the embeddings endpoint cannot be reached, times out or fails (5xx) */
#define MG_E_EMBED_REJECTED "embed_rejected"  /* the endpoint refused the request (4xx: key, model, size) */
#define MG_E_EMBED_BAD_RESPONSE "embed_bad_response" /* the endpoint's answer is not a valid embeddings response */
#define MG_E_MODEL_INVALID "model_invalid" /* the code model file is missing, truncated, of other dimensions or fails its checksum */
#define MG_E_NO_EMBEDDINGS  "no_embeddings"   /* semantic search on a repo without current vectors */
#define MG_E_VECTOR_TAMPERED "vector_tampered" /* a stored vector blob fails authentication */
#define MG_E_KEY            "key_error"       /* the vector key file or MEMGATE_MASTER_KEY is unusable */
/* external vector stores (src/vector/vext.c: Chroma, Qdrant) */
#define MG_E_VSTORE_UNAVAILABLE "vector_store_unavailable" /* the store cannot be reached, times out or fails */
#define MG_E_VSTORE_BAD_RESPONSE "vector_store_bad_response" /* the store's answer is not what its API returns */
/* the repo map (src/search/repomap.c) */
#define MG_E_REPOMAP_UNAVAILABLE "repo_map_unavailable" /* the index predates the names the map needs: re-run index */
#define MG_E_FOCUS_NOT_FOUND "focus_not_found" /* repo_map: a focus file or symbol the map does not hold */
/* knowledge extraction (issue 21 part 5: extract_knowledge, util/llm.h) */
#define MG_E_LLM_NOT_CONFIGURED "llm_not_configured" /* no chat endpoint (llm_url) and the client cannot answer sampling (409) */
#define MG_E_LLM_UNAVAILABLE "llm_unavailable" /* the chat endpoint cannot be reached, times out or fails (429, 5xx) (503) */
#define MG_E_LLM_REJECTED   "llm_rejected"    /* the chat endpoint refused the request (4xx: key, model) (502) */
#define MG_E_LLM_BAD_RESPONSE "llm_bad_response" /* the completion is not what was asked for: not a chat answer, not a JSON list of notes (502) */
/* external MCP servers as code providers (provider/mcpc.h): a provider's failure; the request goes on without it */
#define MG_E_PROVIDER_TIMEOUT "provider_timeout" /* the external provider did not answer within its timeout */
#define MG_E_PROVIDER_BAD_RESPONSE "provider_bad_response" /* its answer is not what its mapping expects */
#define MG_E_PROVIDER_TOO_LARGE "provider_too_large" /* its answer is over the provider's max_bytes (a flood) */
#define MG_E_INTERNAL       "internal"

struct mg_err {
    const char *code; /* one of MG_E_*; NULL when no error is set */
    char msg[1024];   /* the sentence, without the code */
};

/* Set code and message (printf-style); always returns -1 so callers can
 * `return mg_err_set(...)`. A NULL err is allowed and ignored. */
int mg_err_set(struct mg_err *e, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* mg_err_set(e, MG_E_NO_MEMORY, "out of memory"): the one way to say it; returns -1. */
int mg_err_oom(struct mg_err *e);
void mg_err_clear(struct mg_err *e);
/* "error[code]: message" on stderr. */
void mg_err_print(const struct mg_err *e);

#endif
