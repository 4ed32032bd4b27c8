/*
 * watch: play an asset into a stream this command opens and show the live
 * pose: in a terminal, a refreshing table of joints and a small orthographic
 * drawing of the skeleton (~30 frames a second, q or Ctrl-C quits);
 * otherwise (a pipe, --json or --frames) one line per published pose.
 * Either way with the instance's layer stack (watch_stack.c): cross-fades
 * started with n / p or --fade-to run on it while the pose moves.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WATCH_FRAME_MS 33
#define WATCH_W 60
#define WATCH_H 20

/* What an M2 has beside its joints: its particle emitters and its
 * attachment points, each from a stream of their space, into which a
 * second instance of the same clip plays (an instance publishes into one
 * stream). */
struct watch_extra {
	animc_stream *stream;           /* NULL: none (or the daemon refused) */
	uint64_t id;                    /* the instance */
	float *buf;                     /* the latest pose */
	size_t buf_floats;
	uint32_t count;                 /* elements in it, 0 before one */
};

struct watch {
	struct ctl *ctl;
	animc_asset_info *skel;         /* joint names and parents */
	animc_stream *stream;
	animc_space space;
	uint64_t id;
	int up;                         /* 1 (y) or 2 (z) */
	int view;                       /* 0 side, 1 front, 2 top */
	float *buf;
	size_t buf_floats;
	float (*pos)[3];                /* joint positions, model space */
	uint32_t count;
	bool ended, paused, stopped, done;
	uint64_t frames, max_frames, dropped;
	animc_pose_info info;
	struct watch_extra emitters;    /* 24 floats per emitter */
	struct watch_extra points;      /* animc_attachment_element each */
	/* The stack, the played asset (skel unless a mesh was given), the
	 * clips n / p cycle through (watch_clips.c: found at a terminal) and
	 * the cross-fades' options. */
	struct watch_stack stack;
	bool stack_dirty;               /* an event said it changed: ask again */
	animc_asset_info *anim;
	struct watch_clips clips;
	long clip_at;                   /* the clip on screen in clips, -1: none of them */
	double fade;
	bool sync;
	float hmin, hmax, vmin, vmax;   /* the drawing's extent so far */
	bool have_extent;
	char status[160];
};

static const char watch_help[] =
	"usage: animctl watch ASSET [--clip NAME] [--mesh MESH] [--space model|local]\n"
	"                     [--rate HZ] [--speed S] [--start T] [--loop|--once|--pingpong]\n"
	"                     [--root-motion raw|in_place] [--view side|front|top]\n"
	"                     [--fade S] [--sync] [--fade-to CLIP|ASSET]\n"
	"                     [--frames N] [--reconnect] [--json]\n"
	"Open a shared-memory stream, play ASSET into it and show the live pose.\n"
	"In a terminal: a table of joints (name, parent, position) under a small\n"
	"orthographic drawing of the skeleton that follows the root, refreshed about\n"
	"30 times a second, and the instance's layer stack bottom-up (its clip, then\n"
	"each layer's mode, clip and weight); the header names the clip on screen\n"
	"as ASSET#CLIP.  Keys: q quit, space pause/resume, r restart, n / p\n"
	"cross-fade to the next / previous clip that fits over --fade seconds\n"
	"(default the daemon's: M2 blend_ms, else playback.default_fade_ms; --sync\n"
	"matches phases): ASSET's clips, then those of every other asset of its\n"
	"format whose skeleton fits (the same joint names and parents; with --mesh,\n"
	"MESH's), in the order of `animctl list`.  A clip the daemon refuses is\n"
	"skipped.  --fade-to cross-fades once at the start, to a clip of ASSET or to\n"
	"another asset's first clip.  Ctrl-C quits too; the terminal is restored\n"
	"either way.\n"
	"When stdout is not a terminal, or with --json or --frames N, it prints one\n"
	"line per published pose instead (every pose in order, with a count of any\n"
	"it missed, and the stack), N poses at most.  The instance ends when watch\n"
	"does.\n"
	"An M2 with particle emitters also shows them (on/off, position, emission\n"
	"rate, speed, lifespan), from a stream of the emitters space, and one with\n"
	"attachment points shows those (id, joint, position, whether a model hung\n"
	"there animates), from a stream of the attachments space.\n";

/* ---- joint positions ------------------------------------------------------ */

static void quat_mul(const float a[4], const float b[4], float out[4])
{
	float r[4] = {
		a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
		a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
		a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
		a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
	};

	memcpy(out, r, sizeof r);
}

