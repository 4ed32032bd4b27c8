/*
 * asset_m2.c - an M2 becomes an asset.  Before 264 the file is the whole
 * model.  From 264 its views are NAME00.skin ... and the keys of a
 * sequence without flag 0x20 are in NAMEaaaa-vv.anim, all in the model's
 * folder: each is read through the caller's reader, validated on its own
 * (its errors name it and its offsets), and attached.  A companion that
 * is missing or rejected leaves out only its part: a view (the mesh keeps
 * its vertices, with no triangles when view 0 is the one missing), or a
 * sequence (listed as not loaded, never played); the rest loads.
 */
#include "daemon/assets/asset_m2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset_internal.h"
#include "daemon/formats/m2/m2.h"
#include "daemon/import/m2_import.h"

#define ASSET_M2_ERR 512

struct asset_m2_load {
	struct asset *a;
	const struct asset_options *opts;
	char **bufs;                    /* companions' bytes, alive until imported */
	uint32_t buf_count;
	uint64_t hash;
};

static uint64_t asset_m2_fnv(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Read companion `name` and attach it (kind, index): its entry in
 * a->companions whatever happens.  -ENOMEM only; every other failure is
 * the companion's status. */
static int asset_m2_companion(struct asset_m2_load *l, struct m2_model *m, const char *name,
			      enum asset_companion_kind kind, uint32_t index)
{
	struct asset_companion *c = &l->a->companions[l->a->companion_count];
	char err[ASSET_M2_ERR] = "";
	struct diag_notes notes = { 0 };
	struct diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int rc;

	memset(c, 0, sizeof *c);
	c->name = strdup(name);
	if (c->name == NULL)
		return -ENOMEM;
	c->kind = (uint8_t)kind;
	c->index = index;
	l->a->companion_count++;
	l->hash = asset_m2_fnv(l->hash, (const unsigned char *)name, strlen(name) + 1);
	rc = l->opts != NULL && l->opts->read_companion != NULL
		? l->opts->read_companion(l->opts->companion_ctx, name, &buf, &len, err, sizeof err)
		: -ENOENT;
	if (rc == -ENOMEM)
		return rc;
	if (rc == -ENOENT) {
		c->status = ASSET_COMPANION_MISSING;
		l->hash = asset_m2_fnv(l->hash, (const unsigned char *)"-", 1);
		return 0;
	}
	if (rc < 0) {
		c->status = ASSET_COMPANION_BROKEN;
		c->error = strdup(err[0] ? err : "cannot read");
		l->hash = asset_m2_fnv(l->hash, (const unsigned char *)err, strlen(err));
		return c->error == NULL ? -ENOMEM : 0;
	}
	c->bytes = len;
	l->hash = asset_m2_fnv(l->hash, (const unsigned char *)buf, len);
	rc = kind == ASSET_COMPANION_SKIN ? m2_attach_skin(m, index, buf, len, &d, &notes)
					  : m2_attach_anim(m, index, buf, len, &d, &notes);
	if (rc < 0) {
		c->status = ASSET_COMPANION_BROKEN;
		diag_format(&d, name, err, sizeof err);
		c->error = strdup(err);
		free(buf);
		return c->error == NULL ? -ENOMEM : 0;
	}
	c->status = ASSET_COMPANION_FOUND;
	l->bufs[l->buf_count++] = buf;
	return asset_add_notes(l->a, name, &notes);
}

static int asset_m2_companions(struct asset_m2_load *l, struct m2_model *m)
{
	uint32_t want = 0;
	char name[1200];
	int rc;

	if (!m->layout->per_sequence)
		return 0;
	want = m->view_count;
	for (uint32_t s = 0; s < m->sequence_count; s++)
		want += m->sequences[s].data == M2_SEQ_DATA_ANIM_MISSING;
	l->a->companions = calloc((size_t)want + 1, sizeof *l->a->companions);
	l->bufs = calloc((size_t)want + 1, sizeof *l->bufs);
	if (l->a->companions == NULL || l->bufs == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->view_count; i++) {
		if (m2_skin_name(l->a->name, i, name, sizeof name) < 0)
			return -ENAMETOOLONG;
		rc = asset_m2_companion(l, m, name, ASSET_COMPANION_SKIN, i);
		if (rc < 0)
			return rc;
	}
	for (uint32_t s = 0; s < m->sequence_count; s++) {
		const struct m2_sequence *q = &m->sequences[s];

		if (q->data != M2_SEQ_DATA_ANIM_MISSING)
			continue;
		if (m2_anim_name(l->a->name, q->id, q->variation, name, sizeof name) < 0)
			return -ENAMETOOLONG;
		rc = asset_m2_companion(l, m, name, ASSET_COMPANION_ANIM, s);
		if (rc < 0)
			return rc;
	}
	l->a->companions_hash = l->hash;
	return 0;
}

/* "2 of 4 companions not loaded: NAME01.skin missing, ...; sequences
 * 3, 7 not loaded", or nothing when all are there. */
static int asset_m2_note(struct asset *a)
{
	char note[1024];
	size_t o = 0;
	uint32_t bad = 0, shown = 0;

	for (uint32_t i = 0; i < a->companion_count; i++)
		bad += a->companions[i].status != ASSET_COMPANION_FOUND;
	if (bad == 0)
		return 0;
	o += (size_t)snprintf(note, sizeof note, "%" PRIu32 " of %" PRIu32 " companion files not "
			      "loaded:", bad, a->companion_count);
	for (uint32_t i = 0; i < a->companion_count && o < sizeof note; i++) {
		const struct asset_companion *c = &a->companions[i];
		const char *base = strrchr(c->name, '/');

		if (c->status == ASSET_COMPANION_FOUND)
			continue;
		if (shown++ == 8) {
			o += (size_t)snprintf(note + o, sizeof note - o, " ...");
			break;
		}
		o += (size_t)snprintf(note + o, sizeof note - o, "%s %s %s", shown > 1 ? "," : "",
				      base ? base + 1 : c->name,
				      c->status == ASSET_COMPANION_MISSING ? "missing" : "rejected");
		if (c->kind == ASSET_COMPANION_ANIM && o < sizeof note)
			o += (size_t)snprintf(note + o, sizeof note - o, " (sequence %" PRIu32
					      " not loaded)", c->index);
		else if (o < sizeof note)
			o += (size_t)snprintf(note + o, sizeof note - o, " (view %" PRIu32 "%s)",
					      c->index, c->index == 0 ? ": no triangles" : "");
	}
	a->note = strdup(note);
	return a->note == NULL ? -ENOMEM : 0;
}

int asset_m2_load(struct asset *a, const void *buf, size_t len, const struct asset_options *opts,
		  char *err, size_t errlen)
{
	struct asset_m2_load l = { .a = a, .opts = opts, .hash = 0xcbf29ce484222325ull };
	struct m2_model *m = NULL;
	struct m2_runtime r;
	struct diag d = { 0 };
	int rc = m2_parse(buf, len, &m, &d);

	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s: error: out of memory", a->name);
		else
			diag_format(&d, a->name, err, errlen);
		return rc;
	}
	a->version = (int)m->version;
	rc = asset_add_notes(a, a->name, &m->notes);
	if (rc == 0)
		rc = asset_m2_companions(&l, m);
	if (rc == 0)
		rc = m2_import(m, &r);
	m2_model_free(m);
	for (uint32_t i = 0; i < l.buf_count; i++)
		free(l.bufs[i]);
	free(l.bufs);
	if (rc == 0) {
		rc = asset_m2_note(a);
		if (rc < 0)
			m2_runtime_free(&r);
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: error: cannot convert model: %s", a->name, strerror(-rc));
		return rc;
	}
	a->skeleton = r.skeleton;
	a->joint_info = r.joints;
	a->clip_count = r.clip_count;
	a->clips = r.clips;
	a->sequences = r.sequences;
	a->mesh_count = r.mesh_count;
	a->meshes = r.meshes;
	a->emitter_count = r.emitter_count;
	a->emitters = r.emitters;
	a->attachment_count = r.attachment_count;
	a->attachments = r.attachments;
	a->event_count = r.event_count;
	a->events = r.events;
	a->global_count = r.global_count;
	a->global_ns = r.global_ns;
	a->shared_keys = r.global_keys;
	a->shared_keys_bytes = r.global_keys_bytes;
	return 0;
}
