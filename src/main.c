/* main.c — the memgate command line: dispatch to src/cli/. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return mg_cli_main(argc, argv);
}
