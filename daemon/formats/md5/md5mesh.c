/*
 * md5mesh.c - the .md5mesh parser: header, joints, then numMeshes mesh
 * blocks in Doom's order (name?, shader, verts, tris, weights).  One pass;
 * the only allocations are the arrays, sized from counts that have been
 * checked against the bytes left, and the names.
 */
#include "daemon/formats/md5/md5.h"

#include <errno.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5_common.h"

/* The fewest bytes each kind of line can take (no optional whitespace),
 * e.g. `vert 0(0 0)0 1`.  Counts are held against them before anything is
 * allocated, so they must never exceed what a valid file can use. */
#define MD5_MESH_JOINT_BYTES  17        /* ""0(0 0 0)(0 0 0) */
#define MD5_MESH_MESH_BYTES   47        /* mesh{shader""numverts 0 numtris 0 numweights 0} */
#define MD5_MESH_VERT_BYTES   14        /* vert 0(0 0)0 1 */
#define MD5_MESH_TRI_BYTES    11        /* tri 0 0 0 0 */
#define MD5_MESH_WEIGHT_BYTES 19        /* weight 0 0 0(0 0 0) */

/* A vert line is always eight tokens: vert i ( s t ) firstWeight
 * weightCount.  The weight-range error is found only once numweights is
 * known, so the line is found again by counting tokens. */
#define MD5_MESH_VERT_TOKENS 8
#define MD5_MESH_VERT_FIRST  6

static const char *md5_mesh_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static int md5_mesh_joints(struct lexer *lx, struct md5_model *m)
{
	uint32_t i;
	int rc;

	if (lex_expect_word(lx, "joints") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < m->num_joints; i++) {
		struct md5_joint *j = &m->joints[i];
		struct lex_token tok;
		int64_t parent;

		rc = md5_common_more(lx, "joints", i, "numJoints", m->num_joints);
		if (rc < 0)
			return rc;
		rc = md5_common_name(lx, "joint name", &j->name);
		if (rc < 0)
			return rc;
		rc = md5_common_int(lx, "joint parent", INT64_MIN, INT64_MAX, &parent, &tok);
		if (rc < 0)
			return rc;
		if (parent < -1 || parent >= (int64_t)i) {
			diag_at(lx->diag, tok.line, tok.col,
				"joint %lu \"%.40s\" has parent %lld; a parent must be -1 or an earlier joint",
				(unsigned long)i, j->name, (long long)parent);
			return -EINVAL;
		}
		j->parent = (int32_t)parent;
		if (md5_common_vec(lx, "joint position", j->pos, 3) < 0 ||
		    md5_common_vec(lx, "joint orientation", j->orient, 3) < 0)
			return -EINVAL;
		j->orient[3] = md5_quat_w(j->orient[0], j->orient[1], j->orient[2]);
	}
	return md5_common_close(lx, "numJoints", m->num_joints);
}

/* Returns the largest firstWeight + weightCount, which must not exceed
 * numweights (checked later). */
static int md5_mesh_verts(struct lexer *lx, struct md5_mesh *mesh, uint64_t *max_end)
{
	uint32_t i;
	int rc;

	*max_end = 0;
	for (i = 0; i < mesh->num_verts; i++) {
		struct md5_vert *v = &mesh->verts[i];
		struct lex_token tok;
		int64_t first, count;

		if (md5_common_line(lx, "vert", i, "numverts", mesh->num_verts) < 0 ||
		    md5_common_index(lx, "vert", i) < 0 ||
		    md5_common_vec(lx, "vert texture coordinate", v->st, 2) < 0)
			return -EINVAL;
		rc = md5_common_int(lx, "vert firstWeight", 0, UINT32_MAX, &first, NULL);
		if (rc < 0)
			return rc;
		rc = md5_common_int(lx, "vert weightCount", 0, UINT32_MAX, &count, &tok);
		if (rc < 0)
			return rc;
		if (count == 0) {
			diag_at(lx->diag, tok.line, tok.col,
				"vert %lu has weightCount 0; every vertex needs at least one weight",
				(unsigned long)i);
			return -EINVAL;
		}
		v->first_weight = (uint32_t)first;
		v->weight_count = (uint32_t)count;
		if ((uint64_t)first + (uint64_t)count > *max_end)
			*max_end = (uint64_t)first + (uint64_t)count;
	}
	return 0;
}

