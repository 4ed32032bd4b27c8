/*
 * instances.c - what the library remembers of each instance this client
 * played: enough to translate ids after a reconnection and to replay the
 * instance (asset, clip, mesh, loop, speed, root motion, stream, and where
 * its clock was when last reported).
 *
 * Ids: until the first reconnection the library's id is the daemon's.
 * After it, the new daemon numbers from 1 again, so the library hands out
 * its own ids (above every id it has used) and translates both ways.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ac_instance *ac_instances_find(const animc_client *c, uint64_t id)
{
	return ac_idmap_get(&c->inst_by_id, id);
}

struct ac_instance *ac_instances_by_server(const animc_client *c, uint64_t server_id)
{
	return ac_idmap_get(&c->inst_by_server, server_id);
}

uint64_t ac_instances_to_server(const animc_client *c, uint64_t id)
{
	const struct ac_instance *in = ac_instances_find(c, id);

	if (in != NULL)
		return in->server_id;
	/* Not one of ours (another connection's, or already stopped): before
	 * any reconnection the number means the same to the daemon, which
	 * answers not_found with its reason. */
	return c->remapped ? 0 : id;
}

uint64_t ac_instances_to_user(const animc_client *c, uint64_t server_id)
{
	const struct ac_instance *in = ac_instances_by_server(c, server_id);

	if (in != NULL)
		return in->id;
	return c->remapped ? 0 : server_id;
}

static char *instances_dup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

static void instances_free_one(struct ac_instance *in)
{
	free(in->asset);
	free(in->clip);
	free(in->mesh);
	free(in);
}

/* *field = a copy of value when they differ (a cross-fade changed the
 * clip); kept as it was when the copy cannot be made. */
static void instances_renote(char **field, const char *value)
{
	char *copy;

	if (value == NULL || (*field != NULL && strcmp(*field, value) == 0))
		return;
	copy = strdup(value);
	if (copy == NULL)
		return;
	free(*field);
	*field = copy;
}

void ac_instances_note(animc_client *c, struct ac_instance *in, const animc_instance *state)
{
	animc_stream *s = state->stream != 0 ? ac_stream_by_id(c, state->stream) : NULL;

	/* What a replay plays: the clip of the last state seen. */
	instances_renote(&in->asset, state->asset);
	instances_renote(&in->clip, state->clip);
	if (state->loop != ANIMC_LOOP_DEFAULT)
		in->loop = state->loop;

	in->speed = state->speed;
	in->time = state->time;
	in->time_at_ms = ac_now_ms();
	in->playing = state->state == ANIMC_STATE_PLAYING;
	in->stream_serial = s != NULL ? s->serial : 0;
	in->channel = s != NULL ? state->channel : -1;
}

int ac_instances_add(animc_client *c, uint64_t server_id, const animc_instance *state,
		     struct ac_instance **out)
{
	struct ac_instance *in = ac_instances_by_server(c, server_id);

	if (in != NULL) {
		/* Already known (a replayed play answered twice?): refresh. */
		ac_instances_note(c, in, state);
		*out = in;
		return 0;
	}
	in = calloc(1, sizeof *in);
	if (in == NULL)
		return -ENOMEM;
	in->asset = instances_dup(state->asset);
	in->clip = instances_dup(state->clip);
	in->mesh = instances_dup(state->mesh);
	if (in->asset == NULL || (state->clip && in->clip == NULL) ||
	    (state->mesh && in->mesh == NULL))
		goto fail;
	in->server_id = server_id;
	in->id = c->remapped ? c->next_id++ : server_id;
	in->loop = state->loop;
	in->root_motion = state->root_motion;
	ac_instances_note(c, in, state);
	if (ac_idmap_put(&c->inst_by_id, in->id, in) < 0)
		goto fail;
	if (ac_idmap_put(&c->inst_by_server, server_id, in) < 0) {
		ac_idmap_del(&c->inst_by_id, in->id);
		goto fail;
	}
	if (in->id > c->max_id)
		c->max_id = in->id;
	*out = in;
	return 0;
fail:
	instances_free_one(in);
	return -ENOMEM;
}

void ac_instances_forget(animc_client *c, struct ac_instance *in)
{
	ac_stream_forget_instance(c, in->id);
	ac_idmap_del(&c->inst_by_id, in->id);
	if (in->server_id != 0 && ac_idmap_get(&c->inst_by_server, in->server_id) == in)
		ac_idmap_del(&c->inst_by_server, in->server_id);
	instances_free_one(in);
}

void ac_instances_rekey(animc_client *c, struct ac_instance *in, uint64_t server_id)
{
	if (in->server_id != 0 && ac_idmap_get(&c->inst_by_server, in->server_id) == in)
		ac_idmap_del(&c->inst_by_server, in->server_id);
	in->server_id = server_id;
	/* Cannot fail for memory: the map held at least as many entries
	 * before the reconnection cleared it. */
	if (server_id != 0)
		ac_idmap_put(&c->inst_by_server, server_id, in);
}

void ac_instances_free_all(animc_client *c)
{
	for (size_t i = 0; i < c->inst_by_id.cap; i++)
		if (c->inst_by_id.vals[i] != NULL)
			instances_free_one(c->inst_by_id.vals[i]);
	ac_idmap_free(&c->inst_by_id);
	ac_idmap_free(&c->inst_by_server);
}

double ac_instances_time_now(const struct ac_instance *in)
{
	if (!in->playing)
		return in->time;
	return in->time + (double)(ac_now_ms() - in->time_at_ms) / 1000.0 * in->speed;
}

uint64_t animc_client_server_instance(const animc_client *c, uint64_t instance)
{
	const struct ac_instance *in = c != NULL ? ac_instances_find(c, instance) : NULL;

	return in != NULL ? in->server_id : 0;
}
