/*
 * clients: every connection of the daemon, as a table like top's (or
 * JSON), and `clients kill ID` to close one: what an operator needs to
 * find and end a runaway client.  Its instances are listed by
 * `animctl instances --all` and stopped one by one by `animctl stop --any`.
 */
#include "client/animctl/animctl.h"

#include <inttypes.h>
#include <string.h>

static const char clients_help[] =
	"usage: animctl clients [--json]\n"
	"       animctl clients kill CONNECTION [--reason TEXT] [--json]\n"
	"Every connection of the daemon, this one included: its id, the name its\n"
	"program gave (hello's name), the peer's pid, uid and gid, how long it has\n"
	"been connected, requests it sent, the instances and streams it owns, the\n"
	"event types it subscribed to, output queued for it and what the daemon\n"
	"holds for it.  Any connection may look.\n"
	"\n"
	"`clients kill` closes connection CONNECTION: its instances stop and its\n"
	"streams close, it is told who did it and why (--reason), and the daemon\n"
	"logs it.  Only root, the user animd runs as and the connection's own user\n"
	"may (the daemon's [control] operators setting; others get\n"
	"permission_denied).  `animctl instances --all` lists every connection's\n"
	"instances, and `animctl stop --any INSTANCE` stops one of them alone.\n";

static void clients_json(const animc_client_list *l)
{
	struct json j;

	json_begin(&j, stdout);
	json_obj(&j);
	json_key(&j, "clients");
	json_arr(&j);
	for (size_t i = 0; i < l->count; i++) {
		const animc_client_info *c = l->clients[i];

		json_obj(&j);
		json_kuint(&j, "connection", c->connection);
		json_kstr(&j, "name", c->name);
		json_kint(&j, "pid", c->pid);
		json_kuint(&j, "uid", c->uid);
		json_kuint(&j, "gid", c->gid);
		json_knum(&j, "since", c->since);
		json_knum(&j, "age", c->age);
		json_kuint(&j, "requests", c->requests);
		json_kuint(&j, "instances", c->instances);
		json_kuint(&j, "streams", c->streams);
		json_kuint(&j, "events", c->events);
		json_kbool(&j, "monitor", c->monitor);
		json_kuint(&j, "queued_bytes", c->queued_bytes);
		json_kuint(&j, "memory_bytes", c->memory_bytes);
		json_kbool(&j, "self", c->self);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* s into buf, cut on a character boundary (s is escaped: valid UTF-8). */
static void clients_cut(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s), used = 0;

	while (used < len) {
		uint32_t cp;
		size_t n = escape_utf8((const unsigned char *)s + used, len - used, &cp);

		if (n == 0)
			n = 1;
		if (used + n >= size)
			break;
		used += n;
	}
	memcpy(buf, s, used);
	buf[used] = '\0';
}

/* The table, top's way: numbers right-aligned, names as the log escapes
 * them (a name is the peer's to choose), cut to 16 columns. */
static void clients_text(const animc_client_list *l)
{
	printf("%-6s %-16s %7s %6s %6s %9s %8s %5s %5s %5s %8s %8s\n", "CONN", "NAME", "PID", "UID",
	       "GID", "AGE", "REQS", "INST", "STRM", "EVTS", "QUEUED", "MEMORY");
	for (size_t i = 0; i < l->count; i++) {
		const animc_client_info *c = l->clients[i];
		char age[32], name[17];

		print_duration(age, sizeof age, c->age);
		clients_cut(name, sizeof name, c->name != NULL ? escape_text(c->name) : "-");
		printf("%-6" PRIu64 " %-16s %7" PRId64 " %6" PRIu64 " %6" PRIu64 " %9s %8" PRIu64
		       " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %8" PRIu64 " %8" PRIu64 "%s%s\n",
		       c->connection, name, c->pid, c->uid, c->gid, age, c->requests, c->instances,
		       c->streams, c->events, c->queued_bytes, c->memory_bytes,
		       c->monitor ? "  (monitor)" : "", c->self ? "  (this)" : "");
	}
}

static int clients_kill(struct ctl *ctl, const char *id_text, const char *reason)
{
	animc_kill_info *k = NULL;
	uint64_t id;
	int rc;

	if (ctl_uint("clients kill", "CONNECTION", id_text, &id) < 0)
		return EXIT_USAGE;
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_clients_kill(ctl->c, id, reason, &k);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kuint(&j, "connection", k->connection);
		json_kstr(&j, "name", k->name);
		json_kint(&j, "pid", k->pid);
		json_kuint(&j, "instances", k->instances);
		json_kuint(&j, "streams", k->streams);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("closed connection %" PRIu64 "%s%s (pid %" PRId64 "): %" PRIu64
		       " instance%s stopped, %" PRIu64 " stream%s closed\n",
		       k->connection, k->name ? " " : "", k->name ? escape_quoted(k->name) : "",
		       k->pid, k->instances, k->instances == 1 ? "" : "s", k->streams,
		       k->streams == 1 ? "" : "s");
	}
	animc_free(k);
	return EXIT_OK;
}

int cmd_clients(struct ctl *ctl, int argc, char **argv)
{
	const char *pos[2], *reason = NULL;
	const struct ctl_opt opts[] = {
		{ "reason", true, &reason },
		{ NULL, false, NULL },
	};
	animc_client_list *l;
	int n = ctl_args(ctl, argc, argv, opts, pos, 0, 2, clients_help), rc;

	if (n < 0)
		return ctl_args_exit(n);
	if (n >= 1 && strcmp(pos[0], "kill") == 0) {
		if (n != 2)
			return ctl_usage_error("clients", "kill takes one CONNECTION (animctl clients "
					       "lists them)");
		return clients_kill(ctl, pos[1], reason);
	}
	if (n >= 1)
		return ctl_usage_error("clients", "unknown verb %s (clients, or clients kill ID)",
				       escape_quoted(pos[0]));
	if (reason != NULL)
		return ctl_usage_error("clients", "--reason goes with kill");
	if ((rc = ctl_connect(ctl)) != 0)
		return rc;
	rc = animc_clients_list(ctl->c, &l);
	if (rc < 0)
		return ctl_fail(ctl, NULL, rc);
	if (ctl->json)
		clients_json(l);
	else
		clients_text(l);
	animc_free(l);
	return EXIT_OK;
}
