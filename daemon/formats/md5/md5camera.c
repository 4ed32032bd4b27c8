/*
 * md5camera.c - the .md5camera parser: header, numFrames, frameRate,
 * numCuts, the cuts block and one camera line per frame.
 */
#include "daemon/formats/md5/md5.h"

#include <errno.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5_common.h"

/* Lower bounds of the bytes per element (see md5mesh.c). */
#define MD5_CAMERA_FRAME_BYTES 15       /* (0 0 0)(0 0 0)0 */
#define MD5_CAMERA_CUT_BYTES   2        /* a digit and a separator */

static int md5_camera_header(struct lexer *lx, struct md5_camera *c)
{
	int64_t v;
	int rc;

	rc = md5_common_header(lx, &c->commandline);
	if (rc < 0)
		return rc;
	rc = md5_common_count(lx, "numFrames", 1, MD5_MAX_FRAMES, MD5_CAMERA_FRAME_BYTES,
			      &c->num_frames);
	if (rc < 0)
		return rc;
	if (lex_expect_word(lx, "frameRate") < 0)
		return -EINVAL;
	rc = md5_common_int(lx, "frameRate", 1, INT32_MAX, &v, NULL);
	if (rc < 0)
		return rc;
	c->frame_rate = (uint32_t)v;
	return md5_common_count(lx, "numCuts", 0, c->num_frames, MD5_CAMERA_CUT_BYTES,
				&c->num_cuts);
}

static int md5_camera_cuts(struct lexer *lx, struct md5_camera *c)
{
	uint32_t i;
	int rc;

	if (lex_expect_word(lx, "cuts") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < c->num_cuts; i++) {
		struct lex_token tok;
		int64_t v;

		rc = md5_common_more(lx, "cuts", i, "numCuts", c->num_cuts);
		if (rc < 0)
			return rc;
		rc = md5_common_int(lx, "cut", INT64_MIN, INT64_MAX, &v, &tok);
		if (rc < 0)
			return rc;
		/* A cut at frame c jumps from c to c + 1: frame 0 has no
		 * predecessor and the last frame no successor. */
		if (v < 1 || v >= (int64_t)c->num_frames) {
			diag_at(lx->diag, tok.line, tok.col,
				"cut %lld is out of range: cuts must be within 1..numFrames-1 and numFrames is %lu",
				(long long)v, (unsigned long)c->num_frames);
			return -EINVAL;
		}
		if (i > 0 && (uint32_t)v <= c->cuts[i - 1]) {
			diag_at(lx->diag, tok.line, tok.col,
				"cuts must be strictly ascending: %lld follows %lu", (long long)v,
				(unsigned long)c->cuts[i - 1]);
			return -EINVAL;
		}
		c->cuts[i] = (uint32_t)v;
	}
	return md5_common_close(lx, "numCuts", c->num_cuts);
}

static int md5_camera_frames(struct lexer *lx, struct md5_camera *c)
{
	uint32_t i;

	if (lex_expect_word(lx, "camera") < 0 || lex_expect_punct(lx, '{') < 0)
		return -EINVAL;
	for (i = 0; i < c->num_frames; i++) {
		struct md5_camera_frame *fr = &c->frames[i];

		if (md5_common_more(lx, "frames", i, "numFrames", c->num_frames) < 0 ||
		    md5_common_vec(lx, "camera position", fr->pos, 3) < 0 ||
		    md5_common_vec(lx, "camera orientation", fr->orient, 3) < 0 ||
		    lex_expect_float(lx, "camera fov", &fr->fov) < 0)
			return -EINVAL;
		fr->orient[3] = md5_quat_w(fr->orient[0], fr->orient[1], fr->orient[2]);
	}
	return md5_common_close(lx, "numFrames", c->num_frames);
}

static int md5_camera_body(struct lexer *lx, struct md5_camera *c)
{
	int rc;

	rc = md5_camera_header(lx, c);
	if (rc < 0)
		return rc;
	c->cuts = md5_common_calloc(c->num_cuts, sizeof *c->cuts);
	c->frames = md5_common_calloc(c->num_frames, sizeof *c->frames);
	if (c->cuts == NULL || c->frames == NULL)
		return md5_common_nomem(lx);
	rc = md5_camera_cuts(lx, c);
	if (rc < 0)
		return rc;
	rc = md5_camera_frames(lx, c);
	if (rc < 0)
		return rc;
	return md5_common_end(lx, &c->notes);
}

int md5_camera_parse(const char *buf, size_t len, struct md5_camera **out, struct diag *d)
{
	struct md5_camera *c;
	struct lexer lx;
	int rc;

	lex_init(&lx, buf, len, MD5_PUNCTS, 0, d);
	c = calloc(1, sizeof *c);
	if (c == NULL)
		return md5_common_nomem(&lx);
	rc = md5_camera_body(&lx, c);
	if (rc < 0) {
		md5_camera_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void md5_camera_free(struct md5_camera *c)
{
	if (c == NULL)
		return;
	free(c->cuts);
	free(c->frames);
	free(c->commandline);
	free(c);
}
