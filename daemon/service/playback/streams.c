#include "daemon/service/playback/streams.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/anim/morph.h"
#include "daemon/anim/pose.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/base/log.h"
#include "daemon/service/base/workers.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/stream_budget.h"
#include "daemon/service/playback/tick_deadline.h"

/* Attached instances from which a tick is spread over the worker threads. */
#define STREAM_PARALLEL_MIN 64

struct streams {
	uv_loop_t *loop;
	struct workers *workers;        /* NULL: every tick on the loop thread */
	uint64_t epoch;
	uint64_t next_id;
	uint32_t count;
	struct stream *first;
	struct stream_budget budget;    /* every open stream's region, together */
};

struct stream {
	struct streams *reg;
	struct playback_owner *owner;
	uint64_t id;
	/* The region is written, never read back: its geometry, the pose
	 * counts and the tick are the daemon's own copies (what the client
	 * sees in the header is a copy of `geom`). */
	void *region;                   /* the daemon's read-write mapping */
	struct animd_shm_header geom;   /* layout, ids and rate, as written */
	uint64_t *published;            /* per channel: poses published */
	enum sample_space space;
	bool normals;                   /* vertices with their normals */
	uint32_t rate_hz;
	struct instance **channels;     /* channel -> attached instance */
	uint32_t attached;
	uint32_t free_hint;             /* no free channel below this one */
	uint32_t in_use_end;            /* no channel in use from this one on */
	uv_timer_t timer;               /* the next tick, on time */
	/* A late tick runs from late_run, after one poll of the loop's
	 * sockets that late_poll keeps from blocking. */
	uv_idle_t late_poll;
	uv_check_t late_run;
	unsigned open_handles;          /* the three above until closed */
	struct tick_deadline deadline;  /* its late and skipped ticks are for `stats` */
	uint64_t tick;
	/* For `stats` (stream_get_stats), kept by the loop thread. */
	uint64_t tick_poses;            /* poses published by ticks */
	uint64_t shared_poses;          /* of those, the pose before copied (in step) */
	uint64_t change_poses;          /* published at once (attach, seek, ...) */
	uint64_t cpu_ns;                /* CPU time of ticks, every part's thread */
	int64_t window_start_ns;        /* the tick rate is measured over ~1 s */
	uint64_t window_ticks;
	double tick_rate;               /* ticks per second over the last window */
	unsigned tick_threads;          /* the last tick's parts */
	/* Evaluation scratch, one per part of a tick (workers.h). */
	struct stream_scratch *scratch;
	unsigned parts;
	struct stream *next;
};

/* What a pose in scratch was evaluated from: an instance with the same
 * key would get the same payload, bit for bit. */
struct pose_key {
	const struct asset *asset, *mesh;
	const struct clip *clip;
	int64_t global_ns, t_ns, cycles;
	enum root_motion root_motion;
};

struct stream_scratch {
	struct transform *local;
	struct transform *layer;        /* a layer's clip, before it blends */
	mat34 *model;
	mat34 *skin;
	uint32_t joints;                /* capacity of each */
	struct emitter_state *emitters;
	uint32_t emitter_room;          /* capacity of emitters */
	struct attachment_state *attachments;
	uint32_t attachment_room;       /* capacity of attachments */
	float *weights;                 /* morph weights (glTF) */
	uint32_t weight_room;           /* capacity of weights */
	vec3 *positions, *normals;      /* a mesh's, before interleaving */
	uint32_t vertex_room;           /* capacity of each */
	float *payload;                 /* a pose as it goes into a slot (slot_bytes) */
	/* The payload's key and element count, for the next instance in
	 * step with it (stream_publish_begin); valid within one tick part. */
	struct pose_key last;
	uint32_t last_count;
	bool last_valid;
	/* What the part of the last tick run on this scratch did: read by the
	 * loop thread after workers_run has returned. */
	uint64_t cpu_ns;
	uint32_t poses;
	uint32_t shared;                /* of them, in step with the one before */
};

uint64_t stream_id(const struct stream *st)
{
	return st->id;
}

const struct animd_shm_header *stream_header(const struct stream *st)
{
	return &st->geom;
}

static uint32_t stream_shm_space(enum sample_space s)
{
	switch (s) {
	case SPACE_LOCAL: return ANIMD_SHM_SPACE_LOCAL;
	case SPACE_MODEL: return ANIMD_SHM_SPACE_MODEL;
	case SPACE_SKIN: return ANIMD_SHM_SPACE_SKIN;
	case SPACE_VERTICES: return ANIMD_SHM_SPACE_VERTICES;
	case SPACE_EMITTERS: return ANIMD_SHM_SPACE_EMITTERS;
	case SPACE_ATTACHMENTS: return ANIMD_SHM_SPACE_ATTACHMENTS;
	case SPACE_WEIGHTS: return ANIMD_SHM_SPACE_WEIGHTS;
	default: return ANIMD_SHM_SPACE_CAMERA;
	}
}

