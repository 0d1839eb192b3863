/* mcpcode.h — an external MCP server as a code provider (docs/providers.md,
 * "External MCP servers as code providers").
 *
 * It implements the search member of struct mg_code_ops only (the others
 * are NULL; nothing calls them): for each of pcall's repos that the
 * provider's `repos` names (and only those), it calls the configured tool
 * with the arguments template filled in (util/mcpmap.h) and turns the
 * answer into mg_code_hit items owned by that repo, their `provider` label
 * its name. A hit's path is made relative to the repo root: an absolute
 * path must resolve (symlinks too) inside the root, a relative one is taken
 * from the root; a path that does not resolve to a file inside the root, a
 * secret file (index/walk.h: mg_is_secret_name) or one under .git/, or
 * that the request's scope does not allow (its globs and excludes; with a
 * languages filter every external hit, as their language is not known), is
 * dropped and counted in out->ext_dropped, never served. At most
 * max_items hits (and the query's limit) are kept; out->total counts every
 * hit the answers held. Failures are the
 * client's (util/mcpc.h): provider_timeout, provider_unavailable,
 * provider_bad_response, provider_too_large.
 */
#ifndef MG_MCPCODE_H
#define MG_MCPCODE_H

#include "provider/provider.h"

/* Open provider cfg->mcp_providers[i] into out (name: its name). */
int mg_mcp_code_open(const struct mg_config *cfg, int i, struct mg_code_provider *out, struct mg_err *err);

#endif
