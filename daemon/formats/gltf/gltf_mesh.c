/*
 * gltf_mesh.c - meshes and their primitives (spec 3.7.2).
 *
 * Every mesh is checked, shown by a node or not (its data too, in
 * gltf_finish): a mesh is what animd publishes once a node shows it.
 * Attributes animd reads: POSITION and NORMAL (VEC3: floats, or with
 * KHR_mesh_quantization bytes and shorts, normalised or not), TEXCOORD_0
 * and COLOR_0 (kept, not evaluated), and every JOINTS_n / WEIGHTS_n pair
 * (3.7.3.1: VEC4; joints unsigned bytes or shorts, weights floats or
 * normalised unsigned bytes or shorts), numbered 0.. without gaps, each
 * joints set with its weights set.  Every attribute has POSITION's count.
 * Indices are unsigned scalars.  Morph targets (3.7.2.2): the same number
 * in every primitive, their POSITION and NORMAL deltas VEC3 of the
 * vertices' count; mesh.weights, when given, one per target.
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool is_unsigned_int(uint32_t component)
{
	return component == GLTF_UNSIGNED_BYTE || component == GLTF_UNSIGNED_SHORT ||
	       component == GLTF_UNSIGNED_INT;
}

/* An attribute's accessor of type `type` with `count` elements (count 0:
 * any): its index, used in `role`. */
static int attribute(struct gltf_ctx *c, const struct gltf_where *w, gv v, uint8_t type,
		     uint32_t count, uint32_t role, int32_t *out)
{
	const struct gltf_accessor *a;
	int64_t i;

	if (!gv_integer(c, v, &i))
		return gltf_error(c, w, "must be an accessor index");
	if (i < 0 || (uint64_t)i >= c->m->accessor_count)
		return gltf_error(c, w, "%" PRId64 " names no accessor (the file has %"
				  PRIu32 ")", i, c->m->accessor_count);
	a = &c->m->accessors[i];
	if (a->type != type && type != 0xff)
		return gltf_error(c, w, "accessor %" PRId64 " is not %s",
				  i, type == GLTF_SCALAR ? "SCALAR" : type == GLTF_VEC2 ? "VEC2"
				  : type == GLTF_VEC3 ? "VEC3" : "VEC4");
	if (count > 0 && a->count != count)
		return gltf_error(c, w, "accessor %" PRId64 " has %" PRIu32 " elements, "
				  "the vertices %" PRIu32, i, a->count, count);
	gltf_use(c, (uint32_t)i, role, w);
	*out = (int32_t)i;
	return 0;
}

/* POSITION and NORMAL (and their targets): floats, or quantized. */
static int vector_types(struct gltf_ctx *c, const struct gltf_where *w, int32_t acc,
			bool normal)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];

	if (a->component == GLTF_FLOAT)
		return 0;
	if (a->component == GLTF_UNSIGNED_INT || (normal && !a->normalized))
		return gltf_error(c, w, "accessor %" PRId32 " must be floats%s", acc,
				  normal ? " or normalised bytes or shorts" : ", bytes or shorts");
	if (!c->m->quantized)
		gltf_note(c, w, "bytes or shorts without KHR_mesh_quantization in extensionsUsed: "
			  "read as that extension says");
	return 0;
}

/* "NAME_n": n, or -1. */
static long set_number(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(key, prefix, n) != 0 || key[n] < '0' || key[n] > '9')
		return -1;
	v = strtol(key + n, &end, 10);
	return *end == '\0' && v >= 0 && v < 1000000 ? v : -1;
}

static int parse_sets(struct gltf_ctx *c, const struct gltf_where *wa, gv attrs,
		      struct gltf_primitive *p, uint32_t count)
{
	uint32_t joints = 0, weights = 0;
	int32_t *js, *ws;

