#include "daemon/service/base/workers.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t start;           /* a new job (or quit) for the threads */
	pthread_cond_t done;            /* the last part of a job finished */
	pthread_t *threads;
	unsigned count;
	unsigned long job;              /* bumped for every job */
	unsigned pending;               /* parts of the current job not finished */
	bool quit;
	void (*fn)(void *ctx, unsigned part, unsigned parts);
	void *ctx;
	/* workers_run_claims: the items of the job not yet claimed start at
	 * claim_next (under lock). */
	uint32_t claim_next, claim_count, claim_chunk;
};

struct worker_arg {
	struct workers *w;
	unsigned part;
};

static void *workers_main(void *p)
{
	struct worker_arg *arg = p;
	struct workers *w = arg->w;
	unsigned part = arg->part;
	unsigned long seen = 0;

	free(arg);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->quit && w->job == seen)
			pthread_cond_wait(&w->start, &w->lock);
		if (w->quit)
			break;
		seen = w->job;
		pthread_mutex_unlock(&w->lock);
		w->fn(w->ctx, part, w->count + 1);
		pthread_mutex_lock(&w->lock);
		if (--w->pending == 0)
			pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int workers_new(unsigned threads, struct workers **out)
{
	struct workers *w = calloc(1, sizeof *w);
	sigset_t all, old;

	if (w == NULL)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->start, NULL);
	pthread_cond_init(&w->done, NULL);
	w->threads = calloc(threads ? threads : 1, sizeof *w->threads);
	if (w->threads == NULL) {
		free(w);
		return -ENOMEM;
	}
	/* Helpers are born with every signal blocked (the mask is inherited),
	 * so signals always reach the loop thread, which handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (unsigned i = 0; i < threads; i++) {
		struct worker_arg *arg = malloc(sizeof *arg);

		if (arg == NULL)
			break;
		arg->w = w;
		arg->part = i + 1;
		if (pthread_create(&w->threads[i], NULL, workers_main, arg) != 0) {
			free(arg);
			break;
		}
		w->count++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*out = w;
	return 0;
}

unsigned workers_parts(const struct workers *w)
{
	return w->count + 1;
}

void workers_run(struct workers *w, void (*fn)(void *ctx, unsigned part, unsigned parts),
		 void *ctx)
{
	if (w->count == 0) {
		fn(ctx, 0, 1);
		return;
	}
	pthread_mutex_lock(&w->lock);
	w->fn = fn;
	w->ctx = ctx;
	w->pending = w->count;
	w->job++;
	pthread_cond_broadcast(&w->start);
	pthread_mutex_unlock(&w->lock);
	fn(ctx, 0, w->count + 1);
	pthread_mutex_lock(&w->lock);
	while (w->pending > 0)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void workers_run_claims(struct workers *w, uint32_t count, uint32_t chunk,
			void (*fn)(void *ctx, unsigned part, unsigned parts), void *ctx)
{
	/* No part runs yet: the fields are the loop thread's to set. */
	w->claim_next = 0;
	w->claim_count = count;
	w->claim_chunk = chunk > 0 ? chunk : 1;
	workers_run(w, fn, ctx);
}

bool workers_claim(struct workers *w, uint32_t *begin, uint32_t *end)
{
	bool got;

	pthread_mutex_lock(&w->lock);
	got = w->claim_next < w->claim_count;
	if (got) {
		*begin = w->claim_next;
		*end = w->claim_count - w->claim_next > w->claim_chunk ?
			       w->claim_next + w->claim_chunk : w->claim_count;
		w->claim_next = *end;
	}
	pthread_mutex_unlock(&w->lock);
	return got;
}

void workers_free(struct workers *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->start);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->count; i++)
		pthread_join(w->threads[i], NULL);
	pthread_cond_destroy(&w->start);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->lock);
	free(w->threads);
	free(w);
}
