/*
 * cmd_validate.c - `kpipe validate ORIGINAL.cu REWRITTEN.cu`: parses the
 * options, reads the launch description, finds the CUDA tools, runs the
 * static steps (validate.c) and the GPU steps (gpu_run.c), and prints the
 * report.  The only file of the validator that prints.
 *
 * kp_validate_files() is everything after the option parsing, for
 * `kpipe rewrite --validate`.  Exit codes are listed in docs/validate.md.
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

#include "cmd.h"
#include "arch.h"
#include "cuda_env.h"
#include "gpu_gen.h"
#include "gpu_run.h"
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

/* KPIPE_VALIDATE_CACHE=DIR: the compilations and disassemblies of step 1
 * and 2 kept in DIR by content (build_cache.h), so that the variants of one
 * original compile and disassemble it once (the tests set it to a folder of
 * their own run: the key holds the source's bytes, not its headers').
 * NULL when unset, empty or "off". */
static const char *validate_cache_dir(void)
{
	const char *d = getenv("KPIPE_VALIDATE_CACHE");
	return d && *d && strcmp(d, "off") != 0 ? d : NULL;
}

static int usage_error(const char *fmt, ...) KP_PRINTF(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("kpipe: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nrun 'kpipe validate --help' for usage\n", stderr);
	return EXIT_VALIDATE_USAGE;
}

int kp_validate_files(const kp_validate_request *rq)
{
	const char *files[2] = {rq->original, rq->rewritten};
	const char *shown = rq->original_name ? rq->original_name : rq->original;
	const char *arch = rq->arch ? rq->arch : DEFAULT_ARCH;
	const char *format = rq->format ? rq->format : "text";
	int rc = EXIT_VALIDATE_USAGE;
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	kp_validate_result res;
	int have_res = 0, have_spec = 0;
	kp_launch_spec spec;
	char *spec_path = NULL, *spec_missing = NULL;
	const char *sizes[64];
	int nsizes = 0;
	char err[1024];

	for (int f = 0; f < 2; f++) {
		if (access(files[f], R_OK) != 0) {
			fprintf(stderr, "kpipe: error: cannot read '%s': %s\n",
				f == 0 ? shown : files[f], strerror(errno));
			rc = EXIT_VALIDATE_INPUT;
			goto cleanup;
		}
	}

	/* The launch description: --spec, else NAME.launch.json beside the original. */
	spec_path = rq->spec ? kp_xstrdup(rq->spec) : kp_launch_spec_default_path(shown);
	if (!rq->spec && access(spec_path, F_OK) != 0) {
		kp_strbuf sb = KP_STRBUF_INIT;
		kp_strbuf_addf(&sb,
			       "no launch description: %s not found (give one with --spec FILE)",
			       spec_path);
		spec_missing = kp_strbuf_detach(&sb);
	} else if (kp_launch_spec_load(&spec, spec_path, err, sizeof(err)) != KP_SPEC_OK) {
		fprintf(stderr, "kpipe: error: %s\n", err);
		rc = EXIT_VALIDATE_INPUT;
		goto cleanup;
	} else
		have_spec = 1;
	if (have_spec && rq->sizes) {
		nsizes = kp_gpu_parse_sizes(&spec, rq->sizes, sizes, (int)KP_ARRAY_LEN(sizes), err,
					    sizeof(err));
		if (nsizes < 0) {
			fprintf(stderr, "kpipe: error: --sizes: %s\n", err);
			rc = EXIT_VALIDATE_USAGE;
			goto cleanup;
		}
	}
	int threads = rq->threads;
	if (threads <= 0 && have_spec)
		threads = kp_launch_spec_threads(&spec);
	if (threads <= 0 || threads > 1024)
		threads = DEFAULT_THREADS;

	if (kp_cuda_env_find(&env, rq->cuda_path) != 0) {
		fprintf(stderr, "kpipe: error: %s\n", env.error ? env.error : "nvcc not found");
		rc = EXIT_VALIDATE_NO_TOOL;
		goto cleanup;
	}

	kp_validate_opts o = {
		.original = files[0],
		.rewritten = files[1],
		.arch = arch,
		.threads = threads,
		.kernel = rq->kernel,
		.nvcc_args = rq->nvcc_args,
		.nnvcc_args = rq->nnvcc_args,
		.nvcc = env.nvcc,
		.cuobjdump = env.cuobjdump,
		.nvdisasm = env.nvdisasm,
		.cache_dir = validate_cache_dir(),
	};
	int vr = kp_validate_static(&res, &o);
	have_res = 1;
	if (vr == KP_VALIDATE_ENOTOOL) {
		fprintf(stderr, "kpipe: error: %s\n", res.steps[0].reason);
		rc = EXIT_VALIDATE_NO_TOOL;
		goto cleanup;
	}
	if (vr == KP_VALIDATE_ETEMP) {
		fprintf(stderr, "kpipe: error: %s\n", res.steps[0].reason);
		rc = EXIT_VALIDATE_INPUT;
		goto cleanup;
	}
	res.original = kp_arena_strdup(&res.arena, shown);

	kp_gpu_opts go = {
		.spec = have_spec ? &spec : NULL,
		.spec_missing = spec_missing,
		.original = files[0],
		.rewritten = files[1],
		.arch = arch,
		.nvcc_args = rq->nvcc_args,
		.nnvcc_args = rq->nnvcc_args,
		.nvcc = env.nvcc,
		.cuda_root = env.root,
		.sizes = nsizes > 0 ? sizes : NULL,
		.nsizes = nsizes,
		.sanitize = rq->sanitize,
		.kernel = rq->kernel,
		.dir = rq->gpu_dir,
		.profile = rq->profile,
	};
	kp_validate_gpu(&res, &go);

	char *report = strcmp(format, "json") == 0 ? kp_validate_render_json(&res)
						   : kp_validate_render_text(&res);
	fputs(report, stdout);
	free(report);
	rc = kp_validate_exit_code(&res);

cleanup:
	if (have_res)
		kp_validate_result_release(&res);
	if (have_spec)
		kp_launch_spec_release(&spec);
	free(spec_path);
	free(spec_missing);
	kp_cuda_env_release(&env);
	return rc;
}

