/* config_int.h — what config.c (the table of settings, parsing, checks) and
 * config_load.c (the file and the environment) share. Not for other modules.
 */
#ifndef MG_CONFIG_INT_H
#define MG_CONFIG_INT_H

#include <stddef.h>

#include "util/config.h"

/* The settings' names, in the table's order: mg__config_key(i) for
 * i < mg__config_nkeys(). */
size_t mg__config_nkeys(void);
const char *mg__config_key(size_t i);

#endif
