/*
 * asset_gltf.c - a glTF file becomes an asset (asset_gltf.h).  The buffer
 * files are read through the caller's reader (the daemon's stays inside
 * the asset root, symlinks included) and kept until the import is done;
 * each is listed in a->companions, and their names and bytes hashed, so
 * that a save of a .bin reloads the .gltf that reads it.
 */
#include "daemon/assets/asset_gltf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/asset_internal.h"
#include "daemon/formats/gltf/gltf.h"
#include "daemon/import/gltf_import.h"

#define ASSET_GLTF_ERR 512

int asset_gltf_companion_name(const char *name, const char *path, char *out, size_t size)
{
	const char *slash = strrchr(name, '/');
	bool absolute = name[0] == '/';
	/* The folder: what comes before the last '/' ("/" for "/m.gltf"). */
	size_t n = slash == NULL ? 0 : slash == name ? 1 : (size_t)(slash - name);

	if (n + strlen(path) + 2 > size)
		return -ENAMETOOLONG;
	memcpy(out, name, n);
	out[n] = '\0';
	while (strncmp(path, "../", 3) == 0 || strcmp(path, "..") == 0) {
		char *up;

		if (n == 0 || (absolute && n == 1))
			return -EACCES;
		up = strrchr(out, '/');
		n = up == NULL ? 0 : up == out ? 1 : (size_t)(up - out);
		out[n] = '\0';
		path += path[2] == '/' ? 3 : 2;
	}
	if (*path == '\0')
		return -EACCES;
	if (n > 0 && out[n - 1] != '/')
		out[n++] = '/';
	strcpy(out + n, path);
	return 0;
}

/* Names and small things by FNV-1a; a buffer's bytes 32 at a time in
 * four independent lanes (a megabyte of buffer a load: a byte at a time
 * was a quarter of it, one lane's chain of multiplies still 7%).  For
 * noticing a change, not against an adversary. */
static uint64_t asset_gltf_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
}

static uint64_t asset_gltf_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t lane[4] = { h, h ^ 1, h ^ 2, h ^ 3 };
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		uint64_t w[4];

		memcpy(w, b + i, sizeof w);
		for (int k = 0; k < 4; k++)
			lane[k] = mix(lane[k], w[k]);
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, sizeof w);
		lane[0] = mix(lane[0], w);
	}
	h = mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
	return asset_gltf_fnv(h ^ n, b + i, n - i);
}

struct asset_gltf_load {
	struct asset *a;
	struct gltf_model *m;
	char **bufs;                    /* the buffers' bytes, alive until imported */
	char **whys;                    /* why a buffer is not there (messages) */
	uint32_t count;                 /* buffers (entries of bufs and whys) */
	uint64_t read;                  /* bytes read in all */
	uint64_t hash;
};

/* Read buffer i's file; its companion entry whatever happens.  -ENOMEM,
 * or -EINVAL with d set when the file is shorter than the buffer. */
static int asset_gltf_buffer(struct asset_gltf_load *l, const struct asset_options *opts,
			     uint32_t i, struct diag *d)
{
	struct gltf_buffer *b = &l->m->buffers[i];
	struct asset_companion *c = &l->a->companions[l->a->companion_count];
	char name[1200], err[ASSET_GLTF_ERR] = "";
	char *buf = NULL;
	size_t len = 0;
	int rc = asset_gltf_companion_name(l->a->name, b->path, name, sizeof name);

	if (rc == -EACCES) {
		b->why_none = "its path climbs out of the asset root";
		return 0;
	}
	if (rc < 0) {
		b->why_none = "its path is too long";
		return 0;
	}
	memset(c, 0, sizeof *c);
	c->name = strdup(name);
	if (c->name == NULL)
		return -ENOMEM;
	c->kind = ASSET_COMPANION_BUFFER;
	c->index = i;
	l->a->companion_count++;
	l->hash = asset_gltf_fnv(l->hash, name, strlen(name) + 1);
	rc = opts != NULL && opts->read_companion != NULL
		? opts->read_companion(opts->companion_ctx, name, &buf, &len, err, sizeof err)
		: -ENOENT;
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		char why[sizeof name + ASSET_GLTF_ERR + 32];

		if (rc == -ENOENT)
			snprintf(why, sizeof why, "%s is missing", name);
		else
			snprintf(why, sizeof why, "%s cannot be read (%s)", name, err[0] ? err : "?");
		c->status = rc == -ENOENT ? ASSET_COMPANION_MISSING : ASSET_COMPANION_BROKEN;
		if (rc != -ENOENT && (c->error = strdup(err[0] ? err : "cannot read")) == NULL)
			return -ENOMEM;
		l->whys[i] = strdup(why);
		if (l->whys[i] == NULL)
			return -ENOMEM;
		b->why_none = l->whys[i];
		l->hash = asset_gltf_fnv(l->hash, rc == -ENOENT ? "-" : err,
					 rc == -ENOENT ? 1 : strlen(err));
		return 0;
	}
	c->bytes = len;
	l->read += len;
	l->hash = asset_gltf_hash_bytes(l->hash, buf, len);
	l->bufs[i] = buf;
	rc = gltf_attach_buffer(l->m, i, buf, len, d);
	c->status = rc == 0 ? ASSET_COMPANION_FOUND : ASSET_COMPANION_BROKEN;
	return rc;
}

