/* soak_log.c - reading the daemon's log after a run. */
#include "tests/soak/soak_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const log_sanitizer_marks[] = {
	"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "LeakSanitizer", "runtime error",
	"SUMMARY: UndefinedBehaviorSanitizer",
};

static void log_keep(char *dst, size_t size, const char *line)
{
	if (dst[0] == '\0')
		snprintf(dst, size, "%.*s", (int)strcspn(line, "\n"), line);
}

int soak_log_scan(const char *path, struct soak_log *out)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	memset(out, 0, sizeof *out);
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof line, f) != NULL) {
		out->lines++;
		out->bytes += (long)strlen(line);
		if (strncmp(line, "<3>", 3) == 0) {
			out->errors++;
			log_keep(out->first_error, sizeof out->first_error, line);
		} else if (strncmp(line, "<4>", 3) == 0) {
			out->warnings++;
		}
		if (strcmp(line, "<6>stopped\n") == 0)
			out->stopped = 1;
		for (size_t i = 0; i < sizeof log_sanitizer_marks / sizeof log_sanitizer_marks[0]; i++)
			if (strstr(line, log_sanitizer_marks[i]) != NULL) {
				out->sanitizer++;
				log_keep(out->first_sanitizer, sizeof out->first_sanitizer, line);
				break;
			}
	}
	fclose(f);
	return 0;
}

void soak_log_tail(const char *path, int lines)
{
	FILE *f = fopen(path, "r");
	long end, pos;
	int seen = 0;
	char line[4096];

	if (f == NULL)
		return;
	/* Walk back from the end to the start of the last `lines` lines. */
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	for (pos = end - 1; pos > 0; pos--) {
		fseek(f, pos - 1, SEEK_SET);
		if (fgetc(f) == '\n' && ++seen > lines)
			break;
	}
	fseek(f, pos > 0 ? pos : 0, SEEK_SET);
	while (fgets(line, sizeof line, f) != NULL)
		printf("    | %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}
