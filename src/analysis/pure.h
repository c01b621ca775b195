/*
 * pure.h - which calls are known to be pure, and what a call can do to its
 * arguments, from clang's facts (docs/design.md, "Effects"): the table of
 * pure functions is keyed by the resolved declaration (its name, and it
 * declared in a system header or the CUDA toolkit: kp_decl.in_system, or
 * for a call left unresolved in a template, every candidate its name finds:
 * kp_node.lookup_system); what a call may write through an argument comes
 * from the callee's parameter types (kp_decl.param_ty) and the argument's
 * own type (a constant, a const object).
 *
 * Works on the model only.
 */
#ifndef KPIPE_PURE_H
#define KPIPE_PURE_H

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

/* The index of the call's first argument in n->kids (after the callee). */
int kp_call_first_arg(const kp_node *n);

/* What the call n may do to the object argument kid (an index into
 * n->kids) names: 0 nothing (a constant, a template parameter, a const
 * object, a parameter taken by value, const reference or pointer to
 * const, an operand of a comparison or arithmetic operator whose
 * candidates all take their operands so), 1 change it (a non-const lvalue
 * reference parameter, an array handed to a pointer to non-const, or a
 * callee kpipe cannot see), 2 change what it points to only (a pointer
 * handed to a pointer to non-const). */
int kp_call_arg_write(const kp_node *n, int kid);

/* Whether the call n may write what argument kid (a pointer) points to:
 * its parameter a pointer, or a reference to a pointer, to non-const, or
 * unknown; never through a pointer to const handed without a cast. */
int kp_call_arg_writes_pointee(const kp_node *n, int kid);

#endif
