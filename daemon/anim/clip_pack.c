/*
 * clip_pack.c - compressing a uniform clip's frames (layout: clip_codec.h,
 * reasons and figures: docs/compression.md).
 *
 * The error metric is ACL's: for every frame and joint, the points at
 * shell_distance from the joint along its three axes, in model space;
 * the distance between where the raw frames and the decoded ones put them
 * must stay within `precision`.  The builder gives every joint and
 * component a tolerance for its quantisation error, shaped by the
 * hierarchy (a rotation's error moves everything below the joint, so it is
 * divided by the joint's reach: the farthest point below it, shell
 * included; every joint on a chain adds its error, so each gets a share
 * of the chain's longest), and scales all of a segment's tolerances by
 * one factor, searched so that the segment's measured worst error just
 * fits the precision.  Each block's width for a component is then the
 * widest its eight lanes need.  The error of the values the sampler
 * decodes is measured, not estimated, and kept (clip_packed_error).
 */
#include "daemon/anim/clip.h"
#include "daemon/anim/clip_codec.h"
#include "daemon/anim/clip_key_index.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pack {
	/* The poses sampling gives at the frames (F x J), when channels of
	 * the frames are overwritten then (a key index's curves): the metric
	 * compares with these, `fixed` (J: bit 0 t, 1 r, 2 s) says which
	 * channels come from them unchanged. */
	const struct transform *exact;
	const uint8_t *fixed;
	uint32_t J, F, B, S;
	struct transform *src;          /* F x B*8: frames, padded lanes */
	uint8_t *seg_drop;              /* S x B*8: rotation component left out */
	uint32_t *block_rel;            /* B: each block's start in pk->seg */
	mat34 *raw_model;               /* F x J */
	const int32_t *parents;
	float precision, shell;
	float k_start;                  /* where a segment's factor search starts */
	float (*base_tol)[CODEC_COMPONENTS];    /* B*8 */
	struct codec_block *block;
	float *pool;                    /* vectors of 8 */
	uint32_t pool_count, pool_cap;
	/* scratch for one segment */
	uint8_t *seg;
	size_t seg_cap;
	struct transform *local;        /* B*8 */
	struct transform *prev;         /* B*8: the frame before, decoded */
	mat34 *model;                   /* J */
};

static float comp_of(const struct transform *x, uint32_t c)
{
	const float v[CODEC_COMPONENTS] = { x->t.x, x->t.y, x->t.z, x->r.x, x->r.y, x->r.z,
					    x->s.x, x->s.y, x->s.z };

	return v[c];
}

/* Component c of a lane at frame f as segment s stores it: the rotation's
 * three components other than the one left out, negated where that one
 * is negative (q and -q are one rotation). */
static float value(const struct pack *pk, uint32_t s, uint32_t f, uint32_t lane, uint32_t c)
{
	const struct transform *x = &pk->src[(size_t)f * pk->B * 8 + lane];

	if (c >= CODEC_RX && c <= CODEC_RZ) {
		const float q[4] = { x->r.x, x->r.y, x->r.z, x->r.w };
		uint32_t d = pk->seg_drop[(size_t)s * pk->B * 8 + lane], k = c - CODEC_RX;
		uint32_t from = k < d ? k : k + 1;

		return q[d] < 0.0f ? -q[from] : q[from];
	}
	return comp_of(x, c);
}

/* A new pool vector (or the shared one it equals); its index, or -1. */
static int64_t pool_add(struct pack *pk, const float v[8], int shareable)
{
	if (shareable) {
		int zeros = 1, ones = 1;

		for (int l = 0; l < 8; l++) {
			zeros &= v[l] == 0.0f && !signbit(v[l]);
			ones &= v[l] == 1.0f;
		}
		if (zeros)
			return CODEC_ZEROS;
		if (ones)
			return CODEC_ONES;
	}
	if (pk->pool_count == pk->pool_cap) {
		uint32_t cap = pk->pool_cap ? 2 * pk->pool_cap : 16;
		float *np = realloc(pk->pool, (size_t)cap * 8 * sizeof *np);

		if (np == NULL)
			return -1;
		pk->pool = np;
		pk->pool_cap = cap;
	}
	memcpy(pk->pool + (size_t)pk->pool_count * 8, v, 8 * sizeof *v);
	return pk->pool_count++;
}

