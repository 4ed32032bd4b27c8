/*
 * gltf_data.c - gltf_finish: the checks that need the bytes.
 *
 * Buffers: one that something animd reads needs must be there (else an
 * error at its uri); one nothing needs may be missing (a note).  Then the
 * expansion cap (gltf.h), sparse indices, and the data of every accessor
 * by the roles it plays (gltf_internal.h): key times finite and never
 * going back (a repeated time is noted: the later key holds), keys and
 * inverse bind matrices finite, rotations noted when not unit length
 * (normalised at import), positions finite (normals: noted, read as
 * zero), indices below their primitive's vertex count, joints below the
 * joint count of every skin that shows them, weights finite and not
 * negative (sums other than 1 noted: normalised at import).  Errors point
 * at the element's bytes.
 */
#include "daemon/formats/gltf/gltf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where element i of accessor a is (its sparse value when substituted). */
static int element_error(struct gltf_ctx *c, uint32_t accessor, uint32_t i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int element_error(struct gltf_ctx *c, uint32_t accessor, uint32_t i, const char *fmt, ...)
{
	const struct gltf_model *m = c->m;
	const struct gltf_accessor *a = &m->accessors[accessor];
	char msg[DIAG_MSG_MAX - 64];
	uint32_t buffer = 0;
	uint64_t offset = 0;
	bool found = false;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (uint32_t k = 0; k < a->sparse_count && !found; k++) {
		const struct gltf_view *iv = &m->views[a->sparse_index_view];
		const unsigned char *p = m->buffers[iv->buffer].data + iv->offset +
					 a->sparse_index_offset;
		uint32_t idx = a->sparse_index_component == GLTF_UNSIGNED_BYTE ? p[k]
			       : a->sparse_index_component == GLTF_UNSIGNED_SHORT
			       ? bin_le16(p + 2 * (size_t)k) : bin_le32(p + 4 * (size_t)k);

		if (idx == i) {
			const struct gltf_view *vv = &m->views[a->sparse_value_view];

			buffer = vv->buffer;
			offset = vv->offset + a->sparse_value_offset + (uint64_t)k * a->elem_bytes;
			found = true;
		}
	}
	if (!found && a->view >= 0) {
		gltf_element_at(m, a, i, &buffer, &offset);
		found = true;
	}
	if (!found)
		return gltf_error(c, &c->p->where[accessor], "accessor %" PRIu32 " element %" PRIu32
				  ": %s", accessor, i, msg);
	return gltf_data_error(c, buffer, offset, "accessor %" PRIu32 " element %" PRIu32 ": %s",
			       accessor, i, msg);
}

static int check_buffers(struct gltf_ctx *c)
{
	struct gltf_model *m = c->m;

	for (uint32_t i = 0; i < m->buffer_count; i++) {
		struct gltf_buffer *b = &m->buffers[i];
		struct gltf_where w = gw_item("buffers", i), wu = gw_key(w, "uri");
		const char *why = b->why_none != NULL ? b->why_none : "it is missing";

		if (b->attached)
			continue;
		if (b->needed)
			return gltf_error(c, b->kind == GLTF_BUFFER_NONE && b->why_none != NULL &&
					  strcmp(b->why_none, "it has no uri") == 0 ? &w : &wu,
					  "buffer %" PRIu32 "%s%s%s holds data animd reads, but %s", i,
					  b->path ? " (" : "", b->path ? b->path : "", b->path ? ")" : "",
					  why);
		gltf_note(c, &wu, "a buffer that is not there (%s): nothing animd reads is in it",
			  why);
	}
	return 0;
}

/* Floats the import makes of the data, against the cap. */
static int check_expansion(struct gltf_ctx *c, uint64_t file_bytes)
{
	const struct gltf_model *m = c->m;
	uint64_t floats = 0, cap = (uint64_t)GLTF_EXPANSION * file_bytes + GLTF_EXPANSION_FLOOR;

	for (uint32_t i = 0; i < m->accessor_count; i++)
		if (m->accessors[i].used && m->accessors[i].view < 0)
			floats += (uint64_t)m->accessors[i].count * m->accessors[i].ncomp;
	for (uint32_t i = 0; i < m->node_count; i++) {
		const struct gltf_mesh *me;

		if (m->nodes[i].mesh < 0)
			continue;
		me = &m->meshes[m->nodes[i].mesh];
		for (uint32_t p = 0; p < me->primitive_count; p++) {
			const struct gltf_primitive *pr = &me->primitives[p];

			if (pr->position < 0)
				continue;
			floats += (uint64_t)m->accessors[pr->position].count *
				  (14 + 6 * (uint64_t)pr->target_count + 8 * (uint64_t)pr->set_count);
			if (pr->indices >= 0)
				floats += 3 * (uint64_t)m->accessors[pr->indices].count;
		}
	}
	for (uint32_t i = 0; i < m->animation_count; i++) {
		const struct gltf_animation *an = &m->animations[i];

		for (uint32_t k = 0; k < an->channel_count; k++) {
			const struct gltf_sampler *s = &an->samplers[an->channels[k].sampler];

			if (an->channels[k].ignored)
				continue;
			floats += 2 * (uint64_t)m->accessors[s->input].count +
				  2 * (uint64_t)m->accessors[s->output].count *
				  m->accessors[s->output].ncomp;
		}
	}
	for (uint32_t i = 0; i < m->skin_count; i++)
		floats += 16 * (uint64_t)m->skins[i].joint_count;
	if (floats > cap / 4) {
		struct gltf_where top = { 0 };

		return gltf_error(c, &top, "the file would expand to %" PRIu64 " values, more than "
				  "%u times its %" PRIu64 " bytes", floats, GLTF_EXPANSION, file_bytes);
	}
	return 0;
}

static int check_times(struct gltf_ctx *c, uint32_t acc, const float *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return element_error(c, acc, i, "key time %g is not finite", (double)v[i]);
		if (i > 0 && v[i] < v[i - 1])
			return element_error(c, acc, i, "key time %g s comes before the key before it "
					     "(%g s)", (double)v[i], (double)v[i - 1]);
		if (i > 0 && v[i] == v[i - 1])
			gltf_note(c, &c->p->where[acc], "accessor %" PRIu32 ": key %" PRIu32 " repeats "
				  "the time of the key before it (%g s): the later key holds",
				  acc, i, (double)v[i]);
	}
	if (n > 0 && v[0] < 0.0f)
		gltf_note(c, &c->p->where[acc], "accessor %" PRIu32 ": key times start before 0 "
			  "(%g s): sampled from 0", acc, (double)v[0]);
	return 0;
}

