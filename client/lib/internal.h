/*
 * internal.h - libanimclient's private structures and the functions its
 * files share.  Nothing here is exported: the library is built with hidden
 * visibility and only ANIMC_API symbols leave it.  Internal names are
 * ac_<file>_<what>, as the file name is the prefix.
 */
#ifndef ANIMC_INTERNAL_H
#define ANIMC_INTERNAL_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "client/animclient.h"
#include "proto/animd_shm.h"
#include "proto/rpc.h"

/* ---- time ------------------------------------------------------------ */

#define AC_NEVER INT64_MAX

static inline int64_t ac_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The deadline of something that may take timeout_ms (negative: never). */
static inline int64_t ac_deadline(int timeout_ms)
{
	return timeout_ms < 0 ? AC_NEVER : ac_now_ms() + timeout_ms;
}

/* Milliseconds left until a deadline, for poll(): -1 for none, else 0.. */
static inline int ac_left_ms(int64_t deadline)
{
	int64_t left;

	if (deadline == AC_NEVER)
		return -1;
	left = deadline - ac_now_ms();
	return left <= 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (int)left;
}

/* ---- idmap.c: uint64 -> pointer, open addressing ---------------------- */

struct ac_idmap {
	uint64_t *keys;
	void **vals;                    /* NULL: empty slot */
	size_t cap;                     /* 0 or a power of two */
	size_t count;
};

void ac_idmap_init(struct ac_idmap *m);
void ac_idmap_free(struct ac_idmap *m);
void *ac_idmap_get(const struct ac_idmap *m, uint64_t key);
/* Insert or replace (val must not be NULL).  0 or -ENOMEM. */
int ac_idmap_put(struct ac_idmap *m, uint64_t key, void *val);
/* Remove; returns the value that was there, or NULL. */
void *ac_idmap_del(struct ac_idmap *m, uint64_t key);
/* The values, for iteration: slot i is used when vals[i] != NULL.  The map
 * must not change while iterating. */

/* ---- res.c: results with their own arena ------------------------------ */

/* A result of `size` zeroed bytes, freed with ac_res_free (animc_free). */
void *ac_res_new(size_t size);
/* size zeroed bytes (16-aligned) that live and die with the result. */
void *ac_res_alloc(void *res, size_t size);
/* A NUL-terminated copy of len bytes, living with the result. */
const char *ac_res_str(void *res, const char *s, size_t len);
void ac_res_free(void *res);
/* 1 if p is a result made by ac_res_new (a cheap sanity check). */
int ac_res_is(const void *p);

/* ---- obj.c: reading the daemon's msgpack maps -------------------------- */

/*
 * A parse of one reply: strings are copied into `res`; the first type
 * error is kept in `err` (-EPROTO, or -ENOMEM) and later getters return
 * their default, so a parser can read every field and check once.  Absent
 * and nil fields give the default without error: the protocol adds fields,
 * and shapes still marked "proposed" may lose one.
 */
struct ac_parse {
	void *res;
	int err;
	const char *what;               /* the first field that failed */
};

const msgpack_object *ac_obj_get(const msgpack_object *map, const char *key);
bool ac_obj_is_str(const msgpack_object *o, const char *s);
const char *ac_obj_str(struct ac_parse *p, const msgpack_object *map, const char *key);
uint64_t ac_obj_u64(struct ac_parse *p, const msgpack_object *map, const char *key,
		    uint64_t def);
int64_t ac_obj_i64(struct ac_parse *p, const msgpack_object *map, const char *key, int64_t def);
double ac_obj_f64(struct ac_parse *p, const msgpack_object *map, const char *key, double def);
int ac_obj_bool(struct ac_parse *p, const msgpack_object *map, const char *key, int def);
/* The array under key (NULL and no error when absent; error when not an
 * array); *n its length. */
const msgpack_object *ac_obj_array(struct ac_parse *p, const msgpack_object *map,
				   const char *key, size_t *n);
/* n numbers from an array object into out (absent: left as is). */
void ac_obj_floats(struct ac_parse *p, const msgpack_object *arr, float *out, size_t n,
		   const char *what);
/* Record a parse error by hand. */
void ac_obj_fail(struct ac_parse *p, const char *what);

