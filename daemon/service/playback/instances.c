#include "daemon/service/playback/instances.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/service/base/clock.h"
#include "daemon/service/base/log.h"
#include "daemon/service/playback/streams.h"

struct instances {
	uv_loop_t *loop;
	struct instance_events events;
	struct instance **buckets;
	size_t nbuckets;                /* power of two */
	size_t count;
	uint64_t destroyed;             /* instances_destroy calls so far */
	size_t closing_handles;
	uint64_t next_id;
	struct instance *first, *last;  /* creation order */
	bool closing;
	void (*done)(void *data);
	void *done_data;
};

int instances_new(uv_loop_t *loop, const struct instance_events *events, struct instances **out)
{
	struct instances *set = calloc(1, sizeof *set);

	if (set == NULL)
		return -ENOMEM;
	set->nbuckets = 256;
	set->buckets = calloc(set->nbuckets, sizeof *set->buckets);
	if (set->buckets == NULL) {
		free(set);
		return -ENOMEM;
	}
	set->loop = loop;
	set->events = *events;
	*out = set;
	return 0;
}

static size_t instances_slot(const struct instances *set, uint64_t id)
{
	/* Fibonacci hashing spreads sequential ids over the buckets. */
	return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (set->nbuckets - 1);
}

static void instances_grow(struct instances *set)
{
	size_t n = set->nbuckets * 2;
	struct instance **b = calloc(n, sizeof *b);
	struct instances tmp = *set;

	if (b == NULL)
		return;         /* longer chains, still correct */
	tmp.buckets = b;
	tmp.nbuckets = n;
	for (size_t i = 0; i < set->nbuckets; i++) {
		struct instance *in = set->buckets[i], *next;

		for (; in != NULL; in = next) {
			size_t k = instances_slot(&tmp, in->id);

			next = in->next;
			in->next = b[k];
			b[k] = in;
		}
	}
	free(set->buckets);
	set->buckets = b;
	set->nbuckets = n;
}

struct instance *instances_find(struct instances *set, uint64_t id)
{
	struct instance *in = set->buckets[instances_slot(set, id)];

	while (in != NULL && in->id != id)
		in = in->next;
	return in;
}

size_t instances_count(const struct instances *set)
{
	return set->count;
}

static size_t instances_str_bytes(const char *s)
{
	return s != NULL ? strlen(s) + 1 : 0;
}

uint64_t instances_bytes(const struct instances *set)
{
	uint64_t n = sizeof *set + set->nbuckets * sizeof *set->buckets;

	for (const struct instance *in = set->first; in != NULL; in = in->all_next)
		n += sizeof *in + instances_str_bytes(in->asset_name) +
		     instances_str_bytes(in->clip_name) + instances_str_bytes(in->mesh_name) +
		     layers_bytes(in) + (in->cues != NULL ? sizeof *in->cues : 0);
	return n;
}

int64_t instance_duration(const struct instance *in)
{
	if (in->clip != NULL)
		return in->clip->duration_ns;
	return in->asset->camera != NULL ? in->asset->camera->duration_ns : 0;
}

int64_t instance_time(const struct instance *in)
{
	return playback_time(&in->clock, clock_now_ns());
}

int64_t instance_time_at(const struct instance *in, int64_t now_ns)
{
	return playback_time(&in->clock, now_ns);
}

int64_t instance_global_time(const struct instance *in)
{
	return instance_time(in);
}

struct clip_time instance_clip_time(const struct instance *in)
{
	return instance_clip_time_of(in, instance_time(in));
}

struct clip_time instance_clip_time_of(const struct instance *in, int64_t t)
{
	if (in->clip != NULL)
		return clip_map_time(in->clip, t, in->loop);
	if (in->asset->camera != NULL)
		return camera_map_time(in->asset->camera, t, in->loop);
	return (struct clip_time){ 0 };
}

const char *instance_state(const struct instance *in)
{
	if (in->stopped)
		return "stopped";
	if (in->ended)
		return "ended";
	return in->clock.playing ? "playing" : "paused";
}

