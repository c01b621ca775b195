/*
 * fuzz_rewrite.c - libFuzzer target: feeds arbitrary bytes, as an in-memory
 * .cu file (libclang unsaved file), through parse -> analyze -> plan ->
 * transforms -> edits (kp_rewrite_buffer), renders every report the rewrite
 * makes (diagnostics, JSON, fixes, diff), rewrites the result a second
 * time, and runs `kpipe analyze` (text or JSON, by the first byte) on the
 * same bytes written to a scratch file.
 *
 * The real CUDA headers cost about 0.3 s a parse, so the target parses with
 * -nocudainc and force-includes tests/fuzz/include/kpipe_fuzz_cuda.h, a
 * small stand-in (KPIPE_FUZZ_REAL_CUDA=1 in the environment uses the real
 * headers instead).  Built by -DKPIPE_FUZZ=ON with clang; run by
 * scripts/fuzz.sh.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "cli.h"
#include "fixes.h"
#include "sarif.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_analyze(int argc, char **argv);

static const char *const fuzz_rw_opts[] = {"--arch", "--variant", "--stages", "--threads", NULL};
static kp_cli rw_cli;
static char **cargs;
static int ncargs;
static char scratch_dir[] = "/tmp/kpipe-fuzz-XXXXXX";
static char scratch_file[64];
static FILE *devnull;

static void add_carg(const char *s)
{
	cargs = kp_xrealloc(cargs, sizeof(char *) * (size_t)(ncargs + 1));
	cargs[ncargs++] = (char *)s;
}

static void remove_scratch(void)
{
	unlink(scratch_file);
	rmdir(scratch_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *real = getenv("KPIPE_FUZZ_REAL_CUDA");
	if (!real || strcmp(real, "1")) {
		add_carg("-nocudainc");
		add_carg("-nocudalib");
		add_carg("-I" KPIPE_FUZZ_INCLUDE);
		add_carg("-include");
		add_carg("kpipe_fuzz_cuda.h");
	}
	/* the rewrite's options: kp_cli_parse fills the defaults */
	char *rw_argv[] = {"rewrite", "--"};
	if (kp_cli_parse(&rw_cli, 2, rw_argv, "rewrite", fuzz_rw_opts)) {
		fprintf(stderr, "fuzz_rewrite: cannot set up the options\n");
		abort();
	}
	free((void *)rw_cli.cargs); /* kp_cli_parse's (empty) translation */
	rw_cli.cargs = (const char **)kp_xcalloc((size_t)ncargs + 1, sizeof(char *));
	memcpy((void *)rw_cli.cargs, cargs, sizeof(char *) * (size_t)ncargs);
	rw_cli.ncargs = ncargs;
	if (!mkdtemp(scratch_dir)) {
		perror("fuzz_rewrite: mkdtemp");
		abort();
	}
	snprintf(scratch_file, sizeof(scratch_file), "%s/fuzz.cu", scratch_dir);
	atexit(remove_scratch);
	devnull = fopen("/dev/null", "w");
	/* cmd_analyze prints its report on stdout */
	if (!devnull || !freopen("/dev/null", "w", stdout)) {
		perror("fuzz_rewrite: /dev/null");
		abort();
	}
	return 0;
}

/* The reports a rewrite result is turned into, as the command layer does. */
static void render_result(kp_rw_result *r, const char *src, size_t len, const char *out,
			  size_t outlen)
{
	const kp_rw_result *one[1] = {r};
	kp_rw_print_diags(r, 1, devnull);
	char *j = kp_batch_report_json(one, 1, 0, 0);
	free(j);
	char *s = kp_sarif_log(one, 1, "/tmp", r->status, 1);
	free(s);
	char *y = kp_fixes_yaml(one, 1, r->path, "/tmp");
	free(y);
	/* the record a batch child sends its parent, and back */
	cJSON *rec = kp_rw_result_to_json(r, 1);
	char *txt = cJSON_PrintUnformatted(rec);
	cJSON_Delete(rec);
	cJSON *back = cJSON_Parse(txt);
	free(txt);
	if (back) {
		kp_rw_result r2 = {0};
		kp_rw_result_from_json(&r2, back);
		kp_rw_result_release(&r2);
		cJSON_Delete(back);
	}
	if (out) {
		char *d = kp_rw_diff(r->path, src, len, out, outlen);
		free(d);
	}
}

static int rewrite_once(const char *src, size_t len, char **out, size_t *outlen)
{
	kp_rw_result r = {0};
	r.path = kp_xstrdup("fuzz.cu");
	kp_rw_opts rwo;
	kp_cli_rw_opts(&rw_cli, &rwo);
	kp_rw_input in = {.path = "fuzz.cu", .contents = src, .len = len, .no_compdb = 1};
	int rc = kp_rewrite_buffer(&rwo, &in, &r, out, outlen);
	render_result(&r, src, len, *out, *outlen);
	kp_rw_result_release(&r);
	return rc;
}

static void analyze_file(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(scratch_file, "wb");
	if (!fp)
		return;
	size_t w = fwrite(data, 1, size, fp);
	if (fclose(fp) || w != size)
		return;
	int json = size && (data[0] & 1);
	char **av = kp_xcalloc((size_t)ncargs + 6, sizeof(char *));
	int n = 0;
	av[n++] = "analyze";
	av[n++] = scratch_file;
	av[n++] = "--format";
	av[n++] = json ? "json" : "text";
	av[n++] = "--";
	for (int i = 0; i < ncargs; i++)
		av[n++] = cargs[i];
	cmd_analyze(n, av);
	fflush(stdout);
	free(av);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t outlen = 0;
	int rc = rewrite_once((const char *)data, size, &out, &outlen);
	if (rc == KP_EXIT_OK && out) {
		/* the rewritten file goes through again (it must parse: a crash
		 * or a sanitizer report there is a bug too) */
		char *out2 = NULL;
		size_t outlen2 = 0;
		rewrite_once(out, outlen, &out2, &outlen2);
		free(out2);
	}
	free(out);
	analyze_file(data, size);
	return 0;
}