/* Packing helpers for named arguments: each packs a key and its value;
 * they return 0 or -ENOMEM. */
int ac_pack_kv_str(msgpack_packer *pk, const char *key, const char *value);
int ac_pack_kv_u64(msgpack_packer *pk, const char *key, uint64_t value);
int ac_pack_kv_i64(msgpack_packer *pk, const char *key, int64_t value);
int ac_pack_kv_f64(msgpack_packer *pk, const char *key, double value);
/* key: true (an option that is only ever sent on). */
int ac_pack_kv_true(msgpack_packer *pk, const char *key);

/* ---- names.c ----------------------------------------------------------- */

animc_error_code ac_names_error(const char *name, size_t len);
animc_state ac_names_state(const char *name);

/* ---- the client ------------------------------------------------------- */

/* What process() delivers, in arrival order: completed async calls and
 * events. */
struct ac_item {
	struct ac_item *next;
	int kind;                       /* AC_ITEM_* */
};

enum { AC_ITEM_CALL, AC_ITEM_EVENT };

struct ac_call;

/* How one method is called: packing its request, reading its result. */
struct ac_method {
	const char *name;
	/* Pack the whole request [0, msgid, name, params] for `params` (the
	 * public call's arguments).  0 or -ENOMEM / -EINVAL. */
	int (*pack)(animc_client *c, msgpack_packer *pk, uint32_t msgid, const void *params);
	/* Read a successful result into call->result (a res), and apply what it
	 * means to the client's state.  0 or a negative errno. */
	int (*reply)(animc_client *c, struct ac_call *call, const msgpack_object *result);
	/* Optional: state kept from request to reply (NULL return: -ENOMEM),
	 * freed with ctx_free when the call is freed. */
	void *(*prepare)(animc_client *c, const void *params);
	void (*ctx_free)(void *ctx);
};

struct ac_call {
	struct ac_item item;
	const struct ac_method *m;
	uint32_t msgid;
	bool done;
	bool async;
	bool abandoned;                 /* its blocking caller timed out */
	int status;
	void *result;                   /* a res, owned by the call until handed out */
	void *ctx;
	int64_t deadline;               /* ms, async calls */
	animc_done_fn done_fn;
	void *user;
	animc_error_code code;          /* when the daemon answered an error */
	char *code_name;
	char *message;
};

/* One played instance, as the library remembers it to translate ids and to
 * replay it after a reconnection. */
struct ac_instance {
	uint64_t id;                    /* the library's, stable */
	uint64_t server_id;             /* the current daemon's */
	char *asset;
	char *clip;
	char *mesh;
	animc_loop loop;
	animc_root_motion root_motion;
	double speed;
	double time;                    /* playback time reported at time_at_ms */
	int64_t time_at_ms;
	/* The caller's play_opts.at_ns and start, kept while nothing has
	 * touched the instance's clock since, so that a replay keeps a crowd
	 * in step; 0: none. */
	int64_t anchor_ns;
	double anchor_start;
	bool no_events;                 /* played without clip.event */
	bool playing;
	uint64_t stream_serial;         /* the stream handle it publishes into, 0: none */
	int32_t channel;
};

/* A descriptor received with SCM_RIGHTS and the byte range of the read
 * that carried it: it belongs to the message starting in that range. */
struct ac_fd {
	int fd;
	uint64_t start;
	uint64_t end;
};

#define AC_MAX_FDS 16
#define AC_MAX_QUEUED_EVENTS 65536u
#define AC_MAX_OUTPUT (16u << 20)

enum ac_state {
	AC_IDLE,                        /* never connected, or connect failed */
	AC_CONNECTED,
	AC_WAITING,                     /* lost; reconnection pending */
	AC_LOST,                        /* lost for good (no reconnection, or gave up) */
};

struct animc_client {
	int fd;
	enum ac_state state;
	bool loss_reported;
	char path[108];
	int timeout_ms;
	/* hello's "name": valid UTF-8, "" for none; name_set once the caller
	 * chose (else the program's name at connect). */
	char name[ANIMC_CLIENT_NAME_MAX + 1];
	bool name_set;
	bool hello_unnamed;             /* this daemon refused the name: send none */
	uint32_t next_msgid;

