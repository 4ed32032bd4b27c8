/*
 * md5anim.c - the .md5anim parser: header, hierarchy, bounds, baseframe,
 * then numFrames frame blocks.  Every array is sized from the header once
 * its counts have been checked against the bytes left.
 */
#include "daemon/formats/md5/md5.h"

#include <errno.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5_common.h"

/* The fewest bytes a valid file spends per joint, per frame and per frame
 * value (see md5mesh.c for why these must be lower bounds). */
#define MD5_ANIM_JOINT_BYTES 21         /* ""0 0 0 in hierarchy + (0 0 0)(0 0 0) in baseframe */
#define MD5_ANIM_FRAME_BYTES 23         /* (0 0 0)(0 0 0) in bounds + frame 0{} */
#define MD5_ANIM_VALUE_BYTES 2          /* a digit and a separator */

static int md5_anim_header(struct lexer *lx, struct md5_anim *a)
{
	struct lex_token tok;
	int64_t v;
	int rc;

	rc = md5_common_header(lx, &a->commandline);
	if (rc < 0)
		return rc;
	rc = md5_common_count(lx, "numFrames", 1, MD5_MAX_FRAMES, MD5_ANIM_FRAME_BYTES,
			      &a->num_frames);
	if (rc < 0)
		return rc;
	rc = md5_common_count(lx, "numJoints", 1, MD5_MAX_JOINTS, MD5_ANIM_JOINT_BYTES,
			      &a->num_joints);
	if (rc < 0)
		return rc;
	/* Doom divides by the frame rate: 0 is not a rate. */
	if (lex_expect_word(lx, "frameRate") < 0)
		return -EINVAL;
	rc = md5_common_int(lx, "frameRate", 1, INT32_MAX, &v, NULL);
	if (rc < 0)
		return rc;
	a->frame_rate = (uint32_t)v;
	if (lex_expect_word(lx, "numAnimatedComponents") < 0)
		return -EINVAL;
	rc = md5_common_int(lx, "numAnimatedComponents", 0, 6 * (int64_t)a->num_joints, &v,
			    &tok);
	if (rc < 0)
		return rc;
	a->num_components = (uint32_t)v;
	/* At most 2^24 frames of 6 * 65535 values: the product fits in 64 bits. */
	if ((uint64_t)a->num_frames * a->num_components * MD5_ANIM_VALUE_BYTES >
	    (uint64_t)lex_remaining(lx)) {
		diag_at(lx->diag, tok.line, tok.col,
			"numAnimatedComponents %lu in each of %lu frames is more than the file can hold",
			(unsigned long)a->num_components, (unsigned long)a->num_frames);
		return -EINVAL;
	}
	return 0;
}

static unsigned md5_anim_popcount(uint32_t flags)
{
	unsigned n = 0;

	for (; flags != 0; flags &= flags - 1)
		n++;
	return n;
}

static int md5_anim_joint(struct lexer *lx, struct md5_anim *a, uint32_t i)
{
	struct md5_anim_joint *j = &a->joints[i];
	struct lex_token tok;
	uint64_t end;
	int64_t v;
	int rc;

	rc = md5_common_name(lx, "joint name", &j->name);
	if (rc < 0)
		return rc;

	rc = md5_common_int(lx, "joint parent", INT64_MIN, INT64_MAX, &v, &tok);
	if (rc < 0)
		return rc;
	if (i == 0 && v != -1) {
		diag_at(lx->diag, tok.line, tok.col,
			"joint 0 \"%.40s\" has parent %lld; the first joint must be the root (-1)",
			j->name, (long long)v);
		return -EINVAL;
	}
	if (i > 0 && v == -1) {
		diag_at(lx->diag, tok.line, tok.col,
			"joint %lu \"%.40s\" is a second root; only joint 0 may have parent -1",
			(unsigned long)i, j->name);
		return -EINVAL;
	}
	if (i > 0 && (v < 0 || v >= (int64_t)i)) {
		diag_at(lx->diag, tok.line, tok.col,
			"joint %lu \"%.40s\" has parent %lld; a parent must be an earlier joint",
			(unsigned long)i, j->name, (long long)v);
		return -EINVAL;
	}
	j->parent = (int32_t)v;

	rc = md5_common_int(lx, "joint flags", INT64_MIN, INT64_MAX, &v, &tok);
	if (rc < 0)
		return rc;
	if (v < 0 || ((uint64_t)v & ~(uint64_t)MD5_ANIM_ALL) != 0) {
		diag_at(lx->diag, tok.line, tok.col,
			"joint \"%.40s\" has flags %lld; only the six bits of 63 are allowed",
			j->name, (long long)v);
		return -EINVAL;
	}
	j->flags = (uint32_t)v;

	rc = md5_common_int(lx, "joint startIndex", 0, INT64_MAX, &v, &tok);
	if (rc < 0)
		return rc;
	/* Doom checks only the first component and reads past the frame. */
	end = (uint64_t)v + md5_anim_popcount(j->flags);
	if (end > a->num_components && j->flags != 0) {
		diag_at(lx->diag, tok.line, tok.col,
			"joint \"%.40s\" reads components %lld..%llu but frames hold %lu",
			j->name, (long long)v, (unsigned long long)end - 1,
			(unsigned long)a->num_components);
		return -EINVAL;
	}
	/* A joint without flags reads nothing: its startIndex is never used
	 * (by Doom or by animd), wherever it points. */
	if (end > a->num_components) {
		diag_note_at(&a->notes, tok.line, tok.col,
			     "joint \"%.40s\" has flags 0 and reads no component: its startIndex "
			     "%lld, past the %lu components of a frame, is not used", j->name,
			     (long long)v, (unsigned long)a->num_components);
		v = a->num_components;
	}
	j->start_index = (uint32_t)v;

	a->base[i].name = j->name;
	a->base[i].parent = j->parent;
	return 0;
}

