/*
 * soak_log.h - what the daemon's log says about a run: error-level lines
 * (there must be none), warnings (broken saves make them), the clean stop
 * ("stopped" is logged only when the event loop closed with no handle
 * left), and any sanitizer report.
 */
#ifndef ANIMD_SOAK_LOG_H
#define ANIMD_SOAK_LOG_H

struct soak_log {
	unsigned errors, warnings, lines;
	int stopped;                    /* a line "<6>stopped" */
	int sanitizer;                  /* lines of AddressSanitizer, LeakSanitizer or UBSan */
	char first_error[256];
	char first_sanitizer[256];
	long bytes;
};

/* 0 or -errno. */
int soak_log_scan(const char *path, struct soak_log *out);
/* Print the last `lines` lines, indented, for a failure report. */
void soak_log_tail(const char *path, int lines);

#endif
