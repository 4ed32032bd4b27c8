/*
 * pose.h - from local joint transforms to the matrices a renderer wants.
 * Allocation-free; callers own every array (joint_count entries).
 */
#ifndef ANIMD_POSE_H
#define ANIMD_POSE_H

#include <stdint.h>

#include "daemon/anim/math3d.h"
#include "daemon/anim/skeleton.h"

/* model[i] = model[parent[i]] * local[i]; roots use local[i]. */
void pose_local_to_model(const struct skeleton *s, const struct transform *local, mat34 *model);

/* The same, with the `still` joints (a clip's clip_still_joints: none of
 * its tracks moves them) placed by the skeleton's exact rest matrices
 * when it has them (.x frames, which a TRS cannot always express). */
void pose_local_to_model_still(const struct skeleton *s, const struct transform *local,
			       uint32_t still_count, const uint32_t *still, mat34 *model);

/* The two passes of pose_local_to_model_still apart, for callers that
 * make the local matrices another way (clip_sample_matrices): the first
 * gives local[i]'s matrix for n joints, the second takes `model` holding
 * them to model space.  Together they give pose_local_to_model_still's
 * matrices bit for bit. */
void pose_local_matrices(const struct transform *local, uint32_t n, mat34 *out);
void pose_matrices_to_model_still(const struct skeleton *s, uint32_t still_count,
				  const uint32_t *still, mat34 *model);

/* skin[i] = model[i] * inv_bind[i]; a skeleton without a bind pose
 * (inv_bind NULL) copies model. */
void pose_model_to_skin(const struct skeleton *s, const mat34 *model, mat34 *skin);

/* Both of the above in one pass (faster than the two calls: the skinning
 * products fill the time the parent chain waits on itself). */
void pose_local_to_skin(const struct skeleton *s, const struct transform *local, mat34 *model,
			mat34 *skin);
void pose_local_to_skin_still(const struct skeleton *s, const struct transform *local,
			      uint32_t still_count, const uint32_t *still, mat34 *model, mat34 *skin);

/* Local transforms from model-space matrices without scale (the inverse of
 * pose_local_to_model for rigid poses); used for bind poses given in model
 * space, such as md5mesh joints. */
void pose_model_to_local(const struct skeleton *s, const mat34 *model, struct transform *local);

#endif
