/*
 * gltf_anim.c - animations (spec 3.11, 5.4-5.7).
 *
 * A channel names a sampler of its animation and a target: a node and a
 * path (translation, rotation, scale, weights).  A sampler's input is
 * SCALAR floats (seconds); its output VEC3 (translation, scale), VEC4
 * (rotation: floats or normalised bytes or shorts) or SCALAR (weights),
 * with input count x (3 for CUBICSPLINE: in-tangent, value, out-tangent)
 * x (the node's mesh's morph targets, for weights) elements.  The times
 * themselves are checked in gltf_finish.  What animates nothing is noted
 * and left out: a channel without a node (3.11: "ignored"), a path animd
 * does not know (an extension's), weights on a node without morph
 * targets, a second channel on the same node and path (the first holds),
 * a sampler no channel uses (its input still counts for the duration).
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const path_names[] = {
	[GLTF_PATH_TRANSLATION] = "translation",
	[GLTF_PATH_ROTATION] = "rotation",
	[GLTF_PATH_SCALE] = "scale",
	[GLTF_PATH_WEIGHTS] = "weights",
};

static int parse_sampler(struct gltf_ctx *c, gv o, const struct gltf_where *w,
			 struct gltf_sampler *s)
{
	const struct gltf_model *m = c->m;
	struct gltf_where wi = gw_key(*w, "input");
	const char *interp;
	int32_t input, output;

	if (!(gv_kind_of(c, o) == GV_OBJECT))
		return gltf_error(c, w, "a sampler must be an object");
	if (gj_index(c, w, o, "input", m->accessor_count, "accessor", true, &input) < 0 ||
	    gj_index(c, w, o, "output", m->accessor_count, "accessor", true, &output) < 0 ||
	    gj_string(c, w, o, "interpolation", false, &interp) < 0)
		return -EINVAL;
	if (interp == NULL || strcmp(interp, "LINEAR") == 0) {
		s->interp = GLTF_INTERP_LINEAR;
	} else if (strcmp(interp, "STEP") == 0) {
		s->interp = GLTF_INTERP_STEP;
	} else if (strcmp(interp, "CUBICSPLINE") == 0) {
		s->interp = GLTF_INTERP_CUBICSPLINE;
	} else {
		struct gltf_where at = gw_key(*w, "interpolation");

		return gltf_error(c, &at, "\"%s\" is not LINEAR, STEP or CUBICSPLINE", interp);
	}
	if (m->accessors[input].type != GLTF_SCALAR || m->accessors[input].component != GLTF_FLOAT)
		return gltf_error(c, &wi, "accessor %" PRId32 " must be SCALAR floats (seconds)",
				  input);
	if (m->accessors[input].count == 0)
		return gltf_error(c, &wi, "accessor %" PRId32 " holds no key time", input);
	s->input = (uint32_t)input;
	s->output = (uint32_t)output;
	gltf_use(c, s->input, GLTF_ROLE_INPUT, &wi);
	return 0;
}

/* What a channel's sampler (w: the sampler) must hold for its path, then
 * its output used. */
static int check_output(struct gltf_ctx *c, const struct gltf_where *w,
			const struct gltf_sampler *s, uint8_t path, uint32_t targets)
{
	const struct gltf_accessor *in = &c->m->accessors[s->input];
	const struct gltf_accessor *out = &c->m->accessors[s->output];
	struct gltf_where wo = gw_key(*w, "output");
	uint8_t want = path == GLTF_PATH_ROTATION ? GLTF_VEC4
		       : path == GLTF_PATH_WEIGHTS ? GLTF_SCALAR : GLTF_VEC3;
	uint64_t need = (uint64_t)in->count * (s->interp == GLTF_INTERP_CUBICSPLINE ? 3 : 1) *
			(path == GLTF_PATH_WEIGHTS ? targets : 1);

	if (out->type != want)
		return gltf_error(c, &wo, "accessor %" PRIu32 " must be %s for a %s channel",
				  s->output, want == GLTF_VEC4 ? "VEC4" : want == GLTF_VEC3 ? "VEC3"
				  : "SCALAR", path_names[path]);
	if (out->count != need)
		return gltf_error(c, &wo, "accessor %" PRIu32 " has %" PRIu32 " elements; %"
				  PRIu32 " key times%s%s need %" PRIu64, s->output, out->count,
				  in->count, s->interp == GLTF_INTERP_CUBICSPLINE
				  ? " of a cubic spline (tangent, value, tangent)" : "",
				  path == GLTF_PATH_WEIGHTS ? " for every morph target" : "", need);
	if (out->component != GLTF_FLOAT &&
	    !(out->normalized && (path == GLTF_PATH_ROTATION || path == GLTF_PATH_WEIGHTS)))
		gltf_note(c, &wo, "keys that are neither floats nor normalised integers of a "
			  "rotation or weights: read as numbers");
	if (s->interp == GLTF_INTERP_CUBICSPLINE && in->count < 2)
		gltf_note(c, &wo, "a cubic spline of one key holds its value");
	gltf_use(c, s->output, (path == GLTF_PATH_ROTATION ? GLTF_ROLE_ROTATION : GLTF_ROLE_OUTPUT) |
		 (s->interp == GLTF_INTERP_CUBICSPLINE ? GLTF_ROLE_CUBIC : 0), &wo);
	return 0;
}

