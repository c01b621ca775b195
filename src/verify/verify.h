/*
 * verify.h - a rewrite run against its original before it is written
 * (docs/verify.md): both versions of one file are prepared for the CPU
 * emulator (prep.h), compiled with g++ (C++17) against it with a launcher
 * made from the launch description (vharness.h), run at the description's
 * small sizes under several thread orders (forward, reverse, one random)
 * and both cp.async completion points, and every buffer of every run of
 * the rewrite is compared with the original's (compare.h).  Results are
 * cached by content under kpipe's cache folder.
 *
 * The outcome is one of: passed; failed, with the launch and the first
 * mismatch or error; unavailable, with the reason (never a pass).
 *
 * Runs g++ and the compiled launchers (proc.h); writes only under the
 * cache folder or a temporary one; prints nothing.
 */
#ifndef KPIPE_VERIFY_H
#define KPIPE_VERIFY_H

#include <stddef.h>

typedef enum { KP_VERIFY_PASSED, KP_VERIFY_FAILED, KP_VERIFY_UNAVAILABLE } kp_verify_status;

typedef struct {
	const char *path; /* the file as named: its folder holds its quoted includes */
	const char *orig; /* the original's text */
	size_t orig_len;
	const char *rew; /* the rewrite's text */
	size_t rew_len;
	const char *spec; /* the launch description; NULL: NAME.launch.json beside path */
	/* a description kpipe made (own_launch.h), used instead of spec */
	const char *spec_text;
	/* the cache folder; NULL: kpipe's (KPIPE_CACHE_DIR, pch.h), which may be
	 * none; "" or "off": none (a temporary folder, removed after) */
	const char *cache_dir;
} kp_verify_input;

typedef struct {
	kp_verify_status status;
	char *kernel; /* the kernel launched ("matmul<32>"), or NULL */
	char *launch; /* failed: the launch that differed (size, order, cp.async timing) */
	char *detail; /* failed: the first mismatch or error; unavailable: why */
	int runs;     /* runs of the rewrite compared */
	int cached;   /* the result came from the cache */
	double seconds;
} kp_verify_result;

/* Verifies in's rewrite; fills r (release it).  Returns r->status. */
kp_verify_status kp_verify(const kp_verify_input *in, kp_verify_result *r);
void kp_verify_result_release(kp_verify_result *r);

#endif
