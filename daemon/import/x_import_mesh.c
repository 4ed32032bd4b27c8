/*
 * x_import_mesh.c - .x meshes: vertices, faces (fans of triangles),
 * normals, texture coordinates, materials, vertex colours and skin
 * weights, as meshes on the file's skeleton (mesh.h).
 *
 * A mesh with SkinWeights follows its bones as D3DX skins it,
 * v' = sum w * v * offset * Combined(bone) in row form: each influence
 * stores offset * v in the bone's space, and its normal through the
 * offset's inverse transpose.  A vertex no bone weighs stays with the
 * mesh's frame.  A mesh without weights is rigid: every vertex is in the
 * space of the frame that holds the mesh, as Direct3D draws it with that
 * frame's combined matrix.
 *
 * A SkinWeights naming a bone no frame has (assimp's anim_test.x names two
 * the hierarchy lacks) does not fail the file: its weights are dropped,
 * the vertices it alone moved stay with the mesh's frame, and the import
 * counts them (x_model.unknown_bones) so the loader can say so.
 *
 * What a mesh needs only while it is read (positions and normals until
 * they are in its influences, the corners of every face, material indexes
 * per face, counts) lives in the tree's arena, freed with the tree; what
 * the mesh keeps (triangles, uvs, influences, materials) is malloc'd.
 */
#include "daemon/import/x_import_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one Mesh object holds, read before the runtime mesh is built. */
struct x_mesh_src {
	const struct x_object *o;
	struct x_tree *arena;           /* the tree, for temporaries */
	int32_t frame;                  /* joint that holds the mesh */
	uint32_t vertex_count;
	vec3 *positions;                /* in the arena */
	uint32_t triangle_count;
	uint32_t (*triangles)[3];
	vec3 *normals;                  /* per vertex, or NULL; in the arena */
	float (*uvs)[2];                /* per vertex, or NULL */
	uint32_t uv_sets;
	float (*colors)[4];             /* per vertex, or NULL */
	const char *material;
	const uint32_t *corner_start;   /* face_count + 1, while reading */
	uint32_t face_count;
	uint32_t material_count;
	struct mesh_material *materials;
	uint32_t *triangle_material;
	char unread[96];                /* templates present but not evaluated */
	/* Skin: one entry per weight that names a known bone. */
	uint32_t weight_count;
	uint32_t *w_vertex, *w_joint, *w_set;
	float *w_value;
	vec3 *w_pos;                    /* offset * v: in the bone's space */
	mat34 *set_mat;                 /* per known SkinWeights: its offset's
					   inverse transpose, for normals */
	uint32_t set_count;
	uint32_t bones_declared;        /* XSkinMeshHeader nBones, or UINT32_MAX */
	uint32_t skin_objects;
	uint32_t header_pos;
};

static void x_mesh_src_free(struct x_mesh_src *s)
{
	free(s->triangles);
	free(s->uvs);
	free(s->w_vertex);
	free(s->w_joint);
	free(s->w_set);
	free(s->set_mat);
	free(s->w_value);
	free(s->w_pos);
	free(s->colors);
	for (uint32_t i = 0; s->materials != NULL && i < s->material_count; i++) {
		free(s->materials[i].name);
		free(s->materials[i].texture);
	}
	free(s->materials);
	free(s->triangle_material);
}

