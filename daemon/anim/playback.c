#include "daemon/anim/playback.h"

#include <math.h>

/* Saturating conversion of a product of nanoseconds and a speed. */
static int64_t playback_scale(int64_t dt, double speed)
{
	double v;

	if (speed == 1.0)
		return dt;
	if (speed == -1.0)
		return dt == INT64_MIN ? INT64_MAX : -dt;
	v = (double)dt * speed;
	if (!(v < 9.2e18))
		return v != v ? 0 : INT64_MAX;
	if (!(v > -9.2e18))
		return INT64_MIN;
	return (int64_t)llround(v);
}

static int64_t playback_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

void playback_start(struct playback *p, int64_t now_ns, int64_t start_ns, double speed)
{
	p->anchor_clock_ns = now_ns;
	p->anchor_time_ns = start_ns;
	p->speed = isfinite(speed) ? speed : 1.0;
	p->playing = 1;
}

int64_t playback_time(const struct playback *p, int64_t now_ns)
{
	if (!p->playing)
		return p->anchor_time_ns;
	return playback_add(p->anchor_time_ns, playback_scale(now_ns - p->anchor_clock_ns, p->speed));
}

static void playback_reanchor(struct playback *p, int64_t now_ns)
{
	p->anchor_time_ns = playback_time(p, now_ns);
	p->anchor_clock_ns = now_ns;
}

void playback_pause(struct playback *p, int64_t now_ns)
{
	playback_reanchor(p, now_ns);
	p->playing = 0;
}

void playback_resume(struct playback *p, int64_t now_ns)
{
	playback_reanchor(p, now_ns);
	p->playing = 1;
}

void playback_seek(struct playback *p, int64_t now_ns, int64_t time_ns)
{
	p->anchor_clock_ns = now_ns;
	p->anchor_time_ns = time_ns;
}

void playback_set_speed(struct playback *p, int64_t now_ns, double speed)
{
	playback_reanchor(p, now_ns);
	if (isfinite(speed))
		p->speed = speed;
}

int64_t playback_clock_at(const struct playback *p, int64_t time_ns)
{
	double dt;

	if (!p->playing || p->speed == 0.0)
		return INT64_MAX;
	dt = ((double)time_ns - (double)p->anchor_time_ns) / p->speed;
	if (dt < 0)
		return p->anchor_time_ns == time_ns ? p->anchor_clock_ns : INT64_MAX;
	if (dt > 9.2e18 - (double)p->anchor_clock_ns)
		return INT64_MAX;
	return p->anchor_clock_ns + (int64_t)ceil(dt);
}
