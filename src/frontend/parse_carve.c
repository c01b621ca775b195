/*
 * parse_carve.c - records the carve-outs of shared memory on their
 * declarations once the model is built (kp_decl.dyn_base, dyn_off; the
 * pointer then reads as a shared array of unknown bounds: is_shared,
 * is_array, no dimensions), for the kernels of the main file and of each
 * header model.  src/model/carves.c decides which pointers are carve-outs;
 * the analysis reads the marks and writes nothing into the model.
 */
#include "parse.h"
#include "parse_int.h"

#include "carves.h"

static int mark_carve(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	kp_kernel *k = ud;
	kp_decl *d = n->kind == KP_N_VARDECL ? n->decl : NULL;
	const kp_node *off;
	const kp_decl *base = kp_carve_of(k, d, &off);
	if (!base)
		return 1;
	d->dyn_base = base;
	d->dyn_off = off;
	d->is_shared = 1;
	d->is_array = 1;
	d->ndims = 0;
	return 1;
}

static void mark_model(kp_file *m)
{
	for (int i = 0; i < m->nkernels; i++)
		if (m->kernels[i]->body)
			kp_node_walk(m->kernels[i]->body, NULL, mark_carve, m->kernels[i]);
}

void kp_parse_mark_carves(kp_file *f)
{
	mark_model(f);
	for (int h = 0; h < f->nheaders; h++)
		mark_model(f->headers[h]);
}