/* The skeleton an instance's joints are expressed on: the mesh's when it
 * has one (the clip was checked to fit it), else the asset's. */
static const struct skeleton *stream_skeleton(const struct instance *in)
{
	return in->mesh != NULL ? in->mesh->skeleton : in->asset->skeleton;
}

/* The asset supplying vertices and the bind pose: the given mesh, else
 * the asset's own. */
static const struct asset *stream_mesh_asset(const struct instance *in)
{
	return in->mesh != NULL ? in->mesh : asset_own_mesh(in->asset);
}

static uint32_t stream_vertex_count(const struct asset *mesh)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < mesh->mesh_count; i++)
		n += mesh->meshes[i]->vertex_count;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The most vertices one mesh of the asset has (0 without meshes). */
static uint32_t stream_largest_mesh(const struct asset *mesh)
{
	uint32_t most = 0;

	for (uint32_t i = 0; mesh != NULL && i < mesh->mesh_count; i++)
		if (mesh->meshes[i]->vertex_count > most)
			most = mesh->meshes[i]->vertex_count;
	return most;
}

int stream_check(const struct stream *st, const struct instance *in, char *err, size_t errlen)
{
	const struct skeleton *skel = stream_skeleton(in);
	const struct asset *mesh = stream_mesh_asset(in);
	uint32_t need;

	if (st->space == SPACE_CAMERA) {
		if (in->asset->camera == NULL) {
			snprintf(err, errlen, "a camera stream needs a camera asset");
			return -EOPNOTSUPP;
		}
		return 0;
	}
	if (skel == NULL) {
		snprintf(err, errlen, "a %s stream needs an asset with a skeleton",
			 sample_space_name(st->space));
		return -EOPNOTSUPP;
	}
	if (st->space == SPACE_SKIN && skel->inv_bind == NULL) {
		snprintf(err, errlen, "a skin stream needs a bind pose: give a mesh");
		return -EOPNOTSUPP;
	}
	if (st->space == SPACE_VERTICES && mesh == NULL) {
		snprintf(err, errlen, "a vertices stream needs a mesh");
		return -EOPNOTSUPP;
	}
	if (st->space == SPACE_EMITTERS && in->asset->format != ASSET_FORMAT_M2) {
		snprintf(err, errlen, "an emitters stream needs an M2 asset");
		return -EOPNOTSUPP;
	}
	if (st->space == SPACE_ATTACHMENTS && in->asset->format != ASSET_FORMAT_M2) {
		snprintf(err, errlen, "an attachments stream needs an M2 asset");
		return -EOPNOTSUPP;
	}
	if (st->space == SPACE_WEIGHTS && in->asset->format != ASSET_FORMAT_GLTF) {
		snprintf(err, errlen, "a weights stream needs a glTF asset");
		return -EOPNOTSUPP;
	}
	need = st->space == SPACE_VERTICES      ? stream_vertex_count(mesh)
	       : st->space == SPACE_EMITTERS    ? in->asset->emitter_count
	       : st->space == SPACE_ATTACHMENTS ? in->asset->attachment_count
	       : st->space == SPACE_WEIGHTS     ? in->asset->weight_count
						: skel->joint_count;
	if (need > st->geom.max_elements) {
		snprintf(err, errlen, "the pose has %u %s but the stream's slots hold %u", need,
			 st->space == SPACE_VERTICES      ? "vertices"
			 : st->space == SPACE_EMITTERS    ? "emitters"
			 : st->space == SPACE_ATTACHMENTS ? "attachment points"
			 : st->space == SPACE_WEIGHTS     ? "morph weights"
							  : "joints",
			 st->geom.max_elements);
		return -E2BIG;
	}
	return 0;
}

/* An M2 instance's particle emitters, as struct animd_shm_emitter. */
static uint32_t stream_emitters(struct stream_scratch *sc, const struct instance *in,
				const struct clip_time *ct, int64_t global_ns, const mat34 *model,
				float *out)
{
	const struct asset *a = in->asset;
	struct animd_shm_emitter *e = (struct animd_shm_emitter *)(void *)out;

	pose_model_to_skin(a->skeleton, model, sc->skin);
	emitters_sample(a->emitters, a->emitter_count, in->clip, ct->t_ns, global_ns, sc->skin,
			sc->emitters);
	for (uint32_t i = 0; i < a->emitter_count; i++) {
		memcpy(e[i].m, &sc->emitters[i].m, sizeof e[i].m);
		memcpy(e[i].params, sc->emitters[i].param, sizeof e[i].params);
		e[i].enabled = sc->emitters[i].enabled;
		e[i].reserved = 0;
	}
	return a->emitter_count;
}

