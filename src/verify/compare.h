/*
 * compare.h - the dumps a verifier run writes (runtime/emu/kp_harness.h,
 * kph::dump: "KPB1", then per buffer its name, type, role, count and
 * elements) compared element by element: bit-identical, or NaN against
 * NaN, or within the launch description's tolerance when it gives one.
 * Pure: bytes in, the first mismatch out.
 */
#ifndef KPIPE_VERIFY_COMPARE_H
#define KPIPE_VERIFY_COMPARE_H

#include <stddef.h>

/* The harness's element types (kph::Type). */
enum { KP_DUMP_F32 = 0, KP_DUMP_F16 = 1, KP_DUMP_I8 = 2, KP_DUMP_I32 = 3, KP_DUMP_F64 = 4 };

typedef struct {
	char buffer[64];   /* the buffer's name */
	int type;          /* KP_DUMP_* */
	long index;        /* the first element that differs */
	double expected;   /* the original's value there */
	double got;        /* the rewrite's */
	long ndiff, count; /* how many of the buffer's elements differ */
} kp_mismatch;

/* Compares the rewrite's dump `got` with the original's `ref`.  Returns 0
 * when every element of every buffer matches, 1 with *m set for the first
 * buffer that differs, -1 when a dump is malformed or the two hold other
 * buffers (m->buffer says which). */
int kp_dump_compare(const unsigned char *ref, size_t rlen, const unsigned char *got, size_t glen,
		    double tol_abs, double tol_rel, kp_mismatch *m);

/* "C[17]: expected 0.633573, got nan (510 of 1024 elements differ)".
 * Caller frees. */
char *kp_mismatch_text(const kp_mismatch *m);

/* The value of a half's bits. */
double kp_half_value(unsigned short h);

#endif
