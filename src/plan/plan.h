/*
 * plan.h - chooses how to pipeline an eligible loop: which transform
 * (cp.async or register staging), how many stages, and the reason shown
 * to the user.  The plan is plain data so it can be printed and tested.
 */
#ifndef KPIPE_PLAN_H
#define KPIPE_PLAN_H

#include "transform.h"

typedef struct {
	const kp_transform *xform; /* NULL when refused */
	int stages;
	const char *why;           /* the reason for the choice */
	const char *refuse_id;     /* when refused */
	const char *refuse_msg;
} kp_plan;

/* requested: "auto", "cp-async" or "register". Strings live in f's arena. */
void kp_plan_loop(kp_plan *p, kp_file *f, const kp_loop *l, const kp_arch *a, const char *requested,
		  int stages);

#endif
