/* err.c — see err.h. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

int mg_err_set(struct mg_err *e, const char *code, const char *fmt, ...)
{
    if (!e) return -1;
    va_list ap;
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int mg_err_oom(struct mg_err *e) { return mg_err_set(e, MG_E_NO_MEMORY, "out of memory"); }

void mg_err_clear(struct mg_err *e)
{
    if (!e) return;
    e->code = NULL;
    e->msg[0] = 0;
}

void mg_err_print(const struct mg_err *e)
{
    fprintf(stderr, "error[%s]: %s\n", e->code ? e->code : MG_E_INTERNAL, e->msg);
}
