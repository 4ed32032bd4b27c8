/*
 * soak_rand.h - a small seeded generator (xorshift64*), one per process, so
 * a run's choices follow from its printed seed (the timing never does).
 */
#ifndef ANIMD_SOAK_RAND_H
#define ANIMD_SOAK_RAND_H

#include <stdint.h>

struct soak_rand {
	uint64_t s;
};

static inline void soak_rand_seed(struct soak_rand *r, uint64_t seed)
{
	/* splitmix64 once, so that nearby seeds give unrelated streams. */
	uint64_t z = seed + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	r->s = (z ^ (z >> 31)) | 1;
}

static inline uint64_t soak_rand_next(struct soak_rand *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n), n > 0 (the bias is far below what matters here). */
static inline uint32_t soak_rand_below(struct soak_rand *r, uint32_t n)
{
	return (uint32_t)((soak_rand_next(r) >> 32) % n);
}

/* 1 with probability percent / 100. */
static inline int soak_rand_chance(struct soak_rand *r, uint32_t percent)
{
	return soak_rand_below(r, 100) < percent;
}

/* Uniform in [lo, hi). */
static inline double soak_rand_range(struct soak_rand *r, double lo, double hi)
{
	return lo + (hi - lo) * (double)(soak_rand_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
