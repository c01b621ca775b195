/*
 * main.c - kpipe's entry point: the command table, the dispatch of --help
 * and `CMD --help` to help.c's texts, and --version.
 * Each command lives in its own cmd_*.c (cmd.h) and returns one of the exit
 * codes of util.h; only this layer and the commands print.
 */
#include "kp_commit.h"
#include "cli.h"
#include "cmd.h"
#include "cuda_env.h"
#include "safe_write.h"
#include "validate.h"

#include <stdio.h>
#include <string.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{"analyze", cmd_analyze, "report every tiled K-loop, its budget and eligibility"},
	{"rewrite", cmd_rewrite, "pipeline the eligible K-loops (cp.async or register staging)"},
	{"tune", cmd_tune,
	 "build every legal variant, validate and time them on the GPU, keep the fastest"},
	{"validate", cmd_validate,
	 "prove a rewrite: resources, SASS overlap, GPU run, timing, sanitizers"},
	{"lsp", cmd_lsp, "language server for editors (LSP over stdin/stdout; docs/editors.md)"},
	{"version", cmd_version, "print kpipe's, libclang's and CUDA's versions"},
	{"help", cmd_help, "show this overview; help COMMAND: that command's options"},
};

/* `kpipe help` and `kpipe --help`: the overview; `kpipe help CMD`: that
 * command's options and examples (help.c). */
static int cmd_help(int argc, char **argv)
{
	if (argc >= 2) {
		if (kp_help_command(stdout, argv[1]) == 0)
			return KP_EXIT_OK;
		if (strcmp(argv[1], "help") && strcmp(argv[1], "version")) {
			fprintf(stderr, "kpipe: error: unknown command '%s'\n", argv[1]);
			fprintf(stderr, "run 'kpipe --help' for the commands\n");
			return KP_EXIT_USAGE;
		}
	}
	kp_strbuf list = KP_STRBUF_INIT;
	for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
		kp_strbuf_addf(&list, "  %-10s %s\n", commands[i].name, commands[i].summary);
	kp_help_overview(stdout, kp_strbuf_str(&list));
	kp_strbuf_release(&list);
	return KP_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	const char *cuda_path = NULL;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--cuda-path"))
			cuda_path = argv[i + 1];
	printf("kpipe %s (commit %s)\n", KPIPE_VERSION, KPIPE_COMMIT);
	printf("libclang: %s\n", kp_libclang_version());
	kp_cuda_env env = KP_CUDA_ENV_INIT;
	if (kp_cuda_env_find(&env, cuda_path) == 0)
		printf("CUDA: %s (%s)\n", env.version ? env.version : "unknown version", env.nvcc);
	else
		printf("CUDA: not found (%s)\n", env.error ? env.error : "no nvcc");
	printf("cuobjdump: %s\n", env.cuobjdump ? env.cuobjdump : "not found");
	printf("nvdisasm: %s\n", env.nvdisasm ? env.nvdisasm : "not found");
	kp_cuda_env_release(&env);
	return KP_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		kp_help_usage(stderr);
		return KP_EXIT_USAGE;
	}
	const char *c = argv[1];
	if (!strcmp(c, "--help") || !strcmp(c, "-h"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(c, "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
		if (!strcmp(c, commands[i].name)) {
			/* an interrupted command leaves no temporary file behind */
			kp_guard_install();
			for (int j = 2; j < argc; j++)
				if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h")) {
					char *help[] = {"help", (char *)c, NULL};
					return cmd_help(2, help);
				} else if (!strcmp(argv[j], "--"))
					break;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "kpipe: error: unknown command '%s'\n", c);
	fprintf(stderr, "run 'kpipe --help' for usage\n");
	return KP_EXIT_USAGE;
}
