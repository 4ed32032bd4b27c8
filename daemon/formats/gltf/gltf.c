/*
 * gltf.c - the reader's entry: container, JSON (gltf_doc.c), the asset's
 * version and extensions (spec 3.4, 3.12), then each part in the order
 * their references need; buffers from files; freeing.
 */
#include "daemon/formats/gltf/gltf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/formats/gltf/gltf_glb.h"
#include "daemon/formats/gltf/gltf_internal.h"

/* Extensions animd implements. */
static const char *const ext_read[] = { "KHR_mesh_quantization" };
/* Extensions that change nothing animd publishes (materials, textures,
 * lights, metadata): a file that requires one still poses exactly. */
static const char *const ext_harmless[] = {
	"KHR_texture_transform", "KHR_texture_basisu", "KHR_materials_unlit",
	"KHR_materials_pbrSpecularGlossiness", "KHR_materials_clearcoat",
	"KHR_materials_transmission", "KHR_materials_volume", "KHR_materials_ior",
	"KHR_materials_specular", "KHR_materials_sheen", "KHR_materials_emissive_strength",
	"KHR_materials_iridescence", "KHR_materials_anisotropy", "KHR_materials_dispersion",
	"KHR_materials_variants", "KHR_lights_punctual", "KHR_xmp_json_ld", "KHR_xmp",
	"EXT_texture_webp", "EXT_texture_avif", "MSFT_texture_dds", "EXT_lights_image_based",
	"MSFT_lod", "MSFT_packing_normalRoughnessMetallic", "MSFT_packing_occlusionRoughnessMetallic",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

#define LIST(a) a, sizeof a / sizeof a[0]

static int parse_extensions(struct gltf_ctx *c)
{
	struct gltf_where top = { 0 }, wr = gw_key(top, "extensionsRequired"),
			  wu = gw_key(top, "extensionsUsed");
	gv req, used;
	char unread[200] = "";
	size_t o = 0;

	if (gj_array(c, &top, 0, "extensionsRequired", false, &req) < 0 ||
	    gj_array(c, &top, 0, "extensionsUsed", false, &used) < 0)
		return -EINVAL;
	for (size_t k = 0; k < gv_size(c, req); k++) {
		const char *name = gv_string(c, gv_at(c, req, k));
		struct gltf_where at = gw_at(wr, (uint32_t)k);

		if (name == NULL)
			return gltf_error(c, &at, "an extension's name must be a string");
		if (!in_list(name, LIST(ext_read)) && !in_list(name, LIST(ext_harmless)))
			return gltf_error(c, &at, "the file requires extension %s, which animd does not "
					  "read", name);
	}
	for (size_t k = 0; k < gv_size(c, used); k++) {
		const char *name = gv_string(c, gv_at(c, used, k));
		struct gltf_where at = gw_at(wu, (uint32_t)k);

		if (name == NULL)
			return gltf_error(c, &at, "an extension's name must be a string");
		if (strcmp(name, "KHR_mesh_quantization") == 0)
			c->m->quantized = true;
		else if (o < sizeof unread)
			o += (size_t)snprintf(unread + o, sizeof unread - o, "%s%s", o ? ", " : "", name);
	}
	if (o > 0)
		gltf_note(c, &wu, "extensions animd does not read (nothing it publishes needs "
			  "them): %s", unread);
	return 0;
}

static int parse_asset(struct gltf_ctx *c)
{
	struct gltf_where top = { 0 }, wa = gw_key(top, "asset"), wv = gw_key(wa, "version");
	const char *version, *min;
	unsigned major = 0, minor = 0;
	gv asset;
	char tail;

	if (gj_object(c, &top, 0, "asset", true, &asset) < 0 ||
	    gj_string(c, &wa, asset, "version", true, &version) < 0 ||
	    gj_string(c, &wa, asset, "minVersion", false, &min) < 0 ||
	    gj_string(c, &wa, asset, "generator", false, &c->m->generator) < 0)
		return -EINVAL;
	if (sscanf(version, "%u.%u%c", &major, &minor, &tail) != 2)
		return gltf_error(c, &wv, "\"%s\" is not a version (\"2.0\")", version);
	if (major != 2)
		return gltf_error(c, &wv, "glTF %s: animd reads glTF 2.x", version);
	c->m->version_minor = minor;
	if (min != NULL && (sscanf(min, "%u.%u%c", &major, &minor, &tail) != 2 || major != 2 ||
			    minor > 0)) {
		struct gltf_where at = gw_key(wa, "minVersion");

		return gltf_error(c, &at, "the file needs glTF %s; animd reads 2.0", min);
	}
	return 0;
}

/* Top-level members that must be arrays when present, and their counts. */
static int top_arrays(struct gltf_ctx *c, uint32_t *cameras)
{
	static const char *const names[] = {
		"accessors", "animations", "buffers", "bufferViews", "cameras", "images",
		"materials", "meshes", "nodes", "samplers", "scenes", "skins", "textures",
	};
	struct gltf_where top = { 0 };
	gv mats;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		gv v;

		if (gj_array(c, &top, 0, names[i], false, &v) < 0)
			return -EINVAL;
		if (v != GV_NONE && gv_size(c, v) > UINT32_MAX / 8) {
			struct gltf_where at = gw_key(top, names[i]);

			return gltf_error(c, &at, "too many entries");
		}
	}
	c->m->mesh_count = (uint32_t)gv_size(c, gv_get(c, 0, "meshes"));
	c->m->node_count = (uint32_t)gv_size(c, gv_get(c, 0, "nodes"));
	c->m->skin_count = (uint32_t)gv_size(c, gv_get(c, 0, "skins"));
	*cameras = (uint32_t)gv_size(c, gv_get(c, 0, "cameras"));
	mats = gv_get(c, 0, "materials");
	c->m->material_count = (uint32_t)gv_size(c, mats);
	c->m->material_names = gltf_alloc(c, c->m->material_count, sizeof *c->m->material_names);
	if (c->m->material_names == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->m->material_count; i++)
		c->m->material_names[i] = gv_string(c, gv_get(c, gv_at(c, mats, i),
									    "name"));
	return 0;
}

