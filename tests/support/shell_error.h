/*
 * The codec's error metric measured from outside (ACL's): the largest
 * displacement, over every frame and joint, of the points at `shell` from
 * each joint along its axes, in model space, between two clips of one
 * skeleton sampled at the first one's frames.  In double, independent of
 * the builder's own float measure.
 */
#ifndef ANIMD_TESTS_SHELL_ERROR_H
#define ANIMD_TESTS_SHELL_ERROR_H

#include "daemon/anim/clip.h"
#include "daemon/anim/skeleton.h"

double shell_error(const struct skeleton *s, const struct clip *a, const struct clip *b,
		   float shell);

#endif
