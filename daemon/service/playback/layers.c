/*
 * layers.c - an instance's layer stack (layers.h): building layers,
 * fading their weights, promoting a finished cross-fade to the base,
 * rebinding on reload, and applying the stack to a pose.
 */
#include "daemon/service/playback/layers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/blend.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/playback/instances.h"

const char *const layer_mode_names[LAYER_MODE_COUNT] = {
	[LAYER_OVERRIDE] = "override",
	[LAYER_ADDITIVE] = "additive",
	[LAYER_FADE] = "fade",
};

uint32_t layers_joint_count(const struct instance *in)
{
	return in->clip != NULL ? in->clip->joint_count : 0;
}

float layers_weight_at(const struct layer *l, int64_t now)
{
	double k;

	if (!l->fading || now >= l->fade_end_ns)
		return l->to;
	if (now <= l->fade_start_ns)
		return l->from;
	k = (double)(now - l->fade_start_ns) / (double)(l->fade_end_ns - l->fade_start_ns);
	return (float)(l->from + (l->to - l->from) * k);
}

static void layers_free_one(struct layer *l)
{
	if (l == NULL)
		return;
	asset_unref(l->asset);
	free(l->asset_name);
	free(l->clip_name);
	free(l->mask_roots);
	free(l->mask_root_weights);
	free(l->mask);
	free(l->ref);
	free(l->ref_clip_name);
	free(l);
}

/* The reference pose of an additive layer: its clip at its time. */
static void layers_sample_ref(struct layer *l, const struct clip *ref)
{
	struct clip_time ct = clip_map_time(ref, l->ref_time_ns, ref->loop);

	clip_sample_at(ref, ct.t_ns, l->ref_time_ns, l->ref);
}

/* The per-joint weights of l's mask over the skeleton of its clip. */
static int layers_build_mask(struct layer *l, const struct skeleton *s)
{
	if (l->mask_count == 0)
		return 0;
	return blend_mask_build(s, l->mask_count, l->mask_roots, l->mask_root_weights, l->mask);
}

/* The skeleton of the instance's pose, whose hierarchy masks follow. */
static const struct skeleton *layers_skeleton(const struct instance *in)
{
	return in->mesh != NULL ? in->mesh->skeleton : in->asset->skeleton;
}

int layers_push(struct instance *in, const struct layer_spec *spec, uint32_t *id_out)
{
	uint32_t n = spec->clip->joint_count;
	struct layer *l = calloc(1, sizeof *l);
	struct layer **grown;
	int64_t now = clock_now_ns();
	uint32_t at;

	if (l == NULL)
		return -ENOMEM;
	l->mode = spec->mode;
	l->asset_name = strdup(spec->asset_name);
	l->clip_name = strdup(spec->clip->name);
	if (l->asset_name == NULL || l->clip_name == NULL)
		goto oom;
	if (spec->mask_count > 0) {
		l->mask_count = spec->mask_count;
		l->mask_roots = malloc(spec->mask_count * sizeof *l->mask_roots);
		l->mask_root_weights = malloc(spec->mask_count * sizeof *l->mask_root_weights);
		l->mask = malloc((size_t)n * sizeof *l->mask + 1);
		if (l->mask_roots == NULL || l->mask_root_weights == NULL || l->mask == NULL)
			goto oom;
		memcpy(l->mask_roots, spec->mask_roots, spec->mask_count * sizeof *l->mask_roots);
		for (uint32_t k = 0; k < spec->mask_count; k++)
			l->mask_root_weights[k] = spec->mask_weights ? spec->mask_weights[k] : 1.0f;
		if (layers_build_mask(l, layers_skeleton(in)) < 0)
			goto oom;       /* the caller checked the roots and weights */
	}
	if (spec->mode == LAYER_ADDITIVE) {
		l->ref = malloc((size_t)n * sizeof *l->ref + 1);
		if (l->ref == NULL)
			goto oom;
		if (spec->ref_clip != NULL && spec->ref_clip != spec->clip) {
			l->ref_clip_name = strdup(spec->ref_clip->name);
			if (l->ref_clip_name == NULL)
				goto oom;
		}
		l->ref_time_ns = spec->ref_time_ns;
		layers_sample_ref(l, spec->ref_clip ? spec->ref_clip : spec->clip);
	}
	grown = realloc(in->layers, (in->layer_count + 1) * sizeof *grown);
	if (grown == NULL)
		goto oom;
	in->layers = grown;
	l->asset = asset_ref(spec->asset);
	l->generation = spec->generation;
	l->clip = spec->clip;
	l->loop = spec->loop;
	/* One reading: a layer added to a paused instance is exactly at its
	 * start. */
	playback_start(&l->clock, now, spec->start_ns, spec->speed);
	if (!in->clock.playing)
		playback_pause(&l->clock, now);
	l->id = ++in->next_layer_id;
	l->to = spec->weight;
	if (spec->fade_ns > 0) {
		l->from = 0.0f;
		l->fading = true;
		l->fade_start_ns = now;
		l->fade_end_ns = l->fade_start_ns + spec->fade_ns;
	} else {
		l->from = spec->weight;
	}
	/* Fades sit together at the bottom, in the order they began. */
	at = spec->mode == LAYER_FADE ? in->fade_count++ : in->layer_count;
	memmove(in->layers + at + 1, in->layers + at, (in->layer_count - at) * sizeof *in->layers);
	in->layers[at] = l;
	in->layer_count++;
	*id_out = l->id;
	return 0;
oom:
	layers_free_one(l);
	return -ENOMEM;
}

