/*
 * animctl - command-line control of animd, built on libanimclient alone.
 *
 *   animctl [--socket PATH] [--json] [--timeout MS] COMMAND [ARGS] [--help]
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <string.h>

static const char usage[] =
	"usage: animctl [--socket PATH] [--json] [--timeout MS] COMMAND [ARGS...]\n"
	"\n"
	"Control the animation daemon animd over its socket (PATH, else $ANIMD_SOCKET,\n"
	"else " ANIMC_SOCKET_DEFAULT ").\n"
	"\n"
	"commands:\n"
	"  status                     the daemon: version, uptime, assets, instances, memory\n"
	"  list                       every asset with its format, generation and state\n"
	"  info ASSET                 one asset: skeleton, clips, meshes, cameras\n"
	"  reload ASSET               re-read an asset's file now (assets.reload)\n"
	"  sample ASSET --time T      evaluate one pose (no instance)\n"
	"  play ASSET [options]       play an instance and steer it from stdin until\n"
	"                             Ctrl-C: pause, resume, seek T, speed S, stop, quit\n"
	"  watch ASSET [options]      play into a stream and show the live pose\n"
	"  events                     print the daemon's events as they happen\n"
	"  events ASSET[#CLIP]        play a clip and print each of its events (M2: a\n"
	"                             footstep, a sound) as playback passes it\n"
	"  top [-n N | --once]        a live view: connections, streams (tick rate,\n"
	"                             skipped ticks, cost per pose), requests/s, errors\n"
	"  monitor [--count N]        every request of other connections, as it comes\n"
	"  instances [--all]          this connection's instances (a new connection has\n"
	"                             none); --all: every connection's, with its owner\n"
	"  pause|resume|stop INSTANCE, seek INSTANCE T, speed INSTANCE S\n"
	"                             steer an instance; only its own connection may, so\n"
	"                             from another animctl these report not_found, but an\n"
	"                             operator may pause, resume or stop it with --any\n"
	"  clients                    every connection: name, pid, uid, age, what it owns\n"
	"  clients kill CONNECTION    close a connection (an operator's: root, animd's\n"
	"                             user, the connection's own user)\n"
	"  layer add|set|remove INSTANCE ...\n"
	"                             an instance's layers (the same: type them on play's\n"
	"                             input)\n"
	"\n"
	"Instances belong to the connection that started them and end with it: `play`\n"
	"and `watch` keep their connection open and run until stopped.\n"
	"\n"
	"global options (anywhere on the line):\n"
	"  --socket PATH   the daemon's socket\n"
	"  --json          machine-readable output: one JSON document per line\n"
	"  --timeout MS    per-call timeout (default 10000; 0 waits forever)\n"
	"  --help          this text, or a command's with `animctl COMMAND --help`\n"
	"  --version       animctl's version\n"
	"\n"
	"exit status: 0 ok, 1 the daemon answered with an error (its code and message\n"
	"are printed), 2 usage error, 3 cannot connect or connection lost, 4 another\n"
	"failure (timeout, terminal).\n";

struct command {
	const char *name;
	int (*run)(struct ctl *ctl, int argc, char **argv);
};

static const struct command commands[] = {
	{ "status", cmd_status },
	{ "list", cmd_list },
	{ "info", cmd_info },
	{ "reload", cmd_reload },
	{ "sample", cmd_sample },
	{ "play", cmd_play },
	{ "watch", cmd_watch },
	{ "events", cmd_events },
	{ "top", cmd_top },
	{ "monitor", cmd_monitor },
	{ "instances", cmd_instances },
	{ "pause", cmd_control },
	{ "resume", cmd_control },
	{ "seek", cmd_control },
	{ "speed", cmd_control },
	{ "stop", cmd_control },
	{ "layer", cmd_layer },
	{ "clients", cmd_clients },
};

/* The protocol's methods (proto/PROTOCOL.md section 9): the library's and
 * the daemon's messages begin with one of them and a colon. */
static const char *const ctl_methods[] = {
	"hello", "status", "assets.list", "assets.info", "assets.reload", "play", "pause",
	"resume", "seek", "speed", "stop", "instances.list", "sample", "subscribe",
	"stream.open", "stream.close", "stats", "monitor", "layer.add", "layer.set",
	"layer.remove", "clients.list", "clients.kill",
};