/* Whether all n floats are finite: two at a time, an exponent of all ones
 * plus one carrying into its lane's top bit (which the mask cleared). */
static bool all_finite(const float *v, size_t n)
{
	const uint64_t exp = 0x7f8000007f800000ull, one = 0x0080000000800000ull;
	uint64_t bad = 0;
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		uint64_t w;

		memcpy(&w, &v[i], sizeof w);
		bad |= (w & exp) + one;
	}
	if (i < n) {
		uint32_t u;

		memcpy(&u, &v[i], sizeof u);
		bad |= (uint64_t)((u & 0x7f800000u) + 0x00800000u);
	}
	return (bad & 0x8000000080000000ull) == 0;
}

/* The element-by-element checks: only for data that fails the quick ones,
 * and for the roles that have checks of their own. */
static int check_elements(struct gltf_ctx *c, uint32_t acc, uint32_t roles, const float *v)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];
	const struct gltf_where *w = &c->p->where[acc];
	uint32_t n = a->ncomp;

	for (uint32_t i = 0; i < a->count; i++) {
		const float *e = v + (size_t)i * n;
		bool finite = all_finite(e, n);

		if (!finite && (roles & GLTF_ROLE_NORMAL) &&
		    !(roles & ~(GLTF_ROLE_NORMAL | GLTF_ROLE_OTHER))) {
			gltf_note(c, w, "accessor %" PRIu32 ": a normal that is not finite: read as "
				  "zero", acc);
			continue;
		}
		if (!finite && (roles & ~(GLTF_ROLE_OTHER | GLTF_ROLE_CUBIC)))
			return element_error(c, acc, i, "a value that is not finite");
		if ((roles & GLTF_ROLE_ROTATION) && n == 4 &&
		    (!(roles & GLTF_ROLE_CUBIC) || i % 3 == 1)) {
			float len2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];

			if (len2 == 0.0f)
				gltf_note(c, w, "accessor %" PRIu32 ": a zero rotation key: read as no "
					  "rotation", acc);
			else if (fabsf(len2 - 1.0f) > 2e-3f && a->component == GLTF_FLOAT)
				gltf_note(c, w, "accessor %" PRIu32 ": rotation keys not of unit length "
					  "(%g): normalised", acc, sqrt((double)len2));
		}
		if ((roles & GLTF_ROLE_WEIGHTS)) {
			for (uint32_t k = 0; k < n; k++)
				if (e[k] < 0.0f)
					return element_error(c, acc, i, "skin weight %g is negative",
							     (double)e[k]);
		}
		if ((roles & GLTF_ROLE_IBM) && (e[3] != 0.0f || e[7] != 0.0f || e[11] != 0.0f ||
						e[15] != 1.0f))
			gltf_note(c, w, "accessor %" PRIu32 ": an inverse bind matrix whose last row is "
				  "not 0 0 0 1: read as if it were", acc);
	}
	return 0;
}

