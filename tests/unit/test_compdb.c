/*
 * test_compdb.c - kp_nvcc_translate(), the translation of nvcc (and
 * gcc/clang) command lines into the flags kpipe parses with: CMake's
 * command with its response file, response-file quoting and nesting,
 * every nvcc spelling of the kept flags, relative paths, -rdc, the target
 * architecture picked from -arch/-code/-gencode, what is dropped, and
 * kpipe's own arguments after `--` (user mode).
 */
#define _GNU_SOURCE
#include "compdb.h"
#include "util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/kpipe-compdb-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_expect_eq(system(cmd), 0);
}

/* Writes DIR/name (name may hold one subdirectory). */
static void put(const char *name, const char *text)
{
	char p[512];
	const char *slash = strchr(name, '/');
	if (slash) {
		snprintf(p, sizeof(p), "%s/%.*s", tmpdir, (int)(slash - name), name);
		mkdir(p, 0777);
	}
	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	FILE *fp = fopen(p, "w");
	cr_assert_not_null(fp, "cannot create %s", p);
	fputs(text, fp);
	fclose(fp);
}

/* The list joined with " | ", tmpdir replaced by "@T" (caller frees). */
static char *joined(char *const *v, int n)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	size_t tl = strlen(tmpdir);
	for (int i = 0; i < n; i++) {
		if (i)
			kp_strbuf_adds(&sb, " | ");
		for (const char *s = v[i]; *s;) {
			if (tl && !strncmp(s, tmpdir, tl)) {
				kp_strbuf_adds(&sb, "@T");
				s += tl;
			} else
				kp_strbuf_addc(&sb, *s++);
		}
	}
	return kp_strbuf_detach(&sb);
}

#define EXPECT_LIST(v, n, want)                                                                    \
	do {                                                                                       \
		char *got_ = joined((v), (n));                                                     \
		cr_expect_str_eq(got_, (want));                                                    \
		free(got_);                                                                        \
	} while (0)