static int x_read_vec3s(struct x_reader *r, const char *what, uint32_t n, vec3 *out, bool any)
{
	enum { BLOCK = 128 };
	float v[3 * BLOCK];

	for (uint32_t i = 0; i < n; i += BLOCK) {
		uint32_t m = n - i < BLOCK ? n - i : BLOCK;
		int rc = any ? x_read_floats_any(r, what, v, 3 * m) : x_read_floats(r, what, v, 3 * m);

		if (rc < 0)
			return rc;
		for (uint32_t k = 0; k < m; k++)
			out[i + k] = vec3_make(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
	}
	return 0;
}

/*
 * Faces: nFaces, then per face n and n indices below `limit`.  Each face
 * of 3 or more corners becomes a fan of n - 2 triangles (fewer corners:
 * nothing to draw; *tris malloc'd).  With corners != NULL, the corner
 * indices of every face are also returned flat (for matching normals to
 * faces), in the arena.
 */
static int x_read_faces(struct x_reader *r, struct x_tree *arena, const char *what,
			uint32_t limit, uint32_t *face_count, uint32_t (**tris)[3],
			uint32_t *tri_count, uint32_t **corners, uint32_t **corner_start)
{
	const struct x_value *vals = r->o->values;
	uint32_t nf, total = 0, at = 0, t = 0, next, count = r->o->value_count;
	uint32_t start_next = r->next;
	int rc = x_read_count(r, what, 1, &nf);

	if (rc < 0)
		return rc;
	/* First pass: sizes, and every index checked.  The common case is
	 * read in place; anything else goes through x_read_count and
	 * x_read_uint for their messages. */
	next = r->next;
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t n;

		/* Faces are many: the message naming this one is only written
		 * when x_read_count is about to fail. */
		if (next < count && vals[next].kind == X_VALUE_INT &&
		    (uint64_t)vals[next].v.i <= count - next - 1) {
			n = (uint32_t)vals[next++].v.i;
		} else {
			char label[64];

			snprintf(label, sizeof label, "the corner count of face %u", f);
			r->next = next;
			if (x_read_count(r, label, 1, &n) < 0)
				return -EINVAL;
			next = r->next;
		}
		/* The count was checked against the values left: all n are
		 * there. */
		for (uint32_t k = 0; k < n; k++, next++) {
			uint32_t idx, pos;

			if (vals[next].kind == X_VALUE_INT && (uint64_t)vals[next].v.i < limit)
				continue;
			r->next = next;
			pos = x_reader_pos(r);
			if (x_read_uint(r, "a face index", UINT32_MAX, &idx) < 0)
				return -EINVAL;
			if (idx >= limit)
				return x_tree_error(r->t, r->d, pos,
						     "face %u uses index %u, but there are only %u", f,
						     idx, limit);
		}
		total += n;
		if (n >= 3)
			t += n - 2;
	}
	r->next = next;
	*face_count = nf;
	if (tris != NULL) {
		*tris = malloc(((size_t)t + 1) * sizeof **tris);
		if (*tris == NULL)
			return -ENOMEM;
		*tri_count = t;
	}
	if (corners != NULL) {
		*corners = x_tree_alloc(arena, ((size_t)total + 1) * sizeof **corners);
		*corner_start = x_tree_alloc(arena, ((size_t)nf + 1) * sizeof **corner_start);
		if (*corners == NULL || *corner_start == NULL)
			return -ENOMEM;
	}
	/* Second pass over the values just checked. */
	next = start_next + 1;
	t = 0;
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t n = (uint32_t)vals[next++].v.i;
		const struct x_value *idx = &vals[next];

		if (corners != NULL) {
			(*corner_start)[f] = at;
			for (uint32_t k = 0; k < n; k++)
				(*corners)[at++] = (uint32_t)idx[k].v.i;
		}
		for (uint32_t k = 2; tris != NULL && k < n; k++, t++) {
			(*tris)[t][0] = (uint32_t)idx[0].v.i;
			(*tris)[t][1] = (uint32_t)idx[k - 1].v.i;
			(*tris)[t][2] = (uint32_t)idx[k].v.i;
		}
		next += n;
	}
	if (corners != NULL)
		(*corner_start)[nf] = at;
	return 0;
}

/* Per-vertex normals from MeshNormals: each face corner gives its vertex
 * the corner's normal; a vertex shared by corners with different normals
 * (a hard edge) gets their average.  Faces must match the mesh's. */
static int x_mesh_normals(const struct x_tree *t, const struct x_object *o, struct x_mesh_src *s,
			  const uint32_t *vcorners, const uint32_t *vstart, uint32_t face_count,
			  struct diag *d)
{
	struct x_reader r;
	uint32_t n, nf = 0, *corners = NULL, *start = NULL;
	vec3 *normals = NULL;
	int rc;