static void quat_rotate(const float q[4], const float v[3], float out[3])
{
	/* v + 2w (u x v) + 2 u x (u x v), with u the vector part. */
	float t[3] = {
		2 * (q[1] * v[2] - q[2] * v[1]),
		2 * (q[2] * v[0] - q[0] * v[2]),
		2 * (q[0] * v[1] - q[1] * v[0]),
	};

	out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
	out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
	out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

static int32_t watch_parent(const struct watch *w, uint32_t j)
{
	int32_t p = j < w->skel->joint_count ? w->skel->joints[j].parent : -1;

	return p >= 0 && (uint32_t)p < j ? p : -1;
}

/* Positions of the pose in w->buf, whatever its space. */
static void watch_positions(struct watch *w)
{
	uint32_t n = w->info.element_count;

	if (n > w->skel->joint_count)
		n = (uint32_t)w->skel->joint_count;
	w->count = n;
	if (w->space == ANIMC_SPACE_MODEL) {
		for (uint32_t j = 0; j < n; j++) {
			const float *m = w->buf + 12 * (size_t)j;

			w->pos[j][0] = m[3];
			w->pos[j][1] = m[7];
			w->pos[j][2] = m[11];
		}
		return;
	}
	/* local: t xyz, r xyzw, s xyz per joint; compose down the hierarchy
	 * (parents come first in MD5). */
	float (*rot)[4] = calloc(n ? n : 1, sizeof *rot);
	float (*scl)[3] = calloc(n ? n : 1, sizeof *scl);

	if (rot == NULL || scl == NULL) {
		free(rot);
		free(scl);
		w->count = 0;
		return;
	}
	for (uint32_t j = 0; j < n; j++) {
		const float *l = w->buf + 10 * (size_t)j;
		int32_t p = watch_parent(w, j);

		if (p < 0) {
			memcpy(w->pos[j], l, 3 * sizeof(float));
			memcpy(rot[j], l + 3, 4 * sizeof(float));
			memcpy(scl[j], l + 7, 3 * sizeof(float));
			continue;
		}
		float st[3] = { l[0] * scl[p][0], l[1] * scl[p][1], l[2] * scl[p][2] }, d[3];

		quat_rotate(rot[p], st, d);
		for (int k = 0; k < 3; k++) {
			w->pos[j][k] = w->pos[p][k] + d[k];
			scl[j][k] = scl[p][k] * l[7 + k];
		}
		quat_mul(rot[p], l + 3, rot[j]);
	}
	free(rot);
	free(scl);
}

/* The drawing's axes: horizontal and vertical components of a position. */
static void watch_axes(const struct watch *w, int *h, int *v)
{
	static const int z_up[3][2] = { { 0, 2 }, { 1, 2 }, { 0, 1 } };
	static const int y_up[3][2] = { { 0, 1 }, { 2, 1 }, { 0, 2 } };
	const int(*t)[2] = w->up == 2 ? z_up : y_up;

	*h = t[w->view][0];
	*v = t[w->view][1];
}

/* The emitters' and points' latest state (nothing until their stream has
 * one). */
static void watch_extras(struct watch *w)
{
	struct watch_extra *x[2] = { &w->emitters, &w->points };
	animc_pose_info info;

	for (int k = 0; k < 2; k++)
		if (x[k]->stream != NULL &&
		    animc_stream_latest(x[k]->stream, x[k]->id, x[k]->buf, x[k]->buf_floats,
					&info) == 0)
			x[k]->count = info.element_count;
}

static const float *watch_emitter(const struct watch *w, uint32_t i)
{
	return w->emitters.buf + (size_t)i * animc_space_floats(ANIMC_SPACE_EMITTERS);
}

static animc_attachment_element watch_point(const struct watch *w, uint32_t i)
{
	animc_attachment_element at;

	animc_stream_attachment(w->points.buf, i, &at);
	return at;
}

/* The name of the joint a point hangs on. */
static const char *watch_joint_name(const struct watch *w, uint32_t j)
{
	return j < w->skel->joint_count ? escape_text(w->skel->joints[j].name) : "?";
}

/* ---- the terminal view ------------------------------------------------------ */

static void watch_line(char grid[WATCH_H][WATCH_W + 1], int x0, int y0, int x1, int y1, int gw,
		       int gh)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;
	char c = dx > -2 * dy ? '-' : -dy > 2 * dx ? '|' : (sx == sy ? '\\' : '/');

	for (;;) {
		if (x0 >= 0 && x0 < gw && y0 >= 0 && y0 < gh && grid[y0][x0] == ' ')
			grid[y0][x0] = c;
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * err;

		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
	}
}

