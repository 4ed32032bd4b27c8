/* status, list, info, instances and sample: one call, one answer. */
#include "client/animctl/animctl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto/describe.h"

static void print_bytes(uint64_t b)
{
	if (b >= (1u << 30))
		printf("%.2f GiB", (double)b / (1u << 30));
	else if (b >= (1u << 20))
		printf("%.1f MiB", (double)b / (1u << 20));
	else if (b >= 1024)
		printf("%.1f KiB", (double)b / 1024);
	else
		printf("%" PRIu64 " B", b);
}

int cmd_status(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl status [--json]\n"
		"The daemon's version, pid, uptime, asset root, asset counts, instances (of\n"
		"every connection), connections, requests served, resident memory and what\n"
		"the daemon holds by kind (assets by part, streams and their budget,\n"
		"instances, connections).\n";
	animc_status_info *st;
	int n = ctl_args(ctl, argc, argv, NULL, NULL, 0, 0, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_status(ctl->c, &st);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kstr(&j, "server", st->server);
		json_kuint(&j, "pid", st->pid);
		json_kstr(&j, "socket", animc_client_path(ctl->c));
		json_knum(&j, "uptime", st->uptime);
		json_kstr(&j, "asset_root", st->asset_root);
		json_key(&j, "assets");
		json_obj(&j);
		json_kuint(&j, "count", st->assets);
		json_kuint(&j, "failing", st->assets_failing);
		json_kuint(&j, "loading", st->assets_loading);
		json_kuint(&j, "directories", st->directories);
		json_kuint(&j, "unservable", st->assets_unservable);
		json_kuint(&j, "not_loaded", st->assets_not_loaded);
		json_kuint(&j, "evicted", st->assets_evicted);
		json_kuint(&j, "evictions", st->assets_evictions);
		json_kuint(&j, "on_demand_loads", st->assets_on_demand_loads);
		json_kbool(&j, "over_cap", st->assets_over_cap != 0);
		json_obj_end(&j);
		json_kuint(&j, "instances", st->instances);
		json_kuint(&j, "connections", st->connections);
		json_kuint(&j, "requests", st->requests);
		json_kuint(&j, "memory_bytes", st->memory_bytes);
		json_key(&j, "memory");
		json_obj(&j);
		json_kuint(&j, "total", st->memory.total);
		json_key(&j, "assets");
		json_obj(&j);
		json_kuint(&j, "total", st->memory.assets);
		json_kuint(&j, "skeletons", st->memory.skeletons);
		json_kuint(&j, "clips", st->memory.clips);
		json_kuint(&j, "meshes", st->memory.meshes);
		json_kuint(&j, "cameras", st->memory.cameras);
		json_kuint(&j, "emitters", st->memory.emitters);
		json_kuint(&j, "other", st->memory.other);
		json_obj_end(&j);
		json_kuint(&j, "streams", st->memory.streams);
		json_kuint(&j, "streams_budget", st->memory.streams_budget);
		json_kuint(&j, "assets_cap", st->assets_cap);
		json_kuint(&j, "instances", st->memory.instances);
		json_kuint(&j, "connections", st->memory.connections);
		json_obj_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("server       %s (pid %u)\n", st->server ? escape_text(st->server) : "?",
		       st->pid);
		printf("socket       %s\n", escape_text(animc_client_path(ctl->c)));
		printf("uptime       %.1f s\n", st->uptime);
		if (st->asset_root != NULL)
			printf("asset root   %s\n", escape_text(st->asset_root));
		printf("assets       %" PRIu64 " (%" PRIu64 " failing, %" PRIu64 " loading, %" PRIu64
		       " not served)\n",
		       st->assets, st->assets_failing, st->assets_loading, st->assets_unservable);
		/* The index's and the cap's, when there is something to say. */
		if (st->assets_not_loaded != 0 || st->assets_evicted != 0 || st->assets_cap != 0)
			printf("  in memory  %" PRIu64 " not loaded yet, %" PRIu64 " evicted; %" PRIu64
			       " evictions, %" PRIu64 " loads on demand since start\n",
			       st->assets_not_loaded, st->assets_evicted, st->assets_evictions,
			       st->assets_on_demand_loads);
		printf("instances    %" PRIu64 "\n", st->instances);
		printf("connections  %" PRIu64 "\n", st->connections);
		printf("requests     %" PRIu64 "\n", st->requests);
		printf("memory       ");
		print_bytes(st->memory_bytes);
		printf(" resident, ");
		print_bytes(st->memory.total);
		printf(" held by kind:\n  assets       ");
		print_bytes(st->memory.assets);
		if (st->assets_cap != 0) {
			printf(" of a ");
			print_bytes(st->assets_cap);
			printf(" cap%s", st->assets_over_cap ? " (over it: what is in use alone)" : "");
		}
		printf(" (skeletons %" PRIu64 ", clips %" PRIu64 ", meshes %" PRIu64 ", cameras %" PRIu64
		       ", emitters %" PRIu64 ", other %" PRIu64 " bytes)\n", st->memory.skeletons,
		       st->memory.clips, st->memory.meshes, st->memory.cameras, st->memory.emitters,
		       st->memory.other);
		printf("  streams      ");
		print_bytes(st->memory.streams);
		if (st->memory.streams_budget != 0) {
			printf(" of a ");
			print_bytes(st->memory.streams_budget);
			printf(" budget");
		}
		printf("\n  instances    ");
		print_bytes(st->memory.instances);
		printf("\n  connections  ");
		print_bytes(st->memory.connections);
		printf("\n");
	}
	animc_free(st);
	return EXIT_OK;
}