/*
 * Per segment and lane, the rotation component to leave out: the one
 * whose smallest magnitude over the segment's frames is largest (over
 * a few frames a rotation moves little, so it stays near its largest,
 * at least 1/2).
 */
static void pack_drop(struct pack *pk)
{
	uint32_t lanes = pk->B * 8;

	for (uint32_t s = 0; s < pk->S; s++) {
		struct clip_packed view = { .frames = pk->F, .segments = pk->S };
		uint32_t first = s * CODEC_SEGMENT, n = codec_segment_frames(&view, s);

		for (uint32_t l = 0; l < lanes; l++) {
			float least[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
			uint8_t d = 3;

			for (uint32_t f = first; f < first + n; f++) {
				const quat *q = &pk->src[(size_t)f * lanes + l].r;
				const float v[4] = { q->x, q->y, q->z, q->w };

				for (int c = 0; c < 4; c++)
					least[c] = fminf(least[c], fabsf(v[c]));
			}
			for (uint8_t c = 0; c < 4; c++)
				if (least[c] > least[d])
					d = c;
			pk->seg_drop[(size_t)s * lanes + l] = d;
		}
	}
}

/* Lane ranges of component c of block b over the clip, as its segments
 * store it; 1 when no lane moves. */
static int comp_range(const struct pack *pk, uint32_t b, uint32_t c, float mn[8], float ext255[8],
		      float first[8])
{
	int still = 1;

	for (uint32_t l = 0; l < 8; l++) {
		float lo = INFINITY, hi = -INFINITY;

		first[l] = value(pk, 0, 0, 8 * b + l, c);
		for (uint32_t s = 0; s < pk->S; s++) {
			struct clip_packed view = { .frames = pk->F, .segments = pk->S };
			uint32_t f0 = s * CODEC_SEGMENT, n = codec_segment_frames(&view, s);

			for (uint32_t f = f0; f < f0 + n; f++) {
				float v = value(pk, s, f, 8 * b + l, c);

				lo = fminf(lo, v);
				hi = fmaxf(hi, v);
				/* Bitwise, so that -0 and 0 stay apart. */
				still &= memcmp(&v, &first[l], sizeof v) == 0;
			}
		}
		mn[l] = lo;
		ext255[l] = (float)(((double)hi - lo) / 255.0);
	}
	return still;
}

/* Constant or animated per block and component; the clip ranges. */
static int pack_ranges(struct pack *pk)
{
	static const float zeros[8], ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	if (pool_add(pk, zeros, 0) != CODEC_ZEROS || pool_add(pk, ones, 0) != CODEC_ONES)
		return -ENOMEM;
	for (uint32_t b = 0; b < pk->B; b++) {
		struct codec_block *bl = &pk->block[b];
		float mn[CODEC_COMPONENTS][8], ext255[CODEC_COMPONENTS][8], first[CODEC_COMPONENTS][8];
		int still[CODEC_COMPONENTS], rot_still;

		for (uint32_t c = 0; c < CODEC_COMPONENTS; c++)
			still[c] = comp_range(pk, b, c, mn[c], ext255[c], first[c]);
		rot_still = still[CODEC_RX] && still[CODEC_RY] && still[CODEC_RZ];
		for (uint32_t c = 0; c < CODEC_COMPONENTS; c++) {
			int64_t at;

			if (c >= CODEC_RX && c <= CODEC_RZ && rot_still)
				continue;
			if (still[c]) {
				at = pool_add(pk, first[c], 1);
			} else {
				at = pool_add(pk, mn[c], 0);
				if (at >= 0 && pool_add(pk, ext255[c], 0) < 0)
					at = -1;
				bl->animated |= (uint16_t)(1u << c);
			}
			if (at < 0)
				return -ENOMEM;
			bl->vec[c] = (uint32_t)at;
		}
		bl->scaled = !(bl->vec[CODEC_SX] == CODEC_ONES && bl->vec[CODEC_SY] == CODEC_ONES &&
			       bl->vec[CODEC_SZ] == CODEC_ONES);
		if (rot_still) {
			/* Rotations that never move: kept whole, x, y, z, w. */
			float q[4][8];

			for (uint32_t l = 0; l < 8; l++) {
				const quat *r = &pk->src[8 * b + l].r;

				q[0][l] = r->x;
				q[1][l] = r->y;
				q[2][l] = r->z;
				q[3][l] = r->w;
			}
			for (int k = 0; k < 4; k++) {
				int64_t at = pool_add(pk, q[k], 1);

				if (at < 0)
					return -ENOMEM;
				if (k < 3)
					bl->vec[CODEC_RX + k] = (uint32_t)at;
				else
					bl->rot_w = (uint32_t)at;
			}
		}
	}
	return 0;
}

/* Model matrices of a local pose (J joints). */
static void model_of(const struct pack *pk, const struct transform *local, mat34 *model)
{
	for (uint32_t j = 0; j < pk->J; j++) {
		mat34 m = mat34_from_transform(&local[j]);
		int32_t p = pk->parents ? pk->parents[j] : -1;

		model[j] = p >= 0 && (uint32_t)p < j ? mat34_mul(&model[p], &m) : m;
	}
}

/* The largest distance between the shell points of two matrices. */
static float shell_error(const mat34 *a, const mat34 *b, float d)
{
	float worst = 0.0f;

	for (int axis = 0; axis < 3; axis++) {
		float e = 0.0f;

		for (int r = 0; r < 3; r++) {
			float pa = a->m[r][axis] * d + a->m[r][3];
			float pb = b->m[r][axis] * d + b->m[r][3];

			e += (pa - pb) * (pa - pb);
		}
		worst = fmaxf(worst, sqrtf(e));
	}
	return worst;
}

/* Each joint's and component's tolerance before the segment's factor. */
static int pack_tolerances(struct pack *pk)
{
	uint32_t J = pk->J;
	float *reach = calloc(J, sizeof *reach);
	uint32_t *depth = calloc(J, sizeof *depth), *deepest = calloc(J, sizeof *deepest);

	if (!reach || !depth || !deepest) {
		free(reach);
		free(depth);
		free(deepest);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < J; j++) {
		int32_t p = pk->parents ? pk->parents[j] : -1;

		depth[j] = p >= 0 && (uint32_t)p < j ? depth[p] + 1 : 1;
	}
	for (uint32_t j = J; j-- > 0;) {
		int32_t p = pk->parents ? pk->parents[j] : -1;

		deepest[j] = deepest[j] > depth[j] ? deepest[j] : depth[j];
		if (p >= 0 && (uint32_t)p < j && deepest[j] > deepest[p])
			deepest[p] = deepest[j];
	}
	for (uint32_t f = 0; f < pk->F; f++) {
		const mat34 *m = pk->raw_model + (size_t)f * J;

		for (uint32_t j = 0; j < J; j++)
			for (int32_t a = pk->parents ? pk->parents[j] : -1; a >= 0 && (uint32_t)a < j;
			     a = pk->parents[a]) {
				float dx = m[j].m[0][3] - m[a].m[0][3], dy = m[j].m[1][3] - m[a].m[1][3];
				float dz = m[j].m[2][3] - m[a].m[2][3];

				reach[a] = fmaxf(reach[a], sqrtf(dx * dx + dy * dy + dz * dz));
			}
	}
	for (uint32_t lane = 0; lane < 8 * pk->B; lane++) {
		float *t = pk->base_tol[lane];

		if (lane >= J) {
			for (uint32_t c = 0; c < CODEC_COMPONENTS; c++)
				t[c] = INFINITY;
			continue;
		}
		{
			float r = reach[lane] + pk->shell, share = pk->precision / (float)deepest[lane];

			if (!(r > 0.0f))
				r = 1.0f;
			for (uint32_t c = 0; c < CODEC_COMPONENTS; c++)
				t[c] = c <= CODEC_TZ ? share : c <= CODEC_RZ ? share / (2.0f * r) : share / r;
		}
	}
	free(reach);
	free(depth);
	free(deepest);
	return 0;
}

static int seg_reserve(struct pack *pk, size_t need)
{
	if (need > pk->seg_cap) {
		size_t cap = need * 2;
		uint8_t *n = realloc(pk->seg, cap);

		if (n == NULL)
			return -ENOMEM;
		pk->seg = n;
		pk->seg_cap = cap;
	}
	return 0;
}

/* The quantised value of v nearest it. */
/* The quantised value nearest v (the decoder's offset and step; the
 * error measured afterwards is of what it decodes). */
static uint32_t quantise(float v, float mn, float e255, uint8_t smin, uint8_t sext, uint32_t w)
{
	uint32_t top = (uint32_t)((1ull << w) - 1);
	float off = fmaf((float)smin, e255, mn);
	float sc = ((float)sext * e255) * codec_inv_levels[w];
	double g;

	if (w == 0 || !(sc > 0.0f))
		return 0;
	g = floor(((double)v - off) / sc + 0.5);
	g = !(g > 0) ? 0 : g > top ? top : g;      /* NaN (from values near FLT_MAX): 0 */
	return (uint32_t)g;
}

/*
 * Segment s at tolerance factor k into pk->seg; its size in *len.
 */
static int pack_segment(struct pack *pk, uint32_t s, float k, size_t *len)
{
	uint32_t first = s * CODEC_SEGMENT, n;
	size_t at = 0;
	struct clip_packed view = { .frames = pk->F, .segments = pk->S };

	n = codec_segment_frames(&view, s);
	for (uint32_t b = 0; b < pk->B; b++) {
		const struct codec_block *bl = &pk->block[b];

		uint32_t count = 0, ws[CODEC_COMPONENTS], cs[CODEC_COMPONENTS];
		uint8_t smins[CODEC_COMPONENTS][8], sexts[CODEC_COMPONENTS][8];
		size_t bytes = 0;
		uint8_t *h, *d;

		for (uint32_t c = 0; c < CODEC_COMPONENTS; c++) {
			const float *mn, *e255;
			uint8_t *smin = smins[count], *sext = sexts[count];
			uint32_t w = 0;

			if (!(bl->animated & (1u << c)))
				continue;
			mn = pk->pool + 8 * (size_t)bl->vec[c];
			e255 = mn + 8;
			for (uint32_t l = 0; l < 8; l++) {
				uint32_t lane = 8 * b + l, need = 0;
				float lo = INFINITY, hi = -INFINITY, ext, tol = k * pk->base_tol[lane][c];
				double qlo, qhi;

				for (uint32_t i = 0; i < n; i++) {
					float v = value(pk, s, first + i, lane, c);

					lo = fminf(lo, v);
					hi = fmaxf(hi, v);
				}
				if (e255[l] > 0.0f) {
					qlo = floor(((double)lo - mn[l]) / e255[l]);
					qhi = ceil(((double)hi - mn[l]) / e255[l]);
				} else {
					qlo = qhi = 0;
				}
				/* NaN (ranges beyond FLT_MAX) counts as 0. */
				qlo = !(qlo > 0) ? 0 : qlo > 255 ? 255 : qlo;
				qhi = !(qhi > qlo) ? qlo : qhi > 255 ? 255 : qhi;
				smin[l] = (uint8_t)qlo;
				sext[l] = (uint8_t)(qhi - qlo);
				ext = (float)sext[l] * e255[l];
				if (ext > tol) {
					/* Rounding to the nearest of 2^w levels errs by
					 * half a step at most. */
					need = 1;
					while (need < CODEC_MAX_BITS && ext * codec_inv_levels[need] * 0.5f > tol)
						need++;
				}
				w = need > w ? need : w;
			}
			ws[count] = w;
			cs[count++] = c;
			bytes += CODEC_HEADER + (size_t)n * w;
		}
		/* The block's start, from the segment's (codec_block_start). */
		if (seg_reserve(pk, at + 2 + bytes + CODEC_PAD) != 0)
			return -ENOMEM;
		pk->block_rel[b] = (uint32_t)at;
		if (bl->animated & CODEC_ROTATION_BITS) {
			const uint8_t *dr = pk->seg_drop + ((size_t)s * pk->B + b) * 8;
			uint32_t bits = 0;

			for (uint32_t l = 0; l < 8; l++)
				bits |= (uint32_t)dr[l] << (2 * l);
			pk->seg[at] = (uint8_t)bits;
			pk->seg[at + 1] = (uint8_t)(bits >> 8);
			at += 2;
		}
		h = pk->seg + at;
		d = h + (size_t)count * CODEC_HEADER;
		memset(h, 0, bytes);
		for (uint32_t x = 0; x < count; x++) {
			const float *mn = pk->pool + 8 * (size_t)bl->vec[cs[x]], *e255 = mn + 8;
			uint32_t w = ws[x];

			h[0] = (uint8_t)w;
			memcpy(h + 1, smins[x], 8);
			memcpy(h + 9, sexts[x], 8);
			for (uint32_t i = 0; i < n; i++) {
				uint8_t *fr = d + (size_t)i * w;

				for (uint32_t l = 0; l < 8; l++) {
					uint32_t q = quantise(value(pk, s, first + i, 8 * b + l, cs[x]), mn[l],
							      e255[l], smins[x][l], sexts[x][l], w);
					uint32_t bit = l * w, word = q << (bit & 7);

					/* w <= 24 bits shifted by at most 7: four bytes. */
					for (uint32_t y = 0; y < 4 && word != 0; y++, word >>= 8)
						fr[(bit >> 3) + y] |= (uint8_t)word;
				}
			}
			h += CODEC_HEADER;
			d += (size_t)n * w;
		}
		at += bytes;
	}
	if (seg_reserve(pk, at + CODEC_PAD) != 0)
		return -ENOMEM;
	memset(pk->seg + at, 0, CODEC_PAD);
	*len = at;
	return 0;
}

/*
 * Whether blending the decoded frames f - 1 and f takes each rotation the
 * way blending the raw ones does.  The slerp goes the short way round,
 * which the sign of the two rotations' dot product tells; two rotations
 * nearly half a turn apart have a dot product near 0, whose sign the
 * quantisation error may flip, and the blend between them would then turn
 * the other way round.  Such a segment needs finer steps.
 */
static int same_paths(const struct pack *pk, uint32_t f, const struct transform *prev,
		      const struct transform *cur)
{
	const struct transform *a = pk->src + (size_t)(f - 1) * pk->B * 8;
	const struct transform *b = a + (size_t)pk->B * 8;

	for (uint32_t j = 0; j < pk->J; j++) {
		float raw = quat_dot(a[j].r, b[j].r), dec = quat_dot(prev[j].r, cur[j].r);

		if (pk->fixed != NULL && (pk->fixed[j] & 2))
			continue;
		/* The decoded rotations are the raw ones or their negatives
		 * (the codec keeps a component >= 0): compare as the raw. */
		if (quat_dot(prev[j].r, a[j].r) < 0.0f)
			dec = -dec;
		if (quat_dot(cur[j].r, b[j].r) < 0.0f)
			dec = -dec;
		if ((raw > 0.0f && dec < 0.0f) || (raw < 0.0f && dec > 0.0f))
			return 0;
	}
	return 1;
}

/* The worst error of the segment in pk->seg; *paths 0 when a blend would
 * turn the other way round (same_paths). */
static float segment_error(struct pack *pk, uint32_t s, int *paths)
{
	struct clip_packed view = { .frames = pk->F, .segments = pk->S, .joints = pk->J,
				    .blocks = pk->B, .block = pk->block, .pool = pk->pool };
	uint32_t n = codec_segment_frames(&view, s), first = s * CODEC_SEGMENT;
	float worst = 0.0f;

	*paths = 1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = pk->seg;
		const mat34 *raw = pk->raw_model + (size_t)(first + i) * pk->J;

		for (uint32_t b = 0; b < pk->B; b++)
			codec_decode_block(&view, b, d + pk->block_rel[b], n, i, pk->local + 8 * b);
		if (pk->exact != NULL)
			for (uint32_t j = 0; j < pk->J; j++) {
				const struct transform *e = &pk->exact[(size_t)(first + i) * pk->J + j];

				if (pk->fixed[j] & 1)
					pk->local[j].t = e->t;
				if (pk->fixed[j] & 2)
					pk->local[j].r = e->r;
				if (pk->fixed[j] & 4)
					pk->local[j].s = e->s;
			}
		model_of(pk, pk->local, pk->model);
		for (uint32_t j = 0; j < pk->J; j++)
			worst = fmaxf(worst, shell_error(&raw[j], &pk->model[j], pk->shell));
		if (i > 0 && !same_paths(pk, first + i, pk->prev, pk->local))
			*paths = 0;
		memcpy(pk->prev, pk->local, (size_t)pk->B * 8 * sizeof *pk->prev);
	}
	return worst;
}

