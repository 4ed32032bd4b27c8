/* ACL's shell-point metric between two clips (shell_error.h). */
#include "tests/support/shell_error.h"

#include <math.h>
#include <stdlib.h>

#include "daemon/anim/pose.h"

double shell_error(const struct skeleton *s, const struct clip *a, const struct clip *b,
		   float shell)
{
	uint32_t n = a->joint_count;
	struct transform *la = calloc(n, sizeof *la), *lb = calloc(n, sizeof *lb);
	mat34 *ma = calloc(n, sizeof *ma), *mb = calloc(n, sizeof *mb);
	double worst = 0;

	if (la == NULL || lb == NULL || ma == NULL || mb == NULL)
		abort();
	for (uint32_t f = 0; f < a->frame_count; f++) {
		int64_t t = clip_frames_duration(f, a->frame_rate);

		clip_sample(a, t, la);
		clip_sample(b, t, lb);
		pose_local_to_model(s, la, ma);
		pose_local_to_model(s, lb, mb);
		for (uint32_t j = 0; j < n; j++)
			for (int axis = 0; axis < 3; axis++) {
				double e = 0;

				for (int r = 0; r < 3; r++) {
					double d = ((double)ma[j].m[r][axis] - mb[j].m[r][axis]) * shell +
						   ((double)ma[j].m[r][3] - mb[j].m[r][3]);

					e += d * d;
				}
				worst = fmax(worst, sqrt(e));
			}
	}
	free(la);
	free(lb);
	free(ma);
	free(mb);
	return worst;
}
