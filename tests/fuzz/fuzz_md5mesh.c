/*
 * libFuzzer harness for the .md5mesh parser: parse, check that what came
 * out keeps md5.h's promises (a parser bug that lets a bad index through
 * is as bad as a crash), free.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/formats/md5/md5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(const struct md5_model *m)
{
	uint32_t i, k;

	if (m->num_joints < 1 || m->joints == NULL || m->meshes == NULL || m->commandline == NULL)
		abort();
	for (i = 0; i < m->num_joints; i++)
		if (m->joints[i].name == NULL || m->joints[i].parent < -1 ||
		    m->joints[i].parent >= (int32_t)i)
			abort();
	for (i = 0; i < m->num_meshes; i++) {
		const struct md5_mesh *mesh = &m->meshes[i];

		if (mesh->shader == NULL)
			abort();
		for (k = 0; k < mesh->num_verts; k++)
			if (mesh->verts[k].weight_count == 0 ||
			    (uint64_t)mesh->verts[k].first_weight + mesh->verts[k].weight_count >
				    mesh->num_weights)
				abort();
		for (k = 0; k < mesh->num_tris; k++)
			if (mesh->tris[k][0] >= mesh->num_verts || mesh->tris[k][1] >= mesh->num_verts ||
			    mesh->tris[k][2] >= mesh->num_verts)
				abort();
		for (k = 0; k < mesh->num_weights; k++)
			if (mesh->weights[k].joint >= m->num_joints)
				abort();
	}
}

/* A file that loads may carry notes: each located at a line and column. */
static void check_notes(const struct diag_notes *n)
{
	if (n->count > DIAG_NOTES_MAX)
		abort();
	for (uint32_t i = 0; i < n->count; i++)
		if (n->note[i].line == 0 || n->note[i].col == 0 || n->note[i].msg[0] == '\0')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md5_model *m = NULL;
	struct diag d = { 0 };
	int rc;

	rc = md5_mesh_parse((const char *)data, size, &m, &d);
	if (rc == 0) {
		check_model(m);
		check_notes(&m->notes);
		md5_model_free(m);
	} else if (m != NULL || !d.set || d.line == 0) {
		abort();        /* failure must leave *out alone and say where */
	}
	return 0;
}
