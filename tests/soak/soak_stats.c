/* soak_stats.c - the per-process counters: failures, totals, names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tests/soak/soak.h"

void soak_stats_fail(struct soak_stats *st, const char *fmt, ...)
{
	va_list ap;

	/* Every failure counts; the first few are kept word for word. */
	if (st->failures < SOAK_FAIL_MSGS) {
		va_start(ap, fmt);
		vsnprintf(st->fail[st->failures], sizeof st->fail[0], fmt, ap);
		va_end(ap);
	}
	st->failures++;
}

void soak_stats_add(struct soak_stats *total, const struct soak_stats *one)
{
	/* Every field but the messages is a uint64_t counter. */
	const uint64_t *src = (const uint64_t *)(const void *)one;
	uint64_t *dst = (uint64_t *)(void *)total;
	size_t n = offsetof(struct soak_stats, fail) / sizeof(uint64_t);

	_Static_assert(offsetof(struct soak_stats, fail) % sizeof(uint64_t) == 0,
		       "counters come first, messages last");
	for (size_t i = 0; i < n; i++)
		dst[i] += src[i];
}

static const char *const kind_names[SOAK_KIND_COUNT] = {
	[SOAK_HELLO] = "hello",
	[SOAK_STATUS] = "status",
	[SOAK_ASSETS_LIST] = "assets.list",
	[SOAK_ASSETS_INFO] = "assets.info",
	[SOAK_ASSETS_RELOAD] = "assets.reload",
	[SOAK_PLAY] = "play",
	[SOAK_PLAY_STREAM] = "play + stream",
	[SOAK_PAUSE] = "pause",
	[SOAK_RESUME] = "resume",
	[SOAK_SEEK] = "seek",
	[SOAK_SPEED] = "speed",
	[SOAK_STOP] = "stop",
	[SOAK_INSTANCES_LIST] = "instances.list",
	[SOAK_SAMPLE] = "sample",
	[SOAK_SUBSCRIBE] = "subscribe",
	[SOAK_STREAM_OPEN] = "stream.open",
	[SOAK_STREAM_CLOSE] = "stream.close",
	[SOAK_BAD_ARGS] = "(bad arguments)",
	[SOAK_UNKNOWN_METHOD] = "(unknown method)",
	[SOAK_UNKNOWN_NAME] = "(unknown name)",
	[SOAK_UNSUITED] = "(unsuited asset)",
	[SOAK_BAD_SHAPE] = "(malformed request)",
	[SOAK_VIOLATION] = "(protocol violation)",
};

static const char *const event_names[SOAK_EV_COUNT] = {
	[SOAK_EV_LOADED] = "asset.loaded",
	[SOAK_EV_RELOADED] = "asset.reloaded",
	[SOAK_EV_ERROR] = "asset.error",
	[SOAK_EV_REMOVED] = "asset.removed",
	[SOAK_EV_ENDED] = "instance.ended",
	[SOAK_EV_STOPPED] = "instance.stopped",
	[SOAK_EV_STOPPING] = "server.stopping",
	[SOAK_EV_OTHER] = "(other)",
};

static const char *const save_names[SOAK_SAVE_COUNT] = {
	[SOAK_SAVE_IN_PLACE] = "in place",
	[SOAK_SAVE_SLOW] = "slow in place",
	[SOAK_SAVE_RENAME] = "temp + rename",
	[SOAK_SAVE_RECREATE] = "delete + recreate",
	[SOAK_SAVE_REMOVE] = "delete, pause, recreate",
};

static const char *const code_names[SOAK_CODE_COUNT] = {
	[SOAK_CODE_BAD_REQUEST] = "bad_request",
	[SOAK_CODE_UNKNOWN_METHOD] = "unknown_method",
	[SOAK_CODE_NOT_FOUND] = "not_found",
	[SOAK_CODE_LIMIT] = "limit",
	[SOAK_CODE_ASSET_ERROR] = "asset_error",
	[SOAK_CODE_UNSUPPORTED] = "unsupported",
	[SOAK_CODE_SHUTTING_DOWN] = "shutting_down",
	[SOAK_CODE_INTERNAL] = "internal",
	[SOAK_CODE_OTHER] = "(other)",
};

const char *soak_stats_code_name(enum soak_code c)
{
	return c < SOAK_CODE_COUNT ? code_names[c] : "?";
}

enum soak_code soak_stats_code_of(const char *code)
{
	for (int c = 0; c < SOAK_CODE_OTHER; c++)
		if (strcmp(code, code_names[c]) == 0)
			return (enum soak_code)c;
	return SOAK_CODE_OTHER;
}

const char *soak_stats_kind_name(enum soak_kind k)
{
	return k < SOAK_KIND_COUNT ? kind_names[k] : "?";
}

const char *soak_stats_event_name(enum soak_event e)
{
	return e < SOAK_EV_COUNT ? event_names[e] : "?";
}

const char *soak_stats_save_name(enum soak_save s)
{
	return s < SOAK_SAVE_COUNT ? save_names[s] : "?";
}

enum soak_event soak_stats_event_of(const char *type)
{
	for (int e = 0; e < SOAK_EV_OTHER; e++)
		if (strcmp(type, event_names[e]) == 0)
			return (enum soak_event)e;
	return SOAK_EV_OTHER;
}
