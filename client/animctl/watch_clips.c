/*
 * watch_clips.c - the clips `animctl watch` cycles through with n / p:
 * the played asset's own, then those of every other asset of its format
 * whose skeleton fits the one shown (the daemon's rule for a cross-fade to
 * another asset: the same joint count, names and parents, and as many
 * particle emitters and attachment points), in the order of assets.list.
 * Found with assets.list and assets.info; the daemon checks each fade
 * again, and a clip it refuses is dropped (watch_clips_remove).
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void watch_clips_free(struct watch_clips *l)
{
	for (size_t i = 0; i < l->count; i++) {
		free(l->v[i].asset);
		free(l->v[i].clip);
	}
	free(l->v);
	*l = (struct watch_clips){ 0 };
}

static int watch_clips_add(struct watch_clips *l, const char *asset, const char *clip)
{
	struct watch_clip *v;

	if (l->count == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		v = realloc(l->v, cap * sizeof *v);
		if (v == NULL)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	v = &l->v[l->count];
	v->asset = strdup(asset);
	v->clip = strdup(clip);
	if (v->asset == NULL || v->clip == NULL) {
		free(v->asset);
		free(v->clip);
		return -ENOMEM;
	}
	l->count++;
	return 0;
}

/* Whether `cand` could replace `anim` on an instance showing `skel`. */
static bool watch_clips_fits(const animc_asset_info *skel, const animc_asset_info *anim,
			     const animc_asset_info *cand)
{
	if (!cand->has_skeleton || cand->joint_count != skel->joint_count ||
	    cand->camera_count > 0 || cand->emitter_count != anim->emitter_count ||
	    cand->attachment_count != anim->attachment_count)
		return false;
	for (size_t i = 0; i < skel->joint_count; i++) {
		const animc_joint_info *a = &cand->joints[i], *b = &skel->joints[i];

		if (a->name == NULL || b->name == NULL || strcmp(a->name, b->name) != 0 ||
		    a->parent != b->parent)
			return false;
	}
	return true;
}

/* The clips of `a` the daemon would play on `joints` joints (an M2
 * sequence whose keys are not loaded is listed, never played). */
static int watch_clips_of(struct watch_clips *l, const animc_asset_info *a, uint32_t joints)
{
	int rc = 0;

	for (size_t i = 0; i < a->clip_count && rc == 0; i++) {
		const animc_clip_info *c = &a->clips[i];

		if (c->name != NULL && c->joint_count == joints && (!c->has_sequence || c->loaded))
			rc = watch_clips_add(l, a->name, c->name);
	}
	return rc;
}

int watch_clips_find(animc_client *c, const animc_asset_info *skel, const animc_asset_info *anim,
		     uint32_t joints, struct watch_clips *out)
{
	animc_asset_list *list = NULL;
	int rc;

	*out = (struct watch_clips){ 0 };
	rc = watch_clips_of(out, anim, joints);
	if (rc == 0)
		rc = animc_assets_list(c, &list);
	for (size_t i = 0; rc == 0 && i < list->count; i++) {
		const animc_asset_summary *s = &list->assets[i];
		animc_asset_info *a = NULL;

		if (!s->ok || s->format == NULL || anim->format == NULL ||
		    strcmp(s->format, anim->format) != 0 || strcmp(s->name, anim->name) == 0 ||
		    strcmp(s->name, skel->name) == 0)
			continue;
		/* One gone since the list, or failing now, is not a candidate. */
		rc = animc_assets_info(c, s->name, &a);
		if (rc == -EREMOTEIO) {
			rc = 0;
			continue;
		}
		if (rc == 0 && watch_clips_fits(skel, anim, a))
			rc = watch_clips_of(out, a, joints);
		animc_free(a);
	}
	animc_free(list);
	if (rc < 0)
		watch_clips_free(out);
	return rc;
}

long watch_clips_index(const struct watch_clips *l, const char *asset, const char *clip)
{
	for (size_t i = 0; i < l->count; i++)
		if (asset != NULL && clip != NULL && strcmp(l->v[i].asset, asset) == 0 &&
		    strcmp(l->v[i].clip, clip) == 0)
			return (long)i;
	return -1;
}

void watch_clips_remove(struct watch_clips *l, size_t i)
{
	if (i >= l->count)
		return;
	free(l->v[i].asset);
	free(l->v[i].clip);
	memmove(&l->v[i], &l->v[i + 1], (l->count - i - 1) * sizeof *l->v);
	l->count--;
}
