/*
 * play_opts.c - the options `play` and `watch` share: which clip of which
 * asset, on which mesh, looping how, how fast, with what root motion, and
 * the stream's rate.  One parser, so the two commands read them alike.
 */
#include "client/animctl/animctl.h"

#include <stddef.h>

int ctl_play_args_apply(const char *cmd, const struct ctl_play_args *a, animc_play_opts *o)
{
	o->clip = a->clip;
	o->mesh = a->mesh;
	if (!!a->loop + !!a->once + !!a->pingpong > 1)
		return ctl_usage_error(cmd, "choose one of --loop, --once, --pingpong");
	o->loop = a->loop ? ANIMC_LOOP_LOOP : a->once ? ANIMC_LOOP_ONCE
		: a->pingpong ? ANIMC_LOOP_PINGPONG : ANIMC_LOOP_DEFAULT;
	if (a->speed != NULL && ctl_number(cmd, "--speed", a->speed, &o->speed) < 0)
		return EXIT_USAGE;
	if (a->start != NULL && ctl_number(cmd, "--start", a->start, &o->start) < 0)
		return EXIT_USAGE;
	if (a->root != NULL) {
		if (animc_root_motion_lookup(a->root) <= 0)
			return ctl_usage_error(cmd, "--root-motion is raw or in_place");
		o->root_motion = (animc_root_motion)animc_root_motion_lookup(a->root);
	}
	return 0;
}

int ctl_rate_apply(const char *cmd, const char *rate, animc_stream_opts *so)
{
	double v;

	if (rate == NULL)
		return 0;
	if (!ctl_is_number(rate, &v) || v < 0 || v > 1000)
		return ctl_usage_error(cmd, "--rate is 0..1000 Hz, not %s", escape_quoted(rate));
	so->rate_hz = (int)v;
	return 0;
}
