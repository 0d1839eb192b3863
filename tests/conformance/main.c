/* main.c — memgate-conformance: the memgate command line with the MCP
 * conformance suite's fixtures added to its MCP server (fixtures.h), for the
 * suite's server scenarios (tests/node/conformance*.test.mjs):
 * `memgate-conformance serve --listen ADDR` and `memgate-conformance mcp`.
 * A test program, built by `make test`; never installed. */
#include "cli/cli.h"
#include "fixtures.h"

int main(int argc, char **argv)
{
    mg_mcp_extend(&mg_conformance_fixtures);
    return mg_cli_main(argc, argv);
}