/* An M2 instance's attachment points, as struct animd_shm_attachment. */
static uint32_t stream_attachments(struct stream_scratch *sc, const struct instance *in,
				   const struct clip_time *ct, int64_t global_ns,
				   const mat34 *model, float *out)
{
	const struct asset *a = in->asset;
	struct animd_shm_attachment *e = (struct animd_shm_attachment *)(void *)out;

	pose_model_to_skin(a->skeleton, model, sc->skin);
	attachments_sample(a->attachments, a->attachment_count, in->clip, ct->t_ns, global_ns,
			   sc->skin, sc->attachments);
	for (uint32_t i = 0; i < a->attachment_count; i++) {
		memcpy(e[i].m, &sc->attachments[i].m, sizeof e[i].m);
		e[i].animate = sc->attachments[i].animate;
		e[i].id = a->attachments[i].id;
		e[i].joint = a->attachments[i].joint;
		e[i].reserved = 0;
	}
	return a->attachment_count;
}

/* Ask for what publishing channel c touches first: its instance's two
 * lines, and its channel's and next slot's header lines (written with
 * plain stores, last touched a tick or two ago). */
static void stream_prefetch_channel(const struct stream *st, uint32_t c)
{
	const struct instance *in = st->channels[c];

	if (in == NULL)
		return;
	__builtin_prefetch(in, 0, 3);
	__builtin_prefetch((const char *)in + 64, 0, 3);
	animd_shm_prefetch_slot(animd_shm_channel(st->region, &st->geom, c), &st->geom,
				st->published[c]);
}

/* The elements of the spaces that start from the model matrices: model
 * space's are `model` itself, made straight in `out`; the others are made
 * from `model` in scratch. */
static uint32_t stream_from_model(const struct stream *st, struct stream_scratch *sc,
				  const struct instance *in, const struct clip_time *ct,
				  int64_t global_ns, const mat34 *model, float *out)
{
	const struct skeleton *skel = stream_skeleton(in);
	const struct asset *mesh;
	uint32_t n = 0;

	if (st->space == SPACE_MODEL)
		return skel->joint_count;
	if (st->space == SPACE_SKIN) {
		pose_model_to_skin(skel, model, (mat34 *)(void *)out);
		return skel->joint_count;
	}
	if (st->space == SPACE_EMITTERS)
		return stream_emitters(sc, in, ct, global_ns, model, out);
	if (st->space == SPACE_ATTACHMENTS)
		return stream_attachments(sc, in, ct, global_ns, model, out);
	mesh = stream_mesh_asset(in);
	/* Morph targets (glTF) first take the clip's weights. */
	if (mesh->weight_count > 0)
		morph_weights_sample(mesh->weights, mesh->weight_count, in->clip, ct->t_ns,
				     sc->weights);
	if (!st->normals) {
		for (uint32_t i = 0; i < mesh->mesh_count; i++) {
			const struct mesh *m = mesh->meshes[i];
			vec3 *o = (vec3 *)(void *)(out + 3 * (size_t)n);

			if (m->morph != NULL)
				morph_skin_positions(m, sc->weights, model, o);
			else
				mesh_skin_positions(m, model, o);
			n += m->vertex_count;
		}
		return n;
	}
	/* With normals: the normal matrices in the skin scratch (unused in
	 * this space), each mesh evaluated then interleaved. */
	mesh_normal_matrices(skel->joint_count, model, sc->skin);
	for (uint32_t i = 0; i < mesh->mesh_count; i++) {
		const struct mesh *m = mesh->meshes[i];
		float *o = out + 6 * (size_t)n;

		if (m->morph != NULL) {
			morph_skin_positions(m, sc->weights, model, sc->positions);
			morph_skin_normals(m, sc->weights, sc->skin, sc->normals);
		} else {
			mesh_skin_positions(m, model, sc->positions);
			mesh_skin_normals(m, sc->skin, sc->positions, sc->normals);
		}
		for (uint32_t v = 0; v < m->vertex_count; v++, o += 6) {
			memcpy(o, &sc->positions[v], 3 * sizeof *o);
			memcpy(o + 3, &sc->normals[v], 3 * sizeof *o);
		}
		n += m->vertex_count;
	}
	return n;
}

/* Evaluate the instance now into the slot's payload; returns the element
 * count.  Without layers a clip goes straight to its local matrices
 * (clip_sample_matrices), with the bits the two-step path gives `sample`.
 * Channel `next` (UINT32_MAX: none) is prefetched between the sampling
 * (with those matrices) and the rest: by then the last pose's streaming
 * stores have drained, and a prefetch issued right behind them would wait
 * for the line fill buffers they hold. */