static int check_values(struct gltf_ctx *c, uint32_t acc, uint32_t roles, const float *v)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];

	bool finite = all_finite(v, (size_t)a->count * a->ncomp);

	/* Most data is finite and has no check of its own: one pass. */
	if (finite && !(roles & (GLTF_ROLE_ROTATION | GLTF_ROLE_WEIGHTS | GLTF_ROLE_IBM)))
		return 0;
	/* Rotation keys alone: only their lengths to look at. */
	if (finite && roles == GLTF_ROLE_ROTATION && a->ncomp == 4 && a->component == GLTF_FLOAT) {
		bool odd = false;

		for (uint32_t i = 0; i < a->count; i++) {
			const float *e = v + 4 * (size_t)i;
			float len2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];

			odd |= !(fabsf(len2 - 1.0f) <= 2e-3f);
		}
		if (!odd)
			return 0;
	}
	return check_elements(c, acc, roles, v);
}

/*
 * An accessor's min or max (§5.1, accessor.min and accessor.max) in its
 * object o: one number per component, read into out (NULL: their kinds
 * looked at only; reading the numbers is most of the cost).  Nothing animd
 * publishes comes from them (the data does), so what is wrong with them
 * is a note: 1 well formed, 0 absent, -1 malformed (noted).
 */
static int read_bound(struct gltf_ctx *c, gv o, uint32_t acc, const char *key, double *out)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];
	gv v = gv_get(c, o, key);
	struct gltf_where at = gw_key(gw_item("accessors", acc), key);

	if (v == GV_NONE)
		return 0;
	if (gv_kind_of(c, v) != GV_ARRAY || gv_size(c, v) != a->ncomp) {
		gltf_note(c, &at, "not an array of %u number%s, one per component: ignored",
			  (unsigned)a->ncomp, a->ncomp == 1 ? "" : "s");
		return -1;
	}
	for (uint32_t k = 0; k < a->ncomp; k++) {
		gv e = gv_at(c, v, k);

		if (gv_kind_of(c, e) != GV_NUMBER || (out != NULL && !gv_number(c, e, &out[k]))) {
			struct gltf_where ek = gw_at(at, k);

			gltf_note(c, &ek, "not a number: the bound is ignored");
			return -1;
		}
	}
	return 1;
}

/* The bound against the data's: within float rounding of what a writer
 * printed. */
static bool bound_agrees(double bound, double data)
{
	return fabs(bound - data) <= 1e-5 * fmax(1.0, fabs(data));
}

/*
 * The bounds of positions and key times, which must have them (§3.7.2.1,
 * §3.11: a note where they are missing or malformed).  Those of positions
 * are compared with the data, in one pass (not for normalised integers,
 * whose bounds are of the stored integers).  Key times' and other
 * accessors' numbers are not read: no output depends on them, and reading
 * every accessor's numbers cost a tenth of a load with many animations.
 */
