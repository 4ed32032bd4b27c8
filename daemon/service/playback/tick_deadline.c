#include "daemon/service/playback/tick_deadline.h"

void tick_deadline_start(struct tick_deadline *d, int64_t now, int64_t period_ns)
{
	d->period_ns = period_ns;
	d->next_ns = now + period_ns;
	d->late = 0;
	d->skipped = 0;
}

uint64_t tick_deadline_after_tick(struct tick_deadline *d, int64_t now)
{
	int64_t behind;

	d->next_ns += d->period_ns;
	if (d->next_ns > now)
		return (uint64_t)((d->next_ns - now + 999999) / 1000000);
	/* Late: this deadline's tick runs next, at once; only the deadlines
	 * before it that are a period or more behind are passed over, so
	 * at most one tick is ever owed. */
	behind = (now - d->next_ns) / d->period_ns;
	d->skipped += (uint64_t)behind;
	d->next_ns += behind * d->period_ns;
	d->late++;
	return 0;
}