/* A copy of the segment in pk->seg (len bytes) into *keep. */
static int keep_segment(struct pack *pk, size_t len, uint8_t **keep, size_t *keep_len)
{
	uint8_t *n = realloc(*keep, len + 1);

	if (n == NULL)
		return -ENOMEM;
	memcpy(n, pk->seg, len);
	*keep = n;
	*keep_len = len;
	return 0;
}

/* Segment s at the largest factor that keeps its error within the
 * precision (or the most precise tried, when none does), appended to
 * *out; its error raises *worst. */
static int pack_best_segment(struct pack *pk, uint32_t s, uint8_t **out, size_t *out_len,
			     size_t *out_cap, float *worst)
{
	float lo = 0.0f, hi = 0.0f, k = pk->k_start, err, pass_err = 0.0f, fail_score = INFINITY, fail_err = 0;
	uint8_t *pass = NULL, *fail = NULL, *pick;
	size_t len, pass_len = SIZE_MAX, fail_len = 0, pick_len;
	int rc = 0, paths;

	/* Bracket the factor (lo passes, hi fails; 0: none yet) by factors
	 * of 2 from where the segment before ended, then narrow it to within
	 * 20%. */
	for (int step = 0; step < 48; step++) {
		if ((rc = pack_segment(pk, s, k, &len)) != 0)
			break;
		err = segment_error(pk, s, &paths);
		if (err <= pk->precision && paths) {
			if (len <= pass_len) {
				if ((rc = keep_segment(pk, len, &pass, &pass_len)) != 0)
					break;
				pass_err = err;
			}
			lo = k;
		} else {
			/* The most precise kept, a wrong way round counting
			 * as worse than any error. */
			float score = paths ? err : INFINITY;

			if (pass == NULL && (fail == NULL || score < fail_score)) {
				if ((rc = keep_segment(pk, len, &fail, &fail_len)) != 0)
					break;
				fail_score = score;
				fail_err = err;
			}
			hi = k;
		}
		if (lo == 0.0f) {
			if (k < 1e-9f)
				break;
			k *= 0.5f;
		} else if (hi == 0.0f) {
			if (k > 1e9f)
				break;
			k *= 2.0f;
		} else {
			if (hi / lo < 1.2f)
				break;
			k = sqrtf(lo * hi);
		}
	}
	/* The next segment starts its search where this one ended. */
	if (lo > 0.0f)
		pk->k_start = lo;
	pick = pass != NULL ? pass : fail;
	pick_len = pass != NULL ? pass_len : fail_len;
	if (rc == 0 && pick == NULL)
		rc = -ENOMEM;
	if (rc == 0 && *out_len + pick_len + CODEC_PAD > *out_cap) {
		size_t cap = (*out_len + pick_len + CODEC_PAD) * 2;
		uint8_t *n = realloc(*out, cap);

		if (n == NULL) {
			rc = -ENOMEM;
		} else {
			*out = n;
			*out_cap = cap;
		}
	}
	if (rc == 0) {
		memcpy(*out + *out_len, pick, pick_len);
		*out_len += pick_len;
		*worst = fmaxf(*worst, pass != NULL ? pass_err : fail_err);
	}
	free(pass);
	free(fail);
	return rc;
}

