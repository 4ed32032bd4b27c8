/*
 * watch_stack.c - the layer stack `animctl watch` shows beside the pose:
 * a snapshot of what the daemon reported (play, a fade, instances.list),
 * with each fading weight carried forward on the local clock between
 * snapshots, so the line moves smoothly without a call per frame.
 */
#include "client/animctl/animctl.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

double watch_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src != NULL ? src : "-");
}

void watch_stack_playing(const animc_instance *in, const char **asset, const char **clip)
{
	*asset = in->asset;
	*clip = in->clip;
	for (size_t i = 0; i < in->layer_count; i++)
		if (in->layers[i].mode != NULL && strcmp(in->layers[i].mode, "fade") == 0) {
			*asset = in->layers[i].asset;
			*clip = in->layers[i].clip;
		}
}

void watch_stack_take(struct watch_stack *s, const animc_instance *in)
{
	const char *asset, *clip;

	copy_name(s->asset, sizeof s->asset, in->asset);
	copy_name(s->clip, sizeof s->clip, in->clip);
	watch_stack_playing(in, &asset, &clip);
	snprintf(s->playing, sizeof s->playing, "%s#%s", asset != NULL ? asset : "-",
		 clip != NULL ? clip : "-");
	s->total = in->layer_count;
	s->count = in->layer_count < WATCH_STACK_MAX ? in->layer_count : WATCH_STACK_MAX;
	for (size_t i = 0; i < s->count; i++) {
		const animc_layer *l = &in->layers[i];
		struct watch_layer *d = &s->layers[i];

		d->id = l->id;
		copy_name(d->mode, sizeof d->mode, l->mode);
		copy_name(d->clip, sizeof d->clip, l->clip);
		d->weight = l->weight;
		d->target = l->target;
		d->fade_left = l->fade_left;
		d->removing = l->removing != 0;
		d->masked = l->mask_count > 0;
	}
	s->at = watch_now();
}

double watch_stack_weight(const struct watch_stack *s, size_t i, double now)
{
	const struct watch_layer *l = &s->layers[i];
	double k;

	if (!(l->fade_left > 0))
		return l->target;
	k = (now - s->at) / l->fade_left;
	if (k >= 1)
		return l->target;
	if (k <= 0)
		return l->weight;
	return l->weight + (l->target - l->weight) * k;
}

bool watch_stack_fading(const struct watch_stack *s, double now)
{
	for (size_t i = 0; i < s->count; i++)
		if (s->layers[i].fade_left > 0 && now - s->at < s->layers[i].fade_left)
			return true;
	return false;
}

/* "walk | fade run 0.42 -> 1 | override wave [mask] 0.50" */
void watch_stack_text(const struct watch_stack *s, double now, char *out, size_t len)
{
	size_t at = 0;
	int n = snprintf(out, len, "%s", escape_text(s->clip));

	for (size_t i = 0; i < s->count && n >= 0 && (size_t)n < len - at; i++) {
		const struct watch_layer *l = &s->layers[i];
		double w = watch_stack_weight(s, i, now);

		at += (size_t)n;
		if (l->fade_left > 0 && w != l->target)
			n = snprintf(out + at, len - at, " | %s %s%s %.2f -> %g%s", l->mode,
				     escape_text(l->clip), l->masked ? " [mask]" : "", w, l->target,
				     l->removing ? " (removing)" : "");
		else
			n = snprintf(out + at, len - at, " | %s %s%s %.2f", l->mode,
				     escape_text(l->clip), l->masked ? " [mask]" : "", w);
	}
	if (s->total > s->count && n >= 0 && (size_t)n < len - at)
		snprintf(out + at + (size_t)n, len - at - (size_t)n, " | ... %zu more",
			 s->total - s->count);
}

void watch_stack_json(struct json *j, const struct watch_stack *s, double now)
{
	json_kstr(j, "asset", s->asset);
	json_kstr(j, "clip", s->clip);
	json_key(j, "layers");
	json_arr(j);
	for (size_t i = 0; i < s->count; i++) {
		const struct watch_layer *l = &s->layers[i];

		json_obj(j);
		json_kuint(j, "id", l->id);
		json_kstr(j, "mode", l->mode);
		json_kstr(j, "clip", l->clip);
		json_knum(j, "weight", watch_stack_weight(s, i, now));
		json_knum(j, "target", l->target);
		json_kbool(j, "masked", l->masked);
		json_kbool(j, "removing", l->removing);
		json_obj_end(j);
	}
	json_arr_end(j);
}
