/*
 * batch_print.h - what a batch says about each file on stderr, quiet by
 * default: the file's warnings and errors, then one line that sums it
 * up; its remarks (loops that are not K-loops, loops pipelined already,
 * what a pass left alone) only with -v.
 */
#ifndef KPIPE_BATCH_PRINT_H
#define KPIPE_BATCH_PRINT_H

#include "rw_result.h"

#include <stdio.h>

/* r's diagnostics on fp (kp_rw_print_diags; without -v, no remarks), then,
 * when `line`, `PATH: 1 of 3 loops pipelined; 1 K-loop refused (1
 * warning); 1 loop left alone (remarks: -v)`. */
void kp_batch_print_file(const kp_rw_result *r, int verbose, int line, FILE *fp);

/* The number of remarks -v would show in r. */
int kp_batch_hidden_remarks(const kp_rw_result *r);

#endif