static void pack_close(struct pack *pk)
{
	free(pk->src);
	free(pk->seg_drop);
	free(pk->block_rel);
	free(pk->raw_model);
	free(pk->base_tol);
	free(pk->block);
	free(pk->pool);
	free(pk->seg);
	free(pk->local);
	free(pk->prev);
	free(pk->model);
}

/* The bytes of a block of a segment of n frames (clip_codec.h). */
static size_t block_len(const struct codec_block *bl, const uint8_t *at, uint32_t n)
{
	uint32_t count = (uint32_t)__builtin_popcount(bl->animated);
	size_t len = (bl->animated & CODEC_ROTATION_BITS) ? 2 : 0;
	const uint8_t *h = at + len;

	len += (size_t)count * CODEC_HEADER;
	for (uint32_t x = 0; x < count; x++)
		len += (size_t)n * h[x * CODEC_HEADER];
	return len;
}

/* The one allocation: struct, blocks, pool (32-byte aligned), block
 * starts, data and its padding. */
static struct clip_packed *pack_assemble(struct pack *pk, const uint8_t *data, size_t data_len,
					 const uint32_t *starts, float worst)
{
	size_t blocks = (size_t)pk->B * sizeof *pk->block;
	size_t pool = (size_t)pk->pool_count * 8 * sizeof(float);
	size_t starts_b = (size_t)pk->S * pk->B * sizeof *starts;
	size_t head = (sizeof(struct clip_packed) + 7) & ~(size_t)7;
	size_t bytes = head + blocks + 32 + pool + starts_b + data_len + CODEC_PAD;
	struct clip_packed *p = malloc(bytes);
	uint8_t *at;

	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof *p);
	p->bytes = bytes;
	p->joints = pk->J;
	p->blocks = pk->B;
	p->frames = pk->F;
	p->segments = pk->S;
	p->error = worst;
	p->precision = pk->precision;
	p->shell_distance = pk->shell;
	at = (uint8_t *)p + head;
	p->block = (struct codec_block *)(void *)at;
	memcpy(p->block, pk->block, blocks);
	at = (uint8_t *)(((uintptr_t)(at + blocks) + 31) & ~(uintptr_t)31);
	p->pool = (float *)(void *)at;
	memcpy(p->pool, pk->pool, pool);
	at += pool;
	p->block_at = (uint32_t *)(void *)at;
	memcpy(p->block_at, starts, starts_b);
	at += starts_b;
	p->data = at;
	memcpy(p->data, data, data_len);
	memset(p->data + data_len, 0, CODEC_PAD);
	return p;
}

