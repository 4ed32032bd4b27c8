/*
 * m2_internal.h - what the parts of the M2 parser share, internal to
 * formats/: the parse context, the checked {count, offset} reader, the
 * model's one allocation, and each part's entry.
 *
 *   m2.c           the header, the unread blocks, the allocation, the entry
 *   m2_track.c     tracks
 *   m2_sequence.c  global sequences, sequences and aliases, the animation
 *                  lookups
 *   m2_bone.c      bones, their order, the key-bone and bone lookups
 *   m2_vertex.c    vertices
 *   m2_view.c      views (the index and triangle lists)
 *   m2_attach.c    attachments, their lookup, events
 *   m2_emitter.c   particle emitters
 *
 * Each part reads blocks whose {count, offset} the header pass has already
 * checked against the file (m2_header_block), and the records' own arrays
 * through m2_array, so no part reads a byte it has not checked.
 */
#ifndef ANIMD_M2_INTERNAL_H
#define ANIMD_M2_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/formats/bin_reader.h"
#include "daemon/formats/m2/m2.h"

struct m2_ctx {
	struct bin_reader r;
	struct m2_model *m;
	const struct m2_layout *l;
	uint32_t header_bytes;          /* arrays start at or after it */
	uint32_t emitter_bytes;         /* the layout's, or 492 for a 264 model
					   with global flag 0x200 */
	uint32_t track_slots;           /* room in m->tracks */
	/* The header's {count, offset} pairs, checked, by field offset / 4. */
	struct m2_block hdr[M2_HEADER_BYTES / 4];
	/* The model's allocation, handed out front to back. */
	unsigned char *arena;
	size_t arena_used, arena_size;
	/* Bytes of track and view arrays still allowed to be checked
	 * (m2_spend). */
	uint64_t budget;
	/* Where notes go (the model's, or a companion's caller's); may be
	 * NULL. */
	struct diag_notes *notes;
};

/* A note (diag.h) at offset off of the buffer c reads: fmt, a literal,
 * names its kind. */
#define m2_note(c, off, ...) \
	diag_note_offset((c)->notes, (uint64_t)(off) + (c)->r.base, __VA_ARGS__)

/* Arrays may overlap (nothing forbids two tracks one timeline), but a
 * file of N bytes whose records all point at its one big array would
 * make the parse quadratic: the arrays checked may add up to this many
 * times the file, plus a little for tiny files. */
#define M2_SHARE_FACTOR 8u
#define M2_SHARE_SLACK (1u << 20)

/* Who owns a track, for messages: "bone 12 rotation",
 * "particle emitter 2 emission rate". */
struct m2_owner {
	const char *kind;
	uint32_t index;
	const char *field;
};

/* An error at file offset off: -EINVAL. */
int m2_error(const struct m2_ctx *c, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The {uint32 count, uint32 offset} pair at file offset at (inside a
 * record already checked) and the array of size-byte elements it
 * describes: inside the file, and not inside the header unless empty.
 * The name (a printf format) is only formatted for a message.
 */
int m2_array(const struct m2_ctx *c, uint64_t at, uint32_t size, struct m2_block *out,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The checked header pair at field. */
const struct m2_block *m2_header_block(const struct m2_ctx *c, enum m2_header_field field);

/* count x size zeroed bytes of the model's allocation (sized in advance for
 * everything the header's counts need). */
void *m2_alloc(struct m2_ctx *c, size_t count, size_t size);

/* Account for n more bytes of arrays about to be checked for the record
 * at file offset at: 0, or -EINVAL once the budget is spent. */
int m2_spend(struct m2_ctx *c, uint64_t n, uint64_t at);

/* "bone 12 rotation" into buf. */
const char *m2_owner_name(const struct m2_owner *w, char *buf, size_t size);

/* The 28-byte track (20 for NONE: no values) at file offset at, inside a
 * record already checked.  finite: every float of every key must be
 * finite.  Needs the model's sequence and global sequence counts. */
int m2_track_read(struct m2_ctx *c, uint64_t at, enum m2_value_type type, bool finite,
		  const struct m2_owner *who, struct m2_track *t);

/* 264 and later: check sequence s's arrays of track t against the
 * buffer of reader r (the model's, or an .anim's), whose reports locate
 * errors in that file: bounds, and for value tracks timestamps in order
 * and (finite) finite keys.  finite as for m2_track_read. */
int m2_track_check_sequence(struct m2_ctx *c, const struct bin_reader *r, const struct m2_track *t,
			    uint32_t s, bool finite);
/* Which sequences need an .anim (264 and later), once every track is read. */
void m2_sequence_data(struct m2_ctx *c);

int m2_sequence_read(struct m2_ctx *c);
int m2_sequence_lookups(struct m2_ctx *c);
int m2_bone_read(struct m2_ctx *c);
int m2_vertex_read(struct m2_ctx *c);
int m2_view_read(struct m2_ctx *c);
/* A view's five arrays and bone count at `at` of reader c->r (a .skin's
 * header at 4, or an inline view), checked against the model. */
int m2_view_decode(struct m2_ctx *c, uint64_t at, uint32_t i, struct m2_view *v);
int m2_attach_read(struct m2_ctx *c);
int m2_emitter_read(struct m2_ctx *c);

/* A lookup table of stride-byte entries led by a 16-bit index, which
 * nothing animd publishes reads: the first entry that is not below limit
 * (or -1, none, when is_signed) is noted, the table kept as stored.  what
 * names the table, target (targets) what its entries index: "sequence"
 * ("sequences"). */
void m2_lookup_note(struct m2_ctx *c, const struct m2_block *b, uint32_t stride, bool is_signed,
		    uint32_t limit, const char *what, const char *target, const char *targets);

#endif
