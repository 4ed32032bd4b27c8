/*
 * test_workers - the stream tick's fork-join pool: every part runs once a
 * job, and workers_claim hands each item of a job to exactly one part,
 * so that a part whose thread is held up leaves its share to the others.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/service/base/workers.h"

#define MAX_ITEMS 30000
#define MAX_PARTS 4

struct claim_job {
	struct workers *w;
	uint8_t owner[MAX_ITEMS];       /* part + 1 that claimed the item, 0: none */
	unsigned claims[MAX_PARTS];     /* chunks each part claimed */
	unsigned runs[MAX_PARTS];       /* times each part ran */
	uint32_t chunk;
	int overlap;                    /* an item claimed twice, or a chunk too long */
};

static void claim_all(void *ctx, unsigned part, unsigned parts)
{
	struct claim_job *job = ctx;
	uint32_t b, e;

	assert_true(part < parts && parts <= MAX_PARTS);
	job->runs[part]++;
	while (workers_claim(job->w, &b, &e)) {
		if (e <= b || e - b > job->chunk)
			job->overlap = 1;
		job->claims[part]++;
		for (uint32_t i = b; i < e; i++) {
			if (job->owner[i] != 0)
				job->overlap = 1;
			job->owner[i] = (uint8_t)(part + 1);
		}
	}
}

/* Item counts and chunk sizes (chunks longer than the job, of one item,
 * and not dividing it), with no helper thread and with several: every
 * item claimed once, every part run once, each claim at most a chunk. */
static void test_claims_cover_each_item_once(void **state)
{
	static const uint32_t counts[] = { 0, 1, 7, 1000, 25000 };
	static const uint32_t chunks[] = { 1, 8, 128, 5000 };
	struct claim_job *job = malloc(sizeof *job);

	(void)state;
	assert_non_null(job);
	for (unsigned threads = 0; threads < MAX_PARTS; threads++) {
		struct workers *w;

		assert_int_equal(workers_new(threads, &w), 0);
		assert_int_equal(workers_parts(w), threads + 1);
		for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
			for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
				memset(job, 0, sizeof *job);
				job->w = w;
				job->chunk = chunks[k];
				workers_run_claims(w, counts[i], chunks[k], claim_all, job);
				assert_false(job->overlap);
				for (uint32_t n = 0; n < counts[i]; n++)
					assert_int_not_equal(job->owner[n], 0);
				for (unsigned p = 0; p <= threads; p++)
					assert_int_equal(job->runs[p], 1);
			}
		}
		workers_free(w);
	}
	free(job);
}

/* Part 1 takes one chunk and is then held until part 0 has found the job
 * empty: part 0 must have claimed all the rest, not stopped at a fixed
 * half. */
struct held_job {
	struct workers *w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int part0_done;
	uint32_t items[2];
	int late_claim;                 /* part 1 got a chunk after part 0 was done */
};

static void held_part(void *ctx, unsigned part, unsigned parts)
{
	struct held_job *job = ctx;
	uint32_t b, e;

	(void)parts;
	if (part == 1) {
		if (workers_claim(job->w, &b, &e))
			job->items[1] += e - b;
		pthread_mutex_lock(&job->lock);
		while (!job->part0_done)
			pthread_cond_wait(&job->cond, &job->lock);
		pthread_mutex_unlock(&job->lock);
		job->late_claim = workers_claim(job->w, &b, &e);
		return;
	}
	while (workers_claim(job->w, &b, &e))
		job->items[0] += e - b;
	pthread_mutex_lock(&job->lock);
	job->part0_done = 1;
	pthread_cond_signal(&job->cond);
	pthread_mutex_unlock(&job->lock);
}

static void test_held_part_leaves_its_share(void **state)
{
	struct held_job job;
	struct workers *w;

	(void)state;
	memset(&job, 0, sizeof job);
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.cond, NULL);
	assert_int_equal(workers_new(1, &w), 0);
	job.w = w;
	workers_run_claims(w, 1000, 10, held_part, &job);
	assert_false(job.late_claim);
	assert_int_equal(job.items[0] + job.items[1], 1000);
	assert_true(job.items[1] <= 10);
	assert_true(job.items[0] >= 990);
	workers_free(w);
	pthread_cond_destroy(&job.cond);
	pthread_mutex_destroy(&job.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claims_cover_each_item_once),
		cmocka_unit_test(test_held_part_leaves_its_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