static void watch_draw(struct watch *w)
{
	char grid[WATCH_H][WATCH_W + 1];
	int cols, rows, gw, gh, h, v, (*cell)[2];
	float sh, sv, s, hc, vc, root_h;
	const char *name;

	term_size(&cols, &rows);
	gw = cols - 2 < WATCH_W ? cols - 2 : WATCH_W;
	gh = rows - 9 < WATCH_H ? rows - 9 : WATCH_H;
	if (gw < 10)
		gw = 10;
	if (gh < 4)
		gh = 4;
	watch_axes(w, &h, &v);
	root_h = w->count > 0 ? w->pos[0][h] : 0;
	/* The extent only grows, so the drawing does not breathe. */
	for (uint32_t j = 0; j < w->count; j++) {
		float ph = w->pos[j][h] - root_h, pv = w->pos[j][v];

		if (!w->have_extent) {
			w->hmin = w->hmax = ph;
			w->vmin = w->vmax = pv;
			w->have_extent = true;
		}
		w->hmin = fminf(w->hmin, ph);
		w->hmax = fmaxf(w->hmax, ph);
		w->vmin = fminf(w->vmin, pv);
		w->vmax = fmaxf(w->vmax, pv);
	}
	/* Character cells are about twice as tall as wide. */
	sh = (gw - 1) / fmaxf(w->hmax - w->hmin, 1e-3f);
	sv = (gh - 1) / fmaxf(w->vmax - w->vmin, 1e-3f);
	s = fminf(sh / 2, sv);
	hc = (w->hmin + w->hmax) / 2;
	vc = (w->vmin + w->vmax) / 2;
	memset(grid, ' ', sizeof grid);
	cell = calloc(w->count ? w->count : 1, sizeof *cell);
	if (cell == NULL)
		return;
	for (uint32_t j = 0; j < w->count; j++) {
		cell[j][0] = (int)lrintf((gw - 1) / 2.0f + (w->pos[j][h] - root_h - hc) * s * 2);
		cell[j][1] = (int)lrintf((gh - 1) / 2.0f - (w->pos[j][v] - vc) * s);
	}
	for (uint32_t j = 0; j < w->count; j++) {
		int32_t p = watch_parent(w, j);

		if (p >= 0)
			watch_line(grid, cell[p][0], cell[p][1], cell[j][0], cell[j][1], gw, gh);
	}
	for (uint32_t j = 0; j < w->count; j++) {
		int x = cell[j][0], y = cell[j][1];

		if (x >= 0 && x < gw && y >= 0 && y < gh)
			grid[y][x] = watch_parent(w, j) < 0 ? '@' : 'o';
	}
	free(cell);

	fputs("\x1b[H", stdout);
	printf("\x1b[1manimctl watch\x1b[0m  %s", escape_text(w->stack.playing));
	if (w->skel != w->anim)
		printf(" on %s", escape_text(w->skel->name));
	if (w->clip_at >= 0)
		printf(" (%ld of %zu)", w->clip_at + 1, w->clips.count);
	printf("  instance %" PRIu64 "  pose %" PRIu64 "  clip time %.3f s%s%s\x1b[K\n", w->id,
	       w->info.seq, w->info.clip_time, w->info.flags & ANIMC_POSE_PAUSED ? "  [paused]" : "",
	       w->info.flags & ANIMC_POSE_ENDED ? "  [ended]" : "");
	printf("%s\x1b[K\n", w->status);
	{
		char line[512];

		watch_stack_text(&w->stack, watch_now(), line, sizeof line);
		printf("stack: %s\x1b[K\n", line);
	}
	printf("+");
	for (int x = 0; x < gw; x++)
		putchar('-');
	printf("+\x1b[K\n");
	for (int y = 0; y < gh; y++) {
		grid[y][gw] = '\0';
		printf("|%s|\x1b[K\n", grid[y]);
	}
	printf("+");
	for (int x = 0; x < gw; x++)
		putchar('-');
	printf("+\x1b[K\n");
	printf("%-3s %-16s %-16s %10s %10s %10s\x1b[K\n", "#", "JOINT", "PARENT", "X", "Y", "Z");
	for (uint32_t j = 0; j < w->count && (int)j < rows - gh - 8; j++) {
		int32_t p = watch_parent(w, j);

		name = j < w->skel->joint_count ? w->skel->joints[j].name : "?";
		printf("%-3u %-16.16s %-16.16s %10.3f %10.3f %10.3f\x1b[K\n", j, escape_text(name),
		       p >= 0 ? escape_text(w->skel->joints[p].name) : "-", w->pos[j][0], w->pos[j][1],
		       w->pos[j][2]);
	}
	if (w->emitters.count > 0)
		printf("%-3s %-8s %10s %10s %10s %10s %10s %10s\x1b[K\n", "#", "EMITTER", "X", "Y", "Z",
		       "RATE", "SPEED", "LIFESPAN");
	for (uint32_t i = 0; i < w->emitters.count; i++) {
		const float *e = watch_emitter(w, i);

		printf("%-3u %-8s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\x1b[K\n", i,
		       e[22] > 0.5f ? "on" : "off", e[3], e[7], e[11],
		       e[12 + ANIMC_EMITTER_EMISSION_RATE], e[12 + ANIMC_EMITTER_EMISSION_SPEED],
		       e[12 + ANIMC_EMITTER_LIFESPAN]);
	}
	if (w->points.count > 0)
		printf("%-3s %-8s %-16s %10s %10s %10s %s\x1b[K\n", "#", "ATTACH", "JOINT", "X", "Y",
		       "Z", "ANIMATE");
	for (uint32_t i = 0; i < w->points.count; i++) {
		animc_attachment_element at = watch_point(w, i);

		printf("%-3u id %-5u %-16.16s %10.3f %10.3f %10.3f %s\x1b[K\n", i, at.id,
		       watch_joint_name(w, at.joint), at.m[3], at.m[7], at.m[11],
		       at.animate > 0.5f ? "yes" : "no");
	}
	printf("q quit  space pause/resume  r restart  n/p fade to next/previous of %zu %s"
	       "\x1b[K\x1b[J", w->clips.count, print_noun(w->clips.count, "clip", "clips"));
	fflush(stdout);
}