	x_reader_init(&r, t, o, d);
	rc = x_read_count(&r, "nNormals", 3, &n);
	if (rc == 0 && (normals = x_tree_alloc(s->arena, ((size_t)n + 1) * sizeof *normals)) == NULL)
		rc = -ENOMEM;
	if (rc == 0)
		rc = x_read_vec3s(&r, "a normal", n, normals, true);
	if (rc == 0)
		rc = x_read_faces(&r, s->arena, "nFaceNormals", n, &nf, NULL, NULL, &corners, &start);
	if (rc == 0 && nf != face_count)
		rc = x_tree_error(t, d, o->pos, "MeshNormals has %u faces, the mesh %u", nf,
				   face_count);
	if (rc == 0) {
		/* A second MeshNormals wins. */
		s->normals = x_tree_alloc(s->arena, ((size_t)s->vertex_count + 1) * sizeof *s->normals);
		if (s->normals == NULL)
			rc = -ENOMEM;
		else
			memset(s->normals, 0, ((size_t)s->vertex_count + 1) * sizeof *s->normals);
	}
	for (uint32_t f = 0; rc == 0 && f < nf; f++) {
		if (start[f + 1] - start[f] != vstart[f + 1] - vstart[f]) {
			rc = x_tree_error(t, d, o->pos,
					   "MeshNormals face %u has %u corners, the mesh's face %u", f,
					   start[f + 1] - start[f], vstart[f + 1] - vstart[f]);
			break;
		}
		for (uint32_t k = start[f]; k < start[f + 1]; k++) {
			vec3 nv = normals[corners[k]];
			vec3 *acc = &s->normals[vcorners[vstart[f] + (k - start[f])]];

			/* Exporters write 1.#IND for the normal of a degenerate
			 * face: it adds nothing. */
			if (isfinite(nv.x) && isfinite(nv.y) && isfinite(nv.z))
				*acc = vec3_add(*acc, nv);
		}
	}
	for (uint32_t v = 0; rc == 0 && v < s->vertex_count; v++) {
		vec3 *a = &s->normals[v];
		float len = sqrtf(a->x * a->x + a->y * a->y + a->z * a->z);

		if (len > 0)
			*a = vec3_scale(*a, 1.0f / len);
	}
	return rc;
}

/* MeshTextureCoords: animd keeps the coordinates but publishes only how
 * many sets there are, and evaluates none: a set that is not one per
 * vertex, or holds a NaN or an infinity, is left out with a note. */
static int x_mesh_uvs(const struct x_tree *t, const struct x_object *o, struct x_mesh_src *s,
		      struct diag_notes *notes, struct diag *d)
{
	struct x_reader r;
	float (*uvs)[2];
	uint32_t n, bad = UINT32_MAX, bad_pos = 0;
	int rc;

	x_reader_init(&r, t, o, d);
	rc = x_read_count(&r, "nTextureCoords", 2, &n);
	if (rc < 0)
		return rc;
	if (n != s->vertex_count) {
		x_tree_note(t, notes, o->pos, "MeshTextureCoords has %u coordinates for %u vertices: "
			    "the set is left out", n, s->vertex_count);
		return 0;
	}
	uvs = malloc(((size_t)n + 1) * sizeof *uvs);
	if (uvs == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = x_reader_pos(&r);

		if (x_read_floats_any(&r, "a texture coordinate", uvs[i], 2) < 0) {
			free(uvs);
			return -EINVAL;
		}
		if (bad == UINT32_MAX && !(isfinite(uvs[i][0]) && isfinite(uvs[i][1]))) {
			bad = i;
			bad_pos = pos;
		}
	}
	if (bad != UINT32_MAX) {
		x_tree_note(t, notes, bad_pos, "MeshTextureCoords: the coordinate of vertex %u is "
			    "not finite: the set is left out", bad);
		free(uvs);
		return 0;
	}
	s->uv_sets++;
	free(s->uvs);                   /* a second MeshTextureCoords wins */
	s->uvs = uvs;
	return 0;
}

