/*
 * soak_conn.h - one client connection of the soak: the raw msgpack-RPC
 * client (tests/support/rpc_client), every request still waiting for its
 * reply with what the reply may be, the instances and streams the
 * connection owns, and the checks made on each reply.
 *
 * The rule it enforces: every request gets exactly one reply, with its
 * msgid and an outcome the request allows.  A connection that closes, or
 * stays silent past the reply timeout, while requests are outstanding is a
 * failure, unless the client chose to close it.
 */
#ifndef ANIMD_SOAK_CONN_H
#define ANIMD_SOAK_CONN_H

#include <stdint.h>

#include "proto/animd_shm.h"
#include "tests/soak/soak.h"
#include "tests/soak/soak_assets.h"
#include "tests/soak/soak_rand.h"
#include "tests/support/rpc_client.h"

/* Outcomes a request allows (one bit per error code, and success). */
#define SOAK_X_OK 0x01u
#define SOAK_X_BAD_REQUEST 0x02u
#define SOAK_X_UNKNOWN_METHOD 0x04u
#define SOAK_X_NOT_FOUND 0x08u
#define SOAK_X_LIMIT 0x10u
#define SOAK_X_ASSET_ERROR 0x20u
#define SOAK_X_UNSUPPORTED 0x40u
/* What the rewriter may have done to any asset at any moment: removed it
 * (for a moment, or the subdirectory one for seconds), or saved a broken
 * version after the good one was removed. */
#define SOAK_X_ASSET_STATE (SOAK_X_NOT_FOUND | SOAK_X_ASSET_ERROR)
/* A .x file read in the middle of a save (assets.reload has no quiet
 * period, and a writer can pause longer than it) may be a valid prefix:
 * frames without their mesh or clip, which cannot play or give vertices.
 * (A prefix of an MD5 file never parses: it states its counts first.) */
#define SOAK_X_PREFIX(type) ((type) == SOAK_ASSET_X ? SOAK_X_UNSUPPORTED : 0u)

#define SOAK_PENDING_MAX 64
#define SOAK_STREAMS_MAX 16     /* limits.max_streams_per_connection */
#define SOAK_LIVE_MAX 256

struct soak_pending {
	uint32_t msgid;
	enum soak_kind kind;
	unsigned expect;        /* SOAK_X_* */
	uint64_t arg;           /* the instance or stream the request names */
	int variant;            /* which of a kind's deliberate mistakes (-1: none) */
};

struct soak_stream {
	uint64_t id;
	int fd;
	const struct animd_shm_header *h;
	size_t bytes;
	enum soak_space space;
	int closing;            /* stream.close sent: nothing more is sent about it */
	unsigned char *copy;    /* one slot's worth: where poses are copied */
	size_t copy_bytes;
};

struct soak_conn {
	const struct soak_config *cfg;
	struct soak_stats *st;
	struct soak_rand *rnd;
	struct rpc_client rc;
	int connected;
	struct soak_pending pend[SOAK_PENDING_MAX];
	unsigned npend;
	unsigned opens_pending;         /* stream.open requests waiting (their fds ride on replies) */
	uint64_t *made;                 /* every instance id this connection's plays returned */
	size_t nmade, capmade;
	uint64_t *listed;               /* ids instances.list showed, checked once replies are in */
	size_t nlisted, caplisted;
	uint64_t live[SOAK_LIVE_MAX];   /* instances believed to be running */
	unsigned nlive;
	struct soak_stream streams[SOAK_STREAMS_MAX];
	unsigned nstreams;
	uint64_t epoch;                 /* of this daemon run, from the first stream */
	int variant;                    /* for the next soak_conn_expect, then -1 */
};

/* Connect and reset the per-connection state.  0 or -errno. */
int soak_conn_open(struct soak_conn *c);
/* Close (streams unmapped, counters folded into the stats).  Outstanding
 * requests are dropped: the caller decided to close. */
void soak_conn_close(struct soak_conn *c);

/* Register the request just sent with msgid `id` (or the negative errno of
 * its send, which is then a failure).  0, or -1 if the connection broke. */
int soak_conn_expect(struct soak_conn *c, int64_t id, enum soak_kind kind, unsigned expect,
		     uint64_t arg);
/* Send pre-encoded bytes (corked with the rest while a burst is gathered). */
int soak_conn_send_raw(struct soak_conn *c, const void *buf, size_t len);
/* Wait for every outstanding reply and check each one.  0, or -1 when the
 * connection broke or stayed silent (a failure is recorded). */
int soak_conn_collect(struct soak_conn *c);
/* Count and act on the events that have arrived. */
void soak_conn_drain_events(struct soak_conn *c);

/* Instances: a running one at random (0 if none), forget one. */
uint64_t soak_conn_pick_live(struct soak_conn *c);
void soak_conn_forget(struct soak_conn *c, uint64_t instance);

/* soak_stream.c: map the descriptor that came with a stream.open reply,
 * check a stream.close took effect, read poses from every stream for a
 * while, pick a stream to play into, unmap everything. */
void soak_stream_opened(struct soak_conn *c, const msgpack_object *result);
void soak_stream_closed(struct soak_conn *c, uint64_t id);
void soak_stream_read(struct soak_conn *c, int ms);
struct soak_stream *soak_stream_pick(struct soak_conn *c);
void soak_stream_unmap_all(struct soak_conn *c);

/* soak_requests.c: send one random request (any method, valid or not),
 * registered with soak_conn_expect.  allow_open: a stream.open may be
 * among them.  0, or -1 if the connection broke. */
int soak_requests_one(struct soak_conn *c, int allow_open);
/* A notification (no reply may come) and the malformed envelopes. */
int soak_requests_notification(struct soak_conn *c);

#endif