/* ---- the line view -------------------------------------------------------- */

static void watch_print(struct watch *w, uint64_t dropped)
{
	if (w->ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kuint(&j, "instance", w->id);
		json_kuint(&j, "seq", w->info.seq);
		json_kuint(&j, "tick", w->info.tick);
		json_knum(&j, "clip_time", w->info.clip_time);
		json_kuint(&j, "dropped", dropped);
		json_kbool(&j, "paused", w->info.flags & ANIMC_POSE_PAUSED);
		json_kbool(&j, "ended", w->info.flags & ANIMC_POSE_ENDED);
		watch_stack_json(&j, &w->stack, watch_now());
		json_key(&j, "joints");
		json_arr(&j);
		for (uint32_t k = 0; k < w->count; k++) {
			json_obj(&j);
			json_kstr(&j, "name", k < w->skel->joint_count ? w->skel->joints[k].name : NULL);
			json_kint(&j, "parent", watch_parent(w, k));
			json_key(&j, "position");
			json_floats(&j, w->pos[k], 3);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		if (w->emitters.stream != NULL) {
			json_key(&j, "emitters");
			json_arr(&j);
			for (uint32_t i = 0; i < w->emitters.count; i++) {
				const float *e = watch_emitter(w, i);
				float at[3] = { e[3], e[7], e[11] };

				json_obj(&j);
				json_kuint(&j, "index", i);
				json_kbool(&j, "enabled", e[22] > 0.5f);
				json_key(&j, "position");
				json_floats(&j, at, 3);
				json_key(&j, "params");
				json_obj(&j);
				for (int k = 0; k < ANIMC_EMITTER_PARAMS; k++) {
					json_key(&j, animc_emitter_param_name(k));
					json_float(&j, e[12 + k]);
				}
				json_obj_end(&j);
				json_obj_end(&j);
			}
			json_arr_end(&j);
		}
		if (w->points.stream != NULL) {
			json_key(&j, "attachments");
			json_arr(&j);
			for (uint32_t i = 0; i < w->points.count; i++) {
				animc_attachment_element at = watch_point(w, i);
				float pos[3] = { at.m[3], at.m[7], at.m[11] };

				json_obj(&j);
				json_kuint(&j, "index", i);
				json_kuint(&j, "id", at.id);
				json_kuint(&j, "joint", at.joint);
				json_kbool(&j, "animate", at.animate > 0.5f);
				json_key(&j, "position");
				json_floats(&j, pos, 3);
				json_obj_end(&j);
			}
			json_arr_end(&j);
		}
		json_obj_end(&j);
		json_end(&j);
		return;
	}
	printf("pose %" PRIu64 " clip_time %.3f", w->info.seq, w->info.clip_time);
	if (dropped > 0)
		printf(" dropped %" PRIu64, dropped);
	if (w->stack.total > 0) {
		char line[512];

		watch_stack_text(&w->stack, watch_now(), line, sizeof line);
		printf("  stack %s;", line);
	}
	for (uint32_t k = 0; k < w->count; k++)
		printf("  %s %.2f %.2f %.2f",
		       k < w->skel->joint_count ? escape_text(w->skel->joints[k].name) : "?",
		       w->pos[k][0], w->pos[k][1], w->pos[k][2]);
	for (uint32_t i = 0; i < w->emitters.count; i++) {
		const float *e = watch_emitter(w, i);

		printf("  emitter%u %s %.2f %.2f %.2f rate %.2f", i, e[22] > 0.5f ? "on" : "off", e[3],
		       e[7], e[11], e[12 + ANIMC_EMITTER_EMISSION_RATE]);
	}
	for (uint32_t i = 0; i < w->points.count; i++) {
		animc_attachment_element at = watch_point(w, i);

		printf("  attachment%u id %u on %s %.2f %.2f %.2f%s", i, at.id,
		       watch_joint_name(w, at.joint), at.m[3], at.m[7], at.m[11],
		       at.animate > 0.5f ? "" : " still");
	}
	printf("\n");
	fflush(stdout);
}

/* ---- the loop --------------------------------------------------------------- */

static void watch_on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct watch *w = user;

	(void)c;
	if (ev->instance != w->id)
		return;
	if (ev->type == ANIMC_EVENT_INSTANCE_ENDED)
		snprintf(w->status, sizeof w->status, "ended at %.3f s", ev->time);
	if (ev->type == ANIMC_EVENT_INSTANCE_FADED || ev->type == ANIMC_EVENT_LAYER_ENDED)
		w->stack_dirty = true;
	if (ev->type == ANIMC_EVENT_INSTANCE_STOPPED) {
		snprintf(w->status, sizeof w->status, "stopped by the daemon: %s",
			 ev->reason ? escape_text(ev->reason) : "?");
		w->stopped = true;
	}
}

