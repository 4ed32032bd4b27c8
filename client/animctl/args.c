/* args.c - command-line parsing shared by every animctl command. */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ctl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "animctl%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see animctl %s%s--help)\n", cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

/* A global option: 1 when it was one (and *i moved past its value), 0
 * when not, -1 on error. */
static int ctl_global(struct ctl *ctl, const char *cmd, const char *name, const char *value,
		      int argc, char **argv, int *i)
{
	double t;

	if (strcmp(name, "json") == 0 && value == NULL) {
		ctl->json = true;
		return 1;
	}
	if (strcmp(name, "socket") != 0 && strcmp(name, "timeout") != 0)
		return 0;
	if (value == NULL) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "animctl%s%s: --%s needs a value\n", cmd ? " " : "",
				cmd ? cmd : "", name);
			return -1;
		}
		value = argv[++*i];
	}
	if (name[0] == 's') {
		ctl->socket = value;
		return 1;
	}
	if (!ctl_is_number(value, &t) || t < 0 || t > 86400000) {
		fprintf(stderr, "animctl%s%s: --timeout is 0..86400000 ms, not %s\n", cmd ? " " : "",
			cmd ? cmd : "", escape_quoted(value));
		return -1;
	}
	ctl->timeout_ms = t == 0 ? -1 : (int)t;
	return 1;
}

int ctl_parse(struct ctl *ctl, int argc, char **argv, const struct ctl_opt *opts,
	      const char **pos, int max_pos)
{
	int npos = 0;
	bool only_pos = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *value = NULL, *eq;
		char name[64];
		int rc;

		if (only_pos || a[0] != '-' || a[1] == '\0' ||
		    (a[1] != '-' && (a[1] == '.' || (a[1] >= '0' && a[1] <= '9')))) {
			/* A positional argument (negative numbers included). */
			if (npos == max_pos) {
				fprintf(stderr, "animctl %s: unexpected argument %s\n", argv[0],
					escape_quoted(a));
				return -1;
			}
			pos[npos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return -2;
		if (a[1] != '-') {
			/* "-n 5": a command's option of one letter, written with
			 * one dash as well as two. */
			bool letter = false;

			for (rc = 0; a[2] == '\0' && opts != NULL && opts[rc].name != NULL; rc++)
				letter |= opts[rc].name[0] == a[1] && opts[rc].name[1] == '\0';
			if (!letter) {
				fprintf(stderr, "animctl %s: unknown option %s\n", argv[0], escape_quoted(a));
				return -1;
			}
			a += 1;
		} else {
			a += 2;
		}
		eq = strchr(a, '=');
		snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		if (eq != NULL)
			value = eq + 1;
		rc = ctl_global(ctl, strcmp(argv[0], "animctl") == 0 ? NULL : argv[0], name, value,
				argc, argv, &i);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue;
		for (rc = 0; opts != NULL && opts[rc].name != NULL; rc++)
			if (strcmp(opts[rc].name, name) == 0)
				break;
		if (opts == NULL || opts[rc].name == NULL) {
			fprintf(stderr, "animctl %s: unknown option %s\n", argv[0],
				escape_quoted(argv[i]));
			return -1;
		}
		if (!opts[rc].has_arg) {
			if (value != NULL) {
				fprintf(stderr, "animctl %s: --%s takes no value\n", argv[0], name);
				return -1;
			}
			*opts[rc].value = "";
			continue;
		}
		if (value == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, "animctl %s: --%s needs a value\n", argv[0], name);
				return -1;
			}
			value = argv[++i];
		}
		*opts[rc].value = value;
	}
	return npos;
}

bool ctl_is_number(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
		return false;
	*out = v;
	return true;
}

int ctl_number(const char *cmd, const char *what, const char *s, double *out)
{
	if (ctl_is_number(s, out))
		return 0;
	fprintf(stderr, "animctl%s%s: %s must be a number, not %s\n", cmd ? " " : "",
		cmd ? cmd : "", what, escape_quoted(s));
	return -1;
}

int ctl_uint(const char *cmd, const char *what, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0) {
		fprintf(stderr, "animctl%s%s: %s must be a whole number, not %s\n", cmd ? " " : "",
			cmd ? cmd : "", what, escape_quoted(s));
		return -1;
	}
	*out = v;
	return 0;
}

int ctl_args(struct ctl *ctl, int argc, char **argv, const struct ctl_opt *opts,
	     const char **pos, int min_pos, int max_pos, const char *help)
{
	int n = ctl_parse(ctl, argc, argv, opts, pos, max_pos);

	if (n == -2) {
		fputs(help, stdout);
		return -2;
	}
	if (n < 0) {
		fprintf(stderr, "(see animctl %s --help)\n", argv[0]);
		return -1;
	}
	if (n < min_pos) {
		ctl_usage_error(argv[0], "missing argument");
		return -1;
	}
	return n;
}

int ctl_args_exit(int n)
{
	return n == -2 ? EXIT_OK : EXIT_USAGE;
}
