/* soak_clock.c - the one clock every soak process agrees on. */
#include <time.h>

#include "tests/soak/soak.h"

int64_t soak_clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void soak_clock_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* A signal cuts the pause short; callers only pace themselves with it. */
	nanosleep(&ts, NULL);
}
