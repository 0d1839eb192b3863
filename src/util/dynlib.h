/* dynlib.h — libcurl, libgit2 and libmicrohttpd are loaded when first
 * called (dynlib.c defines their functions and forwards): commands that
 * use none of them do not pay for the ~35 libraries they bring. */
#ifndef MG_DYNLIB_H
#define MG_DYNLIB_H

#include <stdbool.h>

/* Has the library whose soname starts with soname_prefix ("libcurl",
 * "libgit2", "libmicrohttpd") been loaded in this process? (For the tests.) */
bool mg_dynlib_loaded(const char *soname_prefix);

#endif
