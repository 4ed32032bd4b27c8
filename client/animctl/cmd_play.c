/*
 * play: start an instance and keep the connection (which owns it) open,
 * steering it from lines on stdin; and the standalone pause, resume, seek,
 * speed and stop, which can only reach instances of their own connection.
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct play {
	struct ctl *ctl;
	uint64_t id;
	double fade;                    /* --fade: the input's `play` switches; <0: the daemon's */
	bool sync;                      /* --sync */
	animc_stream *stream;
	bool until_end;
	bool done;
	int status;
};

static const char play_help[] =
	"usage: animctl play ASSET [--clip NAME] [--mesh MESH] [--loop|--once|--pingpong]\n"
	"                    [--speed S] [--start T] [--root-motion raw|in_place]\n"
	"                    [--stream] [--space SPACE] [--rate HZ] [--until-end]\n"
	"                    [--reconnect] [--no-input] [--fade S] [--sync]\n"
	"Start an instance of ASSET's clip and keep it playing.  An instance belongs\n"
	"to the connection that started it and ends when that connection closes, so\n"
	"`play` stays connected: it prints the instance's state, then the daemon's\n"
	"events, and runs until Ctrl-C or SIGTERM, `quit`, `stop` or (--until-end) a\n"
	"clip played --once reaching its end (exit 0), or the daemon stopping the\n"
	"instance (exit 1) or going away (exit 3).\n"
	"There is no --detach: a detached instance would have no owner.\n"
	"\n"
	"It reads commands from stdin, one per line, and prints the new state:\n"
	"  pause | resume | seek SECONDS | speed FACTOR | state | pose | stop | quit\n"
	"  play ASSET [CLIP] [FADE]   cross-fade to ASSET's CLIP over FADE seconds\n"
	"                     (default --fade, else the daemon's: M2 blend_ms, or\n"
	"                     playback.default_fade_ms); `-` for the same asset\n"
	"  layer add [ASSET] [options] | layer set LAYER WEIGHT [FADE] |\n"
	"  layer remove LAYER [FADE]  the instance's layers (animctl layer --help)\n"
	"  help                lists them\n"
	"(`pose` needs --stream).  At the end of input it keeps playing; --no-input\n"
	"ignores stdin altogether (for running in the background).\n"
	"\n"
	"  --clip NAME        the clip (default: the asset's first)\n"
	"  --mesh MESH        an md5mesh giving skeleton and bind pose to an md5anim\n"
	"  --loop, --once, --pingpong   loop mode (default: the clip's own)\n"
	"  --speed S          playback rate (default 1; negative plays backwards)\n"
	"  --start T          start at T seconds\n"
	"  --root-motion M    raw (default) or in_place\n"
	"  --stream           also open a shared-memory stream and publish into it\n"
	"  --space SPACE      the stream's space: local, model (default), skin,\n"
	"                     vertices, camera, emitters, attachments or weights\n"
	"  --rate HZ          the stream's publish rate (default: the daemon's)\n"
	"  --until-end        exit when the instance ends or is stopped\n"
	"  --reconnect        survive a daemon restart: reconnect and replay\n"
	"  --fade S           the cross-fade of the input's `play` (seconds)\n"
	"  --sync             those start at the old clip's phase\n"
	"\n"
	"With --json, states are printed as JSON objects with an \"instance\" key and\n"
	"events as objects with a \"type\" key, one per line.\n";

/* `help` typed on the input. */
static const char play_commands[] =
	"commands, one per line:\n"
	"  pause                      freeze the instance's clock\n"
	"  resume                     let it run again\n"
	"  seek SECONDS               jump to a playback time\n"
	"  speed FACTOR               the rate from now on (negative: backwards)\n"
	"  play ASSET|- [CLIP] [FADE] cross-fade to a clip (`-`: the same asset)\n"
	"  layer add [ASSET] [--clip C] [--weight W] [--fade S] [--mask J[:W],...]\n"
	"        [--additive [--ref CLIP[:T]]]   a layer on top of the stack\n"
	"  layer set LAYER WEIGHT [FADE]         move a layer's weight\n"
	"  layer remove LAYER [FADE]             take a layer off\n"
	"  state                      the instance's state\n"
	"  pose                       the stream's latest pose (with --stream)\n"
	"  stop                       stop the instance and exit\n"
	"  quit                       exit (the instance ends with the connection)\n"
	"  help                       this list\n";