/* Has a clip played once run past its end, in its direction of play? */
static bool instance_past_end(const struct instance *in)
{
	int64_t t = instance_time(in);

	if (in->loop != LOOP_ONCE)
		return false;
	return in->clock.speed >= 0 ? t >= instance_duration(in) : t <= 0;
}

static void instance_end_fired(uv_timer_t *timer);

/* (Re)schedule the `ended` event of a clip played once. */
static void instance_arm(struct instance *in)
{
	int64_t target, at, now;
	uint64_t ms;

	uv_timer_stop(&in->end_timer);
	in->ended = in->loop == LOOP_ONCE && instance_past_end(in) && in->ended;
	if (in->loop != LOOP_ONCE || in->ended || !in->clock.playing || in->clock.speed == 0)
		return;
	target = in->clock.speed > 0 ? instance_duration(in) : 0;
	at = playback_clock_at(&in->clock, target);
	if (at == INT64_MAX)
		return;
	now = clock_now_ns();
	ms = at <= now ? 0 : (uint64_t)((at - now + 999999) / 1000000);
	uv_timer_start(&in->end_timer, instance_end_fired, ms, 0);
}

static void instance_fade_fired(uv_timer_t *timer);

/* (Re)schedule the fade timer for the stack's next fade end. */
static void instance_arm_fade(struct instance *in)
{
	int64_t at = layers_next_deadline(in), now;
	uint64_t ms;

	uv_timer_stop(&in->fade_timer);
	if (at == INT64_MAX)
		return;
	now = clock_now_ns();
	ms = at <= now ? 0 : (uint64_t)((at - now + 999999) / 1000000);
	uv_timer_start(&in->fade_timer, instance_fade_fired, ms, 0);
}

/*
 * Every fade that has ended by now, bottom-up: a cross-fade becomes the
 * base (instance.faded), a layer faded out goes (layer.ended), any other
 * weight fade just stops.  An event may end the instance (its owner's
 * connection closing), and then nothing more is done.
 */
static void instance_fade_fired(uv_timer_t *timer)
{
	struct instance *in = timer->data;
	int64_t now = clock_now_ns();
	bool changed = false;

	for (uint32_t i = 0; i < in->layer_count; i++) {
		struct layer *l = in->layers[i];

		if (!l->fading || l->fade_end_ns > now)
			continue;
		l->fading = false;
		l->from = l->to;
		changed = true;
		if (l->mode == LAYER_FADE) {
			int64_t end = l->fade_end_ns;

			/* The old clip was the base until the fade's end, the new
			 * one is from then: each reports its own crossings. */
			cues_flush(in, end);
			if (in->destroyed)
				return;
			layers_promote(in, i);
			instance_arm(in);
			cues_begin(in, end);
			stream_publish_now(in);
			if (in->set->events.faded != NULL)
				in->set->events.faded(in->set->events.ctx, in);
			if (in->destroyed)
				return;
			i = (uint32_t)-1;       /* the stack moved down: start over */
			changed = false;
		} else if (l->removing) {
			uint32_t id = l->id;
			char *clip = l->clip_name;      /* kept for the event */

			l->clip_name = NULL;
			layers_drop(in, i);
			stream_publish_now(in);
			if (in->set->events.layer_ended != NULL)
				in->set->events.layer_ended(in->set->events.ctx, in, id, clip);
			free(clip);
			if (in->destroyed)
				return;
			i = (uint32_t)-1;
			changed = false;
		}
	}
	if (changed)
		stream_publish_now(in);
	instance_arm_fade(in);
}

void instance_layers_changed(struct instance *in)
{
	instance_arm(in);
	instance_arm_fade(in);
	stream_publish_now(in);
}

int instance_cut_to(struct instance *in, const struct layer_spec *spec)
{
	struct layer_spec cut = *spec;
	uint32_t id;
	int rc;

	cut.mode = LAYER_FADE;
	cut.weight = 1.0f;
	cut.fade_ns = 0;
	cut.mask_count = 0;
	rc = layers_push(in, &cut, &id);
	if (rc < 0)
		return rc;
	cues_flush(in, in->layers[in->fade_count - 1]->clock.anchor_clock_ns);
	if (in->destroyed)
		return 0;
	layers_promote(in, in->fade_count - 1);
	instance_layers_changed(in);
	/* A cut starts the clip: a moment at its start is passed. */
	cues_begin(in, in->clock.anchor_clock_ns);
	return 0;
}

