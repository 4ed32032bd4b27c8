/*
 * workers.h - a small fork-join pool for the stream tick: the loop thread
 * splits a tick's channels into parts, runs part 0 itself and the others on
 * the pool's threads, and waits for all of them.  While it waits nothing
 * else runs on the loop, so the instances the parts read cannot change
 * under them; the assets they sample are immutable.  One wake-up per tick
 * and thread, so the cross-core cost (~20 us here) is paid per tick, not
 * per pose.
 */
#ifndef ANIMD_WORKERS_H
#define ANIMD_WORKERS_H

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
/* Stop and join the threads; NULL does nothing. */
void workers_free(struct workers *w);

#endif