static int parse_channel(struct gltf_ctx *c, gv o, const struct gltf_where *w,
			 struct gltf_animation *an, struct gltf_channel *ch, uint32_t *stamp,
			 uint32_t anim, bool *used)
{
	const struct gltf_model *m = c->m;
	struct gltf_where wt = gw_key(*w, "target"), ws;
	const char *path;
	int32_t sampler;
	gv target;
	unsigned p;

	if (!(gv_kind_of(c, o) == GV_OBJECT))
		return gltf_error(c, w, "a channel must be an object");
	if (gj_index(c, w, o, "sampler", an->sampler_count, "sampler of this animation", true,
		     &sampler) < 0 ||
	    gj_object(c, w, o, "target", true, &target) < 0 ||
	    gj_index(c, &wt, target, "node", m->node_count, "node", false, &ch->node) < 0 ||
	    gj_string(c, &wt, target, "path", true, &path) < 0)
		return -EINVAL;
	ch->sampler = (uint32_t)sampler;
	for (p = 0; p < sizeof path_names / sizeof path_names[0]; p++)
		if (strcmp(path, path_names[p]) == 0)
			break;
	if (p == sizeof path_names / sizeof path_names[0]) {
		struct gltf_where at = gw_key(wt, "path");

		gltf_note(c, &at, "path \"%s\" is not one animd animates (an extension's?): the "
			  "channel is left out", path);
		ch->ignored = true;
		return 0;
	}
	ch->path = (uint8_t)p;
	if (ch->node < 0) {
		gltf_note(c, &wt, "a channel without a node animates nothing (left out)");
		ch->ignored = true;
		return 0;
	}
	if (p == GLTF_PATH_WEIGHTS && (m->nodes[ch->node].mesh < 0 ||
				       m->meshes[m->nodes[ch->node].mesh].target_count == 0)) {
		struct gltf_where at = gw_key(wt, "node");

		gltf_note(c, &at, "weights of a node without morph targets weigh nothing (left out)");
		ch->ignored = true;
		return 0;
	}
	if (stamp[(size_t)ch->node * 4 + p] == anim + 1) {
		gltf_note(c, &wt, "a second channel on the same node and path: the first holds");
		ch->ignored = true;
		return 0;
	}
	stamp[(size_t)ch->node * 4 + p] = anim + 1;
	used[sampler] = true;
	ws = gw_at(gw_key(gw_item("animations", anim), "samplers"), (uint32_t)sampler);
	return check_output(c, &ws, &an->samplers[sampler], (uint8_t)p,
			    p == GLTF_PATH_WEIGHTS ? m->meshes[m->nodes[ch->node].mesh].target_count
						   : 0);
}

static int parse_animation(struct gltf_ctx *c, gv o, uint32_t i, uint32_t *stamp)
{
	struct gltf_animation *an = &c->m->animations[i];
	struct gltf_where w = gw_item("animations", i), ws = gw_key(w, "samplers"),
			  wc = gw_key(w, "channels");
	struct gltf_sampler *samplers;
	struct gltf_channel *channels;
	gv sa, ca;
	bool *used;
	int rc = 0;

	if (gj_string(c, &w, o, "name", false, &an->name) < 0 ||
	    gj_array(c, &w, o, "samplers", true, &sa) < 0 ||
	    gj_array(c, &w, o, "channels", true, &ca) < 0)
		return -EINVAL;
	an->sampler_count = (uint32_t)gv_size(c, sa);
	an->channel_count = (uint32_t)gv_size(c, ca);
	samplers = gltf_alloc(c, an->sampler_count, sizeof *samplers);
	channels = gltf_alloc(c, an->channel_count, sizeof *channels);
	used = calloc((size_t)an->sampler_count + 1, sizeof *used);
	if (samplers == NULL || channels == NULL || used == NULL) {
		free(used);
		return -ENOMEM;
	}
	an->samplers = samplers;
	an->channels = channels;
	for (uint32_t k = 0; rc == 0 && k < an->sampler_count; k++) {
		struct gltf_where at = gw_at(ws, k);

		rc = parse_sampler(c, gv_at(c, sa, k), &at, &samplers[k]);
	}
	for (uint32_t k = 0; rc == 0 && k < an->channel_count; k++) {
		struct gltf_where at = gw_at(wc, k);

		rc = parse_channel(c, gv_at(c, ca, k), &at, an, &channels[k], stamp, i, used);
	}
	for (uint32_t k = 0; rc == 0 && k < an->sampler_count; k++)
		if (!used[k]) {
			struct gltf_where at = gw_at(ws, k);

			gltf_note(c, &at, "no channel uses this sampler (its keys still count for the "
				  "animation's length)");
		}
	free(used);
	return rc;
}

int gltf_parse_animations(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "animations");
	uint32_t *stamp;
	int rc = 0;

	m->animation_count = (uint32_t)gv_size(c, arr);
	m->animations = gltf_alloc(c, m->animation_count, sizeof *m->animations);
	stamp = calloc((size_t)m->node_count * 4 + 1, sizeof *stamp);
	if (m->animations == NULL || stamp == NULL) {
		free(stamp);
		return -ENOMEM;
	}
	for (uint32_t i = 0; rc == 0 && i < m->animation_count; i++) {
		gv o;

		rc = gj_item(c, arr, "animations", i, &o);
		if (rc == 0)
			rc = parse_animation(c, o, i, stamp);
	}
	free(stamp);
	return rc;
}