/* msg without a leading "METHOD: ". */
static const char *ctl_strip_method(const char *msg)
{
	for (size_t i = 0; i < sizeof ctl_methods / sizeof ctl_methods[0]; i++) {
		size_t n = strlen(ctl_methods[i]);

		if (strncmp(msg, ctl_methods[i], n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
			return msg + n + 2;
	}
	return msg;
}

int ctl_connect(struct ctl *ctl)
{
	const char *msg;
	int rc = animc_client_new(&ctl->c);

	/* What `animctl clients` and the daemon's log call every animctl. */
	if (rc == 0)
		rc = animc_client_set_name(ctl->c, "animctl");
	if (rc == 0)
		rc = animc_client_connect(ctl->c, ctl->socket, ctl->timeout_ms);
	if (rc == 0)
		return 0;
	animc_client_error(ctl->c, NULL, &msg);
	if (msg == NULL || msg[0] == '\0')
		msg = animc_strerror(rc);
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_key(&j, "error");
		json_obj(&j);
		json_kstr(&j, "code", "connect");
		json_kstr(&j, "message", msg);
		json_kstr(&j, "socket", animc_socket_path(ctl->socket));
		json_obj_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		fprintf(stderr, "animctl %s: %s\n", ctl->cmd, escape_text(ctl_strip_method(msg)));
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			fprintf(stderr, "animctl %s: is animd running?  (systemctl status animd; "
				"--socket PATH or $%s choose another socket)\n", ctl->cmd,
				ANIMC_SOCKET_ENV);
	}
	return rc == -EREMOTEIO ? EXIT_SERVER : EXIT_CONNECT;
}

int ctl_fail(struct ctl *ctl, const char *what, int rc)
{
	const char *name = "", *msg = "";
	int code;

	animc_client_error(ctl->c, &name, &msg);
	if (msg == NULL || msg[0] == '\0')
		msg = animc_strerror(rc);
	msg = ctl_strip_method(msg);
	code = rc == -EREMOTEIO ? EXIT_SERVER
	     : rc == -ECONNRESET || rc == -ENOTCONN ? EXIT_CONNECT
	     : EXIT_FAILURE_OTHER;
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_key(&j, "error");
		json_obj(&j);
		json_kstr(&j, "code", name && name[0] ? name : code == EXIT_CONNECT ? "connection"
							 : "local");
		json_kstr(&j, "message", msg);
		json_obj_end(&j);
		json_obj_end(&j);
		json_end(&j);
		return code;
	}
	fprintf(stderr, "animctl %s: %s%s", ctl->cmd, what ? what : "", what ? ": " : "");
	if (rc == -EREMOTEIO && name != NULL && name[0] != '\0')
		fprintf(stderr, "%s: ", escape_text(name));
	fprintf(stderr, "%s\n", escape_text(msg));
	return code;
}

int main(int argc, char **argv)
{
	struct ctl ctl = { .timeout_ms = ANIMC_DEFAULT_TIMEOUT_MS };
	const char *cmd = NULL;
	int i, rc;

	/* Global options before the command; the command's parser accepts
	 * them after it too. */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		if (strcmp(a, "--version") == 0) {
			printf("animctl %s (protocol %d)\n", animc_version(), ANIMC_PROTOCOL_VERSION);
			return EXIT_OK;
		}
		if (strcmp(a, "--json") == 0) {
			ctl.json = true;
		} else if (strncmp(a, "--socket", 8) == 0 || strncmp(a, "--timeout", 9) == 0) {
			/* Reuse the command parser on just this option. */
			char *one[3] = { "animctl", argv[i], i + 1 < argc ? argv[i + 1] : NULL };
			int n = strchr(a, '=') || i + 1 >= argc ? 2 : 3;

			/* It printed what was wrong. */
			if (ctl_parse(&ctl, n, one, NULL, NULL, 0) != 0) {
				fputs("(see animctl --help)\n", stderr);
				return EXIT_USAGE;
			}
			i += n - 2;
		} else {
			return ctl_usage_error(NULL, "unknown option %s", escape_quoted(a));
		}
	}
	if (i == argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[i];
	for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
		if (strcmp(commands[k].name, cmd) == 0) {
			ctl.cmd = commands[k].name;
			rc = commands[k].run(&ctl, argc - i, argv + i);
			animc_client_close(ctl.c);
			return rc;
		}
	}
	return ctl_usage_error(NULL, "unknown command %s", escape_quoted(cmd));
}
