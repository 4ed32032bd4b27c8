/*
 * sampling_layers.c - the layer stack of an on-demand sample: each layer's
 * clip sampled at its time (and an additive layer's reference pose), its
 * mask resolved by joint name, then blend.h's math.  Allocates its
 * scratch per call: this is the on-demand path, not the streaming one.
 */
#include "daemon/assets/sampling_layers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/anim/blend.h"

/* One clip of the stack at `seconds`, as the request plays its own. */
static void layers_sample_clip(const struct sample_request *req, const struct clip *c,
			       double seconds, struct transform *out)
{
	enum loop_mode mode = req->loop_set ? req->loop : c->loop;
	struct clip_time ct = clip_map_time(c, time_from_seconds(seconds), mode);

	clip_sample_at(c, ct.t_ns, time_from_seconds(seconds), out);
	clip_apply_root_motion(c, req->root_motion, &ct, out);
}

/* The clip `name` of `a`, checked to drive skel. */
static int layers_find_clip(const struct asset *a, const char *name, const struct skeleton *skel,
			    uint32_t index, const struct clip **out, char *err, size_t errlen)
{
	const struct clip *c;
	char why[256];

	if (a->clip_count == 0) {
		snprintf(err, errlen, "layer %u: %s has no clips", index, a->name);
		return -EINVAL;
	}
	c = asset_find_clip(a, name);
	if (c == NULL) {
		snprintf(err, errlen, "layer %u: %s has no clip named \"%s\"", index, a->name,
			 name ? name : "");
		return -ENOENT;
	}
	if (a->skeleton != NULL && a->skeleton != skel &&
	    skeleton_check_binding(a->skeleton, skel, why, sizeof why) < 0) {
		snprintf(err, errlen, "layer %u: %s does not fit the pose's skeleton: %s", index,
			 a->name, why);
		return -EINVAL;
	}
	if (c->joint_count != skel->joint_count) {
		snprintf(err, errlen, "layer %u: clip \"%s\" has %u joints, the pose %u", index,
			 c->name, c->joint_count, skel->joint_count);
		return -EINVAL;
	}
	*out = c;
	return 0;
}

/* The layer's per-joint weights into mask (NULL when it has no mask). */
static int layers_mask(const struct sample_layer *l, const struct skeleton *skel, uint32_t index,
		       uint32_t *roots, float *mask, const float **out, char *err, size_t errlen)
{
	*out = NULL;
	if (l->mask_count == 0)
		return 0;
	if (l->mask_count > skel->joint_count) {
		snprintf(err, errlen, "layer %u: a mask of %u joints on a skeleton of %u", index,
			 l->mask_count, skel->joint_count);
		return -EINVAL;
	}
	for (uint32_t k = 0; k < l->mask_count; k++) {
		int32_t j = skeleton_find(skel, l->mask_joints[k]);

		if (j < 0) {
			snprintf(err, errlen, "layer %u: mask: no joint named \"%s\"", index,
				 l->mask_joints[k]);
			return -ENOENT;
		}
		roots[k] = (uint32_t)j;
	}
	if (blend_mask_build(skel, l->mask_count, roots, l->mask_weights, mask) < 0) {
		snprintf(err, errlen, "layer %u: mask weights are in [0, 1]", index);
		return -EINVAL;
	}
	*out = mask;
	return 0;
}

int sampling_layers_apply(const struct sample_request *req, const struct skeleton *skel,
			  struct transform *pose, char *err, size_t errlen)
{
	uint32_t n = skel->joint_count;
	struct transform *layer = NULL, *ref = NULL;
	uint32_t *roots = NULL;
	float *mask = NULL;
	int rc = 0;

	if (req->layer_count > SAMPLE_MAX_LAYERS) {
		snprintf(err, errlen, "%u layers: at most %u", req->layer_count, SAMPLE_MAX_LAYERS);
		return -EINVAL;
	}
	layer = malloc((size_t)n * sizeof *layer + 1);
	ref = malloc((size_t)n * sizeof *ref + 1);
	roots = malloc((size_t)n * sizeof *roots + 1);
	mask = malloc((size_t)n * sizeof *mask + 1);
	if (layer == NULL || ref == NULL || roots == NULL || mask == NULL) {
		snprintf(err, errlen, "%s: out of memory", req->asset->name);
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < req->layer_count; i++) {
		const struct sample_layer *l = &req->layers[i];
		const struct asset *a = l->asset ? l->asset : req->asset;
		const struct clip *c = NULL, *ref_c;
		const float *m = NULL;

		if (!(l->weight >= 0.0f && l->weight <= 1.0f)) {
			snprintf(err, errlen, "layer %u: the weight is in [0, 1]", i);
			rc = -EINVAL;
			goto out;
		}
		rc = layers_find_clip(a, l->clip, skel, i, &c, err, errlen);
		if (rc == 0)
			rc = layers_mask(l, skel, i, roots, mask, &m, err, errlen);
		if (rc < 0)
			goto out;
		layers_sample_clip(req, c, l->time, layer);
		if (l->mode == SAMPLE_LAYER_OVERRIDE) {
			blend_override(pose, layer, n, l->weight, m);
			continue;
		}
		ref_c = c;
		if (l->ref_clip != NULL) {
			rc = layers_find_clip(a, l->ref_clip, skel, i, &ref_c, err, errlen);
			if (rc < 0)
				goto out;
		}
		layers_sample_clip(req, ref_c, l->ref_time, ref);
		blend_additive(pose, layer, ref, n, l->weight, m);
	}
out:
	free(layer);
	free(ref);
	free(roots);
	free(mask);
	return rc;
}
