/*
 * sampling_layers.h - a request's layer stack over its sampled clip
 * (sampling.c's half that blends; sampling.h says what a layer is).
 */
#ifndef ANIMD_SAMPLING_LAYERS_H
#define ANIMD_SAMPLING_LAYERS_H

#include <stddef.h>

#include "daemon/assets/sampling.h"

/* Apply req->layers, bottom-up, to `pose` (the request's clip sampled on
 * skel: skel->joint_count local transforms).  0, or sample_evaluate's
 * errors with a one-line reason in err. */
int sampling_layers_apply(const struct sample_request *req, const struct skeleton *skel,
			  struct transform *pose, char *err, size_t errlen);

#endif