/* A root Material of this name (materials referred to by name), or NULL. */
static const struct x_object *x_find_material(const struct x_tree *t, const char *name)
{
	for (uint32_t i = 0; name != NULL && i < t->root_count; i++)
		if (x_is(t->roots[i], "Material") && t->roots[i]->name != NULL &&
		    strcmp(t->roots[i]->name, name) == 0)
			return t->roots[i];
	return NULL;
}

static char *x_strdup_or_null(const char *s, int *oom)
{
	char *c;

	if (s == NULL)
		return NULL;
	c = strdup(s);
	if (c == NULL)
		*oom = 1;
	return c;
}

/* One Material: faceColor, power, specularColor, emissiveColor, then an
 * optional TextureFilename.  `o` may be NULL for a reference that names
 * no material: the name alone is kept. */
static int x_material(const struct x_tree *t, const struct x_object *o, const char *name,
		      struct mesh_material *out, struct diag *d)
{
	struct x_reader r;
	int oom = 0;

	memset(out, 0, sizeof *out);
	out->diffuse[0] = out->diffuse[1] = out->diffuse[2] = out->diffuse[3] = 1.0f;
	out->name = x_strdup_or_null(name, &oom);
	if (o != NULL) {
		x_reader_init(&r, t, o, d);
		if (x_read_floats(&r, "a faceColor component", out->diffuse, 4) < 0 ||
		    x_read_float(&r, "the material's power", &out->power) < 0 ||
		    x_read_floats(&r, "a specularColor component", out->specular, 3) < 0 ||
		    x_read_floats(&r, "an emissiveColor component", out->emissive, 3) < 0)
			return -EINVAL;
		for (uint32_t k = 0; k < o->child_count; k++) {
			const struct x_object *tf = o->children[k];

			if ((x_is(tf, "TextureFilename") || x_is(tf, "TextureFileName")) &&
			    tf->value_count > 0 && tf->values[0].kind == X_VALUE_STRING &&
			    out->texture == NULL)
				out->texture = x_strdup_or_null(tf->values[0].v.s.ptr, &oom);
		}
	}
	return oom ? -ENOMEM : 0;
}

/*
 * MeshMaterialList: nMaterials, nFaceIndexes, a material index per face,
 * then the materials (inline, or references to root Materials).  Faces
 * beyond the indexes given take the last one (exporters write a single
 * index for a one-material mesh).  Each face's triangles get its material.
 */
static int x_mesh_materials(const struct x_tree *t, const struct x_object *o, struct x_mesh_src *s,
			    struct diag *d)
{
	struct x_reader r;
	uint32_t nm, ni, given = 0, last = 0, tri = 0, *face = NULL;
	int rc;