/* The rig's size: the largest diagonal, over the frames, of the box
 * around its joints in model space (0 for one joint, or none that moves
 * apart from the others). */
static float pack_rig_size(const struct pack *pk)
{
	float size = 0.0f;

	for (uint32_t f = 0; f < pk->F; f++) {
		const mat34 *m = pk->raw_model + (size_t)f * pk->J;
		float lo[3], hi[3], d2 = 0.0f;

		for (int a = 0; a < 3; a++)
			lo[a] = hi[a] = m[0].m[a][3];
		for (uint32_t j = 1; j < pk->J; j++)
			for (int a = 0; a < 3; a++) {
				lo[a] = fminf(lo[a], m[j].m[a][3]);
				hi[a] = fmaxf(hi[a], m[j].m[a][3]);
			}
		for (int a = 0; a < 3; a++)
			d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
		if (isfinite(d2) && sqrtf(d2) > size)
			size = sqrtf(d2);
	}
	return size;
}

/* What was not given, from the rig's size (clip.h: CLIP_CODEC_AUTO_*). */
static void pack_auto_params(struct pack *pk, const struct clip_codec_params *prm)
{
	int auto_precision = !(prm && prm->precision > 0.0f);
	int auto_shell = !(prm && prm->shell_distance > 0.0f);
	float size;

	if (!auto_precision && !auto_shell)
		return;
	size = pack_rig_size(pk);
	/* Below a millionth of the inch default nothing is worth measuring:
	 * the rig is a point. */
	if (!(size * CLIP_CODEC_AUTO_PRECISION > 1e-6f * CLIP_CODEC_DEFAULT_PRECISION))
		return;
	if (auto_precision)
		pk->precision = size * CLIP_CODEC_AUTO_PRECISION;
	if (auto_shell)
		pk->shell = size * CLIP_CODEC_AUTO_SHELL_DISTANCE;
}