/* Splits a command line on blanks (no quoting: the tests need none). */
static void xlate(const char *cmd, const char *dir, int user, kp_flags *f)
{
	char *copy = kp_xstrdup(cmd), *save = NULL;
	const char *argv[128];
	int argc = 0;
	for (char *w = strtok_r(copy, " ", &save); w && argc < 128; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	kp_nvcc_translate(argv, argc, dir, user, f);
	free(copy);
}

/* --- CMake's command -------------------------------------------------- */

Test(translate, cmake_makefile_command, .init = make_tmpdir, .fini = remove_tmpdir)
{
	/* CMake 3.25, Makefile generator, CUDA_ARCHITECTURES 90 */
	put("CMakeFiles/includes_CUDA.rsp", "-I/tmp/cmk/inc -Irel/inc\n");
	kp_flags f;
	xlate("-forward-unknown-to-host-compiler -DTILE=16 --options-file "
	      "CMakeFiles/includes_CUDA.rsp  --generate-code=arch=compute_90,code=[compute_90,sm_90] "
	      "--use_fast_math -x cu -c /tmp/cmk/k.cu -o CMakeFiles/k.dir/k.cu.o",
	      tmpdir, 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-DTILE=16 | -I/tmp/cmk/inc | -I@T/rel/inc");
	EXPECT_LIST(f.dropped, f.ndropped,
		    "-forward-unknown-to-host-compiler | --use_fast_math | -x cu | -c | "
		    "/tmp/cmk/k.cu | -o CMakeFiles/k.dir/k.cu.o");
	EXPECT_LIST(f.archs, f.narchs, "compute_90 | sm_90");
	cr_expect_str_eq(f.arch, "sm_90");
	kp_flags_release(&f);
}

/* --- response files --------------------------------------------------- */

Test(rsp, quoting, .init = make_tmpdir, .fini = remove_tmpdir)
{
	put("q.rsp", "-DA=\"x y\" '-DB=a b'\t-DC=\\\"q\\\"\n"
		     "-I\"dir with space\" -DD=it\\'s \"-DE=\\\"e\\\" \\\\\" '-DF=\\n'\r\n"
		     "-DG=a\\\n"
		     "b \"\" -DH\n");
	const char *argv[] = {"@q.rsp"};
	kp_flags f;
	kp_nvcc_translate(argv, 1, tmpdir, 0, &f);
	EXPECT_LIST(f.keep, f.nkeep,
		    "-DA=x y | -DB=a b | -DC=\"q\" | -I@T/dir with space | -DD=it's | "
		    "-DE=\"e\" \\ | -DF=\\n | -DG=ab | -DH");
	EXPECT_LIST(f.dropped, f.ndropped, ""); /* the empty word "" */
	cr_expect_eq(f.ndropped, 1);
	kp_flags_release(&f);
}

Test(rsp, nested_and_nvcc_spellings, .init = make_tmpdir, .fini = remove_tmpdir)
{
	put("a.rsp", "-DA1 @b.rsp -DA2");
	put("b.rsp", "-DB1 --options-file=sub/c.rsp -DB2");
	put("sub/c.rsp", "-DC -optf d.rsp,e.rsp"); /* relative to the directory, not to c.rsp */
	put("d.rsp", "-DD");
	put("e.rsp", "-isystem sys");
	kp_flags f;
	xlate("-D0 @a.rsp -optf=d.rsp -DZ", tmpdir, 0, &f);
	EXPECT_LIST(f.keep, f.nkeep,
		    "-D0 | -DA1 | -DB1 | -DC | -DD | -isystem | @T/sys | -DB2 | -DA2 | -DD | -DZ");
	cr_expect_eq(f.ndropped, 0);
	kp_flags_release(&f);
}

Test(rsp, an_option_split_across_the_file, .init = make_tmpdir, .fini = remove_tmpdir)
{
	/* -I in one place, its directory in the response file */
	put("i.rsp", "inc -D X");
	kp_flags f;
	xlate("-I @i.rsp", tmpdir, 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-I@T/inc | -DX");
	kp_flags_release(&f);
}

Test(rsp, missing_is_reported_not_fatal, .init = make_tmpdir, .fini = remove_tmpdir)
{
	kp_flags f;
	xlate("-DA @nope.rsp --options-file gone.rsp -optf -DB", tmpdir, 0, &f);
	/* -optf takes the next word whatever it is, as nvcc does */
	EXPECT_LIST(f.keep, f.nkeep, "-DA");
	EXPECT_LIST(f.dropped, f.ndropped,
		    "@nope.rsp (cannot read: No such file or directory) | --options-file gone.rsp "
		    "(cannot read: No such file or directory) | -optf -DB (cannot read: No such "
		    "file or directory)");
	kp_flags_release(&f);
}

Test(rsp, recursion_stops, .init = make_tmpdir, .fini = remove_tmpdir)
{
	put("loop.rsp", "-DL @loop.rsp");
	kp_flags f;
	xlate("@loop.rsp", tmpdir, 0, &f);
	cr_expect_eq(f.nkeep, KP_RSP_DEPTH);
	EXPECT_LIST(f.dropped, f.ndropped, "@loop.rsp (response files nested deeper than 8)");
	kp_flags_release(&f);
}

/* --- the kept flags --------------------------------------------------- */

Test(translate, every_spelling_of_the_kept_flags)
{
	kp_flags f;
	xlate("-I inc -Iinc2 --include-path inc3 --include-path=/abs4 -isystem sys "
	      "-isystemsys1 --system-include=sys2 --system-include sys3 -iquote q -idirafter "
	      "/late -D A -DB=1 --define-macro C --define-macro=D=2 -U E -UE2 --undefine-macro "
	      "F --undefine-macro=G -std c++17 --std=c++20 -std=c++14 --std c++11 "
	      "-ftemplate-depth 200 --ftemplate-depth=300",
	      "/d", 0, &f);
	EXPECT_LIST(f.keep, f.nkeep,
		    "-I/d/inc | -I/d/inc2 | -I/d/inc3 | -I/abs4 | -isystem | /d/sys | -isystem | "
		    "/d/sys1 | -isystem | /d/sys2 | -isystem | /d/sys3 | -iquote | /d/q | "
		    "-idirafter | /late | -DA | -DB=1 | -DC | -DD=2 | -UE | -UE2 | -UF | -UG | "
		    "-std=c++17 | -std=c++20 | -std=c++14 | -std=c++11 | -ftemplate-depth=200 | "
		    "-ftemplate-depth=300");
	cr_expect_eq(f.ndropped, 0);
	cr_expect_null(f.arch);
	kp_flags_release(&f);
}

Test(translate, relative_include_made_absolute_when_there, .init = make_tmpdir,
     .fini = remove_tmpdir)
{
	put("pre.h", "#define PRE 1\n");
	kp_flags f;
	xlate("-include pre.h --pre-include=other.h -include /abs/p.h -includepre.h", tmpdir, 0,
	      &f);
	/* other.h is not in the directory: clang looks for it on the include path */
	EXPECT_LIST(f.keep, f.nkeep,
		    "-include | @T/pre.h | -include | other.h | -include | /abs/p.h | -include | "
		    "@T/pre.h");
	kp_flags_release(&f);
}

Test(translate, relocatable_device_code)
{
	kp_flags f;
	xlate("-rdc=true --relocatable-device-code true -dc --device-c -fgpu-rdc", "/d", 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-fgpu-rdc");
	cr_expect_eq(f.ndropped, 0);
	kp_flags_release(&f);
	xlate("-rdc=false --relocatable-device-code false -DX", "/d", 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-DX");
	EXPECT_LIST(f.dropped, f.ndropped, "-rdc=false | --relocatable-device-code false");
	kp_flags_release(&f);
	xlate("--device-c", NULL, 1, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-fgpu-rdc");
	kp_flags_release(&f);
}

/* --- what is dropped -------------------------------------------------- */

Test(translate, nvcc_options_dropped_with_their_values)
{
	kp_flags f;
	xlate("-Xcompiler -fopenmp -Xcompiler=-fPIC,-Wall -Xptxas -v -Xlinker -lfoo -ccbin g++ "
	      "--compiler-bindir /usr/bin -x cu -c -o k.o -MD -MT k.o -MF k.d -maxrregcount 64 "
	      "-maxrregcount=32 -lineinfo -G -g -O3 --threads 4 -t 2 -Werror all-warnings "
	      "--Werror=reorder --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda "
	      "--extended-lambda -forward-unknown-to-host-compiler --default-stream per-thread "
	      "-Wno-deprecated-gpu-targets -DKEEP -o",
	      "/d", 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-DKEEP");
	EXPECT_LIST(
		f.dropped, f.ndropped,
		"-Xcompiler -fopenmp | -Xcompiler=-fPIC,-Wall | -Xptxas -v | -Xlinker -lfoo | "
		"-ccbin g++ | --compiler-bindir /usr/bin | -x cu | -c | -o k.o | -MD | -MT k.o | "
		"-MF k.d | -maxrregcount 64 | -maxrregcount=32 | -lineinfo | -G | -g | -O3 | "
		"--threads 4 | -t 2 | -Werror all-warnings | --Werror=reorder | "
		"--use_fast_math | --expt-relaxed-constexpr | --expt-extended-lambda | "
		"--extended-lambda | -forward-unknown-to-host-compiler | --default-stream "
		"per-thread | -Wno-deprecated-gpu-targets | -o (missing value)");
	kp_flags_release(&f);
}

Test(translate, unknown_options_and_clang_flags_dropped_from_a_database)
{
	kp_flags f;
	xlate("-Wall -Werror -fPIC -fopenmp -Xclang -ast-dump --cuda-path=/cuda -x cuda "
	      "--cuda-device-only -- k.cu -DX",
	      "/d", 0, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-DX");
	EXPECT_LIST(f.dropped, f.ndropped,
		    "-Wall | -Werror | -fPIC | -fopenmp | -Xclang -ast-dump | --cuda-path=/cuda | "
		    "-x cuda | --cuda-device-only | -- | k.cu");
	kp_flags_release(&f);
}

/* --- targets ---------------------------------------------------------- */

static void expect_arch(const char *cmd, const char *want)
{
	kp_flags f;
	xlate(cmd, "/d", 0, &f);
	if (want)
		cr_expect(f.arch && !strcmp(f.arch, want), "%s: arch %s, expected %s", cmd,
			  f.arch ? f.arch : "(none)", want);
	else
		cr_expect_null(f.arch, "%s: arch %s, expected none", cmd, f.arch);
	cr_expect_eq(f.nkeep, 0, "%s: kept %d flags", cmd, f.nkeep);
	cr_expect_eq(f.ndropped, 0, "%s: dropped %d flags", cmd, f.ndropped);
	kp_flags_release(&f);
}

Test(arch, every_spelling)
{
	expect_arch("-arch=sm_90", "sm_90");
	expect_arch("-arch sm_86", "sm_86");
	expect_arch("--gpu-architecture=sm_75", "sm_75");
	expect_arch("--gpu-architecture sm_70", "sm_70");
	expect_arch("-arch=sm_90a", "sm_90a");
	expect_arch("-code=sm_89", "sm_89");
	expect_arch("--gpu-code sm_80,compute_80", "sm_80");
	expect_arch("--cuda-gpu-arch=sm_87", "sm_87");
	expect_arch("--offload-arch=sm_90,sm_80", "sm_80");
	expect_arch("-gencode arch=compute_90,code=sm_90", "sm_90");
	expect_arch("-gencode=arch=compute_80,code=\"sm_80,compute_80\"", "sm_80");
	expect_arch("--generate-code=arch=compute_90,code=[compute_90,sm_90]", "sm_90");
	expect_arch("--generate-code arch=compute_100,code=sm_100f", "sm_100f");
}

Test(arch, lowest_real_target_wins)
{
	expect_arch("-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 "
		    "-gencode arch=compute_86,code=[sm_86,compute_86]",
		    "sm_80");
	/* a virtual target alone: compiled just in time on the same or a later GPU */
	expect_arch("-arch=compute_75", "sm_75");
	/* a real one beats a lower virtual one */
	expect_arch("-gencode arch=compute_70,code=compute_70 -arch=sm_90", "sm_90");
	expect_arch("-arch=sm_100 -arch=sm_90a", "sm_90a");
}

Test(arch, native_and_all_are_ignored)
{
	expect_arch("-arch=native", NULL);
	expect_arch("-arch=all", NULL);
	expect_arch("-arch all-major", NULL);
	expect_arch("-arch=all -arch=sm_80", "sm_80");
}

Test(arch, list_of_every_target_named)
{
	kp_flags f;
	xlate("-gencode arch=compute_80,code=[compute_80,sm_80] -arch=sm_80 -code=sm_90", NULL, 0,
	      &f);
	EXPECT_LIST(f.archs, f.narchs, "compute_80 | sm_80 | sm_90");
	kp_flags_release(&f);
}

/* --- kpipe's own arguments (after --) --------------------------------- */

Test(user, nvcc_translated_clang_passed_through)
{
	kp_flags f;
	xlate("--expt-relaxed-constexpr -rdc=true -Xcompiler -fopenmp -I inc -DCD_TILE=8 "
	      "-Wno-unused-variable -fno-exceptions -Xclang -ast-dump -Werror -std c++17 "
	      "--use_fast_math -arch=sm_80 stray.cu",
	      NULL, 1, &f);
	EXPECT_LIST(f.keep, f.nkeep,
		    "-fgpu-rdc | -Iinc | -DCD_TILE=8 | -Wno-unused-variable | -fno-exceptions | "
		    "-Xclang | -ast-dump | -Werror | -std=c++17");
	EXPECT_LIST(f.dropped, f.ndropped,
		    "--expt-relaxed-constexpr | -Xcompiler -fopenmp | --use_fast_math | stray.cu");
	cr_expect_str_eq(f.arch, "sm_80");
	kp_flags_release(&f);
}

Test(user, clang_options_with_a_value_keep_it)
{
	kp_flags f;
	xlate("-isystem-after /late -include-pch h.pch -mllvm -x=1 -Xclang=-v", NULL, 1, &f);
	EXPECT_LIST(f.keep, f.nkeep,
		    "-isystem-after | /late | -include-pch | h.pch | -mllvm | -x=1 | -Xclang=-v");
	cr_expect_eq(f.ndropped, 0);
	kp_flags_release(&f);
	xlate("-isystem-after /late -include-pch h.pch -mllvm -x=1", "/d", 0, &f);
	cr_expect_eq(f.nkeep, 0);
	EXPECT_LIST(f.dropped, f.ndropped,
		    "-isystem-after /late | -include-pch h.pch | -mllvm -x=1");
	kp_flags_release(&f);
}

/* -resource-dir DIR (what bench/device_env.sh passes for libclang's
 * builtin headers) keeps its value: the directory is not an input file. */
Test(user, resource_dir_keeps_its_value)
{
	kp_flags f;
	xlate("-resource-dir /r/clang/19 -resource-dir=/s", NULL, 1, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-resource-dir | /r/clang/19 | -resource-dir=/s");
	cr_expect_eq(f.ndropped, 0);
	kp_flags_release(&f);
}

Test(user, plain_define_is_unchanged)
{
	kp_flags f;
	xlate("-DCD_TILE=8", NULL, 1, &f);
	EXPECT_LIST(f.keep, f.nkeep, "-DCD_TILE=8");
	cr_expect_eq(f.ndropped, 0);
	kp_flags_release(&f);
}

Test(join, none_and_some)
{
	char *s = kp_flags_join(NULL, 0);
	cr_expect_str_eq(s, "(none)");
	free(s);
	char *v[] = {"-DA", "-I/x"};
	s = kp_flags_join(v, 2);
	cr_expect_str_eq(s, "-DA -I/x");
	free(s);
}