static void play_on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct play *p = user;

	(void)c;
	print_event(p->ctl, ev);
	if (ev->instance != p->id)
		return;
	if (ev->type == ANIMC_EVENT_INSTANCE_STOPPED) {
		p->done = true;
		p->status = EXIT_SERVER;
	} else if (ev->type == ANIMC_EVENT_INSTANCE_ENDED && p->until_end) {
		p->done = true;
	}
}

static void play_on_reconnect(animc_client *c, const animc_reconnect_info *info, void *user)
{
	struct play *p = user;

	(void)c;
	for (size_t i = 0; i < info->instance_count; i++) {
		const animc_instance_remap *r = &info->instances[i];

		if (p->ctl->json) {
			struct json j;

			json_begin(&j, stdout);
			json_obj(&j);
			json_kstr(&j, "type", "reconnected");
			json_kuint(&j, "instance", r->id);
			json_kuint(&j, "server_pid", info->server_pid);
			json_kuint(&j, "server_instance", r->new_server_id);
			json_kbool(&j, "replayed", r->status == 0);
			json_obj_end(&j);
			json_end(&j);
		} else {
			printf("reconnected to animd (pid %u): instance %" PRIu64 " %s", info->server_pid,
			       r->id, r->status == 0 ? "replayed" : "could not be replayed");
			if (r->status == 0)
				printf(" (the daemon's id %" PRIu64 ")", r->new_server_id);
			printf("\n");
			fflush(stdout);
		}
		if (r->id == p->id && r->status != 0) {
			p->done = true;
			p->status = EXIT_SERVER;
		}
	}
}

/* An attachment point's element carries integers among its floats: its
 * fields by name. */
static void play_attachment_json(struct json *j, const float *buf, uint32_t e)
{
	animc_attachment_element at;

	animc_stream_attachment(buf, e, &at);
	json_obj(j);
	json_key(j, "m");
	json_floats(j, at.m, 12);
	json_kbool(j, "animate", at.animate > 0.5f);
	json_kuint(j, "id", at.id);
	json_kuint(j, "joint", at.joint);
	json_obj_end(j);
}

static void play_attachment_text(const float *buf, uint32_t e)
{
	animc_attachment_element at;

	animc_stream_attachment(buf, e, &at);
	printf("  %3u id %u joint %u at %9.3f %9.3f %9.3f%s\n", e, at.id, at.joint, at.m[3],
	       at.m[7], at.m[11], at.animate > 0.5f ? "" : "  not animated");
}

/* Print the stream's latest pose of the instance. */
static void play_pose(struct play *p)
{
	animc_pose_info info;
	animc_stream_info si;
	bool points;
	size_t n;
	float *buf;
	int rc;

	if (p->stream == NULL) {
		fprintf(stderr, "animctl play: `pose` needs --stream\n");
		return;
	}
	points = animc_stream_info_get(p->stream, &si) == 0 && si.space == ANIMC_SPACE_ATTACHMENTS;
	n = animc_stream_pose_floats(p->stream);
	buf = malloc((n ? n : 1) * sizeof *buf);
	if (buf == NULL)
		return;
	rc = animc_stream_latest(p->stream, p->id, buf, n, &info);
	if (rc < 0) {
		fprintf(stderr, "animctl play: pose: %s\n", animc_strerror(rc));
	} else if (p->ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kstr(&j, "type", "pose");
		json_kuint(&j, "instance", info.instance);
		json_kuint(&j, "seq", info.seq);
		json_kuint(&j, "tick", info.tick);
		json_knum(&j, "clip_time", info.clip_time);
		json_kuint(&j, "flags", info.flags);
		json_key(&j, "elements");
		json_arr(&j);
		for (uint32_t e = 0; e < info.element_count; e++) {
			if (points)
				play_attachment_json(&j, buf, e);
			else
				json_floats(&j, buf + (size_t)e * info.floats_per_element,
					    info.floats_per_element);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("pose %" PRIu64 " (tick %" PRIu64 ") clip time %.3f%s%s: %u %s\n",
		       info.seq, info.tick, info.clip_time,
		       info.flags & ANIMC_POSE_PAUSED ? " paused" : "",
		       info.flags & ANIMC_POSE_ENDED ? " ended" : "", info.element_count,
		       print_noun(info.element_count, "element", "elements"));
		for (uint32_t e = 0; e < info.element_count; e++) {
			const float *v = buf + (size_t)e * info.floats_per_element;

			if (points) {
				play_attachment_text(buf, e);
				continue;
			}
			printf("  %3u", e);
			for (uint32_t k = 0; k < info.floats_per_element; k++)
				printf(" %9.3f", v[k]);
			printf("\n");
		}
		fflush(stdout);
	}
	free(buf);
}

/* `state`: this connection's instances list, showing ours. */
static int play_state(struct play *p)
{
	animc_instance_list *l;
	int rc = animc_instances_list(p->ctl->c, &l);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < l->count; i++)
		if (l->instances[i].id == p->id)
			print_instance(p->ctl, &l->instances[i]);
	animc_free(l);
	return 0;
}