/* Report the first vert whose weights run past numweights, at its
 * firstWeight token.  at is the lexer as it stood before the first vert:
 * lexing again from there is cheap and only happens on this error path,
 * which keeps the happy path free of per-vertex positions. */
static int md5_mesh_bad_vert(const struct lexer *at, const struct md5_mesh *mesh)
{
	struct lexer lx = *at;
	struct lex_token tok = { 0 };
	const struct md5_vert *v = NULL;
	uint64_t skip;
	uint32_t i;

	for (i = 0; i < mesh->num_verts; i++) {
		v = &mesh->verts[i];
		if ((uint64_t)v->first_weight + v->weight_count > mesh->num_weights)
			break;
	}
	if (v == NULL || i == mesh->num_verts)
		return -EINVAL;         /* not reached: the caller saw one */
	for (skip = (uint64_t)i * MD5_MESH_VERT_TOKENS + MD5_MESH_VERT_FIRST + 1; skip > 0; skip--)
		if (lex_next(&lx, &tok) < 0)
			return -EINVAL;
	diag_at(lx.diag, tok.line, tok.col,
		"vert %lu uses weights %lu..%llu but the mesh has %lu weight%s",
		(unsigned long)i, (unsigned long)v->first_weight,
		(unsigned long long)v->first_weight + v->weight_count - 1,
		(unsigned long)mesh->num_weights, md5_mesh_plural(mesh->num_weights));
	return -EINVAL;
}

static int md5_mesh_tris(struct lexer *lx, struct md5_mesh *mesh)
{
	uint32_t i, k;
	int rc;

	for (i = 0; i < mesh->num_tris; i++) {
		if (md5_common_line(lx, "tri", i, "numtris", mesh->num_tris) < 0 ||
		    md5_common_index(lx, "tri", i) < 0)
			return -EINVAL;
		for (k = 0; k < 3; k++) {
			struct lex_token tok;
			int64_t idx;

			rc = md5_common_int(lx, "tri vertex index", INT64_MIN, INT64_MAX, &idx, &tok);
			if (rc < 0)
				return rc;
			if (idx < 0 || idx >= (int64_t)mesh->num_verts) {
				diag_at(lx->diag, tok.line, tok.col,
					"tri %lu vertex index %lld is out of range (numverts %lu)",
					(unsigned long)i, (long long)idx,
					(unsigned long)mesh->num_verts);
				return -EINVAL;
			}
			mesh->tris[i][k] = (uint32_t)idx;
		}
	}
	return 0;
}

static int md5_mesh_weights(struct lexer *lx, struct md5_mesh *mesh, uint32_t num_joints)
{
	uint32_t i;
	int rc;

	for (i = 0; i < mesh->num_weights; i++) {
		struct md5_weight *w = &mesh->weights[i];
		struct lex_token tok;
		int64_t joint;

		if (md5_common_line(lx, "weight", i, "numweights", mesh->num_weights) < 0 ||
		    md5_common_index(lx, "weight", i) < 0)
			return -EINVAL;
		rc = md5_common_int(lx, "weight joint", INT64_MIN, INT64_MAX, &joint, &tok);
		if (rc < 0)
			return rc;
		if (joint < 0 || joint >= (int64_t)num_joints) {
			diag_at(lx->diag, tok.line, tok.col,
				"weight %lu names joint %lld but the mesh has %lu joint%s",
				(unsigned long)i, (long long)joint, (unsigned long)num_joints,
				md5_mesh_plural(num_joints));
			return -EINVAL;
		}
		w->joint = (uint32_t)joint;
		if (lex_expect_float(lx, "weight bias", &w->bias) < 0 ||
		    md5_common_vec(lx, "weight position", w->pos, 3) < 0)
			return -EINVAL;
	}
	return 0;
}