/* The options cmd_validate's loop below takes, for kpipe --list-options
 * (the shell completions): keep them in step. */
const char *const kp_opts_validate[] = {
	"--kernel",  "--arch",     "--cuda-path",   "--format",  "--spec", "--sizes", "--gpu-dir",
	"--threads", "--sanitize", "--no-sanitize", "--profile", "-I",     "-D",      NULL,
};

int cmd_validate(int argc, char **argv)
{
	kp_validate_request rq = {.arch = DEFAULT_ARCH, .format = "text", .sanitize = 1};
	const char *files[2] = {NULL, NULL};
	int nfiles = 0;
	const char **nvcc_args = kp_xcalloc((size_t)argc + 1, sizeof(*nvcc_args));
	int nnvcc = 0;
	int rc = EXIT_VALIDATE_USAGE;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		if (strcmp(a, "--") == 0) {
			while (++i < argc)
				nvcc_args[nnvcc++] = argv[i];
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			kp_help_command(stdout, "validate");
			rc = EXIT_VALIDATE_OK;
			goto cleanup;
		}
		if (strcmp(a, "--sanitize") == 0)
			rq.sanitize = 1;
		else if (strcmp(a, "--no-sanitize") == 0)
			rq.sanitize = 0;
		else if (strcmp(a, "--profile") == 0)
			rq.profile = 1;
		else if ((v = opt_value(argc, argv, &i, "--kernel", &missing)))
			rq.kernel = v;
		else if ((v = opt_value(argc, argv, &i, "--arch", &missing)))
			rq.arch = v;
		else if ((v = opt_value(argc, argv, &i, "--cuda-path", &missing)))
			rq.cuda_path = v;
		else if ((v = opt_value(argc, argv, &i, "--format", &missing)))
			rq.format = v;
		else if ((v = opt_value(argc, argv, &i, "--spec", &missing)))
			rq.spec = v;
		else if ((v = opt_value(argc, argv, &i, "--sizes", &missing)))
			rq.sizes = v;
		else if ((v = opt_value(argc, argv, &i, "--gpu-dir", &missing)))
			rq.gpu_dir = v;
		else if ((v = opt_value(argc, argv, &i, "--threads", &missing))) {
			char *end;
			long t = strtol(v, &end, 10);
			if (*v == '\0' || *end != '\0' || t < 1 || t > 1024) {
				rc = usage_error("invalid --threads '%s' (1 to 1024)", v);
				goto cleanup;
			}
			rq.threads = (int)t;
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
	if (strcmp(rq.format, "text") != 0 && strcmp(rq.format, "json") != 0) {
		rc = usage_error("unknown format '%s' (text or json)", rq.format);
		goto cleanup;
	}
	if (!kp_arch_find(rq.arch)) {
		rc = usage_error("unknown target '%s'", rq.arch);
		goto cleanup;
	}
	if (rq.sizes && !rq.sizes[0]) {
		rc = usage_error("--sizes needs a list of sizes (small,target)");
		goto cleanup;
	}
	rq.original = files[0];
	rq.rewritten = files[1];
	rq.nvcc_args = nvcc_args;
	rq.nnvcc_args = nnvcc;
	rc = kp_validate_files(&rq);

cleanup:
	free(nvcc_args);
	return rc;
}