static uint32_t stream_evaluate(struct stream *st, struct stream_scratch *sc,
				const struct instance *in, const struct clip_time *ct,
				int64_t global_ns, int64_t now, float *out, uint32_t next)
{
	const struct skeleton *skel = stream_skeleton(in);
	mat34 *model;

	if (st->space == SPACE_CAMERA) {
		struct camera_frame f;

		camera_sample(in->asset->camera, ct->t_ns, &f);
		if (next != UINT32_MAX)
			stream_prefetch_channel(st, next);
		memcpy(out, &f.pos, 3 * sizeof(float));
		memcpy(out + 3, &f.rot, 4 * sizeof(float));
		out[7] = f.fov;
		return 1;
	}
	if (st->space == SPACE_WEIGHTS) {
		/* The base clip's weights: layers blend joints. */
		morph_weights_sample(in->asset->weights, in->asset->weight_count, in->clip, ct->t_ns,
				     out);
		if (next != UINT32_MAX)
			stream_prefetch_channel(st, next);
		return in->asset->weight_count;
	}
	model = st->space == SPACE_MODEL ? (mat34 *)(void *)out : sc->model;
	if (in->clip != NULL && in->layer_count == 0 && st->space != SPACE_LOCAL &&
	    in->clip->joint_count == skel->joint_count) {
		clip_sample_matrices(in->clip, ct->t_ns, global_ns, in->root_motion, ct, sc->local,
				     model);
		if (next != UINT32_MAX)
			stream_prefetch_channel(st, next);
		pose_matrices_to_model_still(skel, in->clip->still_count, in->clip->still_joints,
					     model);
		return stream_from_model(st, sc, in, ct, global_ns, model, out);
	}
	if (in->clip != NULL) {
		clip_sample_at(in->clip, ct->t_ns, global_ns, sc->local);
		clip_apply_root_motion(in->clip, in->root_motion, ct, sc->local);
	} else {
		memcpy(sc->local, skel->rest, skel->joint_count * sizeof *sc->local);
	}
	if (in->layer_count > 0)
		layers_apply(in, now, sc->local, sc->layer);
	if (next != UINT32_MAX)
		stream_prefetch_channel(st, next);
	if (st->space == SPACE_LOCAL) {
		for (uint32_t j = 0; j < skel->joint_count; j++) {
			const struct transform *x = &sc->local[j];
			float *o = out + 10 * j;

			o[0] = x->t.x, o[1] = x->t.y, o[2] = x->t.z;
			o[3] = x->r.x, o[4] = x->r.y, o[5] = x->r.z, o[6] = x->r.w;
			o[7] = x->s.x, o[8] = x->s.y, o[9] = x->s.z;
		}
		return skel->joint_count;
	}
	/* A blend moves joints the base clip leaves still: no rest matrices. */
	if (in->layer_count > 0)
		pose_local_to_model(skel, sc->local, model);
	else
		sample_local_to_model(skel, in->clip, sc->local, model);
	return stream_from_model(st, sc, in, ct, global_ns, model, out);
}

static bool pose_key_equal(const struct pose_key *a, const struct pose_key *b)
{
	return a->clip == b->clip && a->t_ns == b->t_ns && a->global_ns == b->global_ns &&
	       a->cycles == b->cycles && a->asset == b->asset && a->mesh == b->mesh &&
	       a->root_motion == b->root_motion;
}

/* A slot filled but not yet published (see stream_publish_begin). */
struct pending_pose {
	struct animd_shm_channel *ch;
	struct animd_shm_slot *slot;
	uint64_t n;
};

/* Publish a filled slot: stamped as late as possible, then made even. */
static void stream_publish_end(struct pending_pose *p)
{
	if (p->slot == NULL)
		return;
	p->slot->publish_ns = clock_now_ns();
	animd_shm_write_end(p->ch, p->slot, p->n);
	p->slot = NULL;
}

/*
 * The instance's next pose at `now`, evaluated into the scratch payload
 * (in the cache); then `prev` (the slot filled before, if any) is
 * published, and this pose's slot is marked odd, filled (payload and
 * checksum in one pass) and left in `prev` to publish.  Ending a slot
 * after the next pose's evaluation lets its streaming stores reach memory
 * while the CPU computes, instead of waiting for them: the slot stays odd
 * for one evaluation longer, and readers take the pose before it.  `next`
 * is the channel published after this one, if any (stream_evaluate).
 */
static void stream_publish_begin(struct stream *st, struct stream_scratch *sc,
				 struct instance *in, int64_t now, struct pending_pose *prev,
				 uint32_t next)
{
	struct animd_shm_channel *ch = animd_shm_channel(st->region, &st->geom, in->channel);
	int64_t t = instance_time_at(in, now);
	struct clip_time ct = instance_clip_time_of(in, t);
	uint64_t n = st->published[in->channel]++;
	uint32_t count;
	struct animd_shm_slot *slot;
	struct pose_key key = { in->asset, in->mesh, in->clip, t, ct.t_ns, ct.cycles,
				in->root_motion };

	/* A crowd playing one clip in step: the pose in scratch is this
	 * instance's too, in every space (a layered instance is always
	 * evaluated: its layers have clocks of their own). */
	if (sc->last_valid && in->clip != NULL && in->layer_count == 0 &&
	    pose_key_equal(&key, &sc->last)) {
		count = sc->last_count;
		sc->shared++;
		if (next != UINT32_MAX)
			stream_prefetch_channel(st, next);
	} else {
		count = stream_evaluate(st, sc, in, &ct, t, now, sc->payload, next);
		sc->last = key;
		sc->last_count = count;
		sc->last_valid = true;
	}

	stream_publish_end(prev);
	slot = animd_shm_write_begin(ch, &st->geom, n);
	slot->instance_id = in->id;
	slot->tick = st->tick;
	slot->clip_time = time_to_seconds(ct.t_ns);
	slot->generation = in->generation;
	slot->flags = (in->clock.playing ? 0 : ANIMD_SHM_SLOT_PAUSED) |
		      (in->ended ? ANIMD_SHM_SLOT_ENDED : 0) |
		      (in->root_motion == ROOT_IN_PLACE ? ANIMD_SHM_SLOT_IN_PLACE : 0);
	slot->reserved = 0;
	animd_shm_write_payload(slot, &st->geom, n, sc->payload, count);
	prev->ch = ch;
	prev->slot = slot;
	prev->n = n;
}

