#include "daemon/service/control/reloads.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/session.h"
#include "proto/rpc.h"

struct pending_reload {
	struct pending_reload *next;
	struct session *session;
	uint32_t msgid;
	char *asset;
};

int reloads_add(struct control *ctl, struct session *s, uint32_t msgid, const char *asset)
{
	struct pending_reload *p = calloc(1, sizeof *p);

	if (p == NULL || (p->asset = strdup(asset)) == NULL) {
		free(p);
		return -ENOMEM;
	}
	p->session = s;
	p->msgid = msgid;
	p->next = ctl->reloads;
	ctl->reloads = p;
	s->deferred++;
	return 0;
}

static void reloads_reply(struct pending_reload *r, const char *asset, uint64_t generation,
			  bool unchanged, enum proto_error code, const char *message)
{
	if (code == PROTO_ERR_NONE) {
		struct rpc_out out = RPC_OUT_INIT;

		rpc_put_map(&out, 3);
		rpc_put_lit(&out, "asset");
		rpc_put_cstr(&out, asset);
		rpc_put_lit(&out, "generation");
		rpc_put_uint(&out, generation);
		rpc_put_lit(&out, "unchanged");
		rpc_put_bool(&out, unchanged);
		dispatch_send_result(r->session, r->msgid, &out);
		rpc_out_free(&out);
	} else {
		struct rpc_error err;

		rpc_error_init(&err);
		err.msgid = r->msgid;
		err.has_msgid = true;
		rpc_error_format(&err, code, "assets.reload: %s", message);
		session_send_error(r->session, &err);
	}
}

void reloads_answer(struct control *ctl, const char *asset, uint64_t generation, bool unchanged,
		    enum proto_error code, const char *message)
{
	struct pending_reload **p = &ctl->reloads, *mine = NULL;

	/* Taken out of the list first: a reply may close its session, which
	 * edits the list (reloads_forget).  A session is freed only on a
	 * later turn of the loop, and answers nothing once closing. */
	while (*p != NULL) {
		struct pending_reload *r = *p;

		if (strcmp(r->asset, asset) != 0) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		r->next = mine;
		mine = r;
	}
	while (mine != NULL) {
		struct pending_reload *r = mine;

		mine = r->next;
		reloads_reply(r, asset, generation, unchanged, code, message);
		session_deferred_done(r->session);
		free(r->asset);
		free(r);
	}
}

void reloads_forget(struct control *ctl, struct session *s)
{
	struct pending_reload **p = &ctl->reloads;

	while (*p != NULL) {
		struct pending_reload *r = *p;

		if (r->session == s) {
			*p = r->next;
			free(r->asset);
			free(r);
		} else {
			p = &r->next;
		}
	}
}