static void check_bounds(struct gltf_ctx *c, gv accessors, uint32_t acc, uint32_t roles,
			 const float *v)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];
	bool required = roles & (GLTF_ROLE_INPUT | GLTF_ROLE_POSITION);
	bool compare = (roles & GLTF_ROLE_POSITION) && !a->normalized;
	double lo[16], hi[16], dlo[16], dhi[16];
	int has_lo, has_hi;
	unsigned n = a->ncomp;
	gv o;

	if (!required)
		return;
	o = gv_at(c, accessors, acc);       /* in order: gv_at steps along */
	has_lo = read_bound(c, o, acc, "min", compare ? lo : NULL);
	has_hi = read_bound(c, o, acc, "max", compare ? hi : NULL);
	if (has_lo == 0 || has_hi == 0) {
		struct gltf_where at = gw_item("accessors", acc);

		gltf_note(c, &at, "no %s: the specification requires min and max for %s (animd "
			  "does not use them)", has_lo == 0 && has_hi == 0 ? "min and max"
			  : has_lo == 0 ? "min" : "max",
			  roles & GLTF_ROLE_INPUT ? "key times" : "positions");
	}
	if (!compare || a->count == 0 || v == NULL)
		return;
	for (unsigned k = 0; k < n; k++)
		dlo[k] = dhi[k] = v[k];
	for (uint32_t i = 1; i < a->count; i++)
		for (unsigned k = 0; k < n; k++) {
			double x = v[(size_t)i * n + k];

			dlo[k] = x < dlo[k] ? x : dlo[k];
			dhi[k] = x > dhi[k] ? x : dhi[k];
		}
	for (int pass = 0; pass < 2; pass++) {
		const double *b = pass == 0 ? lo : hi, *d = pass == 0 ? dlo : dhi;

		if ((pass == 0 ? has_lo : has_hi) != 1)
			continue;
		for (unsigned k = 0; k < n; k++)
			if (!bound_agrees(b[k], d[k])) {
				struct gltf_where at = gw_at(gw_key(gw_item("accessors", acc),
								     pass == 0 ? "min" : "max"), k);

				gltf_note(c, &at, "%.9g, but the data's %s is %.9g (the data is used)",
					  b[k], pass == 0 ? "least" : "greatest", d[k]);
				break;
			}
	}
}

static int check_accessor(struct gltf_ctx *c, gv accessors, uint32_t acc)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];
	uint32_t roles = c->p->roles[acc];
	const float *v;
	int rc = 0;

	if (a->sparse_count > 0) {
		rc = gltf_check_sparse(c, acc);
		if (rc < 0)
			return rc;
	}
	if (roles & (GLTF_ROLE_INDICES | GLTF_ROLE_JOINTS))
		return 0;               /* integers: checked where their limits are known */
	v = gltf_floats(c->m, acc);
	if (v == NULL)
		return -ENOMEM;
	if (roles & GLTF_ROLE_INPUT)
		rc = check_times(c, acc, v, a->count);
	if (rc == 0)
		rc = check_values(c, acc, roles & ~GLTF_ROLE_INPUT, v);
	if (rc == 0)
		check_bounds(c, accessors, acc, roles, v);
	return rc;
}

/* Every index below `limit`; `what` names them. */
static int check_uints(struct gltf_ctx *c, uint32_t acc, uint32_t limit, const char *what,
		       const char *limit_what)
{
	const struct gltf_accessor *a = &c->m->accessors[acc];
	uint32_t n = a->ncomp;
	const uint32_t *v = gltf_uints(c->m, acc);

	if (v == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->count; i++)
		for (uint32_t k = 0; k < n; k++)
			if (v[(size_t)i * n + k] >= limit)
				return element_error(c, acc, i, "%s %" PRIu32 " is past the %" PRIu32
						     " %s", what, v[(size_t)i * n + k], limit,
						     limit_what);
	return 0;
}