static void stream_publish(struct stream *st, struct stream_scratch *sc, struct instance *in,
			   int64_t now)
{
	struct pending_pose p = { 0 };

	/* Between ticks an asset may have been replaced, and a new one may
	 * sit where the old one was: no key from before is trusted. */
	sc->last_valid = false;
	st->change_poses++;
	stream_publish_begin(st, sc, in, now, &p, UINT32_MAX);
	stream_publish_end(&p);
}

void stream_publish_now(struct instance *in)
{
	if (in->stream != NULL)
		stream_publish(in->stream, &in->stream->scratch[0], in, clock_now_ns());
}

static uint64_t stream_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Channels a tick's part claims at a time (workers_claim): small enough
 * that the parts finish together, large enough that claiming costs
 * nothing beside the poses. */
#define STREAM_CLAIM_MAX 128

/* One part of a tick, on its own scratch: every channel in use when the
 * tick has one part, else the chunks of them it claims.  A pose still
 * being written when one chunk ends is published in the next. */
static void stream_tick_part(void *ctx, unsigned part, unsigned parts)
{
	struct stream *st = ctx;
	uint32_t c0 = 0, c1 = st->in_use_end;
	/* One clock for the part: its instances are posed at one instant. */
	int64_t now = clock_now_ns();
	struct pending_pose pending = { 0 };
	struct stream_scratch *sc = &st->scratch[part];
	/* The part's own thread's CPU time: two clock reads a part and tick,
	 * whatever the number of poses. */
	uint64_t cpu0 = stream_thread_cpu_ns();
	uint32_t poses = 0;
	bool more = parts == 1 || workers_claim(st->reg->workers, &c0, &c1);

	/* Assets change only between ticks (on this loop's thread). */
	sc->last_valid = false;
	sc->shared = 0;
	while (more && c0 < c1) {
		stream_prefetch_channel(st, c0);
		for (uint32_t c = c0; c < c1; c++) {
			if (st->channels[c] == NULL)
				continue;
			poses++;
			stream_publish_begin(st, sc, st->channels[c], now, &pending,
					     c + 1 < c1 ? c + 1 : UINT32_MAX);
		}
		more = parts > 1 && workers_claim(st->reg->workers, &c0, &c1);
	}
	stream_publish_end(&pending);
	sc->poses = poses;
	sc->cpu_ns = stream_thread_cpu_ns() - cpu0;
}

static void stream_tick_on_time(uv_timer_t *t);
static void stream_tick_late(uv_check_t *c);

/* Nothing to do: an active idle handle makes the loop poll without
 * blocking, so that late_run runs right after the sockets are served. */
static void stream_late_poll(uv_idle_t *i)
{
	(void)i;
}

static void stream_tick(struct stream *st)
{
	int64_t now;
	uint64_t wait;
	unsigned parts = 1;

	st->tick++;
	animd_shm_set_ticks(st->region, st->tick);
	/* Many instances: spread them over the cores; a few: not worth a
	 * cross-core wake-up. */
	if (st->attached >= STREAM_PARALLEL_MIN && st->parts > 1) {
		/* About eight chunks a part for a few channels in use. */
		uint32_t chunk = st->in_use_end / (st->parts * 8);

		workers_run_claims(st->reg->workers, st->in_use_end,
				   chunk < 1 ? 1 : chunk > STREAM_CLAIM_MAX ? STREAM_CLAIM_MAX : chunk,
				   stream_tick_part, st);
		parts = st->parts;
	} else {
		stream_tick_part(st, 0, 1);
	}
	st->tick_threads = parts;
	for (unsigned i = 0; i < parts; i++) {
		st->cpu_ns += st->scratch[i].cpu_ns;
		st->tick_poses += st->scratch[i].poses;
		st->shared_poses += st->scratch[i].shared;
	}
	now = clock_now_ns();
	st->window_ticks++;
	if (now - st->window_start_ns >= 1000000000) {
		st->tick_rate = (double)st->window_ticks * 1e9 / (double)(now - st->window_start_ns);
		st->window_start_ns = now;
		st->window_ticks = 0;
	}
	/* On the steady clock's grid (tick_deadline.h): a late tick runs
	 * once the loop has polled its sockets, so an overloaded stream slows
	 * its own rate, never the control socket. */
	wait = tick_deadline_after_tick(&st->deadline, now);
	if (wait == 0) {
		uv_idle_start(&st->late_poll, stream_late_poll);
		uv_check_start(&st->late_run, stream_tick_late);
		return;
	}
	uv_idle_stop(&st->late_poll);
	uv_check_stop(&st->late_run);
	uv_timer_start(&st->timer, stream_tick_on_time, wait, 0);
}