static void watch_on_reconnect(animc_client *c, const animc_reconnect_info *info, void *user)
{
	struct watch *w = user;

	(void)c;
	snprintf(w->status, sizeof w->status, "reconnected to animd pid %u (%zu %s replayed)",
		 info->server_pid, info->instance_count,
		 print_noun(info->instance_count, "instance", "instances"));
}

/* Cross-fade (the emitters' and points' instances too) to asset's clip
 * (NULL: its first).  0 or the library's negative errno. */
static int watch_fade(struct watch *w, const char *asset, const char *clip)
{
	animc_fade_opts o = ANIMC_FADE_OPTS_INIT;
	animc_instance *st = NULL;
	const char *a, *c;
	int rc;

	o.asset = asset;
	o.clip = clip;
	o.fade = w->fade;
	o.sync = w->sync;
	rc = animc_fade(w->ctl->c, w->id, &o, &st);
	if (rc == 0) {
		watch_stack_take(&w->stack, st);
		watch_stack_playing(st, &a, &c);
		w->clip_at = watch_clips_index(&w->clips, a, c);
		animc_free(st);
		if (w->emitters.id != 0)
			rc = animc_fade(w->ctl->c, w->emitters.id, &o, NULL);
		if (rc == 0 && w->points.id != 0)
			rc = animc_fade(w->ctl->c, w->points.id, &o, NULL);
	}
	return rc;
}

/* --fade-to: a clip of ASSET, else another asset (its first clip). */
static int watch_fade_to(struct watch *w, const char *target)
{
	for (size_t i = 0; i < w->anim->clip_count; i++)
		if (strcmp(w->anim->clips[i].name, target) == 0)
			return watch_fade(w, w->anim->name, target);
	return watch_fade(w, target, NULL);
}

/* n (step 1) / p (-1): cross-fade to the clip `step` places from the one
 * on screen in w->clips, wrapping.  One the daemon refuses (it changed
 * since, or fits in a way assets.info does not show) leaves the list and
 * the next is tried. */