static void asset_gltf_take(struct asset *a, struct gltf_runtime *r)
{
	a->skeleton = r->skeleton;
	a->clip_count = r->clip_count;
	a->clips = r->clips;
	a->mesh_count = r->mesh_count;
	a->meshes = r->meshes;
	a->weight_count = r->weight_count;
	a->weights = r->weights;
	a->weight_names = r->weight_names;
	free(r->joint_nodes);
	memset(r, 0, sizeof *r);
}

int asset_gltf_load(struct asset *a, const void *buf, size_t len,
		    const struct asset_options *opts, char *err, size_t errlen)
{
	struct asset_gltf_load l = { .a = a, .read = len, .hash = 0xcbf29ce484222325ull };
	struct gltf_runtime r = { 0 };
	struct diag d = { 0 };
	uint32_t n = 0;
	int rc = gltf_parse(buf, len, &l.m, &d);

	a->version = 2;
	a->up = "y_up";
	a->handedness = "right";
	if (rc < 0)
		goto fail;
	for (uint32_t i = 0; i < l.m->buffer_count; i++)
		n += l.m->buffers[i].kind == GLTF_BUFFER_FILE;
	l.bufs = calloc((size_t)l.m->buffer_count + 1, sizeof *l.bufs);
	l.whys = calloc((size_t)l.m->buffer_count + 1, sizeof *l.whys);
	a->companions = calloc((size_t)n + 1, sizeof *a->companions);
	if (l.bufs == NULL || l.whys == NULL || a->companions == NULL)
		rc = -ENOMEM;
	else
		l.count = l.m->buffer_count;
	for (uint32_t i = 0; rc == 0 && i < l.m->buffer_count; i++)
		if (l.m->buffers[i].kind == GLTF_BUFFER_FILE)
			rc = asset_gltf_buffer(&l, opts, i, &d);
	a->companions_hash = a->companion_count > 0 ? l.hash : 0;
	if (rc == 0)
		rc = gltf_finish(l.m, l.read, &d);
	if (rc == 0)
		rc = asset_add_notes(a, a->name, &l.m->notes);
	if (rc == 0)
		rc = gltf_import(l.m, &r);
	if (rc == 0)
		rc = asset_add_notes(a, a->name, &r.notes);
fail:
	if (rc == -EINVAL) {
		const char *file = a->name;

		if (l.m != NULL && l.m->error_buffer >= 0) {
			for (uint32_t i = 0; i < a->companion_count; i++)
				if (a->companions[i].index == (uint32_t)l.m->error_buffer)
					file = a->companions[i].name;
		}
		diag_format(&d, file, err, errlen);
	} else if (rc < 0) {
		snprintf(err, errlen, "%s: error: cannot load: %s", a->name, strerror(-rc));
	}
	if (rc == 0)
		asset_gltf_take(a, &r);
	gltf_runtime_free(&r);
	gltf_model_free(l.m);
	for (uint32_t i = 0; i < l.count; i++) {
		free(l.bufs[i]);
		free(l.whys[i]);
	}
	free(l.bufs);
	free(l.whys);
	return rc;
}
