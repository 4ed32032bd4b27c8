#include "daemon/anim/skeleton.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/pose.h"

struct skeleton *skeleton_new(uint32_t n)
{
	struct skeleton *s = calloc(1, sizeof *s);
	size_t cnt = n ? n : 1;

	if (!s)
		return NULL;
	s->joint_count = n;
	s->names = calloc(cnt, sizeof *s->names);
	s->parents = malloc(cnt * sizeof *s->parents);
	s->rest = malloc(cnt * sizeof *s->rest);
	if (!s->names || !s->parents || !s->rest) {
		skeleton_free(s);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		s->parents[i] = -1;
		s->rest[i] = transform_identity();
	}
	return s;
}

int skeleton_compute_bind(struct skeleton *s)
{
	size_t cnt = s->joint_count ? s->joint_count : 1;
	mat34 *bind = malloc(cnt * sizeof *bind);
	mat34 *inv = malloc(cnt * sizeof *inv);

	if (!bind || !inv) {
		free(bind);
		free(inv);
		return -ENOMEM;
	}
	if (s->rest_matrix != NULL) {
		for (uint32_t i = 0; i < s->joint_count; i++) {
			int32_t p = s->parents[i];

			bind[i] = p >= 0 && (uint32_t)p < i ? mat34_mul(&bind[p], &s->rest_matrix[i])
							    : s->rest_matrix[i];
		}
	} else {
		/* The plain hierarchy: the bits of ignore_parent do not shape
		 * the bind pose (they need it). */
		uint8_t *ignore = s->ignore_parent;

		s->ignore_parent = NULL;
		pose_local_to_model(s, s->rest, bind);
		s->ignore_parent = ignore;
	}
	for (uint32_t i = 0; i < s->joint_count; i++)
		inv[i] = mat34_inverse(&bind[i]);
	free(s->bind_model);
	free(s->inv_bind);
	s->bind_model = bind;
	s->inv_bind = inv;
	return 0;
}

void skeleton_free(struct skeleton *s)
{
	if (!s)
		return;
	if (s->names)
		for (uint32_t i = 0; i < s->joint_count; i++)
			free(s->names[i]);
	free(s->names);
	free(s->parents);
	free(s->rest);
	free(s->bind_model);
	free(s->inv_bind);
	free(s->rest_matrix);
	free(s->rest_not_trs);
	free(s->ignore_parent);
	free(s->skin_bind);
	free(s);
}

size_t skeleton_bytes(const struct skeleton *s)
{
	size_t cnt = s->joint_count ? s->joint_count : 1, n = sizeof *s;

	if (s->names != NULL) {
		n += cnt * sizeof *s->names;
		for (uint32_t i = 0; i < s->joint_count; i++)
			n += s->names[i] != NULL ? strlen(s->names[i]) + 1 : 0;
	}
	n += s->parents != NULL ? cnt * sizeof *s->parents : 0;
	n += s->rest != NULL ? cnt * sizeof *s->rest : 0;
	n += s->bind_model != NULL ? cnt * sizeof *s->bind_model : 0;
	n += s->inv_bind != NULL ? cnt * sizeof *s->inv_bind : 0;
	n += s->rest_matrix != NULL ? ((size_t)s->joint_count + 1) * sizeof *s->rest_matrix : 0;
	n += s->rest_not_trs != NULL ? ((size_t)s->joint_count + 1) * sizeof *s->rest_not_trs : 0;
	n += s->ignore_parent != NULL ? ((size_t)s->joint_count + 1) * sizeof *s->ignore_parent : 0;
	n += s->skin_bind != NULL ? ((size_t)s->joint_count + 1) * sizeof *s->skin_bind : 0;
	return n;
}

int32_t skeleton_find(const struct skeleton *s, const char *name)
{
	if (!name)
		return -1;
	for (uint32_t i = 0; i < s->joint_count; i++)
		if (s->names[i] && strcmp(s->names[i], name) == 0)
			return (int32_t)i;
	return -1;
}

static const char *skeleton_name(const struct skeleton *s, uint32_t i)
{
	return s->names && s->names[i] ? s->names[i] : "";
}

int skeleton_check_binding(const struct skeleton *clip_skel, const struct skeleton *target,
			   char *err, size_t errlen)
{
	char dummy[1];

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof dummy;
	}
	err[0] = '\0';
	if (clip_skel->joint_count != target->joint_count) {
		snprintf(err, errlen, "joint count differs: the clip has %u, the skeleton %u",
			 clip_skel->joint_count, target->joint_count);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < target->joint_count; i++) {
		const char *a = skeleton_name(clip_skel, i), *b = skeleton_name(target, i);

		if (strcmp(a, b) != 0) {
			snprintf(err, errlen, "joint %u is \"%s\" in the clip but \"%s\" in the skeleton",
				 i, a, b);
			return -EINVAL;
		}
		if (clip_skel->parents[i] != target->parents[i]) {
			snprintf(err, errlen,
				 "joint %u (\"%s\") has parent %d in the clip but %d in the skeleton",
				 i, a, (int)clip_skel->parents[i], (int)target->parents[i]);
			return -EINVAL;
		}
	}
	return 0;
}