static int md5_anim_hierarchy(struct lexer *lx, struct md5_anim *a)
{
	uint32_t i;
	int rc;

	if (lex_expect_word(lx, "hierarchy") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < a->num_joints; i++) {
		rc = md5_common_more(lx, "joints", i, "numJoints", a->num_joints);
		if (rc < 0)
			return rc;
		rc = md5_anim_joint(lx, a, i);
		if (rc < 0)
			return rc;
	}
	return md5_common_close(lx, "numJoints", a->num_joints);
}

static int md5_anim_bounds(struct lexer *lx, struct md5_anim *a)
{
	uint32_t i;

	if (lex_expect_word(lx, "bounds") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < a->num_frames; i++)
		if (md5_common_more(lx, "bounds", i, "numFrames", a->num_frames) < 0 ||
		    md5_common_vec(lx, "bounds minimum", &a->bounds[i][0], 3) < 0 ||
		    md5_common_vec(lx, "bounds maximum", &a->bounds[i][3], 3) < 0)
			return -EINVAL;
	return md5_common_close(lx, "numFrames", a->num_frames);
}

static int md5_anim_baseframe(struct lexer *lx, struct md5_anim *a)
{
	uint32_t i;

	if (lex_expect_word(lx, "baseframe") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < a->num_joints; i++) {
		struct md5_joint *b = &a->base[i];

		if (md5_common_more(lx, "joints", i, "numJoints", a->num_joints) < 0 ||
		    md5_common_vec(lx, "baseframe position", b->pos, 3) < 0 ||
		    md5_common_vec(lx, "baseframe orientation", b->orient, 3) < 0)
			return -EINVAL;
		b->orient[3] = md5_quat_w(b->orient[0], b->orient[1], b->orient[2]);
	}
	return md5_common_close(lx, "numJoints", a->num_joints);
}

/* The hot loop of the parser: lex_next and a '}' test instead of a peek
 * per value, so a short frame gets a count rather than "expected a number". */
static int md5_anim_frame(struct lexer *lx, struct md5_anim *a, uint32_t f)
{
	float *dst = a->components + (size_t)f * a->num_components;
	struct lex_token tok;
	char found[64];
	uint32_t k;

	if (md5_common_line(lx, "frame", f, "numFrames", a->num_frames) < 0 ||
	    md5_common_index(lx, "frame", f) < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (k = 0; k < a->num_components; k++) {
		if (lex_try_float(lx, &dst[k]))
			continue;
		if (lex_next(lx, &tok) < 0)
			return -EINVAL;
		if (lex_token_float(&tok, &dst[k]) == 0)
			continue;
		if (lex_is_punct(&tok, '}'))
			diag_at(lx->diag, tok.line, tok.col,
				"frame %lu ends after %lu values but numAnimatedComponents is %lu",
				(unsigned long)f, (unsigned long)k,
				(unsigned long)a->num_components);
		else
			diag_at(lx->diag, tok.line, tok.col,
				"expected a finite number for frame %lu value %lu, found %s",
				(unsigned long)f, (unsigned long)k,
				lex_describe(&tok, found, sizeof found));
		return -EINVAL;
	}
	return md5_common_close(lx, "numAnimatedComponents", a->num_components);
}

static int md5_anim_body(struct lexer *lx, struct md5_anim *a)
{
	uint32_t f;
	int rc;

	rc = md5_anim_header(lx, a);
	if (rc < 0)
		return rc;
	a->joints = md5_common_calloc(a->num_joints, sizeof *a->joints);
	a->base = md5_common_calloc(a->num_joints, sizeof *a->base);
	a->bounds = md5_common_calloc(a->num_frames, sizeof *a->bounds);
	a->components = md5_common_calloc((size_t)a->num_frames * a->num_components,
					  sizeof *a->components);
	if (a->joints == NULL || a->base == NULL || a->bounds == NULL || a->components == NULL)
		return md5_common_nomem(lx);
	rc = md5_anim_hierarchy(lx, a);
	if (rc < 0)
		return rc;
	rc = md5_anim_bounds(lx, a);
	if (rc < 0)
		return rc;
	rc = md5_anim_baseframe(lx, a);
	if (rc < 0)
		return rc;
	for (f = 0; f < a->num_frames; f++) {
		rc = md5_anim_frame(lx, a, f);
		if (rc < 0)
			return rc;
	}
	return md5_common_end(lx, &a->notes);
}

int md5_anim_parse(const char *buf, size_t len, struct md5_anim **out, struct diag *d)
{
	struct md5_anim *a;
	struct lexer lx;
	int rc;

	lex_init(&lx, buf, len, MD5_PUNCTS, 0, d);
	a = calloc(1, sizeof *a);
	if (a == NULL)
		return md5_common_nomem(&lx);
	rc = md5_anim_body(&lx, a);
	if (rc < 0) {
		md5_anim_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void md5_anim_free(struct md5_anim *a)
{
	uint32_t i;

	if (a == NULL)
		return;
	/* base[i].name points at joints[i].name: freed once, here. */
	if (a->joints != NULL)
		for (i = 0; i < a->num_joints; i++)
			free(a->joints[i].name);
	free(a->joints);
	free(a->base);
	free(a->bounds);
	free(a->components);
	free(a->commandline);
	free(a);
}
