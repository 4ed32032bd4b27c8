#include "daemon/service/control/control.h"

#include "daemon/service/control/holds.h"
#include "daemon/service/control/monitor.h"
#include "daemon/service/control/reloads.h"
#include "daemon/service/control/session.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/streams.h"

void control_session_ended(struct control *ctl, struct session *s)
{
	instances_end_owner(ctl->instances, &s->owns);
	streams_end_owner(ctl->streams, &s->owns);
	reloads_forget(ctl, s);
	holds_forget(ctl, s);
	monitor_end(s);
}
