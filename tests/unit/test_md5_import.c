/*
 * md5_import: a tiny skinned model built in C, whose vertices are worked
 * out by hand below, pins MD5's quaternion convention end to end (mesh
 * bind pose, anim frames, blends, root motion, bounds); then the project's
 * fixture files go through the real parsers and the import and are
 * checked against an independent reference written the way the format
 * describes it (rotations as the transposed matrix of the file
 * quaternion, no conjugation, no quaternion products).
 *
 * The fixture (file values; S = 0.7071068):
 *   joints   0 "root"  parent -1  pos (0,0,0)  orient (0,0,0)      w = 1
 *            1 "arm"   parent 0   pos (1,0,0)  orient (0,0,S)      w = +S
 *   MD5 rotates by R(q*): the arm turns -90 deg about Z, (x,y) -> (y,-x).
 *   weights  0: joint 0, bias 1,   offset (0,0,1)
 *            1: joint 1, bias 1,   offset (1,0,0)
 *            2: joint 0, bias 0.5, offset (2,0,0)
 *            3: joint 1, bias 0.5, offset (0,2,0)
 *   verts    0: weight 0        -> (0,0,1)
 *            1: weight 1        -> (1,0,0) + (0,-1,0)            = (1,-1,0)
 *            2: weights 2 and 3 -> 0.5 (2,0,0) + 0.5 ((1,0,0) + (2,0,0))
 *                                                                = (2.5,0,0)
 *   anim, 2 frames at 10 fps; the root animates tx, the arm qz:
 *     frame 0: tx 0, qz S  (the bind pose: same vertices)
 *     frame 1: tx 2, qz 0  (root at (2,0,0), arm unrotated: M1 = T(3,0,0))
 *              v0 = (2,0,1), v1 = (3,0,0) + (1,0,0) = (4,0,0),
 *              v2 = 0.5 (4,0,0) + 0.5 ((3,0,0) + (0,2,0)) = (3.5,1,0)
 *     t = 50 ms, half way: root (1,0,0); the arm at -45 deg about Z,
 *              (x,y) -> (x c + y s, -x s + y c), c = s = S; M1 = T(2,0,0) R
 *              v0 = (1,0,1)
 *              v1 = (2,0,0) + (S,-S,0)                  = (2.7071068, -0.7071068, 0)
 *              v2 = 0.5 (3,0,0) + 0.5 ((2,0,0) + (2S,2S,0))
 *                                                       = (3.2071068, 0.7071068, 0)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/pose.h"
#include "daemon/assets/asset.h"
#include "daemon/import/md5_import.h"
#include "tests/support/testdata.h"

#define S 0.7071068f
#define MS 1000000LL

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.9g, want %.9g (tolerance %g)", got, want, tol);
}

static void assert_vec(vec3 v, double x, double y, double z, double tol)
{
	assert_near(v.x, x, tol);
	assert_near(v.y, y, tol);
	assert_near(v.z, z, tol);
}

/* ---- the hand-built fixture ------------------------------------------ */

static char n_root[] = "root", n_arm[] = "arm", shader[] = "skin", mesh_name[] = "body";

static struct md5_joint mjoints[2] = {
	{ n_root, -1, { 0, 0, 0 }, { 0, 0, 0, 1 } },
	{ n_arm, 0, { 1, 0, 0 }, { 0, 0, S, 0 } },    /* w filled in by setup */
};
static struct md5_weight mweights[4] = {
	{ 0, 1.0f, { 0, 0, 1 } },
	{ 1, 1.0f, { 1, 0, 0 } },
	{ 0, 0.5f, { 2, 0, 0 } },
	{ 1, 0.5f, { 0, 2, 0 } },
};
static struct md5_vert mverts[3] = {
	{ { 0, 0 }, 0, 1 },
	{ { 1, 0 }, 1, 1 },
	{ { 0.5f, 1 }, 2, 2 },
};
static uint32_t mtris[1][3] = { { 0, 1, 2 } };
static struct md5_mesh mmesh = { mesh_name, shader, 3, 1, 4, mverts, mtris, mweights };
static struct md5_model model = { NULL, 2, 1, mjoints, &mmesh, { 0 } };

