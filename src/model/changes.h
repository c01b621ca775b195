/*
 * changes.h - what may change a variable, from the model alone
 * (changes.c): lvalue roots, write targets, what a call may write through
 * an argument, and whether a function changes a variable.
 */
#ifndef KPIPE_CHANGES_H
#define KPIPE_CHANGES_H

#include "model.h"

/* The comparison and arithmetic operators (an `operator` name's rest:
 * "<", "+", "&&" ...): none assigns its operands. */
int kp_op_reads_only(const char *op);

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

/* The variable an lvalue (or address) expression is rooted at: the
 * DECLREF of `As` in `As[i][j]`, `*(float4 *)&As[i]`, `p + 4`; or NULL. */
kp_node *kp_lvalue_root(kp_node *n);

/* What a write node writes: the target of an assignment (plain or
 * compound; *plain says which) or of ++/--; NULL for other nodes. */
kp_node *kp_write_target(const kp_node *n, int *plain);

/* Whether d is assigned, incremented, has its address taken, or is handed
 * to something that may change it (a non-const reference parameter, an
 * unknown callee, asm, a lambda) anywhere in k's body. */
int kp_assigned_in(const kp_kernel *k, const kp_decl *d);
/* kp_assigned_in(), but an asm statement of f's text changes only its
 * output operands (an input "r"(addr) leaves addr as it is). */
int kp_changed_in(const kp_file *f, const kp_kernel *k, const kp_decl *d);

#endif
