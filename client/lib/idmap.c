/*
 * idmap.c - a small hash map from uint64 ids to pointers: pending calls by
 * msgid, instances by id, read cursors by instance.  Open addressing with
 * linear probing and backward-shift deletion (no tombstones), kept at most
 * half full.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdlib.h>

static size_t idmap_slot(const struct ac_idmap *m, uint64_t key)
{
	/* Fibonacci hashing spreads sequential ids. */
	return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (m->cap - 1);
}

void ac_idmap_init(struct ac_idmap *m)
{
	m->keys = NULL;
	m->vals = NULL;
	m->cap = 0;
	m->count = 0;
}

void ac_idmap_free(struct ac_idmap *m)
{
	free(m->keys);
	free(m->vals);
	ac_idmap_init(m);
}

void *ac_idmap_get(const struct ac_idmap *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = idmap_slot(m, key); m->vals[i] != NULL; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

static int idmap_grow(struct ac_idmap *m)
{
	struct ac_idmap n;

	n.cap = m->cap ? m->cap * 2 : 16;
	n.count = 0;
	n.keys = calloc(n.cap, sizeof *n.keys);
	n.vals = calloc(n.cap, sizeof *n.vals);
	if (n.keys == NULL || n.vals == NULL) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] != NULL)
			ac_idmap_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int ac_idmap_put(struct ac_idmap *m, uint64_t key, void *val)
{
	size_t i;

	if ((m->count + 1) * 2 > m->cap && idmap_grow(m) < 0)
		return -ENOMEM;
	for (i = idmap_slot(m, key); m->vals[i] != NULL; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void *ac_idmap_del(struct ac_idmap *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;
	void *val;

	if (m->cap == 0)
		return NULL;
	for (i = idmap_slot(m, key); m->vals[i] != NULL && m->keys[i] != key; i = (i + 1) & mask)
		;
	if (m->vals[i] == NULL)
		return NULL;
	val = m->vals[i];
	m->vals[i] = NULL;
	m->count--;
	/* Shift later members of the probe run back over the hole, unless
	 * their home slot lies cyclically in (i, j]. */
	for (j = (i + 1) & mask; m->vals[j] != NULL; j = (j + 1) & mask) {
		size_t home = idmap_slot(m, m->keys[j]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
	return val;
}