static struct md5_anim_joint ajoints[2] = {
	{ n_root, -1, MD5_ANIM_TX, 0 },
	{ n_arm, 0, MD5_ANIM_QZ, 1 },
};
static struct md5_joint abase[2] = {
	{ n_root, -1, { 0, 0, 0 }, { 0, 0, 0, 1 } },
	{ n_arm, 0, { 1, 0, 0 }, { 0, 0, S, 0 } },
};
static float acomp[2 * 2] = { 0, S, 2, 0 };
static float abounds[2][6] = { { -1, -1, -1, 1, 1, 1 }, { -1, -1, -1, 3, 1, 1 } };
static struct md5_anim anim = { NULL, 2, 2, 10, 2, ajoints, abounds, abase, acomp, { 0 } };

static int setup(void **state)
{
	(void)state;
	mjoints[1].orient[3] = md5_quat_w(0, 0, S);
	abase[1].orient[3] = md5_quat_w(0, 0, S);
	return 0;
}

/* Vertices of the mesh under the anim at clip time t. */
static void anim_vertices(const struct clip *c, const struct skeleton *sk,
			  const struct mesh *me, int64_t t, vec3 out[3])
{
	struct transform local[2];
	mat34 m[2];

	clip_sample(c, t, local);
	pose_local_to_model(sk, local, m);
	mesh_skin_positions(me, m, out);
}

static void test_bind_pose(void **state)
{
	struct skeleton *sk = NULL;
	struct mesh *me = NULL;
	vec3 v[3];

	(void)state;
	assert_int_equal(md5_import_skeleton(&model, &sk), 0);
	assert_int_equal(md5_import_mesh(&model, 0, &me), 0);
	assert_int_equal(sk->joint_count, 2);
	assert_string_equal(sk->names[1], "arm");
	assert_int_equal(sk->parents[1], 0);
	/* The convention itself: file (0,0,S), w = +S, turns (1,0,0) into
	 * (0,-1,0). */
	assert_vec(mat34_apply_dir(&sk->bind_model[1], vec3_make(1, 0, 0)), 0, -1, 0, 1e-6);
	assert_vec(mat34_apply(&sk->bind_model[1], vec3_make(1, 0, 0)), 1, -1, 0, 1e-6);
	/* The derived parent-relative rest pose. */
	assert_vec(sk->rest[1].t, 1, 0, 0, 1e-6);
	assert_near(sk->rest[1].r.z, -S, 1e-6);
	assert_near(sk->rest[1].r.w, S, 1e-6);
	assert_vec(sk->rest[1].s, 1, 1, 1, 0);
	/* Mesh: influences per vertex, as authored. */
	assert_int_equal(me->normals, MESH_NORMALS_DERIVED);
	assert_int_equal(me->vertex_count, 3);
	assert_int_equal(me->influence_count, 4);
	assert_int_equal(me->first_influence[2], 2);
	assert_int_equal(me->first_influence[3], 4);
	assert_string_equal(me->material, "skin");
	assert_string_equal(me->name, "body");
	assert_int_equal(me->triangles[0][2], 2);
	assert_near(me->uvs[2][0], 0.5, 0);
	assert_null(me->normal_group);      /* grouped by the asset loader */
	/* Doom's bind-pose vertices from the bind skeleton. */
	mesh_skin_positions(me, sk->bind_model, v);
	assert_vec(v[0], 0, 0, 1, 1e-6);
	assert_vec(v[1], 1, -1, 0, 1e-6);
	assert_vec(v[2], 2.5, 0, 0, 1e-6);
	/* ...and from the rest pose through the hierarchy. */
	{
		mat34 m[2], skin[2];

		pose_local_to_model(sk, sk->rest, m);
		mesh_skin_positions(me, m, v);
		assert_vec(v[1], 1, -1, 0, 1e-6);
		assert_vec(v[2], 2.5, 0, 0, 1e-6);
		/* Skinning matrices at bind: identity. */
		pose_model_to_skin(sk, m, skin);
		for (int j = 0; j < 2; j++)
			for (int r = 0; r < 3; r++)
				for (int k = 0; k < 4; k++)
					assert_near(skin[j].m[r][k], r == k, 1e-6);
	}
	mesh_free(me);
	skeleton_free(sk);
}