	/* input */
	struct rpc_decoder dec;
	bool dec_live;
	uint64_t rx_total;              /* bytes received on this connection */
	uint64_t msg_start;             /* offset of the message being handled */
	struct ac_fd fds[AC_MAX_FDS];
	unsigned nfds;

	/* output: requests not yet taken by the socket */
	char *out;
	size_t out_len;
	size_t out_cap;
	int write_err;                  /* why the last packer write failed */

	/* calls awaiting replies, by msgid */
	struct ac_idmap calls;
	size_t async_pending;

	/* deliveries for process() */
	struct ac_item *q_head;
	struct ac_item *q_tail;
	size_t q_events;
	animc_event_fn on_event;
	void *event_user;

	/* the last failure */
	animc_error_code err_code;
	char err_name[64];
	char err_msg[512];
	/* an error reply that named no request (msgid 0), sent just before the
	 * daemon closes the connection: why it did */
	bool fatal_set;
	animc_error_code fatal_code;
	char fatal_name[64];
	char fatal_msg[512];

	/* from hello */
	char server[128];
	uint32_t server_pid;

	/* instances */
	struct ac_idmap inst_by_id;
	struct ac_idmap inst_by_server;
	bool remapped;                  /* a reconnection happened: ids are translated */
	uint64_t max_id;
	uint64_t next_id;

	/* streams */
	animc_stream *streams;
	uint64_t next_stream_serial;
	unsigned sub_mask;
	bool sub_set;

	/* reconnection */
	animc_reconnect_opts rc;
	bool in_reconnect;
	int64_t rc_next_ms;
	int rc_delay_ms;
	unsigned rc_attempts;
};

/* A read cursor of one instance in one stream. */
struct ac_cursor {
	uint64_t server_id;             /* the instance it was found for */
	uint32_t channel;
	bool have_channel;
	bool started;
	uint64_t next;                  /* the next pose number to return */
	uint64_t epoch;                 /* of the mapping it was made for */
	uint64_t dropped_pending;       /* lost poses not reported yet */
};

struct animc_stream {
	animc_client *c;
	animc_stream *next;
	uint64_t serial;                /* the library's, stable across reconnections */
	animc_stream_opts opts;         /* as asked, for reopening */
	uint64_t id;                    /* the daemon's */
	bool dead;                      /* could not be reopened after a reconnection */
	void *base;                     /* the mapping */
	size_t map_bytes;
	struct animd_shm_header h;      /* validated copy: every offset comes from it */
	unsigned fpe;                   /* floats per element */
	void *scratch;                  /* one slot: header and payload */
	size_t scratch_bytes;
	struct ac_idmap cursors;        /* library instance id -> struct ac_cursor */
};