static int md5_mesh_block(struct lexer *lx, struct md5_mesh *mesh, uint32_t num_joints)
{
	struct lex_token tok;
	struct lexer verts_at;
	uint64_t max_end;
	int rc;

	if (lex_expect_word(lx, "mesh") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	/* Doom accepts an optional name before the shader. */
	if (lex_peek(lx, &tok) < 0)
		return -EINVAL;
	if (lex_is_word(&tok, "name")) {
		(void)lex_next(lx, &tok);
		rc = md5_common_name(lx, "mesh name", &mesh->name);
		if (rc < 0)
			return rc;
	}
	if (lex_expect_word(lx, "shader") < 0)
		return -EINVAL;
	rc = md5_common_name(lx, "shader", &mesh->shader);
	if (rc < 0)
		return rc;

	rc = md5_common_count(lx, "numverts", 0, UINT32_MAX, MD5_MESH_VERT_BYTES,
			      &mesh->num_verts);
	if (rc < 0)
		return rc;
	mesh->verts = md5_common_calloc(mesh->num_verts, sizeof *mesh->verts);
	if (mesh->verts == NULL)
		return md5_common_nomem(lx);
	verts_at = *lx;
	rc = md5_mesh_verts(lx, mesh, &max_end);
	if (rc < 0)
		return rc;

	rc = md5_common_count(lx, "numtris", 0, UINT32_MAX, MD5_MESH_TRI_BYTES,
			      &mesh->num_tris);
	if (rc < 0)
		return rc;
	mesh->tris = md5_common_calloc(mesh->num_tris, sizeof *mesh->tris);
	if (mesh->tris == NULL)
		return md5_common_nomem(lx);
	rc = md5_mesh_tris(lx, mesh);
	if (rc < 0)
		return rc;

	rc = md5_common_count(lx, "numweights", 0, UINT32_MAX, MD5_MESH_WEIGHT_BYTES,
			      &mesh->num_weights);
	if (rc < 0)
		return rc;
	if (max_end > mesh->num_weights)
		return md5_mesh_bad_vert(&verts_at, mesh);
	mesh->weights = md5_common_calloc(mesh->num_weights, sizeof *mesh->weights);
	if (mesh->weights == NULL)
		return md5_common_nomem(lx);
	rc = md5_mesh_weights(lx, mesh, num_joints);
	if (rc < 0)
		return rc;
	return lex_expect_punct(lx, '}');
}

static int md5_mesh_body(struct lexer *lx, struct md5_model *m)
{
	uint32_t i;
	int rc;

	rc = md5_common_header(lx, &m->commandline);
	if (rc < 0)
		return rc;
	rc = md5_common_count(lx, "numJoints", 1, MD5_MAX_JOINTS, MD5_MESH_JOINT_BYTES,
			      &m->num_joints);
	if (rc < 0)
		return rc;
	rc = md5_common_count(lx, "numMeshes", 0, MD5_MAX_MESHES, MD5_MESH_MESH_BYTES,
			      &m->num_meshes);
	if (rc < 0)
		return rc;
	m->joints = md5_common_calloc(m->num_joints, sizeof *m->joints);
	m->meshes = md5_common_calloc(m->num_meshes, sizeof *m->meshes);
	if (m->joints == NULL || m->meshes == NULL)
		return md5_common_nomem(lx);
	rc = md5_mesh_joints(lx, m);
	if (rc < 0)
		return rc;
	for (i = 0; i < m->num_meshes; i++) {
		rc = md5_mesh_block(lx, &m->meshes[i], m->num_joints);
		if (rc < 0)
			return rc;
	}
	return md5_common_end(lx, &m->notes);
}

int md5_mesh_parse(const char *buf, size_t len, struct md5_model **out, struct diag *d)
{
	struct md5_model *m;
	struct lexer lx;
	int rc;

	lex_init(&lx, buf, len, MD5_PUNCTS, 0, d);
	m = calloc(1, sizeof *m);
	if (m == NULL)
		return md5_common_nomem(&lx);
	rc = md5_mesh_body(&lx, m);
	if (rc < 0) {
		md5_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void md5_model_free(struct md5_model *m)
{
	uint32_t i;

	if (m == NULL)
		return;
	if (m->joints != NULL)
		for (i = 0; i < m->num_joints; i++)
			free(m->joints[i].name);
	if (m->meshes != NULL)
		for (i = 0; i < m->num_meshes; i++) {
			free(m->meshes[i].name);
			free(m->meshes[i].shader);
			free(m->meshes[i].verts);
			free(m->meshes[i].tris);
			free(m->meshes[i].weights);
		}
	free(m->joints);
	free(m->meshes);
	free(m->commandline);
	free(m);
}