static void test_anim(void **state)
{
	struct skeleton *mesh_sk = NULL, *anim_sk = NULL;
	struct mesh *me = NULL;
	struct clip *c = NULL;
	char err[128];
	vec3 v[3];
	float b[6];

	(void)state;
	assert_int_equal(md5_import_skeleton(&model, &mesh_sk), 0);
	assert_int_equal(md5_import_mesh(&model, 0, &me), 0);
	assert_int_equal(md5_import_anim_skeleton(&anim, &anim_sk), 0);
	assert_int_equal(md5_import_clip(&anim, "wave", &c), 0);
	assert_int_equal(skeleton_check_binding(anim_sk, mesh_sk, err, sizeof err), 0);
	assert_null(anim_sk->bind_model);
	assert_near(anim_sk->rest[1].r.z, -S, 1e-6);

	assert_string_equal(c->name, "wave");
	assert_int_equal(c->joint_count, 2);
	assert_int_equal(c->frame_count, 2);
	assert_int_equal(c->frame_rate, 10);
	assert_int_equal(c->duration_ns, 100 * MS);
	assert_int_equal(c->loop, LOOP_LOOP);
	assert_null(c->tracks);
	assert_near(c->frames[1].r.z, -S, 1e-6);        /* conjugated */
	assert_near(c->frames[3].r.w, 1, 0);            /* frame 1: qz 0 */

	/* Frame 0 is the bind pose. */
	anim_vertices(c, mesh_sk, me, 0, v);
	assert_vec(v[0], 0, 0, 1, 1e-6);
	assert_vec(v[1], 1, -1, 0, 1e-6);
	assert_vec(v[2], 2.5, 0, 0, 1e-6);
	/* Half way (see the header). */
	anim_vertices(c, mesh_sk, me, 50 * MS, v);
	assert_vec(v[0], 1, 0, 1, 1e-6);
	assert_vec(v[1], 2.7071068, -0.7071068, 0, 1e-6);
	assert_vec(v[2], 3.2071068, 0.7071068, 0, 1e-6);
	/* The last frame. */
	anim_vertices(c, mesh_sk, me, 100 * MS, v);
	assert_vec(v[0], 2, 0, 1, 1e-6);
	assert_vec(v[1], 4, 0, 0, 1e-6);
	assert_vec(v[2], 3.5, 1, 0, 1e-6);

	/* Root motion: base (0,0,0), delta (2,0,0); in place at 150 ms is
	 * half way through the second loop: 1 + 2. */
	assert_vec(c->root_base, 0, 0, 0, 0);
	assert_vec(c->root_delta, 2, 0, 0, 0);
	{
		struct clip_time ct = clip_map_time(c, 150 * MS, c->loop);
		struct transform local[2];

		assert_int_equal(ct.cycles, 1);
		clip_sample(c, ct.t_ns, local);
		clip_apply_root_motion(c, ROOT_IN_PLACE, &ct, local);
		assert_vec(local[0].t, 3, 0, 0, 1e-6);
	}
	/* Bounds: copied, blended. */
	assert_int_equal(clip_bounds(c, 50 * MS, b), 0);
	assert_near(b[0], -1, 0);
	assert_near(b[3], 2, 1e-6);

	clip_free(c);
	mesh_free(me);
	skeleton_free(anim_sk);
	skeleton_free(mesh_sk);
}

