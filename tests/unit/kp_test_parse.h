/*
 * kp_test_parse.h - for the unit tests: a CUDA snippet parsed into a
 * model as kpipe parses a file (sm_90, no compilation database), the
 * parser's diagnostics logged and the test failed when it does not parse.
 */
#ifndef KP_TEST_PARSE_H
#define KP_TEST_PARSE_H

#include "parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static inline void kp_test_parse(kp_file *f, const char *name, const char *src)
{
	memset(f, 0, sizeof(*f));
	kp_parse_opts o;
	memset(&o, 0, sizeof(o));
	o.arch = "sm_90";
	o.contents = src;
	o.contents_len = strlen(src);
	o.no_compdb = 1;
	char *err = NULL;
	int rc = kp_parse(f, name, &o, &err);
	for (int i = 0; rc != KP_PARSE_OK && i < f->ndiags; i++)
		cr_log_info("%d:%d: %s", f->diags[i].line, f->diags[i].col, f->diags[i].message);
	cr_assert_eq(rc, KP_PARSE_OK, "kp_parse: %d (%s)", rc, err ? err : "compile errors");
	free(err);
}

#endif
