/* monitor: every request the daemon handles from other connections, as
 * Redis's MONITOR shows them. */
#include "client/animctl/animctl.h"

#include <time.h>

struct monitor {
	struct ctl *ctl;
	uint64_t left;                  /* lines still to print; 0: no limit */
	bool limited;
	bool done;
	bool stopping;                  /* the daemon said server.stopping */
};

static void monitor_on_event(animc_client *c, const animc_event *ev, void *user)
{
	struct monitor *m = user;
	time_t sec = (time_t)ev->time;
	struct tm tm;
	char when[32] = "?";

	(void)c;
	if (ev->type == ANIMC_EVENT_SERVER_STOPPING)
		m->stopping = m->done = true;
	if (m->done || ev->type != ANIMC_EVENT_MONITOR_REQUEST)
		return;
	if (m->ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_knum(&j, "time", ev->time);
		json_kuint(&j, "connection", ev->connection);
		json_kint(&j, "pid", ev->pid);
		json_kstr(&j, "method", ev->method);
		json_kuint(&j, "msgid", ev->msgid);
		json_kstr(&j, "params", ev->params);
		json_obj_end(&j);
		json_end(&j);
	} else {
		/* The daemon escaped what came from the client; the method is
		 * one of its own names. */
		if (localtime_r(&sec, &tm) != NULL)
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		printf("%s.%03d [%llu pid %lld] %s %s\n", when,
		       (int)((ev->time - (double)sec) * 1000) % 1000,
		       (unsigned long long)ev->connection, (long long)ev->pid,
		       ev->method ? ev->method : "?", ev->params ? ev->params : "");
		fflush(stdout);
	}
	if (m->limited && --m->left == 0)
		m->done = true;
}

int cmd_monitor(struct ctl *ctl, int argc, char **argv)
{
	static const char help[] =
		"usage: animctl monitor [--count N] [--json]\n"
		"Print every request the daemon handles from other connections, as they\n"
		"arrive, until Ctrl-C (or after N): the time, the connection and its pid,\n"
		"the method and its arguments summarised (`{asset: \"walker.md5anim\"}`,\n"
		"client strings escaped by the daemon).  With --json one object per line:\n"
		"time, connection, pid, method, msgid, params.  Costs the daemon nothing\n"
		"while no monitor is attached.\n";
	const char *count = NULL;
	const struct ctl_opt opts[] = { { "count", true, &count }, { NULL, false, NULL } };
	struct monitor m = { .ctl = ctl };
	int n = ctl_args(ctl, argc, argv, opts, NULL, 0, 0, help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if (count != NULL) {
		if (ctl_uint("monitor", "--count", count, &m.left) < 0)
			return EXIT_USAGE;
		if (m.left == 0)
			return ctl_usage_error("monitor", "--count needs a count of at least 1");
		m.limited = true;
	}
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	animc_client_on_event(ctl->c, monitor_on_event, &m);
	rc = animc_monitor(ctl->c);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	/* Said once it is in force, on stderr: a script reading stdout may
	 * start the clients it watches when it sees it. */
	fprintf(stderr, "monitoring %s\n", animc_client_path(ctl->c));
	return ctl_turn_until(ctl, &m.done);
}