static int watch_step(struct watch *w, int step)
{
	long probe = w->clip_at;

	for (;;) {
		long n = (long)w->clips.count, i;
		animc_error_code code;
		const char *msg;
		int rc;

		if (n == 0 || (n == 1 && w->clip_at == 0)) {
			snprintf(w->status, sizeof w->status, "no other clip fits %s",
				 escape_text(w->skel->name));
			return 0;
		}
		i = probe < 0 && step < 0 ? n - 1 : (probe + n + step) % n;
		if (i == w->clip_at) {
			snprintf(w->status, sizeof w->status, "no other clip fits %s",
				 escape_text(w->skel->name));
			return 0;
		}
		rc = watch_fade(w, w->clips.v[i].asset, w->clips.v[i].clip);
		if (rc == 0) {
			snprintf(w->status, sizeof w->status, "cross-fade to %s#%s",
				 escape_text(w->clips.v[i].asset), escape_text(w->clips.v[i].clip));
			return 0;
		}
		code = animc_client_error(w->ctl->c, NULL, &msg);
		if (rc != -EREMOTEIO ||
		    (code != ANIMC_ERR_ASSET_ERROR && code != ANIMC_ERR_NOT_FOUND))
			return rc;
		snprintf(w->status, sizeof w->status, "skipped %s#%s: %s",
			 escape_text(w->clips.v[i].asset), escape_text(w->clips.v[i].clip),
			 escape_text(msg));
		watch_clips_remove(&w->clips, (size_t)i);
		if (i < w->clip_at)
			w->clip_at--;
		probe = step > 0 ? i - 1 : i;
	}
}

/* Ask for the stack again (after an event, and while fades run, so the
 * carried-forward weights stay close to the daemon's). */
static void watch_refresh_stack(struct watch *w)
{
	animc_instance_list *list = NULL;

	if (animc_instances_list(w->ctl->c, &list) < 0)
		return;
	for (size_t i = 0; i < list->count; i++)
		if (list->instances[i].id == w->id) {
			const char *a, *c;

			watch_stack_take(&w->stack, &list->instances[i]);
			watch_stack_playing(&list->instances[i], &a, &c);
			w->clip_at = watch_clips_index(&w->clips, a, c);
		}
	animc_free(list);
	w->stack_dirty = false;
}

static void watch_key(struct watch *w, char k)
{
	animc_instance *st = NULL;
	int rc = 0;

	if (k == 'q' || k == 'Q') {
		w->done = true;
	} else if (k == ' ') {
		rc = w->paused ? animc_resume(w->ctl->c, w->id, &st)
			       : animc_pause(w->ctl->c, w->id, &st);
		if (rc == 0 && w->emitters.id != 0)
			rc = w->paused ? animc_resume(w->ctl->c, w->emitters.id, NULL)
				       : animc_pause(w->ctl->c, w->emitters.id, NULL);
		if (rc == 0 && w->points.id != 0)
			rc = w->paused ? animc_resume(w->ctl->c, w->points.id, NULL)
				       : animc_pause(w->ctl->c, w->points.id, NULL);
		if (rc == 0)
			w->paused = st->state == ANIMC_STATE_PAUSED;
	} else if (k == 'r') {
		rc = animc_seek(w->ctl->c, w->id, 0, NULL);
		if (rc == 0 && w->emitters.id != 0)
			rc = animc_seek(w->ctl->c, w->emitters.id, 0, NULL);
		if (rc == 0 && w->points.id != 0)
			rc = animc_seek(w->ctl->c, w->points.id, 0, NULL);
	} else if (k == 'n' || k == 'p') {
		rc = watch_step(w, k == 'n' ? 1 : -1);
	}
	if (rc < 0) {
		const char *msg;

		animc_client_error(w->ctl->c, NULL, &msg);
		snprintf(w->status, sizeof w->status, "%s", escape_text(msg));
	}
	animc_free(st);
}

/* One turn's poses: the latest (terminal) or every new one (lines). */
static int watch_read(struct watch *w, bool tui)
{
	uint64_t dropped = 0;
	int rc;

	if (tui) {
		rc = animc_stream_latest(w->stream, w->id, w->buf, w->buf_floats, &w->info);
		if (rc == 0) {
			watch_positions(w);
			watch_extras(w);
			w->frames++;
		}
		return rc == -ENODATA ? 0 : rc;
	}
	while ((rc = animc_stream_next(w->stream, w->id, w->buf, w->buf_floats, &w->info,
				       &dropped)) == 0) {
		watch_positions(w);
		watch_extras(w);
		watch_print(w, dropped);
		if (++w->frames == w->max_frames) {
			w->done = true;
			break;
		}
	}
	return rc == -ENODATA ? 0 : rc;
}

