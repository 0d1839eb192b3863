/* clock.c — the monotonic clock (clock.h). */
#include "util/clock.h"

#include <time.h>

double mg_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double mg_clock_ms(void) { return mg_clock_s() * 1e3; }
