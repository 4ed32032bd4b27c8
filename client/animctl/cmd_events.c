/* events: subscribe and print each event as it comes. */
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
};

static void events_on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct events *e = user;

	(void)c;
	if (e->done)
		return;
	print_event(e->ctl, ev);
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

int cmd_events(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl events [--events LIST] [--count N] [--reconnect] [--json]\n"
		"Subscribe to the daemon's events and print one line per event until\n"
		"Ctrl-C (or after N events): `type key=value ...`, or with --json one\n"
		"object per line with the event's fields.  LIST is a comma-separated list of\n"
		"asset.loaded, asset.reloaded, asset.error, asset.removed, instance.ended,\n"
		"instance.stopped, instance.faded, layer.ended, or `assets`, `instances`,\n"
		"`all` (the default).  Only this\n"
		"connection's instances send instance events, so a standalone `events` sees\n"
		"asset events (and server.stopping, sent to everyone before a clean stop).\n"
		"--reconnect keeps listening across daemon restarts.\n";
	const char *list = "all", *count = NULL, *reconnect = NULL;
	const struct ctl_opt opts[] = {
		{ "events", true, &list }, { "count", true, &count },
		{ "reconnect", false, &reconnect }, { NULL, false, NULL },
	};
	struct events e = { .ctl = ctl };
	int n = ctl_args(ctl, argc, argv, opts, NULL, 0, 0, help), rc;
	unsigned mask;

	if (n < 0)
		return ctl_args_exit(n);
	mask = events_mask(list);
	if (mask == 0)
		return ctl_usage_error("events", "bad --events list");
	if (count != NULL) {
		if (ctl_uint("events", "--count", count, &e.left) < 0)
			return EXIT_USAGE;
		if (e.left == 0)
			return ctl_usage_error("events", "--count must be at least 1");
		e.limited = true;
	}
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
	return ctl_turn_until(ctl, &e.done);
}