static int watch_loop(struct watch *w, bool tui)
{
	int sig = term_signals();

	if (tui && term_enter() < 0)
		tui = false;
	while (!w->done && !w->stopped) {
		struct pollfd fds[3] = { { .fd = sig, .events = POLLIN } };
		int nfds = 1, fd = animc_client_fd(w->ctl->c), t = WATCH_FRAME_MS, rc, in_at = -1;
		int next = animc_client_next_timeout(w->ctl->c);

		if (tui)
			fds[in_at = nfds++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		if (fd >= 0)
			fds[nfds++] = (struct pollfd){ .fd = fd,
						       .events = (short)animc_client_poll_events(w->ctl->c) };
		if (next >= 0 && next < t)
			t = next;
		rc = poll(fds, (nfds_t)nfds, t);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc > 0 && fds[0].revents) {
			term_signal_taken();
			break;
		}
		if (in_at >= 0 && (fds[in_at].revents & POLLIN)) {
			char keys[16];
			ssize_t n = read(STDIN_FILENO, keys, sizeof keys);

			for (ssize_t i = 0; i < n; i++)
				watch_key(w, keys[i]);
		}
		rc = animc_client_process(w->ctl->c);
		if (rc == -ECONNRESET || rc == -ENOTCONN) {
			term_restore();
			return ctl_fail(w->ctl, NULL, rc);
		}
		if (w->stack_dirty || (watch_stack_fading(&w->stack, watch_now()) &&
				       watch_now() - w->stack.at > 0.25))
			watch_refresh_stack(w);
		rc = watch_read(w, tui);
		if (rc < 0 && rc != -ENOENT) {
			term_restore();
			fprintf(stderr, "animctl watch: reading the stream: %s\n", animc_strerror(rc));
			return EXIT_FAILURE_OTHER;
		}
		if (tui && w->frames > 0) {
			watch_draw(w);
			if (w->max_frames && w->frames >= w->max_frames)
				w->done = true;
		}
	}
	term_restore();
	if (w->stopped) {
		fprintf(stderr, "animctl watch: %s\n", w->status);
		return EXIT_SERVER;
	}
	return EXIT_OK;
}

/* The emitters' or points' stream of `count` elements and its instance
 * (watch goes on without them if the daemon refuses). */
static void watch_open_extra(struct watch *w, struct watch_extra *x, animc_space space,
			     size_t count, animc_play_opts o, animc_stream_opts so)
{
	animc_instance *in = NULL;

	so.space = space;
	so.max_elements = (uint32_t)count;
	if (animc_stream_open(w->ctl->c, &so, &x->stream) < 0)
		return;
	o.stream = x->stream;
	x->buf_floats = animc_stream_pose_floats(x->stream);
	x->buf = malloc(x->buf_floats * sizeof *x->buf);
	if (x->buf == NULL || animc_play(w->ctl->c, &o, &in) < 0) {
		animc_stream_close(x->stream);
		x->stream = NULL;
		return;
	}
	x->id = in->id;
	animc_free(in);
}