int cmd_list(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl list [--json]\n"
		"Every asset under the daemon's root: name, format, generation (reloads so\n"
		"far), its state (ok, error, loading: not loaded yet, evicted: dropped for\n"
		"[assets] max_memory), and the latest load error.  Asked for a page at a\n"
		"time, so that a tree of any size is listed.\n";
	animc_asset_list *l;
	int n = ctl_args(ctl, argc, argv, NULL, NULL, 0, 0, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_assets_list(ctl->c, &l);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_key(&j, "assets");
		json_arr(&j);
		for (size_t i = 0; i < l->count; i++) {
			const animc_asset_summary *a = &l->assets[i];

			json_obj(&j);
			json_kstr(&j, "asset", a->name);
			json_kstr(&j, "format", a->format);
			json_kuint(&j, "generation", a->generation);
			json_kbool(&j, "ok", a->ok);
			json_kstr(&j, "error", a->error);
			json_kstr(&j, "state", l->states[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		int w = 5;

		/* Names as the daemon's log shows them (escape.c), aligned by
		 * their escaped width. */
		for (size_t i = 0; i < l->count; i++)
			if (l->assets[i].name && (int)strlen(escape_text(l->assets[i].name)) > w)
				w = (int)strlen(escape_text(l->assets[i].name));
		printf("%-*s  %-10s  %4s  %s\n", w, "ASSET", "FORMAT", "GEN", "STATE");
		for (size_t i = 0; i < l->count; i++) {
			const animc_asset_summary *a = &l->assets[i];

			/* The daemon's state, its "failed" said as the error
			 * it is (python3 -m animd list says it alike). */
			const char *state = strcmp(l->states[i], "failed") == 0 ? "error"
					    : l->states[i];

			printf("%-*s  %-10s  %4" PRIu64 "  %s%s%s\n", w,
			       a->name ? escape_text(a->name) : "?",
			       a->format ? escape_text(a->format) : "?", a->generation, state,
			       a->error ? ": " : "", a->error ? escape_text(a->error) : "");
		}
	}
	animc_free(l);
	return EXIT_OK;
}

/* An M2's attachment points and events. */
static void info_json_m2(struct json *j, const animc_asset_info *a)
{
	json_key(j, "attachments");
	json_arr(j);
	for (size_t i = 0; i < a->attachment_count; i++) {
		const animc_attachment_info *t = a->attachments[i];

		json_obj(j);
		json_kuint(j, "index", t->index);
		json_kuint(j, "id", t->id);
		json_kuint(j, "bone", t->bone);
		json_kuint(j, "joint", t->joint);
		json_key(j, "position");
		json_floats(j, t->position, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "events");
	json_arr(j);
	for (size_t i = 0; i < a->event_count; i++) {
		const animc_event_info *e = a->events[i];

		json_obj(j);
		json_kuint(j, "index", e->index);
		json_kstr(j, "id", e->id);
		json_kuint(j, "data", e->data);
		json_kuint(j, "bone", e->bone);
		json_key(j, "joint");
		if (e->joint >= 0)
			json_int(j, e->joint);
		else
			json_null(j);
		json_key(j, "position");
		json_floats(j, e->position, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void info_json(const animc_asset_info *a)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j);
	json_kstr(&j, "asset", a->name);
	json_kstr(&j, "format", a->format);
	json_kint(&j, "version", a->version);
	json_kuint(&j, "bytes", a->bytes);
	json_key(&j, "axes");
	json_obj(&j);
	json_kstr(&j, "up", a->up);
	json_kstr(&j, "handedness", a->handedness);
	json_obj_end(&j);
	json_kuint(&j, "generation", a->generation);
	json_kstr(&j, "error", a->error);
	json_knum(&j, "load_ms", a->load_ms);
	if (a->ticks_per_second > 0) {
		json_kuint(&j, "ticks_per_second", a->ticks_per_second);
		json_kbool(&j, "ticks_from_file", a->ticks_from_file);
	}
	json_kstr(&j, "note", a->note);
	json_key(&j, "notes");
	json_arr(&j);
	for (size_t i = 0; i < a->note_count; i++)
		json_str(&j, a->notes[i]);
	json_arr_end(&j);
	json_key(&j, "skeleton");
	if (a->has_skeleton) {
		json_obj(&j);
		json_kuint(&j, "joint_count", a->joint_count);
		json_kbool(&j, "bind_pose", a->bind_pose);
		json_key(&j, "joints");
		json_arr(&j);
		for (size_t i = 0; i < a->joint_count; i++) {
			json_obj(&j);
			json_kstr(&j, "name", a->joints[i].name);
			json_kint(&j, "parent", a->joints[i].parent);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	} else {
		json_null(&j);
	}
	json_key(&j, "clips");
	json_arr(&j);
	for (size_t i = 0; i < a->clip_count; i++) {
		const animc_clip_info *c = &a->clips[i];

		json_obj(&j);
		json_kstr(&j, "name", c->name);
		json_knum(&j, "duration", c->duration);
		json_kstr(&j, "loop", c->loop);
		json_kuint(&j, "joint_count", c->joint_count);
		json_kbool(&j, "bounds", c->has_bounds);
		if (c->frame_rate) {
			json_kuint(&j, "frame_rate", c->frame_rate);
			json_kuint(&j, "frame_count", c->frame_count);
		}
		if (a->clip_events != NULL) {
			json_key(&j, "events");
			json_arr(&j);
			for (size_t k = 0; k < a->clip_events[i].count; k++) {
				json_obj(&j);
				json_knum(&j, "time", a->clip_events[i].moments[k].time);
				json_kuint(&j, "event", a->clip_events[i].moments[k].event);
				json_obj_end(&j);
			}
			json_arr_end(&j);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (a->clip_events != NULL)
		info_json_m2(&j, a);
	if (a->format != NULL && strcmp(a->format, "gltf") == 0) {
		json_key(&j, "weights");
		json_arr(&j);
		for (size_t i = 0; i < a->weight_count; i++) {
			json_obj(&j);
			json_kstr(&j, "name", a->weight_names[i]);
			json_knum(&j, "default", a->weight_defaults[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	json_key(&j, "meshes");
	json_arr(&j);
	for (size_t i = 0; i < a->mesh_count; i++) {
		const animc_mesh_info *m = &a->meshes[i];

		json_obj(&j);
		json_kstr(&j, "name", m->name);
		json_kstr(&j, "material", m->material);
		json_kuint(&j, "vertex_count", m->vertex_count);
		json_kuint(&j, "triangle_count", m->triangle_count);
		json_kuint(&j, "weight_count", m->weight_count);
		json_kbool(&j, "skinned", m->skinned);
		json_kbool(&j, "normals", m->normals);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "cameras");
	json_arr(&j);
	for (size_t i = 0; i < a->camera_count; i++) {
		const animc_camera_info *c = &a->cameras[i];

		json_obj(&j);
		json_kuint(&j, "frame_count", c->frame_count);
		json_kuint(&j, "frame_rate", c->frame_rate);
		json_knum(&j, "duration", c->duration);
		json_key(&j, "cuts");
		json_arr(&j);
		for (size_t k = 0; k < c->cut_count; k++)
			json_uint(&j, c->cuts[k]);
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* A joint's name, or NULL when there is no such joint. */
static const char *info_joint_name(const animc_asset_info *a, int64_t joint)
{
	return joint >= 0 && (uint64_t)joint < a->joint_count ? a->joints[joint].name : NULL;
}

static const char *const info_billboards[] = {
	[ANIMC_BILLBOARD_SPHERICAL] = "spherical", [ANIMC_BILLBOARD_CYLINDRICAL_X] = "cylindrical_x",
	[ANIMC_BILLBOARD_CYLINDRICAL_Y] = "cylindrical_y", [ANIMC_BILLBOARD_CYLINDRICAL_Z] = "cylindrical_z",
};

/* The lines animd inspect prints too come from proto/describe.h, so the
 * two say the same of the same asset; what only the daemon knows (the
 * generation, its load) and only a file shows (inspect's memory and
 * companions) follow in lines of their own. */
static void info_text(const animc_asset_info *a)
{
	char line[DESCRIBE_LINE_MAX], more[DESCRIBE_LINE_MAX];

	puts(describe_line(line, sizeof line, "asset", "%s", escape_text(a->name)));
	puts(describe_format(line, sizeof line, a->format ? escape_text(a->format) : NULL,
			     a->version, a->bytes));
	puts(describe_axes(line, sizeof line, a->up ? escape_text(a->up) : NULL,
			   a->handedness ? escape_text(a->handedness) : NULL));
	puts(describe_line(line, sizeof line, "generation", "%" PRIu64 " (loaded in %.2f ms)",
			   a->generation, a->load_ms));
	if (a->error != NULL)
		puts(describe_line(line, sizeof line, "error", "%s", escape_text(a->error)));
	if (a->ticks_per_second > 0)
		puts(describe_line(line, sizeof line, "ticks", "%u per second (%s)", a->ticks_per_second,
				   a->ticks_from_file ? "AnimTicksPerSecond"
						      : "the default: the file has none"));
	if (a->note != NULL)
		puts(describe_line(line, sizeof line, "note", "%s", escape_text(a->note)));
	for (size_t i = 0; i < a->note_count; i++)
		puts(describe_line(line, sizeof line, "note", "%s", escape_text(a->notes[i])));
	if (a->has_skeleton) {
		puts(describe_skeleton(line, sizeof line, (uint32_t)a->joint_count, a->bind_pose));
		for (size_t i = 0; i < a->joint_count; i++) {
			const animc_joint_info *j = &a->joints[i];

			printf("%s", describe_joint(line, sizeof line, (uint32_t)i, j->name, j->parent,
						    info_joint_name(a, j->parent)));
			if (j->billboard > 0 && j->billboard <= ANIMC_BILLBOARD_CYLINDRICAL_Z)
				printf(", %s billboard", info_billboards[j->billboard]);
			printf("\n");
		}
	}
	for (size_t i = 0; i < a->clip_count; i++) {
		const animc_clip_info *c = &a->clips[i];

		printf("%s", describe_clip(line, sizeof line, c->name, c->duration,
					   c->loop ? escape_text(c->loop) : NULL, c->joint_count,
					   c->frame_count, c->frame_rate, c->has_bounds));
		if (c->has_sequence)
			printf("%s", describe_sequence(more, sizeof more, c->anim_id, c->variation,
						       c->flags, c->movespeed, c->frequency,
						       c->replay_min, c->replay_max, c->blend_ms,
						       c->alias_of, c->loaded));
		printf("\n");
		if (a->clip_events != NULL && a->clip_events[i].count > 0) {
			const animc_clip_events *ce = &a->clip_events[i];
			double times[256];
			uint32_t events[256];
			size_t n = ce->count < 256 ? ce->count : 256;

			for (size_t k = 0; k < n; k++) {
				times[k] = ce->moments[k].time;
				events[k] = ce->moments[k].event;
			}
			puts(describe_moments(line, sizeof line, n, times, events));
		}
	}
	for (size_t i = 0; i < a->global_sequence_count; i++)
		puts(describe_global(line, sizeof line, (uint32_t)i, a->global_sequences[i]));
	if (a->emitter_count > 0)
		puts(describe_line(line, sizeof line, "emitters", "%zu (animctl sample %s --space "
				   "emitters)", a->emitter_count, escape_text(a->name)));
	if (a->weight_count > 0)
		puts(describe_line(line, sizeof line, "weights", "%zu morph weights (animctl sample %s "
				   "--space weights)", a->weight_count, escape_text(a->name)));
	for (size_t i = 0; i < a->weight_count; i++)
		puts(describe_line(line, sizeof line, "weight", "%zu: %s, default %g", i,
				   escape_text(a->weight_names[i]), a->weight_defaults[i]));
	for (size_t i = 0; i < a->attachment_count; i++) {
		const animc_attachment_info *t = a->attachments[i];

		puts(describe_attachment(line, sizeof line, t->index, t->id, t->bone,
					 info_joint_name(a, t->joint), t->position[0], t->position[1],
					 t->position[2]));
	}
	for (size_t i = 0; i < a->event_count; i++) {
		const animc_event_info *e = a->events[i];

		puts(describe_event(line, sizeof line, e->index, e->id, e->data, e->bone,
				    info_joint_name(a, e->joint), e->position[0], e->position[1],
				    e->position[2]));
	}
	for (size_t i = 0; i < a->mesh_count; i++) {
		const animc_mesh_info *m = &a->meshes[i];

		puts(describe_mesh(line, sizeof line, (uint32_t)i, m->name, m->material,
				   m->vertex_count, m->triangle_count, m->weight_count, m->skinned,
				   m->normals));
	}
	for (size_t i = 0; i < a->camera_count; i++) {
		const animc_camera_info *c = &a->cameras[i];

		puts(describe_camera(line, sizeof line, c->frame_count, c->frame_rate, c->duration,
				     c->cut_count, c->cuts));
	}
}

int cmd_info(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl info ASSET [--json]\n"
		"One asset in detail: format, axes, generation, skeleton (joints and\n"
		"parents), clips, meshes and cameras.  ASSET is its name under the root\n"
		"(as `animctl list` shows it).\n";
	const char *pos[1];
	animc_asset_info *a;
	int n = ctl_args(ctl, argc, argv, NULL, pos, 1, 1, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_assets_info(ctl->c, pos[0], &a);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json)
		info_json(a);
	else
		info_text(a);
	animc_free(a);
	return EXIT_OK;
}

/* One instance of `instances --all`: its state's line, after its owner. */
static void instances_all_text(const animc_owned_instance_list *l)
{
	for (size_t i = 0; i < l->count; i++) {
		const animc_owned_instance *o = l->instances[i];

		printf("connection %" PRIu64 "%s%s%s  ", o->connection, o->client ? " " : "",
		       o->client ? escape_quoted(o->client) : "", o->own ? " (this)" : "");
		print_instance_line(o->instance);
	}
	fflush(stdout);
}

static void instances_all_json(const animc_owned_instance_list *l)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j);
	json_key(&j, "instances");
	json_arr(&j);
	for (size_t i = 0; i < l->count; i++) {
		const animc_owned_instance *o = l->instances[i];

		print_instance_json_open(&j, o->instance);
		json_kuint(&j, "connection", o->connection);
		json_kstr(&j, "client", o->client);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

int cmd_instances(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl instances [--all] [--json]\n"
		"This connection's instances.  Instances belong to the connection that\n"
		"started them, so a fresh animctl has none: see the total in `animctl\n"
		"status`, and use `animctl play` to start and steer one.\n"
		"--all: every connection's instances, each after its owner (connection id\n"
		"and the name its program gave); `animctl stop --any INSTANCE` stops one\n"
		"(root, the user animd runs as and the owner's own user may), `animctl\n"
		"clients kill CONNECTION` closes its connection.\n";
	const char *all = NULL;
	const struct ctl_opt opts[] = {
		{ "all", false, &all },
		{ NULL, false, NULL },
	};
	animc_instance_list *l;
	int n = ctl_args(ctl, argc, argv, opts, NULL, 0, 0, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	if (all != NULL) {
		animc_owned_instance_list *al;

		rc = animc_instances_list_all(ctl->c, &al);
		if (rc < 0)
			return ctl_fail(ctl, NULL, rc);
		if (ctl->json)
			instances_all_json(al);
		else
			instances_all_text(al);
		if (al->count == 0 && !ctl->json)
			fprintf(stderr, "animctl: no connection has an instance\n");
		animc_free(al);
		return EXIT_OK;
	}
	rc = animc_instances_list(ctl->c, &l);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_key(&j, "instances");
		json_arr(&j);
		for (size_t i = 0; i < l->count; i++)
			print_instance_json(&j, &l->instances[i]);
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		for (size_t i = 0; i < l->count; i++)
			print_instance(ctl, &l->instances[i]);
		if (l->count == 0)
			fprintf(stderr, "animctl: this connection has no instances (instances belong "
				"to the connection that started them; --all lists every "
				"connection's)\n");
	}
	animc_free(l);
	return EXIT_OK;
}

int cmd_reload(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl reload ASSET [--json]\n"
		"Re-read ASSET's file now (assets.reload), without waiting for the watcher's\n"
		"quiet period, and print its generation once the load has finished: a new\n"
		"one, or the live one when the file's bytes are those of the live version\n"
		"(unchanged: nothing reloaded, no event).  A file that fails to parse is\n"
		"asset_error with the parse error (exit 1), and the last good version\n"
		"stays live.\n";
	const char *pos[1];
	animc_reload_info *r;
	int n = ctl_args(ctl, argc, argv, NULL, pos, 1, 1, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_assets_reload_info(ctl->c, pos[0], &r);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kstr(&j, "asset", r->asset != NULL ? r->asset : pos[0]);
		json_kuint(&j, "generation", r->generation);
		json_kbool(&j, "unchanged", r->unchanged);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("%s generation %" PRIu64 "%s\n", escape_text(r->asset != NULL ? r->asset : pos[0]),
		       r->generation, r->unchanged ? " (unchanged: the file is the live version)" : "");
	}
	animc_free(r);
	return EXIT_OK;
}

static int sample_enum(const char *what, const char *s, int (*lookup)(const char *), int *out)
{
	int v = lookup(s);

	if (v <= 0) {
		fprintf(stderr, "animctl sample: unknown %s %s\n", what, escape_quoted(s));
		return -1;
	}
	*out = v;
	return 0;
}

/* A mesh's "skin_weights" as the daemon sends them. */
static void sample_json_skin_weights(struct json *j, const animc_skin_weights *w)
{
	json_key(j, "skin_weights");
	json_obj(j);
	json_key(j, "counts");
	json_arr(j);
	for (size_t v = 0; v < w->vertex_count; v++)
		json_uint(j, w->counts[v]);
	json_arr_end(j);
	json_key(j, "joints");
	json_arr(j);
	for (size_t k = 0; k < w->influence_count; k++)
		json_uint(j, w->joints[k]);
	json_arr_end(j);
	json_key(j, "values");
	json_floats(j, w->values, w->influence_count);
	json_obj_end(j);
}

static void sample_json(const animc_pose *p)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j);
	json_kstr(&j, "asset", p->asset);
	json_kstr(&j, "clip", p->clip);
	json_knum(&j, "time", p->time);
	json_kstr(&j, "space", animc_space_name(p->space));
	json_knum(&j, "clip_time", p->clip_time);
	json_kint(&j, "cycles", p->cycles);
	if (p->root_motion != NULL)
		json_kstr(&j, "root_motion", p->root_motion);
	if (p->has_bounds) {
		json_key(&j, "bounds");
		json_obj(&j);
		json_key(&j, "min");
		json_floats(&j, p->bounds_min, 3);
		json_key(&j, "max");
		json_floats(&j, p->bounds_max, 3);
		json_obj_end(&j);
	}
	if (p->has_camera) {
		json_key(&j, "camera");
		json_obj(&j);
		json_key(&j, "position");
		json_floats(&j, p->camera_position, 3);
		json_key(&j, "orientation");
		json_floats(&j, p->camera_orientation, 4);
		json_key(&j, "fov");
		json_float(&j, p->camera_fov);
		json_obj_end(&j);
	} else if (p->space == ANIMC_SPACE_EMITTERS) {
		json_key(&j, "emitters");
		json_arr(&j);
		for (size_t i = 0; i < p->emitter_count; i++) {
			const animc_emitter_pose *e = &p->emitters[i];

			json_obj(&j);
			json_kuint(&j, "index", e->index);
			json_kuint(&j, "bone", e->bone);
			json_key(&j, "m");
			json_floats(&j, e->m, 12);
			json_kbool(&j, "enabled", e->enabled);
			json_key(&j, "params");
			json_obj(&j);
			for (int k = 0; k < ANIMC_EMITTER_PARAMS; k++) {
				json_key(&j, animc_emitter_param_name(k));
				json_float(&j, e->params[k]);
			}
			json_obj_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	} else if (p->space == ANIMC_SPACE_ATTACHMENTS) {
		json_key(&j, "attachments");
		json_arr(&j);
		for (size_t i = 0; i < p->attachment_count; i++) {
			const animc_attachment_pose *at = &p->attachments[i];

			json_obj(&j);
			json_kuint(&j, "index", at->index);
			json_kuint(&j, "id", at->id);
			json_kuint(&j, "bone", at->bone);
			json_kuint(&j, "joint", at->joint);
			json_key(&j, "position");
			json_floats(&j, at->position, 3);
			json_key(&j, "m");
			json_floats(&j, at->m, 12);
			json_kbool(&j, "animate", at->animate);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	} else if (p->space == ANIMC_SPACE_WEIGHTS) {
		json_key(&j, "weights");
		json_arr(&j);
		for (size_t i = 0; i < p->weight_count; i++) {
			json_obj(&j);
			json_kstr(&j, "name", p->weight_names[i]);
			json_key(&j, "weight");
			json_float(&j, p->weights[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	} else if (p->space == ANIMC_SPACE_VERTICES) {
		json_key(&j, "meshes");
		json_arr(&j);
		for (size_t i = 0; i < p->mesh_count; i++) {
			json_obj(&j);
			json_kstr(&j, "name", p->meshes[i].name);
			json_key(&j, "positions");
			json_arr(&j);
			for (size_t v = 0; v < p->meshes[i].vertex_count; v++)
				json_floats(&j, p->meshes[i].positions + 3 * v, 3);
			json_arr_end(&j);
			if (p->skin_weights != NULL)
				sample_json_skin_weights(&j, &p->skin_weights[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	} else {
		json_key(&j, "joints");
		json_arr(&j);
		for (size_t i = 0; i < p->joint_count; i++) {
			const animc_joint_pose *jp = &p->joints[i];

			json_obj(&j);
			json_kstr(&j, "name", jp->name);
			json_kint(&j, "parent", jp->parent);
			if (p->space == ANIMC_SPACE_LOCAL) {
				json_key(&j, "t");
				json_floats(&j, jp->t, 3);
				json_key(&j, "r");
				json_floats(&j, jp->r, 4);
				json_key(&j, "s");
				json_floats(&j, jp->s, 3);
			} else {
				json_key(&j, "m");
				json_floats(&j, jp->m, 12);
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	json_obj_end(&j);
	json_end(&j);
}

static void sample_text(const animc_pose *p)
{
	char line[DESCRIBE_LINE_MAX];

	/* The header animd sample prints too (proto/describe.h). */
	puts(describe_sample(line, sizeof line, escape_text(p->asset), p->clip, p->time,
			     p->clip_time, p->cycles, animc_space_name(p->space)));
	if (p->has_bounds)
		printf("bounds %.3f %.3f %.3f .. %.3f %.3f %.3f\n", p->bounds_min[0],
		       p->bounds_min[1], p->bounds_min[2], p->bounds_max[0], p->bounds_max[1],
		       p->bounds_max[2]);
	if (p->has_camera) {
		printf("camera position %.3f %.3f %.3f orientation %.4f %.4f %.4f %.4f fov %.2f\n",
		       p->camera_position[0], p->camera_position[1], p->camera_position[2],
		       p->camera_orientation[0], p->camera_orientation[1], p->camera_orientation[2],
		       p->camera_orientation[3], p->camera_fov);
		return;
	}
	for (size_t i = 0; i < p->mesh_count; i++) {
		printf("mesh %s: %zu %s", escape_text(p->meshes[i].name),
		       p->meshes[i].vertex_count,
		       print_noun(p->meshes[i].vertex_count, "vertex", "vertices"));
		if (p->skin_weights != NULL)
			printf(", %zu %s", p->skin_weights[i].influence_count,
			       print_noun(p->skin_weights[i].influence_count, "influence",
					  "influences"));
		puts(" (--json prints them)");
	}
	for (size_t i = 0; i < p->emitter_count; i++) {
		const animc_emitter_pose *e = &p->emitters[i];

		printf("emitter %u (bone %u) %s at %9.3f %9.3f %9.3f  rate %g speed %g lifespan %g\n",
		       e->index, e->bone, e->enabled ? "on " : "off", e->m[3], e->m[7], e->m[11],
		       e->params[ANIMC_EMITTER_EMISSION_RATE], e->params[ANIMC_EMITTER_EMISSION_SPEED],
		       e->params[ANIMC_EMITTER_LIFESPAN]);
	}
	for (size_t i = 0; i < p->weight_count; i++)
		printf("weight %3zu %-24s %9.4f\n", i, escape_text(p->weight_names[i]), p->weights[i]);
	for (size_t i = 0; i < p->attachment_count; i++) {
		const animc_attachment_pose *at = &p->attachments[i];

		printf("attachment %u id %u (bone %u) at %9.3f %9.3f %9.3f%s\n", at->index,
		       at->id, at->bone, at->m[3], at->m[7], at->m[11],
		       at->animate ? "" : "  not animated");
	}
	for (size_t i = 0; i < p->joint_count; i++) {
		const animc_joint_pose *j = &p->joints[i];

		if (p->space == ANIMC_SPACE_LOCAL)
			printf("%3zu %-16s t %9.3f %9.3f %9.3f  r %7.4f %7.4f %7.4f %7.4f\n", i,
			       escape_text(j->name), j->t[0], j->t[1], j->t[2], j->r[0], j->r[1], j->r[2], j->r[3]);
		else
			printf("%3zu %-16s position %9.3f %9.3f %9.3f\n", i, escape_text(j->name), j->m[3],
			       j->m[7],
			       j->m[11]);
	}
}

/* "ARG:SECONDS:WEIGHT" of --blend or --additive into the layer: ARG is
 * ASSET#CLIP, an asset (a name with an asset's extension) or a clip of the
 * sample's asset, as animd sample takes it.  0 or EXIT_USAGE. */
static int sample_layer_arg(const char *opt, char *arg, animc_sample_layer *l)
{
	char *w = strrchr(arg, ':'), *t, *hash;
	static const char *const exts[] = { ".md5anim", ".md5mesh", ".md5camera", ".x", ".m2" };

	t = w != NULL && w != arg ? memrchr(arg, ':', (size_t)(w - arg)) : NULL;
	if (t != NULL)
		*w = '\0';
	if (t == NULL || t == arg || !ctl_is_number(t + 1, &l->time) ||
	    !ctl_is_number(w + 1, &l->weight) || !(l->weight >= 0 && l->weight <= 1))
		return ctl_usage_error("sample", "%s is CLIP:SECONDS:WEIGHT (CLIP, ASSET or ASSET#CLIP), "
				       "the weight in [0, 1]", opt);
	*t = '\0';
	hash = strrchr(arg, '#');
	if (hash != NULL) {
		*hash = '\0';
		l->asset = arg;
		l->clip = hash + 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		size_t n = strlen(arg), e = strlen(exts[i]);

		if (n > e && strcmp(arg + n - e, exts[i]) == 0) {
			l->asset = arg;
			return 0;
		}
	}
	l->clip = arg;
	return 0;
}

int cmd_sample(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl sample ASSET --time SECONDS [--clip NAME] [--mesh MESH]\n"
		"                      [--space local|model|skin|vertices|camera|emitters|\n"
		"                               attachments|weights]\n"
		"                      [--loop loop|once|pingpong] [--root-motion raw|in_place]\n"
		"                      [--blend CLIP:SECONDS:WEIGHT | --additive CLIP:SECONDS:WEIGHT\n"
		"                       [--ref CLIP[:SECONDS]]] [--mask JOINT[:W],...]\n"
		"       animctl sample ASSET --bind [--mesh MESH] [--space SPACE] [--skin-weights]\n"
		"Evaluate one pose without creating an instance.  Text output lists each\n"
		"joint (local: translation and rotation; other spaces: position); --json\n"
		"prints the whole pose as `animd sample --json` does.  --bind gives the pose\n"
		"the meshes were bound in (no clip, no time); --skin-weights (vertices\n"
		"space) adds each vertex's joints and skin weights.  --blend puts a layer\n"
		"over the pose (CLIP of the asset, ASSET or ASSET#CLIP, at its own time and\n"
		"weight), --additive one that adds its difference from its first frame (or\n"
		"--ref CLIP at SECONDS), --mask limits it to joints' subtrees, as animd\n"
		"sample's options and animctl layer add's do.\n";
	const char *pos[1], *time = NULL, *clip = NULL, *mesh = NULL, *space = NULL, *loop = NULL,
		   *root = NULL, *blend = NULL, *additive = NULL, *mask = NULL, *ref = NULL,
		   *bind = NULL, *skin_weights = NULL;
	const struct ctl_opt opts[] = {
		{ "time", true, &time }, { "clip", true, &clip }, { "mesh", true, &mesh },
		{ "space", true, &space }, { "loop", true, &loop }, { "root-motion", true, &root },
		{ "blend", true, &blend }, { "additive", true, &additive }, { "mask", true, &mask },
		{ "ref", true, &ref }, { "bind", false, &bind },
		{ "skin-weights", false, &skin_weights },
		{ NULL, false, NULL },
	};
	animc_sample_opts o = { 0 };
	animc_sample_layer layer = { .weight = 1.0 };
	const animc_sample_layer *layers[1] = { &layer };
	const char *joints[LAYER_MAX_MASK];
	double weights[LAYER_MAX_MASK];
	char *layer_copy = NULL, *mask_copy = NULL, *ref_copy = NULL;
	animc_pose *p;
	int n = ctl_args(ctl, argc, argv, opts, pos, 1, 1, help), rc, v;

	if (n < 0)
		return ctl_args_exit(n);
	if (bind != NULL && (time != NULL || clip != NULL || loop != NULL || root != NULL ||
			     blend != NULL || additive != NULL))
		return ctl_usage_error("sample", "--bind takes no --time, --clip, --loop, "
				       "--root-motion or layer");
	if (time == NULL && bind == NULL)
		return ctl_usage_error("sample", "--time is required, or --bind for the bind pose");
	o.asset = pos[0];
	o.clip = clip;
	o.mesh = mesh;
	o.flags = (bind != NULL ? ANIMC_SAMPLE_BIND : 0) |
		  (skin_weights != NULL ? ANIMC_SAMPLE_SKIN_WEIGHTS : 0);
	if (time != NULL && ctl_number("sample", "--time", time, &o.time) < 0)
		return EXIT_USAGE;
	if (space != NULL) {
		if (sample_enum("space", space, animc_space_lookup, &v) < 0)
			return EXIT_USAGE;
		o.space = (animc_space)v;
	}
	if (loop != NULL) {
		if (sample_enum("loop mode", loop, animc_loop_lookup, &v) < 0)
			return EXIT_USAGE;
		o.loop = (animc_loop)v;
	}
	if (root != NULL) {
		if (sample_enum("root motion", root, animc_root_motion_lookup, &v) < 0)
			return EXIT_USAGE;
		o.root_motion = (animc_root_motion)v;
	}
	if (blend != NULL && additive != NULL)
		return ctl_usage_error("sample", "--blend or --additive: one layer");
	if ((mask != NULL || ref != NULL) && blend == NULL && additive == NULL)
		return ctl_usage_error("sample", "--mask and --ref go with --blend or --additive");
	if (ref != NULL && additive == NULL)
		return ctl_usage_error("sample", "--ref names the reference pose of --additive");
	if (blend != NULL || additive != NULL) {
		layer_copy = strdup(blend != NULL ? blend : additive);
		mask_copy = mask != NULL ? strdup(mask) : NULL;
		ref_copy = ref != NULL ? strdup(ref) : NULL;
		rc = layer_copy == NULL || (mask != NULL && mask_copy == NULL) ||
		     (ref != NULL && ref_copy == NULL) ? EXIT_FAILURE_OTHER : 0;
		layer.mode = additive != NULL ? ANIMC_LAYER_ADDITIVE : ANIMC_LAYER_OVERRIDE;
		if (rc == 0)
			rc = sample_layer_arg(blend != NULL ? "--blend" : "--additive", layer_copy,
					      &layer);
		if (rc == 0 && mask_copy != NULL)
			rc = layer_parse_mask(mask_copy, joints, weights, &layer.mask_count);
		if (rc == 0 && ref_copy != NULL) {
			char *colon = strrchr(ref_copy, ':');

			if (colon != NULL && colon != ref_copy &&
			    ctl_is_number(colon + 1, &layer.reference_time))
				*colon = '\0';
			layer.reference_clip = ref_copy;
		}
		layer.mask_joints = joints;
		layer.mask_weights = weights;
		o.layers = layers;
		o.layer_count = 1;
		if (rc != 0)
			goto out;
	}
	if ((rc = ctl_connect(ctl)) != 0)
		goto out;
	rc = animc_sample(ctl->c, &o, &p);
	if (rc < 0) {
		rc = ctl_fail(ctl, NULL, rc);
		goto out;
	}
	if (ctl->json)
		sample_json(p);
	else
		sample_text(p);
	animc_free(p);
	rc = EXIT_OK;
out:
	free(layer_copy);
	free(mask_copy);
	free(ref_copy);
	return rc;
}