static void test_root_base_is_file_translation(void **state)
{
	struct md5_joint base[2];
	struct md5_anim a = anim;
	float comp[4] = { 5, S, 9, 0 };
	struct clip *c = NULL;

	(void)state;
	memcpy(base, abase, sizeof base);
	base[0].pos[0] = 4;
	base[0].pos[1] = -1;
	base[0].orient[2] = 0.6f;       /* a rotated root does not move the base */
	base[0].orient[3] = md5_quat_w(0, 0, 0.6f);
	a.base = base;
	a.components = comp;
	assert_int_equal(md5_import_clip(&a, NULL, &c), 0);
	assert_null(c->name);
	assert_vec(c->root_base, 4, -1, 0, 0);
	/* Last frame's root (9, -1, 0) minus the base. */
	assert_vec(c->root_delta, 5, 0, 0, 0);
	assert_vec(c->frames[0].t, 5, -1, 0, 0);
	clip_free(c);
}

static void test_pose_anim(void **state)
{
	/* numAnimatedComponents 0: every frame is the baseframe. */
	struct md5_anim_joint j[2] = { { n_root, -1, 0, 0 }, { n_arm, 0, 0, 0 } };
	struct md5_anim a = { NULL, 3, 2, 24, 0, j, NULL, abase, NULL, { 0 } };
	struct clip *c = NULL;
	struct transform out[2];
	float b[6];

	(void)state;
	assert_int_equal(md5_import_clip(&a, "pose", &c), 0);
	assert_int_equal(c->duration_ns, clip_frames_duration(2, 24));
	assert_null(c->bounds);
	assert_int_equal(clip_bounds(c, 0, b), -1);
	clip_sample(c, 30 * MS, out);
	assert_vec(out[1].t, 1, 0, 0, 0);
	assert_near(out[1].r.z, -S, 1e-6);
	assert_vec(c->root_delta, 0, 0, 0, 0);
	clip_free(c);
}

static void test_import_rejects(void **state)
{
	struct md5_anim_joint j[2] = { { n_root, -1, MD5_ANIM_TX, 0 }, { n_arm, 0, MD5_ANIM_ALL, 0 } };
	struct md5_anim a = anim;
	struct md5_joint bad_joints[2];
	struct md5_model m = model;
	struct md5_weight w[4];
	struct md5_mesh me = mmesh;
	struct md5_vert verts[20];
	struct skeleton *sk = NULL;
	struct clip *c = NULL;
	struct mesh *mo = NULL;

	(void)state;
	/* Components past numAnimatedComponents (2 here). */
	a.joints = j;
	assert_int_equal(md5_import_clip(&a, "x", &c), -EINVAL);
	j[1].flags = 64;
	assert_int_equal(md5_import_clip(&a, "x", &c), -EINVAL);
	a = anim;
	a.frame_rate = 0;
	assert_int_equal(md5_import_clip(&a, "x", &c), -EINVAL);
	/* frames x joints past the cap, refused before allocating. */
	a = anim;
	a.num_frames = MD5_IMPORT_MAX_FRAME_JOINTS;
	assert_int_equal(md5_import_clip(&a, "x", &c), -E2BIG);
	assert_null(c);

	/* A parent that is not earlier. */
	memcpy(bad_joints, mjoints, sizeof bad_joints);
	bad_joints[1].parent = 1;
	m.joints = bad_joints;
	assert_int_equal(md5_import_skeleton(&m, &sk), -EINVAL);
	assert_null(sk);

	/* Meshes: index, weight joint, weight range, triangle index. */
	m = model;
	assert_int_equal(md5_import_mesh(&m, 1, &mo), -EINVAL);
	memcpy(w, mweights, sizeof w);
	w[3].joint = 2;
	me.weights = w;
	m.meshes = &me;
	assert_int_equal(md5_import_mesh(&m, 0, &mo), -EINVAL);
	me = mmesh;
	memcpy(verts, mverts, sizeof mverts);
	verts[2].weight_count = 3;
	me.verts = verts;
	assert_int_equal(md5_import_mesh(&m, 0, &mo), -EINVAL);
	/* Twenty vertices sharing all four weights: 80 influences from 4
	 * weights, past the 16x cap only when the factor is exceeded. */
	for (int i = 0; i < 20; i++)
		verts[i] = (struct md5_vert){ { 0, 0 }, 0, 4 };
	me.num_verts = 20;
	me.num_tris = 0;
	assert_int_equal(md5_import_mesh(&m, 0, &mo), -E2BIG);
	me.num_verts = 16;
	assert_int_equal(md5_import_mesh(&m, 0, &mo), 0);
	assert_int_equal(mo->influence_count, 64);
	mesh_free(mo);
}