struct clip_packed *codec_pack(const struct transform *frames, uint32_t frame_count,
			       uint32_t joints, const int32_t *parents,
			       const struct clip_codec_params *prm, const struct transform *exact,
			       const uint8_t *fixed, int *err)
{
	struct pack pk = { .parents = parents, .exact = exact, .fixed = fixed, .k_start = 1.0f };
	struct clip_packed *packed = NULL;
	uint8_t *data = NULL;
	size_t data_len = 0, data_cap = 0;
	uint32_t *starts = NULL;
	float worst = 0.0f;
	int rc = 0;

	*err = 0;
	if (frames == NULL || frame_count == 0 || joints == 0)
		return NULL;
	pk.J = joints;
	pk.F = frame_count;
	pk.B = (pk.J + 7) / 8;
	pk.S = pk.F > 1 ? (pk.F - 2) / CODEC_SEGMENT + 1 : 1;
	pk.precision = prm && prm->precision > 0.0f ? prm->precision : CLIP_CODEC_DEFAULT_PRECISION;
	pk.shell = prm && prm->shell_distance > 0.0f ? prm->shell_distance
						      : CLIP_CODEC_DEFAULT_SHELL_DISTANCE;
	pk.src = malloc((size_t)pk.F * pk.B * 8 * sizeof *pk.src);
	pk.seg_drop = malloc((size_t)pk.S * pk.B * 8);
	pk.raw_model = malloc((size_t)pk.F * pk.J * sizeof *pk.raw_model);
	pk.base_tol = malloc((size_t)pk.B * 8 * sizeof *pk.base_tol);
	pk.block = calloc(pk.B, sizeof *pk.block);
	pk.local = malloc((size_t)pk.B * 8 * sizeof *pk.local);
	pk.prev = malloc((size_t)pk.B * 8 * sizeof *pk.prev);
	pk.model = malloc((size_t)pk.J * sizeof *pk.model);
	starts = malloc((size_t)pk.S * pk.B * sizeof *starts);
	pk.block_rel = malloc((size_t)pk.B * sizeof *pk.block_rel);
	if (!pk.src || !pk.seg_drop || !pk.raw_model || !pk.base_tol || !pk.block || !pk.local ||
	    !pk.prev ||
	    !pk.model || !starts || !pk.block_rel) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t f = 0; f < pk.F; f++) {
		const struct transform *fr = frames + (size_t)f * pk.J;
		struct transform *o = pk.src + (size_t)f * pk.B * 8;

		for (uint32_t l = 0; l < pk.B * 8; l++)
			o[l] = l < pk.J ? fr[l] : transform_identity();
		model_of(&pk, exact != NULL ? exact + (size_t)f * pk.J : fr,
			 pk.raw_model + (size_t)f * pk.J);
	}
	pack_auto_params(&pk, prm);
	pack_drop(&pk);
	if ((rc = pack_tolerances(&pk)) != 0 || (rc = pack_ranges(&pk)) != 0)
		goto out;
	for (uint32_t s = 0; s < pk.S; s++) {
		struct clip_packed view = { .frames = pk.F, .segments = pk.S };
		size_t at = data_len;

		if ((rc = pack_best_segment(&pk, s, &data, &data_len, &data_cap, &worst)) != 0)
			goto out;
		if (data_len > UINT32_MAX) {
			rc = -E2BIG;
			goto out;
		}
		for (uint32_t b = 0; b < pk.B; b++) {
			starts[(size_t)s * pk.B + b] = (uint32_t)at;
			at += block_len(&pk.block[b], data + at, codec_segment_frames(&view, s));
		}
	}
	packed = pack_assemble(&pk, data, data_len, starts, worst);
	if (packed == NULL)
		rc = -ENOMEM;
out:
	free(data);
	free(starts);
	pack_close(&pk);
	*err = rc;
	return packed;
}

int clip_compress(struct clip *c, const int32_t *parents, const struct clip_codec_params *prm)
{
	int rc;

	if (c->frames == NULL && c->key_index != NULL)
		return clip_index_compress(c, parents, prm);
	if (c->frames == NULL || c->packed != NULL)
		return 0;
	c->packed = codec_pack(c->frames, c->frame_count, c->joint_count, parents, prm, NULL, NULL,
			       &rc);
	if (c->packed == NULL)
		return rc;
	free(c->frames);
	c->frames = NULL;
	free(c->block_storage);
	c->block_storage = NULL;
	c->frame_blocks = NULL;
	c->block_storage_bytes = 0;
	return 0;
}