static void stream_tick_on_time(uv_timer_t *t)
{
	stream_tick(t->data);
}

static void stream_tick_late(uv_check_t *c)
{
	stream_tick(c->data);
}

/* Scratch grows to the largest skeleton (and emitter and attachment
 * count) attached, at attach time or when a reload swaps a bigger version
 * in, never while publishing. */
static int stream_reserve(struct stream *st, uint32_t joints, uint32_t emitters,
			  uint32_t attachments, uint32_t weights, uint32_t vertices)
{
	for (unsigned i = 0; i < st->parts; i++) {
		struct stream_scratch *sc = &st->scratch[i];

		if (weights > sc->weight_room) {
			float *w = realloc(sc->weights, weights * sizeof *w);

			if (w == NULL)
				return -ENOMEM;
			sc->weights = w;
			sc->weight_room = weights;
		}
		if (vertices > sc->vertex_room) {
			vec3 *p = realloc(sc->positions, vertices * sizeof *p), *n;

			if (p != NULL)
				sc->positions = p;
			n = realloc(sc->normals, vertices * sizeof *n);
			if (n != NULL)
				sc->normals = n;
			if (p == NULL || n == NULL)
				return -ENOMEM;
			sc->vertex_room = vertices;
		}
		if (joints > sc->joints) {
			struct transform *l = realloc(sc->local, joints * sizeof *l);
			struct transform *y;
			mat34 *m, *k;

			if (l != NULL)
				sc->local = l;
			y = realloc(sc->layer, joints * sizeof *y);
			if (y != NULL)
				sc->layer = y;
			m = realloc(sc->model, joints * sizeof *m);
			if (m != NULL)
				sc->model = m;
			k = realloc(sc->skin, joints * sizeof *k);
			if (k != NULL)
				sc->skin = k;
			if (l == NULL || y == NULL || m == NULL || k == NULL)
				return -ENOMEM;
			sc->joints = joints;
		}
		if (emitters > sc->emitter_room) {
			struct emitter_state *e = realloc(sc->emitters, emitters * sizeof *e);

			if (e == NULL)
				return -ENOMEM;
			sc->emitters = e;
			sc->emitter_room = emitters;
		}
		if (attachments > sc->attachment_room) {
			struct attachment_state *at =
				realloc(sc->attachments, attachments * sizeof *at);

			if (at == NULL)
				return -ENOMEM;
			sc->attachments = at;
			sc->attachment_room = attachments;
		}
	}
	return 0;
}