/* ---- the fixture files through the parsers ---------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* R(q) of a file quaternion, in double, then transposed: MD5's rotation. */
static void md5_matrix(const float q[4], double r[3][3])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double m[3][3] = {
		{ 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
		{ 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
		{ 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) },
	};

	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			r[i][k] = m[k][i];
}

static void mat3_mul(const double a[3][3], const double b[3][3], double c[3][3])
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			c[i][k] = a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k];
}

static void ref_vertex(const struct md5_mesh *me, uint32_t v, const double (*rot)[3][3],
		       const double (*pos)[3], double out[3])
{
	const struct md5_vert *vt = &me->verts[v];

	out[0] = out[1] = out[2] = 0;
	for (uint32_t k = 0; k < vt->weight_count; k++) {
		const struct md5_weight *w = &me->weights[vt->first_weight + k];
		const double (*r)[3] = rot[w->joint];

		for (int i = 0; i < 3; i++)
			out[i] += w->bias * (pos[w->joint][i] + r[i][0] * w->pos[0] +
					     r[i][1] * w->pos[1] + r[i][2] * w->pos[2]);
	}
}

static void test_fixture_files(void **state)
{
	static const char *dir = "tests/fixtures/md5/";
	char path[256];
	char *mtext, *atext;
	size_t mlen, alen;
	struct md5_model *mm = NULL;
	struct md5_anim *aa = NULL;
	struct diag d;
	struct skeleton *sk = NULL, *ask = NULL;
	struct clip *c = NULL;

	(void)state;
	snprintf(path, sizeof path, "%sskin3.md5mesh", dir);
	mtext = slurp(path, &mlen);
	snprintf(path, sizeof path, "%swalk.md5anim", dir);
	atext = slurp(path, &alen);
	if (!mtext || !atext) {
		print_message("skip: %s not found (run from the repository root)\n", path);
		free(mtext);
		free(atext);
		skip();
	}
	memset(&d, 0, sizeof d);
	if (md5_mesh_parse(mtext, mlen, &mm, &d) != 0 || md5_anim_parse(atext, alen, &aa, &d) != 0)
		fail_msg("fixture does not parse: %u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(md5_import_skeleton(mm, &sk), 0);
	assert_int_equal(md5_import_anim_skeleton(aa, &ask), 0);
	assert_int_equal(md5_import_clip(aa, "walk", &c), 0);
	assert_int_equal(skeleton_check_binding(ask, sk, NULL, 0), 0);

	/* Bind pose: sum bias * (t + R(q)^T offset) over model-space joints. */
	{
		double (*rot)[3][3] = calloc(mm->num_joints, sizeof *rot);
		double (*pos)[3] = calloc(mm->num_joints, sizeof *pos);

		assert_non_null(rot);
		assert_non_null(pos);
		for (uint32_t j = 0; j < mm->num_joints; j++) {
			md5_matrix(mm->joints[j].orient, rot[j]);
			for (int i = 0; i < 3; i++)
				pos[j][i] = mm->joints[j].pos[i];
		}
		for (uint32_t i = 0; i < mm->num_meshes; i++) {
			struct mesh *me = NULL;
			vec3 *v;

			assert_int_equal(md5_import_mesh(mm, i, &me), 0);
			v = calloc(me->vertex_count, sizeof *v);
			assert_non_null(v);
			mesh_skin_positions(me, sk->bind_model, v);
			for (uint32_t k = 0; k < me->vertex_count; k++) {
				double want[3];

				ref_vertex(&mm->meshes[i], k, (const double (*)[3][3])rot,
					   (const double (*)[3])pos, want);
				assert_vec(v[k], want[0], want[1], want[2], 1e-5);
			}
			free(v);
			mesh_free(me);
		}
		free(rot);
		free(pos);
	}

	/* Every anim frame: joints rebuilt from the file's components and
	 * chained as  R = R_parent R(q)^T,  t = R_parent t_local + t_parent. */
	for (uint32_t f = 0; f < aa->num_frames; f++) {
		double (*rot)[3][3] = calloc(aa->num_joints, sizeof *rot);
		double (*pos)[3] = calloc(aa->num_joints, sizeof *pos);
		struct transform *local = calloc(aa->num_joints, sizeof *local);
		mat34 *m = calloc(aa->num_joints, sizeof *m);
		int64_t t = ((int64_t)f * NS_PER_SEC + aa->frame_rate - 1) / aa->frame_rate;

		assert_non_null(rot);
		assert_non_null(pos);
		assert_non_null(local);
		assert_non_null(m);
		for (uint32_t j = 0; j < aa->num_joints; j++) {
			const struct md5_anim_joint *h = &aa->joints[j];
			float v[6], q[4];
			double lr[3][3];
			uint32_t k = h->start_index;
			int p = h->parent;

			memcpy(v, aa->base[j].pos, 3 * sizeof(float));
			memcpy(v + 3, aa->base[j].orient, 3 * sizeof(float));
			for (int bit = 0; bit < 6; bit++)
				if (h->flags & (1u << bit))
					v[bit] = aa->components[f * aa->num_components + k++];
			q[0] = v[3];
			q[1] = v[4];
			q[2] = v[5];
			q[3] = sqrtf(fabsf(1 - q[0] * q[0] - q[1] * q[1] - q[2] * q[2]));
			md5_matrix(q, lr);
			if (p < 0) {
				memcpy(rot[j], lr, sizeof lr);
				for (int i = 0; i < 3; i++)
					pos[j][i] = v[i];
			} else {
				mat3_mul((const double (*)[3])rot[p], (const double (*)[3])lr, rot[j]);
				for (int i = 0; i < 3; i++)
					pos[j][i] = pos[p][i] + rot[p][i][0] * v[0] +
						    rot[p][i][1] * v[1] + rot[p][i][2] * v[2];
			}
		}
		clip_sample(c, t, local);
		pose_local_to_model(ask, local, m);
		for (uint32_t j = 0; j < aa->num_joints; j++)
			for (int i = 0; i < 3; i++) {
				assert_near(m[j].m[i][3], pos[j][i], 1e-5);
				for (int k = 0; k < 3; k++)
					assert_near(m[j].m[i][k], rot[j][i][k], 1e-5);
			}
		free(rot);
		free(pos);
		free(local);
		free(m);
	}
	clip_free(c);
	skeleton_free(ask);
	skeleton_free(sk);
	md5_anim_free(aa);
	md5_model_free(mm);
	free(mtext);
	free(atext);
}

/* The fixture file `name` with `tail` after its last block, loaded as an
 * asset (the caller frees it). */
static struct asset *load_with_tail(const char *name, const char *tail)
{
	char path[256], err[512] = "";
	struct asset *a = NULL;
	size_t len;
	char *text, *buf;

	snprintf(path, sizeof path, "tests/fixtures/md5/%s", name);
	text = test_file_read(path, &len);
	assert_non_null(text);
	buf = malloc(len + strlen(tail) + 1);
	assert_non_null(buf);
	memcpy(buf, text, len);
	memcpy(buf + len, tail, strlen(tail) + 1);
	if (asset_load_buffer(name, buf, len + strlen(tail), &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	free(buf);
	free(text);
	return a;
}

/* What the parser notes reaches the asset as located lines ("name:line:
 * col: note: ..."), as M2's do, and the asset publishes what the file
 * without the unread part does. */
static void test_asset_notes(void **state)
{
	struct asset *clean, *a;

	(void)state;
	clean = load_with_tail("walk.md5anim", "");
	assert_int_equal(clean->note_count, 0);
	a = load_with_tail("walk.md5anim", "frame 4 {\n1 2 3\n}\n");
	assert_int_equal(a->note_count, 1);
	assert_string_equal(a->notes[0], "walk.md5anim:47:1: note: \"frame\" after the last block: "
			    "what follows is not read (Doom stops there too)");
	assert_int_equal(a->clips[0]->frame_count, clean->clips[0]->frame_count);
	assert_int_equal(a->clips[0]->duration_ns, clean->clips[0]->duration_ns);
	/* The same frames: the same poses, to the bit, at every frame and
	 * between. */
	for (int64_t t = 0; t <= clean->clips[0]->duration_ns; t += clean->clips[0]->duration_ns / 7) {
		struct transform pa[8], pb[8];

		assert_true(clean->clips[0]->joint_count <= 8);
		clip_sample(a->clips[0], t, pa);
		clip_sample(clean->clips[0], t, pb);
		assert_memory_equal(pa, pb, clean->clips[0]->joint_count * sizeof *pa);
	}
	assert_memory_equal(a->clips[0]->bounds, clean->clips[0]->bounds,
			    clean->clips[0]->frame_count * sizeof *clean->clips[0]->bounds);
	asset_free(a);
	asset_free(clean);

	clean = load_with_tail("skin3.md5mesh", "");
	a = load_with_tail("skin3.md5mesh", "mesh {\n");
	assert_int_equal(clean->note_count, 0);
	assert_int_equal(a->note_count, 1);
	assert_non_null(strstr(a->notes[0], "skin3.md5mesh:55:1: note: \"mesh\" after the last "
				  "block"));
	assert_int_equal(a->mesh_count, clean->mesh_count);
	for (uint32_t i = 0; i < a->mesh_count; i++) {
		const struct mesh *x = a->meshes[i], *y = clean->meshes[i];

		assert_int_equal(x->vertex_count, y->vertex_count);
		assert_int_equal(x->influence_count, y->influence_count);
		assert_memory_equal(x->influences, y->influences,
				    x->influence_count * sizeof *x->influences);
		assert_memory_equal(x->triangles, y->triangles,
				    x->triangle_count * sizeof *x->triangles);
	}
	assert_memory_equal(a->skeleton->bind_model, clean->skeleton->bind_model,
			    a->skeleton->joint_count * sizeof *a->skeleton->bind_model);
	asset_free(a);
	asset_free(clean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_pose),
		cmocka_unit_test(test_anim),
		cmocka_unit_test(test_root_base_is_file_translation),
		cmocka_unit_test(test_pose_anim),
		cmocka_unit_test(test_import_rejects),
		cmocka_unit_test(test_fixture_files),
		cmocka_unit_test(test_asset_notes),
	};

	/* Everything twice: with the widest SIMD level this CPU has, then
	 * with the baseline kernels. */
	int failed;

	print_message("SIMD level %d\n", (int)math3d_simd_level());
	failed = cmocka_run_group_tests(tests, setup, NULL);
	if (math3d_simd_level() != MATH3D_SIMD_BASE) {
		math3d_simd_limit(MATH3D_SIMD_BASE);
		print_message("SIMD level %d\n", (int)math3d_simd_level());
		failed += cmocka_run_group_tests(tests, setup, NULL);
	}
	return failed != 0;
}
