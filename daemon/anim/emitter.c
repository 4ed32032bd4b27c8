#include "daemon/anim/emitter.h"

#include <stdlib.h>
#include <string.h>

const char *const emitter_param_names[EMITTER_PARAMS] = {
	"emission_speed", "speed_variation", "vertical_range", "horizontal_range", "gravity",
	"lifespan", "emission_rate", "area_length", "area_width", "z_source",
};

/* A scalar track's value, or `none` when it has no keys. */
static float emitter_track(const struct clip *c, const struct track *tr, int64_t t_ns,
			   int64_t g_ns, float none)
{
	float v;

	if (tr->count == 0 || tr->width != 1 || tr->times == NULL || tr->values == NULL)
		return none;
	track_eval(tr, clip_track_time(c, tr, t_ns, g_ns), &v);
	return v;
}

void emitters_sample(const struct emitter *defs, uint32_t n, const struct clip *c, int64_t t_ns,
		     int64_t g_ns, const mat34 *joint_mats, struct emitter_state *out)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct emitter *e = &defs[i];
		const struct emitter_tracks *tr =
			c != NULL && i < c->emitter_count ? &c->emitters[i] : NULL;
		mat34 at = mat34_from_rt(quat_identity(), e->position);

		out[i].m = mat34_mul(&joint_mats[e->joint], &at);
		for (int p = 0; p < EMITTER_PARAMS; p++)
			out[i].param[p] = tr ? emitter_track(c, &tr->param[p], t_ns, g_ns, 0.0f) : 0.0f;
		out[i].enabled = tr ? (emitter_track(c, &tr->enabled, t_ns, g_ns, 1.0f) > 0.5f ? 1.0f
											  : 0.0f)
				    : 1.0f;
	}
}

void emitter_fini(struct emitter *e)
{
	free(e->spline_points);
	free(e->model_name);
	e->spline_points = NULL;
	e->model_name = NULL;
}

size_t emitter_bytes(const struct emitter *e)
{
	size_t n = e->spline_points != NULL ? (size_t)e->spline_point_count * sizeof *e->spline_points : 0;

	return n + (e->model_name != NULL ? strlen(e->model_name) + 1 : 0);
}
