#include "daemon/anim/attachment.h"

void attachments_sample(const struct attachment *defs, uint32_t n, const struct clip *c,
			int64_t t_ns, int64_t g_ns, const mat34 *joint_mats,
			struct attachment_state *out)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct attachment *a = &defs[i];
		const struct track *tr =
			c != NULL && i < c->attachment_count ? &c->attachments[i] : NULL;
		mat34 at = mat34_from_rt(quat_identity(), a->position);
		float v = 1.0f;

		out[i].m = mat34_mul(&joint_mats[a->joint], &at);
		if (tr != NULL && tr->count > 0 && tr->width == 1 && tr->times != NULL &&
		    tr->values != NULL)
			track_eval(tr, clip_track_time(c, tr, t_ns, g_ns), &v);
		out[i].animate = v > 0.5f ? 1.0f : 0.0f;
	}
}
