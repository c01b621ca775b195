/*
 * carves.h - which local pointers are carve-outs of shared memory
 * (carves.c), from the model alone.
 */
#ifndef KPIPE_CARVES_H
#define KPIPE_CARVES_H

#include "model.h"

/* Whether d is a static shared array of k's body that carve-outs may use:
 * sized, declared in the body, and named only in the initialisers of
 * pointers into it (an array the kernel also names itself is a tile, and
 * pointers into it are tile pointers: analysis/tile_ptr.c). */
int kp_static_carve_base(const kp_kernel *k, const kp_decl *d);

/* When d (a variable of k) is a carve-out, not yet recorded as one: the
 * array it points into, with its offset in that array's elements in *off
 * (NULL: the array itself); else NULL. */
const kp_decl *kp_carve_of(const kp_kernel *k, const kp_decl *d, const kp_node **off);

#endif
