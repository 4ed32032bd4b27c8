/*
 * cache_mem.c - what the cache holds in memory, and the cap on it
 * ([assets] max_memory): the live versions' total (their memory.total,
 * what `status` reports as memory.assets.total), kept as versions come and
 * go; their order of last use; and, when a load takes the total past the
 * cap, the evictions that bring it back.
 *
 * What may be evicted: an asset nobody holds but the cache (refs == 1: no
 * instance or layer plays it, no request waiting for another name has
 * pinned it), idle (no load or quiet period under way), least recently
 * used first (a request's lookup uses it; one found in use while looking
 * for room counts as used now).  A load nobody asked for (the background
 * queue) never evicts: past the cap, its own result is dropped.  What is in
 * use alone may exceed the cap: it is served, `status` says so
 * (assets.over_cap), and a timer looks every second for what stopped being
 * used.
 *
 * The log hears, once each, when the cap first binds (something had to be
 * evicted or dropped) and when it no longer does (everything known fits:
 * the cap was raised, files went away); and when what is in use exceeds
 * it, and when that is over.
 */
#include "daemon/service/cache/cache_internal.h"

#include <syslog.h>

#include "daemon/service/base/bytes.h"

/* While over the cap, how often to look for what stopped being used. */
#define CACHE_MEM_RECHECK_MS 1000

static void cache_mem_lru_unlink(struct cache *c, struct cache_entry *e)
{
	if (e->lru_prev != NULL)
		e->lru_prev->lru_next = e->lru_next;
	else
		c->lru_head = e->lru_next;
	if (e->lru_next != NULL)
		e->lru_next->lru_prev = e->lru_prev;
	else
		c->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void cache_mem_lru_append(struct cache *c, struct cache_entry *e)
{
	e->lru_next = NULL;
	e->lru_prev = c->lru_tail;
	if (c->lru_tail != NULL)
		c->lru_tail->lru_next = e;
	else
		c->lru_head = e;
	c->lru_tail = e;
}

static void cache_mem_lru_prepend(struct cache *c, struct cache_entry *e)
{
	e->lru_prev = NULL;
	e->lru_next = c->lru_head;
	if (c->lru_head != NULL)
		c->lru_head->lru_prev = e;
	else
		c->lru_tail = e;
	c->lru_head = e;
}

void cache_mem_set(struct cache *c, struct cache_entry *e, struct asset *a, bool wanted)
{
	struct asset *old = e->asset;

	if (e->evicted) {
		c->evicted_bytes -= e->mem_bytes;
		e->evicted = false;
	}
	if (old != NULL) {
		c->mem_total -= e->mem_bytes;
		if (a == NULL) {
			cache_mem_lru_unlink(c, e);
			c->resident--;
		}
	} else if (a != NULL) {
		/* Nobody asked for it: the first to go. */
		if (wanted)
			cache_mem_lru_append(c, e);
		else
			cache_mem_lru_prepend(c, e);
		c->resident++;
	}
	e->asset = a;
	e->mem_bytes = a != NULL ? a->memory.total : 0;
	c->mem_total += e->mem_bytes;
	asset_unref(old);
}

void cache_mem_touch(struct cache *c, struct cache_entry *e)
{
	if (e == NULL || e->asset == NULL || c->lru_tail == e)
		return;
	cache_mem_lru_unlink(c, e);
	cache_mem_lru_append(c, e);
}

void cache_mem_forget(struct cache *c, struct cache_entry *e)
{
	if (e->asset != NULL)
		cache_mem_set(c, e, NULL, false);
	if (e->evicted) {
		c->evicted_bytes -= e->mem_bytes;
		e->evicted = false;
	}
	e->mem_bytes = 0;
}

/* e's version leaves memory; it stays indexed, and its bytes are what a
 * load brings back. */
static void cache_mem_evict(struct cache *c, struct cache_entry *e)
{
	uint64_t bytes = e->mem_bytes;

	cache_mem_set(c, e, NULL, false);
	e->evicted = true;
	e->mem_bytes = bytes;
	c->evicted_bytes += bytes;
}

/* Nobody but the cache holds it, and nothing is about to change it. */
static bool cache_mem_evictable(const struct cache_entry *e)
{
	return e->asset->refs == 1 && e->state == CACHE_IDLE && e->waiters == NULL;
}

static void cache_mem_log(struct cache *c, int level, const char *what)
{
	char cap[BYTES_FORMAT_MAX], total[BYTES_FORMAT_MAX];

	cache_log(c, level, "asset memory %s (%s live; [assets] max_memory = %s)", what,
		  bytes_format(c->mem_total, total, sizeof total),
		  bytes_format(c->max_memory, cap, sizeof cap));
}

/* The log's two pairs of lines: the cap binds or not, in use exceeds it or
 * not.  bound: something was just evicted or dropped. */
static void cache_mem_tell(struct cache *c, bool bound)
{
	bool over = c->max_memory != 0 && c->mem_total > c->max_memory;

	if (bound && !c->cap_reached) {
		c->cap_reached = true;
		cache_mem_log(c, LOG_NOTICE,
			      "reached the cap: from now on the least recently used assets that "
			      "nothing plays are evicted, and loaded again when asked for; background "
			      "loads past the cap are checked and dropped");
	} else if (c->cap_reached &&
		   (c->max_memory == 0 || c->mem_total + c->evicted_bytes <= c->max_memory)) {
		c->cap_reached = false;
		cache_mem_log(c, LOG_NOTICE, "is below the cap again: every asset fits");
	}
	if (over && !c->over_cap) {
		c->over_cap = true;
		cache_mem_log(c, LOG_WARNING,
			      "is over the cap: what instances play and requests use alone exceeds "
			      "it; served all the same");
	} else if (!over && c->over_cap) {
		c->over_cap = false;
		cache_mem_log(c, LOG_NOTICE, "is within the cap again");
	}
}

static void cache_mem_recheck_cb(uv_timer_t *t)
{
	cache_mem_settle(t->data, NULL, true);
}

void cache_mem_settle(struct cache *c, struct cache_entry *e, bool wanted)
{
	bool bound = false;

	if (c->closing)
		return;
	if (c->max_memory != 0 && c->mem_total > c->max_memory) {
		if (!wanted && e != NULL && e->asset != NULL && cache_mem_evictable(e)) {
			/* A background load: it does not push anything out. */
			cache_mem_evict(c, e);
			c->dropped++;
			bound = true;
		} else {
			/* Each resident entry is looked at once: one in use goes to
			 * the end (it is being used now). */
			size_t n = c->resident;
			struct cache_entry *v = c->lru_head, *next;

			for (; v != NULL && n > 0 && c->mem_total > c->max_memory; v = next, n--) {
				next = v->lru_next;
				if (v == e)
					continue;
				if (!cache_mem_evictable(v)) {
					cache_mem_touch(c, v);
					continue;
				}
				cache_mem_evict(c, v);
				c->evictions++;
				bound = true;
			}
		}
	}
	cache_mem_tell(c, bound);
	if (c->over_cap && !uv_is_active((uv_handle_t *)&c->cap_timer))
		uv_timer_start(&c->cap_timer, cache_mem_recheck_cb, CACHE_MEM_RECHECK_MS,
			       CACHE_MEM_RECHECK_MS);
	else if (!c->over_cap)
		uv_timer_stop(&c->cap_timer);
}