int cmd_watch(struct ctl *ctl, int argc, char **argv)
{
	const char *pos[1], *space = NULL, *view = NULL, *frames = NULL, *reconnect = NULL,
		   *fade = NULL, *sync = NULL, *fade_to = NULL;
	struct ctl_play_args a = { 0 };
	const struct ctl_opt opts[] = {
		CTL_PLAY_OPTS(a), { "space", true, &space }, { "view", true, &view },
		{ "frames", true, &frames }, { "reconnect", false, &reconnect },
		{ "fade", true, &fade }, { "sync", false, &sync }, { "fade-to", true, &fade_to },
		{ NULL, false, NULL },
	};
	animc_play_opts o = ANIMC_PLAY_OPTS_INIT;
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	struct watch w = { .ctl = ctl, .space = ANIMC_SPACE_MODEL, .fade = ANIMC_FADE_DEFAULT,
			   .clip_at = -1 };
	uint32_t joints;
	animc_instance *st;
	bool tui;
	int n = ctl_args(ctl, argc, argv, opts, pos, 1, 1, watch_help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	o.asset = pos[0];
	if ((rc = ctl_play_args_apply("watch", &a, &o)) != 0)
		return rc;
	if (space != NULL) {
		if (strcmp(space, "model") != 0 && strcmp(space, "local") != 0)
			return ctl_usage_error("watch", "--space is model or local");
		w.space = (animc_space)animc_space_lookup(space);
	}
	if ((rc = ctl_rate_apply("watch", a.rate, &so)) != 0)
		return rc;
	if (view != NULL) {
		w.view = strcmp(view, "side") == 0 ? 0 : strcmp(view, "front") == 0 ? 1
		       : strcmp(view, "top") == 0 ? 2 : -1;
		if (w.view < 0)
			return ctl_usage_error("watch", "--view is side, front or top");
	}
	if (frames != NULL && ctl_uint("watch", "--frames", frames, &w.max_frames) < 0)
		return EXIT_USAGE;
	if (fade != NULL) {
		if (ctl_number("watch", "--fade", fade, &w.fade) < 0)
			return EXIT_USAGE;
		if (w.fade < 0)
			return ctl_usage_error("watch", "--fade is seconds, at least 0");
	}
	w.sync = sync != NULL;
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_assets_info(ctl->c, o.mesh ? o.mesh : o.asset, &w.skel);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (!w.skel->has_skeleton || w.skel->joint_count == 0) {
		fprintf(stderr, "animctl watch: %s has no skeleton to show (for a camera, try "
			"`animctl play %s --stream --space camera` and `pose`)\n",
			escape_text(w.skel->name), escape_text(w.skel->name));
		animc_free(w.skel);
		return EXIT_USAGE;
	}
	w.up = w.skel->up != NULL && strchr(w.skel->up, 'y') != NULL ? 1 : 2;
	w.anim = w.skel;
	if (o.mesh != NULL && (rc = animc_assets_info(ctl->c, o.asset, &w.anim)) < 0) {
		animc_free(w.skel);
		return ctl_fail(ctl, NULL, rc);
	}
	animc_client_on_event(ctl->c, watch_on_event, &w);
	if (reconnect != NULL) {
		animc_reconnect_opts ro = { .enabled = 1, .on_reconnect = watch_on_reconnect,
					    .user = &w };

		animc_client_set_reconnect(ctl->c, &ro);
	}
	rc = animc_subscribe(ctl->c, ANIMC_EVENTS_INSTANCES | ANIMC_EVENTS_LAYERS, NULL);
	so.space = w.space;
	so.channels = 1;
	so.max_elements = (uint32_t)w.skel->joint_count;
	if (rc == 0)
		rc = animc_stream_open(ctl->c, &so, &w.stream);
	if (rc == 0) {
		o.stream = w.stream;
		rc = animc_play(ctl->c, &o, &st);
	}
	if (rc < 0) {
		if (w.anim != w.skel)
			animc_free(w.anim);
		animc_free(w.skel);
		return ctl_fail(ctl, NULL, rc);
	}
	w.id = st->id;
	watch_stack_take(&w.stack, st);
	joints = (uint32_t)w.skel->joint_count;
	for (size_t i = 0; i < w.anim->clip_count; i++)
		if (st->clip != NULL && strcmp(w.anim->clips[i].name, st->clip) == 0)
			joints = w.anim->clips[i].joint_count;
	if (w.skel->emitter_count > 0)
		watch_open_extra(&w, &w.emitters, ANIMC_SPACE_EMITTERS, w.skel->emitter_count,
				 o, so);
	if (w.skel->attachment_count > 0)
		watch_open_extra(&w, &w.points, ANIMC_SPACE_ATTACHMENTS,
				 w.skel->attachment_count, o, so);
	snprintf(w.status, sizeof w.status, "%s clip %s, %.3f s, %s, speed %g, stream %" PRIu64,
		 escape_text(st->state_name), st->clip ? escape_text(st->clip) : "-", st->duration,
		 animc_loop_name(st->loop) ? animc_loop_name(st->loop) : "-", st->speed, st->stream);
	animc_free(st);
	if (fade_to != NULL && (rc = watch_fade_to(&w, fade_to)) < 0) {
		if (w.anim != w.skel)
			animc_free(w.anim);
		animc_free(w.skel);
		return ctl_fail(ctl, NULL, rc);
	}
	w.buf_floats = animc_stream_pose_floats(w.stream);
	w.buf = malloc(w.buf_floats * sizeof *w.buf);
	w.pos = calloc(w.skel->joint_count, sizeof *w.pos);
	if (w.buf == NULL || w.pos == NULL) {
		rc = EXIT_FAILURE_OTHER;
	} else {
		tui = !ctl->json && frames == NULL && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
		/* What n / p cycle through, at a terminal only (lines read no keys). */
		rc = tui ? watch_clips_find(ctl->c, w.skel, w.anim, joints, &w.clips) : 0;
		if (rc < 0) {
			rc = ctl_fail(ctl, NULL, rc);
		} else {
			watch_refresh_stack(&w);
			rc = watch_loop(&w, tui);
		}
	}
	watch_clips_free(&w.clips);
	free(w.buf);
	free(w.emitters.buf);
	free(w.points.buf);
	free(w.pos);
	if (w.anim != w.skel)
		animc_free(w.anim);
	animc_free(w.skel);
	return rc;
}