	x_reader_init(&r, t, o, d);
	if (x_read_uint(&r, "nMaterials", UINT32_MAX, &nm) < 0 ||
	    x_read_count(&r, "nFaceIndexes", 1, &ni) < 0)
		return -EINVAL;
	face = x_tree_alloc(s->arena, ((size_t)s->face_count + 1) * sizeof *face);
	if (face == NULL)
		return -ENOMEM;
	for (uint32_t f = 0; f < ni; f++) {
		const struct x_value *v = &o->values[r.next];
		uint32_t pos, idx;

		/* x_read_count made sure the ni values are there; the common
		 * case is read in place, the rest through x_read_uint. */
		if (v->kind == X_VALUE_INT && (uint64_t)v->v.i < nm) {
			idx = (uint32_t)v->v.i;
			r.next++;
		} else {
			pos = x_reader_pos(&r);
			if (x_read_uint(&r, "a face's material index", UINT32_MAX, &idx) < 0)
				return -EINVAL;
			if (idx >= nm)
				return x_tree_error(t, d, pos, "face %u uses material %u, but the "
						     "list has %u", f, idx, nm);
		}
		if (f < s->face_count)
			face[given++] = idx;
		last = idx;
	}
	for (uint32_t f = given; f < s->face_count; f++)
		face[f] = last;
	/* The materials, in order: inline ones and references alike. */
	s->materials = calloc((size_t)nm + 1, sizeof *s->materials);
	s->triangle_material = malloc(((size_t)s->triangle_count + 1) * sizeof *s->triangle_material);
	if (s->materials == NULL || s->triangle_material == NULL)
		return -ENOMEM;
	rc = 0;
	for (uint32_t i = 0; rc == 0 && i < o->child_count; i++) {
		const struct x_object *c = o->children[i];

		if (c->type != NULL && !x_is(c, "Material"))
			continue;
		if (s->material_count == nm) {
			rc = x_tree_error(t, d, c->pos, "MeshMaterialList declares %u materials but holds more", nm);
			break;
		}
		rc = x_material(t, c->type != NULL ? c : x_find_material(t, c->name), c->name,
				&s->materials[s->material_count++], d);
	}
	if (rc == 0 && s->material_count < nm)
		rc = x_tree_error(t, d, o->pos, "MeshMaterialList declares %u materials but holds %u",
				  nm, s->material_count);
	for (uint32_t f = 0; rc == 0 && f < s->face_count; f++) {
		uint32_t corners = s->corner_start[f + 1] - s->corner_start[f];

		for (uint32_t k = 2; k < corners; k++) {
			s->triangle_material[tri++] = face[f];
			s->materials[face[f]].triangle_count++;
		}
	}
	/* What the mesh's `material` has always said: the first material's
	 * texture, else its name. */
	if (rc == 0 && s->material_count > 0)
		s->material = s->materials[0].texture ? s->materials[0].texture : s->materials[0].name;
	return rc;
}

/* MeshVertexColors: nVertexColors, then {vertex index, r g b a}.  animd
 * keeps the colours but publishes only that there are some: an entry
 * colouring no vertex, or with a NaN or an infinity, is left out with a
 * note (the vertex keeps white). */
static int x_mesh_colors(const struct x_tree *t, const struct x_object *o, struct x_mesh_src *s,
			 struct diag_notes *notes, struct diag *d)
{
	struct x_reader r;
	uint32_t n;

	x_reader_init(&r, t, o, d);
	if (x_read_count(&r, "nVertexColors", 5, &n) < 0)
		return -EINVAL;
	free(s->colors);
	s->colors = calloc((size_t)s->vertex_count + 1, sizeof *s->colors);
	if (s->colors == NULL)
		return -ENOMEM;
	for (uint32_t v = 0; v < s->vertex_count; v++)
		s->colors[v][0] = s->colors[v][1] = s->colors[v][2] = s->colors[v][3] = 1.0f;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = x_reader_pos(&r), v;
		float c[4];

		if (x_read_uint(&r, "a vertex colour's index", UINT32_MAX, &v) < 0 ||
		    x_read_floats_any(&r, "a vertex colour component", c, 4) < 0)
			return -EINVAL;
		if (v >= s->vertex_count)
			x_tree_note(t, notes, pos, "MeshVertexColors colours vertex %u, but the mesh "
				    "has %u: the entry is left out", v, s->vertex_count);
		else if (!(isfinite(c[0]) && isfinite(c[1]) && isfinite(c[2]) && isfinite(c[3])))
			x_tree_note(t, notes, pos, "MeshVertexColors: the colour of vertex %u is not "
				    "finite: the entry is left out", v);
		else
			memcpy(s->colors[v], c, sizeof c);
	}
	return 0;
}

/* Note a child template the mesh carries but animd does not evaluate. */
static void x_mesh_unread(struct x_mesh_src *s, const char *type)
{
	size_t len = strlen(s->unread);

	if (strstr(s->unread, type) != NULL)
		return;
	snprintf(s->unread + len, sizeof s->unread - len, "%s%s", len ? ", " : "", type);
}

