/*
 * animd - entry point: picks the subcommand.
 *
 * `serve` (the default) runs the daemon.  The offline subcommands (check, inspect, sample) load files with the
 * same code the daemon uses, so a user can test assets before serving them.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/offline/offline.h"
#include "daemon/service/daemon.h"
#include "daemon/version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "serve", daemon_main, "run the daemon (the default command)" },
	{ "check", offline_check, "validate asset files or trees; exit 1 on any failure" },
	{ "inspect", offline_inspect, "show what an asset file holds (--json for tools)" },
	{ "sample", offline_sample, "evaluate one pose of a file at a time (--json for tools)" },
};

static void main_usage(FILE *f)
{
	fprintf(f, "usage: animd COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`animd COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
	/* `animd` and `animd -c FILE ...` mean `animd serve ...`. */
	if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") != 0 &&
			 strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--version") != 0))
		return daemon_main(argc, argv);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		main_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("animd %s\n", ANIMD_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "animd: unknown command \"%s\"\n", argv[1]);
	main_usage(stderr);
	return 2;
}