static void instance_end_fired(uv_timer_t *timer)
{
	struct instance *in = timer->data;

	if (!instance_past_end(in)) {
		instance_arm(in);       /* woke a little early */
		return;
	}
	in->ended = true;
	stream_publish_now(in);
	if (in->set->events.ended != NULL)
		in->set->events.ended(in->set->events.ctx, in);
}

int instances_create(struct instances *set, struct playback_owner *owner,
		     const struct instance_spec *spec, struct instance **out)
{
	struct instance *in = calloc(1, sizeof *in);
	int64_t now = clock_now_ns();
	size_t k;

	if (in == NULL)
		return -ENOMEM;
	in->asset_name = strdup(spec->asset_name);
	in->clip_name = spec->clip ? strdup(spec->clip->name) : NULL;
	in->mesh_name = spec->mesh_name ? strdup(spec->mesh_name) : NULL;
	if (in->asset_name == NULL || (spec->clip && in->clip_name == NULL) ||
	    (spec->mesh_name && in->mesh_name == NULL) ||
	    uv_timer_init(set->loop, &in->end_timer) < 0) {
		free(in->asset_name);
		free(in->clip_name);
		free(in->mesh_name);
		free(in);
		return -ENOMEM;
	}
	/* Cannot fail once the loop's first timer could be made. */
	uv_timer_init(set->loop, &in->fade_timer);
	in->open_handles = 2;
	in->end_timer.data = in;
	in->fade_timer.data = in;
	in->set = set;
	in->owner = owner;
	in->id = ++set->next_id;
	in->asset = asset_ref(spec->asset);
	in->mesh = spec->mesh ? asset_ref(spec->mesh) : NULL;
	in->clip = spec->clip;
	in->generation = spec->generation;
	in->mesh_generation = spec->mesh_generation;
	in->loop = spec->loop;
	in->root_motion = spec->root_motion;
	in->cues_off = spec->cues_off;
	playback_start(&in->clock, spec->has_anchor ? spec->anchor_ns : now, spec->start_ns,
		       spec->speed);

	if (set->count >= set->nbuckets)
		instances_grow(set);
	k = instances_slot(set, in->id);
	in->next = set->buckets[k];
	set->buckets[k] = in;
	in->all_prev = set->last;
	if (set->last != NULL)
		set->last->all_next = in;
	else
		set->first = in;
	set->last = in;
	set->count++;
	owner->instances++;
	instance_arm(in);
	/* Reports begin where playback is when the play is handled, that
	 * instant included (its start, unless "at" says otherwise). */
	cues_begin(in, now);
	*out = in;
	return 0;
}

static void instances_maybe_done(struct instances *set)
{
	if (set->closing && set->count == 0 && set->closing_handles == 0) {
		void (*done)(void *) = set->done;
		void *data = set->done_data;

		free(set->buckets);
		free(set);
		if (done != NULL)
			done(data);
	}
}

static void instance_closed(uv_handle_t *h)
{
	struct instance *in = h->data;
	struct instances *set = in->set;

	if (--in->open_handles == 0) {
		free(in->cues);
		free(in);
	}
	set->closing_handles--;
	instances_maybe_done(set);
}

void instances_destroy(struct instance *in)
{
	struct instances *set = in->set;
	struct instance **p = &set->buckets[instances_slot(set, in->id)];

	while (*p != in)
		p = &(*p)->next;
	*p = in->next;
	if (in->all_prev != NULL)
		in->all_prev->all_next = in->all_next;
	else
		set->first = in->all_next;
	if (in->all_next != NULL)
		in->all_next->all_prev = in->all_prev;
	else
		set->last = in->all_prev;
	set->count--;
	set->destroyed++;
	in->destroyed = true;
	in->owner->instances--;
	stream_detach(in);
	asset_unref(in->asset);
	asset_unref(in->mesh);
	free(in->asset_name);
	free(in->clip_name);
	free(in->mesh_name);
	layers_free_all(in);
	in->asset = in->mesh = NULL;
	set->closing_handles += in->open_handles;
	uv_close((uv_handle_t *)&in->end_timer, instance_closed);
	uv_close((uv_handle_t *)&in->fade_timer, instance_closed);
	if (in->cues != NULL)
		uv_close((uv_handle_t *)&in->cues->timer, instance_closed);
}

