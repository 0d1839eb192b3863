/* version.h — `memgate --version` (version.c). */
#ifndef MG_CLI_VERSION_H
#define MG_CLI_VERSION_H

/* --version / -V [--json]: the memgate version, the git commit the binary
 * was built from and the linked libraries' versions; the exit status. */
int mg_cmd_version(int argc, char **argv);

#endif
