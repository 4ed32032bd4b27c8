/*
 * events: subscribe and print each event as it comes; or, given an asset,
 * play its clip on an instance of its own and print each moment of the
 * clip's events playback passes (clip.event).
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

struct events {
	struct ctl *ctl;
	uint64_t left;                  /* events still to print; 0: no limit */
	bool limited;
	bool done;
	uint64_t instance;              /* with an asset: the instance played, else 0 */
	bool stopped;                   /* the daemon stopped it */
};

static void events_on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct events *e = user;

	(void)c;
	if (e->done)
		return;
	/* Playing a clip: its crossings, and the end if the daemon stops it. */
	if (e->instance != 0 && ev->instance != e->instance)
		return;
	print_event(e->ctl, ev);
	if (e->instance != 0 && ev->type == ANIMC_EVENT_INSTANCE_STOPPED) {
		e->stopped = e->done = true;
		return;
	}
	if (e->limited && --e->left == 0)
		e->done = true;
}

/* "asset.loaded,instance.ended" or "all" -> a mask; 0 on error. */
static unsigned events_mask(const char *list)
{
	unsigned mask = 0;
	char *copy = strdup(list), *save = NULL;

	if (copy == NULL)
		return 0;
	for (char *t = strtok_r(copy, ", ", &save); t != NULL; t = strtok_r(NULL, ", ", &save)) {
		animc_event_type type = animc_event_lookup(t);

		if (strcmp(t, "all") == 0) {
			mask |= ANIMC_EVENTS_ALL;
		} else if (strcmp(t, "assets") == 0) {
			mask |= ANIMC_EVENTS_ASSETS;
		} else if (strcmp(t, "instances") == 0) {
			mask |= ANIMC_EVENTS_INSTANCES | ANIMC_EVENTS_LAYERS;
		} else if (type == ANIMC_EVENT_UNKNOWN || type == ANIMC_EVENT_SERVER_STOPPING ||
			   type == ANIMC_EVENT_MONITOR_REQUEST) {
			fprintf(stderr, "animctl events: unknown event %s\n", escape_quoted(t));
			free(copy);
			return 0;
		} else {
			mask |= ANIMC_EVENT_BIT(type);
		}
	}
	free(copy);
	return mask;
}

/* ASSET[#CLIP]: the clip after the last '#', if any (lantern.m2#0,
 * lantern.m2#id=4). */
static int events_play(struct ctl *ctl, struct events *e, const char *target, const char *speed,
		       const char *loop)
{
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	const char *hash = strrchr(target, '#');
	animc_instance *in = NULL;
	char *asset = strdup(target);
	int rc;

	if (asset == NULL)
		return ctl_fail(ctl, NULL, -ENOMEM);
	if (hash != NULL) {
		asset[hash - target] = '\0';
		po.clip = hash + 1;
	}
	po.asset = asset;
	if (speed != NULL && ctl_number("events", "--speed", speed, &po.speed) < 0) {
		free(asset);
		return EXIT_USAGE;
	}
	if (loop != NULL) {
		if (animc_loop_lookup(loop) <= 0) {
			free(asset);
			return ctl_usage_error("events", "--loop is loop, once or pingpong");
		}
		po.loop = (animc_loop)animc_loop_lookup(loop);
	}
	if ((rc = ctl_connect(ctl)) != 0) {
		free(asset);
		return rc;
	}
	animc_client_on_event(ctl->c, events_on_event, e);
	rc = animc_subscribe(ctl->c, ANIMC_EVENTS_CLIP |
			     ANIMC_EVENT_BIT(ANIMC_EVENT_INSTANCE_STOPPED), NULL);
	if (rc == 0)
		rc = animc_play(ctl->c, &po, &in);
	free(asset);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	e->instance = in->id;
	animc_free(in);
	return 0;
}

int cmd_events(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl events [--events LIST] [--count N] [--seconds N] [--reconnect] [--json]\n"
		"       animctl events ASSET[#CLIP] [--speed S] [--loop MODE] [--count N]\n"
		"                      [--seconds N] [--json]\n"
		"Subscribe to the daemon's events and print one line per event until\n"
		"Ctrl-C (or after N events, or N seconds): `type key=value ...`, or with --json\n"
		"one object per line with the event's fields.  LIST is a comma-separated list of\n"
		"asset.loaded, asset.reloaded, asset.error, asset.removed, instance.ended,\n"
		"instance.stopped, instance.faded, layer.ended, clip.event, or `assets`,\n"
		"`instances`, `all` (the default).  Only this\n"
		"connection's instances send instance events, so a standalone `events` sees\n"
		"asset events (and server.stopping, sent to everyone before a clean stop).\n"
		"--reconnect keeps listening across daemon restarts.\n"
		"\n"
		"With ASSET, play CLIP of it (after the last '#': lantern.m2#0, or #id=A.V for\n"
		"an M2 animation; default its first) on an instance of its own, at speed S\n"
		"(default 1; negative plays backwards) in loop mode MODE (loop, once or\n"
		"pingpong; default the clip's), and print one line per moment of its events\n"
		"playback passes (clip.event: instance, event, id, data, bone, time (the\n"
		"moment's clip time) and playback_time; --json adds joint, position, at_ns),\n"
		"until N seconds have passed, N lines are printed, or Ctrl-C.\n";
	const char *list = NULL, *count = NULL, *reconnect = NULL, *speed = NULL, *loop = NULL;
	const char *seconds = NULL, *target = NULL;
	const struct ctl_opt opts[] = {
		{ "events", true, &list }, { "count", true, &count },
		{ "reconnect", false, &reconnect }, { "speed", true, &speed },
		{ "loop", true, &loop }, { "seconds", true, &seconds }, { NULL, false, NULL },
	};
	struct events e = { .ctl = ctl };
	int n = ctl_args(ctl, argc, argv, opts, &target, 0, 1, help), rc;
	double limit = -1;
	unsigned mask;

	if (n < 0)
		return ctl_args_exit(n);
	if (count != NULL) {
		if (ctl_uint("events", "--count", count, &e.left) < 0)
			return EXIT_USAGE;
		if (e.left == 0)
			return ctl_usage_error("events", "--count must be at least 1");
		e.limited = true;
	}
	if (seconds != NULL) {
		if (ctl_number("events", "--seconds", seconds, &limit) < 0)
			return EXIT_USAGE;
		if (limit < 0)
			return ctl_usage_error("events", "--seconds must not be negative");
	}
	if (n == 1) {
		if (list != NULL)
			return ctl_usage_error("events", "--events is not for a clip's events: "
					       "ASSET prints clip.event");
		if ((rc = events_play(ctl, &e, target, speed, loop)) != 0)
			return rc;
		if (reconnect != NULL) {
			animc_reconnect_opts ro = { .enabled = 1 };

			animc_client_set_reconnect(ctl->c, &ro);
		}
		rc = ctl_turn_until_for(ctl, &e.done, limit);
		return rc == EXIT_OK && e.stopped ? EXIT_SERVER : rc;
	}
	if (speed != NULL || loop != NULL)
		return ctl_usage_error("events", "--speed and --loop play a clip: give ASSET");
	mask = events_mask(list != NULL ? list : "all");
	if (mask == 0)
		return ctl_usage_error("events", "bad --events list");
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	if (reconnect != NULL) {
		animc_reconnect_opts ro = { .enabled = 1 };

		animc_client_set_reconnect(ctl->c, &ro);
	}
	animc_client_on_event(ctl->c, events_on_event, &e);
	rc = animc_subscribe(ctl->c, mask, NULL);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	return ctl_turn_until_for(ctl, &e.done, limit);
}
