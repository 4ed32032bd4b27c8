/*
 * A .x mesh's faces and face materials as the importer reads them in
 * place (x_import_mesh.c), against the rules worked out here: random text
 * meshes (faces of 0 to 6 corners, MeshNormals with faces of their own,
 * a MeshMaterialList with fewer, as many or more indexes than faces)
 * either import to exactly the fans of triangles and the per-triangle
 * materials computed here, or -- with one value spoiled (an index past
 * the vertices or the normals, a negative or a float index, a corner
 * count past the values left, a material index past the list) -- fail
 * with the message x_read_uint / x_read_count / the range checks give, at
 * that value's line and column.  One value is written per line, so the
 * place is plain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/mesh.h"
#include "daemon/formats/x/x.h"
#include "daemon/import/x_import.h"

#define MAX_FACES 30
#define MAX_CORNERS 6
#define TEXT_MAX 16384

static uint64_t rng_state = 0x853c49e6748fea9bu;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)((rng_state >> 33) % n);
}

enum spoil {
	SPOIL_NONE,
	SPOIL_INDEX_RANGE,      /* a face index >= nVertices */
	SPOIL_INDEX_NEGATIVE,
	SPOIL_INDEX_FLOAT,
	SPOIL_COUNT_HUGE,       /* a corner count past the values left */
	SPOIL_NORMAL_RANGE,     /* a MeshNormals face index >= nNormals */
	SPOIL_MATERIAL_RANGE,   /* a material index >= nMaterials */
	SPOIL_MATERIAL_NEGATIVE,
	SPOIL_MATERIAL_FLOAT,
	SPOIL_KINDS,
};

struct gen {
	char text[TEXT_MAX];
	size_t len;
	enum spoil spoil;
	uint32_t spoil_at;      /* which face, index or material index */
	size_t spoil_off;       /* where the spoiled value was written */
	char want[160];         /* the message's start */
};

static void put(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->text + g->len, sizeof g->text - g->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof g->text - g->len);
	g->len += (size_t)n;
}

