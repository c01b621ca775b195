/*
 * canon_wanted.c - which loops the canon pass looks at (kp_canon_wanted,
 * canon.h): asked by the canon pass and by the inline pass, which runs the
 * canon shapes in its own trial.  Kept apart from pass_canon.c so that the
 * two passes do not call each other (pass_canon.c calls the inline pass's
 * kp_inline_loop).
 */
#include "canon.h"

#include "transform.h"

#include <string.h>

int kp_canon_wanted(const kp_trial_env *e, kp_file *f, const kp_loop *l)
{
	if (l->kernel->error || l->already_pipelined)
		return 0;
	if (l->eligible) {
		/* no transform applies (asked without planning: auto's plan may
		 * ask ptxas) */
		const char *why = NULL;
		const kp_transform *t = e->variant && strcmp(e->variant, "auto")
						? kp_transform_find(e->variant)
						: NULL;
		if (t)
			return !kp_transform_match(t, f, l, e->arch, &f->arena, &why);
		int n;
		const kp_transform *const *all = kp_transform_all(&n);
		for (int i = 0; i < n; i++)
			if (kp_transform_match(all[i], f, l, e->arch, &f->arena, &why))
				return 0;
		return 1;
	}
	return kp_trial_refused_for(l, "kpipe-partial-tile-write") ||
	       kp_trial_refused_for(l, "kpipe-load-decl-used-later") ||
	       (l->loads_carve_out && kp_trial_refused_for(l, "kpipe-tile-escapes")) ||
	       kp_trial_refused_for(l, "kpipe-load-depends-on-compute") || /* shape 8 */
	       kp_trial_refused_for(l, "kpipe-load-side-effect") ||
	       ((l->node->kind == KP_N_WHILE || l->node->kind == KP_N_DO) &&
		kp_trial_refused_for(l, "kpipe-loop-shape"));
}