/* The JSON text: a GLB's chunk, or the file (a UTF-8 byte order mark,
 * which glTF forbids, noted and skipped). */
static int load_json(struct gltf_ctx *c, const unsigned char *text, size_t len, uint64_t base)
{
	int rc;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		if (c->m->glb)
			diag_note_offset(&c->m->notes, base, "a UTF-8 byte order mark before the JSON "
					 "(glTF has none): skipped");
		else
			diag_note_at(&c->m->notes, 1, 1, "a UTF-8 byte order mark before the JSON "
				     "(glTF has none): skipped");
		text += 3;
		len -= 3;
		base += 3;
	}
	{
		size_t i = 0;

		while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
				   text[i] == '\r'))
			i++;
		if (i < len && (text[i] < 0x20 || text[i] >= 0x7f)) {
			diag_at_offset(c->d, base + i, "neither a GLB (which starts \"glTF\") nor glTF's "
				       "JSON (byte 0x%02x)", text[i]);
			return -EINVAL;
		}
	}
	/* Padding after a GLB's JSON is spaces; some writers use zeros. */
	while (c->m->glb && len > 0 && text[len - 1] == '\0')
		len--;
	c->p->text = (const char *)text;
	c->p->text_len = len;
	c->p->text_base = base;
	rc = gltf_doc_parse(c);
	if (rc < 0)
		return rc;
	if (gv_kind_of(c, 0) != GV_OBJECT) {
		struct gltf_where top = { 0 };

		return gltf_error(c, &top, "a glTF document is a JSON object");
	}
	return 0;
}

int gltf_parse(const void *buf, size_t len, struct gltf_model **out, struct diag *d)
{
	const unsigned char *b = buf;
	struct gltf_model *m = calloc(1, sizeof *m);
	struct gltf_priv *p = calloc(1, sizeof *p);
	struct gltf_ctx c = { m, p, d };
	struct gltf_glb glb = { 0 };
	uint32_t cameras = 0;
	int rc;

	*out = NULL;
	if (m == NULL || p == NULL) {
		free(m);
		free(p);
		return -ENOMEM;
	}
	m->priv = p;
	m->error_buffer = -1;
	if (len > GLTF_MAX_BYTES) {
		diag_at_offset(d, 0, "the file is %zu bytes, more than animd reads (%llu)", len,
			       (unsigned long long)GLTF_MAX_BYTES);
		rc = -EINVAL;
		goto fail;
	}
	if (len >= 4 && memcmp(b, "glTF", 4) == 0) {
		m->glb = true;
		rc = gltf_glb_split(b, len, &glb, d, &m->notes);
		if (rc == 0)
			rc = load_json(&c, glb.json, glb.json_len, glb.json_offset);
	} else {
		rc = load_json(&c, b, len, 0);
	}
	if (rc == 0)
		rc = parse_asset(&c);
	if (rc == 0)
		rc = parse_extensions(&c);
	if (rc == 0)
		rc = top_arrays(&c, &cameras);
	if (rc == 0)
		rc = gltf_parse_buffers(&c, glb.bin, glb.bin_len, glb.bin_offset, glb.has_bin);
	if (rc == 0)
		rc = gltf_parse_views(&c);
	if (rc == 0)
		rc = gltf_parse_accessors(&c);
	if (rc == 0)
		rc = gltf_parse_meshes(&c);
	if (rc == 0)
		rc = gltf_parse_skins(&c);
	if (rc == 0)
		rc = gltf_parse_nodes(&c, cameras);
	if (rc == 0)
		rc = gltf_check_instances(&c);
	if (rc == 0)
		rc = gltf_parse_scenes(&c);
	if (rc == 0)
		rc = gltf_parse_animations(&c);
	if (rc == 0) {
		*out = m;
		return 0;
	}
fail:
	if (rc == -ENOMEM && d != NULL && !d->set)
		diag_at_offset(d, 0, "out of memory");
	gltf_model_free(m);
	return rc;
}

int gltf_attach_buffer(struct gltf_model *m, uint32_t index, const void *bytes, size_t len,
		       struct diag *d)
{
	struct gltf_ctx c = { m, m->priv, d };
	struct gltf_buffer *b = &m->buffers[index];
	struct gltf_where w = gw_key(gw_item("buffers", index), "byteLength");

	if (len < b->byte_length)
		return gltf_error(&c, &w, "buffer %" PRIu32 " (%s) holds %zu bytes, fewer than its "
				  "byteLength %" PRIu64, index, b->path, len, b->byte_length);
	if (len > b->byte_length)
		gltf_note(&c, &w, "the file holds more bytes than the buffer's byteLength: the "
			  "rest is not read");
	b->data = bytes;
	b->size = len;
	b->attached = true;
	return 0;
}

void gltf_model_free(struct gltf_model *m)
{
	struct gltf_priv *p;

	if (m == NULL)
		return;
	p = m->priv;
	if (p != NULL) {
		while (p->arena != NULL) {
			struct gltf_block *next = p->arena->next;

			free(p->arena);
			p->arena = next;
		}
		gltf_doc_free(p);
		free(p);
	}
	free(m);
}
