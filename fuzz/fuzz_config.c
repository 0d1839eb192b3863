/* fuzz_config.c — the config file parser on hostile input. */
#include "fuzz.h"
#include "util/config.h"

MG_FUZZ_TARGET(config)
{
    struct mg_config c;
    struct mg_err err;
    mg_config_defaults(&c);
    mg_config_parse(&c, (const char *)data, size, "fuzz", &err);
    return 0;
}
