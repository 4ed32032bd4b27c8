/*
 * stream_budget.h - the memory every open stream's region may take
 * together ([streams] max_total_bytes).  Per-connection limits alone
 * multiply out to terabytes (streams per connection x connections x the
 * largest region), so the daemon also keeps this one total: a region is
 * taken from the budget before it is created and given back when its
 * stream closes (stream.close, its connection's end, the daemon's stop).
 *
 * What it counts is the regions' size, each as its memfd is long (what
 * status reports as memory.streams), committed or not: a region's pages
 * are committed as ticks first write them, so the size is what the stream
 * can come to hold.  A reader that keeps its mapping of a closed stream
 * keeps those pages alive until it unmaps them (PROTOCOL.md section 13);
 * they are no longer the daemon's to count, but the kernel charges them to
 * the daemon's cgroup, which MemoryMax= bounds (animd(8)).
 */
#ifndef ANIMD_STREAM_BUDGET_H
#define ANIMD_STREAM_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#define STREAM_BUDGET_ORIGIN_MAX 192

struct stream_budget {
	uint64_t limit;                 /* bytes the regions may take together */
	uint64_t used;                  /* bytes the open streams' regions take */
	/* The setting the limit comes from, as messages name it:
	 * "[streams] max_total_bytes = 1 GiB". */
	char origin[STREAM_BUDGET_ORIGIN_MAX];
};

/* A new limit (at start-up, and when a reload changes it); what is in use
 * stays, and may now be over it: streams already open are not closed, new
 * ones wait until enough have closed. */
void stream_budget_set(struct stream_budget *b, uint64_t limit, const char *origin);

/* Take bytes for a new region: 0, or -EDQUOT with err saying why,
 *     this stream's 64 MiB would bring the streams' total to 1.02 GiB,
 *     over [streams] max_total_bytes = 1 GiB
 * (a region that alone is larger says so instead).  A total exactly at the
 * limit fits. */
int stream_budget_take(struct stream_budget *b, uint64_t bytes, char *err, size_t errlen);

/* Give back what stream_budget_take took. */
void stream_budget_give(struct stream_budget *b, uint64_t bytes);

#endif