/* `play ASSET [CLIP] [FADE]` typed on the input: a cross-fade. */
static int play_switch(struct play *p, int argc, char **argv, animc_instance **st)
{
	animc_fade_opts o = ANIMC_FADE_OPTS_INIT;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "animctl play: usage: play ASSET|- [CLIP] [FADE]\n");
		return 1;
	}
	o.asset = strcmp(argv[1], "-") == 0 ? NULL : argv[1];
	o.clip = argc > 2 && !ctl_is_number(argv[2], &o.fade) ? argv[2] : NULL;
	o.fade = p->fade;
	if (argc > 2 + (o.clip != NULL) &&
	    ctl_number("play", "FADE", argv[2 + (o.clip != NULL)], &o.fade) < 0)
		return 1;
	o.sync = p->sync;
	return animc_fade(p->ctl->c, p->id, &o, st);
}

/* One line from stdin.  Returns false when play should end. */
static bool play_command(struct play *p, char *line)
{
	char *words[32];
	int nw = 0;
	char *cmd, *arg;
	animc_instance *st = NULL;
	double v = 0;
	int rc;

	for (char *w = strtok(line, " \t\r"); w != NULL && nw < 32; w = strtok(NULL, " \t\r"))
		words[nw++] = w;
	cmd = nw > 0 ? words[0] : NULL;
	arg = nw > 1 ? words[1] : NULL;
	if (cmd == NULL || cmd[0] == '#')
		return true;
	if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0)
		return false;
	if (strcmp(cmd, "pose") == 0) {
		play_pose(p);
		return true;
	}
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "?") == 0) {
		/* On stderr with --json, so that stdout stays one document a line. */
		fputs(play_commands, p->ctl->json ? stderr : stdout);
		fflush(p->ctl->json ? stderr : stdout);
		return true;
	}
	if (strcmp(cmd, "seek") == 0 || strcmp(cmd, "speed") == 0) {
		if (arg == NULL) {
			fprintf(stderr, "animctl play: usage: %s NUMBER\n", cmd);
			return true;
		}
		if (ctl_number("play", cmd, arg, &v) < 0)
			return true;
	}
	if (strcmp(cmd, "pause") == 0)
		rc = animc_pause(p->ctl->c, p->id, &st);
	else if (strcmp(cmd, "resume") == 0)
		rc = animc_resume(p->ctl->c, p->id, &st);
	else if (strcmp(cmd, "seek") == 0)
		rc = animc_seek(p->ctl->c, p->id, v, &st);
	else if (strcmp(cmd, "speed") == 0)
		rc = animc_speed(p->ctl->c, p->id, v, &st);
	else if (strcmp(cmd, "stop") == 0)
		rc = animc_stop(p->ctl->c, p->id, &st);
	else if (strcmp(cmd, "state") == 0)
		rc = play_state(p);
	else if (strcmp(cmd, "play") == 0) {
		if ((rc = play_switch(p, nw, words, &st)) > 0)
			return true;
	} else if (strcmp(cmd, "layer") == 0) {
		int exit_now;

		if (arg == NULL) {
			fprintf(stderr, "animctl play: usage: layer add|set|remove ...\n");
			return true;
		}
		/* "layer" then the verb's arguments. */
		words[1] = words[0];
		rc = ctl_layer(p->ctl, p->id, arg, nw - 1, words + 1, true, &st, &exit_now);
		if (exit_now >= 0)
			return true;
	} else {
		fprintf(stderr, "animctl play: unknown command %s (pause, resume, seek T, "
			"speed S, play ASSET, layer ..., state, pose, stop, quit; help lists them)\n",
			escape_quoted(cmd));
		return true;
	}
	if (st != NULL)
		print_instance(p->ctl, st);
	animc_free(st);
	if (rc < 0 && ctl_fail(p->ctl, cmd, rc) == EXIT_CONNECT) {
		p->status = EXIT_CONNECT;
		return false;
	}
	/* After a successful stop there is nothing left to steer. */
	return strcmp(cmd, "stop") != 0 || rc < 0;
}

