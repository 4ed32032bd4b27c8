/*
 * m2_expect.h - what the M2 tests share: parsing a writer's file from an
 * exact-size heap copy (so ASan sees any read past its end), and the
 * check that a file is rejected at an offset with a message, and sampling
 * a loaded asset as the daemon does.  Included by
 * each test_m2*.c after cmocka.h.
 */
#ifndef ANIMD_TEST_M2_EXPECT_H
#define ANIMD_TEST_M2_EXPECT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/formats/m2/m2.h"
#include "tests/support/m2_writer.h"

/* A parse of a copy of f; the copy lives in *copy (free it after the
 * model).  Returns what m2_parse returns. */
static inline int m2x_parse(const struct m2w_file *f, unsigned char **copy, struct m2_model **m,
			    struct diag *d)
{
	*copy = malloc(f->len ? f->len : 1);
	assert_non_null(*copy);
	memcpy(*copy, f->buf, f->len);
	memset(d, 0, sizeof *d);
	return m2_parse(*copy, f->len, m, d);
}

/* f must fail at offset with a message containing msg. */
static inline void m2x_fails(const struct m2w_file *f, uint64_t offset, const char *msg)
{
	unsigned char *copy;
	struct m2_model *m = (struct m2_model *)1;
	struct diag d;
	int rc = m2x_parse(f, &copy, &m, &d);

	if (rc != -EINVAL || !d.set || d.line != 0 || d.offset != offset ||
	    strstr(d.msg, msg) == NULL || m != NULL)
		fail_msg("got rc %d at offset 0x%llx \"%s\"; want -EINVAL at 0x%llx \"%s\"", rc,
			 (unsigned long long)d.offset, d.msg, (unsigned long long)offset, msg);
	free(copy);
}

/* The model of a valid file; its buffer in *copy. */
static inline struct m2_model *m2x_ok(const struct m2w_file *f, unsigned char **copy)
{
	struct m2_model *m = NULL;
	struct diag d;
	int rc = m2x_parse(f, copy, &m, &d);

	if (rc != 0)
		fail_msg("rc %d at offset 0x%llx: %s", rc, (unsigned long long)d.offset, d.msg);
	assert_non_null(m);
	return m;
}

/* f must load, with a note at offset whose message contains msg (the
 * strictness rule: what the game ignores is noted, not refused). */
static inline void m2x_notes(const struct m2w_file *f, uint64_t offset, const char *msg)
{
	unsigned char *copy;
	struct m2_model *m = m2x_ok(f, &copy);
	char all[4096] = "";
	size_t o = 0;

	for (uint32_t i = 0; i < m->notes.count; i++) {
		const struct diag_note *n = &m->notes.note[i];

		if (n->offset == offset && strstr(n->msg, msg) != NULL) {
			m2_model_free(m);
			free(copy);
			return;
		}
		o += (size_t)snprintf(all + o, o < sizeof all ? sizeof all - o : 0,
				      " [0x%llx \"%s\"]", (unsigned long long)n->offset, n->msg);
		if (o >= sizeof all)
			o = sizeof all - 1;
	}
	m2_model_free(m);
	free(copy);
	fail_msg("no note at 0x%llx \"%s\"; the notes:%s", (unsigned long long)offset, msg, all);
}

/* Sample asset a's clip at playback time t in space sp (fails the test on
 * an error). */
static inline void m2x_sample(const struct asset *a, const char *clip, double t,
			      enum sample_space sp, struct sample_result *r)
{
	struct sample_request q = { .asset = a, .clip = clip, .time = t, .space = sp };
	char err[256];

	if (sample_evaluate(&q, r, err, sizeof err) != 0)
		fail_msg("%s", err);
}

#endif
