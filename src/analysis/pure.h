/*
 * pure.h - which calls are known to be pure, and what a call can do to its
 * arguments, from clang's facts (docs/design.md, "Effects"): the table of
 * pure functions is keyed by the resolved declaration (its name, and it
 * declared in a system header or the CUDA toolkit: kp_decl.in_system, or
 * for a call left unresolved in a template, every candidate its name finds:
 * kp_node.lookup_system).  What a call may write through an argument
 * (kp_call_arg_write) is declared in src/model/changes.h, which this
 * header includes.
 *
 * Works on the model only.
 */
#ifndef KPIPE_PURE_H
#define KPIPE_PURE_H

#include "changes.h"
#include "model.h"

typedef enum {
	KP_PURE_NO = 0, /* not in the table */
	KP_PURE_VALUE,  /* a function of its operands only (math, conversions):
			 * may be evaluated any number of times */
	KP_PURE_NOMEM   /* writes no memory, but is not a value function (a clock,
			 * a shuffle, a warp vote, __syncwarp, a fence) */
} kp_pure_class;

/* The table's class of a function named nm (a qualified name's last part
 * too: "std::fminf"), ignoring where it is declared. */
kp_pure_class kp_pure_name(const char *nm);

/* The class of the call n: its name in the table and its callee declared
 * in a system header or the CUDA toolkit (a function of the user's file
 * of the same name is not in the table; its body decides). */
kp_pure_class kp_call_pure(const kp_node *n);

#endif
