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
	const char *const *opts; /* its options (cmd.h), for --list-options */
} commands[] = {
	{"analyze", cmd_analyze, "report every tiled K-loop, its budget and eligibility",
	 kp_opts_analyze},
	{"rewrite", cmd_rewrite,
	 "pipeline the eligible K-loops (registers, cp.async, bulk or TMA copies)",
	 kp_opts_rewrite},
	{"tune", cmd_tune,
	 "build every legal variant, validate and time them on the GPU, keep the fastest",
	 kp_opts_tune},
	{"validate", cmd_validate,
	 "prove a rewrite: resources, SASS overlap, GPU run, timing, sanitizers", kp_opts_validate},
	{"lsp", cmd_lsp, "language server for editors (LSP over stdin/stdout; docs/editors.md)",
	 kp_opts_lsp},
	{"version", cmd_version, "print kpipe's, libclang's and CUDA's versions", NULL},
	{"help", cmd_help, "show this overview; help COMMAND: that command's options", NULL},
};

/* The hidden options the shell completions call at completion time, as
 * clang-tidy's --list-checks (completions/, docs/design.md): the commands
 * (NAME<tab>SUMMARY), the variant names, and one command's options
 * (kp_cli_list_options).  Returns -1 when argv[1] is none of them. */
static int list(int argc, char **argv)
{
	const char *c = argv[1];
	if (!strcmp(c, "--list-commands")) {
		for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
			printf("%s\t%s\n", commands[i].name, commands[i].summary);
		return KP_EXIT_OK;
	}
	if (!strcmp(c, "--list-variants")) {
		kp_cli_list_variants(stdout);
		return KP_EXIT_OK;
	}
	if (strcmp(c, "--list-options"))
		return -1;
	if (argc != 3) {
		fprintf(stderr, "kpipe: error: usage: kpipe --list-options COMMAND\n");
		return KP_EXIT_USAGE;
	}
	for (size_t i = 0; i < KP_ARRAY_LEN(commands); i++)
		if (!strcmp(argv[2], commands[i].name)) {
			if (commands[i].opts &&
			    kp_cli_list_options(stdout, argv[2], commands[i].opts)) {
				fprintf(stderr, "kpipe: error: %s lists an unknown option\n",
					argv[2]);
				return KP_EXIT_INPUT;
			}
			return KP_EXIT_OK;
		}
	fprintf(stderr, "kpipe: error: unknown command '%s'\n", argv[2]);
	return KP_EXIT_USAGE;
}

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
	int rc = list(argc, argv);
	if (rc >= 0)
		return rc;
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