	for (gv k_ = gv_first_key(c, attrs); k_ != GV_NONE; k_ = gv_next_key(c, k_)) {
		const char *key = gv_string(c, k_);

		if (key == NULL)
			return -ENOMEM;
		joints += set_number(key, "JOINTS_") >= 0;
		weights += set_number(key, "WEIGHTS_") >= 0;
	}
	if (joints == 0 && weights == 0)
		return 0;
	if (joints != weights)
		return gltf_error(c, wa, "%" PRIu32 " JOINTS_n sets but %" PRIu32 " WEIGHTS_n sets",
				  joints, weights);
	js = gltf_alloc(c, joints, sizeof *js);
	ws = gltf_alloc(c, joints, sizeof *ws);
	if (js == NULL || ws == NULL)
		return -ENOMEM;
	for (gv k_ = gv_first_key(c, attrs); k_ != GV_NONE; k_ = gv_next_key(c, k_)) {
		const char *key = gv_string(c, k_);
		gv v = k_ + 1;
		long j = set_number(key, "JOINTS_"), k = set_number(key, "WEIGHTS_");
		struct gltf_where at = gw_key(*wa, key);
		const struct gltf_accessor *a;

		if (j < 0 && k < 0)
			continue;
		if ((j >= 0 ? j : k) >= (long)joints)
			return gltf_error(c, &at, "sets are numbered 0..%" PRIu32 " in this primitive",
					  joints - 1);
		if (attribute(c, &at, v, GLTF_VEC4, count, j >= 0 ? GLTF_ROLE_JOINTS
								  : GLTF_ROLE_WEIGHTS,
			      j >= 0 ? &js[j] : &ws[k]) < 0)
			return -EINVAL;
		a = &c->m->accessors[j >= 0 ? js[j] : ws[k]];
		if (j >= 0 && (!is_unsigned_int(a->component) || a->normalized))
			return gltf_error(c, &at, "joints must be unsigned bytes or shorts, not "
					  "normalised");
		if (j >= 0 && a->component == GLTF_UNSIGNED_INT)
			gltf_note(c, &at, "joints as unsigned ints (glTF allows bytes and shorts): read "
				  "all the same");
		if (k >= 0 && a->component != GLTF_FLOAT &&
		    !(a->normalized && (a->component == GLTF_UNSIGNED_BYTE ||
					a->component == GLTF_UNSIGNED_SHORT)))
			return gltf_error(c, &at, "weights must be floats or normalised unsigned bytes "
					  "or shorts");
	}
	p->set_count = joints;
	p->joints = js;
	p->weights = ws;
	return 0;
}

static int parse_targets(struct gltf_ctx *c, const struct gltf_where *w, gv arr,
			 struct gltf_primitive *p, uint32_t count)
{
	struct gltf_where wt = gw_key(*w, "targets");
	struct gltf_target *t;

	p->target_count = (uint32_t)gv_size(c, arr);
	t = gltf_alloc(c, p->target_count, sizeof *t);
	if (t == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < p->target_count; k++) {
		gv o = gv_at(c, arr, k), v;
		struct gltf_where at = gw_at(wt, k);

		t[k].position = t[k].normal = -1;
		if (!(gv_kind_of(c, o) == GV_OBJECT))
			return gltf_error(c, &at, "a morph target must be an object");
		if ((v = gv_get(c, o, "POSITION")) != GV_NONE) {
			struct gltf_where av = gw_key(at, "POSITION");

			if (attribute(c, &av, v, GLTF_VEC3, count, GLTF_ROLE_POSITION,
				      &t[k].position) < 0 ||
			    vector_types(c, &av, t[k].position, false) < 0)
				return -EINVAL;
		}
		if ((v = gv_get(c, o, "NORMAL")) != GV_NONE) {
			struct gltf_where av = gw_key(at, "NORMAL");

			if (attribute(c, &av, v, GLTF_VEC3, count, GLTF_ROLE_NORMAL, &t[k].normal) < 0 ||
			    vector_types(c, &av, t[k].normal, false) < 0)
				return -EINVAL;
		}
	}
	p->targets = t;
	return 0;
}

static int parse_primitive(struct gltf_ctx *c, gv o, const struct gltf_where *w,
			   struct gltf_primitive *p)
{
	struct gltf_where wa = gw_key(*w, "attributes");
	uint32_t count = 0;
	uint64_t mode;
	gv attrs, v, targets;

