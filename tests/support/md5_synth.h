/*
 * md5_synth.h - synthetic MD5 characters of any size, for benchmarks and
 * scale tests: a branching hierarchy of `joints` joints, a skinned mesh of
 * one box per joint, and an anim that animates every component of every
 * joint with small, smooth per-frame rotations (as real motion does).
 */
#ifndef ANIMD_TEST_MD5_SYNTH_H
#define ANIMD_TEST_MD5_SYNTH_H

#include <stdint.h>

/* Writes DIR/NAME.md5mesh and DIR/NAME.md5anim.  0 or -errno. */
int md5_synth_write(const char *dir, const char *name, uint32_t joints, uint32_t frames,
		    uint32_t rate);
/* Each of the two alone (several anims of one character). */
int md5_synth_write_mesh(const char *dir, const char *name, uint32_t joints);
int md5_synth_write_anim(const char *dir, const char *name, uint32_t joints, uint32_t frames,
			 uint32_t rate);

#endif
