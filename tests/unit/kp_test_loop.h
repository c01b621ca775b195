/*
 * kp_test_loop.h - the first K-loop of an in-memory kernel, parsed
 * (kp_parse, sm_90, no compilation database) and analysed (kp_analyze),
 * for unit tests of the analysis' shapes; and whether a loop gives a
 * reason id.  The file and the analysis are the test file's own statics:
 * kp_test_loop_release() frees them (a TestSuite's .fini).
 */
#ifndef KPIPE_TEST_LOOP_H
#define KPIPE_TEST_LOOP_H

#include "analyze.h"
#include "arch.h"
#include "kp_test_parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static kp_file F;
static kp_analysis AN;

/* the first loop is the K-loop (a loop after it may be a candidate) */
static inline kp_loop *analyse(const char *src)
{
	kp_test_parse(&F, "snippet.cu", src);
	kp_analyze_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.arch = kp_arch_find("sm_90");
	cr_assert_eq(kp_analyze(&AN, &F, &ao), 0);
	cr_assert_geq(AN.nloops, 1, "no loop found");
	return AN.loops[0];
}

static inline int has_reason(const kp_loop *l, const char *id)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return 1;
	return 0;
}

static inline void kp_test_loop_release(void)
{
	kp_file_release(&F);
	memset(&F, 0, sizeof(F));
}

#endif
