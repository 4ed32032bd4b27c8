/*
 * workers.h - a small fork-join pool for the stream tick: the loop thread
 * runs part 0 of a job itself and the others on the pool's threads, and
 * waits for all of them; the parts split the job's items between them, by
 * a fixed share or by claiming chunks (workers_run_claims).  While it
 * waits nothing else runs on the loop, so the instances the parts read
 * cannot change under them; the assets they sample are immutable.  One
 * wake-up per tick and thread, so the cross-core cost (~20 us here) is
 * paid per tick, not per pose.
 */
#ifndef ANIMD_WORKERS_H
#define ANIMD_WORKERS_H

#include <stdbool.h>
#include <stdint.h>

struct workers;

/* Start `threads` helper threads (0 is valid: everything runs inline).
 * 0 or -errno. */
int workers_new(unsigned threads, struct workers **out);
/* Parts a job is split into: threads + 1 (the caller takes part 0). */
unsigned workers_parts(const struct workers *w);
/* Run fn(ctx, part, parts) for every part and return when all are done.
 * Called from one thread at a time (the loop). */
void workers_run(struct workers *w, void (*fn)(void *ctx, unsigned part, unsigned parts),
		 void *ctx);
/* workers_run for a job of `count` items handed out `chunk` at a time:
 * each part calls workers_claim until it says none is left, so a part
 * whose thread runs faster (its vCPU less busy) takes more of the job, and
 * the job ends when the last chunk does, not the slowest fixed share. */
void workers_run_claims(struct workers *w, uint32_t count, uint32_t chunk,
			void (*fn)(void *ctx, unsigned part, unsigned parts), void *ctx);
/* The next chunk [*begin, *end) of the running workers_run_claims job;
 * false when every item is taken.  From the job's parts only. */
bool workers_claim(struct workers *w, uint32_t *begin, uint32_t *end);
/* Stop and join the threads; NULL does nothing. */
void workers_free(struct workers *w);

#endif
