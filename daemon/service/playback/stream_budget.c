#include "daemon/service/playback/stream_budget.h"

#include <errno.h>
#include <stdio.h>

#include "daemon/service/base/bytes.h"
#include "daemon/service/base/log.h"

void stream_budget_set(struct stream_budget *b, uint64_t limit, const char *origin)
{
	b->limit = limit;
	snprintf(b->origin, sizeof b->origin, "%s", origin);
}

int stream_budget_take(struct stream_budget *b, uint64_t bytes, char *err, size_t errlen)
{
	char size[BYTES_FORMAT_MAX], total[BYTES_FORMAT_MAX];

	/* In 64 bits without wrapping: bytes alone, then what is left. */
	if (bytes > b->limit) {
		snprintf(err, errlen, "this stream's %s alone is over %s",
			 bytes_format(bytes, size, sizeof size), b->origin);
		return -EDQUOT;
	}
	if (b->used > b->limit - bytes) {
		snprintf(err, errlen,
			 "this stream's %s would bring the streams' total to %s, over %s",
			 bytes_format(bytes, size, sizeof size),
			 bytes_format(b->used + bytes, total, sizeof total), b->origin);
		return -EDQUOT;
	}
	b->used += bytes;
	return 0;
}

void stream_budget_give(struct stream_budget *b, uint64_t bytes)
{
	if (bytes > b->used) {
		/* Never: every give matches a take.  Counting on from 0 keeps
		 * the budget usable rather than wrapping to "full". */
		log_error("streams: giving back %llu bytes of the budget with %llu in use",
			  (unsigned long long)bytes, (unsigned long long)b->used);
		b->used = 0;
		return;
	}
	b->used -= bytes;
}
