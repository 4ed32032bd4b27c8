/*
 * json_out.h - small builders over jansson for the offline tools' --json
 * output.  Numbers print with %.9g (exact for floats); a non-finite value
 * becomes null because JSON has no spelling for it.
 */
#ifndef ANIMD_JSON_OUT_H
#define ANIMD_JSON_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "daemon/anim/math3d.h"

json_t *json_out_number(double v);
json_t *json_out_floats(const float *v, size_t n);
json_t *json_out_vec3(vec3 v);
json_t *json_out_quat(quat q);
json_t *json_out_mat34(const mat34 *m);
json_t *json_out_string_or_null(const char *s);

/* Print compactly with a final newline; steals the reference.  0 or -EIO. */
int json_out_print(json_t *root, FILE *f);

#endif