int stream_fit(struct stream *st, const struct instance *in, char *err, size_t errlen)
{
	const struct skeleton *skel = stream_skeleton(in);
	const struct asset *mesh = stream_mesh_asset(in);
	int rc = stream_check(st, in, err, errlen);

	if (rc == 0 && stream_reserve(st, skel != NULL ? skel->joint_count : 0,
				      in->asset->emitter_count, in->asset->attachment_count,
				      mesh != NULL ? mesh->weight_count : 0,
				      st->normals ? stream_largest_mesh(mesh) : 0) < 0) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

int stream_attach(struct stream *st, struct instance *in, char *err, size_t errlen)
{
	int rc = stream_fit(st, in, err, errlen);

	if (rc < 0)
		return rc;
	for (uint32_t c = st->free_hint; c < st->geom.channel_count; c++) {
		if (st->channels[c] != NULL)
			continue;
		st->free_hint = c + 1;
		if (c + 1 > st->in_use_end)
			st->in_use_end = c + 1;
		st->channels[c] = in;
		st->attached++;
		in->stream = st;
		in->channel = c;
		animd_shm_set_instance(animd_shm_channel(st->region, &st->geom, c), in->id);
		stream_publish(st, &st->scratch[0], in, clock_now_ns());
		return 0;
	}
	snprintf(err, errlen, "every channel of stream %llu is in use (%u)",
		 (unsigned long long)st->id, st->geom.channel_count);
	return -ENOSPC;
}

void stream_detach(struct instance *in)
{
	struct stream *st = in->stream;

	if (st == NULL)
		return;
	st->channels[in->channel] = NULL;
	st->attached--;
	if (in->channel < st->free_hint)
		st->free_hint = in->channel;
	while (st->in_use_end > 0 && st->channels[st->in_use_end - 1] == NULL)
		st->in_use_end--;
	animd_shm_set_instance(animd_shm_channel(st->region, &st->geom, in->channel), 0);
	in->stream = NULL;
}

static void stream_handle_closed(uv_handle_t *h)
{
	struct stream *st = h->data;

	if (--st->open_handles > 0)
		return;
	munmap(st->region, st->geom.region_bytes);
	free(st->channels);
	free(st->published);
	for (unsigned i = 0; i < st->parts; i++) {
		free(st->scratch[i].local);
		free(st->scratch[i].layer);
		free(st->scratch[i].model);
		free(st->scratch[i].skin);
		free(st->scratch[i].emitters);
		free(st->scratch[i].attachments);
		free(st->scratch[i].weights);
		free(st->scratch[i].positions);
		free(st->scratch[i].payload);
		free(st->scratch[i].normals);
	}
	free(st->scratch);
	free(st);
}

void stream_close(struct stream *st)
{
	struct stream **p = &st->reg->first;

	while (*p != st)
		p = &(*p)->next;
	*p = st->next;
	st->reg->count--;
	st->owner->streams--;
	stream_budget_give(&st->reg->budget, st->geom.region_bytes);
	for (uint32_t c = 0; c < st->geom.channel_count; c++)
		if (st->channels[c] != NULL)
			stream_detach(st->channels[c]);
	animd_shm_set_state(st->region, ANIMD_SHM_STATE_CLOSED);
	uv_close((uv_handle_t *)&st->timer, stream_handle_closed);
	uv_close((uv_handle_t *)&st->late_poll, stream_handle_closed);
	uv_close((uv_handle_t *)&st->late_run, stream_handle_closed);
}

struct stream *stream_find(struct streams *reg, const struct playback_owner *owner, uint64_t id)
{
	for (struct stream *st = reg->first; st != NULL; st = st->next)
		if (st->id == id && st->owner == owner)
			return st;
	return NULL;
}

uint32_t streams_count(const struct streams *reg)
{
	return reg->count;
}

const struct stream *streams_first(const struct streams *reg)
{
	return reg->first;
}

const struct stream *stream_next(const struct stream *st)
{
	return st->next;
}

void stream_get_stats(const struct stream *st, struct stream_stats *out)
{
	int64_t now = clock_now_ns();

	out->id = st->id;
	out->owner = st->owner;
	out->space = st->space;
	out->rate_hz = st->rate_hz;
	out->channels = st->geom.channel_count;
	out->attached = st->attached;
	out->region_bytes = st->geom.region_bytes;
	out->ticks = st->tick;
	out->late_ticks = st->deadline.late;
	out->skipped_ticks = st->deadline.skipped;
	out->tick_poses = st->tick_poses;
	out->shared_poses = st->shared_poses;
	out->change_poses = st->change_poses;
	out->cpu_ns = st->cpu_ns;
	out->tick_threads = st->tick_threads;
	/* Before its first window closes, the rate so far. */
	if (st->tick_rate > 0 || st->rate_hz == 0 || now <= st->window_start_ns)
		out->tick_rate = st->tick_rate;
	else
		out->tick_rate = (double)st->window_ticks * 1e9 / (double)(now - st->window_start_ns);
}

void streams_set_budget(struct streams *reg, uint64_t limit, const char *origin)
{
	stream_budget_set(&reg->budget, limit, origin);
}

uint64_t streams_budget(const struct streams *reg)
{
	return reg->budget.limit;
}

uint64_t streams_region_bytes(const struct streams *reg)
{
	uint64_t n = 0;

	for (const struct stream *st = reg->first; st != NULL; st = st->next)
		n += st->geom.region_bytes;
	return n;
}

void streams_end_owner(struct streams *reg, struct playback_owner *owner)
{
	struct stream *st = reg->first, *next;

	for (; st != NULL; st = next) {
		next = st->next;
		if (st->owner == owner)
			stream_close(st);
	}
}

void streams_close_all(struct streams *reg)
{
	while (reg->first != NULL)
		stream_close(reg->first);
}

int streams_new(uv_loop_t *loop, struct workers *workers, uint64_t epoch, struct streams **out)
{
	struct streams *reg = calloc(1, sizeof *reg);

	if (reg == NULL)
		return -ENOMEM;
	reg->loop = loop;
	reg->workers = workers;
	reg->epoch = epoch;
	/* Unlimited until the daemon sets the configured budget. */
	stream_budget_set(&reg->budget, UINT64_MAX, "no budget");
	*out = reg;
	return 0;
}

void streams_free(struct streams *reg)
{
	free(reg);
}

/*
 * The region: a memfd the daemon maps read-write once, then seals so that
 * nobody, the daemon included, can ever map it writable or write it again
 * (F_SEAL_FUTURE_WRITE keeps only the mapping that exists), nor shrink or
 * grow it (a mapping never faults past its end).  Its mode gives nothing
 * to group or others, so a client of another uid cannot even reopen it
 * through /proc/PID/fd; what clients get is a read-only descriptor.
 * Returns the mapping, with *ro_fd the client's descriptor, or NULL with
 * err set.
 */
static void *stream_region_create(uint64_t bytes, int *ro_fd, char *err, size_t errlen)
{
	int fd = memfd_create("animd-stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char path[64];
	void *map = MAP_FAILED;

	*ro_fd = -1;
	if (fd < 0) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return NULL;
	}
	if (fchmod(fd, 0400) < 0 || ftruncate(fd, (off_t)bytes) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		snprintf(err, errlen, "cannot size or seal the stream: %s", strerror(errno));
		goto fail;
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the stream: %s", strerror(errno));
		goto fail;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0) {
		snprintf(err, errlen, "cannot seal the stream against writes: %s", strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	*ro_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*ro_fd < 0) {
		snprintf(err, errlen, "cannot make a read-only descriptor of the stream: %s",
			 strerror(errno));
		goto fail;
	}
	close(fd);
	return map;
fail:
	if (map != MAP_FAILED)
		munmap(map, bytes);
	close(fd);
	return NULL;
}

int stream_open(struct streams *reg, struct playback_owner *owner, const struct stream_params *p,
		struct stream **out, int *ro_fd, char *err, size_t errlen)
{
	struct animd_shm_header h;
	struct stream *st;
	int rc;

	if (p->normals && p->space != SPACE_VERTICES) {
		snprintf(err, errlen, "normals are for streams of space vertices");
		return -EINVAL;
	}
	rc = animd_shm_layout_features(&h, stream_shm_space(p->space),
				       p->normals ? ANIMD_SHM_FEATURE_NORMALS : 0, p->max_elements,
				       p->channels, p->depth);
	if (rc < 0) {
		snprintf(err, errlen, "no such stream layout: joints 1..%u, instances 1..%u, depth a "
			 "power of two 2..%u, at most %llu bytes in all", ANIMD_SHM_MAX_ELEMENTS,
			 ANIMD_SHM_MAX_CHANNELS, ANIMD_SHM_MAX_SLOTS,
			 (unsigned long long)ANIMD_SHM_MAX_REGION_BYTES);
		return rc;
	}
	/* Before anything is made: the budget refuses, or holds the region
	 * until stream_close gives it back. */
	rc = stream_budget_take(&reg->budget, h.region_bytes, err, errlen);
	if (rc < 0)
		return rc;
	st = calloc(1, sizeof *st);
	if (st == NULL) {
		stream_budget_give(&reg->budget, h.region_bytes);
		return -ENOMEM;
	}
	st->channels = calloc(p->channels, sizeof *st->channels);
	st->published = calloc(p->channels, sizeof *st->published);
	st->parts = reg->workers != NULL ? workers_parts(reg->workers) : 1;
	st->scratch = calloc(st->parts, sizeof *st->scratch);
	if (st->channels == NULL || st->published == NULL || st->scratch == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < st->parts; i++) {
		/* 64-aligned like a slot: the copy reads whole lines. */
		st->scratch[i].payload = aligned_alloc(ANIMD_SHM_ALIGN, h.slot_bytes);
		if (st->scratch[i].payload == NULL) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
	}
	st->region = stream_region_create(h.region_bytes, ro_fd, err, errlen);
	if (st->region == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	st->reg = reg;
	st->owner = owner;
	st->id = ++reg->next_id;
	st->space = p->space;
	st->normals = p->normals != 0;
	st->rate_hz = p->rate_hz;
	h.epoch = reg->epoch;
	h.stream_id = st->id;
	h.rate_hz = p->rate_hz;
	st->geom = h;
	memcpy(st->region, &h, sizeof h);
	animd_shm_set_state(st->region, ANIMD_SHM_STATE_LIVE);
	uv_timer_init(reg->loop, &st->timer);
	uv_idle_init(reg->loop, &st->late_poll);
	uv_check_init(reg->loop, &st->late_run);
	st->timer.data = st->late_poll.data = st->late_run.data = st;
	st->open_handles = 3;
	if (p->rate_hz > 0) {
		int64_t now = clock_now_ns(), period = 1000000000LL / p->rate_hz;

		tick_deadline_start(&st->deadline, now, period);
		st->window_start_ns = now;
		uv_timer_start(&st->timer, stream_tick_on_time, (uint64_t)period / 1000000, 0);
	}
	st->next = reg->first;
	reg->first = st;
	reg->count++;
	owner->streams++;
	*out = st;
	return 0;
fail:
	stream_budget_give(&reg->budget, h.region_bytes);
	for (unsigned i = 0; st->scratch != NULL && i < st->parts; i++)
		free(st->scratch[i].payload);
	free(st->channels);
	free(st->published);
	free(st->scratch);
	free(st);
	return rc;
}
