/* clock.h — the monotonic clock, for durations (never for dates). */
#ifndef MG_CLOCK_H
#define MG_CLOCK_H

double mg_clock_s(void);  /* seconds */
double mg_clock_ms(void); /* milliseconds */

#endif