static int x_mesh_skin_header(const struct x_tree *t, const struct x_object *o,
			      struct x_mesh_src *s, struct diag *d)
{
	struct x_reader r;
	uint32_t per_vertex, per_face;

	x_reader_init(&r, t, o, d);
	s->header_pos = o->pos;
	if (x_read_uint(&r, "nMaxSkinWeightsPerVertex", 0xffff, &per_vertex) < 0 ||
	    x_read_uint(&r, "nMaxSkinWeightsPerFace", 0xffff, &per_face) < 0 ||
	    x_read_uint(&r, "nBones", 0xffff, &s->bones_declared) < 0)
		return -EINVAL;
	return 0;
}

/* Grow the per-weight arrays for n more. */
static int x_mesh_weights_grow(struct x_mesh_src *s, uint32_t n)
{
	size_t want = (size_t)s->weight_count + n + 1;
	void *p;

	if ((p = realloc(s->w_vertex, want * sizeof *s->w_vertex)) == NULL)
		return -ENOMEM;
	s->w_vertex = p;
	if ((p = realloc(s->w_joint, want * sizeof *s->w_joint)) == NULL)
		return -ENOMEM;
	s->w_joint = p;
	if ((p = realloc(s->w_set, want * sizeof *s->w_set)) == NULL)
		return -ENOMEM;
	s->w_set = p;
	if ((p = realloc(s->w_value, want * sizeof *s->w_value)) == NULL)
		return -ENOMEM;
	s->w_value = p;
	if ((p = realloc(s->w_pos, want * sizeof *s->w_pos)) == NULL)
		return -ENOMEM;
	s->w_pos = p;
	if ((p = realloc(s->set_mat, ((size_t)s->set_count + 1) * sizeof *s->set_mat)) == NULL)
		return -ENOMEM;
	s->set_mat = p;
	return 0;
}

/* The bone was bound at its offset's inverse (skeleton.h, skin_bind): the
 * pose in which every vertex this SkinWeights moves is where the file
 * writes it. */
static int x_mesh_skin_bind(struct skeleton *s, uint32_t joint, const mat34 *off)
{
	if (s->skin_bind == NULL) {
		s->skin_bind = malloc(((size_t)s->joint_count + 1) * sizeof *s->skin_bind);
		if (s->skin_bind == NULL)
			return -ENOMEM;
		memcpy(s->skin_bind, s->bind_model, (size_t)s->joint_count * sizeof *s->skin_bind);
	}
	s->skin_bind[joint] = mat34_inverse(off);
	return 0;
}

static int x_mesh_skin_weights(const struct x_tree *t, const struct x_frames *f,
			       const struct x_object *o, struct x_mesh_src *s, struct x_model *m,
			       struct diag *d)
{
	struct x_reader r;
	const char *bone;
	uint32_t n, first;
	float offset[16];
	int32_t joint;
	int rc;

	x_reader_init(&r, t, o, d);
	s->skin_objects++;
	rc = x_read_string(&r, "the bone name (transformNodeName)", &bone);
	if (rc == 0)
		rc = x_read_count(&r, "nWeights", 2, &n);
	if (rc < 0)
		return rc;
	first = r.next;
	/* The offset matrix comes after both arrays. */
	r.next = first + 2 * n;
	if (x_read_floats(&r, "a matrixOffset element", offset, 16) < 0)
		return -EINVAL;
	r.next = first;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v, pos = x_reader_pos(&r);