/* One value on a line of its own; the spoiled one is remembered. */
static void put_value(struct gen *g, bool spoiled, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put_value(struct gen *g, bool spoiled, const char *fmt, ...)
{
	va_list ap;
	int n;

	put(g, "  ");
	if (spoiled)
		g->spoil_off = g->len;
	va_start(ap, fmt);
	n = vsnprintf(g->text + g->len, sizeof g->text - g->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof g->text - g->len);
	g->len += (size_t)n;
	put(g, ";\n");
}

struct mesh_plan {
	uint32_t nv, nf, corners[MAX_FACES], idx[MAX_FACES][MAX_CORNERS];
	uint32_t nm, ni, mat[MAX_FACES + 2];
	bool normals, materials;
};

/* The faces of a Mesh, or of its MeshNormals (`normals`), `limit` the
 * vertices or normals they index. */
static void put_faces(struct gen *g, const struct mesh_plan *p, uint32_t limit, bool normals)
{
	uint32_t index_no = 0;

	put_value(g, false, "%u", p->nf);
	for (uint32_t f = 0; f < p->nf; f++) {
		bool here = !normals && g->spoil == SPOIL_COUNT_HUGE && g->spoil_at == f;

		put_value(g, here, "%u", here ? 1000000u : p->corners[f]);
		if (here)
			snprintf(g->want, sizeof g->want, "the corner count of face %u is 1000000, but "
				 "only ", f);
		for (uint32_t k = 0; k < p->corners[f]; k++, index_no++) {
			bool spoiled = g->spoil_at == index_no &&
				       (normals ? g->spoil == SPOIL_NORMAL_RANGE :
						  g->spoil == SPOIL_INDEX_RANGE ||
						  g->spoil == SPOIL_INDEX_NEGATIVE ||
						  g->spoil == SPOIL_INDEX_FLOAT);

			if (!spoiled) {
				put_value(g, false, "%u", p->idx[f][k] % limit);
			} else if (g->spoil == SPOIL_INDEX_NEGATIVE) {
				put_value(g, true, "-1");
				snprintf(g->want, sizeof g->want, "a face index is -1, outside "
					 "0..4294967295");
			} else if (g->spoil == SPOIL_INDEX_FLOAT) {
				put_value(g, true, "1.5");
				snprintf(g->want, sizeof g->want, "a face index must be an integer, "
					 "found a float");
			} else {
				put_value(g, true, "%u", limit + rnd(3));
				snprintf(g->want, sizeof g->want, "face %u uses index ", f);
			}
		}
	}
}

static void put_mesh(struct gen *g, const struct mesh_plan *p)
{
	uint32_t nn = p->nv + 2;

	g->len = 0;
	put(g, "xof 0303txt 0032\n");
	put(g, "Frame root {\nMesh m {\n");
	put_value(g, false, "%u", p->nv);
	for (uint32_t v = 0; v < p->nv; v++)
		put_value(g, false, "%u.5;%u.25;-%u.0;", v, v + 1, v + 2);
	put_faces(g, p, p->nv, false);
	if (p->normals) {
		put(g, "MeshNormals {\n");
		put_value(g, false, "%u", nn);
		for (uint32_t v = 0; v < nn; v++)
			put_value(g, false, "0.0;1.0;0.0;");
		put_faces(g, p, nn, true);
		put(g, "}\n");
	}
	if (p->materials) {
		put(g, "MeshMaterialList {\n");
		put_value(g, false, "%u", p->nm);
		put_value(g, false, "%u", p->ni);
		for (uint32_t i = 0; i < p->ni; i++) {
			bool spoiled = g->spoil_at == i && (g->spoil == SPOIL_MATERIAL_RANGE ||
							    g->spoil == SPOIL_MATERIAL_NEGATIVE ||
							    g->spoil == SPOIL_MATERIAL_FLOAT);

			if (!spoiled) {
				put_value(g, false, "%u", p->mat[i]);
			} else if (g->spoil == SPOIL_MATERIAL_NEGATIVE) {
				put_value(g, true, "-1");
				snprintf(g->want, sizeof g->want, "a face's material index is -1, "
					 "outside 0..4294967295");
			} else if (g->spoil == SPOIL_MATERIAL_FLOAT) {
				put_value(g, true, "0.5");
				snprintf(g->want, sizeof g->want, "a face's material index must be an "
					 "integer, found a float");
			} else {
				put_value(g, true, "%u", p->nm + rnd(3));
				snprintf(g->want, sizeof g->want, "face %u uses material ", i);
			}
		}
		for (uint32_t m = 0; m < p->nm; m++)
			put(g, "Material {\n 1.0;1.0;1.0;1.0;;\n 1.0;\n 0.0;0.0;0.0;;\n 0.0;0.0;0.0;;\n}\n");
		put(g, "}\n");
	}
	put(g, "}\n}\n");
}

static void plan_mesh(struct mesh_plan *p, struct gen *g)
{
	uint32_t indexes = 0;

	memset(p, 0, sizeof *p);
	p->nv = 3 + rnd(18);
	p->nf = 1 + rnd(MAX_FACES);
	for (uint32_t f = 0; f < p->nf; f++) {
		p->corners[f] = rnd(8) == 0 ? rnd(3) : 3 + rnd(MAX_CORNERS - 2);
		for (uint32_t k = 0; k < p->corners[f]; k++)
			p->idx[f][k] = rnd(1000);
		indexes += p->corners[f];
	}
	p->normals = rnd(2);
	p->materials = rnd(3) > 0;
	p->nm = 1 + rnd(3);
	p->ni = 1 + rnd(p->nf + 2);
	for (uint32_t i = 0; i < p->ni; i++)
		p->mat[i] = rnd(p->nm);
	g->spoil = rnd(2) ? SPOIL_NONE : (enum spoil)(1 + rnd(SPOIL_KINDS - 1));
	if ((g->spoil == SPOIL_NORMAL_RANGE && !p->normals) ||
	    (g->spoil >= SPOIL_MATERIAL_RANGE && !p->materials) ||
	    (g->spoil != SPOIL_COUNT_HUGE && g->spoil < SPOIL_MATERIAL_RANGE && indexes == 0))
		g->spoil = SPOIL_NONE;
	g->spoil_at = g->spoil == SPOIL_COUNT_HUGE ? rnd(p->nf) :
		      g->spoil >= SPOIL_MATERIAL_RANGE ? rnd(p->ni) : indexes ? rnd(indexes) : 0;
	g->want[0] = '\0';
}

static void check_imported(const struct mesh_plan *p, const struct x_model *m)
{
	const struct mesh *me;
	uint32_t t = 0;

	assert_int_equal(m->mesh_count, 1);
	me = m->meshes[0];
	for (uint32_t f = 0; f < p->nf; f++) {
		uint32_t mat = f < p->ni ? p->mat[f] : p->mat[p->ni - 1];

		for (uint32_t k = 2; k < p->corners[f]; k++, t++) {
			assert_true(t < me->triangle_count);
			assert_int_equal(me->triangles[t][0], p->idx[f][0] % p->nv);
			assert_int_equal(me->triangles[t][1], p->idx[f][k - 1] % p->nv);
			assert_int_equal(me->triangles[t][2], p->idx[f][k] % p->nv);
			if (p->materials)
				assert_int_equal(me->triangle_material[t], mat);
		}
	}
	assert_int_equal(me->triangle_count, t);
	assert_int_equal(me->normals, p->normals ? MESH_NORMALS_SKINNED : MESH_NORMALS_NONE);
}

static void test_random_meshes(void **state)
{
	static struct gen g;
	unsigned failed = 0, imported = 0;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		struct mesh_plan p;
		struct x_model m = { 0 };
		struct x_tree t;
		struct diag d = { 0 };
		int rc;

		plan_mesh(&p, &g);
		put_mesh(&g, &p);
		rc = x_parse(g.text, g.len, &t, &d);
		if (rc != 0)
			fail_msg("%s:%u:%u: %s in\n%s", "mesh.x", d.line, d.col, d.msg, g.text);
		rc = x_import(&t, 0, "clip", &m, &d);
		x_tree_free(&t);
		if (g.spoil == SPOIL_NONE) {
			if (rc != 0)
				fail_msg("%u:%u: %s in\n%s", d.line, d.col, d.msg, g.text);
			check_imported(&p, &m);
			imported++;
		} else {
			uint32_t line = 1, col = 1;

			for (size_t i = 0; i < g.spoil_off; i++) {
				if (g.text[i] == '\n') {
					line++;
					col = 1;
				} else {
					col++;
				}
			}
			if (rc != -EINVAL || d.line != line || d.col != col ||
			    strncmp(d.msg, g.want, strlen(g.want)) != 0)
				fail_msg("spoil %d: got %d %u:%u \"%s\", wanted %u:%u \"%s\" in\n%s",
					 (int)g.spoil, rc, d.line, d.col, d.msg, line, col, g.want,
					 g.text);
			failed++;
		}
		x_model_free(&m);
	}
	assert_true(imported > 500 && failed > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_meshes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
