#include "daemon/service/base/strmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STRMAP_INITIAL_BUCKETS 64

/* FNV-1a, 64 bits: names are short and not chosen by an attacker who can
 * also watch our timing, so a keyed hash would buy nothing here. */
static uint64_t strmap_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

int strmap_init(struct strmap *m)
{
	m->buckets = calloc(STRMAP_INITIAL_BUCKETS, sizeof *m->buckets);
	if (m->buckets == NULL)
		return -ENOMEM;
	m->bucket_count = STRMAP_INITIAL_BUCKETS;
	m->count = 0;
	return 0;
}

void strmap_fini(struct strmap *m)
{
	if (m == NULL)
		return;
	free(m->buckets);
	m->buckets = NULL;
	m->bucket_count = 0;
	m->count = 0;
}

struct strmap_node *strmap_find(const struct strmap *m, const char *key)
{
	uint64_t h = strmap_hash(key);
	struct strmap_node *n = m->buckets[h & (m->bucket_count - 1)];

	for (; n != NULL; n = n->next)
		if (n->hash == h && strcmp(n->key, key) == 0)
			return n;
	return NULL;
}

static void strmap_grow(struct strmap *m)
{
	size_t count = m->bucket_count * 2;
	struct strmap_node **b;

	if (count < m->bucket_count || count > SIZE_MAX / sizeof *b)
		return;
	b = calloc(count, sizeof *b);
	if (b == NULL)
		return;
	for (size_t i = 0; i < m->bucket_count; i++) {
		struct strmap_node *n = m->buckets[i], *next;

		for (; n != NULL; n = next) {
			next = n->next;
			n->next = b[n->hash & (count - 1)];
			b[n->hash & (count - 1)] = n;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->bucket_count = count;
}

int strmap_insert(struct strmap *m, struct strmap_node *n, const char *key)
{
	size_t i;

	if (strmap_find(m, key) != NULL)
		return -EEXIST;
	if (m->count >= m->bucket_count)
		strmap_grow(m);
	n->key = key;
	n->hash = strmap_hash(key);
	i = n->hash & (m->bucket_count - 1);
	n->next = m->buckets[i];
	m->buckets[i] = n;
	m->count++;
	return 0;
}

void strmap_remove(struct strmap *m, struct strmap_node *n)
{
	struct strmap_node **p = &m->buckets[n->hash & (m->bucket_count - 1)];

	for (; *p != NULL; p = &(*p)->next) {
		if (*p == n) {
			*p = n->next;
			n->next = NULL;
			m->count--;
			return;
		}
	}
}

struct strmap_node *strmap_next(const struct strmap *m, const struct strmap_node *n)
{
	size_t i = 0;

	if (n != NULL) {
		if (n->next != NULL)
			return n->next;
		i = (n->hash & (m->bucket_count - 1)) + 1;
	}
	for (; i < m->bucket_count; i++)
		if (m->buckets[i] != NULL)
			return m->buckets[i];
	return NULL;
}
