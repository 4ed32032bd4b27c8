/*
 * soak_client.c - one soak client process: connection after connection
 * until the run's deadline, each a random number of random requests, one at
 * a time or in pipelined bursts, with stream reading in between.  A
 * connection ends cleanly, or abruptly with requests still outstanding (the
 * client chose to: their replies are not owed), or with a fatal protocol
 * violation, which must be answered with an error and then a disconnect.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/soak/soak_conn.h"

#define CLIENT_BURST_MAX 24

static int client_burst(struct soak_conn *c, int slow_reader)
{
	unsigned n = 2 + soak_rand_below(c->rnd, CLIENT_BURST_MAX - 1);
	int rc = 0;

	c->st->bursts++;
	rpc_client_cork(&c->rc);
	/* At most one stream.open per burst: its descriptor must not queue
	 * behind others in the client's small descriptor buffer. */
	for (unsigned i = 0; i < n && rc == 0 && c->npend < SOAK_PENDING_MAX - 1; i++)
		rc = soak_requests_one(c, c->opens_pending == 0);
	/* A send that fails means the daemon hung up: collecting reports it,
	 * with whatever replies it had sent first. */
	rpc_client_uncork(&c->rc);
	/* A reader that is slow to read makes the daemon queue the replies. */
	if (rc == 0 && slow_reader)
		soak_clock_sleep_ms(20 + (int)soak_rand_below(c->rnd, 100));
	return rc < 0 ? rc : soak_conn_collect(c);
}

/* The violations of PROTOCOL.md section 7 after which the daemon answers
 * with an error and hangs up. */
static void client_violation(struct soak_conn *c)
{
	uint32_t id = c->rc.next_id++;
	unsigned char big[12] = { 0x94, 0x00, 0xce, (unsigned char)(id >> 24),
				  (unsigned char)(id >> 16), (unsigned char)(id >> 8),
				  (unsigned char)id, 0xdb, 0x00, 0x80, 0x00, 0x00 };
	static const unsigned char never[] = { 0xc1 };
	static const unsigned char empty[] = { 0x90 };
	static const unsigned char response[] = { 0x94, 0x01, 0x05, 0xc0, 0x80 };
	static const unsigned char msgid_str[] = { 0x94, 0x00, 0xa1, 'x', 0xa6, 's', 't', 'a',
						   't', 'u', 's', 0x90 };
	const unsigned char *bytes;
	const char *what, *code = "bad_request";
	uint32_t want_id = 0;
	struct rpc_reply r;
	size_t len;
	int rc;

	switch (soak_rand_below(c->rnd, 5)) {
	case 0: bytes = never, len = sizeof never, what = "byte 0xc1"; break;
	case 1: bytes = empty, len = sizeof empty, what = "[]"; break;
	case 2: bytes = response, len = sizeof response, what = "a response"; break;
	case 3: bytes = msgid_str, len = sizeof msgid_str, what = "a string msgid"; break;
	default:
		/* A canonical request prefix, then a method string announced at
		 * 8 MiB: refused from its header, answered with that msgid. */
		bytes = big, len = sizeof big, what = "an 8 MiB method name";
		code = "limit", want_id = id;
		break;
	}
	c->st->sent[SOAK_VIOLATION]++;
	if (soak_conn_send_raw(c, bytes, len) < 0) {
		soak_stats_fail(c->st, "violation (%s): the send failed", what);
		return;
	}
	rc = rpc_client_wait_any(&c->rc, &r);
	if (rc < 0) {
		c->st->lost++;
		soak_stats_fail(c->st, "violation (%s): no error reply (%s)", what, strerror(-rc));
		return;
	}
	c->st->answered[SOAK_VIOLATION]++;
	if (r.error != NULL) {
		c->st->errors[SOAK_VIOLATION]++;
		c->st->codes[SOAK_VIOLATION][soak_stats_code_of(r.code)]++;
	}
	if (r.error == NULL || strcmp(r.code, code) != 0 || r.msgid != want_id)
		soak_stats_fail(c->st, "violation (%s): got msgid %u %s, wanted msgid %u %s", what,
				r.msgid, r.error ? r.code : "success", want_id, code);
	rpc_reply_free(&r);
	if (!rpc_client_wait_closed(&c->rc, c->cfg->reply_timeout_ms))
		soak_stats_fail(c->st, "violation (%s): the daemon did not hang up", what);
}

static void client_session(struct soak_conn *c)
{
	unsigned ops = 5 + soak_rand_below(c->rnd, 300);
	int rc = 0;

	rc = soak_conn_open(c);
	if (rc < 0) {
		soak_stats_fail(c->st, "connect: %s", strerror(-rc));
		soak_clock_sleep_ms(200);
		return;
	}
	if (soak_rand_chance(c->rnd, 70)) {
		soak_requests_one(c, 0);
		rc = soak_conn_collect(c);
	}
	for (unsigned i = 0; rc == 0 && i < ops && soak_clock_now_ns() < c->cfg->deadline_ns; i++) {
		uint32_t x = soak_rand_below(c->rnd, 100);

		if (x < 8) {
			rc = client_burst(c, soak_rand_chance(c->rnd, 10));
		} else if (x < 16 && c->nstreams > 0) {
			soak_stream_read(c, 1 + (int)soak_rand_below(c->rnd, 4));
		} else if (x < 17) {
			soak_clock_sleep_ms(1 + (int)soak_rand_below(c->rnd, 10));
		} else {
			rc = soak_requests_one(c, c->opens_pending == 0);
			if (rc == 0)
				rc = soak_conn_collect(c);
		}
	}
	if (rc == 0 && soak_clock_now_ns() < c->cfg->deadline_ns) {
		uint32_t x = soak_rand_below(c->rnd, 100);

		if (x < 12) {
			/* Hang up with requests in flight: their replies are not owed. */
			rpc_client_cork(&c->rc);
			for (unsigned i = 0; i < 8 && rc == 0; i++)
				rc = soak_requests_one(c, 0);
			rpc_client_uncork(&c->rc);
			c->st->abrupt_closes++;
		} else if (x < 20) {
			client_violation(c);
		}
	}
	soak_conn_close(c);
	soak_clock_sleep_ms((int)soak_rand_below(c->rnd, 20));
}

int soak_client_main(const struct soak_config *cfg, struct soak_stats *st, uint64_t seed)
{
	struct soak_rand rnd;
	struct soak_conn c = { .cfg = cfg, .st = st, .rnd = &rnd };

	soak_rand_seed(&rnd, seed);
	signal(SIGPIPE, SIG_IGN);
	while (soak_clock_now_ns() < cfg->deadline_ns)
		client_session(&c);
	return st->failures ? 1 : 0;
}
