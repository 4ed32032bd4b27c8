/* server_internal.h - what sessions tell the server about themselves. */
#ifndef ANIMD_SERVER_INTERNAL_H
#define ANIMD_SERVER_INTERNAL_H

#include "daemon/service/server.h"
#include "daemon/service/session.h"

/* A session's pipe has closed: unlink it and free nothing else. */
void server_forget(struct server *srv, struct session *s);

#endif