/* client.c */
void ac_client_set_error(animc_client *c, animc_error_code code, const char *name,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Report a local failure rc with a message, and return rc. */
int ac_client_fail(animc_client *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* `hello` on a new connection, with the client's name (without it to a
 * daemon that refuses the argument).  As ac_rpc_call. */
int ac_client_hello(animc_client *c, animc_hello_info **out);
/* The connection is gone: fail what waits, arrange reconnection. */
void ac_client_lost(animc_client *c, int why);
/* Be connected before `deadline`, reconnecting when that is enabled. */
int ac_client_ensure(animc_client *c, int64_t deadline);
void ac_client_enqueue(animc_client *c, struct ac_item *item);

/* conn.c */
int ac_conn_open(animc_client *c, int64_t deadline);
void ac_conn_close(animc_client *c);
int ac_conn_queue(animc_client *c, const void *data, size_t len);
/* The same as a msgpack-c write callback (data is the client). */
int ac_conn_write(void *data, const char *buf, size_t len);
int ac_conn_flush(animc_client *c);
/* One recvmsg into the decoder: bytes read (> 0), 0 at EOF, -EAGAIN, or a
 * negative errno. */
int ac_conn_read(animc_client *c);
/* The descriptor that arrived with the message starting at msg_start, or
 * -1; older strays are closed. */
int ac_conn_take_fd(animc_client *c, uint64_t msg_start);
/* Close the descriptors no message from msg_start on can claim. */
void ac_conn_sweep_fds(animc_client *c, uint64_t msg_start);

/* rpc.c */
int ac_rpc_call(animc_client *c, const struct ac_method *m, const void *params, void **out);
int ac_rpc_call_async(animc_client *c, const struct ac_method *m, const void *params,
		      animc_done_fn done, void *user);
/* Wait up to timeout_ms for I/O and handle it.  0 or a negative errno
 * (the connection was lost: -ECONNRESET). */
int ac_rpc_pump(animc_client *c, int timeout_ms);
/* Read and handle what has arrived, without waiting. */
int ac_rpc_read_available(animc_client *c);
void ac_rpc_fail_all(animc_client *c, int status);
void ac_rpc_expire(animc_client *c, int64_t now);
int64_t ac_rpc_next_deadline(const animc_client *c);
void ac_rpc_call_free(struct ac_call *call);

/* events.c */
void ac_events_handle(animc_client *c, const msgpack_object *msg);
void ac_events_free(struct ac_item *item);
void ac_events_deliver(animc_client *c, struct ac_item *item);

/* instances.c */
struct ac_instance *ac_instances_find(const animc_client *c, uint64_t id);
struct ac_instance *ac_instances_by_server(const animc_client *c, uint64_t server_id);
uint64_t ac_instances_to_server(const animc_client *c, uint64_t id);
uint64_t ac_instances_to_user(const animc_client *c, uint64_t server_id);
/* Record an instance the daemon just created (ids assigned here). */
int ac_instances_add(animc_client *c, uint64_t server_id, const animc_instance *state,
		     struct ac_instance **out);
/* Take a reported state (server ids in *state) into the record. */
void ac_instances_note(animc_client *c, struct ac_instance *in, const animc_instance *state);
void ac_instances_forget(animc_client *c, struct ac_instance *in);
void ac_instances_rekey(animc_client *c, struct ac_instance *in, uint64_t server_id);
void ac_instances_free_all(animc_client *c);
double ac_instances_time_now(const struct ac_instance *in);

/* calls_play.c: an instance state map into *out (ids translated, the
 * record updated). */
int ac_play_parse_instance(animc_client *c, struct ac_parse *p, const msgpack_object *o,
			   animc_instance *out);
/* A state reply of an existing instance: update the record, translate the
 * id. */
void ac_play_take_state(animc_client *c, animc_instance *st);
/* The reply handler of every call that answers an existing instance's
 * state (pause, resume, seek, speed, a fade, layer.set, layer.remove):
 * parsed into call->result, the record updated, the id translated. */
int ac_play_state_reply(animc_client *c, struct ac_call *call, const msgpack_object *r);
/* Play a remembered instance again on the new daemon (paused if it was);
 * its record gets the new server id. */
int ac_play_replay(animc_client *c, struct ac_instance *in);

/* calls_info.c */
extern const struct ac_method ac_method_hello;
extern const struct ac_method ac_method_subscribe;

/* calls_stream.c */
extern const struct ac_method ac_method_stream_open;
/* The parameters stream.open packs; the stream handle to map the reply into. */
struct ac_stream_open_params {
	animc_stream *s;
};

/* stream.c */
animc_stream *ac_stream_new(animc_client *c, const animc_stream_opts *o);
/* Map the region behind fd (consumed) as stream `id` of `epoch`, replacing
 * any previous mapping.  0 or a negative errno (the old mapping stays). */
int ac_stream_map(animc_stream *s, int fd, uint64_t id, uint64_t epoch, uint64_t region_bytes,
		  const char **why);
void ac_stream_free(animc_stream *s);
animc_stream *ac_stream_by_id(const animc_client *c, uint64_t id);
animc_stream *ac_stream_by_serial(const animc_client *c, uint64_t serial);
/* Drop every stream's read cursor of a forgotten instance. */
void ac_stream_forget_instance(animc_client *c, uint64_t id);

/* reconnect.c */
/* Reconnect within deadline, with back-off between attempts. */
int ac_reconnect_run(animc_client *c, int64_t deadline);
/* One attempt now (process()); schedules the next on failure. */
int ac_reconnect_try(animc_client *c, int64_t deadline);

#endif
