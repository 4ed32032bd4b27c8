#include "daemon/service/control.h"

#include "daemon/service/instances.h"
#include "daemon/service/reloads.h"
#include "daemon/service/session.h"
#include "daemon/service/streams.h"

void control_session_ended(struct control *ctl, struct session *s)
{
	instances_end_owner(ctl->instances, &s->owns);
	streams_end_owner(ctl->streams, &s->owns);
	reloads_forget(ctl, s);
}