static int play_loop(struct play *p, bool read_input)
{
	struct ctl *ctl = p->ctl;
	char line[1024];
	size_t len = 0;

	while (!p->done) {
		bool input, stop;
		int rc = ctl_turn(ctl, read_input ? STDIN_FILENO : -1, &input, &stop);

		if (rc != 0)
			return rc;
		if (stop)
			break;
		if (input) {
			ssize_t n = read(STDIN_FILENO, line + len, sizeof line - 1 - len);
			char *nl;

			if (n <= 0) {
				read_input = false;     /* end of input: keep playing */
				continue;
			}
			len += (size_t)n;
			while ((nl = memchr(line, '\n', len)) != NULL || len == sizeof line - 1) {
				size_t take = nl ? (size_t)(nl - line) + 1 : len;

				line[take - 1 + (nl == NULL)] = '\0';
				if (!play_command(p, line))
					return p->status;
				memmove(line, line + take, len - take);
				len -= take;
			}
		}
	}
	return p->status;
}

int cmd_play(struct ctl *ctl, int argc, char **argv)
{
	const char *pos[1], *stream = NULL, *space = NULL, *until_end = NULL, *reconnect = NULL,
		   *no_input = NULL, *fade = NULL, *sync = NULL;
	struct ctl_play_args a = { 0 };
	const struct ctl_opt opts[] = {
		CTL_PLAY_OPTS(a), { "stream", false, &stream }, { "space", true, &space },
		{ "until-end", false, &until_end }, { "reconnect", false, &reconnect },
		{ "no-input", false, &no_input }, { "fade", true, &fade }, { "sync", false, &sync },
		{ NULL, false, NULL },
	};
	animc_play_opts o = ANIMC_PLAY_OPTS_INIT;
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;
	struct play p = { .ctl = ctl, .fade = ANIMC_FADE_DEFAULT };
	animc_instance *st;
	int n = ctl_args(ctl, argc, argv, opts, pos, 1, 1, play_help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	o.asset = pos[0];
	if ((rc = ctl_play_args_apply("play", &a, &o)) != 0)
		return rc;
	if ((space != NULL || a.rate != NULL) && stream == NULL)
		return ctl_usage_error("play", "--space and --rate go with --stream");
	if (space != NULL) {
		if (animc_space_lookup(space) <= 0)
			return ctl_usage_error("play", "unknown space \"%s\"", space);
		so.space = (animc_space)animc_space_lookup(space);
	}
	if ((rc = ctl_rate_apply("play", a.rate, &so)) != 0)
		return rc;
	p.until_end = until_end != NULL;
	p.sync = sync != NULL;
	if (fade != NULL) {
		if (ctl_number("play", "--fade", fade, &p.fade) < 0)
			return EXIT_USAGE;
		if (p.fade < 0)
			return ctl_usage_error("play", "--fade is seconds, at least 0");
	}
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	animc_client_on_event(ctl->c, play_on_event, &p);
	if (reconnect != NULL) {
		animc_reconnect_opts ro = { .enabled = 1, .on_reconnect = play_on_reconnect,
					    .user = &p };

		animc_client_set_reconnect(ctl->c, &ro);
	}
	rc = animc_subscribe(ctl->c, ANIMC_EVENTS_ALL, NULL);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (stream != NULL) {
		animc_stream_info si;

		rc = animc_stream_open(ctl->c, &so, &p.stream);
		if (rc < 0)
			return ctl_fail(ctl, NULL, rc);
		o.stream = p.stream;
		animc_stream_info_get(p.stream, &si);
		if (ctl->json) {
			struct json j;

			json_begin(&j, stdout);
			json_obj(&j);
			json_kstr(&j, "type", "stream");
			json_kuint(&j, "stream", si.id);
			json_kstr(&j, "space", animc_space_name(si.space));
			json_kuint(&j, "rate", si.rate_hz);
			json_kuint(&j, "channels", si.channels);
			json_kuint(&j, "depth", si.depth);
			json_kuint(&j, "max_elements", si.max_elements);
			json_kuint(&j, "epoch", si.epoch);
			json_obj_end(&j);
			json_end(&j);
		} else {
			printf("stream %" PRIu64 ": %s, %u Hz, %u %s of %u %s, %u %s\n", si.id,
			       animc_space_name(si.space), si.rate_hz, si.channels,
			       print_noun(si.channels, "channel", "channels"), si.depth,
			       print_noun(si.depth, "pose", "poses"), si.max_elements,
			       print_noun(si.max_elements, "element", "elements"));
		}
	}
	rc = animc_play(ctl->c, &o, &st);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	p.id = st->id;
	print_instance(ctl, st);
	animc_free(st);
	return play_loop(&p, no_input == NULL);
}

/* ---- pause, resume, seek, speed, stop ---------------------------------- */

int cmd_control(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl pause INSTANCE | resume INSTANCE | stop INSTANCE  [--any]\n"
		"       animctl seek INSTANCE SECONDS | speed INSTANCE FACTOR\n"
		"Steer an instance and print its new state.  Only the connection that\n"
		"started an instance may steer it, and every animctl is a new connection:\n"
		"for instances started elsewhere the daemon answers not_found (exit 1).\n"
		"To steer an instance from a shell, start it with `animctl play` and type\n"
		"(or pipe) these commands into its input.\n"
		"\n"
		"--any (pause, resume, stop): an operator's reach into another connection's\n"
		"instance, by the id `animctl instances --all` shows: root, the user animd\n"
		"runs as and the owner's own user may (the daemon's [control] operators);\n"
		"its owner is told of a stop (instance.stopped, reason operator).\n";
	const char *cmd = argv[0], *pos[2], *any = NULL;
	const struct ctl_opt opts[] = {
		{ "any", false, &any },
		{ NULL, false, NULL },
	};
	bool valued = strcmp(cmd, "seek") == 0 || strcmp(cmd, "speed") == 0;
	int n = ctl_args(ctl, argc, argv, opts, pos, valued ? 2 : 1, valued ? 2 : 1, help), rc;
	animc_instance *st = NULL;
	uint64_t id;
	double v = 0;

	if (n < 0)
		return ctl_args_exit(n);
	if (any != NULL && valued)
		return ctl_usage_error(cmd, "--any goes with pause, resume and stop");
	if (ctl_uint(cmd, "INSTANCE", pos[0], &id) < 0 ||
	    (valued && ctl_number(cmd, cmd[1] == 'e' ? "SECONDS" : "FACTOR", pos[1], &v) < 0))
		return EXIT_USAGE;
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	if (strcmp(cmd, "pause") == 0)
		rc = any ? animc_pause_any(ctl->c, id, &st) : animc_pause(ctl->c, id, &st);
	else if (strcmp(cmd, "resume") == 0)
		rc = any ? animc_resume_any(ctl->c, id, &st) : animc_resume(ctl->c, id, &st);
	else if (strcmp(cmd, "seek") == 0)
		rc = animc_seek(ctl->c, id, v, &st);
	else if (strcmp(cmd, "speed") == 0)
		rc = animc_speed(ctl->c, id, v, &st);
	else
		rc = any ? animc_stop_any(ctl->c, id, &st) : animc_stop(ctl->c, id, &st);
	if (rc < 0) {
		animc_error_code code = animc_client_error(ctl->c, NULL, NULL);
		int ex = ctl_fail(ctl, NULL, rc);

		if (code == ANIMC_ERR_NOT_FOUND && !ctl->json && any == NULL)
			fprintf(stderr, "animctl %s: hint: instances belong to the connection that "
				"started them; steer this one from the `animctl play` that started "
				"it (type `%s` on its input)%s\n", cmd, cmd,
				valued ? "" : ", or as an operator with --any");
		return ex;
	}
	print_instance(ctl, st);
	animc_free(st);
	return EXIT_OK;
}