void instances_end_owner(struct instances *set, struct playback_owner *owner)
{
	struct instance *in, *next;

	for (in = set->first; in != NULL; in = next) {
		next = in->all_next;
		if (in->owner == owner)
			instances_destroy(in);
	}
}

void instances_close(struct instances *set, void (*done)(void *data), void *data)
{
	set->closing = true;
	set->done = done;
	set->done_data = data;
	while (set->first != NULL)
		instances_destroy(set->first);
	instances_maybe_done(set);
}

void instances_each(struct instances *set, int (*fn)(struct instance *in, void *data), void *data)
{
	struct instance *in, *next;

	for (in = set->first; in != NULL; in = next) {
		next = in->all_next;
		if (fn(in, data) != 0)
			return;
	}
}

/* Each clock change first reports the crossings due under the clock as
 * it was (cues.h). */
void instance_pause(struct instance *in)
{
	int64_t now = clock_now_ns();

	cues_flush(in, now);
	if (in->destroyed)
		return;
	playback_pause(&in->clock, now);
	layers_pause(in, now);
	instance_arm(in);
	cues_arm(in);
	stream_publish_now(in);
}

void instance_resume(struct instance *in)
{
	int64_t now = clock_now_ns();

	cues_flush(in, now);
	if (in->destroyed)
		return;
	playback_resume(&in->clock, now);
	layers_resume(in, now);
	instance_arm(in);
	cues_arm(in);
	stream_publish_now(in);
}

void instance_seek(struct instance *in, int64_t time_ns)
{
	int64_t now = clock_now_ns();

	cues_flush(in, now);
	if (in->destroyed)
		return;
	playback_seek(&in->clock, now, time_ns);
	in->ended = false;
	instance_arm(in);
	if (instance_past_end(in) && !in->clock.playing)
		in->ended = true;
	cues_jump(in, now);
	stream_publish_now(in);
}

void instance_set_speed(struct instance *in, double speed)
{
	int64_t now = clock_now_ns();

	cues_flush(in, now);
	if (in->destroyed)
		return;
	playback_set_speed(&in->clock, now, speed);
	in->ended = false;
	instance_arm(in);
	cues_arm(in);
	stream_publish_now(in);
}

void instance_set_cues(struct instance *in, bool on)
{
	in->cues_off = !on;
	cues_arm(in);
}

void instances_owner_changed(struct instances *set, struct playback_owner *owner)
{
	for (struct instance *in = set->first; in != NULL; in = in->all_next)
		if (in->owner == owner)
			cues_arm(in);
}

struct instance_cues *instance_cues_make(struct instance *in)
{
	struct instance_cues *c = in->cues;

	if (c != NULL)
		return c;
	c = calloc(1, sizeof *c);
	if (c == NULL || uv_timer_init(in->set->loop, &c->timer) < 0) {
		free(c);
		return NULL;
	}
	c->timer.data = in;
	in->cues = c;
	in->open_handles++;
	return c;
}

void instances_report_cue(struct instance *in, const struct cue *cue)
{
	if (in->set->events.clip_event != NULL)
		in->set->events.clip_event(in->set->events.ctx, in, cue);
}

/* Stop an instance because its asset changed under it.  The event can end
 * the instance itself (sending it may close the owner's connection: its
 * output limit reached, or a write to a client that is gone), and then it
 * must not be destroyed a second time. */
static void instance_stop_with(struct instance *in, const char *code, const char *fmt,
			       const char *a, const char *b)
{
	char message[512];

	snprintf(message, sizeof message, fmt, a, b);
	log_info("instance %llu stopped: %s", (unsigned long long)in->id, message);
	if (in->set->events.stopped != NULL)
		in->set->events.stopped(in->set->events.ctx, in, code, message);
	if (!in->destroyed)
		instances_destroy(in);
}

