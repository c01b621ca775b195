/*
 * test_verify_split.c - the verifier's builds with the emulator's runtime
 * compiled once (KP_EMU_SPLIT, docs/verify.md "Cost"): kp_emu_install
 * builds the runtime's object, and the precompiled header only when asked
 * (and asks whether libstdc++ links statically only then, keeping the
 * answer);
 * a compiler that fails leaves the rewrite unverified, saying why; without
 * a cache (no precompiled header) a correct rewrite still passes and the
 * stored wrong rewrites of tests/cpudiff/bad/ still fail.  Needs g++
 * (skipped without).
 */
#include "kp_test.h"

#include "emu_files.h"
#include "vbuild.h"
#include "verify.h"

#include <stdlib.h>
#include <unistd.h>

#define BAD KPIPE_SOURCE_DIR "/tests/cpudiff/bad/"

TestSuite(verify_split, .init = kp_test_tmpdir_make, .fini = kp_test_tmpdir_remove);

static kp_verify_status verify_in(const char *orig, const char *rew, const char *cache,
				  kp_verify_result *r)
{
	size_t al, bl;
	char *a = kp_test_read(orig, &al), *b = kp_test_read(rew, &bl);
	kp_verify_input in = {orig, a, al, b, bl, NULL, NULL, cache};
	kp_verify_status s = kp_verify(&in, r);
	free(a);
	free(b);
	return s;
}

Test(verify_split, install_builds_the_runtime_and_the_header_when_asked)
{
	if (!kp_test_have_tool("g++"))
		cr_skip_test("no g++");
	char *base = kp_test_path("nopch"), *x = kp_test_path("nopch/x");
	cr_assert_eq(kp_make_parents(x), 0);
	free(x);
	char *pch = NULL, *rt = NULL, *err = NULL;
	int st = -1;
	char *emu = kp_emu_install(base, "g++", kp_vbuild_flags, 0, &pch, &rt, &st, &err);
	cr_assert(emu, "%s", err ? err : "");
	cr_expect_null(pch);
	cr_expect_eq(st, 0, "no cache: no probe, no static libraries");
	cr_assert(rt);
	cr_expect(strstr(rt, "/rt/kp_emu_rt.o") != NULL, "%s", rt);
	cr_expect_eq(access(rt, R_OK), 0, "%s", rt);
	free(emu);
	free(rt);
	emu = kp_emu_install(base, "g++", kp_vbuild_flags, 1, &pch, &rt, &st, &err);
	cr_assert(emu && pch && rt, "%s", err ? err : "");
	kp_strbuf g = KP_STRBUF_INIT;
	kp_strbuf_addf(&g, "%s/kp_cpu_cuda.h.gch", pch);
	cr_expect_eq(access(kp_strbuf_str(&g), R_OK), 0, "%s", kp_strbuf_str(&g));
	kp_strbuf_release(&g);
	/* the probe's answer is kept: its executable, or the .no marker */
	kp_strbuf y = KP_STRBUF_INIT, n = KP_STRBUF_INIT;
	kp_strbuf_addf(&y, "%s/rt/static-probe", emu);
	kp_strbuf_addf(&n, "%s/rt/static-probe.no", emu);
	cr_expect_eq(st, !access(kp_strbuf_str(&y), X_OK));
	cr_expect_neq(access(kp_strbuf_str(&y), X_OK) == 0, access(kp_strbuf_str(&n), R_OK) == 0,
		      "exactly one answer kept");
	/* asked again, the kept answer */
	int st2 = -1;
	free(emu);
	free(pch);
	free(rt);
	emu = kp_emu_install(base, "g++", kp_vbuild_flags, 1, &pch, &rt, &st2, &err);
	cr_assert(emu, "%s", err ? err : "");
	cr_expect_eq(st2, st);
	kp_strbuf_release(&y);
	kp_strbuf_release(&n);
	free(emu);
	free(pch);
	free(rt);
	free(base);
}

Test(verify_split, a_failing_compiler_leaves_it_unverified)
{
	setenv("KPIPE_VERIFY_CXX", "false", 1);
	kp_verify_result r;
	const char *k = BAD "persistent_outer/kernel.cu";
	char *cache = kp_test_path("cache");
	cr_expect_eq(verify_in(k, k, cache, &r), KP_VERIFY_UNAVAILABLE);
	cr_expect(r.detail && strstr(r.detail, "the emulator's runtime does not build"), "%s",
		  r.detail);
	kp_verify_result_release(&r);
	free(cache);
}

Test(verify_split, without_a_cache_the_verdicts_stand)
{
	if (!kp_test_have_tool("g++"))
		cr_skip_test("no g++");
	kp_verify_result r;
	const char *k = BAD "persistent_outer/kernel.cu";
	cr_expect_eq(verify_in(k, k, "off", &r), KP_VERIFY_PASSED, "%s", r.detail);
	cr_expect_gt(r.runs, 0);
	kp_verify_result_release(&r);
	static const char *const cases[] = {"persistent_outer", "tile_pointer"};
	for (size_t i = 0; i < KP_ARRAY_LEN(cases); i++) {
		kp_strbuf a = KP_STRBUF_INIT, b = KP_STRBUF_INIT;
		kp_strbuf_addf(&a, BAD "%s/kernel.cu", cases[i]);
		kp_strbuf_addf(&b, BAD "%s/kernel.kpipe.cu", cases[i]);
		cr_expect_eq(verify_in(kp_strbuf_str(&a), kp_strbuf_str(&b), "off", &r),
			     KP_VERIFY_FAILED, "%s: %s", cases[i], r.detail);
		kp_verify_result_release(&r);
		kp_strbuf_release(&a);
		kp_strbuf_release(&b);
	}
}
