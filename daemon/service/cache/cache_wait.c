/*
 * cache_wait.c - names that requests want (cache.h, cache_want): a waiter
 * on the index while the start-up walk runs, then on the entry whose load
 * it waits for, which goes to the wanted queue; called once, when the load
 * has an outcome, the name turns out not to be in the index, the entry
 * goes, or the cache closes.  What a waiter does then is its owner's (the
 * control layer answers the request it held).
 */
#include "daemon/service/cache/cache_internal.h"

#include <errno.h>
#include <stddef.h>

static void cache_wait_link(struct cache_waiter **list, struct cache_waiter *w)
{
	w->next = *list;
	if (w->next != NULL)
		w->next->pprev = &w->next;
	w->pprev = list;
	*list = w;
}

static void cache_wait_unlink(struct cache_waiter *w)
{
	if (w->pprev == NULL)
		return;
	*w->pprev = w->next;
	if (w->next != NULL)
		w->next->pprev = w->pprev;
	w->next = NULL;
	w->pprev = NULL;
}

/* Must a request wait for e?  Only for an asset the index holds and memory
 * does not, with no failure to report: its first load, or one after an
 * eviction.  A failed one is answered as it is (its next save is loaded
 * when the watcher sees it). */
static bool cache_wait_needed(const struct cache_entry *e)
{
	return e->asset == NULL && e->error == NULL;
}

/* w waits on e, whose load goes before the background queue (a quiet
 * period or a load under way ends in the outcome just the same). */
static void cache_wait_on_entry(struct cache *c, struct cache_entry *e, struct cache_waiter *w)
{
	cache_wait_link(&e->waiters, w);
	if (e->state == CACHE_IDLE || e->state == CACHE_QUEUED)
		cache_entry_queue_add(c, e, true, false);
}

int cache_want(struct cache *c, const char *name, struct cache_waiter *w, cache_wait_cb cb,
	       void *data)
{
	struct cache_entry *e;

	w->next = NULL;
	w->pprev = NULL;
	w->name = name;
	w->cb = cb;
	w->data = data;
	if (c->closing)
		return -ECANCELED;
	if (!c->indexed) {
		cache_wait_link(&c->index_waiters, w);
		return 1;
	}
	if (name == NULL)
		return 0;
	e = cache_entry_find(c, name);
	if (e == NULL || !cache_entry_visible(e) || !cache_wait_needed(e))
		return 0;
	cache_wait_on_entry(c, e, w);
	cache_entry_pump(c);
	return 1;
}

void cache_unwant(struct cache *c, struct cache_waiter *w)
{
	(void)c;
	cache_wait_unlink(w);
}

/* Calls w, no longer waiting. */
static void cache_wait_call(struct cache_waiter *w, struct asset *asset)
{
	cache_wait_unlink(w);
	w->cb(w, asset, w->data);
}

void cache_wait_fire(struct cache *c, struct cache_entry *e)
{
	struct cache_waiter *list = e->waiters, *w;

	(void)c;
	/* Taken off first: a callback may want the name again, which then
	 * waits for the next outcome. */
	e->waiters = NULL;
	if (list != NULL)
		list->pprev = &list;
	while ((w = list) != NULL)
		cache_wait_call(w, e->asset);
}

void cache_wait_indexed(struct cache *c)
{
	struct cache_waiter *list = c->index_waiters, *w;

	c->indexed = true;
	c->index_waiters = NULL;
	if (list != NULL)
		list->pprev = &list;
	while ((w = list) != NULL) {
		struct cache_entry *e = w->name != NULL ? cache_entry_find(c, w->name) : NULL;

		if (e != NULL && cache_entry_visible(e) && cache_wait_needed(e)) {
			cache_wait_unlink(w);
			cache_wait_on_entry(c, e, w);
		} else {
			cache_wait_call(w, e != NULL ? e->asset : NULL);
		}
	}
}

void cache_wait_close(struct cache *c)
{
	struct cache_waiter *list = c->index_waiters, *w;

	c->index_waiters = NULL;
	if (list != NULL)
		list->pprev = &list;
	while ((w = list) != NULL)
		cache_wait_call(w, NULL);
}
