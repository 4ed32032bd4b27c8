/*
 * libFuzzer harness for glTF: the JSON path and the GLB path (the input's
 * first bytes choose, as the reader does), with external buffers: an input
 * that starts "GLPK" is a pack (uint32 count, then count x {uint32 length,
 * bytes}): the first blob is the document, the others the files its
 * buffers name, in the order the loader asks for them.
 *
 * A document that parses is held to gltf.h's promises: every reference
 * inside what it names, parents that make a forest, the scene's roots
 * roots; once the pack's files are attached and gltf_finish passes, every
 * accessor marked used is read whole (_floats, and _uints for integers:
 * ASan sees a byte read past a buffer), every joint index inside its skin
 * and every index inside its primitive's vertices.  A refusal comes with a
 * message located inside the blob it blames.  Then the asset loads the
 * same bytes (what finishes must import) and samples every space of its
 * first clips at a few times (negative, inside, past the end, huge).
 *
 * The JSON reader's grammar is RFC 8259's: on a .gltf's text it refuses
 * with a syntax error exactly when jansson (any value at the top, \u0000
 * allowed) does, but where jansson stops at limits of its own (a number
 * past its types, its depth limit, a lone surrogate escape, NUL in a key,
 * a NUL byte it takes for the end of the text).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset.h"
#include "daemon/assets/asset_gltf.h"
#include "daemon/assets/sampling.h"
#include "daemon/formats/bin_reader.h"
#include "daemon/formats/gltf/gltf.h"

/* Syntax refused by the reader (rc, d) exactly when jansson refuses it. */
static void check_grammar(const uint8_t *data, size_t size, int rc, const struct diag *d)
{
	static const char *const limits[] = { "too big", "overflow", "maximum parsing depth",
					      "invalid Unicode", "NUL byte in object key" };
	bool ours, theirs;
	json_error_t e;
	json_t *j;

	if ((size >= 4 && memcmp(data, "glTF", 4) == 0) ||
	    (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) || (rc != 0 && rc != -EINVAL) ||
	    (rc != 0 && strncmp(d->msg, "neither", 7) == 0))
		return;
	j = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
	theirs = j == NULL;
	json_decref(j);
	/* jansson takes a NUL byte after a top-level literal for the end. */
	if (!theirs && memchr(data, 0, size) != NULL)
		return;
	for (size_t k = 0; theirs && k < sizeof limits / sizeof limits[0]; k++)
		if (strstr(e.text, limits[k]) != NULL)
			return;
	ours = rc == -EINVAL && strncmp(d->msg, "JSON: ", 6) == 0;
	if (ours != theirs || (ours && strcmp(d->msg, "JSON: not valid here") == 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile float sink;

#define PACK_MAX 8
struct pack {
	uint32_t count;
	const uint8_t *blob[PACK_MAX];
	size_t len[PACK_MAX];
	uint32_t next;
};

static void unpack(const uint8_t *data, size_t size, struct pack *p)
{
	size_t at = 8;
	uint32_t n;

	memset(p, 0, sizeof *p);
	if (size < 8 || memcmp(data, "GLPK", 4) != 0) {
		p->count = 1;
		p->blob[0] = data;
		p->len[0] = size;
		return;
	}
	n = bin_le32(data + 4);
	for (uint32_t i = 0; i < n && i < PACK_MAX && at + 4 <= size; i++) {
		size_t len = bin_le32(data + at);

		at += 4;
		if (len > size - at)
			len = size - at;
		p->blob[p->count] = data + at;
		p->len[p->count++] = len;
		at += len;
	}
}

static int read_pack(void *ctx, const char *name, char **buf, size_t *len, char *err,
		     size_t errlen)
{
	struct pack *p = ctx;
	uint32_t i = ++p->next;

	(void)name;
	(void)err;
	(void)errlen;
	if (i >= p->count)
		return -ENOENT;
	*buf = malloc(p->len[i] ? p->len[i] : 1);
	if (*buf == NULL)
		return -ENOMEM;
	memcpy(*buf, p->blob[i], p->len[i]);
	*len = p->len[i];
	return 0;
}

static void check_refs(const struct gltf_model *m)
{
	for (uint32_t i = 0; i < m->view_count; i++)
		if (m->views[i].buffer >= m->buffer_count ||
		    m->views[i].offset + m->views[i].length > m->buffers[m->views[i].buffer].byte_length)
			abort();
	for (uint32_t i = 0; i < m->accessor_count; i++) {
		const struct gltf_accessor *a = &m->accessors[i];

		if (a->view >= (int32_t)m->view_count || a->ncomp == 0 || a->ncomp > 16)
			abort();
		if (a->view >= 0 && a->count > 0 &&
		    a->offset + (uint64_t)(a->count - 1) * a->stride + a->elem_bytes >
		    m->views[a->view].length)
			abort();
	}
	for (uint32_t i = 0; i < m->node_count; i++) {
		const struct gltf_node *n = &m->nodes[i];
		uint32_t steps = 0;

		if (n->mesh >= (int32_t)m->mesh_count || n->skin >= (int32_t)m->skin_count ||
		    n->parent >= (int32_t)m->node_count)
			abort();
		for (uint32_t k = 0; k < n->child_count; k++)
			if (n->children[k] >= m->node_count || m->nodes[n->children[k]].parent != (int32_t)i)
				abort();
		/* A forest: every chain of parents ends. */
		for (int32_t p = n->parent; p >= 0; p = m->nodes[p].parent)
			if (++steps > m->node_count)
				abort();
	}
	for (uint32_t i = 0; i < m->root_count; i++)
		if (m->roots[i] >= m->node_count || m->nodes[m->roots[i]].parent >= 0)
			abort();
	for (uint32_t i = 0; i < m->skin_count; i++)
		for (uint32_t k = 0; k < m->skins[i].joint_count; k++)
			if (m->skins[i].joints[k] >= m->node_count)
				abort();
	for (uint32_t i = 0; i < m->animation_count; i++) {
		const struct gltf_animation *an = &m->animations[i];

		for (uint32_t k = 0; k < an->channel_count; k++)
			if (an->channels[k].sampler >= an->sampler_count ||
			    an->channels[k].node >= (int32_t)m->node_count)
				abort();
		for (uint32_t k = 0; k < an->sampler_count; k++)
			if (an->samplers[k].input >= m->accessor_count ||
			    an->samplers[k].output >= m->accessor_count)
				abort();
	}
}

/* Every used accessor read whole. */
static void check_data(const struct gltf_model *m)
{
	for (uint32_t i = 0; i < m->accessor_count; i++) {
		const struct gltf_accessor *a = &m->accessors[i];
		size_t n = (size_t)a->count * a->ncomp;
		float *f;

		if (!a->used)
			continue;
		f = malloc((n + 1) * sizeof *f);
		if (f == NULL)
			return;
		gltf_accessor_floats(m, i, f);
		for (size_t k = 0; k < n; k++)
			sink += f[k];
		if (a->component != GLTF_FLOAT) {
			uint32_t *u = (uint32_t *)(void *)f;

			gltf_accessor_uints(m, i, u);
			for (size_t k = 0; k < n; k++)
				sink += (float)u[k];
		}
		free(f);
	}
	/* Indices inside their primitive. */
	for (uint32_t i = 0; i < m->mesh_count; i++)
		for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
			const struct gltf_primitive *pr = &m->meshes[i].primitives[p];
			uint32_t *u;

			if (pr->position < 0 || pr->indices < 0)
				continue;
			u = malloc(((size_t)m->accessors[pr->indices].count + 1) * sizeof *u);
			if (u == NULL)
				return;
			gltf_accessor_uints(m, (uint32_t)pr->indices, u);
			for (uint32_t k = 0; k < m->accessors[pr->indices].count; k++)
				if (u[k] >= m->accessors[pr->position].count)
					abort();
			free(u);
		}
}

static void sample_asset(const uint8_t *data, size_t size, struct pack *p)
{
	static const double times[] = { -0.7, 0, 0.25, 3.5, 1e7 };
	struct asset_options o = { .read_companion = read_pack, .companion_ctx = p };
	struct asset *a = NULL;
	char err[512];

	p->next = 0;
	if (asset_load_buffer_with(size >= 4 && memcmp(data, "glTF", 4) == 0 ? "fuzz.glb"
									    : "fuzz.gltf",
				   data, size, &o, &a, err, sizeof err) != 0)
		abort();                /* what finishes must import */
	for (uint32_t c = 0; c < (a->clip_count ? a->clip_count : 1) && c < 3; c++)
		for (size_t t = 0; t < sizeof times / sizeof times[0]; t++)
			for (int sp = SPACE_LOCAL; sp < SAMPLE_SPACE_COUNT; sp++) {
				struct sample_request q = { .asset = a, .time = times[t],
							    .space = (enum sample_space)sp };
				struct sample_result r;

				q.clip = a->clip_count ? a->clips[c]->name : NULL;
				if (sample_evaluate(&q, &r, err, sizeof err) == 0) {
					for (uint32_t m = 0; m < r.mesh_count; m++)
						if (r.meshes[m]->vertex_count > 0)
							sink += r.positions[m][0].x;
					sample_result_free(&r);
				}
			}
	asset_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gltf_model *m = NULL;
	struct diag d = { 0 };
	struct pack p;
	uint64_t total;
	uint32_t next = 1;
	int rc;

	unpack(data, size, &p);
	data = p.blob[0];
	size = p.len[0];
	total = size;
	rc = gltf_parse(data, size, &m, &d);
	check_grammar(data, size, rc, &d);
	if (rc < 0) {
		if (m != NULL || (rc != -EINVAL && rc != -ENOMEM) ||
		    (rc == -EINVAL && (!d.set || (d.line == 0 && d.offset > size))))
			abort();
		return 0;
	}
	check_refs(m);
	for (uint32_t i = 0; rc == 0 && i < m->buffer_count; i++) {
		char name[1200];

		/* The files the loader would ask for, in its order. */
		if (m->buffers[i].kind != GLTF_BUFFER_FILE || next >= p.count ||
		    asset_gltf_companion_name("fuzz.gltf", m->buffers[i].path, name, sizeof name) < 0)
			continue;
		rc = gltf_attach_buffer(m, i, p.blob[next], p.len[next], &d);
		total += p.len[next++];
		if (rc < 0 && !d.set)
			abort();
	}
	if (rc == 0) {
		rc = gltf_finish(m, total, &d);
		if (rc == -EINVAL && (!d.set || (d.line == 0 && m->error_buffer >= 0 &&
						  d.offset > m->buffers[m->error_buffer].size) ||
				      (d.line == 0 && m->error_buffer < 0 && d.offset > size)))
			abort();
		if (rc == 0) {
			check_data(m);
			if (m->notes.count > DIAG_NOTES_MAX)
				abort();
		}
	}
	gltf_model_free(m);
	if (rc == 0)
		sample_asset(data, size, &p);
	return 0;
}