struct layer *layers_find(struct instance *in, uint32_t id)
{
	for (uint32_t i = 0; i < in->layer_count; i++)
		if (in->layers[i]->id == id)
			return in->layers[i];
	return NULL;
}

void layers_set_weight(struct layer *l, float weight, int64_t fade_ns)
{
	int64_t now = clock_now_ns();

	l->from = layers_weight_at(l, now);
	l->to = weight;
	l->fading = fade_ns > 0;
	l->fade_start_ns = now;
	l->fade_end_ns = now + fade_ns;
	if (!l->fading)
		l->from = weight;
}

void layers_drop(struct instance *in, uint32_t i)
{
	struct layer *l = in->layers[i];

	if (l->mode == LAYER_FADE)
		in->fade_count--;
	memmove(in->layers + i, in->layers + i + 1, (in->layer_count - i - 1) * sizeof *in->layers);
	in->layer_count--;
	layers_free_one(l);
}

void layers_remove(struct instance *in, struct layer *l, int64_t fade_ns)
{
	if (fade_ns > 0) {
		layers_set_weight(l, 0.0f, fade_ns);
		l->removing = true;
		return;
	}
	for (uint32_t i = 0; i < in->layer_count; i++)
		if (in->layers[i] == l) {
			layers_drop(in, i);
			return;
		}
}

void layers_promote(struct instance *in, uint32_t i)
{
	struct layer *l = in->layers[i];

	/* The layer's asset reference, names and clock become the base's. */
	asset_unref(in->asset);
	free(in->asset_name);
	free(in->clip_name);
	in->asset = l->asset;
	in->asset_name = l->asset_name;
	in->clip_name = l->clip_name;
	in->clip = l->clip;
	in->generation = l->generation;
	in->clock = l->clock;
	in->loop = l->loop;
	in->ended = false;
	l->asset = NULL;
	l->asset_name = l->clip_name = NULL;
	/* It and every fade below it (i + 1 of them) leave the stack. */
	for (uint32_t k = 0; k <= i; k++)
		layers_free_one(in->layers[k]);
	memmove(in->layers, in->layers + i + 1, (in->layer_count - i - 1) * sizeof *in->layers);
	in->layer_count -= i + 1;
	in->fade_count -= i + 1;
}

void layers_free_all(struct instance *in)
{
	for (uint32_t i = 0; i < in->layer_count; i++)
		layers_free_one(in->layers[i]);
	free(in->layers);
	in->layers = NULL;
	in->layer_count = in->fade_count = 0;
}

void layers_apply(const struct instance *in, int64_t now, struct transform *pose,
		  struct transform *scratch)
{
	uint32_t n = layers_joint_count(in);

	for (uint32_t i = 0; i < in->layer_count; i++) {
		const struct layer *l = in->layers[i];
		float w = layers_weight_at(l, now);
		int64_t t;
		struct clip_time ct;

		if (!(w > 0.0f))
			continue;
		t = playback_time(&l->clock, now);
		ct = clip_map_time(l->clip, t, l->loop);
		clip_sample_at(l->clip, ct.t_ns, t, scratch);
		clip_apply_root_motion(l->clip, in->root_motion, &ct, scratch);
		if (l->mode == LAYER_ADDITIVE)
			blend_additive(pose, scratch, l->ref, n, w, l->mask);
		else
			blend_override(pose, scratch, n, w, l->mask);
	}
}

