/* lre.c — PCRE2 programs compiled on first use (lre.h). */
#include "util/lre.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lre_mu = PTHREAD_MUTEX_INITIALIZER;

/* Compile l's source into l (the caller holds lre_mu or owns l alone). */
static pcre2_code *compile(struct mg_lre *l, char *why, size_t cap)
{
    int ec;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)l->src, PCRE2_ZERO_TERMINATED, l->opts, &ec, &off, NULL);
    if (!re) {
        l->bad = true;
        if (why) {
            char msg[200];
            pcre2_get_error_message(ec, (PCRE2_UCHAR *)msg, sizeof(msg));
            snprintf(why, cap, "does not compile at offset %zu: %s", (size_t)off, msg);
        }
        return NULL;
    }
    size_t jsize = 0;
    /* without JIT (an unsupported CPU) pcre2_match interprets */
    l->jit = l->jit_opts && pcre2_jit_compile(re, l->jit_opts) == 0 &&
             pcre2_pattern_info(re, PCRE2_INFO_JITSIZE, &jsize) == 0 && jsize > 0;
    atomic_store_explicit(&l->re, re, memory_order_release);
    return re;
}

int mg_lre_init(struct mg_lre *l, const char *src, uint32_t opts, uint32_t jit_opts, bool now, char *why, size_t cap)
{
    memset(l, 0, sizeof(*l));
    l->opts = opts;
    l->jit_opts = jit_opts;
    atomic_init(&l->re, NULL);
    if (!(l->src = strdup(src))) {
        if (why) snprintf(why, cap, "out of memory");
        return -2;
    }
    if (now && !compile(l, why, cap)) {
        mg_lre_release(l);
        return -1;
    }
    return 0;
}

const pcre2_code *mg_lre_get(struct mg_lre *l, bool *jit)
{
    pcre2_code *re = atomic_load_explicit(&l->re, memory_order_acquire);
    if (!re) {
        pthread_mutex_lock(&lre_mu);
        re = atomic_load_explicit(&l->re, memory_order_relaxed);
        if (!re && !l->bad) re = compile(l, NULL, 0);
        pthread_mutex_unlock(&lre_mu);
        if (!re) return NULL;
    }
    if (jit) *jit = l->jit;
    return re;
}

void mg_lre_release(struct mg_lre *l)
{
    pcre2_code_free(atomic_load_explicit(&l->re, memory_order_relaxed));
    free(l->src);
    memset(l, 0, sizeof(*l));
}