/* Rebind one instance to a new version of its asset or mesh. */
static void instance_rebind(struct instance *in, const char *name, struct asset *asset,
			    uint64_t generation)
{
	char why[256];
	bool is_asset = strcmp(in->asset_name, name) == 0;
	bool is_mesh = in->mesh_name != NULL && strcmp(in->mesh_name, name) == 0;
	const struct asset *old = is_asset ? in->asset : in->mesh;
	const char *code;

	/* The old version's crossings due so far are its own. */
	cues_flush(in, clock_now_ns());
	if (in->destroyed)
		return;
	if (layers_use(in, name) &&
	    layers_rebind(in, name, asset, generation, &code, why, sizeof why) < 0) {
		instance_stop_with(in, code, "%s%s", why, "");
		return;
	}
	if (!is_asset && !is_mesh) {
		stream_publish_now(in);
		return;
	}
	const struct clip *clip = in->clip;
	const struct skeleton *anim_skel;
	bool jumped = false;

	if (asset == NULL) {
		instance_stop_with(in, "asset_removed", "%s%s was removed", is_asset ? "asset " : "mesh ", name);
		return;
	}
	if (old->skeleton != NULL && asset->skeleton != NULL &&
	    skeleton_check_binding(old->skeleton, asset->skeleton, why, sizeof why) < 0) {
		instance_stop_with(in, "skeleton_changed", "the skeleton of %s changed shape: %s", name, why);
		return;
	}
	if ((old->skeleton == NULL) != (asset->skeleton == NULL) ||
	    (old->camera == NULL) != (asset->camera == NULL)) {
		instance_stop_with(in, "skeleton_changed", "%s changed kind%s", name, "");
		return;
	}
	if (is_asset && in->clip_name != NULL) {
		clip = asset_find_clip(asset, in->clip_name);
		if (clip == NULL) {
			instance_stop_with(in, "clip_removed", "clip \"%s\" is no longer in %s", in->clip_name, name);
			return;
		}
	}
	anim_skel = is_asset ? asset->skeleton : in->asset->skeleton;
	if (in->mesh != NULL && anim_skel != NULL && !is_asset &&
	    skeleton_check_binding(anim_skel, asset->skeleton, why, sizeof why) < 0) {
		instance_stop_with(in, "skeleton_changed", "mesh %s no longer fits: %s", name, why);
		return;
	}
	if (is_asset) {
		asset_unref(in->asset);
		in->asset = asset_ref(asset);
		in->clip = clip;
		in->generation = generation;
		/* A clip played once keeps its place, within the new length. */
		if (in->loop == LOOP_ONCE && instance_time(in) > instance_duration(in)) {
			playback_seek(&in->clock, clock_now_ns(), instance_duration(in));
			jumped = true;
		}
	} else {
		asset_unref(in->mesh);
		in->mesh = asset_ref(asset);
		in->mesh_generation = generation;
	}
	/* The new version must still fit its stream's slots. */
	if (in->stream != NULL && stream_fit(in->stream, in, why, sizeof why) < 0) {
		instance_stop_with(in, "stream_too_small",
					   "the new version no longer fits its stream: %s%s", why, "");
		return;
	}
	instance_arm(in);
	/* The position is kept, and the new clip's events are used. */
	if (jumped)
		cues_jump(in, in->clock.anchor_clock_ns);
	else
		cues_arm(in);
	stream_publish_now(in);
}

void instances_asset_changed(struct instances *set, const char *name, struct asset *asset,
			     uint64_t generation)
{
	struct instance *in, *next;

	for (in = set->first; in != NULL; in = next) {
		uint64_t id = in->id, destroyed = set->destroyed;

		next = in->all_next;
		if (strcmp(in->asset_name, name) != 0 &&
		    (in->mesh_name == NULL || strcmp(in->mesh_name, name) != 0) &&
		    !layers_use(in, name))
			continue;
		instance_rebind(in, name, asset, generation);
		/* A stopped event may have closed the owner's connection and
		 * ended its other instances, `next` perhaps among them: when more
		 * went than this one, carry on after this id (the list is in
		 * creation order). */
		if (set->destroyed - destroyed > 1)
			for (next = set->first; next != NULL && next->id <= id; next = next->all_next)
				;
	}
}
