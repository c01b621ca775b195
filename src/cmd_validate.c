/*
 * cmd_validate.c - `kpipe validate ORIGINAL.cu REWRITTEN.cu`: parses the
 * options, finds the CUDA tools, runs the static steps (validate.c) and
 * prints the report.  The only file of the validator that prints.
 *
 * The GPU steps (run and compare, benchmark, compute-sanitizer) are not in
 * this build: the report says so and they do not count towards the exit
 * code.  Exit codes are listed in docs/validate.md.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "cuda_env.h"
#include "util.h"
#include "validate.h"

enum {
	EXIT_VALIDATE_OK = 0,
	EXIT_VALIDATE_USAGE = 2,
	EXIT_VALIDATE_INPUT = 3,
	EXIT_VALIDATE_FAILED = 4,
	EXIT_VALIDATE_NO_TOOL = 5,
	EXIT_VALIDATE_INCOMPLETE = 6,
};

#define DEFAULT_ARCH "sm_90"
#define DEFAULT_THREADS 256

static const char usage[] =
	"usage: kpipe validate ORIGINAL.cu REWRITTEN.cu [options] [-- nvcc args...]\n"
	"\n"
	"Compiles both files and checks the rewrite statically:\n"
	"  step 1 resources  registers, shared memory, spills, occupancy, warnings (ptxas -v)\n"
	"  step 2 sass       next-tile loads overlap the math in the main loop (cuobjdump)\n"
	"  steps 3-5         GPU run, benchmark, sanitizer: not implemented in this build\n"
	"\n"
	"options:\n"
	"  --kernel NAME      only this kernel (mangled, demangled or plain name)\n"
	"  --arch sm_XX       target (default " DEFAULT_ARCH ")\n"
	"  --threads N        threads per block for occupancy (default 256)\n"
	"  --cuda-path DIR    CUDA toolkit root\n"
	"  --format text|json report format (default text)\n"
	"  -I DIR, -D NAME[=V] passed to nvcc, as is everything after --\n"
	"\n"
	"exit: 0 passed, 2 usage, 3 input missing, 4 a step failed, 5 nvcc missing,\n"
	"      6 incomplete (a step was skipped)\n"
	"\n"
	"example:\n"
	"  kpipe validate matmul.cu matmul.pipelined.cu --arch sm_90 --threads 1024\n";

/* "--name VALUE" or "--name=VALUE": returns the value (advancing *i), or
 * NULL when argv[*i] is not this option.  *missing is set when the option
 * has no value. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int usage_error(const char *fmt, ...) KP_PRINTF(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("kpipe validate: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
	return EXIT_VALIDATE_USAGE;
}

int cmd_validate(int argc, char **argv)
{
	const char *files[2] = {NULL, NULL};
	int nfiles = 0;
	const char *kernel = NULL, *arch = DEFAULT_ARCH, *cuda_path = NULL, *format = "text";
	int threads = DEFAULT_THREADS;
	const char **nvcc_args = kp_xcalloc((size_t)argc + 1, sizeof(*nvcc_args));
	int nnvcc = 0;
	int rc = EXIT_VALIDATE_USAGE;
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	kp_validate_result res;
	int have_res = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		if (strcmp(a, "--") == 0) {
			while (++i < argc)
				nvcc_args[nnvcc++] = argv[i];
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			rc = EXIT_VALIDATE_OK;
			goto cleanup;
		}
		if ((v = opt_value(argc, argv, &i, "--kernel", &missing)))
			kernel = v;
		else if ((v = opt_value(argc, argv, &i, "--arch", &missing)))
			arch = v;
		else if ((v = opt_value(argc, argv, &i, "--cuda-path", &missing)))
			cuda_path = v;
		else if ((v = opt_value(argc, argv, &i, "--format", &missing)))
			format = v;
		else if ((v = opt_value(argc, argv, &i, "--threads", &missing))) {
			char *end;
			long t = strtol(v, &end, 10);
			if (*v == '\0' || *end != '\0' || t < 1 || t > 1024) {
				rc = usage_error("invalid --threads '%s' (1 to 1024)", v);
				goto cleanup;
			}
			threads = (int)t;
		} else if (missing) {
			rc = usage_error("option '%s' needs a value", a);
			goto cleanup;
		} else if ((a[0] == '-' && (a[1] == 'I' || a[1] == 'D'))) {
			nvcc_args[nnvcc++] = a;
			if (a[2] == '\0') {
				if (i + 1 >= argc) {
					rc = usage_error("option '%s' needs a value", a);
					goto cleanup;
				}
				nvcc_args[nnvcc++] = argv[++i];
			}
		} else if (a[0] == '-' && a[1] != '\0') {
			rc = usage_error("unknown option '%s'", a);
			goto cleanup;
		} else if (nfiles < 2) {
			files[nfiles++] = a;
		} else {
			rc = usage_error("unexpected argument '%s' (two files: ORIGINAL REWRITTEN)",
					 a);
			goto cleanup;
		}
	}
	if (nfiles != 2) {
		rc = usage_error("expected two files: ORIGINAL.cu REWRITTEN.cu");
		goto cleanup;
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
		rc = usage_error("unknown format '%s' (text or json)", format);
		goto cleanup;
	}
	if (!kp_arch_find(arch)) {
		rc = usage_error("unknown target '%s'", arch);
		goto cleanup;
	}
	for (int f = 0; f < 2; f++) {
		if (access(files[f], R_OK) != 0) {
			fprintf(stderr, "kpipe validate: cannot read '%s': %s\n", files[f],
				strerror(errno));
			rc = EXIT_VALIDATE_INPUT;
			goto cleanup;
		}
	}

	if (kp_cuda_env_find(&env, cuda_path) != 0) {
		fprintf(stderr, "kpipe validate: %s\n", env.error ? env.error : "nvcc not found");
		rc = EXIT_VALIDATE_NO_TOOL;
		goto cleanup;
	}

	kp_validate_opts o = {
		.original = files[0],
		.rewritten = files[1],
		.arch = arch,
		.threads = threads,
		.kernel = kernel,
		.nvcc_args = nvcc_args,
		.nnvcc_args = nnvcc,
		.nvcc = env.nvcc,
		.cuobjdump = env.cuobjdump,
		.nvdisasm = env.nvdisasm,
	};
	int vr = kp_validate_static(&res, &o);
	have_res = 1;
	if (vr == KP_VALIDATE_ENOTOOL) {
		fprintf(stderr, "kpipe validate: %s\n", res.steps[0].reason);
		rc = EXIT_VALIDATE_NO_TOOL;
		goto cleanup;
	}
	if (vr == KP_VALIDATE_ETEMP) {
		fprintf(stderr, "kpipe validate: %s\n", res.steps[0].reason);
		rc = EXIT_VALIDATE_INPUT;
		goto cleanup;
	}

	char *report = strcmp(format, "json") == 0 ? kp_validate_render_json(&res)
						   : kp_validate_render_text(&res);
	fputs(report, stdout);
	free(report);
	rc = kp_validate_exit_code(&res);

cleanup:
	if (have_res)
		kp_validate_result_release(&res);
	kp_cuda_env_release(&env);
	free(nvcc_args);
	return rc;
}
