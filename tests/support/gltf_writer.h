/*
 * gltf_writer.h - glTF 2.0 files from C, for tests, fuzz seeds, benchmarks
 * and demos.  The prefix is gltfw_.  Allocation failure aborts: this is
 * test support.
 *
 * Data goes into one binary buffer, each accessor in a buffer view of its
 * own (4-byte aligned), encoded as asked: any component type, normalised
 * or not, any accessor type (MAT2/MAT3 columns padded to 4 bytes as the
 * specification lays them out), a byteStride that pads each element, or
 * sparse over a base (or over zeros).  The JSON objects (nodes, meshes,
 * skins, animations, scenes) are given as text, appended to their array
 * in order: the writer checks nothing, so a test can write any file, valid
 * or not.  The same description writes a .gltf with a .bin beside it, a
 * .gltf with the buffer as a base64 data: URI, or a .glb.
 *
 *	struct gltfw *w = gltfw_new();
 *	float t[] = { 0, 1 }, q[] = { 0,0,0,1, 0,0,0.7071068f,0.7071068f };
 *	int in = gltfw_floats(w, t, 2, "SCALAR");
 *	int out = gltfw_floats(w, q, 2, "VEC4");
 *	gltfw_add(w, "nodes", "{\"name\": \"root\"}");
 *	gltfw_add(w, "animations", "{\"samplers\": [{\"input\": %d, \"output\": %d}], "
 *		  "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": "
 *		  "\"rotation\"}}]}", in, out);
 *	gltfw_glb(w, &buf, &len);          (or gltfw_gltf / gltfw_write)
 *	gltfw_free(w);
 */
#ifndef ANIMD_TEST_GLTF_WRITER_H
#define ANIMD_TEST_GLTF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gltfw;

enum gltfw_mode {
	GLTFW_EXTERNAL,         /* "uri": "NAME.bin", the bytes in a file of their own */
	GLTFW_EMBEDDED,         /* "uri": "data:application/octet-stream;base64,..." */
	GLTFW_GLB,              /* the binary container */
};

struct gltfw *gltfw_new(void);
void gltfw_free(struct gltfw *w);

/*
 * An accessor of `count` elements of `type` ("SCALAR" .. "MAT4") whose
 * values are `v` (count * components floats, a matrix column by column),
 * stored as `component` (5120 .. 5126): a normalised integer as round(v *
 * max) (127, 255, 32767, 65535), another integer as round(v).  `stride`
 * 0 packs elements; else each takes `stride` bytes.  Returns its index.
 */
int gltfw_accessor(struct gltfw *w, const float *v, uint32_t count, const char *type,
		   uint32_t component, bool normalized, uint32_t stride);
/* Floats, packed. */
int gltfw_floats(struct gltfw *w, const float *v, uint32_t count, const char *type);
/* Unsigned integers (indices, joints) as `component`, packed. */
int gltfw_uints(struct gltfw *w, const uint32_t *v, uint32_t count, const char *type,
		uint32_t component);
/*
 * A sparse accessor: `base` (count * components floats, or NULL: no
 * buffer view, zeros) with `n` substitutions at `indices` (strictly
 * increasing, stored as `index_component`) by `values` (n elements).
 * Floats.
 */
int gltfw_sparse(struct gltfw *w, const float *base, uint32_t count, const char *type,
		 uint32_t n, const uint32_t *indices, uint32_t index_component,
		 const float *values);

/* Append a JSON value (printf format) to top-level array `array` ("nodes",
 * "meshes", "skins", "animations", "scenes", "materials", ...).  Its index
 * in that array is returned. */
int gltfw_add(struct gltfw *w, const char *array, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Set a top-level member to a JSON value ("scene", "0"; "extensionsUsed",
 * "[\"KHR_mesh_quantization\"]"). */
void gltfw_set(struct gltfw *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The document as JSON (NUL-terminated, malloc'd): buffer 0 named by
 * `bin_uri` (EXTERNAL), embedded (EMBEDDED) or left without a uri (GLB). */
char *gltfw_json(const struct gltfw *w, enum gltfw_mode mode, const char *bin_uri);
/* The binary buffer (borrowed). */
const unsigned char *gltfw_bin(const struct gltfw *w, size_t *len);
/* A .glb in memory (malloc'd). */
void gltfw_glb(const struct gltfw *w, unsigned char **out, size_t *len);
/* Write DIR/NAME.gltf (+ DIR/NAME.bin) or DIR/NAME.glb.  0 or -errno. */
int gltfw_write(const struct gltfw *w, enum gltfw_mode mode, const char *dir, const char *name);

/*
 * For an independent check of what the tests write: when the environment
 * names a directory in ANIMD_GLTF_KEEP, the document goes there as a .glb
 * and as a .gltf with its .bin, named PROGRAM-N.conforming or
 * PROGRAM-N.nonconforming (a document a test writes outside the
 * specification on purpose: a repeated key time, a quaternion that is not
 * unit, an integer translation).  tests/gltf_validate.sh hands them to the
 * Khronos glTF-Validator, which must find no error in the first and at
 * least one in the second.  Nothing without the variable.
 */
void gltfw_keep(const struct gltfw *w, bool conforming);

#endif