	p->position = p->normal = p->texcoord0 = p->color0 = p->indices = -1;
	if (gj_object(c, w, o, "attributes", true, &attrs) < 0 ||
	    gj_uint(c, w, o, "mode", 0, 6, false, GLTF_TRIANGLES, &mode) < 0 ||
	    gj_index(c, w, o, "material", c->m->material_count, "material", false, &p->material) < 0 ||
	    gj_array(c, w, o, "targets", false, &targets) < 0)
		return -EINVAL;
	p->mode = (uint32_t)mode;
	if ((v = gv_get(c, attrs, "POSITION")) != GV_NONE) {
		struct gltf_where at = gw_key(wa, "POSITION");

		if (attribute(c, &at, v, GLTF_VEC3, 0, GLTF_ROLE_POSITION, &p->position) < 0 ||
		    vector_types(c, &at, p->position, false) < 0)
			return -EINVAL;
		count = c->m->accessors[p->position].count;
	} else {
		gltf_note(c, &wa, "a primitive without POSITION is not drawn (left out)");
		return 0;
	}
	if ((v = gv_get(c, attrs, "NORMAL")) != GV_NONE) {
		struct gltf_where at = gw_key(wa, "NORMAL");

		if (attribute(c, &at, v, GLTF_VEC3, count, GLTF_ROLE_NORMAL, &p->normal) < 0 ||
		    vector_types(c, &at, p->normal, true) < 0)
			return -EINVAL;
	}
	for (gv k_ = gv_first_key(c, attrs); k_ != GV_NONE; k_ = gv_next_key(c, k_)) {
		const char *key = gv_string(c, k_);
		gv value = k_ + 1;
		struct gltf_where at = gw_key(wa, key);

		if (key == NULL)
			return -ENOMEM;
		if (set_number(key, "TEXCOORD_") >= 0) {
			p->texcoord_sets++;
			if (strcmp(key, "TEXCOORD_0") == 0 &&
			    attribute(c, &at, value, GLTF_VEC2, count, GLTF_ROLE_OTHER, &p->texcoord0) < 0)
				return -EINVAL;
		} else if (strcmp(key, "COLOR_0") == 0) {
			if (attribute(c, &at, value, 0xff, count, GLTF_ROLE_OTHER, &p->color0) < 0)
				return -EINVAL;
			if (c->m->accessors[p->color0].type != GLTF_VEC3 &&
			    c->m->accessors[p->color0].type != GLTF_VEC4)
				return gltf_error(c, &at, "colours are VEC3 or VEC4");
		}
	}
	if (parse_sets(c, &wa, attrs, p, count) < 0)
		return -EINVAL;
	if ((v = gv_get(c, o, "indices")) != GV_NONE) {
		struct gltf_where at = gw_key(*w, "indices");
		const struct gltf_accessor *a;

		if (attribute(c, &at, v, GLTF_SCALAR, 0, GLTF_ROLE_INDICES, &p->indices) < 0)
			return -EINVAL;
		a = &c->m->accessors[p->indices];
		if (!is_unsigned_int(a->component) || a->normalized)
			return gltf_error(c, &at, "indices must be unsigned integers");
	}
	return targets != GV_NONE ? parse_targets(c, w, targets, p, count) : 0;
}

static int parse_mesh(struct gltf_ctx *c, gv o, uint32_t i)
{
	struct gltf_mesh *me = &c->m->meshes[i];
	struct gltf_where w = gw_item("meshes", i), wp = gw_key(w, "primitives");
	struct gltf_primitive *prims;
	bool drawn = false;
	gv arr;

	if (gj_string(c, &w, o, "name", false, &me->name) < 0 ||
	    gj_array(c, &w, o, "primitives", true, &arr) < 0 ||
	    gj_float_list(c, &w, o, "weights", &me->weight_count, &me->weights) < 0)
		return -EINVAL;
	if (gv_size(c, arr) == 0)
		return gltf_error(c, &wp, "a mesh needs at least one primitive");
	prims = gltf_alloc(c, gv_size(c, arr), sizeof *prims);
	if (prims == NULL)
		return -ENOMEM;
	me->primitive_count = (uint32_t)gv_size(c, arr);
	me->primitives = prims;
	for (uint32_t k = 0; k < me->primitive_count; k++) {
		gv po = gv_at(c, arr, k);
		struct gltf_where at = gw_at(wp, k);

		if (!(gv_kind_of(c, po) == GV_OBJECT))
			return gltf_error(c, &at, "a primitive must be an object");
		if (parse_primitive(c, po, &at, &prims[k]) < 0)
			return -EINVAL;
		if (prims[k].position < 0)
			continue;
		if (drawn && prims[k].target_count != me->target_count)
			return gltf_error(c, &at, "%" PRIu32 " morph targets, where the primitives "
					  "before have %" PRIu32 " (every primitive has the mesh's)",
					  prims[k].target_count, me->target_count);
		me->target_count = prims[k].target_count;
		drawn = true;
	}
	/* Names of the targets, where an exporter wrote them (Blender, three.js):
	 * taken only when they are T strings. */
	{
		gv names = gv_get(c, gv_get(c, o, "extras"), "targetNames");
		const char **list;

		if ((gv_kind_of(c, names) == GV_ARRAY) && gv_size(c, names) == me->target_count &&
		    me->target_count > 0) {
			list = gltf_alloc(c, me->target_count, sizeof *list);
			if (list == NULL)
				return -ENOMEM;
			for (uint32_t k = 0; k < me->target_count; k++)
				list[k] = gv_string(c, gv_at(c, names, k));
			for (uint32_t k = 0; k < me->target_count && list != NULL; k++)
				if (list[k] == NULL)
					list = NULL;
			me->target_names = list;
		}
	}
	if (me->weight_count > 0 && me->weight_count != me->target_count) {
		struct gltf_where at = gw_key(w, "weights");

		return gltf_error(c, &at, "%" PRIu32 " weights for %" PRIu32 " morph targets",
				  me->weight_count, me->target_count);
	}
	return 0;
}

int gltf_parse_meshes(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;
	gv arr = gv_get(c, 0, "meshes");

	m->meshes = gltf_alloc(c, m->mesh_count, sizeof *m->meshes);
	if (m->meshes == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->mesh_count; i++) {
		gv o;
		int rc = gj_item(c, arr, "meshes", i, &o);

		if (rc == 0)
			rc = parse_mesh(c, o, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}
