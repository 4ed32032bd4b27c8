/*
 * x_import_internal.h - what the parts of the .x import share: a cursor
 * over an object's member values with typed, located reads, the frame
 * table, and matrix conversion.  Internal to anim/x_import*.c.
 */
#ifndef ANIMD_X_IMPORT_INTERNAL_H
#define ANIMD_X_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/anim/math3d.h"
#include "daemon/import/x_import.h"

/* Reads an object's member values in order.  Every read checks the kind
 * (in a binary file an integer never stands for a float nor the reverse;
 * in text an integer may stand for a float) and records a located error. */
struct x_reader {
	const struct x_tree *t;
	const struct x_object *o;
	uint32_t next;
	struct diag *d;
};

void x_reader_init(struct x_reader *r, const struct x_tree *t, const struct x_object *o,
		   struct diag *d);
/* Values not yet read. */
uint32_t x_reader_left(const struct x_reader *r);
/* Position to blame for the next value (or the object when none is left). */
uint32_t x_reader_pos(const struct x_reader *r);
/* An unsigned integer <= max.  `what` names it in messages. */
int x_read_uint(struct x_reader *r, const char *what, uint32_t max, uint32_t *out);
/* A count of items of `per_item` values each, which the values left must
 * be able to hold: the check that keeps a count from driving an allocation
 * the file cannot back. */
int x_read_count(struct x_reader *r, const char *what, uint32_t per_item, uint32_t *out);
/* A finite float. */
int x_read_float(struct x_reader *r, const char *what, float *out);
/* A float that may be NaN or infinite (normals of degenerate faces). */
int x_read_float_any(struct x_reader *r, const char *what, float *out);
/* n of them, the same as n calls (the same values, the same errors). */
int x_read_floats(struct x_reader *r, const char *what, float *out, uint32_t n);
int x_read_floats_any(struct x_reader *r, const char *what, float *out, uint32_t n);
/* A string (borrowed from the tree). */
int x_read_string(struct x_reader *r, const char *what, const char **out);

/* 1 if o is a data object of this type (case-sensitive, as D3DX reads). */
bool x_is(const struct x_object *o, const char *type);

/* A row-vector 4x4 matrix (16 floats as the file stores them) as the
 * column-vector transform it means: split into translation, rotation and
 * scale (a mirror as a negative x scale; a shear is lost), as D3DX's
 * D3DXMatrixDecompose splits one. */
struct transform x_matrix_to_transform(const float m[16]);
/* The same matrix exactly, as a column-vector mat34 (its transpose; the
 * last column of the file's matrix is taken as 0 0 0 1). */
mat34 x_row_to_mat34(const float m[16]);
/* Whether the split misses the matrix by more than float rounding. */
bool x_matrix_is_trs(const mat34 *exact, const struct transform *split);

/* A frame's name and joint, for finding frames by name in O(log n): a
 * file of 100,000 frames and as many references must not cost 10^10. */
struct x_frame_name {
	const char *name;
	uint32_t joint;
};

/* The frames, in the skeleton's order (parents first). */
struct x_frames {
	uint32_t count;
	const struct x_object **objects;        /* NULL for the synthetic root */
	int32_t *parents;
	bool synthetic_root;                    /* joint 0 holds loose meshes */
	struct x_frame_name *by_name;           /* sorted by name, then joint */
	uint32_t named;
	/* Every Mesh, in file order, and the joint of the frame holding it
	 * (the synthetic root for a loose one). */
	uint32_t mesh_count;
	const struct x_object **meshes;
	int32_t *mesh_frames;
};

/* Joint of the first frame called `name`, or -1. */
int32_t x_frames_find(const struct x_frames *f, const char *name);

/* Temporaries in t's arena (x_import). */
int x_import_meshes(struct x_tree *t, const struct x_frames *f, struct x_model *m,
		    struct diag *d);
int x_import_clips(const struct x_tree *t, const struct x_frames *f, const char *name,
		   struct x_model *m, struct diag *d);

#endif
