/*
 * bench_skin - what skinned vertices and their normals cost, per vertex.
 *
 * A synthetic mesh of 16,384 vertices with up to 4 influences each (2.5 on
 * average) on 64 joints whose model matrices carry rotation and
 * non-uniform scale.  Figures, alternating in rounds (11 of ~40 ms each)
 * so that the machine's load hits them alike, medians in ns per vertex:
 *
 *   positions          mesh_skin_positions
 *   + skinned normals  the same plus mesh_normal_matrices (per joint) and
 *                      mesh_skin_normals (per influence, as .x and M2 do)
 *   + derived normals  the same plus the triangles' area-weighted normals
 *                      (MD5, as Doom 3 does)
 *
 * with the normals' cost as a ratio to positions alone, round by round.
 * Nothing is asserted.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/anim/mesh.h"

#define VERTICES 16384u
#define JOINTS 64u
#define ROUNDS 11
#define RUN_SECONDS 0.04

static volatile float sink;
static uint64_t rng = 0xd1b54a32d192ed03ull;

static double rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "bench_skin: out of memory\n");
		exit(1);
	}
	return p;
}

/* A grid of quads: triangles for the derived normals. */
static void build_mesh(struct mesh *m, enum mesh_normals normals)
{
	uint32_t side = 128, k = 0, t = 0;

	memset(m, 0, sizeof *m);
	m->normals = normals;
	m->vertex_count = VERTICES;
	m->first_influence = xmalloc((VERTICES + 1) * sizeof *m->first_influence);
	m->influences = xmalloc(VERTICES * 4 * sizeof *m->influences);
	m->triangle_count = (side - 1) * (side - 1) * 2;
	m->triangles = xmalloc(m->triangle_count * sizeof *m->triangles);
	for (uint32_t v = 0; v < VERTICES; v++) {
		uint32_t n = 1 + (uint32_t)(rnd() * 4);
		float left = 1.0f;

		m->first_influence[v] = k;
		for (uint32_t i = 0; i < n; i++) {
			float w = i + 1 == n ? left : left * (float)(0.3 + 0.4 * rnd());

			left -= w;
			m->influences[k++] = (struct mesh_influence){
				(uint32_t)(rnd() * JOINTS), w,
				{ (float)(v % side), (float)(v / side), (float)rnd() },
				{ 0.0f, 0.0f, 1.0f }
			};
		}
	}
	m->first_influence[VERTICES] = k;
	m->influence_count = k;
	for (uint32_t y = 0; y + 1 < side; y++)
		for (uint32_t x = 0; x + 1 < side; x++) {
			uint32_t a = y * side + x;

			m->triangles[t][0] = a;
			m->triangles[t][1] = a + 1;
			m->triangles[t++][2] = a + side;
			m->triangles[t][0] = a + 1;
			m->triangles[t][1] = a + side + 1;
			m->triangles[t++][2] = a + side;
		}
}

enum kind { POSITIONS, SKINNED, DERIVED, KINDS };

struct subject {
	struct mesh skinned, derived;
	mat34 model[JOINTS], it[JOINTS];
	vec3 *pos, *nrm;
};

static float run(struct subject *s, enum kind k, long iters)
{
	float sum = 0;

	for (long i = 0; i < iters; i++) {
		const struct mesh *m = k == DERIVED ? &s->derived : &s->skinned;

		/* A different pose each time, as a playing instance has. */
		s->model[i % JOINTS].m[0][3] += 1e-3f;
		mesh_skin_positions(m, s->model, s->pos);
		if (k == SKINNED)
			mesh_normal_matrices(JOINTS, s->model, s->it);
		if (k != POSITIONS)
			mesh_skin_normals(m, s->it, s->pos, s->nrm);
		sum += s->pos[i % VERTICES].x + (k != POSITIONS ? s->nrm[i % VERTICES].z : 0);
	}
	return sum;
}

static long calibrate(struct subject *s, enum kind k)
{
	long iters = 1;
	double dt;

	for (;;) {
		double t0 = now();

		sink = run(s, k, iters);
		dt = now() - t0;
		if (dt > RUN_SECONDS / 10)
			break;
		iters *= 2;
	}
	return (long)((double)iters * RUN_SECONDS / dt) + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	static const char *const label[KINDS] = { "positions", "+ skinned normals",
						 "+ derived normals" };
	struct subject s;
	double ns[KINDS][ROUNDS], ratio[KINDS][ROUNDS];
	long iters[KINDS];

	build_mesh(&s.skinned, MESH_NORMALS_SKINNED);
	build_mesh(&s.derived, MESH_NORMALS_DERIVED);
	s.pos = xmalloc(VERTICES * sizeof *s.pos);
	s.nrm = xmalloc(VERTICES * sizeof *s.nrm);
	for (uint32_t j = 0; j < JOINTS; j++) {
		double a = rnd() * M_PI;
		float c = (float)cos(a), sn = (float)sin(a), sx = (float)(0.5 + rnd());

		s.model[j] = (mat34){ { { c * sx, -sn, 0, (float)rnd() },
					{ sn * sx, c, 0, (float)rnd() },
					{ 0, 0, 1.5f, (float)rnd() } } };
	}
	for (int k = 0; k < KINDS; k++)
		iters[k] = calibrate(&s, (enum kind)k);
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < KINDS; i++) {
			/* Rotate the order each round. */
			int k = (i + r) % KINDS;
			double t0 = now();

			sink = run(&s, (enum kind)k, iters[k]);
			ns[k][r] = (now() - t0) * 1e9 / ((double)iters[k] * VERTICES);
		}
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < KINDS; k++)
			ratio[k][r] = ns[k][r] / ns[POSITIONS][r];
	printf("bench_skin: %u vertices, %.2f influences each, %u joints\n", VERTICES,
	       (double)s.skinned.influence_count / VERTICES, JOINTS);
	for (int k = 0; k < KINDS; k++) {
		qsort(ns[k], ROUNDS, sizeof ns[k][0], cmp_double);
		qsort(ratio[k], ROUNDS, sizeof ratio[k][0], cmp_double);
		if (k == POSITIONS)
			printf("%-18s %6.2f ns/vertex (median of %d)\n", label[k], ns[k][ROUNDS / 2],
			       ROUNDS);
		else
			printf("%-18s %6.2f ns/vertex: %.2fx positions alone (rounds %.2f..%.2f)\n",
			       label[k], ns[k][ROUNDS / 2], ratio[k][ROUNDS / 2], ratio[k][0],
			       ratio[k][ROUNDS - 1]);
	}
	return 0;
}