/* Per primitive: indices below the vertex count; weight sums noted. */
static int check_primitives(struct gltf_ctx *c)
{
	const struct gltf_model *m = c->m;

	for (uint32_t i = 0; i < m->mesh_count; i++)
		for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
			const struct gltf_primitive *pr = &m->meshes[i].primitives[p];
			uint32_t count;
			float *sum;
			int rc;

			if (pr->position < 0)
				continue;
			count = m->accessors[pr->position].count;
			if (pr->indices >= 0) {
				rc = check_uints(c, (uint32_t)pr->indices, count, "vertex index",
						 "vertices");
				if (rc < 0)
					return rc;
			}
			if (pr->set_count == 0)
				continue;
			sum = calloc((size_t)count + 1, sizeof *sum);
			if (sum == NULL)
				return -ENOMEM;
			for (uint32_t s = 0; s < pr->set_count; s++) {
				const float *ws = gltf_floats(m, (uint32_t)pr->weights[s]);

				if (ws == NULL) {
					free(sum);
					return -ENOMEM;
				}
				for (uint32_t v = 0; v < count; v++) {
					const float *w = ws + 4 * (size_t)v;

					sum[v] += w[0] + w[1] + w[2] + w[3];
				}
			}
			for (uint32_t v = 0; v < count; v++) {
				struct gltf_where at = gw_key(gw_key(gw_at(gw_key(gw_item("meshes", i),
						"primitives"), p), "attributes"), "WEIGHTS_0");

				if (sum[v] == 0.0f)
					gltf_note(c, &at, "vertex %" PRIu32 " has no weight: it follows the "
						  "skin's first joint", v);
				else if (fabsf(sum[v] - 1.0f) > 1e-2f)
					gltf_note(c, &at, "vertex %" PRIu32 "'s weights sum to %g, not 1: "
						  "normalised", v, (double)sum[v]);
			}
			free(sum);
		}
	return 0;
}

/* One set's joints against a skin's count: a joint past it with weight is
 * an error (it would be followed), without weight a note (it never is). */
static int check_set(struct gltf_ctx *c, uint32_t jacc, uint32_t wacc, uint32_t limit,
		     int32_t skin)
{
	const struct gltf_accessor *a = &c->m->accessors[jacc];
	const uint32_t *j = gltf_uints(c->m, jacc);
	const float *w = gltf_floats(c->m, wacc);
	int rc = 0;

	if (j == NULL || w == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < a->count; i++)
		for (uint32_t k = 0; rc == 0 && k < 4; k++) {
			uint32_t joint = j[(size_t)i * 4 + k];

			if (joint < limit)
				continue;
			if (w[(size_t)i * 4 + k] != 0.0f)
				rc = element_error(c, jacc, i, "joint %" PRIu32 " is past the %" PRIu32
						   " joints of skin %" PRId32, joint, limit, skin);
			else
				gltf_note(c, &c->p->where[jacc], "accessor %" PRIu32 ": joint %" PRIu32
					  " is past the %" PRIu32 " joints of skin %" PRId32 ", with "
					  "weight 0: never followed", jacc, joint, limit, skin);
		}
	return rc;
}

/* Joints below the joint count of every skin that shows them. */
static int check_joints(struct gltf_ctx *c)
{
	const struct gltf_model *m = c->m;

	for (uint32_t i = 0; i < m->node_count; i++) {
		const struct gltf_node *n = &m->nodes[i];
		const struct gltf_mesh *me;

		if (n->mesh < 0 || n->skin < 0)
			continue;
		me = &m->meshes[n->mesh];
		for (uint32_t p = 0; p < me->primitive_count; p++)
			for (uint32_t s = 0; s < me->primitives[p].set_count; s++) {
				int rc = check_set(c, (uint32_t)me->primitives[p].joints[s],
						   (uint32_t)me->primitives[p].weights[s],
						   m->skins[n->skin].joint_count, n->skin);

				if (rc < 0)
					return rc;
			}
	}
	return 0;
}

int gltf_finish(struct gltf_model *m, uint64_t file_bytes, struct diag *d)
{
	struct gltf_ctx c = { m, m->priv, d };
	int rc;

	m->error_buffer = -1;
	rc = check_buffers(&c);
	if (rc == 0)
		rc = check_expansion(&c, file_bytes);
	{
		gv accessors = gv_get(&c, 0, "accessors");

		for (uint32_t i = 0; rc == 0 && i < m->accessor_count; i++)
			if (m->accessors[i].used)
				rc = check_accessor(&c, accessors, i);
	}
	if (rc == 0)
		rc = check_primitives(&c);
	if (rc == 0)
		rc = check_joints(&c);
	for (uint32_t i = 0; rc == 0 && i < m->animation_count; i++) {
		struct gltf_animation *an = (struct gltf_animation *)&m->animations[i];

		an->duration = 0.0f;
		for (uint32_t k = 0; k < an->sampler_count; k++) {
			float last = gltf_accessor_last(m, an->samplers[k].input);

			if (last > an->duration)
				an->duration = last;
		}
	}
	if (rc == -ENOMEM && d != NULL && !d->set)
		diag_at_offset(d, 0, "out of memory");
	return rc;
}