void layers_pause(struct instance *in, int64_t now)
{
	for (uint32_t i = 0; i < in->layer_count; i++)
		playback_pause(&in->layers[i]->clock, now);
}

void layers_resume(struct instance *in, int64_t now)
{
	for (uint32_t i = 0; i < in->layer_count; i++)
		playback_resume(&in->layers[i]->clock, now);
}

int64_t layers_next_deadline(const struct instance *in)
{
	int64_t at = INT64_MAX;

	for (uint32_t i = 0; i < in->layer_count; i++) {
		const struct layer *l = in->layers[i];

		if (l->fading && l->fade_end_ns < at)
			at = l->fade_end_ns;
	}
	return at;
}

bool layers_use(const struct instance *in, const char *name)
{
	for (uint32_t i = 0; i < in->layer_count; i++)
		if (strcmp(in->layers[i]->asset_name, name) == 0)
			return true;
	return false;
}

int layers_rebind(struct instance *in, const char *name, struct asset *asset, uint64_t generation,
		  const char **code, char *message, size_t len)
{
	char why[256];

	for (uint32_t i = 0; i < in->layer_count; i++) {
		struct layer *l = in->layers[i];
		const struct clip *c, *ref = NULL;

		if (strcmp(l->asset_name, name) != 0)
			continue;
		if (asset == NULL) {
			*code = "asset_removed";
			snprintf(message, len, "asset %s of layer %u was removed", name, l->id);
			return -1;
		}
		if (l->asset->skeleton != NULL && asset->skeleton != NULL &&
		    skeleton_check_binding(l->asset->skeleton, asset->skeleton, why, sizeof why) < 0) {
			*code = "skeleton_changed";
			snprintf(message, len, "the skeleton of %s (layer %u) changed shape: %s", name,
				 l->id, why);
			return -1;
		}
		c = asset_find_clip(asset, l->clip_name);
		if (c != NULL && l->ref_clip_name != NULL)
			ref = asset_find_clip(asset, l->ref_clip_name);
		if (c == NULL || (l->ref_clip_name != NULL && ref == NULL)) {
			*code = "clip_removed";
			snprintf(message, len, "clip \"%s\" of layer %u is no longer in %s",
				 c == NULL ? l->clip_name : l->ref_clip_name, l->id, name);
			return -1;
		}
		if (c->joint_count != layers_joint_count(in)) {
			*code = "skeleton_changed";
			snprintf(message, len, "clip \"%s\" of layer %u has %u joints, the instance %u",
				 l->clip_name, l->id, c->joint_count, layers_joint_count(in));
			return -1;
		}
	}
	/* Every layer fits: swap them all. */
	for (uint32_t i = 0; i < in->layer_count; i++) {
		struct layer *l = in->layers[i];

		if (strcmp(l->asset_name, name) != 0)
			continue;
		asset_unref(l->asset);
		l->asset = asset_ref(asset);
		l->generation = generation;
		l->clip = asset_find_clip(asset, l->clip_name);
		if (l->ref != NULL)
			layers_sample_ref(l, l->ref_clip_name ? asset_find_clip(asset, l->ref_clip_name)
							      : l->clip);
	}
	return 0;
}

uint64_t layers_bytes(const struct instance *in)
{
	uint32_t n = layers_joint_count(in);
	uint64_t b = in->layers != NULL ? in->layer_count * sizeof *in->layers : 0;

	for (uint32_t i = 0; i < in->layer_count; i++) {
		const struct layer *l = in->layers[i];

		b += sizeof *l + strlen(l->asset_name) + 1 + strlen(l->clip_name) + 1;
		if (l->mask_count > 0)
			b += l->mask_count * (sizeof *l->mask_roots + sizeof *l->mask_root_weights) +
			     (size_t)n * sizeof *l->mask + 1;
		if (l->ref != NULL)
			b += (size_t)n * sizeof *l->ref + 1;
		if (l->ref_clip_name != NULL)
			b += strlen(l->ref_clip_name) + 1;
	}
	return b;
}