		if (x_read_uint(&r, "a vertex index", UINT32_MAX, &v) < 0)
			return -EINVAL;
		if (v >= s->vertex_count)
			return x_tree_error(t, d, pos,
					     "SkinWeights \"%s\" weighs vertex %u, but the mesh has %u",
					     bone, v, s->vertex_count);
	}
	for (uint32_t i = 0; i < n; i++) {
		float w;

		if (x_read_float(&r, "a weight", &w) < 0)
			return -EINVAL;
	}
	joint = x_frames_find(f, bone);
	if (joint < 0) {
		if (m->unknown_bones++ == 0)
			snprintf(m->first_unknown_bone, sizeof m->first_unknown_bone, "%s", bone);
		return 0;
	}
	if (x_mesh_weights_grow(s, n) < 0)
		return -ENOMEM;
	{
		mat34 off = x_row_to_mat34(offset);

		if (x_mesh_skin_bind(m->skeleton, (uint32_t)joint, &off) < 0)
			return -ENOMEM;
		mesh_normal_matrices(1, &off, &s->set_mat[s->set_count]);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = s->weight_count++;
			uint32_t v = (uint32_t)o->values[first + i].v.i;
			const struct x_value *wv = &o->values[first + n + i];

			s->w_vertex[k] = v;
			s->w_joint[k] = (uint32_t)joint;
			s->w_set[k] = s->set_count;
			s->w_value[k] = (float)(wv->kind == X_VALUE_FLOAT ? wv->v.f : (double)wv->v.i);
			s->w_pos[k] = mat34_apply(&off, s->positions[v]);
		}
		s->set_count++;
	}
	return 0;
}

static int x_mesh_read(const struct x_tree *t, const struct x_frames *f, struct x_mesh_src *s,
		       struct x_model *m, struct diag *d)
{
	const struct x_object *o = s->o;
	uint32_t *corners = NULL, *start = NULL, face_count = 0;
	struct x_reader r;
	int rc;

	s->bones_declared = UINT32_MAX;
	x_reader_init(&r, t, o, d);
	rc = x_read_count(&r, "nVertices", 3, &s->vertex_count);
	if (rc == 0) {
		s->positions = x_tree_alloc(s->arena,
					    ((size_t)s->vertex_count + 1) * sizeof *s->positions);
		if (s->positions == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = x_read_vec3s(&r, "a vertex coordinate", s->vertex_count, s->positions, false);
	if (rc == 0)
		rc = x_read_faces(&r, s->arena, "nFaces", s->vertex_count, &face_count, &s->triangles,
				  &s->triangle_count, &corners, &start);
	s->corner_start = start;
	s->face_count = face_count;
	for (uint32_t i = 0; rc == 0 && i < o->child_count; i++) {
		const struct x_object *c = o->children[i];

		if (x_is(c, "MeshNormals"))
			rc = x_mesh_normals(t, c, s, corners, start, face_count, d);
		else if (x_is(c, "MeshTextureCoords"))
			rc = x_mesh_uvs(t, c, s, &m->notes, d);
		else if (x_is(c, "MeshMaterialList") && s->materials == NULL)
			rc = x_mesh_materials(t, c, s, d);
		else if (x_is(c, "MeshVertexColors"))
			rc = x_mesh_colors(t, c, s, &m->notes, d);
		else if (x_is(c, "XSkinMeshHeader"))
			rc = x_mesh_skin_header(t, c, s, d);
		else if (x_is(c, "SkinWeights"))
			rc = x_mesh_skin_weights(t, f, c, s, m, d);
		else if (x_is(c, "DeclData") || x_is(c, "FVFData") || x_is(c, "MeshFaceWraps") ||
			 x_is(c, "VertexDuplicationIndices") || x_is(c, "MeshMaterialList"))
			x_mesh_unread(s, c->type);
	}
	s->corner_start = NULL;
	/* nBones says how many SkinWeights follow; animd skins with the
	 * SkinWeights themselves and uses nBones for nothing. */
	if (rc == 0 && s->bones_declared != UINT32_MAX && s->bones_declared != s->skin_objects)
		x_tree_note(t, &m->notes, s->header_pos,
			    "XSkinMeshHeader declares %u bones, but the mesh has %u SkinWeights: "
			    "nBones is not used", s->bones_declared, s->skin_objects);
	return rc;
}

/* Move what was read of materials and colours into the mesh. */
static int x_mesh_take_extras(struct x_mesh_src *s, struct mesh *me)
{
	me->material_count = s->material_count;
	me->materials = s->materials;
	me->triangle_material = s->triangle_material;
	me->colors = s->colors;
	me->uv_sets = s->uv_sets;
	s->materials = NULL;
	s->material_count = 0;
	s->triangle_material = NULL;
	s->colors = NULL;
	if (s->unread[0] != '\0' && (me->unread = strdup(s->unread)) == NULL)
		return -ENOMEM;
	return 0;
}

/* The runtime mesh from what was read. */
static int x_mesh_build(struct x_mesh_src *s, uint32_t index, struct mesh **out)
{
	struct mesh *me = calloc(1, sizeof *me);
	uint32_t n = s->vertex_count, *count = NULL, total = 0;
	char fallback[32];
	int rc = -ENOMEM;

	if (me == NULL)
		return -ENOMEM;
	snprintf(fallback, sizeof fallback, "mesh%u", index);
	me->name = strdup(s->o->name ? s->o->name : fallback);
	me->material = s->material ? strdup(s->material) : NULL;
	me->normals = s->normals != NULL ? MESH_NORMALS_SKINNED : MESH_NORMALS_NONE;
	me->vertex_count = n;
	me->triangle_count = s->triangle_count;
	count = x_tree_alloc(s->arena, ((size_t)n + 1) * sizeof *count);
	me->first_influence = malloc(((size_t)n + 1) * sizeof *me->first_influence);
	/* The triangles and uvs as read become the mesh's: moved, not copied. */
	me->triangles = s->triangles;
	s->triangles = NULL;
	if (me->name == NULL || (s->material && me->material == NULL) || count == NULL ||
	    me->first_influence == NULL || me->triangles == NULL)
		goto out;
	memset(count, 0, ((size_t)n + 1) * sizeof *count);
	for (uint32_t k = 0; k < s->weight_count; k++)
		count[s->w_vertex[k]]++;
	for (uint32_t v = 0; v < n; v++) {
		me->first_influence[v] = total;
		total += count[v] ? count[v] : 1;       /* an unweighted vertex: its frame */
	}
	me->first_influence[n] = total;
	me->influence_count = total;
	me->influences = calloc((size_t)total + 1, sizeof *me->influences);
	if (me->influences == NULL)
		goto out;
	memset(count, 0, ((size_t)n + 1) * sizeof *count);
	for (uint32_t k = 0; k < s->weight_count; k++) {
		uint32_t v = s->w_vertex[k];
		struct mesh_influence *in = &me->influences[me->first_influence[v] + count[v]++];

		in->joint = s->w_joint[k];
		in->weight = s->w_value[k];
		in->pos = s->w_pos[k];
		if (s->normals != NULL)
			in->normal = mat34_apply_dir(&s->set_mat[s->w_set[k]], s->normals[v]);
	}
	for (uint32_t v = 0; v < n; v++) {
		if (count[v] == 0) {
			struct mesh_influence *in = &me->influences[me->first_influence[v]];

			in->joint = (uint32_t)s->frame;
			in->weight = 1.0f;
			in->pos = s->positions[v];
			if (s->normals != NULL)
				in->normal = s->normals[v];
		}
	}
	me->uvs = s->uvs;
	s->uvs = NULL;
	rc = x_mesh_take_extras(s, me);
out:
	if (rc < 0)
		mesh_free(me);
	else
		*out = me;
	return rc;
}

int x_import_meshes(struct x_tree *t, const struct x_frames *f, struct x_model *m,
		    struct diag *d)
{
	int rc = 0;

	if (f->mesh_count > 0 && (m->meshes = calloc(f->mesh_count, sizeof *m->meshes)) == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < f->mesh_count; i++) {
		struct x_mesh_src s = { .o = f->meshes[i], .arena = t, .frame = f->mesh_frames[i] };

		rc = x_mesh_read(t, f, &s, m, d);
		if (rc == 0)
			rc = x_mesh_build(&s, i, &m->meshes[m->mesh_count]);
		if (rc == 0)
			m->mesh_count++;
		x_mesh_src_free(&s);
	}
	return rc;
}
